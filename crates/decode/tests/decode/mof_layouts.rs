//! The kernel class table against the rules' layout tables, the real fixtures' kernel records,
//! hand-built payloads and encode → decode round trips.

use crate::common;

use common::shared_fixtures;
use etwsim_decode::Error;
use etwsim_decode::fields::{Sid, TokenUser, Value};
use etwsim_decode::mof::{
    self, DISK_IO, EVENT_TRACE, FILE_IO, IMAGE, Layout, MofType, PROCESS, Schema, THREAD,
};
use etwsim_etl::{LogFile, Record};
use etwsim_types::Guid;
use etwsim_types::record::header_type;

fn layout(schema: Option<Schema>) -> &'static Layout {
    schema.expect("schema in the table").layout
}

fn off(l: &Layout, name: &str) -> usize {
    l.fixed_offset(name, 8)
        .unwrap_or_else(|| panic!("{} has no fixed offset for {name}", l.name))
}

#[test]
fn class_guids_and_groups_follow_the_table() {
    // rule: KRN-12
    let expect: [(&str, &str, Option<u8>); 18] = [
        (
            "EventTrace",
            "68fdd900-4a3e-11d1-84f4-0000f80464e3",
            Some(0x00),
        ),
        ("DiskIo", "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c", Some(0x01)),
        (
            "PageFault",
            "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c",
            Some(0x02),
        ),
        (
            "Process",
            "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c",
            Some(0x03),
        ),
        ("FileIo", "90cbdc39-4a3e-11d1-84f4-0000f80464e3", Some(0x04)),
        ("Thread", "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", Some(0x05)),
        ("TcpIp", "9a280ac0-c8e0-11d1-84e2-00c04fb998a2", Some(0x06)),
        ("UdpIp", "bf3a50c5-a9c9-4988-a005-2df0b7c80f80", Some(0x08)),
        (
            "Registry",
            "ae53722e-c863-11d2-8659-00c04fa321a1",
            Some(0x09),
        ),
        (
            "SystemConfig",
            "01853a65-418f-4f36-aefc-dc0f1d2fd235",
            Some(0x0B),
        ),
        (
            "PerfInfo",
            "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc",
            Some(0x0F),
        ),
        ("Image", "2cb15d1d-5fc1-11d2-abe1-00a0c911f518", Some(0x14)),
        (
            "StackWalk",
            "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3",
            Some(0x18),
        ),
        ("ALPC", "45d8cccd-539f-4b72-a8b7-5c683142609a", Some(0x1A)),
        (
            "SplitIo",
            "d837ca92-12b9-44a5-ad6a-3a65b3578aa8",
            Some(0x1B),
        ),
        ("Lost_Event", "6a399ae0-4bc6-4de9-870b-3657f8947e7e", None),
        // The classes KernelTraceControl adds when it merges a trace.
        ("ImageID", "b3e675d7-2554-4f18-830b-2762732560de", None),
        ("SysConfig", "9b79ee91-b5fd-41c0-a243-4248e266e9d0", None),
    ];
    assert_eq!(mof::classes().len(), expect.len());
    for (name, guid, group) in expect {
        let guid: Guid = guid.parse().unwrap();
        let class = mof::class_by_name(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!((class.guid, class.group), (guid, group), "{name}");
        assert_eq!(mof::class_by_guid(guid).map(|c| c.name), Some(name));
        if let Some(g) = group {
            assert_eq!(mof::class_by_group(g).map(|c| c.name), Some(name));
        }
        // One identity table: a class with a group is the types table's class of that group.
        let identity = class.kernel_class();
        assert_eq!(
            identity.map(|k| (k.name, k.guid)),
            group.map(|_| (name, guid)),
            "{name}"
        );
        assert_eq!(identity.map(|k| k.group), group, "{name}");
    }
    assert_eq!(EVENT_TRACE.guid, Guid::EVENT_TRACE);
}

#[test]
fn hook_ids_are_group_and_event_type() {
    // rule: KRN-11
    assert_eq!(FILE_IO.current_schema("Create").unwrap().hook_id(), 0x0440);
    assert_eq!(PROCESS.current_schema("Start").unwrap().hook_id(), 0x0301);
    assert_eq!(IMAGE.current_schema("Load").unwrap().hook_id(), 0x140A);
    assert_eq!(THREAD.current_schema("DCStart").unwrap().hook_id(), 0x0503);
    assert_eq!(DISK_IO.current_schema("Read").unwrap().hook_id(), 0x010A);
    // And back: HookId → class and event type.
    let s = mof::schema_for_hook(0x0443, 3).unwrap();
    assert_eq!((s.class.name, s.event.name), ("FileIo", "Read"));
    let s = mof::schema_for_hook(0x0024, 2).unwrap_err();
    assert!(s.is_no_schema(), "{s}");
    // An unknown group: no schema, class unknown.
    let e = mof::schema_for_hook(0x7701, 2).unwrap_err();
    assert_eq!(
        e,
        Error::NoSchema {
            class: Guid::NULL,
            opcode: 1,
            version: 2
        }
    );
}

#[test]
fn event_types_of_each_class() {
    // rule: KRN-09
    let names = |c: &mof::MofClass, ops: &[u8]| -> Vec<&str> {
        ops.iter()
            .map(|o| c.event(*o).map_or("?", |e| e.name))
            .collect()
    };
    assert_eq!(
        names(&PROCESS, &[1, 2, 3, 4, 39]),
        ["Start", "End", "DCStart", "DCEnd", "Defunct"]
    );
    assert_eq!(
        names(&THREAD, &[1, 2, 3, 4]),
        ["Start", "End", "DCStart", "DCEnd"]
    );
    assert_eq!(
        names(&IMAGE, &[10, 2, 3, 4]),
        ["Load", "Unload", "DCStart", "DCEnd"]
    );
    assert_eq!(
        names(&DISK_IO, &[10, 11, 12, 13, 14, 15, 16, 52]),
        [
            "Read",
            "Write",
            "ReadInit",
            "WriteInit",
            "Flush",
            "FlushInit",
            "RedirectedInit",
            "DriverCompleteRequest"
        ]
    );
}

#[test]
fn file_io_event_types_and_payload_classes() {
    // rule: KRN-16
    let expect: &[(u8, &str, Option<&str>)] = &[
        (0, "Name", Some("FileIo_Name")),
        (32, "FileCreate", Some("FileIo_Name")),
        (35, "FileDelete", Some("FileIo_Name")),
        (36, "FileRundown", Some("FileIo_Name")),
        (37, "MapFile", Some("FileIo_MapFile")),
        (40, "MapFileDCEnd", Some("FileIo_MapFile")),
        (64, "Create", Some("FileIo_Create")),
        (65, "Cleanup", Some("FileIo_SimpleOp")),
        (66, "Close", Some("FileIo_SimpleOp")),
        (73, "Flush", Some("FileIo_SimpleOp")),
        (67, "Read", Some("FileIo_ReadWrite")),
        (68, "Write", Some("FileIo_ReadWrite")),
        (69, "SetInfo", Some("FileIo_Info")),
        (70, "Delete", Some("FileIo_Info")),
        (71, "Rename", Some("FileIo_Info")),
        (74, "QueryInfo", Some("FileIo_Info")),
        (75, "FSControl", Some("FileIo_Info")),
        (72, "DirEnum", Some("FileIo_DirEnum")),
        (77, "DirNotify", Some("FileIo_DirEnum")),
        (76, "OperationEnd", Some("FileIo_OpEnd")),
        (78, "CreateNew", None),
        (79, "DeletePath", Some("FileIo_PathOperation")),
        (80, "RenamePath", Some("FileIo_PathOperation")),
        (81, "SetLinkPath", Some("FileIo_PathOperation")),
        (82, "SetLink", None),
    ];
    for &(op, name, class) in expect {
        let e = FILE_IO.event(op).unwrap_or_else(|| panic!("type {op}"));
        assert_eq!(e.name, name);
        assert_eq!(e.layout(3).map(|l| l.name), class, "{name}");
    }
    // Types without a published layout decode as "no schema", so callers show hex.
    let err = mof::decode_mof(FILE_IO.guid, 78, 3, 8, &[0; 40]).unwrap_err();
    assert!(err.is_no_schema());
    assert_eq!(err.win32_code().0, 1168);
}

#[test]
fn file_io_v2_and_v3_orders() {
    // rule: KRN-17
    // rule: KRN-19
    // rule: KRN-20
    // rule: KRN-21
    // rule: KRN-22
    // rule: KRN-23
    let v = |name: &str, version| layout(FILE_IO.schema(name, version));
    let create3 = v("Create", 3);
    let create2 = v("Create", 2);
    for (field, o3, o2) in [
        ("IrpPtr", 0, 0),
        ("FileObject", 8, 16),
        ("TTID", 16, 8),
        ("CreateOptions", 20, 24),
        ("FileAttributes", 24, 28),
        ("ShareAccess", 28, 32),
        ("OpenPath", 32, 36),
    ] {
        assert_eq!(
            (off(create3, field), off(create2, field)),
            (o3, o2),
            "{field}"
        );
    }
    assert_eq!(create3.field("TTID").unwrap().ty, MofType::U32);
    assert_eq!(create2.field("TTID").unwrap().ty, MofType::Pointer);

    let (s3, s2) = (v("Close", 3), v("Close", 2));
    for (field, o3, o2) in [("FileObject", 8, 16), ("FileKey", 16, 24), ("TTID", 24, 8)] {
        assert_eq!((off(s3, field), off(s2, field)), (o3, o2), "{field}");
    }
    assert_eq!(
        (s3.fixed_len(8, true), s2.fixed_len(8, true)),
        (Some(28), Some(32))
    );

    let (rw3, rw2) = (v("Read", 3), v("Write", 2));
    for (field, o3, o2) in [
        ("Offset", 0, 0),
        ("IrpPtr", 8, 8),
        ("FileObject", 16, 24),
        ("FileKey", 24, 32),
        ("TTID", 32, 16),
        ("IoSize", 36, 40),
        ("IoFlags", 40, 44),
    ] {
        assert_eq!((off(rw3, field), off(rw2, field)), (o3, o2), "{field}");
    }
    assert_eq!(off(rw3, "ExtraFlags"), 44);
    assert!(rw2.field("ExtraFlags").is_none());
    assert_eq!(
        (rw3.fixed_len(8, true), rw2.fixed_len(8, true)),
        (Some(48), Some(48))
    );

    let (i3, i2) = (v("SetInfo", 3), v("Rename", 2));
    for (field, o3, o2) in [
        ("FileObject", 8, 16),
        ("FileKey", 16, 24),
        ("ExtraInfo", 24, 32),
        ("TTID", 32, 8),
        ("InfoClass", 36, 40),
    ] {
        assert_eq!((off(i3, field), off(i2, field)), (o3, o2), "{field}");
    }
    assert_eq!(
        (i3.fixed_len(8, true), i2.fixed_len(8, true)),
        (Some(40), Some(44))
    );

    let (d3, d2) = (v("DirEnum", 3), v("DirNotify", 2));
    for (field, o3, o2) in [
        ("FileObject", 8, 16),
        ("FileKey", 16, 24),
        ("TTID", 24, 8),
        ("Length", 28, 32),
        ("InfoClass", 32, 36),
        ("FileIndex", 36, 40),
        ("FileName", 40, 44),
    ] {
        assert_eq!((off(d3, field), off(d2, field)), (o3, o2), "{field}");
    }
    // Name and OperationEnd: one layout for both versions.
    assert!(std::ptr::eq(v("FileRundown", 2), v("FileRundown", 3)));
    assert!(std::ptr::eq(v("OperationEnd", 2), v("OperationEnd", 3)));
}

#[test]
fn file_io_name_op_end_and_path_operation_layouts() {
    // rule: KRN-18
    // rule: KRN-24
    // rule: KRN-25
    let name = layout(FILE_IO.schema("FileRundown", 3));
    assert_eq!((off(name, "FileObject"), off(name, "FileName")), (0, 8));
    assert_eq!(name.field("FileName").unwrap().ty, MofType::Utf16z);
    let end = layout(FILE_IO.schema("OperationEnd", 3));
    assert_eq!(
        (
            off(end, "IrpPtr"),
            off(end, "ExtraInfo"),
            off(end, "NtStatus")
        ),
        (0, 8, 16)
    );
    let path = layout(FILE_IO.schema("RenamePath", 3));
    for (field, o) in [
        ("FileObject", 8),
        ("FileKey", 16),
        ("ExtraInfo", 24),
        ("TTID", 32),
        ("InfoClass", 36),
        ("FileName", 40),
    ] {
        assert_eq!(off(path, field), o, "{field}");
    }
}

#[test]
fn process_thread_image_disk_io_offsets() {
    // rule: KRN-27
    // rule: KRN-28
    // rule: KRN-29
    // rule: KRN-30
    let p4 = layout(PROCESS.schema("Start", 4));
    for (field, o) in [
        ("ProcessId", 8),
        ("ParentId", 12),
        ("SessionId", 16),
        ("ExitStatus", 20),
        ("DirectoryTableBase", 24),
        ("Flags", 32),
        ("UserSID", 36),
    ] {
        assert_eq!(off(p4, field), o, "{field}");
    }
    let p3 = layout(PROCESS.schema("DCStart", 3));
    assert_eq!(off(p3, "UserSID"), 32);
    assert!(p3.field("Flags").is_none() && p3.field("PackageFullName").is_none());

    let t = layout(THREAD.schema("Start", 3));
    for (field, o) in [
        ("TThreadId", 4),
        ("StackBase", 8),
        ("UserStackLimit", 32),
        ("Affinity", 40),
        ("Win32StartAddr", 48),
        ("TebBase", 56),
        ("SubProcessTag", 64),
        ("BasePriority", 68),
        ("ThreadFlags", 71),
        ("ThreadName", 72),
    ] {
        assert_eq!(off(t, field), o, "{field}");
    }
    assert!(t.field("ThreadName").unwrap().optional);

    let i = layout(IMAGE.schema("Load", 3));
    for (field, o) in [
        ("ImageSize", 8),
        ("ProcessId", 16),
        ("ImageChecksum", 20),
        ("TimeDateStamp", 24),
        ("SignatureLevel", 28),
        ("SignatureType", 29),
        ("Reserved0", 30),
        ("DefaultBase", 32),
        ("Reserved1", 40),
        ("Reserved4", 52),
        ("FileName", 56),
    ] {
        assert_eq!(off(i, field), o, "{field}");
    }

    let g1 = layout(DISK_IO.schema("Write", 3));
    for (field, o) in [
        ("IrpFlags", 4),
        ("TransferSize", 8),
        ("ByteOffset", 16),
        ("FileObject", 24),
        ("Irp", 32),
        ("HighResResponseTime", 40),
        ("IssuingThreadId", 48),
    ] {
        assert_eq!(off(g1, field), o, "{field}");
    }
    let g2 = layout(DISK_IO.schema("ReadInit", 3));
    assert_eq!(off(g2, "IssuingThreadId"), 8);
    let g3 = layout(DISK_IO.schema("Flush", 3));
    assert_eq!(
        (
            off(g3, "HighResResponseTime"),
            off(g3, "Irp"),
            off(g3, "IssuingThreadId")
        ),
        (8, 16, 24)
    );
}

/// A Process v4 DCStart payload built by hand from the KRN-27 table, with and without a SID.
fn process_v4_bytes(with_sid: bool) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0xFFFF_D001_2345_6780u64.to_le_bytes()); // UniqueProcessKey
    b.extend_from_slice(&4242u32.to_le_bytes()); // ProcessId
    b.extend_from_slice(&600u32.to_le_bytes()); // ParentId
    b.extend_from_slice(&1u32.to_le_bytes()); // SessionId
    b.extend_from_slice(&259i32.to_le_bytes()); // ExitStatus
    b.extend_from_slice(&0x1AB000u64.to_le_bytes()); // DirectoryTableBase
    b.extend_from_slice(&0u32.to_le_bytes()); // Flags
    assert_eq!(b.len(), 36);
    if with_sid {
        b.extend_from_slice(&0xFFFF_A000_0000_2220u64.to_le_bytes()); // TOKEN_USER.Sid
        b.extend_from_slice(&0u32.to_le_bytes()); // Attributes
        b.extend_from_slice(&[0; 4]); // padding
        b.extend_from_slice(&[1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0]); // S-1-5-18
    } else {
        b.extend_from_slice(&0u32.to_le_bytes());
    }
    b.extend_from_slice(b"notepad.exe\0");
    for s in ["notepad.exe C:\\a.txt", "", ""] {
        b.extend(s.encode_utf16().chain([0]).flat_map(u16::to_le_bytes));
    }
    b
}

