//! The `etwsim` command's tests, one binary (issue 29: tests link once per area); each former
//! `tests/*.rs` file is a module of it, running the built command in its own folders under
//! `CARGO_TARGET_TMPDIR`. Run one with a filter: `cargo test -p etwsim-cli --test cli dump::`.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod dump;
mod export;
mod manifest_partial;
mod mof_class;
mod scenario;
mod string_only;
mod wpp;
