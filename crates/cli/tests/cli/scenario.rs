//! `etwsim run` and `etwsim report` as a user runs them: exit status, one error line, the
//! files written, and the README's examples being the real output.

use crate::common;

use common::{big_file, etwsim, fails, ok, readme_blocks, scratch, stderr, stdout};
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios")
}

fn example(name: &str) -> String {
    examples().join(name).display().to_string()
}

#[test]
fn every_example_scenario_passes_and_writes_its_files() {
    let dir = scratch("run-examples");
    let mut names: Vec<String> = std::fs::read_dir(examples())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 4);
    for name in names {
        let out = dir.join(name.trim_end_matches(".toml"));
        let text = ok(
            &dir,
            &["run", &example(&name), "--out", out.to_str().unwrap()],
        );
        assert!(text.contains(" passed, 0 failed\n"), "{name}:\n{text}");
    }
    // rule: EVT-07 — the burst's file holds the 120 events that fit, and says 180 were lost.
    let dump = ok(&dir, &["dump", "burst_loss/burst.etl"]);
    assert!(dump.contains("events lost  180"), "{dump}");
    assert!(dump.contains("120 records"), "{dump}");
}

#[test]
fn json_lines_are_the_journal_then_the_expectations_then_a_summary() {
    let dir = scratch("run-json");
    let text = ok(
        &dir,
        &["run", &example("keywords.toml"), "--format", "json"],
    );
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let kind = |v: &serde_json::Value| v["kind"].as_str().unwrap_or_default().to_string();
    assert_eq!(kind(&lines[0]), "Control");
    assert!(lines[0]["seq"].is_u64() && lines[0]["time"].is_u64());
    let writes = lines.iter().filter(|v| kind(v) == "Write").count();
    assert_eq!(writes, 14, "every write some session enables");
    let expectations: Vec<_> = lines.iter().filter(|v| kind(v) == "Expectation").collect();
    assert_eq!(expectations.len(), 16);
    assert!(expectations.iter().all(|e| e["passed"] == true));
    let summary = lines.last().unwrap();
    assert_eq!(kind(summary), "Summary");
    assert_eq!(
        (summary["passed"].as_u64(), summary["failed"].as_u64()),
        (Some(16), Some(0))
    );
}

#[test]
fn a_failed_expectation_exits_1_naming_it() {
    let dir = scratch("run-fail");
    let text = std::fs::read_to_string(examples().join("burst_loss.toml"))
        .unwrap()
        .replace(
            "events_lost = 180\nbuffers_written",
            "events_lost = 179\nbuffers_written",
        );
    std::fs::write(dir.join("wrong.toml"), text).unwrap();
    let (out, line) = fails(
        &dir,
        &["run", "wrong.toml"],
        1,
        "1 of 10 expectations failed",
    );
    assert!(
        line.contains("line 53: session Burst: EventsLost: expected 179, got 180"),
        "{line}"
    );
    assert!(out.contains("FAIL  line 53"), "{out}");
}

#[test]
fn a_wrong_scenario_file_names_its_line_and_key() {
    let dir = scratch("run-bad");
    std::fs::write(
        dir.join("t.toml"),
        "[[session]]\nname = \"a\"\nbufer_size_kb = 4\n",
    )
    .unwrap();
    fails(
        &dir,
        &["run", "t.toml"],
        1,
        "t.toml:3:1: `session[1].bufer_size_kb`: unknown field",
    );
    std::fs::write(dir.join("r.toml"), "[[step]]\nreboot = true\n").unwrap();
    fails(
        &dir,
        &["run", "r.toml"],
        1,
        "r.toml:2:10: `step[1].reboot`: `reboot` needs a machine booted from a registry",
    );
    fails(
        &dir,
        &["run", "missing.toml"],
        1,
        "cannot read missing.toml",
    );
    fails(&dir, &["run", "t.toml", "--format", "xml"], 2, "--help");
}

