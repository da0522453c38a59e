//! `etwsim::testing`'s issue-34 helpers: attach, log files, typed and rendered fields, drop
//! reasons, sized sessions, the synthesiser, first_difference, and `etwsim::capacity`
//! checked against a real session.

use etwsim::decode::fields::{Field, Value as MofValue};
use etwsim::decode::manifest::Manifest;
use etwsim::decode::tracelogging::EventBuilder;
use etwsim::testing::{Capture, Match, PayloadProbe, Records, first_difference, synth};
use etwsim::{
    EnableParams, EventDescriptor, EventFilter, Guid, Keyword, Level, Token, WriteOptions,
};

const G: Guid = Guid::from_u128(0x5eed_3410_2026_4e75_8000_746f_6f6c_7300);

fn write_tl(p: &etwsim::Provider, b: &mut EventBuilder) {
    let ev = b.build().unwrap();
    let opts = WriteOptions {
        tracelogging_metadata: Some(&ev.metadata),
        ..WriteOptions::default()
    };
    p.write_with_options(&ev.descriptor, &opts, &[&ev.payload])
        .unwrap();
}

#[test]
fn a_typed_field_matches_its_type_only_and_the_failure_shows_types() {
    // rule: DEC-27
    let cap = Capture::new().enable("S", G, &EnableParams::new()).unwrap();
    let p = cap.process().register_provider(G).unwrap();
    write_tl(
        &p,
        EventBuilder::new("E")
            .value("Pid", 4242u32)
            .win32_error("Err", 5),
    );
    let r = cap.records();
    r.expect(Match::named("E").field("Pid", 4242u32)).once();
    r.expect(Match::named("E").field("Pid", 4242u64)).never();
    r.expect(Match::named("E").field("Pid", "4242")).never();
    r.expect(Match::named("E").rendered("Pid", "4242")).once();
    let e = r.iter().next().unwrap();
    assert_eq!(e.value("Pid").unwrap().type_name(), "u32");
    // One rendering, the decoder's: a Win32 error out-type as dump shows it.
    assert_eq!(e.rendered("Err"), e.field("Err"));
    assert_ne!(e.rendered("Err"), Some("5"), "{e}");
    let err = std::panic::catch_unwind(|| {
        r.expect(Match::named("E").field("Pid", 4242u64)).once();
    })
    .unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(msg.contains("Pid=u64 4242"), "{msg}");
    assert!(msg.contains("Pid=4242 (u32)"), "{msg}");
}

#[test]
fn only_fails_when_anything_else_was_captured() {
    let cap = Capture::new().enable("S", G, &EnableParams::new()).unwrap();
    let p = cap.process().register_provider(G).unwrap();
    for id in [1, 2] {
        p.write(&EventDescriptor::new(id, Level::ERROR, Keyword(0)), &[])
            .unwrap();
    }
    let r = cap.records();
    r.expect(Match::event(1)).once();
    let err = std::panic::catch_unwind(|| r.expect(Match::event(1)).only().once()).unwrap_err();
    assert!(
        err.downcast_ref::<String>()
            .unwrap()
            .contains("and nothing else, found 1 (and 1 other)")
    );
    assert_eq!(r.matching(Match::event(2)).count(), 1); // no named temporary needed
}

