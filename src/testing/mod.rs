//! Test helpers: capture what sessions record, and matchers for the assertions tests make.
//!
//! A [`Capture`] is a deterministic kernel, a process to write from, and in-memory sessions;
//! [`Capture::records`] hands back everything the sessions recorded so far — flushed for you,
//! TraceLogging, manifest (given the manifest) and kernel (MOF) events decoded — without
//! stopping anything. [`Records::expect`] with a [`Match`] states what should be there, and
//! fails with a message listing what was:
//!
//! ```
//! use etwsim::testing::{Capture, Match, PayloadProbe};
//! use etwsim::{EnableParams, EventDescriptor, Keyword, Level};
//!
//! let guid = "{5eed0201-2026-4e75-8000-636170747572}".parse().unwrap();
//! let cap = Capture::new()
//!     .enable("S", guid, &EnableParams::new().level(Level::INFORMATION).any(0x10))
//!     .unwrap();
//! let provider = cap.process().register_provider(guid).unwrap();
//! let probe = PayloadProbe::new();
//! provider.write(&EventDescriptor::new(7, Level::WARNING, Keyword(0x10)), &[b"hi"]).unwrap();
//! // Verbose: no session wants it, so its payload is never built.
//! provider
//!     .write_with(&EventDescriptor::new(8, Level::VERBOSE, Keyword(0x10)), probe.build(|| vec![0u8; 64]))
//!     .unwrap();
//!
//! let records = cap.records();
//! records.expect(Match::event(7).keyword(0x10).session("S")).once();
//! records.expect(Match::event(8)).never();
//! probe.assert_never_built();
//! ```
//!
//! Where the events come from:
//!
//! * sessions the capture starts ([`Capture::enable`], [`Capture::session`]): in memory;
//! * a session the code under test started ([`Capture::attach`]): a real-time session is read
//!   by a real-time consumer opened at attach (events delivered from then on, and the
//!   session's backlog); a file session by reading its log file from the kernel's disk after a
//!   ControlTrace(FLUSH) (or as it was left, once stopped);
//! * a log file ([`Records::from_log_file`], [`Records::from_disk`]).
//!
//! Fields have one rendering, the decoder's — what `etwsim dump` shows ([`Captured::rendered`]:
//! value maps by name, out-types such as HexInt32 as `0x…`) — with the typed value beside it
//! ([`Captured::value`]); [`Match::field`] compares the typed value (`4242u32` matches a UInt32
//! 4242 only), [`Match::rendered`] the text.
//!
//! Why an event is missing is an assertion too: with a journal ([`Capture::journal`]),
//! [`Records::dropped`] lists every session's refusals with the kernel's reason:
//!
//! ```
//! use etwsim::testing::{Capture, Match};
//! use etwsim::{EnableParams, EventDescriptor, EventFilter, Keyword, Level};
//!
//! let guid = "{5eed0202-2026-4e75-8000-636170747572}".parse().unwrap();
//! let params = EnableParams::new().filter(EventFilter::EventId { filter_in: false, ids: vec![3] });
//! let cap = Capture::journal(1000).enable("S", guid, &params).unwrap();
//! let p = cap.process().register_provider(guid).unwrap();
//! for id in 1..=3 {
//!     p.write(&EventDescriptor::new(id, Level::ERROR, Keyword(0)), &[]).unwrap();
//! }
//! let records = cap.records();
//! records.dropped().expect(Match::event(3).session("S")).because("FLT-19"); // rule: FLT-19
//! records.expect(Match::any()).times(2);
//! ```

mod diff;
mod fields;
mod reasons;
pub mod synth;

pub use diff::{Difference, first_difference};
pub use fields::{Expected, Value};
pub use reasons::{DropExpectation, Dropped, Drops};

use crate::{
    Consumer, ConsumerOptions, EnableParams, Error, EventDescriptor, Guid, Kernel, KernelBuilder,
    LogFileMode, MemorySink, Process, Result, Session, SessionBuilder, Target, Token, TraceControl,
};
use etwsim_decode::manifest::Manifest;
use etwsim_decode::tracelogging::decode_record;
use etwsim_types::EventRecord;
use fields::Decoded;
use parking_lot::Mutex;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where a capture reads one session's events.
enum Source {
    /// A session the capture started, into memory.
    Memory(Session, MemorySink),
    /// A real-time session of the code under test: a consumer, and what it delivered so far.
    RealTime(Mutex<(Consumer, Vec<EventRecord>)>),
    /// A file session of the code under test: its log file on the kernel's disk.
    File(String),
}

