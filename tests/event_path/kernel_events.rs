//! The system providers (issue 11): the simulated OS's processes, threads, images and files
//! write classic kernel events into system loggers, manifest kernel events into ordinary
//! sessions, and rundowns at start, stop and on request (KRN, SES-70, PRV-27, PRV-28).

use crate::common;

use common::{admin_process, assert_rejected, guid, kernel};
use etwsim::etl::{Record, TraceRecord};
use etwsim::system::{GroupMask, SystemProvider, event_trace_flag as flag, perf_group};
use etwsim::{
    CreateFile, Disposition, EnableParams, EventFilter, KERNEL_FILE_PROVIDER, KERNEL_LOGGER_NAME,
    KERNEL_PROCESS_PROVIDER, KERNEL_RUNDOWN_PROVIDER, Kernel, Keyword, Level, LogFileMode,
    MemorySink, Process, ProcessSpec, Session, Target, Thread, Token, Win32Error,
};
use etwsim_decode::fields::Value;
use etwsim_decode::mof::{self, MofEvent};

/// A file-mode system logger (the NT Kernel Logger unless `name` says otherwise) with
/// `flags`, recording into a MemorySink.
fn kernel_session(k: &Kernel, name: &str, flags: u32) -> (Session, MemorySink) {
    let sink = MemorySink::new();
    let mut b = k.session(name).enable_flags(flags);
    if name != KERNEL_LOGGER_NAME {
        b = b.mode(LogFileMode::SYSTEM_LOGGER);
    }
    let s = b
        .log_file(&format!("{}.etl", name.replace(' ', "_")))
        .sink(sink.clone())
        .start()
        .unwrap_or_else(|e| panic!("starting {name}: {e}"));
    (s, sink)
}

/// Every record the sink holds, in buffer order.
fn records(sink: &MemorySink) -> Vec<Record> {
    sink.buffers()
        .iter()
        .flat_map(|b| etwsim::etl::decode_buffer(b, 0).expect("buffer").records)
        .collect()
}

/// The kernel (system-header) records, decoded with etwsim's MOF table, in time order (the
/// sink holds them buffer by buffer, one buffer per CPU).
fn kernel_events(sink: &MemorySink) -> Vec<(TraceRecord, MofEvent)> {
    let mut all: Vec<(TraceRecord, MofEvent)> = records(sink)
        .into_iter()
        .filter_map(|r| match r {
            Record::Trace(t) => {
                let e = mof::decode_system(t.hook_id, t.version, 8, &t.payload)
                    .unwrap_or_else(|e| panic!("decoding {:#06x}: {e}", t.hook_id));
                Some((t, e))
            }
            Record::Event(_) => None,
        })
        .collect();
    all.sort_by_key(|(t, _)| t.timestamp); // stable: one operation's events stay in order
    all
}

/// "Class/Event" names in order.
fn names(events: &[(TraceRecord, MofEvent)]) -> Vec<String> {
    events
        .iter()
        .map(|(_, e)| format!("{}/{}", e.schema.class.name, e.schema.event.name))
        .collect()
}

fn ptr(e: &MofEvent, f: &str) -> u64 {
    match e.get(f) {
        Some(Value::Pointer(p)) => *p,
        other => panic!("{f}: {other:?}"),
    }
}

fn u32_of(e: &MofEvent, f: &str) -> u32 {
    match e.get(f) {
        Some(Value::U32(v)) => *v,
        other => panic!("{f}: {other:?}"),
    }
}

fn text(e: &MofEvent, f: &str) -> String {
    match e.get(f) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Ansi(b)) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("{f}: {other:?}"),
    }
}

const FILE_FLAGS: u32 = flag::DISK_FILE_IO | flag::FILE_IO | flag::FILE_IO_INIT;
const ALL: u32 = flag::PROCESS
    | flag::THREAD
    | flag::IMAGE_LOAD
    | flag::DISK_IO
    | flag::DISK_IO_INIT
    | FILE_FLAGS;