#[test]
fn report_writes_one_page_from_a_scenario_or_an_etl_file() {
    let dir = scratch("report");
    let said = ok(
        &dir,
        &["report", &example("two_levels.toml"), "-o", "two.html"],
    );
    assert!(
        said.starts_with("wrote two.html (") && said.contains("its expectations hold"),
        "{said}"
    );
    let html = std::fs::read_to_string(dir.join("two.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("id=\"timeline\""));

    ok(
        &dir,
        &["run", &example("burst_loss.toml"), "--out", "files"],
    );
    let said = ok(
        &dir,
        &["report", "files/burst.etl", "--output", "burst.html"],
    );
    assert!(said.starts_with("wrote burst.html (120 events"), "{said}");

    fails(
        &dir,
        &["report", "nothing.etl", "-o", "x.html"],
        1,
        "cannot read nothing.etl",
    );
    fails(&dir, &["report", "files/burst.etl"], 2, "--output");
    fails(
        &dir,
        &[
            "report",
            "files/burst.etl",
            "-o",
            "x.html",
            "-m",
            "nope.man",
        ],
        1,
        "cannot read manifest nope.man",
    );
}

#[test]
fn run_and_report_have_their_help() {
    let dir = scratch("run-help");
    let text = ok(&dir, &["run", "--help"]);
    assert!(
        text.contains("Usage: etwsim run [OPTIONS] <FILE.toml>"),
        "{text}"
    );
    assert!(
        text.contains("--out <DIR>") && text.contains("json"),
        "{text}"
    );
    let text = ok(&dir, &["report", "--help"]);
    assert!(
        text.contains("Usage: etwsim report [OPTIONS] --output <FILE.html> <INPUT>"),
        "{text}"
    );
    let help = ok(&dir, &["--help"]);
    assert!(help.contains("run ") && help.contains("report "), "{help}");
}

