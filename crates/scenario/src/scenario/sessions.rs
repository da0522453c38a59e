//! The `[[session]]` tables: each session's `EVENT_TRACE_PROPERTIES` (mode, buffers, clock,
//! log file, kernel `enable_flags`) and the process that controls it.

use super::{Loader, ProcRef, ProcSpec, R};
use crate::file::SessionDef;
use crate::values::{FlagsValue, NameOrNumber, resolve_flags};
use etwsim::{ClockType, Guid, LogFileMode, event_trace_flag as flag};
use toml::Spanned;

#[derive(Debug)]
pub(crate) struct SessSpec {
    pub name: String,
    pub guid: Option<Guid>,
    pub log_file: Option<String>,
    pub mode: Option<LogFileMode>,
    pub real_time: bool,
    pub buffering: bool,
    pub buffer_size_kb: Option<u32>,
    pub minimum_buffers: Option<u32>,
    pub maximum_buffers: Option<u32>,
    pub maximum_file_size: Option<u32>,
    pub flush_timer: Option<u32>,
    pub clock: Option<ClockType>,
    pub enable_flags: Option<u32>,
    pub caller: ProcRef,
    pub memory_sink: bool,
}

impl SessSpec {
    /// Whether the session takes events on its own when others cannot (SES-53, EVT-10).
    pub(crate) fn independent(&self) -> bool {
        self.mode
            .is_some_and(|m| m.contains(LogFileMode::INDEPENDENT_SESSION))
    }
}

/// The `enable_flags` names: etwsim's `event_trace_flag` constants (EVENT_TRACE_FLAG_*).
pub(crate) fn enable_flag_names() -> Vec<(&'static str, u32)> {
    vec![
        ("PROCESS", flag::PROCESS),
        ("THREAD", flag::THREAD),
        ("IMAGE_LOAD", flag::IMAGE_LOAD),
        ("PROCESS_COUNTERS", flag::PROCESS_COUNTERS),
        ("CSWITCH", flag::CSWITCH),
        ("DPC", flag::DPC),
        ("INTERRUPT", flag::INTERRUPT),
        ("SYSTEMCALL", flag::SYSTEMCALL),
        ("DISK_IO", flag::DISK_IO),
        ("DISK_FILE_IO", flag::DISK_FILE_IO),
        ("DISK_IO_INIT", flag::DISK_IO_INIT),
        ("DISPATCHER", flag::DISPATCHER),
        ("MEMORY_PAGE_FAULTS", flag::MEMORY_PAGE_FAULTS),
        ("MEMORY_HARD_FAULTS", flag::MEMORY_HARD_FAULTS),
        ("VIRTUAL_ALLOC", flag::VIRTUAL_ALLOC),
        ("VAMAP", flag::VAMAP),
        ("NETWORK_TCPIP", flag::NETWORK_TCPIP),
        ("REGISTRY", flag::REGISTRY),
        ("DBGPRINT", flag::DBGPRINT),
        ("JOB", flag::JOB),
        ("ALPC", flag::ALPC),
        ("SPLIT_IO", flag::SPLIT_IO),
        ("DEBUG_EVENTS", flag::DEBUG_EVENTS),
        ("DRIVER", flag::DRIVER),
        ("PROFILE", flag::PROFILE),
        ("FILE_IO", flag::FILE_IO),
        ("FILE_IO_INIT", flag::FILE_IO_INIT),
        ("NO_SYSCONFIG", flag::NO_SYSCONFIG),
        ("ENABLE_RESERVE", flag::ENABLE_RESERVE),
        ("FORWARD_WMI", flag::FORWARD_WMI),
        ("EXTENSION", flag::EXTENSION),
    ]
}

/// The names `mode = [...]` accepts (etwsim's constant names).
pub(super) fn mode_names() -> Vec<(&'static str, u32)> {
    LogFileMode::all()
        .iter_names()
        .map(|(n, f)| (n, f.bits()))
        .collect()
}

impl Loader {
    pub(super) fn session(
        &self,
        i: usize,
        s: &Spanned<SessionDef>,
        processes: &[ProcSpec],
        before: &[SessSpec],
    ) -> R<(SessSpec, bool)> {
        let key = format!("session[{}]", i + 1);
        let d = s.get_ref();
        let name = d.name.get_ref().clone();
        if before.iter().any(|b| b.name.eq_ignore_ascii_case(&name)) {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a second session named {name:?} (session names are case-insensitive)"),
            ));
        }
        let mode = match &d.mode {
            None => None,
            Some(m) => Some(LogFileMode::from_bits_retain(
                resolve_flags(
                    m.get_ref(),
                    &mode_names(),
                    &["EVENT_TRACE_FILE_MODE_", "EVENT_TRACE_"],
                    &["_MODE"],
                )
                .map_err(|msg| self.err(&m.span(), format!("{key}.mode"), msg))?,
            )),
        };
        let clock = match &d.clock {
            None => None,
            Some(c) => Some(match c.get_ref() {
                NameOrNumber::Number(n) => u32::try_from(*n)
                    .ok()
                    .and_then(ClockType::from_raw)
                    .ok_or_else(|| {
                        self.err(
                            &c.span(),
                            format!("{key}.clock"),
                            format!(
                                "clock type {n}: use 1 (QPC), 2 (system time) or 3 (CPU cycle)"
                            ),
                        )
                    })?,
                NameOrNumber::Name(n) => {
                    match n.to_ascii_lowercase().replace(['-', ' '], "_").as_str() {
                        "qpc" => ClockType::Qpc,
                        "system_time" | "systemtime" => ClockType::SystemTime,
                        "cpu_cycle" | "cpucycle" => ClockType::CpuCycle,
                        other => {
                            return Err(self.err(
                                &c.span(),
                                format!("{key}.clock"),
                                format!(
                                    "unknown clock {other:?}: use qpc, system_time or cpu_cycle"
                                ),
                            ));
                        }
                    }
                }
            }),
        };
        let caller = match &d.caller {
            None => None,
            Some(c) => self.proc_ref(c, &format!("{key}.caller"), processes)?,
        };
        let log_file = d.log_file.as_ref().map(|f| f.get_ref().clone());
        let spec = SessSpec {
            memory_sink: d
                .memory_sink
                .unwrap_or(log_file.is_none() && d.buffering && !d.real_time),
            name,
            guid: d.guid.map(|g| g.0),
            log_file,
            mode,
            real_time: d.real_time,
            buffering: d.buffering,
            buffer_size_kb: d.buffer_size_kb,
            minimum_buffers: d.minimum_buffers,
            maximum_buffers: d.maximum_buffers,
            maximum_file_size: d.maximum_file_size,
            flush_timer: d.flush_timer,
            clock,
            enable_flags: d
                .enable_flags
                .as_ref()
                .map(|f| self.enable_flags(f, &format!("{key}.enable_flags")))
                .transpose()?,
            caller,
        };
        Ok((spec, d.autostart.unwrap_or(true)))
    }

    /// `enable_flags`: EVENT_TRACE_FLAG_* names (`"FILE_IO"`, `"EVENT_TRACE_FLAG_PROCESS"`) or
    /// numbers.
    pub(super) fn enable_flags(&self, f: &Spanned<FlagsValue>, key: &str) -> R<u32> {
        resolve_flags(
            f.get_ref(),
            &enable_flag_names(),
            &["EVENT_TRACE_FLAG_"],
            &[],
        )
        .map_err(|m| self.err(&f.span(), key, m))
    }
}
