//! Arbitrary bytes as a `.reg` file (both import modes), then the AutoLogger / Global Logger
//! views, the WMI\Security descriptors and the bytes as a security descriptor: nothing may
//! panic, and an imported registry must come back equal through its own export. The body is
//! shared with `crates/registry/tests/registry/corpus.rs`, which runs it over the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/registry/tests/common/read_reg.rs"]
mod read_reg;

fuzz_target!(|data: &[u8]| {
    read_reg::read_reg(data);
});
