//! A wrong scenario gets one error naming its line and key; nothing panics on any input.

use etwsim_scenario::{Error, Scenario};
use proptest::prelude::*;
use std::path::Path;

fn parse(text: &str) -> Result<Scenario, Error> {
    Scenario::parse(text, "t.toml", Path::new("."))
}

/// The error's (line, key, message).
fn error(text: &str) -> (usize, String, String) {
    match parse(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => {
            let l = e.location().unwrap_or_else(|| panic!("no location: {e}"));
            (l.line, l.key.clone().unwrap_or_default(), l.message.clone())
        }
    }
}

const BASE: &str = r#"
[[process]]
name = "app"

[[provider]]
name = "P"
process = "app"

[[session]]
name = "S"
log_file = "s.etl"
"#;

#[test]
fn each_mistake_names_its_line_and_key() {
    let cases: &[(&str, usize, &str, &str)] = &[
        // unknown keys (deny_unknown_fields), at any depth
        (
            "[[session]]\nname = \"a\"\nbufer_size_kb = 4\n",
            3,
            "session[1].bufer_size_kb",
            "unknown field",
        ),
        ("[machine]\ncpu = 2\n", 2, "machine.cpu", "unknown field"),
        (
            "[[expect.session]]\nname = \"S\"\nevnts = 1\n",
            3,
            "expect.session[1].evnts",
            "unknown field",
        ),
        (
            "[scenario]\nnmae = \"x\"\n",
            2,
            "scenario.nmae",
            "unknown field",
        ),
        // wrong types
        (
            "[[session]]\nname = \"a\"\n[[session]]\nname = \"b\"\nbuffer_size_kb = \"x\"\n",
            5,
            "session[2].buffer_size_kb",
            "invalid type",
        ),
        ("[[step]]\nadvance = 5\n", 2, "step[1].advance", "unit"),
        (
            "[[step]]\nadvance = \"5 weeks\"\n",
            2,
            "step[1].advance",
            "unknown unit",
        ),
        // TOML syntax
        (
            "[[session]]\nname = \n",
            2,
            "session[1].name",
            "string values must be quoted",
        ),
        // names that refer to nothing
        (
            "[[step]]\nflush = \"nope\"\n",
            2,
            "step[1].flush",
            "no session named \"nope\"",
        ),
        (
            "[[provider]]\nname = \"P\"\nprocess = \"ghost\"\n",
            3,
            "provider[1].process",
            "no process named",
        ),
        // values the loader checks
        (
            "[[session]]\nname = \"a\"\nmode = [\"SEQUENTAL\"]\n",
            3,
            "session[1].mode",
            "unknown flag \"SEQUENTAL\"",
        ),
        (
            "[[session]]\nname = \"a\"\nclock = \"sundial\"\n",
            3,
            "session[1].clock",
            "unknown clock",
        ),
        ("[machine]\ncpus = 0\n", 1, "machine", "1 to 256"),
        (
            "[[process]]\nname = \"System\"\n",
            2,
            "process[1].name",
            "other than",
        ),
        (
            "[[process]]\nname = \"a\"\ntoken = \"root\"\n",
            3,
            "process[1].token",
            "unknown token",
        ),
        (
            "[[process]]\nname = \"a\"\nthreads = [{ name = \"t\", cpu = 9 }]\n",
            3,
            "process[1].threads[1].cpu",
            "does not exist",
        ),
        // steps
        ("[[step]]\n", 1, "step[1]", "needs one action key"),
        (
            "[[step]]\nflush = \"S\"\nstop = \"S\"\n",
            1,
            "step[1]",
            "does one thing",
        ),
        (
            "[[step]]\nrun_logger = false\n",
            2,
            "step[1].run_logger",
            "run_logger = true",
        ),
        (
            "[[step]]\nreboot = true\n",
            2,
            "step[1].reboot",
            "needs a machine booted from a registry",
        ),
    ];
    for (text, line, key, message) in cases {
        let (l, k, m) = error(text);
        assert_eq!(
            (l, k.as_str()),
            (*line, *key),
            "{text:?} gave line {l}, key {k:?}: {m}"
        );
        assert!(m.contains(message), "{text:?}: {m:?} lacks {message:?}");
    }
}

