//! Session modes, enable properties, clock types and control codes.

use crate::{Guid, Keyword, Level};
use bitflags::bitflags;

bitflags! {
    /// `LogFileMode` of `EVENT_TRACE_PROPERTIES`: where a session's events go and how
    /// (SES-31…SES-56). Every documented bit has a constant; [`LogFileMode::INTERNAL`] gathers
    /// the bits only the kernel sets.
    #[doc(alias = "EVENT_TRACE_FILE_MODE_SEQUENTIAL")]
    #[doc(alias = "LOGGING_MODE")]
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    pub struct LogFileMode: u32 {
        /// `EVENT_TRACE_FILE_MODE_SEQUENTIAL` 0x1: stop at MaximumFileSize (SES-32).
        const SEQUENTIAL = 0x0000_0001;
        /// `EVENT_TRACE_FILE_MODE_CIRCULAR` 0x2: overwrite the oldest data (SES-33).
        const CIRCULAR = 0x0000_0002;
        /// `EVENT_TRACE_FILE_MODE_APPEND` 0x4: append to an existing file (SES-34).
        const APPEND = 0x0000_0004;
        /// `EVENT_TRACE_FILE_MODE_NEWFILE` 0x8: a new numbered file at MaximumFileSize (SES-35).
        const NEWFILE = 0x0000_0008;
        /// `EVENT_TRACE_USE_MS_FLUSH_TIMER` 0x10: internal (SES-56).
        const USE_MS_FLUSH_TIMER = 0x0000_0010;
        /// `EVENT_TRACE_FILE_MODE_PREALLOCATE` 0x20: reserve the file up front (SES-36).
        const PREALLOCATE = 0x0000_0020;
        /// `EVENT_TRACE_NONSTOPPABLE_MODE` 0x40: AutoLogger only (SES-37).
        const NONSTOPPABLE = 0x0000_0040;
        /// `EVENT_TRACE_SECURE_MODE` 0x80: only TRACELOG_LOG_EVENT holders log (SES-38).
        const SECURE = 0x0000_0080;
        /// `EVENT_TRACE_REAL_TIME_MODE` 0x100: deliver to real-time consumers (SES-39).
        const REAL_TIME = 0x0000_0100;
        /// `EVENT_TRACE_DELAY_OPEN_FILE_MODE` 0x200: obsolete, ignored (SES-40).
        const DELAY_OPEN_FILE = 0x0000_0200;
        /// `EVENT_TRACE_BUFFERING_MODE` 0x400: in-memory ring only (SES-41).
        const BUFFERING = 0x0000_0400;
        /// `EVENT_TRACE_PRIVATE_LOGGER_MODE` 0x800: a session inside one process (SES-42).
        const PRIVATE_LOGGER = 0x0000_0800;
        /// `EVENT_TRACE_ADD_HEADER_MODE` 0x1000: obsolete, ignored (SES-43).
        const ADD_HEADER = 0x0000_1000;
        /// `EVENT_TRACE_USE_KBYTES_FOR_SIZE` 0x2000: MaximumFileSize in KB (SES-44).
        const USE_KBYTES_FOR_SIZE = 0x0000_2000;
        /// `EVENT_TRACE_USE_GLOBAL_SEQUENCE` 0x4000 (SES-45).
        const USE_GLOBAL_SEQUENCE = 0x0000_4000;
        /// `EVENT_TRACE_USE_LOCAL_SEQUENCE` 0x8000 (SES-45).
        const USE_LOCAL_SEQUENCE = 0x0000_8000;
        /// `EVENT_TRACE_RELOG_MODE` 0x10000: reserved for internal use (SES-46).
        const RELOG = 0x0001_0000;
        /// `EVENT_TRACE_PRIVATE_IN_PROC` 0x20000: with PRIVATE_LOGGER (SES-47).
        const PRIVATE_IN_PROC = 0x0002_0000;
        /// `EVENT_TRACE_BUFFER_INTERFACE_MODE` 0x40000: internal (SES-56).
        const BUFFER_INTERFACE = 0x0004_0000;
        /// `EVENT_TRACE_KD_FILTER_MODE` 0x80000: internal (SES-56).
        const KD_FILTER = 0x0008_0000;
        /// `EVENT_TRACE_MODE_RESERVED` 0x100000: heap/critical-section tracing (SES-48).
        const MODE_RESERVED = 0x0010_0000;
        /// `EVENT_TRACE_LOST_EVENTS_DEBUG_MODE` 0x200000: internal (SES-56).
        const LOST_EVENTS_DEBUG = 0x0020_0000;
        /// `EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN` 0x400000 (SES-49).
        const STOP_ON_HYBRID_SHUTDOWN = 0x0040_0000;
        /// `EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN` 0x800000 (SES-49).
        const PERSIST_ON_HYBRID_SHUTDOWN = 0x0080_0000;
        /// `EVENT_TRACE_USE_PAGED_MEMORY` 0x1000000 (SES-50).
        const USE_PAGED_MEMORY = 0x0100_0000;
        /// `EVENT_TRACE_SYSTEM_LOGGER_MODE` 0x2000000 (SES-51).
        const SYSTEM_LOGGER = 0x0200_0000;
        /// `EVENT_TRACE_COMPRESSED_MODE` 0x4000000 (SES-52).
        const COMPRESSED = 0x0400_0000;
        /// `EVENT_TRACE_INDEPENDENT_SESSION_MODE` 0x8000000 (SES-53).
        const INDEPENDENT_SESSION = 0x0800_0000;
        /// `EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING` 0x10000000 (SES-54).
        const NO_PER_PROCESSOR_BUFFERING = 0x1000_0000;
        /// `EVENT_TRACE_BLOCKING_MODE` 0x20000000: internal (SES-56).
        const BLOCKING = 0x2000_0000;
        /// `EVENT_TRACE_ADDTO_TRIAGE_DUMP` 0x80000000 (SES-55).
        const ADDTO_TRIAGE_DUMP = 0x8000_0000;
    }
}

