//! The `etwsim` binary as people use it: `demo`, `guid`, the README's claims, the command
//! line's help and its mistakes. `dump` is in dump.rs, `export` in export.rs.
//!
//! Each test runs the built binary in its own folder under `CARGO_TARGET_TMPDIR`.

use crate::common;

use common::*;
use std::path::Path;

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
    assert!(
        out_a.contains("etwsim dump demo.etl --manifest demo.man"),
        "{out_a}"
    );
    for f in ["demo.etl", "burst.etl", "demo.man"] {
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
fn demo_creates_its_output_folder() {
    let dir = scratch("demo_mkdir");
    ok(&dir, &["demo", "--out=new/nested"]);
    assert!(dir.join("new/nested/demo.etl").is_file());
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
        "required arguments were not provided: <NAME>",
    );
}

#[test]
fn command_line_mistakes_are_one_line_naming_the_help_and_exit_2() {
    let dir = scratch("usage");
    for (args, needle) in [
        (&[][..], "no command given"),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (&["--frobnicate"], "unexpected argument '--frobnicate'"),
        (&["demo", "--bogus"], "unexpected argument '--bogus'"),
        (&["demo", "--out"], "a value is required for '--out <DIR>'"),
        (&["demo", "x.etl"], "unexpected argument 'x.etl'"),
        (
            &["dump"],
            "required arguments were not provided: <FILE.etl>",
        ),
        (
            &["dump", "a.etl", "--bogus"],
            "unexpected argument '--bogus'",
        ),
        (
            &["dump", "a.etl", "--format", "xml"],
            "invalid value 'xml' for '--format <FORMAT>' [possible values: text, csv, json]",
        ),
        (&["dump", "a.etl", "b.etl"], "unexpected argument 'b.etl'"),
        (
            &["export", "a.etl", "--format", "svg"],
            "[possible values: chrome]",
        ),
        (&["guid"], "required arguments were not provided: <NAME>"),
    ] {
        let (out, line) = fails(&dir, args, 2, needle);
        assert_eq!(out, "", "{args:?}");
        let help = match args.first() {
            Some(&c) if ["demo", "dump", "export", "guid"].contains(&c) => {
                format!("see 'etwsim {c} --help'")
            }
            _ => "see 'etwsim --help'".into(),
        };
        assert!(line.ends_with(&help), "{line}");
    }
    // Nothing was written by any of them.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn every_command_has_its_help_and_the_version_is_printed() {
    let dir = scratch("help");
    let help = ok(&dir, &["--help"]);
    for needle in [
        "Usage: etwsim [COMMAND]",
        "demo ",
        "dump ",
        "export ",
        "guid ",
        "Exit status:",
    ] {
        assert!(help.contains(needle), "{needle:?} not in:\n{help}");
    }
    assert_eq!(ok(&dir, &["-h"]).lines().next(), help.lines().next());
    for (command, usage, needle) in [
        ("demo", "Usage: etwsim demo [OPTIONS]", "--out <DIR>"),
        (
            "dump",
            "Usage: etwsim dump [OPTIONS] <FILE.etl>",
            "--manifest <FILE>",
        ),
        (
            "export",
            "Usage: etwsim export [OPTIONS] <FILE.etl>",
            "chrome",
        ),
        ("guid", "Usage: etwsim guid <NAME>...", "GID-01"),
    ] {
        let text = ok(&dir, &[command, "--help"]);
        assert!(text.contains(usage), "{command}: {text}");
        assert!(text.contains(needle), "{command}: {needle:?} not in {text}");
        assert_eq!(ok(&dir, &["help", command]), text, "etwsim help {command}");
    }
    assert_eq!(
        ok(&dir, &["--version"]),
        format!("etwsim {}\n", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(ok(&dir, &["-V"]), ok(&dir, &["--version"]));
}

#[test]
fn the_readme_shows_what_demo_dump_and_export_really_print() {
    let dir = scratch("readme");
    let demo = ok(&dir, &["demo"]);
    let decoded = ok(&dir, &["dump", "demo.etl", "--manifest", "demo.man"]);
    let raw = ok(&dir, &["dump", "demo.etl"]);
    let json = ok(
        &dir,
        &["dump", "demo.etl", "-m", "demo.man", "--format", "json"],
    );
    let chrome = ok(
        &dir,
        &[
            "export",
            "--format",
            "chrome",
            "demo.etl",
            "--manifest",
            "demo.man",
        ],
    );
    let text = readme_blocks("## What the demo shows", "text");
    assert_eq!(
        text.len(),
        4,
        "blocks: demo output, the decoded dump, an undecoded record, export lines"
    );
    // The decoded dump is shown whole.
    assert_eq!(
        text[1], decoded,
        "the README's dump is not what dump prints"
    );
    for (block, out) in [(&text[0], &demo), (&text[2], &raw), (&text[3], &chrome)] {
        for line in block.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                out.lines().any(|l| l == line),
                "README line not in the real output: {line:?}"
            );
        }
    }
    // The JSON example is one record of `--format json`, spread over lines.
    let shown: serde_json::Value =
        serde_json::from_str(&readme_blocks("## What the demo shows", "json")[0]).unwrap();
    assert!(
        json_lines(&json).contains(&shown),
        "the README's JSON record is not one that dump prints: {shown}"
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

/// A `.reg` whose AutoLogger writes into `C:\Traces`, a folder no fresh machine has.
const TRACES_REG: &str = "Windows Registry Editor Version 5.00\r\n\r\n\
[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WMI\\Autologger\\Traced]\r\n\
\"Start\"=dword:00000001\r\n\
\"Guid\"=\"{6f3e2a10-0000-4000-8000-0000000000aa}\"\r\n\
\"FileName\"=\"C:\\\\Traces\\\\traced.etl\"\r\n";

/// Issue 33: a log file's missing folder fails as StartTrace does (SES-28), with its code
/// named once and the way out in the same line; `--create-folders` makes the folders.
#[test]
fn boot_says_how_to_get_a_missing_log_folder_and_can_create_it() {
    // rule: SES-28
    let dir = scratch("boot_folders");
    std::fs::write(dir.join("traces.reg"), TRACES_REG).unwrap();
    let text = ok(&dir, &["boot", "traces.reg", "--out", "m"]);
    let line = text
        .lines()
        .find(|l| l.contains("AutoLogger Traced"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("not started"), "{line}");
    assert_eq!(
        line.matches("ERROR_PATH_NOT_FOUND").count(),
        1,
        "the code is named once: {line}"
    );
    assert!(line.contains("--create-folders"), "{line}");
    let text = ok(
        &dir,
        &["boot", "traces.reg", "--out", "m2", "--create-folders"],
    );
    assert!(
        text.contains("AutoLogger Traced: started, Status 0"),
        "{text}"
    );
    assert!(dir.join("m2/C/Traces/traced.etl").is_file());
    // --create-folders maps into --out: without it there is nothing to create.
    fails(
        &dir,
        &["boot", "traces.reg", "--create-folders"],
        2,
        "--out",
    );
}

/// Issue 33: bounded inputs — `--boots` has a documented maximum, and a `.reg` "file" that
/// never ends is refused after the cap, not read until memory runs out.
#[test]
fn boot_bounds_its_boots_and_the_reg_files_size() {
    let dir = scratch("boot_bounds");
    std::fs::write(dir.join("traces.reg"), TRACES_REG).unwrap();
    fails(
        &dir,
        &["boot", "traces.reg", "--boots", "4294967295"],
        2,
        "--boots",
    );
    fails(
        &dir,
        &["boot", "traces.reg", "--boots", "10001"],
        2,
        "10000",
    );
    if Path::new("/dev/zero").exists() {
        fails(&dir, &["boot", "/dev/zero"], 1, "larger than the 256 MiB");
    }
    fails(&dir, &["boot", "."], 1, "folder");
}

/// Issue 33: without `--out` the machine's folders live in a private scratch folder that is
/// gone when the command ends, and the JSON names no host file in it.
#[test]
fn boot_without_out_leaves_nothing_behind_and_names_no_scratch_path() {
    let dir = scratch("boot_scratch");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let reg =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/autologger/two_autologgers.reg");
    let o = command(&dir, &["boot", reg.to_str().unwrap(), "--format", "json"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json = stdout(&o);
    assert!(json.contains(r#""host_file":null"#), "{json}");
    assert!(!json.contains(tmp.to_str().unwrap()), "{json}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Whether process `pid` has a handler for SIGTERM: on Linux, bit 15 of the SigCgt mask in
/// `/proc/<pid>/status`; elsewhere taken as installed once the scratch folder exists.
#[cfg(unix)]
fn catches_sigterm(pid: u32) -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (15 - 1)) != 0)
}

/// Issue 33: SIGTERM in the middle of a long boot removes the scratch folder too.
#[cfg(unix)]
#[test]
fn boot_stopped_by_sigterm_removes_its_scratch_folder() {
    let dir = scratch("boot_sigterm");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let reg =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/autologger/two_autologgers.reg");
    let mut child = command(&dir, &["boot", reg.to_str().unwrap(), "--boots", "10000"])
        .env("TMPDIR", &tmp)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) for the scratch folder to exist and the command's SIGTERM handler, which
    // it installs just after making the folder: the signal must find both (a SIGTERM between
    // the two ended the command by the default action, with no status 130).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_dir(&tmp).unwrap().next().is_none() || !catches_sigterm(child.id()) {
        assert!(std::time::Instant::now() < deadline, "no scratch folder");
        if child.try_wait().unwrap().is_some() {
            panic!("boot ended before it was stopped");
        }
        std::thread::yield_now();
    }
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
