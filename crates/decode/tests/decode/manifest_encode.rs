//! The manifest template encoder (`Provider::encode`, issue 34) against the decoder: for every
//! event of the sample manifests of `tests/manifests/`, fields encode and decode back to
//! themselves, and the decoded fields encode back to the same bytes; and each way fields can
//! fail to fit a template is refused with an error naming the field.

use crate::common;

use common::tests_dir;
use etwsim_decode::Error;
use etwsim_decode::fields::{Field, SystemTime, Value};
use etwsim_decode::manifest::{
    DataDef, InType, Item, Manifest, OutType, Param, Provider, Template, load_manifest,
};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

fn sample(name: &str) -> Manifest {
    let bytes = std::fs::read(tests_dir("manifests").join(name)).expect("sample manifest");
    load_manifest(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A small deterministic generator driven by proptest's seed (the templates are the
/// manifests', so the shape of the values is read from them, not drawn by proptest).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n.max(1)) as usize
    }

    fn text(&mut self, units: usize) -> String {
        // No surrogate pair: exact unit counts.
        const CHARS: [char; 5] = ['a', 'Z', 'é', '€', ' '];
        let mut s = String::new();
        while s.encode_utf16().count() < units {
            s.push(CHARS[self.below(5)]);
        }
        s
    }

    fn bytes(&mut self, n: usize, nul: bool) -> Vec<u8> {
        (0..n)
            .map(|_| {
                let b = self.next() as u8;
                if !nul && b == 0 { 1 } else { b }
            })
            .collect()
    }
}

/// The names a template's counts and lengths refer to: the generator leaves these fields out
/// (the encoder writes them) and keeps one number per name.
fn referenced(t: &Template) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut add = |p: &Option<Param>| {
        if let Some(Param::Field(f)) = p {
            names.insert(f.clone());
        }
    };
    for item in &t.items {
        match item {
            Item::Data(d) => {
                add(&d.count);
                add(&d.length);
            }
            Item::Struct(s) => {
                add(&s.count);
                for m in &s.members {
                    add(&m.count);
                    add(&m.length);
                }
            }
        }
    }
    names
}

/// The number a count or length stands for: fixed, or drawn once per referenced name.
fn number(p: &Option<Param>, numbers: &mut HashMap<String, usize>, rng: &mut Rng) -> Option<usize> {
    match p {
        None => None,
        Some(Param::Fixed(n)) => Some(*n as usize),
        Some(Param::Field(f)) => Some(*numbers.entry(f.clone()).or_insert_with(|| rng.below(4))),
    }
}

fn scalar(d: &DataDef, length: Option<usize>, pointer_size: u8, rng: &mut Rng) -> Value {
    let n = length.unwrap_or_else(|| rng.below(5));
    match d.in_type {
        InType::UNICODE_STRING => {
            let units = length.map_or(n, |l| l.min(rng.below(5)));
            Value::String(rng.text(units))
        }
        InType::ANSI_STRING => Value::Ansi(rng.bytes(length.map_or(n, |l| l.min(n)), false)),
        InType::COUNTED_UNICODE_STRING => Value::String(rng.text(n)),
        InType::COUNTED_ANSI_STRING => Value::Ansi(rng.bytes(n, true)),
        InType::INT8 => Value::I8(rng.next() as i8),
        InType::UINT8 => Value::U8(rng.next() as u8),
        InType::INT16 => Value::I16(rng.next() as i16),
        InType::UINT16 => Value::U16(rng.next() as u16),
        InType::INT32 => Value::I32(rng.next() as i32),
        InType::UINT32 | InType::HEX_INT32 => Value::U32(rng.next() as u32),
        InType::INT64 => Value::I64(rng.next() as i64),
        InType::UINT64 | InType::HEX_INT64 => Value::U64(rng.next()),
        InType::FLOAT => Value::F32((rng.next() % 100_000) as f32 / 8.0),
        InType::DOUBLE => Value::F64((rng.next() % 100_000) as f64 / 16.0),
        InType::BOOLEAN => Value::Bool32(rng.next() as i32),
        InType::BINARY => match (length, d.out_type) {
            (None, Some(OutType::IPV6)) => Value::Binary(rng.bytes(16, true)),
            _ => Value::Binary(rng.bytes(n, true)),
        },
        InType::COUNTED_BINARY => Value::Binary(rng.bytes(n, true)),
        InType::GUID => Value::Guid(etwsim_types::Guid::from_bytes_le(
            rng.bytes(16, true).try_into().unwrap(),
        )),
        InType::POINTER if pointer_size == 4 => Value::Pointer(rng.next() as u32 as u64),
        InType::POINTER => Value::Pointer(rng.next()),
        InType::FILETIME => Value::FileTime(rng.next() as i64),
        InType::SYSTEMTIME => Value::SystemTime(SystemTime::from_bytes(
            rng.bytes(16, true).try_into().unwrap(),
        )),
        InType::SID => {
            let subs = rng.below(4);
            let mut b = vec![1, subs as u8, 0, 0, 0, 0, 0, 5];
            b.extend(rng.bytes(4 * subs, true));
            Value::Sid(b)
        }
        other => panic!("the sample manifests have no in-type {other:?}"),
    }
}

