//! Classic `TraceEvent` (EVT-29): a RegisterTraceGuids provider writes an `EVENT_TRACE_HEADER`
//! record into the session its control callback named — read back from the `.etl` file with
//! the `etl` reader (the record's Class fields, the ids and clock the kernel filled in), from a
//! real-time consumer as an EVENT_RECORD, and refused with the documented codes.
use crate::common;
use common::*;
use etwsim::etl::{Record, RecordKind, TraceRecord};
use etwsim::record::{header_flags, header_type};
use etwsim::{
    ClassicEvent, ClassicNotification, ClassicProvider, ConsumerOptions, EVENT_TRACE_HEADER_SIZE,
    EnableParams, Error, EventDescriptor, Guid, KERNEL_LOGGER_NAME, Kernel, Keyword, Level,
    LogFileMode, Process, Session, TraceHandle, Win32Error,
};
use std::sync::{Arc, Mutex};

/// `EVENT_TRACE_TYPE_INFO`.
const TYPE_INFO: u8 = 0;
/// `EVENT_TRACE_TYPE_START`.
const TYPE_START: u8 = 1;

/// A classic provider of `guid(n)` in `app`, and the logger handle its control callback was
/// last given (`GetTraceLoggerHandle`; 0 once disabled).
fn classic(app: &Process, n: u32) -> (ClassicProvider, Arc<Mutex<u64>>) {
    let handle = Arc::new(Mutex::new(0u64));
    let seen = handle.clone();
    let p = app
        .register_trace_guids(guid(n), move |c: &ClassicNotification| {
            *seen.lock().unwrap() = c.logger_handle.0;
        })
        .unwrap();
    (p, handle)
}

/// A sequential file session `name.etl` with `kb`-KB buffers, on the kernel's disk.
fn file_session(k: &Kernel, name: &str, kb: u32) -> Session {
    k.session(name)
        .buffer_size_kb(kb)
        .log_file(&format!("{name}.etl"))
        .start()
        .unwrap_or_else(|e| panic!("starting {name}: {e}"))
}

/// Every record of `name.etl`, in file order (buffer 0's header records excluded).
fn records(k: &Kernel, name: &str) -> Vec<Record> {
    let mut f = k.disk().open_log_file(format!("{name}.etl")).unwrap();
    assert!(f.damage().is_none(), "{:?}", f.damage());
    f.records().collect::<Result<Vec<_>, _>>().unwrap()
}

/// The classic records among `recs`.
fn classic_records(recs: &[Record]) -> Vec<TraceRecord> {
    recs.iter()
        .filter_map(|r| r.as_trace())
        .filter(|t| t.kind() == Some(RecordKind::Classic))
        .cloned()
        .collect()
}

