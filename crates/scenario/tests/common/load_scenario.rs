//! The body of the `load_scenario` fuzz target (`fuzz/fuzz_targets/load_scenario.rs`
//! includes this file), also run by `tests/scenario/corpus.rs` over the committed corpus
//! `tests/corpus/` and deterministic mutations of it in every `cargo test`: arbitrary bytes
//! as a scenario file and, when they load, a run with tight limits and every output made of
//! it. Nothing may panic, and what loads must run and render.

use etwsim_scenario::{Scenario, output, report};
use std::path::Path;

/// Runs larger than this (writes, steps) are loaded but not run: loading is what the
/// fuzzer explores, and a run's cost per write and per step is flat (P24) — the benches,
/// not the fuzzer, look at large runs.
pub(crate) const MAX_FUZZ_WORK: u64 = 2_000;

/// Loads `data` as a scenario whose relative paths start at `base` and, when it loads and
/// is small, runs it and renders its outcome as text, JSON Lines and the HTML report.
pub(crate) fn load_scenario(data: &[u8], base: &Path) {
    // A file that is not UTF-8 is an error at its first bad byte; its lossy text goes on.
    let text = String::from_utf8_lossy(data);
    let Ok(scenario) = Scenario::parse(&text, "fuzz.toml", base) else {
        return;
    };
    if scenario.writes() > MAX_FUZZ_WORK || scenario.step_count() as u64 > MAX_FUZZ_WORK {
        return;
    }
    let outcome = scenario.run();
    let _ = output::outcome_text(&outcome);
    let _ = output::outcome_json_lines(&outcome);
    let html = report::scenario_html(&scenario, &outcome);
    assert!(html.starts_with("<!DOCTYPE html>"));
    if let Some(a) = &outcome.aborted {
        assert!(!outcome.passed(), "an aborted run does not pass: {a}");
    }
}
