//! The C ABI's shape and robustness, one binary (issue 29: tests link once per area): the
//! signatures, layouts and constants against windows-sys, TDH through its C functions, and the
//! `c_abi_args` fuzz corpus. These tests do not take `common::setup()`: the TDH and windows-sys
//! tests use the process's machine as it boots by default (so they cannot share a process with
//! `tests/machine/`, whose first call must find it unbooted to make it deterministic), and the
//! corpus runs each input on a machine of its own. The corpus module's counting allocator
//! (`#[global_allocator]`) serves the whole binary; it counts per thread, so it sees only the
//! corpus test's own allocations. While the corpus test runs it silences the panic hook (it
//! reports each failure once itself), which would also hide the message of another test failing
//! at that moment: run that test alone (`cargo test -p etwsim-sys --test abi tdh::`) to see it.

mod c_abi_corpus;
mod tdh;
mod windows_sys_compat;
