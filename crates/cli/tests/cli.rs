//! The `etwsim` binary as people use it: `demo`, `dump` in each format on the demo's file,
//! on generated files and on the shared fixtures, and every error a person can cause.
//!
//! Each test runs the built binary in its own folder under `CARGO_TARGET_TMPDIR`. JSON
//! output is checked with the small parser at the end (no serde dev-dependency: the lines
//! are flat and machine-written).

use etwsim::etl::{BufferBuilder, CloseStats, MessageInfo, Record, TraceRecord, Writer};
use etwsim::etl::{WriterOptions, message_flags};
use etwsim::record::header_type;
use etwsim::{EventDescriptor, EventHeader, EventRecord, Guid, Keyword, Level};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs `etwsim args…` in `dir`.
fn etwsim(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_etwsim"))
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1") // a panic would show a backtrace: the tests would see it
        .output()
        .expect("the etwsim binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs a command that must succeed, with nothing on stderr; returns its stdout.
fn ok(dir: &Path, args: &[&str]) -> String {
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

/// Runs a command that must fail with `code` and exactly one line on stderr starting with
/// `etwsim: ` and containing `needle`; returns (stdout, that line).
fn fails(dir: &Path, args: &[&str], code: i32, needle: &str) -> (String, String) {
    let o = etwsim(dir, args);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "etwsim {args:?}: stderr {err:?}"
    );
    assert_eq!(
        err.lines().count(),
        1,
        "etwsim {args:?}: one line, got {err:?}"
    );
    assert!(err.starts_with("etwsim: "), "{err:?}");
    assert!(
        err.contains(needle),
        "etwsim {args:?}: {err:?} lacks {needle:?}"
    );
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "internal error"] {
        assert!(!err.contains(bad), "{err:?}");
    }
    (stdout(&o), err.trim_end().to_string())
}

/// The number after `label` in `text` (the first occurrence).
fn number_after(text: &str, label: &str) -> u64 {
    let at = text
        .find(label)
        .unwrap_or_else(|| panic!("{label:?} not in output:\n{text}"));
    let rest = text[at + label.len()..].trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {label:?}"))
}

/// What the text format says: (records listed, the count on its last line).
fn text_records(text: &str) -> (usize, u64) {
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains(" EVENT_HEADER event"),
        "no total line in:\n{text}"
    );
    (text_records_partial(text), number_after(last, ""))
}

/// Runs the demo in a fresh folder; returns the folder and the demo's output.
fn demo(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let out = ok(&dir, &["demo", "--out", "out"]);
    (dir.join("out"), out)
}

#[test]
fn demo_writes_readable_files_with_the_counts_it_printed() {
    let (dir, out) = demo("demo_counts");
    // The learner's view: the table, the decisions and their filters, loss and counters.
    for needle in [
        "EventsLost",
        "BuffersWritten",
        "RealTimeBuffersLost",
        "LogBuffersLost",
        "EVENT_ID filter excludes id 9 (FLT-19)",
        "IGNORE_KEYWORD_0 drops events with keyword 0 (FLT-07)",
        "ERROR_NOT_ENOUGH_MEMORY (8)",
        "etwsim dump out/demo.etl",
    ] {
        assert!(
            out.contains(needle),
            "{needle:?} missing from the demo:\n{out}"
        );
    }
    // The session table's rows.
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("Session "))
        .collect();
    let row = |name: &str| -> Vec<u64> {
        let line = table
            .iter()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no table row for {name}"));
        line.split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect()
    };
    // [BufSize, Buffers, Events, EventsLost, BuffersWritten, RealTimeBuffersLost, LogBuffersLost]
    let file_row = row("DemoFile ");
    let burst_row = row("DemoBurst ");
    assert_eq!(file_row.len(), 7, "{file_row:?}");
    assert_eq!((file_row[2], file_row[3]), (5, 0));
    assert_eq!((burst_row[2], burst_row[3]), (160, 140));
    assert_eq!(
        burst_row[2] + burst_row[3],
        300,
        "the burst: recorded + lost"
    );

    let files: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("== files written"))
        .collect();
    for (file, row) in [("demo.etl", &file_row), ("burst.etl", &burst_row)] {
        // What the demo says about the file…
        let label = format!("out/{file} ");
        let line = files
            .iter()
            .find(|l| l.trim_start().starts_with(&label))
            .unwrap_or_else(|| panic!("{file} is not listed as written:\n{out}"));
        let printed_events = number_after(line, &label);
        assert_eq!(printed_events, row[2]);
        let printed_lost = number_after(line, "EventsLost");
        assert_eq!(printed_lost, row[3]);
        // …is what `dump` reads from it.
        let text = ok(&dir, &["dump", file]);
        let (rows, total) = text_records(&text);
        assert_eq!(rows as u64, printed_events, "{file}");
        assert_eq!(total, printed_events, "{file}");
        assert_eq!(number_after(&text, "events lost"), printed_lost, "{file}");
        assert_eq!(
            number_after(&text, "buffers      "),
            number_after(line, "BuffersWritten"),
            "{file}"
        );
        // And what the library reads.
        let n = etwsim::etl::Reader::open([dir.join(file)])
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap()
            .len();
        assert_eq!(n as u64, printed_events, "{file}");
    }
}