/// The documented LogFileMode pairs that must not be combined (SES-23, SES-31…SES-55).
const CONFLICTS: [(LogFileMode, LogFileMode, &str); 14] = [
    (
        LogFileMode::SEQUENTIAL,
        LogFileMode::CIRCULAR,
        "SEQUENTIAL with CIRCULAR",
    ),
    (
        LogFileMode::SEQUENTIAL,
        LogFileMode::NEWFILE,
        "SEQUENTIAL with NEWFILE",
    ),
    (
        LogFileMode::CIRCULAR,
        LogFileMode::NEWFILE,
        "CIRCULAR with NEWFILE",
    ),
    (
        LogFileMode::CIRCULAR,
        LogFileMode::APPEND,
        "CIRCULAR with APPEND",
    ),
    (
        LogFileMode::NEWFILE,
        LogFileMode::APPEND,
        "NEWFILE with APPEND",
    ),
    (
        LogFileMode::APPEND,
        LogFileMode::REAL_TIME,
        "APPEND with REAL_TIME",
    ),
    (
        LogFileMode::APPEND,
        LogFileMode::PRIVATE_LOGGER,
        "APPEND with PRIVATE_LOGGER",
    ),
    (
        LogFileMode::REAL_TIME,
        LogFileMode::PRIVATE_LOGGER,
        "REAL_TIME with PRIVATE_LOGGER",
    ),
    (
        LogFileMode::PREALLOCATE,
        LogFileMode::PRIVATE_LOGGER,
        "PREALLOCATE with PRIVATE_LOGGER",
    ),
    (
        LogFileMode::PREALLOCATE,
        LogFileMode::NEWFILE,
        "PREALLOCATE with NEWFILE",
    ),
    (
        LogFileMode::PREALLOCATE,
        LogFileMode::APPEND,
        "PREALLOCATE with APPEND",
    ),
    (
        LogFileMode::USE_GLOBAL_SEQUENCE,
        LogFileMode::USE_LOCAL_SEQUENCE,
        "GLOBAL and LOCAL sequence",
    ),
    (
        LogFileMode::INDEPENDENT_SESSION,
        LogFileMode::PRIVATE_LOGGER,
        "INDEPENDENT_SESSION with PRIVATE_LOGGER",
    ),
    (
        LogFileMode::BUFFERING,
        LogFileMode::FILE_LAYOUT.union(LogFileMode::REAL_TIME),
        "BUFFERING with a file layout or REAL_TIME",
    ),
];

