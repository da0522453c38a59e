//! Classic MOF events of user providers decoded with their MOF classes: the class chosen by
//! (GUID, event type, version), every property type and qualifier the ETW MOF pages list,
//! the kernel's own FileIo_Name class read from MOF text against the built-in table, and
//! what bad MOF text or a bad payload costs.

use etwsim_decode::Error;
use etwsim_decode::fields::{Sid, TokenUser, Value};
use etwsim_decode::mof;
use etwsim_decode::mof_class::{Count, MofClasses, PropType, Termination};
use etwsim_types::Guid;

const PROVIDER: &str = r#"#pragma namespace("\\\\.\\root\\WMI")
#pragma classflags("forceupdate")

// The provider class: enable flags and levels, no WmiDataId.
[Dynamic, Description("Demo provider") : amended,
 Guid("{d58c126f-b309-11d1-969e-0000f875a5bc}"), locale("MS\\0x409")]
class DemoProvider : EventTrace
{
    [Description("Enable Flags") : amended,
     ValueMap{"0x1", "0x2"}, Values{"Io", "Net"}]
    uint32 Flags;
};

/* The newest version of the request class. */
[Dynamic, Guid("{ce5b220d-5ee9-4a7a-b1b9-bc9a2b9b0a46}"), EventVersion(2)]
class DemoProvider_Request : DemoProvider {};

[Dynamic, EventType{1, 2}, EventTypeName{"Start", "End"}]
class DemoProvider_Request_Info : DemoProvider_Request
{
    [WmiDataId(1), read] uint32 Count;
    [WmiDataId(2), read, StringTermination("NullTerminated"), format("w")] string Name;
    [WmiDataId(3), read, WmiSizeIs("Count")] uint16 Ports[];
    [WmiDataId(4), read, format("x")] uint32 Flags;
    [WmiDataId(5), read, extension("Guid")] object Activity;
    [WmiDataId(6), read, pointer] uint64 Context;
    [WmiDataId(7), read, StringTermination("Counted")] string Tag;
};

[Dynamic, EventType(3), EventTypeName("Addresses")]
class DemoProvider_Request_Net : DemoProvider_Request
{
    [WmiDataId(2), read, extension("Port")] object Port;
    [WmiDataId(1), read, extension("IPAddr")] object Address;
    [WmiDataId(3), read, extension("IPAddrV6")] object Address6;
    [WmiDataId(4), read, extension("SizeT")] object Size;
    [WmiDataId(5), read, extension("Sid")] object User;
    [WmiDataId(6), read, extension("WmiTime")] object When;
    [WmiDataId(7), read, extension("Variant")] object Blob;
    [WmiDataId(8), read, extension("NoPrint")] uint32 Secret;
    [WmiDataId(9), read, StringTermination("ReverseCounted"), format("w")] string Reversed;
    [WmiDataId(10), read, StringTermination("NotCounted")] string Rest;
};

[Dynamic, EventType(4), EventTypeName("Numbers")]
class DemoProvider_Request_Numbers : DemoProvider_Request
{
    [WmiDataId(1), read] sint8 A;
    [WmiDataId(2), read, format("c")] uint8 B;
    [WmiDataId(3), read] sint16 C;
    [WmiDataId(4), read] sint64 D;
    [WmiDataId(5), read] real32 E;
    [WmiDataId(6), read] real64 F;
    [WmiDataId(7), read] boolean G;
    [WmiDataId(8), read] char16 H;
    [WmiDataId(9), read, format("s")] char16 Label[8];
    [WmiDataId(10), read, MAX(3)] uint32 Three[];
    [WmiDataId(11), read] uint8 Mac[6];
    [WmiDataId(12), read, extension("RString")] string Legacy;
    [WmiDataId(13), read] uint16 Tail[];
};

// An older version of the same class.
[Dynamic, Guid("{ce5b220d-5ee9-4a7a-b1b9-bc9a2b9b0a46}"), EventVersion(1)]
class DemoProvider_Request_V1 : DemoProvider {};

[Dynamic, EventType{1, 2}, EventTypeName{"Start", "End"}]
class DemoProvider_Request_V1_Info : DemoProvider_Request_V1
{
    [WmiDataId(1), read] uint32 Count;
};

instance of __Namespace { Name = "ignored"; };
"#;

