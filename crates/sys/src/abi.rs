//! The C types of evntrace.h, evntprov.h, evntcons.h and wmistr.h, laid out as on 64-bit
//! Windows, with the names (and union member names) the windows-sys crate gives them.
//!
//! Every structure is `#[repr(C)]` and checked at compile time against the documented x64
//! size and the offsets that matter (`const _: () = assert!(…)`); the tests compare each
//! with its windows-sys twin too.

#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;
use std::mem::{offset_of, size_of};

/// `GUID` (guiddef.h): the layout of `windows_sys::core::GUID`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GUID {
    /// `Data1`.
    pub data1: u32,
    /// `Data2`.
    pub data2: u16,
    /// `Data3`.
    pub data3: u16,
    /// `Data4`.
    pub data4: [u8; 8],
}

impl GUID {
    /// The GUID whose canonical text is the hex digits of `uuid`, as `GUID::from_u128` in
    /// windows-sys.
    pub const fn from_u128(uuid: u128) -> GUID {
        GUID {
            data1: (uuid >> 96) as u32,
            data2: (uuid >> 80 & 0xffff) as u16,
            data3: (uuid >> 64 & 0xffff) as u16,
            data4: (uuid as u64).to_be_bytes(),
        }
    }
}

impl From<etwsim::Guid> for GUID {
    fn from(g: etwsim::Guid) -> GUID {
        let (data1, data2, data3, data4) = g.fields();
        GUID {
            data1,
            data2,
            data3,
            data4,
        }
    }
}

impl From<GUID> for etwsim::Guid {
    fn from(g: GUID) -> etwsim::Guid {
        etwsim::Guid::from_fields(g.data1, g.data2, g.data3, g.data4)
    }
}

/// `PCWSTR`: a NUL-terminated UTF-16 string.
pub type PCWSTR = *const u16;
/// `PWSTR`.
pub type PWSTR = *mut u16;
/// `PCSTR`: a NUL-terminated ANSI string (Latin-1 here, see the crate docs).
pub type PCSTR = *const u8;
/// `PSTR`.
pub type PSTR = *mut u8;
/// `BOOL` (a 32-bit integer).
pub type BOOL = i32;
/// `BOOLEAN` (one byte).
pub type BOOLEAN = u8;
/// `HANDLE`.
pub type HANDLE = *mut c_void;
/// `WIN32_ERROR`: a winerror.h code.
pub type WIN32_ERROR = u32;
/// `REGHANDLE`: an EventRegister registration (windows-sys types it `i64`).
pub type REGHANDLE = i64;
/// `TRACEHANDLE`: a session, registration or logger handle.
pub type TRACEHANDLE = u64;
/// `EVENT_TRACE_CONTROL`: a ControlTrace code.
pub type EVENT_TRACE_CONTROL = u32;
/// `EVENT_TRACE_FLAG`: kernel EnableFlags.
pub type EVENT_TRACE_FLAG = u32;
/// `ENABLECALLBACK_ENABLED_STATE`: IsEnabled of an enable callback.
pub type ENABLECALLBACK_ENABLED_STATE = u32;
/// `TRACE_QUERY_INFO_CLASS` / `TRACE_INFO_CLASS`.
pub type TRACE_QUERY_INFO_CLASS = i32;
/// `EVENT_INFO_CLASS`: EventSetInformation's class.
pub type EVENT_INFO_CLASS = i32;
/// `WMIDPREQUESTCODE`: a classic control callback's request.
pub type WMIDPREQUESTCODE = i32;

/// `CONTROLTRACE_HANDLE` (`CONTROLTRACE_ID`): a session handle, as windows-sys wraps it.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CONTROLTRACE_HANDLE {
    /// The 64-bit value.
    pub Value: u64,
}

/// `PROCESSTRACE_HANDLE`: an OpenTrace handle, as windows-sys wraps it.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PROCESSTRACE_HANDLE {
    /// The 64-bit value.
    pub Value: u64,
}

/// `FILETIME`: 100-ns intervals since 1601-01-01 UTC, in two halves.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FILETIME {
    /// Low 32 bits.
    pub dwLowDateTime: u32,
    /// High 32 bits.
    pub dwHighDateTime: u32,
}

impl FILETIME {
    /// The 64-bit value.
    pub fn to_i64(self) -> i64 {
        (u64::from(self.dwHighDateTime) << 32 | u64::from(self.dwLowDateTime)) as i64
    }
}

/// `SYSTEMTIME` (minwinbase.h).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SYSTEMTIME {
    /// `wYear`.
    pub wYear: u16,
    /// `wMonth`.
    pub wMonth: u16,
    /// `wDayOfWeek`.
    pub wDayOfWeek: u16,
    /// `wDay`.
    pub wDay: u16,
    /// `wHour`.
    pub wHour: u16,
    /// `wMinute`.
    pub wMinute: u16,
    /// `wSecond`.
    pub wSecond: u16,
    /// `wMilliseconds`.
    pub wMilliseconds: u16,
}

