//! The atomics the buffer protocol uses: `std`'s normally, loom's under `--cfg etwsim_loom`
//! so the reservation / switch protocol can be model-checked (see the `loom_tests` module of
//! `buffer.rs`).

#[cfg(etwsim_loom)]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(etwsim_loom))]
pub(crate) use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A bounded MPMC queue of buffer indices: crossbeam's `ArrayQueue`, or under loom a
/// loom-visible mutex around a `VecDeque`, so the model sees the hand-off it synchronises.
#[cfg(not(etwsim_loom))]
pub(crate) type IndexQueue = crossbeam::queue::ArrayQueue<u32>;

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