/// `cmd.exe` (an administrator) starts `C:\tools\app.exe --go`, which gets a thread on CPU 1.
fn app_of_cmd(k: &Kernel) -> (Process, Process, Thread) {
    let shell = admin_process(k, "cmd.exe");
    let app = k
        .spawn_process(
            ProcessSpec::new(r"C:\tools\app.exe", Token::user("alice"))
                .command_line(r#""C:\tools\app.exe" --go"#)
                .parent(&shell),
        )
        .unwrap();
    let t = app.spawn_thread(1).unwrap();
    (shell, app, t)
}

#[test]
fn the_kernel_logger_records_each_operation_with_its_class_type_version_and_layout() {
    // rule: KRN-09
    // rule: KRN-11
    // rule: KRN-16
    // rule: KRN-17
    // rule: KRN-19
    // rule: KRN-20
    // rule: KRN-21
    // rule: KRN-22
    // rule: KRN-23
    // rule: KRN-24
    // rule: KRN-26
    // rule: KRN-27
    // rule: KRN-28
    // rule: KRN-29
    // rule: KRN-30
    let k = kernel();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, ALL);
    let (shell, app, t) = app_of_cmd(&k);
    let _g = t.enter();
    let dll = app
        .load_image(r"C:\Windows\System32\kernel32.dll", 0xA_0000)
        .unwrap();
    let mut f = app
        .create_file(r"C:\data\a.txt", CreateFile::new(Disposition::Create))
        .unwrap();
    f.write(0, 100);
    assert_eq!(f.read(0, 4096), 100);
    f.set_information(4, 0x1234);
    f.query_information(5);
    f.flush();
    f.read_from_disk(0, 100);
    f.rename(r"C:\data\b.txt").unwrap();
    let dir = app
        .create_file(r"C:\data", CreateFile::directory())
        .unwrap();
    assert_eq!(dir.enumerate_directory("*.txt"), ["b.txt"]);
    dir.close();
    f.delete();
    let (object, key) = (f.file_object(), f.file_key());
    f.close();
    let base = dll.base();
    dll.unload();
    drop(_g);
    t.exit();
    app.exit_with(3);
    s.stop().unwrap();

    let events = kernel_events(&sink);
    let got: Vec<(u16, u16)> = events.iter().map(|(t, _)| (t.hook_id, t.version)).collect();
    // Every record is a 64-bit SYSTEM_TRACE_HEADER (KRN-11: HookId = group | type).
    assert!(events.iter().all(|(t, _)| t.header_type == 0x02));
    let expect_hooks = [
        (0x0303, 4), // Process DCStart (System)
        (0x0301, 4), // Process Start (cmd.exe)
        (0x0301, 4), // Process Start (app.exe)
        (0x0501, 3), // Thread Start
        (0x140A, 3), // Image Load
        (0x0440, 3), // FileIo Create
        (0x0420, 2), // FileCreate (a name event: version 2, KRN-17)
        (0x044C, 3), // OperationEnd
        (0x0444, 3), // Write
        (0x044C, 3),
        (0x0443, 3), // Read
        (0x044C, 3),
        (0x0445, 3), // SetInfo
        (0x044C, 3),
        (0x044A, 3), // QueryInfo
        (0x044C, 3),
        (0x0449, 3), // Flush
        (0x044C, 3),
        (0x0443, 3), // Read from disk: FileIo Read…
        (0x044C, 3),
    ];
    // No Name (0) before the disk read: the session has the key's name from FileCreate.
    assert_eq!(&got[..20], &expect_hooks[..]);
    assert_eq!(got[20], (0x010C, 3), "DiskIo ReadInit");
    assert_eq!(got[21], (0x010A, 3), "DiskIo Read");
    let by = |name: &str| -> Vec<&MofEvent> {
        events
            .iter()
            .filter(|(_, e)| format!("{}/{}", e.schema.class.name, e.schema.event.name) == name)
            .map(|(_, e)| e)
            .collect()
    };
    // Process (KRN-27, v4): pid, parent, session, SID, image, command line; End's status.
    let start = by("Process/Start")[1];
    assert_eq!(u32_of(start, "ProcessId"), app.pid());
    assert_eq!(u32_of(start, "ParentId"), shell.pid());
    assert_eq!(u32_of(start, "SessionId"), 1);
    assert_eq!(text(start, "ImageFileName"), "app.exe");
    assert_eq!(text(start, "CommandLine"), r#""C:\tools\app.exe" --go"#);
    assert_eq!(start.get("ExitStatus"), Some(&Value::I32(259)));
    match start.get("UserSID") {
        Some(Value::TokenUser(t)) => assert_eq!(t.sid, Token::user("alice").sid),
        other => panic!("UserSID {other:?}"),
    }
    let end = by("Process/End");
    assert_eq!(end.len(), 1);
    assert_eq!(end[0].get("ExitStatus"), Some(&Value::I32(3)));
    // Thread (KRN-28, v3).
    let ts = by("Thread/Start")[0];
    assert_eq!(
        (u32_of(ts, "ProcessId"), u32_of(ts, "TThreadId")),
        (app.pid(), t.tid())
    );
    assert_eq!(by("Thread/End").len(), 1);
    // Image (KRN-29).
    let load = by("Image/Load")[0];
    assert_eq!(ptr(load, "ImageBase"), base);
    assert_eq!(ptr(load, "ImageSize"), 0xA_0000);
    assert_eq!(
        text(load, "FileName"),
        r"\Device\HarddiskVolume3\Windows\System32\kernel32.dll"
    );
    assert_eq!(by("Image/Unload").len(), 1);
    // FileIo (KRN-19…KRN-24, KRN-26): the FileObject of the open, the FileKey of the file,
    // TTID = the issuing thread, every request paired with its OperationEnd by IrpPtr.
    let create = by("FileIo/Create")[0];
    assert_eq!(ptr(create, "FileObject"), object);
    assert_eq!(u32_of(create, "TTID"), t.tid());
    assert_eq!(
        u32_of(create, "CreateOptions") >> 24,
        2,
        "FILE_CREATE disposition"
    );
    assert_eq!(
        text(create, "OpenPath"),
        r"\Device\HarddiskVolume3\data\a.txt"
    );
    let write = by("FileIo/Write")[0];
    assert_eq!(ptr(write, "FileKey"), key);
    assert_eq!(u32_of(write, "IoSize"), 100);
    let read = by("FileIo/Read")[0];
    let irp = ptr(read, "IrpPtr");
    let end_of_read = events
        .iter()
        .find(|(_, e)| e.schema.event.name == "OperationEnd" && ptr(e, "IrpPtr") == irp)
        .expect("the read's OperationEnd");
    assert_eq!(ptr(&end_of_read.1, "ExtraInfo"), 100, "bytes read");
    assert_eq!(u32_of(&end_of_read.1, "NtStatus"), 0);
    assert_eq!(u32_of(by("FileIo/SetInfo")[0], "InfoClass"), 4);
    assert_eq!(ptr(by("FileIo/SetInfo")[0], "ExtraInfo"), 0x1234);
    assert_eq!(u32_of(by("FileIo/Rename")[0], "InfoClass"), 10);
    assert_eq!(u32_of(by("FileIo/Delete")[0], "InfoClass"), 13);
    assert_eq!(text(by("FileIo/DirEnum")[0], "FileName"), "*.txt");
    // DiskIo (KRN-30): FileObject = the FileKey.
    let disk = by("DiskIo/Read")[0];
    assert_eq!(ptr(disk, "FileObject"), key);
    assert_eq!(u32_of(disk, "TransferSize"), 100);
    // Cleanup, Close, then FileDelete at the last close, with the new name.
    let tail = names(&events);
    let i = tail.iter().rposition(|n| n == "FileIo/Cleanup").unwrap();
    assert_eq!(
        &tail[i..i + 5],
        [
            "FileIo/Cleanup",
            "FileIo/OperationEnd",
            "FileIo/Close",
            "FileIo/OperationEnd",
            "FileIo/FileDelete"
        ]
    );
    let gone = by("FileIo/FileDelete");
    assert_eq!(
        text(gone[gone.len() - 1], "FileName"),
        r"\Device\HarddiskVolume3\data\b.txt"
    );
    // The process's header fields are the issuing thread's.
    let (hdr, _) = events.iter().find(|(t, _)| t.hook_id == 0x0443).unwrap();
    assert_eq!(
        (hdr.process_id, hdr.thread_id),
        (Some(app.pid()), Some(t.tid()))
    );
}

#[test]
fn a_consumer_sees_the_class_guid_and_the_event_type_as_opcode() {
    // rule: KRN-13
    // rule: KRN-12
    let k = kernel();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::PROCESS);
    admin_process(&k, "x.exe");
    s.stop().unwrap();
    let recs: Vec<_> = records(&sink)
        .into_iter()
        .map(Record::into_event_record)
        .collect();
    let start = recs
        .iter()
        .find(|r| r.header.descriptor.opcode.0 == 1)
        .unwrap();
    assert_eq!(start.header.provider_id, mof::PROCESS.guid);
    assert_eq!(start.header.descriptor.version, 4);
    assert_eq!(start.header.descriptor.id, 0);
    assert_eq!(start.header.descriptor.keyword, Keyword(0));
    assert_ne!(start.header.flags & 0x0100, 0, "classic header flag");
}

