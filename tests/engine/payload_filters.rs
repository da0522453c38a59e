//! PAYLOAD filters (FLT-18): built against installed manifests (TdhCreatePayloadFilter,
//! TdhAggregatePayloadFilters), then evaluated on the decoded fields of each manifest event
//! after it is written, per session.

use crate::common;
use common::*;
use etwsim::decode::manifest::filter::{AggregateFilter, PayloadFilter, PayloadOperator as Op};
use etwsim::decode::tracelogging::descriptor;
use etwsim::win32::{
    EnableTraceParameters, EventFilterDescriptor, PAYLOADFIELD_BETWEEN, PAYLOADFIELD_GT,
    PAYLOADFIELD_INVALID, PAYLOADFIELD_IS, PayloadFilterPredicate, Win32,
};
use etwsim::{
    EnableParams, EnableProperty, EventDescriptor, EventFilter, EventRecord, EventView, Guid,
    Kernel, Keyword, Level, MemorySink, Provider, ProviderTraits, Reason, Session, Win32Error,
};

const NOT_FOUND: Win32Error = Win32Error(1168);
const INVALID: Win32Error = Win32Error::ERROR_INVALID_PARAMETER;

/// Event 1000 (Path, Size) of the test manifest, version `v`.
fn io(v: u8) -> EventDescriptor {
    EventDescriptor::new(1000, Level::INFORMATION, Keyword(0x1)).with_version(v)
}

