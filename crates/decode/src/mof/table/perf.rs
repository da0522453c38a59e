//! PerfInfo (group 0x0F) and StackWalk (0x18). Their events are mostly written with the
//! compact PerfInfo header (no process or thread id, KRN-15).

use super::{class, ev, f, named, opt};
use crate::mof::{Layout, MofClass, MofType};

use MofType::{Ansiz, Pointer, PointerArray, U8, U16, U32, U64, Utf16z};

// ---------------------------------------------------------------------------------------
// PerfInfo: Learn SampledProfile, SysCallEnter, SysCallExit, ISR, DPC (v2), the MOF's
// ISR_V1 / DPC_V1 and SampledProfileInterval; ntwmi PERFINFO_SAMPLED_PROFILE_INFORMATION,
// PERFINFO_PMC_SAMPLE_INFORMATION, PERFINFO_IO_TIMER and the KTimer2 records
// (ETW_*_KTIMER2_EVENT); TraceEvent's Mark; Windows' MOF (dissect.etl's copy) for the
// interval source name (v3), PmcCtrConfig and the WDF records.

static SAMPLED_PROFILE: Layout = Layout {
    name: "SampledProfile",
    versions: &[2],
    fields: &[
        f("InstructionPointer", Pointer),
        f("ThreadId", U32),
        f("Count", U16),
        f("Flags", U8),
        f("Rank", U8),
    ],
};

static PMC_COUNTER_PROFILE: Layout = Layout {
    name: "PmcCounterProfile",
    versions: &[2],
    fields: &[
        f("InstructionPointer", Pointer),
        f("ThreadId", U32),
        f("ProfileSource", U16),
        f("Reserved", U16),
    ],
};

static PMC_COUNTER_CONFIG: Layout = Layout {
    name: "PmcCounterConfig",
    versions: &[2],
    fields: &[f("CounterCount", U32), f("CounterName", Utf16z)],
};

static SYSCALL_ENTER: Layout = Layout {
    name: "SysCallEnter",
    versions: &[2],
    fields: &[f("SysCallAddress", Pointer)],
};

static SYSCALL_EXIT: Layout = Layout {
    name: "SysCallExit",
    versions: &[2],
    fields: &[f("SysCallNtStatus", U32)],
};

static ISR_V1: Layout = Layout {
    name: "ISR_V1",
    versions: &[1],
    fields: &[
        f("InitialTime", U64),
        f("Routine", Pointer),
        f("ReturnValue", U32),
    ],
};

static ISR: Layout = Layout {
    name: "ISR",
    versions: &[2],
    fields: &[
        f("InitialTime", U64),
        f("Routine", Pointer),
        f("ReturnValue", U8),
        f("Vector", U8),
        f("Reserved", U16),
    ],
};

/// ISR for message-signalled interrupts: ISR plus the message number (TraceEvent reads it
/// when the payload is long enough; Windows' MOF lists it).
static ISR_MSI: Layout = Layout {
    name: "ISR_MSI",
    versions: &[2],
    fields: &[
        f("InitialTime", U64),
        f("Routine", Pointer),
        f("ReturnValue", U8),
        f("Vector", U8),
        f("Reserved", U16),
        opt("MessageNumber", U32),
    ],
};

static DPC_V1: Layout = Layout {
    name: "DPC_V1",
    versions: &[1],
    fields: &[f("InitialTime", U64), f("Routine", Pointer)],
};

static DPC: Layout = Layout {
    name: "DPC",
    versions: &[2],
    fields: &[f("InitialTime", U64), f("Routine", Pointer)],
};

static SAMPLED_PROFILE_INTERVAL: Layout = Layout {
    name: "SampledProfileInterval",
    versions: &[2],
    fields: &[
        f("Source", U32),
        f("NewInterval", U32),
        f("OldInterval", U32),
    ],
};

/// Windows 8+ appends the profile source's name.
static SAMPLED_PROFILE_INTERVAL_V3: Layout = Layout {
    name: "SampledProfileInterval",
    versions: &[3],
    fields: &[
        f("Source", U32),
        f("NewInterval", U32),
        f("OldInterval", U32),
        f("SourceName", Utf16z),
    ],
};

