// The constants of evntrace.h, evntprov.h, evntcons.h and wmistr.h, with Microsoft's names
// (`etwsim.h` repeats them for C). The rule: a Windows constant is written once. A value the
// engine also knows is taken from where etwsim defines it: etwsim-types (LogFileMode,
// EnableProperty, FilterType, TraceControl, ControlCode, Level, Opcode, the `record` module's
// header flags and extended-item types, `win32_consts` through the Win32 face), or the crate
// that implements it (the kernel's EnableFlags bits, filter limits, EventWrite flags, WMI
// request codes, ActivityControl, EventInfoClass). Only the values no other crate knows are
// literals here.
use etwsim::{
    ActivityControl, ControlCode, EnableProperty, EventInfoClass, FilterType, Level, LogFileMode,
    Opcode, TraceControl, event_trace_flag, record,
};

/// `ENABLE_TRACE_PARAMETERS_VERSION` (evntrace.h).
pub const ENABLE_TRACE_PARAMETERS_VERSION: u32 = etwsim::win32::ENABLE_TRACE_PARAMETERS_VERSION;
/// `ENABLE_TRACE_PARAMETERS_VERSION_2` (evntrace.h).
pub const ENABLE_TRACE_PARAMETERS_VERSION_2: u32 = etwsim::win32::ENABLE_TRACE_PARAMETERS_VERSION_2;
/// `EVENT_ACTIVITY_CTRL_CREATE_ID` (evntprov.h).
pub const EVENT_ACTIVITY_CTRL_CREATE_ID: u32 = ActivityControl::CreateId as u32;
/// `EVENT_ACTIVITY_CTRL_CREATE_SET_ID` (evntprov.h).
pub const EVENT_ACTIVITY_CTRL_CREATE_SET_ID: u32 = ActivityControl::CreateSetId as u32;
/// `EVENT_ACTIVITY_CTRL_GET_ID` (evntprov.h).
pub const EVENT_ACTIVITY_CTRL_GET_ID: u32 = ActivityControl::GetId as u32;
/// `EVENT_ACTIVITY_CTRL_GET_SET_ID` (evntprov.h).
pub const EVENT_ACTIVITY_CTRL_GET_SET_ID: u32 = ActivityControl::GetSetId as u32;
/// `EVENT_ACTIVITY_CTRL_SET_ID` (evntprov.h).
pub const EVENT_ACTIVITY_CTRL_SET_ID: u32 = ActivityControl::SetId as u32;
/// `EVENT_CONTROL_CODE_CAPTURE_STATE` (evntprov.h).
pub const EVENT_CONTROL_CODE_CAPTURE_STATE: ENABLECALLBACK_ENABLED_STATE =
    ControlCode::CaptureState as u32;
/// `EVENT_CONTROL_CODE_DISABLE_PROVIDER` (evntprov.h).
pub const EVENT_CONTROL_CODE_DISABLE_PROVIDER: ENABLECALLBACK_ENABLED_STATE =
    ControlCode::DisableProvider as u32;
/// `EVENT_CONTROL_CODE_ENABLE_PROVIDER` (evntprov.h).
pub const EVENT_CONTROL_CODE_ENABLE_PROVIDER: ENABLECALLBACK_ENABLED_STATE =
    ControlCode::EnableProvider as u32;
/// `EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA` (evntprov.h): a TraceLogging event's metadata.
pub const EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA: u32 =
    etwsim::win32::EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA as u32;
/// `EVENT_DATA_DESCRIPTOR_TYPE_NONE` (evntprov.h): event data.
pub const EVENT_DATA_DESCRIPTOR_TYPE_NONE: u32 =
    etwsim::win32::EVENT_DATA_DESCRIPTOR_TYPE_NONE as u32;
/// `EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA` (evntprov.h): provider traits.
pub const EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA: u32 =
    etwsim::win32::EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA as u32;
/// `EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE` (evntprov.h): the event's timestamp.
pub const EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE: u32 =
    etwsim::win32::EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE as u32;
/// `EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0: u32 = EnableProperty::ENABLE_KEYWORD_0.bits();
/// `EVENT_ENABLE_PROPERTY_ENABLE_SILOS` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_ENABLE_SILOS: u32 = EnableProperty::ENABLE_SILOS.bits();
/// `EVENT_ENABLE_PROPERTY_EVENT_KEY` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_EVENT_KEY: u32 = EnableProperty::EVENT_KEY.bits();
/// `EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE: u32 = EnableProperty::EXCLUDE_INPRIVATE.bits();
/// `EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0: u32 = EnableProperty::IGNORE_KEYWORD_0.bits();
/// `EVENT_ENABLE_PROPERTY_PROCESS_START_KEY` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_PROCESS_START_KEY: u32 = EnableProperty::PROCESS_START_KEY.bits();
/// `EVENT_ENABLE_PROPERTY_PROVIDER_GROUP` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_PROVIDER_GROUP: u32 = EnableProperty::PROVIDER_GROUP.bits();
/// `EVENT_ENABLE_PROPERTY_PSM_KEY` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_PSM_KEY: u32 = EnableProperty::PSM_KEY.bits();
/// `EVENT_ENABLE_PROPERTY_SID` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_SID: u32 = EnableProperty::SID.bits();
/// `EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING: u32 =
    EnableProperty::SOURCE_CONTAINER_TRACKING.bits();
