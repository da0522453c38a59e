//! `etwsim export --format chrome`: a session written through the library with start/stop
//! pairs (by thread and task, nested, and across threads by activity ID), exported and read
//! back as Chrome trace-event JSON: slices, instants, tracks and their names, times, loss
//! and damage.

use crate::common;

use common::*;
use etwsim::etl::{BufferBuilder, CloseStats, Record, Writer as EtlWriter, WriterOptions};
use etwsim::{
    Disk, EnableParams, EventDescriptor, EventHeader, EventRecord, Guid, Kernel, Keyword, Level,
    Opcode, ProcessSpec, ProviderTraits, Token, WriteOptions,
};
use etwsim_decode::tracelogging::EventBuilder;
use serde_json::Value as Json;
use std::path::Path;
use std::time::Duration;

/// The activity the request runs under.
const REQUEST: Guid = Guid::from_fields(0xac71_0001, 0x2026, 0x4e75, *b"\x80\x00req001");

/// Writes `tasks.etl`: Contoso.Tasks (TraceLogging) in app.exe (pid 4000), two threads.
///
/// | µs after the first event | thread | event |
/// |---|---|---|
/// | 0 | A | Download start (Url) |
/// | 1001 | A | Progress (Percent 50) |
/// | 2002 | A | Download stop (Bytes 4096) |
/// | 2003 | A | Request start, activity REQUEST |
/// | 5004 | B | Request stop, activity REQUEST |
/// | 5005 | B | Outer start |
/// | 5006 | B | Inner start |
/// | 6007 | B | Inner stop |
/// | 7008 | B | Outer stop |
/// | 7009 | B | Orphan stop |
/// | 7010 | A | Never start |
///
/// Each write moves the deterministic clock 1 µs; the gaps are `Kernel::advance`.
fn tasks_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("tasks.etl");
    let k = Kernel::builder()
        .cpus(2)
        .deterministic(7)
        .disk(Disk::Real)
        .build()
        .unwrap();
    let app = k
        .spawn_process(ProcessSpec::new("app.exe", Token::user("alice")).pid(4000))
        .unwrap();
    let a = app.spawn_thread(0).unwrap();
    let b = app.spawn_thread(1).unwrap();
    let guid = Guid::from_provider_name("Contoso.Tasks");
    let p = app
        .register_tracelogging(guid, &ProviderTraits::new("Contoso.Tasks"))
        .unwrap();
    let s = k
        .session("Tasks")
        .log_file(path.to_str().unwrap())
        .start()
        .unwrap();
    s.enable(guid, &EnableParams::new()).unwrap();

    let write = |on: &etwsim::Thread, ev: &mut EventBuilder, activity: Option<&Guid>| {
        let ev = ev.build().unwrap();
        let _on = on.enter();
        let name = etwsim_decode::tracelogging::EventSchema::parse(&ev.metadata)
            .unwrap()
            .name;
        let options = WriteOptions {
            activity_id: activity,
            event_name: Some(&name),
            tracelogging_metadata: Some(&ev.metadata),
            ..WriteOptions::default()
        };
        p.write_with_options(&ev.descriptor, &options, &[&ev.payload])
            .unwrap();
    };
    let ms = |n| k.advance(Duration::from_millis(n));
    write(
        &a,
        EventBuilder::new("Download")
            .opcode(Opcode::START)
            .str16("Url", "https://example.invalid/a.zip"),
        None,
    );
    ms(1);
    write(
        &a,
        EventBuilder::new("Progress").value("Percent", 50u32),
        None,
    );
    ms(1);
    write(
        &a,
        EventBuilder::new("Download")
            .opcode(Opcode::STOP)
            .value("Bytes", 4096u64),
        None,
    );
    write(
        &a,
        EventBuilder::new("Request").opcode(Opcode::START),
        Some(&REQUEST),
    );
    ms(3);
    write(
        &b,
        EventBuilder::new("Request").opcode(Opcode::STOP),
        Some(&REQUEST),
    );
    write(&b, EventBuilder::new("Outer").opcode(Opcode::START), None);
    write(&b, EventBuilder::new("Inner").opcode(Opcode::START), None);
    ms(1);
    write(&b, EventBuilder::new("Inner").opcode(Opcode::STOP), None);
    ms(1);
    write(&b, EventBuilder::new("Outer").opcode(Opcode::STOP), None);
    write(&b, EventBuilder::new("Orphan").opcode(Opcode::STOP), None);
    write(&a, EventBuilder::new("Never").opcode(Opcode::START), None);
    s.stop().unwrap();
    path
}

/// The trace's events with phase `ph`.
fn phase<'a>(events: &'a [Json], ph: &str) -> Vec<&'a Json> {
    events.iter().filter(|e| e["ph"] == ph).collect()
}

/// The one event named `name`.
fn named<'a>(events: &[&'a Json], name: &str) -> &'a Json {
    let found: Vec<&&Json> = events.iter().filter(|e| e["name"] == name).collect();
    assert_eq!(found.len(), 1, "{name}: {found:?}");
    found[0]
}

