//! P17 (docs/PERF.md): reading a compressed `.etl` against dissect.etl on the same file, in
//! the same run. Not a criterion bench: one command that prints both figures and the ratio.
//!
//! ```sh
//! cargo run --release -p etwsim-etl --example p17_compressed            # generated file
//! cargo run --release -p etwsim-etl --example p17_compressed -- A.etl   # any files
//! ```
//!
//! Without arguments it writes `<target>/bench-data/compressed-200k.etl`: 200,000 events
//! shaped like the `read_etl` bench's large file (three providers, two CPUs, payloads of
//! 16–127 bytes, event ids 0–499, the third provider's events with EVENT_KEY and
//! PROCESS_START_KEY items), 64 KiB buffers, compressed (`WriterOptions::compressed`).
//!
//! etwsim: the best of 5 runs of each way of reading, timed from opening the file to its
//! last record — borrowed views (`LogFile::for_each_record`), owned records in file order
//! (`LogFile::records`), owned records merged oldest first with FILETIME conversion
//! (`Reader`). dissect.etl: the best of 3 runs of `for r in buffer` over `ETL(fh).buffers()`
//! (`scripts/bench_dissect.py`'s "dissect iterate": the least work dissect does to walk a
//! file, each record's header parsed), with the interop venv's python
//! (`target/etl-check-venv/bin/python`; skipped when it is absent). Records are counted
//! outside buffer 0 for both. P17's ratio is etwsim's records/s over dissect's; the target
//! is ≥ 50×.

use etwsim_etl::{BufferBuilder, CloseStats, LogFile, Reader, Record, Writer, WriterOptions};
use etwsim_types::record::ext_type;
use etwsim_types::{EventDescriptor, EventHeader, EventRecord, ExtendedItem, Guid, Keyword, Level};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

const EVENTS: u32 = 200_000;
const BUFFER: u32 = 64 * 1024;

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    )
}

/// Writes the generated file: 200,000 events on two CPUs, compressed.
fn write(path: &Path) -> Result<(), etwsim_etl::Error> {
    let mut w = Writer::create(
        WriterOptions::new(path)
            .buffer_size(BUFFER)
            .processors(2)
            .compressed(true),
    )?;
    let providers =
        [1u128, 2, 3].map(|n| Guid::from_u128(0xbe0c_0000_0000_4000_8000_0000_0000_0000 + n));
    let payload: Vec<u8> = (0..256u32).map(|i| (i * 7 + 1) as u8).collect();
    let mut cpus = [
        BufferBuilder::new(BUFFER, 0)?,
        BufferBuilder::new(BUFFER, 1)?,
    ];
    let mut sequence = 0;
    for i in 0..EVENTS {
        let cpu = (i % 2) as usize;
        let p = (i % 3) as usize;
        let len = 16 + (i as usize * 13) % 112;
        let ts = i64::from(i) * 25;
        let extended_data = if p == 2 {
            vec![
                ExtendedItem::u64_item(ext_type::EVENT_KEY, u64::from(i)),
                ExtendedItem::u64_item(ext_type::PROCESS_START_KEY, 77),
            ]
        } else {
            Vec::new()
        };
        let r = Record::Event(EventRecord {
            header: EventHeader {
                thread_id: 1000 + cpu as u32,
                process_id: 4,
                timestamp: ts,
                provider_id: providers[p],
                descriptor: EventDescriptor::new((i % 500) as u16, Level::INFORMATION, Keyword(1)),
                ..EventHeader::default()
            },
            extended_data,
            user_data: payload[..len].to_vec(),
            ..EventRecord::default()
        });
        if !cpus[cpu].push(&r)? {
            sequence += 1;
            w.write_buffer(&cpus[cpu].finish(sequence, ts, 0))?;
            cpus[cpu].push(&r)?;
        }
    }
    for b in &mut cpus {
        sequence += 1;
        w.write_buffer(&b.finish(sequence, i64::from(EVENTS) * 25, 0))?;
    }
    w.close(&CloseStats::default())?;
    Ok(())
}

/// The best of `runs` timings of `f`, and what it counted.
fn best(runs: usize, mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut out = (Duration::MAX, 0);
    for _ in 0..runs {
        let t = Instant::now();
        let n = f();
        out = (out.0.min(t.elapsed()), n);
    }
    out
}

const DISSECT: &str = r#"
import sys, time
from dissect.etl import ETL
best, n = None, 0
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    n = 0
    with open(sys.argv[1], "rb") as fh:
        for bi, buf in enumerate(ETL(fh).buffers()):
            for _ in buf:
                if bi:
                    n += 1
    d = time.perf_counter() - t
    best = d if best is None else min(best, d)
print(n, best)
"#;

fn dissect(path: &Path) -> Option<(f64, usize)> {
    let python =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/etl-check-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "note: {} is absent: no dissect.etl figure",
            python.display()
        );
        return None;
    }
    let out = Command::new(python)
        .args(["-c", DISSECT])
        .arg(path)
        .arg("3")
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "dissect.etl failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace();
    let n = it.next()?.parse().ok()?;
    let secs = it.next()?.parse().ok()?;
    Some((secs, n))
}

fn main() -> ExitCode {
    let mut files: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        let dir = target_dir().join("bench-data");
        let path = dir.join("compressed-200k.etl");
        if let Err(e) = std::fs::create_dir_all(&dir)
            .map_err(|e| e.to_string())
            .and_then(|()| write(&path).map_err(|e| e.to_string()))
        {
            eprintln!("writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        files.push(path);
    }
    for path in &files {
        let file = match LogFile::open(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        println!(
            "{}: {} bytes, {} buffers ({} compressed), BufferSize {}",
            path.display(),
            len,
            file.buffer_count(),
            file.compressed_buffer_count(),
            file.header().buffer_size
        );
        let view = best(5, || {
            let mut f = LogFile::open(path).expect("opens");
            let mut n = 0;
            f.for_each_record(|v| {
                black_box((v.kind(), v.timestamp(), v.thread_id(), v.payload_len()));
                n += 1;
            })
            .expect("reads");
            n
        });
        let owned = best(5, || {
            let mut f = LogFile::open(path).expect("opens");
            let mut n = 0;
            for r in f.records() {
                black_box(r.expect("a record"));
                n += 1;
            }
            n
        });
        let merged = best(5, || {
            let mut n = 0;
            for r in Reader::open([path]).expect("opens") {
                black_box(r.expect("a record"));
                n += 1;
            }
            n
        });
        let rate = |(d, n): (Duration, usize)| n as f64 / d.as_secs_f64();
        let peer = dissect(path);
        for (way, m) in [("views", view), ("file order", owned), ("merged", merged)] {
            let ratio = peer.map_or(String::new(), |(secs, n)| {
                format!("  = {:.0}× dissect.etl", rate(m) / (n as f64 / secs))
            });
            println!(
                "  etwsim {way:<10} {:>9} records in {:>8.2} ms: {:>12.0} records/s{ratio}",
                m.1,
                m.0.as_secs_f64() * 1e3,
                rate(m)
            );
        }
        if let Some((secs, n)) = peer {
            println!(
                "  dissect.etl iterate {n:>9} records in {:>8.2} ms: {:>12.0} records/s",
                secs * 1e3,
                n as f64 / secs
            );
            if n != owned.1 {
                println!("  note: dissect.etl counted {n}, etwsim {}", owned.1);
            }
        }
    }
    ExitCode::SUCCESS
}