/// `TIME_ZONE_INFORMATION` (timezoneapi.h).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TIME_ZONE_INFORMATION {
    /// `Bias` in minutes.
    pub Bias: i32,
    /// `StandardName`.
    pub StandardName: [u16; 32],
    /// `StandardDate`.
    pub StandardDate: SYSTEMTIME,
    /// `StandardBias`.
    pub StandardBias: i32,
    /// `DaylightName`.
    pub DaylightName: [u16; 32],
    /// `DaylightDate`.
    pub DaylightDate: SYSTEMTIME,
    /// `DaylightBias`.
    pub DaylightBias: i32,
}

/// `WNODE_HEADER` (wmistr.h): the head of `EVENT_TRACE_PROPERTIES`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct WNODE_HEADER {
    /// `BufferSize`: bytes of the whole block, strings included.
    pub BufferSize: u32,
    /// `ProviderId`.
    pub ProviderId: u32,
    /// `HistoricalContext` (the session handle) / `Version`, `Linkage`.
    pub Anonymous1: WNODE_HEADER_0,
    /// `CountLost` / `KernelHandle` / `TimeStamp`.
    pub Anonymous2: WNODE_HEADER_1,
    /// `Guid`: the session GUID.
    pub Guid: GUID,
    /// `ClientContext`: the clock type.
    pub ClientContext: u32,
    /// `Flags`: `WNODE_FLAG_TRACED_GUID` for a session.
    pub Flags: u32,
}

/// `WNODE_HEADER`'s first union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union WNODE_HEADER_0 {
    /// `HistoricalContext`: the session handle.
    pub HistoricalContext: u64,
    /// `Version`, `Linkage`.
    pub Anonymous: WNODE_HEADER_0_0,
}

/// `WNODE_HEADER`'s `Version` and `Linkage`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct WNODE_HEADER_0_0 {
    /// `Version`.
    pub Version: u32,
    /// `Linkage`.
    pub Linkage: u32,
}

/// `WNODE_HEADER`'s second union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union WNODE_HEADER_1 {
    /// `CountLost`.
    pub CountLost: u32,
    /// `KernelHandle`.
    pub KernelHandle: HANDLE,
    /// `TimeStamp`.
    pub TimeStamp: i64,
}

/// `EVENT_TRACE_PROPERTIES` (evntrace.h), followed in memory by the caller's string space.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct EVENT_TRACE_PROPERTIES {
    /// `Wnode`.
    pub Wnode: WNODE_HEADER,
    /// `BufferSize` (KB).
    pub BufferSize: u32,
    /// `MinimumBuffers`.
    pub MinimumBuffers: u32,
    /// `MaximumBuffers`.
    pub MaximumBuffers: u32,
    /// `MaximumFileSize`.
    pub MaximumFileSize: u32,
    /// `LogFileMode`.
    pub LogFileMode: u32,
    /// `FlushTimer`.
    pub FlushTimer: u32,
    /// `EnableFlags`.
    pub EnableFlags: EVENT_TRACE_FLAG,
    /// `AgeLimit` / `FlushThreshold`.
    pub Anonymous: EVENT_TRACE_PROPERTIES_0,
    /// `NumberOfBuffers`.
    pub NumberOfBuffers: u32,
    /// `FreeBuffers`.
    pub FreeBuffers: u32,
    /// `EventsLost`.
    pub EventsLost: u32,
    /// `BuffersWritten`.
    pub BuffersWritten: u32,
    /// `LogBuffersLost`.
    pub LogBuffersLost: u32,
    /// `RealTimeBuffersLost`.
    pub RealTimeBuffersLost: u32,
    /// `LoggerThreadId`.
    pub LoggerThreadId: HANDLE,
    /// `LogFileNameOffset`.
    pub LogFileNameOffset: u32,
    /// `LoggerNameOffset`.
    pub LoggerNameOffset: u32,
}

/// `EVENT_TRACE_PROPERTIES`'s `AgeLimit` / `FlushThreshold`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_TRACE_PROPERTIES_0 {
    /// `AgeLimit`.
    pub AgeLimit: i32,
    /// `FlushThreshold`.
    pub FlushThreshold: i32,
}

/// `EVENT_FILTER_DESCRIPTOR` (evntprov.h).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EVENT_FILTER_DESCRIPTOR {
    /// `Ptr`: the filter's bytes.
    pub Ptr: u64,
    /// `Size`.
    pub Size: u32,
    /// `Type`: `EVENT_FILTER_TYPE_*`.
    pub Type: u32,
}

/// `EVENT_FILTER_HEADER` (evntprov.h): a schematized filter block.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EVENT_FILTER_HEADER {
    /// `Id`.
    pub Id: u16,
    /// `Version`.
    pub Version: u8,
    /// `Reserved`.
    pub Reserved: [u8; 5],
    /// `InstanceId`: the session's bit for EventWriteEx's Filter.
    pub InstanceId: u64,
    /// `Size`.
    pub Size: u32,
    /// `NextOffset`.
    pub NextOffset: u32,
}

