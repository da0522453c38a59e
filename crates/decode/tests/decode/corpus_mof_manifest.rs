//! The seeded fuzz corpora (`tests/corpus/{mof,manifest}/`), fed to the same entry functions
//! as the cargo-fuzz targets, plus bounded deterministic mutations of each seed: nothing may
//! panic, and decoded kernel values must survive encode → decode.

use crate::common;

use common::corpus;
use etwsim_decode::fuzzing;

/// Every seed, then each seed with one byte flipped at every position (bounded), and every
/// prefix: the cheap, deterministic part of what the fuzzer does.
fn mutations(seed: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    let flips = (0..seed.len().min(512)).map(move |i| {
        let mut m = seed.to_vec();
        m[i] ^= 0xA5;
        m
    });
    let prefixes = (0..seed.len()).step_by(3).map(move |n| seed[..n].to_vec());
    std::iter::once(seed.to_vec()).chain(flips).chain(prefixes)
}

#[test]
fn mof_corpus_never_panics_and_round_trips() {
    let seeds = corpus("corpus/mof");
    assert!(seeds.len() >= 5, "{} seeds", seeds.len());
    for (path, seed) in &seeds {
        for m in mutations(seed) {
            let r = std::panic::catch_unwind(|| fuzzing::decode_mof(&m));
            assert!(r.is_ok(), "{} mutated to {m:02x?}", path.display());
        }
    }
}

#[test]
fn manifest_corpus_never_panics() {
    let seeds = corpus("corpus/manifest");
    assert!(seeds.len() >= 5, "{} seeds", seeds.len());
    for (path, seed) in &seeds {
        for m in mutations(seed).take(400) {
            let r = std::panic::catch_unwind(|| fuzzing::load_manifest(&m));
            assert!(r.is_ok(), "{} mutated", path.display());
        }
    }
}

/// The seeds themselves decode as their names say (so the corpus keeps covering the
/// layouts it was written for).
#[test]
fn mof_seeds_decode_as_named() {
    use etwsim_decode::mof;
    for (path, seed) in corpus("corpus/mof") {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let hook = u16::from_le_bytes([seed[0], seed[1]]);
        let r = mof::decode_system(hook, seed[2].into(), seed[3], &seed[4..]);
        let ok = !(name.starts_with("bad-")
            || name.starts_with("unknown-")
            || name.contains("truncated"));
        assert_eq!(r.is_ok(), ok, "{name}: {r:?}");
    }
}
