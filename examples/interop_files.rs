//! The interoperability proof from *sessions*: etwsim's sessions write `.etl` files in every
//! mode, and for each file this example also writes what etwsim recorded as written, so the
//! two third-party parsers' view of the file can be checked field by field.
//!
//! The files (one deterministic kernel with 4 simulated CPUs, `Disk::Real`, all in the
//! output folder):
//!
//! | file | what it proves |
//! |---|---|
//! | `sequential.etl` | SEQUENTIAL, system-time clock, varied descriptors, payloads from 0 bytes up to 3 KB over several 8 KB buffers, an EventWriteString event |
//! | `circular.etl` | CIRCULAR after it wrapped: 20 flushed buffers into a file that holds 7 |
//! | `newfile_1.etl` … `newfile_3.etl` | every file of a NEWFILE set: the first fills to MaximumFileSize and rolls over to the second; INCREMENT_FILE starts the third |
//! | `buffering.etl` | a BUFFERING session whose ring an UPDATE wrote to a new file, then an explicit FLUSH |
//! | `cpus.etl` | four simulated CPUs, two processes, buffers flushed as they fill |
//! | `extended.etl` | every extended item a session produces: RELATED_ACTIVITYID, SID, TS_ID, STACK_TRACE64, EVENT_KEY, PROCESS_START_KEY, PROV_TRAITS (and EVENT_SCHEMA_TL), empty payloads |
//! | `tracelogging.etl` | TraceLogging events (`write_with_options` with an event name and EVENT_SCHEMA_TL metadata using only types etl-parser decodes), a provider with traits |
//!
//! Beside each `FILE.etl` it writes `FILE.expected.jsonl`: one JSON object per event the file
//! must hold, with the keys `etl_check.py --json` uses (`provider`, `id`, `version`,
//! `channel`, `level`, `opcode`, `task`, `keyword`, `pid`, `tid`, `ts_raw`, `payload_len`,
//! `ext` as `[type, data size]` pairs, and for TraceLogging events `tl_name` and
//! `tl_fields`). Nothing in it is read back from the file or from a sink: every field is what
//! this program passed to the write call (the descriptor, the payload's length, the writing
//! process and thread), the extended items the session was asked for (EnableProperty, a
//! related activity ID, provider traits, TraceLogging metadata), with their sizes computed
//! from the format reference (etl-format §6.2: a SID is 8 + 4 × sub-authorities bytes, a
//! 64-bit stack is 8 + 8 × frames, …), and the timestamp read from the **deterministic
//! clock**: `Kernel::now()` right after each write. The virtual clock moves by exactly one
//! event tick per write and by nothing else in between, so that value is the instant the
//! engine stamped the event with; it is converted to the session's clock type's raw units
//! by the format rules (QPC at 10 MHz: 100-ns ticks since boot; system time: the boot
//! FILETIME plus those ticks). A `MemorySink` twin was not used because its records would
//! come through etwsim's own record decoder — the comparison would then partly be etwsim
//! agreeing with itself.
//!
//! Which events a file keeps is also derived, not read: files that keep everything keep
//! every event written; for CIRCULAR and NEWFILE each group of events is followed by a
//! FLUSH, which makes exactly one buffer of it (checked with BuffersWritten), and a file
//! of MaximumFileSize 32 KB with 4 KB buffers holds 8 buffers, buffer 0 (the header)
//! included.
//!
//! Standard output gets one line per file: its path, a tab, the number of events, a tab,
//! and `ordered` (the parsers must return the events in exactly this order: one CPU, no
//! wrap) or `sorted` (compare by timestamp: several CPUs' buffers, or a wrapped circular
//! file). `scripts/interop.sh` runs this, then `etl_check.py FILE --expect N --json OUT` and
//! `scripts/compare_interop.py` on each file.
//!
//! ```sh
//! cargo run --example interop_files -- target/interop/sessions
//! ```