/// `ENABLE_TRACE_PARAMETERS` (evntrace.h).
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct ENABLE_TRACE_PARAMETERS {
    /// `Version`: `ENABLE_TRACE_PARAMETERS_VERSION_2`.
    pub Version: u32,
    /// `EnableProperty`.
    pub EnableProperty: u32,
    /// `ControlFlags`: reserved, 0.
    pub ControlFlags: u32,
    /// `SourceId`.
    pub SourceId: GUID,
    /// `EnableFilterDesc`.
    pub EnableFilterDesc: *mut EVENT_FILTER_DESCRIPTOR,
    /// `FilterDescCount`.
    pub FilterDescCount: u32,
}

/// `EVENT_DESCRIPTOR` (evntprov.h).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EVENT_DESCRIPTOR {
    /// `Id`.
    pub Id: u16,
    /// `Version`.
    pub Version: u8,
    /// `Channel`.
    pub Channel: u8,
    /// `Level`.
    pub Level: u8,
    /// `Opcode`.
    pub Opcode: u8,
    /// `Task`.
    pub Task: u16,
    /// `Keyword`.
    pub Keyword: u64,
}

impl From<&EVENT_DESCRIPTOR> for etwsim::EventDescriptor {
    fn from(d: &EVENT_DESCRIPTOR) -> etwsim::EventDescriptor {
        etwsim::EventDescriptor {
            id: d.Id,
            version: d.Version,
            channel: etwsim::Channel(d.Channel),
            level: etwsim::Level(d.Level),
            opcode: etwsim::Opcode(d.Opcode),
            task: etwsim::Task(d.Task),
            keyword: etwsim::Keyword(d.Keyword),
        }
    }
}

impl From<&etwsim::EventDescriptor> for EVENT_DESCRIPTOR {
    fn from(d: &etwsim::EventDescriptor) -> EVENT_DESCRIPTOR {
        EVENT_DESCRIPTOR {
            Id: d.id,
            Version: d.version,
            Channel: d.channel.0,
            Level: d.level.0,
            Opcode: d.opcode.0,
            Task: d.task.0,
            Keyword: d.keyword.0,
        }
    }
}

/// `EVENT_DATA_DESCRIPTOR` (evntprov.h): one block of an event's payload.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct EVENT_DATA_DESCRIPTOR {
    /// `Ptr`: the block's address.
    pub Ptr: u64,
    /// `Size` in bytes.
    pub Size: u32,
    /// `Reserved` / `Type`.
    pub Anonymous: EVENT_DATA_DESCRIPTOR_0,
}

/// `EVENT_DATA_DESCRIPTOR`'s `Reserved` / `Type` union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_DATA_DESCRIPTOR_0 {
    /// `Reserved`: 0.
    pub Reserved: u32,
    /// `Type`, `Reserved1`, `Reserved2`.
    pub Anonymous: EVENT_DATA_DESCRIPTOR_0_0,
}

/// `EVENT_DATA_DESCRIPTOR`'s `Type` byte and the rest.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct EVENT_DATA_DESCRIPTOR_0_0 {
    /// `Type`: `EVENT_DATA_DESCRIPTOR_TYPE_*`.
    pub Type: u8,
    /// `Reserved1`.
    pub Reserved1: u8,
    /// `Reserved2`.
    pub Reserved2: u16,
}

/// `ETW_BUFFER_CONTEXT` (evntcons.h).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct ETW_BUFFER_CONTEXT {
    /// `ProcessorNumber`, `Alignment` / `ProcessorIndex`.
    pub Anonymous: ETW_BUFFER_CONTEXT_0,
    /// `LoggerId`.
    pub LoggerId: u16,
}

/// `ETW_BUFFER_CONTEXT`'s processor union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union ETW_BUFFER_CONTEXT_0 {
    /// `ProcessorNumber`, `Alignment`.
    pub Anonymous: ETW_BUFFER_CONTEXT_0_0,
    /// `ProcessorIndex`.
    pub ProcessorIndex: u16,
}

/// `ETW_BUFFER_CONTEXT`'s `ProcessorNumber` and `Alignment`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct ETW_BUFFER_CONTEXT_0_0 {
    /// `ProcessorNumber`.
    pub ProcessorNumber: u8,
    /// `Alignment`.
    pub Alignment: u8,
}

/// `EVENT_HEADER` (evntcons.h).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct EVENT_HEADER {
    /// `Size`.
    pub Size: u16,
    /// `HeaderType`.
    pub HeaderType: u16,
    /// `Flags`: `EVENT_HEADER_FLAG_*`.
    pub Flags: u16,
    /// `EventProperty`.
    pub EventProperty: u16,
    /// `ThreadId`.
    pub ThreadId: u32,
    /// `ProcessId`.
    pub ProcessId: u32,
    /// `TimeStamp`.
    pub TimeStamp: i64,
    /// `ProviderId`.
    pub ProviderId: GUID,
    /// `EventDescriptor`.
    pub EventDescriptor: EVENT_DESCRIPTOR,
    /// `KernelTime`, `UserTime` / `ProcessorTime`.
    pub Anonymous: EVENT_HEADER_0,
    /// `ActivityId`.
    pub ActivityId: GUID,
}