#[test]
fn drops_say_why_and_need_a_journal() {
    // rule: FLT-01
    let cap = Capture::journal(100)
        .enable("S", G, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    let p = cap.process().register_provider(G).unwrap();
    p.write(&EventDescriptor::new(4, Level::VERBOSE, Keyword(0)), &[])
        .unwrap();
    let r = cap.records();
    r.dropped().expect(Match::event(4)).because("FLT-01");
    r.dropped().expect(Match::event(4)).once();
    let wrong = std::panic::catch_unwind(|| r.dropped().expect(Match::event(4)).because("FLT-19"));
    let msg = wrong.unwrap_err().downcast_ref::<String>().unwrap().clone();
    assert!(msg.contains("level 5 > session level 3 (FLT-01)"), "{msg}");
    let plain = Capture::new().enable("S", G, &EnableParams::new()).unwrap();
    let r = plain.records();
    assert!(std::panic::catch_unwind(|| r.dropped().expect(Match::any()).never()).is_err());
}

#[test]
fn an_attached_file_session_reads_while_running_and_after_stop() {
    // rule: BUF-09
    let k = Capture::builder().build().unwrap();
    let s = k.session("Mine").log_file("mine.etl").start().unwrap();
    s.enable(G, &EnableParams::new()).unwrap();
    let p = k
        .spawn("a.exe", Token::user("u"))
        .unwrap()
        .register_provider(G)
        .unwrap();
    let cap = Capture::attach(&k, "Mine").unwrap();
    p.write(&EventDescriptor::new(1, Level::ERROR, Keyword(0)), &[])
        .unwrap();
    cap.records().expect(Match::event(1).session("Mine")).once();
    p.write(&EventDescriptor::new(2, Level::ERROR, Keyword(0)), &[])
        .unwrap();
    s.stop().unwrap();
    cap.records().expect(Match::any()).times(2);
    Records::from_disk(&k, "mine.etl")
        .unwrap()
        .expect(Match::event(2).session("mine"))
        .once();
    // A host file.
    let dir = std::env::temp_dir().join(format!("etwsim-testing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let host = dir.join("mine.etl");
    std::fs::write(&host, k.disk().read("mine.etl").unwrap()).unwrap();
    assert_eq!(Records::from_log_file(&host).unwrap().len(), 2);
    assert!(
        Capture::attach(&k, "Mine").is_err(),
        "stopped: nothing to attach"
    );
}

#[test]
fn synthesised_manifest_and_kernel_records_decode() {
    // rule: DEC-17, KRN-13
    let m = Manifest::parse(MANIFEST).unwrap();
    let payload = [3u32.to_le_bytes(), 9u32.to_le_bytes()].concat();
    let r = synth::manifest_event(&m, "Etwsim-Synth", "Moved", &payload).unwrap();
    assert_eq!(r.header.descriptor.id, 5);
    assert!(synth::manifest_event(&m, "Etwsim-Synth", "Moved", &[1]).is_err());
    let k = synth::kernel_event(
        "Process",
        "Start",
        &[Field::new("UniqueProcessKey", MofValue::Pointer(0))],
    );
    let mut got = Vec::new();
    synth::deliver([r], |e| got.push(e.clone()));
    let records = Records::from_records("c", got).with_manifest(&m);
    let e = Match::named("Moved")
        .rendered("Direction", "Left")
        .field("Steps", 9u32);
    records.expect(e).once();
    // The kernel layout encoder names what is missing.
    assert!(k.is_err_and(|e| e.to_string().contains("values")));
}

#[test]
fn a_manifest_event_built_from_fields_is_delivered_and_matched() {
    // rule: DEC-17
    let m = Manifest::parse(FIELDS_MANIFEST).unwrap();
    let fields = [
        Field::new("Path", MofValue::String("C:\\log.txt".into())),
        Field::new(
            "Sizes",
            MofValue::Array(vec![MofValue::U32(512), MofValue::U32(4096)]),
        ),
        Field::new(
            "Origin",
            MofValue::Struct(vec![
                Field::new("X", MofValue::I32(-3)),
                Field::new("Y", MofValue::I32(7)),
            ]),
        ),
    ];
    let r = synth::manifest_event_fields(&m, "Etwsim-Synth-Fields", "Wrote", &fields).unwrap();
    assert_eq!(
        (r.header.descriptor.id, r.header.descriptor.level.0),
        (9, 4)
    );
    let mut got = Vec::new();
    synth::deliver([r], |e| got.push(e.clone()));
    let records = Records::from_records("c", got).with_manifest(&m);
    records
        .expect(
            Match::named("Wrote")
                .field("Path", "C:\\log.txt")
                .field("Count", 2u16)
                .field("Origin.Y", 7i32),
        )
        .once();
    records
        .expect(Match::named("Wrote").field("Count", 3u16))
        .never();
    // The encoder names what does not fit: here a missing field.
    let e = synth::manifest_event_fields(&m, "Etwsim-Synth-Fields", "Wrote", &fields[1..]);
    assert!(e.is_err_and(|e| e.to_string().contains("Path")));
}

const FIELDS_MANIFEST: &str = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <instrumentation><events>
    <provider name="Etwsim-Synth-Fields" guid="{5eed3412-2026-4e75-8000-746f6f6c7300}" symbol="F">
      <events><event value="9" level="win:Informational" template="T" symbol="Wrote"/></events>
      <templates><template tid="T">
        <data name="Path" inType="win:UnicodeString"/>
        <data name="Count" inType="win:UInt16"/>
        <data name="Sizes" inType="win:UInt32" count="Count"/>
        <struct name="Origin">
          <data name="X" inType="win:Int32"/>
          <data name="Y" inType="win:Int32"/>
        </struct>
      </template></templates>
    </provider>
  </events></instrumentation>
</instrumentationManifest>"#;

#[test]
fn probes_count_from_fn_closures() {
    let probe = PayloadProbe::new();
    let f = probe.build_fn(|| 1);
    let g = || probe.hit();
    f();
    f();
    g();
    assert_eq!(probe.built(), 3);
}

#[test]
fn first_difference_names_the_record_and_field() {
    let run = |second: &[u8]| {
        let k = Capture::builder().build().unwrap();
        let s = k.session("S").log_file("s.etl").start().unwrap();
        s.enable(
            G,
            &EnableParams::new().filter(EventFilter::EventId {
                filter_in: false,
                ids: vec![99],
            }),
        )
        .unwrap();
        let p = k
            .spawn("a.exe", Token::user("u"))
            .unwrap()
            .register_provider(G)
            .unwrap();
        for id in 1..=3 {
            let payload: &[u8] = if id == 2 { second } else { b"abc" };
            p.write(
                &EventDescriptor::new(id, Level::ERROR, Keyword(0)),
                &[payload],
            )
            .unwrap();
        }
        s.stop().unwrap();
        k.disk().read("s.etl").unwrap()
    };
    assert_eq!(first_difference(&run(b"abc"), &run(b"abc")), None);
    let d = first_difference(&run(b"abc"), &run(b"aXc")).unwrap();
    assert_eq!((d.buffer, d.record), (1, Some(1)), "{d}");
    assert!(d.field.starts_with("user_data … 98 ≠ 88"), "{d}");
}

#[test]
fn capacity_arithmetic_matches_a_real_session() {
    // rule: BUF-03, BUF-04, BUF-15 — the worked example of docs/scenarios.md
    let per = etwsim::capacity::records_per_buffer(4096, 100, &[]);
    assert_eq!(per, 21); // (4096 − 0x48) / align8(0x50 + 100) = 4024 / 184
    let cap = Capture::with(Capture::builder().cpus(1))
        .unwrap()
        .with_session("B", |s| {
            s.buffer_size_kb(4).minimum_buffers(3).maximum_buffers(3)
        })
        .unwrap()
        .enable("B", G, &EnableParams::new())
        .unwrap();
    let p = cap.process().register_provider(G).unwrap();
    for id in 0..70 {
        let _ = p.write(
            &EventDescriptor::new(id, Level::ERROR, Keyword(0)),
            &[&[0u8; 100]],
        );
    }
    assert_eq!(cap.events_lost("B"), 70 - 3 * 21);
    cap.records().expect(Match::any()).times(63);
}

const MANIFEST: &str = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwsim-Synth" guid="{5eed3411-2026-4e75-8000-746f6f6c7300}"
        symbol="P" resourceFileName="p.dll" messageFileName="p.dll">
      <maps><valueMap name="Dir"><map value="3" message="Left"/></valueMap></maps>
      <events><event value="5" level="win:Informational" template="T" symbol="Moved"/></events>
      <templates><template tid="T">
        <data name="Direction" inType="win:UInt32" map="Dir"/>
        <data name="Steps" inType="win:UInt32"/>
      </template></templates>
    </provider>
  </events></instrumentation>
</instrumentationManifest>"#;