use etwsim::clock::{CPU_SPEED_MHZ, DEFAULT_EVENT_TICK, DETERMINISTIC_BOOT_FILETIME};
use etwsim::{
    Channel, ClockType, Disk, EnableParams, EnableProperty, EventDescriptor, Guid, Kernel, Keyword,
    Level, LogFileMode, Opcode, Process, Provider, ProviderTraits, Session, SessionUpdate, Task,
    Thread, Token, WriteOptions,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Res<T> = Result<T, Box<dyn std::error::Error>>;
/// Writes one or more files and says what each must hold.
type Part = fn(&World, &Path) -> Res<Vec<OutFile>>;

/// `EVENT_HEADER_EXT_TYPE_*` (etl-format §6.2).
mod ext {
    pub(crate) const RELATED_ACTIVITYID: u16 = 1;
    pub(crate) const SID: u16 = 2;
    pub(crate) const TS_ID: u16 = 3;
    pub(crate) const STACK_TRACE64: u16 = 6;
    pub(crate) const EVENT_KEY: u16 = 10;
    pub(crate) const EVENT_SCHEMA_TL: u16 = 11;
    pub(crate) const PROV_TRAITS: u16 = 12;
    pub(crate) const PROCESS_START_KEY: u16 = 13;
}

/// The frames etwsim synthesises for a thread that set no stack (brief of the event path:
/// "3 synthetic frames").
const SYNTHETIC_FRAMES: usize = 3;

/// One event a file must hold.
struct Expected {
    provider: Guid,
    desc: EventDescriptor,
    pid: u32,
    tid: u32,
    ts_raw: i64,
    payload_len: usize,
    ext: Vec<(u16, usize)>,
    /// TraceLogging: the event name and (field name, value as `etl_check.py` prints
    /// etl-parser's decoding of it).
    tl: Option<(String, Vec<(String, String)>)>,
}

/// A file and what it must hold.
struct OutFile {
    path: PathBuf,
    events: Vec<Expected>,
    ordered: bool,
}

/// A registered provider and what the current session adds to its events.
struct Source {
    provider: Provider,
    pid: u32,
    /// Bytes of the writing process's SID (SID extended item).
    sid_len: usize,
    /// The EnableProperty the session enabled it with.
    props: EnableProperty,
    /// Bytes of its traits blob, when it has traits (PROV_TRAITS on every event).
    traits_len: Option<usize>,
}

impl Source {
    fn new(process: &Process, provider: Provider, traits: Option<&ProviderTraits>) -> Source {
        Source {
            provider,
            pid: process.pid(),
            sid_len: process.token().sid.binary_len(),
            props: EnableProperty::empty(),
            traits_len: traits.map(traits_len),
        }
    }
}

/// The traits blob's size (etl-format §6.2): u16 TotalSize, the UTF-8 name and its NUL,
/// then each trait as u16 size, u8 type, data.
fn traits_len(t: &ProviderTraits) -> usize {
    2 + t.name.len() + 1 + t.traits.iter().map(|(_, d)| 3 + d.len()).sum::<usize>()
}

/// A simulated thread and the stack frames it carries (0 = none set).
struct Writer {
    thread: Thread,
    frames: usize,
}

impl Writer {
    fn new(process: &Process, cpu: u16, stack: &[u64]) -> Res<Writer> {
        let thread = process.spawn_thread(cpu)?;
        if !stack.is_empty() {
            thread.set_stack(stack);
        }
        Ok(Writer {
            thread,
            frames: stack.len(),
        })
    }
}

/// Writes events and notes what each must look like in the file.
struct Recorder<'k> {
    kernel: &'k Kernel,
    clock: ClockType,
    events: Vec<Expected>,
}

/// What one write adds beside the descriptor and payload.
#[derive(Default)]
struct Extra<'a> {
    related: Option<Guid>,
    tl_name: Option<&'a str>,
    tl: Option<&'a Tl>,
}