/// `EVENT_HEADER`'s CPU-time union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_HEADER_0 {
    /// `KernelTime`, `UserTime`.
    pub Anonymous: EVENT_HEADER_0_0,
    /// `ProcessorTime`.
    pub ProcessorTime: u64,
}

/// `EVENT_HEADER`'s `KernelTime` and `UserTime`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct EVENT_HEADER_0_0 {
    /// `KernelTime`.
    pub KernelTime: u32,
    /// `UserTime`.
    pub UserTime: u32,
}

/// `EVENT_HEADER_EXTENDED_DATA_ITEM` (evntcons.h).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct EVENT_HEADER_EXTENDED_DATA_ITEM {
    /// `Reserved1`.
    pub Reserved1: u16,
    /// `ExtType`: `EVENT_HEADER_EXT_TYPE_*`.
    pub ExtType: u16,
    /// `Linkage:1`, `Reserved2:15`.
    pub Anonymous: EVENT_HEADER_EXTENDED_DATA_ITEM_0,
    /// `DataSize`.
    pub DataSize: u16,
    /// `DataPtr`.
    pub DataPtr: u64,
}

/// `EVENT_HEADER_EXTENDED_DATA_ITEM`'s bit field.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct EVENT_HEADER_EXTENDED_DATA_ITEM_0 {
    /// `Linkage` (bit 0) and `Reserved2`.
    pub _bitfield: u16,
}

/// `EVENT_RECORD` (evntcons.h): what EventRecordCallback receives.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct EVENT_RECORD {
    /// `EventHeader`.
    pub EventHeader: EVENT_HEADER,
    /// `BufferContext`.
    pub BufferContext: ETW_BUFFER_CONTEXT,
    /// `ExtendedDataCount`.
    pub ExtendedDataCount: u16,
    /// `UserDataLength`.
    pub UserDataLength: u16,
    /// `ExtendedData`.
    pub ExtendedData: *mut EVENT_HEADER_EXTENDED_DATA_ITEM,
    /// `UserData`.
    pub UserData: *mut c_void,
    /// `UserContext`: `EVENT_TRACE_LOGFILE.Context`.
    pub UserContext: *mut c_void,
}

/// `EVENT_TRACE_HEADER` (evntrace.h): a classic event's header.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct EVENT_TRACE_HEADER {
    /// `Size`: header and MOF data.
    pub Size: u16,
    /// `FieldTypeFlags` / `HeaderType`, `MarkerFlags`.
    pub Anonymous1: EVENT_TRACE_HEADER_0,
    /// `Version` / `Class`.
    pub Anonymous2: EVENT_TRACE_HEADER_1,
    /// `ThreadId`.
    pub ThreadId: u32,
    /// `ProcessId`.
    pub ProcessId: u32,
    /// `TimeStamp`.
    pub TimeStamp: i64,
    /// `Guid` / `GuidPtr`.
    pub Anonymous3: EVENT_TRACE_HEADER_2,
    /// `KernelTime`, `UserTime` / `ProcessorTime` / `ClientContext`, `Flags`.
    pub Anonymous4: EVENT_TRACE_HEADER_3,
}

/// `EVENT_TRACE_HEADER`'s first union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_TRACE_HEADER_0 {
    /// `FieldTypeFlags`.
    pub FieldTypeFlags: u16,
    /// `HeaderType`, `MarkerFlags`.
    pub Anonymous: EVENT_TRACE_HEADER_0_0,
}

/// `EVENT_TRACE_HEADER`'s `HeaderType` and `MarkerFlags`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct EVENT_TRACE_HEADER_0_0 {
    /// `HeaderType`.
    pub HeaderType: u8,
    /// `MarkerFlags`.
    pub MarkerFlags: u8,
}

/// `EVENT_TRACE_HEADER`'s `Version` / `Class`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_TRACE_HEADER_1 {
    /// `Version`.
    pub Version: u32,
    /// `Class`.
    pub Class: EVENT_TRACE_HEADER_1_0,
}

/// `EVENT_TRACE_HEADER`'s `Class`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct EVENT_TRACE_HEADER_1_0 {
    /// `Type`: the opcode.
    pub Type: u8,
    /// `Level`.
    pub Level: u8,
    /// `Version`.
    pub Version: u16,
}

/// `EVENT_TRACE_HEADER`'s `Guid` / `GuidPtr`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_TRACE_HEADER_2 {
    /// `Guid`.
    pub Guid: GUID,
    /// `GuidPtr`.
    pub GuidPtr: u64,
}