#[test]
fn mistakes_in_steps_and_expectations_point_at_the_key() {
    let cases: &[(&str, usize, &str, &str)] = &[
        (
            "[[step]]\nwrite = \"P\"\nflush_timer = 3\n",
            3,
            "step[1].flush_timer",
            "does not apply to a `write` step",
        ),
        (
            "[[step]]\nwrite = \"P\"\nkeyword = [\"Read\"]\n",
            3,
            "step[1].keyword",
            "has none",
        ),
        (
            "[[step]]\nwrite = \"P\"\nkeyword = [\"0x10000000000000000\"]\n",
            3,
            "step[1].keyword",
            "does not fit in 64 bits",
        ),
        (
            "[[step]]\nwrite = \"P\"\ncpu = 7\n",
            3,
            "step[1].cpu",
            "does not exist",
        ),
        (
            "[[step]]\nwrite = \"P\"\nthread = \"t\"\n",
            3,
            "step[1].thread",
            "no thread named",
        ),
        (
            "[[step]]\nwrite = \"P\"\ncount = 0\n",
            3,
            "step[1].count",
            "at least 1",
        ),
        (
            "[[step]]\nwrite = \"P\"\ncount = 2000000\n",
            3,
            "step[1].count",
            "more than",
        ),
        (
            "[[step]]\nwrite = \"P\"\npayload_text = \"a\"\npayload_size = 2\n",
            2,
            "step[1]",
            "one of payload_size",
        ),
        (
            "[[step]]\nwrite = \"P\"\npayload_hex = \"0g\"\n",
            3,
            "step[1].payload_hex",
            "hex",
        ),
        (
            "[[step]]\nenable = \"S\"\n",
            1,
            "step[1].provider",
            "needs `provider`",
        ),
        (
            "[[enable]]\nsession = \"S\"\nprovider = \"Q\"\n",
            3,
            "enable[1].provider",
            "no provider named \"Q\"",
        ),
        (
            "[[enable]]\nsession = \"S\"\nprovider = \"P\"\nproperties = [\"SIDE\"]\n",
            4,
            "enable[1].properties",
            "unknown flag",
        ),
        (
            "[[enable]]\nsession = \"S\"\nprovider = \"P\"\nfilter = { pids = [\"ghost\"] }\n",
            4,
            "enable[1].filter.pids",
            "no process named",
        ),
        (
            "[[enable]]\nsession = \"S\"\nprovider = \"P\"\nfilter = { event_idz = [1] }\n",
            4,
            "enable[1].filter.event_idz",
            "unknown field",
        ),
        (
            "[[expect.session]]\nname = \"T\"\nevents = 1\n",
            2,
            "expect.session[1].name",
            "no session named \"T\"",
        ),
        (
            "[[expect.session]]\nname = \"S\"\n",
            1,
            "expect.session[1]",
            "nothing to check",
        ),
        (
            "[[expect.journal]]\nkind = \"Lost\"\n",
            2,
            "expect.journal[1].kind",
            "unknown journal entry kind",
        ),
        (
            "[[expect.journal]]\nkind = \"Loss\"\nrecorded = true\n",
            3,
            "expect.journal[1].recorded",
            "needs kind",
        ),
        (
            "[[expect.journal]]\nkind = \"Loss\"\ncount = 1\nat_least = 1\n",
            1,
            "expect.journal[1]",
            "one of count",
        ),
        (
            "[[expect.callbacks]]\nprovider = \"P\"\nindex = 0\nlevel = 1\n",
            3,
            "expect.callbacks[1].index",
            "counts from 1",
        ),
    ];
    let base_lines = BASE.lines().count();
    for (text, line, key, message) in cases {
        let full = format!("{BASE}{text}");
        let (l, k, m) = error(&full);
        assert_eq!(
            (l - base_lines, k.as_str()),
            (*line, *key),
            "{text:?} gave line {l}, key {k:?}: {m}"
        );
        assert!(m.contains(message), "{text:?}: {m:?} lacks {message:?}");
    }
}

#[test]
fn the_error_text_names_file_line_column_and_key() {
    let e = parse("[[session]]\nname = \"a\"\nbufer_size_kb = 4\n").unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("t.toml:3:1: `session[1].bufer_size_kb`: unknown field"),
        "{text}"
    );
}