/// `EVENT_ENABLE_PROPERTY_STACK_TRACE` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_STACK_TRACE: u32 = EnableProperty::STACK_TRACE.bits();
/// `EVENT_ENABLE_PROPERTY_TS_ID` (evntcons.h).
pub const EVENT_ENABLE_PROPERTY_TS_ID: u32 = EnableProperty::TS_ID.bits();
/// `EVENT_FILTER_TYPE_CONTAINER` (evntprov.h).
pub const EVENT_FILTER_TYPE_CONTAINER: u32 = 0x80008000;
/// `EVENT_FILTER_TYPE_EVENT_ID` (evntprov.h).
pub const EVENT_FILTER_TYPE_EVENT_ID: u32 = FilterType::EVENT_ID.0;
/// `EVENT_FILTER_TYPE_EVENT_NAME` (evntprov.h).
pub const EVENT_FILTER_TYPE_EVENT_NAME: u32 = FilterType::EVENT_NAME.0;
/// `EVENT_FILTER_TYPE_EXECUTABLE_NAME` (evntprov.h).
pub const EVENT_FILTER_TYPE_EXECUTABLE_NAME: u32 = FilterType::EXECUTABLE_NAME.0;
/// `EVENT_FILTER_TYPE_NONE` (evntprov.h).
pub const EVENT_FILTER_TYPE_NONE: u32 = FilterType::NONE.0;
/// `EVENT_FILTER_TYPE_PACKAGE_APP_ID` (evntprov.h).
pub const EVENT_FILTER_TYPE_PACKAGE_APP_ID: u32 = FilterType::PACKAGE_APP_ID.0;
/// `EVENT_FILTER_TYPE_PACKAGE_ID` (evntprov.h).
pub const EVENT_FILTER_TYPE_PACKAGE_ID: u32 = FilterType::PACKAGE_ID.0;
/// `EVENT_FILTER_TYPE_PAYLOAD` (evntprov.h).
pub const EVENT_FILTER_TYPE_PAYLOAD: u32 = FilterType::PAYLOAD.0;
/// `EVENT_FILTER_TYPE_PID` (evntprov.h).
pub const EVENT_FILTER_TYPE_PID: u32 = FilterType::PID.0;
/// `EVENT_FILTER_TYPE_SCHEMATIZED` (evntprov.h).
pub const EVENT_FILTER_TYPE_SCHEMATIZED: u32 = FilterType::SCHEMATIZED.0;
/// `EVENT_FILTER_TYPE_STACKWALK` (evntprov.h).
pub const EVENT_FILTER_TYPE_STACKWALK: u32 = FilterType::STACKWALK.0;
/// `EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW` (evntprov.h).
pub const EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW: u32 = FilterType::STACKWALK_LEVEL_KW.0;
/// `EVENT_FILTER_TYPE_STACKWALK_NAME` (evntprov.h).
pub const EVENT_FILTER_TYPE_STACKWALK_NAME: u32 = FilterType::STACKWALK_NAME.0;
/// `EVENT_FILTER_TYPE_SYSTEM_FLAGS` (evntprov.h).
pub const EVENT_FILTER_TYPE_SYSTEM_FLAGS: u32 = FilterType::SYSTEM_FLAGS.0;
/// `EVENT_FILTER_TYPE_TRACEHANDLE` (evntprov.h).
pub const EVENT_FILTER_TYPE_TRACEHANDLE: u32 = FilterType::TRACEHANDLE.0;
/// `EVENT_HEADER_EXT_TYPE_CONTAINER_ID` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_CONTAINER_ID: u32 = record::ext_type::CONTAINER_ID as u32;
/// `EVENT_HEADER_EXT_TYPE_CONTROL_GUID` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_CONTROL_GUID: u32 = record::ext_type::CONTROL_GUID as u32;
/// `EVENT_HEADER_EXT_TYPE_EVENT_KEY` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_EVENT_KEY: u32 = record::ext_type::EVENT_KEY as u32;
/// `EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL: u32 = record::ext_type::EVENT_SCHEMA_TL as u32;
/// `EVENT_HEADER_EXT_TYPE_INSTANCE_INFO` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_INSTANCE_INFO: u32 = record::ext_type::INSTANCE_INFO as u32;
/// `EVENT_HEADER_EXT_TYPE_MAX` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_MAX: u32 = 0x13;
/// `EVENT_HEADER_EXT_TYPE_PEBS_INDEX` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_PEBS_INDEX: u32 = record::ext_type::PEBS_INDEX as u32;
/// `EVENT_HEADER_EXT_TYPE_PMC_COUNTERS` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_PMC_COUNTERS: u32 = record::ext_type::PMC_COUNTERS as u32;
/// `EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY: u32 = record::ext_type::PROCESS_START_KEY as u32;
/// `EVENT_HEADER_EXT_TYPE_PROV_TRAITS` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_PROV_TRAITS: u32 = record::ext_type::PROV_TRAITS as u32;
/// `EVENT_HEADER_EXT_TYPE_PSM_KEY` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_PSM_KEY: u32 = record::ext_type::PSM_KEY as u32;
/// `EVENT_HEADER_EXT_TYPE_QPC_DELTA` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_QPC_DELTA: u32 = record::ext_type::QPC_DELTA as u32;
/// `EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID: u32 =
    record::ext_type::RELATED_ACTIVITYID as u32;
