//! "Fixing empty paths in FileIO events (ETW)", replayed on a simulated machine.
//!
//! The seed article (lowleveldesign, 2020) found that a real-time kernel trace shows FileIo
//! events with empty file names, and fixed it two ways. This example runs the same story:
//!
//! 1. A process opens `before.log`, then a **real-time** kernel session starts (a
//!    system-logger-mode session with FILE_IO_INIT | FILE_IO) and the process reads and
//!    writes `before.log`, creates `report.txt`, writes it, closes its handle (Cleanup), and
//!    the lazy writer flushes it afterwards (a paging Write on the same FileObject) before
//!    the object is freed (Close). Resolved as TraceEvent does in real time — FileKey first,
//!    then FileObject, the FileObject's name forgotten at **Cleanup** (KRN-38, KRN-39) —
//!    `before.log` is empty everywhere (its name was never logged: it was opened before the
//!    session, KRN-40) and so are the events after Cleanup.
//! 2. Fix 1: keep your own map and forget a FileObject's name at **Close**, not Cleanup: the
//!    lazy writer's Write and the Close get their name back.
//! 3. Fix 2: run a short second kernel session (DISK_FILE_IO | DISK_IO), stopped at once, and
//!    harvest its FileRundown (36) events — one per file open at that moment, FileKey → name
//!    (KRN-32, KRN-37): `before.log` gets its name too.
//! 4. The same workload into a **file** session (the NT Kernel Logger, with DISK_FILE_IO and
//!    the process, thread and image groups): read after the session stopped, with TraceEvent's
//!    file policy, every event has its name — the FileRundown written at stop names
//!    `before.log` retroactively (KRN-38).
//!
//! Each line is the article's: time (ms since the session started), pid, event, 'path',
//! FileObject, offset, size. The example checks its own results (which names are empty), so
//! CI notices if the story changes.
//!
//! `cargo run --example fileio_names -- --out DIR` also writes the kernel sessions' `.etl`
//! files into DIR (`rundown.etl`: the short harvest session; `kernel.etl`: part 4) and, beside
//! `kernel.etl`, `kernel.decoded.jsonl`: every kernel event as etwsim's own decoder
//! (`etwsim_decode::mof`) reads it back, for `scripts/interop_kernel.py` to compare with
//! etl-parser's and dissect.etl's decoding.
//!
//! Everything runs on a deterministic kernel: the output is the same every run.

use etwsim::etl::{LogFile, ReadOptions, Reader, Record};
use etwsim::system::event_trace_flag as flag;
use etwsim::{
    ConsumerOptions, CreateFile, Disposition, FileHandle, KERNEL_LOGGER_NAME, Kernel, LogFileMode,
    Process, ProcessSpec, Token,
};
use etwsim_decode::fields::Value;
use etwsim_decode::fileio::{NameResolver, Policy};
use etwsim_decode::mof::{self, MofEvent};
use std::path::{Path, PathBuf};
use std::time::Duration;

type Failure = Box<dyn std::error::Error>;

/// One kernel event as the example keeps it: time (100-ns units), pid, decoded payload.
struct Kev {
    time: i64,
    pid: u32,
    event: MofEvent,
}

