//! `etwsim::testing`: capture without flush or stop, decoded records, matchers that fail with
//! what was captured, and the payload probe.

use crate::common;
use common::*;
use etwsim::testing::{Capture, Match, PayloadProbe};
use etwsim::{EnableParams, EventDescriptor, Keyword, Level, WriteOptions};
use etwsim_decode::manifest::Manifest;
use etwsim_decode::tracelogging::EventBuilder;

#[test]
fn capture_returns_records_without_flush_or_stop_and_keeps_the_sessions_running() {
    let cap = Capture::new()
        .enable("S", guid(1), &EnableParams::new())
        .unwrap();
    let p = cap.process().register_provider(guid(1)).unwrap();
    for id in 1..=3 {
        p.write(&EventDescriptor::new(id, Level::ERROR, Keyword(0)), &[b"x"])
            .unwrap();
    }
    let first = cap.records();
    assert_eq!(first.len(), 3);
    first.expect(Match::event(2).session("S")).once();
    assert!(cap.session("S").unwrap().is_running());
    // More writes after a look: the next look has every event once.
    p.write(&EventDescriptor::new(4, Level::ERROR, Keyword(0)), &[b"x"])
        .unwrap();
    let second = cap.records();
    assert_eq!(second.len(), 4);
    second.expect(Match::any()).times(4);
}

#[test]
fn matchers_name_the_session_keyword_and_count() {
    // rule: FLT-04
    let cap = Capture::new()
        .enable("S", guid(2), &EnableParams::new().any(0x10))
        .unwrap()
        .enable("T", guid(2), &EnableParams::new().any(0x20))
        .unwrap();
    let p = cap.process().register_provider(guid(2)).unwrap();
    p.write(&EventDescriptor::new(7, Level::ERROR, Keyword(0x10)), &[])
        .unwrap();
    p.write(&EventDescriptor::new(7, Level::ERROR, Keyword(0x30)), &[])
        .unwrap();
    let r = cap.records();
    r.expect(Match::event(7).keyword(0x10).session("S")).once();
    r.expect(Match::event(7).keyword(0x10).session("T")).never();
    r.expect(Match::event(7).keyword_any(0x20)).times(2); // 0x30 in both sessions
    r.expect(Match::event(7).provider(guid(2))).at_least(3);
    assert_eq!(r.expect(Match::event(7).session("S")).count(), 2);
}

#[test]
fn a_failed_expectation_lists_what_was_captured() {
    let cap = Capture::new()
        .enable("S", guid(3), &EnableParams::new())
        .unwrap();
    let p = cap.process().register_provider(guid(3)).unwrap();
    p.write(&EventDescriptor::new(5, Level::ERROR, Keyword(0x4)), &[])
        .unwrap();
    let r = cap.records();
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        r.expect(Match::event(7).keyword(0x10).session("S")).once();
    }))
    .unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(
        msg.starts_with(
            "expected exactly 1 event 7 with keyword 0x10 recorded by session \"S\", found 0"
        ),
        "{msg}"
    );
    assert!(msg.contains("id 5 level 2 keyword 0x4"), "{msg}");
}

#[test]
fn nothing_written_and_the_payload_never_built() {
    // rule: EVT-02
    let cap = Capture::new()
        .enable("S", guid(4), &EnableParams::new().level(Level::WARNING))
        .unwrap();
    let p = cap.process().register_provider(guid(4)).unwrap();
    let probe = PayloadProbe::new();
    p.write_with(
        &EventDescriptor::new(1, Level::VERBOSE, Keyword(0)),
        probe.build(|| vec![1u8; 32]),
    )
    .unwrap();
    let r = cap.records();
    r.expect(Match::any()).never();
    probe.assert_never_built();
    // The same probe sees a wanted event's payload built once.
    p.write_with(
        &EventDescriptor::new(1, Level::ERROR, Keyword(0)),
        probe.build(|| vec![1u8; 32]),
    )
    .unwrap();
    assert_eq!(probe.built(), 1);
    let err = std::panic::catch_unwind(|| probe.assert_never_built()).unwrap_err();
    assert!(
        err.downcast_ref::<String>()
            .unwrap()
            .contains("built 1 time")
    );
}

