//! Pins `etwsim_sys::windows_sys` to the windows-sys crate (0.61, feature
//! `Win32_System_Diagnostics_Etw`): every exported function has the signature windows-sys
//! declares (parameter by parameter, size and alignment), every structure its size,
//! alignment and field offsets under the same field names, every constant its value and
//! type.
//!
//! Off Windows, windows-sys still declares its functions, as plain `extern "system"` items
//! with no library attached. This test binary links etwsim-sys, whose exports have the same
//! names, so windows-sys's declarations resolve to them: calling
//! `windows_sys::…::EventUnregister(0)` here runs etwsim's — the strongest check that the
//! names are right.
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw

use etwsim_sys::windows_sys as ours;
use std::mem::{align_of, offset_of, size_of};

mod ws {
    pub(crate) use windows_sys::Win32::System::Diagnostics::Etw::*;
}
mod o {
    pub(crate) use etwsim_sys::windows_sys::Win32::System::Diagnostics::Etw::*;
}

/// The (size, alignment) of each parameter, then of the result.
trait Shape {
    fn shape() -> Vec<(usize, usize)>;
}

macro_rules! shape {
    ($($a:ident),*) => {
        impl<R, $($a),*> Shape for unsafe extern "system" fn($($a),*) -> R {
            fn shape() -> Vec<(usize, usize)> {
                vec![$((size_of::<$a>(), align_of::<$a>()),)* (size_of::<R>(), align_of::<R>())]
            }
        }
    };
}
shape!();
shape!(A);
shape!(A, B);
shape!(A, B, C);
shape!(A, B, C, D);
shape!(A, B, C, D, E);
shape!(A, B, C, D, E, F);
shape!(A, B, C, D, E, F, G);
shape!(A, B, C, D, E, F, G, H);
shape!(A, B, C, D, E, F, G, H, I);

fn shape_of<F: Shape>(_: F) -> Vec<(usize, usize)> {
    F::shape()
}

/// `name` with `n` parameters: the same shape in both crates, and the same address (the
/// windows-sys declaration resolved to etwsim's export).
macro_rules! same_fn {
    ($($name:ident ($($p:tt)*))*) => {$(
        {
            let mine = o::$name as unsafe extern "system" fn($($p)*) -> _;
            let theirs = ws::$name as unsafe extern "system" fn($($p)*) -> _;
            assert_eq!(shape_of(mine), shape_of(theirs), stringify!($name));
            assert_eq!(mine as usize, theirs as usize, concat!(stringify!($name), " resolves to etwsim's"));
        }
    )*};
}

#[test]
fn every_function_has_the_windows_sys_signature_and_symbol() {
    same_fn! {
        StartTraceW(_, _, _) StartTraceA(_, _, _)
        ControlTraceW(_, _, _, _) ControlTraceA(_, _, _, _)
        StopTraceW(_, _, _) StopTraceA(_, _, _) FlushTraceW(_, _, _) FlushTraceA(_, _, _)
        QueryTraceW(_, _, _) QueryTraceA(_, _, _) UpdateTraceW(_, _, _) UpdateTraceA(_, _, _)
        QueryAllTracesW(_, _, _) QueryAllTracesA(_, _, _)
        EnableTraceEx2(_, _, _, _, _, _, _, _) EnableTraceEx(_, _, _, _, _, _, _, _, _)
        EnableTrace(_, _, _, _, _)
        TraceSetInformation(_, _, _, _) TraceQueryInformation(_, _, _, _, _)
        EnumerateTraceGuidsEx(_, _, _, _, _, _)
        EventRegister(_, _, _, _) EventUnregister(_) EventEnabled(_, _)
        EventProviderEnabled(_, _, _) EventWrite(_, _, _, _)
        EventWriteTransfer(_, _, _, _, _, _) EventWriteEx(_, _, _, _, _, _, _, _)
        EventWriteString(_, _, _, _) EventSetInformation(_, _, _, _)
        EventActivityIdControl(_, _)
        RegisterTraceGuidsW(_, _, _, _, _, _, _, _) RegisterTraceGuidsA(_, _, _, _, _, _, _, _)
        UnregisterTraceGuids(_) TraceEvent(_, _) GetTraceLoggerHandle(_)
        GetTraceEnableLevel(_) GetTraceEnableFlags(_)
        OpenTraceW(_) OpenTraceA(_) ProcessTrace(_, _, _, _) CloseTrace(_)
    }
}

