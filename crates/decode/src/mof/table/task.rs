//! Process (group 0x03, KRN-27), Thread (0x05, KRN-28) and Image (0x14, KRN-29).

use super::{class, ev, f, named, opt};
use crate::mof::{Layout, MofClass, MofField, MofType};

use MofType::{
    Ansiz, FileTime, I8, I32, Pointer, PointerArray, TokenUserSid, U8, U16, U32, U64, Utf16z,
};

// ---------------------------------------------------------------------------------------
// Process: Learn Process_V0/V1/V2_TypeGroup1 (v0–v2), Process_TypeGroup1 (v3),
// Process_V2_TypeGroup2 (PerfCtr); v4 (Windows 8+) and v5 (Windows 10 Defunct, ExitTime
// appended, a FILETIME: Windows' MOF, dissect.etl's copy, calls it a u64) per TraceEvent and ntwmi
// WMI_PROCESS_INFORMATION.

static PROCESS_V0: Layout = Layout {
    name: "Process_V0_TypeGroup1",
    versions: &[0],
    fields: &[
        f("ProcessId", Pointer),
        f("ParentId", Pointer),
        f("UserSID", TokenUserSid),
        f("ImageFileName", Ansiz),
    ],
};

static PROCESS_V1: Layout = Layout {
    name: "Process_V1_TypeGroup1",
    versions: &[1],
    fields: &[
        f("PageDirectoryBase", Pointer),
        f("ProcessId", U32),
        f("ParentId", U32),
        f("SessionId", U32),
        f("ExitStatus", I32),
        f("UserSID", TokenUserSid),
        f("ImageFileName", Ansiz),
    ],
};

static PROCESS_V2: Layout = Layout {
    name: "Process_V2_TypeGroup1",
    versions: &[2],
    fields: &[
        f("UniqueProcessKey", Pointer),
        f("ProcessId", U32),
        f("ParentId", U32),
        f("SessionId", U32),
        f("ExitStatus", I32),
        f("UserSID", TokenUserSid),
        f("ImageFileName", Ansiz),
        f("CommandLine", Utf16z),
    ],
};

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

const PROCESS_V4_FIELDS: [MofField; 12] = [
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
];

static PROCESS_V4: Layout = Layout {
    name: "Process_TypeGroup1",
    versions: &[4],
    fields: &PROCESS_V4_FIELDS,
};

static PROCESS_V5: Layout = Layout {
    name: "Process_TypeGroup1",
    versions: &[5],
    fields: &[
        PROCESS_V4_FIELDS[0],
        PROCESS_V4_FIELDS[1],
        PROCESS_V4_FIELDS[2],
        PROCESS_V4_FIELDS[3],
        PROCESS_V4_FIELDS[4],
        PROCESS_V4_FIELDS[5],
        PROCESS_V4_FIELDS[6],
        PROCESS_V4_FIELDS[7],
        PROCESS_V4_FIELDS[8],
        PROCESS_V4_FIELDS[9],
        PROCESS_V4_FIELDS[10],
        PROCESS_V4_FIELDS[11],
        opt("ExitTime", FileTime),
    ],
};

/// Windows' MOF (dissect.etl's copy) and the 4-byte payload real Windows 10 traces carry.
static PROCESS_TERMINATE: Layout = Layout {
    name: "Process_Terminate",
    versions: &[2],
    fields: &[f("ProcessId", U32)],
};

static PROCESS_PERF_CTR: Layout = Layout {
    name: "Process_V2_TypeGroup2",
    versions: &[2],
    fields: &[
        f("ProcessId", U32),
        f("PageFaultCount", U32),
        f("HandleCount", U32),
        f("Reserved", U32),
        f("PeakVirtualSize", Pointer),
        f("PeakWorkingSetSize", Pointer),
        f("PeakPagefileUsage", Pointer),
        f("QuotaPeakPagedPoolUsage", Pointer),
        f("QuotaPeakNonPagedPoolUsage", Pointer),
        f("VirtualSize", Pointer),
        f("WorkingSetSize", Pointer),
        f("PagefileUsage", Pointer),
        f("QuotaPagedPoolUsage", Pointer),
        f("QuotaNonPagedPoolUsage", Pointer),
        f("PrivatePageCount", Pointer),
    ],
};

