//! The decoder's behaviour: hand-written metadata read as DEC-05…DEC-13 say, bad metadata
//! and short payloads as errors that name the field and the byte offset, records routed by
//! their `EVENT_SCHEMA_TL` item, and the size limits of DEC-15.

use etwsim_decode::Error;
use etwsim_decode::tracelogging::{
    Arity, EventBuilder, EventSchema, FieldDef, InType, OutType, ProviderTraits, Value,
    decode_event, decode_record,
};
use etwsim_types::record::{ext_type, header_flags};
use etwsim_types::{ExtendedItem, Guid, Keyword, Level};

/// A metadata blob from its parts after Size.
fn meta(body: &[u8]) -> Vec<u8> {
    let mut m = ((body.len() + 2) as u16).to_le_bytes().to_vec();
    m.extend_from_slice(body);
    m
}

#[test]
fn hand_written_metadata_reads_as_the_tables_say() {
    // rule: DEC-05
    // rule: DEC-07
    // rule: DEC-09
    // rule: DEC-13
    let m = meta(&[
        0x80, 0x80, 0x80, 0x81, 0x80, 0x00, // a 4-byte tag (1) and two more extension bytes
        b'E', 0, //
        b'a', 0, 0x08, // UINT32
        b'b', 0, 0x84, 0x04, // UINT8, OutType HEX
        b'c', 0, 0x85, 0x80, 0x01, // INT16, OutType NULL + a 1-byte field tag 0x0020_0000
        b'd', 0, 0x26, 0x03, 0x00, // UINT16 CCOUNT 3
        b'e', 0, 0x56, // COUNTEDSTRING VCOUNT
        b'f', 0, 0x6E, 0x02, 0x00, 0xAA,
        0xBB, // CUSTOM with 2 bytes of type info, u16 count + bytes payload
    ]);
    let schema = EventSchema::parse(&m).unwrap();
    assert_eq!((schema.name.as_str(), schema.tag), ("E", 1));
    let f = &schema.fields;
    assert_eq!(f.len(), 6);
    assert_eq!(
        (f[0].in_type, f[0].arity.clone()),
        (InType::UINT32, Arity::Scalar)
    );
    assert_eq!((f[1].in_type, f[1].out_type), (InType::UINT8, OutType::HEX));
    assert_eq!((f[2].in_type, f[2].tag), (InType::INT16, 0x0020_0000));
    assert_eq!(f[3].arity, Arity::Fixed(3));
    assert_eq!(
        (f[4].in_type, f[4].arity.clone()),
        (InType::COUNTED_STRING, Arity::Variable)
    );
    assert_eq!(f[5].arity, Arity::Custom(vec![0xAA, 0xBB]));

    let mut payload = Vec::new();
    payload.extend_from_slice(&7u32.to_le_bytes());
    payload.push(0xAB);
    payload.extend_from_slice(&(-2i16).to_le_bytes());
    for v in [1u16, 2, 3] {
        payload.extend_from_slice(&v.to_le_bytes());
    }
    payload.extend_from_slice(&2u16.to_le_bytes()); // two counted strings
    payload.extend_from_slice(&4u16.to_le_bytes());
    payload.extend_from_slice(&[b'h', 0, b'i', 0]);
    payload.extend_from_slice(&0u16.to_le_bytes());
    payload.extend_from_slice(&1u16.to_le_bytes()); // custom: one byte
    payload.push(0x5A);
    let e = decode_event(&m, &payload).unwrap();
    assert_eq!(e.trailing_bytes, 0);
    assert_eq!(e.value("a"), Some(&Value::U32(7)));
    assert_eq!(e.field("b").unwrap().display_value().to_string(), "0xAB");
    assert_eq!(e.value("c"), Some(&Value::I16(-2)));
    assert_eq!(
        e.value("d"),
        Some(&Value::Array(vec![
            Value::U16(1),
            Value::U16(2),
            Value::U16(3)
        ]))
    );
    assert_eq!(
        e.value("e"),
        Some(&Value::Array(vec![
            Value::CountedString("hi".into()),
            Value::CountedString(String::new())
        ]))
    );
    assert_eq!(e.value("f"), Some(&Value::Binary(vec![0x5A])));
}

#[test]
fn a_fixed_count_array_puts_its_count_in_the_metadata() {
    // rule: DEC-07
    // rule: DEC-13
    let e = EventBuilder::new("F")
        .fixed_array("v", [1u16, 2, 3])
        .build()
        .unwrap();
    assert_eq!(e.metadata, meta(&[0, b'F', 0, b'v', 0, 0x26, 3, 0]));
    assert_eq!(e.payload, [1, 0, 2, 0, 3, 0]);
    let d = decode_event(&e.metadata, &e.payload).unwrap();
    assert_eq!(d.value("v").unwrap().to_string(), "[1, 2, 3]");
}

