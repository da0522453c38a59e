//! P8: 1 and 2 writer OS threads, each entered as a simulated thread on its own CPU (0, 1),
//! writing 16-byte events into one session of a threaded kernel (a sink that discards, 64 KB
//! buffers, MaximumBuffers 256). Target: aggregate throughput with 2 threads ≥ 1.7 × 1.
//!
//! `iter_custom`: the writer threads are spawned before the clock starts and wait on a
//! barrier; the time is from the barrier's release to the last writer's end (a second
//! barrier). Each writer writes `iters` events, so criterion's throughput (elements = the
//! number of writers) is the aggregate events/s. Configurations (group `scaling`):
//! `one_thread`, `two_threads`; and `floor_atomic_ts_copy_1t` / `_2t`, the same harness
//! around the reservation + timestamp + copy floor (one shared atomic reservation, each
//! thread its own destination buffer), to show what the machine itself scales to.
//! EventsLost is printed at the end; it must be 0. Commands and results: docs/PERFORMANCE.md.

#[path = "p5_p10/support.rs"]
mod support;

use criterion::{Criterion, Throughput};
use etwsim::EnableProperty;
use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::{Failures, HEADER, Machine, descriptor};

const PAYLOAD: usize = 16;

/// Runs `work(writer, iters)` on `writers` threads spawned outside the timing.
fn timed(writers: usize, iters: u64, work: &(dyn Fn(usize, u64) + Sync)) -> Duration {
    let start = Barrier::new(writers + 1);
    let end = Barrier::new(writers + 1);
    std::thread::scope(|s| {
        for w in 0..writers {
            let (start, end) = (&start, &end);
            s.spawn(move || {
                start.wait();
                work(w, iters);
                end.wait();
            });
        }
        start.wait();
        let t = Instant::now();
        end.wait();
        t.elapsed()
    })
}

fn bench(c: &mut Criterion) {
    let m = Machine::new(true, 2);
    let s = m.session("p8", EnableProperty::empty(), 256);
    let desc = descriptor();
    let payload = [0x5au8; PAYLOAD];
    let write = |w: usize, iters: u64| {
        let _t = m.threads[w].enter();
        let mut failures = Failures::default();
        for _ in 0..iters {
            failures.check(m.provider.write(&desc, &[black_box(&payload)]));
        }
        failures.report("p8");
    };
    // The floor under the same harness: one shared atomic reservation, per-thread buffers.
    let reserve = AtomicUsize::new(0);
    let origin = Instant::now();
    let floor = |_w: usize, iters: u64| {
        const CAP: usize = 1 << 20;
        let mut buf = vec![0u8; CAP];
        let header = [0x11u8; HEADER];
        let len = HEADER + PAYLOAD;
        for _ in 0..iters {
            let mut off = reserve.fetch_add(len, Ordering::Relaxed) % (CAP - len);
            off -= off % 8;
            let ts = origin.elapsed().as_nanos() as u64;
            let dst = &mut buf[off..off + len];
            dst[..HEADER].copy_from_slice(&header);
            dst[16..24].copy_from_slice(&ts.to_le_bytes());
            dst[HEADER..].copy_from_slice(black_box(&payload));
        }
        black_box(&buf);
    };
    let mut g = c.benchmark_group("scaling");
    for (name, writers) in [
        ("floor_atomic_ts_copy_1t", 1),
        ("floor_atomic_ts_copy_2t", 2),
    ] {
        g.throughput(Throughput::Elements(writers as u64));
        g.bench_function(name, |b| {
            b.iter_custom(|iters| timed(writers, iters, &floor))
        });
    }
    for (name, writers) in [("one_thread", 1), ("two_threads", 2)] {
        g.throughput(Throughput::Elements(writers as u64));
        g.bench_function(name, |b| {
            b.iter_custom(|iters| timed(writers, iters, &write))
        });
    }
    g.finish();
    println!(
        "\nEventsLost (must be 0): {}",
        s.stop().expect("stop").events_lost
    );
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