/// A deterministic kernel with in-memory sessions, for tests — or a view of sessions the code
/// under test started ([`Capture::attach`]).
pub struct Capture {
    kernel: Kernel,
    process: Process,
    sessions: Vec<(String, Source)>,
    manifests: Vec<Manifest>,
}

impl fmt::Debug for Capture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Capture")
            .field(
                "sessions",
                &self.sessions.iter().map(|s| &s.0).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Default for Capture {
    fn default() -> Self {
        Capture::new()
    }
}

impl Capture {
    /// The kernel [`Capture::new`] builds: deterministic (seed 0), 4 CPUs. Configure it further
    /// and hand it to [`Capture::with`].
    pub fn builder() -> KernelBuilder {
        Kernel::builder().cpus(4).deterministic(0)
    }

    /// A deterministic kernel (seed 0, 4 CPUs) and a process `test.exe` run by a standard
    /// user; no session yet.
    pub fn new() -> Capture {
        Capture::with(Capture::builder()).expect("the default kernel configuration is valid")
    }

    /// As [`Capture::new`], with a journal of the newest `capacity` entries, so
    /// [`Records::dropped`] can say why events are missing.
    pub fn journal(capacity: usize) -> Capture {
        Capture::with(Capture::builder().journal(capacity))
            .expect("the default kernel configuration is valid")
    }

    /// A capture on the kernel `builder` builds (start from [`Capture::builder`] to keep it
    /// deterministic), with a process `test.exe` run by a standard user.
    ///
    /// ```
    /// use etwsim::testing::Capture;
    /// let cap = Capture::with(Capture::builder().cpus(1).journal(100))?;
    /// assert_eq!(cap.kernel().cpu_count(), 1);
    /// # Ok::<(), etwsim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`KernelBuilder::build`].
    pub fn with(builder: KernelBuilder) -> Result<Capture> {
        let kernel = builder.build()?;
        let process = kernel.spawn("test.exe", Token::user("tester"))?;
        Ok(Capture::on(kernel, process))
    }

    /// Captures on a kernel and process of your own (threaded or deterministic).
    pub fn on(kernel: Kernel, process: Process) -> Capture {
        Capture {
            kernel,
            process,
            sessions: Vec::new(),
            manifests: Vec::new(),
        }
    }

    /// Attaches to the running session `name` that the code under test started on `kernel`:
    /// a real-time session through a real-time consumer opened now (it sees the session's
    /// backlog and what is delivered from now on); a session with a log file by reading the
    /// file from the kernel's disk ([`Kernel::disk`]) at each [`records`](Self::records),
    /// after a ControlTrace(FLUSH) — or as the session left it, once stopped. Both open and
    /// flush as the System process. [`attach_also`](Self::attach_also) adds more sessions.
    ///
    /// ```
    /// use etwsim::testing::{Capture, Match};
    /// use etwsim::{EnableParams, EventDescriptor, Kernel, Keyword, Level, Token};
    ///
    /// // The code under test starts its own session.
    /// let kernel = Kernel::builder().deterministic(1).build()?;
    /// let guid = "{5eed0203-2026-4e75-8000-636170747572}".parse().unwrap();
    /// let session = kernel.session("Mine").log_file("mine.etl").start()?;
    /// session.enable(guid, &EnableParams::new())?;
    /// let app = kernel.spawn("app.exe", Token::user("u"))?;
    /// app.register_provider(guid)?.write(&EventDescriptor::new(5, Level::ERROR, Keyword(0)), &[])?;
    ///
    /// let cap = Capture::attach(&kernel, "Mine")?;
    /// cap.records().expect(Match::event(5).session("Mine")).once();
    /// # Ok::<(), etwsim::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ERROR_WMI_INSTANCE_NOT_FOUND` when no such session runs, or it has neither a log file
    /// nor real-time delivery (a session into a sink of the code's own cannot be attached);
    /// the errors of OpenTrace for a real-time session.
    pub fn attach(kernel: &Kernel, name: &str) -> Result<Capture> {
        Capture::on(kernel.clone(), kernel.system_process()).attach_also(name)
    }

    /// Attaches one more running session of this capture's kernel (see
    /// [`attach`](Self::attach)).
    ///
    /// # Errors
    /// As [`attach`](Self::attach).
    pub fn attach_also(mut self, name: &str) -> Result<Capture> {
        let props = self
            .kernel
            .sessions()
            .into_iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::SessionNotFound(format!("no session {name:?} runs")))?;
        let source = if props.log_file_mode.contains(LogFileMode::REAL_TIME) {
            let sys = self.kernel.system_process();
            let c = self
                .kernel
                .open_realtime(&sys, name, ConsumerOptions::default())?;
            Source::RealTime(Mutex::new((c, Vec::new())))
        } else if let Some(path) = props.log_file.clone().filter(|p| !p.is_empty()) {
            Source::File(path)
        } else {
            return Err(Error::SessionNotFound(format!(
                "session {name:?} has neither a log file nor real-time delivery to attach to"
            )));
        };
        self.sessions.push((props.name, source));
        Ok(self)
    }

    /// Starts the session `name` in memory as `configure` sets it up — buffer size and
    /// counts, flush timer, clock, mode — for tests that need a sized session.
    ///
    /// ```
    /// use etwsim::testing::Capture;
    /// let cap = Capture::new()
    ///     .with_session("Burst", |s| s.buffer_size_kb(4).minimum_buffers(2).maximum_buffers(2))?;
    /// assert_eq!(cap.session("Burst").unwrap().query()?.buffer_size_kb, 4);
    /// # Ok::<(), etwsim::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`SessionBuilder::start`]; `ERROR_ALREADY_EXISTS` for a name the capture has.
    pub fn with_session(
        mut self,
        name: &str,
        configure: impl FnOnce(SessionBuilder) -> SessionBuilder,
    ) -> Result<Capture> {
        if self.sessions.iter().any(|s| s.0 == name) {
            return Err(Error::InvalidParameter(format!(
                "the capture has a session {name:?}"
            )));
        }
        let sink = MemorySink::new();
        let builder = self
            .kernel
            .session(name)
            .log_file(&format!("{name}.etl"))
            .sink(sink.clone());
        let s = configure(builder).start()?;
        self.sessions
            .push((name.to_string(), Source::Memory(s, sink)));
        Ok(self)
    }

    /// Enables `guid` with `params` in the session `session`, starting that session (in
    /// memory, the kernel's default buffers) if it is new.
    ///
    /// # Errors
    /// As [`Kernel::start_trace`] and [`Session::enable`]; an attached session cannot be
    /// enabled here (enable it as the code under test does).
    pub fn enable(self, session: &str, guid: Guid, params: &EnableParams) -> Result<Capture> {
        let cap = if self.sessions.iter().any(|s| s.0 == session) {
            self
        } else {
            self.with_session(session, |b| b)?
        };
        match cap.session(session) {
            Some(s) => s.enable(guid, params)?,
            None => {
                return Err(Error::InvalidParameter(format!(
                    "session {session:?} is attached: the code under test enables it"
                )));
            }
        };
        Ok(cap)
    }

    /// Decodes manifest events with `manifest` (TraceLogging and kernel events decode by
    /// themselves).
    pub fn manifest(mut self, manifest: Manifest) -> Capture {
        self.manifests.push(manifest);
        self
    }

    /// The kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The process to register providers in.
    pub fn process(&self) -> &Process {
        &self.process
    }

    /// A session the capture started, by name.
    pub fn session(&self, name: &str) -> Option<&Session> {
        self.sessions.iter().find_map(|s| match &s.1 {
            Source::Memory(session, _) if s.0 == name => Some(session),
            _ => None,
        })
    }

    /// Runs `f` with the process, then returns what the sessions recorded.
    pub fn run(&self, f: impl FnOnce(&Process)) -> Records {
        f(&self.process);
        self.records()
    }

    /// `EventsLost` of the session `name` (ControlTrace QUERY), 0 if it does not run.
    pub fn events_lost(&self, name: &str) -> u32 {
        let sys = self.kernel.system_process();
        self.kernel
            .control_trace(&sys, Target::Name(name), TraceControl::Query, None)
            .map_or(0, |p| p.events_lost)
    }

    /// Everything the sessions recorded so far, session by session in the order they were
    /// added, each in write order, and (with a journal) the events they dropped. Flushes the
    /// sessions (ControlTrace FLUSH) first, so nothing needs stopping; a stopped session gives
    /// what it recorded before it stopped.
    pub fn records(&self) -> Records {
        let mut events = Vec::new();
        let sys = self.kernel.system_process();
        for (name, source) in &self.sessions {
            match source {
                Source::Memory(session, sink) => {
                    let _ = session.flush(); // a stopped session has nothing left to flush
                    for record in sink.records() {
                        events.push(Captured::new(name, record, &self.manifests));
                    }
                }
                Source::RealTime(state) => {
                    let _ = self.kernel.control_trace(
                        &sys,
                        Target::Name(name),
                        TraceControl::Flush,
                        None,
                    );
                    let mut st = state.lock();
                    let (consumer, seen) = &mut *st;
                    let fresh = consumer.drain();
                    seen.extend(fresh.into_iter().filter(|r| !r.is_lost_event_marker()));
                    for record in seen.iter() {
                        events.push(Captured::new(name, record.clone(), &self.manifests));
                    }
                }
                Source::File(path) => {
                    let _ = self.kernel.control_trace(
                        &sys,
                        Target::Name(name),
                        TraceControl::Flush,
                        None,
                    );
                    if let Ok(file) = self.kernel.disk().open_log_file(path) {
                        for record in file_records(file) {
                            events.push(Captured::new(name, record, &self.manifests));
                        }
                    }
                }
            }
        }
        let drops = Drops::from_journal(self.kernel.is_journaling(), &self.kernel.journal());
        Records { events, drops }
    }
}

