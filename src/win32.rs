//! The Win32-shaped face: `StartTrace`, `ControlTrace`, `QueryAllTraces`, `EnableTraceEx2`,
//! `EventRegister`… with the documented parameter structures and numeric return codes, so a
//! reader of Microsoft's pages can follow along line by line and a Windows test can be
//! ported.
//!
//! It is a thin adapter: each function checks what only the C shape can get wrong (NULL
//! pointers, `Wnode.BufferSize`, string offsets, raw control codes), converts to the Rust API,
//! and converts the result back. Nothing here decides ETW behaviour.
//!
//! A [`Win32`] value is one simulated process's view of `advapi32` (and of `tdh.dll`'s payload
//! filter functions): calls run as that process (its token for access checks, its PID for
//! scope filters), and it owns the process's table of `REGHANDLE`s and of payload filters.
//!
//! Pointers are modelled with `Option`: `None` is NULL.

use etwsim_kernel::{
    EnableNotification, EnableParams, EventFilter, Kernel, Process, Provider, SessionConfig,
    SessionProperties, SessionUpdate, Target, TraceHandle,
};
use etwsim_types::{
    ControlCode, EnableProperty, EventDescriptor, FilterType, Guid, Keyword, Level, LogFileMode,
    TraceControl, Win32Error,
};

/// `ERROR_SUCCESS`.
pub const ERROR_SUCCESS: u32 = Win32Error::ERROR_SUCCESS.code();
pub use etwsim_types::win32_consts::{
    ENABLE_TRACE_PARAMETERS_VERSION, ENABLE_TRACE_PARAMETERS_VERSION_2, TRACE_GUID_QUERY_INFO,
    TRACE_GUID_QUERY_LIST, TRACE_GUID_QUERY_PROCESS, WNODE_FLAG_TRACED_GUID,
    WNODE_FLAG_VERSIONED_PROPERTIES,
};
/// `sizeof(EVENT_TRACE_PROPERTIES)` on x64.
pub const EVENT_TRACE_PROPERTIES_SIZE: u32 = 120;
/// `EVENT_TRACE_CONTROL_QUERY`.
pub const EVENT_TRACE_CONTROL_QUERY: u32 = TraceControl::Query as u32;
/// `EVENT_TRACE_CONTROL_STOP`.
pub const EVENT_TRACE_CONTROL_STOP: u32 = TraceControl::Stop as u32;
/// `EVENT_TRACE_CONTROL_UPDATE`.
pub const EVENT_TRACE_CONTROL_UPDATE: u32 = TraceControl::Update as u32;
/// `EVENT_TRACE_CONTROL_FLUSH`.
pub const EVENT_TRACE_CONTROL_FLUSH: u32 = TraceControl::Flush as u32;
/// `EVENT_TRACE_CONTROL_INCREMENT_FILE`.
pub const EVENT_TRACE_CONTROL_INCREMENT_FILE: u32 = TraceControl::IncrementFile as u32;
/// `EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME`.
pub const EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME: u32 = TraceControl::ConvertToRealtime as u32;
/// `EVENT_CONTROL_CODE_DISABLE_PROVIDER`.
pub const EVENT_CONTROL_CODE_DISABLE_PROVIDER: u32 = ControlCode::DisableProvider as u32;
/// `EVENT_CONTROL_CODE_ENABLE_PROVIDER`.
pub const EVENT_CONTROL_CODE_ENABLE_PROVIDER: u32 = ControlCode::EnableProvider as u32;
/// `EVENT_CONTROL_CODE_CAPTURE_STATE`.
pub const EVENT_CONTROL_CODE_CAPTURE_STATE: u32 = ControlCode::CaptureState as u32;
/// `INFINITE` timeout.
pub const INFINITE: u32 = 0xFFFF_FFFF;

// Constants a ported Windows test uses, as `evntrace.h` / `winerror.h` spell them. Each is
// the value etwsim-types defines (`LogFileMode`, `Level`, `Win32Error`), not a copy of it.