fn data(
    d: &DataDef,
    numbers: &mut HashMap<String, usize>,
    pointer_size: u8,
    rng: &mut Rng,
) -> Value {
    let count = number(&d.count, numbers, rng);
    let length = number(&d.length, numbers, rng);
    match count {
        Some(k) => Value::Array(
            (0..k)
                .map(|_| scalar(d, length, pointer_size, rng))
                .collect(),
        ),
        None => scalar(d, length, pointer_size, rng),
    }
}

/// Fields for `t`, without the fields its counts and lengths refer to.
fn fields(t: &Template, pointer_size: u8, rng: &mut Rng) -> Vec<Field> {
    let refs = referenced(t);
    let mut numbers = HashMap::new();
    let mut out = Vec::new();
    for item in &t.items {
        if refs.contains(item.name()) {
            continue;
        }
        let value = match item {
            Item::Data(d) => data(d, &mut numbers, pointer_size, rng),
            Item::Struct(s) => {
                let one = |numbers: &mut HashMap<String, usize>, rng: &mut Rng| {
                    // A member's count or length names an earlier member of the same
                    // instance, else a top-level field.
                    let mut own: HashMap<String, usize> = HashMap::new();
                    let mut members = Vec::new();
                    for m in &s.members {
                        let mut pick = |p: &Option<Param>, rng: &mut Rng| match p {
                            Some(Param::Field(f)) if s.members.iter().any(|m| &m.name == f) => {
                                number(p, &mut own, rng)
                            }
                            _ => number(p, numbers, rng),
                        };
                        let count = pick(&m.count, rng);
                        let length = pick(&m.length, rng);
                        if refs.contains(&m.name) {
                            continue;
                        }
                        let value = match count {
                            Some(k) => Value::Array(
                                (0..k)
                                    .map(|_| scalar(m, length, pointer_size, rng))
                                    .collect(),
                            ),
                            None => scalar(m, length, pointer_size, rng),
                        };
                        members.push(Field::new(&m.name, value));
                    }
                    Value::Struct(members)
                };
                match number(&s.count, &mut numbers, rng) {
                    Some(k) => Value::Array((0..k).map(|_| one(&mut numbers, rng)).collect()),
                    None => one(&mut numbers, rng),
                }
            }
        };
        out.push(Field::new(item.name(), value));
    }
    out
}

/// `fields` without those named in `refs`, inside structs too.
fn strip(fields: &[Field], refs: &HashSet<String>) -> Vec<Field> {
    let strip_value = |v: &Value| match v {
        Value::Struct(m) => Value::Struct(strip(m, refs)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| match v {
                    Value::Struct(m) => Value::Struct(strip(m, refs)),
                    v => v.clone(),
                })
                .collect(),
        ),
        v => v.clone(),
    };
    fields
        .iter()
        .filter(|f| !refs.contains(&f.name))
        .map(|f| Field::new(&f.name, strip_value(&f.value)))
        .collect()
}

fn samples() -> Vec<Manifest> {
    [
        "demo-storage.man",
        "kernel-process.man",
        "ClrEtwAll.man",
        "utf16-bom.man",
    ]
    .map(sample)
    .into()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    // rule: DEC-17, DEC-18
    #[test]
    fn encoded_fields_decode_back_and_decoded_fields_encode_back(seed: u64, wide: bool) {
        let pointer_size = if wide { 8 } else { 4 };
        let mut rng = Rng(seed);
        let mut events = 0;
        for m in samples() {
            for p in &m.providers {
                for e in &p.events {
                    let Some(t) = p.template_of(e) else { continue };
                    let given = fields(t, pointer_size, &mut rng);
                    let what = format!("{} event {} v{}", p.name, e.id, e.version);
                    let bytes = p.encode(e, &given, pointer_size)
                        .unwrap_or_else(|err| panic!("{what}: {err}"));
                    let decoded = p.decode(e, &bytes, pointer_size)
                        .unwrap_or_else(|err| panic!("{what}: {err}"));
                    prop_assert_eq!(&strip(&decoded, &referenced(t)), &given, "{}", what);
                    prop_assert_eq!(p.encode(e, &decoded, pointer_size).unwrap(), bytes, "{}", what);
                    events += 1;
                }
            }
        }
        prop_assert!(events > 200, "only {events} events with templates");
    }
}

