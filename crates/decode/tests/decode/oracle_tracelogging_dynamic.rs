//! The encoder against Microsoft's `tracelogging_dynamic::EventBuilder`: for the same event,
//! the same metadata blob, payload and descriptor, byte for byte, over every field kind the
//! crate can express — and the decoder reads the oracle's bytes back to the same values.
//!
//! The crate keeps its buffers private; its public `Debug` shows them (`meta: [..], data:
//! [..]`), and its `write` (a no-op off Windows) fills in the metadata's Size, so that is
//! how the oracle's bytes are read here.

use etwsim_decode::tracelogging::{
    Arity, EventBuilder, FieldDef, InType, OutType, SystemTime, Value, decode_event,
};
use etwsim_types::{Channel, Guid, Keyword, Level, Opcode, Task};
use tracelogging_dynamic as tld;

/// The oracle's (metadata, payload, debug text of its descriptor).
fn oracle(b: &mut tld::EventBuilder) -> (Vec<u8>, Vec<u8>, String) {
    let provider = tld::Provider::new("Oracle.Provider", &tld::Provider::options());
    b.write(&provider, None, None); // fills the metadata Size; nothing is sent off Windows
    let text = format!("{b:?}");
    let bytes = |key: &str| -> Vec<u8> {
        let start = text.find(key).expect("the Debug output names the buffer") + key.len();
        let end = start + text[start..].find(']').expect("a closing bracket");
        text[start..end]
            .split(", ")
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<u8>().expect("a byte"))
            .collect()
    };
    let meta = bytes("meta: [");
    let data = bytes("data: [");
    let desc = text[text.find("descriptor:").expect("a descriptor")..].to_string();
    (meta, data, desc)
}

/// Builds ours, compares with the oracle's bytes, and checks both decode to the same event.
#[track_caller]
fn same(ours: &mut EventBuilder, theirs: &mut tld::EventBuilder) {
    let ours = ours.build().expect("our builder accepts the event");
    let (meta, data, _) = oracle(theirs);
    assert_eq!(ours.metadata, meta, "metadata differs");
    assert_eq!(ours.payload, data, "payload differs");
    let a = decode_event(&ours.metadata, &ours.payload).expect("ours decodes");
    let b = decode_event(&meta, &data).expect("the oracle's bytes decode");
    assert_eq!(a, b);
    assert_eq!(a.trailing_bytes, 0);
}