#[test]
fn a_manifest_that_cannot_be_read_is_an_error_at_its_key() {
    let dir = std::env::temp_dir().join(format!("etwsim-scenario-man-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.man"), b"<instrumentationManifest><oops").unwrap();
    let text = "[[process]]\nname = \"a\"\n[[provider]]\nname = \"P\"\nprocess = \"a\"\nmanifest = \"bad.man\"\n";
    let e = Scenario::parse(text, "t.toml", &dir).unwrap_err();
    let l = e.location().unwrap();
    assert_eq!(
        (l.line, l.key.as_deref()),
        (6, Some("provider[1].manifest")),
        "{e}"
    );
    let text = text.replace("bad.man", "missing.man");
    let e = Scenario::parse(&text, "t.toml", &dir).unwrap_err();
    assert!(e.to_string().contains("cannot read manifest"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_failing_control_step_aborts_the_run_and_says_where() {
    // STOP twice: the second finds no session (ERROR_WMI_INSTANCE_NOT_FOUND).
    let text = format!("{BASE}[[step]]\nstop = \"S\"\n\n[[step]]\nstop = \"S\"\n");
    let outcome = parse(&text).unwrap().run();
    let a = outcome.aborted.as_ref().expect("the run aborts");
    assert_eq!(
        (a.line, a.key.as_str()),
        (BASE.lines().count() + 4, "step[2].stop")
    );
    assert!(a.message.contains("ERROR_WMI_INSTANCE_NOT_FOUND"), "{a}");
    assert!(!outcome.passed());
    // With expect_error the same step is a success.
    let text = text.replace("[[step]]\nstop = \"S\"\n\n[[step]]\nstop = \"S\"\n", "[[step]]\nstop = \"S\"\n\n[[step]]\nstop = \"S\"\nexpect_error = \"ERROR_WMI_INSTANCE_NOT_FOUND\"\n");
    let outcome = parse(&text).unwrap().run();
    assert!(outcome.aborted.is_none(), "{:?}", outcome.aborted);
}

#[test]
fn a_failed_expectation_keeps_expected_actual_and_line() {
    let text = format!("{BASE}[[expect.session]]\nname = \"S\"\nevents = 3\n");
    let outcome = parse(&text).unwrap().run();
    let f: Vec<_> = outcome.failures().collect();
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].line, f[0].expected.as_str(), f[0].actual.as_str()),
        (BASE.lines().count() + 1, "3", "0")
    );
}

#[test]
fn output_files_stay_inside_the_folder() {
    let text = "[[session]]\nname = \"a\"\nlog_file = \"../../escape.etl\"\n[[session]]\nname = \"b\"\nlog_file = \"b.etl\"\n";
    let outcome = parse(text).unwrap().run();
    let dir = std::env::temp_dir().join(format!("etwsim-scenario-out-{}", std::process::id()));
    let written = outcome.write_files(&dir).unwrap();
    assert!(!written.is_empty());
    for p in &written {
        assert!(
            p.starts_with(&dir),
            "{} escaped {}",
            p.display(),
            dir.display()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The example scenarios, to mutate.
fn examples() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "toml").then(|| std::fs::read_to_string(p).ok())?
        })
        .collect();
    v.sort();
    v
}

/// Loads `text` and, if it loads and is small, runs it: neither may panic.
fn load_and_run(text: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios");
    if let Ok(s) = Scenario::parse(text, "fuzz.toml", &dir) {
        if s.writes() <= 2_000 {
            let o = s.run();
            let _ = etwsim_scenario::output::outcome_text(&o);
            let _ = etwsim_scenario::output::outcome_json_lines(&o);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        load_and_run(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn tomlish_garbage_never_panics(
        lines in proptest::collection::vec(
            prop_oneof![
                Just("[[step]]".to_string()),
                Just("[[session]]".to_string()),
                Just("[[process]]".to_string()),
                Just("[[provider]]".to_string()),
                Just("[[enable]]".to_string()),
                Just("[[expect.session]]".to_string()),
                Just("[[expect.journal]]".to_string()),
                Just("[machine]".to_string()),
                "[a-z_]{1,14} = [0-9]{1,6}",
                "[a-z_]{1,14} = \"[A-Za-z0-9 .:{}-]{0,12}\"",
                "(name|session|provider|process|write|flush|stop|kind) = \"(S|P|app|Loss|x)\"",
                "(count|id|level|cpu|cpus|buffer_size_kb|maximum_buffers) = -?[0-9]{1,4}",
                "(advance|every) = \"[0-9]{1,3}(us|ms|s|h|x)\"",
                "(any|all|keyword|mode|properties) = \\[\"[A-Za-z_]{1,10}\"\\]",
            ],
            0..24,
        )
    ) {
        load_and_run(&lines.join("\n"));
    }

    #[test]
    fn mutated_examples_never_panic(
        which in 0usize..16,
        cut_at in any::<prop::sample::Index>(),
        cut_len in 0usize..40,
        insert in "[ -~\n]{0,24}",
    ) {
        let all = examples();
        let text = &all[which % all.len()];
        let mut at = cut_at.index(text.len().max(1)).min(text.len());
        while !text.is_char_boundary(at) { at -= 1; }
        let mut end = (at + cut_len).min(text.len());
        while !text.is_char_boundary(end) { end -= 1; }
        let mutated = format!("{}{}{}", &text[..at], insert, &text[end..]);
        load_and_run(&mutated);
    }
}
