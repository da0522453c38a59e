//! The kernel class table: GUIDs and groups (KRN-11, KRN-12: taken from
//! [`etwsim_types::KernelClass`], the one table of them), event types (KRN-09, KRN-16,
//! KRN-27…KRN-30) and the payload layouts of every version real traces carry (pointer fields
//! shrink to 4 bytes for 32-bit writers, which shifts later offsets).
//!
//! One module per area: [`io`] (DiskIo, FileIo, SplitIo), [`task`] (Process, Thread, Image),
//! [`memory`] (PageFault), [`net`] (TcpIp, UdpIp), [`registry`] (Registry, ALPC), [`perf`]
//! (PerfInfo, StackWalk), [`config`] (SystemConfig), [`merged`] (KernelTraceControl's
//! ImageID and SysConfig records that merging adds).
//!
//! # Sources, in order of precedence
//!
//! 1. Microsoft Learn's kernel MOF class pages (`Process_V2_TypeGroup1`, `TcpIp_TypeGroup1`,
//!    `SystemConfig_CPU`…): the Windows Vista/7 layouts and their names.
//! 2. TraceEvent's `KernelTraceEventParser.cs` / `SymbolTraceEventParser.cs` (field offsets
//!    by version and pointer size) and the MOF file it ships (`kerneltraceeventparser.mof`,
//!    versions 0–2).
//! 3. phnt's `ntwmi.h`: HookIds and the kernel's record structures (`CPU_CONFIG_RECORD`,
//!    `WMI_PNP_RECORD_V5`, `ETW_READY_THREAD_EVENT`…), for layouts newer than the MOF.
//! 4. For a few Windows 10 events that none of the above describes, the Windows MOF schemas
//!    bundled with dissect.etl (named so in the layout's comment).
//!
//! Version numbering follows the record header: `v2` layouts carry the Windows 7 (Learn)
//! names, `v3`+ the Windows 8+ ones (Image v2 reads bytes 28–31 as one `Reserved0`, v3 as
//! SignatureLevel, SignatureType, Reserved0). An event type with no public layout is named
//! with no layouts, so it decodes as [`Error::NoSchema`](crate::Error::NoSchema).
//!
//! Choices where the sources differ:
//! * FileIo_Name's first field keeps Learn's name `FileObject`; it carries the FileKey
//!   (KRN-18, KRN-26). MapFile's second field likewise.
//! * DiskIo v3's IssuingThreadId is optional (KRN-30).
//! * FileIo_PathOperation (79–81) is described for version 3 only (KRN-25).
//! * EventTrace_Header's `TimeZoneInformation` is 176 bytes: the 172-byte
//!   TIME_ZONE_INFORMATION plus the 4 alignment bytes before BootTime, which sit there for
//!   both pointer sizes (`etl-format.md` §3.1).
//! * The PartitionInfoExtension record (HookId 0x0050, `etl-format.md` §3.2) follows the
//!   kernel's `_ETW_PARTITION_INFO_EXTENSION`: EventVersion u16, 2 reserved bytes,
//!   PartitionType u32, QpcOffsetFromRoot i64, PartitionId and ParentId GUIDs.
//! * Ports are shown in host order (the wire holds them in network order), IP addresses as
//!   text; dissect.etl shows both as the raw little-endian integers.
//! * SampleProf (46) v2: Learn's `Count` is a u32, but Windows 8+ writes a u16 count, a flags
//!   byte and a rank byte in those 4 bytes (ntwmi `PERFINFO_SAMPLED_PROFILE_INFORMATION`,
//!   TraceEvent): the table reads the three.
//! * ISR (67) v2: Learn's `ReturnValue` u8, `Vector` u8, `Reserved` u16 (ntwmi packs a u16
//!   Vector at the same offset; the two agree for vectors below 256).
//! * TcpIp/UdpIp v2: `seqnum` before `connid` (Learn, the MOF); TraceEvent's IPv6 classes read
//!   them the other way round.
//! * CSwitch v3/v4 keep byte 13 as `OldThreadWaitMode` (Learn, ntwmi, TraceEvent); Windows
//!   10's MOF (dissect.etl's copy) names it `ThreadFlags`.
//! * SystemConfig CPU v3: NxEnabled before PaeEnabled (ntwmi `CPU_CONFIG_RECORD`); Windows
//!   10's MOF lists them the other way round.

