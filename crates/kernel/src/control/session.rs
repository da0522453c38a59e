//! Sessions: `WMI_LOGGER_CONTEXT` as [`LoggerContext`], started by StartTrace and driven by
//! ControlTrace (SES-01…SES-83).
//!
//! [`SessionBuilder`] / [`SessionConfig`] mirror what a controller puts in
//! `EVENT_TRACE_PROPERTIES`; [`Kernel::start_trace`] validates it exactly as the rules of
//! SES 1.1–1.6 say, adjusts the buffer settings (SES-57…SES-60), checks limits and access,
//! and only then allocates a logger slot — so a rejected start changes nothing.
//! [`Session`] is the controller's handle; dropping it does not stop the session (SES-16).

use crate::control::notify::SessionNotification;
use crate::data::file_sink::{EtlFileSink, FileStart};
use crate::data::logger::{LoggerThread, RealTime, Sink};
use crate::journal::FlushReason;
use crate::machine::clock::Clock;
use crate::machine::kernel::{Kernel, State};
use crate::machine::process::{Process, ProcessRecord};
use crate::{Error, Result};
use etwsim_buffers::BufferPool;
use etwsim_types::{ClockType, Guid, LogFileMode, TraceControl};
use parking_lot::Mutex;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};

/// `KERNEL_LOGGER_NAME`.
pub const KERNEL_LOGGER_NAME: &str = "NT Kernel Logger";
/// `GLOBAL_LOGGER_NAME`.
pub const GLOBAL_LOGGER_NAME: &str = "GlobalLogger";
/// The Circular Kernel Context Logger's name (ntwmi.h).
pub const CKCL_NAME: &str = "Circular Kernel Context Logger";
/// `WMI_GLOBAL_LOGGER_ID`: the Global Logger's logger id and handle.
pub const WMI_GLOBAL_LOGGER_ID: u16 = 1;
/// Longest session or log-file name, in UTF-16 units (SES-08, SES-28, SES-76).
pub const MAX_NAME_CHARS: usize = 1024;
/// Largest BufferSize in KB since Windows 8 (SES-57).
pub const MAX_BUFFER_SIZE_KB: u32 = 16 * 1024;
/// Smallest documented BufferSize in KB (SES-57).
pub const MIN_BUFFER_SIZE_KB: u32 = 4;
/// Private sessions one process may run (Windows 10 1703+, SES-05).
pub const MAX_PRIVATE_SESSIONS: u32 = 8;
/// PRIVATE_IN_PROC sessions one process may run (SES-05).
pub const MAX_PRIVATE_IN_PROC_SESSIONS: u32 = 3;
/// System loggers at once (SES-06); slots 0 and 1 belong to the NT Kernel Logger and the
/// Circular Kernel Context Logger (SES-07).
pub const MAX_SYSTEM_LOGGERS: usize = 8;
/// Free disk space required for a log file with no MaximumFileSize (SES-27).
pub const UNLIMITED_FILE_RESERVE: u64 = 200 * 1024 * 1024;

/// `TRACEHANDLE` / `CONTROLTRACE_ID` of a session: logger id in the low 16 bits, a start
/// generation above, so a stopped session's handle never names a later one (SES-15).
#[doc(alias = "TRACEHANDLE")]
#[doc(alias = "CONTROLTRACE_ID")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct TraceHandle(pub u64);

impl TraceHandle {
    /// The logger id (`LoggerId` in `ETW_BUFFER_CONTEXT` and `TRACE_ENABLE_INFO`).
    pub fn logger_id(self) -> u16 {
        (self.0 & 0xffff) as u16
    }

    fn generation(self) -> u64 {
        self.0 >> 16
    }
}

impl std::fmt::Display for TraceHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// What a controller asks for at StartTrace: the settings of `EVENT_TRACE_PROPERTIES`.
#[doc(alias = "EVENT_TRACE_PROPERTIES")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionConfig {
    /// Session name (the `InstanceName` argument).
    pub name: String,
    /// `Wnode.Guid`: GUID_NULL lets ETW generate one (SES-09).
    pub guid: Guid,
    /// `Wnode.ClientContext`: the clock type, raw (SES-64).
    pub clock: u32,
    /// `LogFileMode`.
    pub mode: LogFileMode,
    /// The log file (`LogFileNameOffset`), if any.
    pub log_file: Option<String>,
    /// `BufferSize` in KB; 0 = the simulator's default (SES-58).
    pub buffer_size_kb: u32,
    /// `MinimumBuffers`; 0 = let ETW choose (SES-59).
    pub minimum_buffers: u32,
    /// `MaximumBuffers`; 0 = let ETW choose (SES-60).
    pub maximum_buffers: u32,
    /// `MaximumFileSize` in MB (KB with USE_KBYTES_FOR_SIZE); 0 = unlimited (SES-61).
    pub maximum_file_size: u32,
    /// `FlushTimer` in seconds (SES-63).
    pub flush_timer: u32,
    /// `EnableFlags`: kernel event groups, for system loggers (SES-13, SES-70).
    pub enable_flags: u32,
}

impl SessionConfig {
    /// A real-time session named `name` with every other setting left to ETW.
    pub fn new(name: &str) -> SessionConfig {
        SessionConfig {
            name: name.into(),
            guid: Guid::NULL,
            clock: 1,
            mode: LogFileMode::REAL_TIME,
            log_file: None,
            buffer_size_kb: 0,
            minimum_buffers: 0,
            maximum_buffers: 0,
            maximum_file_size: 0,
            flush_timer: 0,
            enable_flags: 0,
        }
    }

    /// The LogFileMode combination rules alone: StartTrace applies them with the rest of
    /// [`Kernel::start_trace`]'s checks, ControlTrace to the `LogFileMode` of the properties
    /// block it is given (SES-23, SES-73).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for a documented do-not-combine pair, or PRIVATE_IN_PROC
    /// without PRIVATE_LOGGER.
    pub fn check_mode_combination(mode: LogFileMode) -> Result<()> {
        match LogFileMode::conflict(mode) {
            Some(why) => Err(Error::invalid(format!(
                "invalid LogFileMode {:#x}: {why}",
                mode.bits()
            ))),
            None => Ok(()),
        }
    }
}

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

/// Windows' case folding for names (`RtlUpcaseUnicodeChar`): one character to one character,
/// BMP only. A character whose full upper case is several characters (`ß` → `SS`) keeps its
/// own form, so `straße` and `STRASSE` are different names, as on Windows.
fn upcase_simple(c: char) -> char {
    if u32::from(c) > 0xFFFF {
        return c;
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) if u32::from(u) <= 0xFFFF => u,
        _ => c,
    }
}

fn eq_ignore_case(a: &str, b: &str) -> bool {
    a.chars()
        .map(upcase_simple)
        .eq(b.chars().map(upcase_simple))
}

/// The case-insensitive key of a session name or path.
pub(crate) fn name_key(s: &str) -> String {
    s.chars().map(upcase_simple).collect()
}

