//! The journal: what the kernel did, in order — control calls, callbacks, routing decisions,
//! buffer switches, flushes and losses.

use crate::common;
use common::*;
use etwsim::{
    EnableParams, EventDescriptor, FlushReason, JournalEvent, Kernel, Keyword, Level, LogFileMode,
    LossCounter, MemorySink, Reason, TraceControl, Win32Error,
};

fn journaling_kernel(capacity: usize) -> Kernel {
    Kernel::builder()
        .cpus(2)
        .deterministic(42)
        .journal(capacity)
        .build()
        .expect("kernel")
}

fn calls(k: &Kernel) -> Vec<String> {
    k.journal()
        .iter()
        .filter_map(|e| match &e.event {
            JournalEvent::Control { call, result, .. } => Some(format!(
                "{call} {}",
                match result {
                    Ok(()) => "ok".to_string(),
                    Err(e) => e.0.to_string(),
                }
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn control_calls_and_their_results_are_journaled_in_order() {
    let k = journaling_kernel(100);
    let app = user_process(&k, "app.exe");
    let _p = app.register_provider(guid(1)).unwrap();
    let s = k.session("one").start().unwrap();
    // A second session of the same name: ERROR_ALREADY_EXISTS.
    let err = k.session("one").start().unwrap_err();
    assert_eq!(err.win32_code(), Win32Error::ERROR_ALREADY_EXISTS);
    s.enable(guid(1), &EnableParams::new()).unwrap();
    s.flush().unwrap();
    s.stop().unwrap();
    assert_eq!(
        calls(&k),
        [
            "EventRegister ok",
            "StartTrace ok",
            "StartTrace 183",
            "EnableTraceEx2(ENABLE_PROVIDER) ok",
            "ControlTrace(FLUSH) ok",
            "ControlTrace(STOP) ok",
        ]
    );
    let seqs: Vec<u64> = k.journal().iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
}

#[test]
fn enable_callbacks_are_journaled_with_the_values_they_carried() {
    // rule: PRV-09
    // rule: PRV-11
    let k = journaling_kernel(100);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let _p = app
        .register_provider_with_callback(guid(2), rec.callback())
        .unwrap();
    let s = k.session("s").start().unwrap();
    s.enable(
        guid(2),
        &EnableParams::new().level(Level::WARNING).any(0x30),
    )
    .unwrap();
    s.stop().unwrap();
    let callbacks: Vec<(u32, u8, u64)> = k
        .journal()
        .iter()
        .filter_map(|e| match &e.event {
            JournalEvent::Callback {
                provider,
                code,
                level,
                match_any,
                ..
            } if *provider == guid(2) => Some((*code, level.0, match_any.0)),
            _ => None,
        })
        .collect();
    assert_eq!(callbacks, [(1, 3, 0x30), (0, 0, 0)]);
    assert_eq!(rec.len(), 2, "the journal saw the callbacks that ran");
    // The enable call is journaled after the callback it caused (it returns after it).
    let text: Vec<String> = k.journal().iter().map(|e| e.event.to_string()).collect();
    let cb = text.iter().position(|t| t.starts_with("callback")).unwrap();
    let en = text
        .iter()
        .position(|t| t.starts_with("EnableTraceEx2"))
        .unwrap();
    assert!(cb < en, "{text:#?}");
}

#[test]
fn each_write_is_journaled_with_every_sessions_verdict() {
    // rule: FLT-01
    // rule: FLT-04
    let k = journaling_kernel(100);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(3)).unwrap();
    let info = k.session("info").start().unwrap();
    info.enable(guid(3), &EnableParams::new().level(Level::INFORMATION))
        .unwrap();
    let net = k.session("net").start().unwrap();
    net.enable(guid(3), &EnableParams::new().level(Level::VERBOSE).any(0x2))
        .unwrap();
    k.take_journal();

    p.write(
        &EventDescriptor::new(5, Level::VERBOSE, Keyword(0x1)),
        &[b"x"],
    )
    .unwrap();
    let j = k.journal();
    assert_eq!(j.len(), 1, "{j:#?}");
    let JournalEvent::Write {
        descriptor,
        result,
        verdicts,
        ..
    } = &j[0].event
    else {
        panic!("{j:#?}")
    };
    assert_eq!(descriptor.id, 5);
    assert_eq!(*result, Ok(()));
    assert_eq!(verdicts.len(), 2);
    assert!(matches!(verdicts[0].reason, Reason::LevelAbove { .. }));
    assert!(matches!(verdicts[1].reason, Reason::NoAnyKeyword { .. }));
    let text = j[0].to_string();
    assert!(
        text.contains("level 5 > session level 4 (FLT-01)"),
        "{text}"
    );
    assert!(
        text.contains("shares no bit with MatchAnyKeyword 0x2 (FLT-04)"),
        "{text}"
    );

    // A write some session takes: its verdict says recorded.
    p.write(
        &EventDescriptor::new(6, Level::ERROR, Keyword(0x2)),
        &[b"x"],
    )
    .unwrap();
    let last = k.journal().pop().unwrap();
    let JournalEvent::Write { verdicts, .. } = &last.event else {
        panic!("{last:#?}")
    };
    assert!(verdicts.iter().all(|v| v.recorded), "{last}");
}

#[test]
fn writes_no_session_enables_are_not_journaled() {
    let k = journaling_kernel(100);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(4)).unwrap();
    k.take_journal();
    p.write(&EventDescriptor::new(1, Level::ERROR, Keyword(0)), &[])
        .unwrap();
    assert!(k.journal().is_empty());
}

#[test]
fn buffer_switches_flushes_and_losses_are_journaled_with_their_counter_and_rule() {
    // rule: BUF-03
    // rule: BUF-04
    // rule: EVT-07
    let k = journaling_kernel(10_000);
    let app = user_process(&k, "burst.exe");
    let p = app.register_provider(guid(5)).unwrap();
    let sink = MemorySink::new();
    let s = k
        .session("Burst")
        .log_file("burst.etl")
        .sink(sink.clone())
        .buffer_size_kb(4)
        .minimum_buffers(2)
        .maximum_buffers(2)
        .start()
        .unwrap();
    s.enable(guid(5), &EnableParams::new()).unwrap();
    let payload = [0u8; 120];
    let d = EventDescriptor::new(1, Level::ERROR, Keyword(0));
    let mut lost_writes = 0;
    for _ in 0..100 {
        if p.write(&d, &[&payload]).is_err() {
            lost_writes += 1;
        }
    }
    let stats = s.stop().unwrap();
    assert!(lost_writes > 0);
    let j = k.journal();
    let switches = j
        .iter()
        .filter(|e| matches!(e.event, JournalEvent::BufferSwitch { .. }))
        .count();
    assert!(switches >= 2, "two buffers were filled in turn");
    let lost: u32 = j
        .iter()
        .filter_map(|e| match &e.event {
            JournalEvent::Loss {
                counter: LossCounter::EventsLost,
                count,
                rule,
                ..
            } => {
                assert_eq!(*rule, "EVT-07");
                Some(*count)
            }
            _ => None,
        })
        .sum();
    assert_eq!(
        lost, stats.events_lost,
        "every lost event is journaled once"
    );
    assert_eq!(lost as usize, lost_writes);
    let failed_writes = j
        .iter()
        .filter(|e| {
            matches!(
                &e.event,
                JournalEvent::Write { result: Err(code), .. }
                    if *code == Win32Error::ERROR_NOT_ENOUGH_MEMORY
            )
        })
        .count();
    assert_eq!(failed_writes, lost_writes);
    let flushed: u32 = j
        .iter()
        .filter_map(|e| match &e.event {
            JournalEvent::Flush {
                buffers, reason, ..
            } => {
                assert!(matches!(
                    reason,
                    FlushReason::Stop | FlushReason::Logger | FlushReason::Control(_)
                ));
                Some(*buffers)
            }
            _ => None,
        })
        .sum();
    assert_eq!(flushed, stats.buffers_written);
    let stop_flush = j.iter().any(|e| {
        matches!(
            e.event,
            JournalEvent::Flush {
                reason: FlushReason::Stop,
                ..
            }
        )
    });
    assert!(stop_flush);
    let _ = TraceControl::Stop;
}

#[test]
fn the_journal_is_bounded_and_counts_what_it_let_go() {
    let k = journaling_kernel(3);
    let app = user_process(&k, "app.exe");
    for n in 0..5 {
        let p = app.register_provider(guid(10 + n)).unwrap();
        std::mem::forget(p);
    }
    let j = k.journal();
    assert_eq!(j.len(), 3);
    assert_eq!(k.journal_dropped(), 2);
    assert_eq!(j[0].seq, 3);
}

#[test]
fn without_a_journal_nothing_is_kept() {
    let k = kernel();
    assert!(!k.is_journaling());
    let app = user_process(&k, "app.exe");
    let _p = app.register_provider(guid(20)).unwrap();
    assert!(k.journal().is_empty());
    assert_eq!(k.journal_dropped(), 0);
}

#[test]
fn a_deterministic_journal_is_the_same_every_run() {
    let run = || {
        let k = journaling_kernel(1000);
        let app = user_process(&k, "app.exe");
        let p = app.register_provider(guid(30)).unwrap();
        let s = k.session("s").buffer_size_kb(4).start().unwrap();
        s.enable(guid(30), &EnableParams::new()).unwrap();
        for i in 0..50 {
            p.write(
                &EventDescriptor::new(i, Level::ERROR, Keyword(0)),
                &[&[0u8; 100]],
            )
            .unwrap();
        }
        s.stop().unwrap();
        k.journal()
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

/// The verdicts of the journal's last Write entry.
fn last_write_verdicts(k: &Kernel) -> (Result<(), Win32Error>, Vec<etwsim::Verdict>, String) {
    let j = k.journal();
    let e = j
        .iter()
        .rev()
        .find(|e| matches!(e.event, JournalEvent::Write { .. }))
        .unwrap_or_else(|| panic!("no Write entry: {j:#?}"));
    let JournalEvent::Write {
        result, verdicts, ..
    } = &e.event
    else {
        unreachable!()
    };
    (*result, verdicts.clone(), e.to_string())
}

fn file_session(k: &Kernel, name: &str, kb: u32, mode: LogFileMode) -> etwsim::Session {
    k.session(name)
        .log_file(&format!("{name}.etl"))
        .mode(mode)
        .sink(MemorySink::new())
        .buffer_size_kb(kb)
        .start()
        .unwrap()
}

#[test]
fn a_withheld_event_is_journaled_as_withheld_and_a_refused_one_as_lost() {
    // rule: EVT-09
    // rule: EVT-06
    let k = journaling_kernel(1000);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(7)).unwrap();
    let small = file_session(&k, "small", 4, LogFileMode::SEQUENTIAL);
    let large = file_session(&k, "large", 8, LogFileMode::SEQUENTIAL);
    small.enable(guid(7), &EnableParams::new()).unwrap();
    large.enable(guid(7), &EnableParams::new()).unwrap();
    k.take_journal();

    let big = vec![0u8; 5000];
    let d = EventDescriptor::new(2, Level::ERROR, Keyword(0));
    assert!(p.write(&d, &[&big]).is_err());
    let (result, verdicts, text) = last_write_verdicts(&k);
    assert_eq!(result, Err(Win32Error::ERROR_MORE_DATA));
    assert_eq!(verdicts.len(), 2, "{text}");
    let of = |name: &str| verdicts.iter().find(|v| v.session_name == name).unwrap();
    // Neither session got the event: "recorded" says what happened.
    assert!(!of("small").recorded, "{text}");
    assert!(!of("large").recorded, "{text}");
    assert_eq!(of("small").reason.rule(), "EVT-06", "{text}");
    assert_eq!(of("large").reason.rule(), "EVT-09", "{text}");
    assert!(
        matches!(&of("large").reason, Reason::Withheld { by, .. } if by == "small"),
        "{text}"
    );
    assert!(text.contains("withheld"), "{text}");
    assert!(text.contains("\"small\""), "{text}");

    // A write both can take is recorded by both.
    p.write(&d, &[b"x"]).unwrap();
    let (_, verdicts, text) = last_write_verdicts(&k);
    assert!(verdicts.iter().all(|v| v.recorded), "{text}");
}

#[test]
fn an_independent_session_records_what_a_dependent_one_refused_and_the_journal_says_so() {
    // rule: EVT-10
    // rule: EVT-09
    let k = journaling_kernel(1000);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(8)).unwrap();
    let small = file_session(&k, "small", 4, LogFileMode::SEQUENTIAL);
    let large = file_session(
        &k,
        "large",
        8,
        LogFileMode::SEQUENTIAL | LogFileMode::INDEPENDENT_SESSION,
    );
    small.enable(guid(8), &EnableParams::new()).unwrap();
    large.enable(guid(8), &EnableParams::new()).unwrap();
    k.take_journal();
    let big = vec![0u8; 5000];
    assert!(
        p.write(&EventDescriptor::new(3, Level::ERROR, Keyword(0)), &[&big])
            .is_err()
    );
    let (_, verdicts, text) = last_write_verdicts(&k);
    let of = |name: &str| verdicts.iter().find(|v| v.session_name == name).unwrap();
    assert!(!of("small").recorded, "{text}");
    assert!(matches!(of("small").reason, Reason::Lost { .. }), "{text}");
    assert!(of("large").recorded, "{text}");

    // The independent session's own refusal does not fail the write, and its verdict says
    // lost (EVT-10).
    let bigger = vec![0u8; 9000];
    p.write(
        &EventDescriptor::new(4, Level::ERROR, Keyword(0)),
        &[&bigger],
    )
    .unwrap_err();
    let (_, verdicts, text) = last_write_verdicts(&k);
    assert!(verdicts.iter().all(|v| !v.recorded), "{text}");
}

#[test]
fn a_tracelogging_write_no_session_wants_is_journaled_like_every_other_write() {
    // rule: FLT-01
    let k = journaling_kernel(1000);
    let app = user_process(&k, "app.exe");
    let p = app
        .register_tracelogging(guid(9), &etwsim::ProviderTraits::new("Tl.Provider"))
        .unwrap();
    let s = k.session("s").start().unwrap();
    s.enable(guid(9), &EnableParams::new().level(Level::WARNING))
        .unwrap();
    k.take_journal();
    p.write_tracelogging(
        "Chatty",
        &EventDescriptor::new(0, Level::VERBOSE, Keyword(0)),
        |_| {},
    )
    .unwrap();
    let (result, verdicts, text) = last_write_verdicts(&k);
    assert_eq!(result, Ok(()));
    assert_eq!(verdicts.len(), 1, "{text}");
    assert!(!verdicts[0].recorded);
    assert!(
        matches!(verdicts[0].reason, Reason::LevelAbove { .. }),
        "{text}"
    );
}

#[test]
fn a_classic_write_is_journaled_with_its_one_session() {
    // rule: FLT-27
    // rule: EVT-06
    let k = journaling_kernel(1000);
    let app = user_process(&k, "app.exe");
    let cp = app
        .register_trace_guids(guid(10), |_: &etwsim::ClassicNotification| {})
        .unwrap();
    let s = k
        .session("classic")
        .log_file("classic.etl")
        .sink(MemorySink::new())
        .buffer_size_kb(4)
        .start()
        .unwrap();
    s.enable(guid(10), &EnableParams::new()).unwrap();
    k.take_journal();
    let logger = cp.logger_handle().expect("enabled");
    let event = |data: &'static [&'static [u8]]| etwsim::ClassicEvent {
        class_type: 1,
        class_level: 4,
        guid: guid(11),
        data,
        ..etwsim::ClassicEvent::default()
    };
    cp.trace_event(logger, &event(&[b"hello"])).unwrap();
    let (result, verdicts, text) = last_write_verdicts(&k);
    assert_eq!(result, Ok(()));
    assert_eq!(verdicts.len(), 1, "{text}");
    assert!(verdicts[0].recorded, "{text}");
    assert_eq!(verdicts[0].reason, Reason::Classic);
    assert_eq!(verdicts[0].session_name, "classic");
    assert!(
        text.contains(&guid(10).to_string()),
        "the control GUID: {text}"
    );

    // Larger than the session's 4 KB buffers: lost (EVT-06), and journaled so.
    static BIG: [u8; 5000] = [0; 5000];
    static DATA: [&[u8]; 1] = [&BIG];
    assert!(cp.trace_event(logger, &event(&DATA)).is_err());
    let (result, verdicts, text) = last_write_verdicts(&k);
    assert_eq!(result, Err(Win32Error::ERROR_MORE_DATA));
    assert!(!verdicts[0].recorded);
    assert_eq!(verdicts[0].reason.rule(), "EVT-06", "{text}");
}
