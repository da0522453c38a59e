//! Runs each disabled hot path (P1–P3 of docs/PERFORMANCE.md, P4's event-ID rejection, and
//! P15's file read and write with no session wanting file events) `N` times in its own
//! non-inlined function, for `scripts/callgrind.sh`: valgrind's callgrind counts the
//! instructions of each function, and the script subtracts the empty loop's count and
//! divides by `N` to give instructions per call.
//!
//! The enabled write paths are counted the same way: `hp_p10_write_step64` (P10, and the
//! deterministic variant of P5: a 16-byte payload into one session whose sink discards, the
//! logger stepped with `run_pending` every 64 writes, as `benches/deterministic.rs` does),
//! `hp_p6_write_256_step64` (the same with 256 bytes) and `hp_p12_event_name_filtered` (P12:
//! a named event no session's EVENT_NAME filter-in list holds, as `benches/write_filtered.rs`
//! writes it).
//!
//! `hp_p10_single_threaded_step64` is the same as `hp_p10_write_step64` into a single-threaded
//! kernel (`KernelBuilder::single_threaded`): the single-threaded engine P10 is measured on.
//!
//! `hp_p15_file_read_recorded` is P15's recorded file read: FileIo Read and OperationEnd
//! into a system logger (FILE_IO | FILE_IO_INIT, a sink that discards) of the deterministic
//! kernel, stepped every 64 reads, as `benches/system_ops.rs` records it.
//!
//! `hp_p15_image_idle` / `hp_p15_image_recorded` are P15's image load + unload with no
//! session and recorded by the same kernel session (IMAGE_LOAD), as `benches/system_ops.rs`
//! runs them.
//!
//! `cargo run --release --example hot_paths [N]` also works on its own (it only prints N).

use etwsim::system::event_trace_flag as flag;
use etwsim::win32::{EventDataDescriptor, Win32};
use etwsim::{
    BufferInfo, EnableParams, EventDescriptor, EventFilter, FileHandle, Guid, KERNEL_LOGGER_NAME,
    Kernel, Keyword, Level, LogFileMode, NameFilter, Provider, Session, Sink, Thread, Token,
    WriteOptions,
};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

const P_NONE: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0001);
const P_LEVEL: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0002);
const P_ID: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0003);
const P_NAME: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0004);
const P_WRITE: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0005);

/// A process of `kernel` with a provider of `P_WRITE` and a thread on CPU 0, and a session
/// `name` enabling it: 64 KB buffers, at most `max_buffers`, a sink that discards.
fn one_writer(kernel: &Kernel, name: &str, max_buffers: u32) -> (Provider, Thread, Session) {
    let app = kernel
        .spawn("hot.exe", Token::user("u"))
        .expect("a process");
    let provider = app.register_provider(P_WRITE).expect("a provider");
    let thread = app.spawn_thread(0).expect("a thread");
    let session = kernel
        .session(name)
        .log_file(&format!("{name}.etl"))
        .sink(Discard)
        .buffer_size_kb(64)
        .maximum_buffers(max_buffers)
        .start()
        .expect("a session");
    session
        .enable(P_WRITE, &EnableParams::new())
        .expect("enable");
    (provider, thread, session)
}

/// A sink that drops every buffer.
struct Discard;

impl Sink for Discard {
    fn write_buffer(&mut self, buffer: &[u8], _info: &BufferInfo) -> std::io::Result<()> {
        black_box(buffer.len());
        Ok(())
    }
}

#[inline(never)]
fn hp_baseline(n: u64) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(false) {
            hits += 1;
        }
    }
    hits
}

/// The argument traffic of `hp_p1_write` alone: provider, descriptor and payload through
/// `black_box` as there, the one-block slice built, and nothing checked. `hp_p1_write` minus
/// this is the cost of the disabled check inside `write`.
#[inline(never)]
fn hp_args_p1_write(n: u64, p: &Provider, desc: &EventDescriptor, payload: &[u8]) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        let (_, d, data) = (black_box(p), black_box(desc), [black_box(payload)]);
        if black_box(d.level.0 as usize + data.len()) == 0 {
            hits += 1;
        }
    }
    hits
}

#[inline(never)]
fn hp_floor_atomic_load(n: u64, a: &AtomicU64) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(a).load(Ordering::Relaxed) != 0 {
            hits += 1;
        }
    }
    hits
}

#[inline(never)]
fn hp_p1_is_enabled(n: u64, p: &Provider) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(p).is_enabled() {
            hits += 1;
        }
    }
    hits
}