#[test]
fn windows_sys_declarations_call_etwsim() {
    // rule: PRV-03
    // SAFETY: windows-sys's EventUnregister takes a plain handle; 0 is refused.
    assert_eq!(unsafe { ws::EventUnregister(0) }, 6);
    let g = windows_sys::core::GUID::from_u128(0x5151_0000_0000_4000_8000_0000_0000_0001);
    let mut reg = 0;
    assert_eq!(
        // SAFETY: windows-sys types, valid pointers, no callback.
        unsafe { ws::EventRegister(&g, None, std::ptr::null(), &mut reg) },
        0
    );
    assert_ne!(reg, 0);
    // SAFETY: as above.
    assert_eq!(unsafe { ws::EventUnregister(reg) }, 0);
}

/// The same size, alignment and field offsets, the fields named alike.
macro_rules! same_struct {
    ($($t:ident { $($f:ident),* $(,)? })*) => {$(
        assert_eq!(size_of::<o::$t>(), size_of::<ws::$t>(), stringify!($t));
        assert_eq!(align_of::<o::$t>(), align_of::<ws::$t>(), stringify!($t));
        $(assert_eq!(
            offset_of!(o::$t, $f),
            offset_of!(ws::$t, $f),
            concat!(stringify!($t), ".", stringify!($f))
        );)*
    )*};
}

