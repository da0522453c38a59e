//! `etwsim demo`: a small simulated machine, three sessions, and what happened to every event.
//!
//! The machine: 4 CPUs; `shop.exe` (two threads, CPUs 0 and 1) registers Contoso-Shop,
//! `updater.exe` (CPU 2) Contoso-Updater, `indexer.exe` (CPU 3) Contoso-Indexer. Three
//! sessions enable them with different filters:
//!
//! * `DemoFile` — a SEQUENTIAL log file, `demo.etl`; Shop at Informational with every
//!   keyword (and the PROCESS_START_KEY extended item), Updater at Warning;
//! * `DemoLive` — real time, with a consumer attached; Shop at Verbose for keyword 0x2 with
//!   an EVENT_ID filter excluding the heartbeat, Updater for keyword 0x4 with
//!   IGNORE_KEYWORD_0;
//! * `DemoBurst` — a deliberately small file session, `burst.etl`: 4 KB buffers, Minimum =
//!   MaximumBuffers = 8; Indexer writes a burst of 300 events into it while the logger does
//!   not run, and the pool runs out.
//!
//! It also writes `demo.man`, the instrumentation manifest of the three providers, with which
//! `etwsim dump demo.etl --manifest demo.man` shows each event's provider, name, field and
//! message (the demo checks that the manifest decodes every event it wrote to demo.etl).
//!
//! Every claim the demo prints about routing and loss is checked against what the engine did
//! — the files read back, the consumer's events, the write results and the counters — and a
//! disagreement ends the demo with an error instead of a wrong explanation. The kernel is
//! deterministic (virtual clock starting 2026-01-01T00:00:00Z, fixed process ids), so the
//! output is the same on every run and every machine; the files go to the real disk
//! (`Disk::Real`).

use crate::Failure;
use crate::fmt::{filetime_utc, io_reason};
use etwsim::etl::{Reader, Record};
use etwsim::{
    Consumer, ConsumerOptions, Disk, EnableParams, EnableProperty, EventDescriptor, EventFilter,
    EventView, Guid, Kernel, Keyword, Level, LogFileMode, Process, ProcessSpec, Provider, Session,
    SessionProperties, Thread, Token, Win32Error,
};
use etwsim_decode::manifest::load_manifest;
use std::io::Write;
use std::path::{Path, PathBuf};

const SHOP: Guid = Guid::from_fields(0x5eed_0101, 0x2026, 0x4e75, *b"\x80\x00shop01");
const UPDATER: Guid = Guid::from_fields(0x5eed_0102, 0x2026, 0x4e75, *b"\x80\x00updat1");
const INDEXER: Guid = Guid::from_fields(0x5eed_0103, 0x2026, 0x4e75, *b"\x80\x00index1");

/// The manifest of the three providers (DEC-16), written as `demo.man`.
const MANIFEST: &str = include_str!("demo.man");

/// Contoso-Shop's keywords.
const ORDERS: u64 = 0x1;
const NETWORK: u64 = 0x2;
/// Contoso-Updater's keyword.
const DOWNLOAD: u64 = 0x4;

/// The burst: events, and payload bytes each (an 80-byte EVENT_HEADER + 120 = 200-byte
/// records: 20 fit in a 4 KB buffer's 4024 usable bytes).
const BURST: u32 = 300;
const BURST_PAYLOAD: usize = 120;
const BURST_PER_BUFFER: u32 = 20;

/// Which thread writes an event.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Writer {
    ShopCpu0,
    ShopCpu1,
    Updater,
}

/// One event of the scripted stream, with each session's expected decision; the reason is the
/// engine's own (`Provider::explain`).
struct Step {
    writer: Writer,
    id: u16,
    level: Level,
    keyword: u64,
    what: &'static str,
    /// Whether DemoFile records it (checked against `Provider::explain` and the file).
    file: bool,
    /// Whether DemoLive records it (checked against `Provider::explain` and the consumer).
    live: bool,
}

