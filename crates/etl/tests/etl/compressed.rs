//! Compressed `.etl` files (`EVENT_TRACE_COMPRESSED_MODE`, SES-52; `BufferFlag` COMPRESSED,
//! BUF-15): the layout the writer produces, the reader reading them exactly like their
//! uncompressed twins, files mixing compressed and uncompressed buffers, damage, every
//! log-file mode that takes compression, and dissect.etl reading them (when the interop
//! venv is there).

use crate::common;

use common::{Feed, event, perfinfo, scratch};
use etwsim_etl::{
    CloseStats, Error, LogFile, ReadOptions, Reader, Record, TraceRecord, WriteOutcome, Writer,
    WriterOptions, decode_buffer, lzxpress,
};
use etwsim_types::record::{ext_type, header_type};
use etwsim_types::{ExtendedItem, LogFileMode};
use std::path::{Path, PathBuf};
use std::process::Command;

const KB: u32 = 1024;
const COMPRESSED: u16 = 0x40;

/// Events (some with extended items), perfinfo and system records on three CPUs; with
/// `noisy`, every fifth run of 40 records is events with 1000 bytes of noise (buffers of
/// them do not compress).
fn records(n: u16, noisy: bool) -> Vec<(usize, Record)> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut noise = |len: usize| -> Vec<u8> {
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect()
    };
    (0..n)
        .map(|i| {
            let ts = i64::from(i) * 10;
            let loud = noisy && (i / 40) % 5 == 4;
            let r = match i % 5 {
                _ if loud => {
                    let Record::Event(mut e) = event(i, ts) else {
                        unreachable!()
                    };
                    e.user_data = noise(1000);
                    e.user_data[0] |= 1; // odd first byte (see `common::event`)
                    Record::Event(e)
                }
                0 | 1 => {
                    let Record::Event(mut e) = event(i, ts) else {
                        unreachable!()
                    };
                    if i % 10 == 1 {
                        e.extended_data = vec![ExtendedItem::u64_item(ext_type::EVENT_KEY, 9)];
                    }
                    Record::Event(e)
                }
                2 => perfinfo(0x0F2E, ts),
                3 => Record::Trace(TraceRecord {
                    header_type: header_type::SYSTEM64,
                    version: 2,
                    hook_id: 0x0524,
                    thread_id: Some(1),
                    process_id: Some(2),
                    timestamp: Some(ts),
                    payload: vec![2; 24],
                    ..TraceRecord::default()
                }),
                _ => event(i, ts),
            };
            (usize::from(i % 3), r)
        })
        .collect()
}

fn write(options: WriterOptions, records: &[(usize, Record)]) -> Vec<WriteOutcome> {
    let buffer_size = 4 * KB;
    let w = Writer::create(options.buffer_size(buffer_size).processors(3)).unwrap();
    let mut feed = Feed::new(w, buffer_size, 3);
    for (cpu, r) in records {
        feed.push(*cpu, r.clone());
    }
    feed.flush_all();
    let outcomes = std::mem::take(&mut feed.outcomes);
    feed.close(&CloseStats::default());
    outcomes
}

/// The same records written compressed and not: (compressed, plain).
fn twins(name: &str, records: &[(usize, Record)]) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let (c, p) = (dir.join("compressed.etl"), dir.join("plain.etl"));
    write(WriterOptions::new(&c).compressed(true), records);
    write(WriterOptions::new(&p), records);
    (c, p)
}

/// One buffer as it lies in a file.
#[derive(Debug, Clone, Copy)]
struct OnDisk {
    offset: usize,
    size: usize,
    used: usize,
    flags: u16,
}

/// Walks a file's buffers by their own BufferSize; they must end exactly at its end.
fn on_disk(bytes: &[u8]) -> Vec<OnDisk> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let b = OnDisk {
            offset: at,
            size: u32_at(at),
            used: u32_at(at + 0x30),
            flags: u16::from_le_bytes([bytes[at + 0x34], bytes[at + 0x35]]),
        };
        assert!(b.size >= 0x48, "{b:?}");
        out.push(b);
        at += b.size;
    }
    assert_eq!(at, bytes.len(), "the buffers end where the file does");
    out
}