/// `EVENT_HEADER_EXT_TYPE_SID` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_SID: u32 = record::ext_type::SID as u32;
/// `EVENT_HEADER_EXT_TYPE_STACK_KEY32` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_STACK_KEY32: u32 = record::ext_type::STACK_KEY32 as u32;
/// `EVENT_HEADER_EXT_TYPE_STACK_KEY64` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_STACK_KEY64: u32 = record::ext_type::STACK_KEY64 as u32;
/// `EVENT_HEADER_EXT_TYPE_STACK_TRACE32` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_STACK_TRACE32: u32 = record::ext_type::STACK_TRACE32 as u32;
/// `EVENT_HEADER_EXT_TYPE_STACK_TRACE64` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_STACK_TRACE64: u32 = record::ext_type::STACK_TRACE64 as u32;
/// `EVENT_HEADER_EXT_TYPE_TS_ID` (evntcons.h).
pub const EVENT_HEADER_EXT_TYPE_TS_ID: u32 = record::ext_type::TS_ID as u32;
/// `EVENT_HEADER_FLAG_32_BIT_HEADER` (evntcons.h).
pub const EVENT_HEADER_FLAG_32_BIT_HEADER: u32 = record::header_flags::HEADER_32_BIT as u32;
/// `EVENT_HEADER_FLAG_64_BIT_HEADER` (evntcons.h).
pub const EVENT_HEADER_FLAG_64_BIT_HEADER: u32 = record::header_flags::HEADER_64_BIT as u32;
/// `EVENT_HEADER_FLAG_CLASSIC_HEADER` (evntcons.h).
pub const EVENT_HEADER_FLAG_CLASSIC_HEADER: u32 = record::header_flags::CLASSIC_HEADER as u32;
/// `EVENT_HEADER_FLAG_DECODE_GUID` (evntcons.h).
pub const EVENT_HEADER_FLAG_DECODE_GUID: u32 = record::header_flags::DECODE_GUID as u32;
/// `EVENT_HEADER_FLAG_EXTENDED_INFO` (evntcons.h).
pub const EVENT_HEADER_FLAG_EXTENDED_INFO: u32 = record::header_flags::EXTENDED_INFO as u32;
/// `EVENT_HEADER_FLAG_NO_CPUTIME` (evntcons.h).
pub const EVENT_HEADER_FLAG_NO_CPUTIME: u32 = record::header_flags::NO_CPUTIME as u32;
/// `EVENT_HEADER_FLAG_PRIVATE_SESSION` (evntcons.h).
pub const EVENT_HEADER_FLAG_PRIVATE_SESSION: u32 = record::header_flags::PRIVATE_SESSION as u32;
/// `EVENT_HEADER_FLAG_PROCESSOR_INDEX` (evntcons.h).
pub const EVENT_HEADER_FLAG_PROCESSOR_INDEX: u32 = record::header_flags::PROCESSOR_INDEX as u32;
/// `EVENT_HEADER_FLAG_STRING_ONLY` (evntcons.h).
pub const EVENT_HEADER_FLAG_STRING_ONLY: u32 = record::header_flags::STRING_ONLY as u32;
/// `EVENT_HEADER_FLAG_TRACE_MESSAGE` (evntcons.h).
pub const EVENT_HEADER_FLAG_TRACE_MESSAGE: u32 = record::header_flags::TRACE_MESSAGE as u32;
/// `EVENT_HEADER_PROPERTY_FORWARDED_XML` (evntcons.h).
pub const EVENT_HEADER_PROPERTY_FORWARDED_XML: u32 = 2;
/// `EVENT_HEADER_PROPERTY_LEGACY_EVENTLOG` (evntcons.h).
pub const EVENT_HEADER_PROPERTY_LEGACY_EVENTLOG: u32 = 4;
/// `EVENT_HEADER_PROPERTY_RELOGGABLE` (evntcons.h).
pub const EVENT_HEADER_PROPERTY_RELOGGABLE: u32 = 8;
/// `EVENT_HEADER_PROPERTY_XML` (evntcons.h).
pub const EVENT_HEADER_PROPERTY_XML: u32 = 1;
/// `EVENT_MAX_LEVEL` (evntprov.h).
pub const EVENT_MAX_LEVEL: u32 = Level::MAX.0 as u32;
/// `EVENT_MIN_LEVEL` (evntprov.h).
pub const EVENT_MIN_LEVEL: u32 = Level::MIN.0 as u32;
/// `EVENT_TRACE_ADDTO_TRIAGE_DUMP` (evntrace.h).
pub const EVENT_TRACE_ADDTO_TRIAGE_DUMP: u32 = LogFileMode::ADDTO_TRIAGE_DUMP.bits();
/// `EVENT_TRACE_ADD_HEADER_MODE` (evntrace.h).
pub const EVENT_TRACE_ADD_HEADER_MODE: u32 = LogFileMode::ADD_HEADER.bits();
/// `EVENT_TRACE_BUFFERING_MODE` (evntrace.h).
pub const EVENT_TRACE_BUFFERING_MODE: u32 = LogFileMode::BUFFERING.bits();
/// `EVENT_TRACE_COMPRESSED_MODE` (evntrace.h).
pub const EVENT_TRACE_COMPRESSED_MODE: u32 = LogFileMode::COMPRESSED.bits();
/// `EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME` (evntrace.h).
pub const EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME: u32 = TraceControl::ConvertToRealtime as u32;
/// `EVENT_TRACE_CONTROL_FLUSH` (evntrace.h).
pub const EVENT_TRACE_CONTROL_FLUSH: EVENT_TRACE_CONTROL = TraceControl::Flush as u32;
/// `EVENT_TRACE_CONTROL_INCREMENT_FILE` (evntrace.h).
pub const EVENT_TRACE_CONTROL_INCREMENT_FILE: u32 = TraceControl::IncrementFile as u32;
/// `EVENT_TRACE_CONTROL_QUERY` (evntrace.h).
pub const EVENT_TRACE_CONTROL_QUERY: EVENT_TRACE_CONTROL = TraceControl::Query as u32;
/// `EVENT_TRACE_CONTROL_STOP` (evntrace.h).
pub const EVENT_TRACE_CONTROL_STOP: EVENT_TRACE_CONTROL = TraceControl::Stop as u32;
/// `EVENT_TRACE_CONTROL_UPDATE` (evntrace.h).
pub const EVENT_TRACE_CONTROL_UPDATE: EVENT_TRACE_CONTROL = TraceControl::Update as u32;
/// `EVENT_TRACE_DELAY_OPEN_FILE_MODE` (evntrace.h).
pub const EVENT_TRACE_DELAY_OPEN_FILE_MODE: u32 = LogFileMode::DELAY_OPEN_FILE.bits();
/// `EVENT_TRACE_FILE_MODE_APPEND` (evntrace.h).
pub const EVENT_TRACE_FILE_MODE_APPEND: u32 = LogFileMode::APPEND.bits();
/// `EVENT_TRACE_FILE_MODE_CIRCULAR` (evntrace.h).
pub const EVENT_TRACE_FILE_MODE_CIRCULAR: u32 = LogFileMode::CIRCULAR.bits();
/// `EVENT_TRACE_FILE_MODE_NEWFILE` (evntrace.h).
pub const EVENT_TRACE_FILE_MODE_NEWFILE: u32 = LogFileMode::NEWFILE.bits();
/// `EVENT_TRACE_FILE_MODE_NONE` (evntrace.h).
pub const EVENT_TRACE_FILE_MODE_NONE: u32 = LogFileMode::FILE_MODE_NONE.bits();
/// `EVENT_TRACE_FILE_MODE_PREALLOCATE` (evntrace.h).
pub const EVENT_TRACE_FILE_MODE_PREALLOCATE: u32 = LogFileMode::PREALLOCATE.bits();
/// `EVENT_TRACE_FILE_MODE_SEQUENTIAL` (evntrace.h).
pub const EVENT_TRACE_FILE_MODE_SEQUENTIAL: u32 = LogFileMode::SEQUENTIAL.bits();
/// `EVENT_TRACE_FLAG_ALPC` (evntrace.h).
pub const EVENT_TRACE_FLAG_ALPC: EVENT_TRACE_FLAG = event_trace_flag::ALPC;
/// `EVENT_TRACE_FLAG_CSWITCH` (evntrace.h).
pub const EVENT_TRACE_FLAG_CSWITCH: EVENT_TRACE_FLAG = event_trace_flag::CSWITCH;
/// `EVENT_TRACE_FLAG_DBGPRINT` (evntrace.h).
pub const EVENT_TRACE_FLAG_DBGPRINT: EVENT_TRACE_FLAG = event_trace_flag::DBGPRINT;
/// `EVENT_TRACE_FLAG_DEBUG_EVENTS` (evntrace.h).
pub const EVENT_TRACE_FLAG_DEBUG_EVENTS: u32 = event_trace_flag::DEBUG_EVENTS;
/// `EVENT_TRACE_FLAG_DISK_FILE_IO` (evntrace.h).
pub const EVENT_TRACE_FLAG_DISK_FILE_IO: EVENT_TRACE_FLAG = event_trace_flag::DISK_FILE_IO;
/// `EVENT_TRACE_FLAG_DISK_IO` (evntrace.h).
pub const EVENT_TRACE_FLAG_DISK_IO: EVENT_TRACE_FLAG = event_trace_flag::DISK_IO;
/// `EVENT_TRACE_FLAG_DISK_IO_INIT` (evntrace.h).
pub const EVENT_TRACE_FLAG_DISK_IO_INIT: EVENT_TRACE_FLAG = event_trace_flag::DISK_IO_INIT;
/// `EVENT_TRACE_FLAG_DISPATCHER` (evntrace.h).
pub const EVENT_TRACE_FLAG_DISPATCHER: EVENT_TRACE_FLAG = event_trace_flag::DISPATCHER;
/// `EVENT_TRACE_FLAG_DPC` (evntrace.h).
pub const EVENT_TRACE_FLAG_DPC: EVENT_TRACE_FLAG = event_trace_flag::DPC;
/// `EVENT_TRACE_FLAG_DRIVER` (evntrace.h).
pub const EVENT_TRACE_FLAG_DRIVER: EVENT_TRACE_FLAG = event_trace_flag::DRIVER;
/// `EVENT_TRACE_FLAG_ENABLE_RESERVE` (evntrace.h).
pub const EVENT_TRACE_FLAG_ENABLE_RESERVE: u32 = event_trace_flag::ENABLE_RESERVE;
/// `EVENT_TRACE_FLAG_EXTENSION` (evntrace.h).
pub const EVENT_TRACE_FLAG_EXTENSION: u32 = event_trace_flag::EXTENSION;
/// `EVENT_TRACE_FLAG_FILE_IO` (evntrace.h).
pub const EVENT_TRACE_FLAG_FILE_IO: EVENT_TRACE_FLAG = event_trace_flag::FILE_IO;
/// `EVENT_TRACE_FLAG_FILE_IO_INIT` (evntrace.h).
pub const EVENT_TRACE_FLAG_FILE_IO_INIT: EVENT_TRACE_FLAG = event_trace_flag::FILE_IO_INIT;
/// `EVENT_TRACE_FLAG_FORWARD_WMI` (evntrace.h).
pub const EVENT_TRACE_FLAG_FORWARD_WMI: u32 = event_trace_flag::FORWARD_WMI;
/// `EVENT_TRACE_FLAG_IMAGE_LOAD` (evntrace.h).
pub const EVENT_TRACE_FLAG_IMAGE_LOAD: EVENT_TRACE_FLAG = event_trace_flag::IMAGE_LOAD;
/// `EVENT_TRACE_FLAG_INTERRUPT` (evntrace.h).
pub const EVENT_TRACE_FLAG_INTERRUPT: EVENT_TRACE_FLAG = event_trace_flag::INTERRUPT;
/// `EVENT_TRACE_FLAG_JOB` (evntrace.h).
pub const EVENT_TRACE_FLAG_JOB: EVENT_TRACE_FLAG = event_trace_flag::JOB;
/// `EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS` (evntrace.h).
pub const EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS: EVENT_TRACE_FLAG =
    event_trace_flag::MEMORY_HARD_FAULTS;
/// `EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS` (evntrace.h).
pub const EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS: EVENT_TRACE_FLAG =
    event_trace_flag::MEMORY_PAGE_FAULTS;
