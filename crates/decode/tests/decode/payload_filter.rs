//! Payload filters (TdhCreatePayloadFilter / TdhAggregatePayloadFilters) evaluated against
//! decoded events of the demo manifest.

use crate::common;

use common::tests_dir;
use etwsim_decode::Error;
use etwsim_decode::fields::{Field, Value};
use etwsim_decode::manifest::filter::{
    AggregateFilter, MAX_PAYLOAD_PREDICATES, PAYLOAD_FILTER_MAGIC, PayloadFilter,
    PayloadOperator as Op, Predicate,
};
use etwsim_decode::manifest::{Provider, load_manifest};

fn demo() -> Provider {
    let bytes = std::fs::read(tests_dir("manifests").join("demo-storage.man")).unwrap();
    load_manifest(&bytes).unwrap().providers.remove(0)
}

/// The fields of an IoTemplate event (Path, Size, Offset, Kind, Access, Status).
fn io(path: &str, size: u32, offset: u64) -> Vec<Field> {
    vec![
        Field::new("Path", Value::String(path.into())),
        Field::new("Size", Value::U32(size)),
        Field::new("Offset", Value::U64(offset)),
        Field::new("Kind", Value::U8(0)),
        Field::new("Access", Value::U32(1)),
        Field::new("Status", Value::U32(0)),
    ]
}

fn one(p: &Provider, pred: Predicate) -> Result<PayloadFilter, Error> {
    PayloadFilter::new(p, p.event(1, 0).unwrap(), false, &[pred])
}

#[test]
fn every_operator_compares_as_documented() {
    // rule: FLT-18
    let p = demo();
    let f = io("C:\\logs\\a.txt", 4096, 3000);
    let cases: &[(&str, Op, &str, bool)] = &[
        ("Size", Op::Eq, "4096", true),
        ("Size", Op::Eq, "0x1000", true),
        ("Size", Op::Ne, "4096", false),
        ("Size", Op::Le, "4096", true),
        ("Size", Op::Gt, "4096", false),
        ("Size", Op::Lt, "5000", true),
        ("Size", Op::Ge, "4097", false),
        ("Size", Op::Between, "4096,8192", true),
        ("Size", Op::Between, "1,4095", false),
        ("Size", Op::NotBetween, "1,4095", true),
        ("Offset", Op::Modulo, "1000", true),
        ("Offset", Op::Modulo, "7", false),
        ("Size", Op::Gt, "-1", true),
        ("Path", Op::Contains, "\\logs\\", true),
        ("Path", Op::DoesntContain, "\\logs\\", false),
        ("Path", Op::Contains, "LOGS", false), // exact case
        ("Path", Op::Is, "C:\\logs\\a.txt", true),
        ("Path", Op::IsNot, "C:\\logs\\a.txt", false),
        ("Size", Op::Is, "4096", true),
    ];
    for &(field, op, value, expect) in cases {
        let filter = one(&p, Predicate::new(field, op, value)).unwrap();
        assert_eq!(filter.matches(&f), expect, "{field} {op:?} {value}");
    }
    // A field the decoded event lacks fails its predicate.
    let filter = one(&p, Predicate::new("Size", Op::Ne, "1")).unwrap();
    assert!(!filter.matches(&f[..1]));
}

#[test]
fn operator_numbers_and_invalid_ones() {
    // rule: FLT-18
    for (code, op) in [
        (0, Op::Eq),
        (6, Op::Between),
        (8, Op::Modulo),
        (20, Op::Contains),
        (31, Op::IsNot),
    ] {
        assert_eq!(Op::try_from(code).unwrap(), op);
        assert_eq!(op.code(), code);
    }
    for code in [Op::INVALID, 9, 19, 22, 33, u16::MAX] {
        let err = Op::try_from(code).unwrap_err();
        assert!(matches!(err, Error::Filter(_)), "{code}");
    }
}