fn file_records(mut file: crate::etl::LogFile) -> Vec<EventRecord> {
    file.records()
        .filter_map(|r| r.ok())
        .map(|r| r.into_event_record())
        .collect()
}

/// One recorded event: the session, the record, and its decoded fields when it could be
/// decoded.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The session that recorded it (for a log file: the file's name without extension).
    pub session: String,
    /// The record as a consumer sees it.
    pub record: EventRecord,
    /// The event name (TraceLogging metadata, the manifest event's symbol or task name, the
    /// kernel class's event type).
    pub name: Option<String>,
    /// Every decoded field as (path, value rendered as `etwsim dump` renders it), in payload
    /// order; struct members under dotted paths (`Client.Pid`). Empty when the event could
    /// not be decoded.
    pub fields: Vec<(String, String)>,
    /// Why decoding failed, for an event that looked decodable (TraceLogging metadata present,
    /// or a manifest event of a given manifest).
    pub decode_error: Option<String>,
    message: Option<String>,
    decoded: Decoded,
}

impl Captured {
    fn new(session: &str, record: EventRecord, manifests: &[Manifest]) -> Captured {
        let mut c = Captured {
            session: session.to_string(),
            name: None,
            fields: Vec::new(),
            decode_error: None,
            message: None,
            decoded: Decoded::None,
            record,
        };
        if let Some(decoded) = decode_record(&c.record) {
            match decoded {
                Ok(e) => {
                    c.name = Some(e.name.clone());
                    fields::tl_rendered(&e.fields, "", &mut c.fields);
                    c.decoded = Decoded::Tl(e.fields);
                }
                Err(e) => c.decode_error = Some(e.to_string()),
            }
            return c;
        }
        let h = &c.record.header;
        let pointer = if h.flags & etwsim_types::record::header_flags::HEADER_32_BIT != 0 {
            4
        } else {
            8
        };
        for m in manifests {
            let d = &h.descriptor;
            if m.provider(h.provider_id).is_none() {
                continue;
            }
            match m.decode_event(h.provider_id, d.id, d.version, &c.record.user_data, pointer) {
                Ok((provider, event, fields)) => {
                    c.name = event
                        .symbol
                        .clone()
                        .or_else(|| provider.task_name(event.task));
                    let items = provider
                        .template_of(event)
                        .map_or(&[][..], |t| &t.items[..]);
                    fields::manifest_rendered(provider, items, &fields, &mut c.fields);
                    c.message = provider.format_message(event, &fields);
                    c.decoded = Decoded::Mof(fields);
                    c.decode_error = None;
                    return c;
                }
                Err(e) => c.decode_error = Some(e.to_string()),
            }
        }
        if etwsim_decode::mof::class_by_guid(h.provider_id).is_some() {
            match etwsim_decode::mof::decode_event_record(&c.record) {
                Ok(ev) => {
                    c.name = Some(ev.schema.event.name.to_string());
                    fields::mof_rendered(&ev.fields, &mut c.fields);
                    c.decoded = Decoded::Mof(ev.fields);
                }
                Err(e) => c.decode_error = Some(e.to_string()),
            }
        }
        c
    }

