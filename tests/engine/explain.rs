//! `Provider::explain`: each session's verdict on an event and why, as the write decides it.

use crate::common;
use common::*;
use etwsim::{
    EnableParams, EnableProperty, EventDescriptor, EventFilter, EventView, Keyword, Level,
    MemorySink, NameFilter, ProviderTraits, Reason,
};

#[test]
fn explain_names_the_rule_and_the_values_compared() {
    // rule: FLT-01
    // rule: FLT-04
    // rule: FLT-07
    // rule: FLT-19
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(1)).unwrap();
    let info = k.session("info").start().unwrap();
    info.enable(guid(1), &EnableParams::new().level(Level::INFORMATION))
        .unwrap();
    let net = k.session("net").start().unwrap();
    net.enable(
        guid(1),
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(0x2)
            .property(EnableProperty::IGNORE_KEYWORD_0)
            .filter(EventFilter::EventId {
                filter_in: false,
                ids: vec![9],
            }),
    )
    .unwrap();
    let why = |id, level, kw| {
        let d = EventDescriptor::new(id, level, Keyword(kw));
        p.explain(&EventView::new(&d))
    };
    let e = why(3, Level::VERBOSE, 0x2);
    assert_eq!(e.verdicts.len(), 2);
    assert_eq!(
        e.verdicts[0].reason,
        Reason::LevelAbove {
            level: Level::VERBOSE,
            session_level: Level::INFORMATION
        }
    );
    assert_eq!(
        e.verdicts[0].reason.to_string(),
        "level 5 > session level 4 (FLT-01)"
    );
    assert!(e.verdicts[1].recorded);
    assert_eq!(e.verdicts[1].session_name, "net");
    let e = why(1, Level::INFORMATION, 0x1);
    assert!(e.verdicts[0].recorded);
    assert_eq!(
        e.verdicts[1].reason.to_string(),
        "keyword 0x1 shares no bit with MatchAnyKeyword 0x2 (FLT-04)"
    );
    let e = why(22, Level::WARNING, 0);
    assert_eq!(e.verdicts[1].reason, Reason::KeywordZeroIgnored);
    assert_eq!(e.verdicts[1].reason.rule(), "FLT-07");
    let e = why(9, Level::INFORMATION, 0x2);
    assert_eq!(
        e.verdicts[1].reason,
        Reason::EventIdFiltered {
            id: 9,
            filter_in: false
        }
    );
    let shown = e.to_string();
    assert!(
        shown.contains("info  recorded") && shown.contains("net  dropped"),
        "{shown}"
    );
}

#[test]
fn explain_agrees_with_what_the_sessions_record() {
    // rule: FLT-20
    // rule: FLT-22
    // rule: PRV-36
    // A grid of events through three differently filtered sessions, one of them through the
    // provider's group: every verdict matches what the session's sink holds.
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let group = guid(40);
    let p = app
        .register_tracelogging(guid(1), &ProviderTraits::new("P").with_group(group))
        .unwrap();
    let sinks: Vec<(etwsim::Session, MemorySink)> = (0..3)
        .map(|i| {
            let sink = MemorySink::new();
            let s = k
                .session(&format!("s{i}"))
                .log_file(&format!("s{i}.etl"))
                .sink(sink.clone())
                .start()
                .unwrap();
            (s, sink)
        })
        .collect();
    sinks[0]
        .0
        .enable(guid(1), &EnableParams::new().level(Level::WARNING).any(0x3))
        .unwrap();
    sinks[1]
        .0
        .enable(
            guid(1),
            &EnableParams::new()
                .all(0x5)
                .any(0x4)
                .filter(EventFilter::EventName(NameFilter {
                    match_any: Keyword(0),
                    match_all: Keyword(0),
                    level: Level(0),
                    filter_in: true,
                    names: vec!["Keep".into()],
                })),
        )
        .unwrap();
    sinks[2]
        .0
        .enable(
            group,
            &EnableParams::new()
                .level(Level::INFORMATION)
                .property(EnableProperty::PROVIDER_GROUP | EnableProperty::IGNORE_KEYWORD_0),
        )
        .unwrap();
    let mut expected = vec![0usize; 3];
    let mut n = 0u16;
    for level in [
        Level::ERROR,
        Level::WARNING,
        Level::INFORMATION,
        Level::VERBOSE,
    ] {
        for kw in [0u64, 0x1, 0x4, 0x5, 0x8] {
            for name in ["Keep", "Drop"] {
                n += 1;
                let d = EventDescriptor::new(n, level, Keyword(kw));
                let view = EventView {
                    name: Some(name),
                    ..EventView::new(&d)
                };
                let e = p.explain(&view);
                assert_eq!(e.verdicts.len(), 3);
                for v in e.recorded_by() {
                    let i = sinks
                        .iter()
                        .position(|(s, _)| s.handle() == v.session)
                        .unwrap();
                    expected[i] += 1;
                }
                let opts = etwsim::WriteOptions {
                    event_name: Some(name),
                    ..etwsim::WriteOptions::default()
                };
                p.write_with_options(&d, &opts, &[]).unwrap();
            }
        }
    }
    for (i, (s, sink)) in sinks.iter().enumerate() {
        s.stop().unwrap();
        assert_eq!(sink.records().len(), expected[i], "session s{i}");
    }
    assert!(expected.iter().all(|&n| n > 0), "{expected:?}");
}