#[test]
fn the_readme_shows_what_run_and_report_really_print() {
    let dir = scratch("run-readme");
    let blocks = readme_blocks("## Scenarios: etwsim run and etwsim report", "text");
    assert_eq!(blocks.len(), 2, "the run output and the report line");
    let o = etwsim(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        &["run", "examples/scenarios/burst_loss.toml"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let real = stdout(&o);
    for line in blocks[0]
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "…")
    {
        assert!(
            real.lines().any(|l| l == line),
            "README line not in the real output: {line:?}"
        );
    }
    // Run from the repository's root as the README does, the page written to a scratch folder
    // (its name replaced by the README's `burst.html`).
    let page = dir.join("burst.html");
    let said = ok(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        &[
            "report",
            "examples/scenarios/burst_loss.toml",
            "-o",
            page.to_str().unwrap(),
        ],
    )
    .replace(page.to_str().unwrap(), "burst.html");
    assert_eq!(
        blocks[1].trim_end(),
        format!(
            "$ etwsim report examples/scenarios/burst_loss.toml -o burst.html\n{}",
            said.trim_end()
        )
    );
}

#[test]
fn report_says_where_a_run_stopped_not_that_expectations_fail() {
    let dir = scratch("report-aborted");
    std::fs::write(
        dir.join("stop.toml"),
        "[[process]]\nname = \"app\"\n[[provider]]\nname = \"P\"\nprocess = \"app\"\n\
         [[session]]\nname = \"S\"\nlog_file = \"s.etl\"\n\
         [[step]]\nstop = \"S\"\n\n[[step]]\nstop = \"S\"\n\
         [[expect.session]]\nname = \"S\"\nevents = 0\n",
    )
    .unwrap();
    let said = ok(&dir, &["report", "stop.toml", "-o", "stop.html"]);
    assert!(
        said.contains("the run stopped at step 2 (line 12)")
            && said.contains("ERROR_WMI_INSTANCE_NOT_FOUND"),
        "{said}"
    );
    assert!(!said.contains("expectations fail"), "{said}");
    let html = std::fs::read_to_string(dir.join("stop.html")).unwrap();
    assert!(
        html.contains("id=\"stopped\"") && html.contains("The run stopped at step 2 (line 12)"),
        "the page says it first"
    );
}

#[test]
fn an_empty_scenario_is_an_error_not_a_pass() {
    let dir = scratch("run-empty");
    std::fs::write(dir.join("empty.toml"), "").unwrap();
    fails(
        &dir,
        &["run", "empty.toml"],
        1,
        "empty.toml:1:1: nothing to do",
    );
    fails(
        &dir,
        &["report", "empty.toml", "-o", "e.html"],
        1,
        "nothing to do",
    );
    assert!(!dir.join("e.html").exists());
}

/// The message of `etwsim: cannot read F: MESSAGE; …` up to the `;`.
fn damage_message(line: &str) -> &str {
    line.split_once(": ")
        .and_then(|(_, rest)| rest.split_once(": "))
        .map_or(line, |(_, rest)| rest)
        .rsplit_once("; ")
        .map_or(line, |(m, _)| m)
}

#[test]
fn report_judges_a_damaged_etl_file_as_dump_does() {
    let dir = scratch("report-damaged");
    ok(
        &dir,
        &["run", &example("burst_loss.toml"), "--out", "files"],
    );
    let whole = std::fs::read(dir.join("files/burst.etl")).unwrap();
    let stride = u32::from_le_bytes(whole[..4].try_into().unwrap()) as usize;
    assert!(whole.len() >= 3 * stride, "{} bytes", whole.len());
    // Cuts: inside the header buffer, inside a data buffer, at a buffer's end (fewer than
    // BuffersWritten), and bytes changed in a buffer header and in a record.
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for cut in [
        100,
        stride + 72 + 40,
        2 * stride + 500,
        2 * stride,
        whole.len() - 1,
    ] {
        cases.push((format!("cut{cut}.etl"), whole[..cut].to_vec()));
    }
    let mut bad_size = whole.clone();
    bad_size[stride..stride + 4].copy_from_slice(&0x1234u32.to_le_bytes());
    cases.push(("badsize.etl".into(), bad_size));
    let mut bad_record = whole.clone();
    for b in &mut bad_record[stride + 72..stride + 80] {
        *b = 0xEE;
    }
    cases.push(("badrecord.etl".into(), bad_record));
    cases.push(("whole.etl".into(), whole.clone()));
    let mut damaged = 0;
    for (name, bytes) in &cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        let page = format!("{name}.html");
        let dump = etwsim(&dir, &["dump", name]);
        let report = etwsim(&dir, &["report", name, "-o", &page]);
        assert_eq!(
            report.status.code(),
            dump.status.code(),
            "{name}: dump says {:?}, report {:?}",
            stderr(&dump),
            stderr(&report)
        );
        if dump.status.code() == Some(0) {
            assert_eq!(stderr(&report), "", "{name}");
            continue;
        }
        damaged += 1;
        let (d, r) = (stderr(&dump), stderr(&report));
        assert_eq!(r.lines().count(), 1, "{name}: one line: {r:?}");
        assert!(
            r.starts_with(&format!("etwsim: cannot read {name}: ")),
            "{r}"
        );
        if !dir.join(&page).exists() {
            // Not even the header could be read: no page, as dump prints no record.
            assert!(
                d.contains("no record") || !d.contains("record"),
                "{name}: {d}"
            );
            continue;
        }
        // The same judgement in the same words, and the same records before it.
        assert_eq!(damage_message(&r), damage_message(&d), "{name}");
        let records = |t: &str| {
            if t.contains("no record could be read") {
                0
            } else {
                t.split("the ")
                    .last()
                    .and_then(|x| x.split(' ').next())
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(1)
            }
        };
        assert_eq!(records(&r), records(&d), "{name}: {r} / {d}");
        let html = std::fs::read_to_string(dir.join(&page)).unwrap();
        assert!(html.contains("id=\"damage\""), "{name}: the page marks it");
        assert!(
            html.contains(&html_escape(damage_message(&r))),
            "{name}: the page says what {r:?} says"
        );
        assert!(
            html.contains("the file stops here"),
            "{name}: a mark on the timeline"
        );
    }
    assert!(damaged >= 5, "{damaged} damaged cases");
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[test]
fn report_refuses_an_output_that_is_one_of_its_inputs() {
    let dir = scratch("report-overwrite");
    ok(
        &dir,
        &["run", &example("burst_loss.toml"), "--out", "files"],
    );
    for f in ["keywords.toml", "keywords.man", "burst_loss.toml"] {
        std::fs::copy(examples().join(f), dir.join(f)).unwrap();
    }
    let etl = std::fs::read(dir.join("files/burst.etl")).unwrap();
    let toml = std::fs::read(dir.join("burst_loss.toml")).unwrap();
    let man = std::fs::read(dir.join("keywords.man")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("files/burst.etl", dir.join("link.etl")).unwrap();
        std::fs::hard_link(dir.join("files/burst.etl"), dir.join("hard.etl")).unwrap();
    }
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["report", "files/burst.etl", "-o", "files/burst.etl"],
        vec![
            "report",
            "files/burst.etl",
            "-o",
            "./files/../files/burst.etl",
        ],
        vec!["report", "burst_loss.toml", "-o", "burst_loss.toml"],
        vec![
            "report",
            "files/burst.etl",
            "-m",
            "keywords.man",
            "-o",
            "keywords.man",
        ],
        // The scenario's own manifest is one of its inputs too.
        vec!["report", "keywords.toml", "-o", "keywords.man"],
    ];
    if cfg!(unix) {
        cases.push(vec!["report", "files/burst.etl", "-o", "link.etl"]);
        cases.push(vec!["report", "files/burst.etl", "-o", "hard.etl"]);
        cases.push(vec!["report", "link.etl", "-o", "files/burst.etl"]);
    }
    for args in cases {
        let (_, line) = fails(&dir, &args, 1, "refusing to write");
        assert!(line.contains("it is the input"), "{line}");
    }
    assert_eq!(std::fs::read(dir.join("files/burst.etl")).unwrap(), etl);
    assert_eq!(std::fs::read(dir.join("burst_loss.toml")).unwrap(), toml);
    assert_eq!(std::fs::read(dir.join("keywords.man")).unwrap(), man);
    // Nothing was left behind: no page, no temporary file.
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    left.sort();
    let mut expected = vec!["burst_loss.toml", "files", "keywords.man", "keywords.toml"];
    if cfg!(unix) {
        expected.extend(["hard.etl", "link.etl"]);
        expected.sort();
    }
    assert_eq!(left, expected);
    // A new name is fine, and a page written over an old page replaces it.
    ok(&dir, &["report", "files/burst.etl", "-o", "page.html"]);
    ok(&dir, &["report", "burst_loss.toml", "-o", "page.html"]);
    let html = std::fs::read_to_string(dir.join("page.html")).unwrap();
    assert!(
        html.contains("etwsim scenario"),
        "the second page replaced the first"
    );
}

