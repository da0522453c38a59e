//! Damaged input never panics, never loops, never allocates beyond what the input holds:
//! thousands of deterministic mutations and truncations of a generated file (every record
//! kind, three CPUs), of the same file compressed, and of every shared fixture go through
//! every reading path.

use crate::common;

use common::{Feed, event, perfinfo, scratch};
use etwsim_etl::{
    CloseStats, InstanceInfo, LogFile, LogfileHeader, MessageInfo, ReadOptions, Reader, Record,
    TraceRecord, Writer, WriterOptions, decode_buffer, message_flags,
};
use etwsim_types::record::{ext_type, header_type};
use etwsim_types::{ExtendedItem, Guid};
use std::path::Path;

/// xorshift64*: small, deterministic, good enough to pick positions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A 1 KiB-buffer file on three CPUs with every record kind and extended items; with
/// `compressed`, its data buffers are LZXpress-compressed (SES-52).
fn generated(compressed: bool) -> Vec<u8> {
    let dir = scratch(if compressed {
        "robustness_base_compressed"
    } else {
        "robustness_base"
    });
    let path = dir.join("base.etl");
    let w = Writer::create(
        WriterOptions::new(&path)
            .buffer_size(1024)
            .processors(3)
            .compressed(compressed),
    )
    .unwrap();
    let mut feed = Feed::new(w, 1024, 3);
    for i in 0..120u16 {
        let ts = i64::from(i) * 10;
        let cpu = usize::from(i % 3);
        let r = match i % 6 {
            0 => event(i, ts),
            1 => perfinfo(0x0F2E, ts),
            2 => {
                let Record::Event(mut e) = event(i, ts) else {
                    unreachable!()
                };
                e.extended_data = vec![
                    ExtendedItem::related_activity_id(Guid::RT_LOST_EVENT),
                    ExtendedItem::u64_item(ext_type::EVENT_KEY, 9),
                ];
                Record::Event(e)
            }
            3 => Record::Trace(TraceRecord {
                header_type: header_type::SYSTEM64,
                version: 0x8102,
                hook_id: 0x0524,
                thread_id: Some(1),
                process_id: Some(2),
                timestamp: Some(ts),
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
                    option_flags: message_flags::GUID
                        | message_flags::TIMESTAMP
                        | message_flags::SYSTEMINFO,
                    ..MessageInfo::default()
                }),
                payload: vec![3; 5],
                ..TraceRecord::default()
            }),
            _ => Record::Trace(TraceRecord {
                header_type: header_type::INSTANCE64,
                hook_id: 1,
                guid: Some(Guid::EVENT_TRACE),
                timestamp: Some(ts),
                thread_id: Some(1),
                process_id: Some(2),
                instance: Some(InstanceInfo::default()),
                ..TraceRecord::default()
            }),
        };
        feed.push(cpu, r);
    }
    feed.close(&CloseStats::default());
    std::fs::read(&path).unwrap()
}