/// Why `m` is not a valid LogFileMode combination, if it is not: a documented do-not-combine
/// pair, or PRIVATE_IN_PROC without PRIVATE_LOGGER. StartTrace and ControlTrace both check it.
impl LogFileMode {
    /// The first documented "do not combine" rule this mode breaks, in words (SES-23,
    /// SES-31…SES-55): SEQUENTIAL with CIRCULAR, BUFFERING with a file layout, … — `None` for a
    /// valid combination. StartTrace, ControlTrace and the `.etl` writer all check with it.
    pub fn conflict(self) -> Option<&'static str> {
        let m = self;
        if let Some((_, _, why)) = CONFLICTS
            .iter()
            .find(|(a, b, _)| m.contains(*a) && m.intersects(*b))
        {
            return Some(why);
        }
        (m.contains(LogFileMode::PRIVATE_IN_PROC) && !m.contains(LogFileMode::PRIVATE_LOGGER))
            .then_some("PRIVATE_IN_PROC needs PRIVATE_LOGGER")
    }

    /// `EVENT_TRACE_FILE_MODE_NONE` 0: a sequential file with no size limit when a file is
    /// named (SES-31).
    pub const FILE_MODE_NONE: LogFileMode = LogFileMode::empty();

    /// The bits ntwmi.h marks as internal, which controllers must not set (SES-56).
    pub const INTERNAL: LogFileMode = LogFileMode::USE_MS_FLUSH_TIMER
        .union(LogFileMode::BUFFER_INTERFACE)
        .union(LogFileMode::KD_FILTER)
        .union(LogFileMode::LOST_EVENTS_DEBUG)
        .union(LogFileMode::BLOCKING);

    /// The bits that select a file layout.
    pub const FILE_LAYOUT: LogFileMode = LogFileMode::SEQUENTIAL
        .union(LogFileMode::CIRCULAR)
        .union(LogFileMode::APPEND)
        .union(LogFileMode::NEWFILE);
}

bitflags! {
    /// `EnableProperty` of `ENABLE_TRACE_PARAMETERS`: per-session extras for one provider
    /// (FLT-10, FLT-11).
    #[doc(alias = "EVENT_ENABLE_PROPERTY_SID")]
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    pub struct EnableProperty: u32 {
        /// `EVENT_ENABLE_PROPERTY_SID` 0x1: add the writer's SID.
        const SID = 0x001;
        /// `EVENT_ENABLE_PROPERTY_TS_ID` 0x2: add the terminal-session id.
        const TS_ID = 0x002;
        /// `EVENT_ENABLE_PROPERTY_STACK_TRACE` 0x4: add a stack trace.
        const STACK_TRACE = 0x004;
        /// `EVENT_ENABLE_PROPERTY_PSM_KEY` 0x8: header only, no documented effect.
        const PSM_KEY = 0x008;
        /// `EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0` 0x10: drop keyword-0 events (FLT-07).
        const IGNORE_KEYWORD_0 = 0x010;
        /// `EVENT_ENABLE_PROPERTY_PROVIDER_GROUP` 0x20: the GUID names a provider group (PRV-36).
        const PROVIDER_GROUP = 0x020;
        /// `EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0` 0x40: header only, no documented effect.
        const ENABLE_KEYWORD_0 = 0x040;
        /// `EVENT_ENABLE_PROPERTY_PROCESS_START_KEY` 0x80: add the process start key.
        const PROCESS_START_KEY = 0x080;
        /// `EVENT_ENABLE_PROPERTY_EVENT_KEY` 0x100: add the event key.
        const EVENT_KEY = 0x100;
        /// `EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE` 0x200: drop InPrivate events.
        const EXCLUDE_INPRIVATE = 0x200;
        /// `EVENT_ENABLE_PROPERTY_ENABLE_SILOS` 0x400: no documented effect.
        const ENABLE_SILOS = 0x400;
        /// `EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING` 0x800: no documented effect.
        const SOURCE_CONTAINER_TRACKING = 0x800;
    }
}