fn has_printf_counter(path: &str) -> bool {
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && b.get(i + 1) == Some(&b'%') {
            i += 2; // "%%" is a literal percent sign, not a counter
        } else if b[i] == b'%' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j < b.len() && matches!(b[j], b'd' | b'u' | b'i') {
                return true;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    false
}

/// The file-size limit in bytes (SES-44, SES-61); `None` for unlimited.
pub(crate) fn file_limit_bytes(mode: LogFileMode, max: u32) -> Option<u64> {
    (max != 0).then(|| {
        let unit = if mode.contains(LogFileMode::USE_KBYTES_FOR_SIZE) {
            1024
        } else {
            1024 * 1024
        };
        u64::from(max) * unit
    })
}

/// StartTrace's argument checks and adjustments, independent of what is running
/// (SES-08, SES-11…SES-14, SES-23, SES-24, SES-31…SES-64, SES-66).
pub(crate) fn validate(
    cfg: &SessionConfig,
    cpus: u16,
    kcfg: &crate::machine::kernel::KernelConfig,
    autologger: bool,
) -> Result<Effective> {
    let name = cfg.name.as_str();
    if name.is_empty() {
        return Err(Error::invalid("the session name is empty"));
    }
    if name.encode_utf16().count() > MAX_NAME_CHARS {
        return Err(Error::invalid(format!(
            "the session name has {} characters, at most {MAX_NAME_CHARS} are allowed",
            name.encode_utf16().count()
        )));
    }
    if name.contains('\0') {
        return Err(Error::invalid("the session name contains a NUL character"));
    }
    let kernel_logger = eq_ignore_case(name, KERNEL_LOGGER_NAME);
    let mut guid = cfg.guid;
    if guid == Guid::SYSTEM_TRACE_CONTROL && !kernel_logger {
        return Err(Error::invalid(
            "Wnode.Guid is SystemTraceControlGuid but the name is not \"NT Kernel Logger\"",
        ));
    }
    if kernel_logger {
        guid = Guid::SYSTEM_TRACE_CONTROL;
    }
    let m = cfg.mode;
    let unknown = m.bits() & !LogFileMode::all().bits();
    if unknown != 0 {
        return Err(Error::invalid(format!(
            "LogFileMode has undefined bits {unknown:#x}"
        )));
    }
    if m.intersects(LogFileMode::INTERNAL) {
        return Err(Error::invalid(format!(
            "LogFileMode has bits reserved to the kernel: {:?}",
            m & LogFileMode::INTERNAL
        )));
    }
    let bad = |why: &str| {
        Err(Error::invalid(format!(
            "invalid LogFileMode {:#x}: {why}",
            m.bits()
        )))
    };
    if m.contains(LogFileMode::RELOG) {
        return bad("EVENT_TRACE_RELOG_MODE is reserved for internal use");
    }
    if m.contains(LogFileMode::NONSTOPPABLE) && !autologger {
        return bad("EVENT_TRACE_NONSTOPPABLE_MODE is supported only for AutoLogger sessions");
    }
    if let Some(why) = LogFileMode::conflict(m) {
        return bad(why);
    }
    let private = m.contains(LogFileMode::PRIVATE_LOGGER);
    let system_logger = m.contains(LogFileMode::SYSTEM_LOGGER)
        || guid == Guid::SYSTEM_TRACE_CONTROL
        || guid == Guid::GLOBAL_LOGGER
        || kernel_logger;
    if system_logger && private {
        return bad(
            "a private session cannot be a system logger (SYSTEM_LOGGER_MODE, NT Kernel Logger, SystemTraceControlGuid or GlobalLoggerGuid)",
        );
    }
    if system_logger && m.contains(LogFileMode::USE_PAGED_MEMORY) {
        return bad("a system logger cannot use paged memory");
    }
    if private && guid.is_null() && !m.contains(LogFileMode::PRIVATE_IN_PROC) {
        return Err(Error::invalid(
            "a private session's Wnode.Guid must be its provider's control GUID",
        ));
    }
    let log_file = cfg.log_file.clone().filter(|f| !f.is_empty());
    match &log_file {
        None => {
            if !m.intersects(LogFileMode::REAL_TIME | LogFileMode::BUFFERING) {
                return Err(Error::BadPathname(
                    "no log file, and neither REAL_TIME nor BUFFERING: events would have nowhere to go".into(),
                ));
            }
            if m.intersects(LogFileMode::FILE_LAYOUT | LogFileMode::PREALLOCATE) {
                return Err(Error::BadPathname(format!(
                    "LogFileMode {:#x} names a file layout but no log file is given",
                    m.bits()
                )));
            }
        }
        Some(path) => {
            if path.encode_utf16().count() > MAX_NAME_CHARS {
                return Err(Error::BadPathname(format!(
                    "the log file name is longer than {MAX_NAME_CHARS} characters"
                )));
            }
            if path.contains('\0') {
                return Err(Error::BadPathname(
                    "the log file name contains a NUL".into(),
                ));
            }
            if m.contains(LogFileMode::NEWFILE) && !has_printf_counter(path) {
                return bad("NEWFILE needs a file name with a counter such as %d");
            }
        }
    }
    if m.intersects(LogFileMode::PREALLOCATE | LogFileMode::CIRCULAR | LogFileMode::NEWFILE)
        && cfg.maximum_file_size == 0
    {
        return bad("PREALLOCATE, CIRCULAR and NEWFILE need a MaximumFileSize");
    }
    let clock = ClockType::from_raw(cfg.clock).ok_or_else(|| {
        Error::invalid(format!(
            "Wnode.ClientContext {} is not a clock type (1, 2 or 3)",
            cfg.clock
        ))
    })?;
    let buffer_size_kb = match cfg.buffer_size_kb {
        0 => kcfg.default_buffer_size_kb,
        n if n > MAX_BUFFER_SIZE_KB => {
            return Err(Error::invalid(format!(
                "BufferSize {n} KB is above the {MAX_BUFFER_SIZE_KB} KB maximum"
            )));
        }
        n => n.max(MIN_BUFFER_SIZE_KB),
    };
    let floor = if m.contains(LogFileMode::NO_PER_PROCESSOR_BUFFERING) {
        2
    } else {
        2 * u32::from(cpus)
    };
    // SES-59/60: ETW may lower both to an internal cap — here the count cap, and a cap on the
    // session's total buffer memory, which wins even over the per-CPU floor.
    let by_memory = (kcfg.max_session_buffer_bytes / (u64::from(buffer_size_kb) * 1024)).max(2);
    let cap = kcfg
        .max_buffers_cap
        .max(floor)
        .min(u32::try_from(by_memory).unwrap_or(u32::MAX));
    let minimum_buffers = cfg.minimum_buffers.max(floor).min(cap);
    let maximum_buffers = if m.contains(LogFileMode::BUFFERING) {
        minimum_buffers
    } else if cfg.maximum_buffers == 0 {
        minimum_buffers.saturating_add(20).min(cap)
    } else {
        cfg.maximum_buffers.max(minimum_buffers).min(cap)
    };
    if log_file.is_some() {
        if let Some(limit) = file_limit_bytes(m, cfg.maximum_file_size) {
            let need = 2 * u64::from(buffer_size_kb) * 1024;
            if limit < need {
                return Err(Error::invalid(format!(
                    "MaximumFileSize ({limit} bytes) cannot hold the header buffer and one {buffer_size_kb} KB buffer"
                )));
            }
        }
    }
    Ok(Effective {
        name: name.to_owned(),
        guid,
        clock,
        mode: m,
        log_file,
        buffer_size_kb,
        minimum_buffers,
        maximum_buffers,
        maximum_file_size: cfg.maximum_file_size,
        flush_timer: cfg.flush_timer,
        enable_flags: cfg.enable_flags,
        private,
        buffer_cap: cap,
        system_logger,
        kernel_logger,
    })
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
pub(crate) struct Counters {
    pub(crate) events_lost: AtomicU64,
    pub(crate) buffers_written: AtomicU64,
    pub(crate) log_buffers_lost: AtomicU64,
    pub(crate) real_time_buffers_lost: AtomicU64,
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
    pub(crate) state: AtomicU8,
    pub(crate) counters: Counters,
    /// The kernel's clock.
    pub(crate) clock: Arc<Clock>,
    /// The kernel's journal, if it keeps one.
    pub(crate) journal: Option<Arc<crate::journal::Journal>>,
    /// The buffers (BUF-01…BUF-11).
    pub(crate) pool: BufferPool,
    /// Where flushed buffers are written (the file writer, or a test's sink).
    pub(crate) sink: Mutex<Option<Box<dyn Sink>>>,
    /// Real-time delivery state (BUF-12…BUF-14).
    pub(crate) rt: RealTime,
    /// REAL_TIME is in the current mode: read by the event path without taking `live`.
    pub(crate) realtime: AtomicBool,
    /// Buffer sequence numbers handed out.
    pub(crate) sequence: AtomicU64,
    /// EventsLost when the last buffer was flushed (the EVENTS_LOST buffer flag).
    pub(crate) lost_at_last_buffer: AtomicU32,
    /// Serialises logger work (the logger thread, FLUSH, stop), and holds the buffer a drain
    /// copies each flushed buffer into (kept between drains: no allocation, no zeroing).
    pub(crate) drain_lock: Mutex<Vec<u8>>,
    /// Time of the last FlushTimer flush, in 100-ns ticks.
    pub(crate) last_timer_flush: AtomicU64,
    /// Deterministic drain bandwidth credit, in bytes.
    pub(crate) drain_credit: AtomicU64,
    /// The logger thread (threaded mode).
    pub(crate) logger: Mutex<Option<LoggerThread>>,
    /// The sink is the session's own `.etl` file writer (not one a caller gave).
    pub(crate) writes_file: AtomicBool,
    /// The log file is full (SES-62): the session must stop.
    pub(crate) stop_requested: AtomicBool,
    /// The kernel, for stopping the session from the logger (SES-62).
    pub(crate) kernel: std::sync::Weak<crate::machine::kernel::KernelInner>,
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

impl LoggerContext {
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
    pub(crate) fn accepts_writes(&self) -> bool {
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

/// A session's settings and statistics, as QUERY and every successful control call return
/// them (SES-76).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionProperties {
    /// Session name.
    pub name: String,
    /// Session GUID (`Wnode.Guid`).
    pub guid: Guid,
    /// Session handle (`Wnode.HistoricalContext`).
    pub handle: TraceHandle,
    /// Logger id.
    pub logger_id: u16,
    /// Clock type.
    pub clock: ClockType,
    /// Current `LogFileMode`.
    pub log_file_mode: LogFileMode,
    /// Current log file.
    pub log_file: Option<String>,
    /// Effective `BufferSize` in KB.
    pub buffer_size_kb: u32,
    /// Effective `MinimumBuffers`.
    pub minimum_buffers: u32,
    /// Effective `MaximumBuffers`.
    pub maximum_buffers: u32,
    /// `MaximumFileSize`.
    pub maximum_file_size: u32,
    /// `FlushTimer` as set.
    pub flush_timer: u32,
    /// The flush period in use: 1 s for a real-time session with FlushTimer 0 (SES-63).
    pub effective_flush_timer: u32,
    /// `EnableFlags`.
    pub enable_flags: u32,
    /// `NumberOfBuffers`: buffers in the pool.
    pub number_of_buffers: u32,
    /// `FreeBuffers`: allocated but unused.
    pub free_buffers: u32,
    /// `EventsLost`.
    pub events_lost: u32,
    /// `BuffersWritten`.
    pub buffers_written: u32,
    /// `LogBuffersLost`.
    pub log_buffers_lost: u32,
    /// `RealTimeBuffersLost`.
    pub real_time_buffers_lost: u32,
    /// `LoggerThreadId`.
    pub logger_thread_id: u32,
    /// Started with PRIVATE_LOGGER_MODE.
    pub is_private: bool,
    /// A system logger (SES-13).
    pub is_system_logger: bool,
    /// The NEWFILE counter (SES-35; first file is 1).
    pub file_counter: u32,
}

/// What ControlTrace(UPDATE) may change (SES-77). `None` / 0 leaves a setting as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionUpdate {
    /// New `FlushTimer`; 0 = unchanged.
    pub flush_timer: u32,
    /// New `MaximumBuffers`; 0 = unchanged.
    pub maximum_buffers: u32,
    /// Switch to this log file.
    pub log_file: Option<String>,
    /// Turn real-time delivery on or off.
    pub real_time: Option<bool>,
    /// New `EnableFlags` (system loggers only; 0 disables all kernel groups).
    pub enable_flags: Option<u32>,
}

/// Builds and starts a session: the Rust face of StartTrace.
///
/// The setters may come in any order: each adds its part, and [`SessionBuilder::start`]
/// computes the final `LogFileMode` from all of them —
///
/// * [`mode`](SessionBuilder::mode) adds its bits (calling it twice adds both);
/// * [`log_file`](SessionBuilder::log_file) names the file, and adds SEQUENTIAL when no file
///   layout (SEQUENTIAL, CIRCULAR, NEWFILE) was chosen (the mode-0 file of SES-31 is made
///   with a [`SessionConfig`] and [`Kernel::start_trace`]);
/// * [`real_time`](SessionBuilder::real_time) adds REAL_TIME, [`buffering`](SessionBuilder::buffering)
///   BUFFERING;
/// * with none of these, the session is REAL_TIME.
///
/// Combinations StartTrace refuses are refused by `start()` with its code (SES-23: for
/// example `buffering()` with `log_file(..)` or `real_time()` is ERROR_INVALID_PARAMETER).
///
/// Buffer settings are adjusted as StartTrace adjusts them (SES-57…SES-60): BufferSize 0
/// becomes 64 KB, MinimumBuffers is raised to 2 per CPU, MaximumBuffers to at least
/// MinimumBuffers (+20 when it is 0) — `maximum_buffers(2)` on a 4-CPU kernel becomes 8 —
/// and [`Session::query`] shows the values in force, not the ones asked for.
#[must_use = "a SessionBuilder does nothing until start() is called"]
pub struct SessionBuilder {
    pub(crate) kernel: Kernel,
    pub(crate) caller: Option<Process>,
    pub(crate) config: SessionConfig,
    pub(crate) sink: Option<Box<dyn Sink>>,
    /// The bits `mode(..)` added, if it was called.
    pub(crate) mode: Option<LogFileMode>,
    pub(crate) real_time: bool,
    pub(crate) buffering: bool,
}

impl std::fmt::Debug for SessionBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionBuilder")
            .field("caller", &self.caller)
            .field("config", &self.config())
            .field("sink", &self.sink.is_some())
            .finish_non_exhaustive()
    }
}

impl SessionBuilder {
    /// The GUID (`Wnode.Guid`).
    pub fn guid(mut self, guid: Guid) -> Self {
        self.config.guid = guid;
        self
    }
    /// Adds `LogFileMode` bits (see the type's docs for how the final mode is made).
    pub fn mode(mut self, mode: LogFileMode) -> Self {
        self.mode = Some(self.mode.unwrap_or_else(LogFileMode::empty) | mode);
        self
    }
    /// A log file (SEQUENTIAL unless a file layout is chosen).
    pub fn log_file(mut self, path: &str) -> Self {
        self.config.log_file = Some(path.into());
        self
    }
    /// Adds REAL_TIME.
    pub fn real_time(mut self) -> Self {
        self.real_time = true;
        self
    }
    /// Adds BUFFERING (an in-memory ring; StartTrace refuses it with a file or real time).
    pub fn buffering(mut self) -> Self {
        self.buffering = true;
        self
    }
    /// `BufferSize` in KB.
    pub fn buffer_size_kb(mut self, kb: u32) -> Self {
        self.config.buffer_size_kb = kb;
        self
    }
    /// `MinimumBuffers`.
    pub fn minimum_buffers(mut self, n: u32) -> Self {
        self.config.minimum_buffers = n;
        self
    }
    /// `MaximumBuffers`.
    pub fn maximum_buffers(mut self, n: u32) -> Self {
        self.config.maximum_buffers = n;
        self
    }
    /// `MaximumFileSize`.
    pub fn maximum_file_size(mut self, n: u32) -> Self {
        self.config.maximum_file_size = n;
        self
    }
    /// `FlushTimer` in seconds.
    pub fn flush_timer(mut self, seconds: u32) -> Self {
        self.config.flush_timer = seconds;
        self
    }
    /// The clock type.
    pub fn clock(mut self, clock: ClockType) -> Self {
        self.config.clock = clock.raw();
        self
    }
    /// `EnableFlags` (system loggers).
    pub fn enable_flags(mut self, flags: u32) -> Self {
        self.config.enable_flags = flags;
        self
    }
    /// Start it as `process` instead of the kernel's System process.
    pub fn caller(mut self, process: &Process) -> Self {
        self.caller = Some(process.clone());
        self
    }
    /// The configuration StartTrace will get: the settings so far, with the `LogFileMode`
    /// their parts make (before StartTrace's own adjustments).
    pub fn config(&self) -> SessionConfig {
        let mut mode = self.mode.unwrap_or_else(LogFileMode::empty);
        if self.real_time {
            mode |= LogFileMode::REAL_TIME;
        }
        if self.buffering {
            mode |= LogFileMode::BUFFERING;
        }
        if self.config.log_file.is_some() && !mode.intersects(LogFileMode::FILE_LAYOUT) {
            mode |= LogFileMode::SEQUENTIAL;
        }
        if self.mode.is_none()
            && !self.real_time
            && !self.buffering
            && self.config.log_file.is_none()
        {
            mode = LogFileMode::REAL_TIME; // nothing chosen: a real-time session
        }
        SessionConfig {
            mode,
            ..self.config.clone()
        }
    }
    /// StartTrace with the configuration [`SessionBuilder::config`] shows.
    ///
    /// # Errors
    /// As [`Kernel::start_trace`]; a combination of setters StartTrace refuses gets its code
    /// (SES-23). Nothing changes when an error is returned.
    pub fn start(self) -> Result<Session> {
        let config = self.config();
        let caller = self.caller.unwrap_or_else(|| self.kernel.system_process());
        self.kernel
            .start_trace_with_sink(&caller, &config, self.sink)
    }

    /// Writes flushed buffers to `sink` (for example a [`crate::MemorySink`] a test inspects)
    /// instead of the session's log file.
    pub fn sink(mut self, sink: impl Sink + 'static) -> Self {
        self.sink = Some(Box::new(sink));
        self
    }
}

/// A controller's handle to a running session. Control calls run as the process that
/// started it. Dropping the handle leaves the session running (SES-16).
#[derive(Clone, Debug)]
pub struct Session {
    pub(crate) kernel: Kernel,
    pub(crate) ctx: Arc<LoggerContext>,
    pub(crate) caller: Process,
}

impl Session {
    /// The session handle.
    pub fn handle(&self) -> TraceHandle {
        self.ctx.handle
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.ctx.cfg.name
    }
    /// The session GUID.
    pub fn guid(&self) -> Guid {
        self.ctx.cfg.guid
    }
    /// The logger id.
    pub fn logger_id(&self) -> u16 {
        self.ctx.logger_id()
    }
    /// `true` until it stops.
    pub fn is_running(&self) -> bool {
        self.ctx.is_running()
    }
    /// The kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }
    /// Full buffers waiting for the logger (deterministic mode: until the next step).
    pub fn pending_buffers(&self) -> usize {
        self.ctx.pool.ready_count()
    }

    /// Bytes of events still in the session's buffers, not yet written out (the in-use
    /// buffers' records, and whole buffers waiting for the logger). 0 after a STOP: the final
    /// flush leaves nothing behind, even with writers racing it.
    pub fn unflushed_bytes(&self) -> u64 {
        self.ctx.pool.unflushed_bytes()
    }

    /// Buffers in the real-time backing store, waiting for a consumer (BUF-12).
    pub fn realtime_backlog(&self) -> usize {
        self.ctx.rt.backlog_len()
    }

    /// Real-time consumers attached (CON-08).
    pub fn consumer_count(&self) -> usize {
        self.ctx.rt.consumer_count()
    }

    /// ControlTrace(QUERY).
    ///
    /// # Errors
    /// `ERROR_WMI_INSTANCE_NOT_FOUND` once the session has stopped.
    pub fn query(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Query,
            None,
        )
    }
    /// ControlTrace(UPDATE).
    ///
    /// # Errors
    /// As [`Kernel::control_trace`].
    pub fn update(&self, update: &SessionUpdate) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Update,
            Some(update),
        )
    }
    /// ControlTrace(FLUSH).
    ///
    /// # Errors
    /// As [`Kernel::control_trace`].
    pub fn flush(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Flush,
            None,
        )
    }
    /// ControlTrace(STOP): disables every provider it enabled (with callbacks, SES-80),
    /// flushes, and returns the final statistics.
    ///
    /// # Errors
    /// `ERROR_ACTIVE_CONNECTIONS` if a stop is already under way, `ERROR_WMI_INSTANCE_NOT_FOUND`
    /// once stopped.
    pub fn stop(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Stop,
            None,
        )
    }
    /// ControlTrace(INCREMENT_FILE).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` unless the session is NEWFILE.
    pub fn increment_file(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::IncrementFile,
            None,
        )
    }
    /// ControlTrace(CONVERT_TO_REALTIME).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` unless the session writes a file and is not real-time yet.
    pub fn convert_to_realtime(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::ConvertToRealtime,
            None,
        )
    }
}