    /// The event id.
    pub fn id(&self) -> u16 {
        self.record.header.descriptor.id
    }

    /// A decoded field's value as `etwsim dump` renders it (same as
    /// [`rendered`](Self::rendered)).
    pub fn field(&self, path: &str) -> Option<&str> {
        self.rendered(path)
    }

    /// A decoded field's value as `etwsim dump` renders it: value maps by name (`EUR`),
    /// out-types applied (`0x80070005`), struct members by dotted path (`Client.Pid`).
    pub fn rendered(&self, path: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == path)
            .map(|(_, v)| v.as_str())
    }

    /// A decoded field's typed value, in the decoder's value type: `Client.Pid` for a struct
    /// member, `Ids.1` for an array element.
    ///
    /// ```
    /// use etwsim::decode::tracelogging::{EventBuilder, Value as Tl};
    /// use etwsim::testing::{synth, Records, Value};
    ///
    /// let ev = EventBuilder::new("Hello").begin_struct("Client").value("Pid", 4242u32).end_struct().build()?;
    /// let guid = "{5eed0204-2026-4e75-8000-636170747572}".parse().unwrap();
    /// let records = Records::from_records("S", [synth::tracelogging(guid, &ev)?]);
    /// let e = records.iter().next().unwrap();
    /// assert_eq!(e.value("Client.Pid"), Some(Value::TraceLogging(&Tl::U32(4242))));
    /// assert_eq!(e.value("Client.Pid").unwrap().type_name(), "u32");
    /// # Ok::<(), etwsim::decode::Error>(())
    /// ```
    pub fn value(&self, path: &str) -> Option<Value<'_>> {
        self.decoded.value(path)
    }

    /// The manifest event's message with its insertions, as `etwsim dump` shows it.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
}