fn all(file: &mut LogFile) -> Vec<Record> {
    file.records().collect::<Result<_, _>>().unwrap()
}

fn merged(path: &Path, options: ReadOptions) -> Vec<Record> {
    Reader::open_with([path], options)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn venv_python() -> Option<PathBuf> {
    let python =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/etl-check-venv/bin/python");
    if python.exists() {
        Some(python)
    } else {
        eprintln!(
            "note: {} is absent (scripts/interop.sh makes it); the dissect.etl check is skipped",
            python.display()
        );
        None
    }
}

#[test]
fn compressed_files_have_the_layout_windows_writes() {
    // rule: SES-52
    // rule: BUF-15
    let (c, p) = twins("layout", &records(600, false));
    let bytes = std::fs::read(&c).unwrap();
    let plain_len = std::fs::metadata(&p).unwrap().len() as usize;
    let file = LogFile::open(&c).unwrap();
    let h = file.header().clone();
    assert!(h.log_file_mode.contains(LogFileMode::COMPRESSED));
    assert_eq!(
        h.buffer_size,
        4 * KB,
        "the logfile header keeps the session's BufferSize"
    );
    let buffers = on_disk(&bytes);
    assert_eq!(buffers.len(), h.buffers_written as usize);
    assert_eq!(buffers.len(), file.buffer_count());
    // Buffer 0: uncompressed, trimmed to its used bytes rounded up to 512.
    let b0 = buffers[0];
    assert_eq!(b0.flags & COMPRESSED, 0);
    assert_eq!(b0.size, b0.used.div_ceil(512) * 512);
    assert!(b0.size < 4 * KB as usize);
    // Data buffers: compressed, each as long as its header and compressed records (never
    // longer than its used bytes: dissect.etl reads min(BufferSize, Offset)), Offset the
    // used bytes once decompressed; SavedOffset = Offset as always.
    for b in &buffers[1..] {
        assert_eq!(b.flags & COMPRESSED, COMPRESSED, "{b:?}");
        assert!(b.size < b.used, "{b:?}");
        assert_eq!(
            &bytes[b.offset + 4..b.offset + 8],
            &bytes[b.offset + 0x30..b.offset + 0x34]
        );
        let payload = &bytes[b.offset + 0x48..b.offset + b.size];
        assert_eq!(
            lzxpress::decompress(payload, b.used - 0x48).unwrap().len(),
            b.used - 0x48
        );
    }
    assert!(
        bytes.len() * 3 < plain_len,
        "{} vs {plain_len}",
        bytes.len()
    );
    assert_eq!(file.compressed_buffer_count(), buffers.len() - 1);
    // A buffer 0 shorter than the session's BufferSize is only for compressed files.
    let mut not_compressed = bytes.clone();
    let mode_at = 0x48 + 0x20 + 0x20;
    let mode = u32::from_le_bytes(not_compressed[mode_at..mode_at + 4].try_into().unwrap());
    assert_eq!(mode & 0x0400_0000, 0x0400_0000);
    not_compressed[mode_at..mode_at + 4].copy_from_slice(&(mode & !0x0400_0000).to_le_bytes());
    let e = LogFile::from_bytes("mode.etl", not_compressed).unwrap_err();
    assert!(e.to_string().contains("differs from buffer 0's"), "{e}");
    // One buffer on its own (`decode_buffer`): decompressed, the twin's records.
    let plain = std::fs::read(&p).unwrap();
    for (i, b) in buffers.iter().enumerate().skip(1) {
        let slice = &bytes[b.offset..b.offset + b.size];
        let d = decode_buffer(slice, b.offset as u64).unwrap();
        let twin = decode_buffer(&plain[i * 4096..(i + 1) * 4096], 0).unwrap();
        assert!(d.damage.is_none() && twin.damage.is_none());
        assert_eq!(d.records, twin.records, "buffer {i}");
        assert_eq!(d.header.buffer_size as usize, b.size);
    }
}

#[test]
fn compressed_files_read_exactly_like_their_uncompressed_twins() {
    // rule: SES-52
    let recs = records(900, false);
    let (c, p) = twins("twins", &recs);
    let (mut fc, mut fp) = (LogFile::open(&c).unwrap(), LogFile::open(&p).unwrap());
    assert!(fc.damage().is_none() && fp.damage().is_none());
    let got = all(&mut fc);
    assert_eq!(got.len(), recs.len());
    assert_eq!(got, all(&mut fp), "file order, owned");
    let mut views = Vec::new();
    fc.for_each_record(|v| views.push(v.to_record())).unwrap();
    assert_eq!(views, got, "borrowed views");
    assert_eq!(
        fc.header_records().unwrap().len(),
        fp.header_records().unwrap().len()
    );
    for options in [
        ReadOptions::default(),
        ReadOptions {
            raw_timestamps: true,
            header_records: false,
        },
    ] {
        assert_eq!(merged(&c, options), merged(&p, options), "{options:?}");
    }
    // Positions (ProcessTrace's BufferCallback): the same buffers, the same Filled.
    let positions = |path: &Path| {
        let mut r = Reader::open([path]).unwrap();
        let mut v = Vec::new();
        while let Some(x) = r.next_positioned() {
            v.push(x.unwrap().0);
        }
        v
    };
    assert_eq!(positions(&c), positions(&p));
}

#[test]
fn incompressible_buffers_are_stored_as_they_are_among_compressed_ones() {
    // rule: SES-52
    let recs = records(1000, true);
    let (c, p) = twins("mixed", &recs);
    let bytes = std::fs::read(&c).unwrap();
    let buffers = on_disk(&bytes);
    let (packed, plain): (Vec<OnDisk>, Vec<OnDisk>) =
        buffers[1..].iter().partition(|b| b.flags & COMPRESSED != 0);
    assert!(!packed.is_empty() && !plain.is_empty(), "{buffers:?}");
    for b in &plain {
        assert_eq!(
            b.size, b.used,
            "stored uncompressed, trimmed to its used bytes"
        );
    }
    let (mut fc, mut fp) = (LogFile::open(&c).unwrap(), LogFile::open(&p).unwrap());
    assert_eq!(all(&mut fc), all(&mut fp));
    assert_eq!(fc.compressed_buffer_count(), packed.len());
    assert_eq!(
        merged(&c, ReadOptions::default()),
        merged(&p, ReadOptions::default())
    );
}

/// Ids of the records before buffer `k` (1-based data buffer index) of a file.
fn records_before(path: &Path, k: usize) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let buffers = on_disk(&bytes);
    let cut = buffers[k].offset;
    let mut f = LogFile::from_bytes("prefix.etl", bytes[..cut].to_vec()).unwrap();
    f.records().filter(Result::is_ok).count()
}

