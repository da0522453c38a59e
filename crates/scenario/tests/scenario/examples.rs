//! Every scenario under `examples/scenarios/` loads, runs, and meets its expectations — the
//! same files CI runs through `etwsim run`.

use etwsim_scenario::{Scenario, output};
use std::path::PathBuf;

fn scenario_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/scenarios exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

// rule: EVT-07, BUF-04 (burst_loss), FLT-04, FLT-05, PRV-12 (keywords), FLT-01, FLT-20
// (two_levels), BUF-12, EVT-08 (realtime_backlog), SEC-03 (checkpoints), FLT-22, EVT-14,
// EVT-17, PRV-15, PRV-27 (tracelogging_activities), PRV-22, PRV-36 (classic_and_groups)
#[test]
fn every_example_scenario_meets_its_expectations() {
    let files = scenario_files();
    assert!(
        files.len() >= 4,
        "the four seed stories at least: {files:?}"
    );
    for path in files {
        let scenario = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            scenario.expectation_count() > 0,
            "{}: a scenario without expectations proves nothing",
            path.display()
        );
        let outcome = scenario.run();
        assert!(
            outcome.passed(),
            "{}:\n{}",
            path.display(),
            output::outcome_text(&outcome)
        );
    }
}

#[test]
fn a_run_is_the_same_every_time() {
    for path in scenario_files() {
        let scenario = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let (a, b) = (scenario.run(), scenario.run());
        assert_eq!(
            output::outcome_json_lines(&a),
            output::outcome_json_lines(&b),
            "{}",
            path.display()
        );
        assert_eq!(
            a.files,
            b.files,
            "{}: the same bytes on disk",
            path.display()
        );
    }
}