#[test]
fn an_enable_that_does_not_reach_the_writer_names_the_scope_rule() {
    // rule: FLT-16
    // rule: FLT-17
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let other = user_process(&k, "other.exe");
    let p = app.register_provider(guid(5)).unwrap();
    let by_pid = k.session("by_pid").start().unwrap();
    by_pid
        .enable(
            guid(5),
            &EnableParams::new().filter(EventFilter::Pid(vec![other.pid()])),
        )
        .unwrap();
    let by_name = k.session("by_name").start().unwrap();
    by_name
        .enable(
            guid(5),
            &EnableParams::new().filter(EventFilter::ExecutableName("other.exe".into())),
        )
        .unwrap();
    let both = k.session("both").start().unwrap();
    both.enable(guid(5), &EnableParams::new()).unwrap();
    let d = EventDescriptor::new(1, Level::ERROR, Keyword(0x1));
    let e = p.explain(&EventView::new(&d));
    let of = |name: &str| {
        e.verdicts
            .iter()
            .find(|v| v.session_name == name)
            .unwrap()
            .clone()
    };
    assert_eq!(of("by_pid").reason, Reason::OutOfScope { rule: "FLT-16" });
    assert_eq!(of("by_name").reason, Reason::OutOfScope { rule: "FLT-17" });
    assert!(
        of("by_pid")
            .reason
            .to_string()
            .contains("PID filter does not name the writing process (FLT-16)")
    );
    assert!(of("both").recorded);
    assert_eq!(
        of("both").reason.rule(),
        "FLT-05",
        "MatchAny 0 takes every keyword"
    );
    let _ = MemorySink::new();
}

#[test]
fn every_reason_cites_the_rule_its_text_cites() {
    // rule: FLT-04
    // rule: FLT-05
    use etwsim::{Keyword as K, Win32Error};
    let reasons = [
        Reason::Accepted {
            level: Level::ERROR,
            session_level: Level::VERBOSE,
            keyword: K(0x1),
            match_any: K(0x1),
        },
        Reason::Accepted {
            level: Level::ERROR,
            session_level: Level::VERBOSE,
            keyword: K(0),
            match_any: K(0x1),
        },
        Reason::Accepted {
            level: Level::ERROR,
            session_level: Level::VERBOSE,
            keyword: K(0x8),
            match_any: K(u64::MAX),
        },
        Reason::SessionStopping,
        Reason::OutOfScope { rule: "SES-42" },
        Reason::LevelAbove {
            level: Level::VERBOSE,
            session_level: Level::ERROR,
        },
        Reason::KeywordZeroIgnored,
        Reason::NoAnyKeyword {
            keyword: K(0x1),
            match_any: K(0x2),
        },
        Reason::MissingAllKeyword {
            keyword: K(0x1),
            match_all: K(0x3),
        },
        Reason::ExcludedByWriteFilter { slot: 2 },
        Reason::InPrivateExcluded,
        Reason::EventIdFiltered {
            id: 3,
            filter_in: true,
        },
        Reason::EventNameFiltered {
            name: "N".into(),
            filter_in: false,
        },
        Reason::PayloadFiltered { id: 1, version: 0 },
        Reason::Lost {
            error: Win32Error::ERROR_NOT_ENOUGH_MEMORY,
            rule: "EVT-07",
        },
        Reason::Withheld {
            by: "S".into(),
            error: Win32Error::ERROR_MORE_DATA,
        },
    ];
    for r in &reasons {
        let text = r.to_string();
        assert!(
            text.ends_with(&format!("({})", r.rule())),
            "{r:?}: {text} does not end with ({})",
            r.rule()
        );
    }
    assert_eq!(reasons[8].rule(), "FLT-04", "MatchAll is half of FLT-04");
}
