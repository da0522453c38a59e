//! The Win32 face of the event path: EventWrite* codes, EventActivityIdControl, and
//! OpenTrace / ProcessTrace / CloseTrace on real-time sessions.

use crate::common;
use common::*;
use etwsim::win32::{
    BufferStats, EVENT_CONTROL_CODE_ENABLE_PROVIDER, EventDataDescriptor, EventTraceLogfile,
    INVALID_PROCESSTRACE_HANDLE, PROCESS_TRACE_MODE_EVENT_RECORD, PROCESS_TRACE_MODE_RAW_TIMESTAMP,
    PROCESS_TRACE_MODE_REAL_TIME, Win32,
};
use etwsim::{
    EnableParams, EventDescriptor, EventRecord, Guid, Kernel, Keyword, Level, Token, Win32Error,
};
use std::sync::{Arc, Mutex};

const OK: u32 = 0;

fn setup(k: &Kernel) -> (Win32, u64, etwsim::Session) {
    let app = admin_process(k, "app.exe");
    let w = Win32::new(&app);
    let mut h = 0;
    assert_eq!(w.event_register(Some(&guid(1)), None, 0, Some(&mut h)), OK);
    let s = k.session("rt").real_time().start().unwrap();
    s.enable(guid(1), &EnableParams::new()).unwrap();
    (w, h, s)
}

fn rt_logfile(name: &str, log: Arc<Mutex<Vec<EventRecord>>>) -> EventTraceLogfile {
    EventTraceLogfile {
        logger_name: Some(name.into()),
        process_trace_mode: PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD,
        event_record_callback: Some(Box::new(move |r: &EventRecord| {
            log.lock().unwrap().push(r.clone())
        })),
        ..EventTraceLogfile::default()
    }
}

#[test]
fn event_write_codes_follow_the_documentation() {
    // rule: EVT-03
    // rule: PRV-03
    // rule: EVT-11
    let k = kernel();
    let (w, h, _s) = setup(&k);
    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    let payload = [1u8, 2, 3];
    let one = [EventDataDescriptor::new(&payload)];
    assert_eq!(w.event_write(h, Some(&d), 1, Some(&one)), OK);
    assert_eq!(
        w.event_write(0, Some(&d), 1, Some(&one)),
        6,
        "handle 0: ERROR_INVALID_HANDLE"
    );
    assert_eq!(w.event_write(h + 99, Some(&d), 0, None), 6);
    assert_eq!(w.event_write(h, None, 0, None), 87, "NULL descriptor");
    assert_eq!(
        w.event_write(h, Some(&d), 1, None),
        87,
        "a count with NULL UserData"
    );
    assert_eq!(
        w.event_write(h, Some(&d), 2, Some(&one)),
        87,
        "a count past the array"
    );
    // EVT-11: Reserved1 and Reserved2, the upper 24 bits, must be 0; the low byte is the
    // Type (EVT-12), ignored for a provider that did not opt in.
    for bad in [0x100, 0x1_0000, 0x8000_0000] {
        let reserved = [EventDataDescriptor {
            reserved: bad,
            ..EventDataDescriptor::new(&payload)
        }];
        assert_eq!(
            w.event_write(h, Some(&d), 1, Some(&reserved)),
            87,
            "Reserved {bad:#x}"
        );
    }
    let many: Vec<EventDataDescriptor<'_>> = (0..129)
        .map(|_| EventDataDescriptor::new(&payload))
        .collect();
    assert_eq!(
        w.event_write(h, Some(&d), 128, Some(&many)),
        OK,
        "128 blocks"
    );
    assert_eq!(
        w.event_write(h, Some(&d), 129, Some(&many)),
        87,
        "129 blocks"
    );
    let big = vec![0u8; 70_000];
    assert_eq!(
        w.event_write(h, Some(&d), 1, Some(&[EventDataDescriptor::new(&big)])),
        Win32Error::ERROR_ARITHMETIC_OVERFLOW.code()
    );
    let over_buffer = vec![0u8; 65_450];
    assert_eq!(
        w.event_write(
            h,
            Some(&d),
            1,
            Some(&[EventDataDescriptor::new(&over_buffer)])
        ),
        Win32Error::ERROR_MORE_DATA.code(),
        "80 + 65,450 bytes is under 65,535 but over the 65,464 a 64 KB buffer holds"
    );
}

