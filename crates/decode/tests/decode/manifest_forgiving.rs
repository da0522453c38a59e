//! The loader keeps whatever it can use (issue 30): an element it cannot use costs only what
//! depends on it, with an error diagnostic naming its line and element; names real manifests
//! spell differently are read with a warning; `<instrumentation>` is found under any root;
//! every winmeta in-type and out-type, counted strings, and variable counts and lengths
//! inside structs are read. Not-XML and not-a-manifest are still refused.

use etwsim_decode::Error;
use etwsim_decode::fields::{Value, find};
use etwsim_decode::manifest::{
    Diagnostic, InType, Item, MAX_DIAGNOSTICS, Manifest, OutType, Param, Severity,
};

const GUID: &str = "{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}";

/// A manifest whose provider (line 2) holds `inner` from line 3 on.
fn wrap(inner: &str) -> String {
    format!(
        "<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"P\" guid=\"{GUID}\">\n\
         {inner}\n\
         </provider></events></instrumentation></instrumentationManifest>"
    )
}

fn load(text: &str) -> Manifest {
    Manifest::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn with_severity(m: &Manifest, severity: Severity) -> Vec<&Diagnostic> {
    m.diagnostics()
        .iter()
        .filter(|d| d.severity == severity)
        .collect()
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn a_bad_data_element_costs_only_its_template() {
    // rule: DEC-16
    // rule: DEC-17
    let m = load(&wrap(
        "<templates>\n\
         <template tid=\"Good\"><data name=\"A\" inType=\"win:UInt32\"/></template>\n\
         <template tid=\"Bad\"><data name=\"A\" inType=\"win:UInt32\"/>\n\
         <data name=\"B\" inType=\"win:Int99\"/></template>\n\
         </templates>\n\
         <events><event value=\"1\" template=\"Good\" symbol=\"Fine\"/>\n\
         <event value=\"2\" template=\"Bad\" symbol=\"Broken\" level=\"win:Error\"/></events>",
    ));
    let [d] = m.diagnostics() else {
        panic!("{:?}", m.diagnostics())
    };
    assert_eq!(
        (d.line, d.element.as_str(), d.severity),
        (6, "data", Severity::Error)
    );
    assert!(
        d.message.contains("\"win:Int99\"") && d.message.contains("template \"Bad\""),
        "{d}"
    );
    let p = &m.providers[0];
    assert_eq!(p.templates.len(), 1);
    let fields = p
        .decode(p.event(1, 0).unwrap(), &7u32.to_le_bytes(), 8)
        .unwrap();
    assert_eq!(fields[0].value, Value::U32(7));
    // The event whose template was left out is still known by its id, name and level.
    let broken = p.event(2, 0).unwrap();
    assert_eq!(
        (broken.symbol.as_deref(), broken.level),
        (Some("Broken"), 2)
    );
    let err = p.decode(broken, &[0; 8], 8).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("\"Bad\"") && text.contains("6: <data>") && text.contains("win:Int99"),
        "{text}"
    );
}

#[test]
fn bad_levels_keywords_maps_channels_and_events_cost_only_themselves() {
    // rule: DEC-16
    // rule: DEC-23
    // rule: DEC-24
    let m = load(&wrap(
        "<levels><level name=\"Low\" value=\"3\"/><level name=\"Chatty\" value=\"20\"/></levels>\n\
         <keywords><keyword name=\"Two\" mask=\"0x3\"/><keyword name=\"Read\" mask=\"0x1\"/></keywords>\n\
         <maps><valueMap><map value=\"1\" message=\"one\"/></valueMap>\n\
         <valueMap name=\"M\"><map value=\"x\" message=\"bad\"/><map value=\"2\" message=\"two\"/></valueMap></maps>\n\
         <channels><importChannel name=\"Nowhere\" chid=\"n\"/><channel name=\"P/Debug\" chid=\"d\" type=\"Debug\"/></channels>\n\
         <events><event value=\"oops\"/><event value=\"1\" keywords=\"Read Two\" level=\"Chatty\" channel=\"d\"/></events>",
    ));
    let mut errors: Vec<(u32, &str)> = with_severity(&m, Severity::Error)
        .iter()
        .map(|d| (d.line, d.element.as_str()))
        .collect();
    errors.sort();
    assert_eq!(
        errors,
        [
            (3, "level"),
            (4, "keyword"),
            (5, "valueMap"),
            (6, "map"),
            (7, "importChannel"),
            (8, "event"),
        ],
        "{:?}",
        m.diagnostics()
    );
    let p = &m.providers[0];
    assert_eq!(p.levels.len(), 1);
    assert_eq!(p.keywords.len(), 1);
    assert_eq!(p.map("M").unwrap().entries, [(2, "two".to_owned())]);
    assert_eq!(p.channels.len(), 1);
    assert_eq!(p.events.len(), 1);
    // The event keeps what it could resolve; the left-out keyword is a warning on it.
    let e = &p.events[0];
    assert_eq!((e.keywords, e.level, e.channel), (0x1, 20, 16));
    let warnings = with_severity(&m, Severity::Warning);
    assert!(
        warnings
            .iter()
            .any(|d| d.line == 8 && d.message.contains("\"Two\"")),
        "{warnings:?}"
    );
}

#[test]
fn a_provider_without_a_guid_is_left_out_and_the_others_load() {
    // rule: DEC-16
    let text = format!(
        "<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"NoGuid\" guid=\"not-a-guid\"/>\n\
         <provider name=\"P\" guid=\"{GUID}\"/>\n\
         </events></instrumentation></instrumentationManifest>"
    );
    let m = load(&text);
    assert_eq!(m.providers.len(), 1);
    let [d] = m.diagnostics() else { panic!() };
    assert_eq!(
        (d.line, d.element.as_str(), d.severity),
        (2, "provider", Severity::Error)
    );
    assert!(d.message.contains("not-a-guid"), "{d}");
}

#[test]
fn a_ninth_channel_is_left_out() {
    // rule: EVT-25
    // rule: DEC-16
    let channels: String = (0..9)
        .map(|i| format!("<channel name=\"P/C{i}\" chid=\"c{i}\" type=\"Debug\"/>"))
        .collect();
    let m = load(&wrap(&format!("<channels>{channels}</channels>")));
    assert_eq!(m.providers[0].channels.len(), 8);
    let [d] = m.diagnostics() else { panic!() };
    assert_eq!(
        (d.element.as_str(), d.severity),
        ("channel", Severity::Error)
    );
    assert!(d.message.contains("at most 8"), "{d}");
}

#[test]
fn instrumentation_is_found_under_an_assembly_root() {
    // rule: DEC-16
    // A Windows component manifest: the instrumentation sits inside <assembly>, with the
    // events namespace declared on <events>.
    let text = format!(
        "<?xml version='1.0' encoding='utf-8' standalone='yes'?>\n\
         <assembly xmlns=\"urn:schemas-microsoft-com:asm.v3\" manifestVersion=\"1.0\">\n\
         <assemblyIdentity name=\"Demo-Component\" version=\"10.0.0.0\"/>\n\
         <instrumentation xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">\n\
         <events xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n\
         <provider name=\"Demo-Component\" guid=\"{GUID}\" message=\"$(string.P)\">\n\
         <keywords><keyword name=\"A\" mask=\"0x100\"/></keywords>\n\
         <keywords><keyword name=\"B\" mask=\"0x200\"/></keywords>\n\
         <templates><template tid=\"T\"><data name=\"Where\" inType=\"win:Pointer\"/></template></templates>\n\
         <events><event value=\"1000\" keywords=\"A B\" template=\"T\"/></events>\n\
         </provider></events></instrumentation>\n\
         <localization><resources culture=\"en-US\"><stringTable>\n\
         <string id=\"P\" value=\"Demo component\"/></stringTable></resources></localization>\n\
         </assembly>"
    );
    let m = load(&text);
    assert_eq!(m.diagnostics(), &[]);
    let p = &m.providers[0];
    assert_eq!(p.message.as_deref(), Some("Demo component"));
    let e = p.event(1000, 0).unwrap();
    assert_eq!(e.keywords, 0x300);
    let fields = p.decode(e, &0x1000u32.to_le_bytes(), 4).unwrap();
    assert_eq!(fields[0].value, Value::Pointer(0x1000));
}

#[test]
fn a_document_without_instrumentation_is_refused_and_one_without_events_has_no_providers() {
    // rule: DEC-16
    let err = Manifest::parse("<doc>\n<assembly><name>x</name></assembly></doc>").unwrap_err();
    let Error::Manifest {
        line,
        element,
        message,
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((*line, element.as_str()), (1, "doc"));
    assert!(message.contains("not an instrumentation manifest"), "{err}");
    // A performance-counter manifest: instrumentation, no events.
    let m = load(
        "<instrumentationManifest><instrumentation>\n<counters><provider providerGuid=\"{x}\"/>\
         </counters></instrumentation></instrumentationManifest>",
    );
    assert!(m.providers.is_empty());
    let [d] = m.diagnostics() else { panic!() };
    assert_eq!(d.severity, Severity::Warning);
    assert!(d.message.contains("no <events>"), "{d}");
    // Text that is not XML is still refused with the parser's position.
    let err = Manifest::parse("<instrumentationManifest>\n<a b=c/>").unwrap_err();
    assert!(matches!(err, Error::Xml { line: 2, .. }), "{err}");
}

#[test]
fn every_winmeta_in_type_and_out_type_name_loads() {
    // rule: DEC-18
    // rule: DEC-19
    let in_types = [
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
        ("win:GUID", 15),
        ("win:Pointer", 16),
        ("win:FILETIME", 17),
        ("win:SYSTEMTIME", 18),
        ("win:SID", 19),
        ("win:HexInt32", 20),
        ("win:HexInt64", 21),
        ("win:CountedUnicodeString", 22),
        ("win:CountedString", 22),
        ("win:CountedAnsiString", 23),
        ("win:CountedBinary", 25),
    ];
    let out_types = [
        ("xs:string", 1),
        ("xs:dateTime", 2),
        ("xs:datetime", 2),
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
        ("xs:HexInt8", 16),
        ("win:HexInt16", 17),
        ("xs:HexInt16", 17),
        ("win:HexInt32", 18),
        ("xs:HexInt32", 18),
        ("win:HexInt64", 19),
        ("xs:HexInt64", 19),
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
    let data: String = in_types
        .iter()
        .enumerate()
        .map(|(i, (t, _))| format!("<data name=\"i{i}\" inType=\"{t}\"/>"))
        .chain(out_types.iter().enumerate().map(|(i, (t, _))| {
            format!("<data name=\"o{i}\" inType=\"win:Binary\" length=\"4\" outType=\"{t}\"/>")
        }))
        .collect();
    let m = load(&wrap(&format!(
        "<templates><template tid=\"T\">{data}</template></templates>"
    )));
    assert_eq!(m.diagnostics(), &[], "each name is one of its own");
    let items = &m.providers[0].templates[0].items;
    for ((name, number), item) in in_types.iter().zip(items) {
        let Item::Data(d) = item else { panic!() };
        assert_eq!(d.in_type, InType(*number), "{name}");
        assert_eq!(InType::from_name(name), Some(InType(*number)), "{name}");
    }
    for ((name, number), item) in out_types.iter().zip(&items[in_types.len()..]) {
        let Item::Data(d) = item else { panic!() };
        assert_eq!(d.out_type, Some(OutType(*number)), "{name}");
    }
}

#[test]
fn counted_strings_decode_by_their_byte_count() {
    // rule: DEC-18
    // rule: DEC-09
    let m = load(&wrap(
        "<templates><template tid=\"T\">\
         <data name=\"U\" inType=\"win:CountedUnicodeString\"/>\
         <data name=\"S\" inType=\"win:CountedString\" outType=\"win:Xml\"/>\
         <data name=\"A\" inType=\"win:CountedAnsiString\" outType=\"win:Utf8\"/>\
         <data name=\"After\" inType=\"win:UInt8\"/>\
         </template></templates><events><event value=\"1\" template=\"T\"/></events>",
    ));
    let p = &m.providers[0];
    let mut payload = Vec::new();
    for text in ["héllo", "<a/>"] {
        let units: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        payload.extend((units.len() as u16).to_le_bytes());
        payload.extend(units);
    }
    payload.extend(4u16.to_le_bytes());
    payload.extend("ü!".as_bytes()); // UTF-8: 3 bytes, then one more
    payload.extend(b"?");
    payload.push(9);
    let fields = p.decode(p.event(1, 0).unwrap(), &payload, 8).unwrap();
    assert_eq!(find(&fields, "U"), Some(&Value::String("héllo".into())));
    assert_eq!(find(&fields, "S"), Some(&Value::String("<a/>".into())));
    let Item::Data(a) = &p.templates[0].items[2] else {
        panic!()
    };
    assert_eq!(p.render(a, find(&fields, "A").unwrap()), "ü!?");
    assert_eq!(find(&fields, "After"), Some(&Value::U8(9)));
    // An odd byte count cannot be UTF-16; a count past the payload is cut short: errors.
    let err = p
        .decode(p.event(1, 0).unwrap(), &[3, 0, 0x41, 0, 0x42], 8)
        .unwrap_err();
    assert!(err.to_string().contains('U'), "{err}");
    let err = p
        .decode(p.event(1, 0).unwrap(), &[0xFE, 0xFF, 0x41], 8)
        .unwrap_err();
    assert!(matches!(err, Error::Truncated { .. }), "{err}");
}

#[test]
fn struct_members_take_counts_and_lengths_from_earlier_members_or_fields() {
    // rule: DEC-17
    let m = load(&wrap(
        "<templates><template tid=\"T\">\n\
         <data name=\"N\" inType=\"win:UInt16\"/>\n\
         <data name=\"Width\" inType=\"win:UInt8\"/>\n\
         <struct name=\"Entries\" count=\"N\">\n\
         <data name=\"Len\" inType=\"win:UInt16\"/>\n\
         <data name=\"Name\" inType=\"win:UnicodeString\" length=\"Len\"/>\n\
         <data name=\"Blob\" inType=\"win:Binary\" length=\"Width\"/>\n\
         <data name=\"K\" inType=\"win:UInt8\"/>\n\
         <data name=\"Values\" inType=\"win:UInt32\" count=\"K\"/>\n\
         </struct></template></templates>\n\
         <events><event value=\"1\" template=\"T\"/></events>",
    ));
    assert_eq!(m.diagnostics(), &[]);
    let p = &m.providers[0];
    let Item::Struct(s) = &p.templates[0].items[2] else {
        panic!()
    };
    assert_eq!(s.members[1].length, Some(Param::Field("Len".into())));
    let mut payload = vec![2, 0, 3]; // N = 2, Width = 3
    for (name, k) in [("ab", 1u8), ("xyz", 2)] {
        payload.extend((name.len() as u16).to_le_bytes());
        payload.extend(name.encode_utf16().flat_map(u16::to_le_bytes));
        payload.extend([0xB0, 0xB1, 0xB2]);
        payload.push(k);
        for v in 0..k {
            payload.extend(u32::from(v + 10).to_le_bytes());
        }
    }
    let fields = p.decode(p.event(1, 0).unwrap(), &payload, 8).unwrap();
    let Some(Value::Array(entries)) = find(&fields, "Entries") else {
        panic!("{fields:?}")
    };
    let Value::Struct(second) = &entries[1] else {
        panic!()
    };
    assert_eq!(find(second, "Name"), Some(&Value::String("xyz".into())));
    assert_eq!(
        find(second, "Blob"),
        Some(&Value::Binary(vec![0xB0, 0xB1, 0xB2]))
    );
    assert_eq!(
        find(second, "Values"),
        Some(&Value::Array(vec![Value::U32(10), Value::U32(11)]))
    );
    // A member count that no earlier member or field gives costs the template.
    let m = load(&wrap(
        "<templates><template tid=\"T\"><struct name=\"S\">\n\
         <data name=\"Values\" inType=\"win:UInt32\" count=\"Later\"/>\n\
         <data name=\"Later\" inType=\"win:UInt8\"/></struct></template></templates>",
    ));
    let [d] = m.diagnostics() else { panic!() };
    assert_eq!(
        (d.line, d.element.as_str(), d.severity),
        (4, "data", Severity::Error)
    );
    assert!(d.message.contains("\"Later\""), "{d}");
    // So does a struct inside a struct, which etwsim does not read.
    let m = load(&wrap(
        "<templates><template tid=\"T\"><struct name=\"S\">\n\
         <struct name=\"Inner\"><data name=\"X\" inType=\"win:UInt8\"/></struct>\n\
         </struct></template></templates>",
    ));
    let [d] = m.diagnostics() else { panic!() };
    assert_eq!((d.line, d.element.as_str()), (4, "struct"));
}

#[test]
fn a_binary_without_length_is_sixteen_bytes_as_ipv6_and_refused_otherwise() {
    // rule: DEC-20
    // rule: DEC-27
    let m = load(&wrap(
        "<templates><template tid=\"T\">\
         <data name=\"Addr\" inType=\"win:Binary\" outType=\"win:IPv6\"/>\
         <data name=\"Port\" inType=\"win:UInt16\" outType=\"win:Port\"/>\
         </template></templates><events><event value=\"1\" template=\"T\"/></events>",
    ));
    assert_eq!(m.diagnostics(), &[]);
    let p = &m.providers[0];
    let mut payload = vec![0; 15];
    payload.push(1); // ::1
    payload.extend(443u16.to_be_bytes());
    let fields = p.decode(p.event(1, 0).unwrap(), &payload, 8).unwrap();
    let Item::Data(addr) = &p.templates[0].items[0] else {
        panic!()
    };
    assert_eq!(p.render(addr, &fields[0].value), "::1");
    assert_eq!(fields[1].value, Value::U16(443));
}

#[test]
fn names_spelled_as_real_manifests_spell_them_are_read_with_one_warning_per_provider() {
    // rule: DEC-21
    // rule: DEC-18
    let m = load(&wrap(
        "<templates><template tid=\"T\">\n\
         <data name=\"A\" inType=\"UInt32\"/>\n\
         <data name=\"B\" inType=\"win:Uint32\" outType=\"xs:UnsignedInt\"/>\n\
         <data name=\"C\" inType=\"UInt32\"/>\n\
         </template></templates>\n\
         <events><event value=\"1\" level=\"win:Always\" template=\"T\"/>\n\
         <event value=\"2\" level=\"win:Always\" opcode=\"Start\"/>\n\
         <event value=\"3\" level=\"Informational\" keywords=\"win:auditSuccess\"/></events>",
    ));
    assert!(with_severity(&m, Severity::Error).is_empty());
    let said: Vec<(u32, String)> = m
        .diagnostics()
        .iter()
        .map(|d| (d.line, d.message.clone()))
        .collect();
    let expect = [
        (4, "inType \"UInt32\" is read as win:UInt32"),
        (5, "inType \"win:Uint32\" is read as win:UInt32"),
        (5, "outType \"xs:UnsignedInt\" is read as xs:unsignedInt"),
        (8, "level \"win:Always\" is read as win:LogAlways"),
        (9, "opcode \"Start\" is read as win:Start"),
        (10, "level \"Informational\" is read as win:Informational"),
        (
            10,
            "keyword \"win:auditSuccess\" is read as win:AuditSuccess",
        ),
    ];
    assert_eq!(said.len(), expect.len(), "{said:?}");
    for ((line, text), (want_line, want)) in said.iter().zip(expect) {
        assert_eq!(*line, want_line, "{text}");
        assert!(text.starts_with(want), "{text} does not start with {want}");
    }
    let p = &m.providers[0];
    let levels: Vec<u8> = p.events.iter().map(|e| e.level).collect();
    assert_eq!(levels, [0, 0, 4]);
    assert_eq!((p.events[1].opcode, p.events[2].keywords), (1, 1 << 53));
    let Item::Data(b) = &p.templates[0].items[1] else {
        panic!()
    };
    assert_eq!(
        (b.in_type, b.out_type),
        (InType::UINT32, Some(OutType::UNSIGNED_INT))
    );
}

#[test]
fn an_unknown_out_type_shows_the_field_by_its_in_type() {
    // rule: DEC-19
    let m = load(&wrap(
        "<templates><template tid=\"T\">\
         <data name=\"A\" inType=\"win:UInt32\" outType=\"win:Fancy\"/>\
         </template></templates><events><event value=\"1\" template=\"T\"/></events>",
    ));
    let [d] = m.diagnostics() else { panic!() };
    assert_eq!(
        (d.element.as_str(), d.severity),
        ("data", Severity::Warning)
    );
    assert!(d.message.contains("win:Fancy"), "{d}");
    let p = &m.providers[0];
    let Item::Data(a) = &p.templates[0].items[0] else {
        panic!()
    };
    assert_eq!(a.out_type, None);
    let fields = p
        .decode(p.event(1, 0).unwrap(), &42u32.to_le_bytes(), 8)
        .unwrap();
    assert_eq!(p.render(a, &fields[0].value), "42");
}

#[test]
fn a_length_named_with_the_spaces_a_dump_kept_is_read_as_the_field() {
    // rule: DEC-17
    let m = load(&wrap(
        "<templates><template tid=\"T\">\n\
         <data name=\"HashSize\" inType=\"win:UInt32\"/>\n\
         <data name=\"Hash\" inType=\"win:Binary\" length=\"Hash Size\"/>\n\
         </template></templates><events><event value=\"1\" template=\"T\"/></events>",
    ));
    let [d] = m.diagnostics() else { panic!() };
    assert_eq!((d.line, d.severity), (5, Severity::Warning));
    let p = &m.providers[0];
    let Item::Data(h) = &p.templates[0].items[1] else {
        panic!()
    };
    assert_eq!(h.length, Some(Param::Field("HashSize".into())));
    let fields = p
        .decode(p.event(1, 0).unwrap(), &[2, 0, 0, 0, 0xAA, 0xBB], 8)
        .unwrap();
    assert_eq!(fields[1].value, Value::Binary(vec![0xAA, 0xBB]));
}

#[test]
fn diagnostics_are_bounded_however_many_elements_are_bad() {
    // rule: DEC-16
    let events: String = (0..MAX_DIAGNOSTICS + 500)
        .map(|i| format!("<event value=\"{i}\" level=\"win:Nope{i}\"/>"))
        .collect();
    let m = load(&wrap(&format!("<events>{events}</events>")));
    assert_eq!(m.providers[0].events.len(), MAX_DIAGNOSTICS + 500);
    assert_eq!(m.diagnostics().len(), MAX_DIAGNOSTICS + 1);
    let last = m.diagnostics().last().unwrap();
    assert!(last.message.starts_with("500 more diagnostics"), "{last}");
    // A long name is quoted cut short, so a diagnostic stays small.
    let long = "x".repeat(100_000);
    let m = load(&wrap(&format!(
        "<events><event value=\"1\" level=\"{long}\"/></events>"
    )));
    assert!(m.diagnostics()[0].message.len() < 300);
}

#[test]
fn a_last_utf16_string_may_lack_its_terminator() {
    // rule: DEC-18
    let m = load(&wrap(
        "<templates><template tid=\"T\"><data name=\"S\" inType=\"win:UnicodeString\"/>\
         </template></templates><events><event value=\"1\" template=\"T\"/></events>",
    ));
    let p = &m.providers[0];
    let e = p.event(1, 0).unwrap();
    let fields = p.decode(e, &utf16z("done"), 8).unwrap();
    assert_eq!(fields[0].value, Value::String("done".into()));
    let fields = p.decode(e, &utf16z("done")[..8], 8).unwrap();
    assert_eq!(fields[0].value, Value::String("done".into()));
}
