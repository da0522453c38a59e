//! The etl crate's integration tests, one binary (issue 29: tests link once per area); each
//! former `tests/*.rs` file is a module of it. Run one with a filter:
//! `cargo test -p etwsim-etl --test etl compressed::`.

#[path = "../common/mod.rs"]
mod common;

mod compressed;
mod file_modes;
mod fixtures;
mod interop_samples;
mod lzxpress_corpus;
mod reader;
mod robustness;
mod views;