/// `EVENT_TRACE_FLAG_NETWORK_TCPIP` (evntrace.h).
pub const EVENT_TRACE_FLAG_NETWORK_TCPIP: EVENT_TRACE_FLAG = event_trace_flag::NETWORK_TCPIP;
/// `EVENT_TRACE_FLAG_NO_SYSCONFIG` (evntrace.h).
pub const EVENT_TRACE_FLAG_NO_SYSCONFIG: EVENT_TRACE_FLAG = event_trace_flag::NO_SYSCONFIG;
/// `EVENT_TRACE_FLAG_PROCESS` (evntrace.h).
pub const EVENT_TRACE_FLAG_PROCESS: EVENT_TRACE_FLAG = event_trace_flag::PROCESS;
/// `EVENT_TRACE_FLAG_PROCESS_COUNTERS` (evntrace.h).
pub const EVENT_TRACE_FLAG_PROCESS_COUNTERS: EVENT_TRACE_FLAG = event_trace_flag::PROCESS_COUNTERS;
/// `EVENT_TRACE_FLAG_PROFILE` (evntrace.h).
pub const EVENT_TRACE_FLAG_PROFILE: EVENT_TRACE_FLAG = event_trace_flag::PROFILE;
/// `EVENT_TRACE_FLAG_REGISTRY` (evntrace.h).
pub const EVENT_TRACE_FLAG_REGISTRY: EVENT_TRACE_FLAG = event_trace_flag::REGISTRY;
/// `EVENT_TRACE_FLAG_SPLIT_IO` (evntrace.h).
pub const EVENT_TRACE_FLAG_SPLIT_IO: EVENT_TRACE_FLAG = event_trace_flag::SPLIT_IO;
/// `EVENT_TRACE_FLAG_SYSTEMCALL` (evntrace.h).
pub const EVENT_TRACE_FLAG_SYSTEMCALL: EVENT_TRACE_FLAG = event_trace_flag::SYSTEMCALL;
/// `EVENT_TRACE_FLAG_THREAD` (evntrace.h).
pub const EVENT_TRACE_FLAG_THREAD: EVENT_TRACE_FLAG = event_trace_flag::THREAD;
/// `EVENT_TRACE_FLAG_VAMAP` (evntrace.h).
pub const EVENT_TRACE_FLAG_VAMAP: EVENT_TRACE_FLAG = event_trace_flag::VAMAP;
/// `EVENT_TRACE_FLAG_VIRTUAL_ALLOC` (evntrace.h).
pub const EVENT_TRACE_FLAG_VIRTUAL_ALLOC: EVENT_TRACE_FLAG = event_trace_flag::VIRTUAL_ALLOC;
/// `EVENT_TRACE_INDEPENDENT_SESSION_MODE` (evntrace.h).
pub const EVENT_TRACE_INDEPENDENT_SESSION_MODE: u32 = LogFileMode::INDEPENDENT_SESSION.bits();
/// `EVENT_TRACE_MODE_RESERVED` (evntrace.h).
pub const EVENT_TRACE_MODE_RESERVED: u32 = LogFileMode::MODE_RESERVED.bits();
/// `EVENT_TRACE_NONSTOPPABLE_MODE` (evntrace.h).
pub const EVENT_TRACE_NONSTOPPABLE_MODE: u32 = LogFileMode::NONSTOPPABLE.bits();
/// `EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING` (evntrace.h).
pub const EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING: u32 =
    LogFileMode::NO_PER_PROCESSOR_BUFFERING.bits();
/// `EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN` (evntrace.h).
pub const EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN: u32 =
    LogFileMode::PERSIST_ON_HYBRID_SHUTDOWN.bits();
