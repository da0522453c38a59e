//! The CLR's own manifest (`tests/manifests/ClrEtwAll.man`, MIT, from dotnet/coreclr; see
//! the README there): it loads with nothing left out, every one of its events decodes, and
//! a few events decode from hand-built payloads in their real layouts — including BulkType,
//! whose struct members take their counts from earlier members of the same struct.

use crate::common;

use common::tests_dir;
use etwsim_decode::fields::{Field, Value, find};
use etwsim_decode::manifest::{
    DataDef, InType, Item, Manifest, OutType, Param, Provider, Severity, load_manifest,
};

const RUNTIME: &str = "{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}";

fn clr() -> Manifest {
    let bytes = std::fs::read(tests_dir("manifests").join("ClrEtwAll.man")).unwrap();
    load_manifest(&bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn runtime(m: &Manifest) -> &Provider {
    m.provider(RUNTIME.parse().unwrap()).unwrap()
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// The data definition of top-level item `name` of `event`'s template.
fn def<'p>(p: &'p Provider, id: u16, version: u8, name: &str) -> &'p DataDef {
    let e = p.event(id, version).unwrap();
    p.template_of(e)
        .unwrap()
        .items
        .iter()
        .find_map(|i| match i {
            Item::Data(d) if d.name == name => Some(d),
            _ => None,
        })
        .unwrap()
}

#[test]
fn the_clr_manifest_loads_with_nothing_left_out() {
    // rule: DEC-16
    // rule: DEC-17
    let m = clr();
    let errors: Vec<String> = m
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let names: Vec<&str> = m.providers.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Microsoft-Windows-DotNETRuntime",
            "Microsoft-Windows-DotNETRuntimeRundown",
            "Microsoft-Windows-DotNETRuntimeStress",
            "Microsoft-Windows-DotNETRuntimePrivate",
        ]
    );
    let events: usize = m.providers.iter().map(|p| p.events.len()).sum();
    assert!(events > 400, "{events} events");
    for p in &m.providers {
        assert!(p.left_out_templates.is_empty(), "{}", p.name);
        for e in &p.events {
            if let Some(t) = &e.template {
                assert!(p.template(t).is_some(), "{} event {}: {t}", p.name, e.id);
            }
        }
    }
}

/// Bytes for one value of `d`, with `n` for every integer and `n` elements or characters
/// wherever a count or length names a field (whose value is then `n`).
fn value_bytes(d: &DataDef, n: u64, pointer_size: u8, out: &mut Vec<u8>) {
    let len = |p: &Option<Param>| match p {
        Some(Param::Fixed(k)) => Some(*k as usize),
        Some(Param::Field(_)) => Some(n as usize),
        None => None,
    };
    let int = |bytes: usize, out: &mut Vec<u8>| out.extend_from_slice(&n.to_le_bytes()[..bytes]);
    match d.in_type {
        InType::UNICODE_STRING => match len(&d.length) {
            Some(k) => out.extend("x".repeat(k).encode_utf16().flat_map(u16::to_le_bytes)),
            None => out.extend(utf16z("ab")),
        },
        InType::ANSI_STRING => match len(&d.length) {
            Some(k) => out.extend(std::iter::repeat_n(b'x', k)),
            None => out.extend(b"ab\0"),
        },
        InType::INT8 | InType::UINT8 => int(1, out),
        InType::INT16 | InType::UINT16 => int(2, out),
        InType::INT32 | InType::UINT32 | InType::HEX_INT32 | InType::BOOLEAN => int(4, out),
        InType::INT64 | InType::UINT64 | InType::HEX_INT64 | InType::FILETIME => int(8, out),
        InType::FLOAT => out.extend(1.5f32.to_le_bytes()),
        InType::DOUBLE => out.extend(2.5f64.to_le_bytes()),
        InType::POINTER => int(usize::from(pointer_size), out),
        InType::GUID | InType::SYSTEMTIME => out.extend([7; 16]),
        InType::SID => out.extend([1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0]),
        InType::BINARY => {
            let k = len(&d.length).unwrap_or(16);
            out.extend(std::iter::repeat_n(0xAB, k));
        }
        InType::COUNTED_UNICODE_STRING => {
            out.extend(4u16.to_le_bytes());
            out.extend(utf16z("ab")[..4].iter());
        }
        InType::COUNTED_ANSI_STRING | InType::COUNTED_BINARY => {
            out.extend(2u16.to_le_bytes());
            out.extend(b"ab");
        }
        other => panic!("{}: in-type {} in the CLR manifest", d.name, other.0),
    }
}