#[test]
fn a_buffer_that_does_not_decompress_ends_the_file_there() {
    let (c, _) = twins("broken_stream", &records(900, false));
    let bytes = std::fs::read(&c).unwrap();
    let buffers = on_disk(&bytes);
    let k = 4;
    let b = buffers[k];
    let before = records_before(&c, k);
    assert!(before > 0);
    // A first symbol that is a match reaching 8192 bytes back, before the start.
    let mut broken = bytes.clone();
    let at = b.offset + 0x48;
    broken[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    broken[at + 4..at + 6].copy_from_slice(&0xFFF8u16.to_le_bytes());
    let mut f = LogFile::from_bytes("broken.etl", broken.clone()).unwrap();
    let damage = f.damage().unwrap();
    assert_eq!(damage.offset(), Some(at as u64 + 4), "{damage}");
    let text = damage.to_string();
    assert!(
        text.contains(&format!("buffer {k} at offset {:#x}", b.offset)),
        "{text}"
    );
    assert!(text.contains("before the start"), "{text}");
    let items: Vec<_> = f.records().collect();
    let (last, ok) = items.split_last().unwrap();
    assert_eq!(ok.len(), before);
    assert!(ok.iter().all(Result::is_ok));
    let e = last.as_ref().unwrap_err();
    assert!(matches!(e, Error::InFile { .. }), "{e}");
    assert!(
        e.to_string().starts_with("broken.etl: compressed buffer"),
        "{e}"
    );
    let mut seen = 0;
    let e = f.for_each_record(|_| seen += 1).unwrap_err();
    assert_eq!((seen, e.offset()), (before, Some(at as u64 + 4)));
    let f = LogFile::from_bytes("broken.etl", broken).unwrap();
    let items: Vec<_> = Reader::new(vec![f], ReadOptions::default())
        .unwrap()
        .collect();
    assert_eq!(items.iter().filter(|r| r.is_ok()).count(), before);
    assert!(items.last().unwrap().is_err());

    // An Offset that says less than the stream holds: the decompressor stops at the
    // symbol that would pass it; one that says more: the stream ends short of it.
    let b = *buffers[1..]
        .iter()
        .find(|b| b.used + 8 <= 4 * KB as usize)
        .unwrap();
    for (delta, says) in [(-8i64, "longer than its limit"), (8, "its Offset says")] {
        let mut wrong = bytes.clone();
        let used = (b.used as i64 + delta) as u32;
        for field in [0x04, 0x30] {
            wrong[b.offset + field..b.offset + field + 4].copy_from_slice(&used.to_le_bytes());
        }
        let f = LogFile::from_bytes("wrong.etl", wrong).unwrap();
        let d = f.damage().unwrap();
        let at = d.offset().unwrap() as usize;
        assert!((b.offset..b.offset + b.size).contains(&at), "{d}");
        assert!(d.to_string().contains(says), "{d}");
    }
}

#[test]
fn damage_inside_the_decompressed_records_is_told_in_the_buffer() {
    let (c, _) = twins("broken_record", &records(300, false));
    let bytes = std::fs::read(&c).unwrap();
    let buffers = on_disk(&bytes);
    let last = *buffers.last().unwrap();
    // The last buffer again, its third record's marker broken before compressing.
    let payload = &bytes[last.offset + 0x48..];
    let mut records = lzxpress::decompress(payload, last.used - 0x48).unwrap();
    let size = |at: usize| usize::from(u16::from_le_bytes([records[at], records[at + 1]]));
    let second = size(0).next_multiple_of(8);
    let third = second + size(second).next_multiple_of(8);
    records[third + 3] = 0x80;
    let mut file = bytes[..last.offset + 0x48].to_vec();
    file.extend_from_slice(&lzxpress::compress(&records));
    let stride = (file.len() - last.offset) as u32;
    file[last.offset..last.offset + 4].copy_from_slice(&stride.to_le_bytes());
    let before = records_before(&c, buffers.len() - 1);
    let mut f = LogFile::from_bytes("record.etl", file).unwrap();
    let d = f.damage().unwrap();
    let k = buffers.len() - 1;
    assert_eq!(d.offset(), Some(last.offset as u64), "{d}");
    let text = d.to_string();
    assert!(
        text.contains(&format!("buffer {k} at offset {:#x}", last.offset)),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "offset {:#x} of its decompressed bytes",
            0x48 + third
        )),
        "{text}"
    );
    let ok = f.records().filter(Result::is_ok).count();
    assert_eq!(ok, before + 2, "the two records before the damage are kept");
}

