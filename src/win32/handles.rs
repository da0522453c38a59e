//! A process's `REGHANDLE` table, built for EventWrite's disabled path (target P3: the handle
//! lookup plus the enabled check in a few loads, no lock).
//!
//! Slots are handed out once and never reused, so a stale handle can never name a later
//! registration and a lookup needs no lock: the table is chunks of [`CHUNK`] slots, each
//! allocated once and never moved — the first with the table, the others in a two-level
//! directory of `OnceLock`s, filled when first needed; a slot holds its `Provider` for the
//! table's life (after EventUnregister it stays, unregistered, and lookups refuse it).
//!
//! A `Win32` value hands out [`MAX_REG_HANDLES`] (2^28) handles over its life: a test suite
//! that registers and unregisters in a loop runs out of memory long before (each retired
//! registration keeps its `ETW_REG_ENTRY`, a few hundred bytes) — far past the 65,536 that
//! a one-level directory allowed (PRV-04 limits registrations *held at once* to 1,024, not
//! made). Reusing slots would need the lookup to pin the provider it returns (a reference
//! count or an epoch on every EventWrite), which the disabled path cannot afford.
//!
//! A process rarely makes more than a few registrations, so a lookup in the first chunk is
//! the hot path: one compare, one pointer, the slot's `OnceLock` (P3).

use etwsim_kernel::Provider;
use parking_lot::Mutex;
use std::sync::OnceLock;

const CHUNK_BITS: u32 = 6;
const CHUNK: usize = 1 << CHUNK_BITS;
const MID_BITS: u32 = 10;
/// Chunks per second-level directory.
const MID: usize = 1 << MID_BITS;
/// Second-level directories.
const TOP: usize = 1 << 12;
/// Registrations one `Win32` value can hand out over its life.
pub const MAX_REG_HANDLES: usize = CHUNK * MID * TOP;
/// High bits of every REGHANDLE, so small integers are never valid handles.
const TAG: u64 = 0x5EC0_0000_0000_0000;

/// Fixed-size arrays, so a lookup whose index passed a range check needs no other bounds
/// check.
type Chunk = [OnceLock<Provider>; CHUNK];
type Mid = [OnceLock<Box<Chunk>>; MID];
type Top = [OnceLock<Box<Mid>>; TOP];

pub(super) struct RegHandles {
    /// Slots `0..CHUNK`, allocated with the table: a process rarely needs more, and a lookup
    /// there skips the directory.
    first: Box<Chunk>,
    /// Chunk `c` (slots `c * CHUNK..`, `c >= 1`) is `top[c >> MID_BITS][c % MID]`, each level
    /// allocated when first needed.
    top: Box<Top>,
    /// Slots handed out so far; only `insert` (under the lock) advances it.
    next: Mutex<usize>,
}

impl Default for RegHandles {
    fn default() -> RegHandles {
        RegHandles {
            first: boxed_array(),
            top: boxed_array(),
            next: Mutex::new(0),
        }
    }
}

/// `N` empty cells on the heap.
fn boxed_array<T, const N: usize>() -> Box<[OnceLock<T>; N]> {
    Box::new(std::array::from_fn(|_| OnceLock::new()))
}

impl RegHandles {
    /// Stores a registration; its REGHANDLE, or `None` when the table is used up.
    pub(super) fn insert(&self, p: Provider) -> Option<u64> {
        let mut next = self.next.lock();
        let idx = *next;
        if idx >= MAX_REG_HANDLES {
            return None;
        }
        let chunk = match idx / CHUNK {
            0 => &self.first,
            c => self.top[c >> MID_BITS]
                .get_or_init(boxed_array)
                .get(c % MID)?
                .get_or_init(boxed_array),
        };
        chunk[idx % CHUNK].set(p).ok()?;
        *next += 1;
        Some(TAG | (idx as u64 + 1))
    }

    /// The registered provider behind a handle; `None` for 0, foreign, unknown or
    /// unregistered handles.
    #[inline]
    pub(super) fn get(&self, handle: u64) -> Option<&Provider> {
        self.slot(handle).filter(|p| p.is_registered())
    }

