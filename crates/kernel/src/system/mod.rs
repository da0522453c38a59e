//! The system providers: the simulated operating system's activity and the kernel events it
//! writes (rules KRN-01…KRN-43, SES-70, PRV-27, PRV-28).
//!
//! | module | what it is |
//! |---|---|
//! | `os` | the OS tables: processes, threads, images, the file system and the I/O on it |
//! | `manifest` | Microsoft-Windows-Kernel-File, -Kernel-Process and -Kernel-Rundown |
//!
//! and in other layers:
//!
//! | module | what it is |
//! |---|---|
//! | `api::os`, `api::file` | the OS operations' entry points ([`FileHandle`](crate::FileHandle), [`Image`](crate::Image)) |
//! | `filter::flags` | EnableFlags, the `PERFINFO_GROUPMASK`, the System Providers ([`GroupMask`], [`event_trace_flag`]) |
//! | `data::sys` | which system loggers select what; classic (system-header) and manifest records into buffers |
//! | `api::sysproviders` | the session hooks: DCStart at start, DCEnd and FileRundown at stop, CAPTURE_STATE, TraceSetInformation |
//!
//! # Which sessions get what (KRN-01…KRN-03)
//!
//! Classic kernel events (`SYSTEM_TRACE_HEADER` records, HookId = group | type, the class's
//! header version, the 64-bit payloads of `etwsim_decode::mof`) go only into *system loggers*
//! — the NT Kernel Logger and EVENT_TRACE_SYSTEM_LOGGER_MODE sessions — each as its own
//! EnableFlags select (or its group mask, or the System Providers enabled into it). The
//! Global Logger with `EnableKernelFlags` joins the same table when boot starts it (issue 12:
//! it only has to be a system logger with EnableFlags). Ordinary sessions get the manifest
//! providers Microsoft-Windows-Kernel-File and -Kernel-Process by keyword, and the Kernel-
//! Rundown provider's file names.
//!
//! # The cost when nobody listens (P15)
//!
//! Every OS operation first loads one summary word (`Loggers::wanted`: the OR of the system
//! loggers' flags and one bit per enabled manifest provider) and returns when its bits are
//! clear: no lock, nothing built. I/O on an open handle (read, write, set or query
//! information, flush, cleanup) touches no table at all; the machine's own bookkeeping — the
//! file table of an open, a close, a rename or a directory listing, a process's or thread's
//! row — is done either way, as Windows does it either way.
//!
//! Recorded, the frequent events — FileIo Read, Write and OperationEnd, Image Load and
//! Unload, Thread Start and End — are built in place: a stack record with the
//! `SYSTEM_TRACE_HEADER` and the payload's fields, hooks resolved once, stored word by word
//! into each session that wants them, no lock (the IRP counter is an atomic). The others go
//! through `Schema::encode`, the reference the in-place records are tested against.
//!
//! Versions written: Process 4, Thread 3, Image 3, FileIo 3 for the operations (64–77) and 2
//! for the name events (0, 32, 35, 36: the same layout, KRN-17), DiskIo 3.

pub(crate) mod manifest;
pub(crate) mod os;

/// EnableFlags, the `PERFINFO_GROUPMASK` and the System Providers (they live with the
/// filters, `filter::flags`: what a system logger selects).
pub mod flags {
    pub use crate::filter::flags::*;
}

pub use crate::filter::flags::{
    GroupMask, SYSTEM_PROVIDERS, SystemProvider, event_trace_flag, perf_group,
};
pub use manifest::{
    KERNEL_FILE_PROVIDER, KERNEL_PROCESS_PROVIDER, KERNEL_RUNDOWN_FILENAME_KEYWORD,
    KERNEL_RUNDOWN_PROVIDER,
};
pub use os::{CreateFile, Disposition, nt_path};

use parking_lot::Mutex;
use std::collections::HashSet;

/// The kernel's system-provider state, one per [`Kernel`](crate::Kernel).
#[derive(Default)]
pub(crate) struct SystemState {
    /// The system loggers and the summary word.
    pub(crate) loggers: crate::data::sys::Loggers,
    /// The OS tables. Lock order: after the kernel's state lock, never before it.
    pub(crate) os: Mutex<os::OsState>,
    /// The IRP counter of the operations.
    pub(crate) irps: os::Irps,
    /// The manifest providers, once registered.
    pub(crate) providers: manifest::KernelProviders,
    /// Sessions that had the Kernel-Rundown file names for their current enable.
    pub(crate) rundown_sessions: Mutex<HashSet<u64>>,
}