#[test]
fn only_system_loggers_get_classic_kernel_events_each_as_its_flags_select() {
    // rule: KRN-01
    let k = kernel();
    let sink_plain = MemorySink::new();
    let plain = k
        .session("plain")
        .enable_flags(ALL)
        .log_file("plain.etl")
        .sink(sink_plain.clone())
        .start()
        .unwrap();
    let (procs, procs_sink) = kernel_session(&k, "procs", flag::PROCESS);
    let (files, files_sink) = kernel_session(&k, "files", FILE_FLAGS);
    let app = admin_process(&k, "app.exe");
    let f = app.open_file(r"C:\x.txt").unwrap();
    f.close();
    for s in [&plain, &procs, &files] {
        s.stop().unwrap();
    }
    assert!(
        records(&sink_plain).is_empty(),
        "an ordinary session: nothing"
    );
    let p = names(&kernel_events(&procs_sink));
    assert!(p.iter().all(|n| n.starts_with("Process/")), "{p:?}");
    assert!(p.contains(&"Process/Start".to_string()));
    let f = names(&kernel_events(&files_sink));
    assert!(f.iter().all(|n| n.starts_with("FileIo/")), "{f:?}");
    assert!(f.contains(&"FileIo/Create".to_string()));
}

/// The FileName of every Image/Load in `sink`, in order, without the volume prefix.
fn loaded_images(sink: &MemorySink) -> Vec<String> {
    kernel_events(sink)
        .iter()
        .filter(|(_, e)| e.schema.class.name == "Image" && e.schema.event.name == "Load")
        .map(|(_, e)| text(e, "FileName").replace(r"\Device\HarddiskVolume3\", ""))
        .collect()
}

#[test]
fn each_os_operation_reaches_the_system_loggers_running_when_it_happens() {
    // rule: KRN-01
    // Two kernels driven from one OS thread, their system loggers started and stopped
    // between operations: each Image Load reaches exactly the loggers running at that
    // moment, whichever kernel's operation came before on this thread (an OS operation
    // finds the system loggers through a per-thread cache, which must follow every start
    // and stop of each kernel).
    let (k1, k2) = (kernel(), kernel());
    let (a1, a2) = (admin_process(&k1, "a.exe"), admin_process(&k2, "b.exe"));
    let load = |p: &Process, name: &str| {
        p.load_image(&format!(r"C:\{name}"), 0x1000)
            .map(|i| i.unload())
            .unwrap();
    };
    load(&a1, "none.dll");
    let (one, one_sink) = kernel_session(&k1, "one", flag::IMAGE_LOAD);
    load(&a1, "1.dll");
    load(&a2, "none.dll");
    let (two, two_sink) = kernel_session(&k2, "two", flag::IMAGE_LOAD);
    load(&a2, "2.dll");
    load(&a1, "3.dll");
    one.stop().unwrap();
    load(&a1, "none.dll");
    let (three, three_sink) = kernel_session(&k1, "three", flag::IMAGE_LOAD);
    load(&a2, "4.dll");
    load(&a1, "5.dll");
    let (four, four_sink) = kernel_session(&k1, "four", flag::IMAGE_LOAD);
    load(&a1, "6.dll");
    three.stop().unwrap();
    load(&a1, "7.dll");
    for s in [&two, &four] {
        s.stop().unwrap();
    }
    assert_eq!(loaded_images(&one_sink), ["1.dll", "3.dll"]);
    assert_eq!(loaded_images(&two_sink), ["2.dll", "4.dll"]);
    assert_eq!(loaded_images(&three_sink), ["5.dll", "6.dll"]);
    assert_eq!(loaded_images(&four_sink), ["6.dll", "7.dll"]);
}

#[test]
fn update_changes_a_running_kernel_sessions_flags() {
    // rule: KRN-01
    // rule: SES-77
    let k = kernel();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::PROCESS);
    admin_process(&k, "one.exe");
    s.update(&etwsim::SessionUpdate {
        enable_flags: Some(flag::IMAGE_LOAD),
        ..Default::default()
    })
    .unwrap();
    let two = admin_process(&k, "two.exe");
    two.load_image(r"C:\two.dll", 0x1000).unwrap();
    s.update(&etwsim::SessionUpdate {
        enable_flags: Some(0),
        ..Default::default()
    })
    .unwrap();
    two.load_image(r"C:\three.dll", 0x1000).unwrap();
    s.stop().unwrap();
    let n = names(&kernel_events(&sink));
    assert_eq!(
        n.iter()
            .filter(|n| *n == "Process/Start" || *n == "Image/Load")
            .collect::<Vec<_>>(),
        ["Process/Start", "Image/Load"]
    );
}

#[test]
fn a_kernel_session_enumerates_what_runs_at_start_and_at_stop() {
    // rule: SES-70
    // rule: KRN-31
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let t = app.spawn_thread(2).unwrap();
    let img = app.load_image(r"C:\app.exe", 0x2000).unwrap();
    k.advance(std::time::Duration::from_millis(5));
    let (s, sink) = kernel_session(
        &k,
        KERNEL_LOGGER_NAME,
        flag::PROCESS | flag::THREAD | flag::IMAGE_LOAD,
    );
    let started_at = k.now();
    k.advance(std::time::Duration::from_millis(5));
    let late = admin_process(&k, "late.exe");
    k.advance(std::time::Duration::from_millis(5));
    let stopped_at = k.now();
    s.stop().unwrap();
    let events = kernel_events(&sink);
    let n = names(&events);
    // DCStart: System and app.exe, app's thread, app's image — in that order, first.
    assert_eq!(
        &n[..4],
        [
            "Process/DCStart",
            "Process/DCStart",
            "Thread/DCStart",
            "Image/DCStart"
        ]
    );
    let pids: Vec<u32> = events[..2]
        .iter()
        .map(|(_, e)| u32_of(e, "ProcessId"))
        .collect();
    assert_eq!(pids, [4, app.pid()]);
    assert_eq!(u32_of(&events[2].1, "TThreadId"), t.tid());
    assert_eq!(ptr(&events[3].1, "ImageBase"), img.base());
    assert_eq!(n[4], "Process/Start");
    // DCEnd at stop: the three processes, the thread, the image — last.
    assert_eq!(
        &n[5..],
        [
            "Process/DCEnd",
            "Process/DCEnd",
            "Process/DCEnd",
            "Thread/DCEnd",
            "Image/DCEnd"
        ]
    );
    assert_eq!(u32_of(&events[7].1, "ProcessId"), late.pid());
    // Each burst carries the time of its moment.
    let ticks = |d: std::time::Duration| d.as_nanos() as i64 / 100;
    let ts = |i: usize| events[i].0.timestamp.unwrap();
    assert!(ts(0) <= ts(3) && ts(3) <= ticks(started_at));
    assert!(
        ticks(started_at) - ts(0) < 1_000,
        "within 100 µs of the start"
    );
    assert!(ts(5) >= ticks(stopped_at));
}

#[test]
fn the_stop_rundown_names_every_file_still_open_and_only_those() {
    // rule: KRN-32
    // rule: KRN-37
    // rule: KRN-26
    // rule: KRN-10
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let before = app.open_file(r"C:\before.log").unwrap();
    let closed = app.open_file(r"C:\closed.log").unwrap();
    closed.close();
    // Two opens of one file share its FileKey: one FileRundown.
    let again = app.open_file(r"C:\before.log").unwrap();
    assert_eq!(again.file_key(), before.file_key());
    assert_ne!(again.file_object(), before.file_object());
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::DISK_FILE_IO | flag::DISK_IO);
    // Nothing at start (KRN-32: never at session start).
    assert!(kernel_events(&sink).is_empty());
    // A second, short session stopped at once harvests the same names (KRN-37),
    // independently of the first; DISK_FILE_IO alone is enough, DISK_IO alone gives none
    // (KRN-10's choice).
    let (aux, aux_sink) = kernel_session(&k, "aux", flag::DISK_FILE_IO);
    aux.stop().unwrap();
    let (disk_only, disk_only_sink) = kernel_session(&k, "disk only", flag::DISK_IO);
    disk_only.stop().unwrap();
    assert!(kernel_events(&disk_only_sink).is_empty());
    s.stop().unwrap();
    for sink in [&sink, &aux_sink] {
        let events = kernel_events(sink);
        assert_eq!(names(&events), ["FileIo/FileRundown"]);
        assert_eq!(ptr(&events[0].1, "FileObject"), before.file_key());
        assert_eq!(
            text(&events[0].1, "FileName"),
            r"\Device\HarddiskVolume3\before.log"
        );
    }
}

