//! P10: a deterministic kernel, one thread, `Provider::write` of a 16-byte payload into one
//! session (a sink that discards, 64 KB buffers, MaximumBuffers 256) with the logger stepped
//! by `Kernel::run_pending` every N writes, inside the timing. Target: ≤ 4 × the bump-copy
//! floor (80-byte header + payload, plain bump pointer) per event, same run.
//!
//! Configurations (group `deterministic`): `floor_bump_copy`, `model_documented_work` (not a
//! floor: the documented work of one event in straight-line code with the engine's atomics,
//! to show how far an implementation doing only that could go), `model_documented_work_unlocked`
//! (the same with plain loads and stores for its locked instructions), `step_every_16`,
//! `step_every_64`, `step_every_256`. EventsLost is printed at the end; it must be 0.
//! Commands and results: docs/PERFORMANCE.md.

#[path = "p5_p10/support.rs"]
mod support;

use criterion::{Criterion, Throughput};
use etwsim::EnableProperty;
use std::hint::black_box;
use support::{DocumentedWork, Floor, Machine, descriptor};

const PAYLOAD: usize = 16;

fn bench(c: &mut Criterion) {
    let m = Machine::new(false, 2);
    let _t = m.threads[0].enter();
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
    for (name, step) in [
        ("step_every_16", 16u64),
        ("step_every_64", 64),
        ("step_every_256", 256),
    ] {
        let s = m.session(&format!("p10_{step}"), EnableProperty::empty(), 256);
        let mut n = 0u64;
        g.bench_function(name, |b| {
            b.iter(|| {
                let r = m.provider.write(&desc, &[black_box(&payload)]);
                n += 1;
                if n % step == 0 {
                    m.kernel.run_pending();
                }
                r
            })
        });
        losses.push((name, s.stop().expect("stop").events_lost));
    }
    // The same writes into a single-threaded kernel (`KernelBuilder::single_threaded`): the
    // single-threaded engine.
    let st = Machine::single_threaded(2);
    let _t = st.threads[0].enter();
    for (name, step) in [
        ("single_threaded_step_every_16", 16u64),
        ("single_threaded_step_every_64", 64),
        ("single_threaded_step_every_256", 256),
    ] {
        let s = st.session(&format!("p10_single_{step}"), EnableProperty::empty(), 256);
        let mut n = 0u64;
        g.bench_function(name, |b| {
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
    }
    g.finish();
    println!("\nEventsLost (must be 0):");
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
