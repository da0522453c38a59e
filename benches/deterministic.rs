//! P10: a deterministic kernel, one thread, `Provider::write` of a 16-byte payload into one
//! session (a sink that discards, 64 KB buffers, MaximumBuffers 256) with the logger stepped
//! by `Kernel::run_pending` every N writes, inside the timing. Target: ≤ 4 × the bump-copy
//! floor (80-byte header + payload, plain bump pointer) per event, same run.
//!
//! Configurations (group `deterministic`): `floor_bump_copy`, `model_documented_work` (not a
//! floor: the documented work of one event in straight-line code with the engine's atomics,
//! to show how far an implementation doing only that could go), `model_documented_work_unlocked`
//! (the same with plain loads and stores for its locked instructions), `step_every_16`,
//! `step_every_64`, `step_every_256`, the same into a single-threaded kernel
//! (`single_threaded_step_every_*`), and `single_threaded_step_every_64_result_returned`, the
//! harness of earlier runs (see `support::Failures`). Every timed write must succeed, and
//! EventsLost, printed at the end, must be 0.
//! Commands and results: docs/PERFORMANCE.md.

#[path = "p5_p10/support.rs"]
mod support;

use criterion::{Criterion, Throughput};
use etwsim::EnableProperty;
use std::hint::black_box;
use support::{DocumentedWork, Failures, Floor, Machine, descriptor};

const PAYLOAD: usize = 16;

fn bench(c: &mut Criterion) {
    let m = Machine::new(false, 2);
    let desc = descriptor();
    let payload = [0x5au8; PAYLOAD];
    let mut floor = Floor::new();
    let mut losses = Vec::new();
    let mut g = c.benchmark_group("deterministic");
    g.throughput(Throughput::Elements(1));
    g.bench_function("floor_bump_copy", |b| {
        b.iter(|| floor.bump(black_box(&payload)))
    });
    // Not a floor of the target: the documented work alone (see `DocumentedWork`).
    let mut model = DocumentedWork::new();
    g.bench_function("model_documented_work", |b| {
        b.iter(|| model.write::<true>(black_box(&desc), black_box(&payload)))
    });
    let mut model = DocumentedWork::new();
    g.bench_function("model_documented_work_unlocked", |b| {
        b.iter(|| model.write::<false>(black_box(&desc), black_box(&payload)))
    });
    // The same writes into a plain deterministic kernel (the shared path) and into a
    // single-threaded one (`KernelBuilder::single_threaded`: the single-threaded engine).
    let st = Machine::single_threaded(2);
    for (machine, prefix) in [(&m, ""), (&st, "single_threaded_")] {
        let _t = machine.threads[0].enter();
        for step in [16u64, 64, 256] {
            let name = format!("{prefix}step_every_{step}");
            let s = machine.session(&format!("p10_{name}"), EnableProperty::empty(), 256);
            let mut n = 0u64;
            let mut failures = Failures::default();
            g.bench_function(&name, |b| {
                b.iter(|| {
                    failures.check(machine.provider.write(&desc, &[black_box(&payload)]));
                    n += 1;
                    if n % step == 0 {
                        machine.kernel.run_pending();
                    }
                })
            });
            failures.report(&name);
            losses.push((name, s.stop().expect("stop").events_lost));
        }
    }
    // Earlier runs' harness, kept to measure it (docs/PERFORMANCE.md, "The harness"): the
    // closure returns the write's result for criterion to `black_box` (see `Failures`).
    let _t = st.threads[0].enter();
    let name = "single_threaded_step_every_64_result_returned".to_owned();
    let s = st.session("p10_result_returned", EnableProperty::empty(), 256);
    let (mut n, step) = (0u64, black_box(64u64));
    g.bench_function(&name, |b| {
        b.iter(|| {
            let r = st.provider.write(&desc, &[black_box(&payload)]);
            n += 1;
            if n % step == 0 {
                st.kernel.run_pending();
            }
            r
        })
    });
    losses.push((name, s.stop().expect("stop").events_lost));
    g.finish();
    println!("\nEventsLost (must be 0):");
    for (name, l) in losses {
        println!("  {name:<46} {l}");
    }
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
