//! The kernel's manifest providers, which ordinary sessions enable by keyword (KRN-35, KRN-41
//! …KRN-43): Microsoft-Windows-Kernel-File, Microsoft-Windows-Kernel-Process and
//! Microsoft-Windows-Kernel-Rundown.
//!
//! They are registrations of the System process, made when a session first enables one of
//! their GUIDs (so a kernel nobody asks for them from lists no such provider in
//! EnumerateTraceGuidsEx — a deviation: Windows registers them at boot). Their enable
//! callbacks keep the summary word's provider bits up to date, so an OS operation still tests
//! one word (P15).
//!
//! Events written, and only those whose payload the rules source:
//!
//! * Kernel-File (KRN-42): NameCreate 10 / NameDelete 11 (v0, keyword FILENAME 0x10) for
//!   FileCreate / FileDelete; Create 12 … DirNotify 25 (v1, the classic v3 field order, so the
//!   payload is the classic v3 payload) for FileIo 64…77; OperationEnd 24 (v0, OP_END 0x40).
//!   Level 4; task = event id, opcode 0 (choice: the manifest's task and opcode values are not
//!   in the rules).
//! * Kernel-Process (KRN-43): ProcessStart 1 (v2, keyword PROCESS 0x10, opcode win:Start) and
//!   ImageLoad 5 (v0, keyword IMAGE 0x40), with the templates the rules give.
//! * Kernel-Rundown (KRN-35): enabled with keyword 0x10 (ETW_FILENAME_RUNDOWN), the session
//!   gets a FileIo FileRundown (36) event (class GUID FileIo, FileIo_Name payload) for each
//!   file open at that moment — and again on each CAPTURE_STATE.

use crate::data::route::RegEntry;
use etwsim_types::Guid;
use std::sync::{Arc, OnceLock};

/// Microsoft-Windows-Kernel-File {edd08927-9cc4-4e65-b970-c2560fb5c289} (KRN-41).
pub const KERNEL_FILE_PROVIDER: Guid = Guid::from_str_const("edd08927-9cc4-4e65-b970-c2560fb5c289");
/// Microsoft-Windows-Kernel-Process {22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716} (KRN-43).
pub const KERNEL_PROCESS_PROVIDER: Guid =
    Guid::from_str_const("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716");
/// Microsoft-Windows-Kernel-Rundown {3b9c9951-3480-4220-9377-9c8e5184f5cd} (KRN-35).
pub const KERNEL_RUNDOWN_PROVIDER: Guid =
    Guid::from_str_const("3b9c9951-3480-4220-9377-9c8e5184f5cd");
/// Kernel-Rundown's `ETW_FILENAME_RUNDOWN` keyword (KRN-35).
pub const KERNEL_RUNDOWN_FILENAME_KEYWORD: u64 = 0x10;

/// The three registrations, made on first enable. Only the registrations are kept: a
/// [`Provider`] holds its kernel, and a kernel holding its own providers would never be freed
/// (they are never unregistered: they live as long as the kernel).
#[derive(Default)]
pub(crate) struct KernelProviders {
    pub(crate) file: OnceLock<Arc<RegEntry>>,
    pub(crate) process: OnceLock<Arc<RegEntry>>,
    pub(crate) rundown: OnceLock<Arc<RegEntry>>,
}
