//! The seeded corpus of the `mof_class` fuzz target (`fuzz/`), run on stable by every
//! `cargo test`: each file in `tests/corpus/mof_class/`, every prefix of it and a fixed set
//! of byte changes at every position go through the fuzz target's entry point,
//! [`fuzzing::mof_class`] (read the MOF text, decode every event type of every class from
//! several payloads). Nothing may panic; seeds named `ok-*` must load with at least one
//! event class, those named `bad-*` must be refused with the file and line.

use crate::common;

use etwsim_decode::fuzzing;
use etwsim_decode::mof_class::MofClasses;

/// The byte changes tried at every position: the characters MOF syntax turns on.
const CHANGES: [u8; 6] = [0x00, b'\n', b'"', b'[', b'{', 0xFF];

#[test]
fn every_mof_seed_and_its_mutations_load_or_fail_cleanly() {
    let seeds: Vec<_> = common::corpus("corpus/mof_class")
        .into_iter()
        .filter(|(p, _)| p.extension().is_none_or(|x| x != "md"))
        .collect();
    assert!(seeds.len() >= 6, "{} seeds", seeds.len());
    for (path, seed) in &seeds {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match MofClasses::from_text(seed, &name) {
            Ok(c) => {
                assert!(name.starts_with("ok-"), "{name} should be refused");
                assert!(!c.is_empty(), "{name} has no event class");
            }
            Err(e) => {
                assert!(name.starts_with("bad-"), "{name}: {e}");
                assert!(e.to_string().starts_with(&format!("{name}:")), "{e}");
            }
        }
        fuzzing::mof_class(seed);
        for cut in 0..seed.len() {
            fuzzing::mof_class(&seed[..cut]);
        }
        for i in 0..seed.len() {
            for byte in CHANGES {
                let mut m = seed.clone();
                m[i] = byte;
                fuzzing::mof_class(&m);
            }
        }
    }
}
