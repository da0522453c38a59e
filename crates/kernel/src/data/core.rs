//! What the data plane needs of the kernel that runs it ([`DataCore`]): the clock, the
//! journal, the EVENT_KEY counter, the kernel's identity and, for a single-threaded kernel,
//! its OS thread. The kernel holds one (`KernelInner` dereferences to it); the write path,
//! the logger and the system providers' records read it through [`Host`].

use crate::data::local::ThreadSource;
use crate::data::route::RegEntry;
use crate::filter::EventView;
use crate::filter::verdict::Explanation;
use crate::journal::{Journal, JournalEvent};
use crate::machine::clock::Clock;
use crate::{Error, Result};
use etwsim_types::Guid;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// The kernel's data-plane core.
pub(crate) struct DataCore {
    /// Distinguishes kernels on one OS thread (thread bindings); not observable otherwise.
    pub(crate) id: u64,
    /// The kernel's clock.
    pub(crate) clock: Arc<Clock>,
    /// The journal, when the builder asked for one.
    pub(crate) journal: Option<Arc<Journal>>,
    /// EVENT_KEY counter (FLT-11).
    pub(crate) event_keys: AtomicU64,
    /// A single-threaded kernel's OS thread (`etwsim_buffers::os_thread`); `None` for others.
    pub(crate) owner: Option<u64>,
}

impl DataCore {
    /// `true` when the calling OS thread may write to this kernel's sessions and control them:
    /// always, unless the kernel is single-threaded and belongs to another thread.
    #[inline]
    pub(in crate::data) fn on_owner_thread(&self) -> bool {
        self.owner
            .is_none_or(|o| o == crate::machine::thread::os_thread())
    }

    /// `Err(WrongThread)` unless [`DataCore::on_owner_thread`].
    #[inline]
    pub(in crate::data) fn check_thread(&self) -> Result<()> {
        if self.on_owner_thread() {
            Ok(())
        } else {
            Err(Error::WrongThread)
        }
    }

    /// Records `event` in the journal, if one is kept.
    pub(in crate::data) fn note(&self, event: impl FnOnce() -> JournalEvent) {
        if let Some(j) = &self.journal {
            j.push(self.clock.peek(), event());
        }
    }
}

/// The kernel as the write path sees it: its core, and where simulated threads come from.
pub(crate) trait Host: ThreadSource {
    /// The kernel's data-plane core.
    fn core(&self) -> &DataCore;

    /// Each session's verdict on `event` from `reg` (the journal's record of a write): the
    /// control plane's decision replayed (`Provider::explain`).
    fn explain(&self, reg: &Arc<RegEntry>, event: &EventView<'_>) -> Explanation;

    /// SEC-06: may the writer process `process_key` log to the SECURE_MODE session `session`
    /// (TRACELOG_LOG_EVENT on its GUID)?
    fn may_log_to_secure(&self, process_key: u64, session: Guid) -> bool;
}