fn event<'a>(class_type: u8, level: u8, data: &'a [&'a [u8]]) -> ClassicEvent<'a> {
    ClassicEvent {
        class_type,
        class_level: level,
        class_version: 2,
        guid: guid(900),
        data,
    }
}

/// A deterministic kernel with one CPU: every write lands in the same in-use buffer.
fn one_cpu_kernel() -> Kernel {
    Kernel::builder().cpus(1).deterministic(3).build().unwrap()
}

fn events_lost(s: &Session) -> u32 {
    s.query().expect("query").events_lost
}

#[test]
fn a_classic_event_is_recorded_in_the_session_its_logger_handle_names() {
    // rule: EVT-29
    // rule: FLT-27
    // rule: PRV-22
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let (p, handle) = classic(&app, 1);
    let a = file_session(&k, "classic-a", 8);
    let b = file_session(&k, "classic-b", 8);
    a.enable(guid(1), &EnableParams::new().level(Level::ERROR).any(0x1))
        .unwrap();
    // The last enabler takes a classic provider (PRV-22): its events go to B only.
    b.enable(guid(1), &EnableParams::new().level(Level::ERROR).any(0x1))
        .unwrap();
    let logger = TraceHandle(*handle.lock().unwrap());
    assert_eq!(logger, b.handle());
    assert_eq!(p.logger_handle(), Some(b.handle()));

    let thread = app.spawn_thread(2).unwrap();
    let _on = thread.enter();
    // Level 5 (verbose) in a session enabled at level 2: ETW filters nothing for classic
    // providers (FLT-27), the provider decides.
    let first: &[&[u8]] = &[b"MOF-", b"data", &7u32.to_le_bytes()];
    p.trace_event(logger, &event(TYPE_START, 5, first)).unwrap();
    // Process::trace_event is TraceEvent itself; a modern event in between.
    app.trace_event(logger, &event(TYPE_INFO, 1, &[])).unwrap();
    let modern = app.register_provider(guid(2)).unwrap();
    b.enable(guid(2), &EnableParams::new()).unwrap();
    modern
        .write(
            &EventDescriptor::new(9, Level::INFORMATION, Keyword(1)),
            &[b"x"],
        )
        .unwrap();
    app.trace_event(logger, &event(250, 255, &[&[0xAB; 300]]))
        .unwrap();
    a.stop().unwrap();
    let st = b.stop().unwrap();
    assert_eq!(st.events_lost, 0);

    assert!(classic_records(&records(&k, "classic-a")).is_empty());
    let recs = records(&k, "classic-b");
    assert_eq!(recs.len(), 4, "three classic records and the modern event");
    let c = classic_records(&recs);
    assert_eq!(c.len(), 3);
    let fields: Vec<_> = c
        .iter()
        .map(|t| (t.event_type(), t.level, t.version, t.guid, t.payload.len()))
        .collect();
    assert_eq!(
        fields,
        [
            (TYPE_START, 5, 2, Some(guid(900)), 12),
            (TYPE_INFO, 1, 2, Some(guid(900)), 0),
            (250, 255, 2, Some(guid(900)), 300),
        ]
    );
    assert_eq!(c[0].payload, b"MOF-data\x07\x00\x00\x00");
    for t in &c {
        assert_eq!(t.header_type, header_type::FULL_HEADER64);
        assert_eq!(t.pointer_size(), Some(8));
        assert_eq!(t.process_id, Some(app.pid()));
        assert_eq!(t.thread_id, Some(thread.tid()));
        assert_eq!(
            t.buffer_context.processor_index, 2,
            "the writer's CPU buffer"
        );
        assert_eq!((t.kernel_time, t.user_time), (0, 0));
        assert_eq!(t.encoded_len(), EVENT_TRACE_HEADER_SIZE + t.payload.len());
    }
    let times: Vec<i64> = recs.iter().filter_map(Record::timestamp).collect();
    assert!(
        times.windows(2).all(|w| w[0] < w[1]),
        "the kernel stamps every record from its clock: {times:?}"
    );

    // As ProcessTrace presents it (CON-02): the class GUID, Class.Type as the opcode.
    let e = Record::Trace(c[0].clone()).into_event_record();
    assert_eq!(e.header.provider_id, guid(900));
    let d = e.header.descriptor;
    assert_eq!(
        (d.opcode.0, d.level.0, d.version, d.id),
        (TYPE_START, 5, 2, 0)
    );
    assert_eq!(
        e.header.flags,
        header_flags::CLASSIC_HEADER | header_flags::HEADER_64_BIT
    );
    assert_eq!(e.user_data, c[0].payload);
}

#[test]
fn a_real_time_consumer_gets_classic_events_as_event_records() {
    // rule: EVT-29
    // rule: CON-02
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let (p, handle) = classic(&app, 3);
    let s = k.session("classic-rt").real_time().start().unwrap();
    s.enable(guid(3), &EnableParams::new()).unwrap();
    let mut consumer = k
        .open_realtime(
            &k.system_process(),
            "classic-rt",
            ConsumerOptions::default(),
        )
        .unwrap();
    let modern = app.register_provider(guid(4)).unwrap();
    s.enable(guid(4), &EnableParams::new()).unwrap();
    let logger = TraceHandle(*handle.lock().unwrap());
    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    modern.write(&d, &[b"before"]).unwrap();
    p.trace_event(logger, &event(TYPE_START, 4, &[b"classic"]))
        .unwrap();
    modern.write(&d, &[b"after"]).unwrap();
    s.flush().unwrap();
    k.run_pending();
    let got = consumer.drain();
    let seen: Vec<(Guid, u16, Vec<u8>)> = got
        .iter()
        .map(|e| (e.header.provider_id, e.header.flags, e.user_data.clone()))
        .collect();
    let classic_flags = header_flags::CLASSIC_HEADER | header_flags::HEADER_64_BIT;
    assert_eq!(
        seen,
        [
            (guid(4), header_flags::HEADER_64_BIT, b"before".to_vec()),
            (guid(900), classic_flags, b"classic".to_vec()),
            (guid(4), header_flags::HEADER_64_BIT, b"after".to_vec()),
        ],
        "the events after a classic record in its buffer are delivered too"
    );
    assert_eq!(got[1].header.descriptor.opcode.0, TYPE_START);
    assert_eq!(got[1].header.process_id, app.pid());
    s.stop().unwrap();
}

#[test]
fn trace_event_refuses_a_bad_handle_and_changes_nothing() {
    // rule: EVT-29
    // rule: KRN-02
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let other = user_process(&k, "other.exe");
    let s = file_session(&k, "classic-handles", 8);
    let kl = k
        .session(KERNEL_LOGGER_NAME)
        .log_file("kernel.etl")
        .start()
        .unwrap();
    let private = k
        .session("classic-private")
        .mode(LogFileMode::PRIVATE_LOGGER)
        .guid(guid(7))
        .log_file("private.etl")
        .caller(&other)
        .start()
        .unwrap();
    let e = event(TYPE_INFO, 4, &[b"x"]);
    let invalid_handle = Win32Error::ERROR_INVALID_HANDLE;
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        app.trace_event(TraceHandle(0), &e)
    });
    assert_rejected(&k, invalid_handle, || {
        app.trace_event(TraceHandle(0x7_0000 | s.handle().0), &e)
    });
    // The NT Kernel Logger takes no classic provider's events (KRN-02).
    assert_rejected(&k, invalid_handle, || app.trace_event(kl.handle(), &e));
    // Another process's private session is not visible to this one; its owner may log.
    assert_rejected(&k, invalid_handle, || app.trace_event(private.handle(), &e));
    other.trace_event(private.handle(), &e).unwrap();
    app.trace_event(s.handle(), &e).unwrap();
    assert_eq!(events_lost(&s), 0);
}

