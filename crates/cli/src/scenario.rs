//! `etwsim run` and `etwsim report`: the work is `etwsim-scenario`'s; this turns its outcome
//! into output, an exit status and one line for people.

use crate::{Failure, RunFormat};
use etwsim_scenario::{Scenario, output, report};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the scenario `file`, prints its outcome, writes its files into `dir`; fails naming
/// the step that failed or the first expectation that did not hold.
pub(crate) fn run(
    file: &Path,
    format: RunFormat,
    dir: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let scenario = Scenario::load(file).map_err(|e| Failure::failed(e.to_string()))?;
    let outcome = scenario.run();
    let text = match format {
        RunFormat::Text => output::outcome_text(&outcome),
        RunFormat::Json => output::outcome_json_lines(&outcome),
    };
    out.write_all(text.as_bytes())?;
    if let Some(dir) = dir {
        outcome
            .write_files(dir)
            .map_err(|e| Failure::failed(e.to_string()))?;
    }
    let name = file.display();
    if let Some(step) = &outcome.aborted {
        return Err(Failure::failed(format!("{name}: a step failed: {step}")));
    }
    let failed: Vec<_> = outcome.failures().collect();
    match failed.first() {
        None => Ok(()),
        Some(e) => Err(Failure::failed(format!(
            "{name}: {} of {} expectations failed; line {}: {}: expected {}, got {}",
            failed.len(),
            outcome.expectations.len(),
            e.line,
            e.what,
            e.expected,
            e.actual
        ))),
    }
}

/// Writes the report of `input` (a scenario or an `.etl` file) to `output`, never over one
/// of its inputs, whole or not at all.
pub(crate) fn report(
    input: &Path,
    output: &Path,
    manifests: &[PathBuf],
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let summary = report::write_report_with(input, output, manifests)
        .map_err(|e| Failure::failed(e.to_string()))?;
    let verdict = match summary.passed {
        Some(true) => "; its expectations hold",
        Some(false) => "; some of its expectations fail (see the page)",
        None => "",
    };
    writeln!(
        out,
        "wrote {} ({} events, {} bytes){verdict}",
        output.display(),
        summary.events,
        summary.bytes
    )?;
    Ok(())
}