#[inline(never)]
fn hp_p1_is_enabled_for(n: u64, p: &Provider) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(p).is_enabled_for(black_box(Level::INFORMATION), Keyword(black_box(1))) {
            hits += 1;
        }
    }
    hits
}

#[inline(never)]
fn hp_p2_level_filtered(n: u64, p: &Provider) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(p).is_enabled_for(black_box(Level::VERBOSE), Keyword(black_box(1))) {
            hits += 1;
        }
    }
    hits
}

#[inline(never)]
fn hp_p1_write(n: u64, p: &Provider, desc: &EventDescriptor, payload: &[u8]) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(p)
            .write(black_box(desc), &[black_box(payload)])
            .is_err()
        {
            hits += 1;
        }
    }
    hits
}

/// `Win32::event_write` `n` times; inlined into each `hp_p3_*` so each has its own loop (a
/// different `step` per caller keeps the two from being folded into one function).
#[inline(always)]
fn p3_event_write_loop(
    step: u64,
    n: u64,
    w: &Win32,
    handle: u64,
    desc: &EventDescriptor,
    blocks: &[EventDataDescriptor<'_>],
) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(w).event_write(
            black_box(handle),
            Some(black_box(desc)),
            1,
            Some(black_box(blocks)),
        ) != 0
        {
            hits += step;
        }
    }
    hits
}

#[inline(never)]
fn hp_p3_event_write(
    n: u64,
    w: &Win32,
    handle: u64,
    desc: &EventDescriptor,
    blocks: &[EventDataDescriptor<'_>],
) -> u64 {
    p3_event_write_loop(1, n, w, handle, desc, blocks)
}

/// The same through a handle whose provider a session enables at level 4, the event at 5.
#[inline(never)]
fn hp_p3_event_write_level_filtered(
    n: u64,
    w: &Win32,
    handle: u64,
    desc: &EventDescriptor,
    blocks: &[EventDataDescriptor<'_>],
) -> u64 {
    p3_event_write_loop(2, n, w, handle, desc, blocks)
}

/// `Provider::write` `n` times, counting errors (`step` each), with the logger stepped every
/// 64 writes when `logger` is given, as `benches/deterministic.rs` does; inlined into each
/// caller so each has its own loop (a different `step` per caller keeps them apart).
#[inline(always)]
fn write_loop(
    step: u64,
    n: u64,
    logger: Option<&Kernel>,
    p: &Provider,
    desc: &EventDescriptor,
    payload: &[u8],
) -> u64 {
    let mut hits = 0;
    for i in 0..n {
        if black_box(p)
            .write(black_box(desc), &[black_box(payload)])
            .is_err()
        {
            hits += step;
        }
        if let Some(k) = logger {
            if i % 64 == 63 {
                k.run_pending();
            }
        }
    }
    hits
}

/// P4: every session's EVENT_ID filter rejects the event (the write returns `Ok`).
#[inline(never)]
fn hp_p4_event_id_filtered(n: u64, p: &Provider, desc: &EventDescriptor, payload: &[u8]) -> u64 {
    write_loop(2, n, None, p, desc, payload)
}

/// P10 / P5 deterministic: an enabled write of a 16-byte payload into one session (a sink
/// that discards), the logger stepped every 64 writes.
#[inline(never)]
fn hp_p10_write_step64(
    n: u64,
    k: &Kernel,
    p: &Provider,
    desc: &EventDescriptor,
    payload: &[u8],
) -> u64 {
    write_loop(3, n, Some(k), p, desc, payload)
}

/// P10 with the single-threaded engine: the same write into a single-threaded kernel.
#[inline(never)]
fn hp_p10_single_threaded_step64(
    n: u64,
    k: &Kernel,
    p: &Provider,
    desc: &EventDescriptor,
    payload: &[u8],
) -> u64 {
    write_loop(11, n, Some(k), p, desc, payload)
}

/// P5: the same write in a threaded kernel (its logger thread hands the buffers back); only
/// the writer's instructions are counted.
#[inline(never)]
fn hp_p5_threaded_write(n: u64, p: &Provider, desc: &EventDescriptor, payload: &[u8]) -> u64 {
    write_loop(5, n, None, p, desc, payload)
}

/// P6 deterministic: the same with a 256-byte payload.
#[inline(never)]
fn hp_p6_write_256_step64(
    n: u64,
    k: &Kernel,
    p: &Provider,
    desc: &EventDescriptor,
    payload: &[u8],
) -> u64 {
    write_loop(7, n, Some(k), p, desc, payload)
}

/// P12: a TraceLogging-style write whose name the one session's EVENT_NAME filter-in list
/// does not hold.
#[inline(never)]
fn hp_p12_event_name_filtered(
    n: u64,
    p: &Provider,
    desc: &EventDescriptor,
    opts: &WriteOptions<'_>,
    payload: &[u8],
) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(p)
            .write_with_options(black_box(desc), black_box(opts), &[black_box(payload)])
            .is_err()
        {
            hits += 1;
        }
    }
    hits
}

