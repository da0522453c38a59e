//! Helpers shared by the decode crate's integration tests.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

/// `shared/fixtures/etl/` (a sibling of the worktree).
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/etl")
}

/// The `.etl` fixtures, sorted; `None` when the shared folder is not there.
pub fn shared_fixtures() -> Option<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "etl"))
        .collect();
    files.sort();
    Some(files)
}

/// A folder of this crate's `tests/`.
pub fn tests_dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(sub)
}

/// Every file of `tests/<sub>/`, sorted, with its bytes.
pub fn corpus(sub: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(tests_dir(sub))
        .expect("corpus folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("corpus file");
            (p, bytes)
        })
        .collect()
}
