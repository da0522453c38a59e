//! `etwsim run` and `etwsim report`: the work is `etwsim-scenario`'s; this turns its outcome
//! into output, an exit status and one line for people.
//!
//! A scenario that boots from a registry runs in a folder of its own inside the command's
//! scratch folder ([`crate::scratch`]), which the command removes when it ends or is stopped.
//! Neither command writes over one of its inputs (`etwsim_scenario::files`), and both write
//! each file whole or not at all.

use crate::{Failure, RunFormat};
use etwsim_scenario::{RunOptions, Scenario, output, report};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The run options of a scenario command: its scratch folders in the command's own.
fn run_options() -> Result<RunOptions, Failure> {
    let dir = crate::scratch::dir()
        .map_err(|e| Failure::failed(format!("cannot make a scratch folder: {e}")))?;
    Ok(RunOptions::new().scratch(dir))
}

/// Runs the scenario `file`, prints its outcome, writes its files into `dir`; fails naming
/// the step that failed or the first expectation that did not hold.
pub(crate) fn run(
    file: &Path,
    format: RunFormat,
    dir: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let scenario = Scenario::load(file).map_err(|e| Failure::failed(e.to_string()))?;
    let options = match scenario.boots_from_registry() {
        true => run_options()?,
        false => RunOptions::new(),
    };
    let outcome = scenario.run_with(&options);
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
/// of its inputs, whole or not at all. A damaged `.etl` file still gets its page — what
/// could be read, and where it stops — and then fails as `etwsim dump` does, naming the
/// damage.
pub(crate) fn report(
    input: &Path,
    output: &Path,
    manifests: &[PathBuf],
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let is_scenario = input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let options = match is_scenario {
        true => run_options()?,
        false => RunOptions::new(),
    };
    let summary = report::write_report_with(input, output, manifests, &options)
        .map_err(|e| Failure::failed(e.to_string()))?;
    let verdict = match (&summary.aborted, summary.passed) {
        (Some(a), _) => format!(
            "; the run stopped at {}: {} (see the page)",
            a.place(),
            a.message
        ),
        (None, Some(true)) => "; its expectations hold".into(),
        (None, Some(false)) => "; some of its expectations fail (see the page)".into(),
        (None, None) => String::new(),
    };
    writeln!(
        out,
        "wrote {} ({} events, {} bytes){verdict}",
        output.display(),
        summary.events,
        summary.bytes
    )?;
    if let Some(d) = &summary.damage {
        let page = output.display();
        let before = match d.records {
            0 => "no record could be read before it".to_string(),
            1 => format!("the 1 record before it is shown in {page}"),
            n => format!("the {n} records before it are shown in {page}"),
        };
        return Err(Failure::failed(format!(
            "cannot read {}: {}; {before}",
            input.display(),
            d.message
        )));
    }
    Ok(())
}
