//! The reader: every record kind, the oldest-first merge across CPUs and files, timestamp
//! conversion, and what happens at damage.

use crate::common;

use common::{Feed, event, id_of, perfinfo, scratch};
use etwsim_etl::{
    BufferBuilder, CloseStats, Error, InstanceInfo, LogFile, MessageInfo, ReadOptions, Reader,
    Record, RecordKind, TraceRecord, Writer, WriterOptions, message_flags,
};
use etwsim_types::record::{header_flags, header_type};
use etwsim_types::{ClockType, Guid};
use std::path::{Path, PathBuf};

const KB: u32 = 1024;

fn write_file(options: WriterOptions, cpus: u16, records: &[(usize, Record)]) {
    let w = Writer::create(options.buffer_size(KB).processors(u32::from(cpus))).unwrap();
    let mut feed = Feed::new(w, KB, cpus);
    for (cpu, r) in records {
        feed.push(*cpu, r.clone());
    }
    feed.close(&CloseStats::default());
}

fn raw() -> ReadOptions {
    ReadOptions {
        raw_timestamps: true,
        ..ReadOptions::default()
    }
}

#[test]
fn every_record_kind_reads_back_as_written() {
    let dir = scratch("all_kinds");
    let path = dir.join("k.etl");
    let base = TraceRecord {
        thread_id: Some(5),
        process_id: Some(6),
        payload: b"mof data".to_vec(),
        ..TraceRecord::default()
    };
    let kinds = vec![
        TraceRecord {
            header_type: header_type::SYSTEM64,
            version: 2,
            hook_id: 0x0524,
            kernel_time: 9,
            ..base.clone()
        },
        TraceRecord {
            header_type: header_type::SYSTEM32,
            version: 0x8002,
            hook_id: 0x0301,
            extended_header: vec![7; 8],
            ..base.clone()
        },
        TraceRecord {
            header_type: header_type::COMPACT64,
            version: 2,
            hook_id: 0x0524,
            ..base.clone()
        },
        TraceRecord {
            header_type: header_type::PERFINFO32,
            version: 2,
            hook_id: 0x0F2E,
            thread_id: None,
            process_id: None,
            ..base.clone()
        },
        TraceRecord {
            header_type: header_type::FULL_HEADER32,
            hook_id: 3,
            level: 2,
            guid: Some(Guid::EVENT_TRACE_CONFIG),
            ..base.clone()
        },
        TraceRecord {
            header_type: header_type::INSTANCE64,
            hook_id: 4,
            guid: Some(Guid::GLOBAL_LOGGER),
            instance: Some(InstanceInfo {
                instance_id: 1,
                parent_instance_id: 0,
                parent_guid: Guid::RT_LOST_EVENT,
            }),
            ..base.clone()
        },
        TraceRecord {
            header_type: header_type::MESSAGE,
            hook_id: 77,
            guid: Some(Guid::SYSTEM_TRACE_CONTROL),
            message: Some(MessageInfo {
                option_flags: message_flags::SEQUENCE
                    | message_flags::GUID
                    | message_flags::TIMESTAMP
                    | message_flags::SYSTEMINFO
                    | message_flags::POINTER64,
                sequence: Some(3),
                component_id: None,
            }),
            ..base
        },
    ];
    let mut records: Vec<(usize, Record)> = Vec::new();
    for (i, mut t) in kinds.into_iter().enumerate() {
        t.timestamp = Some(100 + i as i64);
        records.push((0, Record::Trace(t)));
    }
    let Record::Event(mut e32) = event(9, 200) else {
        unreachable!()
    };
    e32.header.header_type = u16::from(header_type::EVENT_HEADER32);
    records.push((0, Record::Event(e32)));
    write_file(WriterOptions::new(&path), 1, &records);

    let mut file = LogFile::open(&path).unwrap();
    let got: Vec<Record> = file.records().map(Result::unwrap).collect();
    assert_eq!(got.len(), records.len());
    for (g, (_, want)) in got.iter().zip(&records) {
        match (g, want) {
            (Record::Trace(g), Record::Trace(w)) => assert_eq!(g, w),
            (Record::Event(g), Record::Event(_)) => {
                // The shared encoder always writes HeaderType 0x13.
                assert_eq!(g.header.header_type, 0x13);
            }
            _ => panic!("kind changed: {g:?}"),
        }
    }
    let kinds: Vec<RecordKind> = got.iter().map(|r| r.kind().unwrap()).collect();
    use RecordKind::*;
    assert_eq!(
        kinds,
        [
            System,
            System,
            CompactSystem,
            PerfInfo,
            Classic,
            InstanceGuid,
            Message,
            Event
        ]
    );
    assert_eq!(got[3].as_trace().unwrap().pointer_size(), Some(4));
    assert_eq!(got[6].as_trace().unwrap().pointer_size(), Some(8));
    assert_eq!(got[1].as_trace().unwrap().extended_header, vec![7; 8]);
}