/// ntwmi `PERFINFO_PROCESS_INSWAP`.
static PROCESS_IN_SWAP: Layout = Layout {
    name: "Process_InSwap",
    versions: &[2],
    fields: &[f("DirectoryTableBase", Pointer), f("ProcessId", U32)],
};

/// ntwmi `ETW_WAKE_COUNTER_EVENT`.
static PROCESS_WAKE_COUNTER: Layout = Layout {
    name: "Process_WakeCounter",
    versions: &[2],
    fields: &[
        f("Object", Pointer),
        f("Tag", Pointer),
        f("ProcessId", U32),
        f("Count", I32),
    ],
};

/// The wake-event records: the object only (Windows' MOF, dissect.etl's copy).
static PROCESS_WAKE_EVENT: Layout = Layout {
    name: "Process_WakeEvent",
    versions: &[2],
    fields: &[f("Object", Pointer)],
};

const PROCESS_LAYOUTS: &[&Layout] = &[
    &PROCESS_V0,
    &PROCESS_V1,
    &PROCESS_V2,
    &PROCESS_V3,
    &PROCESS_V4,
];
const DEFUNCT_LAYOUTS: &[&Layout] = &[&PROCESS_V2, &PROCESS_V3, &PROCESS_V4, &PROCESS_V5];
const PERF_CTR: &[&Layout] = &[&PROCESS_PERF_CTR];
const WAKE: &[&Layout] = &[&PROCESS_WAKE_COUNTER];
const WAKE_EVENT: &[&Layout] = &[&PROCESS_WAKE_EVENT];

/// `Process` {3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}, group 0x03 (KRN-09, KRN-27). Image
/// loads written under this group (HookId 0x030A) decode as Image/Load
/// ([`class_for_hook`](crate::mof::class_for_hook)).
pub static PROCESS: MofClass = class(
    "Process",
    0x03,
    &[
        ev(1, "Start", PROCESS_LAYOUTS),
        ev(2, "End", PROCESS_LAYOUTS),
        ev(3, "DCStart", PROCESS_LAYOUTS),
        ev(4, "DCEnd", PROCESS_LAYOUTS),
        ev(11, "Terminate", &[&PROCESS_TERMINATE]),
        ev(32, "PerfCtr", PERF_CTR),
        ev(33, "PerfCtrRundown", PERF_CTR),
        ev(35, "InSwap", &[&PROCESS_IN_SWAP]),
        named(36, "Freeze"),
        named(37, "Thaw"),
        named(38, "BootPhaseStart"),
        ev(39, "Defunct", DEFUNCT_LAYOUTS),
        named(40, "SetAffinity"),
        ev(48, "WakeChargeUser", WAKE),
        ev(49, "WakeChargeExecution", WAKE),
        ev(50, "WakeChargeKernel", WAKE),
        ev(51, "WakeChargeInstrumentation", WAKE),
        ev(52, "WakeChargePreserveProcess", WAKE),
        ev(64, "WakeReleaseUser", WAKE),
        ev(65, "WakeReleaseExecution", WAKE),
        ev(66, "WakeReleaseKernel", WAKE),
        ev(67, "WakeReleaseInstrumentation", WAKE),
        ev(68, "WakeReleasePreserveProcess", WAKE),
        ev(80, "WakeDropUser", WAKE),
        ev(81, "WakeDropExecution", WAKE),
        ev(82, "WakeDropKernel", WAKE),
        ev(83, "WakeDropInstrumentation", WAKE),
        ev(84, "WakeDropPreserveProcess", WAKE),
        ev(96, "WakeEventUser", WAKE_EVENT),
        ev(97, "WakeEventExecution", WAKE_EVENT),
        ev(98, "WakeEventKernel", WAKE_EVENT),
        ev(99, "WakeEventInstrumentation", WAKE_EVENT),
        ev(100, "WakeEventPreserveProcess", WAKE_EVENT),
        named(112, "DebugEvent"),
    ],
);

// ---------------------------------------------------------------------------------------
// Thread: Learn Thread_V0_TypeGroup1, Thread_V1_TypeGroup1/2, Thread_V2_TypeGroup1,
// Thread_TypeGroup1 (v3; v4 the same with the optional name, ntwmi
// WMI_EXTENDED_THREAD_INFORMATION), CSwitch_V1 / CSwitch, ReadyThread, WorkerThread; the
// scheduler records of ntwmi (ETW_PRIORITY_EVENT, ETW_THREAD_AFFINITY_EVENT, ETW_KQUEUE_*,
// ETW_ANTI_STARVATION_BOOST_EVENT, ETW_AUTOBOOST_*, ETW_THREAD_EVENT_SUBPROCESSTAG) and
// TraceEvent's SetName.

