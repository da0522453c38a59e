//! P14: etwsim's decoders, in decoded events per second, over three files a deterministic
//! session writes once per run:
//!
//! * `decode/tracelogging` — TraceLogging events (`Provider::write_tracelogging`: a
//!   NUL-terminated UTF-16 string, a u64, a u32 and a NUL-terminated 8-bit string per event,
//!   types etl-parser decodes too), decoded from their `EVENT_SCHEMA_TL` item by
//!   `tracelogging::decode_event_view`.
//! * `decode/manifest` — manifest events of Application-Addon-Event-Provider
//!   (EnableAdd_onStart version 1: four UTF-16 strings), decoded by the manifest `MANIFEST`
//!   (`Manifest::decode_event`, as `etwsim dump --manifest` does). The provider is one both
//!   parsers bundle a description of, so they decode the same events.
//! * `decode/mof` — kernel system-provider events of a kernel file session (Thread
//!   Start/End, Image Load/Unload, FileIo Read/Write and their OperationEnd), decoded by
//!   their HookId (`mof::decode_system`, as `dump` does for system records).
//!
//! Each iteration opens the file and walks every record (`LogFile::for_each_record`, borrowed
//! views) decoding each event of the class into its fields; the throughput is the number of
//! events decoded. The files are written to `<target>/bench-data/decode_{tracelogging,
//! manifest,mof}.etl` (and the manifest beside them as `decode_manifest.man`), where
//! `scripts/bench_decode_parsers.py` times dissect.etl and etl-parser decoding the same files
//! and prints P14's ratios (target ≥ 100×).
//!
//! In criterion's `--test` mode (CI) the files hold 1,000 events of each class instead of
//! 50,000. Commands: docs/PERFORMANCE.md.

use criterion::{BenchmarkId, Criterion, Throughput};
use etwsim::decode::manifest::{self, Manifest};
use etwsim::decode::{mof, tracelogging};
use etwsim::etl::{LogFile, RecordKind, RecordView};
use etwsim::system::event_trace_flag as flag;
use etwsim::{
    Disk, EnableParams, EventDescriptor, Guid, KERNEL_LOGGER_NAME, Kernel, Keyword, Level, Opcode,
    Task, Token,
};
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// Application-Addon-Event-Provider.
const ADDON: Guid = Guid::from_u128(0xa83fa99f_c356_4ded_9fd6_5a5eb8546d68);

/// The part of Application-Addon-Event-Provider's manifest the manifest file uses: event 1
/// version 1 (EnableAdd_onStart_V1, opcode win:Start) and its template, as Windows declares
/// them. (A provider both parsers bundle whose event both decode: dissect.etl 3.14 compiles
/// no manifest with a FILETIME field and finds an event by (opcode, version), so only events
/// whose opcode equals their id; etl-parser reads a `length` attribute as bytes.)
const MANIFEST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
 <instrumentation>
  <events>
   <provider name="Application-Addon-Event-Provider" guid="{a83fa99f-c356-4ded-9fd6-5a5eb8546d68}" symbol="ApplicationAddonEventProvider">
    <tasks>
     <task name="EnableAdd_on" value="1"/>
    </tasks>
    <templates>
     <template tid="EnableAdd_onStartArgs_V1">
      <data name="Application" inType="win:UnicodeString"/>
      <data name="AddonName" inType="win:UnicodeString"/>
      <data name="Publisher" inType="win:UnicodeString"/>
      <data name="Version" inType="win:UnicodeString"/>
     </template>
    </templates>
    <events>
     <event value="1" symbol="EnableAdd_onStart_V1" version="1" task="EnableAdd_on" opcode="win:Start" level="win:Informational" template="EnableAdd_onStartArgs_V1"/>
    </events>
   </provider>
  </events>
 </instrumentation>
</instrumentationManifest>
"#;

/// `true` in criterion's `--test` mode (CI's smoke run): small files.
fn test_mode() -> bool {
    std::env::args().any(|a| a == "--test")
}

