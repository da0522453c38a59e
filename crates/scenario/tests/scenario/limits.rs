//! Bad input costs bounded time and memory (issue 33): every file a scenario reads has a size
//! cap, every list a file may make long has a documented limit, and a scenario with nothing
//! to do is an error, not a run that "passes".

use etwsim_scenario::{
    Error, MAX_ENABLES, MAX_EXPECTATIONS, MAX_PROCESSES, MAX_PROVIDERS, MAX_REGISTRY_BYTES,
    MAX_SCENARIO_BYTES, MAX_SESSIONS, MAX_STEPS, MAX_THREADS, Scenario,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn parse(text: &str) -> Result<Scenario, Error> {
    Scenario::parse(text, "t.toml", Path::new("."))
}

/// The error's message (with its location, if it has one).
fn error(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("accepted: {}…", &text[..text.len().min(200)]),
        Err(e) => e.to_string(),
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("limits")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_scenario_with_nothing_to_do_is_an_error() {
    for text in [
        "",
        "# only a comment\n",
        "[scenario]\nname = \"x\"\ndescription = \"nothing\"\n",
        "[machine]\ncpus = 2\n",
        "[[process]]\nname = \"app\"\n[[provider]]\nname = \"P\"\nprocess = \"app\"\n",
        "[[session]]\nname = \"S\"\nautostart = false\n",
    ] {
        let e = parse(text)
            .err()
            .unwrap_or_else(|| panic!("{text:?} loads"));
        let l = e.location().expect("a located error");
        assert_eq!((l.file.as_str(), l.line), ("t.toml", 1), "{e}");
        assert!(l.message.contains("nothing to do"), "{text:?}: {e}");
        assert!(l.message.contains("[[step]]"), "{e}");
    }
    // Anything to run, or anything to check, is enough.
    for text in [
        "[[session]]\nname = \"S\"\n",
        "[[step]]\nadvance = \"1ms\"\n",
        "[[expect.total]]\nwrites = 0\n",
    ] {
        parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    }
}

#[test]
fn a_scenario_file_larger_than_the_cap_is_refused_without_reading_it_whole() {
    let dir = scratch("big");
    // Comments only: under the cap it would load (and then have nothing to do).
    let path = dir.join("big.toml");
    let line = format!("# {}\n", "x".repeat(1021));
    let n = (MAX_SCENARIO_BYTES as usize) / line.len() + 2;
    std::fs::write(&path, line.repeat(n)).unwrap();
    let e = Scenario::load(&path).expect_err("refused");
    let text = e.to_string();
    assert!(
        text.contains("larger than") && text.contains("16 MiB"),
        "{text}"
    );
    // The same text given to `parse`.
    let e = parse(&line.repeat(n)).expect_err("refused");
    assert!(e.to_string().contains("16 MiB"), "{e}");
}

#[cfg(unix)]
#[test]
fn endless_inputs_are_read_only_up_to_the_cap() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let t = Instant::now();
    let e = Scenario::load("/dev/zero").expect_err("refused");
    assert!(e.to_string().contains("larger than"), "{e}");
    // A registry file named by the scenario.
    let e = error(
        "[machine]\nregistry = \"/dev/zero\"\n[[expect.boot]]\nsession = \"x\"\nstarted = true\n",
    );
    assert!(
        e.contains("machine.registry") && e.contains("larger than") && e.contains("16 MiB"),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
}

#[test]
fn a_registry_file_larger_than_the_cap_is_refused() {
    let dir = scratch("reg");
    let mut text = String::from("Windows Registry Editor Version 5.00\r\n");
    let line = format!("; {}\r\n", "x".repeat(1020));
    while text.len() <= MAX_REGISTRY_BYTES as usize {
        text.push_str(&line);
    }
    std::fs::write(dir.join("big.reg"), text).unwrap();
    let scenario =
        "[machine]\nregistry = \"big.reg\"\n[[expect.boot]]\nsession = \"x\"\nstarted = true\n";
    let e = Scenario::parse(scenario, "t.toml", &dir).expect_err("refused");
    let l = e.location().expect("located");
    assert_eq!(
        (l.line, l.key.as_deref()),
        (2, Some("machine.registry")),
        "{e}"
    );
    assert!(l.message.contains("larger than"), "{e}");
}

/// `n` copies of `table`, with `{i}` replaced by the copy's number.
fn many(table: &str, n: usize) -> String {
    (0..n)
        .map(|i| table.replace("{i}", &i.to_string()))
        .collect()
}

#[test]
fn every_list_has_its_limit() {
    let cases: Vec<(String, &str, usize)> = vec![
        (
            many("[[step]]\nrun_logger = true\n", MAX_STEPS + 1),
            "step",
            MAX_STEPS,
        ),
        (
            many("[[process]]\nname = \"p{i}\"\n", MAX_PROCESSES + 1),
            "process",
            MAX_PROCESSES,
        ),
        (
            format!(
                "[[process]]\nname = \"a\"\n{}",
                many(
                    "[[provider]]\nname = \"P{i}\"\nprocess = \"a\"\n",
                    MAX_PROVIDERS + 1
                )
            ),
            "provider",
            MAX_PROVIDERS,
        ),
        (
            many("[[session]]\nname = \"S{i}\"\n", MAX_SESSIONS + 1),
            "session",
            MAX_SESSIONS,
        ),
        (
            format!(
                "[[process]]\nname = \"a\"\n[[provider]]\nname = \"P\"\nprocess = \"a\"\n[[session]]\nname = \"S\"\n{}",
                many(
                    "[[enable]]\nsession = \"S\"\nprovider = \"P\"\n",
                    MAX_ENABLES + 1
                )
            ),
            "enable",
            MAX_ENABLES,
        ),
        (
            many("[[expect.total]]\nwrites = 0\n", MAX_EXPECTATIONS + 1),
            "expect",
            MAX_EXPECTATIONS,
        ),
        (
            format!(
                "[[process]]\nname = \"a\"\nthreads = [{}]\n",
                many("{ name = \"t{i}\", cpu = 0 },", MAX_THREADS + 1)
            ),
            "threads",
            MAX_THREADS,
        ),
    ];
    for (text, key, limit) in cases {
        let t = Instant::now();
        let e = error(&text);
        let limit = limit.to_string();
        let shown = format!(
            "{},{}",
            &limit[..limit.len().saturating_sub(3)],
            &limit[limit.len().saturating_sub(3)..]
        );
        assert!(
            e.contains(key) && (e.contains(&limit) || e.contains(&shown)) && e.contains("at most"),
            "{key}: {e}"
        );
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{key}: {:?}",
            t.elapsed()
        );
    }
    // Expectations are counted over every kind together.
    let half = MAX_EXPECTATIONS / 2 + 1;
    let text = format!(
        "{}{}",
        many("[[expect.total]]\nwrites = 0\n", half),
        many("[[expect.total]]\nevents = 0\n", half)
    );
    assert!(error(&text).contains("at most"), "{}", error(&text));
    // At the limits themselves, each loads.
    parse(&many("[[step]]\nrun_logger = true\n", MAX_STEPS)).unwrap();
    parse(&format!(
        "{}[[step]]\nrun_logger = true\n",
        many(
            "[[session]]\nname = \"S{i}\"\nautostart = false\n",
            MAX_SESSIONS
        )
    ))
    .unwrap();
}