#[test]
fn name_events_come_at_first_name_last_close_and_first_disk_io_of_an_unnamed_key() {
    // rule: KRN-33
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let old = app.open_file(r"C:\old.bin").unwrap();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::DISK_FILE_IO | flag::DISK_IO);
    // A file opened before the session: FileIo alone gives it no name…
    old.read(0, 10);
    // …a disk transfer does, once (Name, type 0), then DiskIo.
    old.read_from_disk(0, 10);
    old.read_from_disk(0, 10);
    // A file opened while tracing: FileCreate; its second open: nothing new.
    let new = app.open_file(r"C:\new.bin").unwrap();
    let second = app.open_file(r"C:\new.bin").unwrap();
    second.close(); // not the last close: no FileDelete
    new.close(); // the last: FileDelete
    s.stop().unwrap();
    let events = kernel_events(&sink);
    assert_eq!(
        names(&events),
        [
            "FileIo/Name",
            "DiskIo/Read",
            "DiskIo/Read",
            "FileIo/FileCreate",
            "FileIo/FileDelete",
            "FileIo/FileRundown"
        ]
    );
    assert_eq!(ptr(&events[0].1, "FileObject"), old.file_key());
    assert_eq!(
        text(&events[3].1, "FileName"),
        r"\Device\HarddiskVolume3\new.bin"
    );
}

#[test]
fn capture_state_with_a_trace_handle_runs_a_rundown_for_that_session() {
    // rule: KRN-34
    // rule: PRV-27
    // rule: FLT-24
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let f = app.open_file(r"C:\held.txt").unwrap();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::PROCESS | flag::DISK_FILE_IO);
    let (other, other_sink) = kernel_session(&k, "other", flag::PROCESS | flag::DISK_FILE_IO);
    let ordinary = k.session("controller").start().unwrap();
    ordinary
        .capture_state(
            etwsim::Guid::SYSTEM_TRACE_CONTROL,
            &EnableParams::new().filter(EventFilter::TraceHandle(s.handle().0)),
        )
        .unwrap();
    s.stop().unwrap();
    other.stop().unwrap();
    let n = names(&kernel_events(&sink));
    assert_eq!(
        n,
        [
            "Process/DCStart",
            "Process/DCStart",
            "Process/DCStart",
            "Process/DCStart",
            "FileIo/FileRundown",
            "Process/DCEnd",
            "Process/DCEnd",
            "FileIo/FileRundown"
        ]
    );
    // The other system logger got no mid-session rundown.
    let o = names(&kernel_events(&other_sink));
    assert_eq!(o.iter().filter(|n| *n == "FileIo/FileRundown").count(), 1);
    drop(f);
}

