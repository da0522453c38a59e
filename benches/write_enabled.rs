//! P5, P6: an enabled write into one session — `Provider::write` with a 0 / 16 / 256 /
//! 4096-byte payload — against the floors measured in the same run, and the `tracing` peer.
//!
//! Per payload size (group `write_enabled/<size>B`), configurations:
//!
//! * `floor_bump_copy` — copy an 80-byte header + the payload into a 1 MiB buffer with a
//!   plain bump pointer (no atomics, no timestamp);
//! * `floor_atomic_copy` — the same with a lock-free `fetch_add` reservation;
//! * `floor_atomic_ts_copy` — the same with an `Instant::now()` timestamp, as the threaded
//!   clock takes one: **the P5/P6 floor**;
//! * `threaded` / `threaded_ext` — a threaded kernel, one session writing to a sink that
//!   discards (so its logger thread hands buffers back), 64 KB buffers, MaximumBuffers 256;
//!   `_ext` enables the provider with EnableProperty SID | TS_ID | EVENT_KEY (three extended
//!   items per event);
//! * `deterministic` / `deterministic_ext` — the same in a deterministic kernel, the logger
//!   stepped with `Kernel::run_pending` every 64 writes (inside the timing);
//! * `tracing_peer` — `tracing::info!(payload = &bytes[..])` with a minimal subscriber that
//!   copies an 80-byte header + the payload into a bump buffer.
//!
//! EventsLost of every session is printed at the end; it must be 0. No timing is asserted.
//! Commands and results: docs/PERFORMANCE.md.

#[path = "p5_p10/support.rs"]
mod support;

use criterion::{BenchmarkId, Criterion, Throughput};
use etwsim::EnableProperty;
use std::cell::RefCell;
use std::hint::black_box;
use support::{EXT, Failures, Floor, HEADER, Machine, descriptor};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

const SIZES: [usize; 4] = [0, 16, 256, 4096];
/// Deterministic mode: `run_pending` every this many writes.
const STEP: u64 = 64;

thread_local! {
    static PEER_FLOOR: RefCell<Floor> = RefCell::new(Floor::new());
}

/// The smallest useful subscriber: every event enabled, its byte field copied after an
/// 80-byte header into a bump buffer.
struct CopySubscriber;

struct CopyVisitor;

impl Visit for CopyVisitor {
    fn record_bytes(&mut self, _field: &Field, value: &[u8]) {
        PEER_FLOOR.with(|f| f.borrow_mut().bump(value));
    }
    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

impl Subscriber for CopySubscriber {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        event.record(&mut CopyVisitor);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn bench(c: &mut Criterion) {
    let threaded = Machine::new(true, 2);
    let det = Machine::new(false, 2);
    // The innermost entered thread is the writer: the threaded kernel's here, the
    // deterministic kernel's while its guard below lives.
    let _t = threaded.threads[0].enter();
    let mut losses = Vec::new();
    let desc = descriptor();
    let mut floor = Floor::new();

    for size in SIZES {
        let payload = vec![0x5au8; size];
        let mut g = c.benchmark_group(format!("write_enabled/{size}B"));
        g.throughput(Throughput::Bytes((HEADER + size) as u64));
        g.bench_function("floor_bump_copy", |b| {
            b.iter(|| floor.bump(black_box(&payload)))
        });
        g.bench_function("floor_atomic_copy", |b| {
            b.iter(|| floor.atomic(black_box(&payload)))
        });
        g.bench_function("floor_atomic_ts_copy", |b| {
            b.iter(|| floor.atomic_ts(black_box(&payload)))
        });

        // One session at a time: a second enabled session would double the work.
        for (name, props) in [("threaded", EnableProperty::empty()), ("threaded_ext", EXT)] {
            let s = threaded.session(&format!("p5_{name}"), props, 256);
            let mut failures = Failures::default();
            g.bench_function(name, |b| {
                b.iter(|| failures.check(threaded.provider.write(&desc, &[black_box(&payload)])))
            });
            failures.report(&format!("{name}/{size}B"));
            losses.push((
                format!("{name}/{size}B"),
                s.stop().expect("stop").events_lost,
            ));
        }

        for (name, props) in [
            ("deterministic", EnableProperty::empty()),
            ("deterministic_ext", EXT),
        ] {
            let _d = det.threads[0].enter();
            let s = det.session(&format!("p10_{name}"), props, 256);
            let mut n = 0u64;
            let mut failures = Failures::default();
            g.bench_function(name, |b| {
                b.iter(|| {
                    failures.check(det.provider.write(&desc, &[black_box(&payload)]));
                    n += 1;
                    if n % STEP == 0 {
                        det.kernel.run_pending();
                    }
                })
            });
            failures.report(&format!("{name}/{size}B"));
            losses.push((
                format!("{name}/{size}B"),
                s.stop().expect("stop").events_lost,
            ));
        }

        tracing::subscriber::with_default(CopySubscriber, || {
            g.bench_with_input(BenchmarkId::new("tracing_peer", size), &payload, |b, p| {
                b.iter(|| tracing::info!(payload = &black_box(p)[..]))
            });
        });
        g.finish();
    }
    println!("\nEventsLost per session (must be 0):");
    for (name, l) in losses {
        println!("  {name:<28} {l}");
    }
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