/// `EVENT_TRACE_PRIVATE_IN_PROC` (evntrace.h).
pub const EVENT_TRACE_PRIVATE_IN_PROC: u32 = LogFileMode::PRIVATE_IN_PROC.bits();
/// `EVENT_TRACE_PRIVATE_LOGGER_MODE` (evntrace.h).
pub const EVENT_TRACE_PRIVATE_LOGGER_MODE: u32 = LogFileMode::PRIVATE_LOGGER.bits();
/// `EVENT_TRACE_REAL_TIME_MODE` (evntrace.h).
pub const EVENT_TRACE_REAL_TIME_MODE: u32 = LogFileMode::REAL_TIME.bits();
/// `EVENT_TRACE_RELOG_MODE` (evntrace.h).
pub const EVENT_TRACE_RELOG_MODE: u32 = LogFileMode::RELOG.bits();
/// `EVENT_TRACE_SECURE_MODE` (evntrace.h).
pub const EVENT_TRACE_SECURE_MODE: u32 = LogFileMode::SECURE.bits();
/// `EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN` (evntrace.h).
pub const EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN: u32 = LogFileMode::STOP_ON_HYBRID_SHUTDOWN.bits();
/// `EVENT_TRACE_SYSTEM_LOGGER_MODE` (evntrace.h).
pub const EVENT_TRACE_SYSTEM_LOGGER_MODE: u32 = LogFileMode::SYSTEM_LOGGER.bits();
/// `EVENT_TRACE_TYPE_ACCEPT` (evntrace.h).
pub const EVENT_TRACE_TYPE_ACCEPT: u32 = 0xf;
/// `EVENT_TRACE_TYPE_ACKDUP` (evntrace.h).
pub const EVENT_TRACE_TYPE_ACKDUP: u32 = 0x16;
/// `EVENT_TRACE_TYPE_ACKFULL` (evntrace.h).
pub const EVENT_TRACE_TYPE_ACKFULL: u32 = 0x14;
/// `EVENT_TRACE_TYPE_ACKPART` (evntrace.h).
pub const EVENT_TRACE_TYPE_ACKPART: u32 = 0x15;
/// `EVENT_TRACE_TYPE_CHECKPOINT` (evntrace.h).
pub const EVENT_TRACE_TYPE_CHECKPOINT: u32 = Opcode::SUSPEND.0 as u32;
/// `EVENT_TRACE_TYPE_CONFIG` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG: u32 = 0xb;
/// `EVENT_TRACE_TYPE_CONFIG_BOOT` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_BOOT: u32 = 0x25;
/// `EVENT_TRACE_TYPE_CONFIG_CI_INFO` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_CI_INFO: u32 = 0x1d;
/// `EVENT_TRACE_TYPE_CONFIG_CPU` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_CPU: u32 = 0xa;
/// `EVENT_TRACE_TYPE_CONFIG_DEFRAG` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_DEFRAG: u32 = 0x1f;
/// `EVENT_TRACE_TYPE_CONFIG_DEVICEFAMILY` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_DEVICEFAMILY: u32 = 0x21;
/// `EVENT_TRACE_TYPE_CONFIG_DPI` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_DPI: u32 = 0x1c;
/// `EVENT_TRACE_TYPE_CONFIG_FLIGHTID` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_FLIGHTID: u32 = 0x22;
/// `EVENT_TRACE_TYPE_CONFIG_IDECHANNEL` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_IDECHANNEL: u32 = 0x17;
/// `EVENT_TRACE_TYPE_CONFIG_IRQ` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_IRQ: u32 = 0x15;
/// `EVENT_TRACE_TYPE_CONFIG_LOGICALDISK` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_LOGICALDISK: u32 = 0xc;
/// `EVENT_TRACE_TYPE_CONFIG_MACHINEID` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_MACHINEID: u32 = 0x1e;
/// `EVENT_TRACE_TYPE_CONFIG_MOBILEPLATFORM` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_MOBILEPLATFORM: u32 = 0x20;
/// `EVENT_TRACE_TYPE_CONFIG_NETINFO` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_NETINFO: u32 = 0x11;
/// `EVENT_TRACE_TYPE_CONFIG_NIC` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_NIC: u32 = 0xd;
/// `EVENT_TRACE_TYPE_CONFIG_NUMANODE` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_NUMANODE: u32 = 0x18;
/// `EVENT_TRACE_TYPE_CONFIG_OPTICALMEDIA` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_OPTICALMEDIA: u32 = 0x12;
/// `EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK: u32 = 0xb;
/// `EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK_EX` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK_EX: u32 = 0x13;
/// `EVENT_TRACE_TYPE_CONFIG_PLATFORM` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_PLATFORM: u32 = 0x19;
/// `EVENT_TRACE_TYPE_CONFIG_PNP` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_PNP: u32 = 0x16;
/// `EVENT_TRACE_TYPE_CONFIG_POWER` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_POWER: u32 = 0x10;
/// `EVENT_TRACE_TYPE_CONFIG_PROCESSOR` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_PROCESSOR: u32 = 0x23;
/// `EVENT_TRACE_TYPE_CONFIG_PROCESSORGROUP` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_PROCESSORGROUP: u32 = 0x1a;
/// `EVENT_TRACE_TYPE_CONFIG_PROCESSORNUMBER` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_PROCESSORNUMBER: u32 = 0x1b;
/// `EVENT_TRACE_TYPE_CONFIG_SERVICES` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_SERVICES: u32 = 0xf;
/// `EVENT_TRACE_TYPE_CONFIG_VIDEO` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_VIDEO: u32 = 0xe;
/// `EVENT_TRACE_TYPE_CONFIG_VIRTUALIZATION` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONFIG_VIRTUALIZATION: u32 = 0x24;
/// `EVENT_TRACE_TYPE_CONNECT` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONNECT: u32 = 0xc;
/// `EVENT_TRACE_TYPE_CONNFAIL` (evntrace.h).
pub const EVENT_TRACE_TYPE_CONNFAIL: u32 = 0x11;
/// `EVENT_TRACE_TYPE_COPY_ARP` (evntrace.h).
pub const EVENT_TRACE_TYPE_COPY_ARP: u32 = 0x13;
/// `EVENT_TRACE_TYPE_COPY_TCP` (evntrace.h).
pub const EVENT_TRACE_TYPE_COPY_TCP: u32 = 0x12;
/// `EVENT_TRACE_TYPE_DBGID_RSDS` (evntrace.h).
pub const EVENT_TRACE_TYPE_DBGID_RSDS: u32 = 0x40;
/// `EVENT_TRACE_TYPE_DC_END` (evntrace.h).
pub const EVENT_TRACE_TYPE_DC_END: u32 = Opcode::DC_STOP.0 as u32;
/// `EVENT_TRACE_TYPE_DC_START` (evntrace.h).
pub const EVENT_TRACE_TYPE_DC_START: u32 = Opcode::DC_START.0 as u32;
/// `EVENT_TRACE_TYPE_DEQUEUE` (evntrace.h).
pub const EVENT_TRACE_TYPE_DEQUEUE: u32 = Opcode::RESUME.0 as u32;
/// `EVENT_TRACE_TYPE_DISCONNECT` (evntrace.h).
pub const EVENT_TRACE_TYPE_DISCONNECT: u32 = 0xd;
/// `EVENT_TRACE_TYPE_END` (evntrace.h).
pub const EVENT_TRACE_TYPE_END: u32 = Opcode::STOP.0 as u32;
/// `EVENT_TRACE_TYPE_EXTENSION` (evntrace.h).
pub const EVENT_TRACE_TYPE_EXTENSION: u32 = Opcode::EXTENSION.0 as u32;
/// `EVENT_TRACE_TYPE_FLT_POSTOP_COMPLETION` (evntrace.h).
pub const EVENT_TRACE_TYPE_FLT_POSTOP_COMPLETION: u32 = 0x63;
/// `EVENT_TRACE_TYPE_FLT_POSTOP_FAILURE` (evntrace.h).
pub const EVENT_TRACE_TYPE_FLT_POSTOP_FAILURE: u32 = 0x65;
/// `EVENT_TRACE_TYPE_FLT_POSTOP_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_FLT_POSTOP_INIT: u32 = 0x61;
/// `EVENT_TRACE_TYPE_FLT_PREOP_COMPLETION` (evntrace.h).
pub const EVENT_TRACE_TYPE_FLT_PREOP_COMPLETION: u32 = 0x62;
/// `EVENT_TRACE_TYPE_FLT_PREOP_FAILURE` (evntrace.h).
pub const EVENT_TRACE_TYPE_FLT_PREOP_FAILURE: u32 = 0x64;
/// `EVENT_TRACE_TYPE_FLT_PREOP_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_FLT_PREOP_INIT: u32 = 0x60;
/// `EVENT_TRACE_TYPE_GUIDMAP` (evntrace.h).
pub const EVENT_TRACE_TYPE_GUIDMAP: u32 = 0xa;
/// `EVENT_TRACE_TYPE_INFO` (evntrace.h).
pub const EVENT_TRACE_TYPE_INFO: u32 = Opcode::INFO.0 as u32;
/// `EVENT_TRACE_TYPE_IO_FLUSH` (evntrace.h).
pub const EVENT_TRACE_TYPE_IO_FLUSH: u32 = 0xe;
/// `EVENT_TRACE_TYPE_IO_FLUSH_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_IO_FLUSH_INIT: u32 = 0xf;
/// `EVENT_TRACE_TYPE_IO_READ` (evntrace.h).
pub const EVENT_TRACE_TYPE_IO_READ: u32 = 0xa;
/// `EVENT_TRACE_TYPE_IO_READ_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_IO_READ_INIT: u32 = 0xc;
/// `EVENT_TRACE_TYPE_IO_REDIRECTED_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_IO_REDIRECTED_INIT: u32 = 0x10;
/// `EVENT_TRACE_TYPE_IO_WRITE` (evntrace.h).
pub const EVENT_TRACE_TYPE_IO_WRITE: u32 = 0xb;
/// `EVENT_TRACE_TYPE_IO_WRITE_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_IO_WRITE_INIT: u32 = 0xd;
/// `EVENT_TRACE_TYPE_LOAD` (evntrace.h).
pub const EVENT_TRACE_TYPE_LOAD: u32 = 0xa;
/// `EVENT_TRACE_TYPE_MM_AV` (evntrace.h).
pub const EVENT_TRACE_TYPE_MM_AV: u32 = 0xf;
/// `EVENT_TRACE_TYPE_MM_COW` (evntrace.h).
pub const EVENT_TRACE_TYPE_MM_COW: u32 = 0xc;
/// `EVENT_TRACE_TYPE_MM_DZF` (evntrace.h).
pub const EVENT_TRACE_TYPE_MM_DZF: u32 = 0xb;
/// `EVENT_TRACE_TYPE_MM_GPF` (evntrace.h).
pub const EVENT_TRACE_TYPE_MM_GPF: u32 = 0xd;
/// `EVENT_TRACE_TYPE_MM_HPF` (evntrace.h).
pub const EVENT_TRACE_TYPE_MM_HPF: u32 = 0xe;
/// `EVENT_TRACE_TYPE_MM_TF` (evntrace.h).
pub const EVENT_TRACE_TYPE_MM_TF: u32 = 0xa;
/// `EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH` (evntrace.h).
pub const EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH: u32 = 0x39;
/// `EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH_INIT: u32 = 0x3c;
/// `EVENT_TRACE_TYPE_OPTICAL_IO_READ` (evntrace.h).
pub const EVENT_TRACE_TYPE_OPTICAL_IO_READ: u32 = 0x37;
/// `EVENT_TRACE_TYPE_OPTICAL_IO_READ_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_OPTICAL_IO_READ_INIT: u32 = 0x3a;
/// `EVENT_TRACE_TYPE_OPTICAL_IO_WRITE` (evntrace.h).
pub const EVENT_TRACE_TYPE_OPTICAL_IO_WRITE: u32 = 0x38;
/// `EVENT_TRACE_TYPE_OPTICAL_IO_WRITE_INIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_OPTICAL_IO_WRITE_INIT: u32 = 0x3b;
/// `EVENT_TRACE_TYPE_RECEIVE` (evntrace.h).
pub const EVENT_TRACE_TYPE_RECEIVE: u32 = 0xb;
/// `EVENT_TRACE_TYPE_RECONNECT` (evntrace.h).
pub const EVENT_TRACE_TYPE_RECONNECT: u32 = 0x10;
/// `EVENT_TRACE_TYPE_REGCLOSE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGCLOSE: u32 = 0x1b;
/// `EVENT_TRACE_TYPE_REGCOMMIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGCOMMIT: u32 = 0x1e;
/// `EVENT_TRACE_TYPE_REGCREATE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGCREATE: u32 = 0xa;
/// `EVENT_TRACE_TYPE_REGDELETE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGDELETE: u32 = 0xc;
/// `EVENT_TRACE_TYPE_REGDELETEVALUE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGDELETEVALUE: u32 = 0xf;
/// `EVENT_TRACE_TYPE_REGENUMERATEKEY` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGENUMERATEKEY: u32 = 0x11;
/// `EVENT_TRACE_TYPE_REGENUMERATEVALUEKEY` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGENUMERATEVALUEKEY: u32 = 0x12;
/// `EVENT_TRACE_TYPE_REGFLUSH` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGFLUSH: u32 = 0x15;
/// `EVENT_TRACE_TYPE_REGKCBCREATE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGKCBCREATE: u32 = 0x16;
/// `EVENT_TRACE_TYPE_REGKCBDELETE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGKCBDELETE: u32 = 0x17;
/// `EVENT_TRACE_TYPE_REGKCBRUNDOWNBEGIN` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGKCBRUNDOWNBEGIN: u32 = 0x18;
/// `EVENT_TRACE_TYPE_REGKCBRUNDOWNEND` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGKCBRUNDOWNEND: u32 = 0x19;
/// `EVENT_TRACE_TYPE_REGMOUNTHIVE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGMOUNTHIVE: u32 = 0x21;
/// `EVENT_TRACE_TYPE_REGOPEN` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGOPEN: u32 = 0xb;
/// `EVENT_TRACE_TYPE_REGPREPARE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGPREPARE: u32 = 0x1f;
/// `EVENT_TRACE_TYPE_REGQUERY` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGQUERY: u32 = 0xd;
/// `EVENT_TRACE_TYPE_REGQUERYMULTIPLEVALUE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGQUERYMULTIPLEVALUE: u32 = 0x13;
/// `EVENT_TRACE_TYPE_REGQUERYSECURITY` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGQUERYSECURITY: u32 = 0x1d;
/// `EVENT_TRACE_TYPE_REGQUERYVALUE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGQUERYVALUE: u32 = 0x10;
/// `EVENT_TRACE_TYPE_REGROLLBACK` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGROLLBACK: u32 = 0x20;
/// `EVENT_TRACE_TYPE_REGSETINFORMATION` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGSETINFORMATION: u32 = 0x14;
/// `EVENT_TRACE_TYPE_REGSETSECURITY` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGSETSECURITY: u32 = 0x1c;
/// `EVENT_TRACE_TYPE_REGSETVALUE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGSETVALUE: u32 = 0xe;
/// `EVENT_TRACE_TYPE_REGVIRTUALIZE` (evntrace.h).
pub const EVENT_TRACE_TYPE_REGVIRTUALIZE: u32 = 0x1a;
/// `EVENT_TRACE_TYPE_REPLY` (evntrace.h).
pub const EVENT_TRACE_TYPE_REPLY: u32 = Opcode::REPLY.0 as u32;
/// `EVENT_TRACE_TYPE_RESUME` (evntrace.h).
pub const EVENT_TRACE_TYPE_RESUME: u32 = Opcode::RESUME.0 as u32;
/// `EVENT_TRACE_TYPE_RETRANSMIT` (evntrace.h).
pub const EVENT_TRACE_TYPE_RETRANSMIT: u32 = 0xe;
/// `EVENT_TRACE_TYPE_SECURITY` (evntrace.h).
pub const EVENT_TRACE_TYPE_SECURITY: u32 = 0xd;
/// `EVENT_TRACE_TYPE_SEND` (evntrace.h).
pub const EVENT_TRACE_TYPE_SEND: u32 = 0xa;
/// `EVENT_TRACE_TYPE_SIDINFO` (evntrace.h).
pub const EVENT_TRACE_TYPE_SIDINFO: u32 = 0xc;
/// `EVENT_TRACE_TYPE_START` (evntrace.h).
pub const EVENT_TRACE_TYPE_START: u32 = Opcode::START.0 as u32;
/// `EVENT_TRACE_TYPE_STOP` (evntrace.h).
pub const EVENT_TRACE_TYPE_STOP: u32 = Opcode::STOP.0 as u32;
/// `EVENT_TRACE_TYPE_SUSPEND` (evntrace.h).
pub const EVENT_TRACE_TYPE_SUSPEND: u32 = Opcode::SUSPEND.0 as u32;
/// `EVENT_TRACE_TYPE_TERMINATE` (evntrace.h).
pub const EVENT_TRACE_TYPE_TERMINATE: u32 = 0xb;
/// `EVENT_TRACE_TYPE_WINEVT_RECEIVE` (evntrace.h).
pub const EVENT_TRACE_TYPE_WINEVT_RECEIVE: u32 = Opcode::RECEIVE.0 as u32;
/// `EVENT_TRACE_TYPE_WINEVT_SEND` (evntrace.h).
pub const EVENT_TRACE_TYPE_WINEVT_SEND: u32 = Opcode::SEND.0 as u32;
/// `EVENT_TRACE_USE_GLOBAL_SEQUENCE` (evntrace.h).
pub const EVENT_TRACE_USE_GLOBAL_SEQUENCE: u32 = LogFileMode::USE_GLOBAL_SEQUENCE.bits();
/// `EVENT_TRACE_USE_KBYTES_FOR_SIZE` (evntrace.h).
pub const EVENT_TRACE_USE_KBYTES_FOR_SIZE: u32 = LogFileMode::USE_KBYTES_FOR_SIZE.bits();
/// `EVENT_TRACE_USE_LOCAL_SEQUENCE` (evntrace.h).
pub const EVENT_TRACE_USE_LOCAL_SEQUENCE: u32 = LogFileMode::USE_LOCAL_SEQUENCE.bits();
/// `EVENT_TRACE_USE_NOCPUTIME` (evntrace.h).
pub const EVENT_TRACE_USE_NOCPUTIME: u32 = 2;
/// `EVENT_TRACE_USE_PAGED_MEMORY` (evntrace.h).
pub const EVENT_TRACE_USE_PAGED_MEMORY: u32 = LogFileMode::USE_PAGED_MEMORY.bits();
/// `EVENT_TRACE_USE_PROCTIME` (evntrace.h).
pub const EVENT_TRACE_USE_PROCTIME: u32 = 1;
/// `EVENT_WRITE_FLAG_INPRIVATE` (evntprov.h).
pub const EVENT_WRITE_FLAG_INPRIVATE: u32 = etwsim::EVENT_WRITE_FLAG_INPRIVATE;
/// `EVENT_WRITE_FLAG_NO_FAULTING` (evntprov.h).
pub const EVENT_WRITE_FLAG_NO_FAULTING: u32 = etwsim::EVENT_WRITE_FLAG_NO_FAULTING;
/// `EventProviderBinaryTrackInfo` (evntprov.h).
pub const EventProviderBinaryTrackInfo: EVENT_INFO_CLASS = EventInfoClass::BinaryTrackInfo as i32;
/// `EventProviderSetReserved1` (evntprov.h).
pub const EventProviderSetReserved1: EVENT_INFO_CLASS = EventInfoClass::SetReserved1 as i32;
/// `EventProviderSetTraits` (evntprov.h).
pub const EventProviderSetTraits: EVENT_INFO_CLASS = EventInfoClass::SetTraits as i32;
/// `EventProviderUseDescriptorType` (evntprov.h).
pub const EventProviderUseDescriptorType: EVENT_INFO_CLASS =
    EventInfoClass::UseDescriptorType as i32;