#[test]
fn the_kernel_rundown_provider_gives_an_ordinary_session_file_names_mid_session() {
    // rule: KRN-35
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let f = app.open_file(r"C:\open.txt").unwrap();
    let sink = MemorySink::new();
    let s = k
        .session("names")
        .log_file("names.etl")
        .sink(sink.clone())
        .start()
        .unwrap();
    // Another keyword: nothing.
    s.enable(KERNEL_RUNDOWN_PROVIDER, &EnableParams::new().any(0x1))
        .unwrap();
    assert!(kernel_events(&sink).is_empty());
    s.enable(KERNEL_RUNDOWN_PROVIDER, &EnableParams::new().any(0x10))
        .unwrap();
    s.stop().unwrap();
    let events = kernel_events(&sink);
    assert_eq!(names(&events), ["FileIo/FileRundown"]);
    assert_eq!(ptr(&events[0].1, "FileObject"), f.file_key());
    let rec = records(&sink).remove(0).into_event_record();
    assert_eq!(rec.header.provider_id, mof::FILE_IO.guid);
    assert_eq!(rec.header.descriptor.opcode.0, 36);
}

#[test]
fn system_providers_turn_groups_on_only_in_system_logger_mode_sessions() {
    // rule: KRN-03
    // rule: KRN-04
    // rule: KRN-05
    // rule: PRV-28
    let k = kernel();
    let process_provider =
        SystemProvider::by_guid("{151f55dc-467d-471f-83b5-5f889d46ff66}".parse().unwrap()).unwrap();
    let io_provider =
        SystemProvider::by_guid("{3d5c43e3-0f1c-4202-b817-174c0070dc79}".parse().unwrap()).unwrap();
    assert_eq!(etwsim::system::SYSTEM_PROVIDERS.len(), 17);
    assert_eq!(process_provider.flags_for(0x1), flag::PROCESS);
    assert_eq!(process_provider.flags_for(0x800), flag::THREAD);
    assert_eq!(process_provider.flags_for(0x1000), flag::IMAGE_LOAD);
    assert_eq!(io_provider.flags_for(0x10), flag::FILE_IO);
    assert_eq!(io_provider.flags_for(0x400), flag::FILE_IO_INIT);
    assert_eq!(io_provider.flags_for(0x4), flag::DISK_FILE_IO);
    assert_eq!(
        io_provider.flags_for(0x80),
        flag::DRIVER | flag::DISK_FILE_IO,
        "DRIVERS also turns on FILENAME"
    );
    // Into an ordinary session: refused (ERROR_INVALID_PARAMETER, the guess), nothing changes.
    let plain = k.session("plain").start().unwrap();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        plain.enable(process_provider.guid, &EnableParams::new().any(0x1))
    });
    // Into a system logger: the keywords select the groups.
    let (s, sink) = kernel_session(&k, "syslog", 0);
    s.enable(process_provider.guid, &EnableParams::new().any(0x1000))
        .unwrap();
    let app = admin_process(&k, "app.exe");
    app.load_image(r"C:\a.dll", 0x1000).unwrap();
    s.disable(process_provider.guid).unwrap();
    app.load_image(r"C:\b.dll", 0x1000).unwrap();
    s.stop().unwrap();
    assert_eq!(names(&kernel_events(&sink)), ["Image/Load"]);
}

#[test]
fn trace_set_information_sets_the_group_mask_and_equivalent_groups_count() {
    // rule: KRN-06
    // rule: KRN-07
    // rule: KRN-08
    let k = kernel();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, 0);
    let sys = k.system_process();
    let target = Target::Handle(s.handle());
    for bad in [0usize, 3, 5, 36] {
        assert_rejected(&k, Win32Error::ERROR_BAD_LENGTH, || {
            k.set_system_trace_enable_flags(&sys, target, &vec![0u8; bad])
        });
    }
    // 8 bytes, as TraceEvent passes: word 0 = PROCESS, word 1 = CONTEXT_SWITCH's bit.
    let mut mask = Vec::new();
    mask.extend_from_slice(&(flag::PROCESS | flag::EXTENSION).to_le_bytes());
    mask.extend_from_slice(&(perf_group::CONTEXT_SWITCH & 0x1FFF_FFFF).to_le_bytes());
    k.set_system_trace_enable_flags(&sys, target, &mask)
        .unwrap();
    let got = k.query_system_trace_enable_flags(&sys, target).unwrap();
    assert_eq!(
        got.0[0],
        flag::PROCESS,
        "EXTENSION is reserved and dropped (KRN-08)"
    );
    assert!(got.is_on(perf_group::CONTEXT_SWITCH));
    assert!(
        got.is_on(flag::CSWITCH),
        "the equivalent EnableFlags bit (KRN-07)"
    );
    assert_eq!(got.effective_flags(), flag::PROCESS | flag::CSWITCH);
    assert!(!got.is_on(perf_group::SYSCALL));
    assert_eq!(got.to_bytes().len(), 32);
    assert_eq!(s.query().unwrap().enable_flags, flag::PROCESS);
    // And the other way: SYSTEMCALL in word 0 turns PERF_SYSCALL (word 2) on.
    assert!(GroupMask::from_enable_flags(flag::SYSTEMCALL).is_on(perf_group::SYSCALL));
    admin_process(&k, "p.exe");
    s.stop().unwrap();
    assert!(names(&kernel_events(&sink)).contains(&"Process/Start".to_string()));
    // An ordinary session is not a system logger.
    let plain = k.session("plain").start().unwrap();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.set_system_trace_enable_flags(&sys, Target::Handle(plain.handle()), &[1, 0, 0, 0])
    });
}

#[test]
fn an_ordinary_provider_enabled_into_the_kernel_logger_never_reaches_it() {
    // rule: KRN-02
    let k = kernel();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::PROCESS);
    let app = admin_process(&k, "app.exe");
    let p = app.register_provider(guid(1)).unwrap();
    s.enable(guid(1), &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    p.write(
        &etwsim::EventDescriptor::new(1, Level::ERROR, Keyword(0)),
        &[b"x"],
    )
    .unwrap();
    s.stop().unwrap();
    assert!(
        records(&sink).iter().all(|r| matches!(r, Record::Trace(_))),
        "no EVENT_HEADER record in the NT Kernel Logger"
    );
}

