//! The loom switch: the atomics, cells and queues the buffer protocol uses, `std`'s (and
//! crossbeam's, parking_lot's) normally, loom's under `--cfg etwsim_loom` so the reservation /
//! switch protocol and the doorbell can be model-checked (the `loom_tests` modules of
//! `pool.rs` and `doorbell.rs`).

#[cfg(etwsim_loom)]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(etwsim_loom))]
pub(crate) use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The cell of a pool buffer's word (`raw.rs`); under the model loom's, which
/// checks the causality of every access (its API differs: `with` / `with_mut`, not `get`).
#[cfg(etwsim_loom)]
pub(crate) use loom::cell::UnsafeCell;
#[cfg(not(etwsim_loom))]
pub(crate) use std::cell::UnsafeCell;

/// A bounded MPMC queue of buffer indices: crossbeam's `ArrayQueue`, or under loom a
/// loom-visible mutex around a `VecDeque`, so the model sees the hand-off it synchronises.
#[cfg(not(etwsim_loom))]
pub(crate) type IndexQueue = crossbeam::queue::ArrayQueue<u32>;

/// The free buffers: a stack, so the buffer released last — still warm in some core's cache —
/// is the next one handed out (a FIFO would cycle through the whole pool, touching up to
/// MaximumBuffers × BufferSize bytes). Pushed and popped once per buffer switch, not per
/// event, so a lock is cheap here. Under loom it is the loom-visible queue.
#[cfg(not(etwsim_loom))]
#[derive(Debug, Default)]
pub(crate) struct FreeList(parking_lot::Mutex<Vec<u32>>);

#[cfg(not(etwsim_loom))]
impl FreeList {
    pub(crate) fn new(cap: usize) -> FreeList {
        FreeList(parking_lot::Mutex::new(Vec::with_capacity(cap)))
    }
    pub(crate) fn push(&self, v: u32) -> Result<(), u32> {
        let mut s = self.0.lock();
        if s.len() >= s.capacity() {
            return Err(v);
        }
        s.push(v);
        Ok(())
    }
    pub(crate) fn pop(&self) -> Option<u32> {
        self.0.lock().pop()
    }
    pub(crate) fn len(&self) -> usize {
        self.0.lock().len()
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(etwsim_loom)]
pub(crate) type FreeList = IndexQueue;

#[cfg(etwsim_loom)]
pub(crate) struct IndexQueue {
    q: loom::sync::Mutex<std::collections::VecDeque<u32>>,
    cap: usize,
}

#[cfg(etwsim_loom)]
impl IndexQueue {
    pub(crate) fn new(cap: usize) -> IndexQueue {
        IndexQueue {
            q: loom::sync::Mutex::new(std::collections::VecDeque::new()),
            cap,
        }
    }
    pub(crate) fn push(&self, v: u32) -> Result<(), u32> {
        let mut q = self.q.lock().unwrap();
        if q.len() >= self.cap {
            return Err(v);
        }
        q.push_back(v);
        Ok(())
    }
    pub(crate) fn pop(&self) -> Option<u32> {
        self.q.lock().unwrap().pop_front()
    }
    pub(crate) fn len(&self) -> usize {
        self.q.lock().unwrap().len()
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