#[test]
fn process_v4_sid_block_present_and_absent() {
    // rule: KRN-27
    let e = mof::decode_mof(PROCESS.guid, 3, 4, 8, &process_v4_bytes(true)).unwrap();
    assert_eq!(e.schema.event.name, "DCStart");
    let Some(Value::TokenUser(t)) = e.get("UserSID") else {
        panic!("{:?}", e.get("UserSID"))
    };
    assert_eq!(t.sid.to_string(), "S-1-5-18");
    assert_eq!(t.sid_pointer, 0xFFFF_A000_0000_2220);
    assert_eq!(
        e.get("ImageFileName"),
        Some(&Value::Ansi(b"notepad.exe".to_vec()))
    );
    assert_eq!(
        e.get("CommandLine"),
        Some(&Value::String("notepad.exe C:\\a.txt".into()))
    );
    assert_eq!(e.get("ApplicationId"), Some(&Value::String(String::new())));
    assert_eq!(e.trailing, 0);

    let e = mof::decode_mof(PROCESS.guid, 3, 4, 8, &process_v4_bytes(false)).unwrap();
    assert_eq!(e.get("UserSID"), Some(&Value::Null));
    assert_eq!(e.get("ProcessId"), Some(&Value::U32(4242)));
    assert_eq!(e.get("ExitStatus"), Some(&Value::I32(259)));
}