fn data_bytes(d: &DataDef, n: u64, pointer_size: u8, out: &mut Vec<u8>) {
    let count = match &d.count {
        Some(Param::Fixed(k)) => *k as usize,
        Some(Param::Field(_)) => n as usize,
        None => 1,
    };
    for _ in 0..count {
        value_bytes(d, n, pointer_size, out);
    }
}

/// A payload for `items` (see [`value_bytes`]).
fn synthesize(items: &[Item], n: u64, pointer_size: u8) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Data(d) => data_bytes(d, n, pointer_size, &mut out),
            Item::Struct(s) => {
                let count = match &s.count {
                    Some(Param::Fixed(k)) => *k as usize,
                    Some(Param::Field(_)) => n as usize,
                    None => 1,
                };
                for _ in 0..count {
                    for m in &s.members {
                        data_bytes(m, n, pointer_size, &mut out);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_clr_event_decodes_from_a_payload_in_its_layout() {
    // rule: DEC-17
    // rule: DEC-18
    let m = clr();
    let mut decoded = 0;
    for p in &m.providers {
        for e in &p.events {
            let items = p.template_of(e).map_or(&[][..], |t| &t.items[..]);
            for pointer_size in [4u8, 8] {
                let payload = synthesize(items, 2, pointer_size);
                let fields = p.decode(e, &payload, pointer_size).unwrap_or_else(|err| {
                    panic!("{} event {} v{}: {err}", p.name, e.id, e.version)
                });
                assert_eq!(fields.len(), items.len(), "{} event {}", p.name, e.id);
                // Counts taken from fields (2 here) made arrays of 2.
                for (f, item) in fields.iter().zip(items) {
                    let counted = match item {
                        Item::Data(d) => matches!(d.count, Some(Param::Field(_))),
                        Item::Struct(s) => matches!(s.count, Some(Param::Field(_))),
                    };
                    if counted {
                        assert!(
                            matches!(&f.value, Value::Array(a) if a.len() == 2),
                            "{} event {}: {}",
                            p.name,
                            e.id,
                            f.name
                        );
                    }
                }
                let _ = p.format_message(e, &fields);
            }
            decoded += 1;
        }
    }
    assert!(decoded > 400);
}

#[test]
fn gc_start_v2_decodes_with_its_maps_and_message() {
    // rule: DEC-17
    // rule: DEC-24
    // rule: DEC-26
    let m = clr();
    let p = runtime(&m);
    let e = p.event(1, 2).unwrap();
    assert_eq!(e.symbol.as_deref(), Some("GCStart_V2"));
    // level win:Informational, opcode win:Start, task GarbageCollection, GCKeyword.
    assert_eq!((e.level, e.opcode, e.task, e.keywords), (4, 1, 1, 0x1));
    let mut payload = Vec::new();
    payload.extend(5u32.to_le_bytes()); // Count
    payload.extend(2u32.to_le_bytes()); // Depth
    payload.extend(1u32.to_le_bytes()); // Reason: Induced
    payload.extend(0u32.to_le_bytes()); // Type: NonConcurrentGC
    payload.extend(9u16.to_le_bytes()); // ClrInstanceID
    payload.extend(0x1234u64.to_le_bytes()); // ClientSequenceNumber
    let (_, _, fields) = m
        .decode_event(RUNTIME.parse().unwrap(), 1, 2, &payload, 8)
        .unwrap();
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Count",
            "Depth",
            "Reason",
            "Type",
            "ClrInstanceID",
            "ClientSequenceNumber"
        ]
    );
    assert_eq!(
        find(&fields, "ClientSequenceNumber"),
        Some(&Value::U64(0x1234))
    );
    assert_eq!(p.render(def(p, 1, 2, "Reason"), &Value::U32(1)), "Induced");
    assert_eq!(
        p.render(def(p, 1, 2, "Type"), &Value::U32(0)),
        "NonConcurrentGC"
    );
    assert_eq!(
        p.format_message(e, &fields).unwrap(),
        "Count=5;\nDepth=2;\nReason=Induced;\nType=NonConcurrentGC;\nClrInstanceID=9;\n\
         ClientSequenceNumber=4660"
    );
}

#[test]
fn method_load_verbose_v1_decodes_its_strings_hex_and_flags() {
    // rule: DEC-17
    // rule: DEC-24
    // rule: DEC-27
    let m = clr();
    let p = runtime(&m);
    let e = p.event(143, 1).unwrap();
    assert_eq!(e.symbol.as_deref(), Some("MethodLoadVerbose_V1"));
    assert_eq!((e.task, e.opcode), (9, 37)); // CLRMethod / MethodLoadVerbose
    assert_eq!(e.keywords, 0x10 | 0x20); // JitKeyword NGenKeyword
    let mut payload = Vec::new();
    payload.extend(0x7FF8_0000_1000u64.to_le_bytes()); // MethodID
    payload.extend(0x7FF8_0000_2000u64.to_le_bytes()); // ModuleID
    payload.extend(0x7FF8_1234_5678u64.to_le_bytes()); // MethodStartAddress
    payload.extend(0x1A0u32.to_le_bytes()); // MethodSize
    payload.extend(0x0600_0001u32.to_le_bytes()); // MethodToken
    payload.extend(0xAu32.to_le_bytes()); // MethodFlags: Generic | Jitted
    payload.extend(utf16z("Demo.App"));
    payload.extend(utf16z("Main"));
    payload.extend(utf16z("void  (string[])"));
    payload.extend(3u16.to_le_bytes()); // ClrInstanceID
    let fields = p.decode(e, &payload, 8).unwrap();
    let shown = |f: &Field| p.render(def(p, 143, 1, &f.name), &f.value);
    let rendered: Vec<String> = fields.iter().map(shown).collect();
    assert_eq!(
        rendered,
        [
            "0x00007FF800001000",
            "0x00007FF800002000",
            "0x00007FF812345678",
            "0x000001A0",
            "0x06000001",
            "Generic|Jitted",
            "Demo.App",
            "Main",
            "void  (string[])",
            "3"
        ]
    );
    assert_eq!(
        def(p, 143, 1, "MethodStartAddress").out_type,
        Some(OutType::HEX_INT64)
    );
}

#[test]
fn bulk_type_struct_members_take_their_counts_from_earlier_members() {
    // rule: DEC-17
    let m = clr();
    let p = runtime(&m);
    let e = p.event(15, 0).unwrap();
    assert_eq!(e.symbol.as_deref(), Some("BulkType"));
    let Some(Item::Struct(values)) = p.template_of(e).unwrap().items.get(2) else {
        panic!("BulkType's third item is its Values struct");
    };
    assert_eq!(values.count, Some(Param::Field("Count".into())));
    let params = values
        .members
        .iter()
        .find(|d| d.name == "TypeParameters")
        .unwrap();
    assert_eq!(
        params.count,
        Some(Param::Field("TypeParameterCount".into()))
    );

    // Two types: System.Int32 without type parameters, List`1 with one.
    let mut payload = Vec::new();
    payload.extend(2u32.to_le_bytes()); // Count
    payload.extend(7u16.to_le_bytes()); // ClrInstanceID
    for (type_id, flags, name, parameters) in [
        (0x10u64, 0u32, "System.Int32", &[][..]),
        (
            0x20,
            0x2,
            "System.Collections.Generic.List`1",
            &[0x10u64][..],
        ),
    ] {
        payload.extend(type_id.to_le_bytes()); // TypeID
        payload.extend(0x99u64.to_le_bytes()); // ModuleID
        payload.extend(0x0200_0001u32.to_le_bytes()); // TypeNameID
        payload.extend(flags.to_le_bytes()); // Flags
        payload.push(8); // CorElementType
        payload.extend(utf16z(name)); // Name
        payload.extend((parameters.len() as u32).to_le_bytes()); // TypeParameterCount
        for t in parameters {
            payload.extend(t.to_le_bytes()); // TypeParameters
        }
    }
    let fields = p.decode(e, &payload, 8).unwrap();
    let Some(Value::Array(types)) = find(&fields, "Values") else {
        panic!("{fields:?}")
    };
    assert_eq!(types.len(), 2);
    let member = |t: &Value, name: &str| match t {
        Value::Struct(members) => find(members, name).cloned(),
        _ => None,
    };
    assert_eq!(
        member(&types[0], "Name"),
        Some(Value::String("System.Int32".into()))
    );
    assert_eq!(
        member(&types[0], "TypeParameters"),
        Some(Value::Array(vec![]))
    );
    assert_eq!(
        member(&types[1], "TypeParameters"),
        Some(Value::Array(vec![Value::U64(0x10)]))
    );
    // One byte short: the last type parameter is cut, and the error says where.
    let err = p.decode(e, &payload[..payload.len() - 1], 8).unwrap_err();
    assert!(err.to_string().contains("TypeParameters"), "{err}");
}