/// How ControlTrace names its session (SES-73).
#[derive(Copy, Clone, Debug)]
pub enum Target<'a> {
    /// By handle (`InstanceName` NULL).
    Handle(TraceHandle),
    /// By name, case-insensitively; the handle is ignored.
    Name(&'a str),
}

impl std::fmt::Display for Target<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Handle(h) => write!(f, "handle {h}"),
            Target::Name(n) => write!(f, "{n:?}"),
        }
    }
}

impl State {
    pub(crate) fn running_loggers(&self) -> impl Iterator<Item = &Arc<LoggerContext>> {
        self.live
            .iter()
            .filter_map(|&id| self.loggers[usize::from(id)].as_ref())
            .chain(self.private_loggers.values())
    }

    /// The buffer memory the running sessions may grow to (each one's MaximumBuffers ×
    /// BufferSize), leaving out `except`: what a machine-wide limit is measured against.
    fn buffer_bytes_reserved(&self, except: Option<&Arc<LoggerContext>>) -> u64 {
        self.running_loggers()
            .filter(|l| except.is_none_or(|e| !Arc::ptr_eq(e, l)))
            .map(|l| {
                u64::from(l.live.lock().maximum_buffers) * u64::from(l.cfg.buffer_size_kb) * 1024
            })
            .sum()
    }