const STREAM: [Step; 8] = [
    Step {
        writer: Writer::ShopCpu0,
        id: 1,
        level: Level::INFORMATION,
        keyword: ORDERS,
        what: "order placed",
        file: true,
        live: false,
    },
    Step {
        writer: Writer::ShopCpu1,
        id: 2,
        level: Level::INFORMATION,
        keyword: NETWORK,
        what: "request served",
        file: true,
        live: true,
    },
    Step {
        writer: Writer::ShopCpu0,
        id: 3,
        level: Level::VERBOSE,
        keyword: NETWORK,
        what: "cache miss",
        file: false,
        live: true,
    },
    Step {
        writer: Writer::ShopCpu1,
        id: 9,
        level: Level::VERBOSE,
        keyword: NETWORK,
        what: "heartbeat",
        file: false,
        live: false,
    },
    Step {
        writer: Writer::Updater,
        id: 20,
        level: Level::INFORMATION,
        keyword: DOWNLOAD,
        what: "download started",
        file: false,
        live: true,
    },
    Step {
        writer: Writer::Updater,
        id: 21,
        level: Level::ERROR,
        keyword: DOWNLOAD,
        what: "download failed",
        file: true,
        live: true,
    },
    Step {
        writer: Writer::Updater,
        id: 22,
        level: Level::WARNING,
        keyword: 0,
        what: "retry scheduled",
        file: true,
        live: false,
    },
    Step {
        writer: Writer::ShopCpu0,
        id: 4,
        level: Level::CRITICAL,
        keyword: NETWORK,
        what: "payment backend down",
        file: true,
        live: true,
    },
];

/// An engine call that should not fail in this scenario.
fn sim<T>(what: &str, result: etwsim::Result<T>) -> Result<T, Failure> {
    result.map_err(|e| Failure::failed(format!("the simulation failed while {what}: {e}")))
}

/// A claim the demo makes; if the engine disagrees, the demo stops rather than mislead.
fn check(ok: bool, claim: impl FnOnce() -> String) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(Failure::failed(format!(
            "the engine disagrees with the demo: {}",
            claim()
        )))
    }
}

/// Where the demo writes a file, and the same as the `&str` a session's LogFileName is.
fn output_path(dir: Option<&Path>, name: &str) -> Result<(PathBuf, String), Failure> {
    let path = dir.map_or_else(|| PathBuf::from(name), |d| d.join(name));
    let text = path
        .to_str()
        .ok_or_else(|| Failure::failed(format!("{}: not valid Unicode", path.display())))?
        .to_string();
    // The session creates the file; trying first gives the user a plain reason if it cannot.
    std::fs::File::create(&path).map_err(|e| {
        Failure::failed(format!(
            "cannot write {}: {}",
            path.display(),
            io_reason(&e)
        ))
    })?;
    Ok((path, text))
}

/// What a file holds, oldest first: (EVENT_HEADER events by id, header EventsLost,
/// BuffersWritten).
fn read_back(path: &Path) -> Result<(Vec<u16>, u32, u32), Failure> {
    let fail = |e: &dyn std::fmt::Display| {
        Failure::failed(format!("cannot read back {}: {e}", path.display()))
    };
    let reader = Reader::open([path]).map_err(|e| fail(&e))?;
    let header = reader.files()[0].header().clone();
    let mut ids = Vec::new();
    for record in reader {
        if let Record::Event(e) = record.map_err(|e| fail(&e))? {
            ids.push(e.header.descriptor.id);
        }
    }
    Ok((ids, header.events_lost, header.buffers_written))
}

/// Checks that the manifest decodes every event of `path` to the text the stream wrote, and
/// every burst event to its number (the claim the demo makes about `demo.man`).
fn check_manifest(path: &Path) -> Result<(), Failure> {
    let manifest = load_manifest(MANIFEST.as_bytes())
        .map_err(|e| Failure::failed(format!("the demo's manifest is invalid: {e}")))?;
    let reader = Reader::open([path])
        .map_err(|e| Failure::failed(format!("cannot read back {}: {e}", path.display())))?;
    for record in reader {
        let Ok(Record::Event(e)) = record else {
            continue;
        };
        let d = &e.header.descriptor;
        let decoded = manifest.decode_event(e.header.provider_id, d.id, d.version, &e.user_data, 8);
        let text = decoded
            .as_ref()
            .ok()
            .and_then(|(_, _, fields)| fields.first())
            .and_then(|f| f.value.as_text());
        let want = STREAM.iter().find(|s| s.id == d.id).map(|s| s.what);
        check(text.is_some() && text.as_deref() == want, || {
            format!("demo.man decodes event {} as {decoded:?}", d.id)
        })?;
    }
    Ok(())
}

