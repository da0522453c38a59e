//! The logger: what happens to a buffer after it is full (BUF-05…BUF-08, BUF-12…BUF-14,
//! CON-08, SES-63, SES-78, SES-79).
//!
//! Ready buffers (sealed and drained of writers) wait in the pool's queue. Logger work —
//! [`LoggerContext::drain`] — takes them oldest first, fills in the `WMI_BUFFER_HEADER`,
//! hands the bytes to the session's [`Sink`] (a file writer, or the in-memory sink) and to
//! real-time delivery, counts what was written or lost, and returns the buffer to the free list.
//!
//! Who runs it: in threaded mode one named OS thread per session, woken when a buffer becomes
//! ready and by the FlushTimer; in deterministic mode only `Kernel::run_pending` and
//! `Kernel::advance`, optionally limited to a modelled drain bandwidth.
//!
//! Real-time delivery: each consumer has a bounded queue; a consumer whose queue is full loses
//! the buffer (RealTimeBuffersLost) and later receives an RTLostBuffer marker (type 33) before
//! the next buffer it does get; a consumer that missed events the session lost receives an
//! RTLostEvent marker (type 32) (BUF-14). With no consumer attached, buffers wait in a backing
//! store of bounded size; once it is full, writes fail with `ERROR_LOG_FILE_FULL` and count as
//! lost (EVT-08, BUF-12) until a consumer attaches and takes the backlog.

use crate::data::context::LoggerContext;
use crate::data::context::LoggerThread;
use crate::data::realtime::Delivered;
use crate::data::sink::BufferInfo;
use crate::journal::{FlushReason, JournalEvent, LossCounter};
use etwsim_buffers::Doorbell;
use etwsim_types::LogFileMode;
use etwsim_types::record::{BufferHeader, buffer_flags};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

impl LoggerContext {
    /// Logger work: writes out ready buffers, oldest first, at most `budget` bytes' worth when
    /// given (deterministic drain bandwidth). Returns the bytes written out.
    pub(crate) fn drain(&self, budget: Option<u64>) -> u64 {
        self.drain_for(budget, FlushReason::Logger)
    }

    /// [`drain`](Self::drain), journaled with `reason`.
    fn drain_for(&self, budget: Option<u64>, reason: FlushReason) -> u64 {
        let size = self.pool.buffer_size();
        let mut done = 0u64;
        let mut scratch = self.drain_lock.lock();
        loop {
            if budget.is_some_and(|b| done + size > b) {
                break;
            }
            let Some(ready) = self.pool.pop_ready() else {
                break;
            };
            let (processor, used) = (ready.cpu, ready.used);
            let sequence = self.sequence.fetch_add(1, Ordering::Relaxed) + 1;
            let timestamp = self.clock.raw(self.clock.peek(), self.cfg.clock);
            let lost = self.counters.events_lost.load(Ordering::Relaxed) as u32;
            let prev = self.lost_at_last_buffer.swap(lost, Ordering::Relaxed);
            let per_cpu = !self
                .cfg
                .mode
                .contains(LogFileMode::NO_PER_PROCESSOR_BUFFERING);
            let header = BufferHeader {
                buffer_size: size as u32,
                used: used as u32,
                timestamp,
                sequence: sequence as i64,
                processor: if per_cpu { processor } else { 0 },
                logger_id: self.logger_id(),
                flags: buffer_flags::PROC_INDEX
                    | if lost > prev {
                        buffer_flags::EVENTS_LOST
                    } else {
                        0
                    },
                buffer_type: 0,
            }
            .encode();
            let info = BufferInfo {
                logger_id: self.logger_id(),
                processor,
                sequence,
                timestamp,
                used: used as u32,
            };
            // The sink reads the pool's buffer itself; it is free again once written.
            let bytes = self.pool.flushed(&ready, &header, 0xFF, &mut scratch);
            self.write_out(bytes, &info, lost);
            self.pool.release(ready);
            done += size;
        }
        if done > 0 {
            self.note(|| JournalEvent::Flush {
                session: self.cfg.name.clone(),
                handle: self.handle,
                buffers: (done / size) as u32,
                reason,
            });
        }
        done
    }

    /// Records what `event` builds in the kernel's journal, if it keeps one.
    pub(in crate::data) fn note(&self, event: impl FnOnce() -> JournalEvent) {
        if let Some(j) = &self.journal {
            j.push(self.clock.peek(), event());
        }
    }

    /// Journals a loss counted in `counter`.
    pub(in crate::data) fn note_loss(
        &self,
        counter: LossCounter,
        count: u32,
        reason: &str,
        rule: &'static str,
    ) {
        self.note(|| JournalEvent::Loss {
            session: self.cfg.name.clone(),
            handle: self.handle,
            counter,
            count,
            reason: reason.to_string(),
            rule,
        });
    }

    /// Writes out every buffer with records now: seals the in-use buffers and drains
    /// (ControlTrace FLUSH, stop — BUF-05, SES-78). A BUFFERING session without a sink keeps its
    /// ring: it has nowhere to write it.
    pub(crate) fn flush_now(&self, reason: FlushReason) {
        if self.cfg.mode.contains(LogFileMode::BUFFERING) && self.sink.lock().is_none() {
            return;
        }
        self.pool.seal_all();
        self.drain_for(None, reason);
    }