macro_rules! mode_consts {
    ($($(#[$doc:meta])* $name:ident = $flag:ident;)*) => {$(
        $(#[$doc])*
        pub const $name: u32 = LogFileMode::$flag.bits();
    )*};
}

mode_consts! {
    /// `EVENT_TRACE_FILE_MODE_NONE` (0).
    EVENT_TRACE_FILE_MODE_NONE = FILE_MODE_NONE;
    /// `EVENT_TRACE_FILE_MODE_SEQUENTIAL` (0x1).
    EVENT_TRACE_FILE_MODE_SEQUENTIAL = SEQUENTIAL;
    /// `EVENT_TRACE_FILE_MODE_CIRCULAR` (0x2).
    EVENT_TRACE_FILE_MODE_CIRCULAR = CIRCULAR;
    /// `EVENT_TRACE_FILE_MODE_APPEND` (0x4).
    EVENT_TRACE_FILE_MODE_APPEND = APPEND;
    /// `EVENT_TRACE_FILE_MODE_NEWFILE` (0x8).
    EVENT_TRACE_FILE_MODE_NEWFILE = NEWFILE;
    /// `EVENT_TRACE_FILE_MODE_PREALLOCATE` (0x20).
    EVENT_TRACE_FILE_MODE_PREALLOCATE = PREALLOCATE;
    /// `EVENT_TRACE_NONSTOPPABLE_MODE` (0x40).
    EVENT_TRACE_NONSTOPPABLE_MODE = NONSTOPPABLE;
    /// `EVENT_TRACE_SECURE_MODE` (0x80).
    EVENT_TRACE_SECURE_MODE = SECURE;
    /// `EVENT_TRACE_REAL_TIME_MODE` (0x100).
    EVENT_TRACE_REAL_TIME_MODE = REAL_TIME;
    /// `EVENT_TRACE_DELAY_OPEN_FILE_MODE` (0x200).
    EVENT_TRACE_DELAY_OPEN_FILE_MODE = DELAY_OPEN_FILE;
    /// `EVENT_TRACE_BUFFERING_MODE` (0x400).
    EVENT_TRACE_BUFFERING_MODE = BUFFERING;
    /// `EVENT_TRACE_PRIVATE_LOGGER_MODE` (0x800).
    EVENT_TRACE_PRIVATE_LOGGER_MODE = PRIVATE_LOGGER;
    /// `EVENT_TRACE_USE_KBYTES_FOR_SIZE` (0x2000).
    EVENT_TRACE_USE_KBYTES_FOR_SIZE = USE_KBYTES_FOR_SIZE;
    /// `EVENT_TRACE_USE_GLOBAL_SEQUENCE` (0x4000).
    EVENT_TRACE_USE_GLOBAL_SEQUENCE = USE_GLOBAL_SEQUENCE;
    /// `EVENT_TRACE_USE_LOCAL_SEQUENCE` (0x8000).
    EVENT_TRACE_USE_LOCAL_SEQUENCE = USE_LOCAL_SEQUENCE;
    /// `EVENT_TRACE_PRIVATE_IN_PROC` (0x20000).
    EVENT_TRACE_PRIVATE_IN_PROC = PRIVATE_IN_PROC;
    /// `EVENT_TRACE_SYSTEM_LOGGER_MODE` (0x2000000).
    EVENT_TRACE_SYSTEM_LOGGER_MODE = SYSTEM_LOGGER;
    /// `EVENT_TRACE_COMPRESSED_MODE` (0x4000000).
    EVENT_TRACE_COMPRESSED_MODE = COMPRESSED;
    /// `EVENT_TRACE_INDEPENDENT_SESSION_MODE` (0x8000000).
    EVENT_TRACE_INDEPENDENT_SESSION_MODE = INDEPENDENT_SESSION;
    /// `EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING` (0x10000000).
    EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING = NO_PER_PROCESSOR_BUFFERING;
}

/// `TRACE_LEVEL_NONE` (0): [`Level::LOG_ALWAYS`].
pub const TRACE_LEVEL_NONE: u8 = Level::LOG_ALWAYS.0;
/// `TRACE_LEVEL_CRITICAL` (1).
pub const TRACE_LEVEL_CRITICAL: u8 = Level::CRITICAL.0;
/// `TRACE_LEVEL_FATAL` (1), the older name of `TRACE_LEVEL_CRITICAL`.
pub const TRACE_LEVEL_FATAL: u8 = Level::CRITICAL.0;
/// `TRACE_LEVEL_ERROR` (2).
pub const TRACE_LEVEL_ERROR: u8 = Level::ERROR.0;
/// `TRACE_LEVEL_WARNING` (3).
pub const TRACE_LEVEL_WARNING: u8 = Level::WARNING.0;
/// `TRACE_LEVEL_INFORMATION` (4).
pub const TRACE_LEVEL_INFORMATION: u8 = Level::INFORMATION.0;
/// `TRACE_LEVEL_VERBOSE` (5).
pub const TRACE_LEVEL_VERBOSE: u8 = Level::VERBOSE.0;

macro_rules! error_consts {
    ($($name:ident)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: [`Win32Error::", stringify!($name), "`]'s code.")]
        pub const $name: u32 = Win32Error::$name.code();
    )*};
}

error_consts! {
    ERROR_INVALID_FUNCTION ERROR_PATH_NOT_FOUND ERROR_ACCESS_DENIED ERROR_INVALID_HANDLE
    ERROR_NOT_ENOUGH_MEMORY ERROR_OUTOFMEMORY ERROR_BAD_LENGTH ERROR_SHARING_VIOLATION
    ERROR_NOT_SUPPORTED ERROR_INVALID_PARAMETER ERROR_DISK_FULL ERROR_INSUFFICIENT_BUFFER
    ERROR_BAD_PATHNAME ERROR_BUSY ERROR_ALREADY_EXISTS ERROR_INVALID_FLAG_NUMBER ERROR_MORE_DATA
    ERROR_ARITHMETIC_OVERFLOW ERROR_NOACCESS ERROR_CANCELLED ERROR_INVALID_THREAD_ID
    ERROR_NO_SYSTEM_RESOURCES ERROR_TIMEOUT ERROR_LOG_FILE_FULL ERROR_INVALID_TIME
    ERROR_ACTIVE_CONNECTIONS ERROR_WMI_GUID_NOT_FOUND ERROR_WMI_INSTANCE_NOT_FOUND
    ERROR_CTX_CLOSE_PENDING
}

/// `WNODE_HEADER` (48 bytes on x64).
#[doc(alias = "WNODE_HEADER")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WnodeHeader {
    /// `BufferSize`: bytes of the whole properties block, strings included.
    pub buffer_size: u32,
    /// `ProviderId`.
    pub provider_id: u32,
    /// `HistoricalContext`: the session handle on output.
    pub historical_context: u64,
    /// `TimeStamp`.
    pub time_stamp: i64,
    /// `Guid`: the session GUID.
    pub guid: Guid,
    /// `ClientContext`: the clock type.
    pub client_context: u32,
    /// `Flags`.
    pub flags: u32,
}