fn yes_no(recorded: bool) -> &'static str {
    if recorded { "recorded" } else { "dropped " }
}

fn mode_name(p: &SessionProperties) -> String {
    let mut parts = Vec::new();
    if p.log_file_mode.contains(LogFileMode::SEQUENTIAL) {
        parts.push("file");
    }
    if p.log_file_mode.contains(LogFileMode::REAL_TIME) {
        parts.push("real-time");
    }
    if parts.is_empty() {
        format!("{:#x}", p.log_file_mode.bits())
    } else {
        parts.join("+")
    }
}

/// The simulated machine: its processes' threads and providers.
struct Machine {
    kernel: Kernel,
    shop: [Thread; 2],
    updater: Thread,
    indexer: Thread,
    p_shop: Provider,
    p_updater: Provider,
    p_indexer: Provider,
}

/// The three sessions and the real-time consumer.
struct Sessions {
    file: Session,
    live: Session,
    burst: Session,
    consumer: Consumer,
}

/// What the burst did.
struct Burst {
    /// Writes that succeeded.
    recorded: u32,
    /// The first write that failed, and its error.
    first_loss: u32,
    code: Win32Error,
}

/// The files the demo writes: where, and the name the sessions were given.
struct Files {
    demo: PathBuf,
    demo_name: String,
    burst: PathBuf,
    burst_name: String,
    manifest: PathBuf,
}

pub(crate) fn run(dir: Option<&Path>, out: &mut dyn Write) -> Result<(), Failure> {
    if let Some(d) = dir {
        if d.to_str().is_none() {
            return Err(Failure::Usage(format!(
                "--out {}: the folder name must be valid Unicode (a session's LogFileName is text)",
                d.display()
            )));
        }
        if d.exists() && !d.is_dir() {
            return Err(Failure::failed(format!(
                "cannot write into {}: it is a file, not a folder",
                d.display()
            )));
        }
        std::fs::create_dir_all(d).map_err(|e| {
            Failure::failed(format!("cannot create {}: {}", d.display(), io_reason(&e)))
        })?;
    }
    let (demo, demo_name) = output_path(dir, "demo.etl")?;
    let (burst, burst_name) = output_path(dir, "burst.etl")?;
    let (manifest, _) = output_path(dir, "demo.man")?;
    std::fs::write(&manifest, MANIFEST).map_err(|e| {
        Failure::failed(format!(
            "cannot write {}: {}",
            manifest.display(),
            io_reason(&e)
        ))
    })?;
    let files = Files {
        demo,
        demo_name,
        burst,
        burst_name,
        manifest,
    };

    writeln!(
        out,
        "etwsim demo: a simulated machine tracing with ETW (deterministic: the same output every run)"
    )?;
    let machine = boot()?;
    describe_machine(&machine, out)?;
    let mut sessions = start_sessions(&machine.kernel, &files)?;
    describe_sessions(&sessions, &files, out)?;
    write_stream(&machine, out)?;
    let burst = write_burst(&machine, &sessions.burst, &files, out)?;
    report(&mut sessions, &burst, &files, out)
}

/// Boots the kernel and starts the processes, their threads and providers (EventRegister).
fn boot() -> Result<Machine, Failure> {
    let kernel = sim(
        "booting",
        Kernel::builder()
            .cpus(4)
            .deterministic(2026)
            .disk(Disk::Real)
            .build(),
    )?;
    let spawn = |image: &str, token: Token, pid: u32| {
        sim(
            "starting the processes",
            kernel.spawn_process(ProcessSpec::new(image, token).pid(pid)),
        )
    };
    let shop = spawn("shop.exe", Token::user("alice"), 1200)?;
    let updater = spawn("updater.exe", Token::local_service(), 1300)?;
    let indexer = spawn("indexer.exe", Token::user("alice"), 1400)?;
    let thread = |p: &Process, cpu| sim("starting the threads", p.spawn_thread(cpu));
    let register = |p: &Process, g| sim("registering providers", p.register_provider(g));
    Ok(Machine {
        shop: [thread(&shop, 0)?, thread(&shop, 1)?],
        updater: thread(&updater, 2)?,
        indexer: thread(&indexer, 3)?,
        p_shop: register(&shop, SHOP)?,
        p_updater: register(&updater, UPDATER)?,
        p_indexer: register(&indexer, INDEXER)?,
        kernel,
    })
}