#[test]
fn creation_refuses_what_tdh_refuses() {
    // rule: FLT-18
    let p = demo();
    let e = p.event(1, 0).unwrap();
    let bad = |pred: Predicate| one(&p, pred).unwrap_err().to_string();
    assert!(bad(Predicate::new("Nope", Op::Eq, "1")).contains("Nope"));
    assert!(bad(Predicate::new("Path", Op::Gt, "1")).contains("integer"));
    assert!(bad(Predicate::new("Size", Op::Contains, "1")).contains("string"));
    assert!(bad(Predicate::new("Size", Op::Eq, "ten")).contains("ten"));
    assert!(bad(Predicate::new("Size", Op::Between, "5")).contains("\"5\""));
    assert!(bad(Predicate::new("Size", Op::Modulo, "0")).contains("Modulo"));
    assert!(PayloadFilter::new(&p, e, true, &[]).is_err());
    let nine = vec![Predicate::new("Size", Op::Gt, "1"); MAX_PAYLOAD_PREDICATES + 1];
    assert!(PayloadFilter::new(&p, e, true, &nine).is_err());
    let eight = &nine[..MAX_PAYLOAD_PREDICATES];
    assert!(PayloadFilter::new(&p, e, true, eight).is_ok());
    // Array fields are not filterable (Ids has a count).
    let arrays = p.event(3, 0).unwrap();
    assert!(PayloadFilter::new(&p, arrays, true, &[Predicate::new("Ids", Op::Eq, "1")]).is_err());
}

#[test]
fn match_any_or_all_predicates() {
    // rule: FLT-18
    let p = demo();
    let e = p.event(1, 0).unwrap();
    let preds = [
        Predicate::new("Size", Op::Ge, "1024"),
        Predicate::new("Path", Op::Contains, ".log"),
    ];
    let any = PayloadFilter::new(&p, e, true, &preds).unwrap();
    let all = PayloadFilter::new(&p, e, false, &preds).unwrap();
    let big_txt = io("a.txt", 2048, 0);
    let big_log = io("a.log", 2048, 0);
    let small_txt = io("a.txt", 10, 0);
    assert!(any.matches(&big_txt) && !all.matches(&big_txt));
    assert!(any.matches(&big_log) && all.matches(&big_log));
    assert!(!any.matches(&small_txt) && !all.matches(&small_txt));
}

#[test]
fn aggregated_filters_per_event() {
    // rule: FLT-18
    let p = demo();
    let (v0, v1) = (p.event(1, 0).unwrap(), p.event(1, 1).unwrap());
    let big = PayloadFilter::new(&p, v0, false, &[Predicate::new("Size", Op::Ge, "1024")]).unwrap();
    let log = PayloadFilter::new(
        &p,
        v0,
        false,
        &[Predicate::new("Path", Op::Contains, ".log")],
    )
    .unwrap();
    let remote =
        PayloadFilter::new(&p, v1, false, &[Predicate::new("Size", Op::Lt, "100")]).unwrap();
    assert!(big.applies_to(p.guid, 1, 0) && !big.applies_to(p.guid, 1, 1));

    // Both v0 filters flagged match-all: both must hold.
    let and = AggregateFilter::new(vec![
        (big.clone(), true),
        (log.clone(), true),
        (remote.clone(), true),
    ])
    .unwrap();
    assert!(and.passes(p.guid, 1, 0, &io("a.log", 4096, 0)));
    assert!(!and.passes(p.guid, 1, 0, &io("a.txt", 4096, 0)));
    // The v1 event is judged by its own filter only.
    assert!(and.passes(p.guid, 1, 1, &io("a.txt", 10, 0)));
    assert!(!and.passes(p.guid, 1, 1, &io("a.log", 4096, 0)));
    // An event no filter is bound to passes, as does another provider's event.
    assert!(and.passes(p.guid, 2, 0, &[]));
    assert!(and.passes(etwsim_types::Guid::NULL, 1, 0, &[]));

    // Not flagged: either one suffices.
    let or = AggregateFilter::new(vec![(big, false), (log, false)]).unwrap();
    assert!(or.passes(p.guid, 1, 0, &io("a.txt", 4096, 0)));
    assert!(or.passes(p.guid, 1, 0, &io("a.log", 1, 0)));
    assert!(!or.passes(p.guid, 1, 0, &io("a.txt", 1, 0)));

    assert!(AggregateFilter::new(vec![]).is_err());
}

/// An IoTemplate payload: Path (UTF-16, NUL), Size, Offset, Kind, Access, Status.
fn io_payload(path: &str, size: u32, offset: u64) -> Vec<u8> {
    let mut b: Vec<u8> = path
        .encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect();
    b.extend_from_slice(&size.to_le_bytes());
    b.extend_from_slice(&offset.to_le_bytes());
    b.push(0);
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b
}

