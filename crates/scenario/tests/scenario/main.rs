//! The scenario crate's integration tests, one binary (issue 29: tests link once per area);
//! each former `tests/*.rs` file is a module of it. Run one with a filter:
//! `cargo test -p etwsim-scenario --test scenario errors::`. CI runs the headless-browser test
//! alone, with a missing browser a failure:
//! `ETWSIM_REQUIRE_CHROMIUM=1 cargo test -p etwsim-scenario --test scenario browser::`.

#[path = "../common/mod.rs"]
mod common;

mod browser;
mod corpus;
mod errors;
mod examples;
mod files;
mod growth;
mod language;
mod limits;
mod machine_buffers;
mod os_boot;
mod report;
mod run;
mod scratch;