fn describe_machine(m: &Machine, out: &mut dyn Write) -> Result<(), Failure> {
    writeln!(out, "\n== the machine: 4 CPUs, 3 processes, 3 providers")?;
    writeln!(
        out,
        "  {:<5} {:<12} {:<27} {:<16} {:<38}  keywords",
        "PID", "process", "threads (CPU)", "provider", "provider GUID"
    )?;
    let rows: [(&[&Thread], &str, Guid, &str); 3] = [
        (
            &[&m.shop[0], &m.shop[1]],
            "Contoso-Shop",
            SHOP,
            "0x1 orders, 0x2 network",
        ),
        (&[&m.updater], "Contoso-Updater", UPDATER, "0x4 download"),
        (&[&m.indexer], "Contoso-Indexer", INDEXER, "0x1 indexing"),
    ];
    for (threads, name, guid, keywords) in rows {
        let process = threads[0].process();
        let threads = threads
            .iter()
            .map(|t| format!("{} (CPU {})", t.tid(), t.cpu()))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(
            out,
            "  {:<5} {:<12} {:<27} {:<16} {:<38}  {keywords}",
            process.pid(),
            process.image_name(),
            threads,
            name,
            guid.to_string()
        )?;
    }
    Ok(())
}

/// StartTrace ×3, EnableTraceEx2 ×5, and OpenTrace on the real-time session.
fn start_sessions(kernel: &Kernel, files: &Files) -> Result<Sessions, Failure> {
    let file = sim(
        "starting DemoFile",
        kernel
            .session("DemoFile")
            .log_file(&files.demo_name)
            .buffer_size_kb(8)
            .start(),
    )?;
    sim(
        "enabling Contoso-Shop in DemoFile",
        file.enable(
            SHOP,
            &EnableParams::new()
                .level(Level::INFORMATION)
                .property(EnableProperty::PROCESS_START_KEY),
        ),
    )?;
    sim(
        "enabling Contoso-Updater in DemoFile",
        file.enable(UPDATER, &EnableParams::new().level(Level::WARNING)),
    )?;
    let live = sim(
        "starting DemoLive",
        kernel
            .session("DemoLive")
            .real_time()
            .buffer_size_kb(8)
            .start(),
    )?;
    sim(
        "enabling Contoso-Shop in DemoLive",
        live.enable(
            SHOP,
            &EnableParams::new()
                .level(Level::VERBOSE)
                .any(NETWORK)
                .filter(EventFilter::EventId {
                    filter_in: false,
                    ids: vec![9],
                }),
        ),
    )?;
    sim(
        "enabling Contoso-Updater in DemoLive",
        live.enable(
            UPDATER,
            &EnableParams::new()
                .level(Level::VERBOSE)
                .any(DOWNLOAD)
                .property(EnableProperty::IGNORE_KEYWORD_0),
        ),
    )?;
    let burst = sim(
        "starting DemoBurst",
        kernel
            .session("DemoBurst")
            .log_file(&files.burst_name)
            .buffer_size_kb(4)
            .minimum_buffers(8)
            .maximum_buffers(8)
            .start(),
    )?;
    sim(
        "enabling Contoso-Indexer in DemoBurst",
        burst.enable(INDEXER, &EnableParams::new().level(Level::VERBOSE)),
    )?;
    let consumer = sim(
        "opening DemoLive for real-time consumption",
        kernel.open_realtime(
            &kernel.system_process(),
            "DemoLive",
            ConsumerOptions::default(),
        ),
    )?;
    Ok(Sessions {
        file,
        live,
        burst,
        consumer,
    })
}

