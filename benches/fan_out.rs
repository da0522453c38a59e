//! P7: one provider enabled in 1, 2, 4 and 8 sessions (a threaded kernel, each session
//! writing to a sink that discards, 64 KB buffers, MaximumBuffers 256), 16-byte payload.
//! Target: the eight-session write ≤ 1.1 × 8 × the one-session write, same run.
//!
//! Configurations (group `fan_out`): `one_session`, `two_sessions`, `four_sessions`,
//! `eight_sessions`, and the floor `floor_atomic_ts_copy` (reservation + timestamp + copy of
//! the 96 bytes). EventsLost of every session is printed at the end; it must be 0.
//! Commands and results: docs/PERFORMANCE.md.

#[path = "p5_p10/support.rs"]
mod support;

use criterion::{Criterion, Throughput};
use etwsim::EnableProperty;
use std::hint::black_box;
use support::{Failures, Floor, Machine, descriptor};

const PAYLOAD: usize = 16;

fn bench(c: &mut Criterion) {
    let m = Machine::new(true, 2);
    let _t = m.threads[0].enter();
    let desc = descriptor();
    let payload = [0x5au8; PAYLOAD];
    let mut floor = Floor::new();
    let mut losses = Vec::new();
    let mut g = c.benchmark_group("fan_out");
    g.throughput(Throughput::Elements(1));
    g.bench_function("floor_atomic_ts_copy", |b| {
        b.iter(|| floor.atomic_ts(black_box(&payload)))
    });
    for (name, n) in [
        ("one_session", 1),
        ("two_sessions", 2),
        ("four_sessions", 4),
        ("eight_sessions", 8),
    ] {
        let sessions: Vec<_> = (0..n)
            .map(|i| m.session(&format!("p7_{n}_{i}"), EnableProperty::empty(), 256))
            .collect();
        let mut failures = Failures::default();
        g.bench_function(name, |b| {
            b.iter(|| failures.check(m.provider.write(&desc, &[black_box(&payload)])))
        });
        failures.report(name);
        let lost: u32 = sessions
            .iter()
            .map(|s| s.stop().expect("stop").events_lost)
            .sum();
        losses.push((name, lost));
    }
    g.finish();
    println!("\nEventsLost summed over the sessions (must be 0):");
    for (name, l) in losses {
        println!("  {name:<16} {l}");
    }
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