#[test]
fn tracelogging_events_are_captured_decoded() {
    // rule: DEC-02
    let cap = Capture::new()
        .enable("S", guid(5), &EnableParams::new())
        .unwrap();
    let p = cap.process().register_provider(guid(5)).unwrap();
    let ev = EventBuilder::new("Counted")
        .level(Level::INFORMATION)
        .value("Count", 7u32)
        .value("Total", 1u64 << 40)
        .str8("Who", b"alice")
        .build()
        .unwrap();
    let opts = WriteOptions {
        tracelogging_metadata: Some(&ev.metadata),
        event_name: Some("Counted"),
        ..WriteOptions::default()
    };
    p.write_with_options(&ev.descriptor, &opts, &[&ev.payload])
        .unwrap();
    let r = cap.records();
    r.expect(
        Match::named("Counted")
            .field("Count", 7u32)
            .field("Total", 1u64 << 40),
    )
    .once();
    let e = r.iter().next().unwrap();
    assert_eq!(
        e.id(),
        0,
        "TraceLogging events are told apart by name, not id"
    );
    assert_eq!(e.field("Who"), Some("alice"));
    assert!(e.decode_error.is_none());
}

const MANIFEST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwsim-Capture-Test" guid="{5eed0006-1234-4567-89ab-cdef00000006}"
        symbol="P" resourceFileName="p.dll" messageFileName="p.dll">
      <events>
        <event value="9" version="0" level="win:Informational" template="T" symbol="FileRead"/>
      </events>
      <templates>
        <template tid="T">
          <data name="Bytes" inType="win:UInt32"/>
          <data name="Path" inType="win:UnicodeString"/>
        </template>
      </templates>
    </provider>
  </events></instrumentation>
</instrumentationManifest>"#;

#[test]
fn manifest_events_are_captured_decoded_with_the_given_manifest() {
    // rule: DEC-17
    let cap = Capture::new()
        .enable("S", guid(6), &EnableParams::new())
        .unwrap()
        .manifest(Manifest::parse(MANIFEST).unwrap());
    let p = cap.process().register_provider(guid(6)).unwrap();
    let mut payload = 4096u32.to_le_bytes().to_vec();
    payload.extend("a.txt\0".encode_utf16().flat_map(u16::to_le_bytes));
    p.write(
        &EventDescriptor::new(9, Level::INFORMATION, Keyword(0)),
        &[&payload],
    )
    .unwrap();
    // A short payload: captured, not decoded, and the error says why.
    p.write(
        &EventDescriptor::new(9, Level::INFORMATION, Keyword(0)),
        &[&[1, 0]],
    )
    .unwrap();
    let r = cap.records();
    r.expect(Match::named("FileRead").field("Bytes", 4096u32))
        .once();
    let bad = r.iter().nth(1).unwrap();
    assert!(bad.fields.is_empty());
    assert!(
        bad.decode_error.as_deref().unwrap().contains("Bytes"),
        "{bad:?}"
    );
}

#[test]
fn capture_runs_on_a_kernel_of_your_own() {
    let k = kernel();
    let app = user_process(&k, "mine.exe");
    let cap = etwsim::testing::Capture::on(k.clone(), app.clone())
        .enable("S", guid(7), &EnableParams::new())
        .unwrap();
    let r = cap.run(|proc_| {
        let p = proc_.register_provider(guid(7)).unwrap();
        p.write(&EventDescriptor::new(1, Level::ERROR, Keyword(0)), &[])
            .unwrap();
    });
    r.expect(Match::event(1).pid(app.pid())).once();
}