#[test]
fn kernel_file_and_kernel_process_reach_ordinary_sessions_by_keyword() {
    // rule: KRN-41
    // rule: KRN-42
    // rule: KRN-43
    let k = kernel();
    let sink = MemorySink::new();
    let s = k
        .session("manifest")
        .log_file("m.etl")
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(KERNEL_FILE_PROVIDER, &EnableParams::new().any(0x10 | 0x80))
        .unwrap();
    s.enable(
        KERNEL_PROCESS_PROVIDER,
        &EnableParams::new().any(0x10 | 0x40),
    )
    .unwrap();
    let app = k
        .spawn_process(ProcessSpec::new("app.exe", Token::user("bob")))
        .unwrap();
    let img = app.load_image(r"C:\lib.dll", 0x3000).unwrap();
    let f = app.open_file(r"C:\m.txt").unwrap();
    f.read(0, 10); // keyword READ (0x100) not enabled: nothing
    f.close();
    s.stop().unwrap();
    let evs: Vec<_> = records(&sink)
        .into_iter()
        .filter_map(|r| match r {
            Record::Event(e) => Some(e),
            Record::Trace(_) => None,
        })
        .collect();
    let ids: Vec<(etwsim::Guid, u16, u8)> = evs
        .iter()
        .map(|e| {
            (
                e.header.provider_id,
                e.header.descriptor.id,
                e.header.descriptor.version,
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            (KERNEL_PROCESS_PROVIDER, 1, 2), // ProcessStart
            (KERNEL_PROCESS_PROVIDER, 5, 0), // ImageLoad
            (KERNEL_FILE_PROVIDER, 12, 1),   // Create (FILEIO | CREATE)
            (KERNEL_FILE_PROVIDER, 10, 0),   // NameCreate (FILENAME)
            (KERNEL_FILE_PROVIDER, 11, 0),   // NameDelete
        ]
    );
    // ProcessStart v2's packed template: ProcessID, CreateTime, ParentProcessID, SessionID,
    // Flags, ImageName…
    let ps = &evs[0].user_data;
    assert_eq!(u32::from_le_bytes(ps[0..4].try_into().unwrap()), app.pid());
    assert_eq!(evs[0].header.process_id, 4, "written by the System process");
    let image: Vec<u16> = ps[24..]
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&c| c != 0)
        .collect();
    assert_eq!(
        String::from_utf16(&image).unwrap(),
        r"\Device\HarddiskVolume3\app.exe"
    );
    // ImageLoad: ImageBase, ImageSize, ProcessID…
    let il = &evs[1].user_data;
    assert_eq!(u64::from_le_bytes(il[0..8].try_into().unwrap()), img.base());
    assert_eq!(
        u32::from_le_bytes(il[16..20].try_into().unwrap()),
        app.pid()
    );
    // Kernel-File Create v1 = the classic v3 Create payload.
    let create = mof::FILE_IO.schema("Create", 3).unwrap();
    let decoded = create.decode(&evs[2].user_data, 8).unwrap();
    assert_eq!(
        decoded.get("FileObject"),
        Some(&Value::Pointer(
            evs[2].user_data[8..16]
                .iter()
                .rev()
                .fold(0u64, |a, b| a << 8 | u64::from(*b))
        ))
    );
    assert_eq!(evs[2].header.process_id, app.pid());
    assert_eq!(evs[2].header.descriptor.keyword, Keyword(0xA0));
}

#[test]
fn file_operations_reject_bad_paths_and_change_nothing() {
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    for bad in ["", "C:\\a\0b"] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            app.open_file(bad)
        });
    }
    let e = app
        .create_file(r"C:\missing.txt", CreateFile::new(Disposition::Open))
        .unwrap_err();
    assert_eq!(e.win32_code().code(), 2, "ERROR_FILE_NOT_FOUND");
    let f = app
        .create_file(r"C:\new.txt", CreateFile::new(Disposition::Create))
        .unwrap();
    let e = app
        .create_file(r"C:\new.txt", CreateFile::new(Disposition::Create))
        .unwrap_err();
    assert_eq!(e.win32_code().code(), 80, "ERROR_FILE_EXISTS");
    f.close();
    assert!(app.load_image(r"C:\x.dll", 0).is_err());
    assert!(
        k.spawn_process(ProcessSpec::new("a.exe", Token::user("u")).command_line("a\0b"))
            .is_err()
    );
    app.exit();
    assert!(app.open_file(r"C:\late.txt").is_err());
}

#[test]
fn the_same_program_gives_the_same_kernel_events_every_run() {
    let run = || {
        let k = kernel();
        let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, ALL);
        let app = admin_process(&k, "app.exe");
        let t = app.spawn_thread(1).unwrap();
        let f = app.open_file(r"C:\d.txt").unwrap();
        f.write_through(0, 512);
        f.close();
        t.exit();
        s.stop().unwrap();
        sink.buffers()
    };
    assert_eq!(run(), run());
}

/// The decoded kernel events a real-time consumer received, with their FILETIME times.
fn consumer_kernel_events(c: &mut etwsim::Consumer) -> Vec<(i64, MofEvent)> {
    c.drain()
        .into_iter()
        .filter_map(|r| Some((r.header.timestamp, mof::decode_event_record(&r).ok()?)))
        .collect()
}

#[test]
fn the_stop_rundown_reaches_a_real_time_consumer_only_while_it_reads() {
    // rule: KRN-32
    // rule: KRN-40
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let _held = app.open_file(r"C:\held.txt").unwrap();
    let sys = k.system_process();
    let start = |name: &str| {
        k.session(name)
            .mode(LogFileMode::SYSTEM_LOGGER | LogFileMode::REAL_TIME)
            .enable_flags(flag::DISK_FILE_IO)
            .start()
            .unwrap()
    };
    let (reading, gone) = (start("reading"), start("gone"));
    let mut stays = k
        .open_realtime(&sys, "reading", etwsim::ConsumerOptions::default())
        .unwrap();
    let leaves = k
        .open_realtime(&sys, "gone", etwsim::ConsumerOptions::default())
        .unwrap();
    leaves.close(); // stops reading before the session stops
    reading.stop().unwrap();
    gone.stop().unwrap();
    let got = consumer_kernel_events(&mut stays);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1.schema.event.name, "FileRundown");
    assert_eq!(
        gone.query().map(|_| ()).unwrap_err().win32_code(),
        Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND
    );
}