#[test]
fn struct_members_nest_and_arrays_of_structs_repeat_them() {
    // rule: DEC-08
    let m = meta(&[
        0, b'S', 0, //
        b'o', 0, 0x98, 0x02, // STRUCT, 2 members
        b'i', 0, 0x98, 0x01, //   STRUCT, 1 member (counts as one member of o)
        b'x', 0, 0x04, //          UINT8
        b'y', 0, 0x04, //   UINT8
        b'a', 0, 0xD8, 0x01, // STRUCT | VCOUNT, 1 member
        b'z', 0, 0x06, //   UINT16
    ]);
    let mut payload = vec![1, 2];
    payload.extend_from_slice(&2u16.to_le_bytes());
    payload.extend_from_slice(&[10, 0, 20, 0]);
    let e = decode_event(&m, &payload).unwrap();
    assert_eq!(e.fields.len(), 2);
    assert_eq!(e.value("o.i.x"), Some(&Value::U8(1)));
    assert_eq!(e.value("o.y"), Some(&Value::U8(2)));
    assert_eq!(e.to_string(), "S o={i={x=1}, y=2}, a=[{z=10}, {z=20}]");
}

#[test]
fn bad_metadata_is_an_error_with_its_offset() {
    // rule: DEC-05
    // rule: DEC-07
    // rule: DEC-08
    // rule: DEC-13
    // Offsets count from the blob's first byte (Size is bytes 0–1).
    let cases: &[(&[u8], usize, &str)] = &[
        (&[0, b'E', 0, b'a', 0, 0x00], 7, "InType 0"),
        (&[0, b'E', 0, b'a', 0, 0x1A], 7, "InType 26"),
        (&[0, b'E', 0, b'a', 0, 0x4E], 7, "BINARY cannot be an array"),
        (
            &[0, b'E', 0, b'a', 0, 0x2E, 1, 0],
            7,
            "BINARY cannot be an array",
        ),
        (
            &[0, b'E', 0, b'a', 0, 0x98, 0x03, b'b', 0, 0x04],
            12,
            "announces 3 members",
        ),
        (&[0, b'E', 0, b'a', 0, 0x88], 8, "ends before the OutType"),
        (
            &[0, b'E', 0, b'a', 0, 0x28, 0x01],
            8,
            "ends before the ValueCount",
        ),
        (
            &[0, b'E', 0, b'a', 0, 0x68, 0x05, 0x00, 1],
            10,
            "TypeInfo needs 5 bytes",
        ),
        (&[0, b'E', 0, b'a'], 5, "no NUL"),
        (&[0, b'E'], 3, "no NUL"),
        (&[0x80, 0x80], 4, "ends before the extension"),
    ];
    for (body, offset, needle) in cases {
        let err = EventSchema::parse(&meta(body)).unwrap_err();
        let Error::Metadata { offset: at, .. } = &err else {
            panic!("{body:02x?}: {err}")
        };
        assert_eq!(*at, *offset, "{body:02x?}: {err}");
        assert!(err.to_string().contains(needle), "{body:02x?}: {err}");
    }
    let with_field = EventSchema::parse(&meta(&[0, b'E', 0, b'a', 0, 0x1A])).unwrap_err();
    assert!(
        with_field.to_string().contains("field \"a\""),
        "{with_field}"
    );
    // Size larger than the blob, or too small for anything.
    assert!(EventSchema::parse(&[9, 0, 0, b'E', 0]).is_err());
    assert!(EventSchema::parse(&[3, 0, 0]).is_err());
    assert!(EventSchema::parse(&[]).is_err());
}

#[test]
fn structs_nested_too_deep_are_refused() {
    // rule: DEC-08
    let mut body = vec![0, b'D', 0];
    for _ in 0..40 {
        body.extend_from_slice(&[b's', 0, 0x98, 0x01]);
    }
    body.extend_from_slice(&[b'x', 0, 0x04]);
    let err = EventSchema::parse(&meta(&body)).unwrap_err();
    assert!(err.to_string().contains("nest deeper"), "{err}");
}