#[test]
fn start_stop_pairs_become_slices_on_one_track_per_thread() {
    let dir = scratch("export_tasks");
    tasks_file(&dir);
    let o = ok(
        &dir,
        &[
            "export",
            "--format",
            "chrome",
            "tasks.etl",
            "-o",
            "tasks.json",
        ],
    );
    assert_eq!(o, "", "written to the file, not standard output");
    let trace: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tasks.json")).unwrap()).unwrap();
    // The same document on standard output, and with --format left at its default.
    let stdout: Json = serde_json::from_str(&ok(&dir, &["export", "tasks.etl"])).unwrap();
    assert_eq!(stdout, trace);

    assert_eq!(trace["displayTimeUnit"], "ms");
    assert_eq!(trace["otherData"]["logger"], "Tasks");
    let events = trace["traceEvents"].as_array().unwrap();
    for e in events {
        for key in ["name", "ph", "pid", "tid"] {
            assert!(!e[key].is_null(), "{key} missing in {e}");
        }
        if e["ph"] != "M" {
            assert!(e["ts"].as_f64().unwrap() >= 0.0, "{e}");
        }
    }

    let slices = phase(events, "X");
    assert_eq!(slices.len(), 4, "{slices:?}");
    let (tid_a, tid_b) = {
        let download = named(&slices, "Download");
        let outer = named(&slices, "Outer");
        (download["tid"].clone(), outer["tid"].clone())
    };
    assert_ne!(tid_a, tid_b);
    let us = |e: &Json, key: &str| e[key].as_f64().unwrap();

    // By thread and task: Download, its start's fields and its stop's under "stop".
    let download = named(&slices, "Download");
    assert_eq!(download["cat"], "Contoso.Tasks");
    assert_eq!(download["pid"], 4000);
    assert_eq!(us(download, "ts"), 0.0, "times start at the first event");
    assert_eq!(us(download, "dur"), 2002.0);
    assert_eq!(download["args"]["Url"], "https://example.invalid/a.zip");
    assert_eq!(download["args"]["stop"]["Bytes"], 4096);

    // By activity ID, across threads: on the start's track.
    let request = named(&slices, "Request");
    assert_eq!(request["tid"], tid_a);
    assert_eq!((us(request, "ts"), us(request, "dur")), (2003.0, 3001.0));
    assert_eq!(request["args"]["activity_id"], REQUEST.to_string());

    // Nested pairs of one thread and task: the inner stop closes the inner start.
    let outer = named(&slices, "Outer");
    let inner = named(&slices, "Inner");
    assert_eq!((us(outer, "ts"), us(outer, "dur")), (5005.0, 2003.0));
    assert_eq!((us(inner, "ts"), us(inner, "dur")), (5006.0, 1001.0));

    // Everything else is an instant with its fields; a start never stopped stays open.
    let instants = phase(events, "i");
    let progress = named(&instants, "Progress");
    assert_eq!(progress["args"]["Percent"], 50);
    assert_eq!(progress["s"], "t");
    assert_eq!(us(progress, "ts"), 1001.0);
    named(&instants, "Orphan (stop without a start)");
    let never = named(&phase(events, "B"), "Never");
    assert_eq!(never["tid"], tid_a);

    // One track per process and thread, each named.
    let meta = phase(events, "M");
    let process: Vec<&&Json> = meta
        .iter()
        .filter(|e| e["name"] == "process_name")
        .collect();
    assert_eq!(process.len(), 1);
    assert_eq!(process[0]["pid"], 4000);
    assert_eq!(process[0]["args"]["name"], "pid 4000");
    let mut threads: Vec<(Json, Json)> = meta
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| (e["tid"].clone(), e["args"]["name"].clone()))
        .collect();
    threads.sort_by_key(|(t, _)| t.as_u64());
    let mut want = vec![
        (tid_a.clone(), Json::from(format!("tid {tid_a}"))),
        (tid_b.clone(), Json::from(format!("tid {tid_b}"))),
    ];
    want.sort_by_key(|(t, _)| t.as_u64());
    assert_eq!(threads, want);
}