#[test]
fn cpus_merge_oldest_first_and_equal_timestamps_keep_file_order() {
    // rule: CON-04, BUF-11
    let dir = scratch("merge_cpus");
    let path = dir.join("m.etl");
    // CPU 1's records are flushed first but are partly older; two records tie at t=50.
    let records = [
        (1, event(2, 20)),
        (1, event(5, 50)),
        (1, event(7, 70)),
        (0, event(1, 10)),
        (0, event(4, 40)),
        (0, event(6, 50)),
        (2, perfinfo(3, 30)),
        (2, perfinfo(8, 80)),
    ];
    let w = Writer::create(WriterOptions::new(&path).buffer_size(KB).processors(3)).unwrap();
    let mut feed = Feed::new(w, KB, 3);
    for (cpu, r) in records.iter().cloned() {
        feed.push(cpu, r);
    }
    feed.flush(1);
    feed.flush(0);
    feed.flush(2);
    feed.close(&CloseStats::default());
    let in_file: Vec<u16> = LogFile::open(&path)
        .unwrap()
        .records()
        .map(|r| id_of(&r.unwrap()))
        .collect();
    assert_eq!(in_file, [2, 5, 7, 1, 4, 6, 3, 8]);
    let merged: Vec<u16> = Reader::open_with([&path], raw())
        .unwrap()
        .map(|r| id_of(&r.unwrap()))
        .collect();
    // 5 (CPU 1, buffer 1) precedes 6 (CPU 0, buffer 2) at the same timestamp.
    assert_eq!(merged, [1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn a_cpus_buffers_are_read_in_sequence_order() {
    // rule: CON-04, BUF-10
    let dir = scratch("sequence_order");
    let path = dir.join("s.etl");
    let mut w = Writer::create(WriterOptions::new(&path).buffer_size(KB)).unwrap();
    let mut b = BufferBuilder::new(KB, 0).unwrap();
    // Written newest first, as a wrapped circular file holds them.
    for (seq, id) in [(2, 20u16), (1, 10)] {
        b.push(&event(id, i64::from(id))).unwrap();
        w.write_buffer(&b.finish(seq, i64::from(id), 0)).unwrap();
    }
    w.close(&CloseStats::default()).unwrap();
    let merged: Vec<u16> = Reader::open([&path])
        .unwrap()
        .map(|r| id_of(&r.unwrap()))
        .collect();
    assert_eq!(merged, [10, 20]);
}

#[test]
fn files_merge_by_filetime_across_sessions() {
    // rule: CON-03, CON-04, SES-65
    let dir = scratch("merge_files");
    let a = dir.join("a.etl");
    let b = dir.join("b.etl");
    let start = 134_000_000_000_000_000;
    // Session A: QPC from raw 0 at `start`. Session B: system time, starting 5 ticks later.
    write_file(
        WriterOptions::new(&a).start(0, start),
        1,
        &[(0, event(1, 10)), (0, event(3, 30)), (0, event(5, 50))],
    );
    write_file(
        WriterOptions::new(&b)
            .clock(ClockType::SystemTime)
            .start(start + 5, start + 5),
        1,
        &[(0, event(2, start + 20)), (0, event(4, start + 40))],
    );
    let r = Reader::open([&a, &b]).unwrap();
    assert_eq!(r.headers().count(), 2);
    let got: Vec<(u16, i64)> = r
        .map(|r| {
            let r = r.unwrap();
            (id_of(&r), r.timestamp().unwrap())
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, start + 10),
            (2, start + 20),
            (3, start + 30),
            (4, start + 40),
            (5, start + 50)
        ]
    );
    // Raw timestamps are left as stored; the merge still uses the converted time.
    let got: Vec<(u16, i64)> = Reader::open_with([&a, &b], raw())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (id_of(&r), r.timestamp().unwrap())
        })
        .collect();
    assert_eq!(got[0], (1, 10));
    assert_eq!(got[1], (2, start + 20));
}