impl fmt::Display for Captured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.record.header;
        let d = &h.descriptor;
        write!(
            f,
            "[{}] {} id {} level {} keyword {:#x} opcode {} pid {}",
            self.session, h.provider_id, d.id, d.level.0, d.keyword.0, d.opcode.0, h.process_id
        )?;
        if let Some(n) = &self.name {
            write!(f, " {n}")?;
        }
        for (n, v) in &self.fields {
            write!(f, " {n}={v}")?;
            if let Some(typed) = self.value(n) {
                let plain = typed.to_string();
                if &plain == v {
                    write!(f, " ({})", typed.type_name())?;
                } else {
                    write!(f, " ({} {plain})", typed.type_name())?;
                }
            }
        }
        if let Some(e) = &self.decode_error {
            write!(f, " (not decoded: {e})")?;
        }
        Ok(())
    }
}

/// What [`Capture::records`] returned, or the events of a log file.
#[derive(Clone, Debug, Default)]
pub struct Records {
    events: Vec<Captured>,
    drops: Drops,
}

impl Records {
    /// The events of a log file on the host's disk, decoded (TraceLogging and kernel events;
    /// manifest events with [`with_manifest`](Self::with_manifest)); the session is the
    /// file's name without extension.
    ///
    /// # Errors
    /// The reader's error: a missing file, or one that is not an `.etl` file.
    pub fn from_log_file(path: impl AsRef<Path>) -> crate::etl::Result<Records> {
        let path = path.as_ref();
        let file = crate::etl::LogFile::open(path)?;
        Ok(Records::from_records(&stem(path), file_records(file)))
    }