/// `MAX_EVENT_DATA_DESCRIPTORS` (evntprov.h).
pub const MAX_EVENT_DATA_DESCRIPTORS: u32 = record::MAX_EVENT_DATA_DESCRIPTORS as u32;
/// `MAX_EVENT_FILTERS_COUNT` (evntprov.h).
pub const MAX_EVENT_FILTERS_COUNT: u32 = etwsim::filter::MAX_EVENT_FILTERS_COUNT as u32;
/// `MAX_EVENT_FILTER_DATA_SIZE` (evntprov.h).
pub const MAX_EVENT_FILTER_DATA_SIZE: u32 = etwsim::filter::MAX_EVENT_FILTER_DATA_SIZE as u32;
/// `MAX_EVENT_FILTER_EVENT_ID_COUNT` (evntprov.h).
pub const MAX_EVENT_FILTER_EVENT_ID_COUNT: u32 =
    etwsim::filter::MAX_EVENT_FILTER_EVENT_ID_COUNT as u32;
/// `MAX_EVENT_FILTER_EVENT_NAME_SIZE` (evntprov.h).
pub const MAX_EVENT_FILTER_EVENT_NAME_SIZE: u32 =
    etwsim::filter::MAX_EVENT_FILTER_EVENT_NAME_SIZE as u32;