/// `<target>/bench-data`: `CARGO_TARGET_DIR`, or `target/` of the repository.
fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("bench-data")
}

fn kernel() -> Kernel {
    Kernel::builder()
        .cpus(1)
        .deterministic(14)
        .disk(Disk::Real)
        .build()
        .expect("a kernel")
}

/// `events` TraceLogging events of one provider.
fn write_tracelogging(path: &Path, events: u32) {
    let k = kernel();
    let app = k
        .spawn("bench.exe", Token::user("bench"))
        .expect("a process");
    let guid = Guid::from_u128(0xbe0c_0000_0000_4000_8000_0000_0000_0141);
    let p = app
        .register_tracelogging(guid, &tracelogging::ProviderTraits::new("Bench-Decode"))
        .expect("a provider");
    let s = k
        .session("DecodeTraceLogging")
        .log_file(path.to_str().expect("a UTF-8 path"))
        .buffer_size_kb(64)
        .start()
        .expect("the session starts");
    s.enable(guid, &EnableParams::new()).expect("enable");
    let desc = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    for i in 0..events {
        p.write_tracelogging("FileRead", &desc, |e| {
            e.cstr16("Path", r"C:\data\report.txt")
                .value("Bytes", 4096u64 + u64::from(i))
                .value("Count", i)
                .cstr8("Who", b"bench");
        })
        .expect("a write");
        if i % 256 == 255 {
            k.run_pending();
        }
    }
    assert_eq!(s.stop().expect("stop").events_lost, 0);
}

/// `text` as a NUL-terminated UTF-16 string.
fn utf16z(out: &mut Vec<u8>, text: &str) {
    for u in text.encode_utf16().chain([0]) {
        out.extend_from_slice(&u.to_le_bytes());
    }
}

/// The payload of EnableAdd_onStart_V1.
fn addon_start(i: u32) -> Vec<u8> {
    let mut p = Vec::new();
    utf16z(&mut p, r"C:\Program Files\Contoso\viewer.exe");
    utf16z(&mut p, &format!("Contoso Preview Handler {}", i % 100));
    utf16z(&mut p, "Contoso Ltd.");
    utf16z(&mut p, "1.4.2");
    p
}

/// `events` EnableAdd_onStart_V1 events of Application-Addon-Event-Provider.
fn write_manifest(path: &Path, events: u32) {
    let k = kernel();
    let app = k
        .spawn("bench.exe", Token::user("bench"))
        .expect("a process");
    let p = app.register_provider(ADDON).expect("a provider");
    let s = k
        .session("DecodeManifest")
        .log_file(path.to_str().expect("a UTF-8 path"))
        .buffer_size_kb(64)
        .start()
        .expect("the session starts");
    s.enable(ADDON, &EnableParams::new()).expect("enable");
    let desc = EventDescriptor::new(1, Level::INFORMATION, Keyword(0))
        .with_version(1)
        .with_task(Task(1))
        .with_opcode(Opcode::START);
    for i in 0..events {
        p.write(&desc, &[&addon_start(i)]).expect("a write");
        if i % 256 == 255 {
            k.run_pending();
        }
    }
    assert_eq!(s.stop().expect("stop").events_lost, 0);
}

