//! The committed scenario corpus (`tests/corpus/`: the shipped examples and the inputs of
//! issue 33) through the `load_scenario` fuzz target's body, plus deterministic mutations
//! of each file: its prefixes and bytes changed by a fixed generator. Nothing may panic;
//! every file's verdict is what the corpus says it is.

use crate::common;

use common::load_scenario::load_scenario;
use etwsim_scenario::Scenario;
use std::path::{Path, PathBuf};

/// Where the corpus's relative paths (manifests, registries) start: the examples' folder,
/// as for the files copied from it.
fn base() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios")
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("the corpus folder")
        .map(|e| {
            let path = e.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_file_and_its_mutations_go_through_the_fuzz_body() {
    let files = corpus();
    assert!(files.len() >= 12, "{} files", files.len());
    let base = base();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (_, bytes) in &files {
        load_scenario(bytes, &base);
        for cut in (0..bytes.len()).step_by(16) {
            load_scenario(&bytes[..cut], &base);
        }
        for _ in 0..100 {
            let mut m = bytes.clone();
            if m.is_empty() {
                break;
            }
            let r = next();
            let at = (r % m.len() as u64) as usize;
            match (r >> 8) % 4 {
                // A byte changed.
                0 => m[at] = (r >> 32) as u8,
                // A digit changed (counts, sizes, levels).
                1 => m[at] = b'0' + ((r >> 32) % 10) as u8,
                // A line dropped.
                2 => {
                    let end = m[at..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(m.len(), |i| at + i + 1);
                    m.drain(at..end);
                }
                // A line repeated.
                _ => {
                    let start = m[..at]
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |i| i + 1);
                    let end = m[at..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(m.len(), |i| at + i + 1);
                    let line = m[start..end].to_vec();
                    m.splice(end..end, line);
                }
            }
            load_scenario(&m, &base);
        }
    }
}

#[test]
fn each_corpus_file_loads_or_fails_as_it_says() {
    let base = base();
    for (name, bytes) in corpus() {
        let text = String::from_utf8(bytes).expect("UTF-8");
        let loaded = Scenario::parse(&text, &name, &base);
        let expected_error = match name.as_str() {
            "empty.toml" | "nothing_to_do.toml" => Some("nothing to do"),
            "registry_dev_zero.toml" if Path::new("/dev/zero").exists() => Some("larger than"),
            "registry_dev_zero.toml" => Some("cannot read registry file"),
            "too_many_writes.toml" => Some("more than 1000000 events"),
            "too_many_threads.toml" => Some("at most 64 threads per process"),
            _ => None,
        };
        match (loaded, expected_error) {
            (Ok(sc), None) => {
                let o = sc.run();
                let aborts = name == "aborted_double_stop.toml";
                assert_eq!(o.aborted.is_some(), aborts, "{name}: {:?}", o.aborted);
                assert_eq!(o.passed(), !aborts, "{name}");
            }
            (Err(e), Some(want)) => assert!(e.to_string().contains(want), "{name}: {e}"),
            (Ok(_), Some(want)) => panic!("{name} loads; it should fail with {want:?}"),
            (Err(e), None) => panic!("{name}: {e}"),
        }
    }
}
