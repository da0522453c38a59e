//! Registry (group 0x09) and ALPC (0x1A).

use super::{class, ev, f, named};
use crate::mof::{Layout, MofClass, MofType};

use MofType::{Ansiz, I64, Pointer, U8, U32, U64, Utf16z};

// ---------------------------------------------------------------------------------------
// Registry: Learn Registry_V0_TypeGroup1, Registry_V1_TypeGroup1, Registry_TypeGroup1 (v2,
// ntwmi WMI_REGISTRY); the Windows 8+ hive and notification records of Windows' MOF
// (dissect.etl's copy; names as ntwmi's PERFINFO_LOG_TYPE_REG_*), ntwmi
// ETW_REGNOTIF_REGISTER.

static REGISTRY_V0: Layout = Layout {
    name: "Registry_V0_TypeGroup1",
    versions: &[0],
    fields: &[
        f("Status", Pointer),
        f("KeyHandle", Pointer),
        f("ElapsedTime", I64),
        f("KeyName", Utf16z),
    ],
};

static REGISTRY_V1: Layout = Layout {
    name: "Registry_V1_TypeGroup1",
    versions: &[1],
    fields: &[
        f("Status", Pointer),
        f("KeyHandle", Pointer),
        f("ElapsedTime", I64),
        f("Index", U32),
        f("KeyName", Utf16z),
    ],
};

static REGISTRY_V2: Layout = Layout {
    name: "Registry_TypeGroup1",
    versions: &[2],
    fields: &[
        f("InitialTime", I64),
        f("Status", U32),
        f("Index", U32),
        f("KeyHandle", Pointer),
        f("KeyName", Utf16z),
    ],
};

static COUNTERS: Layout = Layout {
    name: "Registry_Counters",
    versions: &[2],
    fields: &[
        f("Counter1", U64),
        f("Counter2", U64),
        f("Counter3", U64),
        f("Counter4", U64),
        f("Counter5", U64),
        f("Counter6", U64),
        f("Counter7", U64),
        f("Counter8", U64),
        f("Counter9", U64),
        f("Counter10", U64),
        f("Counter11", U64),
    ],
};

static CONFIG: Layout = Layout {
    name: "Registry_Config",
    versions: &[2],
    fields: &[f("CurrentControlSet", U32)],
};

static HIVE_INIT: Layout = Layout {
    name: "Registry_HiveInit",
    versions: &[2],
    fields: &[
        f("Hive", Pointer),
        f("OperationType", U32),
        f("PoolTag", U32),
        f("Size", U32),
        f("FileName", Utf16z),
    ],
};

static HIVE_DESTROY: Layout = Layout {
    name: "Registry_HiveDestroy",
    versions: &[2],
    fields: &[f("Hive", Pointer), f("FileName", Utf16z), f("Path", Utf16z)],
};

static HIVE_LINK: Layout = Layout {
    name: "Registry_HiveLink",
    versions: &[2],
    fields: &[f("Hive", Pointer), f("Path", Utf16z)],
};

static HIVE_RUNDOWN: Layout = Layout {
    name: "Registry_HiveRundown",
    versions: &[2],
    fields: &[
        f("Size", U64),
        f("Hive", Pointer),
        f("LoadedKeyCount", U32),
        f("FileName", Utf16z),
        f("LinkPath", Utf16z),
    ],
};

static HIVE_DIRTY: Layout = Layout {
    name: "Registry_HiveDirty",
    versions: &[2],
    fields: &[
        f("Hive", Pointer),
        f("LinkPath", Utf16z),
        f("DirtyReason", U32),
    ],
};

static CHANGE_NOTIFY: Layout = Layout {
    name: "Registry_ChangeNotify",
    versions: &[2],
    fields: &[
        f("Notification", Pointer),
        f("KeyHandle", Pointer),
        f("Type", U8),
        f("WatchSubtree", U8),
        f("Primary", U8),
    ],
};

