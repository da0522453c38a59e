//! The writer in every log-file mode, checked by reading the files back.

use crate::common;

use common::{Feed, event, id_of, scratch};
use etwsim_etl::header::LOGFILE_HEADER_OFFSET;
use etwsim_etl::{
    CloseStats, Error, LogFile, LogfileHeader, Reader, WriteOutcome, Writer, WriterOptions,
};
use etwsim_types::{ClockType, LogFileMode};
use std::path::Path;

const KB: u32 = 1024;

fn ids_in_file(path: &Path) -> Vec<u16> {
    let mut f = LogFile::open(path).unwrap();
    assert!(f.damage().is_none(), "{:?}", f.damage());
    f.records().map(|r| id_of(&r.unwrap())).collect()
}

fn header_of(path: &Path) -> LogfileHeader {
    LogFile::open(path).unwrap().header().clone()
}

fn len_of(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

/// Fills one 1 KiB buffer per call with `n` events of ids `first..first+n`.
fn one_buffer(feed: &mut Feed, cpu: usize, first: u16, n: u16) -> WriteOutcome {
    for id in first..first + n {
        feed.push(cpu, event(id, i64::from(id) * 10));
    }
    feed.flush(cpu).unwrap()
}

#[test]
fn sequential_refuses_the_buffer_past_maximum_file_size() {
    // rule: SES-32, SES-62, SES-44, SES-61
    let dir = scratch("sequential_full");
    let path = dir.join("s.etl");
    let w = Writer::create(
        WriterOptions::new(&path)
            .mode(LogFileMode::SEQUENTIAL | LogFileMode::USE_KBYTES_FOR_SIZE)
            .maximum_file_size(5) // 5 KB: buffer 0 + 4 data buffers of 1 KiB
            .buffer_size(KB),
    )
    .unwrap();
    let mut feed = Feed::new(w, KB, 1);
    for i in 0..4 {
        assert_eq!(one_buffer(&mut feed, 0, i * 10, 3), WriteOutcome::Written);
    }
    assert!(feed.writer.is_full());
    assert_eq!(one_buffer(&mut feed, 0, 40, 3), WriteOutcome::Full);
    assert_eq!(feed.writer.buffers_in_file(), 5);
    let s = feed.writer.close(&CloseStats::default()).unwrap();
    assert_eq!(s.buffers_in_last_file, 5);
    assert_eq!(len_of(&path), 5 * 1024);
    assert_eq!(header_of(&path).buffers_written, 5);
    assert_eq!(header_of(&path).maximum_file_size, 5);
    assert_eq!(ids_in_file(&path).len(), 12);
}

#[test]
fn file_mode_none_is_sequential_without_a_limit() {
    // rule: SES-31
    let dir = scratch("mode_none");
    let path = dir.join("n.etl");
    let w = Writer::create(
        WriterOptions::new(&path)
            .mode(LogFileMode::FILE_MODE_NONE)
            .buffer_size(KB),
    )
    .unwrap();
    let mut feed = Feed::new(w, KB, 1);
    for i in 0..50 {
        assert_eq!(one_buffer(&mut feed, 0, i * 4, 2), WriteOutcome::Written);
    }
    assert!(!feed.writer.is_full());
    feed.close(&CloseStats::default());
    assert_eq!(header_of(&path).buffers_written, 51);
    assert_eq!(header_of(&path).log_file_mode, LogFileMode::FILE_MODE_NONE);
}

#[test]
fn circular_overwrites_the_oldest_buffers_and_keeps_buffer_0() {
    // rule: SES-33, BUF-10, SES-62
    let dir = scratch("circular");
    let path = dir.join("c.etl");
    let w = Writer::create(
        WriterOptions::new(&path)
            .mode(LogFileMode::CIRCULAR | LogFileMode::USE_KBYTES_FOR_SIZE)
            .maximum_file_size(4) // buffer 0 + 3 data slots
            .buffer_size(KB)
            .logger_name("Ring")
            .processors(2),
    )
    .unwrap();
    let mut feed = Feed::new(w, KB, 2);
    let mut outcomes = Vec::new();
    for b in 0..8u16 {
        outcomes.push(one_buffer(&mut feed, usize::from(b % 2), b * 10, 2));
    }
    use WriteOutcome::{Overwrote, Written};
    assert_eq!(
        outcomes,
        [
            Written, Written, Written, Overwrote, Overwrote, Overwrote, Overwrote, Overwrote
        ]
    );
    feed.close(&CloseStats::default());
    assert_eq!(len_of(&path), 4 * 1024);
    let h = header_of(&path);
    assert_eq!(h.buffers_written, 4, "BuffersWritten = buffers in the file");
    assert_eq!(h.logger_name, "Ring");
    // File order is slot order: 6, 7, 5 (buffer 5 went to slot 3 before 6 and 7 wrapped).
    assert_eq!(ids_in_file(&path), [60, 61, 70, 71, 50, 51]);
    // The reader puts them back in time order.
    let merged: Vec<u16> = Reader::open([&path])
        .unwrap()
        .map(|r| id_of(&r.unwrap()))
        .collect();
    assert_eq!(merged, [50, 51, 60, 61, 70, 71]);
}

#[test]
fn newfile_starts_numbered_complete_files() {
    // rule: SES-35, SES-62, SES-81, CON-03
    let dir = scratch("newfile");
    let pattern = dir.join("part-%03d.etl");
    let w = Writer::create(
        WriterOptions::new(&pattern)
            .mode(LogFileMode::NEWFILE | LogFileMode::USE_KBYTES_FOR_SIZE)
            .maximum_file_size(3) // buffer 0 + 2 data buffers per file
            .buffer_size(KB),
    )
    .unwrap();
    assert_eq!(w.file_counter(), 1);
    let mut feed = Feed::new(w, KB, 1);
    let mut outcomes = Vec::new();
    for b in 0..5u16 {
        outcomes.push(one_buffer(&mut feed, 0, b * 10, 2));
    }
    use WriteOutcome::{NewFile, Written};
    assert_eq!(
        outcomes,
        [
            Written,
            Written,
            NewFile { counter: 2 },
            Written,
            NewFile { counter: 3 }
        ]
    );
    feed.writer.set_lost_counts(4, 1);
    let third = feed.writer.increment_file().unwrap();
    assert_eq!(third, dir.join("part-004.etl"));
    assert_eq!(one_buffer(&mut feed, 0, 90, 1), Written);
    let summary = feed.close(&CloseStats {
        events_lost: 5,
        buffers_lost: 2,
        end_time: None,
    });
    let names: Vec<String> = summary
        .files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "part-001.etl",
            "part-002.etl",
            "part-003.etl",
            "part-004.etl"
        ]
    );
    let per_file: Vec<Vec<u16>> = summary.files.iter().map(|p| ids_in_file(p)).collect();
    assert_eq!(
        per_file,
        [
            vec![0, 1, 10, 11],
            vec![20, 21, 30, 31],
            vec![40, 41],
            vec![90]
        ]
    );
    for (i, p) in summary.files.iter().enumerate() {
        let h = header_of(p);
        assert_eq!(
            h.log_file_name,
            p.to_string_lossy(),
            "each file names itself"
        );
        assert_eq!(h.buffers_written as u64 * 1024, len_of(p));
        let lost = if i == 3 {
            (5, 2)
        } else if i == 2 {
            (4, 1)
        } else {
            (0, 0)
        };
        assert_eq!((h.events_lost, h.buffers_lost), lost, "file {}", i + 1);
    }
    // The whole set reads as one trace (CON-03).
    let all = Reader::open(&summary.files).unwrap().count();
    assert_eq!(all, 11);
}

