//! P11: the `.etl` reader's throughput, in records per second, over the shared fixtures
//! (real Windows files plus a simulator sample; skipped when `../shared` is absent) and a
//! large file a deterministic session writes once per run (200,000 events, two CPUs, 64 KB
//! buffers, some with extended items).
//!
//! Three ways of reading each file:
//!
//! * `read_etl_view` — `LogFile::open` and `for_each_record` to the end: every record of the
//!   data buffers framed and its header decoded, borrowed from the reader's buffer (extended
//!   items and payload as slices, nothing copied or allocated), in file order; each view's
//!   kind, timestamp, ids, payload length and extended-item count are read so that nothing
//!   is optimised away.
//! * `read_etl_file_order` — `LogFile::open` and `records()` to the end: the same records
//!   decoded into owned `Record`s (header, extended items, payload copied), in file order.
//! * `read_etl_merged` — `Reader::open`: the same records, owned, merged oldest first
//!   across the CPUs' buffers with FILETIME conversion, as ProcessTrace delivers them.
//!
//! `scripts/bench_dissect.py` times dissect.etl walking the same files right after, and
//! prints the P11 ratio (target ≥ 100×) of each of the three against it.
//!
//! The large file is written to `<target>/bench-data/large-200k.etl` (the same bytes every
//! run), where `scripts/bench_dissect.py` finds it. Commands: docs/PERFORMANCE.md.

use criterion::{BenchmarkId, Criterion, Throughput};
use etwsim::etl::{LogFile, Reader};
use etwsim::{
    Disk, EnableParams, EnableProperty, EventDescriptor, Guid, Kernel, Keyword, Level, Token,
};
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// Events in the generated file.
const LARGE_EVENTS: u32 = 200_000;

/// `<target>/bench-data`: `CARGO_TARGET_DIR`, or `target/` of the repository.
fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("bench-data")
}

/// The shared fixtures, if `../shared` is there.
fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/etl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "etl"))
                .collect()
        })
        .unwrap_or_default();
    if files.is_empty() {
        eprintln!(
            "read_etl: no fixtures in {} (../shared absent): only the generated file",
            dir.display()
        );
    }
    files.sort();
    files
}

/// Writes the large file with a deterministic session (virtual clock, logger stepped every
/// 256 events so nothing is lost) on the real disk.
fn write_large(path: &Path) -> PathBuf {
    let kernel = Kernel::builder()
        .cpus(2)
        .deterministic(11)
        .disk(Disk::Real)
        .build()
        .expect("a kernel");
    let app = kernel
        .spawn("bench.exe", Token::user("bench"))
        .expect("a process");
    let session = kernel
        .session("BenchLargeFile")
        .log_file(path.to_str().expect("a UTF-8 path"))
        .buffer_size_kb(64)
        .start()
        .expect("the session starts");
    let guids =
        [1u128, 2, 3].map(|n| Guid::from_u128(0xbe0c_0000_0000_4000_8000_0000_0000_0000 + n));
    let providers: Vec<_> = guids
        .iter()
        .map(|g| app.register_provider(*g).expect("a provider"))
        .collect();
    session
        .enable(guids[0], &EnableParams::new())
        .expect("enable");
    session
        .enable(guids[1], &EnableParams::new())
        .expect("enable");
    session
        .enable(
            guids[2],
            &EnableParams::new()
                .property(EnableProperty::EVENT_KEY | EnableProperty::PROCESS_START_KEY),
        )
        .expect("enable");
    let threads = [0u16, 1].map(|cpu| app.spawn_thread(cpu).expect("a thread"));
    let payload: Vec<u8> = (0..256u32).map(|i| (i * 7 + 1) as u8).collect();
    for i in 0..LARGE_EVENTS {
        let _on = threads[(i % 2) as usize].enter();
        let p = &providers[(i % 3) as usize];
        let len = 16 + (i as usize * 13) % 112;
        let desc = EventDescriptor::new((i % 500) as u16, Level::INFORMATION, Keyword(1));
        p.write(&desc, &[&payload[..len]]).expect("a write");
        if i % 256 == 255 {
            kernel.run_pending();
        }
    }
    let stats = session.stop().expect("stop");
    assert_eq!(stats.events_lost, 0, "the generated file is complete");
    path.to_path_buf()
}

/// Records in file order, borrowed; the count.
fn read_view(path: &Path) -> usize {
    let mut file = LogFile::open(path).expect("the file opens");
    let mut n = 0;
    file.for_each_record(|view| {
        let items = view.as_event().map_or(0, |e| e.extended_data_count());
        black_box((
            view.kind(),
            view.timestamp(),
            view.thread_id(),
            view.payload_len(),
            items,
        ));
        n += 1;
    })
    .expect("an undamaged file");
    n
}

/// Records in file order, all decoded; the count.
fn read_file_order(path: &Path) -> usize {
    let mut file = LogFile::open(path).expect("the file opens");
    let mut n = 0;
    for record in file.records() {
        black_box(record.expect("an undamaged file"));
        n += 1;
    }
    n
}

/// Records merged oldest first with FILETIME conversion; the count.
fn read_merged(path: &Path) -> usize {
    let reader = Reader::open([path]).expect("the file opens");
    let mut n = 0;
    for record in reader {
        black_box(record.expect("an undamaged file"));
        n += 1;
    }
    n
}

fn bench(c: &mut Criterion) {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).expect("the bench-data folder");
    let mut files = fixtures();
    files.push(write_large(&dir.join("large-200k.etl")));
    // Every way of reading sees the same records.
    let counts: Vec<usize> = files.iter().map(|p| read_file_order(p)).collect();
    for (group, read) in [
        ("read_etl_view", read_view as fn(&Path) -> usize),
        ("read_etl_file_order", read_file_order),
        ("read_etl_merged", read_merged),
    ] {
        let mut g = c.benchmark_group(group);
        for (path, &expected) in files.iter().zip(&counts) {
            let records = read(path);
            assert_eq!(
                records,
                expected,
                "{group}: {} records as records() reads",
                path.display()
            );
            let name = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            g.throughput(Throughput::Elements(records as u64));
            g.bench_with_input(BenchmarkId::from_parameter(&name), path, |b, path| {
                b.iter(|| read(path));
            });
        }
        g.finish();
    }
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