#[test]
fn the_version_chooses_the_field_order() {
    // rule: KRN-14
    // rule: DEC-01
    // The same bytes read as FileIo Read v2 and v3 give different fields.
    let mut b = Vec::new();
    for w in [7u64, 0x10, 0x20, 0x30, 0x40] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(&[0; 8]);
    let v3 = mof::decode_mof(FILE_IO.guid, 67, 3, 8, &b).unwrap();
    let v2 = mof::decode_mof(FILE_IO.guid, 67, 2, 8, &b).unwrap();
    assert_eq!(v3.get("FileObject"), Some(&Value::Pointer(0x20)));
    assert_eq!(v2.get("FileObject"), Some(&Value::Pointer(0x30)));
    assert_eq!(v2.get("TTID"), Some(&Value::Pointer(0x20)));
    // Classic events are found by the class GUID a consumer sees, not SystemTraceControlGuid.
    let e = mof::decode_mof(Guid::SYSTEM_TRACE_CONTROL, 67, 3, 8, &b).unwrap_err();
    assert!(e.is_no_schema());
    // An unknown version is "no schema" too.
    assert!(
        mof::decode_mof(FILE_IO.guid, 67, 9, 8, &b)
            .unwrap_err()
            .is_no_schema()
    );
}

#[test]
fn optional_fields_and_trailing_bytes() {
    // rule: KRN-14
    let schema = FILE_IO.schema("Read", 3).unwrap();
    let vals = vec![
        Value::U64(1),
        Value::Pointer(2),
        Value::Pointer(3),
        Value::Pointer(4),
        Value::U32(5),
        Value::U32(6),
        Value::U32(7),
    ];
    let short = schema.encode(&vals, 8).unwrap();
    assert_eq!(short.len(), 44);
    let e = schema.decode(&short, 8).unwrap();
    assert_eq!(e.fields.len(), 7);
    assert_eq!(e.get("ExtraFlags"), None);
    // With ExtraFlags, and 4 bytes the layout does not know: ignored, counted.
    let mut long = short.clone();
    long.extend_from_slice(&9u32.to_le_bytes());
    long.extend_from_slice(&[0xEE; 4]);
    let e = schema.decode(&long, 8).unwrap();
    assert_eq!(e.get("ExtraFlags"), Some(&Value::U32(9)));
    assert_eq!(e.trailing, 4);
    // Two stray bytes: too few for ExtraFlags, so it is absent and the bytes trail.
    let mut odd = short;
    odd.extend_from_slice(&[1, 2]);
    let e = schema.decode(&odd, 8).unwrap();
    assert_eq!((e.get("ExtraFlags"), e.trailing), (None, 2));
    // Thread: ThreadName only when bytes remain.
    let t = THREAD.schema("Start", 3).unwrap();
    let mut b = vec![0u8; 72];
    assert_eq!(t.decode(&b, 8).unwrap().get("ThreadName"), None);
    b.extend(
        "worker"
            .encode_utf16()
            .chain([0])
            .flat_map(u16::to_le_bytes),
    );
    assert_eq!(
        t.decode(&b, 8).unwrap().get("ThreadName"),
        Some(&Value::String("worker".into()))
    );
}

