//! Arbitrary bytes as a MOF file of classic providers' event classes: loading it, and
//! decoding the event types of its classes from several payloads, must never panic. The
//! seeded corpus `crates/decode/tests/corpus/mof_class/` runs through the same function in
//! every `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    etwsim_decode::fuzzing::mof_class(data);
});
