//! export → import gives back the registry, for random registries, in both encodings.

use etwsim_registry::{ExportOptions, ImportOptions, ROOTS, Registry, Value, ValueType};
use proptest::collection::vec;
use proptest::prelude::*;

/// Characters that stress the grammar: quotes, brackets, escapes, comment and delete
/// markers, spaces, non-ASCII (two- and four-byte UTF-8).
fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range('a', 'z'),
        1 => proptest::char::range('A', 'Z'),
        1 => prop::sample::select(vec![
            ' ', '\t', ']', '[', '"', '-', ';', '=', '@', 'é', '€', '\u{1F600}', ',', '(', ')',
        ]),
    ]
}

fn key_name() -> impl Strategy<Value = String> {
    vec(tricky_char(), 1..8).prop_map(|c| c.into_iter().collect())
}

fn value_name() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        8 => tricky_char(),
        1 => prop::sample::select(vec!['\\', '\n', '\r']),
    ];
    vec(c, 0..8).prop_map(|c| c.into_iter().collect())
}

fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        8 => tricky_char(),
        1 => prop::sample::select(vec!['\\', '\n', '\r', '\0']),
    ];
    vec(c, 0..12).prop_map(|c| c.into_iter().collect())
}

/// Values every encoding carries exactly.
fn portable_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u32>().prop_map(Value::dword),
        any::<u32>().prop_map(Value::dword_big_endian),
        any::<u64>().prop_map(Value::qword),
        text().prop_map(|s| Value::sz(&s)),
        text().prop_map(|s| Value::expand_sz(&s)),
        vec(text(), 0..3).prop_map(|v| Value::multi_sz(&v)),
        vec(any::<u8>(), 0..100).prop_map(Value::binary),
        // Any non-string type, documented or not, with any bytes (a 3-byte REG_DWORD too).
        (any::<u32>(), vec(any::<u8>(), 0..20))
            .prop_filter("string types are generated apart", |(t, _)| {
                !ValueType(*t).is_string()
            })
            .prop_map(|(t, d)| Value::new(ValueType(t), d)),
        (0u32..12, vec(any::<u8>(), 0..12))
            .prop_filter("string types are generated apart", |(t, _)| {
                !ValueType(*t).is_string()
            })
            .prop_map(|(t, d)| Value::new(ValueType(t), d)),
    ]
}

/// String-typed data that is not text at all (odd lengths, lone surrogates) but ends in a
/// NUL: only a UTF-16 file carries it exactly.
fn raw_string_value() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![1u32, 2, 7]),
        vec(any::<u8>(), 0..16),
    )
        .prop_map(|(t, mut d)| {
            if !d.is_empty() {
                d.extend([0, 0]);
            }
            Value::new(ValueType(t), d)
        })
}

type Entry = (usize, Vec<String>, Vec<(String, Value)>);

fn registry(values: impl Strategy<Value = Value>) -> impl Strategy<Value = Registry> {
    let entry = (
        0..ROOTS.len(),
        vec(key_name(), 0..4),
        vec((value_name(), values), 0..4),
    );
    vec(entry, 0..6).prop_map(|entries: Vec<Entry>| {
        let mut reg = Registry::new();
        for (root, names, values) in entries {
            let mut path = ROOTS[root].to_owned();
            for n in names {
                path.push('\\');
                path.push_str(&n);
            }
            let key = reg.create_key(&path).expect("generated names are valid");
            for (name, v) in values {
                key.set_value(&name, v).expect("generated names are valid");
            }
        }
        reg
    })
}

fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![4 => portable_value(), 1 => raw_string_value()]
}

proptest! {
    #[test]
    fn utf16_export_imports_back_equal(reg in registry(any_value())) {
        let bytes = reg.export_reg();
        let (back, report) = Registry::from_reg(&bytes).expect("a registry script");
        prop_assert!(report.issues.is_empty(), "{:?}\n{}", report.issues, reg.export_reg_text());
        prop_assert_eq!(&back, &reg, "{}", reg.export_reg_text());
        // Strict import agrees.
        let mut strict = Registry::new();
        strict.import_reg_with(&bytes, &ImportOptions::strict()).expect("no issue");
        prop_assert_eq!(&strict, &reg);
    }

    #[test]
    fn utf8_export_imports_back_equal(reg in registry(portable_value())) {
        let bytes = reg.export_reg_with(&ExportOptions::utf8());
        let (back, report) = Registry::from_reg(&bytes).expect("a registry script");
        prop_assert!(report.issues.is_empty(), "{:?}", report.issues);
        prop_assert_eq!(&back, &reg, "{}", String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn string_data_without_a_nul_gains_one_as_documented() {
    // rule: REG-12
    let mut reg = Registry::new();
    reg.set_value(r"HKCU\K", "s", Value::new(ValueType::SZ, [0x41, 0x00]))
        .unwrap();
    let (back, _) = Registry::from_reg(&reg.export_reg()).unwrap();
    assert_eq!(back.value(r"HKCU\K", "s"), Some(&Value::sz("A")));
}
