//! A scenario's cost grows with its work, not faster (issue 33, PERFORMANCE.md P24): the cost
//! of a write does not depend on how many journal entries the run keeps, and the cost of a
//! step does not depend on how far down the file it is.
//!
//! These compare two runs made in the same process a moment apart, take the best of three of
//! each, and allow several times the ratio a flat cost gives — a quadratic cost misses it by
//! far more than that. They still measure time, so they are ignored in `cargo test` (speed is
//! proven by the criterion benches, `benches/scenario.rs`, P24): run them with
//! `cargo test -p etwsim-scenario --test scenario growth:: -- --ignored` on a quiet machine;
//! each failed before the fix of issue 33.

use etwsim_scenario::Scenario;
use std::path::Path;
use std::time::{Duration, Instant};

const HEAD: &str = r#"
[[process]]
name = "app"

[[provider]]
name = "P"
process = "app"

[[session]]
name = "S"
buffering = true
buffer_size_kb = 64

[[enable]]
session = "S"
provider = "P"
"#;

/// The best of three timings of `f`.
fn best_of_three(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn load(text: &str) -> Scenario {
    Scenario::parse(text, "growth.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
#[ignore = "a timing ratio: the project proves speed with criterion (P24, benches/scenario.rs); run with --ignored on a quiet machine"]
fn a_writes_cost_does_not_depend_on_the_journal_capacity() {
    // 30,000 writes make some 30,000 journal entries; a journal of 1,000 lets go of nearly
    // all of them, one of 15,000 of half. A bound kept by moving the whole journal down at
    // each write costs ~15,000 moves per write in the second run; a ring costs none in both.
    let writes = 30_000;
    let scenario = |capacity: u32| {
        load(&format!(
            "[machine]\njournal_capacity = {capacity}\n{HEAD}\n[[step]]\nwrite = \"P\"\ncount = {writes}\n"
        ))
    };
    let (small, large) = (scenario(1_000), scenario(15_000));
    let o = small.run();
    assert!(o.journal.len() <= 1_000 && o.journal_dropped > 0);
    let o = large.run();
    assert!(o.journal.len() <= 15_000 && o.journal_dropped > 0);
    let t_small = best_of_three(|| drop(small.run()));
    let t_large = best_of_three(|| drop(large.run()));
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    assert!(
        ratio < 3.0,
        "capacity 1,000: {t_small:?}; capacity 15,000: {t_large:?} ({ratio:.1}×): a write's cost grows with the journal"
    );
}

/// `n` steps, alternately a write and a logger step.
fn steps(n: usize) -> String {
    let mut text = String::from(HEAD);
    for i in 0..n {
        text.push_str(if i % 2 == 0 {
            "\n[[step]]\nwrite = \"P\"\n"
        } else {
            "\n[[step]]\nrun_logger = true\n"
        });
    }
    text
}

#[test]
#[ignore = "a timing ratio: the project proves speed with criterion (P24, benches/scenario.rs); run with --ignored on a quiet machine"]
fn a_steps_cost_does_not_depend_on_its_place_in_the_file() {
    // 4× the steps: a flat cost per step takes ~4× as long; a line number found by
    // counting the newlines before each step takes ~16×.
    let (short, long) = (steps(3_000), steps(12_000));
    let t_short = best_of_three(|| drop(load(&short).run()));
    let t_long = best_of_three(|| drop(load(&long).run()));
    let ratio = t_long.as_secs_f64() / t_short.as_secs_f64();
    assert!(
        ratio < 8.0,
        "3,000 steps: {t_short:?}; 12,000 steps: {t_long:?} ({ratio:.1}× for 4× the steps)"
    );
}

#[test]
#[ignore = "a timing ratio: the project proves speed with criterion (P24, benches/scenario.rs); run with --ignored on a quiet machine"]
fn loading_many_file_steps_is_linear() {
    // Each `open_file` names a fresh handle and each `close` finds it: looking handles up by
    // scanning every earlier one is quadratic in the steps.
    let file = |n: usize| {
        let mut text = String::from(HEAD);
        for i in 0..n {
            text.push_str(&format!(
                "\n[[step]]\nopen_file = 'C:\\f{i}.txt'\nprocess = \"app\"\nhandle = \"h{i}\"\n"
            ));
        }
        for i in 0..n {
            text.push_str(&format!("\n[[step]]\nclose = \"h{i}\"\n"));
        }
        text
    };
    let (short, long) = (file(2_000), file(8_000));
    let t_short = best_of_three(|| drop(load(&short)));
    let t_long = best_of_three(|| drop(load(&long)));
    let ratio = t_long.as_secs_f64() / t_short.as_secs_f64();
    assert!(
        ratio < 8.0,
        "2,000 handles: {t_short:?}; 8,000: {t_long:?} ({ratio:.1}× for 4× the steps)"
    );
}