impl<'k> Recorder<'k> {
    fn new(kernel: &'k Kernel, clock: ClockType) -> Recorder<'k> {
        Recorder {
            kernel,
            clock,
            events: Vec::new(),
        }
    }

    fn ticks(&self) -> u64 {
        (self.kernel.now().as_nanos() / 100) as u64
    }

    /// The raw timestamp of the session's clock type for `ticks` 100-ns ticks since boot
    /// (etl-format §8).
    fn raw(&self, ticks: u64) -> i64 {
        match self.clock {
            ClockType::Qpc => ticks as i64,
            ClockType::SystemTime => DETERMINISTIC_BOOT_FILETIME + ticks as i64,
            ClockType::CpuCycle => (ticks * (CPU_SPEED_MHZ / 10)) as i64,
        }
    }

    /// `EventWrite` / `EventWriteTransfer` / TraceLogging on `w`'s thread.
    fn write(
        &mut self,
        w: &Writer,
        src: &Source,
        desc: EventDescriptor,
        payload: &[u8],
        extra: Extra<'_>,
    ) -> Res<()> {
        let metadata = extra.tl.map(Tl::metadata);
        let data = extra.tl.map(Tl::data);
        let payload = data.as_deref().unwrap_or(payload);
        let options = WriteOptions {
            related_activity_id: extra.related.as_ref(),
            event_name: extra.tl_name.or(extra.tl.map(|t| t.name.as_str())),
            tracelogging_metadata: metadata.as_deref(),
            ..WriteOptions::default()
        };
        let before = self.ticks();
        {
            let _on = w.thread.enter();
            // Two data descriptors when there is a payload: they are concatenated (EVT-11).
            let (a, b) = payload.split_at(payload.len() / 2);
            let blocks: &[&[u8]] = if payload.is_empty() { &[] } else { &[a, b] };
            src.provider.write_with_options(&desc, &options, blocks)?;
        }
        let after = self.ticks();
        if after != before + DEFAULT_EVENT_TICK {
            return Err(format!(
                "event {} of {}: the clock moved {} ticks, not one event tick: not recorded?",
                desc.id,
                src.provider.guid(),
                after - before
            )
            .into());
        }
        let p = src.props;
        let mut items = Vec::new();
        if extra.related.is_some() {
            items.push((ext::RELATED_ACTIVITYID, 16));
        }
        if p.contains(EnableProperty::SID) {
            items.push((ext::SID, src.sid_len));
        }
        if p.contains(EnableProperty::TS_ID) {
            items.push((ext::TS_ID, 4));
        }
        if p.contains(EnableProperty::STACK_TRACE) {
            let frames = if w.frames == 0 {
                SYNTHETIC_FRAMES
            } else {
                w.frames
            };
            items.push((ext::STACK_TRACE64, 8 + 8 * frames)); // MatchId + frames
        }
        if p.contains(EnableProperty::EVENT_KEY) {
            items.push((ext::EVENT_KEY, 8));
        }
        if p.contains(EnableProperty::PROCESS_START_KEY) {
            items.push((ext::PROCESS_START_KEY, 8));
        }
        if let Some(n) = src.traits_len {
            items.push((ext::PROV_TRAITS, n));
        }
        if let Some(m) = &metadata {
            items.push((ext::EVENT_SCHEMA_TL, m.len()));
        }
        self.events.push(Expected {
            provider: src.provider.guid(),
            desc,
            pid: src.pid,
            tid: w.thread.tid(),
            ts_raw: self.raw(after),
            payload_len: payload.len(),
            ext: items,
            tl: extra.tl.map(|t| {
                (
                    t.name.clone(),
                    t.fields
                        .iter()
                        .map(|f| (f.name.clone(), f.shown.clone()))
                        .collect(),
                )
            }),
        });
        Ok(())
    }

    /// `EventWriteString`: the UTF-16 text and its NUL, descriptor id 0 (EVT-13).
    fn write_string(
        &mut self,
        w: &Writer,
        src: &Source,
        level: Level,
        kw: u64,
        text: &str,
    ) -> Res<()> {
        let before = self.ticks();
        {
            let _on = w.thread.enter();
            src.provider.write_string(level, Keyword(kw), text)?;
        }
        let after = self.ticks();
        assert_eq!(
            after,
            before + DEFAULT_EVENT_TICK,
            "a string event is recorded"
        );
        self.events.push(Expected {
            provider: src.provider.guid(),
            desc: EventDescriptor::new(0, level, Keyword(kw)),
            pid: src.pid,
            tid: w.thread.tid(),
            ts_raw: self.raw(after),
            payload_len: 2 * (text.encode_utf16().count() + 1),
            ext: Vec::new(),
            tl: None,
        });
        Ok(())
    }

    fn take(&mut self) -> Vec<Expected> {
        std::mem::take(&mut self.events)
    }
}

/// A TraceLogging event: its name and fields (etl-format §6.3), only types etl-parser
/// decodes (no COUNTED*, FILETIME, HEXINT64, SID, structs or field tags; ASCII ANSI strings).
struct Tl {
    name: String,
    fields: Vec<TlField>,
}

struct TlField {
    name: String,
    in_type: u8,
    out_type: Option<u8>,
    value: Vec<u8>,
    /// The value as `etl_check.py` prints etl-parser's decoding of it.
    shown: String,
}

impl Tl {
    fn new(name: &str) -> Tl {
        Tl {
            name: name.into(),
            fields: Vec::new(),
        }
    }

    fn field(mut self, name: &str, in_type: u8, value: Vec<u8>, shown: &str) -> Tl {
        self.fields.push(TlField {
            name: name.into(),
            in_type,
            out_type: None,
            value,
            shown: shown.to_owned(),
        });
        self
    }

    /// A field whose InType carries CHAIN (0x80) and an OutType byte.
    fn field_out(
        mut self,
        name: &str,
        in_type: u8,
        out_type: u8,
        value: Vec<u8>,
        shown: &str,
    ) -> Tl {
        self.fields.push(TlField {
            name: name.into(),
            in_type: in_type | 0x80,
            out_type: Some(out_type),
            value,
            shown: shown.to_owned(),
        });
        self
    }