const TG: &[&Layout] = &[&REGISTRY_V0, &REGISTRY_V1, &REGISTRY_V2];
const TG_V1: &[&Layout] = &[&REGISTRY_V1, &REGISTRY_V2];
const TG_V2: &[&Layout] = &[&REGISTRY_V2];

/// `Registry` {ae53722e-c863-11d2-8659-00c04fa321a1}, group 0x09 (KRN-09). Version 1 calls
/// type 22 RunDown. The transaction records (30–32) are named only: ntwmi's WMI_TXR and
/// Windows' MOF disagree on their field order.
pub static REGISTRY: MofClass = class(
    "Registry",
    0x09,
    &[
        ev(10, "Create", TG),
        ev(11, "Open", TG),
        ev(12, "Delete", TG),
        ev(13, "Query", TG),
        ev(14, "SetValue", TG),
        ev(15, "DeleteValue", TG),
        ev(16, "QueryValue", TG),
        ev(17, "EnumerateKey", TG),
        ev(18, "EnumerateValueKey", TG),
        ev(19, "QueryMultipleValue", TG),
        ev(20, "SetInformation", TG),
        ev(21, "Flush", TG),
        ev(22, "KCBCreate", TG_V1),
        ev(23, "KCBDelete", TG_V2),
        ev(24, "KCBRundownBegin", TG_V2),
        ev(25, "KCBRundownEnd", TG_V2),
        ev(26, "Virtualize", TG_V2),
        ev(27, "Close", TG_V2),
        ev(28, "SetSecurity", TG_V2),
        ev(29, "QuerySecurity", TG_V2),
        named(30, "TxRCommit"),
        named(31, "TxRPrepare"),
        named(32, "TxRRollback"),
        named(33, "SetValueEx"),
        ev(34, "Counters", &[&COUNTERS]),
        ev(35, "Config", &[&CONFIG]),
        ev(36, "HiveInit", &[&HIVE_INIT]),
        ev(37, "HiveDestroy", &[&HIVE_DESTROY]),
        ev(38, "HiveLink", &[&HIVE_LINK]),
        ev(39, "HiveRundownDCEnd", &[&HIVE_RUNDOWN]),
        ev(40, "HiveDirty", &[&HIVE_DIRTY]),
        ev(48, "ChangeNotify", &[&CHANGE_NOTIFY]),
        named(49, "NotifyDeliver"),
    ],
);

// ---------------------------------------------------------------------------------------
// ALPC: Learn ALPC_Send_Message … ALPC_Unwait. PortName is an ANSI string (the MOF `string`
// without format "w"; TraceEvent reads it as UTF-8).

static ALPC_MESSAGE: Layout = Layout {
    name: "ALPC_Message",
    versions: &[2],
    fields: &[f("MessageID", U32)],
};

static ALPC_WAIT_FOR_NEW_MESSAGE: Layout = Layout {
    name: "ALPC_Wait_For_New_Message",
    versions: &[2],
    fields: &[f("IsServerPort", U32), f("PortName", Ansiz)],
};

static ALPC_UNWAIT: Layout = Layout {
    name: "ALPC_Unwait",
    versions: &[2],
    fields: &[f("Status", U32)],
};

/// `ALPC` {45d8cccd-539f-4b72-a8b7-5c683142609a}, group 0x1A (KRN-09).
pub static ALPC: MofClass = class(
    "ALPC",
    0x1A,
    &[
        ev(33, "ALPC-Send-Message", &[&ALPC_MESSAGE]),
        ev(34, "ALPC-Receive-Message", &[&ALPC_MESSAGE]),
        ev(35, "ALPC-Wait-For-Reply", &[&ALPC_MESSAGE]),
        ev(
            36,
            "ALPC-Wait-For-New-Message",
            &[&ALPC_WAIT_FOR_NEW_MESSAGE],
        ),
        ev(37, "ALPC-Unwait", &[&ALPC_UNWAIT]),
        named(38, "ALPC-Connect-Request"),
        named(39, "ALPC-Connect-Success"),
        named(40, "ALPC-Connect-Fail"),
        named(41, "ALPC-Close-Port"),
    ],
);
