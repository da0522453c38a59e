//! P24 (docs/PERF.md): a scenario's cost per write and per step, from 1,000 to 1,000,000
//! writes and from 1,000 to 100,000 steps. Each configuration loads and runs a generated
//! scenario — parsing, checking, the deterministic kernel, the run's journal, its write
//! records, its output files and its expectations — and criterion reports the time per
//! element (`Throughput::Elements`): flat figures across the sizes mean the cost is linear
//! in the work.
//!
//! * `writes/N`: one `write` step with `count = N`, one event every 10 µs of virtual time
//!   into a file session (so the logger keeps up and every event is recorded), a 16-byte
//!   payload; the journal keeps its default 200,000 entries, so past that each write also
//!   lets go of the oldest entry.
//! * `steps/N`: N steps cycling through `write`, `advance`, `run_logger` and `flush` (4 KB
//!   buffers, so each flush writes 4 KB of file).
//!
//! ```sh
//! cargo bench -p etwsim-scenario --bench scenario            # the figures
//! cargo bench -p etwsim-scenario --bench scenario -- --test  # each configuration once
//! ```
//!
//! Few samples and a short measurement (the largest configurations take about a second an
//! iteration): these show how cost grows, not a nanosecond-exact figure.

use criterion::{BenchmarkId, Criterion, Throughput};
use etwsim_scenario::Scenario;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const HEAD: &str = r#"
[[process]]
name = "app"

[[provider]]
name = "P"
process = "app"

[[session]]
name = "S"
log_file = "s.etl"
buffer_size_kb = 64

[[enable]]
session = "S"
provider = "P"
"#;

/// One write step of `n` events, and what it should record.
fn writes(n: u64) -> String {
    format!(
        "{HEAD}\n[[step]]\nwrite = \"P\"\ncount = {n}\nevery = \"10us\"\npayload_size = 16\n\n\
         [[expect.session]]\nname = \"S\"\nevents = {n}\n"
    )
}

/// `n` steps: write, advance, run the logger, flush, and again. The session's buffers are
/// 4 KB here: each `flush` writes out a buffer holding one event, so the file grows by a
/// buffer every four steps (with 64 KB buffers the figure would be that of writing 64 KB of
/// file per flush, not of the steps).
fn steps(n: usize) -> String {
    let mut text = HEAD.replace("buffer_size_kb = 64", "buffer_size_kb = 4");
    for i in 0..n {
        text.push_str(match i % 4 {
            0 => "\n[[step]]\nwrite = \"P\"\n",
            1 => "\n[[step]]\nadvance = \"10us\"\n",
            2 => "\n[[step]]\nrun_logger = true\n",
            _ => "\n[[step]]\nflush = \"S\"\n",
        });
    }
    text.push_str(&format!(
        "\n[[expect.session]]\nname = \"S\"\nevents = {}\n",
        n.div_ceil(4)
    ));
    text
}

/// Loads and runs `text`; the run must pass (a bench of a failing run measures nothing
/// useful).
fn load_and_run(text: &str) -> usize {
    let sc = Scenario::parse(text, "bench.toml", Path::new(".")).expect("the scenario loads");
    let o = sc.run();
    assert!(o.passed(), "{:?} {:?}", o.aborted, o.failures().next());
    o.journal.len()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("scenario_writes");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [1_000u64, 10_000, 100_000, 1_000_000] {
        let text = writes(n);
        g.throughput(Throughput::Elements(n));
        g.bench_with_input(BenchmarkId::new("writes", n), &text, |b, text| {
            b.iter(|| black_box(load_and_run(text)));
        });
    }
    g.finish();

    let mut g = c.benchmark_group("scenario_steps");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [1_000usize, 10_000, 100_000] {
        let text = steps(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("steps", n), &text, |b, text| {
            b.iter(|| black_box(load_and_run(text)));
        });
    }
    g.finish();
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