#[test]
fn increment_file_needs_newfile() {
    // rule: SES-81
    let dir = scratch("increment_wrong_mode");
    let mut w = Writer::create(WriterOptions::new(dir.join("x.etl")).buffer_size(KB)).unwrap();
    let e = w.increment_file().unwrap_err();
    assert!(matches!(e, Error::WrongMode { .. }), "{e}");
    assert_eq!(w.file_counter(), 0);
}

#[test]
fn append_continues_an_existing_file_and_keeps_its_header() {
    // rule: SES-34
    let dir = scratch("append");
    let path = dir.join("a.etl");
    let opts = || {
        WriterOptions::new(&path)
            .buffer_size(KB)
            .clock(ClockType::SystemTime)
            .processors(2)
    };
    // Absent: created.
    let w = Writer::create(opts().mode(LogFileMode::APPEND).logger_name("First")).unwrap();
    let mut feed = Feed::new(w, KB, 2);
    one_buffer(&mut feed, 0, 1, 3);
    feed.close(&CloseStats {
        events_lost: 2,
        ..CloseStats::default()
    });
    let first = header_of(&path);
    let w = Writer::create(opts().mode(LogFileMode::APPEND).logger_name("Second")).unwrap();
    let mut feed = Feed::new(w, KB, 2);
    one_buffer(&mut feed, 1, 10, 2);
    one_buffer(&mut feed, 0, 20, 2);
    feed.close(&CloseStats {
        events_lost: 3,
        ..CloseStats::default()
    });
    let h = header_of(&path);
    assert_eq!(h.logger_name, "First", "the existing header is kept");
    assert_eq!(h.start_time, first.start_time);
    assert_eq!(h.buffers_written, 4);
    assert_eq!(h.events_lost, 5);
    assert_eq!(ids_in_file(&path), [1, 2, 3, 10, 11, 20, 21]);

    let mismatch = |o: WriterOptions, field: &str| {
        let e = Writer::create(o.mode(LogFileMode::APPEND)).unwrap_err();
        match &e {
            Error::AppendMismatch { field: f, .. } => assert_eq!(*f, field),
            other => panic!("{other}"),
        }
        assert!(e.to_string().contains(field), "{e}");
    };
    mismatch(opts().buffer_size(2 * KB), "BufferSize");
    mismatch(opts().clock(ClockType::Qpc), "clock type");
    mismatch(opts().processors(4), "NumberOfProcessors");
    // A file that is not whole buffers is refused, not extended.
    let mut odd = std::fs::read(&path).unwrap();
    odd.truncate(1500);
    std::fs::write(dir.join("odd.etl"), odd).unwrap();
    let e = Writer::create(
        WriterOptions::new(dir.join("odd.etl"))
            .buffer_size(KB)
            .clock(ClockType::SystemTime)
            .processors(2)
            .mode(LogFileMode::APPEND),
    )
    .unwrap_err();
    assert!(e.to_string().contains("whole number"), "{e}");
    assert_eq!(len_of(&path), 4 * 1024, "a refused append changes nothing");
}