/// `EVENT_TRACE_PROPERTIES` followed by the caller's string space.
///
/// `tail` models the bytes after the 120-byte structure, as UTF-16 units;
/// `LoggerNameOffset` and `LogFileNameOffset` are byte offsets from the start of the
/// structure, so the first tail unit is at offset 120.
#[doc(alias = "EVENT_TRACE_PROPERTIES")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventTraceProperties {
    /// `Wnode`.
    pub wnode: WnodeHeader,
    /// `BufferSize` (KB).
    pub buffer_size: u32,
    /// `MinimumBuffers`.
    pub minimum_buffers: u32,
    /// `MaximumBuffers`.
    pub maximum_buffers: u32,
    /// `MaximumFileSize`.
    pub maximum_file_size: u32,
    /// `LogFileMode`.
    pub log_file_mode: u32,
    /// `FlushTimer`.
    pub flush_timer: u32,
    /// `EnableFlags`.
    pub enable_flags: u32,
    /// `AgeLimit` / `FlushThreshold`: not used (SES-83).
    pub age_limit: i32,
    /// `NumberOfBuffers` (out).
    pub number_of_buffers: u32,
    /// `FreeBuffers` (out).
    pub free_buffers: u32,
    /// `EventsLost` (out).
    pub events_lost: u32,
    /// `BuffersWritten` (out).
    pub buffers_written: u32,
    /// `LogBuffersLost` (out).
    pub log_buffers_lost: u32,
    /// `RealTimeBuffersLost` (out).
    pub real_time_buffers_lost: u32,
    /// `LoggerThreadId` (out).
    pub logger_thread_id: u64,
    /// `LogFileNameOffset`.
    pub log_file_name_offset: u32,
    /// `LoggerNameOffset`.
    pub logger_name_offset: u32,
    /// The string space after the structure.
    pub tail: Vec<u16>,
}

impl EventTraceProperties {
    /// The allocation Microsoft's samples make: the structure, room for a 1,024-character
    /// session name, then room for a 1,024-character log file name (written if given).
    /// `Wnode.BufferSize`, both offsets and `WNODE_FLAG_TRACED_GUID` are set; clock 1 (QPC).
    pub fn alloc(log_file: Option<&str>) -> EventTraceProperties {
        let name_units = 1025u32;
        let mut p = EventTraceProperties {
            tail: vec![0; 2 * name_units as usize],
            ..EventTraceProperties::default()
        };
        p.wnode.buffer_size = EVENT_TRACE_PROPERTIES_SIZE + 4 * name_units;
        p.wnode.flags = WNODE_FLAG_TRACED_GUID;
        p.wnode.client_context = 1;
        p.logger_name_offset = EVENT_TRACE_PROPERTIES_SIZE;
        p.log_file_name_offset = EVENT_TRACE_PROPERTIES_SIZE + 2 * name_units;
        match log_file {
            Some(f) => {
                p.write_string(p.log_file_name_offset, f);
            }
            None => p.log_file_name_offset = 0,
        }
        p
    }

    /// Bytes the mirror really holds (structure + tail), saturating at `u32::MAX`.
    pub fn allocated_size(&self) -> u32 {
        let tail = u32::try_from(self.tail.len()).unwrap_or(u32::MAX);
        EVENT_TRACE_PROPERTIES_SIZE.saturating_add(tail.saturating_mul(2))
    }

    fn unit_index(&self, offset: u32) -> Option<usize> {
        let rel = offset.checked_sub(EVENT_TRACE_PROPERTIES_SIZE)?;
        (rel % 2 == 0).then_some(rel as usize / 2)
    }

    /// The NUL-terminated string at `offset`, if it lies in the tail and is terminated
    /// within `Wnode.BufferSize`.
    pub fn read_string(&self, offset: u32) -> Option<String> {
        self.read_string_checked(offset).ok()
    }

    /// As [`EventTraceProperties::read_string`], saying why not: `ERROR_BAD_LENGTH` when
    /// the string is not terminated within `Wnode.BufferSize` (the size does not cover it,
    /// SES-18, SES-75), `ERROR_INVALID_PARAMETER` for an offset outside the string space or
    /// units that are not UTF-16 (SES-20).
    fn read_string_checked(&self, offset: u32) -> Result<String, Win32Error> {
        let start = self
            .unit_index(offset)
            .ok_or(Win32Error::ERROR_INVALID_PARAMETER)?;
        let end = self
            .unit_index(self.wnode.buffer_size.min(self.allocated_size()) & !1)
            .ok_or(Win32Error::ERROR_BAD_LENGTH)?;
        let units = self
            .tail
            .get(start..end)
            .ok_or(Win32Error::ERROR_INVALID_PARAMETER)?;
        let len = units
            .iter()
            .position(|&u| u == 0)
            .ok_or(Win32Error::ERROR_BAD_LENGTH)?;
        String::from_utf16(&units[..len]).map_err(|_| Win32Error::ERROR_INVALID_PARAMETER)
    }

    /// Writes `s` and a NUL at `offset`; `false` (and nothing written) if it does not fit
    /// within `Wnode.BufferSize`.
    pub fn write_string(&mut self, offset: u32, s: &str) -> bool {
        let units: Vec<u16> = s.encode_utf16().chain(std::iter::once(0)).collect();
        let (Some(start), Some(end)) = (
            self.unit_index(offset),
            self.unit_index(self.wnode.buffer_size.min(self.allocated_size()) & !1),
        ) else {
            return false;
        };
        if start + units.len() > end {
            return false;
        }
        self.tail[start..start + units.len()].copy_from_slice(&units);
        true
    }

    /// The session name at `LoggerNameOffset`.
    pub fn logger_name(&self) -> Option<String> {
        (self.logger_name_offset != 0)
            .then(|| self.read_string(self.logger_name_offset))
            .flatten()
    }

    /// The log file name at `LogFileNameOffset`.
    pub fn log_file_name(&self) -> Option<String> {
        (self.log_file_name_offset != 0)
            .then(|| self.read_string(self.log_file_name_offset))
            .flatten()
    }

