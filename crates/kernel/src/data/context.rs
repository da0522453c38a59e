//! One running session, `WMI_LOGGER_CONTEXT` ([`LoggerContext`]): the settings StartTrace
//! resolved, the ones UPDATE may change, its counters, buffers, sink, real-time delivery and
//! logger thread. The control plane creates and stops it (`control::session`); the write
//! path, the logger and the consumers work on it.

use crate::data::properties::SessionProperties;
use crate::data::realtime::RealTime;
use crate::data::sink::Sink;
use crate::machine::clock::Clock;
use crate::machine::ids::TraceHandle;
use etwsim_buffers::BufferPool;
use etwsim_types::{ClockType, Guid, LogFileMode};
use parking_lot::Mutex;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};

/// The settings ETW actually uses after adjusting a [`SessionConfig`] (SES-30).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Effective {
    pub(crate) name: String,
    pub(crate) guid: Guid,
    pub(crate) clock: ClockType,
    pub(crate) mode: LogFileMode,
    pub(crate) log_file: Option<String>,
    pub(crate) buffer_size_kb: u32,
    pub(crate) minimum_buffers: u32,
    pub(crate) maximum_buffers: u32,
    pub(crate) maximum_file_size: u32,
    pub(crate) flush_timer: u32,
    pub(crate) enable_flags: u32,
    pub(crate) private: bool,
    /// The most buffers this session may ever have (UPDATE cannot raise MaximumBuffers above).
    pub(crate) buffer_cap: u32,
    pub(crate) system_logger: bool,
    pub(crate) kernel_logger: bool,
}

/// Settings that ControlTrace(UPDATE) may change.
#[derive(Clone, Debug)]
pub(crate) struct Live {
    pub(crate) mode: LogFileMode,
    pub(crate) log_file: Option<String>,
    pub(crate) maximum_buffers: u32,
    pub(crate) flush_timer: u32,
    pub(crate) enable_flags: u32,
    pub(crate) file_counter: u32,
}

const RUNNING: u8 = 0;
const STOPPING: u8 = 1;
const STOPPED: u8 = 2;

/// The statistics counters of a session (BUF-07, SES-76). Each is written by the event path
/// or the logger and read by QUERY; `Relaxed` both ways — they are statistics, not
/// synchronisation.
#[derive(Debug, Default)]
pub(in crate::data) struct Counters {
    pub(in crate::data) events_lost: AtomicU64,
    pub(in crate::data) buffers_written: AtomicU64,
    pub(in crate::data) log_buffers_lost: AtomicU64,
    pub(in crate::data) real_time_buffers_lost: AtomicU64,
}

/// What a session's logger asks of the kernel that runs it (the kernel implements it; the
/// session holds it weakly, so a session never keeps its kernel alive).
pub(crate) trait SessionOwner: Send + Sync {
    /// The log file is full (SES-62): stop the session as ControlTrace(STOP) would.
    fn stop_full_session(self: Arc<Self>, ctx: &Arc<LoggerContext>);
}

/// One running session: `WMI_LOGGER_CONTEXT`.
#[doc(alias = "WMI_LOGGER_CONTEXT")]
#[doc(alias = "ETW_LOGGER_CONTEXT")]
pub struct LoggerContext {
    pub(crate) handle: TraceHandle,
    pub(crate) cfg: Effective,
    pub(crate) name_key: String,
    /// Start key of the owning process, for private sessions.
    pub(crate) private_owner: Option<u64>,
    pub(crate) in_proc: bool,
    pub(crate) system_slot: Option<usize>,
    pub(crate) logger_thread_id: u32,
    pub(crate) live: Mutex<Live>,
    pub(in crate::data) state: AtomicU8,
    pub(in crate::data) counters: Counters,
    /// The kernel's clock.
    pub(in crate::data) clock: Arc<Clock>,
    /// The kernel's journal, if it keeps one.
    pub(in crate::data) journal: Option<Arc<crate::journal::Journal>>,
    /// The buffers (BUF-01…BUF-11).
    pub(crate) pool: BufferPool,
    /// Where flushed buffers are written (the file writer, or a test's sink).
    pub(crate) sink: Mutex<Option<Box<dyn Sink>>>,
    /// Real-time delivery state (BUF-12…BUF-14).
    pub(crate) rt: RealTime,
    /// REAL_TIME is in the current mode: read by the event path without taking `live`.
    pub(in crate::data) realtime: AtomicBool,
    /// Buffer sequence numbers handed out.
    pub(in crate::data) sequence: AtomicU64,
    /// EventsLost when the last buffer was flushed (the EVENTS_LOST buffer flag).
    pub(in crate::data) lost_at_last_buffer: AtomicU32,
    /// Serialises logger work (the logger thread, FLUSH, stop). The `Vec` is the scratch
    /// `BufferPool::flushed` takes: only the loom build copies a flushed buffer into it;
    /// otherwise the header is written in place, the sink reads the buffer itself, and the
    /// `Vec` stays empty.
    pub(in crate::data) drain_lock: Mutex<Vec<u8>>,
    /// Time of the last FlushTimer flush, in 100-ns ticks.
    pub(in crate::data) last_timer_flush: AtomicU64,
    /// Deterministic drain bandwidth credit, in bytes.
    pub(in crate::data) drain_credit: AtomicU64,
    /// The logger thread (threaded mode).
    pub(crate) logger: Mutex<Option<LoggerThread>>,
    /// The sink is the session's own `.etl` file writer (not one a caller gave).
    pub(crate) writes_file: AtomicBool,
    /// The log file is full (SES-62): the session must stop.
    pub(in crate::data) stop_requested: AtomicBool,
    /// Who stops the session when its logger finds the file full (SES-62): the kernel.
    pub(in crate::data) owner: std::sync::Weak<dyn SessionOwner>,
}