#[test]
fn preallocate_reserves_the_maximum_size_and_trims_at_close() {
    // rule: SES-36
    let dir = scratch("preallocate");
    let path = dir.join("p.etl");
    let w = Writer::create(
        WriterOptions::new(&path)
            .mode(
                LogFileMode::SEQUENTIAL
                    | LogFileMode::PREALLOCATE
                    | LogFileMode::USE_KBYTES_FOR_SIZE,
            )
            .maximum_file_size(64)
            .buffer_size(KB),
    )
    .unwrap();
    assert_eq!(len_of(&path), 64 * 1024);
    let mut feed = Feed::new(w, KB, 1);
    one_buffer(&mut feed, 0, 1, 2);
    one_buffer(&mut feed, 0, 5, 2);
    assert_eq!(len_of(&path), 64 * 1024);
    // While it is being written the unused tail is zeros, which a reader skips quietly.
    assert_eq!(ids_in_file(&path), [1, 2, 5, 6]);
    feed.close(&CloseStats::default());
    assert_eq!(len_of(&path), 3 * 1024);
    assert_eq!(header_of(&path).buffers_written, 3);
    assert_eq!(ids_in_file(&path), [1, 2, 5, 6]);
}

#[test]
fn contradictory_or_impossible_options_are_refused() {
    // rule: SES-23, SES-61, SES-35
    let dir = scratch("bad_options");
    let p = dir.join("x.etl");
    let bad = |o: WriterOptions| Writer::create(o.buffer_size(KB)).unwrap_err();
    for mode in [
        LogFileMode::CIRCULAR,
        LogFileMode::NEWFILE,
        LogFileMode::PREALLOCATE,
    ] {
        let e = bad(WriterOptions::new(dir.join("n%d.etl")).mode(mode));
        assert!(e.to_string().contains("SES-61"), "{e}");
    }
    for mode in [
        LogFileMode::SEQUENTIAL | LogFileMode::CIRCULAR,
        LogFileMode::CIRCULAR | LogFileMode::APPEND,
        LogFileMode::NEWFILE | LogFileMode::APPEND,
    ] {
        let e = bad(WriterOptions::new(&p).mode(mode).maximum_file_size(1));
        assert!(matches!(e, Error::InvalidOption(_)), "{e}");
    }
    let e = bad(WriterOptions::new(&p)
        .mode(LogFileMode::CIRCULAR | LogFileMode::USE_KBYTES_FOR_SIZE)
        .maximum_file_size(1));
    assert!(e.to_string().contains("cannot hold"), "{e}");
    let e = bad(WriterOptions::new(&p)
        .mode(LogFileMode::NEWFILE)
        .maximum_file_size(1));
    assert!(matches!(e, Error::BadPattern { .. }), "{e}");
    let e = Writer::create(WriterOptions::new(&p).buffer_size(1000)).unwrap_err();
    assert!(matches!(e, Error::InvalidOption(_)), "{e}");
    let e = Writer::create(WriterOptions::new(dir.join("no/such/dir/x.etl"))).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
}