fn main() -> Result<(), Failure> {
    let out = out_dir()?;
    let k = Kernel::builder().deterministic(11).cpus(2).build()?;
    let controller = k.spawn("wtrace.exe", Token::administrator("admin"))?;
    let app = k.spawn_process(
        ProcessSpec::new(r"C:\apps\app.exe", Token::user("alice"))
            .command_line(r"C:\apps\app.exe --work"),
    )?;
    let worker = app.spawn_thread(1)?;
    let _on_worker = worker.enter();
    let before = app.open_file(r"C:\logs\before.log")?;
    before.write(0, 2048);
    k.advance(Duration::from_millis(10));

    // --- 1. The real-time session. ------------------------------------------------------
    let rt = k
        .session("FileIo RT")
        .mode(LogFileMode::SYSTEM_LOGGER | LogFileMode::REAL_TIME)
        .enable_flags(flag::FILE_IO_INIT | flag::FILE_IO)
        .caller(&controller)
        .start()?;
    let mut consumer = k.open_realtime(&controller, "FileIo RT", ConsumerOptions::default())?;

    // Fix 2's harvest: a short second kernel session, stopped at once.
    let harvest = k
        .session(KERNEL_LOGGER_NAME)
        .enable_flags(flag::DISK_FILE_IO | flag::DISK_IO)
        .log_file("rundown.etl")
        .caller(&controller)
        .start()?;
    harvest.stop()?;
    let harvested = read_file(&k, "rundown.etl")?;

    workload(&k, &app, &before)?;
    k.advance(Duration::from_secs(2)); // the FlushTimer delivers
    rt.stop()?;
    let live: Vec<Kev> = consumer
        .drain()
        .into_iter()
        .filter_map(|r| {
            Some(Kev {
                time: r.header.timestamp,
                pid: r.header.process_id,
                event: mof::decode_event_record(&r).ok()?,
            })
        })
        .collect();
    let rt_origin = first_time(&live);

    println!("== 1. real time, names forgotten at Cleanup (TraceEvent's real-time policy)");
    let cleanup_policy =
        print_real_time(&live, NameResolver::new(Policy::EvictAtCleanup), rt_origin);
    println!("\n== 2. fix 1: your own map, names forgotten at Close");
    let close_policy = print_real_time(&live, NameResolver::new(Policy::EvictAtClose), rt_origin);
    println!("\n== 3. fix 1 + fix 2: names harvested from a second session's FileRundown events");
    let mut seeded = NameResolver::new(Policy::EvictAtClose);
    let rundown_events: Vec<MofEvent> = harvested.iter().map(|e| e.event.clone()).collect();
    println!(
        "   (the harvest session wrote {} FileRundown events)",
        rundown_events.len()
    );
    seeded.harvest(&rundown_events);
    let both = print_real_time(&live, seeded, rt_origin);

    // --- 4. The same workload into a file session. ---------------------------------------
    k.advance(Duration::from_millis(10));
    let file = k
        .session(KERNEL_LOGGER_NAME)
        .enable_flags(
            flag::PROCESS
                | flag::THREAD
                | flag::IMAGE_LOAD
                | flag::DISK_FILE_IO
                | flag::FILE_IO
                | flag::FILE_IO_INIT,
        )
        .log_file("kernel.etl")
        .caller(&controller)
        .start()?;
    // Process, thread and image events too (for the interop check).
    let child = k.spawn_process(
        ProcessSpec::new(r"C:\apps\helper.exe", Token::user("alice"))
            .command_line(r#""C:\apps\helper.exe" /quiet"#)
            .parent(&app),
    )?;
    let child_thread = child.spawn_thread(0)?;
    let dll = child.load_image(r"C:\Windows\System32\version.dll", 0x1_2000)?;
    workload(&k, &app, &before)?;
    dll.unload();
    child_thread.exit();
    child.exit_with(0);
    k.advance(Duration::from_millis(3));
    file.stop()?;
    let recorded = read_file(&k, "kernel.etl")?;
    println!("\n== 4. the same workload into a file session, read after it stopped");
    let mut file_names = NameResolver::new(Policy::File);
    for e in &recorded {
        file_names.observe(&e.event, e.time);
    }
    let origin = first_time(&recorded);
    let mut file_empty = 0;
    for e in recorded.iter().filter(|e| is_file_op(&e.event)) {
        let name = file_names.name_of(&e.event, e.time);
        file_empty += usize::from(name.is_empty());
        print_line(e, &name, origin);
    }

    // The story, checked.
    let before_nt = r"\Device\HarddiskVolume3\logs\before.log";
    assert!(
        cleanup_policy.empty >= 4,
        "real time loses before.log and the events after Cleanup"
    );
    assert!(
        cleanup_policy.empty_paths.contains(&"report"),
        "the lazy writer's Write and the Close lose report.txt at Cleanup"
    );
    assert!(close_policy.empty < cleanup_policy.empty, "fix 1 recovers");
    assert!(
        close_policy.empty_paths.iter().all(|p| *p == "before"),
        "what fix 1 leaves empty is before.log's events"
    );
    assert_eq!(both.empty, 0, "fix 1 + fix 2: every name");
    assert_eq!(file_empty, 0, "the file session names everything");
    assert!(
        rundown_events
            .iter()
            .any(|e| e.get("FileName") == Some(&Value::String(before_nt.into())))
    );
    println!(
        "\nempty names: real time {} → fix 1 {} → fix 1 + 2 {}; file session {}",
        cleanup_policy.empty, close_policy.empty, both.empty, file_empty
    );

    if let Some(dir) = out {
        export(&k, &dir)?;
        println!(
            "wrote rundown.etl, kernel.etl and kernel.decoded.jsonl to {}",
            dir.display()
        );
    }
    Ok(())
}

/// The article's workload: I/O on a file opened before tracing, a new file written and
/// closed, the lazy writer flushing it after Cleanup.
fn workload(k: &Kernel, app: &Process, before: &FileHandle) -> Result<(), Failure> {
    before.read(0, 512);
    k.advance(Duration::from_millis(1));
    before.write(2048, 128);
    let report = app.create_file(
        r"C:\data\report.txt",
        CreateFile::new(Disposition::OverwriteIf),
    )?;
    k.advance(Duration::from_millis(1));
    report.write(0, 4096);
    report.read(0, 4096);
    let closing = report.cleanup();
    k.advance(Duration::from_millis(5));
    closing.paging_write(0, 4096); // the lazy writer
    closing.close();
    before.read(512, 256);
    Ok(())
}

/// What one real-time policy left empty.
struct Outcome {
    empty: usize,
    /// "before" / "report" for each empty one.
    empty_paths: Vec<&'static str>,
}

fn print_real_time(events: &[Kev], mut names: NameResolver, origin: i64) -> Outcome {
    let mut out = Outcome {
        empty: 0,
        empty_paths: Vec::new(),
    };
    for e in events {
        let name = names.resolve(&e.event, e.time);
        if !is_file_op(&e.event) {
            continue;
        }
        if name.is_empty() {
            out.empty += 1;
            out.empty_paths.push(which_file(&e.event));
        }
        print_line(e, &name, origin);
    }
    out
}

/// FileIo request events (not OperationEnd, not the name events).
fn is_file_op(e: &MofEvent) -> bool {
    e.schema.class == &mof::FILE_IO
        && (64..=77).contains(&e.schema.event.opcode)
        && e.schema.event.opcode != 76
}

/// Which of the workload's files an event is about (by FileObject's open order: the
/// example knows before.log's object is the lowest).
fn which_file(e: &MofEvent) -> &'static str {
    match e.get("FileObject") {
        Some(Value::Pointer(p)) if *p == FIRST_OBJECT => "before",
        _ => "report",
    }
}