/// `MAX_EVENT_FILTER_PAYLOAD_SIZE` (evntprov.h).
pub const MAX_EVENT_FILTER_PAYLOAD_SIZE: u32 = etwsim::filter::MAX_EVENT_FILTER_PAYLOAD_SIZE as u32;
/// `MAX_EVENT_FILTER_PID_COUNT` (evntprov.h).
pub const MAX_EVENT_FILTER_PID_COUNT: u32 = etwsim::filter::MAX_EVENT_FILTER_PID_COUNT as u32;
/// `MAX_MOF_FIELDS` (evntrace.h): the most `MOF_FIELD`s a classic event may carry.
pub const MAX_MOF_FIELDS: u32 = 0x10;
/// `PROCESS_TRACE_MODE_EVENT_RECORD` (evntcons.h).
pub const PROCESS_TRACE_MODE_EVENT_RECORD: u32 = etwsim::win32::PROCESS_TRACE_MODE_EVENT_RECORD;
/// `PROCESS_TRACE_MODE_RAW_TIMESTAMP` (evntcons.h).
pub const PROCESS_TRACE_MODE_RAW_TIMESTAMP: u32 = etwsim::win32::PROCESS_TRACE_MODE_RAW_TIMESTAMP;
/// `PROCESS_TRACE_MODE_REAL_TIME` (evntcons.h).
pub const PROCESS_TRACE_MODE_REAL_TIME: u32 = etwsim::win32::PROCESS_TRACE_MODE_REAL_TIME;
/// `TRACE_LEVEL_CRITICAL` (evntrace.h).
pub const TRACE_LEVEL_CRITICAL: u32 = Level::CRITICAL.0 as u32;
/// `TRACE_LEVEL_ERROR` (evntrace.h).
pub const TRACE_LEVEL_ERROR: u32 = Level::ERROR.0 as u32;
/// `TRACE_LEVEL_FATAL` (evntrace.h).
pub const TRACE_LEVEL_FATAL: u32 = Level::CRITICAL.0 as u32;
/// `TRACE_LEVEL_INFORMATION` (evntrace.h).
pub const TRACE_LEVEL_INFORMATION: u32 = Level::INFORMATION.0 as u32;
/// `TRACE_LEVEL_NONE` (evntrace.h).
pub const TRACE_LEVEL_NONE: u32 = Level::LOG_ALWAYS.0 as u32;
/// `TRACE_LEVEL_RESERVED6` (evntrace.h).
pub const TRACE_LEVEL_RESERVED6: u32 = 6;
/// `TRACE_LEVEL_RESERVED7` (evntrace.h).
pub const TRACE_LEVEL_RESERVED7: u32 = 7;
/// `TRACE_LEVEL_RESERVED8` (evntrace.h).
pub const TRACE_LEVEL_RESERVED8: u32 = 8;
/// `TRACE_LEVEL_RESERVED9` (evntrace.h).
pub const TRACE_LEVEL_RESERVED9: u32 = 9;
/// `TRACE_LEVEL_VERBOSE` (evntrace.h).
pub const TRACE_LEVEL_VERBOSE: u32 = Level::VERBOSE.0 as u32;
/// `TRACE_LEVEL_WARNING` (evntrace.h).
pub const TRACE_LEVEL_WARNING: u32 = Level::WARNING.0 as u32;
/// `TRACE_PROVIDER_FLAG_LEGACY` (evntrace.h).
pub const TRACE_PROVIDER_FLAG_LEGACY: u32 = etwsim::TRACE_PROVIDER_FLAG_LEGACY;
/// `TRACE_PROVIDER_FLAG_PRE_ENABLE` (evntrace.h).
pub const TRACE_PROVIDER_FLAG_PRE_ENABLE: u32 = etwsim::TRACE_PROVIDER_FLAG_PRE_ENABLE;
/// `TraceDisallowListQuery` (evntrace.h).
pub const TraceDisallowListQuery: TRACE_QUERY_INFO_CLASS = 14;
/// `TraceGroupQueryInfo` (evntrace.h).
pub const TraceGroupQueryInfo: TRACE_QUERY_INFO_CLASS = 13;
/// `TraceGroupQueryList` (evntrace.h).
pub const TraceGroupQueryList: TRACE_QUERY_INFO_CLASS = 12;
/// `TraceGuidQueryInfo` (evntrace.h).
pub const TraceGuidQueryInfo: TRACE_QUERY_INFO_CLASS = etwsim::win32::TRACE_GUID_QUERY_INFO as i32;
/// `TraceGuidQueryList` (evntrace.h).
pub const TraceGuidQueryList: TRACE_QUERY_INFO_CLASS = etwsim::win32::TRACE_GUID_QUERY_LIST as i32;
/// `TraceGuidQueryProcess` (evntrace.h).
pub const TraceGuidQueryProcess: TRACE_QUERY_INFO_CLASS =
    etwsim::win32::TRACE_GUID_QUERY_PROCESS as i32;
