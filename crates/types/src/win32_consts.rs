//! Windows constants that more than one etwsim crate knows and that no other type here
//! carries: the `Wnode.Flags` bits of a session's properties, the versions of
//! `ENABLE_TRACE_PARAMETERS`, OpenTrace's `ProcessTraceMode` bits, the `Type` of an
//! `EVENT_DATA_DESCRIPTOR` and the EnumerateTraceGuidsEx classes etwsim implements.
//!
//! Each value is written here once, under its Windows name, and the Win32 face
//! (`etwsim::win32`) and the C ABI (`etwsim-sys`, whose `etwsim.h` repeats them for C) refer
//! to it. Values with a type of their own are not here: modes are [`LogFileMode`](crate::LogFileMode),
//! levels [`Level`](crate::Level), filter types [`FilterType`](crate::FilterType), control
//! codes [`TraceControl`](crate::TraceControl) and [`ControlCode`](crate::ControlCode),
//! error codes [`Win32Error`](crate::Win32Error), record flags the [`record`](crate::record)
//! module. Values only the engine implements are where the engine defines them (for example
//! `MAX_EVENT_FILTERS_COUNT` in the kernel's filter module).

/// `WNODE_FLAG_TRACED_GUID` (wmistr.h): set in `EVENT_TRACE_PROPERTIES.Wnode.Flags` for a
/// session, and in an `EVENT_TRACE_HEADER`'s `Flags` for TraceEvent (SES-22).
pub const WNODE_FLAG_TRACED_GUID: u32 = 0x0002_0000;
/// `WNODE_FLAG_VERSIONED_PROPERTIES` (wmistr.h): the `EVENT_TRACE_PROPERTIES_V2` tail is
/// present (SES-22).
pub const WNODE_FLAG_VERSIONED_PROPERTIES: u32 = 0x0080_0000;

/// `ENABLE_TRACE_PARAMETERS_VERSION` (evntrace.h): the first `ENABLE_TRACE_PARAMETERS`
/// layout, with `EnableFilterDesc` but no `FilterDescCount`.
pub const ENABLE_TRACE_PARAMETERS_VERSION: u32 = 1;
/// `ENABLE_TRACE_PARAMETERS_VERSION_2` (evntrace.h): the layout with `FilterDescCount`.
pub const ENABLE_TRACE_PARAMETERS_VERSION_2: u32 = 2;

/// `PROCESS_TRACE_MODE_REAL_TIME` (evntcons.h): `EVENT_TRACE_LOGFILE.ProcessTraceMode` for
/// a real-time session rather than a log file (CON-02).
pub const PROCESS_TRACE_MODE_REAL_TIME: u32 = 0x0000_0100;
/// `PROCESS_TRACE_MODE_RAW_TIMESTAMP` (evntcons.h): timestamps as recorded, not converted to
/// system time (CON-02).
pub const PROCESS_TRACE_MODE_RAW_TIMESTAMP: u32 = 0x0000_1000;
/// `PROCESS_TRACE_MODE_EVENT_RECORD` (evntcons.h): `EventRecordCallback` with an
/// `EVENT_RECORD` rather than `EventCallback` with an `EVENT_TRACE` (CON-02).
pub const PROCESS_TRACE_MODE_EVENT_RECORD: u32 = 0x1000_0000;

/// `EVENT_DATA_DESCRIPTOR_TYPE_NONE` (evntprov.h): the block is event payload (EVT-12).
pub const EVENT_DATA_DESCRIPTOR_TYPE_NONE: u8 = 0;
/// `EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA` (evntprov.h): a TraceLogging event's metadata
/// (EVT-12).
pub const EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA: u8 = 1;
/// `EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA` (evntprov.h): provider traits attached to
/// this event (EVT-12).
pub const EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA: u8 = 2;
/// `EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE` (evntprov.h): a 64-bit timestamp for the
/// event, for relogging (EVT-12).
pub const EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE: u8 = 3;

/// `TraceGuidQueryList` (evntrace.h, `TRACE_QUERY_INFO_CLASS` 0): EnumerateTraceGuidsEx
/// lists the registered provider GUIDs.
#[doc(alias = "TraceGuidQueryList")]
pub const TRACE_GUID_QUERY_LIST: u32 = 0;
/// `TraceGuidQueryInfo` (evntrace.h, `TRACE_QUERY_INFO_CLASS` 1): EnumerateTraceGuidsEx
/// returns one provider's `TRACE_GUID_INFO`.
#[doc(alias = "TraceGuidQueryInfo")]
pub const TRACE_GUID_QUERY_INFO: u32 = 1;
/// `TraceGuidQueryProcess` (evntrace.h, `TRACE_QUERY_INFO_CLASS` 2): EnumerateTraceGuidsEx
/// lists the providers the calling process registered.
#[doc(alias = "TraceGuidQueryProcess")]
pub const TRACE_GUID_QUERY_PROCESS: u32 = 2;