/// The FileObject of the first open of the machine (before.log): the OS layer's first address.
const FIRST_OBJECT: u64 = 0xFFFF_A00C_0000_0150;

fn print_line(e: &Kev, name: &str, origin: i64) {
    let pointer = |f: &str| match e.event.get(f) {
        Some(Value::Pointer(p)) => *p,
        _ => 0,
    };
    let (offset, size) = match (e.event.get("Offset"), e.event.get("IoSize")) {
        (Some(Value::U64(o)), Some(Value::U32(s))) => (o.to_string(), s.to_string()),
        _ => ("-".into(), "-".into()),
    };
    println!(
        "{:9.3} {:>5} {:<16} '{}' {:#018x} {} {}",
        (e.time - origin) as f64 / 10_000.0,
        e.pid,
        format!("FileIo/{}", e.event.schema.event.name),
        name,
        pointer("FileObject"),
        offset,
        size
    );
}

fn first_time(events: &[Kev]) -> i64 {
    events.first().map_or(0, |e| e.time)
}

/// Every kernel record of a session's file, decoded, oldest first (FILETIME timestamps).
fn read_file(k: &Kernel, path: &str) -> Result<Vec<Kev>, Failure> {
    let file: LogFile = k.disk().open_log_file(path)?;
    let reader = Reader::new(vec![file], ReadOptions::default())?;
    let mut out = Vec::new();
    for r in reader {
        if let Record::Trace(t) = r? {
            let event = mof::decode_system(t.hook_id, t.version, 8, &t.payload)?;
            out.push(Kev {
                time: t.timestamp.unwrap_or(0),
                pid: t.process_id.unwrap_or(0),
                event,
            });
        }
    }
    Ok(out)
}

/// `--out DIR`, if given.
fn out_dir() -> Result<Option<PathBuf>, Failure> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => Ok(None),
        [flag, dir] if flag == "--out" => Ok(Some(PathBuf::from(dir))),
        _ => Err("usage: fileio_names [--out DIR]".into()),
    }
}

/// Copies the session files out of the virtual disk and writes what etwsim's decoder reads
/// from kernel.etl, one JSON object per kernel event in file order.
fn export(k: &Kernel, dir: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)?;
    let disk = k
        .virtual_disk()
        .ok_or("a deterministic kernel writes to its virtual disk")?;
    for name in ["rundown.etl", "kernel.etl"] {
        disk.export(Path::new(name), &dir.join(name))?;
    }
    // File order (what the parsers list), not time order: read kernel.etl record by record.
    let mut lines = String::new();
    let mut file = k.disk().open_log_file("kernel.etl")?;
    for r in file.records() {
        let Record::Trace(t) = r? else { continue };
        let e = mof::decode_system(t.hook_id, t.version, 8, &t.payload)?;
        lines.push_str(&format!(
            "{{\"hook\": {}, \"version\": {}, \"pid\": {}, \"tid\": {}, \"event\": \"{}/{}\", \"fields\": {{",
            t.hook_id,
            t.version,
            t.process_id.unwrap_or(0),
            t.thread_id.unwrap_or(0),
            e.schema.class.name,
            e.schema.event.name
        ));
        for (i, f) in e.fields.iter().enumerate() {
            if i > 0 {
                lines.push_str(", ");
            }
            lines.push_str(&format!("\"{}\": {}", f.name, json(&f.value)));
        }
        lines.push_str("}}\n");
    }
    std::fs::write(dir.join("kernel.decoded.jsonl"), lines)?;
    Ok(())
}

/// A decoded value as JSON: numbers as numbers, text as strings, a SID as its S-1-… form.
fn json(v: &Value) -> String {
    let s = |t: &str| format!("\"{}\"", t.replace('\\', "\\\\").replace('"', "\\\""));
    match v {
        Value::U8(x) => x.to_string(),
        Value::U16(x) => x.to_string(),
        Value::U32(x) => x.to_string(),
        Value::U64(x) | Value::Pointer(x) => x.to_string(),
        Value::I32(x) => x.to_string(),
        Value::I64(x) => x.to_string(),
        Value::String(t) => s(t),
        Value::Ansi(b) => s(&String::from_utf8_lossy(b)),
        Value::TokenUser(_) | Value::Sid(_) => s(&v.to_string()),
        Value::Null => "null".into(),
        other => s(&other.to_string()),
    }
}