#[test]
fn run_refuses_to_write_a_session_file_over_its_scenario() {
    let dir = scratch("run-overwrite");
    let text = "[[session]]\nname = \"S\"\nlog_file = \"self.toml\"\n";
    std::fs::write(dir.join("self.toml"), text).unwrap();
    fails(
        &dir,
        &["run", "self.toml", "--out", "."],
        1,
        "refusing to write",
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("self.toml")).unwrap(),
        text
    );
}

#[cfg(target_os = "linux")]
#[test]
fn report_streams_a_large_etl_file_in_bounded_memory() {
    // 300,000 buffers of 1 KB: a 293 MiB file. Held whole (and copied), it needs twice that;
    // streamed, the reader's buffers and the page's 20,000 events. The address space is
    // capped below the file's size.
    let dir = scratch("report-large");
    let path = big_file(&dir, 300_000);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 290 << 20, "{size}");
    let limit_kb = 256 * 1024;
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {limit_kb} && exec \"$0\" report big.etl -o big.html",
        ))
        .arg(env!("CARGO_BIN_EXE_etwsim"))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(said.starts_with("wrote big.html (20000 events"), "{said}");
    let html = std::fs::read_to_string(dir.join("big.html")).unwrap();
    assert!(
        html.contains(
            "the timeline shows the first 20000 of 1800000 records; 1780000 are left out"
        ),
        "the page says what it left out"
    );
    std::fs::remove_file(&path).ok();
}