#[test]
fn a_short_payload_names_the_field_and_the_offset() {
    // rule: DEC-09
    // rule: DEC-12
    let e = EventBuilder::new("T")
        .value("A", 1u32)
        .begin_struct("S")
        .array("Arr", [1u16, 2, 3])
        .end_struct()
        .cstr16("Name", "xy")
        .build()
        .unwrap();
    // Cut inside A, inside Arr's second element, and before Name's NUL.
    let err = decode_event(&e.metadata, &e.payload[..2]).unwrap_err();
    assert_eq!(
        err,
        Error::PayloadTruncated {
            field: "A".into(),
            offset: 0,
            needed: 4,
            available: 2
        }
    );
    let err = decode_event(&e.metadata, &e.payload[..9]).unwrap_err();
    assert_eq!(
        err,
        Error::PayloadTruncated {
            field: "S.Arr[1]".into(),
            offset: 8,
            needed: 2,
            available: 1
        }
    );
    let err = decode_event(&e.metadata, &e.payload[..e.payload.len() - 2]).unwrap_err();
    assert!(
        matches!(&err, Error::PayloadBadValue { field, offset: 12, .. } if field == "Name"),
        "{err}"
    );
    assert!(err.to_string().contains("no NUL terminator"), "{err}");
    // Every cut is an error, never a panic.
    for cut in 0..e.payload.len() {
        assert!(
            decode_event(&e.metadata, &e.payload[..cut]).is_err(),
            "cut {cut}"
        );
    }
}

#[test]
fn a_sid_takes_its_length_from_its_sub_authority_count() {
    // rule: DEC-12
    let sid = "S-1-5-21-7-8"
        .parse::<etwsim_types::Sid>()
        .unwrap()
        .to_bytes();
    let e = EventBuilder::new("Sid")
        .sid("s", &sid)
        .value("after", 9u8)
        .build()
        .unwrap();
    assert_eq!(e.payload.len(), 8 + 4 * 3 + 1);
    let d = decode_event(&e.metadata, &e.payload).unwrap();
    assert_eq!(
        d.field("s").unwrap().display_value().to_string(),
        "S-1-5-21-7-8"
    );
    assert_eq!(d.value("after"), Some(&Value::U8(9)));
    // A count that runs past the payload.
    let mut bad = e.payload.clone();
    bad[1] = 9;
    let err = decode_event(&e.metadata, &bad).unwrap_err();
    assert!(
        matches!(&err, Error::PayloadTruncated { field, offset: 0, .. } if field == "s"),
        "{err}"
    );
}

#[test]
fn records_are_decoded_by_their_schema_item_and_named_by_their_traits() {
    // rule: DEC-01
    // rule: DEC-02
    // rule: DEC-03
    // rule: DEC-04
    let provider = Guid::from_provider_name("My.Provider");
    let traits = ProviderTraits::new("My.Provider");
    let a = EventBuilder::new("First").value("x", 1u32).build().unwrap();
    let b = EventBuilder::new("Second")
        .level(Level::ERROR)
        .keyword(Keyword(8))
        .str16("y", "two")
        .build()
        .unwrap();
    let ra = a.to_record(provider, Some(&traits)).unwrap();
    let rb = b.to_record(provider, None).unwrap();
    assert_eq!(
        ra.header.flags & header_flags::EXTENDED_INFO,
        header_flags::EXTENDED_INFO
    );
    assert_eq!(ra.extended_data[0].ext_type, ext_type::PROV_TRAITS);
    assert_eq!(ra.extended_data[1].ext_type, ext_type::EVENT_SCHEMA_TL);
    assert_eq!(ra.user_data, a.payload);
    // Both have Id 0 and Version 0: each is still its own event.
    assert_eq!(ra.header.descriptor.id, rb.header.descriptor.id);
    let da = decode_record(&ra).unwrap().unwrap();
    let db = decode_record(&rb).unwrap().unwrap();
    assert_eq!((da.name.as_str(), db.name.as_str()), ("First", "Second"));
    assert_eq!(da.provider_name.as_deref(), Some("My.Provider"));
    assert_eq!(db.provider_name, None);
    assert_eq!(db.descriptor.unwrap().level, Level::ERROR);
    assert_eq!(da.to_string(), "My.Provider/First x=1");
    // A record without the schema item is not TraceLogging.
    let mut plain = ra.clone();
    plain
        .extended_data
        .retain(|i| i.ext_type != ext_type::EVENT_SCHEMA_TL);
    assert!(decode_record(&plain).is_none());
    // Bad traits are an error, not a missing name.
    let mut bad = ra.clone();
    bad.extended_data[0] = ExtendedItem {
        ext_type: ext_type::PROV_TRAITS,
        data: vec![0xFF, 0x00, b'x'],
    };
    assert!(matches!(
        decode_record(&bad),
        Some(Err(Error::ProviderTraits { .. }))
    ));
}

