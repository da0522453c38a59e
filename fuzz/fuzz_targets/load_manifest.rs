//! Arbitrary bytes as an instrumentation manifest: loading, decoding every event from the
//! same bytes and rendering must never panic. The seeded corpus
//! `crates/decode/tests/corpus/manifest/` runs through the same function in every
//! `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    etwsim_decode::fuzzing::load_manifest(data);
});