const MANIFEST: &str = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Enc" guid="{0e5c0de0-2026-4e75-8000-000000000034}" symbol="ENC">
   <templates>
    <template tid="T">
     <data name="Name" inType="win:UnicodeString"/>
     <data name="Count" inType="win:UInt8"/>
     <data name="Ids" inType="win:UInt32" count="Count"/>
     <data name="Len" inType="win:UInt16"/>
     <data name="Blob" inType="win:Binary" length="Len"/>
     <data name="Tag" inType="win:AnsiString" length="4"/>
     <data name="Pair" inType="win:UInt16" count="2"/>
     <data name="Port" inType="win:UInt16" outType="win:Port"/>
     <data name="Ptr" inType="win:Pointer"/>
     <data name="Sid" inType="win:SID"/>
     <struct name="Items" count="Count">
      <data name="N" inType="win:UInt8"/>
      <data name="Text" inType="win:UnicodeString" length="N"/>
     </struct>
    </template>
    <template tid="Zeros">
     <data name="Zero" inType="win:UInt8"/>
     <data name="N" inType="win:UInt16"/>
     <data name="Blobs" inType="win:Binary" length="Zero" count="N"/>
    </template>
   </templates>
   <events>
    <event value="1" symbol="Full" template="T" level="win:Warning" opcode="win:Start"/>
    <event value="2" symbol="Bare"/>
    <event value="3" symbol="Zeros" template="Zeros"/>
    <event value="4" symbol="Lost" template="Nowhere"/>
   </events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>"#;

fn enc() -> Provider {
    let m = load_manifest(MANIFEST.as_bytes()).unwrap();
    m.providers.into_iter().next().unwrap()
}

fn good() -> Vec<Field> {
    let item = |text: &str| Value::Struct(vec![Field::new("Text", Value::String(text.into()))]);
    vec![
        Field::new("Name", Value::String("C:\\a".into())),
        Field::new("Ids", Value::Array(vec![Value::U32(7), Value::U32(8)])),
        Field::new("Blob", Value::Binary(vec![1, 2, 3])),
        Field::new("Tag", Value::Ansi(b"ab".to_vec())),
        Field::new("Pair", Value::Array(vec![Value::U16(1), Value::U16(2)])),
        Field::new("Port", Value::U16(443)),
        Field::new("Ptr", Value::Pointer(0x1234)),
        Field::new("Sid", Value::Sid(vec![1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0])),
        Field::new("Items", Value::Array(vec![item("x"), item("yz")])),
    ]
}

/// `fields` with `name` replaced by `value` (or removed, for `None`).
fn with(name: &str, value: Option<Value>) -> Vec<Field> {
    let mut f = good();
    let i = f.iter().position(|f| f.name == name).unwrap();
    match value {
        Some(v) => f[i].value = v,
        None => {
            f.remove(i);
        }
    }
    f
}

fn err(p: &Provider, id: u16, fields: &[Field], pointer_size: u8) -> (String, String) {
    match p.encode(p.event(id, 0).unwrap(), fields, pointer_size) {
        Err(Error::Encode { field, reason, .. }) => (field, reason),
        other => panic!("expected an encoding error, got {other:?}"),
    }
}