#[test]
fn pointer_fields_follow_the_writer_pointer_size() {
    // rule: KRN-14
    // FileIo Read v3 from a 32-bit writer: 4-byte pointers shift every later offset.
    let schema = FILE_IO.schema("Read", 3).unwrap();
    let l = schema.layout;
    assert_eq!(l.fixed_offset("TTID", 4), Some(20));
    assert_eq!(l.fixed_len(4, false), Some(32));
    let mut b = Vec::new();
    b.extend_from_slice(&100u64.to_le_bytes());
    for p in [0x8000_1000u32, 0x8000_2000, 0x8000_3000] {
        b.extend_from_slice(&p.to_le_bytes());
    }
    for w in [77u32, 4096, 0] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    let e = schema.decode(&b, 4).unwrap();
    assert_eq!(e.get("FileKey"), Some(&Value::Pointer(0x8000_3000)));
    assert_eq!(e.get("IoSize"), Some(&Value::U32(4096)));
    // The same bytes as a 64-bit record are too short.
    assert!(matches!(schema.decode(&b, 8), Err(Error::Truncated { .. })));
    // A 32-bit SID block: TOKEN_USER is 8 bytes.
    let p = PROCESS.schema("Start", 3).unwrap();
    let vals = vec![
        Value::Pointer(0x8123_0000),
        Value::U32(1),
        Value::U32(2),
        Value::U32(3),
        Value::I32(0),
        Value::Pointer(0x1000),
        Value::TokenUser(TokenUser {
            sid_pointer: 0x8000_0040,
            attributes: 0,
            sid: Sid::local_system(),
        }),
        Value::Ansi(b"a.exe".to_vec()),
        Value::String("a".into()),
    ];
    let bytes = p.encode(&vals, 4).unwrap();
    assert_eq!(bytes.len(), 24 + 8 + 12 + 6 + 4);
    assert_eq!(p.decode(&bytes, 4).unwrap().fields.len(), 9);
    assert_eq!(schema.decode(&b, 2).unwrap_err(), Error::PointerSize(2));
}