/// `EVENT_TRACE_HEADER`'s last union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_TRACE_HEADER_3 {
    /// `KernelTime`, `UserTime`.
    pub Anonymous1: EVENT_TRACE_HEADER_3_0,
    /// `ProcessorTime`.
    pub ProcessorTime: u64,
    /// `ClientContext`, `Flags`.
    pub Anonymous2: EVENT_TRACE_HEADER_3_1,
}

/// `EVENT_TRACE_HEADER`'s `KernelTime` and `UserTime`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct EVENT_TRACE_HEADER_3_0 {
    /// `KernelTime`.
    pub KernelTime: u32,
    /// `UserTime`.
    pub UserTime: u32,
}

/// `EVENT_TRACE_HEADER`'s `ClientContext` and `Flags`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct EVENT_TRACE_HEADER_3_1 {
    /// `ClientContext`.
    pub ClientContext: u32,
    /// `Flags`: `WNODE_FLAG_*`.
    pub Flags: u32,
}

/// `MOF_FIELD` (evntrace.h): one block of a classic event's data, when the
/// `EVENT_TRACE_HEADER` has WNODE_FLAG_USE_MOF_PTR (an array of these follows the header).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MOF_FIELD {
    /// `DataPtr`: the block's address.
    pub DataPtr: u64,
    /// `Length`: bytes at `DataPtr`.
    pub Length: u32,
    /// `DataType`: reserved.
    pub DataType: u32,
}

/// `EVENT_TRACE` (evntrace.h): what the legacy EventCallback receives.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct EVENT_TRACE {
    /// `Header`.
    pub Header: EVENT_TRACE_HEADER,
    /// `InstanceId`.
    pub InstanceId: u32,
    /// `ParentInstanceId`.
    pub ParentInstanceId: u32,
    /// `ParentGuid`.
    pub ParentGuid: GUID,
    /// `MofData`: the payload.
    pub MofData: *mut c_void,
    /// `MofLength`.
    pub MofLength: u32,
    /// `ClientContext` / `BufferContext`.
    pub Anonymous: EVENT_TRACE_0,
}

/// `EVENT_TRACE`'s `ClientContext` / `BufferContext`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union EVENT_TRACE_0 {
    /// `ClientContext`.
    pub ClientContext: u32,
    /// `BufferContext`.
    pub BufferContext: ETW_BUFFER_CONTEXT,
}

/// `TRACE_LOGFILE_HEADER` (evntrace.h): a log file's header as OpenTrace returns it.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct TRACE_LOGFILE_HEADER {
    /// `BufferSize` in bytes.
    pub BufferSize: u32,
    /// `Version` / `VersionDetail`.
    pub Anonymous1: TRACE_LOGFILE_HEADER_0,
    /// `ProviderVersion`.
    pub ProviderVersion: u32,
    /// `NumberOfProcessors`.
    pub NumberOfProcessors: u32,
    /// `EndTime`.
    pub EndTime: i64,
    /// `TimerResolution`.
    pub TimerResolution: u32,
    /// `MaximumFileSize`.
    pub MaximumFileSize: u32,
    /// `LogFileMode`.
    pub LogFileMode: u32,
    /// `BuffersWritten`.
    pub BuffersWritten: u32,
    /// `LogInstanceGuid` / `StartBuffers`, `PointerSize`, `EventsLost`, `CpuSpeedInMHz`.
    pub Anonymous2: TRACE_LOGFILE_HEADER_1,
    /// `LoggerName`.
    pub LoggerName: PWSTR,
    /// `LogFileName`.
    pub LogFileName: PWSTR,
    /// `TimeZone`.
    pub TimeZone: TIME_ZONE_INFORMATION,
    /// `BootTime`.
    pub BootTime: i64,
    /// `PerfFreq`.
    pub PerfFreq: i64,
    /// `StartTime`.
    pub StartTime: i64,
    /// `ReservedFlags`: the clock type.
    pub ReservedFlags: u32,
    /// `BuffersLost`.
    pub BuffersLost: u32,
}

/// `TRACE_LOGFILE_HEADER`'s `Version` / `VersionDetail`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union TRACE_LOGFILE_HEADER_0 {
    /// `Version`.
    pub Version: u32,
    /// `VersionDetail`.
    pub VersionDetail: TRACE_LOGFILE_HEADER_0_0,
}

/// `TRACE_LOGFILE_HEADER`'s `VersionDetail`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct TRACE_LOGFILE_HEADER_0_0 {
    /// `MajorVersion`.
    pub MajorVersion: u8,
    /// `MinorVersion`.
    pub MinorVersion: u8,
    /// `SubVersion`.
    pub SubVersion: u8,
    /// `SubMinorVersion`.
    pub SubMinorVersion: u8,
}