#[test]
fn a_stopped_session_takes_no_classic_event() {
    // rule: EVT-29
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let (p, handle) = classic(&app, 5);
    let s = file_session(&k, "classic-stopped", 8);
    s.enable(guid(5), &EnableParams::new()).unwrap();
    let logger = TraceHandle(*handle.lock().unwrap());
    p.trace_event(logger, &event(TYPE_INFO, 4, &[b"1"]))
        .unwrap();
    s.stop().unwrap();
    assert_eq!(
        *handle.lock().unwrap(),
        0,
        "the stop disabled the provider (WMI_DISABLE_EVENTS)"
    );
    // The provider still holds the handle it was given: it is stale now.
    assert_rejected(&k, Win32Error::ERROR_INVALID_HANDLE, || {
        p.trace_event(logger, &event(TYPE_INFO, 4, &[b"2"]))
    });
    let c = classic_records(&records(&k, "classic-stopped"));
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].payload, b"1");
}

#[test]
fn a_classic_event_larger_than_the_buffer_is_more_data_and_lost() {
    // rule: EVT-29
    // rule: EVT-06
    let k = one_cpu_kernel();
    let app = user_process(&k, "app.exe");
    let s = file_session(&k, "classic-big", 4);
    // A 4 KB buffer holds 4096 − 72 bytes of records: the largest classic event fits.
    let capacity = 4096 - 0x48;
    let fits = vec![1u8; capacity - EVENT_TRACE_HEADER_SIZE];
    app.trace_event(s.handle(), &event(TYPE_INFO, 4, &[&fits]))
        .unwrap();
    let too_big = vec![2u8; capacity - EVENT_TRACE_HEADER_SIZE + 1];
    let err = app
        .trace_event(s.handle(), &event(TYPE_INFO, 4, &[&too_big]))
        .unwrap_err();
    assert!(matches!(err, Error::EventLargerThanBuffer { .. }), "{err}");
    assert_eq!(err.win32_code(), Win32Error::ERROR_MORE_DATA);
    assert_eq!(events_lost(&s), 1, "the refused event is lost");
    s.stop().unwrap();
    let c = classic_records(&records(&k, "classic-big"));
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].payload, fits);

    // Above 65,535 bytes the record's Size cannot hold it, whatever the buffer.
    let big = file_session(&k, "classic-huge", 256);
    let half = vec![3u8; 30_000];
    let limit = vec![4u8; usize::from(u16::MAX) - EVENT_TRACE_HEADER_SIZE - 2 * half.len()];
    app.trace_event(big.handle(), &event(TYPE_INFO, 4, &[&half, &half, &limit]))
        .unwrap();
    let err = app
        .trace_event(
            big.handle(),
            &event(TYPE_INFO, 4, &[&half, &half, &limit, b"!"]),
        )
        .unwrap_err();
    assert_eq!(err.win32_code(), Win32Error::ERROR_MORE_DATA, "{err}");
    assert_eq!(events_lost(&big), 1);
    big.stop().unwrap();
    let c = classic_records(&records(&k, "classic-huge"));
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].encoded_len(), usize::from(u16::MAX));
}

#[test]
fn with_no_free_buffer_a_classic_event_is_not_enough_memory() {
    // rule: EVT-29
    // rule: EVT-07
    let k = one_cpu_kernel();
    let app = user_process(&k, "app.exe");
    let s = k
        .session("classic-tight")
        .buffer_size_kb(4)
        .minimum_buffers(2)
        .maximum_buffers(2)
        .log_file("classic-tight.etl")
        .start()
        .unwrap();
    // Two 2000-byte records per buffer.
    let data = vec![9u8; 2000 - EVENT_TRACE_HEADER_SIZE];
    let put = |n: u8| app.trace_event(s.handle(), &event(n, 4, &[&data]));
    for n in 1..=4 {
        put(n).unwrap();
    }
    for (n, lost) in [(5, 1), (6, 2)] {
        let err = put(n).unwrap_err();
        assert!(matches!(err, Error::NoFreeBuffer), "{err}");
        assert_eq!(err.win32_code(), Win32Error::ERROR_NOT_ENOUGH_MEMORY);
        assert_eq!(events_lost(&s), lost);
    }
    // Once the logger wrote a buffer out, TraceEvent works again.
    k.run_pending();
    put(7).unwrap();
    let st = s.stop().unwrap();
    assert_eq!(st.events_lost, 2);
    let types: Vec<u8> = classic_records(&records(&k, "classic-tight"))
        .iter()
        .map(TraceRecord::event_type)
        .collect();
    assert_eq!(types, [1, 2, 3, 4, 7]);
}
