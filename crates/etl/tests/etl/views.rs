//! The borrowed reading path (`LogFile::for_each_record`, `RecordView`) against the owned one
//! (`LogFile::records`) and against the types crate's own `EVENT_HEADER` decoder: the same
//! records, field for field, on every shared fixture and on generated files, and the same
//! damage at the same place.

use crate::common;

use common::{Feed, event, perfinfo, scratch, shared_fixtures};
use etwsim_etl::{
    CloseStats, InstanceInfo, LogFile, MessageInfo, Record, RecordKind, RecordView, TraceRecord,
    Writer, WriterOptions, message_flags,
};
use etwsim_types::record::{BUFFER_HEADER_SIZE, ext_type, header_type};
use etwsim_types::{ExtendedItem, Guid};
use std::ops::ControlFlow;
use std::path::PathBuf;

/// An event with `items` extended items and a payload of `len` bytes.
fn event_with(id: u16, ts: i64, items: usize, len: usize) -> Record {
    let Record::Event(mut e) = event(id, ts) else {
        unreachable!()
    };
    e.extended_data = (0..items)
        .map(|i| match i % 3 {
            0 => ExtendedItem::u64_item(ext_type::EVENT_KEY, u64::from(id) * 7),
            1 => ExtendedItem::related_activity_id(Guid::GLOBAL_LOGGER),
            _ => ExtendedItem {
                ext_type: ext_type::SID,
                data: vec![1, 2, 3, id as u8, 5], // not a multiple of 8: padded
            },
        })
        .collect();
    e.user_data = (0..len).map(|i| (i * 31 + usize::from(id)) as u8).collect();
    Record::Event(e)
}

/// A file of every record kind on three CPUs, 1 KiB buffers.
fn every_kind(name: &str) -> PathBuf {
    let path = scratch(name).join("kinds.etl");
    let w = Writer::create(WriterOptions::new(&path).buffer_size(1024).processors(3)).unwrap();
    let mut feed = Feed::new(w, 1024, 3);
    for i in 0..150u16 {
        let ts = i64::from(i) * 10;
        let r = match i % 8 {
            0 => event(i, ts),
            1 => perfinfo(0x0F2E, ts),
            2 => event_with(i, ts, 1 + usize::from(i % 4), usize::from(i % 40)),
            3 => Record::Trace(TraceRecord {
                header_type: header_type::SYSTEM64,
                version: 0x8102,
                hook_id: 0x0524,
                thread_id: Some(1),
                process_id: Some(2),
                timestamp: Some(ts),
                kernel_time: 3,
                user_time: 4,
                extended_header: vec![1; 16],
                payload: vec![2; 12],
                ..TraceRecord::default()
            }),
            4 => Record::Trace(TraceRecord {
                header_type: header_type::MESSAGE,
                hook_id: 5,
                guid: Some(Guid::GLOBAL_LOGGER),
                timestamp: Some(ts),
                thread_id: Some(1),
                process_id: Some(2),
                message: Some(MessageInfo {
                    option_flags: message_flags::SEQUENCE
                        | message_flags::GUID
                        | message_flags::TIMESTAMP
                        | message_flags::SYSTEMINFO,
                    sequence: Some(u32::from(i)),
                    component_id: None,
                }),
                payload: vec![3; 5],
                ..TraceRecord::default()
            }),
            5 => Record::Trace(TraceRecord {
                header_type: header_type::MESSAGE,
                hook_id: 6,
                message: Some(MessageInfo {
                    option_flags: message_flags::COMPONENT_ID,
                    sequence: None,
                    component_id: Some(9),
                }),
                payload: vec![4; 9],
                ..TraceRecord::default()
            }),
            6 => Record::Trace(TraceRecord {
                header_type: header_type::FULL_HEADER32,
                version: 1,
                hook_id: 10,
                level: 4,
                guid: Some(Guid::EVENT_TRACE_CONFIG),
                thread_id: Some(1),
                process_id: Some(2),
                timestamp: Some(ts),
                kernel_time: 5,
                payload: vec![6; 7],
                ..TraceRecord::default()
            }),
            _ => Record::Trace(TraceRecord {
                header_type: header_type::INSTANCE64,
                hook_id: 1,
                guid: Some(Guid::EVENT_TRACE),
                timestamp: Some(ts),
                thread_id: Some(1),
                process_id: Some(2),
                instance: Some(InstanceInfo {
                    instance_id: 1,
                    parent_instance_id: 2,
                    parent_guid: Guid::RT_LOST_EVENT,
                }),
                payload: vec![5; 3],
                ..TraceRecord::default()
            }),
        };
        feed.push(usize::from(i % 3), r);
    }
    feed.close(&CloseStats::default());
    path
}