/// P15: a file read (NtReadFile from the cache) with no session wanting file events.
#[inline(never)]
fn hp_p15_file_read(n: u64, f: &FileHandle) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(f).read(black_box(512), black_box(512)) == 0 {
            hits += 1;
        }
    }
    hits
}

/// P15: a file write inside the file with no session wanting file events.
#[inline(never)]
fn hp_p15_file_write(n: u64, f: &FileHandle) -> u64 {
    for _ in 0..n {
        black_box(f).write(black_box(512), black_box(512));
    }
    0
}

/// P15: a file read recorded by a kernel session (FileIo Read + OperationEnd), the logger
/// stepped every 64 reads.
#[inline(never)]
fn hp_p15_file_read_recorded(n: u64, k: &Kernel, f: &FileHandle) -> u64 {
    let mut hits = 0;
    for i in 0..n {
        if black_box(f).read(black_box(512), black_box(512)) == 0 {
            hits += 1;
        }
        if i % 64 == 63 {
            k.run_pending();
        }
    }
    hits
}

/// P15: an image load + unload (`Process::load_image`, `Image::unload`); with no session
/// (`hp_p15_image_idle`, the simulated OS's own work) or recorded by the kernel session
/// (`hp_p15_image_recorded`: Image Load and Unload), the logger stepped every 64 pairs.
#[inline(always)]
fn image_loop(n: u64, k: Option<&Kernel>, p: &etwsim::Process) -> u64 {
    let mut hits = 0;
    for i in 0..n {
        match p.load_image(black_box(r"C:\Windows\System32\version.dll"), 0x1_2000) {
            Ok(image) => image.unload(),
            Err(_) => hits += 1,
        }
        if let Some(k) = k {
            if i % 64 == 63 {
                k.run_pending();
            }
        }
    }
    hits
}

#[inline(never)]
fn hp_p15_image_idle(n: u64, p: &etwsim::Process) -> u64 {
    image_loop(n, None, p)
}