#[test]
fn the_wire_form_round_trips_and_carries_the_template() {
    // rule: FLT-18
    let p = demo();
    let (v0, v1) = (p.event(1, 0).unwrap(), p.event(1, 1).unwrap());
    let big = PayloadFilter::new(&p, v0, false, &[Predicate::new("Size", Op::Ge, "1024")]).unwrap();
    let logs = PayloadFilter::new(
        &p,
        v0,
        true,
        &[
            Predicate::new("Path", Op::Contains, ".log"),
            Predicate::new("Offset", Op::Between, "0,0x100"),
        ],
    )
    .unwrap();
    let small = PayloadFilter::new(&p, v1, false, &[Predicate::new("Size", Op::Lt, "9")]).unwrap();
    assert_eq!(big.template(), p.template_of(v0));
    for f in [&big, &logs, &small] {
        assert_eq!(&PayloadFilter::parse(&f.to_bytes()).unwrap(), f);
    }
    let agg = AggregateFilter::new(vec![(big, true), (logs, false), (small, false)]).unwrap();
    let bytes = agg.to_bytes();
    assert_eq!(&bytes[..4], &PAYLOAD_FILTER_MAGIC);
    let back = AggregateFilter::parse(&bytes).unwrap();
    assert_eq!(back, agg);
    assert_eq!(back.provider(), p.guid);
    assert!(back.applies_to(p.guid, 1, 0) && back.applies_to(p.guid, 1, 1));
    assert!(!back.applies_to(p.guid, 2, 0));
    // Every cut is refused, never a panic; so is a byte more.
    for cut in 0..bytes.len() {
        assert!(AggregateFilter::parse(&bytes[..cut]).is_err(), "cut {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(AggregateFilter::parse(&longer).is_err());
    // Flipping any byte gives a filter or an error, never a panic.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5A;
        etwsim_decode::fuzzing::payload_filter(&b);
    }
    etwsim_decode::fuzzing::payload_filter(&bytes);
}

#[test]
fn parsing_rechecks_the_predicates_against_the_carried_template() {
    // rule: FLT-18
    let p = demo();
    let e = p.event(1, 0).unwrap();
    let f = PayloadFilter::new(&p, e, false, &[Predicate::new("Size", Op::Eq, "7")]).unwrap();
    let bytes = f.to_bytes();
    // Turn the predicate's field name "Size" into "Sizf": no such top-level field.
    let at = bytes.windows(5).position(|w| w == b"Size\0").unwrap();
    let mut renamed = bytes.clone();
    renamed[at + 3] = b'f';
    let err = PayloadFilter::parse(&renamed).unwrap_err().to_string();
    assert!(err.contains("Sizf"), "{err}");
    // CompareOp 32 is PAYLOADFIELD_INVALID.
    let mut invalid = bytes.clone();
    invalid[21..23].copy_from_slice(&Op::INVALID.to_le_bytes());
    assert!(PayloadFilter::parse(&invalid).is_err());
    assert!(AggregateFilter::parse(b"nope").is_err());
}

#[test]
fn payloads_are_decoded_with_the_filters_template_and_judged() {
    // rule: FLT-18
    let p = demo();
    let e = p.event(1, 0).unwrap();
    let big = PayloadFilter::new(&p, e, false, &[Predicate::new("Size", Op::Ge, "1024")]).unwrap();
    let logs = PayloadFilter::new(
        &p,
        e,
        false,
        &[Predicate::new("Path", Op::Contains, ".log")],
    )
    .unwrap();
    let and = AggregateFilter::new(vec![(big.clone(), true), (logs.clone(), true)]).unwrap();
    let or = AggregateFilter::new(vec![(big, false), (logs, false)]).unwrap();
    let cases = [
        (io_payload("a.log", 4096, 0), true, true),
        (io_payload("a.txt", 4096, 0), false, true),
        (io_payload("a.log", 10, 0), false, true),
        (io_payload("a.txt", 10, 0), false, false),
    ];
    for (payload, want_and, want_or) in &cases {
        assert_eq!(and.passes_payload(p.guid, 1, 0, payload, 8), *want_and);
        assert_eq!(or.passes_payload(p.guid, 1, 0, payload, 8), *want_or);
        // The same answers as judging the decoded fields.
        let fields = p.decode(e, payload, 8).unwrap();
        assert_eq!(and.passes(p.guid, 1, 0, &fields), *want_and);
    }
    // A payload the template cannot decode has no fields: its predicates fail.
    assert!(!or.passes_payload(p.guid, 1, 0, &[0x41], 8));
    // Events no filter is bound to pass without being decoded.
    assert!(and.passes_payload(p.guid, 2, 0, &[], 8));
}