/// Event 1001 (Count, Name).
fn counted() -> EventDescriptor {
    EventDescriptor::new(1001, Level::INFORMATION, Keyword(0x1))
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// Event 1000's payload: Path, then Size.
fn path_size(path: &str, size: u32) -> Vec<u8> {
    let mut b = utf16z(path);
    b.extend_from_slice(&size.to_le_bytes());
    b
}

/// Event 1001's payload: Count, then Name.
fn count_name(count: i64, name: &str) -> Vec<u8> {
    let mut b = count.to_le_bytes().to_vec();
    b.extend_from_slice(name.as_bytes());
    b.push(0);
    b
}

/// A kernel with the test manifest installed for `guid(1)`, and a process's registration.
fn setup() -> (Kernel, Provider) {
    let k = kernel();
    k.install_manifest(&payload_manifest(guid(1))).unwrap();
    let p = user_process(&k, "app.exe")
        .register_provider(guid(1))
        .unwrap();
    (k, p)
}

/// The filter "event 1000 v0 with Size > `n`".
fn size_over(k: &Kernel, n: u32) -> PayloadFilter {
    k.payload_filter(guid(1), &io(0))
        .field("Size", Op::Gt, n)
        .build()
        .unwrap()
}

/// A session enabling `guid(1)` with `filters` aggregated (each with its match-all flag).
fn filtered(k: &Kernel, name: &str, filters: &[(&PayloadFilter, bool)]) -> (Session, MemorySink) {
    let (s, sink) = sink_session(k, name);
    let agg = AggregateFilter::new(
        filters
            .iter()
            .map(|(f, all)| ((*f).clone(), *all))
            .collect(),
    )
    .unwrap();
    s.enable(
        guid(1),
        &EnableParams::new().filter(EventFilter::payload(&agg)),
    )
    .unwrap();
    (s, sink)
}

/// Stops the session and returns, per record, (id, version, payload).
fn recorded(s: &Session, sink: &MemorySink) -> Vec<(u16, u8, Vec<u8>)> {
    let lost = s.query().unwrap().events_lost;
    assert_eq!(lost, 0, "a filtered event is not a lost one");
    s.stop().unwrap();
    sink.records()
        .iter()
        .map(|r: &EventRecord| {
            (
                r.header.descriptor.id,
                r.header.descriptor.version,
                r.user_data.clone(),
            )
        })
        .collect()
}

fn sizes(recs: &[(u16, u8, Vec<u8>)]) -> Vec<u32> {
    recs.iter()
        .filter(|(id, ..)| *id == 1000)
        .map(|(.., p)| u32::from_le_bytes(p[p.len() - 4..].try_into().unwrap()))
        .collect()
}

#[test]
fn a_payload_filter_drops_events_for_its_own_session_only() {
    // rule: FLT-18
    // rule: FLT-20
    // rule: EVT-02
    let (k, p) = setup();
    let big = size_over(&k, 100);
    let (f, f_sink) = filtered(&k, "filtered", &[(&big, false)]);
    let (plain, plain_sink) = sink_session(&k, "plain");
    plain.enable(guid(1), &EnableParams::new()).unwrap();
    for size in [10u32, 200, 100, 101] {
        // The payload in two data blocks: the filter sees them as one.
        let path = utf16z(r"C:\a.txt");
        p.write(&io(0), &[&path, &size.to_le_bytes()]).unwrap();
    }
    // An event no filter is bound to (another id, another version) is not judged.
    p.write(&counted(), &[&count_name(1, "n")]).unwrap();
    p.write(&io(1), &[&path_size("x", 1)]).unwrap();
    let kept = recorded(&f, &f_sink);
    assert_eq!(sizes(&kept), [200, 101, 1]);
    assert_eq!(kept.iter().filter(|(id, ..)| *id == 1001).count(), 1);
    let all = recorded(&plain, &plain_sink);
    assert_eq!(sizes(&all), [10, 200, 100, 101, 1]);
}

#[test]
fn predicates_combine_by_event_match_any_and_filters_by_their_match_all_flags() {
    // rule: FLT-18
    let (k, p) = setup();
    let pf = |v: u8| k.payload_filter(guid(1), &io(v));
    // All predicates: big .log files.
    let big_logs = pf(0)
        .field("Size", Op::Ge, 100)
        .field("Path", Op::Contains, ".log")
        .build()
        .unwrap();
    // Any predicate: tiny, or exactly "special".
    let tiny_or_special = pf(0)
        .field("Size", Op::Lt, 10)
        .field("Path", Op::Is, "special")
        .match_any()
        .build()
        .unwrap();
    let not_tmp = pf(0)
        .field("Path", Op::DoesntContain, "tmp")
        .build()
        .unwrap();
    let v1_even = pf(1).field("Size", Op::Modulo, 2).build().unwrap();
    // Unflagged: either filter of event 1000 v0 suffices.
    let (either, either_sink) = filtered(
        &k,
        "either",
        &[
            (&big_logs, false),
            (&tiny_or_special, false),
            (&v1_even, false),
        ],
    );
    // Flagged: both must hold.
    let (both, both_sink) = filtered(&k, "both", &[(&big_logs, true), (&not_tmp, true)]);
    // Mixed: the flagged one must hold, and one of the unflagged ones.
    let (mixed, mixed_sink) = filtered(
        &k,
        "mixed",
        &[
            (&not_tmp, true),
            (&big_logs, false),
            (&tiny_or_special, false),
        ],
    );
    let cases: [(&str, u32); 7] = [
        ("a.log", 500),
        ("tmp.log", 500),
        ("a.txt", 500),
        ("a.txt", 5),
        ("tmp.txt", 5),
        ("special", 50),
        ("a.log", 50),
    ];
    for (path, size) in cases {
        p.write(&io(0), &[&path_size(path, size)]).unwrap();
    }
    for size in [3, 4] {
        p.write(&io(1), &[&path_size("v1", size)]).unwrap();
    }
    let paths = |recs: Vec<(u16, u8, Vec<u8>)>| -> Vec<(u8, u32)> {
        recs.iter()
            .map(|(_, v, b)| (*v, u32::from_le_bytes(b[b.len() - 4..].try_into().unwrap())))
            .collect()
    };
    assert_eq!(
        paths(recorded(&either, &either_sink)),
        [(0, 500), (0, 500), (0, 5), (0, 5), (0, 50), (1, 4)]
    );
    // Events no filter is bound to (version 1 here) pass.
    assert_eq!(
        paths(recorded(&both, &both_sink)),
        [(0, 500), (1, 3), (1, 4)]
    );
    assert_eq!(
        paths(recorded(&mixed, &mixed_sink)),
        [(0, 500), (0, 5), (0, 50), (1, 3), (1, 4)]
    );
}

#[test]
fn every_operator_filters_written_events() {
    // rule: FLT-18
    let (k, p) = setup();
    // (field, operator, value, the Count values 1001 events carry that pass)
    let int_cases: [(Op, &str, &[i64]); 9] = [
        (Op::Eq, "5", &[5]),
        (Op::Ne, "5", &[-3, 0, 9, 12]),
        (Op::Le, "0", &[-3, 0]),
        (Op::Gt, "5", &[9, 12]),
        (Op::Lt, "0", &[-3]),
        (Op::Ge, "9", &[9, 12]),
        (Op::Between, "0,9", &[0, 5, 9]),
        (Op::NotBetween, "0,9", &[-3, 12]),
        (Op::Modulo, "3", &[-3, 0, 9, 12]),
    ];
    let counts = [-3i64, 0, 5, 9, 12];
    for (i, (op, value, want)) in int_cases.into_iter().enumerate() {
        let f = k
            .payload_filter(guid(1), &counted())
            .field("Count", op, value)
            .build()
            .unwrap();
        let (s, sink) = filtered(&k, &format!("int{i}"), &[(&f, false)]);
        for c in counts {
            p.write(&counted(), &[&count_name(c, "name")]).unwrap();
        }
        let got: Vec<i64> = recorded(&s, &sink)
            .iter()
            .map(|(.., b)| i64::from_le_bytes(b[..8].try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "{op:?} {value}");
    }
    let names = ["alpha", "beta", "alphabet"];
    let text_cases: [(Op, &str, &[&str]); 4] = [
        (Op::Contains, "alpha", &["alpha", "alphabet"]),
        (Op::DoesntContain, "alpha", &["beta"]),
        (Op::Is, "beta", &["beta"]),
        (Op::IsNot, "beta", &["alpha", "alphabet"]),
    ];
    for (i, (op, value, want)) in text_cases.into_iter().enumerate() {
        let f = k
            .payload_filter(guid(1), &counted())
            .field("Name", op, value)
            .build()
            .unwrap();
        let (s, sink) = filtered(&k, &format!("text{i}"), &[(&f, false)]);
        for n in names {
            p.write(&counted(), &[&count_name(1, n)]).unwrap();
        }
        let got: Vec<String> = recorded(&s, &sink)
            .iter()
            .map(|(.., b)| String::from_utf8(b[8..b.len() - 1].to_vec()).unwrap())
            .collect();
        assert_eq!(got, want, "{op:?} {value}");
    }
}

#[test]
fn creating_a_filter_gives_tdhs_codes_and_needs_an_installed_manifest() {
    // rule: FLT-18
    let k = kernel();
    let code = |r: etwsim::Result<PayloadFilter>| r.map(|_| ()).unwrap_err().win32_code();
    // Nothing installed yet: the schema cannot be found.
    let f = || k.payload_filter(guid(1), &io(0)).field("Size", Op::Gt, 1);
    assert_eq!(code(f().build()), NOT_FOUND);
    let m = payload_manifest(guid(1));
    k.install_manifest(&m).unwrap();
    assert_eq!(k.installed_providers(), [guid(1)]);
    assert_eq!(k.installed_provider(guid(1)).unwrap().name, "Test-Payload");
    assert!(f().build().is_ok());
    // An event the manifest does not define.
    let unknown = EventDescriptor::new(7, Level::INFORMATION, Keyword(0));
    let pf = |d: &EventDescriptor| k.payload_filter(guid(1), d);
    assert_eq!(
        code(pf(&unknown).field("Size", Op::Gt, 1).build()),
        NOT_FOUND
    );
    assert_eq!(code(pf(&io(2)).field("Size", Op::Gt, 1).build()), NOT_FOUND);
    // Bad predicates.
    let no_template = EventDescriptor::new(1002, Level::INFORMATION, Keyword(0));
    for bad in [
        pf(&io(0)),
        pf(&io(0)).field("Nope", Op::Eq, 1),
        pf(&io(0)).field("Path", Op::Gt, 1),
        pf(&io(0)).field("Size", Op::Contains, "1"),
        pf(&io(0)).field("Size", Op::Between, 5),
        pf(&io(0)).field("Size", Op::Modulo, 0),
        pf(&io(0)).field("Size", Op::Eq, "ten"),
        pf(&no_template).field("Size", Op::Eq, 1),
        (0..9).fold(pf(&io(0)), |b, _| b.field("Size", Op::Gt, 1)),
    ] {
        assert_eq!(code(bad.build()), INVALID);
    }
    assert!(
        (0..8)
            .fold(pf(&io(0)), |b, _| b.field("Size", Op::Gt, 1))
            .build()
            .is_ok()
    );
    // A filter that would not fit in 4,096 bytes.
    let long = "x".repeat(4096);
    assert_eq!(
        code(pf(&io(0)).field("Path", Op::Is, &long).build()),
        Win32Error::ERROR_INSUFFICIENT_BUFFER
    );
    // wevtutil im: a manifest without providers or with one GUID twice installs nothing.
    let mut twice = m.clone();
    twice.providers.push(m.providers[0].clone());
    twice.providers[1].name = "Other".into();
    let empty = etwsim::decode::manifest::Manifest::default();
    for bad in [&twice, &empty] {
        assert_eq!(k.install_manifest(bad).unwrap_err().win32_code(), INVALID);
    }
    assert_eq!(k.installed_provider(guid(1)).unwrap().name, "Test-Payload");
    // wevtutil um: the schema is gone for new filters.
    assert_eq!(k.uninstall_manifest(&m), 1);
    assert_eq!(k.uninstall_manifest(&m), 0);
    assert_eq!(code(f().build()), NOT_FOUND);
    // Manifests are per kernel.
    let other = kernel();
    assert!(other.installed_providers().is_empty());
}

#[test]
fn the_filter_carries_its_template_and_names_its_provider() {
    // rule: FLT-18
    // rule: FLT-25
    let (k, p) = setup();
    let big = size_over(&k, 100);
    let (s, sink) = filtered(&k, "s", &[(&big, false)]);
    // Uninstalling the manifest does not change what the enabled session filters.
    k.uninstall_manifest(&payload_manifest(guid(1)));
    for size in [1, 1000] {
        p.write(&io(0), &[&path_size("a", size)]).unwrap();
    }
    assert_eq!(sizes(&recorded(&s, &sink)), [1000]);
    // A filter built for another provider, or bytes that are no payload filter, are refused.
    let other = k.session("other").start().unwrap();
    let agg = AggregateFilter::new(vec![(big, false)]).unwrap();
    for f in [
        EventFilter::payload(&agg),
        EventFilter::Payload(b"not a payload filter".to_vec()),
    ] {
        let params = EnableParams::new().filter(f);
        assert_rejected(&k, INVALID, || other.enable(guid(2), &params));
    }
}

#[test]
fn tracelogging_events_are_not_judged_by_payload_filters() {
    // rule: FLT-18
    let k = kernel();
    k.install_manifest(&payload_manifest(guid(1))).unwrap();
    let tl = user_process(&k, "app.exe")
        .register_tracelogging(guid(1), &ProviderTraits::new("Test-Payload"))
        .unwrap();
    let big = size_over(&k, 100);
    let (s, sink) = filtered(&k, "s", &[(&big, false)]);
    // A TraceLogging event with the bound event's id and version: it is no manifest event.
    let d = descriptor(Level::INFORMATION, Keyword(1)).with_version(0);
    let d = EventDescriptor { id: 1000, ..d };
    tl.write_tracelogging("Io", &d, |e| {
        e.value("Size", 1u32);
    })
    .unwrap();
    assert_eq!(recorded(&s, &sink).len(), 1);
}

#[test]
fn payload_filters_act_after_the_event_is_built() {
    // rule: FLT-26
    // rule: FLT-18
    let (k, p) = setup();
    let big = size_over(&k, 100);
    let (s, sink) = filtered(&k, "s", &[(&big, false)]);
    // The enable word stays open: the event is built and submitted, then dropped.
    assert!(p.is_enabled_for(Level::INFORMATION, Keyword(1)));
    let built = std::cell::Cell::new(0);
    p.write_with(&io(0), || {
        built.set(built.get() + 1);
        path_size("a", 1)
    })
    .unwrap();
    assert_eq!(built.get(), 1);
    assert!(recorded(&s, &sink).is_empty());
}

#[test]
fn explain_reports_a_payload_drop_with_flt_18() {
    // rule: FLT-18
    let (k, p) = setup();
    let big = size_over(&k, 100);
    let (s, _sink) = filtered(&k, "s", &[(&big, false)]);
    let small = path_size("a", 1);
    let large = path_size("a", 1000);
    let d = io(0);
    let why = p.explain(&EventView::new(&d).with_payload(&[&small]));
    let v = &why.verdicts[0];
    assert_eq!(v.session, s.handle());
    assert!(!v.recorded);
    assert_eq!(
        v.reason,
        Reason::PayloadFiltered {
            id: 1000,
            version: 0
        }
    );
    assert_eq!(v.reason.rule(), "FLT-18");
    assert_eq!(
        v.reason.to_string(),
        "the payload of event 1000 version 0 does not satisfy the PAYLOAD filter (FLT-18)"
    );
    let why = p.explain(&EventView::new(&d).with_payload(&[&large]));
    assert!(why.verdicts[0].recorded);
    assert_eq!(p.targets(&EventView::new(&d).with_payload(&[&small])), []);
    assert_eq!(
        p.targets(&EventView::new(&d).with_payload(&[&large])),
        [s.handle()]
    );
}

#[test]
fn win32_tdh_functions_build_aggregate_and_free_payload_filters() {
    // rule: FLT-18
    let (k, p) = setup();
    let w = Win32::new(&admin_process(&k, "controller.exe"));
    let pred = |field, op, value| PayloadFilterPredicate {
        field_name: Some(field),
        compare_op: op,
        value: Some(value),
    };
    let create = |d: &EventDescriptor, preds: &[PayloadFilterPredicate<'_>], out: &mut u64| {
        w.tdh_create_payload_filter(
            Some(&guid(1)),
            Some(d),
            false,
            preds.len() as u32,
            Some(preds),
            Some(out),
        )
    };
    let (mut big, mut mid) = (0u64, 0u64);
    assert_eq!(
        create(&io(0), &[pred("Size", PAYLOADFIELD_GT, "100")], &mut big),
        0
    );
    assert_eq!(
        create(
            &io(0),
            &[pred("Size", PAYLOADFIELD_BETWEEN, "40,60")],
            &mut mid
        ),
        0
    );
    assert!(big != 0 && mid != 0 && big != mid);
    // The codes of TdhCreatePayloadFilter.
    let mut h = 0u64;
    let bad_op = [pred("Size", PAYLOADFIELD_INVALID, "1")];
    assert_eq!(create(&io(0), &bad_op, &mut h), INVALID.code());
    let null_value = [PayloadFilterPredicate {
        value: None,
        ..pred("Size", PAYLOADFIELD_IS, "1")
    }];
    assert_eq!(create(&io(0), &null_value, &mut h), INVALID.code());
    let one = [pred("Size", PAYLOADFIELD_GT, "1")];
    assert_eq!(
        w.tdh_create_payload_filter(None, Some(&io(0)), false, 1, Some(&one), Some(&mut h)),
        INVALID.code()
    );
    assert_eq!(
        w.tdh_create_payload_filter(
            Some(&guid(1)),
            Some(&io(0)),
            false,
            2,
            Some(&one),
            Some(&mut h)
        ),
        INVALID.code()
    );
    assert_eq!(
        w.tdh_create_payload_filter(
            Some(&guid(9)),
            Some(&io(0)),
            false,
            1,
            Some(&one),
            Some(&mut h)
        ),
        NOT_FOUND.code()
    );
    assert_eq!(h, 0, "nothing was allocated");

    // Aggregate (EventMatchALLFlags NULL: either filter suffices), enable, write.
    let mut desc = EventFilterDescriptor::default();
    assert_eq!(
        w.tdh_aggregate_payload_filters(2, Some(&[big, mid]), None, Some(&mut desc)),
        0
    );
    assert_eq!(desc.filter_type, etwsim::FilterType::PAYLOAD.0);
    assert_eq!(desc.size as usize, desc.ptr.as_ref().unwrap().len());
    let (s, sink) = sink_session(&k, "s");
    let mut params = EnableTraceParameters::v2(EnableProperty::empty(), &[]);
    params.enable_filter_desc = Some(vec![desc.clone()]);
    params.filter_desc_count = 1;
    assert_eq!(
        w.enable_trace_ex2(s.handle().0, Some(&guid(1)), 1, 4, 0, 0, 0, Some(&params)),
        0
    );
    for size in [10, 50, 500] {
        p.write(&io(0), &[&path_size("a", size)]).unwrap();
    }
    assert_eq!(sizes(&recorded(&s, &sink)), [50, 500]);
    // Flags TRUE on both: both must hold, which no size does.
    let mut both = EventFilterDescriptor::default();
    assert_eq!(
        w.tdh_aggregate_payload_filters(2, Some(&[big, mid]), Some(&[true, true]), Some(&mut both)),
        0
    );
    let (s2, sink2) = sink_session(&k, "s2");
    let mut params = EnableTraceParameters::v2(EnableProperty::empty(), &[]);
    params.enable_filter_desc = Some(vec![both]);
    params.filter_desc_count = 1;
    assert_eq!(
        w.enable_trace_ex2(s2.handle().0, Some(&guid(1)), 1, 4, 0, 0, 0, Some(&params)),
        0
    );
    for size in [10, 50, 500] {
        p.write(&io(0), &[&path_size("a", size)]).unwrap();
    }
    assert!(recorded(&s2, &sink2).is_empty());

    // Bad aggregates: no filters, an unknown handle, a short flag array, a NULL output.
    let mut out = EventFilterDescriptor::default();
    assert_eq!(
        w.tdh_aggregate_payload_filters(0, Some(&[]), None, Some(&mut out)),
        INVALID.code()
    );
    assert_eq!(
        w.tdh_aggregate_payload_filters(1, Some(&[big + 1]), None, Some(&mut out)),
        INVALID.code()
    );
    assert_eq!(
        w.tdh_aggregate_payload_filters(2, Some(&[big, mid]), Some(&[true]), Some(&mut out)),
        INVALID.code()
    );
    assert_eq!(
        w.tdh_aggregate_payload_filters(1, Some(&[big]), None, None),
        INVALID.code()
    );
    assert_eq!(out, EventFilterDescriptor::default());

    // Freeing: the descriptor is re-initialised; the handles become invalid.
    assert_eq!(
        w.tdh_cleanup_payload_event_filter_descriptor(Some(&mut desc)),
        0
    );
    assert_eq!(desc, EventFilterDescriptor::default());
    assert_eq!(
        w.tdh_cleanup_payload_event_filter_descriptor(Some(&mut desc)),
        INVALID.code()
    );
    assert_eq!(
        w.tdh_cleanup_payload_event_filter_descriptor(None),
        INVALID.code()
    );
    let stale = big;
    assert_eq!(w.tdh_delete_payload_filter(Some(&mut big)), 0);
    assert_eq!(big, 0);
    let mut again = stale;
    assert_eq!(
        w.tdh_delete_payload_filter(Some(&mut again)),
        INVALID.code()
    );
    assert_eq!(w.tdh_delete_payload_filter(None), INVALID.code());
    assert_eq!(
        w.tdh_aggregate_payload_filters(1, Some(&[stale]), None, Some(&mut out)),
        INVALID.code()
    );
    assert_eq!(w.tdh_delete_payload_filter(Some(&mut mid)), 0);
}

#[test]
fn filters_of_two_providers_do_not_aggregate() {
    // rule: FLT-18
    let k = kernel();
    k.install_manifest(&payload_manifest(guid(1))).unwrap();
    k.install_manifest(&payload_manifest(guid(2))).unwrap();
    let make = |g: Guid| {
        k.payload_filter(g, &io(0))
            .field("Size", Op::Gt, 1)
            .build()
            .unwrap()
    };
    assert!(AggregateFilter::new(vec![(make(guid(1)), false), (make(guid(2)), false)]).is_err());
    let w = Win32::new(&k.system_process());
    let one = [PayloadFilterPredicate {
        field_name: Some("Size"),
        compare_op: PAYLOADFIELD_GT,
        value: Some("1"),
    }];
    let mut h = [0u64; 2];
    for (i, g) in [guid(1), guid(2)].iter().enumerate() {
        assert_eq!(
            w.tdh_create_payload_filter(
                Some(g),
                Some(&io(0)),
                true,
                1,
                Some(&one),
                Some(&mut h[i])
            ),
            0
        );
    }
    let mut out = EventFilterDescriptor::default();
    assert_eq!(
        w.tdh_aggregate_payload_filters(2, Some(&h), None, Some(&mut out)),
        INVALID.code()
    );
}
