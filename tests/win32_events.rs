//! The Win32 face of the event path: EventWrite* codes, EventActivityIdControl, and
//! OpenTrace / ProcessTrace / CloseTrace on real-time sessions.

mod common;
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
    let reserved = [EventDataDescriptor {
        reserved: 1,
        ..EventDataDescriptor::new(&payload)
    }];
    assert_eq!(
        w.event_write(h, Some(&d), 1, Some(&reserved)),
        87,
        "Reserved must be 0"
    );
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