#[test]
fn demo_is_the_same_every_run_and_defaults_to_the_current_directory() {
    let a = scratch("demo_same_a");
    let b = scratch("demo_same_b");
    let out_a = ok(&a, &["demo"]);
    let out_b = ok(&b, &["demo"]);
    assert_eq!(out_a, out_b, "deterministic output");
    assert!(out_a.contains("etwsim dump demo.etl"), "{out_a}");
    for f in ["demo.etl", "burst.etl"] {
        let bytes_a = std::fs::read(a.join(f)).expect("written into the current directory");
        assert_eq!(
            bytes_a,
            std::fs::read(b.join(f)).unwrap(),
            "{f}: same bytes"
        );
    }
    // A second run over existing files replaces them.
    assert_eq!(ok(&a, &["demo"]), out_a);
}

#[test]
fn the_readme_shows_what_the_demo_and_dump_really_print() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README.md");
    let section = readme
        .split("## What the demo shows")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README has a section on the demo's output");
    let blocks: Vec<&str> = section
        .split("```text\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert_eq!(
        blocks.len(),
        2,
        "one block of demo output, one of dump output"
    );
    let dir = scratch("readme");
    let demo = ok(&dir, &["demo"]);
    let dump = ok(&dir, &["dump", "demo.etl"]);
    for (block, out) in blocks.iter().zip([&demo, &dump]) {
        for line in block.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                out.lines().any(|l| l == line),
                "README line not in the real output: {line:?}"
            );
        }
    }
}

#[test]
fn demo_creates_its_output_folder() {
    let dir = scratch("demo_mkdir");
    ok(&dir, &["demo", "--out=new/nested"]);
    assert!(dir.join("new/nested/demo.etl").is_file());
}