/// About `events` kernel events: rounds of a thread started and ended, an image loaded and
/// unloaded, a file read and written (each with its OperationEnd).
fn write_mof(path: &Path, events: u32) {
    let k = kernel();
    let admin = k
        .spawn("xperf.exe", Token::administrator("admin"))
        .expect("a process");
    let app = k
        .spawn("bench.exe", Token::user("bench"))
        .expect("a process");
    let worker = app.spawn_thread(0).expect("a thread");
    let _on = worker.enter();
    let file = app.open_file(r"C:\data\report.txt").expect("a file");
    file.write(0, 8192);
    let s = k
        .session(KERNEL_LOGGER_NAME)
        .enable_flags(flag::THREAD | flag::IMAGE_LOAD | flag::FILE_IO | flag::FILE_IO_INIT)
        .log_file(path.to_str().expect("a UTF-8 path"))
        .buffer_size_kb(64)
        .caller(&admin)
        .start()
        .expect("the kernel session starts");
    for i in 0..events / 8 {
        let t = app.spawn_thread(0).expect("a thread");
        t.exit();
        let image = app
            .load_image(r"C:\Windows\System32\version.dll", 0x1_2000)
            .expect("an image");
        image.unload();
        file.read(u64::from(i % 16) * 512, 512);
        file.write(u64::from(i % 16) * 512, 512);
        if i % 32 == 31 {
            k.run_pending();
        }
    }
    assert_eq!(s.stop().expect("stop").events_lost, 0);
}

/// TraceLogging events decoded; the count.
fn decode_tracelogging(path: &Path, _: &Manifest) -> usize {
    let mut file = LogFile::open(path).expect("the file opens");
    let mut n = 0;
    file.for_each_record(|view| {
        if let RecordView::Event(e) = view {
            if let Some(Ok(decoded)) = tracelogging::decode_event_view(&e) {
                black_box(decoded);
                n += 1;
            }
        }
    })
    .expect("an undamaged file");
    n
}

/// Manifest events decoded; the count.
fn decode_manifest(path: &Path, m: &Manifest) -> usize {
    let mut file = LogFile::open(path).expect("the file opens");
    let mut n = 0;
    file.for_each_record(|view| {
        if let RecordView::Event(e) = view {
            let d = &e.header.descriptor;
            if let Ok(decoded) =
                m.decode_event(e.header.provider_id, d.id, d.version, e.user_data, 8)
            {
                black_box(decoded);
                n += 1;
            }
        }
    })
    .expect("an undamaged file");
    n
}

/// Kernel system records decoded (buffer 0's EventTrace header record included); the count.
fn decode_mof(path: &Path, _: &Manifest) -> usize {
    let mut file = LogFile::open(path).expect("the file opens");
    let mut n = 0;
    file.for_each_record(|view| {
        if let RecordView::Trace(t) = view {
            if let Some(RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo) =
                t.kind()
            {
                if let Ok(decoded) = mof::decode_system(t.hook_id, t.version, 8, t.payload) {
                    black_box(decoded);
                    n += 1;
                }
            }
        }
    })
    .expect("an undamaged file");
    n
}

type Decode = fn(&Path, &Manifest) -> usize;
/// Writes a class's file of about `events` events.
type Write = fn(&Path, u32);

fn bench(c: &mut Criterion) {
    let events = if test_mode() { 1_000 } else { 50_000 };
    let dir = data_dir();
    std::fs::create_dir_all(&dir).expect("the bench-data folder");
    std::fs::write(dir.join("decode_manifest.man"), MANIFEST).expect("the manifest");
    let m = manifest::load_manifest(MANIFEST.as_bytes()).expect("the manifest loads");
    let classes: [(&str, Write, Decode); 3] = [
        ("tracelogging", write_tracelogging, decode_tracelogging),
        ("manifest", write_manifest, decode_manifest),
        ("mof", write_mof, decode_mof),
    ];
    let mut g = c.benchmark_group("decode");
    for (class, write, decode) in classes {
        let path = dir.join(format!("decode_{class}.etl"));
        write(&path, events);
        let decoded = decode(&path, &m);
        // Every event of the class decodes (the MOF file adds its header record and the
        // FileIo name events of the session's start).
        assert!(
            decoded >= events as usize * 9 / 10,
            "{class}: {decoded} of about {events} events decoded"
        );
        g.throughput(Throughput::Elements(decoded as u64));
        g.bench_with_input(BenchmarkId::from_parameter(class), &path, |b, path| {
            b.iter(|| decode(path, &m));
        });
    }
    g.finish();
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