const REQUEST: &str = "{ce5b220d-5ee9-4a7a-b1b9-bc9a2b9b0a46}";

fn classes() -> MofClasses {
    let c = MofClasses::from_text(PROVIDER.as_bytes(), "demo.mof").unwrap();
    assert_eq!(c.diagnostics(), &[]);
    c
}

fn guid(s: &str) -> Guid {
    s.parse().unwrap()
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn the_class_is_chosen_by_guid_event_type_and_version() {
    // rule: KRN-14
    // rule: EVT-24
    let c = classes();
    let names: Vec<(&str, Option<u8>, usize)> = c
        .classes()
        .iter()
        .map(|k| (k.name.as_str(), k.version, k.types.len()))
        .collect();
    assert_eq!(
        names,
        [
            ("DemoProvider", None, 0),
            ("DemoProvider_Request", Some(2), 3),
            ("DemoProvider_Request_V1", Some(1), 1),
        ]
    );
    let (class, t) = c.find(guid(REQUEST), 2, 2).unwrap();
    assert_eq!(
        (class.name.as_str(), t.name.as_str()),
        ("DemoProvider_Request", "DemoProvider_Request_Info")
    );
    assert_eq!(t.event_name(2), "End");
    let (class, _) = c.find(guid(REQUEST), 1, 1).unwrap();
    assert_eq!(class.name, "DemoProvider_Request_V1");
    assert_eq!(
        c.find(guid(REQUEST), 1, 7).unwrap_err(),
        Error::NoMofVersion {
            class: "DemoProvider_Request".into(),
            version: 7
        }
    );
    assert!(matches!(
        c.find(guid(REQUEST), 9, 2),
        Err(Error::NoMofEventType { event_type: 9, .. })
    ));
    assert!(matches!(
        c.find(Guid::NULL, 1, 0),
        Err(Error::NoMofClass { .. })
    ));
    let layout = t.layout.as_ref().unwrap();
    assert_eq!(layout[2].count, Count::SizeIs(0));
    assert_eq!(
        layout[6].ty,
        PropType::Str {
            wide: false,
            term: Termination::Counted
        }
    );
}

#[test]
fn integers_strings_arrays_guids_and_pointers_decode() {
    let c = classes();
    let activity = guid("{01020304-0506-0708-090a-0b0c0d0e0f10}");
    let payload = [
        &2u32.to_le_bytes()[..],
        &utf16z("req ✓"),
        &80u16.to_le_bytes(),
        &443u16.to_le_bytes(),
        &0x2Au32.to_le_bytes(),
        &activity.to_bytes_le(),
        &0x1000u64.to_le_bytes(),
        &[3, 0],
        b"tag",
        &[0xEE],
    ]
    .concat();
    let e = c.decode(guid(REQUEST), 1, 2, 8, &payload).unwrap();
    assert_eq!(
        (e.class.name.as_str(), e.event_name.as_str()),
        ("DemoProvider_Request", "Start")
    );
    assert_eq!(e.get("Count"), Some(&Value::U32(2)));
    assert_eq!(e.get("Name"), Some(&Value::String("req ✓".into())));
    assert_eq!(
        e.get("Ports"),
        Some(&Value::Array(vec![Value::U16(80), Value::U16(443)]))
    );
    assert_eq!(e.get("Activity"), Some(&Value::Guid(activity)));
    assert_eq!(e.get("Context"), Some(&Value::Pointer(0x1000)));
    assert_eq!(e.get("Tag"), Some(&Value::Ansi(b"tag".to_vec())));
    assert_eq!(e.trailing, 1);
    let shown: Vec<(String, String)> = e
        .shown_fields()
        .into_iter()
        .map(|(f, s)| (f.name.clone(), s))
        .collect();
    assert_eq!(shown[3], ("Flags".to_string(), "0x2a".to_string()));
    // A 32-bit writer's pointer is 4 bytes.
    let short = [&payload[..48], &0x1000u32.to_le_bytes(), &[0, 0]].concat();
    let e = c.decode(guid(REQUEST), 2, 2, 4, &short).unwrap();
    assert_eq!(e.get("Context"), Some(&Value::Pointer(0x1000)));
}

#[test]
fn extensions_decode_as_the_mof_qualifier_page_says() {
    let c = classes();
    let sid: Sid = "S-1-5-18".parse().unwrap();
    let mut sid_block = Vec::new();
    sid_block.extend_from_slice(&0xFFFF_A000_0000_1010u64.to_le_bytes());
    sid_block.extend_from_slice(&[0; 8]);
    sid.write_to(&mut sid_block);
    let mut reversed = vec![0, 4];
    reversed.extend("ab".encode_utf16().flat_map(u16::to_le_bytes));
    let payload = [
        &[192, 0, 2, 1][..],
        &8080u16.to_be_bytes(),
        &std::net::Ipv6Addr::LOCALHOST.octets(),
        &77u64.to_le_bytes(),
        &sid_block,
        &5u64.to_le_bytes(),
        &[2, 0, 0, 0, 0xAB, 0xCD],
        &9u32.to_le_bytes(),
        &reversed,
        b"to the end",
    ]
    .concat();
    let e = c.decode(guid(REQUEST), 3, 2, 8, &payload).unwrap();
    assert_eq!(e.event_name, "Addresses");
    assert_eq!(e.get("Address"), Some(&Value::String("192.0.2.1".into())));
    assert_eq!(e.get("Port"), Some(&Value::U16(8080)));
    assert_eq!(e.get("Address6"), Some(&Value::String("::1".into())));
    assert_eq!(e.get("Size"), Some(&Value::Pointer(77)));
    assert_eq!(
        e.get("User"),
        Some(&Value::TokenUser(TokenUser {
            sid_pointer: 0xFFFF_A000_0000_1010,
            attributes: 0,
            sid
        }))
    );
    assert_eq!(e.get("When"), Some(&Value::U64(5)));
    assert_eq!(e.get("Blob"), Some(&Value::Binary(vec![0xAB, 0xCD])));
    assert_eq!(e.get("Reversed"), Some(&Value::String("ab".into())));
    assert_eq!(e.get("Rest"), Some(&Value::Ansi(b"to the end".to_vec())));
    assert_eq!(e.trailing, 0);
    // NoPrint is read but not shown.
    assert_eq!(e.get("Secret"), Some(&Value::U32(9)));
    assert!(e.shown_fields().iter().all(|(f, _)| f.name != "Secret"));
    // An absent SID is a u32 0.
    let absent = [
        &payload[..30],
        &[0, 0, 0, 0],
        &payload[30 + sid_block.len()..],
    ]
    .concat();
    let e = c.decode(guid(REQUEST), 3, 2, 8, &absent).unwrap();
    assert_eq!(e.get("User"), Some(&Value::Null));
}

#[test]
fn numbers_chars_and_fixed_arrays_decode() {
    let c = classes();
    let mut label: Vec<u8> = "lbl".encode_utf16().flat_map(u16::to_le_bytes).collect();
    label.resize(16, 0);
    let payload = [
        &[0xFF, b'Z'][..],
        &(-3i16).to_le_bytes(),
        &(-4i64).to_le_bytes(),
        &1.5f32.to_le_bytes(),
        &2.25f64.to_le_bytes(),
        &1u32.to_le_bytes(),
        &('é' as u16).to_le_bytes(),
        &label,
        &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
        &[0, 0x1B, 0x21, 0x3C, 0x4D, 0x5E],
        b"caf\xE9\0",
        &[7, 0, 8, 0, 9],
    ]
    .concat();
    let e = c.decode(guid(REQUEST), 4, 2, 8, &payload).unwrap();
    let get = |n: &str| e.get(n).cloned().unwrap();
    assert_eq!(get("A"), Value::I8(-1));
    assert_eq!(get("C"), Value::I16(-3));
    assert_eq!(get("D"), Value::I64(-4));
    assert_eq!(get("E"), Value::F32(1.5));
    assert_eq!(get("F"), Value::F64(2.25));
    assert_eq!(get("G"), Value::Bool32(1));
    assert_eq!(get("H"), Value::String("é".into()));
    assert_eq!(get("Label"), Value::String("lbl".into()));
    assert_eq!(
        get("Three"),
        Value::Array(vec![Value::U32(1), Value::U32(2), Value::U32(3)])
    );
    assert_eq!(
        get("Mac"),
        Value::Binary(vec![0, 0x1B, 0x21, 0x3C, 0x4D, 0x5E])
    );
    assert_eq!(get("Legacy").as_text().unwrap(), "café");
    assert_eq!(
        get("Tail"),
        Value::Array(vec![Value::U16(7), Value::U16(8)])
    );
    assert_eq!(e.trailing, 1);
    let b = e
        .shown_fields()
        .into_iter()
        .find(|(f, _)| f.name == "B")
        .unwrap()
        .1;
    assert_eq!(b, "Z");
}

/// The kernel's FileIo_Name class as Learn's FileIo_Name page declares it, read from MOF
/// text, decodes a FileIo Name event as the built-in kernel table does.
#[test]
fn the_kernel_fileio_name_class_from_mof_text_matches_the_built_in_table() {
    // rule: KRN-14
    let text = r#"
[Dynamic, Description("File Create/Delete/Rundown Events"),
 Guid("{90cbdc39-4a3e-11d1-84f4-0000f80464e3}"), EventVersion(2)]
class FileIo : MSNT_SystemTrace {};

[Dynamic, Description("File Name"),
 EventType{0, 32, 35, 36}, EventTypeName{"Name", "FileCreate", "FileDelete", "FileRundown"}]
class FileIo_Name : FileIo
{
  [WmiDataId(1), Description("FileObject"), pointer, read] uint32 FileObject;
  [WmiDataId(2), Description("FileName"), StringTermination("NullTerminated"), format("w"), read] string FileName;
};
"#;
    let c = MofClasses::from_text(text.as_bytes(), "fileio.mof").unwrap();
    let payload = [
        &0xFFFF_C001_0000_2000u64.to_le_bytes()[..],
        &utf16z(r"\Device\HarddiskVolume2\Windows\notepad.exe"),
    ]
    .concat();
    let fileio = mof::FILE_IO.guid;
    for (event_type, name) in [(0, "Name"), (32, "FileCreate"), (36, "FileRundown")] {
        let from_mof = c.decode(fileio, event_type, 2, 8, &payload).unwrap();
        let from_table = mof::decode_mof(fileio, event_type, 2, 8, &payload).unwrap();
        assert_eq!(from_mof.fields, from_table.fields);
        assert_eq!(from_mof.event_name, name);
    }
}

#[test]
fn syntax_errors_name_the_file_and_line() {
    for (text, line, needle) in [
        (
            "class A {\n uint32 X\n};",
            3,
            "expected `;` after a property",
        ),
        ("[Guid(\"{x}\"]\nclass A {};", 1, "expected `)`"),
        ("\n\nfrobnicate;", 3, "expected `class`"),
        (
            "class A { string S = \"open };",
            1,
            "a string that never ends",
        ),
        ("/* never closed\n class A {};", 1, "never ends"),
        ("class A : { };", 1, "the parent class's name"),
        (
            &format!("{}class A {{}};", "[".repeat(3)),
            1,
            "a qualifier name",
        ),
        (
            &format!("instance of X {}{};", "{".repeat(100), "}".repeat(100)),
            1,
            "nesting deeper",
        ),
    ] {
        let e = MofClasses::from_text(text.as_bytes(), "bad.mof").unwrap_err();
        let Error::MofSyntax {
            file,
            line: at,
            message,
        } = &e
        else {
            panic!("{text:?}: not a syntax error: {e}");
        };
        assert_eq!((&**file, *at), ("bad.mof", line), "{e}");
        assert!(message.contains(needle), "{text:?}: {e}");
        assert!(e.to_string().starts_with(&format!("bad.mof:{line}: ")));
    }
}

#[test]
fn classes_that_cannot_be_described_are_kept_with_their_reason() {
    let text = r#"
[Guid("{5a5a5a5a-0000-4000-8000-00000000000a}")] class P : EventTrace {};
[EventType(1)] class P_A : P { [WmiDataId(1)] datetime When; };
[EventType(2)] class P_B : P { [WmiDataId(1), WmiSizeIs("N")] uint32 X[]; };
[EventType(3)] class P_C : P { uint32 NoId; };
[EventType(4)] class P_D : P { [WmiDataId(1)] uint8 Open[]; [WmiDataId(2)] uint8 After; };
[EventType(5)] class P_E : P { [WmiDataId(1)] object NoExtension; };
[EventType(6)] class P_F : P { [WmiDataId(1)] uint8 Huge[70000]; };
[EventType(7)] class P_G : P { [WmiDataId(1), StringTermination("NotCounted")] string S; [WmiDataId(2)] uint8 X; };
[EventType(8)] class P_H : P { [WmiDataId(1)] uint8 A; [WmiDataId(1)] uint8 B; };
[EventType(300)] class P_I : P { [WmiDataId(1)] uint8 A; };
[EventType(9)] class Orphan : NoSuchParent { [WmiDataId(1)] uint8 A; };
[Guid("not a guid")] class Q : EventTrace {};
"#;
    let c = MofClasses::from_text(text.as_bytes(), "partial.mof").unwrap();
    let said: Vec<String> = c.diagnostics().iter().map(ToString::to_string).collect();
    let expect = [
        "partial.mof:3: class P_A: property When (line 3): type \"datetime\"",
        "partial.mof:4: class P_B: property X (line 4): WmiSizeIs(\"N\") names no earlier property",
        "partial.mof:5: class P_C: property NoId (line 5) has no WmiDataId",
        "partial.mof:6: class P_D: property Open (line 6): an array without a size",
        "partial.mof:7: class P_E: property NoExtension (line 7): an object property needs an extension",
        "partial.mof:8: class P_F: property Huge (line 8): an array of 70000 elements",
        "partial.mof:9: class P_G: property S (line 9): a NotCounted string must be the last",
        "partial.mof:10: class P_H: properties A and B have the same WmiDataId 1",
        "partial.mof:11: class P_I: EventType Num(\"300\") is not 0 to 255",
        "partial.mof:12: class Orphan: an event type class with no ancestor that has a Guid",
        "partial.mof:13: class Q: Guid Str(\"not a guid\") is not a GUID",
    ];
    assert_eq!(said.len(), expect.len(), "{said:#?}");
    for (s, e) in said.iter().zip(expect) {
        assert!(s.starts_with(e), "{s:?} does not start with {e:?}");
    }
    let g = guid("{5a5a5a5a-0000-4000-8000-00000000000a}");
    let err = c.decode(g, 1, 0, 8, &[]).unwrap_err();
    assert!(matches!(err, Error::MofUnusable { .. }), "{err}");
    assert!(err.to_string().contains("datetime"), "{err}");
}

#[test]
fn payloads_that_do_not_fit_name_the_property_and_offset() {
    let c = classes();
    // Count says 1000 ports, the payload has bytes for 2.
    let payload = [&1000u32.to_le_bytes()[..], &utf16z("x"), &[1, 0, 2, 0]].concat();
    let err = c
        .decode(guid(REQUEST), 1, 2, 8, &payload)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "field Ports at payload offset 8: needs 2000 bytes, 4 left"
    );
    let err = c
        .decode(guid(REQUEST), 1, 2, 8, &[1, 0])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "field Count at payload offset 0: needs 4 bytes, 2 left"
    );
    // A string that is not the last property must be terminated.
    let err = c
        .decode(guid(REQUEST), 1, 2, 8, &[0, 0, 0, 0, b'x', 0])
        .unwrap_err()
        .to_string();
    assert!(err.contains("field Name at payload offset 4"), "{err}");
}

