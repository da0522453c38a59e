//! The classic kernel event classes (KRN-12): each `HookId` group of a system or perfinfo
//! record and the MOF class GUID a consumer sees as the event's `ProviderId` (KRN-13).
//!
//! One table, shared by the reader (which presents kernel records as `EVENT_RECORD`s) and
//! the decoders and writers of kernel payloads.

use crate::Guid;

/// One kernel event class: its name, MOF class GUID and `HookId` group.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct KernelClass {
    /// The MOF class name (`FileIo`, `Process`…).
    pub name: &'static str,
    /// The class GUID (KRN-12).
    pub guid: Guid,
    /// The `EVENT_TRACE_GROUP_*` value: the high byte of a record's `HookId`.
    pub group: u8,
}

const fn g(s: &str) -> Guid {
    Guid::from_str_const(s)
}

/// The kernel classes with a `HookId` group (KRN-12).
#[rustfmt::skip]
pub const KERNEL_CLASSES: &[KernelClass] = &[
    KernelClass { name: "EventTrace", guid: g("68fdd900-4a3e-11d1-84f4-0000f80464e3"), group: 0x00 },
    KernelClass { name: "DiskIo", guid: g("3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c"), group: 0x01 },
    KernelClass { name: "PageFault", guid: g("3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"), group: 0x02 },
    KernelClass { name: "Process", guid: g("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"), group: 0x03 },
    KernelClass { name: "FileIo", guid: g("90cbdc39-4a3e-11d1-84f4-0000f80464e3"), group: 0x04 },
    KernelClass { name: "Thread", guid: g("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"), group: 0x05 },
    KernelClass { name: "TcpIp", guid: g("9a280ac0-c8e0-11d1-84e2-00c04fb998a2"), group: 0x06 },
    KernelClass { name: "UdpIp", guid: g("bf3a50c5-a9c9-4988-a005-2df0b7c80f80"), group: 0x08 },
    KernelClass { name: "Registry", guid: g("ae53722e-c863-11d2-8659-00c04fa321a1"), group: 0x09 },
    KernelClass { name: "SystemConfig", guid: g("01853a65-418f-4f36-aefc-dc0f1d2fd235"), group: 0x0B },
    KernelClass { name: "PerfInfo", guid: g("ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"), group: 0x0F },
    KernelClass { name: "Image", guid: g("2cb15d1d-5fc1-11d2-abe1-00a0c911f518"), group: 0x14 },
    KernelClass { name: "StackWalk", guid: g("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3"), group: 0x18 },
    KernelClass { name: "ALPC", guid: g("45d8cccd-539f-4b72-a8b7-5c683142609a"), group: 0x1A },
    KernelClass { name: "SplitIo", guid: g("d837ca92-12b9-44a5-ad6a-3a65b3578aa8"), group: 0x1B },
];

/// A class of the classic records that KernelTraceControl adds to a kernel trace when it
/// merges one (`xperf -merge`, `xperf -d`, PerfView, WPR): written with an
/// `EVENT_TRACE_HEADER` and the class GUID, never with a `HookId` group.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MergedClass {
    /// The class (task) name TraceEvent gives it (`ImageID`, `SysConfig`).
    pub name: &'static str,
    /// The class GUID.
    pub guid: Guid,
}

/// KernelTraceControl's image identity records (ImageID, DbgID_RSDS, FileVersion…):
/// {b3e675d7-2554-4f18-830b-2762732560de}.
pub const IMAGE_ID: MergedClass = MergedClass {
    name: "ImageID",
    guid: g("b3e675d7-2554-4f18-830b-2762732560de"),
};

/// KernelTraceControl's system configuration records (BuildInfo, SystemPaths, VolumeMapping…):
/// {9b79ee91-b5fd-41c0-a243-4248e266e9d0}.
pub const SYS_CONFIG_EX: MergedClass = MergedClass {
    name: "SysConfig",
    guid: g("9b79ee91-b5fd-41c0-a243-4248e266e9d0"),
};

/// The classes merging adds (their GUIDs are TraceEvent's `ImageIDTaskGuid` and
/// `SysConfigTaskGuid`).
pub const MERGED_CLASSES: &[MergedClass] = &[IMAGE_ID, SYS_CONFIG_EX];

impl KernelClass {
    /// The class of `group`, usable in constants: the decoders' class tables
    /// (`etwsim_decode::mof`) take their GUIDs and groups from here, so the table is written
    /// once.
    ///
    /// # Panics
    /// At compile time (or at run time outside a constant) for a group the table does not
    /// name.
    pub const fn of_group(group: u8) -> &'static KernelClass {
        let mut i = 0;
        while i < KERNEL_CLASSES.len() {
            if KERNEL_CLASSES[i].group == group {
                return &KERNEL_CLASSES[i];
            }
            i += 1;
        }
        panic!("no kernel class has this HookId group")
    }

    /// The class of a `HookId` group; `None` for groups the table does not name.
    pub fn by_group(group: u8) -> Option<&'static KernelClass> {
        KERNEL_CLASSES.iter().find(|c| c.group == group)
    }

    /// The class with this GUID.
    pub fn by_guid(guid: Guid) -> Option<&'static KernelClass> {
        KERNEL_CLASSES.iter().find(|c| c.guid == guid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_spells_the_documented_guids() {
        // rule: KRN-12
        let file = KernelClass::by_group(0x04).expect("FileIo");
        assert_eq!(file.name, "FileIo");
        assert_eq!(
            file.guid.to_string(),
            "{90cbdc39-4a3e-11d1-84f4-0000f80464e3}"
        );
        assert_eq!(
            KernelClass::by_group(0x00).map(|c| c.guid),
            Some(Guid::EVENT_TRACE)
        );
        assert_eq!(KernelClass::by_guid(file.guid), Some(file));
        assert_eq!(KernelClass::by_group(0x07), None);
        let mut groups: Vec<u8> = KERNEL_CLASSES.iter().map(|c| c.group).collect();
        groups.dedup();
        assert_eq!(groups.len(), KERNEL_CLASSES.len(), "one class per group");
    }

    #[test]
    fn merged_classes_have_their_own_guids() {
        // rule: KRN-12
        assert_eq!(
            IMAGE_ID.guid.to_string(),
            "{b3e675d7-2554-4f18-830b-2762732560de}"
        );
        assert_eq!(
            SYS_CONFIG_EX.guid.to_string(),
            "{9b79ee91-b5fd-41c0-a243-4248e266e9d0}"
        );
        for m in MERGED_CLASSES {
            assert_eq!(KernelClass::by_guid(m.guid), None, "{}", m.name);
        }
    }
}
