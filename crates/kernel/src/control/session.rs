//! Sessions: `WMI_LOGGER_CONTEXT` as [`LoggerContext`], started by StartTrace and driven by
//! ControlTrace (SES-01…SES-83).
//!
//! [`SessionBuilder`] / [`SessionConfig`] mirror what a controller puts in
//! `EVENT_TRACE_PROPERTIES`; [`Kernel::start_trace`] validates it exactly as the rules of
//! SES 1.1–1.6 say, adjusts the buffer settings (SES-57…SES-60), checks limits and access,
//! and only then allocates a logger slot — so a rejected start changes nothing.
//! [`Session`] is the controller's handle; dropping it does not stop the session (SES-16).

use crate::data::context::Effective;
use crate::data::context::LoggerContext;
use crate::machine::ids::TraceHandle;
use crate::machine::ids::eq_ignore_case;
use crate::{Error, Result};
use etwsim_types::{ClockType, Guid, LogFileMode};
use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// [`Kernel::start_trace`](crate::Kernel::start_trace)'s checks, ControlTrace to the `LogFileMode` of the properties
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
pub(in crate::control) fn file_limit_bytes(mode: LogFileMode, max: u32) -> Option<u64> {
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
    kcfg: &crate::machine::config::KernelConfig,
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

/// The session table (`EtwpLoggerContext[]`): the non-private sessions by logger id, the
/// private ones, the system-logger slots, and what StartTrace counts.
pub(crate) struct SessionTable {
    /// Non-private sessions by logger id; index 0 unused, 1 is the Global Logger's.
    pub(in crate::control) loggers: Vec<Option<Arc<LoggerContext>>>,
    /// The ids of the occupied `loggers` slots, ascending: walking the running sessions (every
    /// logger step does) visits those, not every slot.
    pub(in crate::control) live: Vec<u16>,
    /// Private sessions by logger id.
    pub(in crate::control) private_loggers: BTreeMap<u16, Arc<LoggerContext>>,
    /// `EtwpSystemLogger[8]`: logger ids of the system loggers (SES-06, SES-07).
    pub(in crate::control) system_loggers: [Option<u16>; MAX_SYSTEM_LOGGERS],
    /// Sessions started so far; the high bits of every session handle.
    pub(in crate::control) generation: u64,
    pub(in crate::control) max_loggers: u32,
    pub(in crate::control) disk_free: u64,
}

impl SessionTable {
    /// The non-private sessions, by logger id (stopped ones leave their slot).
    pub(crate) fn shared(&self) -> impl Iterator<Item = &Arc<LoggerContext>> {
        self.loggers.iter().flatten()
    }

    /// Sessions started so far (the high bits of every handle).
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    pub(in crate::control) fn new(max_loggers: u32, disk_free: u64) -> SessionTable {
        SessionTable {
            loggers: vec![None; max_loggers as usize + 2],
            live: Vec::new(),
            private_loggers: BTreeMap::new(),
            system_loggers: [None; MAX_SYSTEM_LOGGERS],
            generation: 0,
            max_loggers,
            disk_free,
        }
    }
}

/// What StartTrace and UPDATE need of the kernel that runs the session: its data-plane core
/// (clock, journal, owner thread), its fixed parameters, its disk, and the kernel as the
/// session's owner (SES-62).
pub(crate) struct SessionEnv<'a> {
    /// The data plane's part: clock, journal, owner thread.
    pub(crate) core: &'a crate::data::core::DataCore,
    /// The machine's fixed parameters (CPUs, buffer caps, the real-time backlog).
    pub(crate) config: &'a crate::machine::config::KernelConfig,
    /// Where log files go.
    pub(crate) disk: &'a crate::machine::disk::Disk,
    /// Who stops a session whose file fills (SES-62).
    pub(crate) owner: std::sync::Weak<dyn crate::data::context::SessionOwner>,
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