#[test]
fn dump_formats_agree_on_the_demo_file() {
    let (dir, _) = demo("dump_formats");
    let text = ok(&dir, &["dump", "demo.etl"]);
    let csv = ok(&dir, &["dump", "demo.etl", "--format", "csv"]);
    let json = ok(&dir, &["dump", "--format=json", "demo.etl"]);
    let (rows, _) = text_records(&text);
    assert_eq!(rows, 5);
    for needle in [
        "logger       DemoFile",
        "buffer size  8 KB",
        "clock        QPC",
        "start        2026-01-01T00:00:00.0000000Z",
        "processors   4",
        "2026-01-01T00:00:00.0000010Z  {5eed0101-2026-4e75-8000-73686f703031}     1   0   4",
        "PROCESS_START_KEY",
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }

    let mut csv_lines = csv.lines();
    assert_eq!(
        csv_lines.next(),
        Some(
            "time,kind,provider,id,version,level,opcode,task,keyword,hook,pid,tid,cpu,payload_len,ext"
        )
    );
    let csv_rows: Vec<Vec<&str>> = csv_lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(csv_rows.len(), 5);
    assert!(csv_rows.iter().all(|r| r.len() == 15));
    let ids: Vec<&str> = csv_rows.iter().map(|r| r[3]).collect();
    assert_eq!(ids, ["1", "2", "21", "22", "4"], "oldest first");
    assert_eq!(csv_rows[0][10], "1200", "pid");

    let lines: Vec<Json> = json.lines().map(|l| Json::parse(l).unwrap()).collect();
    assert_eq!(lines.len(), 6);
    let h = &lines[0];
    assert_eq!(h.str("type"), Some("header"));
    assert_eq!(h.str("logger"), Some("DemoFile"));
    assert_eq!(h.int("buffer_size"), Some(8192));
    assert_eq!(h.int("processors"), Some(4));
    assert_eq!(h.str("start_time"), Some("2026-01-01T00:00:00.0000000Z"));
    let ids: Vec<i128> = lines[1..].iter().map(|e| e.int("id").unwrap()).collect();
    assert_eq!(ids, [1, 2, 21, 22, 4]);
    let first = &lines[1];
    assert_eq!(first.str("kind"), Some("EVENT_HEADER"));
    assert_eq!(
        first.str("provider"),
        Some("5eed0101-2026-4e75-8000-73686f703031")
    );
    assert_eq!(first.str("time"), Some("2026-01-01T00:00:00.0000010Z"));
    assert_eq!(first.int("cpu"), Some(0));
    let ext = first.get("ext").and_then(Json::array).unwrap();
    assert_eq!(ext[0].str("name"), Some("PROCESS_START_KEY"));
    assert_eq!(ext[0].int("size"), Some(8));
}

/// The shared fixtures, or `None` (with a note) when `shared/` is not beside the checkout.
fn fixtures() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/etl");
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

