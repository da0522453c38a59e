//! Runs each disabled hot path (P1–P3 of docs/perf-p1-p4.md, P4's event-ID rejection, and P15's file read
//! and write with no session wanting file events) `N` times in its own
//! non-inlined function, for `scripts/callgrind.sh`: valgrind's callgrind counts the
//! instructions of each function, and the script subtracts the empty loop's count and
//! divides by `N` to give instructions per call.
//!
//! `cargo run --release --example hot_paths [N]` also works on its own (it only prints N).

use etwsim::win32::{EventDataDescriptor, Win32};
use etwsim::{
    EnableParams, EventDescriptor, EventFilter, FileHandle, Guid, Kernel, Keyword, Level, Provider,
    Token,
};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

const P_NONE: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0001);
const P_LEVEL: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0002);
const P_ID: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0005_0003);

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

#[inline(never)]
fn hp_p4_event_id_filtered(n: u64, p: &Provider, desc: &EventDescriptor, payload: &[u8]) -> u64 {
    let mut hits = 0;
    for _ in 0..n {
        if black_box(p)
            .write(black_box(desc), &[black_box(payload)])
            .is_ok()
        {
            hits += 2;
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
    let accepted = hp_p4_event_id_filtered(n, &by_id, &desc, &payload);
    let file = app.open_file(r"C:\data\hot.txt").expect("a file");
    file.write(0, 4096);
    hits += hp_p15_file_read(n, &file);
    hits += hp_p15_file_write(n, &file);
    assert_eq!(hits, 0);
    assert_eq!(accepted, 2 * n, "every rejected write returns Ok");
    println!("hot_paths: {n} calls per path");
}