#[test]
fn every_structure_has_the_windows_sys_layout() {
    same_struct! {
        WNODE_HEADER { BufferSize, ProviderId, Anonymous1, Anonymous2, Guid, ClientContext, Flags }
        WNODE_HEADER_0 { HistoricalContext, Anonymous }
        WNODE_HEADER_0_0 { Version, Linkage }
        WNODE_HEADER_1 { CountLost, KernelHandle, TimeStamp }
        EVENT_TRACE_PROPERTIES {
            Wnode, BufferSize, MinimumBuffers, MaximumBuffers, MaximumFileSize, LogFileMode,
            FlushTimer, EnableFlags, Anonymous, NumberOfBuffers, FreeBuffers, EventsLost,
            BuffersWritten, LogBuffersLost, RealTimeBuffersLost, LoggerThreadId,
            LogFileNameOffset, LoggerNameOffset,
        }
        EVENT_TRACE_PROPERTIES_0 { AgeLimit, FlushThreshold }
        ENABLE_TRACE_PARAMETERS { Version, EnableProperty, ControlFlags, SourceId, EnableFilterDesc, FilterDescCount }
        EVENT_FILTER_DESCRIPTOR { Ptr, Size, Type }
        EVENT_FILTER_HEADER { Id, Version, Reserved, InstanceId, Size, NextOffset }
        EVENT_DESCRIPTOR { Id, Version, Channel, Level, Opcode, Task, Keyword }
        EVENT_DATA_DESCRIPTOR { Ptr, Size, Anonymous }
        EVENT_DATA_DESCRIPTOR_0 { Reserved, Anonymous }
        EVENT_DATA_DESCRIPTOR_0_0 { Type, Reserved1, Reserved2 }
        ETW_BUFFER_CONTEXT { Anonymous, LoggerId }
        ETW_BUFFER_CONTEXT_0 { Anonymous, ProcessorIndex }
        ETW_BUFFER_CONTEXT_0_0 { ProcessorNumber, Alignment }
        EVENT_HEADER {
            Size, HeaderType, Flags, EventProperty, ThreadId, ProcessId, TimeStamp, ProviderId,
            EventDescriptor, Anonymous, ActivityId,
        }
        EVENT_HEADER_0 { Anonymous, ProcessorTime }
        EVENT_HEADER_0_0 { KernelTime, UserTime }
        EVENT_HEADER_EXTENDED_DATA_ITEM { Reserved1, ExtType, Anonymous, DataSize, DataPtr }
        EVENT_HEADER_EXTENDED_DATA_ITEM_0 { _bitfield }
        EVENT_RECORD {
            EventHeader, BufferContext, ExtendedDataCount, UserDataLength, ExtendedData,
            UserData, UserContext,
        }
        EVENT_TRACE_HEADER { Size, Anonymous1, Anonymous2, ThreadId, ProcessId, TimeStamp, Anonymous3, Anonymous4 }
        EVENT_TRACE_HEADER_0 { FieldTypeFlags, Anonymous }
        EVENT_TRACE_HEADER_0_0 { HeaderType, MarkerFlags }
        EVENT_TRACE_HEADER_1 { Version, Class }
        EVENT_TRACE_HEADER_1_0 { Type, Level, Version }
        EVENT_TRACE_HEADER_2 { Guid, GuidPtr }
        EVENT_TRACE_HEADER_3 { Anonymous1, ProcessorTime, Anonymous2 }
        MOF_FIELD { DataPtr, Length, DataType }
        EVENT_TRACE_HEADER_3_0 { KernelTime, UserTime }
        EVENT_TRACE_HEADER_3_1 { ClientContext, Flags }
        EVENT_TRACE { Header, InstanceId, ParentInstanceId, ParentGuid, MofData, MofLength, Anonymous }
        EVENT_TRACE_0 { ClientContext, BufferContext }
        TRACE_LOGFILE_HEADER {
            BufferSize, Anonymous1, ProviderVersion, NumberOfProcessors, EndTime,
            TimerResolution, MaximumFileSize, LogFileMode, BuffersWritten, Anonymous2,
            LoggerName, LogFileName, TimeZone, BootTime, PerfFreq, StartTime, ReservedFlags,
            BuffersLost,
        }
        TRACE_LOGFILE_HEADER_0 { Version, VersionDetail }
        TRACE_LOGFILE_HEADER_0_0 { MajorVersion, MinorVersion, SubVersion, SubMinorVersion }
        TRACE_LOGFILE_HEADER_1 { LogInstanceGuid, Anonymous }
        TRACE_LOGFILE_HEADER_1_0 { StartBuffers, PointerSize, EventsLost, CpuSpeedInMHz }
        EVENT_TRACE_LOGFILEW {
            LogFileName, LoggerName, CurrentTime, BuffersRead, Anonymous1, CurrentEvent,
            LogfileHeader, BufferCallback, BufferSize, Filled, EventsLost, Anonymous2,
            IsKernelTrace, Context,
        }
        EVENT_TRACE_LOGFILEW_0 { LogFileMode, ProcessTraceMode }
        EVENT_TRACE_LOGFILEW_1 { EventCallback, EventRecordCallback }
        EVENT_TRACE_LOGFILEA {
            LogFileName, LoggerName, CurrentTime, BuffersRead, Anonymous1, CurrentEvent,
            LogfileHeader, BufferCallback, BufferSize, Filled, EventsLost, Anonymous2,
            IsKernelTrace, Context,
        }
        TRACE_GUID_REGISTRATION { Guid, RegHandle }
        TRACE_GUID_INFO { InstanceCount, Reserved }
        TRACE_PROVIDER_INSTANCE_INFO { NextOffset, EnableCount, Pid, Flags }
        TRACE_ENABLE_INFO {
            IsEnabled, Level, Reserved1, LoggerId, EnableProperty, Reserved2, MatchAnyKeyword,
            MatchAllKeyword,
        }
        CONTROLTRACE_HANDLE { Value }
        PROCESSTRACE_HANDLE { Value }
    }
    assert_eq!(
        size_of::<ours::core::GUID>(),
        size_of::<windows_sys::core::GUID>()
    );
    assert_eq!(
        offset_of!(ours::core::GUID, data4),
        offset_of!(windows_sys::core::GUID, data4)
    );
    assert_eq!(
        size_of::<ours::Win32::Foundation::FILETIME>(),
        size_of::<windows_sys::Win32::Foundation::FILETIME>()
    );
    assert_eq!(
        size_of::<ours::Win32::System::Time::TIME_ZONE_INFORMATION>(),
        size_of::<windows_sys::Win32::System::Time::TIME_ZONE_INFORMATION>()
    );
    // The GUID helpers agree.
    let n = 0x0123_4567_89ab_cdef_0011_2233_4455_6677;
    let (a, b) = (
        ours::core::GUID::from_u128(n),
        windows_sys::core::GUID::from_u128(n),
    );
    assert_eq!(
        (a.data1, a.data2, a.data3, a.data4),
        (b.data1, b.data2, b.data3, b.data4)
    );
}