/// `TRACE_LOGFILE_HEADER`'s second union.
#[repr(C)]
#[derive(Copy, Clone)]
pub union TRACE_LOGFILE_HEADER_1 {
    /// `LogInstanceGuid`.
    pub LogInstanceGuid: GUID,
    /// `StartBuffers`, `PointerSize`, `EventsLost`, `CpuSpeedInMHz`.
    pub Anonymous: TRACE_LOGFILE_HEADER_1_0,
}

/// `TRACE_LOGFILE_HEADER`'s `StartBuffers` … `CpuSpeedInMHz`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct TRACE_LOGFILE_HEADER_1_0 {
    /// `StartBuffers`.
    pub StartBuffers: u32,
    /// `PointerSize`.
    pub PointerSize: u32,
    /// `EventsLost`.
    pub EventsLost: u32,
    /// `CpuSpeedInMHz`.
    pub CpuSpeedInMHz: u32,
}

/// `PEVENT_RECORD_CALLBACK`.
pub type PEVENT_RECORD_CALLBACK = Option<unsafe extern "system" fn(eventrecord: *mut EVENT_RECORD)>;
/// `PEVENT_CALLBACK`: the legacy EventCallback.
pub type PEVENT_CALLBACK = Option<unsafe extern "system" fn(pevent: *mut EVENT_TRACE)>;
/// `PEVENT_TRACE_BUFFER_CALLBACKW`: return 0 (FALSE) to stop ProcessTrace.
pub type PEVENT_TRACE_BUFFER_CALLBACKW =
    Option<unsafe extern "system" fn(logfile: *mut EVENT_TRACE_LOGFILEW) -> u32>;
/// `PEVENT_TRACE_BUFFER_CALLBACKA`.
pub type PEVENT_TRACE_BUFFER_CALLBACKA =
    Option<unsafe extern "system" fn(logfile: *mut EVENT_TRACE_LOGFILEA) -> u32>;
/// `PENABLECALLBACK`.
pub type PENABLECALLBACK = Option<
    unsafe extern "system" fn(
        sourceid: *const GUID,
        isenabled: ENABLECALLBACK_ENABLED_STATE,
        level: u8,
        matchanykeyword: u64,
        matchallkeyword: u64,
        filterdata: *const EVENT_FILTER_DESCRIPTOR,
        callbackcontext: *mut c_void,
    ),
>;
/// `WMIDPREQUEST`: a classic provider's control callback.
pub type WMIDPREQUEST = Option<
    unsafe extern "system" fn(
        requestcode: WMIDPREQUESTCODE,
        requestcontext: *const c_void,
        buffersize: *mut u32,
        buffer: *mut c_void,
    ) -> u32,
>;

macro_rules! logfile {
    ($(#[$doc:meta])* $name:ident, $u0:ident, $u1:ident, $str:ty, $cb:ty) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Copy, Clone)]
        pub struct $name {
            /// `LogFileName`.
            pub LogFileName: $str,
            /// `LoggerName`.
            pub LoggerName: $str,
            /// `CurrentTime`.
            pub CurrentTime: i64,
            /// `BuffersRead`.
            pub BuffersRead: u32,
            /// `LogFileMode` / `ProcessTraceMode`.
            pub Anonymous1: $u0,
            /// `CurrentEvent`.
            pub CurrentEvent: EVENT_TRACE,
            /// `LogfileHeader`.
            pub LogfileHeader: TRACE_LOGFILE_HEADER,
            /// `BufferCallback`.
            pub BufferCallback: $cb,
            /// `BufferSize`.
            pub BufferSize: u32,
            /// `Filled`.
            pub Filled: u32,
            /// `EventsLost`.
            pub EventsLost: u32,
            /// `EventCallback` / `EventRecordCallback`.
            pub Anonymous2: $u1,
            /// `IsKernelTrace`.
            pub IsKernelTrace: u32,
            /// `Context`: passed to EventRecordCallback as `UserContext`.
            pub Context: *mut c_void,
        }

        /// `LogFileMode` / `ProcessTraceMode`.
        #[repr(C)]
        #[derive(Copy, Clone)]
        pub union $u0 {
            /// `LogFileMode`.
            pub LogFileMode: u32,
            /// `ProcessTraceMode`: `PROCESS_TRACE_MODE_*`.
            pub ProcessTraceMode: u32,
        }

        /// `EventCallback` / `EventRecordCallback`.
        #[repr(C)]
        #[derive(Copy, Clone)]
        pub union $u1 {
            /// `EventCallback`.
            pub EventCallback: PEVENT_CALLBACK,
            /// `EventRecordCallback`.
            pub EventRecordCallback: PEVENT_RECORD_CALLBACK,
        }
    };
}

logfile!(
    /// `EVENT_TRACE_LOGFILEW` (evntrace.h): what OpenTraceW opens and how to deliver it.
    EVENT_TRACE_LOGFILEW,
    EVENT_TRACE_LOGFILEW_0,
    EVENT_TRACE_LOGFILEW_1,
    PWSTR,
    PEVENT_TRACE_BUFFER_CALLBACKW
);
logfile!(
    /// `EVENT_TRACE_LOGFILEA`: the ANSI twin.
    EVENT_TRACE_LOGFILEA,
    EVENT_TRACE_LOGFILEA_0,
    EVENT_TRACE_LOGFILEA_1,
    PSTR,
    PEVENT_TRACE_BUFFER_CALLBACKA
);

/// `TRACE_GUID_REGISTRATION` (evntrace.h).
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct TRACE_GUID_REGISTRATION {
    /// `Guid`: an event class GUID.
    pub Guid: *const GUID,
    /// `RegHandle` (out).
    pub RegHandle: HANDLE,
}

/// `TRACE_GUID_INFO` (evntrace.h): the head of EnumerateTraceGuidsEx(TraceGuidQueryInfo).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TRACE_GUID_INFO {
    /// `InstanceCount`.
    pub InstanceCount: u32,
    /// `Reserved`.
    pub Reserved: u32,
}