    /// The events of a log file on `kernel`'s disk (its virtual disk in deterministic mode),
    /// as [`from_log_file`](Self::from_log_file).
    ///
    /// # Errors
    /// As [`from_log_file`](Self::from_log_file).
    pub fn from_disk(kernel: &Kernel, path: impl AsRef<Path>) -> crate::etl::Result<Records> {
        let path = path.as_ref();
        let file = kernel.disk().open_log_file(path)?;
        Ok(Records::from_records(&stem(path), file_records(file)))
    }

    /// Records of your own (synthesised with [`synth`], or from a consumer), decoded, as if
    /// session `session` recorded them.
    pub fn from_records(session: &str, records: impl IntoIterator<Item = EventRecord>) -> Records {
        Records {
            events: records
                .into_iter()
                .map(|r| Captured::new(session, r, &[]))
                .collect(),
            drops: Drops::default(),
        }
    }

    /// Decodes again, with `manifest`, the events nothing decoded yet.
    pub fn with_manifest(mut self, manifest: &Manifest) -> Records {
        let ms = std::slice::from_ref(manifest);
        for e in &mut self.events {
            if e.name.is_none() {
                *e = Captured::new(&e.session, std::mem::take(&mut e.record), ms);
            }
        }
        self
    }

    /// Every captured event.
    pub fn iter(&self) -> std::slice::Iter<'_, Captured> {
        self.events.iter()
    }

    /// How many events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// No event at all.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events `m` matches (`m` by value: `records.matching(Match::event(7))` needs no
    /// named temporary).
    pub fn matching(&self, m: Match) -> impl Iterator<Item = &Captured> + '_ {
        self.events.iter().filter(move |e| m.matches(e))
    }

    /// Starts an assertion about the events `m` matches.
    pub fn expect(&self, m: Match) -> Expectation<'_> {
        Expectation {
            records: self,
            m,
            only: false,
        }
    }

    /// The events sessions dropped and why — from the kernel's journal, so only on a kernel
    /// with one ([`Capture::journal`]); an expectation on it panics otherwise.
    pub fn dropped(&self) -> &Drops {
        &self.drops
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

impl<'a> IntoIterator for &'a Records {
    type Item = &'a Captured;
    type IntoIter = std::slice::Iter<'a, Captured>;
    fn into_iter(self) -> Self::IntoIter {
        self.events.iter()
    }
}

/// How a [`Match`] tests one field.
#[derive(Clone, Debug, PartialEq)]
enum FieldTest {
    Typed(Expected),
    Rendered(String),
}

/// A description of events: every part given must hold.
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use]
pub struct Match {
    id: Option<u16>,
    keyword: Option<u64>,
    keyword_any: Option<u64>,
    level: Option<u8>,
    opcode: Option<u8>,
    provider: Option<Guid>,
    session: Option<String>,
    name: Option<String>,
    pid: Option<u32>,
    message: Option<String>,
    fields: Vec<(String, FieldTest)>,
}

impl Match {
    /// Any event.
    pub fn any() -> Match {
        Match::default()
    }

    /// Events with this id.
    pub fn event(id: u16) -> Match {
        Match {
            id: Some(id),
            ..Match::default()
        }
    }

    /// TraceLogging, manifest or kernel events with this name.
    pub fn named(name: &str) -> Match {
        Match {
            name: Some(name.to_string()),
            ..Match::default()
        }
    }

    /// … whose keyword is exactly `keyword`.
    pub fn keyword(mut self, keyword: u64) -> Match {
        self.keyword = Some(keyword);
        self
    }

    /// … whose keyword has a bit of `bits`.
    pub fn keyword_any(mut self, bits: u64) -> Match {
        self.keyword_any = Some(bits);
        self
    }

    /// … at this level.
    pub fn level(mut self, level: crate::Level) -> Match {
        self.level = Some(level.0);
        self
    }

    /// … with this opcode.
    pub fn opcode(mut self, opcode: u8) -> Match {
        self.opcode = Some(opcode);
        self
    }

    /// … of this provider.
    pub fn provider(mut self, guid: Guid) -> Match {
        self.provider = Some(guid);
        self
    }

    /// … recorded by this session.
    pub fn session(mut self, name: &str) -> Match {
        self.session = Some(name.to_string());
        self
    }