    fn write_out(&self, bytes: &[u8], info: &BufferInfo, events_lost: u32) {
        let mut written = false;
        if let Some(sink) = self.sink.lock().as_mut() {
            match sink.write_buffer(bytes, info) {
                Ok(()) => {
                    written = true;
                    // SES-35: a NEWFILE file that reached its limit moved to the next number.
                    if let Some(n) = sink.file_counter() {
                        self.live.lock().file_counter = n;
                    }
                }
                Err(e) => {
                    self.counters
                        .log_buffers_lost
                        .fetch_add(1, Ordering::Relaxed);
                    self.note_loss(
                        LossCounter::LogBuffersLost,
                        1,
                        &format!("the log file took no more: {e}"),
                        "BUF-19",
                    );
                    if sink.is_full() {
                        // SES-62: a SEQUENTIAL file at MaximumFileSize ends the session.
                        self.stop_requested.store(true, Ordering::Release);
                    }
                }
            }
        }
        if self.realtime.load(Ordering::Acquire) {
            let (taken, lost) = self.rt.deliver(Delivered {
                bytes: Arc::from(bytes),
                events_lost,
            });
            written |= taken;
            self.counters
                .real_time_buffers_lost
                .fetch_add(u64::from(lost), Ordering::Relaxed);
            if lost > 0 {
                self.note_loss(
                    LossCounter::RealTimeBuffersLost,
                    lost,
                    "the real-time backlog or a consumer's queue was full",
                    "BUF-12",
                );
            }
        }
        if written {
            self.counters
                .buffers_written
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    /// FlushTimer period in 100-ns ticks, `None` when timed flushes are off (SES-63).
    pub(in crate::data) fn flush_period(&self) -> Option<u64> {
        let live = self.live.lock();
        if live.mode.contains(LogFileMode::BUFFERING) {
            return None;
        }
        let secs = match live.flush_timer {
            0 if live.mode.contains(LogFileMode::REAL_TIME) => 1,
            0 => return None,
            s => s,
        };
        Some(u64::from(secs) * 10_000_000)
    }

    /// Runs the FlushTimer if it is due at `now` (100-ns ticks): seals every non-empty
    /// in-use buffer so the next drain writes it (BUF-05, SES-63).
    pub(crate) fn run_timer(&self, now: u64) {
        let Some(period) = self.flush_period() else {
            return;
        };
        let last = self.last_timer_flush.load(Ordering::Relaxed);
        if now >= last + period {
            self.pool.seal_all();
            self.last_timer_flush
                .store(now - (now - last) % period, Ordering::Relaxed);
        }
    }
}

impl LoggerThread {
    /// Starts the logger thread of `ctx`, named `etwsim-logger-<id>`.
    pub(crate) fn spawn(
        ctx: Arc<LoggerContext>,
        parker: crossbeam::sync::Parker,
    ) -> std::io::Result<LoggerThread> {
        let unparker = parker.unparker().clone();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        // StartTrace returns once the logger thread runs (a choice: BUF-06 leaves its timing
        // undocumented). A thread still waiting for its first time slice when the writers
        // begin lets them fill every buffer before the first is written: measured, most of
        // P9's loss at the advised sizing (docs/PERFORMANCE.md).
        let started = Arc::new(std::sync::Barrier::new(2));
        let started2 = started.clone();
        let handle = std::thread::Builder::new()
            .name(format!("etwsim-logger-{}", ctx.logger_id()))
            .spawn(move || {
                started2.wait();
                let idle = std::time::Duration::from_secs(3600);
                let bell = &ctx.pool.doorbell;
                // Whether the last round wrote something out: then writers wake this thread
                // only per batch of buffers, and it polls (`etwsim_buffers::Doorbell`).
                let mut busy = false;
                while !stop2.load(Ordering::Acquire) {
                    let wait = ctx
                        .flush_period()
                        .map_or(idle, |p| std::time::Duration::from_nanos(p * 100))
                        .min(std::time::Duration::from_millis(250));
                    if busy {
                        parker.park_timeout(wait.min(Doorbell::POLL));
                    } else if bell.may_sleep() {
                        parker.park_timeout(wait);
                    }
                    bell.draining();
                    ctx.run_timer(ctx.clock.peek());
                    // A BUFFERING session keeps its ring until a FLUSH (BUF-09, SES-41), as in
                    // `Kernel::run_pending`: draining here would write it out early, or
                    // without a sink throw it away.
                    busy = !ctx.cfg.mode.contains(LogFileMode::BUFFERING) && ctx.drain(None) > 0;
                    if ctx.stop_requested.load(Ordering::Acquire) {
                        if let Some(owner) = ctx.owner.upgrade() {
                            owner.stop_full_session(&ctx);
                        }
                    }
                }
            })?;
        started.wait();
        Ok(LoggerThread {
            handle,
            unparker,
            stop,
        })
    }

    /// Stops and joins the thread; the caller does the final flush itself.
    pub(crate) fn stop(self) {
        self.stop.store(true, Ordering::Release);
        self.unparker.unpark();
        // Called from the logger thread itself (its full file stops the session, SES-62),
        // it only asks the loop to end.
        if self.handle.thread().id() != std::thread::current().id() {
            let _ = self.handle.join();
        }
    }
}