fn describe_sessions(s: &Sessions, files: &Files, out: &mut dyn Write) -> Result<(), Failure> {
    let b = sim("querying DemoBurst", s.burst.query())?;
    write!(
        out,
        "
== three sessions (StartTrace) and what they enable (EnableTraceEx2)
  DemoFile   log file {demo} (SEQUENTIAL), 8 KB buffers
             Contoso-Shop     level ≤ 4 Informational, every keyword (MatchAnyKeyword 0), PROCESS_START_KEY item
             Contoso-Updater  level ≤ 3 Warning, every keyword
  DemoLive   real time, one consumer attached (OpenTrace), 8 KB buffers
             Contoso-Shop     level ≤ 5 Verbose, MatchAnyKeyword 0x2, EVENT_ID filter excluding id 9
             Contoso-Updater  level ≤ 5 Verbose, MatchAnyKeyword 0x4, IGNORE_KEYWORD_0
  DemoBurst  log file {burst}, deliberately small: {kb} KB buffers, MinimumBuffers {min}, MaximumBuffers {max}
             Contoso-Indexer  level ≤ 5 Verbose, every keyword
",
        demo = files.demo_name,
        burst = files.burst_name,
        kb = b.buffer_size_kb,
        min = b.minimum_buffers,
        max = b.maximum_buffers,
    )?;
    Ok(())
}

/// The scripted stream: each event written once by its thread, each session deciding alone.
fn write_stream(m: &Machine, out: &mut dyn Write) -> Result<(), Failure> {
    writeln!(
        out,
        "\n== the event stream: who records each event, and the filter that decides"
    )?;
    for (n, s) in STREAM.iter().enumerate() {
        let (provider, thread, name) = match s.writer {
            Writer::ShopCpu0 => (&m.p_shop, &m.shop[0], "Contoso-Shop"),
            Writer::ShopCpu1 => (&m.p_shop, &m.shop[1], "Contoso-Shop"),
            Writer::Updater => (&m.p_updater, &m.updater, "Contoso-Updater"),
        };
        let d = EventDescriptor::new(s.id, s.level, Keyword(s.keyword));
        let why = provider.explain(&EventView::new(&d));
        {
            let _on = thread.enter();
            sim("writing an event", provider.write(&d, &[s.what.as_bytes()]))?;
        }
        writeln!(
            out,
            "  #{} {} tid {} CPU {}: {name} id {} \"{}\", level {}, keyword {:#x}",
            n + 1,
            thread.process().image_name(),
            thread.tid(),
            thread.cpu(),
            s.id,
            s.what,
            s.level.0,
            s.keyword
        )?;
        for (session, expected) in [("DemoFile", s.file), ("DemoLive", s.live)] {
            let v = why
                .verdicts
                .iter()
                .find(|v| v.session_name == session)
                .ok_or_else(|| {
                    Failure::failed(format!("{session} holds no enable slot of {name}"))
                })?;
            check(v.recorded == expected, || {
                format!("{session} on id {}: the engine says {v}", s.id)
            })?;
            writeln!(out, "      {session}  {}  {}", yes_no(v.recorded), v.reason)?;
        }
    }
    Ok(())
}