#[test]
fn a_disabled_provider_writes_nothing_and_succeeds_even_with_bad_data() {
    // rule: EVT-02
    // rule: PRV-31
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let w = Win32::new(&app);
    let mut h = 0;
    assert_eq!(w.event_register(Some(&guid(2)), None, 0, Some(&mut h)), OK);
    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    assert_eq!(
        w.event_write(h, Some(&d), 5, None),
        OK,
        "the enabled check comes first"
    );
}

#[test]
fn event_write_string_rejects_null_and_marks_string_only() {
    // rule: EVT-13
    let k = kernel();
    let (w, h, s) = setup(&k);
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut lf = rt_logfile("rt", log.clone());
    let th = w.open_trace(Some(&mut lf));
    assert_ne!(th, INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(w.event_write_string(h, 4, 1, None), 87);
    assert_eq!(w.event_write_string(0, 4, 1, Some("x")), 6);
    assert_eq!(w.event_write_string(h, 4, 1, Some("hi")), OK);
    s.flush().unwrap();
    assert_eq!(w.process_trace(Some(&[th]), None, None), OK);
    let got = log.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    let r = &got[0];
    assert_ne!(
        r.header.flags & etwsim::record::header_flags::STRING_ONLY,
        0
    );
    assert_eq!(r.user_data, vec![b'h', 0, b'i', 0, 0, 0]);
    assert_eq!(r.header.descriptor.id, 0);
}

#[test]
fn activity_id_control_works_on_the_calling_thread() {
    // rule: EVT-15
    // rule: EVT-14
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let w = Win32::new(&app);
    let t = app.spawn_thread(1).unwrap();
    let _g = t.enter();
    let mut id = Guid::NULL;
    assert_eq!(w.event_activity_id_control(1, Some(&mut id)), OK);
    assert_eq!(id, Guid::NULL, "a new thread's activity ID is GUID_NULL");
    let a = guid(7);
    let mut set = a;
    assert_eq!(w.event_activity_id_control(2, Some(&mut set)), OK);
    assert_eq!(t.activity_id(), a);
    let mut created = Guid::NULL;
    assert_eq!(w.event_activity_id_control(3, Some(&mut created)), OK);
    assert_ne!(created, Guid::NULL);
    assert_eq!(t.activity_id(), a, "CREATE_ID leaves the thread's ID alone");
    let b = guid(8);
    let mut swap = b;
    assert_eq!(w.event_activity_id_control(4, Some(&mut swap)), OK);
    assert_eq!((swap, t.activity_id()), (a, b), "GET_SET_ID swaps");
    let mut prev = Guid::NULL;
    assert_eq!(w.event_activity_id_control(5, Some(&mut prev)), OK);
    assert_eq!(prev, b);
    assert_ne!(t.activity_id(), b, "CREATE_SET_ID installs a new ID");
    assert_eq!(w.event_activity_id_control(0, Some(&mut prev)), 87);
    assert_eq!(w.event_activity_id_control(6, Some(&mut prev)), 87);
    assert_eq!(w.event_activity_id_control(1, None), 87);
}

#[test]
fn open_trace_checks_its_logfile() {
    // rule: CON-01
    // rule: SEC-05
    let k = kernel();
    let (w, _h, _s) = setup(&k);
    assert_eq!(w.open_trace(None), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(w.last_error(), 87);
    let mut none = EventTraceLogfile::default();
    assert_eq!(w.open_trace(Some(&mut none)), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(w.last_error(), Win32Error::ERROR_BAD_PATHNAME.code());
    let mut both = EventTraceLogfile {
        logger_name: Some("rt".into()),
        log_file_name: Some("x.etl".into()),
        process_trace_mode: PROCESS_TRACE_MODE_REAL_TIME,
        ..EventTraceLogfile::default()
    };
    assert_eq!(w.open_trace(Some(&mut both)), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(w.last_error(), 87, "exactly one of the two names");
    let mut no_mode = EventTraceLogfile {
        logger_name: Some("rt".into()),
        ..EventTraceLogfile::default()
    };
    assert_eq!(
        w.open_trace(Some(&mut no_mode)),
        INVALID_PROCESSTRACE_HANDLE,
        "REAL_TIME mode is required"
    );
    let mut missing = rt_logfile("nope", Arc::default());
    assert_eq!(
        w.open_trace(Some(&mut missing)),
        INVALID_PROCESSTRACE_HANDLE
    );
    assert_eq!(
        w.last_error(),
        Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND.code()
    );
    // A standard user may not consume in real time; a Performance Log User may.
    let user = k.spawn("viewer.exe", Token::user("bob")).unwrap();
    let wu = Win32::new(&user);
    let mut lf = rt_logfile("rt", Arc::default());
    assert_eq!(wu.open_trace(Some(&mut lf)), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(wu.last_error(), Win32Error::ERROR_ACCESS_DENIED.code());
    let plu = k
        .spawn(
            "viewer.exe",
            Token::user("carol").with_groups(etwsim::Groups::PERFORMANCE_LOG_USERS),
        )
        .unwrap();
    let mut lf = rt_logfile("RT", Arc::default());
    assert_ne!(
        Win32::new(&plu).open_trace(Some(&mut lf)),
        INVALID_PROCESSTRACE_HANDLE,
        "names are case-insensitive"
    );
}

#[test]
fn process_trace_checks_its_arguments() {
    // rule: CON-03
    let k = kernel();
    let (w, _h, s) = setup(&k);
    let mut lf = rt_logfile("rt", Arc::default());
    let th = w.open_trace(Some(&mut lf));
    assert_eq!(w.process_trace(None, None, None), 87);
    assert_eq!(
        w.process_trace(Some(&[]), None, None),
        Win32Error::ERROR_BAD_LENGTH.code()
    );
    assert_eq!(
        w.process_trace(Some(&[th; 65]), None, None),
        Win32Error::ERROR_BAD_LENGTH.code()
    );
    assert_eq!(w.process_trace(Some(&[th + 1]), None, None), 6);
    assert_eq!(
        w.process_trace(Some(&[th]), Some(10), Some(5)),
        Win32Error::ERROR_INVALID_TIME.code()
    );
    let mut lf2 = rt_logfile("rt", Arc::default());
    let th2 = w.open_trace(Some(&mut lf2));
    assert_eq!(
        w.process_trace(Some(&[th, th2]), None, None),
        87,
        "one real-time handle at most"
    );
    assert_eq!(w.process_trace(Some(&[th]), None, None), OK);
    s.stop().unwrap();
    assert_eq!(
        w.process_trace(Some(&[th]), None, None),
        Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND.code(),
        "the session is gone and nothing is left"
    );
}

#[test]
fn buffer_callback_sees_each_buffer_and_false_cancels() {
    // rule: CON-06
    // rule: CON-03
    let k = kernel();
    let (w, h, s) = setup(&k);
    let stats = Arc::new(Mutex::new(Vec::<BufferStats>::new()));
    let st = stats.clone();
    let events = Arc::new(Mutex::new(Vec::new()));
    let mut lf = rt_logfile("rt", events.clone());
    lf.buffer_callback = Some(Box::new(move |b: &BufferStats| {
        st.lock().unwrap().push(*b);
        st.lock().unwrap().len() < 2
    }));
    let th = w.open_trace(Some(&mut lf));
    let payload = vec![7u8; 30_000];
    let d = EventDescriptor::new(5, Level::INFORMATION, Keyword(1));
    for _ in 0..6 {
        assert_eq!(
            w.event_write(h, Some(&d), 1, Some(&[EventDataDescriptor::new(&payload)])),
            OK
        );
    }
    s.flush().unwrap();
    assert_eq!(
        w.process_trace(Some(&[th]), None, None),
        Win32Error::ERROR_CANCELLED.code()
    );
    let seen = stats.lock().unwrap().clone();
    assert_eq!(
        seen.len(),
        2,
        "BufferCallback returned FALSE on the second buffer"
    );
    assert_eq!(seen[0].buffers_read, 1);
    assert_eq!(seen[1].buffers_read, 2);
    assert_eq!(seen[0].buffer_size, 64 * 1024);
    assert!(seen[0].filled > 60_000 && seen[0].filled <= 64 * 1024);
    assert_eq!(
        events.lock().unwrap().len(),
        4,
        "two 30,000-byte events per 64 KB buffer"
    );
}

#[test]
fn a_panicking_callback_gives_error_noaccess() {
    // rule: CON-03
    let k = kernel();
    let (w, h, s) = setup(&k);
    let mut lf = EventTraceLogfile {
        logger_name: Some("rt".into()),
        process_trace_mode: PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD,
        event_record_callback: Some(Box::new(|_r: &EventRecord| panic!("consumer bug"))),
        ..EventTraceLogfile::default()
    };
    let th = w.open_trace(Some(&mut lf));
    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    assert_eq!(w.event_write(h, Some(&d), 0, None), OK);
    s.flush().unwrap();
    assert_eq!(
        w.process_trace(Some(&[th]), None, None),
        Win32Error::ERROR_NOACCESS.code()
    );
}

#[test]
fn raw_timestamps_and_time_window() {
    // rule: CON-02
    // rule: CON-04
    // rule: SES-65
    let k = kernel();
    let (w, h, s) = setup(&k);
    let raw = Arc::new(Mutex::new(Vec::new()));
    let mut lf = rt_logfile("rt", raw.clone());
    lf.process_trace_mode |= PROCESS_TRACE_MODE_RAW_TIMESTAMP;
    let th_raw = w.open_trace(Some(&mut lf));
    let cooked = Arc::new(Mutex::new(Vec::new()));
    let mut lf2 = rt_logfile("rt", cooked.clone());
    let th = w.open_trace(Some(&mut lf2));
    for id in 1..=5u16 {
        let d = EventDescriptor::new(id, Level::INFORMATION, Keyword(1));
        assert_eq!(w.event_write(h, Some(&d), 0, None), OK);
    }
    s.flush().unwrap();
    assert_eq!(w.process_trace(Some(&[th_raw]), None, None), OK);
    let raw = raw.lock().unwrap().clone();
    assert_eq!(raw.len(), 5);
    // QPC at 10 MHz: raw ticks of 100 ns; FILETIME = boot + raw.
    let boot = etwsim::clock::DETERMINISTIC_BOOT_FILETIME;
    let t2 = boot + raw[1].header.timestamp;
    let t4 = boot + raw[3].header.timestamp;
    assert_eq!(w.process_trace(Some(&[th]), Some(t2), Some(t4)), OK);
    let ids: Vec<u16> = cooked
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.header.descriptor.id)
        .collect();
    assert_eq!(
        ids,
        vec![2, 3, 4],
        "only events inside [StartTime, EndTime]"
    );
    assert!(
        cooked
            .lock()
            .unwrap()
            .iter()
            .all(|r| r.header.timestamp >= t2)
    );
}

#[test]
fn close_trace_codes() {
    // rule: CON-07
    let k = kernel();
    let (w, h, s) = setup(&k);
    assert_eq!(w.close_trace(0), 6);
    assert_eq!(w.close_trace(INVALID_PROCESSTRACE_HANDLE), 6);
    let mut lf = rt_logfile("rt", Arc::default());
    let th = w.open_trace(Some(&mut lf));
    assert_eq!(s.consumer_count(), 1);
    assert_eq!(w.close_trace(th), OK);
    assert_eq!(s.consumer_count(), 0, "closing detaches the consumer");
    assert_eq!(w.close_trace(th), 6, "a closed handle is unknown");
    // CloseTrace from inside ProcessTrace: ERROR_CTX_CLOSE_PENDING, and ProcessTrace ends.
    let w = Arc::new(w);
    let handle = Arc::new(Mutex::new(0u64));
    let (w2, h2, codes) = (w.clone(), handle.clone(), Arc::new(Mutex::new(Vec::new())));
    let codes2 = codes.clone();
    let mut lf = EventTraceLogfile {
        logger_name: Some("rt".into()),
        process_trace_mode: PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD,
        event_record_callback: Some(Box::new(move |_r: &EventRecord| {
            let th = *h2.lock().unwrap();
            codes2.lock().unwrap().push(w2.close_trace(th));
        })),
        ..EventTraceLogfile::default()
    };
    let th = w.open_trace(Some(&mut lf));
    *handle.lock().unwrap() = th;
    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    for _ in 0..3 {
        assert_eq!(w.event_write(h, Some(&d), 0, None), OK);
    }
    s.flush().unwrap();
    assert_eq!(w.process_trace(Some(&[th]), None, None), OK);
    assert_eq!(
        codes.lock().unwrap()[0],
        Win32Error::ERROR_CTX_CLOSE_PENDING.code()
    );
    assert_eq!(
        w.process_trace(Some(&[th]), None, None),
        6,
        "the handle is gone afterwards"
    );
}

#[test]
fn process_trace_blocks_until_the_session_stops() {
    // rule: CON-05
    let k = Kernel::builder().threaded().build().unwrap();
    let app = admin_process(&k, "app.exe");
    let w = Arc::new(Win32::new(&app));
    let mut h = 0;
    assert_eq!(w.event_register(Some(&guid(1)), None, 0, Some(&mut h)), OK);
    let s = k.session("rt").real_time().start().unwrap();
    assert_eq!(
        w.enable_trace_ex2(
            s.handle().0,
            Some(&guid(1)),
            EVENT_CONTROL_CODE_ENABLE_PROVIDER,
            0,
            0,
            0,
            0,
            None
        ),
        OK
    );
    let events = Arc::new(Mutex::new(Vec::new()));
    let mut lf = rt_logfile("rt", events.clone());
    let th = w.open_trace(Some(&mut lf));
    let wc = w.clone();
    let consumer = std::thread::spawn(move || wc.process_trace(Some(&[th]), None, None));
    let d = EventDescriptor::new(9, Level::INFORMATION, Keyword(1));
    for _ in 0..1000 {
        assert_eq!(w.event_write(h, Some(&d), 0, None), OK);
    }
    let stats = s.stop().unwrap();
    assert_eq!(
        consumer.join().unwrap(),
        OK,
        "ProcessTrace returns once the session stopped"
    );
    assert_eq!(
        events.lock().unwrap().len() as u32 + stats.events_lost,
        1000
    );
}

/// A 1-CPU kernel, a Win32 view of `app.exe` with provider guid(1) registered, and a
/// session recording it into a MemorySink.
fn sink_setup() -> (Kernel, Win32, u64, etwsim::Session, etwsim::MemorySink) {
    let k = Kernel::builder().cpus(1).deterministic(9).build().unwrap();
    let w = Win32::new(&admin_process(&k, "app.exe"));
    let mut h = 0;
    assert_eq!(w.event_register(Some(&guid(1)), None, 0, Some(&mut h)), OK);
    let sink = etwsim::MemorySink::new();
    let s = k
        .session("typed")
        .log_file("typed.etl")
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(guid(1), &EnableParams::new()).unwrap();
    (k, w, h, s, sink)
}

/// TraceLogging event metadata: size, one tag byte (no continuation), the name, and one
/// field `Count` of InType UINT32 (8).
fn tl_metadata(name: &str) -> Vec<u8> {
    let mut m = vec![0, 0, 0];
    m.extend_from_slice(name.as_bytes());
    m.push(0);
    m.extend_from_slice(b"Count\0");
    m.push(8);
    let n = m.len() as u16;
    m[..2].copy_from_slice(&n.to_le_bytes());
    m
}

#[test]
fn the_descriptor_type_byte_counts_only_after_the_provider_opts_in() {
    // rule: EVT-12
    // rule: PRV-35
    use etwsim::record::ext_type;
    use etwsim::win32::{
        EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA, EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA,
        EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE,
    };
    let (_k, w, h, s, sink) = sink_setup();
    let meta = tl_metadata("Started");
    let count = 7u32.to_le_bytes();
    let stamp = 0x0123_4567_89ABi64.to_le_bytes();
    let traits = b"\x0c\x00Other\x00\x00\x00\x00\x00\x00".to_vec();
    let mut traits = traits;
    let n = traits.len() as u16;
    traits[..2].copy_from_slice(&n.to_le_bytes());
    let blocks = [
        EventDataDescriptor::typed(&meta, EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA),
        EventDataDescriptor::typed(&traits, EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA),
        EventDataDescriptor::typed(&stamp, EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE),
        EventDataDescriptor::new(&count),
    ];
    let d = EventDescriptor::new(0, Level::INFORMATION, Keyword(1));
    // 1. Not opted in: every block is payload, whatever its Type.
    assert_eq!(w.event_write(h, Some(&d), 4, Some(&blocks)), OK);
    // 2. EventProviderUseDescriptorType(TRUE): the blocks are sorted by Type.
    assert_eq!(w.event_set_information(h, 3, Some(&[1]), 1), OK);
    assert_eq!(w.event_write(h, Some(&d), 4, Some(&blocks)), OK);
    // A Type above 3, two blocks of one metadata type, or a timestamp that is not 8 bytes
    // are refused (the project's choice) and write nothing.
    let four = [EventDataDescriptor::typed(&count, 4)];
    assert_eq!(w.event_write(h, Some(&d), 1, Some(&four)), 87);
    let twice = [blocks[0], blocks[0]];
    assert_eq!(w.event_write(h, Some(&d), 2, Some(&twice)), 87);
    let short = [EventDataDescriptor::typed(&count, 3)];
    assert_eq!(w.event_write(h, Some(&d), 1, Some(&short)), 87);
    // 3. Traits set with EventSetInformation win over a Type-2 block.
    let own = {
        let mut t = vec![0, 0];
        t.extend_from_slice(b"MyProvider\0");
        let n = t.len() as u16;
        t[..2].copy_from_slice(&n.to_le_bytes());
        t
    };
    assert_eq!(
        w.event_set_information(h, 2, Some(&own), own.len() as u32),
        OK
    );
    assert_eq!(w.event_write(h, Some(&d), 4, Some(&blocks)), OK);
    // 4. EventProviderUseDescriptorType(FALSE) after traits: ignored again.
    assert_eq!(w.event_set_information(h, 3, Some(&[0]), 1), OK);
    assert_eq!(w.event_write(h, Some(&d), 4, Some(&blocks)), OK);
    s.stop().unwrap();
    let recs = sink.records();
    assert_eq!(recs.len(), 4, "the three refused writes wrote nothing");
    let whole: Vec<u8> = [&meta[..], &traits, &stamp, &count].concat();
    assert_eq!(recs[0].user_data, whole, "not opted in: all payload");
    assert!(recs[0].extended(ext_type::EVENT_SCHEMA_TL).is_none());
    for (r, prov) in [(&recs[1], &traits), (&recs[2], &own)] {
        assert_eq!(r.user_data, count, "only the Type-0 block is payload");
        let tl = r
            .extended(ext_type::EVENT_SCHEMA_TL)
            .expect("EVENT_SCHEMA_TL");
        assert_eq!(tl.data, meta);
        let pt = r.extended(ext_type::PROV_TRAITS).expect("PROV_TRAITS");
        assert_eq!(&pt.data, prov);
        assert_eq!(
            r.header.timestamp, 0x0123_4567_89AB,
            "the timestamp override"
        );
    }
    assert_eq!(recs[3].user_data, whole, "opted out again: all payload");
    assert_ne!(recs[3].header.timestamp, 0x0123_4567_89AB);
}

#[test]
fn a_typed_tracelogging_event_name_meets_event_name_filters() {
    // rule: EVT-12
    // rule: FLT-22
    use etwsim::win32::EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA;
    use etwsim::{EventFilter, NameFilter};
    let k = Kernel::builder().cpus(1).deterministic(9).build().unwrap();
    let w = Win32::new(&admin_process(&k, "app.exe"));
    let mut h = 0;
    assert_eq!(w.event_register(Some(&guid(1)), None, 0, Some(&mut h)), OK);
    let sink = etwsim::MemorySink::new();
    let s = k
        .session("names")
        .log_file("n.etl")
        .sink(sink.clone())
        .start()
        .unwrap();
    let only_started = EventFilter::EventName(NameFilter {
        match_any: Keyword(0),
        match_all: Keyword(0),
        level: Level(0),
        filter_in: true,
        names: vec!["Started".into()],
    });
    s.enable(guid(1), &EnableParams::new().filter(only_started))
        .unwrap();
    assert_eq!(w.event_set_information(h, 3, Some(&[1]), 1), OK);
    let d = EventDescriptor::new(0, Level::INFORMATION, Keyword(1));
    for name in ["Started", "Stopped", "Started"] {
        let meta = tl_metadata(name);
        let blocks = [EventDataDescriptor::typed(
            &meta,
            EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA,
        )];
        assert_eq!(w.event_write(h, Some(&d), 1, Some(&blocks)), OK);
    }
    s.stop().unwrap();
    assert_eq!(sink.records().len(), 2, "only the events named Started");
}

#[test]
fn event_set_information_codes_follow_the_documentation() {
    // rule: PRV-35
    // rule: PRV-34
    let (k, w, h, _s, _sink) = sink_setup();
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    // A handle that is not a registered REGHANDLE is ERROR_INVALID_PARAMETER (documented).
    assert_rejected_code(&k, invalid, || w.event_set_information(0, 3, Some(&[1]), 1));
    assert_rejected_code(&k, invalid, || {
        w.event_set_information(h + 7, 3, Some(&[1]), 1)
    });
    // NULL information with a length; a length wrong for the class.
    assert_rejected_code(&k, invalid, || w.event_set_information(h, 3, None, 1));
    assert_rejected_code(&k, invalid, || {
        w.event_set_information(h, 3, Some(&[1, 1]), 2)
    });
    assert_rejected_code(&k, invalid, || {
        w.event_set_information(h, 2, Some(&[9, 9, 9]), 3)
    });
    // A class that is not a recognised value.
    for class in [4, 99, u32::MAX] {
        assert_rejected_code(&k, Win32Error::ERROR_NOT_SUPPORTED, || {
            w.event_set_information(h, class, Some(&[1]), 1)
        });
    }
    assert!(!w.with_provider(h, |p| p.uses_descriptor_type()).unwrap());
    assert_eq!(w.event_set_information(h, 0, None, 0), OK);
    assert_eq!(w.event_set_information(h, 3, Some(&[1]), 1), OK);
    assert!(w.with_provider(h, |p| p.uses_descriptor_type()).unwrap());
    assert_eq!(w.event_unregister(h), OK);
    assert_rejected_code(&k, invalid, || w.event_set_information(h, 3, Some(&[1]), 1));
}

#[test]
fn enumerate_trace_guids_ex_lists_providers_and_their_enable_info() {
    // rule: PRV-29
    // rule: PRV-06
    use etwsim::win32::{TRACE_GUID_QUERY_INFO, TRACE_GUID_QUERY_LIST, TRACE_GUID_QUERY_PROCESS};
    let (k, w, _h, s, _sink) = sink_setup();
    let other = Win32::new(&admin_process(&k, "other.exe"));
    let mut h2 = 0;
    assert_eq!(
        other.event_register(Some(&guid(2)), None, 0, Some(&mut h2)),
        OK
    );
    let mut need = 0u32;
    // An empty buffer asks for the size.
    assert_eq!(
        w.enumerate_trace_guids_ex(TRACE_GUID_QUERY_LIST, None, None, Some(&mut need)),
        Win32Error::ERROR_INSUFFICIENT_BUFFER.code()
    );
    assert_eq!(need, 32, "two GUIDs");
    let mut out = vec![0u8; need as usize];
    assert_eq!(
        w.enumerate_trace_guids_ex(TRACE_GUID_QUERY_LIST, None, Some(&mut out), Some(&mut need)),
        OK
    );
    let mut listed: Vec<Guid> = out
        .chunks(16)
        .map(|c| Guid::from_bytes_le(c.try_into().unwrap()))
        .collect();
    listed.sort();
    assert_eq!(listed, {
        let mut v = vec![guid(1), guid(2)];
        v.sort();
        v
    });
    // This process registered only guid(1).
    let mut out = vec![0u8; 64];
    assert_eq!(
        w.enumerate_trace_guids_ex(
            TRACE_GUID_QUERY_PROCESS,
            None,
            Some(&mut out),
            Some(&mut need)
        ),
        OK
    );
    assert_eq!(&out[..need as usize], &guid(1).to_bytes_le());
    // TRACE_GUID_INFO for guid(1): one instance enabled by one session at level 0 (any).
    let g1 = guid(1).to_bytes_le();
    let mut small = vec![0u8; 8];
    assert_eq!(
        w.enumerate_trace_guids_ex(
            TRACE_GUID_QUERY_INFO,
            Some(&g1),
            Some(&mut small),
            Some(&mut need)
        ),
        Win32Error::ERROR_INSUFFICIENT_BUFFER.code()
    );
    assert_eq!(need, 8 + 16 + 32);
    let mut out = vec![0u8; need as usize];
    assert_eq!(
        w.enumerate_trace_guids_ex(
            TRACE_GUID_QUERY_INFO,
            Some(&g1),
            Some(&mut out),
            Some(&mut need)
        ),
        OK
    );
    let u32_at = |o: usize| u32::from_le_bytes(out[o..o + 4].try_into().unwrap());
    assert_eq!(u32_at(0), 1, "InstanceCount");
    assert_eq!(
        (u32_at(8), u32_at(12), u32_at(16)),
        (0, 1, w.process().pid())
    );
    assert_eq!(u32_at(24), 1, "IsEnabled");
    assert_eq!(
        u16::from_le_bytes([out[30], out[31]]),
        s.logger_id(),
        "LoggerId"
    );
    // Bad arguments.
    let invalid = Win32Error::ERROR_INVALID_PARAMETER.code();
    assert_eq!(
        w.enumerate_trace_guids_ex(TRACE_GUID_QUERY_INFO, None, Some(&mut out), Some(&mut need)),
        invalid
    );
    assert_eq!(
        w.enumerate_trace_guids_ex(
            TRACE_GUID_QUERY_INFO,
            Some(&g1[..8]),
            Some(&mut out),
            Some(&mut need)
        ),
        invalid
    );
    assert_eq!(
        w.enumerate_trace_guids_ex(7, None, Some(&mut out), Some(&mut need)),
        invalid
    );
    assert_eq!(
        w.enumerate_trace_guids_ex(TRACE_GUID_QUERY_LIST, None, Some(&mut out), None),
        invalid
    );
    let unknown = guid(77).to_bytes_le();
    assert_eq!(
        w.enumerate_trace_guids_ex(
            TRACE_GUID_QUERY_INFO,
            Some(&unknown),
            Some(&mut out),
            Some(&mut need)
        ),
        Win32Error::ERROR_WMI_GUID_NOT_FOUND.code()
    );
}