#[test]
fn short_payloads_and_bad_strings_name_the_field_and_offset() {
    // rule: KRN-14
    let create = FILE_IO.schema("Create", 3).unwrap();
    let err = create.decode(&[0; 20], 8).unwrap_err();
    assert_eq!(
        err,
        Error::Truncated {
            field: "CreateOptions".into(),
            offset: 20,
            needed: 4,
            available: 0
        }
    );
    assert!(err.to_string().contains("CreateOptions"), "{err}");
    // The last string may run to the end without its NUL; an odd byte count may not.
    let mut b = vec![0u8; 32];
    b.extend("C:\\x".encode_utf16().flat_map(u16::to_le_bytes));
    let e = create.decode(&b, 8).unwrap();
    assert_eq!(e.get("OpenPath"), Some(&Value::String("C:\\x".into())));
    b.push(0x41);
    let err = create.decode(&b, 8).unwrap_err();
    assert!(
        matches!(&err, Error::BadValue { field, offset: 32, .. } if field == "OpenPath"),
        "{err}"
    );
    // A string that is not last must be terminated.
    let mut p = process_v4_bytes(false);
    p.truncate(40 + 5); // inside ImageFileName, no NUL
    let err = PROCESS
        .schema("Start", 4)
        .unwrap()
        .decode(&p, 8)
        .unwrap_err();
    assert!(
        matches!(&err, Error::BadValue { field, offset: 40, .. } if field == "ImageFileName"),
        "{err}"
    );
    // A SID whose count runs past the payload.
    let mut s = process_v4_bytes(true);
    s.truncate(36 + 16 + 10);
    let err = PROCESS
        .schema("Start", 4)
        .unwrap()
        .decode(&s, 8)
        .unwrap_err();
    assert_eq!(
        err,
        Error::Truncated {
            field: "UserSID".into(),
            offset: 52,
            needed: 12,
            available: 10
        }
    );
}