#[test]
fn lost_events_are_marked_instants() {
    // rule: BUF-14
    let dir = scratch("export_lost");
    let path = dir.join("lost.etl");
    let mut w = EtlWriter::create(
        WriterOptions::new(&path)
            .buffer_size(4096)
            .start(0, 134_116_992_000_000_000),
    )
    .unwrap();
    let event = |ts: i64, provider: Guid, opcode: u8| {
        Record::Event(EventRecord {
            header: EventHeader {
                timestamp: ts,
                thread_id: 9,
                process_id: 900,
                provider_id: provider,
                descriptor: EventDescriptor::new(1, Level::INFORMATION, Keyword(1))
                    .with_opcode(Opcode(opcode)),
                ..EventHeader::default()
            },
            ..EventRecord::default()
        })
    };
    let mut b = BufferBuilder::new(4096, 0).unwrap();
    b.push(&event(10, Guid::from_provider_name("Some"), 0))
        .unwrap();
    b.push(&event(20, Guid::RT_LOST_EVENT, 32)).unwrap();
    w.write_buffer(&b.finish(1, 20, 0)).unwrap();
    w.close(&CloseStats {
        events_lost: 7,
        ..CloseStats::default()
    })
    .unwrap();

    let trace: Json = serde_json::from_str(&ok(&dir, &["export", "lost.etl"])).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let lost: Vec<&Json> = events.iter().filter(|e| e["cat"] == "lost").collect();
    assert_eq!(lost.len(), 2, "{lost:?}");
    assert_eq!(lost[0]["name"], "events lost (RTLostEvent)");
    assert_eq!(lost[0]["ts"], 1.0);
    assert_eq!(lost[1]["name"], "EventsLost 7 (the file header's count)");
    for l in lost {
        assert_eq!(
            (&l["ph"], &l["s"], &l["cname"]),
            (&"i".into(), &"g".into(), &"terrible".into())
        );
    }
    // The other event, not decoded, carries its payload and the reason.
    let other = events.iter().find(|e| e["name"] == "event 1").unwrap();
    assert_eq!(other["args"]["payload"], "0x");
    assert!(other["args"]["decode_error"].is_string());
    assert_eq!(trace["otherData"]["events_lost"], 7);
}

#[test]
fn a_truncated_file_exports_what_it_holds_and_fails() {
    let (dir, _) = demo("export_cut");
    let bytes = std::fs::read(dir.join("burst.etl")).unwrap();
    std::fs::write(dir.join("cut.etl"), &bytes[..4 * 4096 + 1000]).unwrap();
    let (_, line) = fails(
        &dir,
        &[
            "export",
            "cut.etl",
            "-o",
            "cut.json",
            "--manifest",
            "demo.man",
        ],
        1,
        "cannot read cut.etl: the file is truncated: it ends at byte 17384 (0x43e8)",
    );
    assert!(
        line.ends_with("the 60 records before it were exported"),
        "{line}"
    );
    let trace: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cut.json")).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let indexed: Vec<&Json> = events
        .iter()
        .filter(|e| e["name"] == "ItemIndexed")
        .collect();
    assert_eq!(indexed.len(), 60);
    assert_eq!(indexed[0]["args"]["Item"], 3);
    assert_eq!(indexed[0]["args"]["message"], "The indexer indexed item 3");
    let error: Vec<&Json> = events.iter().filter(|e| e["cat"] == "error").collect();
    assert_eq!(error.len(), 1);
    assert!(
        trace["otherData"]["error"]
            .as_str()
            .unwrap()
            .starts_with("the file is truncated")
    );
    // The output file cannot be written: one line naming it.
    fails(
        &dir,
        &["export", "burst.etl", "-o", "no/such/folder/x.json"],
        1,
        "cannot write no/such/folder/x.json: no such file or folder",
    );
}

#[test]
fn an_export_to_a_file_shows_its_progress_on_the_terminal() {
    let dir = scratch("export_progress");
    big_file(&dir, 300);
    // stderr and stdout both the terminal (util-linux `script`), the output to a file.
    let exe = env!("CARGO_BIN_EXE_etwsim");
    let Ok(o) = std::process::Command::new("script")
        .args([
            "-qec",
            &format!("'{exe}' export big.etl -o big.json"),
            "/dev/null",
        ])
        .current_dir(&dir)
        .env("TERM", "xterm")
        .output()
    else {
        eprintln!("note: `script` (util-linux) is absent; skipped");
        return;
    };
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let terminal = String::from_utf8_lossy(&o.stdout);
    assert!(terminal.contains("/301 buffers"), "{terminal:?}");
    let trace: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("big.json")).unwrap()).unwrap();
    assert_eq!(
        phase(trace["traceEvents"].as_array().unwrap(), "i").len(),
        1800
    );
}

/// Issue 33: `export F.etl -o F.etl` (or over a manifest it reads) is refused before anything
/// is written, and the input is left as it was; a failed export leaves no half-written file.
#[test]
fn export_never_writes_over_its_inputs_and_leaves_no_partial_file() {
    let (dir, _) = demo("export_overwrite");
    let before = std::fs::read(dir.join("demo.etl")).unwrap();
    let (out, _) = fails(
        &dir,
        &["export", "demo.etl", "-o", "demo.etl"],
        1,
        "demo.etl",
    );
    assert_eq!(out, "");
    assert_eq!(std::fs::read(dir.join("demo.etl")).unwrap(), before);
    let man = std::fs::read(dir.join("demo.man")).unwrap();
    fails(
        &dir,
        &["export", "demo.etl", "-m", "demo.man", "-o", "./demo.man"],
        1,
        "demo.man",
    );
    assert_eq!(std::fs::read(dir.join("demo.man")).unwrap(), man);
    // A damaged input: the export is written whole (with its damage marker), never cut.
    std::fs::write(dir.join("cut.etl"), &before[..before.len() - 1000]).unwrap();
    let _ = etwsim(&dir, &["export", "cut.etl", "-o", "cut.json"]);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cut.json")).unwrap()).unwrap();
    assert!(json["otherData"]["error"].is_string(), "{json}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
