//! The seeded corpus of the `tmf` fuzz target (`fuzz/`), run on stable by every `cargo
//! test`: each file in `tests/corpus/tmf/`, every prefix of it and a fixed set of byte
//! changes at every position go through the fuzz target's entry point,
//! [`fuzzing::tmf`] (read the TMF, decode and format every message from several payloads).
//! Nothing may panic; seeds named `ok-*` must read without a diagnostic and describe at
//! least one message, those named `bad-*` must cost at least one diagnostic.

use crate::common;

use etwsim_decode::fuzzing;
use etwsim_decode::wpp::TmfSet;

/// The byte changes tried at every position: the characters TMF syntax turns on.
const CHANGES: [u8; 6] = [0x00, b'\n', b'"', b'%', b'{', 0xFF];

#[test]
fn every_tmf_seed_and_its_mutations_read_or_fail_cleanly() {
    let seeds: Vec<_> = common::corpus("corpus/tmf")
        .into_iter()
        .filter(|(p, _)| p.extension().is_none_or(|x| x != "md"))
        .collect();
    assert!(seeds.len() >= 6, "{} seeds", seeds.len());
    for (path, seed) in &seeds {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let set = TmfSet::from_text(seed, &name);
        if name.starts_with("ok-") {
            assert_eq!(set.diagnostics(), &[], "{name}");
            assert!(!set.is_empty(), "{name} describes no message");
        }
        if name.starts_with("bad-") {
            assert!(
                !set.diagnostics().is_empty(),
                "{name} should cost a diagnostic"
            );
        }
        fuzzing::tmf(seed);
        for cut in 0..seed.len() {
            fuzzing::tmf(&seed[..cut]);
        }
        for i in 0..seed.len() {
            for byte in CHANGES {
                let mut m = seed.clone();
                m[i] = byte;
                fuzzing::tmf(&m);
            }
        }
    }
}
