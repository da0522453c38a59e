//! What a TDH-like decoder reports beside the values: the out-type numbers of both schemes
//! (DEC-10), TraceLogging's hints translated to TDH's (DEC-11), and each property's
//! `PROPERTY_FLAGS` (DEC-29).

use crate::common;

use common::tests_dir;
use etwsim_decode::manifest::{self, Item, load_manifest};
use etwsim_decode::property::PropertyFlags;
use etwsim_decode::tracelogging::{Arity, FieldDef, InType, OutType};

#[test]
fn out_type_numbers_of_tracelogging_and_tdh() {
    // rule: DEC-10
    // The TraceLogging column: TlgOut* numbers.
    let tl = [
        (OutType::DEFAULT, 0),
        (OutType::NOPRINT, 1),
        (OutType::STRING, 2),
        (OutType::BOOLEAN, 3),
        (OutType::HEX, 4),
        (OutType::PID, 5),
        (OutType::TID, 6),
        (OutType::PORT, 7),
        (OutType::IPV4, 8),
        (OutType::IPV6, 9),
        (OutType::SOCKET_ADDRESS, 10),
        (OutType::XML, 11),
        (OutType::JSON, 12),
        (OutType::WIN32_ERROR, 13),
        (OutType::NTSTATUS, 14),
        (OutType::HRESULT, 15),
        (OutType::FILETIME, 16),
        (OutType::SIGNED, 17),
        (OutType::UNSIGNED, 18),
        (OutType::DATETIME_CULTURE_INSENSITIVE, 33),
        (OutType::UTF8, 35),
        (OutType::PKCS7_WITH_TYPE_INFO, 36),
        (OutType::CODE_POINTER, 37),
        (OutType::DATETIME_UTC, 38),
    ];
    for (t, n) in tl {
        assert_eq!(t.0, n, "{t:?}");
    }
    // The TDH column: TDH_OUTTYPE_* numbers.
    use manifest::OutType as Tdh;
    let tdh = [
        (Tdh::NULL, 0),
        (Tdh::STRING, 1),
        (Tdh::DATE_TIME, 2),
        (Tdh::BYTE, 3),
        (Tdh::UNSIGNED_BYTE, 4),
        (Tdh::SHORT, 5),
        (Tdh::UNSIGNED_SHORT, 6),
        (Tdh::INT, 7),
        (Tdh::UNSIGNED_INT, 8),
        (Tdh::LONG, 9),
        (Tdh::UNSIGNED_LONG, 10),
        (Tdh::FLOAT, 11),
        (Tdh::DOUBLE, 12),
        (Tdh::BOOLEAN, 13),
        (Tdh::GUID, 14),
        (Tdh::HEX_BINARY, 15),
        (Tdh::HEX_INT8, 16),
        (Tdh::HEX_INT16, 17),
        (Tdh::HEX_INT32, 18),
        (Tdh::HEX_INT64, 19),
        (Tdh::PID, 20),
        (Tdh::TID, 21),
        (Tdh::PORT, 22),
        (Tdh::IPV4, 23),
        (Tdh::IPV6, 24),
        (Tdh::SOCKET_ADDRESS, 25),
        (Tdh::CIM_DATE_TIME, 26),
        (Tdh::ETW_TIME, 27),
        (Tdh::XML, 28),
        (Tdh::ERROR_CODE, 29),
        (Tdh::WIN32_ERROR, 30),
        (Tdh::NTSTATUS, 31),
        (Tdh::HRESULT, 32),
        (Tdh::DATE_TIME_CULTURE_INSENSITIVE, 33),
        (Tdh::JSON, 34),
        (Tdh::UTF8, 35),
        (Tdh::PKCS7_WITH_TYPE_INFO, 36),
        (Tdh::CODE_POINTER, 37),
        (Tdh::DATE_TIME_UTC, 38),
        (Tdh::REDUCED_STRING, 300),
        (Tdh::NOPRINT, 301),
    ];
    for (t, n) in tdh {
        assert_eq!(t.0, n, "{t:?}");
    }
    // From 33 up the two schemes agree; below they differ (STRING is 2 in one, 1 in the other).
    for n in 33..=38u8 {
        assert_eq!(OutType(n).to_tdh(InType::UINT32).0, u16::from(n));
    }
    assert_ne!(u16::from(OutType::STRING.0), Tdh::STRING.0);
}

