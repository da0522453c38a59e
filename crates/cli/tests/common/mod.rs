//! Helpers shared by the binary's test files: a scratch folder per test, running `etwsim`,
//! and reading its output back.
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder for one test.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The command `etwsim args…` in `dir`.
pub(crate) fn command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_etwsim"));
    c.args(args).current_dir(dir).env("RUST_BACKTRACE", "1"); // a panic would show a backtrace: the tests would see it
    c
}

/// Runs `etwsim args…` in `dir`.
pub(crate) fn etwsim(dir: &Path, args: &[&str]) -> Output {
    command(dir, args).output().expect("the etwsim binary runs")
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs a command that must succeed, with nothing on stderr; returns its stdout.
pub(crate) fn ok(dir: &Path, args: &[&str]) -> String {
    let o = etwsim(dir, args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "etwsim {args:?} failed: {}",
        stderr(&o)
    );
    assert_eq!(stderr(&o), "", "etwsim {args:?} wrote to stderr");
    stdout(&o)
}

/// Checks that `o` failed with `code` and exactly one line on stderr starting with
/// `etwsim: ` and containing `needle`; returns that line.
pub(crate) fn one_error_line(o: &Output, what: &str, code: i32, needle: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{what}: stderr {err:?}");
    assert_eq!(err.lines().count(), 1, "{what}: one line, got {err:?}");
    assert!(err.starts_with("etwsim: "), "{err:?}");
    assert!(err.contains(needle), "{what}: {err:?} lacks {needle:?}");
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "internal error"] {
        assert!(!err.contains(bad), "{err:?}");
    }
    err.trim_end().to_string()
}

/// Runs a command that must fail with `code` and one line on stderr containing `needle`;
/// returns (stdout, that line).
pub(crate) fn fails(dir: &Path, args: &[&str], code: i32, needle: &str) -> (String, String) {
    let o = etwsim(dir, args);
    let line = one_error_line(&o, &format!("etwsim {args:?}"), code, needle);
    (stdout(&o), line)
}

/// The number after `label` in `text` (the first occurrence).
pub(crate) fn number_after(text: &str, label: &str) -> u64 {
    let at = text
        .find(label)
        .unwrap_or_else(|| panic!("{label:?} not in output:\n{text}"));
    let rest = text[at + label.len()..].trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {label:?}"))
}

/// The record lines of a text dump: after the column headings, up to the first blank line,
/// the lines that do not start with a space (the meaning lines under them do).
pub(crate) fn text_record_lines(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("TIME ("))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with(' '))
        .collect()
}

/// What the text format says: (records listed, the count on its last line).
pub(crate) fn text_records(text: &str) -> (usize, u64) {
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains(" EVENT_HEADER event"),
        "no total line in:\n{text}"
    );
    (text_record_lines(text).len(), number_after(last, ""))
}

/// JSON Lines as values.
pub(crate) fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// CSV as its header row and data rows.
pub(crate) fn csv_rows(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .expect("a header row")
        .iter()
        .map(String::from)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.expect("a CSV row").iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// Runs the demo in a fresh folder; returns the folder with its files and the demo's output.
pub(crate) fn demo(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let out = ok(&dir, &["demo", "--out", "out"]);
    (dir.join("out"), out)
}

/// The shared fixtures, or `None` (with a note) when `shared/` is not beside the checkout.
pub(crate) fn fixtures() -> Option<Vec<PathBuf>> {
    let dir = fixture_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("note: {} is absent; fixture dumps skipped", dir.display());
        return None;
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "etl"))
        .collect();
    v.sort();
    Some(v)
}

/// `../shared/fixtures/etl` beside the checkout.
pub(crate) fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/etl")
}

/// A file of `buffers` full 1 KB buffers of small events on one CPU (six 144-byte events
/// each), timestamps 10 apart from 2026-01-01T00:00:00Z: long output, and enough buffers for
/// the progress bar.
pub(crate) fn big_file(dir: &Path, buffers: u32) -> PathBuf {
    use etwsim::etl::{BufferBuilder, CloseStats, Record, Writer, WriterOptions};
    use etwsim::{EventDescriptor, EventHeader, EventRecord, Guid, Keyword, Level};
    let path = dir.join("big.etl");
    let mut w = Writer::create(
        WriterOptions::new(&path)
            .buffer_size(1024)
            .start(0, 134_116_992_000_000_000),
    )
    .unwrap();
    let mut ts = 0;
    for n in 0..buffers {
        let mut b = BufferBuilder::new(1024, 0).unwrap();
        for _ in 0..6 {
            ts += 10;
            b.push(&Record::Event(EventRecord {
                header: EventHeader {
                    timestamp: ts,
                    thread_id: 8,
                    process_id: 1200,
                    provider_id: Guid::from_provider_name("Big"),
                    descriptor: EventDescriptor::new(1, Level::INFORMATION, Keyword(1)),
                    ..EventHeader::default()
                },
                user_data: vec![0x11; 64],
                ..EventRecord::default()
            }))
            .unwrap();
        }
        w.write_buffer(&b.finish(i64::from(n) + 1, ts, 0)).unwrap();
    }
    w.close(&CloseStats::default()).unwrap();
    path
}

/// The fenced blocks of `lang` in the README section `heading`.
pub(crate) fn readme_blocks(heading: &str, lang: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
    )
    .expect("README.md");
    let section = readme
        .split(heading)
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("the README has no section {heading:?}"));
    section
        .split(&format!("```{lang}\n"))
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .map(String::from)
        .collect()
}

/// Writes `records` to `path` as a one-CPU file of 4 KB buffers holding them in one data
/// buffer flushed at `flushed` (the file's clock starts at 2026-01-01, FILETIME), as the
/// tests that build files record by record need.
pub(crate) fn one_buffer_file(path: &Path, records: &[etwsim::etl::Record], flushed: i64) {
    use etwsim::etl::{BufferBuilder, CloseStats, Writer, WriterOptions};
    let mut w = Writer::create(
        WriterOptions::new(path)
            .buffer_size(4096)
            .processors(1)
            .start(0, 134_116_992_000_000_000),
    )
    .unwrap();
    let mut cpu0 = BufferBuilder::new(4096, 0).unwrap();
    for r in records {
        cpu0.push(r).unwrap();
    }
    w.write_buffer(&cpu0.finish(1, flushed, 0)).unwrap();
    w.close(&CloseStats::default()).unwrap();
}