/// TraceEvent's StringTraceData (an 8-bit string).
static MARK: Layout = Layout {
    name: "PerfInfo_Mark",
    versions: &[0, 1, 2],
    fields: &[f("Message", Ansiz)],
};

static DEBUGGER_ENABLED: Layout = Layout {
    name: "DebuggerEnabled",
    versions: &[2],
    fields: &[],
};

static ISR_UNEXPECTED: Layout = Layout {
    name: "ISR_Unexpected",
    versions: &[2],
    fields: &[f("Vector", U16)],
};

/// ntwmi `PERFINFO_IO_TIMER`.
static IO_TIMER: Layout = Layout {
    name: "PerfInfo_IoTimer",
    versions: &[2],
    fields: &[f("DeviceObject", Pointer), f("TimerRoutine", Pointer)],
};

static WDF_ROUTINE: Layout = Layout {
    name: "PerfInfo_WdfRoutine",
    versions: &[2],
    fields: &[f("Routine", Pointer)],
};

/// ntwmi `ETW_SET_KTIMER2_EVENT` (also the expiration record).
static KTIMER2_SET: Layout = Layout {
    name: "PerfInfo_KTimer2Set",
    versions: &[2],
    fields: &[
        f("DueTime", U64),
        f("MaximumDueTime", U64),
        f("Period", U64),
        f("Timer", Pointer),
        f("Callback", Pointer),
        f("CallbackContext", Pointer),
        f("TimerFlags", U8),
    ],
};

/// ntwmi `ETW_CANCEL_KTIMER2_EVENT`.
static KTIMER2_CANCEL: Layout = Layout {
    name: "PerfInfo_KTimer2Cancel",
    versions: &[2],
    fields: &[f("Timer", Pointer)],
};

/// ntwmi `ETW_DISABLE_KTIMER2_EVENT`.
static KTIMER2_DISABLE: Layout = Layout {
    name: "PerfInfo_KTimer2Disable",
    versions: &[2],
    fields: &[
        f("Timer", Pointer),
        f("DisableCallback", Pointer),
        f("DisableContext", Pointer),
        f("TimerFlags", U8),
    ],
};

/// ntwmi `ETW_FINALIZE_KTIMER2_EVENT`.
static KTIMER2_FINALIZE: Layout = Layout {
    name: "PerfInfo_KTimer2Finalize",
    versions: &[2],
    fields: &[
        f("Timer", Pointer),
        f("DisableCallback", Pointer),
        f("DisableContext", Pointer),
    ],
};

const INTERVAL: &[&Layout] = &[&SAMPLED_PROFILE_INTERVAL, &SAMPLED_PROFILE_INTERVAL_V3];
const DPCS: &[&Layout] = &[&DPC_V1, &DPC];
const WDF: &[&Layout] = &[&WDF_ROUTINE];

