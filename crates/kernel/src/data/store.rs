//! Storing a record into a session's buffer: why a session cannot take it ([`Refusal`],
//! EVT-05…EVT-08, with what the journal and the error say), and the byte copy with its padding.
//! Shared by the write path, classic events and the kernel's own events.

use crate::data::context::LoggerContext;
use crate::error::Error;
use crate::journal::LossCounter;
use crate::machine::ids::TraceHandle;
use etwsim_buffers::Record;
use etwsim_buffers::ReserveError;
use etwsim_types::record::MAX_EVENT_SIZE;
use etwsim_types::record::align8;
use std::cell::RefCell;
use std::num::NonZeroU64;
use std::sync::atomic::Ordering;

/// Stores `bytes` at the record's cursor, zero-padding the last word: one copy, then at most
/// 7 bytes of padding.
#[inline(always)]
pub(in crate::data) fn store_bytes(rec: &mut Record<'_>, bytes: &[u8]) {
    rec.put(bytes);
    rec.pad8();
}

/// Why one target cannot take the event, packed in one non-zero word so that
/// `Result<(), Refusal>` is a single register on its way back up the write path (a wider value
/// goes through memory and stalls the return): bits 0–2 the kind, 3–34 the record size
/// (saturating at `u32::MAX`), 35–63 the buffer capacity (at most 16 MB, it fits).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::data) struct Refusal(NonZeroU64);

/// `n` as a `u32`, saturating.
#[inline]
fn sat32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Refusal {
    const TOO_LARGE: u64 = 1;
    const LARGER_THAN_BUFFER: u64 = 2;
    const NO_BUFFER_KIND: u64 = 3;
    const BACKLOG_FULL_KIND: u64 = 4;
    const WRONG_THREAD_KIND: u64 = 5;
    /// EVT-07: no buffer free and the pool at MaximumBuffers.
    pub(in crate::data) const NO_BUFFER: Refusal =
        Refusal(NonZeroU64::new(Self::NO_BUFFER_KIND).expect("non-zero"));
    /// EVT-08: a real-time session's backing store is full.
    pub(in crate::data) const BACKLOG_FULL: Refusal =
        Refusal(NonZeroU64::new(Self::BACKLOG_FULL_KIND).expect("non-zero"));
    /// A single-threaded kernel's buffers, reached from another OS thread.
    pub(in crate::data) const WRONG_THREAD: Refusal =
        Refusal(NonZeroU64::new(Self::WRONG_THREAD_KIND).expect("non-zero"));
    const CAPACITY_MAX: u64 = (1 << 29) - 1;

    fn packed(kind: u64, size: usize, capacity: usize) -> Refusal {
        let capacity = (capacity as u64).min(Self::CAPACITY_MAX);
        let v = kind | u64::from(sat32(size)) << 3 | capacity << 35;
        Refusal(NonZeroU64::new(v).unwrap_or(NonZeroU64::MIN))
    }

    /// EVT-05: larger than any event may be.
    pub(in crate::data) fn too_large(size: usize) -> Refusal {
        Refusal::packed(Self::TOO_LARGE, size, 0)
    }

    /// EVT-06: larger than the session's buffers can hold.
    pub(in crate::data) fn larger_than_buffer(size: usize, capacity: usize) -> Refusal {
        Refusal::packed(Self::LARGER_THAN_BUFFER, size, capacity)
    }

    /// Journals the loss this refusal caused in `ctx` (EventsLost + 1), with its rule, and
    /// notes the session among this write's refusals (for the write's verdicts, EVT-09).
    #[cold]
    pub(in crate::data) fn journal(self, ctx: &crate::data::context::LoggerContext) {
        if ctx.journal.is_none() {
            return;
        }
        let _ = REFUSED.try_with(|r| r.borrow_mut().push((ctx.handle, self)));
        ctx.note_loss(
            LossCounter::EventsLost,
            1,
            &self.error().to_string(),
            self.rule(),
        );
    }

    /// The rule that documents this refusal.
    pub(in crate::data) fn rule(self) -> &'static str {
        match self.0.get() & 7 {
            Self::TOO_LARGE => "EVT-05",
            Self::LARGER_THAN_BUFFER => "EVT-06",
            Self::BACKLOG_FULL_KIND => "EVT-08",
            Self::WRONG_THREAD_KIND => "single-threaded kernel",
            _ => "EVT-07",
        }
    }

    #[cold]
    pub(in crate::data) fn error(self) -> Error {
        let v = self.0.get();
        let size = ((v >> 3) & u64::from(u32::MAX)) as usize;
        let capacity = (v >> 35) as usize;
        match v & 7 {
            Self::TOO_LARGE => Error::EventTooLarge { size },
            Self::LARGER_THAN_BUFFER => Error::EventLargerThanBuffer { size, capacity },
            Self::BACKLOG_FULL_KIND => Error::RealTimeBacklogFull,
            Self::WRONG_THREAD_KIND => Error::WrongThread,
            _ => Error::NoFreeBuffer, // NO_BUFFER_KIND
        }
    }
}

thread_local! {
    /// The sessions that refused an event on this OS thread during the current write, noted
    /// only while the kernel keeps a journal: the write's journal entry turns their verdicts
    /// into losses and the other dependent sessions' into "withheld" (EVT-09).
    static REFUSED: RefCell<Vec<(TraceHandle, Refusal)>> = const { RefCell::new(Vec::new()) };
}

/// Forgets the refusals noted so far on this OS thread (a journaled write begins).
#[cold]
pub(in crate::data) fn begin_refusals() {
    let _ = REFUSED.try_with(|r| r.borrow_mut().clear());
}

/// The refusals noted on this OS thread since [`begin_refusals`], taken.
#[cold]
pub(in crate::data) fn take_refusals() -> Vec<(TraceHandle, Refusal)> {
    REFUSED
        .try_with(|r| std::mem::take(&mut *r.borrow_mut()))
        .unwrap_or_default()
}

/// Why `logger`'s session cannot take a record of `size` bytes, before any reservation: too
/// large for any event (EVT-05) or for its buffers (EVT-06), or a real-time session whose
/// backlog is full (EVT-08).
#[inline(always)]
pub(in crate::data) fn refusal(logger: &LoggerContext, size: usize) -> Option<Refusal> {
    let capacity = logger.pool.capacity() as usize;
    if size > MAX_EVENT_SIZE {
        Some(Refusal::too_large(size))
    } else if align8(size) > capacity {
        Some(Refusal::larger_than_buffer(size, capacity))
    } else if logger.realtime.load(Ordering::Relaxed) && logger.rt.full.load(Ordering::Acquire) {
        Some(Refusal::BACKLOG_FULL)
    } else {
        None
    }
}

/// The refusal a failed reservation of a `size`-byte record means, in a pool of `capacity`
/// bytes per buffer: EVT-06 or EVT-07.
#[cold]
pub(in crate::data) fn reserve_refusal(e: ReserveError, size: usize, capacity: u64) -> Refusal {
    match e {
        ReserveError::TooBig => Refusal::larger_than_buffer(size, capacity as usize),
        ReserveError::NoBuffer => Refusal::NO_BUFFER,
        ReserveError::WrongThread => Refusal::WRONG_THREAD,
    }
}
