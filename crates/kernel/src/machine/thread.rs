//! A simulated thread's shared state (TID, CPU, activity ID, stack frames) and the lane
//! epoch the single-threaded engine's lanes are checked against. The [`Thread`](crate::Thread)
//! handle is an entry point (`api`).

use etwsim_types::Guid;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The shared state of one simulated thread.
#[derive(Debug)]
pub(crate) struct ThreadState {
    pub(crate) tid: u32,
    pub(crate) process_key: u64,
    /// Kernel identity, so a binding never leaks across kernels on one OS thread.
    pub(crate) kernel_id: u64,
    /// The simulated CPU. Written by `migrate`, read by writes (`Relaxed`: a migration races
    /// with a write on another OS thread only in tests that ask for it).
    pub(crate) cpu: AtomicU32,
    /// The thread-local activity ID, as the two words a record's header holds
    /// (`guid_words`). Only code running as this thread changes it, so a torn read cannot
    /// happen in a well-formed program.
    activity: [AtomicU64; 2],
    /// Simulated return addresses for stack-trace items (FLT-12); empty = synthesise.
    pub(crate) stack: parking_lot::Mutex<Arc<[u64]>>,
}

impl ThreadState {
    pub(crate) fn new(kernel_id: u64, process_key: u64, tid: u32, cpu: u16) -> ThreadState {
        ThreadState {
            tid,
            process_key,
            kernel_id,
            cpu: AtomicU32::new(u32::from(cpu)),
            activity: [AtomicU64::new(0), AtomicU64::new(0)],
            stack: parking_lot::Mutex::new(Arc::from(Vec::new())),
        }
    }

    pub(crate) fn activity_id(&self) -> Guid {
        crate::machine::ids::guid_from_words(self.activity_words())
    }

    /// The activity ID as a record's header holds it ([`crate::machine::ids::guid_words`]):
    /// the form the write path copies.
    #[inline(always)]
    pub(crate) fn activity_words(&self) -> [u64; 2] {
        [
            self.activity[0].load(Ordering::Relaxed),
            self.activity[1].load(Ordering::Relaxed),
        ]
    }

    pub(crate) fn set_activity_id(&self, g: Guid) {
        let [a, b] = crate::machine::ids::guid_words(&g);
        self.activity[0].store(a, Ordering::Relaxed);
        self.activity[1].store(b, Ordering::Relaxed);
        invalidate_lanes();
    }
}

/// Bumped whenever something the single-threaded engine's lanes (`data/lane.rs`) keep may
/// have changed outside a registration's route table: a simulated thread entered or left on
/// some OS thread, moved to another CPU or given another activity ID, or a registration's
/// traits set. A lane is used only while the epoch it was filled in lasts.
static LANE_EPOCH: AtomicU64 = AtomicU64::new(1);

/// The current [`LANE_EPOCH`].
#[inline(always)]
pub(crate) fn lane_epoch() -> u64 {
    LANE_EPOCH.load(Ordering::Acquire)
}

/// Ends the current [`LANE_EPOCH`]: every lane is refilled at its next write.
pub(crate) fn invalidate_lanes() {
    LANE_EPOCH.fetch_add(1, Ordering::AcqRel);
}

/// This OS thread's number (the owner of a single-threaded kernel,
/// `KernelBuilder::single_threaded`): the buffer pool's, which checks it on every path into
/// its buffers.
pub(crate) use etwsim_buffers::os_thread;