impl std::fmt::Debug for LoggerContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoggerContext")
            .field("handle", &self.handle)
            .field("name", &self.cfg.name)
            .field("state", &self.state.load(Ordering::Relaxed))
            .field("buffers", &self.pool.allocated())
            .finish_non_exhaustive()
    }
}

/// What [`LoggerContext::new`] takes: what StartTrace decided, and where the session runs.
pub(crate) struct NewContext<'a> {
    pub(crate) handle: TraceHandle,
    pub(crate) cfg: Effective,
    pub(crate) name_key: String,
    pub(crate) private_owner: Option<u64>,
    pub(crate) in_proc: bool,
    pub(crate) system_slot: Option<usize>,
    pub(crate) logger_thread_id: u32,
    /// The kernel's clock.
    pub(crate) clock: &'a Arc<Clock>,
    /// The kernel's journal, if it keeps one.
    pub(crate) journal: Option<&'a Arc<crate::journal::Journal>>,
    /// A single-threaded kernel's OS thread.
    pub(crate) owner_thread: Option<u64>,
    /// The kernel's CPU count (one buffer slot per CPU unless NO_PER_PROCESSOR_BUFFERING).
    pub(crate) cpus: u16,
    /// The real-time backing store, in buffers (BUF-12).
    pub(crate) realtime_backlog: usize,
    pub(crate) sink: Option<Box<dyn Sink>>,
    /// The sink is the session's own `.etl` file writer.
    pub(crate) writes_file: bool,
    pub(crate) owner: std::sync::Weak<dyn SessionOwner>,
}

impl LoggerContext {
    /// STOP begins (the `SeqCst` half of STOP's handshake with the write path, see
    /// `BufferPool::enter`): `false` when another stop already began.
    pub(crate) fn begin_stop(&self) -> bool {
        self.state
            .compare_exchange(RUNNING, STOPPING, Ordering::SeqCst, Ordering::Acquire)
            .is_ok()
    }

    /// The stop has completed: the final flush is delivered, and real-time consumers are
    /// told of losses no later buffer will announce (BUF-14).
    pub(crate) fn mark_stopped(&self) {
        // As every delivered buffer carries it: EventsLost as the properties' ULONG.
        let lost = self.counters.events_lost.load(Ordering::Relaxed) as u32;
        self.rt.finish(lost);
        self.state.store(STOPPED, Ordering::Release);
    }

    /// The log file filled up during logger work (SES-62): the kernel must stop the session.
    pub(crate) fn stop_requested(&self) -> bool {
        self.stop_requested.load(Ordering::Acquire)
    }

    /// Turns real-time delivery on or off for the next buffers (UPDATE, SES-81); the event
    /// path reads it without taking `live`.
    pub(crate) fn set_realtime(&self, on: bool) {
        self.realtime.store(on, Ordering::Release);
    }

    /// Deterministic logger work with a drain bandwidth: `earned` bytes more credit, then a
    /// drain of at most the credit; what is left (at most one buffer) carries over. Returns
    /// the bytes written out.
    pub(crate) fn drain_with_credit(&self, earned: u64) -> u64 {
        let credit = self
            .drain_credit
            .load(Ordering::Relaxed)
            .saturating_add(earned);
        let used = self.drain(Some(credit));
        let left = (credit - used).min(self.pool.buffer_size());
        self.drain_credit.store(left, Ordering::Relaxed);
        used
    }