    fn utf16z(s: &str) -> Vec<u8> {
        s.encode_utf16()
            .chain([0])
            .flat_map(u16::to_le_bytes)
            .collect()
    }

    fn ansiz(s: &str) -> Vec<u8> {
        assert!(
            s.is_ascii(),
            "etl-parser decodes ANSI strings as ASCII (Q1)"
        );
        let mut v = s.as_bytes().to_vec();
        v.push(0);
        v
    }

    /// EVENT_SCHEMA_TL: u16 TotalSize, no event tag (one 0 byte), the name and its NUL, then
    /// per field its name, NUL, InType and the OutType when CHAIN is set.
    fn metadata(&self) -> Vec<u8> {
        let mut m = vec![0, 0, 0];
        m.extend_from_slice(self.name.as_bytes());
        m.push(0);
        for f in &self.fields {
            m.extend_from_slice(f.name.as_bytes());
            m.push(0);
            m.push(f.in_type);
            m.extend(f.out_type);
        }
        let total = m.len() as u16;
        m[..2].copy_from_slice(&total.to_le_bytes());
        m
    }

    /// The field values packed in field order.
    fn data(&self) -> Vec<u8> {
        self.fields.iter().flat_map(|f| f.value.clone()).collect()
    }
}

/// A payload of `len` bytes whose first u32 is odd, so dissect.etl's extended-item scan of
/// user data (format reference Q3) never mistakes it for an item.
fn payload(seed: u32, len: usize) -> Vec<u8> {
    (seed * 2 + 1)
        .to_le_bytes()
        .into_iter()
        .chain((0..).map(|i: u32| (seed.wrapping_mul(31).wrapping_add(i) % 251) as u8))
        .take(len)
        .collect()
}

fn desc(
    id: u16,
    version: u8,
    channel: u8,
    level: u8,
    opcode: u8,
    task: u16,
    keyword: u64,
) -> EventDescriptor {
    EventDescriptor {
        id,
        version,
        channel: Channel(channel),
        level: Level(level),
        opcode: Opcode(opcode),
        task: Task(task),
        keyword: Keyword(keyword),
    }
}

fn guid(n: u32) -> Guid {
    Guid::from_fields(
        0x5e55_0000 + n,
        0x1f0e,
        0x4a11,
        [0x9b, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, n as u8],
    )
}

fn enable(session: &Session, src: &mut Source, props: EnableProperty) -> Res<()> {
    session.enable(src.provider.guid(), &EnableParams::new().property(props))?;
    src.props = props;
    Ok(())
}

/// Stops `session` and checks that it lost nothing.
fn stop(session: &Session) -> Res<()> {
    let st = session.stop()?;
    if st.events_lost != 0 || st.log_buffers_lost != 0 {
        return Err(format!(
            "session {}: {} events and {} buffers lost",
            session.name(),
            st.events_lost,
            st.log_buffers_lost
        )
        .into());
    }
    Ok(())
}

fn path_str(p: &Path) -> Res<String> {
    Ok(p.to_str()
        .ok_or("the output folder is not UTF-8")?
        .to_owned())
}

/// The machine every file is written on.
struct World {
    kernel: Kernel,
    app: Process,
    svc: Process,
}

fn sequential(w: &World, dir: &Path) -> Res<Vec<OutFile>> {
    let path = dir.join("sequential.etl");
    let session = w
        .kernel
        .session("InteropSequential")
        .log_file(&path_str(&path)?)
        .mode(LogFileMode::SEQUENTIAL)
        .clock(ClockType::SystemTime)
        .buffer_size_kb(8)
        .start()?;
    let mut a = Source::new(&w.app, w.app.register_provider(guid(1))?, None);
    let mut b = Source::new(&w.svc, w.svc.register_provider(guid(2))?, None);
    enable(&session, &mut a, EnableProperty::empty())?;
    enable(&session, &mut b, EnableProperty::empty())?;
    let ta = Writer::new(&w.app, 0, &[])?;
    let tb = Writer::new(&w.svc, 0, &[])?;
    let mut r = Recorder::new(&w.kernel, ClockType::SystemTime);
    for i in 0..160u32 {
        let (writer, src) = if i % 3 == 0 { (&tb, &b) } else { (&ta, &a) };
        let d = desc(
            (i * 7 % 1000) as u16,
            (i % 5) as u8,
            [0u8, 16, 17, 255][(i % 4) as usize],
            (i % 6) as u8,
            (i * 13 % 256) as u8,
            (i * 101 % 65536) as u16,
            match i % 5 {
                0 => 0,
                1 => 1 << (i % 64),
                2 => u64::MAX,
                3 => 0x8000_0000_0000_0000,
                _ => 0x0000_f00d_0000_0001,
            },
        );
        let len = match i % 11 {
            0 => 0, // an empty payload
            1 => 3000,
            _ => (i as usize * 37) % 400 + 4,
        };
        r.write(writer, src, d, &payload(i, len), Extra::default())?;
        if i == 80 {
            r.write_string(
                &ta,
                &a,
                Level::WARNING,
                0x10,
                "EventWriteString from etwsim",
            )?;
        }
        if i % 40 == 39 {
            w.kernel.run_pending();
        }
    }
    stop(&session)?;
    Ok(vec![OutFile {
        path,
        events: r.take(),
        ordered: true,
    }])
}

/// Writes `groups` groups of 3–5 events, each followed by a FLUSH that makes exactly one
/// buffer of it.
fn flushed_groups(
    r: &mut Recorder<'_>,
    session: &Session,
    writer: &Writer,
    src: &Source,
    groups: usize,
    first_id: u16,
) -> Res<Vec<Vec<Expected>>> {
    let mut out = Vec::new();
    for g in 0..groups {
        for k in 0..3 + g % 3 {
            let id = first_id + (g * 10 + k) as u16;
            let d = desc(id, 1, 0, 4, k as u8, g as u16, 1 << (g % 8));
            r.write(
                writer,
                src,
                d,
                &payload(u32::from(id), 24 + 40 * k),
                Extra::default(),
            )?;
        }
        let before = session.query()?.buffers_written;
        session.flush()?;
        let after = session.query()?.buffers_written;
        if after != before + 1 {
            return Err(format!("a FLUSH wrote {} buffers, not one", after - before).into());
        }
        out.push(r.take());
    }
    Ok(out)
}

fn circular(w: &World, dir: &Path) -> Res<Vec<OutFile>> {
    let path = dir.join("circular.etl");
    let session = w
        .kernel
        .session("InteropCircular")
        .log_file(&path_str(&path)?)
        .mode(LogFileMode::CIRCULAR | LogFileMode::USE_KBYTES_FOR_SIZE)
        .maximum_file_size(32)
        .buffer_size_kb(4)
        .start()?;
    let mut a = Source::new(&w.app, w.app.register_provider(guid(3))?, None);
    enable(&session, &mut a, EnableProperty::empty())?;
    let t = Writer::new(&w.app, 1, &[])?;
    let mut r = Recorder::new(&w.kernel, ClockType::Qpc);
    let groups = flushed_groups(&mut r, &session, &t, &a, 20, 100)?;
    stop(&session)?;
    // 32 KB / 4 KB = 8 buffers: buffer 0 and the 7 newest data buffers.
    let kept = groups.into_iter().skip(20 - 7).flatten().collect();
    Ok(vec![OutFile {
        path,
        events: kept,
        ordered: false,
    }])
}

fn newfile(w: &World, dir: &Path) -> Res<Vec<OutFile>> {
    let pattern = dir.join("newfile_%d.etl");
    let session = w
        .kernel
        .session("InteropNewFile")
        .log_file(&path_str(&pattern)?)
        .mode(LogFileMode::NEWFILE | LogFileMode::USE_KBYTES_FOR_SIZE)
        .maximum_file_size(32)
        .buffer_size_kb(4)
        .start()?;
    let mut a = Source::new(&w.svc, w.svc.register_provider(guid(4))?, None);
    enable(&session, &mut a, EnableProperty::empty())?;
    let t = Writer::new(&w.svc, 2, &[])?;
    let mut r = Recorder::new(&w.kernel, ClockType::Qpc);
    // 7 data buffers per file: groups 0–6 in file 1, 7–9 in file 2 …
    let mut first = flushed_groups(&mut r, &session, &t, &a, 10, 1000)?;
    let second = first.split_off(7);
    // … then INCREMENT_FILE: groups 10–12 in file 3.
    session.increment_file()?;
    let third = flushed_groups(&mut r, &session, &t, &a, 3, 2000)?;
    stop(&session)?;
    let file = |n: u32, groups: Vec<Vec<Expected>>| OutFile {
        path: dir.join(format!("newfile_{n}.etl")),
        events: groups.into_iter().flatten().collect(),
        ordered: true,
    };
    Ok(vec![file(1, first), file(2, second), file(3, third)])
}

fn buffering(w: &World, dir: &Path) -> Res<Vec<OutFile>> {
    let path = dir.join("buffering.etl");
    let session = w
        .kernel
        .session("InteropBuffering")
        .buffering()
        .buffer_size_kb(4)
        .start()?;
    let mut a = Source::new(&w.app, w.app.register_provider(guid(5))?, None);
    enable(&session, &mut a, EnableProperty::empty())?;
    let t = Writer::new(&w.app, 3, &[])?;
    let mut r = Recorder::new(&w.kernel, ClockType::Qpc);
    // A few buffers' worth in the ring (it holds MinimumBuffers = 8: nothing is evicted).
    for i in 0..30u32 {
        let d = desc(3000 + i as u16, 0, 0, 2, 0, 7, 0x20);
        r.write(&t, &a, d, &payload(i, 300), Extra::default())?;
    }
    w.kernel.run_pending(); // a BUFFERING session keeps its ring: nothing is written
    // UPDATE to a log file writes the ring into it (SES-77) …
    session.update(&SessionUpdate {
        log_file: Some(path_str(&path)?),
        ..SessionUpdate::default()
    })?;
    // … and later events reach it with an explicit FLUSH.
    for i in 30..36u32 {
        let d = desc(3000 + i as u16, 0, 0, 2, 0, 7, 0x20);
        r.write(&t, &a, d, &payload(i, 100), Extra::default())?;
    }
    session.flush()?;
    stop(&session)?;
    Ok(vec![OutFile {
        path,
        events: r.take(),
        ordered: true,
    }])
}

fn cpus(w: &World, dir: &Path) -> Res<Vec<OutFile>> {
    let path = dir.join("cpus.etl");
    let session = w
        .kernel
        .session("InteropCpus")
        .log_file(&path_str(&path)?)
        .buffer_size_kb(8)
        .start()?;
    let mut a = Source::new(&w.app, w.app.register_provider(guid(6))?, None);
    let mut b = Source::new(&w.svc, w.svc.register_provider(guid(7))?, None);
    enable(&session, &mut a, EnableProperty::empty())?;
    enable(&session, &mut b, EnableProperty::empty())?;
    let threads = [
        Writer::new(&w.app, 0, &[])?,
        Writer::new(&w.app, 1, &[])?,
        Writer::new(&w.svc, 2, &[])?,
        Writer::new(&w.svc, 3, &[])?,
    ];
    let mut r = Recorder::new(&w.kernel, ClockType::Qpc);
    for i in 0..480u32 {
        let cpu = (i % 4) as usize;
        let src = if cpu < 2 { &a } else { &b };
        let d = desc(i as u16, 0, 0, 4, 0, cpu as u16, 1);
        r.write(
            &threads[cpu],
            src,
            d,
            &payload(i, 16 + (i as usize % 9) * 24),
            Extra::default(),
        )?;
        if i % 60 == 59 {
            w.kernel.run_pending();
        }
    }
    stop(&session)?;
    Ok(vec![OutFile {
        path,
        events: r.take(),
        ordered: false,
    }])
}

/// A TraceLogging event with every field type etl-parser decodes.
fn rich_tl(n: i32) -> Tl {
    let guid = Guid::from_u128(0x1111_1111_2222_4333_8444_5555_5555_5555 + n as u128);
    let vcount: Vec<u8> = 3u16
        .to_le_bytes()
        .into_iter()
        .chain(
            [10u32, 20, 30 + n as u32]
                .iter()
                .flat_map(|v| v.to_le_bytes()),
        )
        .collect();
    Tl::new("SessionEvent")
        .field(
            "Message",
            0x01,
            Tl::utf16z("TraceLogging via a session"),
            "TraceLogging via a session",
        )
        .field("Name", 0x02, Tl::ansiz("ascii only"), "ascii only")
        .field(
            "Count",
            0x07,
            (-42 - n).to_le_bytes().to_vec(),
            &(-42 - n).to_string(),
        )
        .field(
            "Total",
            0x0A,
            u64::MAX.to_le_bytes().to_vec(),
            "18446744073709551615",
        )
        .field("Small", 0x04, vec![200], "200")
        .field("Short", 0x05, (-7i16).to_le_bytes().to_vec(), "-7")
        .field("Ratio", 0x0C, 0.25f64.to_le_bytes().to_vec(), "0.25")
        .field("Ok", 0x0D, 1u32.to_le_bytes().to_vec(), "True")
        .field(
            "Id",
            0x0F,
            guid.to_bytes_le().to_vec(),
            &guid.to_string()[1..37],
        )
        .field(
            "Flags",
            0x14, // HEXINT32: etl-parser gives the number
            0xdead_beefu32.to_le_bytes().to_vec(),
            "3735928559",
        )
        .field("Values", 0x48, vcount, &format!("[10, 20, {}]", 30 + n))
        .field(
            "Blob",
            0x0E,
            [4u16.to_le_bytes().as_slice(), &[1, 2, 3, 4]].concat(),
            "[1, 2, 3, 4]",
        )
        .field_out("Pid", 0x08, 0x05, 4242u32.to_le_bytes().to_vec(), "4242")
}

fn extended(w: &World, dir: &Path) -> Res<Vec<OutFile>> {
    let path = dir.join("extended.etl");
    let session = w
        .kernel
        .session("InteropExtended")
        .log_file(&path_str(&path)?)
        .buffer_size_kb(16)
        .start()?;
    let traits = ProviderTraits::new("Etwsim.Interop.Extended").with_group(guid(99));
    let mut full = Source::new(&w.app, w.app.register_provider(guid(8))?, None);
    let mut tl = Source::new(
        &w.app,
        w.app.register_tracelogging(guid(9), &traits)?,
        Some(&traits),
    );
    let mut plain = Source::new(&w.svc, w.svc.register_provider(guid(10))?, None);
    let all = EnableProperty::SID
        | EnableProperty::TS_ID
        | EnableProperty::STACK_TRACE
        | EnableProperty::EVENT_KEY
        | EnableProperty::PROCESS_START_KEY;
    enable(&session, &mut full, all)?;
    enable(&session, &mut tl, all)?;
    enable(
        &session,
        &mut plain,
        EnableProperty::EVENT_KEY | EnableProperty::PROCESS_START_KEY | EnableProperty::TS_ID,
    )?;
    let stacked = Writer::new(
        &w.app,
        0,
        &[
            0x7ff6_0000_1000,
            0x7ff6_0000_2000,
            0x7ff6_0000_3000,
            0x7ff6_0000_4000,
            0x7ff6_0000_5000,
        ],
    )?;
    let bare = Writer::new(&w.app, 1, &[])?; // synthetic stack
    let svc = Writer::new(&w.svc, 1, &[])?;
    let related = |n: u128| {
        Some(Guid::from_u128(
            0xfeed_0000_0000_4000_8000_0000_0000_0000 + n,
        ))
    };
    let mut r = Recorder::new(&w.kernel, ClockType::Qpc);
    for i in 0..12u32 {
        let id = 500 + i as u16;
        let writer = if i % 2 == 0 { &stacked } else { &bare };
        let base = desc(id, 2, 9, 3, 1, 4, 0x100);
        // SID, TS_ID, STACK_TRACE64, EVENT_KEY, PROCESS_START_KEY
        r.write(
            writer,
            &full,
            base,
            &payload(i, 40 + i as usize),
            Extra::default(),
        )?;
        // … with RELATED_ACTIVITYID first
        let rel = Extra {
            related: related(u128::from(i)),
            ..Extra::default()
        };
        r.write(writer, &full, base, &payload(i + 100, 64), rel)?;
        // an empty payload with every item
        let rel = Extra {
            related: related(u128::from(i) + 50),
            ..Extra::default()
        };
        r.write(writer, &full, base, &[], rel)?;
        // TraceLogging: all eight item types a session produces, PROV_TRAITS and
        // EVENT_SCHEMA_TL last
        let ev = rich_tl(i as i32);
        let tl_extra = Extra {
            related: related(u128::from(i) + 100),
            tl: Some(&ev),
            ..Extra::default()
        };
        r.write(writer, &tl, desc(0, 0, 11, 4, 0, 0, 0x10), &[], tl_extra)?;
        // the TraceLogging provider writing a manifest-style event: PROV_TRAITS, no schema
        r.write(
            writer,
            &tl,
            desc(id, 0, 0, 5, 0, 0, 0x20),
            &payload(i + 200, 12),
            Extra::default(),
        )?;
        // another process, other properties
        r.write(
            &svc,
            &plain,
            desc(id, 1, 0, 4, 2, 0, 0x40),
            &payload(i + 300, 20),
            Extra::default(),
        )?;
        let rel = Extra {
            related: related(u128::from(i) + 150),
            ..Extra::default()
        };
        r.write(&svc, &plain, desc(id, 1, 0, 4, 2, 0, 0x40), &[], rel)?;
    }
    stop(&session)?;
    Ok(vec![OutFile {
        path,
        events: r.take(),
        ordered: false,
    }])
}

fn tracelogging(w: &World, dir: &Path) -> Res<Vec<OutFile>> {
    let path = dir.join("tracelogging.etl");
    let session = w
        .kernel
        .session("InteropTraceLogging")
        .log_file(&path_str(&path)?)
        .buffer_size_kb(8)
        .start()?;
    let traits = ProviderTraits::new("Etwsim.Interop.TraceLogging");
    let mut tl = Source::new(
        &w.app,
        w.app.register_tracelogging(guid(11), &traits)?,
        Some(&traits),
    );
    enable(&session, &mut tl, EnableProperty::empty())?;
    let t = Writer::new(&w.app, 2, &[])?;
    let mut r = Recorder::new(&w.kernel, ClockType::Qpc);
    for i in 0..40i32 {
        let ev = match i % 4 {
            0 => rich_tl(i),
            1 => Tl::new("Started")
                .field(
                    "Path",
                    0x01,
                    Tl::utf16z(&format!("C:\\data\\file{i}.txt")),
                    &format!("C:\\data\\file{i}.txt"),
                )
                .field(
                    "Size",
                    0x09,
                    (i64::from(i) * 1000).to_le_bytes().to_vec(),
                    &(i64::from(i) * 1000).to_string(),
                ),
            2 => Tl::new("Progress")
                .field("Percent", 0x0B, 0.5f32.to_le_bytes().to_vec(), "0.5")
                .field(
                    "Step",
                    0x06,
                    (i as u16).to_le_bytes().to_vec(),
                    &i.to_string(),
                )
                .field("Tiny", 0x03, (-1i8).to_le_bytes().to_vec(), "-1"),
            _ => Tl::new("Heartbeat"), // no fields: an empty payload
        };
        let level = [4u8, 5, 2, 1][(i % 4) as usize];
        let extra = Extra {
            tl: Some(&ev),
            ..Extra::default()
        };
        r.write(
            &t,
            &tl,
            desc(0, 0, 11, level, (i % 3) as u8, 0, 1 << (i % 3)),
            &[],
            extra,
        )?;
    }
    stop(&session)?;
    Ok(vec![OutFile {
        path,
        events: r.take(),
        ordered: true,
    }])
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn expected_jsonl(events: &[Expected]) -> String {
    let mut out = String::new();
    for e in events {
        let g = e.provider.to_string();
        let d = &e.desc;
        let ext: Vec<String> = e.ext.iter().map(|(t, n)| format!("[{t}, {n}]")).collect();
        let _ = write!(
            out,
            "{{\"kind\": \"EVENT_HEADER\", \"provider\": {}, \"id\": {}, \"version\": {}, \
             \"channel\": {}, \"level\": {}, \"opcode\": {}, \"task\": {}, \"keyword\": {}, \
             \"pid\": {}, \"tid\": {}, \"ts_raw\": {}, \"payload_len\": {}, \"ext\": [{}]",
            json_str(g.trim_matches(['{', '}'])),
            d.id,
            d.version,
            d.channel.0,
            d.level.0,
            d.opcode.0,
            d.task.0,
            d.keyword.0,
            e.pid,
            e.tid,
            e.ts_raw,
            e.payload_len,
            ext.join(", ")
        );
        if let Some((name, fields)) = &e.tl {
            let fs: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}: {}", json_str(k), json_str(v)))
                .collect();
            let _ = write!(
                out,
                ", \"tl_name\": {}, \"tl_fields\": {{{}}}",
                json_str(name),
                fs.join(", ")
            );
        }
        out.push_str("}\n");
    }
    out
}

fn run(dir: &Path) -> Res<Vec<OutFile>> {
    let kernel = Kernel::builder()
        .cpus(4)
        .deterministic(2026)
        .disk(Disk::Real)
        .build()?;
    let app = kernel.spawn("interop.exe", Token::user("alice"))?;
    let svc = kernel.spawn("service.exe", Token::local_service())?;
    let w = World { kernel, app, svc };
    let mut files = Vec::new();
    let parts: [Part; 7] = [
        sequential,
        circular,
        newfile,
        buffering,
        cpus,
        extended,
        tracelogging,
    ];
    for part in parts {
        files.extend(part(&w, dir)?);
    }
    Ok(files)
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: interop_files OUTPUT_DIR");
        return ExitCode::from(2);
    };
    let result = std::fs::create_dir_all(&dir)
        .map_err(Into::into)
        .and_then(|()| std::path::absolute(&dir).map_err(Into::into))
        .and_then(|dir| run(&dir));
    let files = match result {
        Ok(f) => f,
        Err(e) => {
            eprintln!("interop_files: {e}");
            return ExitCode::FAILURE;
        }
    };
    for f in files {
        let stem = f.path.with_extension("");
        let expected = PathBuf::from(format!("{}.expected.jsonl", stem.display()));
        if let Err(e) = std::fs::write(&expected, expected_jsonl(&f.events)) {
            eprintln!("writing {}: {e}", expected.display());
            return ExitCode::FAILURE;
        }
        if !f.path.is_file() {
            eprintln!("{} was not written", f.path.display());
            return ExitCode::FAILURE;
        }
        println!(
            "{}\t{}\t{}",
            f.path.display(),
            f.events.len(),
            if f.ordered { "ordered" } else { "sorted" }
        );
    }
    ExitCode::SUCCESS
}
