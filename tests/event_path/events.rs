//! Behaviour tests of the write side of the event path (rules EVT-01 … EVT-29): EventWrite,
//! EventWriteTransfer, EventWriteEx, EventWriteString and the TraceLogging-style write, their
//! return codes and loss counts, the multi-session policy, activity IDs, and the EVENT_RECORD a
//! consumer decodes from what a session recorded (a `MemorySink`, or a real-time `Consumer`).
//!
//! Every kernel is deterministic, so buffer fills, losses and timestamps are exact.
use crate::common;
use common::*;
use etwsim::clock::{CPU_SPEED_MHZ, DEFAULT_EVENT_TICK, DETERMINISTIC_BOOT_FILETIME};
use etwsim::{
    ActivityControl, Channel, ClockType, ConsumerOptions, EVENT_WRITE_FLAG_INPRIVATE,
    EVENT_WRITE_FLAG_NO_FAULTING, EnableParams, EnableProperty, Error, EventDescriptor,
    EventFilter, Guid, Kernel, Keyword, Level, LogFileMode, MemorySink, NameFilter, Opcode,
    ProcessSpec, ProviderTraits, RT_LOST_EVENT, Session, SessionBuilder, SessionProperties, Task,
    Token, Win32Error, WriteOptions,
};
use etwsim_types::record::{
    BUFFER_HEADER_SIZE, BufferHeader, EVENT_HEADER_SIZE, EventRecord, MAX_EVENT_DATA_DESCRIPTORS,
    MAX_EVENT_SIZE, MAX_STACK_FRAMES, align8, decode_buffer, ext_type, header_flags,
};
use std::collections::HashSet;
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Helpers

/// An INFORMATION event with keyword 1 (every default-enabled session takes it).
fn ev(id: u16) -> EventDescriptor {
    EventDescriptor::new(id, Level::INFORMATION, Keyword(1))
}

/// A sequential file session named `name` with `kb`-KB buffers, recording into a MemorySink.
fn file_session(k: &Kernel, name: &str, kb: u32) -> (Session, MemorySink) {
    file_session_with(k, name, |b| b.buffer_size_kb(kb))
}

/// As [`file_session`], with more settings (`mode` must be set before the file, which the
/// helper adds last).
fn file_session_with(
    k: &Kernel,
    name: &str,
    f: impl FnOnce(SessionBuilder) -> SessionBuilder,
) -> (Session, MemorySink) {
    let sink = MemorySink::new();
    let s = f(k.session(name))
        .log_file(&format!("{name}.etl"))
        .sink(sink.clone())
        .start()
        .unwrap_or_else(|e| panic!("starting {name}: {e}"));
    (s, sink)
}

/// Stops the session (which writes out everything it holds) and returns what its sink
/// recorded, with the final statistics.
fn stop(s: &Session, sink: &MemorySink) -> (Vec<EventRecord>, SessionProperties) {
    let st = s.stop().expect("stop");
    (sink.records(), st)
}

fn ids(recs: &[EventRecord]) -> Vec<u16> {
    recs.iter().map(|r| r.header.descriptor.id).collect()
}

fn events_lost(s: &Session) -> u32 {
    s.query().expect("query").events_lost
}

/// A payload of `n` bytes, all `b`.
fn bytes(n: usize, b: u8) -> Vec<u8> {
    vec![b; n]
}

/// A 1-CPU deterministic kernel: the buffer-count floor (2 × CPUs) is then 2, so a pool of
/// exactly two buffers can be asked for.
fn one_cpu_kernel() -> Kernel {
    Kernel::builder()
        .cpus(1)
        .deterministic(7)
        .build()
        .expect("kernel")
}

/// Every record of every buffer the sink holds, as its raw bytes (Size bytes plus the pad to
/// 8), walking the buffers by the records' Size fields.
fn raw_records(sink: &MemorySink) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for b in sink.buffers() {
        let h = BufferHeader::decode(&b).expect("buffer header");
        let used = h.used as usize;
        let mut off = BUFFER_HEADER_SIZE;
        while off < used {
            let size = usize::from(u16::from_le_bytes([b[off], b[off + 1]]));
            assert!(size >= EVENT_HEADER_SIZE, "record Size {size} at {off:#x}");
            out.push(b[off..off + align8(size)].to_vec());
            off += align8(size);
        }
        assert_eq!(off, used, "the records fill exactly the used part");
    }
    out
}

fn le16(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn guid_n(n: u128) -> Guid {
    Guid::from_u128(0x0A0B_0C0D_0000_4000_8000_0000_0000_0000 | n)
}

/// A TraceLogging event-metadata blob (EVENT_SCHEMA_TL): size, no tag, the name, and one
/// UINT32 field per name in `fields`.
fn tl_metadata(event: &str, fields: &[&str]) -> Vec<u8> {
    let mut m = vec![0, 0, 0]; // TotalSize, then the event tag byte (none)
    m.extend_from_slice(event.as_bytes());
    m.push(0);
    for f in fields {
        m.extend_from_slice(f.as_bytes());
        m.push(0);
        m.push(8); // TlgInUINT32
    }
    let total = m.len() as u16;
    m[..2].copy_from_slice(&total.to_le_bytes());
    m
}

// ---------------------------------------------------------------------------------------------
// 4.1 Write APIs and return codes

#[test]
fn eventwrite_transfer_and_ex_with_null_arguments_record_identical_events() {
    // rule: EVT-01
    let k = kernel();
    let g = guid(1);
    let (s, sink) = file_session(&k, "evt01", 64);
    s.enable(
        g,
        &EnableParams::new().property(
            EnableProperty::SID | EnableProperty::TS_ID | EnableProperty::PROCESS_START_KEY,
        ),
    )
    .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let t = app.spawn_thread(2).unwrap();
    let activity = guid_n(0x77);
    t.set_activity_id(activity);
    let _on = t.enter();
    let d = EventDescriptor::new(7, Level::WARNING, Keyword(0x30))
        .with_version(2)
        .with_channel(Channel(16))
        .with_opcode(Opcode::START)
        .with_task(Task(3));
    let blocks: [&[u8]; 3] = [b"abc", b"", b"defgh"];
    p.write(&d, &blocks).unwrap(); // EventWrite
    p.write_transfer(&d, None, None, &blocks).unwrap(); // EventWriteTransfer(NULL, NULL)
    p.write_ex(&d, 0, 0, None, None, &blocks).unwrap(); // EventWriteEx(Filter 0, Flags 0)
    p.write_with_options(&d, &WriteOptions::default(), &blocks)
        .unwrap();
    let (recs, st) = stop(&s, &sink);
    assert_eq!(recs.len(), 4);
    assert_eq!(st.events_lost, 0);
    let first = &recs[0];
    assert_eq!(first.header.descriptor, d);
    assert_eq!(first.header.activity_id, activity);
    assert_eq!(first.header.thread_id, t.tid());
    assert_eq!(first.user_data, b"abcdefgh");
    assert_eq!(first.extended_data.len(), 3);
    // The only difference is the timestamp: the virtual clock moves one tick per event.
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(
            r.header.timestamp,
            first.header.timestamp + i as i64 * DEFAULT_EVENT_TICK as i64
        );
        let mut same = r.clone();
        same.header.timestamp = first.header.timestamp;
        assert_eq!(&same, first, "record {i} differs from EventWrite's");
    }
    // The same holds for the bytes in the buffer: equal except TimeStamp (offset 0x10..0x18).
    let raw = raw_records(&sink);
    assert_eq!(raw.len(), 4);
    for r in &raw {
        assert_eq!(r.len(), raw[0].len());
        assert_eq!(r[..0x10], raw[0][..0x10]);
        assert_eq!(r[0x18..], raw[0][0x18..]);
    }
}

#[test]
fn writes_no_session_wants_succeed_and_record_nothing() {
    // rule: EVT-02
    let k = kernel();
    let g = guid(2);
    let other = guid(3);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let every_write = |id: u16, level: Level, kw: u64| {
        let d = EventDescriptor::new(id, level, Keyword(kw));
        let r = [
            p.write(&d, &[b"x"]),
            p.write_transfer(&d, Some(&guid_n(1)), Some(&guid_n(2)), &[b"x"]),
            p.write_ex(&d, 0, 0, None, None, &[b"x"]),
            p.write_with_options(&d, &WriteOptions::default(), &[b"x"]),
            p.write_with(&d, || b"x".to_vec()),
            p.write_string(level, Keyword(kw), "x"),
        ];
        for (i, r) in r.into_iter().enumerate() {
            assert_eq!(r, Ok(()), "write variant {i} of event {id}");
        }
    };

    // No session at all.
    every_write(1, Level::CRITICAL, 1);

    // A session that enables another provider only; one that rejects by level and keyword;
    // one whose event-ID filter rejects the event after the enable check said yes.
    let (elsewhere, elsewhere_sink) = file_session(&k, "elsewhere", 4);
    elsewhere.enable(other, &EnableParams::new()).unwrap();
    let (picky, picky_sink) = file_session(&k, "picky", 4);
    picky
        .enable(g, &EnableParams::new().level(Level::WARNING).any(0x10))
        .unwrap();
    let (ids_only, ids_sink) = file_session(&k, "ids_only", 4);
    ids_only
        .enable(
            g,
            &EnableParams::new()
                .level(Level::WARNING)
                .any(0x10)
                .filter(EventFilter::EventId {
                    filter_in: true,
                    ids: vec![5],
                }),
        )
        .unwrap();
    every_write(2, Level::VERBOSE, 0x10); // level too high for both
    every_write(3, Level::ERROR, 0x20); // keyword not wanted by either
    every_write(4, Level::ERROR, 0x10); // picky takes it, the id filter does not
    assert!(p.is_enabled_for(Level::ERROR, Keyword(0x10)));

    let (none, st) = stop(&elsewhere, &elsewhere_sink);
    assert!(none.is_empty());
    assert_eq!(st.events_lost, 0);
    let (picky_recs, st) = stop(&picky, &picky_sink);
    assert_eq!(st.events_lost, 0);
    // Only event 4 reached picky (EventWriteString's copy has Id 0): nothing else was
    // recorded anywhere.
    assert_eq!(ids(&picky_recs), [4, 4, 4, 4, 4, 0]);
    let (id_recs, st) = stop(&ids_only, &ids_sink);
    assert!(id_recs.is_empty(), "{:?}", ids(&id_recs));
    assert_eq!(st.events_lost, 0);
}