#[test]
fn timestamps_convert_per_clock_type() {
    // rule: SES-65, SES-64
    let dir = scratch("convert");
    let start = 134_000_000_000_000_000;
    for (clock, raw0, tick) in [
        (ClockType::Qpc, 1_000, 1),
        (ClockType::SystemTime, start, 1),
        (ClockType::CpuCycle, 3_000_000, 300), // 3000 MHz: 300 cycles per 100 ns
    ] {
        let p: PathBuf = dir.join(format!("{clock:?}.etl"));
        write_file(
            WriterOptions::new(&p).clock(clock).start(raw0, start),
            1,
            &[(0, event(1, raw0 + 7 * tick))],
        );
        let r: Vec<Record> = Reader::open([&p]).unwrap().map(Result::unwrap).collect();
        assert_eq!(r[0].timestamp(), Some(start + 7), "{clock:?}");
        let e = r[0].as_event().unwrap();
        assert_ne!(e.header.flags & header_flags::HEADER_64_BIT, 0);
        let r: Vec<Record> = Reader::open_with([&p], raw())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(r[0].timestamp(), Some(raw0 + 7 * tick));
    }
}

#[test]
fn header_records_come_first_when_asked_for() {
    // rule: BUF-17
    let dir = scratch("header_records");
    let p = dir.join("h.etl");
    write_file(
        WriterOptions::new(&p).start(5, etwsim_etl::DEFAULT_START_FILETIME),
        1,
        &[(0, event(1, 6))],
    );
    let opts = ReadOptions {
        header_records: true,
        ..ReadOptions::default()
    };
    let got: Vec<Record> = Reader::open_with([&p], opts)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(got.len(), 3);
    let first = got[0].as_trace().unwrap();
    assert_eq!(
        (first.group(), first.event_type()),
        (0, 0),
        "EventTrace/Header"
    );
    assert_eq!(first.timestamp, Some(etwsim_etl::DEFAULT_START_FILETIME));
    assert_eq!(got[1].as_trace().unwrap().hook_id, 0x0050);
    assert_eq!(id_of(&got[2]), 1);
}

#[test]
fn the_number_of_files_is_checked() {
    // rule: CON-03
    let e = Reader::new(Vec::new(), ReadOptions::default()).unwrap_err();
    assert!(matches!(e, Error::FileCount { count: 0 }), "{e}");
    let dir = scratch("file_count");
    let p = dir.join("one.etl");
    write_file(WriterOptions::new(&p), 1, &[(0, event(1, 1))]);
    let files: Vec<LogFile> = (0..65).map(|_| LogFile::open(&p).unwrap()).collect();
    let e = Reader::new(files, ReadOptions::default()).unwrap_err();
    assert!(matches!(e, Error::FileCount { count: 65 }), "{e}");
    let files: Vec<LogFile> = (0..64).map(|_| LogFile::open(&p).unwrap()).collect();
    assert_eq!(
        Reader::new(files, ReadOptions::default()).unwrap().count(),
        64
    );
}