/// The clock a session stamps events with (`Wnode.ClientContext`, SES-64).
#[doc(alias = "ClientContext")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[repr(u32)]
pub enum ClockType {
    /// 1: QueryPerformanceCounter, the default.
    #[default]
    Qpc = 1,
    /// 2: system time (FILETIME units).
    SystemTime = 2,
    /// 3: CPU cycle counter.
    CpuCycle = 3,
}

impl ClockType {
    /// From `Wnode.ClientContext`: 0 is read as QPC (SES-64, the project's choice), 1–3 as
    /// documented; `None` for anything else.
    pub fn from_raw(value: u32) -> Option<ClockType> {
        match value {
            0 | 1 => Some(ClockType::Qpc),
            2 => Some(ClockType::SystemTime),
            3 => Some(ClockType::CpuCycle),
            _ => None,
        }
    }

    /// The raw value reported in `TRACE_LOGFILE_HEADER.ReservedFlags`.
    pub fn raw(self) -> u32 {
        self as u32
    }
}

/// `ControlTrace` control codes (SES-72).
#[doc(alias = "EVENT_TRACE_CONTROL_QUERY")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[repr(u32)]
pub enum TraceControl {
    /// 0, `EVENT_TRACE_CONTROL_QUERY`.
    Query = 0,
    /// 1, `EVENT_TRACE_CONTROL_STOP`.
    Stop = 1,
    /// 2, `EVENT_TRACE_CONTROL_UPDATE`.
    Update = 2,
    /// 3, `EVENT_TRACE_CONTROL_FLUSH`.
    Flush = 3,
    /// 4, `EVENT_TRACE_CONTROL_INCREMENT_FILE`.
    IncrementFile = 4,
    /// 5, `EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME`.
    ConvertToRealtime = 5,
}

impl TraceControl {
    /// The code's name without its `EVENT_TRACE_CONTROL_` prefix (`"STOP"`).
    pub fn name(self) -> &'static str {
        match self {
            TraceControl::Query => "QUERY",
            TraceControl::Stop => "STOP",
            TraceControl::Update => "UPDATE",
            TraceControl::Flush => "FLUSH",
            TraceControl::IncrementFile => "INCREMENT_FILE",
            TraceControl::ConvertToRealtime => "CONVERT_TO_REALTIME",
        }
    }

    /// From the raw code; `None` for undocumented values.
    pub fn from_raw(value: u32) -> Option<TraceControl> {
        Some(match value {
            0 => TraceControl::Query,
            1 => TraceControl::Stop,
            2 => TraceControl::Update,
            3 => TraceControl::Flush,
            4 => TraceControl::IncrementFile,
            5 => TraceControl::ConvertToRealtime,
            _ => return None,
        })
    }
}

/// `EVENT_CONTROL_CODE_*`: EnableTraceEx2's ControlCode and the callback's IsEnabled
/// (PRV-09, PRV-17).
#[doc(alias = "EVENT_CONTROL_CODE_ENABLE_PROVIDER")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[repr(u32)]
pub enum ControlCode {
    /// 0, `EVENT_CONTROL_CODE_DISABLE_PROVIDER`.
    DisableProvider = 0,
    /// 1, `EVENT_CONTROL_CODE_ENABLE_PROVIDER`.
    EnableProvider = 1,
    /// 2, `EVENT_CONTROL_CODE_CAPTURE_STATE`.
    CaptureState = 2,
}

impl ControlCode {
    /// The code's name without its `EVENT_CONTROL_CODE_` prefix (`"ENABLE_PROVIDER"`).
    pub fn name(self) -> &'static str {
        match self {
            ControlCode::DisableProvider => "DISABLE_PROVIDER",
            ControlCode::EnableProvider => "ENABLE_PROVIDER",
            ControlCode::CaptureState => "CAPTURE_STATE",
        }
    }

    /// From the raw code; `None` for undocumented values.
    pub fn from_raw(value: u32) -> Option<ControlCode> {
        Some(match value {
            0 => ControlCode::DisableProvider,
            1 => ControlCode::EnableProvider,
            2 => ControlCode::CaptureState,
            _ => return None,
        })
    }
}