mod config;
mod io;
mod memory;
mod merged;
mod net;
mod perf;
mod registry;
mod task;

pub use config::SYSTEM_CONFIG;
pub use io::{DISK_IO, FILE_IO, SPLIT_IO};
pub use memory::PAGE_FAULT;
pub use merged::{IMAGE_ID, SYS_CONFIG};
pub use net::{TCP_IP, UDP_IP};
pub use perf::{PERF_INFO, STACK_WALK};
pub use registry::{ALPC, REGISTRY};
pub use task::{IMAGE, PROCESS, THREAD};

use super::{EventType, Layout, MofClass, MofField, MofType};
use etwsim_types::Guid;
use etwsim_types::KernelClass;

use MofType::{Ansiz, Binary, I64, Pointer, U16, U32, Utf16z};

/// A required field.
const fn f(name: &'static str, ty: MofType) -> MofField {
    MofField {
        name,
        ty,
        optional: false,
    }
}

/// A trailing field read only when bytes remain.
const fn opt(name: &'static str, ty: MofType) -> MofField {
    MofField {
        name,
        ty,
        optional: true,
    }
}

/// An event type with its layouts.
const fn ev(opcode: u8, name: &'static str, layouts: &'static [&'static Layout]) -> EventType {
    EventType {
        opcode,
        name,
        layouts,
    }
}

/// An event type named by a source that publishes no layout for it.
const fn named(opcode: u8, name: &'static str) -> EventType {
    ev(opcode, name, &[])
}

/// The class of HookId group `group`, its GUID and group from the types table.
const fn class(name: &'static str, group: u8, events: &'static [EventType]) -> MofClass {
    MofClass {
        name,
        guid: KernelClass::of_group(group).guid,
        group: Some(KernelClass::of_group(group).group),
        events,
    }
}

// ---------------------------------------------------------------------------------------
// EventTrace (group 0x00): the log-file header, the group-mask extension, the rundown
// markers and the records that describe the trace (Learn EventTrace_Header,
// Header_Extension_TypeGroup, RDComplete; ntwmi WMI_LOG_TYPE_*).

static EVENT_TRACE_HEADER: Layout = Layout {
    name: "EventTrace_Header",
    versions: &[0, 1, 2],
    fields: &[
        f("BufferSize", U32),
        f("Version", U32),
        f("ProviderVersion", U32),
        f("NumberOfProcessors", U32),
        f("EndTime", I64),
        f("TimerResolution", U32),
        f("MaximumFileSize", U32),
        f("LogFileMode", U32),
        f("BuffersWritten", U32),
        f("StartBuffers", U32),
        f("PointerSize", U32),
        f("EventsLost", U32),
        f("CpuSpeedInMHz", U32),
        f("LoggerName", Pointer),
        f("LogFileName", Pointer),
        f("TimeZoneInformation", Binary(176)),
        f("BootTime", I64),
        f("PerfFreq", I64),
        f("StartTime", I64),
        f("ReservedFlags", U32),
        f("BuffersLost", U32),
        f("SessionNameString", Utf16z),
        f("LogFileNameString", Utf16z),
    ],
};

const GROUP_MASKS: [MofField; 8] = [
    f("GroupMask1", U32),
    f("GroupMask2", U32),
    f("GroupMask3", U32),
    f("GroupMask4", U32),
    f("GroupMask5", U32),
    f("GroupMask6", U32),
    f("GroupMask7", U32),
    f("GroupMask8", U32),
];

static HEADER_EXTENSION_V1: Layout = Layout {
    name: "Header_Extension_TypeGroup",
    versions: &[0, 1],
    fields: &GROUP_MASKS,
};

static HEADER_EXTENSION: Layout = Layout {
    name: "Header_Extension_TypeGroup",
    versions: &[2],
    fields: &[
        GROUP_MASKS[0],
        GROUP_MASKS[1],
        GROUP_MASKS[2],
        GROUP_MASKS[3],
        GROUP_MASKS[4],
        GROUP_MASKS[5],
        GROUP_MASKS[6],
        GROUP_MASKS[7],
        f("KernelEventVersion", U32),
    ],
};

static RUNDOWN_COMPLETE: Layout = Layout {
    name: "RDComplete",
    versions: &[0, 1, 2],
    fields: &[],
};

/// Windows 10 MOF (dissect.etl's copy): the kernel's own PDB signature record.
static DBGID_RSDS: Layout = Layout {
    name: "EventTrace_DbgIdRSDS",
    versions: &[2],
    fields: &[f("Guid", MofType::Guid), f("Age", U32), f("PdbName", Ansiz)],
};

/// Windows 10 MOF (dissect.etl's copy).
static BUILD_INFO: Layout = Layout {
    name: "EventTrace_BuildInfo",
    versions: &[2],
    fields: &[f("BuildString", Ansiz)],
};

/// Windows 10 MOF (dissect.etl's copy).
static PROVIDER_BINARY_PATH: Layout = Layout {
    name: "EventTrace_ProviderBinaryPath",
    versions: &[2],
    fields: &[
        f("GuidCount", U32),
        f("Guid", MofType::Guid),
        f("BinaryPath", Utf16z),
    ],
};

static PARTITION_INFO_EXTENSION: Layout = Layout {
    name: "EventTrace_PartitionInfoExtension",
    versions: &[2],
    fields: &[
        f("EventVersion", U16),
        f("Reserved", U16),
        f("PartitionType", U32),
        f("QpcOffsetFromRoot", I64),
        f("PartitionId", MofType::Guid),
        f("ParentId", MofType::Guid),
    ],
};

const EXTENSION: &[&Layout] = &[&HEADER_EXTENSION_V1, &HEADER_EXTENSION];

/// `EventTrace` {68fdd900-4a3e-11d1-84f4-0000f80464e3}, group 0x00: Header (0), Extension
/// (5), RDComplete (8), EndExtension (32), the rundown markers (48, 49), the trace's own
/// DbgID, build and provider-path records (64–67) and PartitionInfoExtension (0x50).
pub static EVENT_TRACE: MofClass = class(
    "EventTrace",
    0x00,
    &[
        ev(0, "Header", &[&EVENT_TRACE_HEADER]),
        ev(5, "Extension", EXTENSION),
        ev(8, "RDComplete", &[&RUNDOWN_COMPLETE]),
        ev(32, "EndExtension", EXTENSION),
        named(48, "RundownBegin"),
        named(49, "RundownEnd"),
        ev(64, "DbgIdRSDS", &[&DBGID_RSDS]),
        named(65, "DbgIdNB10"),
        ev(66, "BuildInfo", &[&BUILD_INFO]),
        ev(67, "ProviderBinaryPath", &[&PROVIDER_BINARY_PATH]),
        ev(0x50, "PartitionInfoExtension", &[&PARTITION_INFO_EXTENSION]),
    ],
);

/// The RT_LostEvent class "does not define any members" (Microsoft's MOF page): its events
/// have no payload, whatever their version.
static RT_LOST_EVENT: Layout = Layout {
    name: "RT_LostEvent",
    versions: &[0, 1, 2],
    fields: &[],
};

/// `Lost_Event` (RT_LostEvent) {6a399ae0-4bc6-4de9-870b-3657f8947e7e}: no HookId group;
/// RTLostEvent (32), RTLostBuffer (33), RTLostFile (34), the markers a real-time consumer
/// receives before the events of a buffer after a loss (BUF-14), with no fields.
pub static LOST_EVENT: MofClass = MofClass {
    name: "Lost_Event",
    guid: Guid::RT_LOST_EVENT,
    group: None,
    events: &[
        ev(32, "RTLostEvent", &[&RT_LOST_EVENT]),
        ev(33, "RTLostBuffer", &[&RT_LOST_EVENT]),
        ev(34, "RTLostFile", &[&RT_LOST_EVENT]),
    ],
};

static CLASSES: [&MofClass; 18] = [
    &EVENT_TRACE,
    &DISK_IO,
    &PAGE_FAULT,
    &PROCESS,
    &FILE_IO,
    &THREAD,
    &TCP_IP,
    &UDP_IP,
    &REGISTRY,
    &SYSTEM_CONFIG,
    &PERF_INFO,
    &IMAGE,
    &STACK_WALK,
    &ALPC,
    &SPLIT_IO,
    &LOST_EVENT,
    &IMAGE_ID,
    &SYS_CONFIG,
];

/// Every kernel class of KRN-12, in group order, then the classes merging adds
/// (KernelTraceControl's ImageID and SysConfig).
pub fn classes() -> &'static [&'static MofClass] {
    &CLASSES
}