/// The burst into DemoBurst. The logger does not run while it is written (a deterministic
/// kernel runs it only in `run_pending`/`advance`), so the pool is all the session has.
fn write_burst(
    m: &Machine,
    session: &Session,
    files: &Files,
    out: &mut dyn Write,
) -> Result<Burst, Failure> {
    let before = sim("querying DemoBurst", session.query())?;
    writeln!(
        out,
        "\n== a burst: indexer.exe writes {BURST} events on CPU 3 into DemoBurst, {BURST_PER_BUFFER} per {} KB buffer,",
        before.buffer_size_kb
    )?;
    writeln!(
        out,
        "   before the logger gets to run (this kernel runs it only when stepped)"
    )?;
    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(0x1));
    let mut recorded = 0u32;
    let mut first_loss: Option<(u32, Win32Error)> = None;
    let mut other_errors = 0u32;
    {
        let _on = m.indexer.enter();
        for n in 1..=BURST {
            // The write's number, odd-encoded: a payload starting with an even word is
            // misread as an extended item by dissect.etl, one of the parsers the format is
            // checked against (shared/tools/etl-check), when it reads burst.etl.
            let mut payload = [0u8; BURST_PAYLOAD];
            payload[..4].copy_from_slice(&(2 * n + 1).to_le_bytes());
            match m.p_indexer.write(&d, &[&payload]) {
                Ok(()) => recorded += 1,
                Err(e) => match first_loss {
                    None => first_loss = Some((n, e.win32_code())),
                    Some((_, code)) if code == e.win32_code() => {}
                    Some(_) => other_errors += 1,
                },
            }
        }
    }
    let during = sim("querying DemoBurst", session.query())?;
    let Some((first, code)) = first_loss else {
        return Err(Failure::failed(
            "the engine disagrees with the demo: the burst lost nothing",
        ));
    };
    check(
        other_errors == 0 && code == Win32Error::ERROR_NOT_ENOUGH_MEMORY,
        || format!("the burst failed with {code} and {other_errors} other errors"),
    )?;
    check(
        first == recorded + 1 && during.events_lost == BURST - recorded,
        || {
            format!(
                "first loss at write {first}, {recorded} recorded, EventsLost {}",
                during.events_lost
            )
        },
    )?;
    check(during.buffers_written == 0, || {
        "the logger wrote during the burst".into()
    })?;
    writeln!(
        out,
        "  writes 1–{recorded} succeed: they fill the {} buffers of the pool",
        during.number_of_buffers
    )?;
    writeln!(
        out,
        "  write {first} fails with {code}: CPU 3's buffer is full, no buffer is free, and the"
    )?;
    writeln!(
        out,
        "    pool is at MaximumBuffers {} (EVT-07, BUF-04); so do the {} writes after it",
        during.maximum_buffers,
        BURST - first
    )?;
    writeln!(
        out,
        "  DemoBurst's EventsLost is now {}; BuffersWritten is still {} — nothing has reached the disk yet",
        during.events_lost, during.buffers_written
    )?;
    m.kernel.run_pending();
    let after = sim("querying DemoBurst", session.query())?;
    writeln!(
        out,
        "  the logger runs (Kernel::run_pending): it writes the full buffers to {} and frees them:",
        files.burst_name
    )?;
    writeln!(
        out,
        "    BuffersWritten {}, FreeBuffers {}, EventsLost still {} — lost is lost (BUF-05, BUF-07)",
        after.buffers_written, after.free_buffers, after.events_lost
    )?;
    Ok(Burst {
        recorded,
        first_loss: first,
        code,
    })
}