#[test]
fn tracelogging_hints_translate_to_tdh_out_types() {
    // rule: DEC-11
    use manifest::OutType as Tdh;
    let by_name = [
        (OutType::NOPRINT, InType::UINT32, Tdh::NOPRINT),
        (OutType::STRING, InType::UINT8, Tdh::STRING),
        (OutType::BOOLEAN, InType::UINT8, Tdh::BOOLEAN),
        (OutType::PID, InType::UINT32, Tdh::PID),
        (OutType::TID, InType::UINT32, Tdh::TID),
        (OutType::PORT, InType::UINT16, Tdh::PORT),
        (OutType::IPV4, InType::UINT32, Tdh::IPV4),
        (OutType::IPV6, InType::BINARY, Tdh::IPV6),
        (
            OutType::SOCKET_ADDRESS,
            InType::COUNTED_BINARY,
            Tdh::SOCKET_ADDRESS,
        ),
        (OutType::XML, InType::COUNTED_ANSI_STRING, Tdh::XML),
        (OutType::JSON, InType::COUNTED_ANSI_STRING, Tdh::JSON),
        (OutType::WIN32_ERROR, InType::UINT32, Tdh::WIN32_ERROR),
        (OutType::NTSTATUS, InType::INT32, Tdh::NTSTATUS),
        (OutType::HRESULT, InType::INT32, Tdh::HRESULT),
        (OutType::FILETIME, InType::INT64, Tdh::DATE_TIME),
        (OutType::UTF8, InType::COUNTED_ANSI_STRING, Tdh::UTF8),
        (OutType::CODE_POINTER, InType::HEXINT64, Tdh::CODE_POINTER),
        (OutType::DEFAULT, InType::UINT32, Tdh::NULL),
    ];
    for (tl, input, want) in by_name {
        assert_eq!(tl.to_tdh(input), want, "{tl:?} on {input:?}");
    }
    // HEX, SIGNED and UNSIGNED follow the InType's size.
    let sized = [
        (InType::UINT8, Tdh::HEX_INT8, Tdh::BYTE, Tdh::UNSIGNED_BYTE),
        (
            InType::INT16,
            Tdh::HEX_INT16,
            Tdh::SHORT,
            Tdh::UNSIGNED_SHORT,
        ),
        (InType::UINT32, Tdh::HEX_INT32, Tdh::INT, Tdh::UNSIGNED_INT),
        (InType::INT64, Tdh::HEX_INT64, Tdh::LONG, Tdh::UNSIGNED_LONG),
    ];
    for (input, hex, signed, unsigned) in sized {
        assert_eq!(OutType::HEX.to_tdh(input), hex);
        assert_eq!(OutType::SIGNED.to_tdh(input), signed);
        assert_eq!(OutType::UNSIGNED.to_tdh(input), unsigned);
    }
    for binary in [InType::BINARY, InType::COUNTED_BINARY] {
        assert_eq!(OutType::HEX.to_tdh(binary), Tdh::HEX_BINARY);
    }
}

#[test]
fn property_flags_have_their_documented_values() {
    // rule: DEC-29
    let flags = [
        (PropertyFlags::STRUCT, 0x1),
        (PropertyFlags::PARAM_LENGTH, 0x2),
        (PropertyFlags::PARAM_COUNT, 0x4),
        (PropertyFlags::WBEM_XML_FRAGMENT, 0x8),
        (PropertyFlags::PARAM_FIXED_LENGTH, 0x10),
        (PropertyFlags::PARAM_FIXED_COUNT, 0x20),
        (PropertyFlags::HAS_TAGS, 0x40),
        (PropertyFlags::HAS_CUSTOM_SCHEMA, 0x80),
    ];
    for (f, n) in flags {
        assert_eq!(f.0, n);
    }
    assert_eq!(
        format!("{:?}", PropertyFlags::STRUCT | PropertyFlags::PARAM_COUNT),
        "PropertyStruct | PropertyParamCount"
    );
    assert_eq!(format!("{:?}", PropertyFlags::NONE), "0x0");
}

#[test]
fn tracelogging_fields_report_their_property_flags() {
    // rule: DEC-29
    let f = |def: FieldDef| def.property_flags();
    assert_eq!(f(FieldDef::new("N", InType::UINT32)), PropertyFlags::NONE);
    assert_eq!(
        f(FieldDef::new("N", InType::UINT32).with_tag(0x123)),
        PropertyFlags::HAS_TAGS
    );
    assert_eq!(
        f(FieldDef::new("A", InType::UINT8).with_arity(Arity::Fixed(4))),
        PropertyFlags::PARAM_FIXED_COUNT
    );
    assert_eq!(
        f(FieldDef::new("A", InType::UINT8).with_arity(Arity::Variable)),
        PropertyFlags::PARAM_COUNT
    );
    assert_eq!(
        f(FieldDef::new("C", InType::COUNTED_BINARY).with_arity(Arity::Custom(vec![1, 2]))),
        PropertyFlags::HAS_CUSTOM_SCHEMA
    );
    assert_eq!(
        f(FieldDef::new("B", InType::BINARY)),
        PropertyFlags::PARAM_LENGTH
    );
    assert_eq!(
        f(FieldDef::new("B", InType::COUNTED_BINARY)),
        PropertyFlags::NONE
    );
    let s = FieldDef::structure("S", vec![FieldDef::new("X", InType::UINT8)])
        .with_arity(Arity::Variable)
        .with_tag(1);
    assert_eq!(
        f(s),
        PropertyFlags::STRUCT | PropertyFlags::PARAM_COUNT | PropertyFlags::HAS_TAGS
    );
}

#[test]
fn manifest_items_report_their_property_flags() {
    // rule: DEC-29
    // rule: DEC-17
    let bytes = std::fs::read(tests_dir("manifests").join("demo-storage.man")).unwrap();
    let m = load_manifest(&bytes).unwrap();
    let p = &m.providers[0];
    let arrays = p.template("Arrays").unwrap();
    let flags: Vec<(&str, PropertyFlags)> = arrays
        .items
        .iter()
        .map(|i| (i.name(), i.property_flags()))
        .collect();
    assert_eq!(
        flags,
        [
            ("Count", PropertyFlags::NONE),
            ("Ids", PropertyFlags::PARAM_COUNT),
            ("Pair", PropertyFlags::PARAM_FIXED_COUNT),
            ("Len", PropertyFlags::NONE),
            ("Blob", PropertyFlags::PARAM_LENGTH),
            (
                "Extents",
                PropertyFlags::STRUCT | PropertyFlags::PARAM_COUNT
            ),
        ]
    );
    let every = p.template("EveryType").unwrap();
    let fixed: Vec<&str> = every
        .items
        .iter()
        .filter(|i| i.property_flags() == PropertyFlags::PARAM_FIXED_LENGTH)
        .map(Item::name)
        .collect();
    assert_eq!(fixed, ["Binary", "Fixed", "Ipv6"]);
}