#[test]
fn real_time_names_are_empty_where_the_file_session_has_them() {
    // rule: KRN-40
    // rule: KRN-38
    // rule: KRN-39
    use etwsim_decode::fileio::{NameResolver, Policy};
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let before = app.open_file(r"C:\before.log").unwrap();
    let sys = k.system_process();
    let flags = flag::DISK_FILE_IO | flag::FILE_IO | flag::FILE_IO_INIT;
    let rt = k
        .session("rt")
        .mode(LogFileMode::SYSTEM_LOGGER | LogFileMode::REAL_TIME)
        .enable_flags(flags)
        .start()
        .unwrap();
    let mut consumer = k
        .open_realtime(&sys, "rt", etwsim::ConsumerOptions::default())
        .unwrap();
    let (file, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flags);
    before.read(0, 100);
    let f = app.open_file(r"C:\during.txt").unwrap();
    f.write(0, 10);
    f.close();
    rt.stop().unwrap();
    file.stop().unwrap();
    // Real time: resolve each event as it comes.
    let mut live = NameResolver::new(Policy::EvictAtCleanup);
    let reads: Vec<String> = consumer_kernel_events(&mut consumer)
        .iter()
        .map(|(t, e)| (e.schema.event.name, live.resolve(e, *t)))
        .filter(|(n, _)| *n == "Read")
        .map(|(_, name)| name)
        .collect();
    assert_eq!(
        reads,
        [""],
        "a file opened before the session: no name in real time"
    );
    // The file session, read whole: the stop rundown names it retroactively.
    let events = kernel_events(&sink);
    let mut whole = NameResolver::new(Policy::File);
    for (t, e) in &events {
        whole.observe(e, t.timestamp.unwrap());
    }
    let (t, read) = events
        .iter()
        .find(|(_, e)| e.schema.event.name == "Read")
        .unwrap();
    assert_eq!(
        whole.name_of(read, t.timestamp.unwrap()),
        r"\Device\HarddiskVolume3\before.log"
    );
    let (t, write) = events
        .iter()
        .find(|(_, e)| e.schema.event.name == "Write")
        .unwrap();
    assert_eq!(
        whole.name_of(write, t.timestamp.unwrap()),
        r"\Device\HarddiskVolume3\during.txt"
    );
}

#[test]
fn an_unwatched_machine_writes_nothing_and_keeps_its_tables() {
    // rule: KRN-01
    let k = kernel();
    let plain_sink = MemorySink::new();
    let plain = k
        .session("plain")
        .log_file("p.etl")
        .sink(plain_sink.clone())
        .start()
        .unwrap();
    let app = admin_process(&k, "app.exe");
    let f = app.open_file(r"C:\quiet.txt").unwrap();
    f.write(0, 5);
    assert_eq!(
        f.read(0, 100),
        5,
        "the file system works with no session listening"
    );
    let dir = app.create_file(r"C:\", CreateFile::directory()).unwrap();
    assert_eq!(dir.enumerate_directory("q*"), ["quiet.txt"]);
    f.close();
    plain.stop().unwrap();
    assert!(records(&plain_sink).is_empty());
    // A kernel session started now still sees the open directory in its stop rundown.
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::DISK_FILE_IO);
    s.stop().unwrap();
    let n = kernel_events(&sink);
    assert_eq!(names(&n), ["FileIo/FileRundown"]);
    assert_eq!(text(&n[0].1, "FileName"), r"\Device\HarddiskVolume3\");
}

#[test]
fn threads_of_a_threaded_kernel_write_kernel_events_concurrently() {
    // rule: KRN-01
    let k = Kernel::builder().cpus(4).build().unwrap();
    let sink = MemorySink::new();
    // Room for every event even if the logger thread lags (the counts below are exact).
    let s = k
        .session(KERNEL_LOGGER_NAME)
        .enable_flags(ALL)
        .maximum_buffers(64)
        .log_file("threaded.etl")
        .sink(sink.clone())
        .start()
        .unwrap();
    let app = admin_process(&k, "app.exe");
    std::thread::scope(|scope| {
        for i in 0..4u16 {
            let app = app.clone();
            scope.spawn(move || {
                let t = app.spawn_thread(i).unwrap();
                let _g = t.enter();
                for n in 0..50 {
                    let f = app.open_file(&format!(r"C:\t{i}\f{n}.txt")).unwrap();
                    f.write_through(0, 64);
                    f.close();
                }
                t.exit();
            });
        }
        // A capture-state rundown and an UPDATE race the writers.
        let ctl = k.session("ctl").start().unwrap();
        ctl.capture_state(
            etwsim::Guid::SYSTEM_TRACE_CONTROL,
            &EnableParams::new().filter(EventFilter::TraceHandle(s.handle().0)),
        )
        .unwrap();
        s.update(&etwsim::SessionUpdate {
            enable_flags: Some(ALL),
            ..Default::default()
        })
        .unwrap();
    });
    assert_eq!(s.stop().unwrap().events_lost, 0);
    let events = kernel_events(&sink);
    let count = |n: &str| names(&events).iter().filter(|x| *x == n).count();
    assert_eq!(count("FileIo/Create"), 200);
    assert_eq!(count("FileIo/Close"), 200);
    assert_eq!(count("DiskIo/Write"), 200);
    assert_eq!(count("Thread/Start"), 4);
    assert_eq!(count("Thread/End"), 4);
}

#[test]
fn reads_and_writes_are_recorded_only_while_a_session_wants_them_with_the_same_results() {
    // rule: KRN-21
    // rule: KRN-24
    // A read or write nobody records is the size update and one check (P15); the same
    // operations under a kernel session return the same and write Read/Write + OperationEnd.
    let k = kernel();
    let app = admin_process(&k, "app.exe");
    let f = app.open_file(r"C:\p15.txt").unwrap();
    f.write(0, 300);
    assert_eq!(f.read(200, 512), 100, "unwatched: what is there is read");
    assert_eq!(f.read(400, 10), 0, "unwatched: nothing past the end");
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, flag::FILE_IO | flag::FILE_IO_INIT);
    f.write(300, 100); // the file grows to 400 bytes
    assert_eq!(
        f.read(200, 512),
        200,
        "watched: the same rule, the grown file"
    );
    assert_eq!(f.read(500, 10), 0);
    s.stop().unwrap();
    f.write(400, 1); // after the stop: not recorded
    assert_eq!(f.read(0, 1000), 401);
    let events = kernel_events(&sink);
    assert_eq!(
        names(&events),
        [
            "FileIo/Write",
            "FileIo/OperationEnd",
            "FileIo/Read",
            "FileIo/OperationEnd",
            "FileIo/Read",
            "FileIo/OperationEnd",
        ]
    );
    let e = |i: usize| &events[i].1;
    assert_eq!((u32_of(e(0), "IoSize"), ptr(e(1), "ExtraInfo")), (100, 100));
    assert_eq!(
        (u32_of(e(2), "IoSize"), ptr(e(3), "ExtraInfo")),
        (512, 200),
        "IoSize asked, ExtraInfo read"
    );
    assert_eq!((u32_of(e(4), "IoSize"), ptr(e(5), "ExtraInfo")), (10, 0));
    for (req, end) in [(0, 1), (2, 3), (4, 5)] {
        assert_eq!(ptr(e(req), "IrpPtr"), ptr(e(end), "IrpPtr"));
        assert_eq!(ptr(e(req), "FileObject"), f.file_object());
    }
}