    /// … written by this process.
    pub fn pid(mut self, pid: u32) -> Match {
        self.pid = Some(pid);
        self
    }

    /// … whose decoded field at `path` (`Client.Pid` for a struct member) has this type and
    /// value: `4242u32` matches a UInt32 4242, not a UInt64 4242 nor a string `"4242"`; a
    /// `&str` matches a string field. See [`Expected`].
    pub fn field(mut self, path: &str, value: impl Into<Expected>) -> Match {
        self.fields
            .push((path.to_string(), FieldTest::Typed(value.into())));
        self
    }

    /// … whose decoded field at `path` renders as `text`, as `etwsim dump` shows it: a value
    /// map's name (`"EUR"`), an out-type's form (`"0x80070005"`).
    pub fn rendered(mut self, path: &str, text: &str) -> Match {
        self.fields
            .push((path.to_string(), FieldTest::Rendered(text.to_string())));
        self
    }

    /// … whose manifest message, with its insertions, is `text`.
    pub fn message(mut self, text: &str) -> Match {
        self.message = Some(text.to_string());
        self
    }

    /// Whether `e` is such an event.
    pub fn matches(&self, e: &Captured) -> bool {
        let h = &e.record.header;
        self.matches_parts(
            &h.descriptor,
            h.provider_id,
            h.process_id,
            &e.session,
            e.name.as_deref(),
        ) && self
            .message
            .as_ref()
            .is_none_or(|m| e.message() == Some(m.as_str()))
            && self.fields.iter().all(|(n, t)| match t {
                FieldTest::Typed(want) => e.value(n).is_some_and(|v| want.matches(v)),
                FieldTest::Rendered(text) => e.rendered(n) == Some(text.as_str()),
            })
    }

    /// The header parts: what a dropped event (journal) can be matched on too.
    pub(crate) fn matches_parts(
        &self,
        d: &EventDescriptor,
        provider: Guid,
        pid: u32,
        session: &str,
        name: Option<&str>,
    ) -> bool {
        self.id.is_none_or(|v| d.id == v)
            && self.keyword.is_none_or(|v| d.keyword.0 == v)
            && self.keyword_any.is_none_or(|v| d.keyword.0 & v != 0)
            && self.level.is_none_or(|v| d.level.0 == v)
            && self.opcode.is_none_or(|v| d.opcode.0 == v)
            && self.provider.is_none_or(|v| provider == v)
            && self.pid.is_none_or(|v| pid == v)
            && self.session.as_ref().is_none_or(|v| session == v)
            && self.name.as_ref().is_none_or(|v| name == Some(v.as_str()))
    }
}

impl fmt::Display for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(v) = self.id {
            parts.push(format!("event {v}"));
        }
        if let Some(v) = &self.name {
            parts.push(format!("named {v:?}"));
        }
        if let Some(v) = self.keyword {
            parts.push(format!("with keyword {v:#x}"));
        }
        if let Some(v) = self.keyword_any {
            parts.push(format!("with a keyword bit of {v:#x}"));
        }
        if let Some(v) = self.level {
            parts.push(format!("at level {v}"));
        }
        if let Some(v) = self.opcode {
            parts.push(format!("opcode {v}"));
        }
        if let Some(v) = self.provider {
            parts.push(format!("of provider {v}"));
        }
        if let Some(v) = self.pid {
            parts.push(format!("from pid {v}"));
        }
        for (n, t) in &self.fields {
            match t {
                FieldTest::Typed(v) => parts.push(format!("{n}={v}")),
                FieldTest::Rendered(v) => parts.push(format!("{n} rendered {v:?}")),
            }
        }
        if let Some(v) = &self.message {
            parts.push(format!("with message {v:?}"));
        }
        if parts.is_empty() {
            parts.push("any event".into());
        }
        if let Some(v) = &self.session {
            parts.push(format!("recorded by session {v:?}"));
        }
        f.write_str(&parts.join(" "))
    }
}

/// An assertion in progress: [`Records::expect`] then how many times.
#[derive(Debug)]
#[must_use = "an expectation checks nothing until once(), times(), never() or at_least() runs"]
pub struct Expectation<'a> {
    records: &'a Records,
    m: Match,
    only: bool,
}

