//! A scenario booted from a registry gets a scratch folder of its own — the host folder that
//! stands for the machine's drives — and removes it when the run ends (issue 33): runs at the
//! same time never share one, and nothing is left behind.
// rule: SES-28 — the log file's folder must exist on the host, so a booted machine needs one.

use etwsim_scenario::{RunOptions, Scenario, output};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("scratch")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn booted() -> Scenario {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios/autologger_boot.toml");
    Scenario::load(path).unwrap_or_else(|e| panic!("{e}"))
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, Iterator::count)
}

#[test]
fn a_booted_run_uses_a_folder_of_its_own_in_the_scratch_root_and_removes_it() {
    let root = scratch("root");
    let sc = booted();
    let o = sc.run_with(&RunOptions::new().scratch(&root));
    assert!(o.passed(), "{}", output::outcome_text(&o));
    assert_eq!(entries(&root), 0, "the run's folder is gone when it ends");
    // A scratch root that cannot hold a folder: the boot fails, saying so, and the run
    // aborts at `machine.registry` — the root given is the one used.
    let file = root.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let o = sc.run_with(&RunOptions::new().scratch(&file));
    let a = o.aborted.as_ref().expect("the boot fails");
    assert_eq!(a.key, "machine.registry");
    assert!(a.message.contains("scratch folder"), "{a}");
}

#[test]
fn runs_at_the_same_time_do_not_share_a_folder_and_agree_byte_for_byte() {
    let root = scratch("together");
    let sc = booted();
    let options = RunOptions::new().scratch(&root);
    let outcomes: Vec<_> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..4).map(|_| s.spawn(|| sc.run_with(&options))).collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for o in &outcomes {
        assert!(o.passed(), "{}", output::outcome_text(o));
        assert_eq!(
            o.files, outcomes[0].files,
            "the same bytes, whatever the folder"
        );
        assert_eq!(
            output::outcome_json_lines(o),
            output::outcome_json_lines(&outcomes[0])
        );
    }
    assert_eq!(entries(&root), 0);
    // The files name the machine's Windows paths, not the host folder that stood for it.
    let f = &outcomes[0].files[0];
    assert!(f.path.starts_with(r"C:\Windows\"), "{}", f.path);
    let header = etwsim::etl::LogfileHeader::decode_buffer(&f.bytes, 0).unwrap();
    assert_eq!(header.log_file_name, f.path);
    // And the boot reports name no host folder either.
    let text = output::outcome_json_lines(&outcomes[0]);
    assert!(!text.contains(&root.display().to_string()), "{text}");
}