static THREAD_V0: Layout = Layout {
    name: "Thread_V0_TypeGroup1",
    versions: &[0],
    fields: &[f("TThreadId", U32), f("ProcessId", U32)],
};

static THREAD_V1_START: Layout = Layout {
    name: "Thread_V1_TypeGroup1",
    versions: &[1],
    fields: &[
        f("ProcessId", U32),
        f("TThreadId", U32),
        f("StackBase", Pointer),
        f("StackLimit", Pointer),
        f("UserStackBase", Pointer),
        f("UserStackLimit", Pointer),
        f("StartAddr", Pointer),
        f("Win32StartAddr", Pointer),
        f("WaitMode", I8),
    ],
};

static THREAD_V1_END: Layout = Layout {
    name: "Thread_V1_TypeGroup2",
    versions: &[1],
    fields: &[f("ProcessId", U32), f("TThreadId", U32)],
};

static THREAD_V2: Layout = Layout {
    name: "Thread_V2_TypeGroup1",
    versions: &[2],
    fields: &[
        f("ProcessId", U32),
        f("TThreadId", U32),
        f("StackBase", Pointer),
        f("StackLimit", Pointer),
        f("UserStackBase", Pointer),
        f("UserStackLimit", Pointer),
        f("StartAddr", Pointer),
        f("Win32StartAddr", Pointer),
        f("TebBase", Pointer),
        f("SubProcessTag", U32),
    ],
};

