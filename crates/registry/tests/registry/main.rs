//! The registry crate's integration tests, one binary (issue 29: tests link once per area);
//! each former `tests/*.rs` file is a module of it. Run one with a filter:
//! `cargo test -p etwsim-registry --test registry reg_import::`.

#[path = "../common/mod.rs"]
mod common;

mod autologger;
mod corpus;
mod reg_import;
mod round_trip;
mod security;