/// The callback types have the same shapes too.
#[test]
fn the_callback_types_have_the_windows_sys_shapes() {
    fn cb<F: Shape>(_: Option<F>) -> Vec<(usize, usize)> {
        F::shape()
    }
    macro_rules! same_callback {
        ($($t:ident),*) => {$({
            let (mine, theirs): (o::$t, ws::$t) = (None, None);
            assert_eq!(cb(mine), cb(theirs), stringify!($t));
        })*};
    }
    same_callback!(
        PENABLECALLBACK,
        PEVENT_RECORD_CALLBACK,
        PEVENT_CALLBACK,
        PEVENT_TRACE_BUFFER_CALLBACKW,
        PEVENT_TRACE_BUFFER_CALLBACKA,
        WMIDPREQUEST
    );
}

/// The same value, and the same type (`assert_eq!` needs both sides alike).
macro_rules! same_const {
    ($($c:ident),* $(,)?) => {$(
        assert_eq!(o::$c, ws::$c, stringify!($c));
    )*};
}

#[test]
fn every_constant_has_the_windows_sys_value_and_type() {
    same_const!(
        ENABLE_TRACE_PARAMETERS_VERSION,
        ENABLE_TRACE_PARAMETERS_VERSION_2,
        EVENT_ACTIVITY_CTRL_CREATE_ID,
        EVENT_ACTIVITY_CTRL_CREATE_SET_ID,
        EVENT_ACTIVITY_CTRL_GET_ID,
        EVENT_ACTIVITY_CTRL_GET_SET_ID,
        EVENT_ACTIVITY_CTRL_SET_ID,
        EVENT_CONTROL_CODE_CAPTURE_STATE,
        EVENT_CONTROL_CODE_DISABLE_PROVIDER,
        EVENT_CONTROL_CODE_ENABLE_PROVIDER,
        EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA,
        EVENT_DATA_DESCRIPTOR_TYPE_NONE,
        EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA,
        EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE,
        EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0,
        EVENT_ENABLE_PROPERTY_ENABLE_SILOS,
        EVENT_ENABLE_PROPERTY_EVENT_KEY,
        EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE,
        EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0,
        EVENT_ENABLE_PROPERTY_PROCESS_START_KEY,
        EVENT_ENABLE_PROPERTY_PROVIDER_GROUP,
        EVENT_ENABLE_PROPERTY_PSM_KEY,
        EVENT_ENABLE_PROPERTY_SID,
        EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING,
        EVENT_ENABLE_PROPERTY_STACK_TRACE,
        EVENT_ENABLE_PROPERTY_TS_ID,
        EVENT_FILTER_TYPE_CONTAINER,
        EVENT_FILTER_TYPE_EVENT_ID,
        EVENT_FILTER_TYPE_EVENT_NAME,
        EVENT_FILTER_TYPE_EXECUTABLE_NAME,
        EVENT_FILTER_TYPE_NONE,
        EVENT_FILTER_TYPE_PACKAGE_APP_ID,
        EVENT_FILTER_TYPE_PACKAGE_ID,
        EVENT_FILTER_TYPE_PAYLOAD,
        EVENT_FILTER_TYPE_PID,
        EVENT_FILTER_TYPE_SCHEMATIZED,
        EVENT_FILTER_TYPE_STACKWALK,
        EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW,
        EVENT_FILTER_TYPE_STACKWALK_NAME,
        EVENT_FILTER_TYPE_SYSTEM_FLAGS,
        EVENT_FILTER_TYPE_TRACEHANDLE,
        EVENT_HEADER_EXT_TYPE_CONTAINER_ID,
        EVENT_HEADER_EXT_TYPE_CONTROL_GUID,
        EVENT_HEADER_EXT_TYPE_EVENT_KEY,
        EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL,
        EVENT_HEADER_EXT_TYPE_INSTANCE_INFO,
        EVENT_HEADER_EXT_TYPE_MAX,
        EVENT_HEADER_EXT_TYPE_PEBS_INDEX,
        EVENT_HEADER_EXT_TYPE_PMC_COUNTERS,
        EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY,
        EVENT_HEADER_EXT_TYPE_PROV_TRAITS,
        EVENT_HEADER_EXT_TYPE_PSM_KEY,
        EVENT_HEADER_EXT_TYPE_QPC_DELTA,
        EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID,
        EVENT_HEADER_EXT_TYPE_SID,
        EVENT_HEADER_EXT_TYPE_STACK_KEY32,
        EVENT_HEADER_EXT_TYPE_STACK_KEY64,
        EVENT_HEADER_EXT_TYPE_STACK_TRACE32,
        EVENT_HEADER_EXT_TYPE_STACK_TRACE64,
        EVENT_HEADER_EXT_TYPE_TS_ID,
        EVENT_HEADER_FLAG_32_BIT_HEADER,
        EVENT_HEADER_FLAG_64_BIT_HEADER,
        EVENT_HEADER_FLAG_CLASSIC_HEADER,
        EVENT_HEADER_FLAG_DECODE_GUID,
        EVENT_HEADER_FLAG_EXTENDED_INFO,
        EVENT_HEADER_FLAG_NO_CPUTIME,
        EVENT_HEADER_FLAG_PRIVATE_SESSION,
        EVENT_HEADER_FLAG_PROCESSOR_INDEX,
        EVENT_HEADER_FLAG_STRING_ONLY,
        EVENT_HEADER_FLAG_TRACE_MESSAGE,
        EVENT_HEADER_PROPERTY_FORWARDED_XML,
        EVENT_HEADER_PROPERTY_LEGACY_EVENTLOG,
        EVENT_HEADER_PROPERTY_RELOGGABLE,
        EVENT_HEADER_PROPERTY_XML,
        EVENT_MAX_LEVEL,
        EVENT_MIN_LEVEL,
        EVENT_TRACE_ADDTO_TRIAGE_DUMP,
        EVENT_TRACE_ADD_HEADER_MODE,
        EVENT_TRACE_BUFFERING_MODE,
        EVENT_TRACE_COMPRESSED_MODE,
        EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME,
        EVENT_TRACE_CONTROL_FLUSH,
        EVENT_TRACE_CONTROL_INCREMENT_FILE,
        EVENT_TRACE_CONTROL_QUERY,
        EVENT_TRACE_CONTROL_STOP,
        EVENT_TRACE_CONTROL_UPDATE,
        EVENT_TRACE_DELAY_OPEN_FILE_MODE,
        EVENT_TRACE_FILE_MODE_APPEND,
        EVENT_TRACE_FILE_MODE_CIRCULAR,
        EVENT_TRACE_FILE_MODE_NEWFILE,
        EVENT_TRACE_FILE_MODE_NONE,
        EVENT_TRACE_FILE_MODE_PREALLOCATE,
        EVENT_TRACE_FILE_MODE_SEQUENTIAL,
        EVENT_TRACE_FLAG_ALPC,
        EVENT_TRACE_FLAG_CSWITCH,
        EVENT_TRACE_FLAG_DBGPRINT,
        EVENT_TRACE_FLAG_DEBUG_EVENTS,
        EVENT_TRACE_FLAG_DISK_FILE_IO,
        EVENT_TRACE_FLAG_DISK_IO,
        EVENT_TRACE_FLAG_DISK_IO_INIT,
        EVENT_TRACE_FLAG_DISPATCHER,
        EVENT_TRACE_FLAG_DPC,
        EVENT_TRACE_FLAG_DRIVER,
        EVENT_TRACE_FLAG_ENABLE_RESERVE,
        EVENT_TRACE_FLAG_EXTENSION,
        EVENT_TRACE_FLAG_FILE_IO,
        EVENT_TRACE_FLAG_FILE_IO_INIT,
        EVENT_TRACE_FLAG_FORWARD_WMI,
        EVENT_TRACE_FLAG_IMAGE_LOAD,
        EVENT_TRACE_FLAG_INTERRUPT,
        EVENT_TRACE_FLAG_JOB,
        EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS,
        EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS,
        EVENT_TRACE_FLAG_NETWORK_TCPIP,
        EVENT_TRACE_FLAG_NO_SYSCONFIG,
        EVENT_TRACE_FLAG_PROCESS,
        EVENT_TRACE_FLAG_PROCESS_COUNTERS,
        EVENT_TRACE_FLAG_PROFILE,
        EVENT_TRACE_FLAG_REGISTRY,
        EVENT_TRACE_FLAG_SPLIT_IO,
        EVENT_TRACE_FLAG_SYSTEMCALL,
        EVENT_TRACE_FLAG_THREAD,
        EVENT_TRACE_FLAG_VAMAP,
        EVENT_TRACE_FLAG_VIRTUAL_ALLOC,
        EVENT_TRACE_INDEPENDENT_SESSION_MODE,
        EVENT_TRACE_MODE_RESERVED,
        EVENT_TRACE_NONSTOPPABLE_MODE,
        EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING,
        EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN,
        EVENT_TRACE_PRIVATE_IN_PROC,
        EVENT_TRACE_PRIVATE_LOGGER_MODE,
        EVENT_TRACE_REAL_TIME_MODE,
        EVENT_TRACE_RELOG_MODE,
        EVENT_TRACE_SECURE_MODE,
        EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN,
        EVENT_TRACE_SYSTEM_LOGGER_MODE,
        EVENT_TRACE_TYPE_ACCEPT,
        EVENT_TRACE_TYPE_ACKDUP,
        EVENT_TRACE_TYPE_ACKFULL,
        EVENT_TRACE_TYPE_ACKPART,
        EVENT_TRACE_TYPE_CHECKPOINT,
        EVENT_TRACE_TYPE_CONFIG,
        EVENT_TRACE_TYPE_CONFIG_BOOT,
        EVENT_TRACE_TYPE_CONFIG_CI_INFO,
        EVENT_TRACE_TYPE_CONFIG_CPU,
        EVENT_TRACE_TYPE_CONFIG_DEFRAG,
        EVENT_TRACE_TYPE_CONFIG_DEVICEFAMILY,
        EVENT_TRACE_TYPE_CONFIG_DPI,
        EVENT_TRACE_TYPE_CONFIG_FLIGHTID,
        EVENT_TRACE_TYPE_CONFIG_IDECHANNEL,
        EVENT_TRACE_TYPE_CONFIG_IRQ,
        EVENT_TRACE_TYPE_CONFIG_LOGICALDISK,
        EVENT_TRACE_TYPE_CONFIG_MACHINEID,
        EVENT_TRACE_TYPE_CONFIG_MOBILEPLATFORM,
        EVENT_TRACE_TYPE_CONFIG_NETINFO,
        EVENT_TRACE_TYPE_CONFIG_NIC,
        EVENT_TRACE_TYPE_CONFIG_NUMANODE,
        EVENT_TRACE_TYPE_CONFIG_OPTICALMEDIA,
        EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK,
        EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK_EX,
        EVENT_TRACE_TYPE_CONFIG_PLATFORM,
        EVENT_TRACE_TYPE_CONFIG_PNP,
        EVENT_TRACE_TYPE_CONFIG_POWER,
        EVENT_TRACE_TYPE_CONFIG_PROCESSOR,
        EVENT_TRACE_TYPE_CONFIG_PROCESSORGROUP,
        EVENT_TRACE_TYPE_CONFIG_PROCESSORNUMBER,
        EVENT_TRACE_TYPE_CONFIG_SERVICES,
        EVENT_TRACE_TYPE_CONFIG_VIDEO,
        EVENT_TRACE_TYPE_CONFIG_VIRTUALIZATION,
        EVENT_TRACE_TYPE_CONNECT,
        EVENT_TRACE_TYPE_CONNFAIL,
        EVENT_TRACE_TYPE_COPY_ARP,
        EVENT_TRACE_TYPE_COPY_TCP,
        EVENT_TRACE_TYPE_DBGID_RSDS,
        EVENT_TRACE_TYPE_DC_END,
        EVENT_TRACE_TYPE_DC_START,
        EVENT_TRACE_TYPE_DEQUEUE,
        EVENT_TRACE_TYPE_DISCONNECT,
        EVENT_TRACE_TYPE_END,
        EVENT_TRACE_TYPE_EXTENSION,
        EVENT_TRACE_TYPE_FLT_POSTOP_COMPLETION,
        EVENT_TRACE_TYPE_FLT_POSTOP_FAILURE,
        EVENT_TRACE_TYPE_FLT_POSTOP_INIT,
        EVENT_TRACE_TYPE_FLT_PREOP_COMPLETION,
        EVENT_TRACE_TYPE_FLT_PREOP_FAILURE,
        EVENT_TRACE_TYPE_FLT_PREOP_INIT,
        EVENT_TRACE_TYPE_GUIDMAP,
        EVENT_TRACE_TYPE_INFO,
        EVENT_TRACE_TYPE_IO_FLUSH,
        EVENT_TRACE_TYPE_IO_FLUSH_INIT,
        EVENT_TRACE_TYPE_IO_READ,
        EVENT_TRACE_TYPE_IO_READ_INIT,
        EVENT_TRACE_TYPE_IO_REDIRECTED_INIT,
        EVENT_TRACE_TYPE_IO_WRITE,
        EVENT_TRACE_TYPE_IO_WRITE_INIT,
        EVENT_TRACE_TYPE_LOAD,
        EVENT_TRACE_TYPE_MM_AV,
        EVENT_TRACE_TYPE_MM_COW,
        EVENT_TRACE_TYPE_MM_DZF,
        EVENT_TRACE_TYPE_MM_GPF,
        EVENT_TRACE_TYPE_MM_HPF,
        EVENT_TRACE_TYPE_MM_TF,
        EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH,
        EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH_INIT,
        EVENT_TRACE_TYPE_OPTICAL_IO_READ,
        EVENT_TRACE_TYPE_OPTICAL_IO_READ_INIT,
        EVENT_TRACE_TYPE_OPTICAL_IO_WRITE,
        EVENT_TRACE_TYPE_OPTICAL_IO_WRITE_INIT,
        EVENT_TRACE_TYPE_RECEIVE,
        EVENT_TRACE_TYPE_RECONNECT,
        EVENT_TRACE_TYPE_REGCLOSE,
        EVENT_TRACE_TYPE_REGCOMMIT,
        EVENT_TRACE_TYPE_REGCREATE,
        EVENT_TRACE_TYPE_REGDELETE,
        EVENT_TRACE_TYPE_REGDELETEVALUE,
        EVENT_TRACE_TYPE_REGENUMERATEKEY,
        EVENT_TRACE_TYPE_REGENUMERATEVALUEKEY,
        EVENT_TRACE_TYPE_REGFLUSH,
        EVENT_TRACE_TYPE_REGKCBCREATE,
        EVENT_TRACE_TYPE_REGKCBDELETE,
        EVENT_TRACE_TYPE_REGKCBRUNDOWNBEGIN,
        EVENT_TRACE_TYPE_REGKCBRUNDOWNEND,
        EVENT_TRACE_TYPE_REGMOUNTHIVE,
        EVENT_TRACE_TYPE_REGOPEN,
        EVENT_TRACE_TYPE_REGPREPARE,
        EVENT_TRACE_TYPE_REGQUERY,
        EVENT_TRACE_TYPE_REGQUERYMULTIPLEVALUE,
        EVENT_TRACE_TYPE_REGQUERYSECURITY,
        EVENT_TRACE_TYPE_REGQUERYVALUE,
        EVENT_TRACE_TYPE_REGROLLBACK,
        EVENT_TRACE_TYPE_REGSETINFORMATION,
        EVENT_TRACE_TYPE_REGSETSECURITY,
        EVENT_TRACE_TYPE_REGSETVALUE,
        EVENT_TRACE_TYPE_REGVIRTUALIZE,
        EVENT_TRACE_TYPE_REPLY,
        EVENT_TRACE_TYPE_RESUME,
        EVENT_TRACE_TYPE_RETRANSMIT,
        EVENT_TRACE_TYPE_SECURITY,
        EVENT_TRACE_TYPE_SEND,
        EVENT_TRACE_TYPE_SIDINFO,
        EVENT_TRACE_TYPE_START,
        EVENT_TRACE_TYPE_STOP,
        EVENT_TRACE_TYPE_SUSPEND,
        EVENT_TRACE_TYPE_TERMINATE,
        EVENT_TRACE_TYPE_WINEVT_RECEIVE,
        EVENT_TRACE_TYPE_WINEVT_SEND,
        EVENT_TRACE_USE_GLOBAL_SEQUENCE,
        EVENT_TRACE_USE_KBYTES_FOR_SIZE,
        EVENT_TRACE_USE_LOCAL_SEQUENCE,
        EVENT_TRACE_USE_NOCPUTIME,
        EVENT_TRACE_USE_PAGED_MEMORY,
        EVENT_TRACE_USE_PROCTIME,
        EVENT_WRITE_FLAG_INPRIVATE,
        EVENT_WRITE_FLAG_NO_FAULTING,
        EventProviderBinaryTrackInfo,
        EventProviderSetReserved1,
        EventProviderSetTraits,
        EventProviderUseDescriptorType,
        MAX_EVENT_DATA_DESCRIPTORS,
        MAX_EVENT_FILTERS_COUNT,
        MAX_EVENT_FILTER_DATA_SIZE,
        MAX_EVENT_FILTER_EVENT_ID_COUNT,
        MAX_EVENT_FILTER_EVENT_NAME_SIZE,
        MAX_EVENT_FILTER_PAYLOAD_SIZE,
        MAX_EVENT_FILTER_PID_COUNT,
        MAX_MOF_FIELDS,
        PROCESS_TRACE_MODE_EVENT_RECORD,
        PROCESS_TRACE_MODE_RAW_TIMESTAMP,
        PROCESS_TRACE_MODE_REAL_TIME,
        TRACE_LEVEL_CRITICAL,
        TRACE_LEVEL_ERROR,
        TRACE_LEVEL_FATAL,
        TRACE_LEVEL_INFORMATION,
        TRACE_LEVEL_NONE,
        TRACE_LEVEL_RESERVED6,
        TRACE_LEVEL_RESERVED7,
        TRACE_LEVEL_RESERVED8,
        TRACE_LEVEL_RESERVED9,
        TRACE_LEVEL_VERBOSE,
        TRACE_LEVEL_WARNING,
        TRACE_PROVIDER_FLAG_LEGACY,
        TRACE_PROVIDER_FLAG_PRE_ENABLE,
        TraceDisallowListQuery,
        TraceGroupQueryInfo,
        TraceGroupQueryList,
        TraceGuidQueryInfo,
        TraceGuidQueryList,
        TraceGuidQueryProcess,
        TraceInfoReserved15,
        TraceLbrConfigurationInfo,
        TraceLbrEventListInfo,
        TraceMaxLoggersQuery,
        TraceMaxPmcCounterQuery,
        TracePeriodicCaptureStateInfo,
        TracePeriodicCaptureStateListInfo,
        TracePmcCounterListInfo,
        TracePmcCounterOwners,
        TracePmcEventListInfo,
        TracePmcSessionInformation,
        TraceProfileSourceConfigInfo,
        TraceProfileSourceListInfo,
        TraceProviderBinaryTracking,
        TraceSampledProfileIntervalInfo,
        TraceSetDisallowList,
        TraceStackCachingInfo,
        TraceStackTracingInfo,
        TraceStreamCount,
        TraceSystemTraceEnableFlagsInfo,
        TraceUnifiedStackCachingInfo,
        TraceVersionInfo,
        WMI_CAPTURE_STATE,
        WMI_DISABLE_COLLECTION,
        WMI_DISABLE_EVENTS,
        WMI_ENABLE_COLLECTION,
        WMI_ENABLE_EVENTS,
        WMI_EXECUTE_METHOD,
        WMI_GET_ALL_DATA,
        WMI_GET_SINGLE_INSTANCE,
        WMI_GLOBAL_LOGGER_ID,
        WMI_GUIDTYPE_DATA,
        WMI_GUIDTYPE_EVENT,
        WMI_GUIDTYPE_TRACE,
        WMI_GUIDTYPE_TRACECONTROL,
        WMI_REGINFO,
        WMI_SET_SINGLE_INSTANCE,
        WMI_SET_SINGLE_ITEM,
        WNODE_FLAG_ALL_DATA,
        WNODE_FLAG_ANSI_INSTANCENAMES,
        WNODE_FLAG_EVENT_ITEM,
        WNODE_FLAG_EVENT_REFERENCE,
        WNODE_FLAG_FIXED_INSTANCE_SIZE,
        WNODE_FLAG_INSTANCES_SAME,
        WNODE_FLAG_INTERNAL,
        WNODE_FLAG_LOG_WNODE,
        WNODE_FLAG_METHOD_ITEM,
        WNODE_FLAG_NO_HEADER,
        WNODE_FLAG_PDO_INSTANCE_NAMES,
        WNODE_FLAG_PERSIST_EVENT,
        WNODE_FLAG_SEND_DATA_BLOCK,
        WNODE_FLAG_SEVERITY_MASK,
        WNODE_FLAG_SINGLE_INSTANCE,
        WNODE_FLAG_SINGLE_ITEM,
        WNODE_FLAG_STATIC_INSTANCE_NAMES,
        WNODE_FLAG_TOO_SMALL,
        WNODE_FLAG_TRACED_GUID,
        WNODE_FLAG_USE_GUID_PTR,
        WNODE_FLAG_USE_MOF_PTR,
        WNODE_FLAG_USE_TIMESTAMP,
        WNODE_FLAG_VERSIONED_PROPERTIES,
    );
}