    /// `ERROR_BAD_LENGTH` / `ERROR_INVALID_PARAMETER` checks of the C shape (SES-18, SES-20).
    fn check_shape(&self) -> Result<(), Win32Error> {
        let size = self.wnode.buffer_size;
        if size < EVENT_TRACE_PROPERTIES_SIZE || size > self.allocated_size() {
            return Err(Win32Error::ERROR_BAD_LENGTH);
        }
        for off in [self.logger_name_offset, self.log_file_name_offset] {
            if off != 0 && (off < EVENT_TRACE_PROPERTIES_SIZE || off % 2 != 0 || off >= size) {
                return Err(Win32Error::ERROR_INVALID_PARAMETER);
            }
        }
        Ok(())
    }

    /// Writes the output fields; `false` if a name did not fit (→ ERROR_MORE_DATA).
    fn fill(&mut self, p: &SessionProperties) -> bool {
        self.wnode.historical_context = p.handle.0;
        self.wnode.guid = p.guid;
        self.wnode.client_context = p.clock.raw();
        self.buffer_size = p.buffer_size_kb;
        self.minimum_buffers = p.minimum_buffers;
        self.maximum_buffers = p.maximum_buffers;
        self.maximum_file_size = p.maximum_file_size;
        self.log_file_mode = p.log_file_mode.bits();
        self.flush_timer = p.flush_timer;
        self.enable_flags = p.enable_flags;
        self.number_of_buffers = p.number_of_buffers;
        self.free_buffers = p.free_buffers;
        self.events_lost = p.events_lost;
        self.buffers_written = p.buffers_written;
        self.log_buffers_lost = p.log_buffers_lost;
        self.real_time_buffers_lost = p.real_time_buffers_lost;
        self.logger_thread_id = u64::from(p.logger_thread_id);
        let mut all = true;
        if self.logger_name_offset != 0 {
            all &= self.write_string(self.logger_name_offset, &p.name);
        }
        if let (Some(file), true) = (&p.log_file, self.log_file_name_offset != 0) {
            all &= self.write_string(self.log_file_name_offset, file);
        }
        all
    }
}

/// `EVENT_FILTER_DESCRIPTOR`: `Ptr` (here the bytes it points at, `None` for NULL), `Size`,
/// `Type`.
#[doc(alias = "EVENT_FILTER_DESCRIPTOR")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilterDescriptor {
    /// What `Ptr` points at; `None` is a NULL pointer.
    pub ptr: Option<Vec<u8>>,
    /// `Size` in bytes.
    pub size: u32,
    /// `Type`, one of `EVENT_FILTER_TYPE_*`.
    pub filter_type: u32,
}

impl EventFilterDescriptor {
    /// The descriptor of a typed filter.
    pub fn from_filter(f: &EventFilter) -> EventFilterDescriptor {
        let data = f.to_bytes();
        EventFilterDescriptor {
            size: data.len() as u32,
            ptr: Some(data),
            filter_type: f.filter_type().0,
        }
    }

    fn to_filter(&self) -> Result<EventFilter, Win32Error> {
        let data = match &self.ptr {
            None if self.size == 0 => &[][..],
            None => return Err(Win32Error::ERROR_INVALID_PARAMETER),
            Some(d) => d
                .get(..self.size as usize)
                .ok_or(Win32Error::ERROR_INVALID_PARAMETER)?,
        };
        EventFilter::parse(FilterType(self.filter_type), data).map_err(|e| e.win32_code())
    }
}

/// `ENABLE_TRACE_PARAMETERS`.
#[doc(alias = "ENABLE_TRACE_PARAMETERS")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnableTraceParameters {
    /// `Version`: `ENABLE_TRACE_PARAMETERS_VERSION_2` (or 1, which carries at most one filter).
    pub version: u32,
    /// `EnableProperty`.
    pub enable_property: u32,
    /// `ControlFlags`: reserved, must be 0.
    pub control_flags: u32,
    /// `SourceId`.
    pub source_id: Guid,
    /// `EnableFilterDesc`; `None` is NULL.
    pub enable_filter_desc: Option<Vec<EventFilterDescriptor>>,
    /// `FilterDescCount`.
    pub filter_desc_count: u32,
}

impl EnableTraceParameters {
    /// Version 2 with these filters.
    pub fn v2(enable_property: EnableProperty, filters: &[EventFilter]) -> EnableTraceParameters {
        EnableTraceParameters {
            version: ENABLE_TRACE_PARAMETERS_VERSION_2,
            enable_property: enable_property.bits(),
            control_flags: 0,
            source_id: Guid::NULL,
            filter_desc_count: filters.len() as u32,
            enable_filter_desc: (!filters.is_empty()).then(|| {
                filters
                    .iter()
                    .map(EventFilterDescriptor::from_filter)
                    .collect()
            }),
        }
    }
}

/// `PENABLECALLBACK`: `(SourceId, IsEnabled, Level, MatchAnyKeyword, MatchAllKeyword,
/// FilterData, CallbackContext)`.
pub type PEnableCallback = fn(&Guid, u32, u8, u64, u64, Option<&EventFilterDescriptor>, usize);

mod consume;
mod events;
mod handles;
mod security;
mod tdh;

pub use consume::{
    BufferCallback, BufferStats, EventRecordCallback, EventTraceLogfile,
    INVALID_PROCESSTRACE_HANDLE, MAX_PROCESS_TRACE_HANDLES, PROCESS_TRACE_MODE_EVENT_RECORD,
    PROCESS_TRACE_MODE_RAW_TIMESTAMP, PROCESS_TRACE_MODE_REAL_TIME,
};
pub use events::{
    EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA, EVENT_DATA_DESCRIPTOR_TYPE_NONE,
    EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA, EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE,
    EventDataDescriptor,
};
pub use handles::MAX_REG_HANDLES;
pub use tdh::{
    PAYLOADFIELD_BETWEEN, PAYLOADFIELD_CONTAINS, PAYLOADFIELD_DOESNTCONTAIN, PAYLOADFIELD_EQ,
    PAYLOADFIELD_GE, PAYLOADFIELD_GT, PAYLOADFIELD_INVALID, PAYLOADFIELD_IS, PAYLOADFIELD_ISNOT,
    PAYLOADFIELD_LE, PAYLOADFIELD_LT, PAYLOADFIELD_MODULO, PAYLOADFIELD_NE,
    PAYLOADFIELD_NOTBETWEEN, PayloadFilterPredicate,
};