#[inline(never)]
fn hp_p15_image_recorded(n: u64, k: &Kernel, p: &etwsim::Process) -> u64 {
    image_loop(n, Some(k), p)
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let kernel = Kernel::builder()
        .deterministic(5)
        .build()
        .expect("a kernel");
    let app = kernel
        .spawn("hot.exe", Token::user("u"))
        .expect("a process");
    let none = app.register_provider(P_NONE).expect("a provider");
    let by_level = app.register_provider(P_LEVEL).expect("a provider");
    let session = kernel.session("hot").start().expect("a session");
    session
        .enable(P_LEVEL, &EnableParams::new().level(Level::INFORMATION))
        .expect("enable");
    let win32 = Win32::new(&app);
    let mut handle = 0u64;
    assert_eq!(
        win32.event_register(Some(&P_NONE), None, 0, Some(&mut handle)),
        0
    );
    let mut h_level = 0u64;
    assert_eq!(
        win32.event_register(Some(&P_LEVEL), None, 0, Some(&mut h_level)),
        0
    );
    assert!(
        win32.event_provider_enabled(h_level, 4, 1) && !win32.event_provider_enabled(h_level, 5, 1)
    );
    let by_id = app.register_provider(P_ID).expect("a provider");
    session
        .enable(
            P_ID,
            &EnableParams::new().filter(EventFilter::EventId {
                filter_in: true,
                ids: vec![99],
            }),
        )
        .expect("enable");
    let zero = AtomicU64::new(0);
    let desc = EventDescriptor::new(7, Level::INFORMATION, Keyword(1));
    let payload = [0x5au8; 16];
    let blocks = [EventDataDescriptor::new(&payload)];

    let mut hits = hp_baseline(n);
    hits += hp_floor_atomic_load(n, &zero);
    hits += hp_p1_is_enabled(n, &none);
    hits += hp_p1_is_enabled_for(n, &none);
    hits += hp_p2_level_filtered(n, &by_level);
    hits += hp_args_p1_write(n, &none, &desc, &payload);
    hits += hp_p1_write(n, &none, &desc, &payload);
    hits += hp_p3_event_write(n, &win32, handle, &desc, &blocks);
    let verbose = EventDescriptor::new(7, Level::VERBOSE, Keyword(1));
    hits += hp_p3_event_write_level_filtered(n, &win32, h_level, &verbose, &blocks);
    // Every rejected write returns Ok: no error counted.
    hits += hp_p4_event_id_filtered(n, &by_id, &desc, &payload);

    // P12: EVENT_NAME filter-in "Keep", the event named "Skip".
    let by_name = app.register_provider(P_NAME).expect("a provider");
    session
        .enable(
            P_NAME,
            &EnableParams::new().filter(EventFilter::EventName(NameFilter {
                match_any: Keyword(0),
                match_all: Keyword(0),
                level: Level(0),
                filter_in: true,
                names: vec!["Keep".into()],
            })),
        )
        .expect("enable");
    let skip = WriteOptions {
        event_name: Some("Skip"),
        ..WriteOptions::default()
    };
    hits += hp_p12_event_name_filtered(n, &by_name, &desc, &skip, &payload);

    // P10 / P5 / P6 (deterministic): one session of its own, a sink that discards.
    let det = app.register_provider(P_WRITE).expect("a provider");
    let thread = app.spawn_thread(0).expect("a thread");
    let _t = thread.enter();
    let s = kernel
        .session("p10")
        .log_file("p10.etl")
        .sink(Discard)
        .buffer_size_kb(64)
        .maximum_buffers(256)
        .start()
        .expect("a session");
    s.enable(P_WRITE, &EnableParams::new()).expect("enable");
    hits += hp_p10_write_step64(n, &kernel, &det, &desc, &payload);
    let big = [0x5au8; 256];
    hits += hp_p6_write_256_step64(n, &kernel, &det, &desc, &big);
    assert_eq!(s.stop().expect("stop").events_lost, 0);

    // P10 with the single-threaded engine: the same in a single-threaded kernel.
    let single = Kernel::builder()
        .deterministic(5)
        .single_threaded()
        .build()
        .expect("a kernel");
    let (sp, sthread, ss) = one_writer(&single, "p10", 256);
    let _st = sthread.enter();
    hits += hp_p10_single_threaded_step64(n, &single, &sp, &desc, &payload);
    assert_eq!(ss.stop().expect("stop").events_lost, 0);

    // P5: a threaded kernel, the same session shape.
    // Buffers for every event (see the session below): above the kernel's default caps on a
    // session's buffers at a million events.
    let p5_buffers = u32::try_from(n * 96 / 65_000 + 16).unwrap_or(u32::MAX);
    let threaded = Kernel::builder()
        .threaded()
        .max_buffers_cap(p5_buffers)
        .max_session_buffer_bytes(u64::from(p5_buffers) * 65_536)
        .build()
        .expect("a kernel");
    // Room for every event even if the logger thread never ran (valgrind runs one thread at a
    // time): every write counted is a stored one. A 16-byte event takes 96 bytes.
    let (tp, tthread, ts) = one_writer(&threaded, "p5", p5_buffers);
    let _tt = tthread.enter();
    hits += hp_p5_threaded_write(n, &tp, &desc, &payload);
    assert_eq!(ts.stop().expect("stop").events_lost, 0);

    // P15: a file read and a file write no session wants.
    let file = app.open_file(r"C:\data\hot.txt").expect("a file");
    file.write(0, 4096);
    hits += hp_p15_file_read(n, &file);
    hits += hp_p15_file_write(n, &file);
    hits += hp_p15_image_idle(n, &app);

    // P15: the same read recorded by a kernel session.
    let admin = kernel
        .spawn("xperf.exe", Token::administrator("admin"))
        .expect("a process");
    let ks = kernel
        .session(KERNEL_LOGGER_NAME)
        .mode(LogFileMode::SYSTEM_LOGGER)
        .enable_flags(flag::FILE_IO | flag::FILE_IO_INIT | flag::IMAGE_LOAD)
        .log_file("p15.etl")
        .sink(Discard)
        .buffer_size_kb(64)
        .maximum_buffers(256)
        .caller(&admin)
        .start()
        .expect("the kernel session");
    hits += hp_p15_file_read_recorded(n, &kernel, &file);
    hits += hp_p15_image_recorded(n, &kernel, &app);
    assert_eq!(ks.stop().expect("stop").events_lost, 0);
    assert_eq!(hits, 0);
    println!("hot_paths: {n} calls per path");
}
