//! Arbitrary bytes as a kernel record (`[hook_id u16][version u8][pointer size u8][payload]`):
//! decoding by the kernel class table must never panic, and decoded values must encode and
//! decode again to themselves. The seeded corpus `crates/decode/tests/corpus/mof/` runs
//! through the same function in every `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    etwsim_decode::fuzzing::decode_mof(data);
});
