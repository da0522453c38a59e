//! PageFault (group 0x02): Learn PageFault_TypeGroup1, PageFault_HardFault,
//! PageFault_VirtualAlloc, PageFault_ImageLoadBacked; the heap-range classes of the MOF
//! (TraceEvent's MemoryHeapRange*); ntwmi PERFINFO_VAD_ROTATE_INFO and PERFINFO_MEM_RESET_INFO.

use super::{class, ev, f, named};
use crate::mof::{Layout, MofClass, MofType};

use MofType::{Pointer, U16, U32, U64};

static PAGE_FAULT_TG1: Layout = Layout {
    name: "PageFault_TypeGroup1",
    versions: &[2],
    fields: &[f("VirtualAddress", Pointer), f("ProgramCounter", Pointer)],
};

static HARD_FAULT: Layout = Layout {
    name: "PageFault_HardFault",
    versions: &[2],
    fields: &[
        f("InitialTime", U64),
        f("ReadOffset", U64),
        f("VirtualAddress", Pointer),
        f("FileObject", Pointer),
        f("TThreadId", U32),
        f("ByteCount", U32),
    ],
};

static VIRTUAL_ALLOC: Layout = Layout {
    name: "PageFault_VirtualAlloc",
    versions: &[2],
    fields: &[
        f("BaseAddress", Pointer),
        f("RegionSize", Pointer),
        f("ProcessId", U32),
        f("Flags", U32),
    ],
};

static HEAP_RANGE_RUNDOWN_V2: Layout = Layout {
    name: "PageFault_HeapRangeRundown",
    versions: &[2],
    fields: &[
        f("HeapHandle", Pointer),
        f("HRFlags", U32),
        f("HRPid", U32),
        f("HRRangeCount", U32),
    ],
};

/// Windows 10 appends a reserved u32 (Windows' MOF, dissect.etl's copy).
static HEAP_RANGE_RUNDOWN_V3: Layout = Layout {
    name: "PageFault_HeapRangeRundown",
    versions: &[3],
    fields: &[
        f("HeapHandle", Pointer),
        f("HRFlags", U32),
        f("HRPid", U32),
        f("HRRangeCount", U32),
        f("Reserved", U32),
    ],
};

static HEAP_RANGE_CREATE: Layout = Layout {
    name: "PageFault_HeapRangeCreate",
    versions: &[2],
    fields: &[
        f("HeapHandle", Pointer),
        f("FirstRangeSize", Pointer),
        f("HRCreateFlags", U32),
    ],
};

static HEAP_RANGE: Layout = Layout {
    name: "PageFault_HeapRangeTypeGroup",
    versions: &[2],
    fields: &[
        f("HeapHandle", Pointer),
        f("HRAddress", Pointer),
        f("HRSize", Pointer),
    ],
};

static HEAP_RANGE_DESTROY: Layout = Layout {
    name: "PageFault_HeapRangeDestroy",
    versions: &[2],
    fields: &[f("HeapHandle", Pointer)],
};

static IMAGE_LOAD_BACKED: Layout = Layout {
    name: "PageFault_ImageLoadBacked",
    versions: &[2],
    fields: &[
        f("FileObject", Pointer),
        f("DeviceChar", U32),
        f("FileChar", U16),
        f("LoadFlags", U16),
    ],
};

/// ntwmi `PERFINFO_VAD_ROTATE_INFO` / `PERFINFO_MEM_RESET_INFO` (the same shape).
static VIRTUAL_RANGE: Layout = Layout {
    name: "PageFault_VirtualRange",
    versions: &[2],
    fields: &[
        f("BaseAddress", Pointer),
        f("SizeInBytes", Pointer),
        f("Flags", U32),
    ],
};

/// The VirtualAlloc rundown: VirtualAlloc plus the committed size (Windows' MOF, dissect.etl's
/// copy).
static VIRTUAL_ALLOC_RUNDOWN: Layout = Layout {
    name: "PageFault_VirtualAllocRundown",
    versions: &[2],
    fields: &[
        f("BaseAddress", Pointer),
        f("RegionSize", Pointer),
        f("ProcessId", U32),
        f("Flags", U32),
        f("CommitSizeInBytes", Pointer),
    ],
};

const TG1: &[&Layout] = &[&PAGE_FAULT_TG1];
const HEAP_RANGE_RW: &[&Layout] = &[&HEAP_RANGE];

/// `PageFault` {3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c}, group 0x02 (KRN-09):
/// TypeGroup1 faults (10–15), HardFault (32), VirtualAlloc/VirtualFree (98, 99), the heap
/// ranges (100–104), ImageLoadBacked (105) and the Windows 8+ virtual-range records.
pub static PAGE_FAULT: MofClass = class(
    "PageFault",
    0x02,
    &[
        ev(10, "TransitionFault", TG1),
        ev(11, "DemandZeroFault", TG1),
        ev(12, "CopyOnWrite", TG1),
        ev(13, "GuardPageFault", TG1),
        ev(14, "HardPageFault", TG1),
        ev(15, "AccessViolation", TG1),
        ev(32, "HardFault", &[&HARD_FAULT]),
        named(35, "PageInMemory"),
        named(73, "PFMappedSectionCreate"),
        named(79, "PFMappedSectionDelete"),
        ev(98, "VirtualAlloc", &[&VIRTUAL_ALLOC]),
        ev(99, "VirtualFree", &[&VIRTUAL_ALLOC]),
        ev(
            100,
            "HRRundown",
            &[&HEAP_RANGE_RUNDOWN_V2, &HEAP_RANGE_RUNDOWN_V3],
        ),
        ev(101, "HRCreate", &[&HEAP_RANGE_CREATE]),
        ev(102, "HRReserve", HEAP_RANGE_RW),
        ev(103, "HRRelease", HEAP_RANGE_RW),
        ev(104, "HRDestroy", &[&HEAP_RANGE_DESTROY]),
        ev(105, "ImageLoadBacked", &[&IMAGE_LOAD_BACKED]),
        named(112, "MemInfo"),
        named(118, "PageAccess"),
        named(125, "MemInfoWS"),
        ev(127, "VirtualRotate", &[&VIRTUAL_RANGE]),
        ev(128, "VirtualAllocDCStart", &[&VIRTUAL_ALLOC_RUNDOWN]),
        ev(129, "VirtualAllocDCEnd", &[&VIRTUAL_ALLOC_RUNDOWN]),
        named(130, "PageAccessEx"),
        ev(134, "MemResetInfo", &[&VIRTUAL_RANGE]),
    ],
);