    /// Puts `ctx` in its logger slot `id` (kept in `live`, ascending).
    fn occupy(&mut self, id: u16, ctx: Arc<LoggerContext>) {
        self.loggers[usize::from(id)] = Some(ctx);
        if let Err(at) = self.live.binary_search(&id) {
            self.live.insert(at, id);
        }
    }

    /// Empties logger slot `id`.
    fn vacate(&mut self, id: u16) {
        self.loggers[usize::from(id)] = None;
        if let Ok(at) = self.live.binary_search(&id) {
            self.live.remove(at);
        }
    }

    fn find_by_name(&self, caller: u64, name: &str) -> Option<Arc<LoggerContext>> {
        let key = name_key(name);
        self.loggers
            .iter()
            .flatten()
            .find(|l| l.name_key == key)
            .or_else(|| {
                self.private_loggers
                    .values()
                    .find(|l| l.name_key == key && l.private_owner == Some(caller))
            })
            .cloned()
    }

    /// Resolves a ControlTrace / EnableTraceEx2 target (SES-73, SES-74).
    pub(crate) fn resolve(&self, caller: u64, target: Target<'_>) -> Result<Arc<LoggerContext>> {
        match target {
            Target::Name(name) => self.find_by_name(caller, name).ok_or_else(|| {
                Error::SessionNotFound(format!("no running session is named {name:?}"))
            }),
            Target::Handle(h) => {
                if h.0 == 0 {
                    return Err(Error::invalid(
                        "the session handle is 0 and no name is given",
                    ));
                }
                let found = self
                    .running_loggers()
                    .find(|l| l.handle == h)
                    .filter(|l| l.private_owner.is_none_or(|o| o == caller));
                if let Some(l) = found {
                    return Ok(l.clone());
                }
                if h.generation() >= 1 && h.generation() <= self.generation {
                    Err(Error::SessionNotFound(format!(
                        "session handle {h} belongs to a stopped session"
                    )))
                } else {
                    Err(Error::invalid(format!("{h} is not a session handle")))
                }
            }
        }
    }
}