    /// The provider a handle was made for, registered or not (an unregistered one must
    /// still be refused: the caller checks `is_registered`); `None` for 0, foreign or
    /// unknown handles.
    ///
    /// A handle is `TAG | (slot + 1)`, so `(handle ^ TAG) - 1` is the slot for exactly the
    /// handles `insert` can have made, and out of range (a huge number) for 0, a missing or
    /// wrong tag and stray high bits: one compare against [`CHUNK`] decides the first chunk,
    /// one against [`MAX_REG_HANDLES`] the others. Then the directories' `OnceLock`s (not for
    /// the first chunk) and the slot's (unset: never handed out); the arrays have fixed
    /// sizes, so the compiler drops the other bounds checks.
    #[inline]
    pub(super) fn slot(&self, handle: u64) -> Option<&Provider> {
        let idx = (handle ^ TAG).wrapping_sub(1);
        if idx < CHUNK as u64 {
            return self.first.get(idx as usize)?.get();
        }
        if idx >= MAX_REG_HANDLES as u64 {
            return None;
        }
        let c = idx as usize >> CHUNK_BITS;
        self.top
            .get(c >> MID_BITS)?
            .get()?
            .get(c % MID)?
            .get()?
            .get(idx as usize % CHUNK)?
            .get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etwsim_kernel::{Kernel, Process, Token};
    use etwsim_types::Guid;

    fn process() -> (Kernel, Process) {
        let k = Kernel::builder()
            .deterministic(1)
            .build()
            .expect("a kernel");
        let app = k.spawn("app.exe", Token::user("u")).expect("a process");
        (k, app)
    }

    fn provider_guid(n: u128) -> Guid {
        Guid::from_u128(0x7e57_0000_0000_4000_8000_0000_0000_0000 | n)
    }

    fn provider(app: &Process, n: u128) -> Provider {
        app.register_provider(provider_guid(n)).expect("a provider")
    }

    #[test]
    fn only_handles_insert_made_name_a_slot() {
        // rule: PRV-03
        let (_k, app) = process();
        let t = RegHandles::default();
        let h1 = t.insert(provider(&app, 1)).expect("a handle");
        let h2 = t.insert(provider(&app, 2)).expect("a handle");
        assert_eq!((h1, h2), (TAG | 1, TAG | 2));
        assert_eq!(t.get(h1).map(|p| p.guid()), Some(provider_guid(1)));
        assert_eq!(t.get(h2).map(|p| p.guid()), Some(provider_guid(2)));
        let max = MAX_REG_HANDLES as u64;
        for bad in [
            0,
            1,
            2,
            u64::MAX,
            TAG,                      // slot 0 would be handle 1
            TAG | 3,                  // in the first chunk, never handed out
            TAG | (CHUNK as u64 + 1), // a chunk never allocated
            TAG | max,                // the last slot, never handed out
            TAG | (max + 1),          // past the table
            h1 | (1 << 63),           // a stray high bit
            h1 & !(1 << 62),          // a tag bit missing
            h1 ^ TAG,                 // no tag at all
            !h1,
        ] {
            assert!(t.slot(bad).is_none(), "{bad:#x}");
            assert!(t.get(bad).is_none(), "{bad:#x}");
        }
    }

    #[test]
    fn an_unregistered_slot_stays_but_get_refuses_it() {
        // rule: PRV-03
        let (_k, app) = process();
        let t = RegHandles::default();
        let h = t.insert(provider(&app, 1)).expect("a handle");
        t.get(h)
            .expect("registered")
            .unregister_in_place()
            .expect("unregister");
        assert!(t.get(h).is_none(), "unregistered: refused");
        let p = t.slot(h).expect("the slot keeps its provider");
        assert!(!p.is_registered() && !p.is_enabled());
        let h2 = t.insert(provider(&app, 2)).expect("a handle");
        assert_ne!(h2, h, "slots are never reused");
    }

    #[test]
    fn handles_cross_chunk_boundaries() {
        let (_k, app) = process();
        let t = RegHandles::default();
        // One more than a chunk: the second chunk is allocated on the 65th insert.
        let handles: Vec<u64> = (0..=CHUNK)
            .map(|_| t.insert(provider(&app, 1)).expect("a handle"))
            .collect();
        for (i, &h) in handles.iter().enumerate() {
            assert_eq!(h, TAG | (i as u64 + 1));
            assert!(t.get(h).is_some(), "slot {i}");
        }
        assert!(t.slot(TAG | (CHUNK as u64 + 2)).is_none());
    }

    #[test]
    fn handles_cross_directory_boundaries_and_the_last_one_ends_the_table() {
        let (_k, app) = process();
        let t = RegHandles::default();
        // Jump the counter (the slots in between are never handed out) to the edges: the
        // last slot of the first second-level directory, the first of the next, and the
        // very last handle.
        for start in [CHUNK * MID - 1, MAX_REG_HANDLES - 1] {
            *t.next.lock() = start;
            let h = t.insert(provider(&app, 1)).expect("a handle");
            assert_eq!(h, TAG | (start as u64 + 1));
            assert!(t.get(h).is_some(), "slot {start}");
            assert!(t.slot(h - 1).is_none(), "never handed out");
        }
        assert_eq!(t.insert(provider(&app, 1)), None, "used up");
        assert!(t.slot(TAG | (MAX_REG_HANDLES as u64 + 1)).is_none());
        *t.next.lock() = CHUNK * MID;
        let h = t.insert(provider(&app, 2)).expect("the next directory");
        assert_eq!(t.get(h).map(|p| p.guid()), Some(provider_guid(2)));
    }
}