#[test]
fn a_truncated_compressed_file_keeps_the_records_before_the_cut() {
    let (c, _) = twins("compressed_truncated", &records(900, false));
    let bytes = std::fs::read(&c).unwrap();
    let buffers = on_disk(&bytes);
    for k in [1, 3, buffers.len() - 1] {
        let b = buffers[k];
        let before = records_before(&c, k);
        for cut in [b.offset + 10, b.offset + 0x48, b.offset + b.size - 1] {
            let mut f = LogFile::from_bytes("cut.etl", bytes[..cut].to_vec()).unwrap();
            let d = f.damage().unwrap();
            assert_eq!(d.offset(), Some(b.offset as u64), "cut {cut}: {d}");
            assert!(d.to_string().contains("the last buffer"), "{d}");
            assert_eq!(
                f.records().filter(Result::is_ok).count(),
                before,
                "cut {cut}"
            );
        }
        // Cut at the buffer's start: whole buffers, fewer than BuffersWritten counts.
        let f = LogFile::from_bytes("cut.etl", bytes[..b.offset].to_vec()).unwrap();
        assert!(f.damage().is_some(), "cut at buffer {k}");
    }
}

#[test]
fn every_mode_that_takes_compression_writes_readable_files() {
    // rule: SES-52
    // rule: SES-62
    // rule: SES-35
    // rule: SES-36
    // rule: SES-34
    let dir = scratch("modes");
    let recs = records(900, false);
    let opts = |name: &str| WriterOptions::new(dir.join(name)).compressed(true);
    let count = |path: &Path| {
        LogFile::open(path)
            .unwrap()
            .records()
            .filter(Result::is_ok)
            .count()
    };

    // SEQUENTIAL with a 12 KB limit: buffers of different lengths until the next one does
    // not fit; the file never passes the limit, and `is_full` says so after the refusal.
    let path = dir.join("sequential.etl");
    let w = Writer::create(
        opts("sequential.etl")
            .mode(LogFileMode::SEQUENTIAL | LogFileMode::USE_KBYTES_FOR_SIZE)
            .compressed(true)
            .maximum_file_size(12)
            .buffer_size(4 * KB)
            .processors(3),
    )
    .unwrap();
    let mut feed = Feed::new(w, 4 * KB, 3);
    for (cpu, r) in &recs {
        feed.push(*cpu, r.clone());
    }
    feed.flush_all();
    assert!(feed.outcomes.contains(&WriteOutcome::Full));
    assert!(feed.writer.is_full());
    let written = feed.outcomes.iter().filter(|o| o.is_written()).count();
    feed.writer.close(&CloseStats::default()).unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    assert!(len <= 12 * 1024, "{len}");
    assert_eq!(LogFile::open(&path).unwrap().buffer_count(), written + 1);
    assert!(count(&path) > 0);

    // NEWFILE: a new file when the next buffer would pass the limit; every file complete.
    let w = Writer::create(
        WriterOptions::new(dir.join("newfile-%d.etl"))
            .mode(LogFileMode::NEWFILE | LogFileMode::USE_KBYTES_FOR_SIZE)
            .compressed(true)
            .maximum_file_size(8)
            .buffer_size(4 * KB)
            .processors(3),
    )
    .unwrap();
    let mut feed = Feed::new(w, 4 * KB, 3);
    for (cpu, r) in &recs {
        feed.push(*cpu, r.clone());
    }
    let summary = feed.close(&CloseStats::default());
    assert!(summary.files.len() > 1);
    let mut total = 0;
    for f in &summary.files {
        assert!(std::fs::metadata(f).unwrap().len() <= 8 * 1024);
        let mut file = LogFile::open(f).unwrap();
        assert!(file.damage().is_none(), "{}", f.display());
        total += file.records().count();
    }
    assert_eq!(total, recs.len());
    assert_eq!(Reader::open(&summary.files).unwrap().count(), recs.len());

    // PREALLOCATE: the file is the maximum size until it is finished, then trimmed; a
    // reader stops quietly at the unwritten space of an unfinished one.
    let path = dir.join("prealloc.etl");
    let w = Writer::create(
        opts("prealloc.etl")
            .mode(LogFileMode::SEQUENTIAL | LogFileMode::PREALLOCATE)
            .compressed(true)
            .maximum_file_size(1)
            .buffer_size(4 * KB)
            .processors(3),
    )
    .unwrap();
    let mut feed = Feed::new(w, 4 * KB, 3);
    for (cpu, r) in &recs {
        feed.push(*cpu, r.clone());
    }
    feed.flush_all();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1024 * 1024);
    let unfinished = LogFile::open(&path).unwrap();
    assert!(unfinished.damage().is_none(), "{:?}", unfinished.damage());
    assert_eq!(count(&path), recs.len());
    feed.writer.close(&CloseStats::default()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    on_disk(&bytes);
    assert_eq!(count(&path), recs.len());

    // APPEND continues a compressed file, sequence numbers after its own; appending
    // compressed to a plain file, or plain to a compressed one, is a mismatch.
    let path = dir.join("append.etl");
    write(opts("append.etl"), &recs[..300]);
    write(
        opts("append.etl")
            .mode(LogFileMode::APPEND)
            .compressed(true),
        &recs[300..],
    );
    let mut f = LogFile::open(&path).unwrap();
    assert!(f.damage().is_none(), "{:?}", f.damage());
    assert_eq!(f.records().count(), recs.len());
    assert_eq!(Reader::open([&path]).unwrap().count(), recs.len());
    let plain = dir.join("plain.etl");
    write(WriterOptions::new(&plain), &recs[..10]);
    for (target, compressed) in [(&path, false), (&plain, true)] {
        let e = Writer::create(
            WriterOptions::new(target)
                .mode(LogFileMode::APPEND)
                .compressed(compressed)
                .buffer_size(4 * KB)
                .processors(3),
        )
        .unwrap_err();
        assert!(e.to_string().contains("LogFileMode COMPRESSED"), "{e}");
    }

    // CIRCULAR overwrites fixed slots: not with buffers of different lengths.
    let e = Writer::create(
        opts("circular.etl")
            .mode(LogFileMode::CIRCULAR)
            .compressed(true)
            .maximum_file_size(1),
    )
    .unwrap_err();
    assert!(matches!(e, Error::InvalidOption(_)), "{e}");
}

