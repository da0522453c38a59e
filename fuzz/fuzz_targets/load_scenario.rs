//! Arbitrary bytes as a scenario file (`Scenario::parse`, relative paths from
//! `examples/scenarios/`) and, when they load and are small, a run with every output made of
//! it: nothing may panic, and the size caps and list limits bound the work. The body is
//! shared with `crates/scenario/tests/scenario/corpus.rs`, which runs it over the committed corpus
//! `crates/scenario/tests/corpus/` and deterministic mutations of it in every `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

#[path = "../../crates/scenario/tests/common/load_scenario.rs"]
mod load_scenario;

fuzz_target!(|data: &[u8]| {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/scenarios");
    load_scenario::load_scenario(data, &base);
});
