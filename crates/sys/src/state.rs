//! What the C functions keep beside the `win32` face.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;

/// An EventRegister enable callback and its context, boxed so its address can travel as the
/// face's `usize` callback context.
#[derive(Copy, Clone)]
pub(crate) struct EnableContext {
    pub(crate) callback: crate::provider::EnableFn,
    /// `CallbackContext`, as an address (never dereferenced here).
    pub(crate) context: usize,
}

/// Per-process tables of the C layer.
#[derive(Default)]
pub(crate) struct Extra {
    /// Enable-callback contexts, kept for the process's life: a registration's callback may
    /// still be running (on this thread, re-entrantly) when EventUnregister returns, and a
    /// box freed then would dangle. At most one per REGHANDLE ever issued.
    #[allow(clippy::vec_box)] // each context's address is handed out: it must not move
    pub(crate) enable_contexts: Mutex<Vec<Box<EnableContext>>>,
    /// RegisterTraceGuids registrations by registration handle.
    pub(crate) classic: Mutex<HashMap<u64, etwsim::ClassicProvider>>,
    /// The next classic registration number.
    pub(crate) next_classic: AtomicU64,
    /// Strings lent to callers through `TRACE_LOGFILE_HEADER.LoggerName` / `LogFileName`,
    /// by processing handle, freed by CloseTrace.
    pub(crate) lent_strings: Mutex<HashMap<u64, Vec<Vec<u16>>>>,
}