#[test]
fn dump_reads_every_fixture_in_every_format() {
    let Some(files) = fixtures() else { return };
    assert!(!files.is_empty(), "no fixtures found");
    let dir = scratch("fixtures");
    for path in files {
        let name = path.display().to_string();
        let expected: Vec<Json> = std::fs::read_to_string(path.with_extension("expected.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| Json::parse(l).unwrap())
            .collect();
        let n = expected.len();

        let (rows, total) = text_records(&ok(&dir, &["dump", &name]));
        assert_eq!((rows, total), (n, n as u64), "{name}: text");
        let csv = ok(&dir, &["dump", &name, "--format", "csv"]);
        assert_eq!(csv.lines().count(), n + 1, "{name}: csv");
        let json = ok(&dir, &["dump", &name, "--format", "json"]);
        let lines: Vec<Json> = json.lines().map(|l| Json::parse(l).unwrap()).collect();
        assert_eq!(lines.len(), n + 1, "{name}: json");

        // The same records as the expected lines (which are in file order; dump prints
        // oldest first): compare them as sorted lists of their fields.
        let key = |j: &Json| {
            let e = j.get("ext").and_then(Json::array).map_or(0, <[Json]>::len);
            [
                "id",
                "version",
                "level",
                "opcode",
                "task",
                "keyword",
                "pid",
                "tid",
                "payload_len",
            ]
            .map(|k| j.int(k).unwrap_or(-1))
            .into_iter()
            .chain([e as i128])
            .collect::<Vec<_>>()
        };
        let mut got: Vec<_> = lines[1..].iter().map(key).collect();
        let mut want: Vec<_> = expected.iter().map(key).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{name}");
        let providers = |v: &[Json]| {
            let mut p: Vec<String> = v
                .iter()
                .filter_map(|j| j.str("provider"))
                .map(String::from)
                .collect();
            p.sort();
            p
        };
        assert_eq!(providers(&lines[1..]), providers(&expected), "{name}");
    }
}

/// A file with one record of each kind that is not EVENT_HEADER, one event, and a logger
/// name that needs escaping in every format.
fn odd_file(dir: &Path) -> PathBuf {
    let path = dir.join("kinds.etl");
    let start = 134_116_992_000_000_000; // 2026-01-01T00:00:00Z at raw 0
    let mut w = Writer::create(
        WriterOptions::new(&path)
            .buffer_size(4096)
            .processors(2)
            .start(0, start)
            .logger_name("odd \"name\", with\\escapes\n"),
    )
    .unwrap();
    let trace = |header_type: u8, hook_id: u16, ts: Option<i64>| TraceRecord {
        header_type,
        version: 2,
        hook_id,
        thread_id: Some(88),
        process_id: Some(4),
        timestamp: ts,
        payload: vec![0xAB; 8],
        ..TraceRecord::default()
    };
    let mut cpu0 = BufferBuilder::new(4096, 0).unwrap();
    let mut cpu1 = BufferBuilder::new(4096, 1).unwrap();
    cpu0.push(&Record::Event(EventRecord {
        header: EventHeader {
            timestamp: 10,
            thread_id: 7,
            process_id: 6,
            provider_id: Guid::RT_LOST_EVENT,
            descriptor: EventDescriptor::new(42, Level::WARNING, Keyword(0x30)),
            ..EventHeader::default()
        },
        user_data: b"abc".to_vec(),
        ..EventRecord::default()
    }))
    .unwrap();
    cpu0.push(&Record::Trace(trace(
        header_type::SYSTEM64,
        0x0b0a,
        Some(20),
    )))
    .unwrap();
    cpu1.push(&Record::Trace(TraceRecord {
        process_id: None,
        thread_id: None,
        ..trace(header_type::PERFINFO64, 0x0f2e, Some(30))
    }))
    .unwrap();
    cpu1.push(&Record::Trace(TraceRecord {
        guid: Some(Guid::RT_LOST_EVENT),
        level: 3,
        ..trace(header_type::FULL_HEADER64, 0x0001, Some(40))
    }))
    .unwrap();
    cpu1.push(&Record::Trace(TraceRecord {
        message: Some(MessageInfo {
            option_flags: message_flags::SEQUENCE,
            sequence: Some(9),
            component_id: None,
        }),
        process_id: None,
        thread_id: None,
        ..trace(header_type::MESSAGE, 0x0011, None)
    }))
    .unwrap();
    w.write_buffer(&cpu0.finish(1, 20, 0)).unwrap();
    w.write_buffer(&cpu1.finish(2, 40, 0)).unwrap();
    w.close(&CloseStats::default()).unwrap();
    path
}

#[test]
fn dump_shows_the_kind_and_hook_of_other_records() {
    let dir = scratch("kinds");
    odd_file(&dir);
    let text = ok(&dir, &["dump", "kinds.etl"]);
    assert_eq!(text_records(&text), (5, 5));
    assert!(
        text.contains("5 records: 1 EVENT_HEADER event, 4 other records"),
        "{text}"
    );
    for needle in [
        "SYSTEM_TRACE_HEADER hook 0x0b0a",
        "PERFINFO_TRACE_HEADER hook 0x0f2e",
        "EVENT_TRACE_HEADER hook 0x0001",
        "MESSAGE_TRACE_HEADER hook 0x0011",
        // The logger name's line break is shown escaped, not printed.
        r#"logger       odd \"name\", with\\escapes\n (logger id 0)"#,
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }

    let csv = ok(&dir, &["dump", "kinds.etl", "--format", "csv"]);
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let by_kind: BTreeMap<&str, &Vec<&str>> = rows.iter().map(|r| (r[1], r)).collect();
    assert_eq!(by_kind["SYSTEM_TRACE_HEADER"][9], "0x0b0a");
    assert_eq!(by_kind["SYSTEM_TRACE_HEADER"][10], "4");
    assert_eq!(
        by_kind["PERFINFO_TRACE_HEADER"][10], "",
        "no pid in a perfinfo record"
    );
    assert_eq!(
        by_kind["MESSAGE_TRACE_HEADER"][0], "",
        "a WPP message without a timestamp"
    );
    assert_eq!(by_kind["EVENT_HEADER"][8], "0x30");

    let json = ok(&dir, &["dump", "kinds.etl", "--format", "json"]);
    let lines: Vec<Json> = json.lines().map(|l| Json::parse(l).unwrap()).collect();
    assert_eq!(
        lines[0].str("logger"),
        Some("odd \"name\", with\\escapes\n"),
        "escaped and read back"
    );
    let kinds: Vec<(&str, Option<i128>)> = lines[1..]
        .iter()
        .map(|l| (l.str("kind").unwrap(), l.int("hook")))
        .collect();
    assert!(
        kinds.contains(&("PERFINFO_TRACE_HEADER", Some(0x0f2e))),
        "{kinds:?}"
    );
    assert!(kinds.contains(&("EVENT_HEADER", None)), "{kinds:?}");
    let classic = lines
        .iter()
        .find(|l| l.str("kind") == Some("EVENT_TRACE_HEADER"))
        .unwrap();
    assert_eq!(classic.str("type"), Some("trace"));
    assert_eq!(classic.int("level"), Some(3));
    assert_eq!(classic.str("time"), Some("2026-01-01T00:00:00.0000040Z"));
}

#[test]
fn a_missing_file_is_one_line_and_exit_1() {
    let dir = scratch("missing");
    let (out, err) = fails(&dir, &["dump", "demo.etl"], 1, "cannot read demo.etl: ");
    assert_eq!(out, "");
    assert!(err.contains("no such file"), "{err}");
}

#[test]
fn a_file_that_is_not_etl_is_one_line_and_exit_1() {
    let dir = scratch("not_etl");
    std::fs::write(
        dir.join("notes.txt"),
        "hello, this is not a trace\n".repeat(200),
    )
    .unwrap();
    std::fs::write(dir.join("empty.etl"), b"").unwrap();
    for f in ["notes.txt", "empty.etl"] {
        let (out, _) = fails(
            &dir,
            &["dump", f],
            1,
            &format!("cannot read {f}: not a valid .etl file"),
        );
        assert_eq!(out, "");
    }
    fails(&dir, &["dump", "."], 1, "cannot read .: it is a folder");
}

#[test]
fn a_truncated_file_prints_the_records_before_the_damage_then_fails() {
    let (dir, _) = demo("truncated");
    let bytes = std::fs::read(dir.join("burst.etl")).unwrap();
    // Four whole 4 KB buffers (the header and three full data buffers) and part of a fifth.
    std::fs::write(dir.join("cut.etl"), &bytes[..4 * 4096 + 1000]).unwrap();
    for format in ["text", "csv", "json"] {
        let (out, err) = fails(
            &dir,
            &["dump", "cut.etl", "--format", format],
            1,
            "cannot read cut.etl: the file is damaged after 60 records: the last buffer at offset 0x4000",
        );
        let rows = match format {
            "text" => text_records_partial(&out),
            _ => out.lines().count() - 1,
        };
        assert_eq!(rows, 60, "{format}: the records before the damage\n{err}");
    }
    // Cut exactly at a buffer boundary: fewer buffers than the header counts.
    std::fs::write(dir.join("short.etl"), &bytes[..3 * 4096]).unwrap();
    fails(
        &dir,
        &["dump", "short.etl"],
        1,
        "damaged after 40 records: the buffers BuffersWritten counts",
    );
}

/// Rows of a text dump that stopped at damage (no total line).
fn text_records_partial(text: &str) -> usize {
    text.lines()
        .skip_while(|l| !l.starts_with("TIME ("))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .count()
}

#[test]
fn command_line_mistakes_are_one_line_and_exit_2() {
    let dir = scratch("usage");
    fails(&dir, &[], 2, "no command given");
    fails(&dir, &["frobnicate"], 2, "unknown command 'frobnicate'");
    fails(&dir, &["--frobnicate"], 2, "unknown option '--frobnicate'");
    fails(
        &dir,
        &["demo", "--bogus"],
        2,
        "unknown option '--bogus' for 'demo'",
    );
    fails(&dir, &["demo", "--out"], 2, "--out needs a value");
    fails(&dir, &["demo", "x.etl"], 2, "unexpected argument 'x.etl'");
    fails(&dir, &["dump"], 2, "'dump' needs a FILE.etl");
    fails(
        &dir,
        &["dump", "a.etl", "--bogus"],
        2,
        "unknown option '--bogus' for 'dump'",
    );
    fails(
        &dir,
        &["dump", "a.etl", "--format", "xml"],
        2,
        "unknown format 'xml'",
    );
    fails(
        &dir,
        &["dump", "a.etl", "b.etl"],
        2,
        "'dump' reads one file",
    );
    // Nothing was written by any of them.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn a_demo_that_cannot_write_its_files_is_one_line_and_exit_1() {
    let dir = scratch("demo_blocked");
    std::fs::write(dir.join("taken"), b"a file, not a folder").unwrap();
    let (out, _) = fails(
        &dir,
        &["demo", "--out", "taken"],
        1,
        "cannot write into taken: it is a file, not a folder",
    );
    assert_eq!(
        out, "",
        "nothing is simulated when the files cannot be written"
    );
}

#[test]
fn help_and_version() {
    let dir = scratch("help");
    let help = ok(&dir, &["--help"]);
    assert!(help.contains("etwsim demo [--out DIR]"), "{help}");
    assert!(help.contains("etwsim dump FILE.etl [--format text|csv|json]"));
    assert_eq!(ok(&dir, &["help"]), help);
    assert_eq!(ok(&dir, &["-h"]), help);
    assert_eq!(ok(&dir, &["dump", "--help"]), help);
    assert_eq!(
        ok(&dir, &["--version"]),
        format!("etwsim {}\n", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(ok(&dir, &["-V"]), ok(&dir, &["--version"]));
}

// ---- a small JSON reader, enough to check the output is valid JSON and read fields ----

#[derive(Debug, Clone, PartialEq)]
enum Json {
    /// `null`, `true`, `false`, or a number that is not an integer.
    Other,
    Int(i128),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn parse(s: &str) -> Result<Json, String> {
        let mut p = Parser {
            s: s.as_bytes(),
            at: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.at != s.len() {
            return Err(format!("trailing input at {} in {s}", p.at));
        }
        Ok(v)
    }
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn int(&self, key: &str) -> Option<i128> {
        match self.get(key)? {
            Json::Int(n) => Some(*n),
            _ => None,
        }
    }
    fn array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(v) => Some(v),
            _ => None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at {}", c as char, self.at))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.at).copied() {
            Some(b'{') => {
                self.at += 1;
                let mut m = Vec::new();
                self.ws();
                if self.s.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Object(m));
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.value()? else {
                        return Err(format!("object key at {}", self.at));
                    };
                    self.eat(b':')?;
                    m.push((k, self.value()?));
                    self.ws();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Object(m));
                        }
                        _ => return Err(format!("bad object at {}", self.at)),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Array(v));
                }
                loop {
                    v.push(self.value()?);
                    self.ws();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Array(v));
                        }
                        _ => return Err(format!("bad array at {}", self.at)),
                    }
                }
            }
            Some(b'"') => {
                self.at += 1;
                let mut out = String::new();
                loop {
                    let c = *self.s.get(self.at).ok_or("unterminated string")?;
                    self.at += 1;
                    match c {
                        b'"' => return Ok(Json::Str(out)),
                        b'\\' => {
                            let e = *self.s.get(self.at).ok_or("bad escape")?;
                            self.at += 1;
                            out.push(match e {
                                b'"' => '"',
                                b'\\' => '\\',
                                b'/' => '/',
                                b'n' => '\n',
                                b'r' => '\r',
                                b't' => '\t',
                                b'b' => '\u{8}',
                                b'f' => '\u{c}',
                                b'u' => {
                                    let hex = std::str::from_utf8(
                                        self.s.get(self.at..self.at + 4).ok_or("short \\u")?,
                                    )
                                    .map_err(|e| e.to_string())?;
                                    self.at += 4;
                                    let n =
                                        u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                                    char::from_u32(n).ok_or("surrogate")?
                                }
                                _ => return Err(format!("bad escape at {}", self.at)),
                            });
                        }
                        c if c < 0x20 => {
                            return Err(format!("raw control character at {}", self.at));
                        }
                        _ => {
                            // Copy one UTF-8 character whole.
                            let start = self.at - 1;
                            let len = match c {
                                0xF0.. => 4,
                                0xE0.. => 3,
                                0xC0.. => 2,
                                _ => 1,
                            };
                            let ch = std::str::from_utf8(&self.s[start..start + len])
                                .map_err(|e| e.to_string())?;
                            out.push_str(ch);
                            self.at = start + len;
                        }
                    }
                }
            }
            Some(b't') if self.s[self.at..].starts_with(b"true") => {
                self.at += 4;
                Ok(Json::Other)
            }
            Some(b'f') if self.s[self.at..].starts_with(b"false") => {
                self.at += 5;
                Ok(Json::Other)
            }
            Some(b'n') if self.s[self.at..].starts_with(b"null") => {
                self.at += 4;
                Ok(Json::Other)
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.at;
                while self
                    .s
                    .get(self.at)
                    .is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    self.at += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.at]).unwrap();
                match t.parse::<i128>() {
                    Ok(n) => Ok(Json::Int(n)),
                    Err(_) => t
                        .parse::<f64>()
                        .map(|_| Json::Other)
                        .map_err(|_| format!("number {t:?}")),
                }
            }
            _ => Err(format!("unexpected input at {}", self.at)),
        }
    }
}

