//! Outputs never destroy inputs, and are written whole or not at all (issue 33):
//! `files::refuse_overwrite`, `files::AtomicFile`, and the report and `Outcome::write_files`
//! that use them.

use etwsim_scenario::files::{AtomicFile, read_capped, refuse_overwrite};
use etwsim_scenario::{Error, Scenario, report};
use std::io::Write;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("files")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    v.sort();
    v
}

#[test]
fn an_atomic_file_appears_whole_at_its_commit_and_never_before() {
    let dir = scratch("atomic");
    let path = dir.join("page.html");
    std::fs::write(&path, "old page").unwrap();
    let mut f = AtomicFile::create(&path).unwrap();
    assert_eq!(f.path(), path);
    f.write_all(b"new ").unwrap();
    f.write_all(b"page").unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "old page",
        "the old file stays until the commit"
    );
    f.commit().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new page");
    assert_eq!(names(&dir), ["page.html"], "no temporary file is left");
}

#[test]
fn an_atomic_file_dropped_before_its_commit_leaves_nothing() {
    let dir = scratch("dropped");
    let kept = dir.join("kept.html");
    std::fs::write(&kept, "old").unwrap();
    {
        let mut f = AtomicFile::create(&kept).unwrap();
        f.write_all(b"half a pa").unwrap();
        let mut g = AtomicFile::create(dir.join("new.html")).unwrap();
        g.write_all(b"half").unwrap();
        assert_eq!(names(&dir).len(), 3, "two temporary files beside kept.html");
        // Dropped here, as a failed command drops them.
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "old");
    assert_eq!(names(&dir), ["kept.html"]);
    // A folder that does not exist: an error, nothing made.
    assert!(AtomicFile::create(dir.join("no/such/page.html")).is_err());
}

#[test]
fn an_output_naming_an_input_is_refused_however_it_is_spelt() {
    let dir = scratch("refuse");
    let input = dir.join("in.etl");
    std::fs::write(&input, "input").unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let same = [
        input.clone(),
        dir.join("./in.etl"),
        dir.join("sub/../in.etl"),
    ];
    for out in &same {
        match refuse_overwrite(out, &[Path::new("other.man"), &input]) {
            Err(Error::OutputIsInput { output, input: i }) => {
                assert_eq!((&output, &i), (out, &input));
            }
            other => panic!("{}: {other:?}", out.display()),
        }
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&input, dir.join("soft.etl")).unwrap();
        std::fs::hard_link(&input, dir.join("hard.etl")).unwrap();
        for link in ["soft.etl", "hard.etl"] {
            let e = refuse_overwrite(&dir.join(link), &[&input]).unwrap_err();
            assert!(e.to_string().contains("refusing to write"), "{link}: {e}");
            // And the other way round: the link given as the input.
            assert!(
                refuse_overwrite(&input, &[&dir.join(link)]).is_err(),
                "{link}"
            );
        }
    }
    // Another file, or one that does not exist yet, is not an input.
    std::fs::write(dir.join("other.html"), "x").unwrap();
    refuse_overwrite(&dir.join("other.html"), &[&input]).unwrap();
    refuse_overwrite(&dir.join("new.html"), &[&input]).unwrap();
    refuse_overwrite(&dir.join("new.html"), &[&dir.join("missing.etl")]).unwrap();
}

#[test]
fn read_capped_reads_up_to_its_cap() {
    let dir = scratch("capped");
    let path = dir.join("f");
    std::fs::write(&path, [7u8; 100]).unwrap();
    assert_eq!(read_capped(&path, 100).unwrap().len(), 100);
    let e = read_capped(&path, 99).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
    assert!(e.to_string().contains("larger than 99 bytes"), "{e}");
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios")
}

#[test]
fn a_report_never_overwrites_its_inputs() {
    let dir = scratch("report");
    for f in ["keywords.toml", "keywords.man"] {
        std::fs::copy(examples().join(f), dir.join(f)).unwrap();
    }
    let toml = dir.join("keywords.toml");
    let man = dir.join("keywords.man");
    let before = (std::fs::read(&toml).unwrap(), std::fs::read(&man).unwrap());
    // The scenario itself, and the manifest the scenario reads.
    for out in [&toml, &man] {
        let e = report::write_report(&toml, out, &[]).unwrap_err();
        assert!(matches!(e, Error::OutputIsInput { .. }), "{e}");
    }
    // A manifest given to the report.
    let sc = Scenario::load(examples().join("burst_loss.toml")).unwrap();
    let etl = dir.join("burst.etl");
    std::fs::write(&etl, &sc.run().files[0].bytes).unwrap();
    let e = report::write_report_with(&etl, &man, std::slice::from_ref(&man), &Default::default())
        .unwrap_err();
    assert!(matches!(e, Error::OutputIsInput { .. }), "{e}");
    let e = report::write_report(&etl, &etl, &[]).unwrap_err();
    assert!(matches!(e, Error::OutputIsInput { .. }), "{e}");
    assert_eq!(
        (std::fs::read(&toml).unwrap(), std::fs::read(&man).unwrap()),
        before
    );
    assert_eq!(
        names(&dir),
        ["burst.etl", "keywords.man", "keywords.toml"],
        "nothing written"
    );
    assert_eq!(
        Scenario::load(&toml).unwrap().input_files(),
        [dir.join("keywords.man")]
    );
}

#[test]
fn write_files_writes_whole_files_and_never_over_the_scenario() {
    let dir = scratch("write-files");
    let text = "[[session]]\nname = \"S\"\nlog_file = \"s.toml\"\n[[session]]\nname = \"T\"\nlog_file = \"t.etl\"\n";
    std::fs::write(dir.join("s.toml"), text).unwrap();
    let outcome = Scenario::load(dir.join("s.toml")).unwrap().run();
    let e = outcome.write_files(&dir).unwrap_err();
    assert!(matches!(e, Error::OutputIsInput { .. }), "{e}");
    assert_eq!(std::fs::read_to_string(dir.join("s.toml")).unwrap(), text);
    assert_eq!(names(&dir), ["s.toml"], "nothing written, not even t.etl");
    let out = dir.join("out");
    let written = outcome.write_files(&out).unwrap();
    assert_eq!(written, [out.join("s.toml"), out.join("t.etl")]);
    assert_eq!(
        names(&out),
        ["s.toml", "t.etl"],
        "no temporary file is left"
    );
}