#[test]
fn header_values_are_the_required_ones_and_statistics_are_rewritten_at_close() {
    // rule: BUF-17, SES-64, SES-65
    let dir = scratch("header_values");
    for clock in [ClockType::Qpc, ClockType::SystemTime, ClockType::CpuCycle] {
        let path = dir.join(format!("{clock:?}.etl"));
        let start = 134_000_000_000_000_000;
        let raw0 = match clock {
            ClockType::SystemTime => start,
            _ => 1_000_000,
        };
        let w = Writer::create(
            WriterOptions::new(&path)
                .buffer_size(KB)
                .clock(clock)
                .start(raw0, start)
                .processors(1)
                .writer_ids(44, 55)
                .logger_name("Stats"),
        )
        .unwrap();
        let before = header_of(&path);
        assert_eq!(before.buffers_written, 1, "not counted before close");
        let mut feed = Feed::new(w, KB, 3);
        for (cpu, id) in [(0, 1u16), (2, 2)] {
            feed.push(cpu, event(id, raw0 + 3000 * i64::from(id)));
            feed.flush(cpu);
        }
        let flushed = raw0 + 6001; // the last buffer's TimeStamp
        feed.close(&CloseStats {
            events_lost: 7,
            buffers_lost: 8,
            end_time: None,
        });
        let mut file = LogFile::open(&path).unwrap();
        let h = file.header().clone();
        assert_eq!(h.perf_freq, 10_000_000);
        assert_eq!(h.cpu_speed_mhz, 3000);
        assert_eq!(h.pointer_size, 8);
        assert_eq!(h.version, 0x0501_000A);
        assert_eq!(h.reserved_flags, clock.raw());
        assert_eq!(h.start_raw, raw0);
        assert_eq!(h.start_time, start);
        assert_eq!((h.process_id, h.thread_id), (44, 55));
        assert_eq!(h.buffers_written, 3);
        assert_eq!((h.events_lost, h.buffers_lost), (7, 8));
        assert_eq!(h.number_of_processors, 3, "raised to the highest CPU + 1");
        assert_eq!(Some(h.end_time), h.to_filetime(flushed));
        assert!(h.end_time > h.start_time);
        assert_eq!(
            h.to_filetime(raw0),
            Some(start),
            "StartTime anchors the raw clock"
        );
        // The header record carries the anchor as its raw timestamp.
        let header_records = file.header_records().unwrap();
        assert_eq!(header_records[0].timestamp(), Some(raw0));
        assert_eq!(header_records[1].as_trace().unwrap().hook_id, 0x0050);
        // The bytes where the format reference puts them.
        let bytes = std::fs::read(&path).unwrap();
        let at = LOGFILE_HEADER_OFFSET;
        let u32_at = |o: usize| u32::from_le_bytes(bytes[at + o..at + o + 4].try_into().unwrap());
        assert_eq!(u32_at(0x24), 3);
        assert_eq!(u32_at(0x2C), 8);
        assert_eq!(u32_at(0xF4), 0);
        assert_eq!(u32_at(0x110), clock.raw());
    }
}

#[test]
fn an_explicit_end_time_wins_and_empty_buffers_are_not_written() {
    // rule: BUF-08, BUF-17
    let dir = scratch("end_time");
    let path = dir.join("e.etl");
    let mut w = Writer::create(WriterOptions::new(&path).buffer_size(KB)).unwrap();
    let empty = etwsim_etl::BufferBuilder::new(KB, 0)
        .unwrap()
        .finish(1, 5, 0);
    assert_eq!(w.write_buffer(&empty).unwrap(), WriteOutcome::Empty);
    let end = etwsim_etl::DEFAULT_START_FILETIME + 12_345;
    w.close(&CloseStats {
        end_time: Some(end),
        ..CloseStats::default()
    })
    .unwrap();
    let h = header_of(&path);
    assert_eq!((h.buffers_written, h.end_time), (1, end));
    assert_eq!(len_of(&path), 1024);
    assert_eq!(Reader::open([&path]).unwrap().count(), 0);
}