static THREAD_V3: Layout = Layout {
    name: "Thread_TypeGroup1",
    versions: &[3, 4],
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

static CSWITCH_V1: Layout = Layout {
    name: "CSwitch_V1",
    versions: &[1],
    fields: &[
        f("NewThreadId", U32),
        f("OldThreadId", U32),
        f("NewThreadPriority", I8),
        f("OldThreadPriority", I8),
        f("NewThreadQuantum", I8),
        f("OldThreadQuantum", I8),
        f("OldThreadWaitReason", I8),
        f("OldThreadWaitMode", I8),
        f("OldThreadState", I8),
        f("OldThreadWaitIdealProcessor", I8),
        f("NewThreadWaitTime", U32),
    ],
};

static CSWITCH: Layout = Layout {
    name: "CSwitch",
    versions: &[2, 3, 4],
    fields: &[
        f("NewThreadId", U32),
        f("OldThreadId", U32),
        f("NewThreadPriority", I8),
        f("OldThreadPriority", I8),
        f("PreviousCState", U8),
        f("SpareByte", I8),
        f("OldThreadWaitReason", I8),
        f("OldThreadWaitMode", I8),
        f("OldThreadState", I8),
        f("OldThreadWaitIdealProcessor", I8),
        f("NewThreadWaitTime", U32),
        f("Reserved", U32),
    ],
};

static COMP_CS: Layout = Layout {
    name: "CompCS",
    versions: &[2],
    fields: &[],
};

/// ntwmi `ETW_PRIORITY_EVENT` (DynamicPriority is set by SetBasePriority only).
static THREAD_PRIORITY: Layout = Layout {
    name: "Thread_Priority",
    versions: &[3],
    fields: &[
        f("ThreadId", U32),
        f("OldPriority", I8),
        f("NewPriority", I8),
        f("DynamicPriority", I8),
        f("Reserved", I8),
    ],
};

static READY_THREAD: Layout = Layout {
    name: "ReadyThread",
    versions: &[2],
    fields: &[
        f("TThreadId", U32),
        f("AdjustReason", I8),
        f("AdjustIncrement", I8),
        f("Flag", I8),
        f("Reserved", I8),
    ],
};

/// ntwmi `ETW_THREAD_AFFINITY_EVENT`.
static THREAD_AFFINITY: Layout = Layout {
    name: "Thread_Affinity",
    versions: &[2],
    fields: &[
        f("Affinity", Pointer),
        f("ThreadId", U32),
        f("Group", U16),
        f("Reserved", U16),
    ],
};

static WORKER_THREAD: Layout = Layout {
    name: "WorkerThread",
    versions: &[1, 2],
    fields: &[
        f("TThreadId", U32),
        f("StartTime", U64),
        f("ThreadRoutine", Pointer),
    ],
};

/// ntwmi `ETW_ANTI_STARVATION_BOOST_EVENT`.
static ANTI_STARVATION_BOOST: Layout = Layout {
    name: "Thread_AntiStarvationBoost",
    versions: &[2],
    fields: &[
        f("ThreadId", U32),
        f("ProcessorIndex", U16),
        f("OldPriority", I8),
        f("SpareByte", U8),
    ],
};

/// ntwmi `ETW_KQUEUE_ENQUEUE_EVENT`.
static KQUEUE_ENQUEUE: Layout = Layout {
    name: "Thread_KernelQueueEnqueue",
    versions: &[2],
    fields: &[f("Entry", Pointer), f("ThreadId", U32)],
};

/// ntwmi `ETW_KQUEUE_DEQUEUE_EVENT`: the entries run to the end.
static KQUEUE_DEQUEUE: Layout = Layout {
    name: "Thread_KernelQueueDequeue",
    versions: &[2],
    fields: &[
        f("ThreadId", U32),
        f("EntryCount", U32),
        f("Entries", PointerArray),
    ],
};

/// ntwmi `ETW_AUTOBOOST_SET_PRIORITY_FLOOR_EVENT`.
static AUTOBOOST_SET_FLOOR: Layout = Layout {
    name: "Thread_AutoBoostSetFloor",
    versions: &[2],
    fields: &[
        f("Lock", Pointer),
        f("ThreadId", U32),
        f("NewCpuPriorityFloor", I8),
        f("OldCpuPriority", I8),
        f("IoPriorities", I8),
        f("BoostFlags", U8),
    ],
};

/// ntwmi `ETW_AUTOBOOST_CLEAR_PRIORITY_FLOOR_EVENT`.
static AUTOBOOST_CLEAR_FLOOR: Layout = Layout {
    name: "Thread_AutoBoostClearFloor",
    versions: &[2],
    fields: &[
        f("Lock", Pointer),
        f("ThreadId", U32),
        f("BoostBitmap", U16),
        f("Reserved", U16),
    ],
};

/// ntwmi `ETW_AUTOBOOST_NO_ENTRIES_EVENT`.
static AUTOBOOST_NO_ENTRIES: Layout = Layout {
    name: "Thread_AutoBoostEntryExhaustion",
    versions: &[2],
    fields: &[f("Lock", Pointer), f("ThreadId", U32)],
};

/// ntwmi `ETW_THREAD_EVENT_SUBPROCESSTAG` (after its header).
static SUB_PROCESS_TAG_CHANGED: Layout = Layout {
    name: "Thread_SubProcessTagChanged",
    versions: &[2],
    fields: &[f("OldTag", U32), f("NewTag", U32)],
};

/// TraceEvent's ThreadSetNameTraceData.
static THREAD_SET_NAME: Layout = Layout {
    name: "Thread_SetName",
    versions: &[2],
    fields: &[
        f("ProcessId", U32),
        f("ThreadId", U32),
        f("ThreadName", Utf16z),
    ],
};

const THREAD_START: &[&Layout] = &[&THREAD_V0, &THREAD_V1_START, &THREAD_V2, &THREAD_V3];
const THREAD_END: &[&Layout] = &[&THREAD_V0, &THREAD_V1_END, &THREAD_V2, &THREAD_V3];
const PRIORITY: &[&Layout] = &[&THREAD_PRIORITY];

/// `Thread` {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}, group 0x05 (KRN-09, KRN-28): the
/// lifetime events, CSwitch (36), ReadyThread (50) and the scheduler records.
pub static THREAD: MofClass = class(
    "Thread",
    0x05,
    &[
        ev(1, "Start", THREAD_START),
        ev(2, "End", THREAD_END),
        ev(3, "DCStart", THREAD_START),
        ev(4, "DCEnd", THREAD_END),
        ev(36, "CSwitch", &[&CSWITCH_V1, &CSWITCH]),
        ev(37, "CompCS", &[&COMP_CS]),
        named(41, "SpinLock"),
        named(42, "Queue"),
        named(43, "Resource"),
        named(44, "PushLock"),
        named(45, "WaitSingle"),
        named(46, "WaitMultiple"),
        named(47, "DelayExecution"),
        ev(48, "SetPriority", PRIORITY),
        ev(49, "SetBasePriority", PRIORITY),
        ev(50, "ReadyThread", &[&READY_THREAD]),
        ev(51, "SetPagePriority", PRIORITY),
        ev(52, "SetIoPriority", PRIORITY),
        ev(53, "ThreadAffinity", &[&THREAD_AFFINITY]),
        ev(57, "WorkerThread", &[&WORKER_THREAD]),
        ev(60, "AntiStarvationBoost", &[&ANTI_STARVATION_BOOST]),
        named(61, "ThreadMigration"),
        ev(62, "KernelQueueEnqueue", &[&KQUEUE_ENQUEUE]),
        ev(63, "KernelQueueDequeue", &[&KQUEUE_DEQUEUE]),
        named(64, "WorkerThreadItemStart"),
        named(65, "WorkerThreadItemEnd"),
        ev(66, "AutoBoostSetFloor", &[&AUTOBOOST_SET_FLOOR]),
        ev(67, "AutoBoostClearFloor", &[&AUTOBOOST_CLEAR_FLOOR]),
        ev(68, "AutoBoostEntryExhaustion", &[&AUTOBOOST_NO_ENTRIES]),
        ev(69, "SubProcessTagChanged", &[&SUB_PROCESS_TAG_CHANGED]),
        ev(72, "SetName", &[&THREAD_SET_NAME]),
    ],
);

// ---------------------------------------------------------------------------------------
// Image: Learn Image_V0_Load, Image_V1_Load, Image_Load (v2: bytes 28–31 one Reserved0) and
// the Windows 8+ split of those bytes (v3, KRN-29; ntwmi WMI_IMAGELOAD_INFORMATION).

static IMAGE_V0: Layout = Layout {
    name: "Image_V0_Load",
    versions: &[0],
    fields: &[
        f("BaseAddress", Pointer),
        f("ModuleSize", U32),
        f("ImageFileName", Utf16z),
    ],
};

static IMAGE_V1: Layout = Layout {
    name: "Image_V1_Load",
    versions: &[1],
    fields: &[
        f("ImageBase", Pointer),
        f("ImageSize", Pointer),
        f("ProcessId", U32),
        f("FileName", Utf16z),
    ],
};

static IMAGE_V2: Layout = Layout {
    name: "Image_Load",
    versions: &[2],
    fields: &[
        f("ImageBase", Pointer),
        f("ImageSize", Pointer),
        f("ProcessId", U32),
        f("ImageChecksum", U32),
        f("TimeDateStamp", U32),
        f("Reserved0", U32),
        f("DefaultBase", Pointer),
        f("Reserved1", U32),
        f("Reserved2", U32),
        f("Reserved3", U32),
        f("Reserved4", U32),
        f("FileName", Utf16z),
    ],
};

static IMAGE_V3: Layout = Layout {
    name: "Image_Load",
    versions: &[3],
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

/// The kernel's base address (ntwmi WMI_LOG_TYPE_IMAGE_KERNEL_BASE; one pointer, as real
/// traces carry it).
static IMAGE_KERNEL_BASE: Layout = Layout {
    name: "Image_KernelBase",
    versions: &[2],
    fields: &[f("ImageBase", Pointer)],
};

/// The hypercall page (ntwmi WMI_LOG_TYPE_IMAGE_HYPERCALL_PAGE; one pointer).
static IMAGE_HYPERCALL_PAGE: Layout = Layout {
    name: "Image_HypercallPage",
    versions: &[2],
    fields: &[f("HypercallPageVa", Pointer)],
};

const IMAGE_LAYOUTS: &[&Layout] = &[&IMAGE_V0, &IMAGE_V1, &IMAGE_V2, &IMAGE_V3];

/// `Image` {2cb15d1d-5fc1-11d2-abe1-00a0c911f518}, group 0x14 (KRN-09, KRN-29).
pub static IMAGE: MofClass = class(
    "Image",
    0x14,
    &[
        ev(10, "Load", IMAGE_LAYOUTS),
        ev(2, "Unload", IMAGE_LAYOUTS),
        ev(3, "DCStart", IMAGE_LAYOUTS),
        ev(4, "DCEnd", IMAGE_LAYOUTS),
        named(32, "Relocation"),
        ev(33, "KernelBase", &[&IMAGE_KERNEL_BASE]),
        ev(34, "HypercallPage", &[&IMAGE_HYPERCALL_PAGE]),
    ],
);