#[test]
fn encoder_refuses_what_would_not_read_back() {
    let read = FILE_IO.schema("Read", 3).unwrap();
    let err = read.encode(&[Value::U64(1)], 8).unwrap_err();
    assert!(matches!(&err, Error::Encode { field, .. } if field == "<count>"));
    let mut vals = vec![
        Value::U64(1),
        Value::U32(2), // wrong kind for IrpPtr
        Value::Pointer(3),
        Value::Pointer(4),
        Value::U32(5),
        Value::U32(6),
        Value::U32(7),
    ];
    let err = read.encode(&vals, 8).unwrap_err();
    assert!(
        matches!(&err, Error::Encode { field, .. } if field == "IrpPtr"),
        "{err}"
    );
    vals[1] = Value::Pointer(1 << 40);
    assert!(read.encode(&vals, 8).is_ok());
    let err = read.encode(&vals, 4).unwrap_err();
    assert!(err.to_string().contains("32 bits"), "{err}");
    let name = FILE_IO.schema("FileRundown", 3).unwrap();
    let err = name
        .encode(&[Value::Pointer(1), Value::String("a\0b".into())], 8)
        .unwrap_err();
    assert!(matches!(&err, Error::Encode { field, .. } if field == "FileName"));
    let p = PROCESS.schema("Start", 3).unwrap();
    let bad_sid = Value::TokenUser(TokenUser {
        sid_pointer: 0xFFFF_0000_0000_0000,
        attributes: 0,
        sid: Sid::local_system(),
    });
    let vals = vec![
        Value::Pointer(1),
        Value::U32(1),
        Value::U32(2),
        Value::U32(3),
        Value::I32(0),
        Value::Pointer(2),
        bad_sid,
        Value::Ansi(b"a".to_vec()),
        Value::String("a".into()),
    ];
    let err = p.encode(&vals, 8).unwrap_err();
    assert!(matches!(&err, Error::Encode { field, .. } if field == "UserSID"));
}