#[test]
fn utf16_mof_files_read_too() {
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(PROVIDER.encode_utf16().flat_map(u16::to_le_bytes));
    let c = MofClasses::from_text(&bytes, "utf16.mof").unwrap();
    assert_eq!(c.classes().len(), 3);
}

#[test]
fn inherited_properties_are_bounded_by_what_the_file_declares() {
    let mut text = String::from(
        "[Guid(\"{5a5a5a5a-0000-4000-8000-000000000012}\")] class G : EventTrace {};\nclass Base : G {\n",
    );
    for i in 1..=1000 {
        text.push_str(&format!("[WmiDataId({i})] uint8 P{i};\n"));
    }
    text.push_str("};\n");
    for i in 0..3000 {
        text.push_str(&format!(
            "[EventType({})] class T{i} : Base {{}};\n",
            i % 256
        ));
    }
    let started = std::time::Instant::now();
    let c = MofClasses::from_text(text.as_bytes(), "inherit.mof").unwrap();
    let types = &c.classes()[0].types;
    assert_eq!(types.len(), 3000);
    let usable = types.iter().filter(|t| t.layout.is_ok()).count();
    // 4 × 1,000 declared + 65,536: 69 layouts of 1,000 properties.
    assert_eq!(usable, 69);
    assert!(
        c.diagnostics()[0]
            .message
            .contains("inherit more properties"),
        "{}",
        c.diagnostics()[0]
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}