/// Reads `bytes` every way there is; returns the records the file-order walk produced and
/// whether reading reported damage (or refused to open).
fn exercise(bytes: &[u8]) -> (Vec<Record>, bool) {
    let bound = bytes.len() / 8 + 2;
    for chunk in bytes.chunks(1024).take(64) {
        let _ = decode_buffer(chunk, 0);
        let _ = LogfileHeader::decode_buffer(chunk, 0);
    }
    let Ok(mut f) = LogFile::from_bytes("mutant.etl", bytes.to_vec()) else {
        return (Vec::new(), true);
    };
    let _ = f.header_records();
    let mut ok = Vec::new();
    let mut errors = 0;
    for (n, r) in f.records().enumerate() {
        assert!(n <= bound, "endless file-order walk");
        match r {
            Ok(r) => {
                assert_eq!(errors, 0, "a record after the error");
                ok.push(r);
            }
            Err(e) => {
                errors += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    assert!(errors <= 1);
    for options in [
        ReadOptions::default(),
        ReadOptions {
            raw_timestamps: true,
            header_records: true,
        },
    ] {
        let f = LogFile::from_bytes("mutant.etl", bytes.to_vec()).unwrap();
        let Ok(reader) = Reader::new(vec![f], options) else {
            continue;
        };
        let mut merged = 0;
        for (n, r) in reader.enumerate() {
            assert!(n <= bound + 8, "endless merge");
            merged += usize::from(r.is_ok());
        }
        let extra = if options.header_records { 8 } else { 0 };
        assert!(merged <= ok.len() + extra, "{merged} vs {}", ok.len());
    }
    (ok, errors > 0)
}

fn mutate(base: &[u8], rng: &mut Rng, buffer_size: usize) -> Vec<u8> {
    let mut b = base.to_vec();
    let buffers = (b.len() / buffer_size).max(1);
    // Positions near buffer and record headers find the interesting paths faster.
    let near_header = |rng: &mut Rng| {
        let at = rng.below(buffers) * buffer_size + rng.below(0x400.min(buffer_size));
        at.min(b.len().saturating_sub(1))
    };
    match rng.below(7) {
        0 => b.truncate(rng.below(b.len())),
        1 => {
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len());
                b[at] ^= 1 << rng.below(8);
            }
        }
        2 => {
            let at = near_header(rng);
            b[at] = rng.next() as u8;
        }
        3 => {
            const WORDS: [u16; 10] = [0, 1, 7, 8, 0x48, 0x50, 0x8000, 0x87FF, 0xC013, 0xFFFF];
            let at = near_header(rng) & !1;
            let v = WORDS[rng.below(WORDS.len())].to_le_bytes();
            let end = (at + 2).min(b.len());
            b[at..end].copy_from_slice(&v[..end - at]);
        }
        4 => {
            const DWORDS: [u32; 8] = [
                0,
                0x48,
                0x47,
                0x400,
                0x401,
                0xFFFF_FFFF,
                0x1000_0000,
                0x2_0000,
            ];
            let field = [0x00, 0x04, 0x30, 0x34][rng.below(4)];
            let at = rng.below(buffers) * buffer_size + field;
            if at + 4 <= b.len() {
                b[at..at + 4].copy_from_slice(&DWORDS[rng.below(DWORDS.len())].to_le_bytes());
            }
        }
        5 => {
            let at = near_header(rng);
            let len = (1 + rng.below(256)).min(b.len() - at);
            let fill = if rng.below(2) == 0 { 0x00 } else { 0xFF };
            b[at..at + len].fill(fill);
        }
        _ => {
            let from = rng.below(b.len());
            let to = near_header(rng);
            let len = (8 + rng.below(120)).min(b.len() - from).min(b.len() - to);
            let chunk = b[from..from + len].to_vec();
            b[to..to + len].copy_from_slice(&chunk);
        }
    }
    b
}

fn run(name: &str, base: &[u8], mutations: usize, seed: u64) {
    let (original, damaged) = exercise(base);
    assert!(
        !original.is_empty() && !damaged,
        "{name}: the base file reads"
    );
    let buffer_size = u32::from_le_bytes(base[..4].try_into().unwrap()) as usize;
    let mut rng = Rng(seed);
    let mut reported = 0;
    for _ in 0..mutations {
        let m = mutate(base, &mut rng, buffer_size);
        let (got, damaged) = exercise(&m);
        reported += usize::from(damaged);
        if m.len() < base.len() && base.starts_with(&m) {
            // A pure truncation: what is read is a prefix of what the whole file holds.
            assert!(got.len() <= original.len());
            assert_eq!(
                got[..],
                original[..got.len()],
                "{name}: truncated to {}",
                m.len()
            );
        }
    }
    // The mutations do reach the damage paths (a test that cannot fail is no test).
    assert!(
        reported > mutations / 10,
        "{name}: only {reported} mutants were reported"
    );
    // Every cut at a buffer boundary and just after it.
    for cut in (0..base.len())
        .step_by(buffer_size)
        .flat_map(|c| [c, c + 8, c + 0x48])
    {
        let (got, damaged) = exercise(&base[..cut.min(base.len())]);
        assert_eq!(got[..], original[..got.len()]);
        assert!(
            damaged || cut >= base.len(),
            "{name}: cut at {cut} not reported"
        );
    }
    eprintln!(
        "{name}: {mutations} mutations ({reported} reported as damaged), {} records in the base",
        original.len()
    );
}

#[test]
fn mutations_of_a_generated_file_never_panic_or_loop() {
    let base = generated(false);
    run("generated", &base, 4000, 0x9E37_79B9_7F4A_7C15);
}

/// The compressed seed of the `read_etl` corpus: the same file with its data buffers
/// compressed — mutations reach the LZXpress streams, the per-buffer strides and the
/// trimmed buffer 0.
#[test]
fn mutations_of_a_compressed_file_never_panic_or_loop() {
    // rule: SES-52
    let base = generated(true);
    let compressed = LogFile::from_bytes("c.etl", base.clone())
        .unwrap()
        .compressed_buffer_count();
    assert!(compressed > 10, "{compressed} compressed buffers");
    run("generated-compressed", &base, 4000, 0xC2B2_AE3D_27D4_EB4F);
}

#[test]
fn mutations_of_every_fixture_never_panic_or_loop() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/etl");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "note: {} is absent; fixture mutations skipped",
            dir.display()
        );
        return;
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "etl"))
        .collect();
    paths.sort();
    for (i, p) in paths.iter().enumerate() {
        let base = std::fs::read(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        run(&name, &base, 1500, 0xD1B5_4A32_D192_ED03 ^ i as u64);
    }
}
