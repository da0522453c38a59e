//! The `win32` face, one binary (issue 29: tests link once per area): the C shape of the
//! control API and of the event path. Run one file's tests with a filter:
//! `cargo test -p etwsim --test win32 win32_face::`.

#[path = "../common/mod.rs"]
mod common;

mod win32_events;
mod win32_face;
