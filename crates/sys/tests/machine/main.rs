//! The C ABI's tests on the process's one simulated machine, one binary (issue 29: tests link
//! once per area): the controller, provider, consumer and information functions called through
//! their C signatures. Each module's tests take `common::setup()`, which makes the machine
//! deterministic before its first call and runs them one at a time, so the four share it as the
//! tests of one file did. Two files keep their own binaries: `tests/config.rs` configures the
//! machine before its first ETW call (a process of its own), and `tests/abi/` holds the tests
//! that boot the machine without `setup()` (TDH, the windows-sys declarations), which would
//! take the first call from it.

#[path = "../common/mod.rs"]
mod common;

mod consumer;
mod controller;
mod info;
mod provider;
