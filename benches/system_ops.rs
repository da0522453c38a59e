//! P15: simulated OS operations and the kernel's system providers, against their floors in
//! the same criterion run.
//!
//! * `system_ops/idle` — no session wants the operation (no kernel session at all). One
//!   iteration runs `CALLS` operations in a loop; the time per operation is the iteration
//!   time / `CALLS`. Target: ≤ 2× `floor_atomic_load`, P1's floor (a relaxed `AtomicU64`
//!   load + branch, as `benches/enabled_check.rs` measures it).
//!   * `file_read` — `FileHandle::read` (NtReadFile from the cache: FileIo Read + OperationEnd
//!     when recorded).
//!   * `file_write` — `FileHandle::write` (the file's size is updated as well).
//!   * `image_load_unload` — `Process::load_image` + `Image::unload`: the simulated OS maps
//!     and unmaps the image (path conversion, the process's image table) whether or not
//!     anyone listens, so this one measures the OS's own work, not a check; for context.
//! * `system_ops/file_read`, `system_ops/image` — the same operation recorded by a kernel
//!   session (a system-logger session with FILE_IO | FILE_IO_INIT | IMAGE_LOAD, 64 KB buffers
//!   handed to a sink that discards them, on a deterministic kernel whose logger is stepped
//!   every `STEP` operations: P10's set-up, so that no event is lost on a loaded machine), one
//!   operation per iteration, against `floor_provider_write`: `Provider::write` of payloads of
//!   the same sizes (one write per event the operation records: FileIo Read 67 and
//!   OperationEnd 76; Image Load 10 and Unload 2) into a session of the same kind, stepped
//!   the same way. Target: ≤ 1.2× the floor. `no_session` is the same operation on the same
//!   kernel, stepped the same way, with no session at all: `kernel_session` − `no_session` is
//!   what recording adds, against the same floor.
//!
//! The payload sizes are measured at start: the operation is recorded once by a deterministic
//! kernel session and its records' payload lengths read back. Commands: docs/PERFORMANCE.md.

#[path = "p5_p10/support.rs"]
mod support;

use criterion::{Criterion, Throughput};
use etwsim::etl::{LogFile, Record};
use etwsim::system::event_trace_flag as flag;
use etwsim::{KERNEL_LOGGER_NAME, Kernel, LogFileMode, Process, Session, Token};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use support::{Discard, Failures, Machine, descriptor};

/// Operations per iteration of the idle group.
const CALLS: u64 = 1_000;
/// The recorded groups: `run_pending` every this many operations (as P10's bench).
const STEP: u64 = 64;

/// The kernel flags of the recording session.
const FLAGS: u32 = flag::FILE_IO | flag::FILE_IO_INIT | flag::IMAGE_LOAD;

const IMAGE: &str = r"C:\Windows\System32\version.dll";

/// One file read of 512 bytes at 512; the bytes read.
#[inline(always)]
fn file_read(f: &etwsim::FileHandle) -> u32 {
    f.read(512, 512)
}

/// One image mapped and unmapped.
fn image_load_unload(p: &Process) {
    p.load_image(black_box(IMAGE), 0x1_2000)
        .expect("an image")
        .unload();
}

/// Runs `op` `CALLS` times, each time on `on` passed through `black_box` (so every call
/// reloads what it reads, as the floor's atomic is reloaded); the sum of the results is kept
/// alive.
#[inline(always)]
fn run<T>(on: &T, op: impl Fn(&T) -> u64) {
    let mut sum = 0u64;
    for _ in 0..CALLS {
        sum += op(black_box(on));
    }
    black_box(sum);
}

/// The payload lengths of the system records `op` writes (on what `setup` made before the
/// session started), recorded once by a deterministic kernel session (in the simulated disk)
/// and read back.
fn payload_sizes<T>(setup: impl FnOnce(&Process) -> T, op: impl FnOnce(&T)) -> Vec<usize> {
    let k = Kernel::builder()
        .deterministic(15)
        .build()
        .expect("a kernel");
    let admin = k
        .spawn("xperf.exe", Token::administrator("admin"))
        .expect("a process");
    let app = k
        .spawn("bench.exe", Token::user("bench"))
        .expect("a process");
    let t = app.spawn_thread(0).expect("a thread");
    let _on = t.enter();
    let on = setup(&app);
    let s = k
        .session(KERNEL_LOGGER_NAME)
        .enable_flags(FLAGS)
        .log_file("sizes.etl")
        .caller(&admin)
        .start()
        .expect("the kernel session starts");
    op(&on);
    s.stop().expect("stop");
    let mut file = LogFile::from_bytes("sizes.etl", k.disk().read("sizes.etl").expect("the file"))
        .expect("the file opens");
    let records: Vec<Record> = file.records().collect::<Result<_, _>>().expect("records");
    records
        .iter()
        .filter_map(|r| match r {
            // What the session writes by itself (rundown) is the System process's.
            Record::Trace(t) if t.process_id == Some(app.pid()) => Some(t.payload.len()),
            _ => None,
        })
        .collect()
}

