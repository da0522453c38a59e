//! The engine's behaviour, one binary (issue 29: tests link once per area): sessions (StartTrace,
//! ControlTrace, the file side), providers and the enable path, filtering, consumers, security,
//! booting from the registry, determinism, the journal, notifications, bad input. The event path
//! (`tests/event_path/`), `etwsim::testing` (`tests/testing/`) and the `win32` face
//! (`tests/win32/`) have binaries of their own. Run one file's tests with a filter:
//! `cargo test -p etwsim --test engine ses_start::`.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod boot;
mod consumers;
mod determinism;
mod explain;
mod files;
mod filter_gates;
mod filtering;
mod journal;
mod notifications;
mod payload_filters;
mod providers;
mod security;
mod ses_control;
mod ses_start;
mod smoke;
mod tracelogging_write;
