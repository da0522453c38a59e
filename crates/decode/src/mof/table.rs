//! The kernel class table: GUIDs and groups (KRN-11, KRN-12: taken from
//! [`etwsim_types::KernelClass`], the one table of them), event types (KRN-09, KRN-16,
//! KRN-27…KRN-30) and the 64-bit payload layouts of section 10 of the rules (pointer fields
//! shrink to 4 bytes for 32-bit writers, which shifts later offsets).
//!
//! Choices where the rules are uncertain:
//! * FileIo_Name's first field keeps Learn's name `FileObject`; it carries the FileKey
//!   (KRN-18, KRN-26).
//! * Image_Load reads bytes 28–31 as SignatureLevel, SignatureType, Reserved0 (KRN-29's
//!   TraceEvent split); versions 2 and 3 share the layout, 3 is written.
//! * DiskIo versions 2 and 3 share the layouts; IssuingThreadId is optional (KRN-30).
//! * FileIo_PathOperation (79–81) is described for version 3 only (KRN-25).
//! * EventTrace_Header's `TimeZoneInformation` is 176 bytes: the 172-byte
//!   TIME_ZONE_INFORMATION plus the 4 alignment bytes before BootTime, which sit there for
//!   both pointer sizes (`etl-format.md` §3.1).
//! * The PartitionInfoExtension record (HookId 0x0050, `etl-format.md` §3.2) follows the
//!   kernel's `_ETW_PARTITION_INFO_EXTENSION`: EventVersion u16, 2 reserved bytes,
//!   PartitionType u32, QpcOffsetFromRoot i64, PartitionId and ParentId GUIDs.

use super::{EventType, KernelClass, Layout, MofField, MofType};
use etwsim_types::Guid;
use etwsim_types::KernelClass as TypesClass;

use MofType::{Ansiz, Binary, I32, I64, Pointer, TokenUserSid, U8, U16, U32, U64, Utf16z};

const fn f(name: &'static str, ty: MofType) -> MofField {
    MofField {
        name,
        ty,
        optional: false,
    }
}

const fn opt(name: &'static str, ty: MofType) -> MofField {
    MofField {
        name,
        ty,
        optional: true,
    }
}

