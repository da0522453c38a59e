//! Property: any list of fields — every InType, every array kind, nested structs and arrays
//! of structs, any OutType and tags — encodes and decodes back to the same definitions and
//! values, and the decoded fields re-encode to the same bytes.

use etwsim_decode::tracelogging::{
    Arity, EventBuilder, EventSchema, Field, FieldDef, InType, MAX_TAG, OutType, SystemTime, Value,
    decode_event, encode,
};
use etwsim_types::Guid;
use proptest::prelude::*;

const SCALAR_TYPES: [InType; 24] = [
    InType::UNICODE_STRING,
    InType::ANSI_STRING,
    InType::INT8,
    InType::UINT8,
    InType::INT16,
    InType::UINT16,
    InType::INT32,
    InType::UINT32,
    InType::INT64,
    InType::UINT64,
    InType::FLOAT,
    InType::DOUBLE,
    InType::BOOL32,
    InType::BINARY,
    InType::GUID,
    InType::POINTER,
    InType::FILETIME,
    InType::SYSTEMTIME,
    InType::SID,
    InType::HEXINT32,
    InType::HEXINT64,
    InType::COUNTED_STRING,
    InType::COUNTED_ANSI_STRING,
    InType::COUNTED_BINARY,
];

fn name() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::char::range('a', 'z'), 1..6)
        .prop_map(|c| c.into_iter().collect())
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>().prop_filter("no NUL", |c| *c != '\0'), 0..6)
        .prop_map(|c| c.into_iter().collect())
}

fn bytes(nul: bool) -> impl Strategy<Value = Vec<u8>> {
    let low = if nul { 0u8 } else { 1 };
    proptest::collection::vec(low..=255u8, 0..8)
}

fn arity(in_type: InType) -> impl Strategy<Value = Arity> {
    let mut kinds: Vec<(u32, BoxedStrategy<Arity>)> = vec![(4, Just(Arity::Scalar).boxed())];
    if in_type != InType::BINARY {
        kinds.push((1, (0u16..4).prop_map(Arity::Fixed).boxed()));
        kinds.push((1, Just(Arity::Variable).boxed()));
    }
    if in_type != InType::STRUCT {
        kinds.push((1, bytes(true).prop_map(Arity::Custom).boxed()));
    }
    proptest::strategy::Union::new_weighted(kinds)
}

fn tag() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), 0..=MAX_TAG]
}

/// A field definition: a scalar type, or a struct of up to four members, nested.
fn shape() -> impl Strategy<Value = FieldDef> {
    let leaf = (
        name(),
        proptest::sample::select(&SCALAR_TYPES[..]),
        0u8..128,
        tag(),
    )
        .prop_flat_map(|(n, t, out, tag)| {
            arity(t).prop_map(move |a| {
                FieldDef::new(n.clone(), t)
                    .with_out_type(OutType(out))
                    .with_tag(tag)
                    .with_arity(a)
            })
        });
    leaf.prop_recursive(3, 24, 4, |inner| {
        (name(), proptest::collection::vec(inner, 0..4), tag()).prop_flat_map(
            |(n, members, tag)| {
                arity(InType::STRUCT).prop_map(move |a| {
                    FieldDef::structure(n.clone(), members.clone())
                        .with_tag(tag)
                        .with_arity(a)
                })
            },
        )
    })
}

fn finite_f32() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("NaN is never equal", |f| !f.is_nan())
}

fn finite_f64() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("NaN is never equal", |f| !f.is_nan())
}

