//! The classic records KernelTraceControl adds when it merges a kernel trace (`xperf -merge`,
//! PerfView, WPR): image identities and debug ids (ImageID) and the system paths and volume
//! map (SysConfig). Written with an `EVENT_TRACE_HEADER` and the class GUID, never with a
//! HookId group. Layouts: TraceEvent's SymbolTraceEventParser (ImageIDTraceData,
//! DbgIDRSDSTraceData, FileVersionTraceData…) and KernelTraceEventParser (BuildInfo,
//! SystemPaths, VolumeMapping), ntwmi `WMI_IMAGEID_INFORMATION` (packed).

use super::{ev, f};
use crate::mof::{Layout, MofClass, MofType};
use etwsim_types::kernel_class::{IMAGE_ID as IMAGE_ID_CLASS, SYS_CONFIG_EX};

use MofType::{Ansiz, FileTime, Guid, Pointer, U16, U32, Utf16z};

/// ntwmi `WMI_IMAGEID_INFORMATION`.
static IMAGE_ID_INFO: Layout = Layout {
    name: "ImageID_Info",
    versions: &[0, 1, 2],
    fields: &[
        f("ImageBase", Pointer),
        f("ImageSize", Pointer),
        f("ProcessId", U32),
        f("TimeDateStamp", U32),
        f("OriginalFileName", Utf16z),
    ],
};

/// The prefix every DbgID record starts with; alone, the "no debug id" record.
static DBGID_NONE: Layout = Layout {
    name: "ImageID_DbgID_None",
    versions: &[0, 1, 2],
    fields: &[f("ImageBase", Pointer), f("ProcessId", U32)],
};

static DBGID_RSDS: Layout = Layout {
    name: "ImageID_DbgID_RSDS",
    versions: &[0, 1, 2],
    fields: &[
        f("ImageBase", Pointer),
        f("ProcessId", U32),
        f("GuidSig", Guid),
        f("Age", U32),
        f("PdbFileName", Ansiz),
    ],
};

static DBGID_PPDB: Layout = Layout {
    name: "ImageID_DbgPPDB",
    versions: &[0, 1, 2],
    fields: &[
        f("ImageBase", Pointer),
        f("ProcessId", U32),
        f("TimeDateStamp", U32),
        f("MajorVersion", U16),
        f("MinorVersion", U16),
    ],
};

static DBGID_DETERM: Layout = Layout {
    name: "ImageID_DbgDeterm",
    versions: &[0, 1, 2],
    fields: &[f("ImageBase", Pointer), f("ProcessId", U32)],
};

static FILE_VERSION: Layout = Layout {
    name: "ImageID_FileVersion",
    versions: &[0, 1, 2],
    fields: &[
        f("ImageSize", U32),
        f("TimeDateStamp", U32),
        f("OrigFileName", Utf16z),
        f("FileDescription", Utf16z),
        f("FileVersion", Utf16z),
        f("BinFileVersion", Utf16z),
        f("VerLanguage", Utf16z),
        f("ProductName", Utf16z),
        f("CompanyName", Utf16z),
        f("ProductVersion", Utf16z),
        f("FileId", Utf16z),
        f("ProgramId", Utf16z),
    ],
};

/// KernelTraceControl's `ImageID` class {b3e675d7-2554-4f18-830b-2762732560de}: ImageID (0),
/// the DbgID records (0x20 none, 0x24 RSDS, 0x25 IL RSDS, 0x26 portable PDB, 0x28
/// deterministic) and FileVersion (0x40).
pub static IMAGE_ID: MofClass = MofClass {
    name: IMAGE_ID_CLASS.name,
    guid: IMAGE_ID_CLASS.guid,
    group: None,
    events: &[
        ev(0, "ImageID", &[&IMAGE_ID_INFO]),
        ev(0x20, "DbgID_None", &[&DBGID_NONE]),
        ev(0x24, "DbgID_RSDS", &[&DBGID_RSDS]),
        ev(0x25, "DbgID_ILRSDS", &[&DBGID_RSDS]),
        ev(0x26, "DbgPPDB", &[&DBGID_PPDB]),
        ev(0x28, "DbgDeterm", &[&DBGID_DETERM]),
        ev(0x40, "FileVersion", &[&FILE_VERSION]),
    ],
};

static BUILD_INFO: Layout = Layout {
    name: "SysConfig_BuildInfo",
    versions: &[0, 1, 2],
    fields: &[
        f("InstallDate", FileTime),
        f("BuildLab", Utf16z),
        f("ProductName", Utf16z),
    ],
};

static SYSTEM_PATHS: Layout = Layout {
    name: "SysConfig_SystemPaths",
    versions: &[0, 1, 2],
    fields: &[
        f("SystemDirectory", Utf16z),
        f("SystemWindowsDirectory", Utf16z),
    ],
};

static UNKNOWN_VOLUME: Layout = Layout {
    name: "SysConfig_UnknownVolume",
    versions: &[0, 1, 2],
    fields: &[f("VolumeName", Utf16z)],
};

static VOLUME_MAPPING: Layout = Layout {
    name: "SysConfig_VolumeMapping",
    versions: &[0, 1, 2],
    fields: &[f("NtPath", Utf16z), f("DosPath", Utf16z)],
};

/// KernelTraceControl's `SysConfig` class {9b79ee91-b5fd-41c0-a243-4248e266e9d0}: BuildInfo
/// (32), SystemPaths (33), UnknownVolume (34), VolumeMapping (35). Type 37 (16 bytes, zeros
/// in the merged traces seen) has no published layout.
pub static SYS_CONFIG: MofClass = MofClass {
    name: SYS_CONFIG_EX.name,
    guid: SYS_CONFIG_EX.guid,
    group: None,
    events: &[
        ev(32, "BuildInfo", &[&BUILD_INFO]),
        ev(33, "SystemPaths", &[&SYSTEM_PATHS]),
        ev(34, "UnknownVolume", &[&UNKNOWN_VOLUME]),
        ev(35, "VolumeMapping", &[&VOLUME_MAPPING]),
    ],
};