#[test]
fn dissect_reads_compressed_files_as_their_uncompressed_twins() {
    // rule: SES-52
    let Some(python) = venv_python() else {
        return;
    };
    let recs = records(1500, true);
    let (c, p) = twins("dissect", &recs);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dissect_same_records.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&c)
        .arg(&p)
        .arg("--expect")
        .arg(recs.len().to_string())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("identical"), "{text}");
    eprintln!("{}", text.trim());
}

#[test]
fn dissect_decompresses_what_the_compressor_writes() {
    let Some(python) = venv_python() else {
        return;
    };
    let dir = scratch("lzxpress_oracle");
    let mut inputs: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("one", b"x".to_vec()),
        ("equal", vec![0xAB; 100_000]),
        ("abc", b"abc".repeat(100)),
        ("alphabet", b"abcdefghijklmnopqrstuvwxyz".to_vec()),
    ];
    let mut s = 1u64;
    inputs.push((
        "noise",
        (0..50_000)
            .map(|_| {
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (s >> 56) as u8
            })
            .collect(),
    ));
    // Lengths at every boundary of the length forms, and long matches in a row (shared
    // nibbles).
    let mut forms = Vec::new();
    for (i, len) in [3usize, 9, 10, 24, 25, 279, 280, 65_538, 65_539, 70_000]
        .iter()
        .enumerate()
    {
        forms.push(b'A' + i as u8);
        forms.extend(std::iter::repeat_n(b'=', *len + 1));
        forms.extend_from_slice(b"0123456789abcdef");
    }
    inputs.push(("forms", forms));
    // A real buffer's records.
    let (c, _) = twins("lzxpress_oracle_file", &records(300, false));
    let bytes = std::fs::read(&c).unwrap();
    let b = on_disk(&bytes)[1];
    let payload = &bytes[b.offset + 0x48..b.offset + b.size];
    inputs.push((
        "records",
        lzxpress::decompress(payload, b.used - 0x48).unwrap(),
    ));
    for (name, data) in &inputs {
        std::fs::write(dir.join(format!("{name}.raw")), data).unwrap();
        std::fs::write(dir.join(format!("{name}.lzx")), lzxpress::compress(data)).unwrap();
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dissect_same_records.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg("--lzxpress")
        .arg(&dir)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!("{} streams", inputs.len())),
        "{text}"
    );
}