#[test]
fn counts_and_lengths_left_out_are_written_and_given_ones_are_checked() {
    // rule: DEC-17
    let p = enc();
    let e = p.event(1, 0).unwrap();
    let bytes = p.encode(e, &good(), 8).unwrap();
    let decoded = p.decode(e, &bytes, 8).unwrap();
    let find = |name: &str| {
        decoded
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .value
            .clone()
    };
    assert_eq!(find("Count"), Value::U8(2));
    assert_eq!(find("Len"), Value::U16(3));
    assert_eq!(find("Tag"), Value::Ansi(b"ab".to_vec()));
    assert_eq!(find("Port"), Value::U16(443));
    // A port is written in network order, as it is read.
    let port_at = 10 + 1 + 8 + 2 + 3 + 4 + 4;
    assert_eq!(bytes[port_at..port_at + 2], [1, 187]);
    // Struct members' lengths are the member's own.
    let Value::Array(items) = find("Items") else {
        panic!()
    };
    assert_eq!(
        items[1],
        Value::Struct(vec![
            Field::new("N", Value::U8(2)),
            Field::new("Text", Value::String("yz".into())),
        ])
    );
    // Given back, every count and length matches: the same bytes.
    assert_eq!(p.encode(e, &decoded, 8).unwrap(), bytes);
    // A 32-bit writer writes 4-byte pointers.
    let narrow = p.encode(e, &good(), 4).unwrap();
    assert_eq!(narrow.len(), bytes.len() - 4);
    assert_eq!(
        strip(
            &p.decode(e, &narrow, 4).unwrap(),
            &["Count", "Len", "N"].map(String::from).into()
        ),
        good()
    );
    // Descriptor from the manifest.
    let d = e.descriptor();
    assert_eq!((d.id, d.version, d.level.0, d.opcode.0), (1, 0, 3, 1));
}

#[test]
fn a_missing_field_is_named() {
    let p = enc();
    assert_eq!(err(&p, 1, &with("Name", None), 8).0, "Name");
    assert!(err(&p, 1, &with("Name", None), 8).1.contains("missing"));
    // A count field that nothing fills in (its array is missing too) is missing itself.
    let (field, reason) = err(&p, 1, &with("Ids", None), 8);
    assert_eq!(field, "Ids");
    assert!(reason.contains("missing"), "{reason}");
    // A struct member.
    let mut f = with(
        "Items",
        Some(Value::Array(vec![
            Value::Struct(vec![]),
            Value::Struct(vec![]),
        ])),
    );
    let (field, reason) = err(&p, 1, &f, 8);
    assert_eq!(field, "Items[0].Text");
    assert!(reason.contains("missing"), "{reason}");
    // Empty arrays fill their count in with 0.
    f = with("Items", Some(Value::Array(vec![])));
    f.retain(|f| f.name != "Ids");
    f.push(Field::new("Ids", Value::Array(vec![])));
    assert!(p.encode(p.event(1, 0).unwrap(), &f, 8).is_ok());
}

#[test]
fn a_field_the_template_lacks_is_named() {
    let p = enc();
    let mut f = good();
    f.push(Field::new("Extra", Value::U8(1)));
    let (field, reason) = err(&p, 1, &f, 8);
    assert_eq!(field, "Extra");
    assert!(reason.contains("no item"), "{reason}");
    // A struct member the struct lacks.
    let f = with(
        "Items",
        Some(Value::Array(vec![
            Value::Struct(vec![
                Field::new("Text", Value::String("a".into())),
                Field::new("Oops", Value::U8(0)),
            ]),
            Value::Struct(vec![Field::new("Text", Value::String("b".into()))]),
        ])),
    );
    assert_eq!(err(&p, 1, &f, 8).0, "Items[0].Oops");
    // An event without a template takes no fields.
    assert_eq!(
        p.encode(p.event(2, 0).unwrap(), &[], 8).unwrap(),
        Vec::<u8>::new()
    );
    assert_eq!(err(&p, 2, &good()[..1], 8).0, "Name");
}

#[test]
fn a_value_of_the_wrong_variant_is_named() {
    let p = enc();
    let (field, reason) = err(&p, 1, &with("Port", Some(Value::U32(443))), 8);
    assert_eq!(field, "Port");
    assert!(
        reason.contains("U32") && reason.contains("win:UInt16"),
        "{reason}"
    );
    let (field, reason) = err(&p, 1, &with("Ids", Some(Value::U32(1))), 8);
    assert_eq!(field, "Ids");
    assert!(reason.contains("Array"), "{reason}");
    assert_eq!(
        err(&p, 1, &with("Name", Some(Value::Array(vec![]))), 8).0,
        "Name"
    );
    let (field, _) = err(
        &p,
        1,
        &with(
            "Ids",
            Some(Value::Array(vec![Value::U32(1), Value::I32(2)])),
        ),
        8,
    );
    assert_eq!(field, "Ids[1]");
    assert_eq!(
        err(
            &p,
            1,
            &with(
                "Items",
                Some(Value::Array(vec![Value::U8(1), Value::U8(2)]))
            ),
            8
        )
        .0,
        "Items[0]"
    );
    // Values the type cannot hold.
    let (field, reason) = err(&p, 1, &with("Name", Some(Value::String("a\0b".into()))), 8);
    assert_eq!(field, "Name");
    assert!(reason.contains("NUL"), "{reason}");
    assert!(
        err(&p, 1, &with("Sid", Some(Value::Sid(vec![1, 2, 0, 0]))), 8)
            .1
            .contains("SID")
    );
    let (field, reason) = err(&p, 1, &with("Ptr", Some(Value::Pointer(1 << 40))), 4);
    assert_eq!(field, "Ptr");
    assert!(reason.contains("4 bytes"), "{reason}");
    assert!(p.encode(p.event(1, 0).unwrap(), &good(), 5) == Err(Error::PointerSize(5)));
}