fn tld_guid(g: Guid) -> tld::Guid {
    tld::Guid::from_bytes_le(&g.to_bytes_le())
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

const D: tld::OutType = tld::OutType::Default;

#[test]
fn integer_scalars_with_out_types_and_field_tags() {
    // rule: DEC-05
    // rule: DEC-07
    // rule: DEC-09
    let mut ours = EventBuilder::new("Integers");
    ours.level(Level::INFORMATION)
        .keyword(Keyword(0x21))
        .value("i8", -5i8)
        .value("u8", 200u8)
        .out_type(OutType::BOOLEAN)
        .value("i16", -300i16)
        .value("u16", 0x5000u16)
        .out_type(OutType::PORT)
        .value("i32", -70000i32)
        .field_tag(0x0123_4567)
        .value("u32", 0xC0A8_0001u32)
        .out_type(OutType::IPV4)
        .field_tag(1)
        .value("i64", i64::MIN)
        .value("u64", u64::MAX)
        .out_type(OutType::HEX)
        .hex32("hex32", 0xDEAD_BEEF)
        .hex64("hex64", 0x0123_4567_89AB_CDEF)
        .pointer("ptr", 0x7FF6_0000_1000)
        .hresult("hr", -2147024891)
        .win32_error("err", 5)
        .ntstatus("st", 0xC000_0034u32 as i32);
    let mut theirs = tld::EventBuilder::new();
    theirs
        .reset("Integers", tld::Level::Informational, 0x21, 0)
        .add_i8("i8", -5, D, 0)
        .add_u8("u8", 200, tld::OutType::Boolean, 0)
        .add_i16("i16", -300, D, 0)
        .add_u16("u16", 0x5000, tld::OutType::Port, 0)
        .add_i32("i32", -70000, D, 0x0123_4567)
        .add_u32("u32", 0xC0A8_0001, tld::OutType::IPv4, 1)
        .add_i64("i64", i64::MIN, D, 0)
        .add_u64("u64", u64::MAX, tld::OutType::Hex, 0)
        .add_hex32("hex32", 0xDEAD_BEEF, D, 0)
        .add_hex64("hex64", 0x0123_4567_89AB_CDEF, D, 0)
        .add_hexsize("ptr", 0x7FF6_0000_1000, D, 0)
        .add_i32("hr", -2147024891, tld::OutType::HResult, 0)
        .add_u32("err", 5, tld::OutType::Win32Error, 0)
        .add_i32("st", 0xC000_0034u32 as i32, tld::OutType::NtStatus, 0);
    same(&mut ours, &mut theirs);
}

#[test]
fn floats_bools_guids_times_and_sids() {
    // rule: DEC-09
    let g: Guid = "{b3864c38-4273-58c5-545b-8b3608343471}".parse().unwrap();
    let st = [2026u16, 1, 4, 1, 13, 5, 9, 7];
    let sid = "S-1-5-21-1004336348-1177238915-682003330-512"
        .parse::<etwsim_types::Sid>()
        .unwrap()
        .to_bytes();
    let mut ours = EventBuilder::new("Misc");
    ours.value("f32", 1.5f32)
        .value("f64", -2.25e300f64)
        .bool32("yes", true)
        .bool32("no", false)
        .value("guid", g)
        .filetime("ft", 134_116_992_000_000_000)
        .systemtime("st", SystemTime::from_words(st))
        .sid("sid", &sid);
    let mut theirs = tld::EventBuilder::new();
    theirs
        .reset("Misc", tld::Level::Verbose, 0, 0)
        .add_f32("f32", 1.5, D, 0)
        .add_f64("f64", -2.25e300, D, 0)
        .add_bool32("yes", 1, D, 0)
        .add_bool32("no", 0, D, 0)
        .add_guid("guid", &tld_guid(g), D, 0)
        .add_filetime("ft", 134_116_992_000_000_000, D, 0)
        .add_systemtime("st", &st, D, 0)
        .add_sid("sid", &sid, D, 0);
    same(&mut ours, &mut theirs);
}

#[test]
fn strings_and_binary_counted_and_terminated() {
    // rule: DEC-09
    // rule: DEC-12
    let mut ours = EventBuilder::new("Strings");
    ours.str16("str16", "héllo wörld ✓")
        .cstr16("cstr16", "zero-terminated €")
        .str16("empty16", "")
        .str8("str8", b"plain \xE9 1252")
        .utf8("utf8", "ünïcödé")
        .cstr8("cstr8", b"C string")
        .cstr8("json", br#"{"a":1}"#)
        .out_type(OutType::JSON)
        .binary("bin", &[0, 1, 2, 0xFF])
        .counted_binary("binc", &[9; 40])
        .binary(
            "ipv6",
            &[0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        )
        .out_type(OutType::IPV6);
    let mut theirs = tld::EventBuilder::new();
    theirs
        .reset("Strings", tld::Level::Verbose, 0, 0)
        .add_str16("str16", utf16("héllo wörld ✓"), D, 0)
        .add_cstr16("cstr16", utf16("zero-terminated €"), D, 0)
        .add_str16("empty16", utf16(""), D, 0)
        .add_str8("str8", b"plain \xE9 1252", D, 0)
        .add_str8("utf8", "ünïcödé".as_bytes(), tld::OutType::Utf8, 0)
        .add_cstr8("cstr8", b"C string", D, 0)
        .add_cstr8("json", br#"{"a":1}"#, tld::OutType::Json, 0)
        .add_binary("bin", [0, 1, 2, 0xFF], D, 0)
        .add_binaryc("binc", [9; 40], D, 0)
        .add_binary(
            "ipv6",
            [0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
            tld::OutType::IPv6,
            0,
        );
    same(&mut ours, &mut theirs);
}

#[test]
fn variable_count_arrays_of_every_element_kind() {
    // rule: DEC-13
    let g1 = Guid::from_provider_name("a");
    let g2 = Guid::from_provider_name("b");
    let st = [2026u16, 1, 4, 1, 13, 5, 9, 7];
    let sid1 = "S-1-5-18".parse::<etwsim_types::Sid>().unwrap().to_bytes();
    let sid2 = "S-1-5-21-1-2-3"
        .parse::<etwsim_types::Sid>()
        .unwrap()
        .to_bytes();
    let mut ours = EventBuilder::new("Arrays");
    ours.array("i8s", [-1i8, 2])
        .array("u8s", [1u8, 2, 3])
        .array("i16s", [-1i16])
        .array("u16s", Vec::<u16>::new())
        .array("i32s", [1i32, -2, 3])
        .array("u32s", [7u32])
        .out_type(OutType::HEX)
        .array("i64s", [i64::MAX])
        .array("u64s", [0u64, 1])
        .array("f32s", [0.5f32, -0.25])
        .array("f64s", [1e-300f64])
        .array("bools", [true, false, true])
        .array("guids", [g1, g2])
        .filetime_array("fts", [1, 2, 3])
        .array("sts", [SystemTime::from_words(st)])
        .sid_array("sids", [sid1.as_slice(), sid2.as_slice()])
        .hex32_array("h32", [1, 2])
        .hex64_array("h64", [3])
        .str16_array("s16", ["a", "", "ßü"])
        .cstr16_array("c16", ["x", "yz"])
        .str8_array("s8", [&b"ab"[..], b""])
        .cstr8_array("c8", [&b"q"[..], b"rs"])
        .counted_binary_array("bins", [&[1u8, 2][..], &[]]);
    let mut theirs = tld::EventBuilder::new();
    theirs
        .reset("Arrays", tld::Level::Verbose, 0, 0)
        .add_i8_sequence("i8s", &[-1, 2], D, 0)
        .add_u8_sequence("u8s", &[1, 2, 3], D, 0)
        .add_i16_sequence("i16s", &[-1], D, 0)
        .add_u16_sequence("u16s", &[], D, 0)
        .add_i32_sequence("i32s", &[1, -2, 3], D, 0)
        .add_u32_sequence("u32s", &[7], tld::OutType::Hex, 0)
        .add_i64_sequence("i64s", &[i64::MAX], D, 0)
        .add_u64_sequence("u64s", &[0, 1], D, 0)
        .add_f32_sequence("f32s", &[0.5, -0.25], D, 0)
        .add_f64_sequence("f64s", &[1e-300], D, 0)
        .add_bool32_sequence("bools", &[1, 0, 1], D, 0)
        .add_guid_sequence("guids", &[tld_guid(g1), tld_guid(g2)], D, 0)
        .add_filetime_sequence("fts", &[1, 2, 3], D, 0)
        .add_systemtime_sequence("sts", &[st], D, 0)
        .add_sid_sequence("sids", [sid1.as_slice(), sid2.as_slice()], D, 0)
        .add_hex32_sequence("h32", &[1, 2], D, 0)
        .add_hex64_sequence("h64", &[3], D, 0)
        .add_str16_sequence("s16", [utf16("a"), utf16(""), utf16("ßü")], D, 0)
        .add_cstr16_sequence("c16", [utf16("x"), utf16("yz")], D, 0)
        .add_str8_sequence("s8", [&b"ab"[..], b""], D, 0)
        .add_cstr8_sequence("c8", [&b"q"[..], b"rs"], D, 0)
        .add_binaryc_sequence("bins", [&[1u8, 2][..], &[]], D, 0);
    same(&mut ours, &mut theirs);
}

#[test]
fn nested_structs_and_tags_in_every_form() {
    // rule: DEC-06
    // rule: DEC-08
    for event_tag in [0, 0x0020_0000, 0x0000_4000, 0x0FFF_FFFF, 0x0ABC_DEF1] {
        let mut ours = EventBuilder::new("Structs");
        ours.tag(event_tag)
            .value("before", 1u32)
            .begin_struct("outer")
            .value("a", 2u16)
            .begin_struct("inner")
            .str16("name", "n")
            .value("b", 3u8)
            .end_struct()
            .field_tag(0x0F00_0001)
            .value("c", 4i64)
            .end_struct()
            .begin_struct("empty")
            .end_struct()
            .value("after", 5u32);
        let mut theirs = tld::EventBuilder::new();
        theirs
            .reset("Structs", tld::Level::Verbose, 0, event_tag)
            .add_u32("before", 1, D, 0)
            .add_struct("outer", 3, 0)
            .add_u16("a", 2, D, 0)
            .add_struct("inner", 2, 0x0F00_0001)
            .add_str16("name", utf16("n"), D, 0)
            .add_u8("b", 3, D, 0)
            .add_i64("c", 4, D, 0)
            .add_struct("empty", 0, 0)
            .add_u32("after", 5, D, 0);
        same(&mut ours, &mut theirs);
    }
}

#[test]
fn an_array_of_structs() {
    // rule: DEC-08
    // rule: DEC-13
    let members = vec![
        FieldDef::new("x", InType::UINT16),
        FieldDef::new("s", InType::COUNTED_ANSI_STRING),
    ];
    let def = FieldDef::structure("points", members.clone()).with_arity(Arity::Variable);
    let element = |x: u16, s: &[u8]| {
        Value::Struct(vec![
            etwsim_decode::tracelogging::Field::with_def(members[0].clone(), Value::U16(x)),
            etwsim_decode::tracelogging::Field::with_def(
                members[1].clone(),
                Value::CountedAnsi(s.to_vec()),
            ),
        ])
    };
    let mut ours = EventBuilder::new("StructArray");
    ours.field(def, Value::Array(vec![element(1, b"one"), element(2, b"")]));
    let mut theirs = tld::EventBuilder::new();
    theirs
        .reset("StructArray", tld::Level::Verbose, 0, 0)
        .raw_add_meta_vcount("points", tld::InType::Struct, tld::OutType::from_int(2), 0)
        .add_u16("x", 0, D, 0) // metadata of the members; their data is replaced below
        .add_str8("s", b"", D, 0);
    // The oracle's raw data API: count, then each element's member values.
    let (meta, _, _) = oracle(&mut theirs);
    let mut data = Vec::new();
    data.extend_from_slice(&2u16.to_le_bytes());
    data.extend_from_slice(&1u16.to_le_bytes());
    data.extend_from_slice(&3u16.to_le_bytes());
    data.extend_from_slice(b"one");
    data.extend_from_slice(&2u16.to_le_bytes());
    data.extend_from_slice(&0u16.to_le_bytes());
    let built = ours.build().unwrap();
    assert_eq!(built.metadata, meta);
    assert_eq!(built.payload, data);
    let decoded = decode_event(&meta, &data).unwrap();
    let Some(Value::Array(items)) = decoded.value("points") else {
        panic!("an array: {decoded:?}")
    };
    assert_eq!(items.len(), 2);
    assert_eq!(items[1], element(2, b""));
}

#[test]
fn descriptor_fields_match() {
    // rule: DEC-03
    let mut ours = EventBuilder::new("Desc");
    ours.level(Level::WARNING)
        .keyword(Keyword(0x8000_0000_0000_0001))
        .opcode(Opcode::START)
        .channel(Channel(16))
        .task(Task(7))
        .id_version(12, 3);
    let mut theirs = tld::EventBuilder::new();
    theirs
        .reset("Desc", tld::Level::Warning, 0x8000_0000_0000_0001, 0)
        .opcode(tld::Opcode::ActivityStart)
        .channel(tld::Channel::from_int(16))
        .task(7)
        .id_version(12, 3);
    let built = ours.build().unwrap();
    let (meta, data, desc) = oracle(&mut theirs);
    assert_eq!(built.metadata, meta);
    assert_eq!(built.payload, data);
    let d = built.descriptor;
    let expected = format!(
        "descriptor: EventDescriptor {{ id: {}, version: {}, channel: Channel({}), level: Level({}), opcode: Opcode({}), task: {}, keyword: {} }}",
        d.id, d.version, d.channel.0, d.level.0, d.opcode.0, d.task.0, d.keyword.0
    );
    assert!(desc.starts_with(&expected), "{desc} vs {expected}");
}

#[test]
fn default_descriptor_is_tracelogging_writes() {
    // rule: EVT-27
    // rule: DEC-03
    let built = EventBuilder::new("Defaults")
        .keyword(Keyword(1))
        .keyword(Keyword(4))
        .build()
        .unwrap();
    let d = built.descriptor;
    assert_eq!(
        (d.id, d.version, d.channel, d.level, d.opcode, d.task),
        (0, 0, Channel(11), Level::VERBOSE, Opcode(0), Task(0))
    );
    assert_eq!(d.keyword, Keyword(5), "repeated keywords are OR-ed");
    let (_, _, desc) =
        oracle(tld::EventBuilder::new().reset("Defaults", tld::Level::Verbose, 5, 0));
    assert!(desc.contains("channel: Channel(11)"), "{desc}");
}