/// A file of `EVENT_HEADER` records only (a third with extended items), 4 KiB buffers.
fn events_only(name: &str) -> PathBuf {
    let path = scratch(name).join("events.etl");
    let w = Writer::create(WriterOptions::new(&path).buffer_size(4096).processors(2)).unwrap();
    let mut feed = Feed::new(w, 4096, 2);
    for i in 0..600u16 {
        let items = if i % 3 == 2 { 2 } else { 0 };
        let len = 16 + (usize::from(i) * 13) % 112;
        feed.push(usize::from(i % 2), event_with(i, i64::from(i), items, len));
    }
    feed.close(&CloseStats::default());
    path
}

/// Checks one view against the owned record of the same position, field by field (not
/// through `to_record`, which is what `records()` is built on).
fn same(at: &str, v: &RecordView<'_>, r: &Record) {
    assert_eq!(v.kind(), r.kind(), "{at}: kind");
    assert_eq!(v.timestamp(), r.timestamp(), "{at}: timestamp");
    assert_eq!(v.buffer_context(), r.buffer_context(), "{at}: context");
    assert_eq!(v.process_id(), r.process_id(), "{at}: pid");
    assert_eq!(v.thread_id(), r.thread_id(), "{at}: tid");
    assert_eq!(v.payload_len(), r.payload_len(), "{at}: payload length");
    match (v, r) {
        (RecordView::Event(v), Record::Event(r)) => {
            assert_eq!(v.header, r.header, "{at}: header");
            assert_eq!(v.buffer_context, r.buffer_context, "{at}");
            assert_eq!(v.user_data, &r.user_data[..], "{at}: user data");
            let items = v.extended_data();
            assert_eq!(items.len(), r.extended_data.len(), "{at}: item count");
            assert_eq!(v.extended_data_count(), r.extended_data.len(), "{at}");
            for (i, (vi, ri)) in items.zip(&r.extended_data).enumerate() {
                assert_eq!(vi.ext_type, ri.ext_type, "{at}: item {i} type");
                assert_eq!(vi.data, &ri.data[..], "{at}: item {i} data");
            }
            for ri in &r.extended_data {
                let found = v.extended(ri.ext_type).map(|i| i.to_extended_item());
                assert_eq!(found.as_ref(), r.extended(ri.ext_type), "{at}");
            }
            assert_eq!(v.is_lost_event_marker(), r.is_lost_event_marker(), "{at}");
        }
        (RecordView::Trace(v), Record::Trace(r)) => {
            assert_eq!(
                (v.header_type, v.version, v.hook_id, v.level, v.guid),
                (r.header_type, r.version, r.hook_id, r.level, r.guid),
                "{at}"
            );
            assert_eq!(
                (v.kernel_time, v.user_time, v.instance, v.message),
                (r.kernel_time, r.user_time, r.instance, r.message),
                "{at}"
            );
            assert_eq!(v.extended_header, &r.extended_header[..], "{at}");
            assert_eq!(v.payload, &r.payload[..], "{at}");
            assert_eq!((v.group(), v.event_type()), (r.group(), r.event_type()));
        }
        _ => panic!("{at}: a view of another kind than its record"),
    }
    assert_eq!(&v.to_record(), r, "{at}: the owned copy");
    assert_eq!(&Record::from(v.clone()), r, "{at}: From");
}

/// Reads `file` both ways and compares; returns the records and the damage message.
fn both_ways(name: &str, file: &mut LogFile) -> (usize, Option<String>) {
    let mut owned = Vec::new();
    let mut owned_error = None;
    for r in file.records() {
        match r {
            Ok(r) => {
                assert!(owned_error.is_none(), "{name}: a record after the error");
                owned.push(r);
            }
            Err(e) => owned_error = Some(e.to_string()),
        }
    }
    let mut n = 0;
    let result = file.for_each_record(|v| {
        let r = owned
            .get(n)
            .unwrap_or_else(|| panic!("{name}: more views than records"));
        same(&format!("{name} record {n}"), &v, r);
        n += 1;
    });
    assert_eq!(n, owned.len(), "{name}: as many views as records");
    assert_eq!(
        result.err().map(|e| e.to_string()),
        owned_error,
        "{name}: the same damage both ways"
    );
    (n, owned_error)
}

#[test]
fn views_and_records_agree_on_every_fixture() {
    let Some(files) = shared_fixtures() else {
        return;
    };
    assert!(!files.is_empty(), "no fixtures found");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut file = LogFile::open(&path).unwrap();
        let (n, damage) = both_ways(&name, &mut file);
        assert!(n > 0 && damage.is_none(), "{name}: {n} records, {damage:?}");
        // A second walk of the same LogFile reads the same again.
        assert_eq!(both_ways(&name, &mut file).0, n);
        eprintln!("{name}: {n} records agree");
    }
}