/// A kernel session of `machine` with FLAGS, buffers discarded.
fn kernel_session(machine: &Machine, admin: &Process) -> Session {
    machine
        .kernel
        .session(KERNEL_LOGGER_NAME)
        .mode(LogFileMode::SYSTEM_LOGGER)
        .enable_flags(FLAGS)
        .log_file("system_ops.etl")
        .sink(Discard)
        .buffer_size_kb(64)
        .maximum_buffers(256)
        .caller(admin)
        .start()
        .expect("the kernel session starts")
}

fn bench(c: &mut Criterion) {
    let machine = Machine::new(true, 1);
    let _t = machine.threads[0].enter();
    let file = machine
        .app
        .open_file(r"C:\data\report.txt")
        .expect("a file");
    file.write(0, 4096);

    let read_sizes = payload_sizes(
        |p| {
            let f = p.open_file(r"C:\data\sizes.txt").expect("a file");
            f.write(0, 4096);
            f
        },
        |f| {
            file_read(f);
        },
    );
    let image_sizes = payload_sizes(|p| p.clone(), image_load_unload);
    assert_eq!(read_sizes.len(), 2, "a file read records two events");
    assert_eq!(
        image_sizes.len(),
        2,
        "an image load and unload record two events"
    );

    // --- idle: no session wants the operation. ---
    let zero = AtomicU64::new(0);
    let mut g = c.benchmark_group("system_ops/idle");
    g.throughput(Throughput::Elements(CALLS));
    g.bench_function("floor_atomic_load", |b| {
        b.iter(|| run(&zero, |z| u64::from(z.load(Ordering::Relaxed) != 0)))
    });
    g.bench_function("file_read", |b| {
        b.iter(|| run(&file, |f| u64::from(file_read(f))))
    });
    g.bench_function("file_write", |b| {
        b.iter(|| {
            run(&file, |f| {
                f.write(512, 512);
                1
            })
        })
    });
    g.bench_function("image_load_unload", |b| {
        b.iter(|| {
            run(&machine.app, |p| {
                image_load_unload(p);
                1
            })
        })
    });
    g.finish();

    // --- recorded by a kernel session, against provider writes of the same sizes. ---
    // A deterministic kernel (P10's set-up): no logger thread competing for the CPU, the
    // logger stepped every STEP operations on both sides, so nothing is lost and neither
    // side gets cheaper by losing events.
    let det = Machine::new(false, 1);
    let _d = det.threads[0].enter();
    let det_admin = det
        .kernel
        .spawn("xperf.exe", Token::administrator("admin"))
        .expect("a process");
    let det_file = det.app.open_file(r"C:\data\report.txt").expect("a file");
    det_file.write(0, 4096);
    let desc = descriptor();
    let mut losses = Vec::new();
    for (name, sizes) in [("file_read", &read_sizes), ("image", &image_sizes)] {
        let payloads: Vec<Vec<u8>> = sizes.iter().map(|n| vec![0x5au8; *n]).collect();
        let mut g = c.benchmark_group(format!("system_ops/{name}"));
        g.throughput(Throughput::Elements(1));
        let s = det.session(&format!("p15_{name}"), etwsim::EnableProperty::empty(), 256);
        let mut n = 0u64;
        let mut failures = Failures::default();
        g.bench_function("floor_provider_write", |b| {
            b.iter(|| {
                for p in &payloads {
                    failures.check(det.provider.write(&desc, &[black_box(p)]));
                }
                n += 1;
                if n % STEP == 0 {
                    det.kernel.run_pending();
                }
            })
        });
        failures.report(&format!("{name}/provider"));
        losses.push((
            format!("{name}/provider"),
            s.stop().expect("stop").events_lost,
        ));
        let mut n = 0u64;
        let mut op = || {
            if name == "file_read" {
                file_read(black_box(&det_file));
            } else {
                image_load_unload(&det.app);
            }
            n += 1;
            if n % STEP == 0 {
                det.kernel.run_pending();
            }
        };
        // The same operation on the same kernel with no session: what the OS does by itself,
        // so that `kernel_session` − `no_session` is what recording adds.
        g.bench_function("no_session", |b| b.iter(&mut op));
        let s = kernel_session(&det, &det_admin);
        g.bench_function("kernel_session", |b| b.iter(&mut op));
        losses.push((
            format!("{name}/kernel"),
            s.stop().expect("stop").events_lost,
        ));
        g.finish();
    }
    for (name, lost) in losses {
        if lost > 0 {
            eprintln!("system_ops: {name}: {lost} events lost");
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