/// ControlTrace(STOP) on every session, then what each one holds, the session table, where
/// events were lost and the files written — each claim checked against the engine first.
fn report(
    s: &mut Sessions,
    burst: &Burst,
    files: &Files,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let stats = [
        ("DemoFile", sim("stopping DemoFile", s.file.stop())?),
        ("DemoLive", sim("stopping DemoLive", s.live.stop())?),
        ("DemoBurst", sim("stopping DemoBurst", s.burst.stop())?),
    ];
    let delivered = s.consumer.drain();
    let live_ids: Vec<u16> = delivered
        .iter()
        .filter(|r| !r.is_lost_event_marker())
        .map(|r| r.header.descriptor.id)
        .collect();
    let (file_ids, file_lost, file_buffers) = read_back(&files.demo)?;
    check_manifest(&files.demo)?;
    let (burst_ids, burst_lost, burst_buffers) = read_back(&files.burst)?;
    let lost = BURST - burst.recorded;
    let (demo_name, burst_name) = (&files.demo_name, &files.burst_name);

    let want = |pick: fn(&Step) -> bool| -> Vec<u16> {
        STREAM.iter().filter(|s| pick(s)).map(|s| s.id).collect()
    };
    let (want_file, want_live) = (want(|s| s.file), want(|s| s.live));
    check(file_ids == want_file, || {
        format!("{demo_name} holds ids {file_ids:?}, expected {want_file:?}")
    })?;
    check(live_ids == want_live, || {
        format!("DemoLive's consumer got ids {live_ids:?}, expected {want_live:?}")
    })?;
    check(burst_ids.len() == burst.recorded as usize, || {
        format!(
            "{burst_name} holds {} events, {} writes succeeded",
            burst_ids.len(),
            burst.recorded
        )
    })?;
    let [(_, fs), (_, ls), (_, bs)] = &stats;
    check(
        file_lost == fs.events_lost && burst_lost == bs.events_lost && burst_lost == lost,
        || format!("the file headers say EventsLost {file_lost} and {burst_lost}"),
    )?;
    check(
        ls.real_time_buffers_lost == 0 && fs.log_buffers_lost + bs.log_buffers_lost == 0,
        || "a real-time or log buffer was lost".into(),
    )?;

    writeln!(
        out,
        "\n== what each session holds (read back: the files, and what the consumer received)"
    )?;
    writeln!(
        out,
        "  DemoFile   ids {file_ids:?}  in {demo_name}, each with a PROCESS_START_KEY item"
    )?;
    writeln!(
        out,
        "  DemoLive   ids {live_ids:?}  delivered to the consumer oldest first (CON-04), e.g. id {} at {}",
        delivered.first().map_or(0, |r| r.header.descriptor.id),
        delivered
            .first()
            .map_or_else(|| "-".into(), |r| filetime_utc(r.header.timestamp))
    )?;
    writeln!(
        out,
        "  DemoBurst  {} events of the burst in {burst_name}; the other {lost} were never recorded",
        burst_ids.len()
    )?;
    writeln!(
        out,
        "  each session applied its own filters to the one stream (FLT-20)"
    )?;

    writeln!(
        out,
        "\n== the sessions after ControlTrace(STOP), as `xperf -Loggers` lists them"
    )?;
    writeln!(
        out,
        "  {:<10} {:<10} {:>7} {:>7} {:>6} {:>10} {:>14} {:>19} {:>14}",
        "Session",
        "Mode",
        "BufSize",
        "Buffers",
        "Events",
        "EventsLost",
        "BuffersWritten",
        "RealTimeBuffersLost",
        "LogBuffersLost"
    )?;
    let events = [file_ids.len(), live_ids.len(), burst_ids.len()];
    for ((name, p), n) in stats.iter().zip(events) {
        writeln!(
            out,
            "  {:<10} {:<10} {:>4} KB {:>7} {:>6} {:>10} {:>14} {:>19} {:>14}",
            name,
            mode_name(p),
            p.buffer_size_kb,
            p.number_of_buffers,
            n,
            p.events_lost,
            p.buffers_written,
            p.real_time_buffers_lost,
            p.log_buffers_lost
        )?;
    }
    write!(
        out,
        "  (Buffers: NumberOfBuffers in the pool; Events: events the session recorded — in its file,
   or delivered to its consumer)

== where events were lost, and which counter moved
  DemoBurst  EventsLost {b_lost}: writes {first}–{BURST} found CPU 3's buffer full, no free buffer, and
             the pool at MaximumBuffers; each EventWrite returned {code} and
             its event is gone (EVT-07, BUF-04). The loss happened in memory, before the
             logger had written anything: more or bigger buffers, or a logger (and disk)
             that keeps pace with the writer, would have kept them (BUF-19).
             BuffersWritten {b_written}: every buffer that filled reached {burst_name}.
  DemoFile   EventsLost {f_lost}, DemoLive EventsLost {l_lost}: they always had a free buffer, and the
             burst's provider is not enabled in them: loss is counted per session.
  RealTimeBuffersLost {rt_lost}: DemoLive's consumer kept up; a consumer that falls behind loses whole
             buffers, counted here, and finds an RTLostBuffer marker in its stream (BUF-07, BUF-14).
  LogBuffersLost {log_lost}: every buffer the logger took reached its file; a write that fails
             (a full disk) would be counted here (BUF-07).

== files written
  {demo}   {f_events} events, BuffersWritten {file_buffers} in its header (the header buffer included), EventsLost {file_lost}
  {burst}  {b_events} events, BuffersWritten {burst_buffers} in its header, EventsLost {burst_lost}
  {manifest}   the manifest of the three providers: their events' names, fields and messages

  read one:  etwsim dump {demo} --manifest {manifest}
  (from the source tree: cargo run --release -p etwsim-cli -- dump {demo} --manifest {manifest})
",
        b_lost = bs.events_lost,
        first = burst.first_loss,
        code = burst.code,
        b_written = bs.buffers_written,
        f_lost = fs.events_lost,
        l_lost = ls.events_lost,
        rt_lost = ls.real_time_buffers_lost,
        log_lost = fs.log_buffers_lost + bs.log_buffers_lost,
        demo = files.demo.display(),
        burst = files.burst.display(),
        manifest = files.manifest.display(),
        f_events = file_ids.len(),
        b_events = burst_ids.len(),
    )?;
    Ok(())
}