/// A real compressed file (`ETWSIM_REAL_COMPRESSED_ETL=path.etl`, e.g. a trace PerfView or
/// `xperf -merge -compress` made), read as dissect.etl reads it: the same number of records
/// and the same raw timestamps. Skipped without the variable or the venv.
#[test]
fn a_real_compressed_file_reads_as_dissect_reads_it() {
    let Some(path) = std::env::var_os("ETWSIM_REAL_COMPRESSED_ETL") else {
        eprintln!("note: ETWSIM_REAL_COMPRESSED_ETL is not set; the real-file check is skipped");
        return;
    };
    let Some(python) = venv_python() else {
        return;
    };
    let mut f = LogFile::open(&path).unwrap();
    assert!(f.damage().is_none(), "{:?}", f.damage());
    assert!(f.compressed_buffer_count() > 0);
    let (mut n, mut sum) = (0u64, 0i128);
    f.for_each_record(|v| {
        n += 1;
        sum += i128::from(v.timestamp().unwrap_or(0));
    })
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dissect_same_records.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg("--count")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.trim(), format!("{n} {sum}"), "dissect.etl vs etwsim");
    eprintln!(
        "{}: {n} records, as dissect.etl reads them",
        Path::new(&path).display()
    );
}

#[test]
fn a_decompression_bomb_is_damage_not_work() {
    // 16 MiB buffers of one 16-byte record repeated: each compresses to a few dozen bytes.
    // The first is read; the second would make the file's compressed buffers hold more than
    // 256 times the file's length once decompressed, and ends the file there.
    let dir = scratch("bomb");
    let path = dir.join("bomb.etl");
    let session = 16 * 1024 * 1024;
    let mut w = Writer::create(
        WriterOptions::new(&path)
            .buffer_size(session)
            .compressed(true),
    )
    .unwrap();
    w.close(&CloseStats::default()).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let record = perfinfo(0x0F2E, 1);
    let one = record.encode().unwrap();
    assert_eq!(one.len(), 24);
    let used = session as usize - 16;
    let records = one.repeat((used - 0x48) / one.len());
    assert_eq!(0x48 + records.len(), used);
    let packed = lzxpress::compress(&records);
    assert!(packed.len() < 64, "{}", packed.len());
    let mut builder = etwsim_etl::BufferBuilder::new(4096, 0).unwrap();
    builder.push(&record).unwrap();
    let mut header = builder.finish(1, 1, 0)[..0x48].to_vec();
    header[0..4].copy_from_slice(&((0x48 + packed.len()) as u32).to_le_bytes());
    for field in [0x04, 0x08, 0x30] {
        header[field..field + 4].copy_from_slice(&(used as u32).to_le_bytes());
    }
    header[0x34] |= COMPRESSED as u8;
    let first = bytes.len();
    for _ in 0..3 {
        bytes.extend_from_slice(&header);
        bytes.extend_from_slice(&packed);
    }
    let second = first + 0x48 + packed.len();
    let mut f = LogFile::from_bytes("bomb.etl", bytes).unwrap();
    let d = f.damage().unwrap();
    assert_eq!(d.offset(), Some(second as u64), "{d}");
    assert!(d.to_string().contains("more than 256 times"), "{d}");
    let mut n = 0;
    let e = f.for_each_record(|_| n += 1).unwrap_err();
    assert_eq!(n, records.len() / 24);
    assert_eq!(e.offset(), Some(second as u64));
}