/// `TRACE_PROVIDER_INSTANCE_INFO` (evntrace.h).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TRACE_PROVIDER_INSTANCE_INFO {
    /// `NextOffset`: bytes to the next instance, 0 for the last.
    pub NextOffset: u32,
    /// `EnableCount`: `TRACE_ENABLE_INFO`s that follow.
    pub EnableCount: u32,
    /// `Pid`.
    pub Pid: u32,
    /// `Flags`: `TRACE_PROVIDER_FLAG_*`.
    pub Flags: u32,
}

/// `TRACE_ENABLE_INFO` (evntrace.h).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TRACE_ENABLE_INFO {
    /// `IsEnabled`.
    pub IsEnabled: u32,
    /// `Level`.
    pub Level: u8,
    /// `Reserved1`.
    pub Reserved1: u8,
    /// `LoggerId`.
    pub LoggerId: u16,
    /// `EnableProperty`.
    pub EnableProperty: u32,
    /// `Reserved2`.
    pub Reserved2: u32,
    /// `MatchAnyKeyword`.
    pub MatchAnyKeyword: u64,
    /// `MatchAllKeyword`.
    pub MatchAllKeyword: u64,
}

/// `Default` as all-zero bytes, as windows-sys derives it for these plain C types.
macro_rules! zeroed_default {
    ($($t:ty),* $(,)?) => {$(
        impl Default for $t {
            fn default() -> Self {
                // SAFETY: the type is plain C data — integers, raw pointers, nullable
                // function pointers and unions of those — for which all-zero bytes are a
                // valid value (0, NULL, None).
                unsafe { std::mem::zeroed() }
            }
        }
    )*};
}

zeroed_default!(
    WNODE_HEADER,
    WNODE_HEADER_0,
    WNODE_HEADER_1,
    EVENT_TRACE_PROPERTIES,
    EVENT_TRACE_PROPERTIES_0,
    ENABLE_TRACE_PARAMETERS,
    EVENT_DATA_DESCRIPTOR,
    EVENT_DATA_DESCRIPTOR_0,
    ETW_BUFFER_CONTEXT,
    ETW_BUFFER_CONTEXT_0,
    EVENT_HEADER,
    EVENT_HEADER_0,
    EVENT_HEADER_EXTENDED_DATA_ITEM,
    EVENT_RECORD,
    EVENT_TRACE_HEADER,
    EVENT_TRACE_HEADER_0,
    EVENT_TRACE_HEADER_1,
    EVENT_TRACE_HEADER_2,
    EVENT_TRACE_HEADER_3,
    EVENT_TRACE,
    EVENT_TRACE_0,
    TRACE_LOGFILE_HEADER,
    TRACE_LOGFILE_HEADER_0,
    TRACE_LOGFILE_HEADER_1,
    EVENT_TRACE_LOGFILEW,
    EVENT_TRACE_LOGFILEW_0,
    EVENT_TRACE_LOGFILEW_1,
    EVENT_TRACE_LOGFILEA,
    EVENT_TRACE_LOGFILEA_0,
    EVENT_TRACE_LOGFILEA_1,
    TRACE_GUID_REGISTRATION,
);

/// `INVALID_PROCESSTRACE_HANDLE` for 64-bit callers: what a failed OpenTrace returns.
pub const INVALID_PROCESSTRACE_HANDLE: u64 = etwsim::win32::INVALID_PROCESSTRACE_HANDLE;
/// `KERNEL_LOGGER_NAMEW` as UTF-16 with its NUL.
const KERNEL_LOGGER_NAME_UNITS: [u16; 17] = {
    let b = b"NT Kernel Logger\0";
    let mut out = [0u16; 17];
    let mut i = 0;
    while i < 17 {
        out[i] = b[i] as u16;
        i += 1;
    }
    out
};
/// `KERNEL_LOGGER_NAMEW`: `L"NT Kernel Logger"`.
pub const KERNEL_LOGGER_NAMEW: PCWSTR = &KERNEL_LOGGER_NAME_UNITS as *const [u16; 17] as PCWSTR;