#[test]
fn guid_prints_one_name_derived_guid_per_line() {
    // rule: GID-05
    // rule: GID-03
    let dir = scratch("guid");
    let out = ok(
        &dir,
        &["guid", "MyProvider", "System.Net.Http", "myprovider", ""],
    );
    assert_eq!(
        out,
        "{b3864c38-4273-58c5-545b-8b3608343471}\n\
         {d30b5633-7ef1-5485-b4e0-94979b102068}\n\
         {b3864c38-4273-58c5-545b-8b3608343471}\n\
         {4445ee6c-fd5a-5b15-047a-5866ffa76aa6}\n"
    );
    fails(
        &dir,
        &["guid"],
        2,
        "'guid' needs at least one provider NAME",
    );
}

// rule: ALG-04
// rule: REG-18
#[test]
fn boot_runs_a_reg_file_several_times_and_lists_sessions_and_files() {
    let dir = scratch("boot");
    let reg =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/autologger/two_autologgers.reg");
    let reg = reg.to_str().unwrap();
    let text = ok(&dir, &["boot", reg, "--boots", "4", "--out", "machine"]);
    assert!(text.contains("boot 4"), "{text}");
    assert!(
        text.contains("AutoLogger Contoso-Boot: started, Status 0"),
        "{text}"
    );
    assert!(text.contains(r"writes C:\Windows\System32\LogFiles\WMI\Contoso-Boot.etl.0003"));
    assert!(text.contains("NEWFILE; removed (ALG-03)"), "{text}");
    for n in 1..=3 {
        let f = dir.join(format!(
            "machine/C/Windows/System32/LogFiles/WMI/Contoso-Boot.etl.000{n}"
        ));
        assert!(f.is_file(), "{} is missing", f.display());
    }
    let json = ok(&dir, &["boot", reg, "--boots", "2", "--format", "json"]);
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 6, "3 sessions × 2 boots");
    assert!(lines[5].starts_with(r#"{"boot":2,"kind":"autologger","key":"Fabrikam-Live""#));
    assert!(lines[4].contains(r#""file_counter":2"#), "{}", lines[4]);
    fails(&dir, &["boot", "missing.reg"], 1, "missing.reg");
    fails(&dir, &["boot", reg, "--boots", "zero"], 2, "--boots");
}