#[test]
fn write_with_builds_no_payload_when_no_session_wants_the_event() {
    // rule: EVT-02
    // rule: EVT-27
    let k = kernel();
    let g = guid(4);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let mut built = 0;
    p.write_with(&ev(1), || {
        built += 1;
        [1u8]
    })
    .unwrap();
    assert_eq!(built, 0, "the payload was built for a disabled provider");
    let (s, sink) = file_session(&k, "s", 4);
    s.enable(g, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    p.write_with(&ev(2), || {
        built += 1;
        [2u8]
    })
    .unwrap(); // INFORMATION > WARNING: not wanted
    assert_eq!(built, 0);
    p.write_with(&EventDescriptor::new(3, Level::ERROR, Keyword(1)), || {
        built += 1;
        [3u8]
    })
    .unwrap();
    assert_eq!(built, 1);
    let (recs, _) = stop(&s, &sink);
    assert_eq!(ids(&recs), [3]);
    assert_eq!(recs[0].user_data, [3]);
}

#[test]
fn invalid_write_arguments_are_invalid_parameter_and_count_no_loss() {
    // rule: EVT-03
    // rule: EVT-04
    // rule: EVT-11
    let k = kernel();
    let g = guid(5);
    let (s, sink) = file_session(&k, "s", 64);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let one = [7u8];
    let many: Vec<&[u8]> = vec![&one[..]; MAX_EVENT_DATA_DESCRIPTORS + 1];
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    assert_eq!(invalid.0, 87);
    assert_rejected(&k, invalid, || p.write(&ev(1), &many));
    assert_rejected(&k, invalid, || p.write_transfer(&ev(1), None, None, &many));
    assert_rejected(&k, invalid, || p.write_ex(&ev(1), 0, 0, None, None, &many));
    assert_rejected(&k, invalid, || {
        p.write_with_options(&ev(1), &WriteOptions::default(), &many)
    });
    // EventWriteEx Flags: only NO_FAULTING (1) and INPRIVATE (2) exist.
    for flags in [0x4, 0x8, 0x8000_0000, u32::MAX] {
        assert_rejected(&k, invalid, || {
            p.write_ex(&ev(2), 0, flags, None, None, &[b"x"])
        });
    }
    p.write(&ev(3), &[b"ok"]).unwrap();
    let (recs, st) = stop(&s, &sink);
    assert_eq!(ids(&recs), [3]);
    assert_eq!(st.events_lost, 0, "a refused argument is not a lost event");
}

#[test]
fn eventwriteex_filter_bit_i_excludes_the_session_in_enable_slot_i() {
    // rule: EVT-04
    let k = kernel();
    let g = guid(6);
    let rec = Recorder::new();
    let app = user_process(&k, "app.exe");
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let schematized = |tag: u8| {
        let mut b = vec![1, 0, 1, 0, 0, 0, 0, 0];
        b.extend_from_slice(&0u64.to_le_bytes()); // InstanceId: filled in by ETW
        b.extend_from_slice(&25u32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.push(tag);
        EventFilter::Schematized(b)
    };
    let (a, a_sink) = file_session(&k, "a", 4);
    let (b, b_sink) = file_session(&k, "b", 4);
    let (c, c_sink) = file_session(&k, "c", 4);
    let (gone, _) = file_session(&k, "gone", 4);
    // "gone" takes slot 0 and leaves, so the slots of a, b, c are 1, 2, 3.
    gone.enable(g, &EnableParams::new()).unwrap();
    for s in [&a, &b, &c] {
        s.enable(g, &EnableParams::new().filter(schematized(1)))
            .unwrap();
    }
    gone.stop().unwrap();
    // The bit of each session is the InstanceId it gets in the provider's FilterData.
    let instance: Vec<u64> = rec
        .last()
        .schematized_filters()
        .iter()
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(instance, [1, 2, 3]);
    let bit = |i: usize| 1u64 << instance[i];

    p.write_ex(&ev(1), 0, 0, None, None, &[]).unwrap(); // 0: no exclusion
    p.write_ex(&ev(2), bit(0), 0, None, None, &[]).unwrap(); // not a
    p.write_ex(&ev(3), bit(1), 0, None, None, &[]).unwrap(); // not b
    p.write_ex(&ev(4), bit(0) | bit(2), 0, None, None, &[])
        .unwrap(); // b only
    p.write_ex(&ev(5), 1, 0, None, None, &[]).unwrap(); // bit 0: the freed slot, nobody
    p.write_ex(&ev(6), !(bit(0) | bit(1) | bit(2)), 0, None, None, &[])
        .unwrap(); // every other bit: excludes nobody
    // Every session excluded: nothing to record, success (EVT-02), no loss.
    p.write_ex(&ev(7), bit(0) | bit(1) | bit(2), 0, None, None, &[])
        .unwrap();
    let (ra, sa) = stop(&a, &a_sink);
    let (rb, sb) = stop(&b, &b_sink);
    let (rc, sc) = stop(&c, &c_sink);
    assert_eq!(ids(&ra), [1, 3, 5, 6]);
    assert_eq!(ids(&rb), [1, 2, 4, 5, 6]);
    assert_eq!(ids(&rc), [1, 2, 3, 5, 6]);
    assert_eq!((sa.events_lost, sb.events_lost, sc.events_lost), (0, 0, 0));
}

#[test]
fn inprivate_writes_are_dropped_only_by_exclude_inprivate_sessions() {
    // rule: EVT-04
    let k = kernel();
    let g = guid(7);
    let (strict, strict_sink) = file_session(&k, "strict", 4);
    let (open, open_sink) = file_session(&k, "open", 4);
    strict
        .enable(
            g,
            &EnableParams::new().property(EnableProperty::EXCLUDE_INPRIVATE),
        )
        .unwrap();
    open.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    assert_eq!(EVENT_WRITE_FLAG_NO_FAULTING, 0x1);
    assert_eq!(EVENT_WRITE_FLAG_INPRIVATE, 0x2);
    p.write_ex(&ev(1), 0, 0, None, None, &[]).unwrap();
    p.write_ex(&ev(2), 0, EVENT_WRITE_FLAG_INPRIVATE, None, None, &[])
        .unwrap();
    p.write_ex(&ev(3), 0, EVENT_WRITE_FLAG_NO_FAULTING, None, None, &[])
        .unwrap();
    p.write_ex(
        &ev(4),
        0,
        EVENT_WRITE_FLAG_NO_FAULTING | EVENT_WRITE_FLAG_INPRIVATE,
        None,
        None,
        &[],
    )
    .unwrap();
    // Only the INPRIVATE session left: nothing recorded, success.
    let slot_of_open = k
        .enable_slots(g)
        .iter()
        .position(|e| e.is_some_and(|(h, _)| h == open.handle()))
        .unwrap();
    p.write_ex(
        &ev(5),
        1 << slot_of_open,
        EVENT_WRITE_FLAG_INPRIVATE,
        None,
        None,
        &[],
    )
    .unwrap();
    let (rs, ss) = stop(&strict, &strict_sink);
    let (ro, so) = stop(&open, &open_sink);
    assert_eq!(ids(&rs), [1, 3]);
    assert_eq!(ids(&ro), [1, 2, 3, 4]);
    assert_eq!((ss.events_lost, so.events_lost), (0, 0));
}

#[test]
fn an_event_of_exactly_65535_bytes_is_recorded_and_one_byte_more_is_arithmetic_overflow() {
    // rule: EVT-05
    // rule: EVT-03
    let k = kernel();
    let g = guid(8);
    let (s, sink) = file_session(&k, "big", 128); // buffers hold 131,000 bytes of records
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let max_payload = MAX_EVENT_SIZE - EVENT_HEADER_SIZE;
    assert_eq!((MAX_EVENT_SIZE, max_payload), (65_535, 65_455));
    p.write(&ev(1), &[&bytes(max_payload, 0xAB)]).unwrap();
    let e = p
        .write(&ev(2), &[&bytes(max_payload + 1, 0xCD)])
        .unwrap_err();
    assert!(matches!(e, Error::EventTooLarge { size: 65_536 }), "{e:?}");
    assert_eq!(e.win32_code(), Win32Error::ERROR_ARITHMETIC_OVERFLOW);
    assert_eq!(e.win32_code().0, 534);
    assert_eq!(events_lost(&s), 1);
    // The size counts the whole payload, however it is split into blocks.
    let (x, y) = (bytes(40_000, 1), bytes(max_payload + 1 - 40_000, 2));
    let e = p.write(&ev(3), &[&x, &y]).unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_ARITHMETIC_OVERFLOW);
    assert_eq!(events_lost(&s), 2);
    // Far beyond the limit: the same.
    let e = p.write(&ev(4), &[&bytes(100_000, 3)]).unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_ARITHMETIC_OVERFLOW);
    let (recs, st) = stop(&s, &sink);
    assert_eq!(ids(&recs), [1]);
    assert_eq!(recs[0].header.size, 65_535);
    assert_eq!(recs[0].user_data, bytes(max_payload, 0xAB));
    assert_eq!(st.events_lost, 3);
}

#[test]
fn tracelogging_metadata_counts_toward_the_65535_byte_ceiling() {
    // rule: EVT-05
    // rule: EVT-28
    let k = kernel();
    let g = guid(9);
    let (s, sink) = file_session(&k, "tl", 128);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let traits = ProviderTraits::new("Big.Provider");
    let p = app.register_tracelogging(g, &traits).unwrap();
    let meta = tl_metadata("Big", &["blob"]);
    let t_len = traits.to_bytes().unwrap().len();
    let overhead = EVENT_HEADER_SIZE + 8 + align8(t_len) + 8 + align8(meta.len());
    let fit = MAX_EVENT_SIZE - overhead;
    let d = EventDescriptor::new(0, Level::VERBOSE, Keyword(0)).with_channel(Channel::TRACELOGGING);
    let opts = WriteOptions {
        event_name: Some("Big"),
        tracelogging_metadata: Some(&meta),
        ..WriteOptions::default()
    };
    p.write_with_options(&d, &opts, &[&bytes(fit, 1)]).unwrap();
    let e = p
        .write_with_options(&d, &opts, &[&bytes(fit + 1, 2)])
        .unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_ARITHMETIC_OVERFLOW);
    // Without the metadata item the same payload fits.
    p.write(&d, &[&bytes(fit + 1, 3)]).unwrap();
    let (recs, st) = stop(&s, &sink);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].header.size, 65_535);
    assert_eq!(recs[0].user_data, bytes(fit, 1));
    assert_eq!(recs[1].user_data, bytes(fit + 1, 3));
    assert_eq!(st.events_lost, 1);
}

#[test]
fn a_stack_item_can_push_one_sessions_copy_past_65535_bytes() {
    // rule: EVT-05
    // rule: FLT-12
    // rule: EVT-09
    // rule: EVT-10
    let k = kernel();
    let g = guid(10);
    let (plain, plain_sink) = file_session(&k, "plain", 128);
    let (stacked, stacked_sink) = file_session(&k, "stacked", 128);
    let (stacked_ind, stacked_ind_sink) = file_session_with(&k, "stacked_ind", |b| {
        b.mode(LogFileMode::INDEPENDENT_SESSION).buffer_size_kb(128)
    });
    plain.enable(g, &EnableParams::new()).unwrap();
    let stack = EnableParams::new().property(EnableProperty::STACK_TRACE);
    stacked.enable(g, &stack).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let t = app.spawn_thread(1).unwrap();
    t.set_stack(&[0x1000, 0x2000, 0x3000]);
    let _on = t.enter();
    let stack_item = 8 + 8 + 3 * 8; // item header, MatchId, three frames
    let fit = MAX_EVENT_SIZE - EVENT_HEADER_SIZE - stack_item;

    p.write(&ev(1), &[&bytes(fit, 1)]).unwrap(); // the stacked copy is exactly 65,535
    // One byte more: the stacked copy is too large; plain could take it, but the two are
    // dependent sessions, so neither does and the write fails.
    let e = p.write(&ev(2), &[&bytes(fit + 1, 2)]).unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_ARITHMETIC_OVERFLOW);
    assert_eq!((events_lost(&plain), events_lost(&stacked)), (0, 1));
    let (rs, _) = stop(&stacked, &stacked_sink);
    assert_eq!(ids(&rs), [1]);
    assert_eq!(rs[0].header.size, 65_535);
    assert_eq!(
        rs[0].extended(ext_type::STACK_TRACE64).unwrap().data.len(),
        8 + 3 * 8
    );

    // With an independent stacked session instead, plain records it and the write succeeds.
    stacked_ind.enable(g, &stack).unwrap();
    p.write(&ev(3), &[&bytes(fit + 1, 3)]).unwrap();
    let (rp, sp) = stop(&plain, &plain_sink);
    let (ri, si) = stop(&stacked_ind, &stacked_ind_sink);
    assert_eq!(ids(&rp), [1, 3]);
    assert_eq!(rp[0].header.size as usize, MAX_EVENT_SIZE - stack_item);
    assert!(ri.is_empty());
    assert_eq!((sp.events_lost, si.events_lost), (0, 1));
}