    /// A running session: the adjusted MinimumBuffers allocated, all free (BUF-01).
    pub(crate) fn new(n: NewContext<'_>) -> LoggerContext {
        let eff = n.cfg;
        LoggerContext {
            handle: n.handle,
            name_key: n.name_key,
            private_owner: n.private_owner,
            in_proc: n.in_proc,
            system_slot: n.system_slot,
            logger_thread_id: n.logger_thread_id,
            live: Mutex::new(Live {
                mode: eff.mode,
                log_file: eff.log_file.clone(),
                maximum_buffers: eff.maximum_buffers,
                flush_timer: eff.flush_timer,
                enable_flags: eff.enable_flags,
                file_counter: u32::from(eff.mode.contains(LogFileMode::NEWFILE)),
            }),
            state: AtomicU8::new(RUNNING),
            counters: Counters::default(),
            clock: n.clock.clone(),
            journal: n.journal.cloned(),
            pool: BufferPool::new(
                u64::from(eff.buffer_size_kb) * 1024,
                eff.minimum_buffers,
                eff.maximum_buffers,
                eff.buffer_cap,
                if eff.mode.contains(LogFileMode::NO_PER_PROCESSOR_BUFFERING) {
                    1
                } else {
                    usize::from(n.cpus)
                },
                eff.mode.contains(LogFileMode::BUFFERING),
            )
            .owned_by(n.owner_thread),
            sink: Mutex::new(n.sink),
            rt: RealTime::new(n.realtime_backlog),
            realtime: AtomicBool::new(eff.mode.contains(LogFileMode::REAL_TIME)),
            sequence: AtomicU64::new(0),
            lost_at_last_buffer: AtomicU32::new(0),
            drain_lock: Mutex::new(Vec::new()),
            last_timer_flush: AtomicU64::new(n.clock.peek()),
            drain_credit: AtomicU64::new(0),
            logger: Mutex::new(None),
            writes_file: AtomicBool::new(n.writes_file),
            stop_requested: AtomicBool::new(false),
            owner: n.owner,
            cfg: eff,
        }
    }

    /// The logger id.
    pub fn logger_id(&self) -> u16 {
        self.handle.logger_id()
    }

    /// `true` from start until a stop begins.
    pub fn is_running(&self) -> bool {
        self.state.load(Ordering::Acquire) == RUNNING
    }

    /// The write path's running check, inside its in-flight bracket (`SeqCst`: the other
    /// half of STOP's handshake, see `BufferPool::enter`).
    pub(in crate::data) fn accepts_writes(&self) -> bool {
        self.state.load(Ordering::SeqCst) == RUNNING
    }

    /// `true` once a stop has completed: the final flush is delivered and nothing more will
    /// come from this session.
    pub fn is_finished(&self) -> bool {
        self.state.load(Ordering::Acquire) == STOPPED
    }

    pub(crate) fn properties(&self) -> SessionProperties {
        let live = self.live.lock();
        let c = &self.counters;
        // SES-63: 0 means 1 s for real-time delivery; buffering-mode sessions use no timer.
        let flush_timer = if live.mode.contains(LogFileMode::BUFFERING) {
            0
        } else if live.flush_timer == 0 && live.mode.contains(LogFileMode::REAL_TIME) {
            1
        } else {
            live.flush_timer
        };
        SessionProperties {
            name: self.cfg.name.clone(),
            guid: self.cfg.guid,
            handle: self.handle,
            logger_id: self.logger_id(),
            clock: self.cfg.clock,
            log_file_mode: live.mode,
            log_file: live.log_file.clone(),
            buffer_size_kb: self.cfg.buffer_size_kb,
            minimum_buffers: self.cfg.minimum_buffers,
            maximum_buffers: live.maximum_buffers,
            maximum_file_size: self.cfg.maximum_file_size,
            flush_timer: live.flush_timer,
            effective_flush_timer: flush_timer,
            enable_flags: live.enable_flags,
            number_of_buffers: self.pool.allocated(),
            free_buffers: self.pool.free_count(),
            events_lost: c.events_lost.load(Ordering::Relaxed) as u32,
            buffers_written: c.buffers_written.load(Ordering::Relaxed) as u32,
            log_buffers_lost: c.log_buffers_lost.load(Ordering::Relaxed) as u32,
            real_time_buffers_lost: c.real_time_buffers_lost.load(Ordering::Relaxed) as u32,
            logger_thread_id: self.logger_thread_id,
            is_private: self.private_owner.is_some(),
            is_system_logger: self.cfg.system_logger,
            file_counter: live.file_counter,
        }
    }
}

/// A session's logger thread (threaded mode).
pub(crate) struct LoggerThread {
    pub(in crate::data) handle: std::thread::JoinHandle<()>,
    pub(in crate::data) unparker: crossbeam::sync::Unparker,
    pub(in crate::data) stop: Arc<AtomicBool>,
}