include!("consts.rs");

// The documented x64 sizes and the offsets a mistake would move.
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(size_of::<GUID>() == 16);
    assert!(size_of::<FILETIME>() == 8);
    assert!(size_of::<SYSTEMTIME>() == 16);
    assert!(size_of::<TIME_ZONE_INFORMATION>() == 172);
    assert!(size_of::<WNODE_HEADER>() == 48);
    assert!(offset_of!(WNODE_HEADER, Anonymous1) == 8);
    assert!(offset_of!(WNODE_HEADER, Guid) == 24);
    assert!(offset_of!(WNODE_HEADER, ClientContext) == 40);
    assert!(offset_of!(WNODE_HEADER, Flags) == 44);
    assert!(size_of::<EVENT_TRACE_PROPERTIES>() == 120);
    assert!(offset_of!(EVENT_TRACE_PROPERTIES, BufferSize) == 48);
    assert!(offset_of!(EVENT_TRACE_PROPERTIES, LogFileMode) == 64);
    assert!(offset_of!(EVENT_TRACE_PROPERTIES, LoggerThreadId) == 104);
    assert!(offset_of!(EVENT_TRACE_PROPERTIES, LogFileNameOffset) == 112);
    assert!(offset_of!(EVENT_TRACE_PROPERTIES, LoggerNameOffset) == 116);
    assert!(size_of::<EVENT_FILTER_DESCRIPTOR>() == 16);
    assert!(size_of::<EVENT_FILTER_HEADER>() == 24);
    assert!(size_of::<ENABLE_TRACE_PARAMETERS>() == 48);
    assert!(offset_of!(ENABLE_TRACE_PARAMETERS, SourceId) == 12);
    assert!(offset_of!(ENABLE_TRACE_PARAMETERS, EnableFilterDesc) == 32);
    assert!(offset_of!(ENABLE_TRACE_PARAMETERS, FilterDescCount) == 40);
    assert!(size_of::<EVENT_DESCRIPTOR>() == 16);
    assert!(offset_of!(EVENT_DESCRIPTOR, Keyword) == 8);
    assert!(size_of::<EVENT_DATA_DESCRIPTOR>() == 16);
    assert!(size_of::<ETW_BUFFER_CONTEXT>() == 4);
    assert!(size_of::<EVENT_HEADER>() == 80);
    assert!(offset_of!(EVENT_HEADER, TimeStamp) == 16);
    assert!(offset_of!(EVENT_HEADER, ProviderId) == 24);
    assert!(offset_of!(EVENT_HEADER, EventDescriptor) == 40);
    assert!(offset_of!(EVENT_HEADER, ActivityId) == 64);
    assert!(size_of::<EVENT_HEADER_EXTENDED_DATA_ITEM>() == 16);
    assert!(offset_of!(EVENT_HEADER_EXTENDED_DATA_ITEM, DataPtr) == 8);
    assert!(size_of::<EVENT_RECORD>() == 112);
    assert!(offset_of!(EVENT_RECORD, BufferContext) == 80);
    assert!(offset_of!(EVENT_RECORD, ExtendedData) == 88);
    assert!(offset_of!(EVENT_RECORD, UserContext) == 104);
    assert!(size_of::<EVENT_TRACE_HEADER>() == 48);
    assert!(offset_of!(EVENT_TRACE_HEADER, Anonymous3) == 24);
    assert!(size_of::<MOF_FIELD>() == 16);
    assert!(size_of::<EVENT_TRACE>() == 88);
    assert!(offset_of!(EVENT_TRACE, MofData) == 72);
    assert!(size_of::<TRACE_LOGFILE_HEADER>() == 280);
    assert!(offset_of!(TRACE_LOGFILE_HEADER, LoggerName) == 56);
    assert!(offset_of!(TRACE_LOGFILE_HEADER, TimeZone) == 72);
    assert!(offset_of!(TRACE_LOGFILE_HEADER, BootTime) == 248);
    assert!(size_of::<EVENT_TRACE_LOGFILEW>() == 448);
    assert!(offset_of!(EVENT_TRACE_LOGFILEW, CurrentEvent) == 32);
    assert!(offset_of!(EVENT_TRACE_LOGFILEW, LogfileHeader) == 120);
    assert!(offset_of!(EVENT_TRACE_LOGFILEW, BufferCallback) == 400);
    assert!(offset_of!(EVENT_TRACE_LOGFILEW, Anonymous2) == 424);
    assert!(offset_of!(EVENT_TRACE_LOGFILEW, Context) == 440);
    assert!(size_of::<EVENT_TRACE_LOGFILEA>() == 448);
    assert!(size_of::<TRACE_GUID_REGISTRATION>() == 16);
    assert!(size_of::<TRACE_GUID_INFO>() == 8);
    assert!(size_of::<TRACE_PROVIDER_INSTANCE_INFO>() == 16);
    assert!(size_of::<TRACE_ENABLE_INFO>() == 32);
};