impl Expectation<'_> {
    /// … and nothing else: every captured event must match too.
    ///
    /// ```
    /// use etwsim::testing::{Capture, Match};
    /// use etwsim::{EnableParams, EventDescriptor, Keyword, Level};
    /// let guid = "{5eed0205-2026-4e75-8000-636170747572}".parse().unwrap();
    /// let cap = Capture::new().enable("S", guid, &EnableParams::new()).unwrap();
    /// let p = cap.process().register_provider(guid).unwrap();
    /// p.write(&EventDescriptor::new(1, Level::ERROR, Keyword(0)), &[]).unwrap();
    /// cap.records().expect(Match::event(1)).only().once();
    /// ```
    pub fn only(mut self) -> Self {
        self.only = true;
        self
    }

    /// Exactly `n` matching events, or a panic that lists what was captured.
    #[track_caller]
    pub fn times(self, n: usize) {
        self.check(|k| k == n, &format!("exactly {n}"));
    }

    /// Exactly one.
    #[track_caller]
    pub fn once(self) {
        self.times(1);
    }

    /// None.
    #[track_caller]
    pub fn never(self) {
        self.times(0);
    }

    /// At least `n`.
    #[track_caller]
    pub fn at_least(self, n: usize) {
        self.check(|k| k >= n, &format!("at least {n}"));
    }

    /// How many events match (for assertions of your own).
    pub fn count(&self) -> usize {
        self.records.iter().filter(|e| self.m.matches(e)).count()
    }

    #[track_caller]
    fn check(self, ok: impl Fn(usize) -> bool, wanted: &str) {
        let found = self.count();
        let others = self.records.len() - found;
        if !ok(found) || (self.only && others > 0) {
            let only = if self.only { " and nothing else" } else { "" };
            let mut msg = format!(
                "expected {wanted} {}{only}, found {found} (and {others} other); captured {} event(s):",
                self.m,
                self.records.len()
            );
            for e in self.records.iter().take(50) {
                msg.push_str("\n  ");
                msg.push_str(&e.to_string());
            }
            if self.records.len() > 50 {
                msg.push_str("\n  …");
            }
            panic!("{msg}");
        }
    }
}

/// Counts how often a payload was built: for "no session listens, so the payload is never
/// built" (`Provider::write_with`). Counting is interior (`&self`), so a probe works from
/// `Fn` closures too ([`build_fn`](Self::build_fn), [`hit`](Self::hit)).
#[derive(Clone, Debug, Default)]
pub struct PayloadProbe {
    built: Arc<AtomicUsize>,
}

impl PayloadProbe {
    /// A probe that has seen nothing built.
    pub fn new() -> PayloadProbe {
        PayloadProbe::default()
    }

    /// Wraps a payload builder so the probe counts its runs.
    pub fn build<R>(&self, f: impl FnOnce() -> R) -> impl FnOnce() -> R {
        let built = self.built.clone();
        move || {
            built.fetch_add(1, Ordering::Relaxed);
            f()
        }
    }

    /// Wraps a reusable payload builder (an `Fn`, as code that keeps its builder takes it)
    /// so the probe counts every run.
    ///
    /// ```
    /// use etwsim::testing::PayloadProbe;
    /// let probe = PayloadProbe::new();
    /// let payload = probe.build_fn(|| vec![1u8, 2]);
    /// let run_twice = |f: &dyn Fn() -> Vec<u8>| { f(); f(); };
    /// run_twice(&payload);
    /// assert_eq!(probe.built(), 2);
    /// ```
    pub fn build_fn<R>(&self, f: impl Fn() -> R) -> impl Fn() -> R {
        let built = self.built.clone();
        move || {
            built.fetch_add(1, Ordering::Relaxed);
            f()
        }
    }

    /// Counts one build, from wherever the payload is built (`&self`: usable inside any
    /// closure that borrows the probe).
    pub fn hit(&self) {
        self.built.fetch_add(1, Ordering::Relaxed);
    }

    /// How many payloads were built.
    pub fn built(&self) -> usize {
        self.built.load(Ordering::Relaxed)
    }

    /// Panics if any payload was built.
    #[track_caller]
    pub fn assert_never_built(&self) {
        let n = self.built();
        assert!(
            n == 0,
            "a payload was built {n} time(s), but none should have been"
        );
    }
}
