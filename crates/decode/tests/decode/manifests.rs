//! Manifest loading, name resolution, payload decoding, rendering and keyword masks, on the
//! sample manifests of `tests/manifests/` and the fixture's Kernel-Process event.

use crate::common;

use common::{shared_fixtures, tests_dir};
use etwsim_decode::Error;
use etwsim_decode::fields::{Field, Sid, SystemTime, Value, find};
use etwsim_decode::manifest::{
    InType, Item, Manifest, MapKind, OutType, Param, Provider, Severity, format_message,
    load_manifest,
};
use etwsim_etl::{LogFile, Record};
use etwsim_types::Guid;

fn sample(name: &str) -> Manifest {
    let bytes = std::fs::read(tests_dir("manifests").join(name)).expect("sample manifest");
    load_manifest(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn demo() -> Provider {
    sample("demo-storage.man").providers.remove(0)
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn every_element_of_the_demo_manifest_is_read() {
    // rule: DEC-16
    let p = demo();
    assert_eq!(p.name, "Etwsim-Demo-Storage");
    assert_eq!(
        p.guid,
        "{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}".parse().unwrap()
    );
    assert_eq!(p.symbol.as_deref(), Some("ETWSIM_DEMO_STORAGE"));
    assert_eq!(p.message.as_deref(), Some("Demo storage")); // en-US, not fr-FR
    assert_eq!(p.channels.len(), 3);
    assert_eq!(p.levels[0].value, 16);
    assert_eq!(p.keywords.len(), 4);
    assert_eq!(p.opcodes[0].value, 10);
    assert_eq!(p.tasks[0].opcodes[0].name, "Queue");
    assert_eq!(
        p.tasks[0].event_guid,
        Some("{11111111-2222-3333-4444-555555555555}".parse().unwrap())
    );
    let bits = p.map("AccessBits").unwrap();
    assert_eq!(bits.kind, MapKind::Bits);
    assert_eq!(bits.entries[2], (4, "D".to_owned()));
    assert_eq!(p.templates.len(), 3);
    let every = p.template("EveryType").unwrap();
    assert_eq!(every.items.len(), 30);
    let Item::Data(port) = &every.items[5] else {
        panic!()
    };
    assert_eq!(
        (port.in_type, port.out_type),
        (InType::UINT16, Some(OutType::PORT))
    );
    let arrays = p.template("Arrays").unwrap();
    let Item::Data(ids) = &arrays.items[1] else {
        panic!()
    };
    assert_eq!(ids.count, Some(Param::Field("Count".into())));
    let Item::Struct(ext) = &arrays.items[5] else {
        panic!()
    };
    assert_eq!(ext.members.len(), 2);
    assert_eq!(p.events.len(), 5);
}

#[test]
fn in_and_out_type_names_map_to_tdh_numbers() {
    // rule: DEC-18
    // rule: DEC-19
    let ins = [
        ("win:UnicodeString", 1),
        ("win:AnsiString", 2),
        ("win:Int8", 3),
        ("win:UInt8", 4),
        ("win:Int16", 5),
        ("win:UInt16", 6),
        ("win:Int32", 7),
        ("win:UInt32", 8),
        ("win:Int64", 9),
        ("win:UInt64", 10),
        ("win:Float", 11),
        ("win:Double", 12),
        ("win:Boolean", 13),
        ("win:Binary", 14),
        ("win:GUID", 15),
        ("win:Pointer", 16),
        ("win:FILETIME", 17),
        ("win:SYSTEMTIME", 18),
        ("win:SID", 19),
        ("win:HexInt32", 20),
        ("win:HexInt64", 21),
        ("win:CountedUnicodeString", 22),
        ("win:CountedAnsiString", 23),
    ];
    for (name, n) in ins {
        assert_eq!(InType::from_name(name), Some(InType(n)), "{name}");
        assert_eq!(InType(n).name(), Some(name));
    }
    let outs = [
        ("xs:string", 1),
        ("xs:dateTime", 2),
        ("xs:byte", 3),
        ("xs:unsignedByte", 4),
        ("xs:short", 5),
        ("xs:unsignedShort", 6),
        ("xs:int", 7),
        ("xs:unsignedInt", 8),
        ("xs:long", 9),
        ("xs:unsignedLong", 10),
        ("xs:float", 11),
        ("xs:double", 12),
        ("xs:boolean", 13),
        ("xs:GUID", 14),
        ("xs:hexBinary", 15),
        ("win:HexInt8", 16),
        ("win:HexInt16", 17),
        ("win:HexInt32", 18),
        ("win:HexInt64", 19),
        ("win:PID", 20),
        ("win:TID", 21),
        ("win:Port", 22),
        ("win:IPv4", 23),
        ("win:IPv6", 24),
        ("win:SocketAddress", 25),
        ("win:CIMDateTime", 26),
        ("win:ETWTIME", 27),
        ("win:Xml", 28),
        ("win:ErrorCode", 29),
        ("win:Win32Error", 30),
        ("win:NTSTATUS", 31),
        ("win:HResult", 32),
        ("win:DateTimeCultureInsensitive", 33),
        ("win:Json", 34),
        ("win:Utf8", 35),
        ("win:Pkcs7WithTypeInfo", 36),
        ("win:CodePointer", 37),
        ("win:DateTimeUtc", 38),
    ];
    for (name, n) in outs {
        assert_eq!(OutType::from_name(name), Some(OutType(n)), "{name}");
    }
    assert_eq!(InType::from_name("win:Nope"), None);
}

#[test]
fn events_are_found_by_id_and_version_only() {
    // rule: DEC-17
    let m = sample("demo-storage.man");
    let p = &m.providers[0];
    let v0 = p.event(1, 0).unwrap();
    let v1 = p.event(1, 1).unwrap();
    assert_eq!((v0.level, v1.level), (4, 5));
    assert!(p.event(1, 2).is_none());
    // Level, keywords and channel play no part: v1 differs in all three yet shares the template.
    assert_eq!(v0.template, v1.template);
    let err = m.decode_event(p.guid, 9, 0, &[], 8).unwrap_err();
    assert_eq!(
        err,
        Error::NoManifestEvent {
            provider: p.guid,
            id: 9,
            version: 0
        }
    );
    assert!(err.is_no_schema());
    assert_eq!(err.win32_code().0, 1168);
    // No template: no fields, whatever the payload.
    let e4 = p.event(4, 0).unwrap();
    assert_eq!(p.decode(e4, b"ignored", 8).unwrap(), Vec::<Field>::new());
}

#[test]
fn predefined_win_names_resolve_without_the_provider() {
    // rule: DEC-21
    let p = demo();
    let e = p.event(1, 0).unwrap();
    assert_eq!((e.level, e.task, e.opcode, e.channel), (4, 1, 1, 16));
    let e = p.event(1, 1).unwrap();
    assert_eq!((e.level, e.opcode, e.channel), (5, 11, 17)); // task-scoped opcode, explicit value
    let e = p.event(2, 0).unwrap();
    assert_eq!((e.level, e.task, e.opcode, e.channel), (16, 2, 10, 9)); // Application = 9
    let e = p.event(3, 0).unwrap();
    assert_eq!((e.level, e.task, e.opcode, e.channel), (3, 0, 0, 0));
    assert_eq!(p.level_name(2).as_deref(), Some("win:Error"));
    assert_eq!(p.opcode_name(0, 240).as_deref(), Some("win:Receive"));
    assert_eq!(p.channel_name(10).as_deref(), Some("Security"));
    assert_eq!(p.task_name(0).as_deref(), Some("win:None"));
}

#[test]
fn display_names_prefer_the_message() {
    // rule: DEC-25
    let p = demo();
    assert_eq!(p.level_name(16).as_deref(), Some("Chatty level"));
    assert_eq!(p.task_name(1).as_deref(), Some("I/O"));
    assert_eq!(p.task_name(2).as_deref(), Some("Mount"));
    assert_eq!(p.opcode_name(1, 11).as_deref(), Some("Queue"));
    assert_eq!(p.channel_name(16).as_deref(), Some("Operational"));
    assert_eq!(
        p.channel_name(17).as_deref(),
        Some("Etwsim-Demo-Storage/Analytic")
    );
}

#[test]
fn keyword_bits_are_named_by_the_writing_provider() {
    // rule: DEC-22
    // rule: DEC-23
    let p = demo();
    assert_eq!(p.event(1, 0).unwrap().keywords, 0x3);
    assert_eq!(p.event(2, 0).unwrap().keywords, 0x8 | 1 << 48);
    assert_eq!(
        p.keyword_names(0x3 | 1 << 48 | 1 << 54 | 1 << 40),
        [
            "Reads",
            "Local",
            "win:ResponseTime",
            "win:CorrelationHint",
            "0x10000000000"
        ]
    );
    // The same bit means something else in another provider.
    let kp = sample("kernel-process.man").providers.remove(0);
    assert_eq!(kp.keyword_names(0x10), ["WINEVENT_KEYWORD_PROCESS"]);
    assert_eq!(p.keyword_names(0x10), ["0x10"]);
}

#[test]
fn keyword_names_become_match_any_and_match_all() {
    // rule: FLT-04
    let p = demo();
    // "all reads" = MatchAny Read.
    let reads = p.keyword_filter(&["Read"], &[]).unwrap();
    assert_eq!((reads.match_any, reads.match_all), (0x1, 0));
    // "local reads" = MatchAll Read|Local.
    let local = p
        .keyword_filter(&["Read", "Local"], &["Read", "Local"])
        .unwrap();
    assert_eq!((local.match_any, local.match_all), (0x3, 0x3));
    let read = p.keyword_mask(&["Read"]).unwrap();
    let (l, r) = (p.keyword("Local").unwrap(), p.keyword("Remote").unwrap());
    assert_eq!((read, l, r), (0x1, 0x2, 0x4));
    assert!(reads.passes(read | l) && reads.passes(read | r) && reads.passes(read));
    assert!(!reads.passes(r) && !reads.passes(0x8));
    assert!(local.passes(read | l));
    assert!(!local.passes(read | r) && !local.passes(read) && !local.passes(l));
    // Keyword 0 bypasses keyword filtering.
    assert!(local.passes(0));
    let err = p.keyword_mask(&["Read", "Bogus"]).unwrap_err();
    assert!(err.to_string().contains("Bogus"), "{err}");
}

#[test]
fn io_event_decodes_and_renders_its_message() {
    // rule: DEC-24
    // rule: DEC-26
    // rule: DEC-27
    let p = demo();
    let e = p.event(1, 0).unwrap();
    let mut b = utf16z("C:\\data.bin");
    b.extend_from_slice(&4096u32.to_le_bytes());
    b.extend_from_slice(&0x1000u64.to_le_bytes());
    b.push(1); // Kind: Network
    b.extend_from_slice(&0x0Bu32.to_le_bytes()); // R|W + 0x8 left over
    b.extend_from_slice(&0xC000_0022u32.to_le_bytes());
    let fields = p.decode(e, &b, 8).unwrap();
    assert_eq!(find(&fields, "Size"), Some(&Value::U32(4096)));
    assert_eq!(find(&fields, "Kind"), Some(&Value::U8(1)));
    assert_eq!(
        p.format_message(e, &fields).unwrap(),
        "Read 4096 bytes of C:\\data.bin at 0x0000000000001000 (Network, R|W|0x8): 0xC0000022"
    );
    // A value with no map entry renders as its number; a bitMap with no bit set as hex.
    let t = p.template("IoTemplate").unwrap();
    let (Item::Data(kind), Item::Data(access)) = (&t.items[3], &t.items[4]) else {
        panic!()
    };
    assert_eq!(p.render(kind, &Value::U8(7)), "7");
    assert_eq!(p.render(access, &Value::U32(0)), "0x0");
    assert_eq!(p.render(access, &Value::U32(5)), "R|D");
}

#[test]
fn every_in_type_reads_its_bytes() {
    // rule: DEC-18
    // rule: DEC-20
    // rule: DEC-09
    let p = demo();
    let e = p.event(2, 0).unwrap();
    let sid: Sid = "S-1-5-21-1-2-3".parse().unwrap();
    let guid: Guid = "{11111111-2222-3333-4444-555555555555}".parse().unwrap();
    let st = SystemTime {
        year: 2026,
        month: 1,
        day_of_week: 4,
        day: 1,
        hour: 12,
        minute: 30,
        second: 5,
        milliseconds: 7,
    };
    let build = |pointer_size: usize| {
        let mut b = vec![0xFE, 200, b'x'];
        b.extend_from_slice(&(-300i16).to_le_bytes());
        b.extend_from_slice(&60000u16.to_le_bytes());
        b.extend_from_slice(&[0x01, 0xBB]); // port 443, network order
        b.extend_from_slice(&(-70000i32).to_le_bytes());
        b.extend_from_slice(&4242u32.to_le_bytes());
        b.extend_from_slice(&(-5i64).to_le_bytes());
        b.extend_from_slice(&u64::MAX.to_le_bytes());
        b.extend_from_slice(&1.5f32.to_le_bytes());
        b.extend_from_slice(&(-0.25f64).to_le_bytes());
        b.extend_from_slice(&7u32.to_le_bytes()); // BOOL: non-zero
        b.extend_from_slice(&[1, 2, 3]);
        b.extend_from_slice(&guid.to_bytes_le());
        b.extend_from_slice(&0x7FF0_1234u64.to_le_bytes()[..pointer_size]);
        b.extend_from_slice(&133_486_382_450_000_000i64.to_le_bytes());
        b.extend_from_slice(&st.to_bytes());
        sid.write_to(&mut b);
        b.extend_from_slice(&0xABu32.to_le_bytes());
        b.extend_from_slice(&0xCDu64.to_le_bytes());
        b.extend_from_slice(b"caf\xE9\0");
        b.extend_from_slice("café\0".as_bytes());
        b.extend("ab".encode_utf16().flat_map(u16::to_le_bytes));
        b.extend_from_slice(&[0; 4]); // Fixed: 4 chars, NUL padded
        b.extend_from_slice(&6u16.to_le_bytes());
        b.extend("xyz".encode_utf16().flat_map(u16::to_le_bytes));
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(b"hi");
        b.extend_from_slice(&[192, 168, 1, 20]);
        let mut v6 = [0u8; 16];
        v6[0] = 0x20;
        v6[1] = 0x01;
        v6[2] = 0x0d;
        v6[3] = 0xb8;
        v6[15] = 1;
        b.extend_from_slice(&v6);
        b.extend_from_slice(&5u32.to_le_bytes());
        b.extend("end".encode_utf16().flat_map(u16::to_le_bytes)); // last: may run to the end
        b
    };
    for pointer_size in [8usize, 4] {
        let fields = p
            .decode(e, &build(pointer_size), pointer_size as u8)
            .unwrap();
        let get = |n| find(&fields, n).unwrap_or_else(|| panic!("{n}")).clone();
        assert_eq!(get("Int8"), Value::I8(-2));
        assert_eq!(get("UInt8"), Value::U8(200));
        assert_eq!(get("Int16"), Value::I16(-300));
        assert_eq!(get("UInt16"), Value::U16(60000));
        assert_eq!(get("Port"), Value::U16(443));
        assert_eq!(get("Int32"), Value::I32(-70000));
        assert_eq!(get("Int64"), Value::I64(-5));
        assert_eq!(get("UInt64"), Value::U64(u64::MAX));
        assert_eq!(get("Float"), Value::F32(1.5));
        assert_eq!(get("Double"), Value::F64(-0.25));
        assert_eq!(get("Boolean"), Value::Bool32(7)); // as written: any non-zero value is true
        assert_eq!(get("Binary"), Value::Binary(vec![1, 2, 3]));
        assert_eq!(get("Guid"), Value::Guid(guid));
        assert_eq!(get("Pointer"), Value::Pointer(0x7FF0_1234));
        assert_eq!(get("FileTime"), Value::FileTime(133_486_382_450_000_000));
        assert_eq!(get("SystemTime"), Value::SystemTime(st));
        let mut sid_bytes = Vec::new();
        sid.write_to(&mut sid_bytes);
        assert_eq!(get("Sid"), Value::Sid(sid_bytes));
        assert_eq!(get("Sid").sid(), Some(sid.clone()));
        assert_eq!(get("HexInt32"), Value::U32(0xAB));
        assert_eq!(get("HexInt64"), Value::U64(0xCD));
        assert_eq!(get("Ansi"), Value::Ansi(b"caf\xE9".to_vec()));
        assert_eq!(get("Fixed"), Value::String("ab".into()));
        assert_eq!(get("Counted"), Value::String("xyz".into()));
        assert_eq!(get("CountedAnsi"), Value::Ansi(b"hi".to_vec()));
        assert_eq!(get("Text"), Value::String("end".into()));
        let msg = p.format_message(e, &fields).unwrap();
        assert_eq!(
            msg,
            "pid 4242 port 443 char x ip 192.168.1.20/2001:db8::1 err 0x5"
        );
        let t = p.template("EveryType").unwrap();
        let render = |i: usize| {
            let Item::Data(d) = &t.items[i] else { panic!() };
            p.render(d, &find(&fields, &d.name).unwrap().clone())
        };
        assert_eq!(render(21), "café"); // ANSI as Windows-1252 (DEC-12)
        assert_eq!(render(22), "café"); // win:Utf8
        assert_eq!(render(12), "true");
        assert_eq!(render(18), "S-1-5-21-1-2-3");
        assert_eq!(render(19), "0x000000AB");
    }
}

#[test]
fn counts_and_lengths_come_from_numbers_or_earlier_fields() {
    // rule: DEC-17
    let p = demo();
    let e = p.event(3, 0).unwrap();
    let mut b = 2u16.to_le_bytes().to_vec(); // Count
    b.extend_from_slice(&10u32.to_le_bytes());
    b.extend_from_slice(&20u32.to_le_bytes());
    b.extend_from_slice(&7u16.to_le_bytes());
    b.extend_from_slice(&8u16.to_le_bytes());
    b.push(3); // Len
    b.extend_from_slice(b"abc");
    for (start, len) in [(0u64, 512u32), (4096, 1024)] {
        b.extend_from_slice(&start.to_le_bytes());
        b.extend_from_slice(&len.to_le_bytes());
    }
    let fields = p.decode(e, &b, 8).unwrap();
    assert_eq!(
        find(&fields, "Ids"),
        Some(&Value::Array(vec![Value::U32(10), Value::U32(20)]))
    );
    assert_eq!(
        find(&fields, "Pair"),
        Some(&Value::Array(vec![Value::U16(7), Value::U16(8)]))
    );
    assert_eq!(find(&fields, "Blob"), Some(&Value::Binary(b"abc".to_vec())));
    let Some(Value::Array(ext)) = find(&fields, "Extents") else {
        panic!()
    };
    assert_eq!(
        ext[1],
        Value::Struct(vec![
            Field::new("Start", Value::U64(4096)),
            Field::new("Length", Value::U32(1024))
        ])
    );
    // "%1 ids%n%2%t%%done%0 hidden"
    assert_eq!(
        p.format_message(e, &fields).unwrap(),
        "2 ids\n[10, 20]\t%done"
    );
    // A payload that ends inside the second Ids element names it and its offset.
    let err = p.decode(e, &b[..8], 8).unwrap_err();
    assert_eq!(
        err,
        Error::Truncated {
            field: "Ids".into(),
            offset: 6,
            needed: 4,
            available: 2
        }
    );
}

#[test]
fn message_escapes() {
    // rule: DEC-26
    let args = ["one".to_owned(), "two".to_owned()];
    assert_eq!(format_message("%1 and %2!s!", &args), "one and two");
    assert_eq!(format_message("100%% %b%.%!%r%t", &args), "100%  .!\r\t");
    assert_eq!(format_message("a%nb%0c", &args), "a\nb");
    assert_eq!(format_message("%3 %%1", &args), "%3 %%1");
}

#[test]
fn errors_name_the_line_and_element() {
    // rule: DEC-20
    // rule: FLT-09
    // rule: FLT-03
    let wrap = |inner: &str| {
        format!(
            "<instrumentationManifest><instrumentation><events>\n<provider name=\"P\" guid=\"{{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}}\">\n{inner}\n</provider></events></instrumentation></instrumentationManifest>"
        )
    };
    // What cannot be used is left out, with one diagnostic naming its line and element.
    let one = |inner: &str| {
        let m = Manifest::parse(&wrap(inner)).unwrap_or_else(|e| panic!("{inner}: {e}"));
        let [d] = m.diagnostics() else {
            panic!("{inner}: {:?}", m.diagnostics())
        };
        (m.clone(), d.clone())
    };
    let (m, d) = one(
        "<templates><template tid=\"T\"><data name=\"B\" inType=\"win:Binary\"/></template></templates>",
    );
    assert_eq!(
        (d.line, d.element.as_str(), d.severity),
        (3, "data", Severity::Error)
    );
    assert!(
        d.message.contains("length") && d.message.contains("\"T\""),
        "{d}"
    );
    assert!(m.providers[0].templates.is_empty());
    let (m, d) = one("<keywords><keyword name=\"K\" mask=\"0x3\"/></keywords>");
    assert_eq!(
        (d.line, d.element.as_str(), d.severity),
        (3, "keyword", Severity::Error)
    );
    assert!(m.providers[0].keywords.is_empty());
    let (_, d) = one("<keywords><keyword name=\"K\" mask=\"0x1000000000000\"/></keywords>");
    assert_eq!(
        (d.element.as_str(), d.severity),
        ("keyword", Severity::Error)
    );
    let (m, d) = one("<levels><level name=\"L\" value=\"7\"/></levels>");
    assert_eq!((d.element.as_str(), d.severity), ("level", Severity::Error));
    assert!(m.providers[0].levels.is_empty());
    let (_, d) = one(
        "<templates><template tid=\"T\"><data name=\"X\" inType=\"win:Int99\"/></template></templates>",
    );
    assert!(d.message.contains("win:Int99"), "{d}");
    let (_, d) = one(
        "<templates><template tid=\"T\"><data name=\"X\" inType=\"win:UInt8\" count=\"N\"/></template></templates>",
    );
    assert!(d.message.contains("\"N\""), "{d}");
    // An event naming a template the manifest lacks stays known; its payload cannot be read.
    let (m, d) = one("<events><event value=\"1\" template=\"Missing\"/></events>");
    assert_eq!((d.element.as_str(), d.severity), ("event", Severity::Error));
    let p = &m.providers[0];
    let e = p.decode(p.event(1, 0).unwrap(), &[], 8).unwrap_err();
    assert!(
        matches!(&e, Error::NoTemplate { tid, .. } if tid == "Missing"),
        "{e}"
    );
    assert!(e.is_no_schema(), "{e}");
    // An undefined keyword leaves the manifest readable one way: a warning.
    let (_, d) = one("<events><event value=\"1\" keywords=\"Nope\"/></events>");
    assert!(
        d.message.contains("Nope") && d.severity == Severity::Warning,
        "{d}"
    );
    let (m, d) = one("<events><event value=\"x1\"/></events>");
    assert!(
        d.message.contains("value") && d.severity == Severity::Error,
        "{d}"
    );
    assert!(m.providers[0].events.is_empty());
    let (m, d) = one("<events><event value=\"1\" message=\"$(string.Gone)\"/></events>");
    assert!(
        d.message.contains("Gone") && d.severity == Severity::Warning,
        "{d}"
    );
    assert_eq!(m.providers[0].events[0].message, None);
    // Not XML at all: the parser's position.
    let e =
        Manifest::parse("<instrumentationManifest>\n<oops></instrumentationManifest>").unwrap_err();
    assert!(matches!(e, Error::Xml { line: 2, .. }), "{e}");
    let e = load_manifest(&[0xFF, 0xFE, 0x41]).unwrap_err();
    assert!(matches!(e, Error::Xml { .. }), "{e}");
}

#[test]
fn a_utf16_manifest_loads_and_uses_its_only_culture() {
    // rule: DEC-25
    let m = sample("utf16-bom.man");
    let p = &m.providers[0];
    let e = p.event(10, 1).unwrap();
    let fields = p.decode(e, &utf16z("Welt"), 8).unwrap();
    assert_eq!(p.format_message(e, &fields).unwrap(), "Grüße, Welt");
}

/// The fixture's Microsoft-Windows-Kernel-Process ProcessStart event decodes to the values
/// etl-parser reported for it.
#[test]
fn fixture_kernel_process_event_matches_the_expected_fields() {
    // rule: KRN-43
    // rule: DEC-17
    let Some(files) = shared_fixtures() else {
        eprintln!("shared fixtures not found; skipped");
        return;
    };
    let manifest = sample("kernel-process.man");
    let provider: Guid = "{22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}".parse().unwrap();
    let mut checked = 0;
    for path in files {
        let expected_path = path.with_extension("expected.jsonl");
        let Ok(expected) = std::fs::read_to_string(&expected_path) else {
            continue;
        };
        let wanted: Vec<&str> = expected
            .lines()
            .filter(|l| l.contains("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716"))
            .collect();
        let mut file = LogFile::open(&path).unwrap();
        let events: Vec<_> = file
            .records()
            .filter_map(|r| match r.unwrap() {
                Record::Event(e) if e.header.provider_id == provider => Some(e),
                _ => None,
            })
            .collect();
        assert_eq!(events.len(), wanted.len(), "{}", path.display());
        for (e, line) in events.iter().zip(wanted) {
            let d = e.header.descriptor;
            let (p, def, fields) = manifest
                .decode_event(provider, d.id, d.version, &e.user_data, 8)
                .unwrap();
            assert_eq!(
                (def.level, def.opcode, def.task, def.channel, def.keywords),
                (d.level.0, d.opcode.0, d.task.0, d.channel.0, d.keyword.0)
            );
            // etl-parser's text for each field: numbers in decimal, FILETIME as its integer.
            for f in &fields {
                let text = match &f.value {
                    Value::FileTime(t) => t.to_string(),
                    v => v.to_string(),
                };
                let needle = format!("\"{}\": {}", f.name, json_string(&text));
                assert!(line.contains(&needle), "{needle} not in {line}");
            }
            assert_eq!(fields.len(), 5);
            let msg = p.format_message(def, &fields).unwrap();
            assert_eq!(
                msg,
                "Process 6060 started at time 2024-01-02T03:04:05.0000000Z by parent 5151 \
                 running in session 1 with name \\Device\\sim\\app.exe."
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 1);
}

/// A string as JSON writes it (the fixture's text uses `\\` for a backslash).
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