#[test]
fn pointers_take_the_writers_size() {
    let def = FieldDef::new("p", InType::POINTER);
    let e = EventBuilder::new("P")
        .field(def, Value::Pointer(0x1122_3344))
        .build()
        .unwrap();
    assert_eq!(e.payload.len(), 8);
    let mut r = e.to_record(Guid::NULL, None).unwrap();
    r.user_data.truncate(4);
    r.header.header_type = 0x12; // EVENT_HEADER32: a 32-bit writer
    let d = decode_record(&r).unwrap().unwrap();
    assert_eq!(d.value("p"), Some(&Value::Pointer(0x1122_3344)));
    assert_eq!(d.trailing_bytes, 0);
}

#[test]
fn binary_fields_get_a_synthesised_length_property() {
    // rule: DEC-14
    let e = EventBuilder::new("B")
        .binary("bin", &[1, 2, 3])
        .counted_binary("binc", &[4, 5])
        .begin_struct("s")
        .binary("inner", &[])
        .end_struct()
        .build()
        .unwrap();
    let d = decode_event(&e.metadata, &e.payload).unwrap();
    let props = d.tdh_properties();
    let names: Vec<&str> = props.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["bin.Length", "bin", "binc", "s"]);
    assert_eq!(props[0].value, Value::U16(3));
    let inner: Vec<&str> = props[3]
        .def
        .as_ref()
        .expect("a TraceLogging field has its definition")
        .members
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(inner, ["inner.Length", "inner"]);
    assert_eq!(d.fields.len(), 3, "the decoded event itself is unchanged");
}

#[test]
fn size_limits_of_the_encoder() {
    // rule: DEC-15
    // Metadata over 65,535 bytes is refused (tracelogging_dynamic: ERROR_ARITHMETIC_OVERFLOW).
    let mut b = EventBuilder::new("Big");
    for i in 0..3000 {
        b.value(&format!("field_number_{i:05}_with_a_long_name"), 0u8);
    }
    assert!(matches!(
        b.build(),
        Err(Error::TooLarge { limit: 65535, .. })
    ));
    // Counted values are cut at 65,535 bytes, VCOUNT arrays at 65,535 elements.
    let long = vec![7u8; 70_000];
    let e = EventBuilder::new("Cut")
        .counted_binary("b", &long)
        .array("a", vec![1u8; 70_000])
        .build()
        .unwrap();
    let d = decode_event(&e.metadata, &e.payload).unwrap();
    let Some(Value::Binary(b)) = d.value("b") else {
        panic!()
    };
    assert_eq!(b.len(), 65_535);
    let Some(Value::Array(a)) = d.value("a") else {
        panic!()
    };
    assert_eq!(a.len(), 65_535);
}

#[test]
fn builder_mistakes_are_errors_naming_the_field() {
    let err = EventBuilder::new("E")
        .begin_struct("open")
        .value("x", 1u8)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("\"open\""), "{err}");
    let err = EventBuilder::new("E").end_struct().build().unwrap_err();
    assert!(err.to_string().contains("end_struct"), "{err}");
    let err = EventBuilder::new("E")
        .field(FieldDef::new("w", InType::UINT32), Value::U8(1))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("\"w\""), "{err}");
    let err = EventBuilder::new("E")
        .field(
            FieldDef::new("bin", InType::BINARY).with_arity(Arity::Variable),
            Value::Array(vec![]),
        )
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("BINARY cannot be an array"),
        "{err}"
    );
    let err = EventBuilder::new("E")
        .value("t", 1u8)
        .field_tag(0x1000_0000)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("28 bits"), "{err}");
    let err = EventBuilder::new("E")
        .sid("s", &[1, 2, 0, 0])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("not a SID"), "{err}");
}

#[test]
fn empty_struct_elements_cannot_multiply_without_bound() {
    // 65,535 elements of a struct holding 65,535 empty structs: four billion values from a
    // 16-byte blob. The value guard refuses it.
    let body: &[u8] = &[
        0, b'B', 0, b'o', 0, 0xB8, 0x01, 0xFF, 0xFF, b'i', 0, 0x38, 0xFF, 0xFF,
    ];
    let mut m = ((body.len() + 2) as u16).to_le_bytes().to_vec();
    m.extend_from_slice(body);
    let err = decode_event(&m, &[]).unwrap_err();
    assert!(matches!(&err, Error::PayloadBadValue { .. }), "{err}");
    assert!(
        err.to_string().contains("more than 1048576 values"),
        "{err}"
    );
}