fn check_control_access(
    s: &State,
    rec: &ProcessRecord,
    ctx: &LoggerContext,
    code: TraceControl,
) -> Result<()> {
    if ctx.private_owner.is_some() {
        return Ok(()); // resolve() already limited private sessions to their own process
    }
    if ctx.cfg.kernel_logger && !rec.token.may_control_kernel_logger() {
        return Err(Error::AccessDenied(format!(
            "{} may not control the NT Kernel Logger (administrators and LocalSystem only)",
            rec.token.user
        )));
    }
    if !rec.token.may_control_sessions() && s.descriptor_for(ctx.cfg.guid).is_none() {
        return Err(Error::AccessDenied(format!(
            "{} is not an administrator, a Performance Log User or a service account",
            rec.token.user
        )));
    }
    s.check_control_rights(&rec.token, ctx, code)
}

impl Kernel {
    /// A [`SessionBuilder`] for a real-time session named `name`, started as the System
    /// process unless [`SessionBuilder::caller`] says otherwise.
    pub fn session(&self, name: &str) -> SessionBuilder {
        SessionBuilder {
            kernel: self.clone(),
            caller: None,
            config: SessionConfig::new(name),
            sink: None,
            mode: None,
            real_time: false,
            buffering: false,
        }
    }

    /// StartTrace: validates `config`, checks access and limits, and starts the session.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER`, `ERROR_BAD_PATHNAME`, `ERROR_ALREADY_EXISTS`,
    /// `ERROR_NO_SYSTEM_RESOURCES`, `ERROR_ACCESS_DENIED`, `ERROR_DISK_FULL`, as the rules of
    /// SES 1.1–1.6 say. Nothing changes when an error is returned.
    pub fn start_trace(&self, caller: &Process, config: &SessionConfig) -> Result<Session> {
        self.start_trace_with_sink(caller, config, None)
    }

    /// StartTrace with the flushed buffers going to `sink` instead of the log file.
    ///
    /// # Errors
    /// As [`Kernel::start_trace`].
    pub fn start_trace_with_sink(
        &self,
        caller: &Process,
        config: &SessionConfig,
        sink: Option<Box<dyn Sink>>,
    ) -> Result<Session> {
        let r = self.start_trace_unjournaled(caller, config, sink, false);
        self.note_control(
            || "StartTrace".to_string(),
            || format!("{:?}", config.name),
            &r,
        );
        r
    }

    /// StartTrace of an AutoLogger session at boot: as [`Kernel::start_trace`], and
    /// EVENT_TRACE_NONSTOPPABLE_MODE is allowed (SES-37: AutoLoggers only).
    pub(crate) fn start_autologger(
        &self,
        caller: &Process,
        config: &SessionConfig,
    ) -> Result<Session> {
        let r = self.start_trace_unjournaled(caller, config, None, true);
        self.note_control(
            || "StartTrace (AutoLogger)".to_string(),
            || format!("{:?}", config.name),
            &r,
        );
        r
    }

    fn start_trace_unjournaled(
        &self,
        caller: &Process,
        config: &SessionConfig,
        sink: Option<Box<dyn Sink>>,
        autologger: bool,
    ) -> Result<Session> {
        self.check_thread()?;
        let eff = validate(config, self.cpu_count(), self.config(), autologger)?;
        let kernel = self.clone();
        let ctx = self.control(move |s: &mut State| {
            let rec = s.live_process(caller.start_key)?.clone();
            s.admit_session(&rec, eff, &kernel, sink)
                .map(|ctx| (ctx, Vec::new()))
        })?;
        // A system logger joins the kernel-event table and gets its DCStart rundown (SES-70).
        self.system_session_started(&ctx);
        if !self.is_deterministic() {
            let parker = crossbeam::sync::Parker::new();
            let unparker = parker.unparker().clone();
            match LoggerThread::spawn(ctx.clone(), parker) {
                Ok(t) => {
                    ctx.pool.set_waker(Box::new(move || unparker.unpark()));
                    *ctx.logger.lock() = Some(t);
                }
                Err(e) => {
                    let _ = self.stop_trace_as(caller, Target::Handle(ctx.handle), true);
                    return Err(Error::Other {
                        code: etwsim_types::Win32Error::ERROR_NO_SYSTEM_RESOURCES,
                        context: format!("the logger thread could not start: {e}"),
                    });
                }
            }
        }
        self.notify_session(SessionNotification::SessionStarted, &ctx.properties(), 0);
        Ok(Session {
            kernel: self.clone(),
            ctx,
            caller: caller.clone(),
        })
    }

    /// ControlTrace: QUERY, UPDATE (with `update`), FLUSH, STOP, INCREMENT_FILE or
    /// CONVERT_TO_REALTIME on the session `target` names, as `caller`.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for a zero or unknown handle, `ERROR_WMI_INSTANCE_NOT_FOUND`
    /// for a name that is not running or a stopped session's handle, `ERROR_ACCESS_DENIED`,
    /// `ERROR_ACTIVE_CONNECTIONS` for a second STOP, `ERROR_BAD_PATHNAME` for an UPDATE to a
    /// file in use.
    pub fn control_trace(
        &self,
        caller: &Process,
        target: Target<'_>,
        code: TraceControl,
        update: Option<&SessionUpdate>,
    ) -> Result<SessionProperties> {
        let r = self.control_trace_unjournaled(caller, target, code, update);
        self.note_control(
            || format!("ControlTrace({})", code.name()),
            || target.to_string(),
            &r,
        );
        r
    }