#[test]
fn an_event_larger_than_a_buffer_is_more_data_and_events_are_never_split() {
    // rule: EVT-06
    // rule: EVT-03
    let k = kernel();
    let g = guid(11);
    let (s, sink) = file_session(&k, "small", 4);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let capacity = 4096 - BUFFER_HEADER_SIZE;
    assert_eq!(capacity, 4024);
    let fit = capacity - EVENT_HEADER_SIZE; // 3944: a record filling a buffer exactly
    p.write(&ev(1), &[&bytes(100, 1)]).unwrap();
    p.write(&ev(2), &[&bytes(fit, 2)]).unwrap(); // does not fit behind 1: next buffer, whole
    let e = p.write(&ev(3), &[&bytes(fit + 1, 3)]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::EventLargerThanBuffer {
                size: 4025,
                capacity: 4024
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.win32_code(), Win32Error::ERROR_MORE_DATA);
    assert_eq!(e.win32_code().0, 234);
    assert_eq!(events_lost(&s), 1);
    // Split into blocks, the same size fits, in a buffer of its own.
    p.write(&ev(4), &[&bytes(1000, 4), &bytes(fit - 1000, 4)])
        .unwrap();
    let (recs, st) = stop(&s, &sink);
    assert_eq!(ids(&recs), [1, 2, 4]);
    assert_eq!(st.events_lost, 1);
    let buffers = sink.buffers();
    assert_eq!(buffers.len(), 3);
    let used: Vec<u32> = buffers
        .iter()
        .map(|b| BufferHeader::decode(b).unwrap().used)
        .collect();
    assert_eq!(used, [72 + 184, 4096, 4096]);
    for b in &buffers {
        let (records, err) = decode_buffer(b);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(records.len(), 1, "one whole record per buffer");
    }
    assert_eq!(recs[1].user_data, bytes(fit, 2));
    assert_eq!(recs[2].user_data, bytes(fit, 4));
}

#[test]
fn with_no_free_buffer_the_event_is_lost_with_not_enough_memory() {
    // rule: EVT-07
    // rule: EVT-03
    let k = one_cpu_kernel();
    let g = guid(12);
    let (s, sink) = file_session_with(&k, "tight", |b| {
        b.buffer_size_kb(4).minimum_buffers(2).maximum_buffers(2)
    });
    s.enable(g, &EnableParams::new()).unwrap();
    let q = s.query().unwrap();
    assert_eq!((q.number_of_buffers, q.maximum_buffers), (2, 2));
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let payload = bytes(2000 - EVENT_HEADER_SIZE, 9); // two 2000-byte records per buffer
    for id in 1..=4 {
        p.write(&ev(id), &[&payload]).unwrap();
    }
    // Both buffers are full and the logger has not run: no buffer to put event 5 in.
    for (id, lost) in [(5, 1), (6, 2)] {
        let e = p.write(&ev(id), &[&payload]).unwrap_err();
        assert!(matches!(e, Error::NoFreeBuffer), "{e:?}");
        assert_eq!(e.win32_code(), Win32Error::ERROR_NOT_ENOUGH_MEMORY);
        assert_eq!(e.win32_code().0, 8);
        assert_eq!(events_lost(&s), lost);
    }
    // Once the logger wrote a buffer out, writing works again.
    k.run_pending();
    p.write(&ev(7), &[&payload]).unwrap();
    let (recs, st) = stop(&s, &sink);
    assert_eq!(ids(&recs), [1, 2, 3, 4, 7]);
    assert_eq!(st.events_lost, 2);
    assert_eq!(
        st.number_of_buffers, 2,
        "the pool never grew past MaximumBuffers"
    );
}

#[test]
fn a_buffering_session_never_runs_out_of_buffers() {
    // rule: EVT-07
    let k = one_cpu_kernel();
    let g = guid(13);
    let sink = MemorySink::new();
    let s = k
        .session("ring")
        .buffering()
        .buffer_size_kb(4)
        .minimum_buffers(2)
        .maximum_buffers(2)
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let payload = bytes(2000 - EVENT_HEADER_SIZE, 9);
    for id in 1..=50 {
        assert_eq!(p.write(&ev(id), &[&payload]), Ok(()), "event {id}");
    }
    let q = s.flush().unwrap();
    assert_eq!(q.events_lost, 0);
    assert_eq!(q.number_of_buffers, 2);
    // The ring kept the newest events, in order, ending with the last one.
    let got = ids(&sink.records());
    assert!(got.len() >= 2, "{got:?}");
    assert_eq!(*got.last().unwrap(), 50);
    assert!(got.windows(2).all(|w| w[1] == w[0] + 1), "{got:?}");
}

#[test]
fn a_full_realtime_backing_store_without_a_consumer_fails_writes_with_log_file_full() {
    // rule: EVT-08
    // rule: EVT-03
    let k = Kernel::builder()
        .cpus(1)
        .deterministic(8)
        .realtime_backlog_buffers(2)
        .build()
        .unwrap();
    let g = guid(14);
    let sink = MemorySink::new();
    let s = k
        .session("rt")
        .log_file("rt.etl")
        .real_time()
        .buffer_size_kb(4)
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let payload = bytes(2000 - EVENT_HEADER_SIZE, 5); // two records per buffer
    for id in 1..=3 {
        p.write(&ev(id), &[&payload]).unwrap();
    }
    k.run_pending(); // buffer [1, 2] goes to the backing store
    assert_eq!(s.realtime_backlog(), 1);
    for id in 4..=5 {
        p.write(&ev(id), &[&payload]).unwrap();
    }
    k.run_pending(); // buffer [3, 4]: the store (2 buffers) is full
    assert_eq!(s.realtime_backlog(), 2);
    for (id, lost) in [(6, 1), (7, 2)] {
        let e = p.write(&ev(id), &[b"small"]).unwrap_err();
        assert!(matches!(e, Error::RealTimeBacklogFull), "{e:?}");
        assert_eq!(e.win32_code(), Win32Error::ERROR_LOG_FILE_FULL);
        assert_eq!(e.win32_code().0, 1502);
        assert_eq!(events_lost(&s), lost);
    }
    // A consumer takes the backlog; writes work again.
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    assert_eq!(s.realtime_backlog(), 0);
    p.write(&ev(8), &[&payload]).unwrap();
    s.flush().unwrap();
    let got = c.drain();
    let events: Vec<u16> = got
        .iter()
        .filter(|r| !r.is_lost_event_marker())
        .map(|r| r.header.descriptor.id)
        .collect();
    assert_eq!(events, [1, 2, 3, 4, 5, 8]);
    assert!(
        got.iter().any(
            |r| r.is_lost_event_marker() && r.header.descriptor.opcode == Opcode(RT_LOST_EVENT)
        )
    );
    // Nothing was logged to the file either while the store was full.
    let (file, st) = stop(&s, &sink);
    assert_eq!(ids(&file), [1, 2, 3, 4, 5, 8]);
    assert_eq!(st.events_lost, 2);
}

#[test]
fn dependent_sessions_take_an_event_all_or_none_whatever_their_slot_order() {
    // rule: EVT-09
    // rule: EVT-06
    let k = kernel();
    let (g1, g2) = (guid(15), guid(16));
    let (small, small_sink) = file_session(&k, "small", 4);
    let (large, large_sink) = file_session(&k, "large", 8);
    // g1: the failing session in slot 0; g2: the failing session in slot 1.
    small.enable(g1, &EnableParams::new()).unwrap();
    large.enable(g1, &EnableParams::new()).unwrap();
    large.enable(g2, &EnableParams::new()).unwrap();
    small.enable(g2, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p1 = app.register_provider(g1).unwrap();
    let p2 = app.register_provider(g2).unwrap();
    for (n, p) in [(0u16, &p1), (10, &p2)] {
        p.write(&ev(n + 1), &[&bytes(100, 1)]).unwrap();
        let e = p.write(&ev(n + 2), &[&bytes(5000, 2)]).unwrap_err();
        assert_eq!(e.win32_code(), Win32Error::ERROR_MORE_DATA);
        p.write(&ev(n + 3), &[&bytes(100, 3)]).unwrap();
    }
    let (rs, ss) = stop(&small, &small_sink);
    let (rl, sl) = stop(&large, &large_sink);
    assert_eq!(ids(&rs), [1, 3, 11, 13]);
    assert_eq!(
        ids(&rl),
        [1, 3, 11, 13],
        "large kept no copy of the refused events"
    );
    // Only the session that could not take the event counts it as lost.
    assert_eq!((ss.events_lost, sl.events_lost), (2, 0));
}

#[test]
fn one_dependent_session_out_of_buffers_makes_the_write_fail_for_all() {
    // rule: EVT-09
    // rule: EVT-07
    let k = one_cpu_kernel();
    let g = guid(17);
    let (roomy, roomy_sink) = file_session(&k, "roomy", 64);
    let (tight, tight_sink) = file_session_with(&k, "tight", |b| {
        b.buffer_size_kb(4).minimum_buffers(2).maximum_buffers(2)
    });
    roomy.enable(g, &EnableParams::new()).unwrap();
    tight.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let payload = bytes(2000 - EVENT_HEADER_SIZE, 1);
    for id in 1..=4 {
        p.write(&ev(id), &[&payload]).unwrap();
    }
    let e = p.write(&ev(5), &[&payload]).unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_NOT_ENOUGH_MEMORY);
    assert_eq!((events_lost(&roomy), events_lost(&tight)), (0, 1));
    k.run_pending();
    p.write(&ev(6), &[&payload]).unwrap();
    let (rr, sr) = stop(&roomy, &roomy_sink);
    let (rt, st) = stop(&tight, &tight_sink);
    assert_eq!(ids(&rr), [1, 2, 3, 4, 6]);
    assert_eq!(ids(&rt), [1, 2, 3, 4, 6]);
    assert_eq!((sr.events_lost, st.events_lost), (0, 1));
}

#[test]
fn an_independent_sessions_failure_is_not_reported_and_stops_no_other_session() {
    // rule: EVT-10
    let k = kernel();
    let g = guid(18);
    let (ind, ind_sink) = file_session_with(&k, "ind_small", |b| {
        b.mode(LogFileMode::INDEPENDENT_SESSION).buffer_size_kb(4)
    });
    let (dep, dep_sink) = file_session(&k, "dep_large", 8);
    ind.enable(g, &EnableParams::new()).unwrap();
    dep.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    p.write(&ev(1), &[&bytes(5000, 1)]).unwrap();
    p.write(&ev(2), &[&bytes(10, 2)]).unwrap();
    let (ri, si) = stop(&ind, &ind_sink);
    let (rd, sd) = stop(&dep, &dep_sink);
    assert_eq!(ids(&ri), [2]);
    assert_eq!(ids(&rd), [1, 2]);
    assert_eq!((si.events_lost, sd.events_lost), (1, 0));
}

#[test]
fn an_independent_session_records_an_event_a_dependent_session_refused() {
    // rule: EVT-10
    // rule: EVT-09
    let k = kernel();
    let g = guid(19);
    let (dep, dep_sink) = file_session(&k, "dep_small", 4);
    let (ind, ind_sink) = file_session_with(&k, "ind_large", |b| {
        b.mode(LogFileMode::INDEPENDENT_SESSION).buffer_size_kb(8)
    });
    dep.enable(g, &EnableParams::new()).unwrap();
    ind.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let e = p.write(&ev(1), &[&bytes(5000, 1)]).unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_MORE_DATA);
    let (rd, sd) = stop(&dep, &dep_sink);
    let (ri, si) = stop(&ind, &ind_sink);
    assert!(rd.is_empty());
    assert_eq!(ids(&ri), [1]);
    assert_eq!((sd.events_lost, si.events_lost), (1, 0));
}

