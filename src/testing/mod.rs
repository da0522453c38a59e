//! Test helpers: capture what sessions record, and matchers for the assertions tests make.
//!
//! A [`Capture`] is a deterministic kernel, a process to write from, and in-memory sessions;
//! [`Capture::records`] hands back everything the sessions recorded so far — flushed for you,
//! TraceLogging events (and manifest events, given the manifest) decoded — without stopping
//! anything. [`Records::expect`] with a [`Match`] states what should be there, and fails
//! with a message listing what was:
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

use crate::{EnableParams, Guid, Kernel, MemorySink, Process, Result, Session, Token};
use etwsim_decode::manifest::Manifest;
use etwsim_decode::tracelogging::decode_record;
use etwsim_types::EventRecord;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A deterministic kernel with in-memory sessions, for tests.
pub struct Capture {
    kernel: Kernel,
    process: Process,
    sessions: Vec<(String, Session, MemorySink)>,
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
    /// A deterministic kernel (seed 0, 4 CPUs) and a process `test.exe` run by a standard
    /// user; no session yet.
    pub fn new() -> Capture {
        let kernel = Kernel::builder()
            .cpus(4)
            .deterministic(0)
            .build()
            .expect("the default kernel configuration is valid");
        let process = kernel
            .spawn("test.exe", Token::user("tester"))
            .expect("a fresh kernel has room for a process");
        Capture::on(kernel, process)
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

    /// Enables `guid` with `params` in the session `session`, starting that session (in
    /// memory, 64 KB buffers) if it is new.
    ///
    /// # Errors
    /// As [`Kernel::start_trace`] and [`Session::enable`].
    pub fn enable(mut self, session: &str, guid: Guid, params: &EnableParams) -> Result<Capture> {
        let i = match self.sessions.iter().position(|s| s.0 == session) {
            Some(i) => i,
            None => {
                let sink = MemorySink::new();
                let s = self
                    .kernel
                    .session(session)
                    .log_file(&format!("{session}.etl"))
                    .sink(sink.clone())
                    .start()?;
                self.sessions.push((session.to_string(), s, sink));
                self.sessions.len() - 1
            }
        };
        self.sessions[i].1.enable(guid, params)?;
        Ok(self)
    }

    /// Decodes manifest events with `manifest` (TraceLogging events decode by themselves).
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

    /// A session by name.
    pub fn session(&self, name: &str) -> Option<&Session> {
        self.sessions.iter().find(|s| s.0 == name).map(|s| &s.1)
    }

    /// Runs `f` with the process, then returns what the sessions recorded.
    pub fn run(&self, f: impl FnOnce(&Process)) -> Records {
        f(&self.process);
        self.records()
    }

    /// Everything the sessions recorded so far, session by session in the order they were
    /// enabled, each in write order. Flushes the sessions (ControlTrace FLUSH) first, so
    /// nothing needs stopping; a stopped session gives what it recorded before it stopped.
    pub fn records(&self) -> Records {
        let mut events = Vec::new();
        for (name, session, sink) in &self.sessions {
            let _ = session.flush(); // a stopped session has nothing left to flush
            for record in sink.records() {
                events.push(Captured::new(name, record, &self.manifests));
            }
        }
        Records { events }
    }
}

/// One recorded event: the session, the record, and its decoded fields when it could be
/// decoded.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The session that recorded it.
    pub session: String,
    /// The record as a consumer sees it.
    pub record: EventRecord,
    /// The event name (TraceLogging metadata, or the manifest event's symbol or task name).
    pub name: Option<String>,
    /// The decoded fields as (name, value rendered as text), in payload order; empty when the
    /// event could not be decoded.
    pub fields: Vec<(String, String)>,
    /// Why decoding failed, for an event that looked decodable (TraceLogging metadata present,
    /// or a manifest event of a given manifest).
    pub decode_error: Option<String>,
}

impl Captured {
    fn new(session: &str, record: EventRecord, manifests: &[Manifest]) -> Captured {
        let mut c = Captured {
            session: session.to_string(),
            name: None,
            fields: Vec::new(),
            decode_error: None,
            record,
        };
        if let Some(decoded) = decode_record(&c.record) {
            match decoded {
                Ok(e) => {
                    c.name = Some(e.name.clone());
                    c.fields = e
                        .fields
                        .iter()
                        .map(|f| (f.name().to_string(), f.value.to_string()))
                        .collect();
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
                    c.fields = fields
                        .iter()
                        .map(|f| (f.name.clone(), f.value.to_string()))
                        .collect();
                    c.decode_error = None;
                    break;
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

    /// A decoded field's value, as text.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
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
        }
        Ok(())
    }
}

/// What [`Capture::records`] returned.
#[derive(Clone, Debug, Default)]
pub struct Records {
    events: Vec<Captured>,
}

impl Records {
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

    /// The events `m` matches.
    pub fn matching<'a>(&'a self, m: &'a Match) -> impl Iterator<Item = &'a Captured> + 'a {
        self.events.iter().filter(move |e| m.matches(e))
    }

    /// Starts an assertion about the events `m` matches.
    pub fn expect(&self, m: Match) -> Expectation<'_> {
        Expectation { records: self, m }
    }
}

impl<'a> IntoIterator for &'a Records {
    type Item = &'a Captured;
    type IntoIter = std::slice::Iter<'a, Captured>;
    fn into_iter(self) -> Self::IntoIter {
        self.events.iter()
    }
}

/// A description of events: every part given must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    fields: Vec<(String, String)>,
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

    /// TraceLogging or manifest events with this name.
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

    /// … whose decoded field `name` renders as `value`.
    pub fn field(mut self, name: &str, value: impl fmt::Display) -> Match {
        self.fields.push((name.to_string(), value.to_string()));
        self
    }

    /// Whether `e` is such an event.
    pub fn matches(&self, e: &Captured) -> bool {
        let h = &e.record.header;
        let d = &h.descriptor;
        self.id.is_none_or(|v| d.id == v)
            && self.keyword.is_none_or(|v| d.keyword.0 == v)
            && self.keyword_any.is_none_or(|v| d.keyword.0 & v != 0)
            && self.level.is_none_or(|v| d.level.0 == v)
            && self.opcode.is_none_or(|v| d.opcode.0 == v)
            && self.provider.is_none_or(|v| h.provider_id == v)
            && self.pid.is_none_or(|v| h.process_id == v)
            && self.session.as_ref().is_none_or(|v| &e.session == v)
            && self
                .name
                .as_ref()
                .is_none_or(|v| e.name.as_ref() == Some(v))
            && self
                .fields
                .iter()
                .all(|(n, v)| e.field(n) == Some(v.as_str()))
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
        for (n, v) in &self.fields {
            parts.push(format!("{n}={v}"));
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
}

impl Expectation<'_> {
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
        self.records.matching(&self.m).count()
    }

    #[track_caller]
    fn check(self, ok: impl Fn(usize) -> bool, wanted: &str) {
        let found = self.count();
        if !ok(found) {
            let mut msg = format!(
                "expected {wanted} {}, found {found}; captured {} event(s):",
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
/// built" (`Provider::write_with`).
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