/// `EVENT_FILTER_TYPE_*`: the `Type` of an `EVENT_FILTER_DESCRIPTOR` (FLT-14).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct FilterType(pub u32);

impl FilterType {
    /// `EVENT_FILTER_TYPE_NONE`.
    pub const NONE: FilterType = FilterType(0x0000_0000);
    /// `EVENT_FILTER_TYPE_SCHEMATIZED`: handed to the provider's callback (FLT-15).
    pub const SCHEMATIZED: FilterType = FilterType(0x8000_0000);
    /// `EVENT_FILTER_TYPE_SYSTEM_FLAGS`: internal.
    pub const SYSTEM_FLAGS: FilterType = FilterType(0x8000_0001);
    /// `EVENT_FILTER_TYPE_TRACEHANDLE`: a session handle for a rundown (FLT-24).
    pub const TRACEHANDLE: FilterType = FilterType(0x8000_0002);
    /// `EVENT_FILTER_TYPE_PID` (FLT-16).
    pub const PID: FilterType = FilterType(0x8000_0004);
    /// `EVENT_FILTER_TYPE_EXECUTABLE_NAME` (FLT-17).
    pub const EXECUTABLE_NAME: FilterType = FilterType(0x8000_0008);
    /// `EVENT_FILTER_TYPE_PACKAGE_ID` (FLT-17).
    pub const PACKAGE_ID: FilterType = FilterType(0x8000_0010);
    /// `EVENT_FILTER_TYPE_PACKAGE_APP_ID` (FLT-17).
    pub const PACKAGE_APP_ID: FilterType = FilterType(0x8000_0020);
    /// `EVENT_FILTER_TYPE_PAYLOAD` (FLT-18).
    pub const PAYLOAD: FilterType = FilterType(0x8000_0100);
    /// `EVENT_FILTER_TYPE_EVENT_ID` (FLT-19).
    pub const EVENT_ID: FilterType = FilterType(0x8000_0200);
    /// `EVENT_FILTER_TYPE_EVENT_NAME` (FLT-22).
    pub const EVENT_NAME: FilterType = FilterType(0x8000_0400);
    /// `EVENT_FILTER_TYPE_STACKWALK` (FLT-21).
    pub const STACKWALK: FilterType = FilterType(0x8000_1000);
    /// `EVENT_FILTER_TYPE_STACKWALK_NAME` (FLT-23).
    pub const STACKWALK_NAME: FilterType = FilterType(0x8000_2000);
    /// `EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW` (FLT-23).
    pub const STACKWALK_LEVEL_KW: FilterType = FilterType(0x8000_4000);

    /// Every documented type, in value order (FLT-14).
    pub const ALL: [FilterType; 14] = [
        FilterType::NONE,
        FilterType::SCHEMATIZED,
        FilterType::SYSTEM_FLAGS,
        FilterType::TRACEHANDLE,
        FilterType::PID,
        FilterType::EXECUTABLE_NAME,
        FilterType::PACKAGE_ID,
        FilterType::PACKAGE_APP_ID,
        FilterType::PAYLOAD,
        FilterType::EVENT_ID,
        FilterType::EVENT_NAME,
        FilterType::STACKWALK,
        FilterType::STACKWALK_NAME,
        FilterType::STACKWALK_LEVEL_KW,
    ];
}

/// `TRACE_ENABLE_INFO`: how one session enables one provider (PRV-29), as enumeration reports it.
#[doc(alias = "TRACE_ENABLE_INFO")]
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct EnableInfo {
    /// `IsEnabled` (always `true` in an enumeration).
    pub is_enabled: bool,
    /// `Level`.
    pub level: Level,
    /// `LoggerId`: the session.
    pub logger_id: u16,
    /// `EnableProperty`.
    pub enable_property: EnableProperty,
    /// `MatchAnyKeyword`.
    pub match_any_keyword: Keyword,
    /// `MatchAllKeyword`.
    pub match_all_keyword: Keyword,
    /// The SourceId the controller passed (not part of TRACE_ENABLE_INFO; kept for learners).
    pub source_id: Guid,
}
