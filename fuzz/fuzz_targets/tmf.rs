//! Arbitrary bytes as a TMF file: reading it, and decoding and formatting every message it
//! describes from several payloads, must never panic, and a formatted message stays within
//! its bound. The seeded corpus `crates/decode/tests/corpus/tmf/` runs through the same
//! function in every `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    etwsim_decode::fuzzing::tmf(data);
});