/// `TraceInfoReserved15` (evntrace.h).
pub const TraceInfoReserved15: TRACE_QUERY_INFO_CLASS = 15;
/// `TraceLbrConfigurationInfo` (evntrace.h).
pub const TraceLbrConfigurationInfo: TRACE_QUERY_INFO_CLASS = 20;
/// `TraceLbrEventListInfo` (evntrace.h).
pub const TraceLbrEventListInfo: TRACE_QUERY_INFO_CLASS = 21;
/// `TraceMaxLoggersQuery` (evntrace.h).
pub const TraceMaxLoggersQuery: TRACE_QUERY_INFO_CLASS = 19;
/// `TraceMaxPmcCounterQuery` (evntrace.h).
pub const TraceMaxPmcCounterQuery: TRACE_QUERY_INFO_CLASS = 22;
/// `TracePeriodicCaptureStateInfo` (evntrace.h).
pub const TracePeriodicCaptureStateInfo: TRACE_QUERY_INFO_CLASS = 17;
/// `TracePeriodicCaptureStateListInfo` (evntrace.h).
pub const TracePeriodicCaptureStateListInfo: TRACE_QUERY_INFO_CLASS = 16;
/// `TracePmcCounterListInfo` (evntrace.h).
pub const TracePmcCounterListInfo: TRACE_QUERY_INFO_CLASS = 9;
/// `TracePmcCounterOwners` (evntrace.h).
pub const TracePmcCounterOwners: TRACE_QUERY_INFO_CLASS = 25;
/// `TracePmcEventListInfo` (evntrace.h).
pub const TracePmcEventListInfo: TRACE_QUERY_INFO_CLASS = 8;
/// `TracePmcSessionInformation` (evntrace.h).
pub const TracePmcSessionInformation: TRACE_QUERY_INFO_CLASS = 27;
/// `TraceProfileSourceConfigInfo` (evntrace.h).
pub const TraceProfileSourceConfigInfo: TRACE_QUERY_INFO_CLASS = 6;
/// `TraceProfileSourceListInfo` (evntrace.h).
pub const TraceProfileSourceListInfo: TRACE_QUERY_INFO_CLASS = 7;
/// `TraceProviderBinaryTracking` (evntrace.h).
pub const TraceProviderBinaryTracking: TRACE_QUERY_INFO_CLASS = 18;
/// `TraceSampledProfileIntervalInfo` (evntrace.h).
pub const TraceSampledProfileIntervalInfo: TRACE_QUERY_INFO_CLASS = 5;
/// `TraceSetDisallowList` (evntrace.h).
pub const TraceSetDisallowList: TRACE_QUERY_INFO_CLASS = 10;
/// `TraceStackCachingInfo` (evntrace.h).
pub const TraceStackCachingInfo: TRACE_QUERY_INFO_CLASS = 24;
/// `TraceStackTracingInfo` (evntrace.h).
pub const TraceStackTracingInfo: TRACE_QUERY_INFO_CLASS = 3;
/// `TraceStreamCount` (evntrace.h).
pub const TraceStreamCount: TRACE_QUERY_INFO_CLASS = 23;
/// `TraceSystemTraceEnableFlagsInfo` (evntrace.h).
pub const TraceSystemTraceEnableFlagsInfo: TRACE_QUERY_INFO_CLASS = 4;
/// `TraceUnifiedStackCachingInfo` (evntrace.h).
pub const TraceUnifiedStackCachingInfo: TRACE_QUERY_INFO_CLASS = 26;
/// `TraceVersionInfo` (evntrace.h).
pub const TraceVersionInfo: TRACE_QUERY_INFO_CLASS = 11;
/// `WMI_CAPTURE_STATE` (wmistr.h).
pub const WMI_CAPTURE_STATE: WMIDPREQUESTCODE = etwsim::WMI_CAPTURE_STATE as i32;
/// `WMI_DISABLE_COLLECTION` (wmistr.h).
pub const WMI_DISABLE_COLLECTION: WMIDPREQUESTCODE = 7;
/// `WMI_DISABLE_EVENTS` (wmistr.h).
pub const WMI_DISABLE_EVENTS: WMIDPREQUESTCODE = etwsim::WMI_DISABLE_EVENTS as i32;
/// `WMI_ENABLE_COLLECTION` (wmistr.h).
pub const WMI_ENABLE_COLLECTION: WMIDPREQUESTCODE = 6;
/// `WMI_ENABLE_EVENTS` (wmistr.h).
pub const WMI_ENABLE_EVENTS: WMIDPREQUESTCODE = etwsim::WMI_ENABLE_EVENTS as i32;
/// `WMI_EXECUTE_METHOD` (wmistr.h).
pub const WMI_EXECUTE_METHOD: WMIDPREQUESTCODE = 9;
/// `WMI_GET_ALL_DATA` (wmistr.h).
pub const WMI_GET_ALL_DATA: WMIDPREQUESTCODE = 0;
/// `WMI_GET_SINGLE_INSTANCE` (wmistr.h).
pub const WMI_GET_SINGLE_INSTANCE: WMIDPREQUESTCODE = 1;
/// `WMI_GLOBAL_LOGGER_ID` (wmistr.h).
pub const WMI_GLOBAL_LOGGER_ID: u32 = etwsim::WMI_GLOBAL_LOGGER_ID as u32;
/// `WMI_GUIDTYPE_DATA` (wmistr.h).
pub const WMI_GUIDTYPE_DATA: u32 = 2;
/// `WMI_GUIDTYPE_EVENT` (wmistr.h).
pub const WMI_GUIDTYPE_EVENT: u32 = 3;
/// `WMI_GUIDTYPE_TRACE` (wmistr.h).
pub const WMI_GUIDTYPE_TRACE: u32 = 1;
/// `WMI_GUIDTYPE_TRACECONTROL` (wmistr.h).
pub const WMI_GUIDTYPE_TRACECONTROL: u32 = 0;
/// `WMI_REGINFO` (wmistr.h).
pub const WMI_REGINFO: WMIDPREQUESTCODE = 8;
/// `WMI_SET_SINGLE_INSTANCE` (wmistr.h).
pub const WMI_SET_SINGLE_INSTANCE: WMIDPREQUESTCODE = 2;
/// `WMI_SET_SINGLE_ITEM` (wmistr.h).
pub const WMI_SET_SINGLE_ITEM: WMIDPREQUESTCODE = 3;
/// `WNODE_FLAG_ALL_DATA` (wmistr.h).
pub const WNODE_FLAG_ALL_DATA: u32 = 1;
/// `WNODE_FLAG_ANSI_INSTANCENAMES` (wmistr.h).
pub const WNODE_FLAG_ANSI_INSTANCENAMES: u32 = 0x4000;
/// `WNODE_FLAG_EVENT_ITEM` (wmistr.h).
pub const WNODE_FLAG_EVENT_ITEM: u32 = 8;
/// `WNODE_FLAG_EVENT_REFERENCE` (wmistr.h).
pub const WNODE_FLAG_EVENT_REFERENCE: u32 = 0x2000;
/// `WNODE_FLAG_FIXED_INSTANCE_SIZE` (wmistr.h).
pub const WNODE_FLAG_FIXED_INSTANCE_SIZE: u32 = 0x10;
/// `WNODE_FLAG_INSTANCES_SAME` (wmistr.h).
pub const WNODE_FLAG_INSTANCES_SAME: u32 = 0x40;
/// `WNODE_FLAG_INTERNAL` (wmistr.h).
pub const WNODE_FLAG_INTERNAL: u32 = 0x100;
/// `WNODE_FLAG_LOG_WNODE` (wmistr.h).
pub const WNODE_FLAG_LOG_WNODE: u32 = 0x40000;
/// `WNODE_FLAG_METHOD_ITEM` (wmistr.h).
pub const WNODE_FLAG_METHOD_ITEM: u32 = 0x8000;
/// `WNODE_FLAG_NO_HEADER` (wmistr.h).
pub const WNODE_FLAG_NO_HEADER: u32 = 0x200000;
/// `WNODE_FLAG_PDO_INSTANCE_NAMES` (wmistr.h).
pub const WNODE_FLAG_PDO_INSTANCE_NAMES: u32 = 0x10000;
/// `WNODE_FLAG_PERSIST_EVENT` (wmistr.h).
pub const WNODE_FLAG_PERSIST_EVENT: u32 = 0x400;
/// `WNODE_FLAG_SEND_DATA_BLOCK` (wmistr.h).
pub const WNODE_FLAG_SEND_DATA_BLOCK: u32 = 0x400000;
/// `WNODE_FLAG_SEVERITY_MASK` (wmistr.h).
pub const WNODE_FLAG_SEVERITY_MASK: u32 = 0xff000000;
/// `WNODE_FLAG_SINGLE_INSTANCE` (wmistr.h).
pub const WNODE_FLAG_SINGLE_INSTANCE: u32 = 2;
/// `WNODE_FLAG_SINGLE_ITEM` (wmistr.h).
pub const WNODE_FLAG_SINGLE_ITEM: u32 = 4;
/// `WNODE_FLAG_STATIC_INSTANCE_NAMES` (wmistr.h).
pub const WNODE_FLAG_STATIC_INSTANCE_NAMES: u32 = 0x80;
/// `WNODE_FLAG_TOO_SMALL` (wmistr.h).
pub const WNODE_FLAG_TOO_SMALL: u32 = 0x20;
/// `WNODE_FLAG_TRACED_GUID` (wmistr.h).
pub const WNODE_FLAG_TRACED_GUID: u32 = etwsim::win32::WNODE_FLAG_TRACED_GUID;
/// `WNODE_FLAG_USE_GUID_PTR` (wmistr.h).
pub const WNODE_FLAG_USE_GUID_PTR: u32 = 0x80000;
/// `WNODE_FLAG_USE_MOF_PTR` (wmistr.h).
pub const WNODE_FLAG_USE_MOF_PTR: u32 = 0x100000;
/// `WNODE_FLAG_USE_TIMESTAMP` (wmistr.h).
pub const WNODE_FLAG_USE_TIMESTAMP: u32 = 0x200;
/// `WNODE_FLAG_VERSIONED_PROPERTIES` (wmistr.h).
pub const WNODE_FLAG_VERSIONED_PROPERTIES: u32 = etwsim::win32::WNODE_FLAG_VERSIONED_PROPERTIES;