    fn control_trace_unjournaled(
        &self,
        caller: &Process,
        target: Target<'_>,
        code: TraceControl,
        update: Option<&SessionUpdate>,
    ) -> Result<SessionProperties> {
        if code != TraceControl::Query {
            self.check_thread()?; // a single-threaded kernel's buffers are its thread's
        }
        if code == TraceControl::Stop {
            return self.stop_trace(caller, target);
        }
        let props = self.control(|s: &mut State| {
            let rec = s.live_process(caller.start_key)?.clone();
            let ctx = s.resolve(caller.start_key, target)?;
            check_control_access(s, &rec, &ctx, code)?;
            if !ctx.is_running() && code != TraceControl::Query {
                return Err(Error::StopInProgress { name: ctx.cfg.name.clone() });
            }
            match code {
                TraceControl::Query => {}
                TraceControl::Flush => ctx.flush_now(FlushReason::Control(code)), // a full file is reaped below (SES-62)
                TraceControl::Update => {
                    s.update_session(&ctx, update.cloned().unwrap_or_default(), self)?;
                    self.system_flags_updated(&ctx); // SES-77: new EnableFlags take effect
                }
                TraceControl::IncrementFile => {
                    if !ctx.live.lock().mode.contains(LogFileMode::NEWFILE) {
                        return Err(Error::invalid("INCREMENT_FILE needs a NEWFILE session"));
                    }
                    // SES-81: what is buffered goes to the current file, then the next begins.
                    ctx.flush_now(FlushReason::Control(code));
                    let counter = match ctx.sink.lock().as_mut() {
                        Some(sink) if ctx.writes_file.load(Ordering::Acquire) => {
                            sink.increment_file().map_err(|e| Error::Other {
                                code: etwsim_types::Win32Error::ERROR_DISK_FULL,
                                context: format!("the next log file could not be started: {e}"),
                            })?
                        }
                        _ => ctx.live.lock().file_counter + 1,
                    };
                    ctx.live.lock().file_counter = counter;
                }
                TraceControl::ConvertToRealtime => {
                    let mut live = ctx.live.lock();
                    if live.log_file.is_none()
                        || live.mode.intersects(LogFileMode::REAL_TIME | LogFileMode::BUFFERING)
                        || ctx.private_owner.is_some()
                    {
                        return Err(Error::invalid(
                            "CONVERT_TO_REALTIME needs a non-private file session that is not real-time",
                        ));
                    }
                    live.mode = (live.mode - LogFileMode::FILE_LAYOUT - LogFileMode::PREALLOCATE)
                        | LogFileMode::REAL_TIME;
                    live.log_file = None;
                    drop(live);
                    // SES-81: ETL writing off, real-time delivery on, from the next buffer.
                    ctx.flush_now(FlushReason::Control(code));
                    ctx.realtime.store(true, Ordering::Release);
                    crate::machine::thread::invalidate_lanes(); // lanes keep `realtime`
                    if let Some(mut sink) = ctx.sink.lock().take() {
                        let _ = sink.close(&ctx.properties());
                    }
                }
                TraceControl::Stop => unreachable!("handled above"),
            }
            Ok((ctx.properties(), Vec::new()))
        })?;
        // Logger work a control call did may have filled a SEQUENTIAL file (SES-62).
        self.reap_full_sessions();
        let new_file = code == TraceControl::IncrementFile
            || (code == TraceControl::Update && update.is_some_and(|u| u.log_file.is_some()));
        if new_file {
            self.notify_session(SessionNotification::MediaChanged, &props, 0);
        }
        Ok(props)
    }

    /// ControlTrace(STOP) in two phases: mark the session stopping and disable its providers
    /// (the callbacks run with the session still listed, so a second STOP from a callback
    /// sees `ERROR_ACTIVE_CONNECTIONS`), then remove it and return the final statistics.
    pub(crate) fn stop_trace(
        &self,
        caller: &Process,
        target: Target<'_>,
    ) -> Result<SessionProperties> {
        self.stop_trace_as(caller, target, false)
    }

    /// ControlTrace(STOP); `shutdown`: the machine is shutting down, which stops even a
    /// NONSTOPPABLE AutoLogger session (SES-37).
    pub(crate) fn stop_trace_as(
        &self,
        caller: &Process,
        target: Target<'_>,
        shutdown: bool,
    ) -> Result<SessionProperties> {
        let ctx = self.control(|s: &mut State| {
            let rec = s.live_process(caller.start_key)?.clone();
            let ctx = s.resolve(caller.start_key, target)?;
            check_control_access(s, &rec, &ctx, TraceControl::Stop)?;
            if !shutdown && ctx.cfg.mode.contains(LogFileMode::NONSTOPPABLE) {
                // SES-37 says only that the session cannot be stopped; the code is a choice.
                return Err(Error::AccessDenied(format!(
                    "{} is an AutoLogger session in EVENT_TRACE_NONSTOPPABLE_MODE: it stops \
                     only when the machine shuts down",
                    ctx.cfg.name
                )));
            }
            if ctx
                .state
                .compare_exchange(RUNNING, STOPPING, Ordering::SeqCst, Ordering::Acquire)
                .is_err()
            {
                return Err(Error::StopInProgress {
                    name: ctx.cfg.name.clone(),
                });
            }
            // The single-threaded engine's lanes write only into running sessions.
            crate::machine::thread::invalidate_lanes();
            let pending = s.disable_everywhere(&ctx);
            Ok((ctx, pending))
        })?;
        // SES-70, KRN-32: a system logger's DCEnd and FileRundown events, before the flush.
        self.system_session_stopping(&ctx);
        // SES-79: the remaining buffered events are flushed as part of stopping — after every
        // write that saw the session running has finished (see `BufferPool::enter`).
        ctx.pool.wait_writers();
        if let Some(t) = ctx.logger.lock().take() {
            t.stop(); // returns at once when called from the logger thread itself (SES-62)
        }
        if !ctx.cfg.mode.contains(LogFileMode::BUFFERING) {
            ctx.flush_now(FlushReason::Stop);
        }
        let props = self.control(|s: &mut State| Ok((s.remove_session(&ctx), Vec::new())))?;
        if let Some(mut sink) = ctx.sink.lock().take() {
            // The statistics are final either way; a failure to finish the file shows in
            // the file itself (issue 4's writer reports it).
            let _ = sink.close(&props);
        }
        ctx.rt.notify();
        self.notify_session(SessionNotification::SessionTerminated, &props, 0);
        Ok(props)
    }

    /// QueryAllTraces as `caller`: the running non-private sessions the caller may query, in
    /// logger-id order (SES-82, SEC-10).
    pub fn query_all_traces(&self, caller: &Process) -> Vec<SessionProperties> {
        self.with_state(|s| {
            let Some(rec) = s.processes.get(&caller.start_key) else {
                return Vec::new();
            };
            // SES-82: only the sessions the caller may query (a Performance Log User, say,
            // does not see the NT Kernel Logger, which it may not control).
            s.loggers
                .iter()
                .flatten()
                .filter(|l| check_control_access(s, rec, l, TraceControl::Query).is_ok())
                .map(|l| l.properties())
                .collect()
        })
    }

    /// The running sessions, as the System process sees them (`xperf -Loggers`).
    pub fn sessions(&self) -> Vec<SessionProperties> {
        self.query_all_traces(&self.system_process())
    }
}

impl State {
    pub(crate) fn live_process(&self, key: u64) -> Result<&ProcessRecord> {
        match self.processes.get(&key) {
            Some(r) if !r.exited => Ok(r),
            Some(r) => Err(Error::invalid(format!("process {} has exited", r.pid))),
            None => Err(Error::invalid("unknown process")),
        }
    }