const fn ev(opcode: u8, name: &'static str, layouts: &'static [&'static Layout]) -> EventType {
    EventType {
        opcode,
        name,
        layouts,
    }
}

// ---------------------------------------------------------------------------------------
// EventTrace (group 0x00): the log-file header and its extension record.

static EVENT_TRACE_HEADER: Layout = Layout {
    name: "EventTrace_Header",
    versions: &[2],
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

/// `EventTrace` {68fdd900-4a3e-11d1-84f4-0000f80464e3}, group 0x00: Header (0) and
/// PartitionInfoExtension (0x50).
pub static EVENT_TRACE: KernelClass = KernelClass {
    name: "EventTrace",
    guid: TypesClass::of_group(0x00).guid,
    group: Some(TypesClass::of_group(0x00).group),
    events: &[
        ev(0, "Header", &[&EVENT_TRACE_HEADER]),
        ev(0x50, "PartitionInfoExtension", &[&PARTITION_INFO_EXTENSION]),
    ],
};

// ---------------------------------------------------------------------------------------
// DiskIo (group 0x01), KRN-30.

static DISK_IO_TG1: Layout = Layout {
    name: "DiskIo_TypeGroup1",
    versions: &[2, 3],
    fields: &[
        f("DiskNumber", U32),
        f("IrpFlags", U32),
        f("TransferSize", U32),
        f("Reserved", U32),
        f("ByteOffset", I64),
        f("FileObject", Pointer),
        f("Irp", Pointer),
        f("HighResResponseTime", U64),
        opt("IssuingThreadId", U32),
    ],
};

static DISK_IO_TG2: Layout = Layout {
    name: "DiskIo_TypeGroup2",
    versions: &[2, 3],
    fields: &[f("Irp", Pointer), opt("IssuingThreadId", U32)],
};

static DISK_IO_TG3: Layout = Layout {
    name: "DiskIo_TypeGroup3",
    versions: &[2, 3],
    fields: &[
        f("DiskNumber", U32),
        f("IrpFlags", U32),
        f("HighResResponseTime", U64),
        f("Irp", Pointer),
        opt("IssuingThreadId", U32),
    ],
};

/// `DiskIo` {3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c}, group 0x01 (KRN-09, KRN-30).
pub static DISK_IO: KernelClass = KernelClass {
    name: "DiskIo",
    guid: TypesClass::of_group(0x01).guid,
    group: Some(TypesClass::of_group(0x01).group),
    events: &[
        ev(10, "Read", &[&DISK_IO_TG1]),
        ev(11, "Write", &[&DISK_IO_TG1]),
        ev(12, "ReadInit", &[&DISK_IO_TG2]),
        ev(13, "WriteInit", &[&DISK_IO_TG2]),
        ev(14, "Flush", &[&DISK_IO_TG3]),
        ev(15, "FlushInit", &[&DISK_IO_TG2]),
        ev(16, "RedirectedInit", &[&DISK_IO_TG2]),
        ev(34, "DriverMajorFunctionCall", &[]),
        ev(35, "DriverMajorFunctionReturn", &[]),
        ev(37, "DriverCompletionRoutine", &[]),
        ev(52, "DriverCompleteRequest", &[]),
        ev(53, "DriverCompleteRequestReturn", &[]),
    ],
};

// ---------------------------------------------------------------------------------------
// Process (group 0x03), KRN-27.

static PROCESS_V3: Layout = Layout {
    name: "Process_TypeGroup1",
    versions: &[3],
    fields: &[
        f("UniqueProcessKey", Pointer),
        f("ProcessId", U32),
        f("ParentId", U32),
        f("SessionId", U32),
        f("ExitStatus", I32),
        f("DirectoryTableBase", Pointer),
        f("UserSID", TokenUserSid),
        f("ImageFileName", Ansiz),
        f("CommandLine", Utf16z),
    ],
};

static PROCESS_V4: Layout = Layout {
    name: "Process_TypeGroup1",
    versions: &[4],
    fields: &[
        f("UniqueProcessKey", Pointer),
        f("ProcessId", U32),
        f("ParentId", U32),
        f("SessionId", U32),
        f("ExitStatus", I32),
        f("DirectoryTableBase", Pointer),
        f("Flags", U32),
        f("UserSID", TokenUserSid),
        f("ImageFileName", Ansiz),
        f("CommandLine", Utf16z),
        f("PackageFullName", Utf16z),
        f("ApplicationId", Utf16z),
    ],
};

const PROCESS_LAYOUTS: &[&Layout] = &[&PROCESS_V3, &PROCESS_V4];

/// `Process` {3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}, group 0x03 (KRN-09, KRN-27).
pub static PROCESS: KernelClass = KernelClass {
    name: "Process",
    guid: TypesClass::of_group(0x03).guid,
    group: Some(TypesClass::of_group(0x03).group),
    events: &[
        ev(1, "Start", PROCESS_LAYOUTS),
        ev(2, "End", PROCESS_LAYOUTS),
        ev(3, "DCStart", PROCESS_LAYOUTS),
        ev(4, "DCEnd", PROCESS_LAYOUTS),
        ev(39, "Defunct", PROCESS_LAYOUTS),
    ],
};

// ---------------------------------------------------------------------------------------
// FileIo (group 0x04), KRN-16…KRN-25: v2 (TTID pointer-sized, before FileObject) and v3.

static FILE_IO_NAME: Layout = Layout {
    name: "FileIo_Name",
    versions: &[2, 3],
    fields: &[f("FileObject", Pointer), f("FileName", Utf16z)],
};

static FILE_IO_CREATE_V2: Layout = Layout {
    name: "FileIo_Create",
    versions: &[2],
    fields: &[
        f("IrpPtr", Pointer),
        f("TTID", Pointer),
        f("FileObject", Pointer),
        f("CreateOptions", U32),
        f("FileAttributes", U32),
        f("ShareAccess", U32),
        f("OpenPath", Utf16z),
    ],
};

static FILE_IO_CREATE_V3: Layout = Layout {
    name: "FileIo_Create",
    versions: &[3],
    fields: &[
        f("IrpPtr", Pointer),
        f("FileObject", Pointer),
        f("TTID", U32),
        f("CreateOptions", U32),
        f("FileAttributes", U32),
        f("ShareAccess", U32),
        f("OpenPath", Utf16z),
    ],
};

static FILE_IO_SIMPLE_OP_V2: Layout = Layout {
    name: "FileIo_SimpleOp",
    versions: &[2],
    fields: &[
        f("IrpPtr", Pointer),
        f("TTID", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
    ],
};

static FILE_IO_SIMPLE_OP_V3: Layout = Layout {
    name: "FileIo_SimpleOp",
    versions: &[3],
    fields: &[
        f("IrpPtr", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("TTID", U32),
    ],
};

static FILE_IO_READ_WRITE_V2: Layout = Layout {
    name: "FileIo_ReadWrite",
    versions: &[2],
    fields: &[
        f("Offset", U64),
        f("IrpPtr", Pointer),
        f("TTID", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("IoSize", U32),
        f("IoFlags", U32),
    ],
};

static FILE_IO_READ_WRITE_V3: Layout = Layout {
    name: "FileIo_ReadWrite",
    versions: &[3],
    fields: &[
        f("Offset", U64),
        f("IrpPtr", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("TTID", U32),
        f("IoSize", U32),
        f("IoFlags", U32),
        opt("ExtraFlags", U32),
    ],
};

static FILE_IO_INFO_V2: Layout = Layout {
    name: "FileIo_Info",
    versions: &[2],
    fields: &[
        f("IrpPtr", Pointer),
        f("TTID", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("ExtraInfo", Pointer),
        f("InfoClass", U32),
    ],
};

static FILE_IO_INFO_V3: Layout = Layout {
    name: "FileIo_Info",
    versions: &[3],
    fields: &[
        f("IrpPtr", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("ExtraInfo", Pointer),
        f("TTID", U32),
        f("InfoClass", U32),
    ],
};

static FILE_IO_DIR_ENUM_V2: Layout = Layout {
    name: "FileIo_DirEnum",
    versions: &[2],
    fields: &[
        f("IrpPtr", Pointer),
        f("TTID", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("Length", U32),
        f("InfoClass", U32),
        f("FileIndex", U32),
        f("FileName", Utf16z),
    ],
};

static FILE_IO_DIR_ENUM_V3: Layout = Layout {
    name: "FileIo_DirEnum",
    versions: &[3],
    fields: &[
        f("IrpPtr", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("TTID", U32),
        f("Length", U32),
        f("InfoClass", U32),
        f("FileIndex", U32),
        f("FileName", Utf16z),
    ],
};

static FILE_IO_OP_END: Layout = Layout {
    name: "FileIo_OpEnd",
    versions: &[2, 3],
    fields: &[
        f("IrpPtr", Pointer),
        f("ExtraInfo", Pointer),
        f("NtStatus", U32),
    ],
};

static FILE_IO_PATH_OPERATION: Layout = Layout {
    name: "FileIo_PathOperation",
    versions: &[3],
    fields: &[
        f("IrpPtr", Pointer),
        f("FileObject", Pointer),
        f("FileKey", Pointer),
        f("ExtraInfo", Pointer),
        f("TTID", U32),
        f("InfoClass", U32),
        f("FileName", Utf16z),
    ],
};

const NAME: &[&Layout] = &[&FILE_IO_NAME];
const CREATE: &[&Layout] = &[&FILE_IO_CREATE_V2, &FILE_IO_CREATE_V3];
const SIMPLE_OP: &[&Layout] = &[&FILE_IO_SIMPLE_OP_V2, &FILE_IO_SIMPLE_OP_V3];
const READ_WRITE: &[&Layout] = &[&FILE_IO_READ_WRITE_V2, &FILE_IO_READ_WRITE_V3];
const INFO: &[&Layout] = &[&FILE_IO_INFO_V2, &FILE_IO_INFO_V3];
const DIR_ENUM: &[&Layout] = &[&FILE_IO_DIR_ENUM_V2, &FILE_IO_DIR_ENUM_V3];
const PATH_OPERATION: &[&Layout] = &[&FILE_IO_PATH_OPERATION];

/// `FileIo` {90cbdc39-4a3e-11d1-84f4-0000f80464e3}, group 0x04 (KRN-16). Types 33, 34, 37–40,
/// 78 and 82 are named but have no published layout.
pub static FILE_IO: KernelClass = KernelClass {
    name: "FileIo",
    guid: TypesClass::of_group(0x04).guid,
    group: Some(TypesClass::of_group(0x04).group),
    events: &[
        ev(0, "Name", NAME),
        ev(32, "FileCreate", NAME),
        ev(33, "FileNameSame", &[]),
        ev(34, "FileNameNull", &[]),
        ev(35, "FileDelete", NAME),
        ev(36, "FileRundown", NAME),
        ev(37, "MapFile", &[]),
        ev(38, "UnmapFile", &[]),
        ev(39, "MapFileDCStart", &[]),
        ev(40, "MapFileDCEnd", &[]),
        ev(64, "Create", CREATE),
        ev(65, "Cleanup", SIMPLE_OP),
        ev(66, "Close", SIMPLE_OP),
        ev(67, "Read", READ_WRITE),
        ev(68, "Write", READ_WRITE),
        ev(69, "SetInfo", INFO),
        ev(70, "Delete", INFO),
        ev(71, "Rename", INFO),
        ev(72, "DirEnum", DIR_ENUM),
        ev(73, "Flush", SIMPLE_OP),
        ev(74, "QueryInfo", INFO),
        ev(75, "FSControl", INFO),
        ev(76, "OperationEnd", &[&FILE_IO_OP_END]),
        ev(77, "DirNotify", DIR_ENUM),
        ev(78, "CreateNew", &[]),
        ev(79, "DeletePath", PATH_OPERATION),
        ev(80, "RenamePath", PATH_OPERATION),
        ev(81, "SetLinkPath", PATH_OPERATION),
        ev(82, "SetLink", &[]),
    ],
};

// ---------------------------------------------------------------------------------------
// Thread (group 0x05), KRN-28.

static THREAD_V3: Layout = Layout {
    name: "Thread_TypeGroup1",
    versions: &[3],
    fields: &[
        f("ProcessId", U32),
        f("TThreadId", U32),
        f("StackBase", Pointer),
        f("StackLimit", Pointer),
        f("UserStackBase", Pointer),
        f("UserStackLimit", Pointer),
        f("Affinity", Pointer),
        f("Win32StartAddr", Pointer),
        f("TebBase", Pointer),
        f("SubProcessTag", U32),
        f("BasePriority", U8),
        f("PagePriority", U8),
        f("IoPriority", U8),
        f("ThreadFlags", U8),
        opt("ThreadName", Utf16z),
    ],
};

const THREAD_LAYOUTS: &[&Layout] = &[&THREAD_V3];

/// `Thread` {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}, group 0x05 (KRN-09, KRN-28). CSwitch (36)
/// and ReadyThread (50) are named without a layout.
pub static THREAD: KernelClass = KernelClass {
    name: "Thread",
    guid: TypesClass::of_group(0x05).guid,
    group: Some(TypesClass::of_group(0x05).group),
    events: &[
        ev(1, "Start", THREAD_LAYOUTS),
        ev(2, "End", THREAD_LAYOUTS),
        ev(3, "DCStart", THREAD_LAYOUTS),
        ev(4, "DCEnd", THREAD_LAYOUTS),
        ev(36, "CSwitch", &[]),
        ev(50, "ReadyThread", &[]),
    ],
};

// ---------------------------------------------------------------------------------------
// Image (group 0x14), KRN-29.

static IMAGE_LOAD: Layout = Layout {
    name: "Image_Load",
    versions: &[2, 3],
    fields: &[
        f("ImageBase", Pointer),
        f("ImageSize", Pointer),
        f("ProcessId", U32),
        f("ImageChecksum", U32),
        f("TimeDateStamp", U32),
        f("SignatureLevel", U8),
        f("SignatureType", U8),
        f("Reserved0", U16),
        f("DefaultBase", Pointer),
        f("Reserved1", U32),
        f("Reserved2", U32),
        f("Reserved3", U32),
        f("Reserved4", U32),
        f("FileName", Utf16z),
    ],
};

const IMAGE_LAYOUTS: &[&Layout] = &[&IMAGE_LOAD];

/// `Image` {2cb15d1d-5fc1-11d2-abe1-00a0c911f518}, group 0x14 (KRN-09, KRN-29).
pub static IMAGE: KernelClass = KernelClass {
    name: "Image",
    guid: TypesClass::of_group(0x14).guid,
    group: Some(TypesClass::of_group(0x14).group),
    events: &[
        ev(10, "Load", IMAGE_LAYOUTS),
        ev(2, "Unload", IMAGE_LAYOUTS),
        ev(3, "DCStart", IMAGE_LAYOUTS),
        ev(4, "DCEnd", IMAGE_LAYOUTS),
    ],
};

// ---------------------------------------------------------------------------------------
// The other KRN-12 classes: GUID and group, no layouts yet.

macro_rules! bare_class {
    ($(#[$doc:meta])* $id:ident, $name:literal, $group:literal) => {
        $(#[$doc])*
        pub static $id: KernelClass = KernelClass {
            name: $name,
            guid: TypesClass::of_group($group).guid,
            group: Some($group),
            events: &[],
        };
    };
}

bare_class!(
    /// `PageFault` {3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c}, group 0x02 (no layouts).
    PAGE_FAULT, "PageFault", 0x02
);
bare_class!(
    /// `TcpIp` {9a280ac0-c8e0-11d1-84e2-00c04fb998a2}, group 0x06 (no layouts).
    TCP_IP, "TcpIp", 0x06
);
bare_class!(
    /// `UdpIp` {bf3a50c5-a9c9-4988-a005-2df0b7c80f80}, group 0x08 (no layouts).
    UDP_IP, "UdpIp", 0x08
);
bare_class!(
    /// `Registry` {ae53722e-c863-11d2-8659-00c04fa321a1}, group 0x09 (no layouts).
    REGISTRY, "Registry", 0x09
);
bare_class!(
    /// `SystemConfig` (= EventTraceConfigGuid) {01853a65-418f-4f36-aefc-dc0f1d2fd235}, group
    /// 0x0B (no layouts).
    SYSTEM_CONFIG, "SystemConfig", 0x0B
);
bare_class!(
    /// `PerfInfo` {ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}, group 0x0F (no layouts).
    PERF_INFO, "PerfInfo", 0x0F
);
bare_class!(
    /// `StackWalk` {def2fe46-7bd6-4b80-bd94-f57fe20d0ce3}, group 0x18 (no layouts).
    STACK_WALK, "StackWalk", 0x18
);
bare_class!(
    /// `ALPC` {45d8cccd-539f-4b72-a8b7-5c683142609a}, group 0x1A (no layouts).
    ALPC, "ALPC", 0x1A
);
bare_class!(
    /// `SplitIo` {d837ca92-12b9-44a5-ad6a-3a65b3578aa8}, group 0x1B (no layouts).
    SPLIT_IO, "SplitIo", 0x1B
);

/// `Lost_Event` (RT_LostEvent) {6a399ae0-4bc6-4de9-870b-3657f8947e7e}: no HookId group;
/// RTLostEvent (32), RTLostBuffer (33), RTLostFile (34) carry no payload layout here.
pub static LOST_EVENT: KernelClass = KernelClass {
    name: "Lost_Event",
    guid: Guid::RT_LOST_EVENT,
    group: None,
    events: &[
        ev(32, "RTLostEvent", &[]),
        ev(33, "RTLostBuffer", &[]),
        ev(34, "RTLostFile", &[]),
    ],
};

static CLASSES: [&KernelClass; 16] = [
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
];

/// Every kernel class of KRN-12, in group order.
pub fn classes() -> &'static [&'static KernelClass] {
    &CLASSES
}