#[test]
fn the_write_succeeds_even_when_the_only_target_is_independent_and_drops_the_event() {
    // rule: EVT-10
    let k = one_cpu_kernel();
    let g = guid(20);
    let (ind, ind_sink) = file_session_with(&k, "ind", |b| {
        b.mode(LogFileMode::INDEPENDENT_SESSION)
            .buffer_size_kb(4)
            .minimum_buffers(2)
            .maximum_buffers(2)
    });
    ind.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    // Larger than its buffer (ERROR_MORE_DATA for a dependent session)…
    assert_eq!(p.write(&ev(1), &[&bytes(5000, 1)]), Ok(()));
    // …larger than 65,535 bytes (ERROR_ARITHMETIC_OVERFLOW)…
    assert_eq!(p.write(&ev(2), &[&bytes(70_000, 2)]), Ok(()));
    // …and no free buffer (ERROR_NOT_ENOUGH_MEMORY): every write returns success.
    let payload = bytes(2000 - EVENT_HEADER_SIZE, 3);
    for id in 3..=8 {
        assert_eq!(p.write(&ev(id), &[&payload]), Ok(()), "event {id}");
    }
    let (recs, st) = stop(&ind, &ind_sink);
    assert_eq!(ids(&recs), [3, 4, 5, 6]);
    assert_eq!(st.events_lost, 2 + 2);
}

#[test]
fn up_to_128_data_blocks_are_concatenated_in_order_and_129_are_refused() {
    // rule: EVT-11
    // rule: EVT-03
    let k = kernel();
    let g = guid(21);
    let (s, sink) = file_session(&k, "s", 64);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    assert_eq!(MAX_EVENT_DATA_DESCRIPTORS, 128);
    // Blocks of 0…4 bytes (odd sizes, empty ones too), each filled with its index.
    let blocks: Vec<Vec<u8>> = (0..129u8).map(|i| vec![i; usize::from(i % 5)]).collect();
    let refs: Vec<&[u8]> = blocks.iter().map(Vec::as_slice).collect();
    p.write(&ev(1), &refs[..128]).unwrap();
    p.write(&ev(2), &[b"a", b"bc", b"def"]).unwrap();
    p.write(&ev(3), &[]).unwrap(); // UserData NULL with a count of 0
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        p.write(&ev(4), &refs)
    });
    let (recs, st) = stop(&s, &sink);
    assert_eq!(ids(&recs), [1, 2, 3]);
    let expected: Vec<u8> = blocks[..128].concat();
    assert_eq!(recs[0].user_data, expected);
    assert_eq!(
        usize::from(recs[0].header.size),
        EVENT_HEADER_SIZE + expected.len()
    );
    assert_eq!(recs[1].user_data, b"abcdef");
    assert!(recs[2].user_data.is_empty());
    assert_eq!(usize::from(recs[2].header.size), EVENT_HEADER_SIZE);
    assert_eq!(st.events_lost, 0);
}