    /// Everything of StartTrace that depends on what is already running: access, names,
    /// GUIDs, limits, files, disk — then the logger slot.
    fn admit_session(
        &mut self,
        rec: &ProcessRecord,
        mut eff: Effective,
        kernel: &Kernel,
        sink: Option<Box<dyn Sink>>,
    ) -> Result<Arc<LoggerContext>> {
        if !eff.private {
            if eff.kernel_logger && !rec.token.may_control_kernel_logger() {
                return Err(Error::AccessDenied(format!(
                    "{} may not start the NT Kernel Logger (administrators and LocalSystem only)",
                    rec.token.user
                )));
            }
            if !rec.token.may_control_sessions() && self.descriptor_for(eff.guid).is_none() {
                return Err(Error::AccessDenied(format!(
                    "{} may not start sessions: not an administrator, a Performance Log User or a service account",
                    rec.token.user
                )));
            }
            self.check_start_rights(&rec.token, eff.guid, eff.mode, eff.log_file.is_some())?;
        }
        let key = name_key(&eff.name);
        let same_scope = |l: &&Arc<LoggerContext>| match (eff.private, l.private_owner) {
            (false, None) => true,
            (true, Some(o)) => o == rec.start_key,
            _ => false,
        };
        if self
            .running_loggers()
            .filter(same_scope)
            .any(|l| l.name_key == key)
        {
            return Err(Error::SessionNameInUse { name: eff.name });
        }
        if !eff.guid.is_null() {
            if let Some(l) = self
                .running_loggers()
                .filter(same_scope)
                .find(|l| l.cfg.guid == eff.guid)
            {
                return Err(Error::SessionGuidInUse {
                    guid: eff.guid,
                    name: l.cfg.name.clone(),
                });
            }
        }
        let in_proc = eff.mode.contains(LogFileMode::PRIVATE_IN_PROC);
        if in_proc {
            // SES-47: only the process that registered a provider GUID may start an
            // in-process logger with that GUID.
            let regs = self.guids.get(&eff.guid).map(|e| &e.regs);
            if regs
                .is_some_and(|r| !r.is_empty() && !r.iter().any(|r| r.process_key == rec.start_key))
            {
                return Err(Error::AccessDenied(format!(
                    "{} is registered by another process; only that process may start a PRIVATE_IN_PROC logger with it",
                    eff.guid
                )));
            }
        }
        if eff.private {
            let (count, limit) = if in_proc {
                (rec.private_in_proc_sessions, MAX_PRIVATE_IN_PROC_SESSIONS)
            } else {
                (rec.private_sessions, MAX_PRIVATE_SESSIONS)
            };
            if count >= limit {
                return Err(Error::LimitReached {
                    what: if in_proc {
                        "PRIVATE_IN_PROC sessions per process"
                    } else {
                        "private sessions per process"
                    },
                    limit,
                });
            }
        } else if self.live.len() >= self.max_loggers as usize {
            return Err(Error::LimitReached {
                what: "running sessions (EtwMaxLoggers)",
                limit: self.max_loggers,
            });
        }
        if let Some(limit) = kernel.config().max_machine_buffer_bytes {
            // The machine's buffer memory is finite: what is left after the running sessions'
            // MaximumBuffers bounds this one's, and its MinimumBuffers must fit.
            let size = u64::from(eff.buffer_size_kb) * 1024;
            let left = limit.saturating_sub(self.buffer_bytes_reserved(None));
            let fits = u32::try_from(left / size).unwrap_or(u32::MAX);
            if fits < eff.minimum_buffers {
                return Err(Error::Other {
                    code: etwsim_types::Win32Error::ERROR_NO_SYSTEM_RESOURCES,
                    context: format!(
                        "{} buffers of {} KB do not fit in the machine's buffer memory: {left} of {limit} bytes are left",
                        eff.minimum_buffers, eff.buffer_size_kb
                    ),
                });
            }
            eff.maximum_buffers = eff.maximum_buffers.min(fits);
        }
        let system_slot = if eff.system_logger {
            let slot = if eff.kernel_logger {
                Some(0)
            } else if eq_ignore_case(&eff.name, CKCL_NAME) {
                Some(1)
            } else {
                (2..MAX_SYSTEM_LOGGERS).find(|i| self.system_loggers[*i].is_none())
            };
            match slot {
                Some(i) if self.system_loggers[i].is_none() => Some(i),
                _ => {
                    return Err(Error::LimitReached {
                        what: "system loggers (slots 0 and 1 are reserved for the NT Kernel Logger and the CKCL)",
                        limit: MAX_SYSTEM_LOGGERS as u32,
                    });
                }
            }
        } else {
            None
        };
        if let (true, Some(path)) = (eff.private, &eff.log_file) {
            // SES-71: the first process writes the given name, each later one `<name>_<pid>`.
            let pk = name_key(path);
            if self
                .private_loggers
                .values()
                .any(|l| l.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()))
            {
                eff.log_file = Some(format!("{path}_{}", rec.pid));
            }
        }
        if let Some(path) = &eff.log_file {
            let pk = name_key(path);
            if let Some(l) = self
                .running_loggers()
                .find(|l| l.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()))
            {
                return Err(Error::BadPathname(format!(
                    "log file {path:?} is already used by session {:?}",
                    l.cfg.name
                )));
            }
            // SES-28: ETW creates no folders and expands no environment variables.
            let parent = std::path::Path::new(path)
                .parent()
                .filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent {
                if !dir.is_dir() {
                    return Err(Error::Other {
                        code: etwsim_types::Win32Error::ERROR_PATH_NOT_FOUND,
                        context: format!(
                            "the folder {} of log file {path:?} does not exist",
                            dir.display()
                        ),
                    });
                }
            }
            let needed =
                file_limit_bytes(eff.mode, eff.maximum_file_size).unwrap_or(UNLIMITED_FILE_RESERVE);
            if needed > self.disk_free {
                return Err(Error::DiskFull {
                    needed,
                    available: self.disk_free,
                });
            }
        }
        // The id, handle and logger thread this session will get; nothing is changed yet.
        let id = if eff.private {
            (0x200u16..=0xfffe)
                .find(|id| !self.private_loggers.contains_key(id))
                .expect("at most 8 private sessions per process fit in 65,000 ids")
        } else if eq_ignore_case(&eff.name, GLOBAL_LOGGER_NAME) && self.loggers[1].is_none() {
            WMI_GLOBAL_LOGGER_ID
        } else {
            (2..self.loggers.len())
                .find(|i| self.loggers[*i].is_none())
                .expect("the cap check leaves a free slot") as u16
        };
        let generation = self.generation + 1;
        let handle = TraceHandle((generation << 16) | u64::from(id));
        let logger_thread_id = self.peek_client_id();
        // StartTrace creates the log file: a path that cannot be written, or an APPEND to a file
        // of another shape, refuses the start with nothing changed (SES-28, SES-34).
        let clock = &kernel.inner.clock;
        let writes_file = sink.is_none() && eff.log_file.is_some();
        let sink: Option<Box<dyn Sink>> = match (sink, &eff.log_file) {
            (Some(s), _) => Some(s),
            (None, Some(path)) => {
                let start_raw = clock.raw(clock.peek(), eff.clock);
                let start = FileStart {
                    path: path.clone(),
                    logger_id: id,
                    logger_thread_id,
                    cpus: kernel.cpu_count(),
                    start_raw,
                    start_filetime: crate::machine::clock::raw_to_filetime(
                        start_raw,
                        eff.clock,
                        clock.boot_filetime(),
                    ),
                    boot_filetime: clock.boot_filetime(),
                };
                Some(Box::new(EtlFileSink::create(&eff, &start, kernel.disk())?))
            }
            (None, None) => None,
        };
        // All checks passed: from here on nothing can fail.
        if eff.guid.is_null() {
            loop {
                let g = self.rng.next_guid();
                if !self.running_loggers().any(|l| l.cfg.guid == g) {
                    eff.guid = g;
                    break;
                }
            }
        }
        self.generation = generation;
        let tid = self.next_client_id();
        debug_assert_eq!(tid, logger_thread_id);
        let ctx = Arc::new(LoggerContext {
            handle,
            name_key: key,
            private_owner: eff.private.then_some(rec.start_key),
            in_proc,
            system_slot,
            logger_thread_id,
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
            clock: kernel.inner.clock.clone(),
            journal: kernel.inner.journal.clone(),
            // BUF-01: the adjusted minimum is allocated at start, all free.
            pool: BufferPool::new(
                u64::from(eff.buffer_size_kb) * 1024,
                eff.minimum_buffers,
                eff.maximum_buffers,
                eff.buffer_cap,
                if eff.mode.contains(LogFileMode::NO_PER_PROCESSOR_BUFFERING) {
                    1
                } else {
                    usize::from(kernel.cpu_count())
                },
                eff.mode.contains(LogFileMode::BUFFERING),
            )
            .owned_by(kernel.inner.owner),
            sink: Mutex::new(sink),
            rt: RealTime::new(kernel.config().realtime_backlog_buffers as usize),
            realtime: AtomicBool::new(eff.mode.contains(LogFileMode::REAL_TIME)),
            sequence: AtomicU64::new(0),
            lost_at_last_buffer: AtomicU32::new(0),
            drain_lock: Mutex::new(Vec::new()),
            last_timer_flush: AtomicU64::new(kernel.inner.clock.peek()),
            drain_credit: AtomicU64::new(0),
            logger: Mutex::new(None),
            writes_file: AtomicBool::new(writes_file),
            stop_requested: AtomicBool::new(false),
            kernel: Arc::downgrade(&kernel.inner),
            cfg: eff,
        });
        if let Some(i) = system_slot {
            self.system_loggers[i] = Some(id);
        }
        if ctx.private_owner.is_some() {
            self.private_loggers.insert(id, ctx.clone());
            let p = self
                .processes
                .get_mut(&rec.start_key)
                .expect("caller checked above");
            if in_proc {
                p.private_in_proc_sessions += 1;
            } else {
                p.private_sessions += 1;
            }
        } else {
            self.occupy(id, ctx.clone());
        }
        Ok(ctx)
    }

    fn update_session(
        &mut self,
        ctx: &Arc<LoggerContext>,
        u: SessionUpdate,
        kernel: &Kernel,
    ) -> Result<()> {
        let private = ctx.private_owner.is_some();
        if let Some(path) = &u.log_file {
            if path.is_empty()
                || path.contains('\0')
                || path.encode_utf16().count() > MAX_NAME_CHARS
            {
                return Err(Error::BadPathname(format!(
                    "{path:?} is not a usable log file name"
                )));
            }
            // SES-28 holds for the file an UPDATE switches to as for StartTrace's.
            let parent = std::path::Path::new(path)
                .parent()
                .filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent.filter(|d| !d.is_dir()) {
                return Err(Error::Other {
                    code: etwsim_types::Win32Error::ERROR_PATH_NOT_FOUND,
                    context: format!(
                        "the folder {} of log file {path:?} does not exist",
                        dir.display()
                    ),
                });
            }
            let pk = name_key(path);
            if ctx.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()) {
                return Err(Error::invalid(format!(
                    "{path:?} is already this session's log file"
                )));
            }
            if let Some(l) = self
                .running_loggers()
                .filter(|l| !Arc::ptr_eq(l, ctx))
                .find(|l| l.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()))
            {
                return Err(Error::BadPathname(format!(
                    "log file {path:?} is already used by session {:?}",
                    l.cfg.name
                )));
            }
        }
        if let Some(path) = &u.log_file {
            self.switch_log_file(ctx, path, kernel)?;
        }
        // A machine-wide buffer limit leaves this session what the others do not reserve.
        let machine_cap = kernel.config().max_machine_buffer_bytes.map(|limit| {
            let left = limit.saturating_sub(self.buffer_bytes_reserved(Some(ctx)));
            let fits = left / (u64::from(ctx.cfg.buffer_size_kb) * 1024);
            u32::try_from(fits).unwrap_or(u32::MAX)
        });
        let mut live = ctx.live.lock();
        if u.flush_timer != 0 {
            live.flush_timer = u.flush_timer;
        }
        if let Some(path) = u.log_file {
            live.log_file = Some(path);
            if !live.mode.intersects(LogFileMode::FILE_LAYOUT)
                && !live.mode.contains(LogFileMode::BUFFERING)
            {
                live.mode |= LogFileMode::SEQUENTIAL;
            }
        }
        if private {
            return Ok(()); // SES-77: only the file and FlushTimer change for private sessions
        }
        if u.maximum_buffers != 0 && !live.mode.contains(LogFileMode::BUFFERING) {
            let cap = machine_cap.map_or(ctx.cfg.buffer_cap, |m| m.min(ctx.cfg.buffer_cap));
            live.maximum_buffers = u.maximum_buffers.min(cap).max(ctx.cfg.minimum_buffers);
            ctx.pool.set_max(live.maximum_buffers);
        }
        match u.real_time {
            Some(true) if !live.mode.contains(LogFileMode::BUFFERING) => {
                live.mode |= LogFileMode::REAL_TIME
            }
            Some(false) if live.log_file.is_some() => live.mode -= LogFileMode::REAL_TIME,
            _ => {}
        }
        if let (Some(flags), true) = (u.enable_flags, ctx.cfg.system_logger) {
            live.enable_flags = flags;
        }
        ctx.realtime.store(
            live.mode.contains(LogFileMode::REAL_TIME),
            Ordering::Release,
        );
        crate::machine::thread::invalidate_lanes(); // lanes keep `realtime`
        Ok(())
    }

    /// UPDATE to a new log file (SES-77): the new file is created first (a failure changes
    /// nothing); what is buffered goes to the old file, which is then finished; a BUFFERING
    /// session's ring is written to the new file. A session whose buffers go to a sink the
    /// caller gave keeps that sink: only the name changes.
    fn switch_log_file(&self, ctx: &Arc<LoggerContext>, path: &str, kernel: &Kernel) -> Result<()> {
        let had_sink = ctx.sink.lock().is_some();
        if had_sink && !ctx.writes_file.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut eff = ctx.cfg.clone();
        eff.mode = ctx.live.lock().mode;
        if !eff.mode.intersects(LogFileMode::FILE_LAYOUT)
            && !eff.mode.contains(LogFileMode::BUFFERING)
        {
            eff.mode |= LogFileMode::SEQUENTIAL;
        }
        let clock = &kernel.inner.clock;
        let start_raw = clock.raw(clock.peek(), eff.clock);
        let start = FileStart {
            path: path.to_owned(),
            logger_id: ctx.logger_id(),
            logger_thread_id: ctx.logger_thread_id,
            cpus: kernel.cpu_count(),
            start_raw,
            start_filetime: crate::machine::clock::raw_to_filetime(
                start_raw,
                eff.clock,
                clock.boot_filetime(),
            ),
            boot_filetime: clock.boot_filetime(),
        };
        let new: Box<dyn Sink> = Box::new(EtlFileSink::create(&eff, &start, kernel.disk())?);
        let buffering = eff.mode.contains(LogFileMode::BUFFERING);
        if !buffering {
            ctx.flush_now(FlushReason::Control(TraceControl::Update));
        }
        let old = ctx.sink.lock().replace(new);
        ctx.writes_file.store(true, Ordering::Release);
        if let Some(mut old) = old {
            let _ = old.close(&ctx.properties());
        }
        if buffering {
            ctx.flush_now(FlushReason::Control(TraceControl::Update));
        }
        Ok(())
    }

    fn remove_session(&mut self, ctx: &Arc<LoggerContext>) -> SessionProperties {
        ctx.state.store(STOPPED, Ordering::Release);
        let id = ctx.logger_id();
        if let Some(owner) = ctx.private_owner {
            self.private_loggers.remove(&id);
            if let Some(p) = self.processes.get_mut(&owner) {
                if ctx.in_proc {
                    p.private_in_proc_sessions -= 1;
                } else {
                    p.private_sessions -= 1;
                }
            }
        } else {
            self.vacate(id);
        }
        if let Some(i) = ctx.system_slot {
            self.system_loggers[i] = None;
        }
        ctx.properties()
    }
}
