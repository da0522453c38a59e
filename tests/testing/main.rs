//! `etwsim::testing`, one binary (issue 29: tests link once per area): its capture and matchers,
//! its issue-34 tools, and the anchor tests written as a downstream crate would write them.
//! Run one file's tests with a filter: `cargo test -p etwsim --test testing testing_tools::`.

#[path = "../common/mod.rs"]
mod common;

mod testing_anchors;
mod testing_helpers;
mod testing_tools;
