//! Report files: the manifests a report reads, and writing the report of a scenario or an
//! `.etl` file whole, never over one of its inputs.

use super::EtlDamage;
use super::etl_page::etl_file_page;
use super::html::render;
use super::scenario_page::scenario_page;
use crate::error::Error;
use crate::scenario::Scenario;
use etwsim_decode::manifest::Manifest;
use std::path::Path;

/// Loads instrumentation manifests for [`etl_html`] / [`write_report`], each read up to
/// [`MAX_MANIFEST_BYTES`](crate::MAX_MANIFEST_BYTES).
///
/// [`etl_html`]: super::etl_html
///
/// # Errors
/// [`Error::Io`] for a file that cannot be read or is larger than the cap,
/// [`Error::Manifest`] for one that is not a manifest.
pub fn load_manifests(paths: &[std::path::PathBuf]) -> Result<Vec<Manifest>, Error> {
    paths
        .iter()
        .map(|path| {
            let bytes =
                crate::files::read_capped(path, crate::MAX_MANIFEST_BYTES).map_err(|source| {
                    Error::Io {
                        what: "cannot read manifest",
                        path: path.clone(),
                        source,
                    }
                })?;
            etwsim_decode::manifest::load_manifest(&bytes).map_err(|e| Error::Manifest {
                path: path.clone(),
                message: e.to_string(),
            })
        })
        .collect()
}

/// What [`write_report`] made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportSummary {
    /// Events shown one by one.
    pub events: usize,
    /// Bytes of HTML written.
    pub bytes: usize,
    /// For a scenario: whether its expectations held (`None` for an `.etl` file).
    pub passed: Option<bool>,
    /// For a scenario: the step that failed and stopped the run, if one did.
    pub aborted: Option<crate::StepFailure>,
    /// For an `.etl` file: where it stops being readable, if it does. The page is written
    /// all the same, showing what was read and marking where it stops.
    pub damage: Option<EtlDamage>,
}

/// Writes the report of `input` — a scenario (`.toml`: loaded and run) or an `.etl` file —
/// to `output`; [`write_report_with`] with no manifest files named and the default
/// [`RunOptions`](crate::RunOptions).
///
/// # Errors
/// As [`write_report_with`].
pub fn write_report(
    input: &Path,
    output: &Path,
    manifests: &[Manifest],
) -> Result<ReportSummary, Error> {
    report(input, output, manifests, &[], &crate::RunOptions::default())
}

/// Writes the report of `input` — a scenario (`.toml`: loaded and run with `run`) or an
/// `.etl` file, whose events the manifests at `manifests` decode — to `output`.
///
/// Nothing is written over an input: an `output` that names `input`, a manifest, or a file
/// the scenario reads (its registry, its manifests) is refused before anything is written
/// ([`files::refuse_overwrite`](crate::files::refuse_overwrite)). The page is written to a
/// temporary file beside `output` and renamed into place ([`files::AtomicFile`]), so a
/// failure leaves no half-written page. A damaged `.etl` file still gets its page, showing
/// what was read; the summary's [`damage`](ReportSummary::damage) says where it stops.
///
/// [`files::AtomicFile`]: crate::files::AtomicFile
///
/// # Errors
/// [`Error::OutputIsInput`]; the scenario's, a manifest's or the file's error;
/// [`Error::Io`] if `output` cannot be written.
pub fn write_report_with(
    input: &Path,
    output: &Path,
    manifests: &[std::path::PathBuf],
    run: &crate::RunOptions,
) -> Result<ReportSummary, Error> {
    let mut inputs: Vec<&Path> = vec![input];
    inputs.extend(manifests.iter().map(|p| p.as_path()));
    crate::files::refuse_overwrite(output, &inputs)?;
    let loaded = load_manifests(manifests)?;
    report(input, output, &loaded, manifests, run)
}

fn report(
    input: &Path,
    output: &Path,
    manifests: &[Manifest],
    manifest_paths: &[std::path::PathBuf],
    run: &crate::RunOptions,
) -> Result<ReportSummary, Error> {
    let mut inputs: Vec<&Path> = vec![input];
    inputs.extend(manifest_paths.iter().map(|p| p.as_path()));
    crate::files::refuse_overwrite(output, &inputs)?;
    let is_scenario = input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let mut summary = ReportSummary {
        events: 0,
        bytes: 0,
        passed: None,
        aborted: None,
        damage: None,
    };
    let page = if is_scenario {
        let sc = Scenario::load(input)?;
        let read: Vec<&Path> = sc.input_files().iter().map(|p| p.as_path()).collect();
        crate::files::refuse_overwrite(output, &read)?;
        let outcome = sc.run_with(run);
        summary.passed = Some(outcome.passed());
        summary.aborted = outcome.aborted.clone();
        scenario_page(&sc, &outcome)
    } else {
        let (page, damage) = etl_file_page(input, manifests)?;
        summary.damage = damage;
        page
    };
    let html = render(&page);
    summary.events = page.details.len();
    summary.bytes = html.len();
    drop(page);
    crate::files::write_atomic(output, html.as_bytes()).map_err(|source| Error::Io {
        what: "cannot write",
        path: output.to_path_buf(),
        source,
    })?;
    Ok(summary)
}
