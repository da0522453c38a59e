//! DiskIo (group 0x01, KRN-30), FileIo (0x04, KRN-16…KRN-25) and SplitIo (0x1B).

use super::{class, ev, f, named, opt};
use crate::mof::{Layout, MofClass, MofType};

use MofType::{I64, Pointer, U32, U64, Utf16z};

// ---------------------------------------------------------------------------------------
// DiskIo: Learn DiskIo_TypeGroup1…3 (v2), ntwmi ETW_DISKIO_*_V3 (v3: IssuingThreadId
// appended, Windows 8+), the driver-delay classes (Learn DriverMajorFunctionCall…, the same
// structures in ntwmi PERFINFO_DRIVER_*) and ntwmi's optical-drive records.

static DISK_IO_TG1_V2: Layout = Layout {
    name: "DiskIo_TypeGroup1",
    versions: &[2],
    fields: &[
        f("DiskNumber", U32),
        f("IrpFlags", U32),
        f("TransferSize", U32),
        f("Reserved", U32),
        f("ByteOffset", I64),
        f("FileObject", Pointer),
        f("Irp", Pointer),
        f("HighResResponseTime", U64),
    ],
};

static DISK_IO_TG1: Layout = Layout {
    name: "DiskIo_TypeGroup1",
    versions: &[3],
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

static DISK_IO_TG2_V2: Layout = Layout {
    name: "DiskIo_TypeGroup2",
    versions: &[2],
    fields: &[f("Irp", Pointer)],
};

static DISK_IO_TG2: Layout = Layout {
    name: "DiskIo_TypeGroup2",
    versions: &[3],
    fields: &[f("Irp", Pointer), opt("IssuingThreadId", U32)],
};

static DISK_IO_TG3_V2: Layout = Layout {
    name: "DiskIo_TypeGroup3",
    versions: &[2],
    fields: &[
        f("DiskNumber", U32),
        f("IrpFlags", U32),
        f("HighResResponseTime", U64),
        f("Irp", Pointer),
    ],
};

static DISK_IO_TG3: Layout = Layout {
    name: "DiskIo_TypeGroup3",
    versions: &[3],
    fields: &[
        f("DiskNumber", U32),
        f("IrpFlags", U32),
        f("HighResResponseTime", U64),
        f("Irp", Pointer),
        opt("IssuingThreadId", U32),
    ],
};

/// ntwmi `WMI_DISKIO_IO_REDIRECTED_INIT`.
static DISK_IO_REDIRECTED_INIT: Layout = Layout {
    name: "DiskIo_RedirectedInit",
    versions: &[2, 3],
    fields: &[f("Irp", Pointer), opt("FileKey", Pointer)],
};

static DRIVER_MAJOR_FUNCTION_CALL: Layout = Layout {
    name: "DriverMajorFunctionCall",
    versions: &[2, 3],
    fields: &[
        f("MajorFunction", U32),
        f("MinorFunction", U32),
        f("RoutineAddr", Pointer),
        f("FileObject", Pointer),
        f("Irp", Pointer),
        f("UniqMatchId", U32),
    ],
};

static DRIVER_MAJOR_FUNCTION_RETURN: Layout = Layout {
    name: "DriverMajorFunctionReturn",
    versions: &[2, 3],
    fields: &[f("Irp", Pointer), f("UniqMatchId", U32)],
};

static DRIVER_COMPLETION_ROUTINE: Layout = Layout {
    name: "DriverCompletionRoutine",
    versions: &[2, 3],
    fields: &[
        f("Routine", Pointer),
        f("IrpPtr", Pointer),
        f("UniqMatchId", U32),
    ],
};

static DRIVER_COMPLETE_REQUEST: Layout = Layout {
    name: "DriverCompleteRequest",
    versions: &[2, 3],
    fields: &[
        f("RoutineAddr", Pointer),
        f("Irp", Pointer),
        f("UniqMatchId", U32),
    ],
};

static DRIVER_COMPLETE_REQUEST_RETURN: Layout = Layout {
    name: "DriverCompleteRequestReturn",
    versions: &[2, 3],
    fields: &[f("Irp", Pointer), f("UniqMatchId", U32)],
};

/// ntwmi `ETW_OPTICALIO_READWRITE`.
static OPTICAL_IO_READ_WRITE: Layout = Layout {
    name: "DiskIo_OpticalReadWrite",
    versions: &[3],
    fields: &[
        f("DiskNumber", U32),
        f("IrpFlags", U32),
        f("TransferSize", U32),
        f("Reserved", U32),
        f("ByteOffset", I64),
        f("FileObject", Pointer),
        f("Irp", Pointer),
        f("HighResResponseTime", U64),
        f("IssuingThreadId", U32),
    ],
};

/// ntwmi `ETW_OPTICALIO_FLUSH_BUFFERS`.
static OPTICAL_IO_FLUSH: Layout = Layout {
    name: "DiskIo_OpticalFlushBuffers",
    versions: &[3],
    fields: &[
        f("DiskNumber", U32),
        f("IrpFlags", U32),
        f("HighResResponseTime", U64),
        f("Irp", Pointer),
        f("IssuingThreadId", U32),
    ],
};

/// ntwmi `ETW_OPTICALIO_INIT`.
static OPTICAL_IO_INIT: Layout = Layout {
    name: "DiskIo_OpticalInit",
    versions: &[3],
    fields: &[f("Irp", Pointer), f("IssuingThreadId", U32)],
};

const TG1: &[&Layout] = &[&DISK_IO_TG1_V2, &DISK_IO_TG1];
const TG2: &[&Layout] = &[&DISK_IO_TG2_V2, &DISK_IO_TG2];
const TG3: &[&Layout] = &[&DISK_IO_TG3_V2, &DISK_IO_TG3];

/// `DiskIo` {3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c}, group 0x01 (KRN-09, KRN-30).
pub static DISK_IO: MofClass = class(
    "DiskIo",
    0x01,
    &[
        ev(10, "Read", TG1),
        ev(11, "Write", TG1),
        ev(12, "ReadInit", TG2),
        ev(13, "WriteInit", TG2),
        ev(14, "Flush", TG3),
        ev(15, "FlushInit", TG2),
        ev(16, "RedirectedInit", &[&DISK_IO_REDIRECTED_INIT]),
        named(32, "DriverInit"),
        named(33, "DriverInitComplete"),
        ev(
            34,
            "DriverMajorFunctionCall",
            &[&DRIVER_MAJOR_FUNCTION_CALL],
        ),
        ev(
            35,
            "DriverMajorFunctionReturn",
            &[&DRIVER_MAJOR_FUNCTION_RETURN],
        ),
        ev(37, "DriverCompletionRoutine", &[&DRIVER_COMPLETION_ROUTINE]),
        ev(52, "DriverCompleteRequest", &[&DRIVER_COMPLETE_REQUEST]),
        ev(
            53,
            "DriverCompleteRequestReturn",
            &[&DRIVER_COMPLETE_REQUEST_RETURN],
        ),
        ev(55, "OpticalRead", &[&OPTICAL_IO_READ_WRITE]),
        ev(56, "OpticalWrite", &[&OPTICAL_IO_READ_WRITE]),
        ev(57, "OpticalFlushBuffers", &[&OPTICAL_IO_FLUSH]),
        ev(58, "OpticalReadInit", &[&OPTICAL_IO_INIT]),
        ev(59, "OpticalWriteInit", &[&OPTICAL_IO_INIT]),
        ev(60, "OpticalFlushInit", &[&OPTICAL_IO_INIT]),
    ],
);

// ---------------------------------------------------------------------------------------
// FileIo: v2 (Vista/7; the MOF layout Learn documents: TTID is pointer-sized and comes
// before FileObject) and v3 (Windows 8+; ntwmi PERFINFO_FILE_*), KRN-17.

static FILE_IO_NAME: Layout = Layout {
    name: "FileIo_Name",
    versions: &[0, 1, 2, 3],
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

/// MapFile family v2: TraceEvent's MapFileTraceData; names as Windows' MOF (dissect.etl's
/// copy) gives them. The second field carries the FileKey (TraceEvent's name).
static FILE_IO_MAP_FILE_V2: Layout = Layout {
    name: "FileIo_MapFile",
    versions: &[2],
    fields: &[
        f("ViewBase", Pointer),
        f("FileObject", Pointer),
        f("MiscInfo", U64),
        f("ViewSize", Pointer),
        f("ProcessId", U32),
    ],
};

/// MapFile family v3 (Windows 10): TraceEvent's ByteOffset after ViewSize.
static FILE_IO_MAP_FILE_V3: Layout = Layout {
    name: "FileIo_MapFile",
    versions: &[3],
    fields: &[
        f("ViewBase", Pointer),
        f("FileObject", Pointer),
        f("MiscInfo", U64),
        f("ViewSize", Pointer),
        f("ByteOffset", U64),
        f("ProcessId", U32),
    ],
};

/// Minifilter operations: ntwmi `PERFINFO_FLT_OPERATION`.
static FILE_IO_FLT_OPERATION: Layout = Layout {
    name: "FileIo_FltOperation",
    versions: &[3],
    fields: &[
        f("RoutineAddr", Pointer),
        f("FileObject", Pointer),
        f("FileContext", Pointer),
        f("IrpPtr", Pointer),
        f("CallbackDataPtr", Pointer),
        f("MajorFunction", U32),
    ],
};

/// Minifilter completions: the operation preceded by its start time (Windows' MOF,
/// dissect.etl's copy).
static FILE_IO_FLT_COMPLETION: Layout = Layout {
    name: "FileIo_FltCompletion",
    versions: &[3],
    fields: &[
        f("InitialTime", U64),
        f("RoutineAddr", Pointer),
        f("FileObject", Pointer),
        f("FileContext", Pointer),
        f("IrpPtr", Pointer),
        f("CallbackDataPtr", Pointer),
        f("MajorFunction", U32),
    ],
};

/// Minifilter failures: ntwmi `PERFINFO_FLT_OPERATION_STATUS`.
static FILE_IO_FLT_FAILURE: Layout = Layout {
    name: "FileIo_FltFailure",
    versions: &[3],
    fields: &[
        f("RoutineAddr", Pointer),
        f("FileObject", Pointer),
        f("FileContext", Pointer),
        f("IrpPtr", Pointer),
        f("CallbackDataPtr", Pointer),
        f("MajorFunction", U32),
        f("Status", U32),
    ],
};

const NAME: &[&Layout] = &[&FILE_IO_NAME];
const CREATE: &[&Layout] = &[&FILE_IO_CREATE_V2, &FILE_IO_CREATE_V3];
const SIMPLE_OP: &[&Layout] = &[&FILE_IO_SIMPLE_OP_V2, &FILE_IO_SIMPLE_OP_V3];
const READ_WRITE: &[&Layout] = &[&FILE_IO_READ_WRITE_V2, &FILE_IO_READ_WRITE_V3];
const INFO: &[&Layout] = &[&FILE_IO_INFO_V2, &FILE_IO_INFO_V3];
const DIR_ENUM: &[&Layout] = &[&FILE_IO_DIR_ENUM_V2, &FILE_IO_DIR_ENUM_V3];
const PATH_OPERATION: &[&Layout] = &[&FILE_IO_PATH_OPERATION];
const MAP_FILE: &[&Layout] = &[&FILE_IO_MAP_FILE_V2, &FILE_IO_MAP_FILE_V3];

/// `FileIo` {90cbdc39-4a3e-11d1-84f4-0000f80464e3}, group 0x04 (KRN-16). Types 33, 34, 78
/// and 82 are named but have no published layout.
pub static FILE_IO: MofClass = class(
    "FileIo",
    0x04,
    &[
        ev(0, "Name", NAME),
        ev(32, "FileCreate", NAME),
        named(33, "FileNameSame"),
        named(34, "FileNameNull"),
        ev(35, "FileDelete", NAME),
        ev(36, "FileRundown", NAME),
        ev(37, "MapFile", MAP_FILE),
        ev(38, "UnmapFile", MAP_FILE),
        ev(39, "MapFileDCStart", MAP_FILE),
        ev(40, "MapFileDCEnd", MAP_FILE),
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
        named(78, "CreateNew"),
        ev(79, "DeletePath", PATH_OPERATION),
        ev(80, "RenamePath", PATH_OPERATION),
        ev(81, "SetLinkPath", PATH_OPERATION),
        named(82, "SetLink"),
        ev(96, "PreOpInit", &[&FILE_IO_FLT_OPERATION]),
        ev(97, "PostOpInit", &[&FILE_IO_FLT_OPERATION]),
        ev(98, "PreOpCompletion", &[&FILE_IO_FLT_COMPLETION]),
        ev(99, "PostOpCompletion", &[&FILE_IO_FLT_COMPLETION]),
        ev(100, "PreOpFailure", &[&FILE_IO_FLT_FAILURE]),
        ev(101, "PostOpFailure", &[&FILE_IO_FLT_FAILURE]),
    ],
);

// ---------------------------------------------------------------------------------------
// SplitIo: Learn SplitIo_Info.

static SPLIT_IO_INFO: Layout = Layout {
    name: "SplitIo_Info",
    versions: &[2, 3],
    fields: &[f("ParentIrp", Pointer), f("ChildIrp", Pointer)],
};

/// `SplitIo` {d837ca92-12b9-44a5-ad6a-3a65b3578aa8}, group 0x1B: VolMgr (32).
pub static SPLIT_IO: MofClass = class("SplitIo", 0x1B, &[ev(32, "VolMgr", &[&SPLIT_IO_INFO])]);