#[test]
fn data_blocks_are_plain_payload_and_only_the_descriptor_type_opt_in_is_recorded() {
    // rule: EVT-12
    let k = kernel();
    let (g1, g2) = (guid(22), guid(23));
    let (s, sink) = file_session(&k, "s", 64);
    s.enable(g1, &EnableParams::new()).unwrap();
    s.enable(g2, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let plain = app.register_provider(g1).unwrap();
    let traced = app.register_provider(g2).unwrap();
    // Nobody opted in yet.
    assert!(!plain.uses_descriptor_type());
    assert!(!traced.uses_descriptor_type());
    // A block that looks like TraceLogging event metadata is payload like any other.
    let meta_like = tl_metadata("Fake", &["x"]);
    plain.write(&ev(1), &[&meta_like, b"\x01\0\0\0"]).unwrap();
    // EventProviderUseDescriptorType (3) with TRUE opts in; traits opt in as well.
    plain.set_information(3, &[1]).unwrap();
    assert!(plain.uses_descriptor_type());
    traced.set_traits(&ProviderTraits::new("Traced")).unwrap();
    assert!(traced.uses_descriptor_type());
    plain.set_information(3, &[0]).unwrap();
    assert!(!plain.uses_descriptor_type());
    let (recs, _) = stop(&s, &sink);
    assert_eq!(recs.len(), 1);
    assert!(recs[0].extended_data.is_empty());
    assert_eq!(recs[0].user_data, [&meta_like[..], b"\x01\0\0\0"].concat());
}

#[test]
fn eventwritestring_writes_a_string_only_event_with_zero_ids() {
    // rule: EVT-13
    let k = kernel();
    let g = guid(24);
    let (s, sink) = file_session(&k, "s", 4);
    s.enable(g, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let t = app.spawn_thread(0).unwrap();
    let activity = guid_n(0x13);
    t.set_activity_id(activity);
    let _on = t.enter();
    let text = "héllo 𝄞 wörld";
    p.write_string(Level::WARNING, Keyword(0x8), text).unwrap();
    p.write_string(Level::ERROR, Keyword(0), "").unwrap();
    p.write_string(Level::VERBOSE, Keyword(0x8), "too verbose")
        .unwrap(); // level filtered: not recorded
    let (recs, st) = stop(&s, &sink);
    assert_eq!(recs.len(), 2);
    assert_eq!(st.events_lost, 0);
    let utf16: Vec<u8> = text
        .encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect();
    let expect = [
        (Level::WARNING, Keyword(0x8), utf16),
        (Level::ERROR, Keyword(0), vec![0, 0]),
    ];
    for (r, (level, kw, payload)) in recs.iter().zip(expect) {
        let d = r.header.descriptor;
        assert_eq!(
            (d.id, d.version, d.opcode, d.task, d.channel),
            (0, 0, Opcode(0), Task(0), Channel(0))
        );
        assert_eq!((d.level, d.keyword), (level, kw));
        assert_eq!(r.header.activity_id, activity);
        assert_eq!(r.header.flags, header_flags::STRING_ONLY);
        assert_eq!(r.user_data, payload);
        assert_eq!(
            usize::from(r.header.size),
            EVENT_HEADER_SIZE + payload.len()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 4.2 Activity IDs

#[test]
fn activity_ids_are_thread_local_null_at_creation_and_an_explicit_id_wins() {
    // rule: EVT-14
    let k = kernel();
    let g = guid(25);
    let (s, sink) = file_session(&k, "s", 64);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let other_app = user_process(&k, "other.exe");
    let p = app.register_provider(g).unwrap();
    let q = other_app.register_provider(g).unwrap();
    let t1 = app.spawn_thread(0).unwrap();
    let t2 = app.spawn_thread(1).unwrap();
    assert!(t1.activity_id().is_null());
    assert!(t2.activity_id().is_null());
    let (a, b) = (guid_n(0xA), guid_n(0xB));
    t1.set_activity_id(a);
    assert_eq!(t1.activity_id(), a);
    assert!(t2.activity_id().is_null(), "another thread's id changed");
    assert!(app.spawn_thread(2).unwrap().activity_id().is_null());
    let null = Guid::NULL;
    let mut expected = Vec::new();
    {
        let _on = t1.enter();
        p.write(&ev(1), &[]).unwrap();
        expected.push((1, a, t1.tid()));
        p.write_transfer(&ev(2), Some(&b), None, &[]).unwrap();
        expected.push((2, b, t1.tid()));
        p.write_ex(&ev(3), 0, 0, Some(&b), None, &[]).unwrap();
        expected.push((3, b, t1.tid()));
        p.write_transfer(&ev(4), None, Some(&b), &[]).unwrap();
        expected.push((4, a, t1.tid()));
        p.write_transfer(&ev(5), Some(&null), None, &[]).unwrap();
        expected.push((5, null, t1.tid())); // an explicit GUID_NULL wins too
        {
            let _inner = t2.enter();
            p.write(&ev(6), &[]).unwrap();
            expected.push((6, null, t2.tid()));
        }
        p.write(&ev(7), &[]).unwrap(); // back on t1
        expected.push((7, a, t1.tid()));
        // A provider of another process does not run on app's thread.
        q.write(&ev(8), &[]).unwrap();
    }
    p.write(&ev(9), &[]).unwrap(); // app's main thread: never given an id
    let (recs, _) = stop(&s, &sink);
    // (Buffers are per CPU: t2 writes into another one, so order by id.)
    let mut got: Vec<(u16, Guid, u32)> = recs
        .iter()
        .filter(|r| r.header.process_id == app.pid() && r.header.descriptor.id < 8)
        .map(|r| {
            (
                r.header.descriptor.id,
                r.header.activity_id,
                r.header.thread_id,
            )
        })
        .collect();
    got.sort_by_key(|e| e.0);
    assert_eq!(got, expected);
    let eight = recs.iter().find(|r| r.header.descriptor.id == 8).unwrap();
    assert_eq!(eight.header.process_id, other_app.pid());
    assert!(eight.header.activity_id.is_null());
    assert_ne!(eight.header.thread_id, t1.tid());
    let nine = recs.iter().find(|r| r.header.descriptor.id == 9).unwrap();
    assert!(nine.header.activity_id.is_null());
    assert_ne!(nine.header.thread_id, t1.tid());
}

#[test]
fn every_activity_control_code_does_what_its_documentation_says() {
    // rule: EVT-15
    let k = kernel();
    let g = guid(26);
    let (s, sink) = file_session(&k, "s", 4);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let t = app.spawn_thread(0).unwrap();
    let _on = t.enter();
    let (a, b, junk) = (guid_n(0xA), guid_n(0xB), guid_n(0xFF));

    // GET_ID (1): out ← the thread's id.
    let mut id = junk;
    t.activity_id_control(ActivityControl::GetId, &mut id);
    assert!(id.is_null());
    // SET_ID (2): the thread's id ← in; the argument is left alone.
    let mut id = a;
    t.activity_id_control(ActivityControl::SetId, &mut id);
    assert_eq!((t.activity_id(), id), (a, a));
    let mut id = junk;
    t.activity_id_control(ActivityControl::GetId, &mut id);
    assert_eq!(id, a);
    p.write(&ev(1), &[]).unwrap();
    // CREATE_ID (3): out ← a new id; the thread's id is unchanged.
    let mut created = junk;
    t.activity_id_control(ActivityControl::CreateId, &mut created);
    assert!(!created.is_null());
    assert_ne!(created, junk);
    assert_eq!(t.activity_id(), a);
    p.write(&ev(2), &[]).unwrap();
    // GET_SET_ID (4): swap.
    let mut id = b;
    t.activity_id_control(ActivityControl::GetSetId, &mut id);
    assert_eq!((t.activity_id(), id), (b, a));
    p.write(&ev(3), &[]).unwrap();
    // CREATE_SET_ID (5): out ← the previous id, the thread's id ← a new one.
    let mut id = junk;
    t.activity_id_control(ActivityControl::CreateSetId, &mut id);
    assert_eq!(id, b);
    let fresh = t.activity_id();
    assert!(!fresh.is_null());
    assert!(![a, b, created, junk].contains(&fresh));
    p.write(&ev(4), &[]).unwrap();

    let (recs, _) = stop(&s, &sink);
    let got: Vec<Guid> = recs.iter().map(|r| r.header.activity_id).collect();
    assert_eq!(got, [a, a, b, fresh]);

    // The codes and their values; anything else is not a code (the win32-style face refuses
    // it with ERROR_INVALID_PARAMETER, the project's choice).
    for (v, c) in [
        (1, ActivityControl::GetId),
        (2, ActivityControl::SetId),
        (3, ActivityControl::CreateId),
        (4, ActivityControl::GetSetId),
        (5, ActivityControl::CreateSetId),
    ] {
        assert_eq!(ActivityControl::from_raw(v), Some(c));
        assert_eq!(c as u32, v);
    }
    for v in [0, 6, 7, 0x100, u32::MAX] {
        assert_eq!(ActivityControl::from_raw(v), None, "code {v}");
    }
}

#[test]
fn created_activity_ids_are_unique_and_never_valid_rfc4122_guids() {
    // rule: EVT-16
    let k = kernel();
    let a = user_process(&k, "a.exe");
    let b = user_process(&k, "b.exe");
    let threads = [
        a.spawn_thread(0).unwrap(),
        a.spawn_thread(1).unwrap(),
        b.spawn_thread(2).unwrap(),
    ];
    let mut seen = HashSet::new();
    for i in 0..3000 {
        let t = &threads[i % 3];
        let mut id = Guid::NULL;
        let code = if i % 2 == 0 {
            ActivityControl::CreateId
        } else {
            ActivityControl::CreateSetId
        };
        t.activity_id_control(code, &mut id);
        let id = if code == ActivityControl::CreateSetId {
            t.activity_id()
        } else {
            id
        };
        assert!(!id.is_null());
        let v = id.as_u128();
        // RFC 4122 / 9562 GUIDs have variant bits 10 and a version 1…8: these have the
        // reserved variant 111 and version 0.
        assert_eq!((v >> 61) & 0b111, 0b111, "{id}");
        assert_eq!((v >> 76) & 0xF, 0, "{id}");
        assert_eq!(id.as_uuid().get_version_num(), 0);
        assert_eq!(format!("{:?}", id.as_uuid().get_variant()), "Future");
        assert!(seen.insert(id), "{id} was made twice");
    }
    // A real GUID-shaped id (version 4, variant 10) can never come out.
    let v4: Guid = "{b3864c38-4273-48c5-945b-8b3608343471}".parse().unwrap();
    assert!(!seen.contains(&v4));
}

#[test]
fn a_related_activity_id_is_an_extended_item_only_when_given() {
    // rule: EVT-17
    let k = kernel();
    let g = guid(27);
    let (s, sink) = file_session(&k, "s", 4);
    let (sid_s, sid_sink) = file_session(&k, "sid", 4);
    s.enable(g, &EnableParams::new()).unwrap();
    sid_s
        .enable(g, &EnableParams::new().property(EnableProperty::SID))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let t = app.spawn_thread(0).unwrap();
    t.set_activity_id(guid_n(0x7));
    let _on = t.enter();
    let (act, rel) = (guid_n(0xAC), guid_n(0x2E1));
    let start = ev(1).with_opcode(Opcode::START);
    p.write_transfer(&start, Some(&act), Some(&rel), &[b"p"])
        .unwrap();
    p.write_transfer(&ev(2), Some(&act), None, &[b"p"]).unwrap();
    p.write_ex(&ev(3), 0, 0, None, Some(&rel), &[b"p"]).unwrap();
    let opts = WriteOptions {
        related_activity_id: Some(&rel),
        ..WriteOptions::default()
    };
    p.write_with_options(&ev(4), &opts, &[b"p"]).unwrap();
    p.write(&ev(5), &[b"p"]).unwrap();
    p.write_transfer(&ev(6), None, Some(&Guid::NULL), &[b"p"])
        .unwrap(); // a non-NULL pointer to GUID_NULL still makes an item
    let (recs, _) = stop(&s, &sink);
    assert_eq!(ids(&recs), [1, 2, 3, 4, 5, 6]);
    let related = |r: &EventRecord| {
        r.extended(ext_type::RELATED_ACTIVITYID)
            .map(|i| i.as_guid().unwrap())
    };
    let want = [
        Some(rel),
        None,
        Some(rel),
        Some(rel),
        None,
        Some(Guid::NULL),
    ];
    for (r, w) in recs.iter().zip(want) {
        assert_eq!(related(r), w, "event {}", r.header.descriptor.id);
        match w {
            Some(_) => {
                assert_eq!(r.extended_data.len(), 1);
                assert_eq!(r.extended_data[0].data.len(), 16);
                assert_eq!(r.header.flags, header_flags::EXTENDED_INFO);
                assert_eq!(usize::from(r.header.size), EVENT_HEADER_SIZE + 8 + 16 + 1);
            }
            None => {
                assert!(r.extended_data.is_empty());
                assert_eq!(r.header.flags, 0);
                assert_eq!(usize::from(r.header.size), EVENT_HEADER_SIZE + 1);
            }
        }
    }
    assert_eq!(recs[0].header.activity_id, act);
    assert_eq!(recs[2].header.activity_id, guid_n(0x7));
    // With other items present, there is still exactly one related-activity item.
    let (with_sid, _) = stop(&sid_s, &sid_sink);
    let kinds: Vec<u16> = with_sid[0]
        .extended_data
        .iter()
        .map(|i| i.ext_type)
        .collect();
    assert_eq!(kinds, [ext_type::RELATED_ACTIVITYID, ext_type::SID]);
    let kinds: Vec<u16> = with_sid[1]
        .extended_data
        .iter()
        .map(|i| i.ext_type)
        .collect();
    assert_eq!(kinds, [ext_type::SID]);
}

// ---------------------------------------------------------------------------------------------
// 4.3 What the consumer sees

#[test]
fn the_event_header_carries_the_writer_the_descriptor_and_the_activity() {
    // rule: EVT-18
    let k = kernel();
    let g = guid(28);
    let (s, sink) = file_session(&k, "s", 4);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = k
        .spawn_process(ProcessSpec::new("app.exe", Token::user("alice")).pid(4244))
        .unwrap();
    let p = app.register_provider(g).unwrap();
    let t = app.spawn_thread(3).unwrap();
    let activity = guid_n(0x18);
    t.set_activity_id(activity);
    let d = EventDescriptor::new(0xBEEF, Level::INFORMATION, Keyword(0x8000_0000_0000_0001))
        .with_version(7)
        .with_channel(Channel(16))
        .with_opcode(Opcode(0x2A))
        .with_task(Task(0x1234));
    {
        let _on = t.enter();
        p.write(&d, &[b"payload", b"!!"]).unwrap();
    }
    let (recs, _) = stop(&s, &sink);
    assert_eq!(recs.len(), 1);
    let h = &recs[0].header;
    assert_eq!(
        usize::from(h.size),
        EVENT_HEADER_SIZE + 9,
        "Size excludes the pad"
    );
    assert_eq!(h.header_type, 0x13);
    assert_eq!(h.flags, 0);
    assert_eq!(
        h.event_property, 0,
        "no XML / forwarded / legacy / relog source (EVT-21)"
    );
    assert_eq!(
        (h.kernel_time, h.user_time),
        (0, 0),
        "CPU time is not simulated"
    );
    assert_eq!(h.thread_id, t.tid());
    assert_eq!(h.process_id, 4244);
    assert_eq!(h.provider_id, g);
    assert_eq!(h.descriptor, d);
    assert_eq!(h.activity_id, activity);
    assert_eq!(recs[0].user_data, b"payload!!");
    // The same in the bytes.
    let raw = &raw_records(&sink)[0];
    assert_eq!(raw.len(), 96);
    assert_eq!(le16(raw, 0), 89);
    assert_eq!((raw[2], raw[3]), (0x13, 0xC0));
    assert_eq!(u32::from_le_bytes(raw[8..12].try_into().unwrap()), t.tid());
    assert_eq!(u32::from_le_bytes(raw[12..16].try_into().unwrap()), 4244);
    assert_eq!(raw[24..40], g.to_bytes_le());
    assert_eq!(le16(raw, 40), 0xBEEF);
    assert_eq!(raw[42..48], [7, 16, 4, 0x2A, 0x34, 0x12]);
    assert_eq!(raw[48..56], 0x8000_0000_0000_0001u64.to_le_bytes());
    assert_eq!(raw[64..80], activity.to_bytes_le());
    assert_eq!(raw[80..89], *b"payload!!");
    assert_eq!(raw[89..], [0; 7]);
}

#[test]
fn timestamps_follow_each_sessions_clock_type() {
    // rule: EVT-18
    let k = kernel();
    let g = guid(29);
    let clocks = [ClockType::Qpc, ClockType::SystemTime, ClockType::CpuCycle];
    let sessions: Vec<(Session, MemorySink)> = clocks
        .iter()
        .enumerate()
        .map(|(i, c)| file_session_with(&k, &format!("clock{i}"), |b| b.clock(*c)))
        .collect();
    let rt: Vec<Session> = clocks
        .iter()
        .enumerate()
        .map(|(i, c)| k.session(&format!("rt{i}")).clock(*c).start().unwrap())
        .collect();
    let mut consumers: Vec<_> = rt
        .iter()
        .map(|s| {
            k.open_realtime(&k.system_process(), s.name(), ConsumerOptions::default())
                .unwrap()
        })
        .collect();
    for s in sessions.iter().map(|(s, _)| s).chain(&rt) {
        s.enable(g, &EnableParams::new()).unwrap();
    }
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    k.advance(Duration::from_millis(5));
    let t0 = k.now().as_nanos() as i64 / 100;
    p.write(&ev(1), &[]).unwrap();
    k.advance(Duration::from_secs(1));
    p.write(&ev(2), &[]).unwrap();
    let t1 = t0 + DEFAULT_EVENT_TICK as i64; // 100-ns ticks since boot
    let t2 = t1 + 10_000_000 + DEFAULT_EVENT_TICK as i64;
    let cycles = CPU_SPEED_MHZ as i64 / 10; // cycles per 100 ns
    let want = [
        [t1, t2], // QPC at 10 MHz
        [
            DETERMINISTIC_BOOT_FILETIME + t1,
            DETERMINISTIC_BOOT_FILETIME + t2,
        ], // FILETIME
        [t1 * cycles, t2 * cycles], // CPU cycles
    ];
    for ((s, sink), w) in sessions.iter().zip(want) {
        let (recs, _) = stop(s, sink);
        let got: Vec<i64> = recs.iter().map(|r| r.header.timestamp).collect();
        assert_eq!(got, w, "{}", s.name());
    }
    // A consumer converts every clock to the same FILETIME.
    for (s, c) in rt.iter().zip(&mut consumers) {
        s.flush().unwrap();
        let got: Vec<i64> = c.drain().iter().map(|r| r.header.timestamp).collect();
        assert_eq!(
            got,
            [
                DETERMINISTIC_BOOT_FILETIME + t1,
                DETERMINISTIC_BOOT_FILETIME + t2
            ],
            "{}",
            s.name()
        );
    }
}

#[test]
fn header_flags_on_disk_and_as_a_consumer_sees_them() {
    // rule: EVT-19
    let k = kernel();
    let g = guid(30);
    let (file, sink) = file_session(&k, "file", 4);
    file.enable(g, &EnableParams::new().property(EnableProperty::SID))
        .unwrap();
    let rt = k.session("rt").start().unwrap();
    rt.enable(g, &EnableParams::new()).unwrap();
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    p.write(&ev(1), &[b"x"]).unwrap();
    p.write_string(Level::INFORMATION, Keyword(1), "s").unwrap();
    p.write_transfer(&ev(3), None, Some(&guid_n(3)), &[])
        .unwrap();
    rt.flush().unwrap();
    let seen: Vec<u16> = c.drain().iter().map(|r| r.header.flags).collect();
    use header_flags::*;
    assert_eq!(
        seen,
        [
            HEADER_64_BIT,
            HEADER_64_BIT | STRING_ONLY,
            HEADER_64_BIT | EXTENDED_INFO
        ]
    );
    let (recs, _) = stop(&file, &sink);
    let on_disk: Vec<u16> = recs.iter().map(|r| r.header.flags).collect();
    assert_eq!(
        on_disk,
        [EXTENDED_INFO, EXTENDED_INFO | STRING_ONLY, EXTENDED_INFO]
    );
    // Values, and what is never written into buffers (consumers derive those).
    assert_eq!(
        [
            EXTENDED_INFO,
            PRIVATE_SESSION,
            STRING_ONLY,
            TRACE_MESSAGE,
            NO_CPUTIME,
            HEADER_32_BIT,
            HEADER_64_BIT,
            DECODE_GUID,
            CLASSIC_HEADER,
            PROCESSOR_INDEX
        ],
        [0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200]
    );
    for raw in raw_records(&sink) {
        assert_eq!(le16(&raw, 4) & !ON_DISK, 0);
    }
}

#[test]
fn events_in_a_private_session_carry_the_private_session_flag() {
    // rule: EVT-19
    // rule: EVT-20
    let k = kernel();
    let g = guid(31);
    let app = user_process(&k, "app.exe");
    let (private, private_sink) = file_session_with(&k, "private", |b| {
        b.mode(LogFileMode::PRIVATE_LOGGER).guid(g).caller(&app)
    });
    let (global, global_sink) = file_session(&k, "global", 4);
    private.enable(g, &EnableParams::new()).unwrap();
    global.enable(g, &EnableParams::new()).unwrap();
    let p = app.register_provider(g).unwrap();
    p.write(&ev(1), &[b"x"]).unwrap();
    p.write_string(Level::INFORMATION, Keyword(1), "y").unwrap();
    let (rp, _) = stop(&private, &private_sink);
    let (rg, _) = stop(&global, &global_sink);
    let flags = |r: &[EventRecord]| r.iter().map(|r| r.header.flags).collect::<Vec<_>>();
    use header_flags::*;
    assert_eq!(flags(&rp), [PRIVATE_SESSION, PRIVATE_SESSION | STRING_ONLY]);
    assert_eq!(flags(&rg), [0, STRING_ONLY]);
    // CPU time is not simulated: the KernelTime/UserTime (ProcessorTime) union stays 0.
    for r in rp.iter().chain(&rg) {
        assert_eq!((r.header.kernel_time, r.header.user_time), (0, 0));
    }
}

#[test]
fn each_enable_property_adds_its_extended_item_with_its_data() {
    // rule: EVT-22
    let k = kernel();
    let g = guid(32);
    let mut token = Token::user("bob");
    token.terminal_session = 3;
    let app = k.spawn("app.exe", token.clone()).unwrap();
    let other = k.spawn("other.exe", Token::local_service()).unwrap();
    let with = |name: &str, prop: EnableProperty| {
        let (s, sink) = file_session(&k, name, 4);
        s.enable(g, &EnableParams::new().property(prop)).unwrap();
        (s, sink)
    };
    let sid = with("sid", EnableProperty::SID);
    let ts = with("ts", EnableProperty::TS_ID);
    let key_a = with("key_a", EnableProperty::EVENT_KEY);
    let key_b = with("key_b", EnableProperty::EVENT_KEY | EnableProperty::SID);
    let psk = with("psk", EnableProperty::PROCESS_START_KEY);
    let plain = with("plain", EnableProperty::empty());
    let p = app.register_provider(g).unwrap();
    let q = other.register_provider(g).unwrap();
    p.write(&ev(1), &[b"abc"]).unwrap();
    p.write(&ev(2), &[b"abc"]).unwrap();
    q.write(&ev(3), &[b"abc"]).unwrap();
    let take = |(s, sink): &(Session, MemorySink)| stop(s, sink).0;
    let (r_sid, r_ts, r_ka, r_kb, r_psk, r_plain) = (
        take(&sid),
        take(&ts),
        take(&key_a),
        take(&key_b),
        take(&psk),
        take(&plain),
    );
    let only = |r: &EventRecord, ext: u16| {
        assert_eq!(r.extended_data.len(), 1, "{:?}", r.extended_data);
        assert_eq!(r.extended_data[0].ext_type, ext);
        assert_eq!(r.header.flags & header_flags::EXTENDED_INFO, 1);
        r.extended_data[0].data.clone()
    };
    // SID: the writer's user SID in binary form.
    let bob_sid = token.sid.to_bytes();
    assert_eq!(bob_sid.len(), 8 + 4 * 5);
    assert_eq!(only(&r_sid[0], ext_type::SID), bob_sid);
    assert_eq!(
        usize::from(r_sid[0].header.size),
        EVENT_HEADER_SIZE + 8 + align8(bob_sid.len()) + 3
    );
    assert_eq!(
        only(&r_sid[2], ext_type::SID),
        etwsim::Sid::local_service().to_bytes()
    );
    // TS_ID: the terminal-session id, a u32.
    assert_eq!(only(&r_ts[0], ext_type::TS_ID), 3u32.to_le_bytes());
    assert_eq!(only(&r_ts[2], ext_type::TS_ID), 0u32.to_le_bytes());
    // EVENT_KEY: one value per event, the same in every session that records it.
    let keys: Vec<u64> = r_ka
        .iter()
        .map(|r| r.extended(ext_type::EVENT_KEY).unwrap().as_u64().unwrap())
        .collect();
    let keys_b: Vec<u64> = r_kb
        .iter()
        .map(|r| r.extended(ext_type::EVENT_KEY).unwrap().as_u64().unwrap())
        .collect();
    assert_eq!(keys, keys_b);
    assert_eq!(keys.iter().collect::<HashSet<_>>().len(), 3);
    assert!(keys.iter().all(|&k| k != 0));
    assert_eq!(only(&r_ka[0], ext_type::EVENT_KEY).len(), 8);
    // PROCESS_START_KEY: the writing process's start key.
    assert_eq!(
        only(&r_psk[0], ext_type::PROCESS_START_KEY),
        app.start_key().to_le_bytes()
    );
    assert_eq!(
        r_psk[2]
            .extended(ext_type::PROCESS_START_KEY)
            .unwrap()
            .as_u64(),
        Some(other.start_key())
    );
    assert_ne!(app.start_key(), other.start_key());
    // No property: no item, no EXTENDED_INFO.
    for r in &r_plain {
        assert!(r.extended_data.is_empty());
        assert_eq!(r.header.flags, 0);
    }
}

#[test]
fn stack_items_carry_the_threads_frames_cut_to_192() {
    // rule: EVT-22
    // rule: FLT-12
    let k = kernel();
    let g = guid(33);
    let (stacked, stacked_sink) = file_session(&k, "stacked", 8);
    let (plain, plain_sink) = file_session(&k, "plain", 8);
    stacked
        .enable(
            g,
            &EnableParams::new().property(EnableProperty::STACK_TRACE),
        )
        .unwrap();
    plain.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let t = app.spawn_thread(1).unwrap();
    let frames: Vec<u64> = (0..200u64).map(|i| 0x7FF0_0000_0000 + i * 0x10).collect();
    let _on = t.enter();
    t.set_stack(&frames);
    p.write(&ev(1), &[]).unwrap();
    t.set_stack(&frames[..2]);
    p.write(&ev(2), &[]).unwrap();
    t.set_stack(&frames[..MAX_STACK_FRAMES]);
    p.write(&ev(3), &[]).unwrap();
    let (rs, _) = stop(&stacked, &stacked_sink);
    let (rp, _) = stop(&plain, &plain_sink);
    let stack_of = |r: &EventRecord| {
        assert!(r.extended(ext_type::STACK_TRACE32).is_none());
        let d = &r.extended(ext_type::STACK_TRACE64).unwrap().data;
        assert_eq!(d.len() % 8, 0);
        let words: Vec<u64> = d
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words[0], 0, "MatchId");
        words[1..].to_vec()
    };
    assert_eq!(MAX_STACK_FRAMES, 192);
    // The innermost 192 frames are kept; the outermost (bottom of the stack) are cut.
    assert_eq!(stack_of(&rs[0]), frames[..192]);
    assert_eq!(stack_of(&rs[1]), frames[..2]);
    assert_eq!(stack_of(&rs[2]), frames[..192]);
    assert_eq!(rs[0].extended_data.len(), 1);
    assert_eq!(
        usize::from(rs[0].header.size),
        EVENT_HEADER_SIZE + 8 + 8 + 192 * 8
    );
    for r in &rp {
        assert!(r.extended_data.is_empty());
    }
}

#[test]
fn provider_traits_and_tracelogging_metadata_become_items_in_that_order() {
    // rule: EVT-22
    // rule: EVT-27
    let k = kernel();
    let g = guid(34);
    let group = guid(35);
    let (s, sink) = file_session(&k, "s", 4);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let traits = ProviderTraits::new("My.Provider").with_group(group);
    let p = app.register_tracelogging(g, &traits).unwrap();
    let meta = tl_metadata("MyEvent", &["count"]);
    // TraceLoggingWrite's defaults: level 5, keyword 0, opcode 0, channel 11, id/version 0.
    let d = EventDescriptor::new(0, Level::VERBOSE, Keyword(0)).with_channel(Channel::TRACELOGGING);
    let opts = WriteOptions {
        event_name: Some("MyEvent"),
        tracelogging_metadata: Some(&meta),
        ..WriteOptions::default()
    };
    p.write_with_options(&d, &opts, &[&42u32.to_le_bytes()])
        .unwrap();
    p.write(&ev(9), &[]).unwrap(); // a manifest-style event of the same provider
    let (recs, _) = stop(&s, &sink);
    assert_eq!(recs.len(), 2);
    let tl = &recs[0];
    assert_eq!(tl.header.descriptor, d);
    assert_eq!(tl.header.descriptor.channel.0, 11);
    assert_eq!(tl.header.flags, header_flags::EXTENDED_INFO);
    let kinds: Vec<u16> = tl.extended_data.iter().map(|i| i.ext_type).collect();
    assert_eq!(kinds, [ext_type::PROV_TRAITS, ext_type::EVENT_SCHEMA_TL]);
    assert_eq!(tl.extended_data[0].data, traits.to_bytes().unwrap());
    assert_eq!(tl.extended_data[1].data, meta);
    assert_eq!(tl.user_data, 42u32.to_le_bytes());
    // Traits go with every event of the provider; metadata only with the event that has it.
    let kinds: Vec<u16> = recs[1].extended_data.iter().map(|i| i.ext_type).collect();
    assert_eq!(kinds, [ext_type::PROV_TRAITS]);
    // Linkage: 1 on the traits item, 0 on the schema item.
    let raw = &raw_records(&sink)[0];
    assert_eq!(le16(raw, 0x50 + 2), ext_type::PROV_TRAITS);
    assert_eq!(le16(raw, 0x50 + 4), 1);
    let second = 0x50 + usize::from(le16(raw, 0x50));
    assert_eq!(le16(raw, second + 2), ext_type::EVENT_SCHEMA_TL);
    assert_eq!(le16(raw, second + 4), 0);
}

#[test]
fn extended_items_are_linked_and_padded_to_8_bytes_in_the_raw_record() {
    // rule: EVT-22
    let k = kernel();
    let g = guid(36);
    let every = EnableProperty::SID
        | EnableProperty::TS_ID
        | EnableProperty::STACK_TRACE
        | EnableProperty::EVENT_KEY
        | EnableProperty::PROCESS_START_KEY;
    let (s, sink) = file_session(&k, "s", 8);
    s.enable(g, &EnableParams::new().property(every)).unwrap();
    let app = user_process(&k, "app.exe");
    let traits = ProviderTraits::new("Odd"); // 2 + 4 bytes: not a multiple of 8
    let p = app.register_tracelogging(g, &traits).unwrap();
    let t = app.spawn_thread(0).unwrap();
    t.set_stack(&[0xAAAA, 0xBBBB, 0xCCCC]);
    let _on = t.enter();
    let meta = tl_metadata("E", &["fx"]); // 9 bytes
    assert_eq!(meta.len(), 9);
    let opts = WriteOptions {
        related_activity_id: Some(&guid_n(1)),
        event_name: Some("E"),
        tracelogging_metadata: Some(&meta),
        ..WriteOptions::default()
    };
    let payload = b"thirteen byte";
    p.write_with_options(&ev(1), &opts, &[payload]).unwrap();
    let (recs, _) = stop(&s, &sink);
    let raw = &raw_records(&sink)[0];
    let rec = &recs[0];
    assert_eq!(rec.extended_data.len(), 8);
    let kinds: HashSet<u16> = rec.extended_data.iter().map(|i| i.ext_type).collect();
    let expected: HashSet<u16> = [
        ext_type::RELATED_ACTIVITYID,
        ext_type::SID,
        ext_type::TS_ID,
        ext_type::STACK_TRACE64,
        ext_type::EVENT_KEY,
        ext_type::PROCESS_START_KEY,
        ext_type::PROV_TRAITS,
        ext_type::EVENT_SCHEMA_TL,
    ]
    .into();
    assert_eq!(kinds, expected);
    let mut off = EVENT_HEADER_SIZE;
    for (n, item) in rec.extended_data.iter().enumerate() {
        let item_size = usize::from(le16(raw, off));
        let linkage = le16(raw, off + 4);
        let data_size = usize::from(le16(raw, off + 6));
        assert_eq!(le16(raw, off + 2), item.ext_type);
        assert_eq!(data_size, item.data.len());
        assert_eq!(
            item_size,
            8 + align8(data_size),
            "ItemSize includes the pad"
        );
        assert_eq!(linkage, u16::from(n + 1 < 8), "Linkage of item {n}");
        assert_eq!(raw[off + 8..off + 8 + data_size], item.data[..]);
        assert!(
            raw[off + 8 + data_size..off + item_size]
                .iter()
                .all(|&b| b == 0),
            "item padding is zeros"
        );
        off += item_size;
    }
    assert_eq!(off % 8, 0, "the user data starts 8-aligned");
    assert_eq!(raw[off..off + payload.len()], payload[..]);
    let size = usize::from(le16(raw, 0));
    assert_eq!(size, off + payload.len());
    assert_eq!(raw.len(), align8(size));
    assert!(raw[size..].iter().all(|&b| b == 0), "record pad is zeros");
    assert_eq!(rec.user_data, payload);
}

#[test]
fn buffer_context_names_the_writers_processor_and_the_sessions_logger_id() {
    // rule: EVT-23
    let k = kernel();
    let g = guid(37);
    let (a, a_sink) = file_session(&k, "a", 4);
    let (b, b_sink) = file_session(&k, "b", 4);
    let rt = k.session("rt").start().unwrap();
    for s in [&a, &b, &rt] {
        s.enable(g, &EnableParams::new()).unwrap();
    }
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let mut threads: Vec<_> = (0..4).map(|cpu| app.spawn_thread(cpu).unwrap()).collect();
    for (cpu, t) in threads.iter().enumerate() {
        let _on = t.enter();
        p.write(&ev(cpu as u16), &[&bytes(cpu, 1)]).unwrap();
    }
    threads[3].migrate(1).unwrap();
    {
        let _on = threads[3].enter();
        p.write(&ev(101), &[b"moved"]).unwrap();
    }
    rt.flush().unwrap();
    let from_consumer = c.drain();
    assert_ne!(a.logger_id(), b.logger_id());
    for (recs, logger) in [
        (stop(&a, &a_sink).0, a.logger_id()),
        (stop(&b, &b_sink).0, b.logger_id()),
        (from_consumer, rt.logger_id()),
    ] {
        assert_eq!(recs.len(), 5);
        for r in &recs {
            let cpu = match r.header.descriptor.id {
                101 => 1,
                id => id,
            };
            assert_eq!(r.buffer_context.processor_index, cpu, "event {cpu}");
            assert_eq!(r.buffer_context.logger_id, logger);
            // ExtendedDataCount and UserDataLength.
            assert!(r.extended_data.is_empty());
            let len = if r.header.descriptor.id == 101 {
                5
            } else {
                usize::from(cpu)
            };
            assert_eq!(r.user_data.len(), len);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 4.4 Descriptor field vocabularies

#[test]
fn opcode_values_follow_winmeta_and_are_recorded_verbatim() {
    // rule: EVT-24
    let named = [
        Opcode::INFO,
        Opcode::START,
        Opcode::STOP,
        Opcode::DC_START,
        Opcode::DC_STOP,
        Opcode::EXTENSION,
        Opcode::REPLY,
        Opcode::RESUME,
        Opcode::SUSPEND,
        Opcode::SEND,
        Opcode::RECEIVE,
    ];
    assert_eq!(named.map(|o| o.0), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 240]);
    let provider: Vec<u8> = (0..=255u8)
        .filter(|&v| Opcode(v).is_provider_defined())
        .collect();
    assert_eq!(provider, (10..=239).collect::<Vec<u8>>());
    let reserved: Vec<u8> = (0..=255u8).filter(|&v| Opcode(v).is_reserved()).collect();
    assert_eq!(reserved, (241..=255).collect::<Vec<u8>>());
    // Whatever the opcode, the event is recorded with it.
    let k = kernel();
    let g = guid(38);
    let (s, sink) = file_session(&k, "s", 8);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let all: Vec<u8> = (0..=255u8).collect();
    for &op in &all {
        p.write(&ev(u16::from(op)).with_opcode(Opcode(op)), &[])
            .unwrap();
    }
    let (recs, _) = stop(&s, &sink);
    let got: Vec<u8> = recs.iter().map(|r| r.header.descriptor.opcode.0).collect();
    assert_eq!(got, all);
}

#[test]
fn channel_values_are_recorded_verbatim_and_do_not_change_routing() {
    // rule: EVT-25
    assert_eq!(
        [
            Channel::CLASSIC_TRACE,
            Channel::GLOBAL_SYSTEM,
            Channel::GLOBAL_APPLICATION,
            Channel::GLOBAL_SECURITY,
            Channel::TRACELOGGING,
            Channel::PROVIDER_METADATA
        ]
        .map(|c| c.0),
        [0, 8, 9, 10, 11, 12]
    );
    assert!((0..16).all(|v| Channel(v).is_reserved()));
    assert!((16..=255).all(|v| !Channel(v).is_reserved()));
    let k = kernel();
    let g = guid(39);
    let (all, all_sink) = file_session(&k, "all", 4);
    let (picky, picky_sink) = file_session(&k, "picky", 4);
    all.enable(g, &EnableParams::new()).unwrap();
    picky
        .enable(g, &EnableParams::new().level(Level::WARNING).any(0x2))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let channels = [0u8, 8, 9, 10, 11, 12, 16, 200, 255];
    for (i, &ch) in channels.iter().enumerate() {
        let d =
            EventDescriptor::new(i as u16, Level::ERROR, Keyword(0x2)).with_channel(Channel(ch));
        p.write(&d, &[]).unwrap();
        let d = EventDescriptor::new(100 + i as u16, Level::VERBOSE, Keyword(0x2))
            .with_channel(Channel(ch));
        p.write(&d, &[]).unwrap();
    }
    let (ra, _) = stop(&all, &all_sink);
    let (rp, _) = stop(&picky, &picky_sink);
    let chans = |r: &[EventRecord]| {
        r.iter()
            .map(|r| r.header.descriptor.channel.0)
            .collect::<Vec<_>>()
    };
    // Every channel value reaches the same sessions: only level and keyword decide.
    assert_eq!(ra.len(), 2 * channels.len());
    assert_eq!(
        chans(&ra),
        channels.iter().flat_map(|&c| [c, c]).collect::<Vec<_>>()
    );
    assert_eq!(chans(&rp), channels);
    assert!(rp.iter().all(|r| r.header.descriptor.id < 100));
}

#[test]
fn id_version_and_task_are_recorded_and_tracelogging_events_are_told_apart_by_name() {
    // rule: EVT-26
    assert_eq!(Task::NONE, Task(0));
    let k = kernel();
    let g = guid(40);
    let (all, all_sink) = file_session(&k, "all", 4);
    let (named, named_sink) = file_session(&k, "named", 4);
    all.enable(g, &EnableParams::new()).unwrap();
    named
        .enable(
            g,
            &EnableParams::new().filter(EventFilter::EventName(NameFilter {
                match_any: Keyword(0),
                match_all: Keyword(0),
                level: Level(0),
                filter_in: true,
                names: vec!["Wanted".into()],
            })),
        )
        .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app
        .register_tracelogging(g, &ProviderTraits::new("P"))
        .unwrap();
    let manifest = [
        EventDescriptor::new(0xFFFF, Level::ERROR, Keyword(1))
            .with_version(0xFF)
            .with_task(Task(0xFFFF)),
        EventDescriptor::new(1, Level::ERROR, Keyword(1))
            .with_version(1)
            .with_task(Task::NONE),
    ];
    for d in &manifest {
        p.write(d, &[]).unwrap();
    }
    let tl =
        EventDescriptor::new(0, Level::VERBOSE, Keyword(0)).with_channel(Channel::TRACELOGGING);
    for name in ["Wanted", "Other"] {
        let meta = tl_metadata(name, &[]);
        let opts = WriteOptions {
            event_name: Some(name),
            tracelogging_metadata: Some(&meta),
            ..WriteOptions::default()
        };
        p.write_with_options(&tl, &opts, &[]).unwrap();
    }
    let (ra, _) = stop(&all, &all_sink);
    let (rn, _) = stop(&named, &named_sink);
    let descs: Vec<EventDescriptor> = ra.iter().map(|r| r.header.descriptor).collect();
    assert_eq!(descs, [manifest[0], manifest[1], tl, tl]);
    // Both TraceLogging events have Id 0 / Version 0; the name filter picks the wanted one
    // (it does not apply to the manifest events, which have no name).
    let schema = |r: &EventRecord| {
        r.extended(ext_type::EVENT_SCHEMA_TL)
            .map(|i| i.data.clone())
    };
    assert_eq!(ids(&rn), [0xFFFF, 1, 0]);
    assert_eq!(schema(&rn[2]), Some(tl_metadata("Wanted", &[])));
    assert_eq!(schema(&rn[0]), None);
}

#[test]
fn a_tracelogging_default_event_reaches_only_sessions_taking_verbose_keyword_0_events() {
    // rule: EVT-27
    let k = kernel();
    let g = guid(41);
    let (verbose, verbose_sink) = file_session(&k, "verbose", 4);
    let (info, info_sink) = file_session(&k, "info", 4);
    let (no_kw0, no_kw0_sink) = file_session(&k, "no_kw0", 4);
    verbose
        .enable(g, &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    info.enable(g, &EnableParams::new().level(Level::INFORMATION))
        .unwrap();
    no_kw0
        .enable(
            g,
            &EnableParams::new()
                .any(0x1)
                .property(EnableProperty::IGNORE_KEYWORD_0),
        )
        .unwrap();
    let app = user_process(&k, "app.exe");
    let p = app
        .register_tracelogging(g, &ProviderTraits::new("P"))
        .unwrap();
    let d = EventDescriptor::new(0, Level::VERBOSE, Keyword(0)).with_channel(Channel::TRACELOGGING);
    let meta = tl_metadata("Default", &[]);
    let opts = WriteOptions {
        event_name: Some("Default"),
        tracelogging_metadata: Some(&meta),
        ..WriteOptions::default()
    };
    p.write_with_options(&d, &opts, &[]).unwrap();
    let (rv, _) = stop(&verbose, &verbose_sink);
    let (ri, _) = stop(&info, &info_sink);
    let (rk, _) = stop(&no_kw0, &no_kw0_sink);
    assert_eq!(rv.len(), 1);
    assert_eq!(rv[0].header.descriptor, d);
    assert!(ri.is_empty(), "a level-4 session took a level-5 event");
    assert!(
        rk.is_empty(),
        "an IGNORE_KEYWORD_0 session took a keyword-0 event"
    );
}

#[test]
fn a_tracelogging_event_may_use_128_data_blocks_but_not_129() {
    // rule: EVT-28
    let k = kernel();
    let g = guid(42);
    let (s, sink) = file_session(&k, "s", 4);
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app
        .register_tracelogging(g, &ProviderTraits::new("P"))
        .unwrap();
    let meta = tl_metadata("Many", &["f"]);
    let d = EventDescriptor::new(0, Level::VERBOSE, Keyword(0)).with_channel(Channel::TRACELOGGING);
    let opts = WriteOptions {
        event_name: Some("Many"),
        tracelogging_metadata: Some(&meta),
        ..WriteOptions::default()
    };
    let fields: Vec<[u8; 1]> = (0..129u8).map(|i| [i]).collect();
    let refs: Vec<&[u8]> = fields.iter().map(|f| &f[..]).collect();
    p.write_with_options(&d, &opts, &refs[..128]).unwrap();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        p.write_with_options(&d, &opts, &refs)
    });
    // Larger than the session's buffer: not recorded (TraceLoggingWrite ignores the code).
    let e = p
        .write_with_options(&d, &opts, &[&bytes(5000, 0)])
        .unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_MORE_DATA);
    let (recs, st) = stop(&s, &sink);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].user_data, (0..128u8).collect::<Vec<_>>());
    assert_eq!(st.events_lost, 1);
}

// ---------------------------------------------------------------------------------------------
// The single-session path and the event-id gate (optimisations that must not change behaviour)

/// Writes the same mixed workload into session "s" of a kernel; `with_decoy` adds a second
/// session that enables the provider for keyword 0x8000 only, so every event is routed through
/// two sessions (the general path) but recorded by "s" alone. Returns "s"'s raw records, the
/// write results, and its EventsLost.
fn workload(with_decoy: bool) -> (Vec<Vec<u8>>, Vec<Result<(), Win32Error>>, u32) {
    let k = kernel();
    let g = guid(700);
    let process = user_process(&k, "app.exe");
    let p = process.register_provider(g).unwrap();
    let thread = process.spawn_thread(2).unwrap();
    let (s, sink) = file_session(&k, "s", 4);
    s.enable(g, &EnableParams::new()).unwrap();
    let decoy = with_decoy.then(|| {
        let (d, _) = file_session(&k, "decoy", 64);
        d.enable(g, &EnableParams::new().any(0x8000)).unwrap();
        d
    });
    let _entered = thread.enter();
    let mut results = Vec::new();
    let mut record = |r: etwsim::Result<()>| results.push(r.map_err(|e| e.win32_code()));
    for i in 0..300u16 {
        let payload = bytes(usize::from(i % 41), i as u8);
        record(p.write(&ev(i), &[&payload]));
        record(p.write(&ev(i), &[&payload[..payload.len() / 2], b"xyz", &[]]));
        if i % 50 == 7 {
            thread.set_activity_id(guid_n(u128::from(i)));
        }
    }
    record(p.write(&EventDescriptor::new(1, Level(0), Keyword(0)), &[b"kw0"]));
    record(p.write_string(Level::WARNING, Keyword(1), "a string-only event"));
    let activity = guid_n(77);
    record(p.write_transfer(&ev(2), Some(&activity), None, &[b"transfer"]));
    // EVT-05 / EVT-06: refused, counted, reported, in both paths alike.
    record(p.write(&ev(3), &[&bytes(MAX_EVENT_SIZE, 1)]));
    record(p.write(&ev(4), &[&bytes(4096, 2)]));
    let lost = events_lost(&s);
    drop(decoy);
    let (_, _) = stop(&s, &sink);
    (raw_records(&sink), results, lost)
}

#[test]
fn the_single_session_path_records_exactly_what_the_general_path_records() {
    // rule: EVT-01
    // rule: EVT-05
    // rule: EVT-06
    // rule: EVT-11
    let (single, single_results, single_lost) = workload(false);
    let (general, general_results, general_lost) = workload(true);
    assert_eq!(single.len(), 603, "every accepted event is recorded");
    assert_eq!(single.len(), general.len());
    if let Some(i) = (0..single.len()).find(|&i| single[i] != general[i]) {
        panic!(
            "record {i} differs:\n single  {:?}\n general {:?}",
            single[i], general[i]
        );
    }
    assert_eq!(single_results, general_results);
    assert_eq!((single_lost, general_lost), (2, 2));
    assert_eq!(
        single_results[single_results.len() - 2..],
        [
            Err(Win32Error::ERROR_ARITHMETIC_OVERFLOW),
            Err(Win32Error::ERROR_MORE_DATA)
        ]
    );
}

#[test]
fn the_event_id_gate_agrees_with_every_sessions_own_filter() {
    // rule: FLT-19
    // rule: FLT-20
    // Random mixes of filter-in, filter-out and unfiltered sessions over ids that collide
    // modulo 256 (the gate's summary): what each session records is exactly what its own
    // predicate (`targets`) says, and a rejected event is neither an error nor a loss.
    let mut rng = Rng(0x1d_9a7e);
    for round in 0..40 {
        let k = kernel();
        let g = guid(800 + round);
        let n = 1 + rng.below(3);
        let mut sessions = Vec::new();
        for j in 0..n {
            let (s, sink) = file_session(&k, &format!("s{j}"), 64);
            let mut params = EnableParams::new();
            let kind = rng.below(4);
            if kind != 0 {
                let count = 1 + rng.below(5);
                let mut list: Vec<u16> = (0..count).map(|_| rng.below(600) as u16).collect();
                list.sort_unstable();
                list.dedup();
                params = params.filter(EventFilter::EventId {
                    filter_in: kind != 3,
                    ids: list,
                });
            }
            s.enable(g, &params).unwrap();
            sessions.push((s, sink));
        }
        let p = user_process(&k, "app.exe").register_provider(g).unwrap();
        let mut expected = vec![Vec::new(); n];
        for id in 0..600u16 {
            let want = p.targets(&etwsim::EventView::new(&ev(id)));
            for (j, (s, _)) in sessions.iter().enumerate() {
                if want.contains(&s.handle()) {
                    expected[j].push(id);
                }
            }
            assert_eq!(p.write(&ev(id), &[b"x"]), Ok(()), "id {id}");
        }
        for (j, (s, sink)) in sessions.iter().enumerate() {
            assert_eq!(events_lost(s), 0);
            let (recs, _) = stop(s, sink);
            assert_eq!(ids(&recs), expected[j], "round {round}, session {j}");
        }
    }
}

#[test]
fn every_enable_change_reaches_the_next_write_on_the_same_thread() {
    // rule: FLT-20
    // rule: PRV-31
    // Writers keep recent route tables per OS thread (keyed by version): after each control
    // change the very next write from the same thread must route by the new table.
    let k = kernel();
    let g = guid(900);
    let (a, sink_a) = file_session(&k, "a", 64);
    let (b, sink_b) = file_session(&k, "b", 64);
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    let write = |id: u16| p.write(&ev(id), &[b"x"]).unwrap();
    write(1); // nobody
    a.enable(g, &EnableParams::new()).unwrap();
    write(2); // a
    b.enable(g, &EnableParams::new()).unwrap();
    write(3); // a, b
    a.enable(
        g,
        &EnableParams::new().filter(EventFilter::EventId {
            filter_in: true,
            ids: vec![5],
        }),
    )
    .unwrap();
    write(4); // b
    write(5); // a, b
    a.disable(g).unwrap();
    write(6); // b
    a.enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    write(7); // b (INFORMATION is above a's level)
    b.disable(g).unwrap();
    write(8); // nobody
    let (ra, _) = stop(&a, &sink_a);
    let (rb, _) = stop(&b, &sink_b);
    assert_eq!(ids(&ra), vec![2, 3, 5]);
    assert_eq!(ids(&rb), vec![3, 4, 5, 6, 7]);
}
