//! etwsim-sys: programs written against the Windows ETW API, run on a simulated machine.
//!
//! This crate exports `StartTraceW`, `EnableTraceEx2`, `EventRegister`, `EventWrite`,
//! `OpenTraceW`, `ProcessTrace`… with Microsoft's names, parameter types and 64-bit
//! structure layouts, from a C library (`libetwsim_sys.so`, header
//! `crates/sys/include/etwsim.h`) and from Rust ([`windows_sys`], shaped like the
//! windows-sys crate). Each function checks its pointer arguments as the documented API
//! does, copies the C structures into the `etwsim::win32` face, and copies results back; it
//! decides no ETW behaviour of its own.
//!
//! | module | what |
//! |---|---|
//! | [`abi`] | the C structures (`EVENT_TRACE_PROPERTIES`, `EVENT_RECORD`, …) and constants |
//! | `controller` | StartTrace, ControlTrace and shorthands, QueryAllTraces, EnableTrace* |
//! | `provider` | EventRegister … EventWriteEx, EventSetInformation, RegisterTraceGuids, TraceEvent |
//! | `consumer` | OpenTrace, ProcessTrace, CloseTrace |
//! | `info` | EnumerateTraceGuidsEx, TraceSetInformation, TraceQueryInformation |
//! | `machine` | the process-wide machine and the `etwsim_*` configuration functions |
//! | `parse` | every caller-described structure read from bytes: safe functions over `&[u8]` |
//! | [`windows_sys`] | the same items under windows-sys's module paths |
//!
//! **Bad input.** Whatever a structure's sizes, offsets and counts say, the ABI reads no
//! more than the documented limits allow and refuses the rest with the function's
//! documented code (issue 33). Its parsers are safe functions over bytes (`parse`); the
//! `c_abi_args` fuzz target runs them, and the face behind them, over arbitrary input
//! (`fuzz/README.md`; its corpus runs in every `cargo test`).
//!
//! **The machine.** The first call boots one simulated machine for the whole OS process
//! ([`kernel`] returns it): threaded, 4 CPUs, the host's file system for log files; the OS
//! process is one simulated process (an elevated administrator by default), its OS threads
//! simulated threads. `etwsim_set_deterministic`, `etwsim_set_cpu_count`,
//! `etwsim_set_process_token` and `etwsim_set_image_name` change that before the first call.
//!
//! **Strings.** `W` functions take UTF-16 (`WCHAR` is 16 bits: C programs are built with
//! `-fshort-wchar`); `A` functions take bytes read as Latin-1, one character per byte, so
//! the sizes callers allocate keep their meaning.
//!
//! **Outside Microsoft's list.** `GetLastError`/`SetLastError` are exported because the
//! consumer samples call `GetLastError()` after OpenTrace.
//!
//! ```
//! use etwsim_sys::windows_sys::Win32::System::Diagnostics::Etw::*;
//! use etwsim_sys::windows_sys::core::GUID;
//!
//! let guid = GUID::from_u128(0x5dd3_a0a1_0000_4000_8000_0000_0000_0001);
//! let mut reg: REGHANDLE = 0;
//! // SAFETY: valid pointers, no callback.
//! let code = unsafe { EventRegister(&guid, None, std::ptr::null(), &mut reg) };
//! assert_eq!(code, 0);
//! let desc = EVENT_DESCRIPTOR { Id: 1, Level: 4, ..Default::default() };
//! // SAFETY: a valid handle and descriptor, no payload.
//! assert_eq!(unsafe { EventWrite(reg, &desc, 0, std::ptr::null()) }, 0);
//! assert_eq!(EventUnregister(reg), 0);
//! assert_eq!(EventUnregister(reg), 6); // ERROR_INVALID_HANDLE (PRV-03)
//! ```
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

pub mod abi;
mod consumer;
mod controller;
pub mod crt;
#[doc(hidden)]
pub mod fuzzing;
mod info;
mod machine;
mod parse;
mod provider;
mod state;
mod strings;
pub mod tdh;
pub mod win32;
pub mod windows_sys;

pub use consumer::{CloseTrace, OpenTraceA, OpenTraceW, ProcessTrace};
pub use controller::{
    ControlTraceA, ControlTraceW, EnableTrace, EnableTraceEx, EnableTraceEx2, FlushTraceA,
    FlushTraceW, QueryAllTracesA, QueryAllTracesW, QueryTraceA, QueryTraceW, StartTraceA,
    StartTraceW, StopTraceA, StopTraceW, UpdateTraceA, UpdateTraceW,
};
pub use info::{EnumerateTraceGuidsEx, TraceQueryInformation, TraceSetInformation};
pub use machine::{
    ERROR_ALREADY_INITIALIZED, ETWSIM_TOKEN_ADMINISTRATOR, ETWSIM_TOKEN_LOCAL_SERVICE,
    ETWSIM_TOKEN_LOCAL_SYSTEM, ETWSIM_TOKEN_NETWORK_SERVICE, ETWSIM_TOKEN_PERFORMANCE_LOG_USER,
    ETWSIM_TOKEN_UNELEVATED_ADMINISTRATOR, ETWSIM_TOKEN_USER, GetLastError, SetLastError,
    etwsim_advance_ms, etwsim_process_id, etwsim_run_pending, etwsim_set_cpu_count,
    etwsim_set_deterministic, etwsim_set_image_name, etwsim_set_process_token, kernel, try_kernel,
    try_process,
};
pub use provider::{
    EventActivityIdControl, EventEnabled, EventProviderEnabled, EventRegister, EventSetInformation,
    EventUnregister, EventWrite, EventWriteEx, EventWriteString, EventWriteTransfer,
    GetTraceEnableFlags, GetTraceEnableLevel, GetTraceLoggerHandle, RegisterTraceGuidsA,
    RegisterTraceGuidsW, TraceEvent, UnregisterTraceGuids,
};

/// Runs an exported function's body; a Rust panic (a bug: no input should cause one) must
/// not unwind into C, so it becomes `default` — for most functions an error code.
fn ffi_guard<T>(default: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(default)
}
