//! When a writer wakes a threaded session's logger thread.
//!
//! A buffer that becomes ready goes on the pool's ready queue; the logger thread pops it and
//! writes it out. Waking a parked thread is a system call, and on a virtual machine an
//! interrupt to the other CPU as well: several microseconds, paid by the writer that filled
//! the buffer. Woken for every buffer, a logger that drains faster than writers fill cost a
//! flat-out writer ≈ 15 ns per 256-byte record (docs/PERFORMANCE.md, P6). So the writer wakes
//! it only when it has to:
//!
//! * **the logger sleeps** (it found no work on its last round): the first ready buffer
//!   wakes it, so a session that was idle delivers its first full buffer at once;
//! * **the logger is busy** (it drained something on its last round): it then polls every
//!   [`Doorbell::POLL`] by itself, and a writer wakes it early only when the buffers waiting
//!   reach the pool's batch (an eighth of MaximumBuffers, at most 16), long before the free
//!   buffers run out.
//!
//! No documented behaviour changes: a full buffer is written out within [`Doorbell::POLL`]
//! (or at once), the FlushTimer still runs on time, FLUSH and stop drain synchronously, and a
//! writer never waits (EVT-07). Deterministic kernels have no logger thread and no doorbell.
//!
//! The hand-over is the classic sleeping-consumer protocol. The logger announces that it is
//! going to sleep, then looks for work; a writer publishes its work, then looks for the
//! announcement. With both steps sequentially consistent, at least one of them sees the
//! other: the logger does not sleep, or the writer wakes it. It is model-checked with loom
//! (`loom_tests`), with the steps swapped as the deliberate bug the model must catch.

use crate::sync::{AtomicU32, Ordering::SeqCst};
use std::time::Duration;

/// The writers' side of waking a logger thread: the buffers made ready since its last round,
/// and whether it sleeps. A pool's ([`BufferPool::doorbell`](crate::BufferPool::doorbell)):
/// its writers ring it, its logger thread drains and announces sleep through it.
#[derive(Debug)]
pub struct Doorbell {
    /// Buffers made ready since the logger last began a drain (may count a few it already
    /// took: an early wake-up, never a missed one).
    pending: AtomicU32,
    /// 1 while the logger sleeps until woken (or its FlushTimer).
    asleep: AtomicU32,
    /// The loom model's deliberate bug: look for work before announcing sleep.
    #[cfg(etwsim_loom)]
    pub(crate) check_before_announcing: bool,
}

impl Doorbell {
    /// How often a busy logger looks for ready buffers without being woken.
    pub const POLL: Duration = Duration::from_millis(1);

    /// A doorbell whose logger sleeps (it has not started its first round).
    pub(crate) fn new() -> Doorbell {
        Doorbell {
            pending: AtomicU32::new(0),
            asleep: AtomicU32::new(1),
            #[cfg(etwsim_loom)]
            check_before_announcing: false,
        }
    }

    /// The batch of a pool of at most `max_buffers` buffers: an eighth of them, 1 to 16.
    pub(crate) fn batch(max_buffers: u32) -> u32 {
        (max_buffers / 8).clamp(1, 16)
    }

    /// Writer: a buffer was just pushed on the ready queue. Returns whether to wake the
    /// logger now: it sleeps, or this buffer completes a batch.
    #[inline]
    pub(crate) fn rung(&self, batch: u32) -> bool {
        let waiting = self.pending.fetch_add(1, SeqCst) + 1;
        waiting == batch || self.asleep.load(SeqCst) != 0
    }

    /// Logger: it is awake and about to drain; what was pending is being taken.
    pub fn draining(&self) {
        self.asleep.store(0, SeqCst);
        self.pending.store(0, SeqCst);
    }

    /// Logger: its last round found nothing. Announces that it sleeps, then looks for work
    /// made ready meanwhile. Returns `true` when it may sleep until woken; `false` when work
    /// arrived (it stays awake).
    pub fn may_sleep(&self) -> bool {
        #[cfg(etwsim_loom)]
        if self.check_before_announcing {
            let idle = self.pending.load(SeqCst) == 0;
            self.asleep.store(1, SeqCst);
            return idle;
        }
        self.asleep.store(1, SeqCst);
        if self.pending.load(SeqCst) == 0 {
            return true;
        }
        self.asleep.store(0, SeqCst);
        false
    }
}

#[cfg(all(test, not(etwsim_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_sleeping_logger_is_woken_by_the_first_buffer_a_busy_one_by_a_batch() {
        let d = Doorbell::new();
        assert!(d.rung(4), "a logger that never ran sleeps");
        d.draining();
        assert!(!d.rung(4) && !d.rung(4) && !d.rung(4));
        assert!(d.rung(4), "the fourth buffer completes the batch");
        assert!(!d.rung(4), "one wake-up per batch");
        d.draining();
        assert!(d.may_sleep(), "nothing made ready since the drain began");
        assert!(d.rung(4), "asleep: the first buffer wakes it");
        d.draining();
        assert!(!d.rung(4));
        assert!(!d.may_sleep(), "work arrived: the logger stays awake");
        assert!(!d.rung(4), "and is not woken for it");
    }

    #[test]
    fn the_batch_is_an_eighth_of_the_buffers_from_1_to_16() {
        assert_eq!(Doorbell::batch(2), 1);
        assert_eq!(Doorbell::batch(24), 3);
        assert_eq!(Doorbell::batch(256), 16);
        assert_eq!(Doorbell::batch(u32::MAX), 16);
    }
}

#[cfg(all(test, etwsim_loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicU32;
    // std's `Arc`: a lost wake-up panics (deadlock) in the parked logger, and loom's `Arc`
    // would panic again as the unwinding drops it, aborting the test run.
    use loom::thread;
    use std::sync::Arc;

    /// A writer makes `buffers` buffers ready one by one (a batch larger than that, so only
    /// the sleep announcement can wake the logger); the logger runs the thread's loop —
    /// drain, and when a round found nothing, announce sleep and park until unparked — until
    /// it has drained them all. A lost wake-up leaves it parked forever: loom reports a
    /// deadlock.
    fn model(buffers: u32, check_before_announcing: bool) {
        loom::model(move || {
            let mut bell = Doorbell::new();
            bell.check_before_announcing = check_before_announcing;
            let bell = Arc::new(bell);
            let ready = Arc::new(AtomicU32::new(0));
            let logger = {
                let (bell, ready) = (bell.clone(), ready.clone());
                thread::spawn(move || {
                    let mut drained = 0;
                    let mut busy = false;
                    while drained < buffers {
                        if !busy && bell.may_sleep() {
                            thread::park();
                        }
                        bell.draining();
                        let got = ready.swap(0, SeqCst);
                        drained += got;
                        busy = got > 0;
                    }
                })
            };
            for _ in 0..buffers {
                ready.fetch_add(1, SeqCst);
                if bell.rung(u32::MAX) {
                    logger.thread().unpark();
                }
            }
            logger.join().unwrap();
        });
    }

    #[test]
    fn loom_a_ready_buffer_always_reaches_a_sleeping_logger() {
        model(2, false);
    }

    #[test]
    #[should_panic(expected = "deadlock")]
    fn loom_catches_a_logger_that_looks_for_work_before_announcing_sleep() {
        model(2, true);
    }
}