/// One value of `def`'s InType.
fn one(def: &FieldDef) -> BoxedStrategy<Value> {
    match def.in_type {
        InType::STRUCT => {
            let members: Vec<BoxedStrategy<Field>> = def
                .members
                .iter()
                .map(|m| {
                    let m2 = m.clone();
                    value_of(m)
                        .prop_map(move |value| Field::with_def(m2.clone(), value))
                        .boxed()
                })
                .collect();
            members.prop_map(Value::Struct).boxed()
        }
        InType::UNICODE_STRING => text().prop_map(Value::String).boxed(),
        InType::ANSI_STRING => bytes(false).prop_map(Value::Ansi).boxed(),
        InType::INT8 => any::<i8>().prop_map(Value::I8).boxed(),
        InType::UINT8 => any::<u8>().prop_map(Value::U8).boxed(),
        InType::INT16 => any::<i16>().prop_map(Value::I16).boxed(),
        InType::UINT16 => any::<u16>().prop_map(Value::U16).boxed(),
        InType::INT32 => any::<i32>().prop_map(Value::I32).boxed(),
        InType::UINT32 => any::<u32>().prop_map(Value::U32).boxed(),
        InType::INT64 => any::<i64>().prop_map(Value::I64).boxed(),
        InType::UINT64 => any::<u64>().prop_map(Value::U64).boxed(),
        InType::FLOAT => finite_f32().prop_map(Value::F32).boxed(),
        InType::DOUBLE => finite_f64().prop_map(Value::F64).boxed(),
        InType::BOOL32 => any::<i32>().prop_map(Value::Bool32).boxed(),
        InType::GUID => any::<u128>()
            .prop_map(|v| Value::Guid(Guid::from_u128(v)))
            .boxed(),
        InType::POINTER => any::<u64>().prop_map(Value::Pointer).boxed(),
        InType::FILETIME => any::<i64>().prop_map(Value::FileTime).boxed(),
        InType::SYSTEMTIME => any::<[u16; 8]>()
            .prop_map(|w| Value::SystemTime(SystemTime::from_words(w)))
            .boxed(),
        InType::SID => (any::<u8>(), 0u8..16, any::<[u8; 6]>(), any::<[u32; 15]>())
            .prop_map(|(rev, n, auth, subs)| {
                let mut b = vec![rev, n];
                b.extend_from_slice(&auth);
                for s in &subs[..usize::from(n)] {
                    b.extend_from_slice(&s.to_le_bytes());
                }
                Value::Sid(b)
            })
            .boxed(),
        InType::HEXINT32 => any::<u32>().prop_map(Value::HexInt32).boxed(),
        InType::HEXINT64 => any::<u64>().prop_map(Value::HexInt64).boxed(),
        InType::COUNTED_STRING => proptest::collection::vec(any::<char>(), 0..6)
            .prop_map(|c| Value::CountedString(c.into_iter().collect()))
            .boxed(),
        InType::COUNTED_ANSI_STRING => bytes(true).prop_map(Value::CountedAnsi).boxed(),
        _ => bytes(true).prop_map(Value::Binary).boxed(), // BINARY, COUNTEDBINARY
    }
}

/// A value for the whole field: one value, an array, or a CUSTOM field's bytes.
fn value_of(def: &FieldDef) -> BoxedStrategy<Value> {
    match &def.arity {
        Arity::Scalar => one(def),
        Arity::Fixed(n) => proptest::collection::vec(one(def), usize::from(*n))
            .prop_map(Value::Array)
            .boxed(),
        Arity::Variable => proptest::collection::vec(one(def), 0..4)
            .prop_map(Value::Array)
            .boxed(),
        Arity::Custom(_) => bytes(true).prop_map(Value::Binary).boxed(),
    }
}

fn event() -> impl Strategy<Value = (String, u32, Vec<Field>)> {
    (name(), tag(), proptest::collection::vec(shape(), 0..6)).prop_flat_map(|(n, t, defs)| {
        let fields: Vec<BoxedStrategy<Field>> = defs
            .into_iter()
            .map(|d| {
                let d2 = d.clone();
                value_of(&d)
                    .prop_map(move |value| Field::with_def(d2.clone(), value))
                    .boxed()
            })
            .collect();
        (Just(n), Just(t), fields)
    })
}

/// Struct definitions lose their OutType (the byte is the member count): compare without it.
fn normalised(mut def: FieldDef) -> FieldDef {
    if def.in_type == InType::STRUCT {
        def.out_type = OutType::DEFAULT;
        def.members = def.members.into_iter().map(normalised).collect();
    }
    def
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn encode_then_decode_gives_the_fields_back((n, t, fields) in event()) {
        // rule: DEC-05
        // rule: DEC-07
        // rule: DEC-08
        // rule: DEC-09
        // rule: DEC-13
        let fields: Vec<Field> = fields
            .into_iter()
            .map(|f| Field::with_def(normalised(f.def.expect("generated")), f.value))
            .collect();
        let mut b = EventBuilder::new(n.clone());
        b.tag(t);
        for f in &fields {
            b.field(f.def.clone().expect("generated"), f.value.clone());
        }
        let built = b.build().expect("a generated event builds");
        let schema = EventSchema::parse(&built.metadata).expect("its metadata parses");
        prop_assert_eq!(&schema.name, &n);
        prop_assert_eq!(schema.tag, t);
        let decoded = decode_event(&built.metadata, &built.payload).expect("it decodes");
        prop_assert_eq!(decoded.trailing_bytes, 0);
        prop_assert_eq!(&decoded.fields, &fields);
        // And the decoded fields encode to the same bytes.
        let (meta, payload) = encode(&n, t, &decoded.fields).expect("decoded fields encode");
        prop_assert_eq!(meta, built.metadata);
        prop_assert_eq!(payload, built.payload);
    }
}