#[test]
fn views_and_records_agree_on_generated_files() {
    for path in [every_kind("views_kinds"), events_only("views_events")] {
        let name = path.display().to_string();
        let mut file = LogFile::open(&path).unwrap();
        let (n, damage) = both_ways(&name, &mut file);
        assert!(n >= 150 && damage.is_none(), "{name}: {n} records");
        // from_bytes reads the same as open.
        let mut mem = LogFile::from_bytes("mem.etl", std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(both_ways("mem.etl", &mut mem).0, n);
    }
}

#[test]
fn event_views_match_the_types_crate_decoder() {
    // rule: EVT-18, EVT-22 — the reader's decoder and etwsim_types' decode_event_record
    // (a separate implementation) see the same header, items and user data.
    let path = events_only("views_vs_types");
    let bytes = std::fs::read(&path).unwrap();
    let size = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
    let mut expected = Vec::new();
    for buffer in bytes.chunks_exact(size).skip(1) {
        let (events, error) = etwsim_types::record::decode_buffer(buffer);
        assert!(error.is_none(), "{error:?}");
        expected.extend(events);
    }
    assert_eq!(expected.len(), 600);
    let mut file = LogFile::open(&path).unwrap();
    let mut n = 0;
    file.for_each_record(|v| {
        let e = v.as_event().expect("events only");
        let want = &expected[n];
        assert_eq!(e.header, want.header, "record {n}");
        assert_eq!(e.buffer_context, want.buffer_context, "record {n}");
        assert_eq!(e.user_data, &want.user_data[..], "record {n}");
        let items: Vec<ExtendedItem> = e.extended_data().map(Into::into).collect();
        assert_eq!(items, want.extended_data, "record {n}");
        assert!(v.as_trace().is_none());
        n += 1;
    })
    .unwrap();
    assert_eq!(n, expected.len());
}

#[test]
fn damage_is_the_same_through_the_view() {
    // Each mutant is read both ways: the same records before the damage, then the same
    // error (records() as its last item, for_each_record as its result).
    let path = every_kind("views_damage");
    let base = std::fs::read(&path).unwrap();
    let size = 1024usize;
    let buffers = base.len() / size;
    let mut mutants: Vec<(String, Vec<u8>)> = Vec::new();
    for cut in [
        size + 8,
        2 * size + 0x48 + 3,
        base.len() - size,
        base.len() - 1,
    ] {
        mutants.push((format!("cut at {cut}"), base[..cut].to_vec()));
    }
    for b in 1..buffers {
        let at = b * size + BUFFER_HEADER_SIZE;
        let mut m = base.clone();
        m[at + 3] = 0x12; // the first record's marker flags: neither 0xC0 nor 0x90
        mutants.push((format!("bad marker in buffer {b}"), m));
        let mut m = base.clone();
        m[b * size + 0x30..b * size + 0x34].copy_from_slice(&0x40u32.to_le_bytes());
        mutants.push((format!("Offset below the header in buffer {b}"), m));
    }
    // A bad extended item: find an event with items and break its ItemSize.
    let mut file = LogFile::open(&path).unwrap();
    let mut with_items = None;
    file.for_each_record(|v| {
        if with_items.is_none() && v.as_event().is_some_and(|e| e.extended_data_count() > 0) {
            with_items = v
                .as_event()
                .map(|e| (e.header.timestamp, e.header.descriptor.id));
        }
    })
    .unwrap();
    let (ts, _) = with_items.expect("an event with items");
    let needle = ts.to_le_bytes();
    let at = (size..base.len() - 16)
        .find(|&i| base[i + 16..i + 24] == needle && base[i + 3] == 0xC0 && base[i + 2] == 0x13)
        .expect("the event's bytes");
    let mut m = base.clone();
    m[at + 80] = 7; // ItemSize 7 (not a multiple of 8)
    mutants.push(("bad extended item".into(), m));
    let mut damaged = 0;
    for (name, bytes) in mutants {
        let Ok(mut file) = LogFile::from_bytes(&name, bytes) else {
            continue;
        };
        let (_, error) = both_ways(&name, &mut file);
        damaged += usize::from(error.is_some());
    }
    assert!(damaged >= buffers, "only {damaged} mutants were damaged");
}

#[test]
fn try_for_each_record_stops_where_asked() {
    let path = every_kind("views_break");
    let mut file = LogFile::open(&path).unwrap();
    let total = file.records().count();
    let mut seen = 0;
    let flow = file
        .try_for_each_record(|v| {
            seen += 1;
            match v.kind() == Some(RecordKind::Message) {
                true => ControlFlow::Break(v.to_record()),
                false => ControlFlow::Continue(()),
            }
        })
        .unwrap();
    let ControlFlow::Break(Record::Trace(t)) = flow else {
        panic!("no message found: {flow:?}")
    };
    assert_eq!(t.header_type, header_type::MESSAGE);
    assert!(seen < total, "stopped at record {seen} of {total}");
    // Stopping early on a damaged file reports no damage.
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    bytes.truncate(len - 100);
    let mut file = LogFile::from_bytes("cut.etl", bytes).unwrap();
    assert!(file.damage().is_some());
    let flow = file.try_for_each_record(|_| ControlFlow::Break(()));
    assert!(matches!(flow, Ok(ControlFlow::Break(()))));
    assert!(file.for_each_record(|_| {}).is_err());
}