#[test]
fn a_header_that_cannot_convert_needs_raw_timestamps() {
    // rule: SES-65
    let dir = scratch("unconvertible");
    let p = dir.join("u.etl");
    write_file(WriterOptions::new(&p), 1, &[(0, event(1, 1))]);
    let mut bytes = std::fs::read(&p).unwrap();
    let at = etwsim_etl::header::LOGFILE_HEADER_OFFSET + 0x100; // PerfFreq
    bytes[at..at + 8].fill(0);
    let f = LogFile::from_bytes("zero-freq.etl", bytes.clone()).unwrap();
    let e = Reader::new(vec![f], ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("zero-freq.etl"), "{e}");
    assert!(e.to_string().contains("PerfFreq 0"), "{e}");
    let f = LogFile::from_bytes("zero-freq.etl", bytes).unwrap();
    assert_eq!(Reader::new(vec![f], raw()).unwrap().count(), 1);
}

/// A file of `buffers` data buffers on two CPUs, 4 events each, ids in write order.
fn four_per_buffer(path: &Path, buffers: u16) -> Vec<u8> {
    let w = Writer::create(WriterOptions::new(path).buffer_size(KB).processors(2)).unwrap();
    let mut feed = Feed::new(w, KB, 2);
    for b in 0..buffers {
        let cpu = usize::from(b % 2);
        for i in 0..4 {
            let id = b * 4 + i;
            feed.push(cpu, event(id, i64::from(id) * 10));
        }
        feed.flush(cpu);
    }
    feed.close(&CloseStats::default());
    std::fs::read(path).unwrap()
}

#[test]
fn a_truncated_file_yields_the_records_before_the_cut_then_an_error() {
    let dir = scratch("truncated");
    let bytes = four_per_buffer(&dir.join("t.etl"), 6);
    for cut in [7 * 1024 - 1, 6 * 1024 + 600, 5 * 1024 + 8, 3 * 1024 + 100] {
        let whole = cut / 1024;
        let f = LogFile::from_bytes("t.etl", bytes[..cut].to_vec()).unwrap();
        assert_eq!(f.damage().unwrap().offset(), Some(whole as u64 * 1024));
        for options in [ReadOptions::default(), raw()] {
            let f = LogFile::from_bytes("t.etl", bytes[..cut].to_vec()).unwrap();
            let items: Vec<_> = Reader::new(vec![f], options).unwrap().collect();
            let (last, ok) = items.split_last().unwrap();
            let ids: Vec<u16> = ok.iter().map(|r| id_of(r.as_ref().unwrap())).collect();
            let want: Vec<u16> = (0..(whole as u16 - 1) * 4).collect();
            assert_eq!(ids, want, "cut at {cut}");
            let e = last.as_ref().unwrap_err();
            assert!(e.to_string().starts_with("t.etl: the last buffer"), "{e}");
        }
    }
    // Shorter than buffer 0's header: the open itself fails, saying where.
    let e = LogFile::from_bytes("t.etl", bytes[..40].to_vec()).unwrap_err();
    assert!(e.to_string().contains("offset 0x0"), "{e}");
}

#[test]
fn a_corrupt_record_ends_the_file_at_that_record() {
    let dir = scratch("corrupt_record");
    let mut bytes = four_per_buffer(&dir.join("c.etl"), 4);
    // Buffer 3 (CPU 0, ids 8..12): break the marker of its third record.
    let buffer = 3 * 1024;
    let size = 0x50 + 16; // each test event: header + 16 bytes of payload
    let third = buffer + 0x48 + 2 * size;
    bytes[third + 3] = 0x80;
    let mut f = LogFile::from_bytes("c.etl", bytes).unwrap();
    assert_eq!(f.damage().unwrap().offset(), Some(third as u64));
    let in_file: Vec<_> = f.records().collect();
    let ids: Vec<u16> = in_file
        .iter()
        .filter_map(|r| r.as_ref().ok().map(id_of))
        .collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let e = in_file.last().unwrap().as_ref().unwrap_err();
    assert!(e.to_string().contains("flags byte 0x80"), "{e}");
    // The merged reader delivers the same records, oldest first, then the same error.
    let items: Vec<_> = Reader::new(vec![f], raw()).unwrap().collect();
    assert_eq!(items.len(), 11);
    assert!(items[10].is_err());
}
