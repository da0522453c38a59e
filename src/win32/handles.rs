//! A process's `REGHANDLE` table, built for EventWrite's disabled path (target P3: the handle
//! lookup plus the enabled check in a few loads, no lock).
//!
//! Slots are handed out once and never reused, so a stale handle can never name a later
//! registration and a lookup needs no lock: the table is a fixed directory of chunks, each
//! allocated once (`OnceLock`) and never moved; a slot holds its `Provider` for the table's
//! life (after EventUnregister it stays, unregistered, and lookups refuse it). A `Win32`
//! value hands out at most [`MAX_REG_HANDLES`] handles over its life.

use etwsim_kernel::Provider;
use parking_lot::Mutex;
use std::sync::OnceLock;

const CHUNK: usize = 64;
const CHUNKS: usize = 1024;
/// Registrations one `Win32` value can hand out over its life.
pub const MAX_REG_HANDLES: usize = CHUNK * CHUNKS;
/// High bits of every REGHANDLE, so small integers are never valid handles.
const TAG: u64 = 0x5EC0_0000_0000_0000;

type Chunk = Box<[OnceLock<Provider>]>;

pub(super) struct RegHandles {
    chunks: Box<[OnceLock<Chunk>]>,
    /// Slots handed out so far; only `insert` (under the lock) advances it.
    next: Mutex<usize>,
}

impl Default for RegHandles {
    fn default() -> RegHandles {
        RegHandles {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
            next: Mutex::new(0),
        }
    }
}

impl RegHandles {
    /// Stores a registration; its REGHANDLE, or `None` when the table is used up.
    pub(super) fn insert(&self, p: Provider) -> Option<u64> {
        let mut next = self.next.lock();
        let idx = *next;
        let chunk = self
            .chunks
            .get(idx / CHUNK)?
            .get_or_init(|| (0..CHUNK).map(|_| OnceLock::new()).collect());
        chunk[idx % CHUNK].set(p).ok()?;
        *next += 1;
        Some(TAG | (idx as u64 + 1))
    }

    /// The registered provider behind a handle; `None` for 0, foreign, unknown or
    /// unregistered handles.
    #[inline]
    pub(super) fn get(&self, handle: u64) -> Option<&Provider> {
        if handle & TAG != TAG {
            return None;
        }
        let idx = ((handle & !TAG) as usize).checked_sub(1)?;
        let p = self
            .chunks
            .get(idx / CHUNK)?
            .get()?
            .get(idx % CHUNK)?
            .get()?;
        p.is_registered().then_some(p)
    }
}