/// The header records of the real files, decoded through the EventTrace layouts, agree with
/// the `.etl` reader's own TRACE_LOGFILE_HEADER decoder.
#[test]
fn fixture_header_records_decode_like_the_logfile_header() {
    // rule: BUF-17
    // rule: KRN-12
    let Some(files) = shared_fixtures() else {
        eprintln!("shared fixtures not found; skipped");
        return;
    };
    assert!(!files.is_empty());
    let mut seen_partition = 0;
    for path in files {
        let mut file = LogFile::open(&path).unwrap();
        let h = file.header().clone();
        let records = file.header_records().unwrap();
        assert!(!records.is_empty(), "{}", path.display());
        for r in records {
            let Record::Trace(t) = r else { continue };
            let pointer_size = t.pointer_size().unwrap();
            assert_eq!(t.header_type, header_type::SYSTEM64);
            let e = mof::decode_system(t.hook_id, t.version, pointer_size, &t.payload)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(e.schema.class.guid, Guid::EVENT_TRACE);
            match t.hook_id {
                0x0000 => {
                    assert_eq!(e.schema.event.name, "Header");
                    let u32_of = |n| match e.get(n) {
                        Some(Value::U32(v)) => *v,
                        other => panic!("{n}: {other:?}"),
                    };
                    let i64_of = |n| match e.get(n) {
                        Some(Value::I64(v)) => *v,
                        other => panic!("{n}: {other:?}"),
                    };
                    assert_eq!(u32_of("BufferSize"), h.buffer_size);
                    assert_eq!(u32_of("Version"), h.version);
                    assert_eq!(u32_of("ProviderVersion"), h.provider_version);
                    assert_eq!(u32_of("NumberOfProcessors"), h.number_of_processors);
                    assert_eq!(i64_of("EndTime"), h.end_time);
                    assert_eq!(u32_of("BuffersWritten"), h.buffers_written);
                    assert_eq!(u32_of("PointerSize"), h.pointer_size);
                    assert_eq!(u32_of("CpuSpeedInMHz"), h.cpu_speed_mhz);
                    assert_eq!(i64_of("BootTime"), h.boot_time);
                    assert_eq!(i64_of("PerfFreq"), h.perf_freq);
                    assert_eq!(i64_of("StartTime"), h.start_time);
                    assert_eq!(u32_of("ReservedFlags"), h.reserved_flags);
                    assert_eq!(u32_of("BuffersLost"), h.buffers_lost);
                    assert_eq!(
                        e.get("TimeZoneInformation"),
                        Some(&Value::Binary({
                            let mut tz = h.time_zone.0.to_vec();
                            tz.extend_from_slice(&t.payload[0xF4..0xF8]);
                            tz
                        }))
                    );
                    assert_eq!(
                        e.get("SessionNameString"),
                        Some(&Value::String(h.logger_name.clone()))
                    );
                    assert_eq!(
                        e.get("LogFileNameString"),
                        Some(&Value::String(h.log_file_name.clone()))
                    );
                    // Encoding the decoded fields gives the record's bytes back.
                    let again = e.schema.encode_fields(&e.fields, pointer_size).unwrap();
                    assert_eq!(again, t.payload[..t.payload.len() - e.trailing]);
                }
                0x0050 => {
                    seen_partition += 1;
                    assert_eq!(e.schema.event.name, "PartitionInfoExtension");
                    assert_eq!(Some(&t.payload), h.partition_info.as_ref());
                    assert_eq!(e.trailing, 0);
                }
                other => panic!("unexpected header record {other:#06x}"),
            }
        }
    }
    assert!(seen_partition > 0);
}