/// The FNV-1a hash of [`golden_kernel_workload`]'s buffers, computed with the generic encoder
/// (`Schema::encode` of a value vector, then `TraceRecord::encode`) before the direct
/// encoders of the recorded FileIo, Image, Process and Thread events (P15) replaced it: the
/// bytes must not change. To update after a deliberate format change: run with
/// `ETWSIM_PRINT_GOLDEN=1` and paste the printed value.
///
/// Updated once, deliberately: the simulated image checksum (and link time) became a faster
/// digest of the path (`os::digest`, P15). The new value was printed with Image Load and
/// Unload forced through the generic encoder, then checked against the direct encoder.
const KERNEL_GOLDEN_FNV1A: u64 = 0x0b48_2a5f_713f_a3a2;

/// FNV-1a, 64-bit.
fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Every kind of OS operation, recorded by two system loggers (the NT Kernel Logger with all
/// groups, a SYSTEM_LOGGER-mode session with FileIo only: one event, two sessions) and an
/// ordinary session taking Kernel-File and Kernel-Process; the three sinks' buffers in turn.
fn golden_kernel_workload() -> Vec<Vec<u8>> {
    let k = kernel();
    let (s, sink) = kernel_session(&k, KERNEL_LOGGER_NAME, ALL);
    let (s2, sink2) = kernel_session(&k, "second", flag::FILE_IO | flag::FILE_IO_INIT);
    let msink = MemorySink::new();
    let m = k
        .session("manifest")
        .log_file("m.etl")
        .sink(msink.clone())
        .start()
        .unwrap();
    m.enable(KERNEL_FILE_PROVIDER, &EnableParams::new().any(u64::MAX))
        .unwrap();
    m.enable(KERNEL_PROCESS_PROVIDER, &EnableParams::new().any(u64::MAX))
        .unwrap();
    let (shell, app, t) = app_of_cmd(&k);
    let g = t.enter();
    let dll = app
        .load_image(r"C:\Windows\System32\kernel32.dll", 0xA_0000)
        .unwrap();
    let mut f = app
        .create_file(r"C:\data\a.txt", CreateFile::new(Disposition::Create))
        .unwrap();
    for i in 0..40u32 {
        f.write(u64::from(i) * 100, 100 + i);
        f.read(u64::from(i) * 50, 4096);
    }
    f.read(1 << 20, 10); // past the end
    f.set_information(4, 0x1234);
    f.query_information(5);
    f.flush();
    f.read_from_disk(0, 100);
    f.write_through(100, 200);
    f.rename(r"C:\data\b.txt").unwrap();
    let dir = app
        .create_file(r"C:\data", CreateFile::directory())
        .unwrap();
    dir.enumerate_directory("*.txt");
    dir.close();
    let other = app.open_file(r"C:\data\b.txt").unwrap();
    other.read(0, 7);
    let closing = other.cleanup();
    closing.paging_write(0, 4096);
    closing.close();
    assert!(app.open_file(r"C:\missing\x.txt").is_ok());
    assert!(
        app.create_file(r"C:\nope.txt", CreateFile::new(Disposition::Open))
            .is_err()
    );
    f.delete();
    f.close();
    for n in 0..3u64 {
        app.load_image(&format!(r"C:\lib{n}.dll"), 0x1000 * (n + 1))
            .unwrap()
            .unload();
    }
    dll.unload();
    drop(g);
    t.exit();
    let t2 = shell.spawn_thread(0).unwrap();
    t2.exit();
    app.exit_with(3);
    s.stop().unwrap();
    s2.stop().unwrap();
    m.stop().unwrap();
    [sink, sink2, msink]
        .iter()
        .flat_map(MemorySink::buffers)
        .collect()
}

#[test]
fn recorded_os_operations_write_the_golden_bytes() {
    let buffers = golden_kernel_workload();
    assert_eq!(buffers, golden_kernel_workload(), "deterministic");
    let (mut system, mut manifest) = (0, 0);
    for b in &buffers {
        for r in etwsim::etl::decode_buffer(b, 0).expect("buffer").records {
            match r {
                Record::Trace(t) if t.header_type == 0x02 => system += 1,
                Record::Event(_) => manifest += 1,
                Record::Trace(_) => {}
            }
        }
    }
    // The workload is recorded: 80 reads and writes alone are 160 FileIo records per session.
    assert!(
        system > 400 && manifest > 100,
        "{system} system, {manifest} manifest"
    );
    let hash = buffers
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| fnv1a(h, b));
    if std::env::var_os("ETWSIM_PRINT_GOLDEN").is_some() {
        println!("KERNEL_GOLDEN_FNV1A = {hash:#018x}");
    }
    assert_eq!(
        hash, KERNEL_GOLDEN_FNV1A,
        "the recorded OS operations' bytes changed"
    );
}