/// `PerfInfo` {ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}, group 0x0F (KRN-09, KRN-15).
pub static PERF_INFO: MofClass = class(
    "PerfInfo",
    0x0F,
    &[
        named(32, "RundownCheckpoint"),
        ev(34, "Mark", &[&MARK]),
        named(36, "AsyncMark"),
        named(38, "ImageName"),
        ev(46, "SampleProf", &[&SAMPLED_PROFILE]),
        ev(47, "PmcCounterProf", &[&PMC_COUNTER_PROFILE]),
        ev(48, "PmcCtrConfig", &[&PMC_COUNTER_CONFIG]),
        ev(50, "ISR-MSI", &[&ISR_MSI]),
        ev(51, "SysClEnter", &[&SYSCALL_ENTER]),
        ev(52, "SysClExit", &[&SYSCALL_EXIT]),
        named(53, "BackTrace"),
        named(54, "BackTraceUserStack"),
        named(55, "SampledProfileCache"),
        named(56, "ExceptionStack"),
        named(57, "BranchTrace"),
        ev(58, "DebuggerEnabled", &[&DEBUGGER_ENABLED]),
        named(59, "DebuggerExit"),
        ev(66, "ThreadedDPC", &[&DPC]),
        ev(67, "ISR", &[&ISR_V1, &ISR]),
        ev(68, "DPC", DPCS),
        ev(69, "TimerDPC", DPCS),
        ev(70, "IOTimer", &[&DPC]),
        named(71, "SampledProfileNmi"),
        ev(72, "SetInterval", INTERVAL),
        ev(73, "CollectionStart", INTERVAL),
        ev(74, "CollectionEnd", INTERVAL),
        named(75, "SpinlockCollectionStart"),
        named(76, "SpinlockCollectionEnd"),
        named(79, "ClockInterrupt"),
        named(80, "TimerExpirationStart"),
        named(81, "TimerExpiration"),
        named(82, "TimerSetPeriodic"),
        named(83, "TimerSetOneShot"),
        named(84, "TimerSetThread"),
        named(85, "TimerCancel"),
        named(86, "TimeAdjustment"),
        named(87, "ClockModeSwitch"),
        named(88, "ClockTimeUpdate"),
        named(89, "ClockDynamicTickVeto"),
        named(90, "ClockConfiguration"),
        named(91, "IPI"),
        ev(92, "ISR-Unexpected", &[&ISR_UNEXPECTED]),
        ev(93, "IoStartTimer", &[&IO_TIMER]),
        ev(94, "IoStopTimer", &[&IO_TIMER]),
        ev(95, "ISR-PASS", &[&ISR_V1, &ISR]),
        ev(96, "WdfISR", WDF),
        ev(97, "WdfPassiveISR", WDF),
        ev(98, "WdfDPC", WDF),
        named(99, "CpuCacheFlush"),
        named(100, "DPCEnqueue"),
        named(101, "DPCExecution"),
        named(102, "InterruptSteering"),
        ev(103, "WdfWorkItem", WDF),
        ev(104, "SetKTimer2", &[&KTIMER2_SET]),
        ev(105, "ExpireKTimer2", &[&KTIMER2_SET]),
        ev(106, "CancelKTimer2", &[&KTIMER2_CANCEL]),
        ev(107, "DisableKTimer2", &[&KTIMER2_DISABLE]),
        ev(108, "FinalizeKTimer2", &[&KTIMER2_FINALIZE]),
        named(109, "ShouldYieldProcessor"),
    ],
);

// ---------------------------------------------------------------------------------------
// StackWalk: Learn StackWalk_Event (the MOF's Stack1…StackN as one array to the end of the
// payload, ntwmi STACK_WALK_EVENT_DATA); the stack-key records of Windows 8+ (TraceEvent's
// StackWalkRefTraceData and StackWalkDefTraceData).

static STACK_WALK_EVENT: Layout = Layout {
    name: "StackWalk_Event",
    versions: &[2],
    fields: &[
        f("EventTimeStamp", U64),
        f("StackProcess", U32),
        f("StackThread", U32),
        f("Stack", PointerArray),
    ],
};

/// An event's stack by key: the key a KeyRundown/KeyCreate record defines.
static STACK_WALK_KEY_REF: Layout = Layout {
    name: "StackWalk_Key",
    versions: &[2],
    fields: &[
        f("EventTimeStamp", U64),
        f("StackProcess", U32),
        f("StackThread", U32),
        f("StackKey", Pointer),
    ],
};

/// A stack key's definition: the key, then its frames.
static STACK_WALK_KEY_DEF: Layout = Layout {
    name: "StackWalk_KeyDefinition",
    versions: &[2],
    fields: &[f("StackKey", Pointer), f("Stack", PointerArray)],
};

/// `StackWalk` {def2fe46-7bd6-4b80-bd94-f57fe20d0ce3}, group 0x18 (KRN-12): Stack (32), the
/// key definitions (34–36) and the keyed references (37 kernel, 38 user).
pub static STACK_WALK: MofClass = class(
    "StackWalk",
    0x18,
    &[
        ev(32, "Stack", &[&STACK_WALK_EVENT]),
        ev(34, "KeyCreate", &[&STACK_WALK_KEY_DEF]),
        ev(35, "KeyDelete", &[&STACK_WALK_KEY_DEF]),
        ev(36, "KeyRundown", &[&STACK_WALK_KEY_DEF]),
        ev(37, "StackKeyKernel", &[&STACK_WALK_KEY_REF]),
        ev(38, "StackKeyUser", &[&STACK_WALK_KEY_REF]),
    ],
);