#[test]
fn a_length_that_does_not_match_is_named() {
    let p = enc();
    // A count given that does not match its array.
    let mut f = good();
    f.insert(1, Field::new("Count", Value::U8(3)));
    let (field, reason) = err(&p, 1, &f, 8);
    assert_eq!(field, "Ids");
    assert!(reason.contains("count is 3"), "{reason}");
    // Two arrays sharing a count: the first fills it, the second must match.
    let (field, reason) = err(&p, 1, &with("Items", Some(Value::Array(vec![]))), 8);
    assert_eq!(field, "Items");
    assert!(reason.contains("count is 2"), "{reason}");
    // A fixed count.
    assert_eq!(
        err(
            &p,
            1,
            &with("Pair", Some(Value::Array(vec![Value::U16(1)]))),
            8
        )
        .0,
        "Pair"
    );
    // A length given that does not match its binary.
    let mut f = good();
    f.insert(2, Field::new("Len", Value::U16(4)));
    let (field, reason) = err(&p, 1, &f, 8);
    assert_eq!(field, "Blob");
    assert!(
        reason.contains("3 bytes") && reason.contains("length is 4"),
        "{reason}"
    );
    // A fixed-length string longer than its length.
    let (field, reason) = err(&p, 1, &with("Tag", Some(Value::Ansi(b"abcde".to_vec()))), 8);
    assert_eq!(field, "Tag");
    assert!(reason.contains("more than its length 4"), "{reason}");
    // A count filled in that its field's type cannot hold (UInt8: at most 255).
    let many = Value::Array(vec![Value::U32(0); 300]);
    let (field, reason) = err(&p, 1, &with("Ids", Some(many)), 8);
    assert_eq!(field, "Ids");
    assert!(reason.contains("at most 255"), "{reason}");
    // A count field given as something else.
    let mut f = good();
    f.insert(1, Field::new("Count", Value::String("2".into())));
    let (field, reason) = err(&p, 1, &f, 8);
    assert_eq!(field, "Count");
    assert!(reason.contains("String"), "{reason}");
}

#[test]
fn values_beyond_the_decoders_budget_and_missing_templates_are_refused() {
    // rule: DEC-17 (the decoder's value budget)
    let p = enc();
    let blobs = |n| {
        vec![Field::new(
            "Blobs",
            Value::Array(vec![Value::Binary(vec![]); n]),
        )]
    };
    let e = p.event(3, 0).unwrap();
    let ok = p.encode(e, &blobs(4), 8).unwrap();
    assert_eq!(
        p.decode(e, &ok, 8).unwrap()[2].value,
        Value::Array(vec![Value::Binary(vec![]); 4])
    );
    let (field, reason) = err(&p, 3, &blobs(60_000), 8);
    assert_eq!(field, "Blobs");
    assert!(reason.contains("budget"), "{reason}");
    assert!(
        p.decode(e, &[0, 0x60, 0xEA], 8).is_err(),
        "the decoder refuses it too"
    );
    assert!(matches!(
        p.encode(p.event(4, 0).unwrap(), &[], 8),
        Err(Error::NoTemplate { .. })
    ));
}

#[test]
fn a_hand_built_template_with_a_huge_fixed_length_is_refused_not_allocated() {
    // The loader caps fixed counts and lengths at 65535; a template built by hand may not.
    let t = Template {
        tid: "Hand".into(),
        items: vec![Item::Data(DataDef {
            name: "Tag".into(),
            in_type: InType::ANSI_STRING,
            out_type: None,
            count: None,
            length: Some(Param::Fixed(u32::MAX)),
            map: None,
        })],
    };
    match t.encode(&[Field::new("Tag", Value::Ansi(b"a".to_vec()))], 8) {
        Err(Error::Encode { field, reason, .. }) => {
            assert_eq!(field, "Tag");
            assert!(reason.contains("over 65535"), "{reason}");
        }
        other => panic!("expected an encoding error, got {other:?}"),
    }
}