/// One simulated process's Win32 ETW API.
pub struct Win32 {
    process: Process,
    /// The process's REGHANDLE table.
    providers: handles::RegHandles,
    /// The process's processing handles (OpenTrace).
    traces: consume::Traces,
    /// The process's single payload filters (TdhCreatePayloadFilter).
    payload_filters: tdh::PayloadFilters,
    /// What GetLastError would return after a failed OpenTrace.
    last_error: std::sync::atomic::AtomicU32,
}

impl std::fmt::Debug for Win32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Win32")
            .field("process", &self.process)
            .finish_non_exhaustive()
    }
}

fn code<T>(r: etwsim_kernel::Result<T>) -> u32 {
    match r {
        Ok(_) => ERROR_SUCCESS,
        Err(e) => e.win32_code().code(),
    }
}

impl Win32 {
    /// The API as `process` calls it.
    pub fn new(process: &Process) -> Win32 {
        Win32 {
            process: process.clone(),
            providers: handles::RegHandles::default(),
            traces: consume::Traces::default(),
            payload_filters: tdh::PayloadFilters::default(),
            last_error: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// The calling process.
    pub fn process(&self) -> &Process {
        &self.process
    }

    fn kernel(&self) -> &Kernel {
        self.process.kernel()
    }

    /// `StartTraceW(TraceHandle, InstanceName, Properties)`.
    ///
    /// On success writes the handle, and the effective settings into `properties` (SES-30).
    /// On failure nothing is written and nothing changes.
    pub fn start_trace(
        &self,
        trace_handle: Option<&mut u64>,
        instance_name: Option<&str>,
        properties: Option<&mut EventTraceProperties>,
    ) -> u32 {
        let (Some(props), Some(handle_out), Some(name)) = (properties, trace_handle, instance_name)
        else {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // SES-17
        };
        if let Err(e) = props.check_shape() {
            return e.code();
        }
        if props.wnode.flags & WNODE_FLAG_TRACED_GUID == 0 {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // SES-22, the project's choice
        }
        let log_file = if props.log_file_name_offset != 0 {
            match props.read_string_checked(props.log_file_name_offset) {
                Ok(f) => Some(f),
                Err(e) => return e.code(), // SES-18, SES-20
            }
        } else {
            None
        };
        if props.logger_name_offset != 0 {
            // SES-19: StartTrace copies the name to LoggerNameOffset; it must fit there,
            // without running into the log file name (SES-21). Byte arithmetic in u64 so no
            // size can overflow.
            let start = u64::from(props.logger_name_offset);
            let f = u64::from(props.log_file_name_offset);
            let units = |s: &str| s.encode_utf16().count() as u64;
            // SES-21 (the project's choice): either order is accepted, but a log file name
            // that starts at or before the session name must end before it.
            if f != 0 && f <= start {
                let flen = 2 * (log_file.as_deref().map_or(0, units) + 1);
                if f + flen > start {
                    return Win32Error::ERROR_INVALID_PARAMETER.code();
                }
            }
            let need = 2 * (units(name) + 1);
            let limit = if f > start {
                f
            } else {
                u64::from(props.wnode.buffer_size)
            };
            if start + need > limit {
                return Win32Error::ERROR_BAD_LENGTH.code();
            }
        }
        let config = SessionConfig {
            name: name.to_owned(),
            guid: props.wnode.guid,
            clock: props.wnode.client_context,
            mode: LogFileMode::from_bits_retain(props.log_file_mode),
            log_file,
            buffer_size_kb: props.buffer_size,
            minimum_buffers: props.minimum_buffers,
            maximum_buffers: props.maximum_buffers,
            maximum_file_size: props.maximum_file_size,
            flush_timer: props.flush_timer,
            enable_flags: props.enable_flags,
        };
        match self
            .kernel()
            .start_trace(&self.process, &config)
            .and_then(|s| s.query())
        {
            Ok(p) => {
                *handle_out = p.handle.0;
                props.fill(&p);
                ERROR_SUCCESS
            }
            Err(e) => e.win32_code().code(),
        }
    }

    /// `ControlTraceW(TraceHandle, InstanceName, Properties, ControlCode)`.
    pub fn control_trace(
        &self,
        trace_handle: u64,
        instance_name: Option<&str>,
        properties: Option<&mut EventTraceProperties>,
        control_code: u32,
    ) -> u32 {
        let Some(props) = properties else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let Some(control) = TraceControl::from_raw(control_code) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // SES-72, the project's choice
        };
        if let Err(e) = props.check_shape() {
            return e.code();
        }
        if let Err(e) = SessionConfig::check_mode_combination(LogFileMode::from_bits_retain(
            props.log_file_mode,
        )) {
            return e.win32_code().code(); // SES-73: an invalid LogFileMode combination
        }
        if props.wnode.guid == Guid::SYSTEM_TRACE_CONTROL
            && instance_name
                .is_some_and(|n| !n.eq_ignore_ascii_case(etwsim_kernel::KERNEL_LOGGER_NAME))
        {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // SES-73
        }
        let target = match instance_name {
            Some(n) => Target::Name(n),
            None => Target::Handle(TraceHandle(trace_handle)),
        };
        // An UPDATE's new log file must be readable: terminated within Wnode.BufferSize
        // (else ERROR_BAD_LENGTH, SES-75) and UTF-16.
        let new_file = match (control, props.log_file_name_offset) {
            (TraceControl::Update, off) if off != 0 => match props.read_string_checked(off) {
                Ok(f) => Some(f).filter(|f| !f.is_empty()),
                Err(e) => return e.code(),
            },
            _ => None,
        };
        let update = (control == TraceControl::Update).then(|| {
            let mode = LogFileMode::from_bits_retain(props.log_file_mode);
            SessionUpdate {
                flush_timer: props.flush_timer,
                maximum_buffers: props.maximum_buffers,
                log_file: new_file,
                real_time: if props.log_file_mode == 0 {
                    Some(false)
                } else if mode.contains(LogFileMode::REAL_TIME) {
                    Some(true)
                } else {
                    None
                },
                enable_flags: Some(props.enable_flags),
            }
        });
        match self
            .kernel()
            .control_trace(&self.process, target, control, update.as_ref())
        {
            Ok(p) => {
                if props.fill(&p) {
                    ERROR_SUCCESS
                } else {
                    Win32Error::ERROR_MORE_DATA.code() // SES-75: informational
                }
            }
            Err(e) => e.win32_code().code(),
        }
    }

    /// `QueryAllTracesW(PropertyArray, PropertyArrayCount, LoggerCount)`: the slice length is
    /// PropertyArrayCount.
    pub fn query_all_traces(
        &self,
        property_array: Option<&mut [EventTraceProperties]>,
        logger_count: Option<&mut u32>,
    ) -> u32 {
        let (Some(array), Some(count)) = (property_array, logger_count) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let max = self.kernel().config().max_loggers.max(64) as usize;
        if array.is_empty() || array.len() > max {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // SES-82
        }
        if let Some(e) = array.iter().find_map(|p| p.check_shape().err()) {
            return e.code();
        }
        let sessions = self.kernel().query_all_traces(&self.process);
        *count = sessions.len() as u32;
        let mut all = sessions.len() <= array.len();
        for (slot, p) in array.iter_mut().zip(&sessions) {
            all &= slot.fill(p);
        }
        if all {
            ERROR_SUCCESS
        } else {
            Win32Error::ERROR_MORE_DATA.code()
        }
    }

    /// `EnableTraceEx2(TraceHandle, ProviderId, ControlCode, Level, MatchAnyKeyword,
    /// MatchAllKeyword, Timeout, EnableParameters)`.
    ///
    /// Callbacks always run before this returns, whatever `timeout` says (PRV-18, the
    /// project's choice: the simulator's callbacks are synchronous).
    #[allow(clippy::too_many_arguments)]
    pub fn enable_trace_ex2(
        &self,
        trace_handle: u64,
        provider_id: Option<&Guid>,
        control_code: u32,
        level: u8,
        match_any_keyword: u64,
        match_all_keyword: u64,
        timeout: u32,
        enable_parameters: Option<&EnableTraceParameters>,
    ) -> u32 {
        let _ = timeout;
        let Some(guid) = provider_id else {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // PRV-19
        };
        if trace_handle == 0 {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // PRV-19
        }
        let Some(code) = ControlCode::from_raw(control_code) else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let mut params = EnableParams::new()
            .level(Level(level))
            .any(match_any_keyword)
            .all(match_all_keyword);
        if let Some(p) = enable_parameters {
            match self.convert_params(p) {
                Ok((property, source_id, filters)) => {
                    params.enable_property = property;
                    params.source_id = source_id;
                    params.filters = filters;
                }
                Err(e) => return e.code(),
            }
        }
        code_of(self.kernel().enable_trace_ex2(
            &self.process,
            Target::Handle(TraceHandle(trace_handle)),
            *guid,
            code,
            &params,
        ))
    }

    fn convert_params(
        &self,
        p: &EnableTraceParameters,
    ) -> Result<(EnableProperty, Guid, Vec<EventFilter>), Win32Error> {
        let invalid = Win32Error::ERROR_INVALID_PARAMETER;
        if !matches!(
            p.version,
            ENABLE_TRACE_PARAMETERS_VERSION | ENABLE_TRACE_PARAMETERS_VERSION_2
        ) {
            return Err(invalid); // FLT-13
        }
        if p.control_flags != 0 {
            return Err(invalid); // FLT-13: reserved
        }
        let property = EnableProperty::from_bits(p.enable_property).ok_or(invalid)?;
        let count = if p.version == ENABLE_TRACE_PARAMETERS_VERSION {
            usize::from(p.enable_filter_desc.as_ref().is_some_and(|d| !d.is_empty()))
        } else {
            p.filter_desc_count as usize
        };
        let descs = match (&p.enable_filter_desc, count) {
            (_, 0) => &[][..],
            (None, _) => return Err(invalid),
            (Some(d), n) => d.get(..n).ok_or(invalid)?,
        };
        let filters = descs
            .iter()
            .map(EventFilterDescriptor::to_filter)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((property, p.source_id, filters))
    }

    /// `EnableTrace(Enable, EnableFlag, EnableLevel, ControlGuid, TraceHandle)` ≡
    /// EnableTraceEx2(handle, guid, Enable ? ENABLE : DISABLE, level, EnableFlag, 0, 0, NULL)
    /// (PRV-26).
    pub fn enable_trace(
        &self,
        enable: u32,
        enable_flag: u32,
        enable_level: u32,
        control_guid: Option<&Guid>,
        trace_handle: u64,
    ) -> u32 {
        let code = if enable != 0 {
            EVENT_CONTROL_CODE_ENABLE_PROVIDER
        } else {
            EVENT_CONTROL_CODE_DISABLE_PROVIDER
        };
        self.enable_trace_ex2(
            trace_handle,
            control_guid,
            code,
            enable_level.min(255) as u8,
            u64::from(enable_flag),
            0,
            0,
            None,
        )
    }

    /// `EnableTraceEx(ProviderId, SourceId, TraceHandle, IsEnabled, Level, MatchAnyKeyword,
    /// MatchAllKeyword, EnableProperty, EnableFilterDesc)` ≡ EnableTraceEx2 with an
    /// ENABLE_TRACE_PARAMETERS holding at most one filter (PRV-26).
    #[allow(clippy::too_many_arguments)]
    pub fn enable_trace_ex(
        &self,
        provider_id: Option<&Guid>,
        source_id: Option<&Guid>,
        trace_handle: u64,
        is_enabled: u32,
        level: u8,
        match_any_keyword: u64,
        match_all_keyword: u64,
        enable_property: u32,
        enable_filter_desc: Option<&EventFilterDescriptor>,
    ) -> u32 {
        let params = EnableTraceParameters {
            version: ENABLE_TRACE_PARAMETERS_VERSION_2,
            enable_property,
            control_flags: 0,
            source_id: source_id.copied().unwrap_or(Guid::NULL),
            filter_desc_count: u32::from(enable_filter_desc.is_some()),
            enable_filter_desc: enable_filter_desc.map(|d| vec![d.clone()]),
        };
        self.enable_trace_ex2(
            trace_handle,
            provider_id,
            is_enabled,
            level,
            match_any_keyword,
            match_all_keyword,
            0,
            Some(&params),
        )
    }

    /// `EventRegister(ProviderId, EnableCallback, CallbackContext, RegHandle)`. On failure
    /// `*reg_handle` is set to 0 (PRV-03).
    pub fn event_register(
        &self,
        provider_id: Option<&Guid>,
        enable_callback: Option<PEnableCallback>,
        callback_context: usize,
        reg_handle: Option<&mut u64>,
    ) -> u32 {
        let Some(out) = reg_handle else {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // PRV-02
        };
        let Some(guid) = provider_id else {
            *out = 0;
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // PRV-02
        };
        let result = match enable_callback {
            None => self.process.register_provider(*guid),
            Some(cb) => self.process.register_provider_with_callback(
                *guid,
                move |n: &EnableNotification| {
                    let desc = n.filter_data.as_ref().map(|d| EventFilterDescriptor {
                        size: d.len() as u32,
                        ptr: Some(d.clone()),
                        filter_type: FilterType::SCHEMATIZED.0,
                    });
                    cb(
                        &n.source_id,
                        n.is_enabled as u32,
                        n.level.0,
                        n.match_any_keyword.0,
                        n.match_all_keyword.0,
                        desc.as_ref(),
                        callback_context,
                    );
                },
            ),
        };
        match result {
            Ok(p) => match self.providers.insert(p) {
                Some(h) => {
                    *out = h;
                    ERROR_SUCCESS
                }
                None => {
                    *out = 0; // the table is used up (MAX_REG_HANDLES over this value's life)
                    Win32Error::ERROR_NO_SYSTEM_RESOURCES.code()
                }
            },
            Err(e) => {
                *out = 0;
                e.win32_code().code()
            }
        }
    }

    /// `EventUnregister(RegHandle)`: `ERROR_INVALID_HANDLE` for 0 or an unknown handle (PRV-03).
    pub fn event_unregister(&self, reg_handle: u64) -> u32 {
        match self.providers.get(reg_handle) {
            Some(p) => code(p.unregister_in_place()),
            None => Win32Error::ERROR_INVALID_HANDLE.code(),
        }
    }

    /// `EventEnabled(RegHandle, EventDescriptor)`: `false` for a NULL or unknown handle (PRV-30).
    pub fn event_enabled(&self, reg_handle: u64, event_descriptor: &EventDescriptor) -> bool {
        self.providers
            .get(reg_handle)
            .is_some_and(|p| p.event_enabled(event_descriptor))
    }

    /// `EventProviderEnabled(RegHandle, Level, Keyword)` (PRV-30).
    pub fn event_provider_enabled(&self, reg_handle: u64, level: u8, keyword: u64) -> bool {
        self.providers
            .get(reg_handle)
            .is_some_and(|p| p.is_enabled_for(Level(level), Keyword(keyword)))
    }

    /// The [`Provider`] behind a REGHANDLE, for mixing the two faces.
    pub fn with_provider<R>(&self, reg_handle: u64, f: impl FnOnce(&Provider) -> R) -> Option<R> {
        self.providers.get(reg_handle).map(f)
    }

    /// `EventSetInformation(RegHandle, InformationClass, EventInformation,
    /// InformationLength)` (PRV-33…PRV-35, EVT-12).
    ///
    /// EventProviderSetTraits (2) attaches the traits blob to every event and makes ETW honour
    /// data descriptors' `Type` byte; EventProviderUseDescriptorType (3, one BOOLEAN byte) turns
    /// that on or off alone; EventProviderBinaryTrackInfo (0) and EventProviderSetReserved1 (1)
    /// are accepted with no effect the simulation shows. As documented: a handle that is not a
    /// registered REGHANDLE, NULL information with a non-zero length, or a length wrong for
    /// the class is `ERROR_INVALID_PARAMETER`; a class that is not a recognised value is
    /// `ERROR_NOT_SUPPORTED`. `ERROR_NOACCESS` when `event_information` is shorter than the
    /// length claims.
    pub fn event_set_information(
        &self,
        reg_handle: u64,
        information_class: u32,
        event_information: Option<&[u8]>,
        information_length: u32,
    ) -> u32 {
        let invalid = Win32Error::ERROR_INVALID_PARAMETER.code();
        let Some(p) = self.providers.get(reg_handle) else {
            return invalid;
        };
        let data = match event_information {
            None if information_length == 0 => &[][..],
            None => return invalid,
            Some(d) => match d.get(..information_length as usize) {
                Some(d) => d,
                None => return Win32Error::ERROR_NOACCESS.code(),
            },
        };
        match p.set_information(information_class, data) {
            Ok(()) => ERROR_SUCCESS,
            // EventSetInformation documents ERROR_INVALID_PARAMETER for a bad handle.
            Err(etwsim_kernel::Error::InvalidRegHandle(_)) => invalid,
            Err(e) => e.win32_code().code(),
        }
    }

    /// `EnumerateTraceGuidsEx(TraceQueryInfoClass, InBuffer, InBufferSize, OutBuffer,
    /// OutBufferSize, ReturnLength)` (PRV-06, PRV-29), with the 64-bit layouts:
    ///
    /// * `TraceGuidQueryList` (0): every registered or enabled provider GUID, 16 bytes each;
    /// * `TraceGuidQueryInfo` (1), `InBuffer` = a GUID: a `TRACE_GUID_INFO` {InstanceCount,
    ///   Reserved}, then per instance a `TRACE_PROVIDER_INSTANCE_INFO` {NextOffset,
    ///   EnableCount, Pid, Flags} followed by its `TRACE_ENABLE_INFO`s {IsEnabled, Level,
    ///   Reserved1, LoggerId, EnableProperty, Reserved2, MatchAnyKeyword, MatchAllKeyword},
    ///   32 bytes each;
    /// * `TraceGuidQueryProcess` (2): the GUIDs this process registered.
    ///
    /// The buffer sizes are `out_buffer`'s length; `*return_length` gets the bytes written,
    /// or the bytes needed with `ERROR_INSUFFICIENT_BUFFER` (an empty buffer asks for the
    /// size). A GUID nobody registered or enabled is `ERROR_WMI_GUID_NOT_FOUND`; other
    /// classes, a missing or short `InBuffer`, or a NULL `ReturnLength` are
    /// `ERROR_INVALID_PARAMETER`.
    pub fn enumerate_trace_guids_ex(
        &self,
        trace_query_info_class: u32,
        in_buffer: Option<&[u8]>,
        out_buffer: Option<&mut [u8]>,
        return_length: Option<&mut u32>,
    ) -> u32 {
        let Some(return_length) = return_length else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        let bytes = match self.trace_guids(trace_query_info_class, in_buffer) {
            Ok(b) => b,
            Err(code) => return code,
        };
        *return_length = bytes.len() as u32;
        match out_buffer {
            Some(out) if out.len() >= bytes.len() => {
                out[..bytes.len()].copy_from_slice(&bytes);
                ERROR_SUCCESS
            }
            _ => Win32Error::ERROR_INSUFFICIENT_BUFFER.code(),
        }
    }
}

impl Win32 {
    /// What [`Win32::enumerate_trace_guids_ex`] returns for `trace_query_info_class` (0, 1
    /// or 2), as bytes, or the code that refuses the call — for faces that copy it out
    /// themselves (the C ABI).
    pub fn trace_guids(
        &self,
        trace_query_info_class: u32,
        in_buffer: Option<&[u8]>,
    ) -> Result<Vec<u8>, u32> {
        let invalid = Win32Error::ERROR_INVALID_PARAMETER.code();
        let kernel = self.process.kernel();
        let guid_list =
            |guids: Vec<Guid>| -> Vec<u8> { guids.iter().flat_map(|g| g.to_bytes_le()).collect() };
        Ok(match trace_query_info_class {
            TRACE_GUID_QUERY_LIST => guid_list(kernel.provider_guids()),
            TRACE_GUID_QUERY_PROCESS => {
                let pid = self.process.pid();
                guid_list(
                    kernel
                        .provider_guids()
                        .into_iter()
                        .filter(|g| {
                            kernel.trace_guid_info(*g).is_some_and(|i| {
                                i.instances.iter().any(|x| x.pid == pid && x.pid != 0)
                            })
                        })
                        .collect(),
                )
            }
            TRACE_GUID_QUERY_INFO => {
                let Some(raw) = in_buffer.and_then(|b| b.get(..16)) else {
                    return Err(invalid);
                };
                let guid = Guid::from_bytes_le(raw.try_into().expect("16 bytes"));
                match kernel.trace_guid_info(guid) {
                    Some(info) => encode_trace_guid_info(&info),
                    None => return Err(Win32Error::ERROR_WMI_GUID_NOT_FOUND.code()),
                }
            }
            _ => return Err(invalid),
        })
    }
}

/// A `TRACE_GUID_INFO` block as EnumerateTraceGuidsEx(TraceGuidQueryInfo) returns it.
fn encode_trace_guid_info(info: &etwsim_kernel::TraceGuidInfo) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(info.instances.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    for (n, inst) in info.instances.iter().enumerate() {
        let size = 16 + 32 * inst.enable_info.len();
        let next = if n + 1 < info.instances.len() {
            size
        } else {
            0
        };
        out.extend_from_slice(&(next as u32).to_le_bytes());
        out.extend_from_slice(&(inst.enable_info.len() as u32).to_le_bytes());
        out.extend_from_slice(&inst.pid.to_le_bytes());
        out.extend_from_slice(&inst.flags.to_le_bytes());
        for e in &inst.enable_info {
            out.extend_from_slice(&u32::from(e.is_enabled).to_le_bytes());
            out.push(e.level.0);
            out.push(0);
            out.extend_from_slice(&e.logger_id.to_le_bytes());
            out.extend_from_slice(&e.enable_property.bits().to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&e.match_any_keyword.0.to_le_bytes());
            out.extend_from_slice(&e.match_all_keyword.0.to_le_bytes());
        }
    }
    out
}

fn code_of(r: etwsim_kernel::Result<()>) -> u32 {
    code(r)
}
