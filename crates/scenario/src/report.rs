//! The HTML report: one self-contained page (inline SVG, a little inline JavaScript, no
//! external font, script or image, so it opens with no network) that shows
//!
//! * a **timeline** per session and CPU: events as marks, buffer switches, flushes and loss
//!   points;
//! * each provider's **enable-slot table** (which session holds which of the 8 slots, with
//!   level, keywords and EnableProperty);
//! * the **counters** per session: events, EventsLost, BuffersWritten, LogBuffersLost,
//!   RealTimeBuffersLost;
//! * an **event's detail** on hover or click: id, level, keyword, provider, PID/TID, CPU, time,
//!   and the decoded fields where `etwsim-decode` can decode them.
//!
//! From a scenario run ([`scenario_html`]) the timeline comes from the journal and the writes:
//! each write's mark sits in the lane of its CPU in every session that stored it (red where
//! a session wanted it but lost it); `BufferSwitch` entries are ticks on their CPU's lane;
//! `Flush` entries are lines across the session; losses without a CPU (LogBuffersLost,
//! RealTimeBuffersLost) are diamonds on the session's own lane. The enable-slot table is the
//! one of the **last moment some session was running** (after the last action that left a
//! session running): at the very end every session has stopped and every slot is empty.
//!
//! From an `.etl` file ([`etl_html`]) the timeline comes from the records and the buffer
//! headers: one lane per CPU of the file's one session, each record a mark at its timestamp,
//! each buffer's flush time a boundary line on its CPU's lane, buffers with the
//! `EVENTS_LOST` flag and RT_LostEvent records as loss points. A file does not record which
//! sessions enabled its providers, so the slot table says so; RealTimeBuffersLost is not in a
//! file either.
//!
//! Every text put into the page is escaped (HTML text and attributes; the event data is JSON
//! inside a `<script type="application/json">`, with `<`, `>` and `&` written as `\u003c`…).

use crate::error::Error;
use crate::run::{ExpectationResult, Outcome, WriteRecord};
use crate::scenario::Scenario;
use etwsim::etl::{self, LogFile, LogfileHeader, Record};
use etwsim::record::{buffer_flags, filetime_utc};
use etwsim::{EventDescriptor, Guid, JournalEvent, LossCounter};
use etwsim_decode::manifest::Manifest;
use std::fmt::Write as _;
use std::path::Path;

/// Events drawn one by one on a page; a larger input shows its first ones and says so.
pub const MAX_MARKED_EVENTS: usize = 20_000;
/// Journal entries listed in the page's journal section.
pub const MAX_LISTED_JOURNAL: usize = 5_000;
/// Buffer switches, flushes and losses a scenario page marks on its timeline; a run with
/// more marks its first ones and says how many there were.
pub const MAX_MARKED_JOURNAL: usize = 20_000;

/// One session's block of lanes.
#[derive(Debug, Default)]
struct SessionLanes {
    name: String,
    cpus: Vec<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MarkKind {
    /// An event stored (detail index).
    Event(usize),
    /// An event a session wanted and lost (detail index).
    LostEvent(usize),
    /// A buffer switch on a CPU.
    Switch,
    /// A flush, or (an .etl file) a buffer's flush time.
    Flush,
    /// A loss without a CPU, or a buffer flagged EVENTS_LOST.
    Loss,
}

#[derive(Debug)]
struct Mark {
    session: usize,
    /// `None`: the session's own lane.
    cpu: Option<u16>,
    time: u64,
    kind: MarkKind,
    /// Hover text for marks that have no detail entry.
    title: String,
}

#[derive(Debug, Default)]
struct Counters {
    session: String,
    events: Option<u64>,
    events_lost: Option<u64>,
    buffers_written: Option<u64>,
    log_buffers_lost: Option<u64>,
    real_time_buffers_lost: Option<u64>,
}

#[derive(Debug)]
struct SlotRow {
    slot: u8,
    session: String,
    logger_id: u16,
    level: u8,
    any: u64,
    all: u64,
    properties: String,
}

#[derive(Debug)]
struct ProviderSlots {
    name: String,
    guid: Guid,
    rows: Vec<SlotRow>,
}

/// Everything the page shows, from either source.
#[derive(Debug, Default)]
struct Page {
    title: String,
    subtitle: String,
    /// The timeline's time range, in 100 ns units.
    start: u64,
    end: u64,
    sessions: Vec<SessionLanes>,
    marks: Vec<Mark>,
    /// Each event's detail: (label, value) rows.
    details: Vec<Vec<(String, String)>>,
    counters: Vec<Counters>,
    slots_note: String,
    slots: Vec<ProviderSlots>,
    expectations: Vec<ExpectationResult>,
    journal: Vec<String>,
    notes: Vec<String>,
    /// Where an `.etl` file stops being readable, shown first and marked on the timeline.
    damage: Option<String>,
    /// Why a scenario run stopped early, shown first.
    stopped: Option<String>,
    /// What each boot did (a scenario booted from a registry), as `BootReport` prints it.
    boots: Vec<String>,
    /// Kernel (MOF) events per session: (session, [(class/event, count)]).
    kernel: Vec<(String, Vec<(String, u64)>)>,
}

fn level_text(level: u8) -> String {
    match etwsim::Level(level).name() {
        Some(n) => format!("{level} ({n})"),
        None => level.to_string(),
    }
}

fn descriptor_rows(d: &EventDescriptor, rows: &mut Vec<(String, String)>) {
    rows.push(("id".into(), d.id.to_string()));
    rows.push(("version".into(), d.version.to_string()));
    rows.push(("level".into(), level_text(d.level.0)));
    rows.push(("keyword".into(), format!("{:#x}", d.keyword.0)));
    rows.push(("opcode".into(), d.opcode.0.to_string()));
    rows.push(("task".into(), d.task.0.to_string()));
    rows.push(("channel".into(), d.channel.0.to_string()));
}

fn hex_preview(bytes: &[u8]) -> String {
    let mut s: String = bytes
        .iter()
        .take(32)
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ");
    if bytes.len() > 32 {
        s.push_str(" …");
    }
    s
}

/// The decoded fields of a manifest event, as rows.
fn manifest_rows(
    provider: &etwsim_decode::manifest::Provider,
    d: &EventDescriptor,
    payload: &[u8],
    pointer_size: u8,
    rows: &mut Vec<(String, String)>,
) -> bool {
    let Some(event) = provider.event(d.id, d.version) else {
        return false;
    };
    if let Some(sym) = &event.symbol {
        rows.push(("event".into(), sym.clone()));
    }
    match provider.decode(event, payload, pointer_size) {
        Ok(fields) => {
            if let Some(m) = provider.format_message(event, &fields) {
                rows.push(("message".into(), m));
            }
            for f in &fields {
                rows.push((format!("field {}", f.name), f.value.to_string()));
            }
            let names = provider.keyword_names(d.keyword.0);
            if !names.is_empty() {
                rows.push(("keyword names".into(), names.join(" ")));
            }
        }
        Err(e) => rows.push(("decode".into(), format!("manifest: {e}"))),
    }
    true
}

/// The payload as text, when it is printable UTF-8 (a `payload_text` write).
fn printable_utf8(payload: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(payload).ok()?;
    (!text.is_empty()
        && text
            .chars()
            .all(|c| !c.is_control() || c == '\n' || c == '\t'))
    .then(|| text.to_string())
}

fn utf16_text(payload: &[u8]) -> String {
    let units: Vec<u16> = payload
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|u| *u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

/// The page of a scenario run (see the module docs for where each part comes from).
pub fn scenario_html(scenario: &Scenario, outcome: &Outcome) -> String {
    render(&scenario_page(scenario, outcome))
}

fn scenario_page(sc: &Scenario, o: &Outcome) -> Page {
    let mut page = Page {
        title: format!("etwsim scenario: {}", o.scenario),
        subtitle: format!(
            "{}{} — {} CPU{}, {} writes, {} journal entries",
            o.file,
            sc.description()
                .map(|d| format!(": {d}"))
                .unwrap_or_default(),
            o.cpus,
            if o.cpus == 1 { "" } else { "s" },
            o.writes_total,
            o.journal.len()
        ),
        start: 0,
        end: o.end_time.max(1),
        ..Page::default()
    };
    let session_of = |name: &str| {
        o.sessions
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
    };
    page.sessions = o
        .sessions
        .iter()
        .map(|s| SessionLanes {
            name: s.name.clone(),
            cpus: Vec::new(),
        })
        .collect();
    let add_cpu = |page: &mut Page, s: usize, cpu: u16| {
        let lanes = &mut page.sessions[s].cpus;
        if !lanes.contains(&cpu) {
            lanes.push(cpu);
            lanes.sort_unstable();
        }
    };
    for (i, w) in o.writes.iter().enumerate() {
        if i >= MAX_MARKED_EVENTS {
            page.notes.push(format!(
                "the timeline shows the first {MAX_MARKED_EVENTS} of {} writes",
                o.writes_total
            ));
            break;
        }
        if w.stored.is_empty() && w.lost.is_empty() {
            continue;
        }
        let detail = page.details.len();
        page.details.push(write_rows(sc, o, w));
        let stored = w.stored.iter().map(|&s| (s, MarkKind::Event(detail)));
        let lost = w.lost.iter().map(|&s| (s, MarkKind::LostEvent(detail)));
        for (s, kind) in stored.chain(lost) {
            add_cpu(&mut page, s, w.cpu);
            page.marks.push(Mark {
                session: s,
                cpu: Some(w.cpu),
                time: w.time,
                kind,
                title: String::new(),
            });
        }
    }
    // Kernel (MOF) events, on their session's CPU lanes: their FILETIME stamps are virtual
    // time since boot (each boot starts at DETERMINISTIC_BOOT_FILETIME).
    for (s, summary) in o.sessions.iter().enumerate() {
        for e in &summary.kernel_events {
            if page.details.len() >= MAX_MARKED_EVENTS {
                break;
            }
            let time =
                u64::try_from(e.time - etwsim::clock::DETERMINISTIC_BOOT_FILETIME).unwrap_or(0);
            let mut rows = vec![
                (
                    "kernel event".to_string(),
                    format!(
                        "{}/{}",
                        e.event.schema.class.name, e.event.schema.event.name
                    ),
                ),
                ("pid".into(), e.pid.to_string()),
                ("cpu".into(), e.cpu.to_string()),
                ("time".into(), filetime_utc(e.time)),
            ];
            for f in &e.event.fields {
                rows.push((format!("field {}", f.name), f.value.to_string()));
            }
            let detail = page.details.len();
            page.details.push(rows);
            add_cpu(&mut page, s, e.cpu);
            page.end = page.end.max(time + 1);
            page.marks.push(Mark {
                session: s,
                cpu: Some(e.cpu),
                time,
                kind: MarkKind::Event(detail),
                title: String::new(),
            });
        }
    }
    let mut journal_marks = 0usize;
    for e in &o.journal {
        if matches!(
            &e.event,
            JournalEvent::BufferSwitch { .. }
                | JournalEvent::Flush { .. }
                | JournalEvent::Loss { .. }
        ) {
            journal_marks += 1;
            if journal_marks > MAX_MARKED_JOURNAL {
                continue;
            }
        }
        match &e.event {
            JournalEvent::BufferSwitch {
                session,
                cpu,
                buffers,
                ..
            } => {
                if let Some(s) = session_of(session) {
                    add_cpu(&mut page, s, *cpu);
                    page.marks.push(Mark {
                        session: s,
                        cpu: Some(*cpu),
                        time: e.time,
                        kind: MarkKind::Switch,
                        title: format!(
                            "#{} CPU {cpu} switches buffers ({buffers} allocated)",
                            e.seq
                        ),
                    });
                }
            }
            JournalEvent::Flush {
                session,
                buffers,
                reason,
                ..
            } => {
                if let Some(s) = session_of(session) {
                    page.marks.push(Mark {
                        session: s,
                        cpu: None,
                        time: e.time,
                        kind: MarkKind::Flush,
                        title: format!("#{} {buffers} buffer(s) written out {reason}", e.seq),
                    });
                }
            }
            JournalEvent::Loss {
                session,
                counter,
                count,
                reason,
                rule,
                ..
            } if *counter != LossCounter::EventsLost => {
                if let Some(s) = session_of(session) {
                    page.marks.push(Mark {
                        session: s,
                        cpu: None,
                        time: e.time,
                        kind: MarkKind::Loss,
                        title: format!(
                            "#{} {} += {count}: {reason} ({rule})",
                            e.seq,
                            counter.name()
                        ),
                    });
                }
            }
            _ => {}
        }
    }
    if journal_marks > MAX_MARKED_JOURNAL {
        page.notes.push(format!(
            "the timeline marks the first {MAX_MARKED_JOURNAL} of {journal_marks} buffer switches, flushes and losses"
        ));
    }
    page.counters = o
        .sessions
        .iter()
        .map(|s| Counters {
            session: s.name.clone(),
            events: s.events,
            events_lost: s.stats.as_ref().map(|p| u64::from(p.events_lost)),
            buffers_written: s.stats.as_ref().map(|p| u64::from(p.buffers_written)),
            log_buffers_lost: s.stats.as_ref().map(|p| u64::from(p.log_buffers_lost)),
            real_time_buffers_lost: s
                .stats
                .as_ref()
                .map(|p| u64::from(p.real_time_buffers_lost)),
        })
        .collect();
    page.slots_note = match o.slots.line {
        Some(line) => format!(
            "As EnumerateTraceGuidsEx / Kernel::enable_slots showed them at the last moment a session was running: after the action on line {line}, at {}.",
            ms(o.slots.time)
        ),
        None => "No session ever ran, so no provider was ever enabled.".into(),
    };
    page.slots = o
        .providers
        .iter()
        .enumerate()
        .map(|(i, p)| ProviderSlots {
            name: p.name.clone(),
            guid: p.guid,
            rows: o
                .slots
                .providers
                .get(i)
                .map(|rows| {
                    rows.iter()
                        .map(|(slot, session, info)| SlotRow {
                            slot: *slot,
                            session: session.clone(),
                            logger_id: info.logger_id,
                            level: info.level.0,
                            any: info.match_any_keyword.0,
                            all: info.match_all_keyword.0,
                            properties: property_names(info.enable_property),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    page.expectations = o.expectations.clone();
    if let Some(a) = &o.aborted {
        page.stopped = Some(format!(
            "The run stopped at {}: {} — the steps after it did not run, and the expectations were checked against what came before.",
            a.place(),
            a.message
        ));
    }
    if o.journal_dropped > 0 {
        page.notes.push(format!(
            "the journal's bound let go of its {} oldest entries",
            o.journal_dropped
        ));
    }
    page.journal = o
        .journal
        .iter()
        .take(MAX_LISTED_JOURNAL)
        .map(ToString::to_string)
        .collect();
    page.boots = o.boots.iter().map(ToString::to_string).collect();
    if o.boots.len() > 1 {
        page.notes.push(format!(
            "the machine booted {} times: each boot's clock starts again at 0, so the timeline and the journal overlay the boots",
            o.boots.len()
        ));
    }
    page.kernel = o
        .sessions
        .iter()
        .filter(|s| !s.kernel_events.is_empty())
        .map(|s| {
            let mut counts: Vec<(String, u64)> = Vec::new();
            for e in &s.kernel_events {
                let name = format!(
                    "{}/{}",
                    e.event.schema.class.name, e.event.schema.event.name
                );
                match counts.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, c)) => *c += 1,
                    None => counts.push((name, 1)),
                }
            }
            (s.name.clone(), counts)
        })
        .collect();
    page
}

fn property_names(p: etwsim::EnableProperty) -> String {
    let names: Vec<&str> = p.iter_names().map(|(n, _)| n).collect();
    if names.is_empty() {
        "-".into()
    } else {
        names.join(" | ")
    }
}

/// A time in 100 ns units as people read it: milliseconds below 10 s, seconds above.
fn ms(t: u64) -> String {
    if t >= 100_000_000 {
        let ms = t / 10_000;
        format!("{}.{:03} s", ms / 1000, ms % 1000)
    } else {
        let us = t / 10;
        format!("{}.{:03} ms", us / 1000, us % 1000)
    }
}

fn write_rows(sc: &Scenario, o: &Outcome, w: &WriteRecord) -> Vec<(String, String)> {
    let provider = &o.providers[w.provider];
    let mut rows = vec![(
        "provider".to_string(),
        format!("{} {}", provider.name, provider.guid),
    )];
    descriptor_rows(&w.descriptor, &mut rows);
    rows.push(("pid".into(), w.pid.to_string()));
    rows.push(("tid".into(), w.tid.to_string()));
    rows.push(("cpu".into(), w.cpu.to_string()));
    rows.push(("time".into(), ms(w.time)));
    if let Some(seq) = w.seq {
        rows.push(("journal".into(), format!("#{seq}")));
    }
    rows.push((
        "result".into(),
        match w.result {
            Ok(()) => "ok".into(),
            Err(e) => format!("{} ({})", e.name().unwrap_or("error"), e.0),
        },
    ));
    let names = |list: &[usize]| {
        list.iter()
            .map(|s| o.sessions[*s].name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !w.stored.is_empty() {
        rows.push(("stored by".into(), names(&w.stored)));
    }
    if !w.lost.is_empty() {
        rows.push(("lost by".into(), names(&w.lost)));
    }
    rows.push((
        "payload".into(),
        format!("{} bytes: {}", w.payload.len(), hex_preview(&w.payload)),
    ));
    let decoded = sc
        .providers
        .get(w.provider)
        .and_then(|p| p.manifest.as_ref())
        .is_some_and(|m| manifest_rows(m, &w.descriptor, &w.payload, 8, &mut rows));
    if !decoded {
        if let Some(text) = printable_utf8(&w.payload) {
            rows.push(("as text".into(), text));
        } else if w.descriptor.id == 0 && w.payload.len() >= 2 && w.payload.len() % 2 == 0 {
            rows.push(("string".into(), utf16_text(&w.payload)));
        }
    }
    rows
}

/// Where an `.etl` file stops being readable, judged as `etwsim dump` judges it: the
/// `.etl` reader's first damage (a truncated file, a bad buffer header, an undecodable
/// record, fewer buffers than the header's `BuffersWritten`), after the records before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtlDamage {
    /// What is wrong, as a sentence: `the file is truncated: it ends at byte 5000 (0x1388),
    /// …` or `the file is damaged: …`.
    pub message: String,
    /// The file offset of the damage (for a truncated file, its end), when known.
    pub offset: Option<u64>,
    /// Records read (and shown) before it.
    pub records: u64,
}

impl std::fmt::Display for EtlDamage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match self.records {
            0 => f.write_str("; no record could be read before it"),
            1 => f.write_str("; the 1 record before it is shown"),
            n => write!(f, "; the {n} records before it are shown"),
        }
    }
}

/// Buffers whose flush, first record and EVENTS_LOST flag an `.etl` page marks one by one;
/// a larger file's later buffers are only counted.
pub const MAX_MARKED_BUFFERS: usize = 20_000;

/// The page of an `.etl` file (see the module docs); `manifests` decode the events of the
/// providers they describe. The file is read as a stream — the `.etl` reader's memory, one
/// buffer per CPU — and at most [`MAX_MARKED_EVENTS`] events and [`MAX_MARKED_BUFFERS`]
/// buffers are kept for the page, which says how many more there were. A damaged or
/// truncated file's page shows what was read and marks where it stops ([`write_report`]
/// also returns the [`EtlDamage`]).
///
/// # Errors
/// [`Error::Io`] / [`Error::Etl`] if the file cannot be opened as an `.etl` file at all.
pub fn etl_html(path: &Path, manifests: &[Manifest]) -> Result<String, Error> {
    let (page, _) = etl_file_page(path, manifests)?;
    Ok(render(&page))
}

/// [`etl_html`] for a file's bytes; `label` names it.
///
/// # Errors
/// [`Error::Etl`] if the bytes are not an `.etl` file.
pub fn etl_bytes_html(
    label: &Path,
    bytes: Vec<u8>,
    manifests: &[Manifest],
) -> Result<String, Error> {
    let (page, _) = etl_bytes_page(label, bytes, manifests)?;
    Ok(render(&page))
}

/// Where the page reads buffer headers from (for each buffer's flush time and flags).
enum BufferHeaders {
    /// The file, one positioned read of a header per buffer.
    File(std::fs::File),
    /// The headers of an in-memory file's whole buffers, by index.
    Table(Vec<Option<etwsim::record::BufferHeader>>),
    /// A file whose buffers are not at fixed strides (compressed mode): none.
    None,
}

impl BufferHeaders {
    /// The header of buffer `index`, if it is where a fixed-stride file keeps it and looks
    /// like the buffer of `cpu` the reader read.
    fn get(&mut self, index: u32, stride: u32, cpu: u16) -> Option<etwsim::record::BufferHeader> {
        let h = match self {
            BufferHeaders::File(f) => {
                let mut raw = [0u8; etwsim::record::BUFFER_HEADER_SIZE];
                read_at(f, u64::from(index) * u64::from(stride), &mut raw).ok()?;
                etwsim::record::BufferHeader::decode(&raw)?
            }
            BufferHeaders::Table(t) => (*t.get(index as usize)?)?,
            BufferHeaders::None => return None,
        };
        (h.buffer_size == stride && h.processor == cpu).then_some(h)
    }
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(not(unix))]
fn read_at(mut f: &std::fs::File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

fn etl_file_page(path: &Path, manifests: &[Manifest]) -> Result<(Page, Option<EtlDamage>), Error> {
    let err = |source| Error::Etl {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        return Err(Error::Io {
            what: "cannot read",
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "it is a folder, not an .etl file",
            ),
        });
    }
    let file = LogFile::open(path).map_err(err)?;
    let headers = match std::fs::File::open(path) {
        Ok(f) => BufferHeaders::File(f),
        Err(_) => BufferHeaders::None,
    };
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    etl_page(path, file, len, headers, manifests)
}

fn etl_bytes_page(
    label: &Path,
    bytes: Vec<u8>,
    manifests: &[Manifest],
) -> Result<(Page, Option<EtlDamage>), Error> {
    let len = bytes.len() as u64;
    let stride = bytes
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let table = if stride >= etwsim::record::BUFFER_HEADER_SIZE {
        bytes
            .chunks_exact(stride)
            .map(etwsim::record::BufferHeader::decode)
            .collect()
    } else {
        Vec::new()
    };
    let file = LogFile::from_bytes(label, bytes).map_err(|source| Error::Etl {
        path: label.to_path_buf(),
        source,
    })?;
    etl_page(label, file, len, BufferHeaders::Table(table), manifests)
}

/// The innermost `.etl` error: without the file's name (the page names it).
fn inner_etl_error(e: &etl::Error) -> &etl::Error {
    match e {
        etl::Error::InFile { error, .. } => inner_etl_error(error),
        e => e,
    }
}

/// What a reader error means for a file of `len` bytes, `records` records in: the same
/// judgement and the same words as `etwsim dump`'s.
fn etl_damage(e: &etl::Error, h: &LogfileHeader, len: u64, records: u64) -> EtlDamage {
    let stride = u64::from(h.buffer_size).max(1);
    let at = |n: u64| format!("{n} ({n:#x})");
    match inner_etl_error(e) {
        etl::Error::Truncated {
            what,
            offset,
            needed,
            available,
        } if offset.saturating_add(*needed) > len => EtlDamage {
            message: if *what == "the buffers BuffersWritten counts" {
                format!(
                    "the file is truncated: it ends at byte {} after {} whole buffers of {stride} \
                     bytes, but its header counts {} written (BuffersWritten)",
                    at(len),
                    len / stride,
                    h.buffers_written
                )
            } else {
                format!(
                    "the file is truncated: it ends at byte {}, {available} bytes into buffer {} \
                     (buffers are {stride} bytes; this one starts at {offset:#x})",
                    at(len),
                    offset / stride,
                )
            },
            offset: Some(len),
            records,
        },
        inner => EtlDamage {
            message: format!("the file is damaged: {inner}"),
            offset: e.offset(),
            records,
        },
    }
}

fn etl_page(
    label: &Path,
    file: LogFile,
    len: u64,
    mut headers: BufferHeaders,
    manifests: &[Manifest],
) -> Result<(Page, Option<EtlDamage>), Error> {
    let h: LogfileHeader = file.header().clone();
    let stride = h.buffer_size;
    if h.log_file_mode.contains(etwsim::LogFileMode::COMPRESSED) {
        headers = BufferHeaders::None;
    }
    let ptr = if h.pointer_size == 4 { 4 } else { 8 };
    let mut page = Page {
        title: format!("etwsim .etl report: {}", label.display()),
        subtitle: format!(
            "logger {:?}, {} buffers of {} bytes, {} processors",
            h.logger_name,
            file.buffer_count(),
            h.buffer_size,
            h.number_of_processors
        ),
        sessions: vec![SessionLanes {
            name: if h.logger_name.is_empty() {
                "(unnamed logger)".into()
            } else {
                h.logger_name.clone()
            },
            cpus: Vec::new(),
        }],
        ..Page::default()
    };
    // Timestamps as 100 ns units: FILETIME when the header converts, else the raw clock.
    let conv = |raw: i64| -> i64 { h.to_filetime(raw).unwrap_or(raw) };
    let options = etl::ReadOptions {
        raw_timestamps: true,
        header_records: false,
    };
    let mut reader = etl::Reader::new(vec![file], options).map_err(|source| Error::Etl {
        path: label.to_path_buf(),
        source,
    })?;
    let mut raw_marks: Vec<(Option<u16>, i64, MarkKind, String)> = Vec::new();
    let (mut events, mut records, mut buffers) = (0u64, 0u64, 0u64);
    let mut cpus: Vec<u16> = Vec::new();
    // Per CPU: the buffer its last record came from (each CPU's buffers come in order).
    let mut current: Vec<(u16, u32)> = Vec::new();
    let mut last_time: Option<i64> = None;
    let mut damage = None;
    while let Some(next) = reader.next_positioned() {
        let (pos, r) = match next {
            Ok(x) => x,
            Err(e) => {
                damage = Some(etl_damage(&e, &h, len, records));
                break;
            }
        };
        records += 1;
        if matches!(r, Record::Event(_)) {
            events += 1;
        }
        let cpu = r.buffer_context().processor_index;
        if !cpus.contains(&cpu) {
            cpus.push(cpu);
        }
        let ts = r.timestamp().map(conv);
        let new_buffer = match current.iter_mut().find(|(c, _)| *c == cpu) {
            Some((_, b)) if *b == pos.buffer => false,
            Some((_, b)) => {
                *b = pos.buffer;
                true
            }
            None => {
                current.push((cpu, pos.buffer));
                true
            }
        };
        let bh = new_buffer
            .then(|| headers.get(pos.buffer, stride, cpu))
            .flatten();
        if new_buffer {
            buffers += 1;
        }
        if new_buffer && (buffers as usize) <= MAX_MARKED_BUFFERS {
            let i = pos.buffer;
            if let Some(bh) = bh {
                raw_marks.push((
                    Some(cpu),
                    conv(bh.timestamp),
                    MarkKind::Flush,
                    format!(
                        "buffer {i} (sequence {}), CPU {cpu}: {} of {} bytes used, flags {:#x}",
                        bh.sequence, bh.used, bh.buffer_size, bh.flags
                    ),
                ));
                if bh.flags & buffer_flags::EVENTS_LOST != 0 {
                    raw_marks.push((
                        Some(cpu),
                        conv(bh.timestamp),
                        MarkKind::Loss,
                        format!("buffer {i} has the EVENTS_LOST flag: the session lost events before it (BUF-15)"),
                    ));
                }
            }
            if let Some(t) = ts {
                raw_marks.push((Some(cpu), t, MarkKind::Switch, format!("buffer {i} begins")));
            }
        }
        let flush_time = bh.map(|b| conv(b.timestamp));
        if let Some(t) = ts.or(flush_time) {
            last_time = Some(last_time.map_or(t, |l| l.max(t)));
        }
        if page.details.len() >= MAX_MARKED_EVENTS {
            continue;
        }
        let (ts, rows, lost) = record_rows(&r, ptr, manifests, &conv);
        let detail = page.details.len();
        page.details.push(rows);
        let kind = if lost {
            MarkKind::LostEvent(detail)
        } else {
            MarkKind::Event(detail)
        };
        let time = ts.or(flush_time).or(last_time).unwrap_or(0);
        raw_marks.push((Some(cpu), time, kind, String::new()));
    }
    if records as usize > page.details.len() {
        page.notes.push(format!(
            "the timeline shows the first {} of {records} records; {} are left out",
            page.details.len(),
            records - page.details.len() as u64
        ));
    }
    if buffers as usize > MAX_MARKED_BUFFERS {
        page.notes.push(format!(
            "the timeline marks the first {MAX_MARKED_BUFFERS} of {buffers} buffers"
        ));
    }
    if let Some(d) = &damage {
        page.damage = Some(format!("{}: {d}", label.display()));
        let where_ = d
            .offset
            .map_or_else(String::new, |o| format!(" at offset {o} ({o:#x})"));
        raw_marks.push((
            None,
            last_time.unwrap_or(0),
            MarkKind::Loss,
            format!(
                "the file stops here{where_}, after {} records: {}",
                d.records, d.message
            ),
        ));
    }
    cpus.sort_unstable();
    page.sessions[0].cpus = cpus;
    let first = raw_marks.iter().map(|m| m.1).min().unwrap_or(0);
    let last = raw_marks.iter().map(|m| m.1).max().unwrap_or(first);
    page.start = 0;
    page.end = u64::try_from(last.saturating_sub(first))
        .unwrap_or(0)
        .max(1);
    if h.to_filetime(h.start_raw).is_some() {
        let _ = write!(
            page.subtitle,
            "; the timeline starts at {}",
            filetime_utc(first)
        );
    } else {
        page.subtitle
            .push_str("; the header cannot convert timestamps: the timeline is in raw clock units");
    }
    page.marks = raw_marks
        .into_iter()
        .map(|(cpu, t, kind, title)| Mark {
            session: 0,
            cpu,
            time: u64::try_from(t.saturating_sub(first)).unwrap_or(0),
            kind,
            title,
        })
        .collect();
    page.counters = vec![Counters {
        session: page.sessions[0].name.clone(),
        events: Some(events),
        events_lost: Some(u64::from(h.events_lost)),
        buffers_written: Some(u64::from(h.buffers_written)),
        log_buffers_lost: Some(u64::from(h.buffers_lost)),
        real_time_buffers_lost: None,
    }];
    page.slots_note = "An .etl file does not record which sessions enabled which providers: the enable slots are known only to the kernel that ran (a scenario report shows them).".into();
    Ok((page, damage))
}

/// A record's timestamp (100 ns units), detail rows, and whether it is a lost-event record.
fn record_rows(
    r: &Record,
    ptr: u8,
    manifests: &[Manifest],
    conv: &dyn Fn(i64) -> i64,
) -> (Option<i64>, Vec<(String, String)>, bool) {
    let mut rows = Vec::new();
    match r {
        Record::Event(e) => {
            let h = &e.header;
            let ts = conv(h.timestamp);
            rows.push(("provider".into(), h.provider_id.to_string()));
            descriptor_rows(&h.descriptor, &mut rows);
            rows.push(("pid".into(), h.process_id.to_string()));
            rows.push(("tid".into(), h.thread_id.to_string()));
            rows.push(("cpu".into(), e.buffer_context.processor_index.to_string()));
            rows.push(("time".into(), filetime_utc(ts)));
            rows.push((
                "payload".into(),
                format!("{} bytes: {}", e.user_data.len(), hex_preview(&e.user_data)),
            ));
            let lost = e.is_lost_event_marker();
            if lost {
                rows.push((
                    "lost".into(),
                    "an RT_LostEvent record: events or buffers were lost here (BUF-14)".into(),
                ));
            }
            let mut decoded = false;
            if h.flags & etwsim::record::header_flags::STRING_ONLY != 0 {
                // An EventWriteString event is its text (EVT-13), before any schema.
                decoded = true;
                rows.push((
                    "message".into(),
                    etwsim_decode::fields::string_only_text(&e.user_data),
                ));
            } else if let Some(result) = etwsim_decode::tracelogging::decode_record(e) {
                decoded = true;
                match result {
                    Ok(d) => {
                        rows.push(("event".into(), d.name.clone()));
                        if let Some(p) = &d.provider_name {
                            rows.push(("provider name".into(), p.clone()));
                        }
                        for f in &d.fields {
                            rows.push(("field".into(), f.to_string()));
                        }
                    }
                    Err(err) => rows.push(("decode".into(), format!("TraceLogging: {err}"))),
                }
            }
            if !decoded {
                if let Some(p) = manifests.iter().find_map(|m| m.provider(h.provider_id)) {
                    manifest_rows(p, &h.descriptor, &e.user_data, ptr, &mut rows);
                }
            }
            (Some(ts), rows, lost)
        }
        Record::Trace(t) => {
            let ts = t.timestamp.map(conv);
            rows.push((
                "record".into(),
                t.kind().map_or("trace", |k| k.name()).to_string(),
            ));
            if let Some(g) = t.guid {
                rows.push(("guid".into(), g.to_string()));
            }
            rows.push(("hook".into(), format!("{:#06x}", t.hook_id)));
            rows.push(("version".into(), t.version.to_string()));
            rows.push(("level".into(), level_text(t.level)));
            if let Some(p) = t.process_id {
                rows.push(("pid".into(), p.to_string()));
            }
            if let Some(p) = t.thread_id {
                rows.push(("tid".into(), p.to_string()));
            }
            rows.push(("cpu".into(), t.buffer_context.processor_index.to_string()));
            if let Some(ts) = ts {
                rows.push(("time".into(), filetime_utc(ts)));
            }
            rows.push((
                "payload".into(),
                format!("{} bytes: {}", t.payload.len(), hex_preview(&t.payload)),
            ));
            if let Ok(m) = etwsim_decode::mof::decode_system(t.hook_id, t.version, ptr, &t.payload)
            {
                for f in &m.fields {
                    rows.push((format!("field {}", f.name), f.value.to_string()));
                }
            }
            (ts, rows, false)
        }
    }
}

/// `s` escaped for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.sub { color: #5a6272; margin-bottom: 12px; }
table { border-collapse: collapse; margin: 4px 0 12px; }
th, td { border: 1px solid #d5d9e0; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f6; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #146c2e; font-weight: 600; } .fail { color: #b3261e; font-weight: 600; }
.note { color: #8a5a00; }
#timeline-wrap { overflow-x: auto; border: 1px solid #d5d9e0; }
svg text { font: 11px system-ui, sans-serif; fill: #1d2330; }
.ev { stroke: #2f6fde; stroke-width: 3; cursor: pointer; } .ev:hover, .ev.sel { stroke: #0b2f7a; stroke-width: 5; }
.lost { stroke: #d93025; stroke-width: 3; cursor: pointer; } .lost:hover, .lost.sel { stroke: #7a0b06; stroke-width: 5; }
.sw { stroke: #7c8596; stroke-width: 1.5; } .fl { stroke: #1a8f4c; stroke-width: 1.5; stroke-dasharray: 3 2; }
.ls { stroke: #d93025; stroke-width: 6; } .lane { fill: #f6f8fb; } .lane2 { fill: #eef1f6; }
#zoom { margin: 4px 0; } #zoom button { min-width: 28px; }
#detail { min-height: 120px; border: 1px solid #d5d9e0; padding: 8px; background: #fbfcfe; }
.legend span { display: inline-block; margin-right: 16px; }
.sw-key { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
pre { background: #f6f8fb; padding: 8px; overflow-x: auto; max-height: 480px; }
"#;

const SCRIPT: &str = r#"
(function () {
  var data = JSON.parse(document.getElementById('event-data').textContent);
  var detail = document.getElementById('detail');
  var pinned = null;
  function show(i) {
    var rows = data[i];
    if (!rows) { return; }
    var table = document.createElement('table');
    table.id = 'detail-table';
    rows.forEach(function (r) {
      var tr = document.createElement('tr');
      var th = document.createElement('th'); th.textContent = r[0];
      var td = document.createElement('td'); td.textContent = r[1];
      tr.appendChild(th); tr.appendChild(td); table.appendChild(tr);
    });
    var head = document.createElement('div');
    head.textContent = 'event ' + (i + 1) + ' of ' + data.length + (pinned === i ? ' (pinned: click another event to change)' : '');
    detail.replaceChildren(head, table);
  }
  var svg = document.getElementById('timeline');
  function target(e) { var t = e.target; return t && t.getAttribute ? t.getAttribute('data-i') : null; }
  svg.addEventListener('mouseover', function (e) { var i = target(e); if (i !== null && pinned === null) { show(+i); } });
  svg.addEventListener('click', function (e) {
    var i = target(e); if (i === null) { return; }
    var old = svg.querySelectorAll('.sel'); for (var k = 0; k < old.length; k++) { old[k].classList.remove('sel'); }
    pinned = (pinned === +i) ? null : +i;
    if (pinned !== null) { e.target.classList.add('sel'); }
    show(+i);
  });
  if (data.length > 0) { show(0); } else { detail.textContent = 'No events to show.'; }

  // Zoom: the plot group is scaled horizontally by k and shifted to show the window
  // [o, o + 1/k] of the run; the axis is redrawn for that window.
  var NS = 'http://www.w3.org/2000/svg';
  var span = +svg.getAttribute('data-span'), lw = +svg.getAttribute('data-label-w');
  var pw = +svg.getAttribute('data-plot-w'), ah = +svg.getAttribute('data-axis-h');
  var plot = document.getElementById('plot'), axis = document.getElementById('axis');
  var pan = document.getElementById('pan');
  var k = 1, o = 0;
  function ms(t) { return t >= 1e8 ? (t / 1e7).toFixed(3) + ' s' : (t / 1e4).toFixed(3) + ' ms'; }
  function draw() {
    o = Math.max(0, Math.min(o, 1 - 1 / k));
    plot.setAttribute('transform', 'translate(' + (lw * (1 - k) - o * k * pw) + ',0) scale(' + k + ',1)');
    var h = svg.getAttribute('height');
    while (axis.firstChild) { axis.removeChild(axis.firstChild); }
    for (var i = 0; i <= 4; i++) {
      var x = lw + pw * i / 4, t = span * (o + i / (4 * k));
      var l = document.createElementNS(NS, 'line');
      l.setAttribute('x1', x); l.setAttribute('x2', x); l.setAttribute('y1', ah - 4); l.setAttribute('y2', h);
      l.setAttribute('stroke', '#c9ced6'); l.setAttribute('stroke-dasharray', '1 3');
      var tx = document.createElementNS(NS, 'text');
      tx.setAttribute('x', x); tx.setAttribute('y', 14); tx.setAttribute('text-anchor', i === 4 ? 'end' : 'middle');
      tx.textContent = ms(t);
      axis.appendChild(l); axis.appendChild(tx);
    }
    pan.value = k > 1 ? Math.round(1000 * o / (1 - 1 / k)) : 0;
    pan.disabled = k === 1;
  }
  function centre() {
    var sel = svg.querySelector('.sel');
    if (sel) { return (+sel.getAttribute('x1') - lw) / pw; }
    return o + 0.5 / k;
  }
  document.getElementById('zoom').addEventListener('click', function (e) {
    var z = e.target.getAttribute && e.target.getAttribute('data-z');
    if (!z) { return; }
    var c = centre();
    if (z === 'in') { k = Math.min(k * 2, 1 << 20); }
    if (z === 'out') { k = Math.max(k / 2, 1); }
    if (z === 'fit') { k = 1; }
    o = c - 0.5 / k;
    draw();
  });
  pan.addEventListener('input', function () { o = (1 - 1 / k) * pan.value / 1000; draw(); });
  draw();
  var ready = document.createElement('div');
  ready.id = 'report-ready'; ready.hidden = true;
  document.body.appendChild(ready);
})();
"#;

/// Lane geometry.
const LABEL_W: f64 = 170.0;
const PLOT_W: f64 = 900.0;
const LANE_H: f64 = 20.0;
const HEAD_H: f64 = 22.0;
const AXIS_H: f64 = 26.0;

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "—".into(), |n| n.to_string())
}

fn render(p: &Page) -> String {
    let mut h = String::with_capacity(64 * 1024 + p.marks.len() * 96);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&p.title)
    );
    let _ = writeln!(
        h,
        "<h1 id=\"title\">{}</h1><div class=\"sub\">{}</div>",
        escape(&p.title),
        escape(&p.subtitle)
    );
    // Inline style: a page with neither keeps the bytes it always had.
    for (id, text) in [("damage", &p.damage), ("stopped", &p.stopped)] {
        if let Some(t) = text {
            let _ = writeln!(
                h,
                "<p id=\"{id}\" style=\"color:#fff;background:#b3261e;padding:6px 10px;font-weight:bold\">{}</p>",
                escape(t)
            );
        }
    }
    for n in &p.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", escape(n));
    }
    if !p.expectations.is_empty() {
        render_expectations(&mut h, &p.expectations);
    }
    render_timeline(&mut h, p);
    let _ = writeln!(
        h,
        "<h2>Event detail</h2><div id=\"detail\">Hover over or click an event in the timeline (this page needs JavaScript for it).</div>"
    );
    render_counters(&mut h, &p.counters);
    if !p.kernel.is_empty() {
        h.push_str("<h2>Kernel events</h2><table id=\"kernel\"><tr><th>session</th><th>event</th><th>count</th></tr>\n");
        for (session, counts) in &p.kernel {
            for (name, n) in counts {
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{n}</td></tr>",
                    escape(session),
                    escape(name)
                );
            }
        }
        h.push_str("</table>\n");
    }
    render_slots(&mut h, p);
    if !p.boots.is_empty() {
        h.push_str("<h2>Boots</h2><pre id=\"boots\">");
        for b in &p.boots {
            h.push_str(&escape(b));
        }
        h.push_str("</pre>\n");
    }
    if !p.journal.is_empty() {
        let _ = writeln!(
            h,
            "<h2>Journal</h2><details id=\"journal\"><summary>{} entries{}</summary><pre>",
            p.journal.len(),
            if p.journal.len() >= MAX_LISTED_JOURNAL {
                " (the first ones)"
            } else {
                ""
            }
        );
        for line in &p.journal {
            let _ = writeln!(h, "{}", escape(line));
        }
        h.push_str("</pre></details>\n");
    }
    // The details as JSON, written straight into the page (no copy of them as a JSON tree).
    h.push_str("<script type=\"application/json\" id=\"event-data\">[");
    for (i, rows) in p.details.iter().enumerate() {
        h.push_str(if i == 0 { "[" } else { ",[" });
        for (j, (k, v)) in rows.iter().enumerate() {
            h.push_str(if j == 0 { "[" } else { ",[" });
            push_script_string(&mut h, k);
            h.push(',');
            push_script_string(&mut h, v);
            h.push(']');
        }
        h.push(']');
    }
    let _ = write!(h, "]</script>\n<script>{SCRIPT}</script>\n</body></html>\n");
    h
}

/// `s` as a JSON string made safe inside a `<script>` element: `<`, `>`, `&`, U+2028 and
/// U+2029 written as `\uXXXX` escapes, so no text can close the element.
fn push_script_string(h: &mut String, s: &str) {
    let json = serde_json::Value::from(s).to_string();
    for c in json.chars() {
        match c {
            '<' => h.push_str("\\u003c"),
            '>' => h.push_str("\\u003e"),
            '&' => h.push_str("\\u0026"),
            '\u{2028}' => h.push_str("\\u2028"),
            '\u{2029}' => h.push_str("\\u2029"),
            c => h.push(c),
        }
    }
}

fn render_expectations(h: &mut String, list: &[ExpectationResult]) {
    let failed = list.iter().filter(|e| !e.passed).count();
    let _ = writeln!(
        h,
        "<h2>Expectations: {} passed, {failed} failed</h2><table id=\"expectations\"><tr><th>line</th><th>expectation</th><th>expected</th><th>actual</th><th></th></tr>",
        list.len() - failed
    );
    for e in list {
        let _ = writeln!(
            h,
            "<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
            e.line,
            escape(&e.what),
            escape(&e.expected),
            escape(&e.actual),
            if e.passed { "pass" } else { "fail" },
            if e.passed { "ok" } else { "FAIL" }
        );
    }
    h.push_str("</table>\n");
}

fn render_timeline(h: &mut String, p: &Page) {
    // Rows: per session a header (its own lane: flushes, losses without a CPU), then one
    // lane per CPU.
    let mut y = AXIS_H;
    let mut session_y = Vec::new();
    let mut lane_y: Vec<Vec<(u16, f64)>> = Vec::new();
    for s in &p.sessions {
        session_y.push(y);
        y += HEAD_H;
        let mut lanes = Vec::new();
        for c in &s.cpus {
            lanes.push((*c, y));
            y += LANE_H;
        }
        lane_y.push(lanes);
        y += 6.0;
    }
    let height = y + 4.0;
    let width = LABEL_W + PLOT_W + 20.0;
    let span = p.end.saturating_sub(p.start).max(1);
    // Marks are placed in plot coordinates; the zoom (JavaScript) scales the plot group
    // horizontally, so every mark is a line whose stroke does not scale.
    let x = |t: u64| LABEL_W + (t.saturating_sub(p.start) as f64 / span as f64).min(1.0) * PLOT_W;
    let _ = writeln!(
        h,
        "<h2>Timeline</h2><div class=\"legend\"><span><i class=\"sw-key\" style=\"background:#2f6fde\"></i>event</span>\
         <span><i class=\"sw-key\" style=\"background:#d93025\"></i>event lost / loss point</span>\
         <span><i class=\"sw-key\" style=\"background:#7c8596\"></i>buffer switch</span>\
         <span><i class=\"sw-key\" style=\"background:#1a8f4c\"></i>flush / buffer written</span></div>\
         <div id=\"zoom\">zoom <button type=\"button\" data-z=\"in\">+</button> <button type=\"button\" data-z=\"out\">&minus;</button> \
         <button type=\"button\" data-z=\"fit\">fit</button> pan <input type=\"range\" id=\"pan\" min=\"0\" max=\"1000\" value=\"0\"></div>\
         <div id=\"timeline-wrap\"><svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" data-span=\"{span}\" data-label-w=\"{LABEL_W}\" data-plot-w=\"{PLOT_W}\" data-axis-h=\"{AXIS_H}\">\
         <defs><clipPath id=\"plot-clip\"><rect x=\"{LABEL_W}\" y=\"0\" width=\"{PLOT_W}\" height=\"{height}\"/></clipPath></defs>"
    );
    for (i, s) in p.sessions.iter().enumerate() {
        let sy = session_y[i];
        let _ = write!(
            h,
            "<rect class=\"lane2\" x=\"0\" y=\"{sy}\" width=\"{width}\" height=\"{}\"/><text x=\"4\" y=\"{}\" font-weight=\"bold\">{}</text>",
            HEAD_H - 2.0,
            sy + 14.0,
            escape(&s.name)
        );
        for (cpu, ly) in &lane_y[i] {
            let _ = write!(
                h,
                "<rect class=\"lane\" x=\"{LABEL_W}\" y=\"{ly}\" width=\"{PLOT_W}\" height=\"{}\"/><text x=\"14\" y=\"{}\">CPU {cpu}</text>",
                LANE_H - 2.0,
                ly + 13.0
            );
        }
    }
    // The time axis: five ticks over the whole run (the script redraws them on zoom).
    h.push_str("<g id=\"axis\">");
    for k in 0..=4u64 {
        let t = (u128::from(span) * u128::from(k) / 4) as u64;
        let xx = LABEL_W + PLOT_W * k as f64 / 4.0;
        let _ = write!(
            h,
            "<line x1=\"{xx:.1}\" y1=\"{}\" x2=\"{xx:.1}\" y2=\"{height}\" stroke=\"#c9ced6\" stroke-dasharray=\"1 3\"/><text x=\"{xx:.1}\" y=\"14\" text-anchor=\"{}\">{}</text>",
            AXIS_H - 4.0,
            if k == 4 { "end" } else { "middle" },
            escape(&ms(t))
        );
    }
    h.push_str("</g><g clip-path=\"url(#plot-clip)\"><g id=\"plot\">");
    let lane_of = |m: &Mark| -> Option<(f64, f64)> {
        let sy = *session_y.get(m.session)?;
        match m.cpu {
            None => {
                let bottom = lane_y[m.session]
                    .last()
                    .map_or(sy + HEAD_H, |(_, y)| y + LANE_H);
                Some((sy, bottom))
            }
            Some(c) => lane_y[m.session]
                .iter()
                .find(|(cpu, _)| *cpu == c)
                .map(|(_, y)| (*y, *y + LANE_H - 2.0)),
        }
    };
    for m in &p.marks {
        let Some((top, bottom)) = lane_of(m) else {
            continue;
        };
        let xx = x(m.time);
        let (class, data, y1, y2) = match m.kind {
            MarkKind::Event(d) => ("ev", Some(d), top + 3.0, bottom - 3.0),
            MarkKind::LostEvent(d) => ("lost", Some(d), top + 3.0, bottom - 3.0),
            MarkKind::Switch => ("sw", None, top, top + 5.0),
            MarkKind::Flush => ("fl", None, top, bottom),
            MarkKind::Loss if m.cpu.is_some() => ("ls", None, top + 2.0, bottom - 2.0),
            MarkKind::Loss => ("ls", None, top + 3.0, top + HEAD_H - 5.0),
        };
        let _ = write!(
            h,
            "<line class=\"{class}\" x1=\"{xx:.2}\" y1=\"{y1:.1}\" x2=\"{xx:.2}\" y2=\"{y2:.1}\" vector-effect=\"non-scaling-stroke\""
        );
        match data {
            Some(d) => {
                let _ = write!(h, " data-i=\"{d}\"/>");
            }
            None => {
                let _ = write!(h, "><title>{}</title></line>", escape(&m.title));
            }
        }
    }
    h.push_str("</g></g></svg></div>\n");
}

fn render_counters(h: &mut String, list: &[Counters]) {
    h.push_str("<h2>Counters</h2><table id=\"counters\"><tr><th>session</th><th>events</th><th>EventsLost</th><th>BuffersWritten</th><th>LogBuffersLost</th><th>RealTimeBuffersLost</th></tr>\n");
    for c in list {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&c.session),
            opt(c.events),
            opt(c.events_lost),
            opt(c.buffers_written),
            opt(c.log_buffers_lost),
            opt(c.real_time_buffers_lost)
        );
    }
    h.push_str("</table>\n");
}

fn render_slots(h: &mut String, p: &Page) {
    let _ = writeln!(
        h,
        "<h2>Enable slots</h2><div id=\"slots\"><p>{}</p>",
        escape(&p.slots_note)
    );
    for prov in &p.slots {
        let _ = writeln!(
            h,
            "<h3>{} <small>{}</small></h3><table class=\"slots\"><tr><th>slot</th><th>session</th><th>logger id</th><th>level</th><th>MatchAnyKeyword</th><th>MatchAllKeyword</th><th>EnableProperty</th></tr>",
            escape(&prov.name),
            escape(&prov.guid.to_string())
        );
        for slot in 0..etwsim::ENABLE_SLOTS as u8 {
            match prov.rows.iter().find(|r| r.slot == slot) {
                Some(r) => {
                    let _ = writeln!(
                        h,
                        "<tr><td class=\"n\">{slot}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{:#x}</td><td>{:#x}</td><td>{}</td></tr>",
                        escape(&r.session),
                        r.logger_id,
                        escape(&level_text(r.level)),
                        r.any,
                        r.all,
                        escape(&r.properties)
                    );
                }
                None => {
                    let _ = writeln!(
                        h,
                        "<tr><td class=\"n\">{slot}</td><td colspan=\"6\">(free)</td></tr>"
                    );
                }
            }
        }
        h.push_str("</table>\n");
    }
    h.push_str("</div>\n");
}

/// Loads instrumentation manifests for [`etl_html`] / [`write_report`], each read up to
/// [`MAX_MANIFEST_BYTES`](crate::MAX_MANIFEST_BYTES).
///
/// # Errors
/// [`Error::Io`] for a file that cannot be read or is larger than the cap,
/// [`Error::Manifest`] for one that is not a manifest.
pub fn load_manifests(paths: &[std::path::PathBuf]) -> Result<Vec<Manifest>, Error> {
    paths
        .iter()
        .map(|path| {
            let bytes =
                crate::files::read_capped(path, crate::MAX_MANIFEST_BYTES).map_err(|source| {
                    Error::Io {
                        what: "cannot read manifest",
                        path: path.clone(),
                        source,
                    }
                })?;
            etwsim_decode::manifest::load_manifest(&bytes).map_err(|e| Error::Manifest {
                path: path.clone(),
                message: e.to_string(),
            })
        })
        .collect()
}

/// What [`write_report`] made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportSummary {
    /// Events shown one by one.
    pub events: usize,
    /// Bytes of HTML written.
    pub bytes: usize,
    /// For a scenario: whether its expectations held (`None` for an `.etl` file).
    pub passed: Option<bool>,
    /// For a scenario: the step that failed and stopped the run, if one did.
    pub aborted: Option<crate::StepFailure>,
    /// For an `.etl` file: where it stops being readable, if it does. The page is written
    /// all the same, showing what was read and marking where it stops.
    pub damage: Option<EtlDamage>,
}

/// Writes the report of `input` — a scenario (`.toml`: loaded and run) or an `.etl` file —
/// to `output`; [`write_report_with`] with no manifest files named and the default
/// [`RunOptions`](crate::RunOptions).
///
/// # Errors
/// As [`write_report_with`].
pub fn write_report(
    input: &Path,
    output: &Path,
    manifests: &[Manifest],
) -> Result<ReportSummary, Error> {
    report(input, output, manifests, &[], &crate::RunOptions::default())
}

/// Writes the report of `input` — a scenario (`.toml`: loaded and run with `run`) or an
/// `.etl` file, whose events the manifests at `manifests` decode — to `output`.
///
/// Nothing is written over an input: an `output` that names `input`, a manifest, or a file
/// the scenario reads (its registry, its manifests) is refused before anything is written
/// ([`files::refuse_overwrite`](crate::files::refuse_overwrite)). The page is written to a
/// temporary file beside `output` and renamed into place ([`files::AtomicFile`]), so a
/// failure leaves no half-written page. A damaged `.etl` file still gets its page, showing
/// what was read; the summary's [`damage`](ReportSummary::damage) says where it stops.
///
/// [`files::AtomicFile`]: crate::files::AtomicFile
///
/// # Errors
/// [`Error::OutputIsInput`]; the scenario's, a manifest's or the file's error;
/// [`Error::Io`] if `output` cannot be written.
pub fn write_report_with(
    input: &Path,
    output: &Path,
    manifests: &[std::path::PathBuf],
    run: &crate::RunOptions,
) -> Result<ReportSummary, Error> {
    let mut inputs: Vec<&Path> = vec![input];
    inputs.extend(manifests.iter().map(|p| p.as_path()));
    crate::files::refuse_overwrite(output, &inputs)?;
    let loaded = load_manifests(manifests)?;
    report(input, output, &loaded, manifests, run)
}

fn report(
    input: &Path,
    output: &Path,
    manifests: &[Manifest],
    manifest_paths: &[std::path::PathBuf],
    run: &crate::RunOptions,
) -> Result<ReportSummary, Error> {
    let mut inputs: Vec<&Path> = vec![input];
    inputs.extend(manifest_paths.iter().map(|p| p.as_path()));
    crate::files::refuse_overwrite(output, &inputs)?;
    let is_scenario = input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let mut summary = ReportSummary {
        events: 0,
        bytes: 0,
        passed: None,
        aborted: None,
        damage: None,
    };
    let page = if is_scenario {
        let sc = Scenario::load(input)?;
        let read: Vec<&Path> = sc.input_files().iter().map(|p| p.as_path()).collect();
        crate::files::refuse_overwrite(output, &read)?;
        let outcome = sc.run_with(run);
        summary.passed = Some(outcome.passed());
        summary.aborted = outcome.aborted.clone();
        scenario_page(&sc, &outcome)
    } else {
        let (page, damage) = etl_file_page(input, manifests)?;
        summary.damage = damage;
        page
    };
    let html = render(&page);
    summary.events = page.details.len();
    summary.bytes = html.len();
    drop(page);
    crate::files::write_atomic(output, html.as_bytes()).map_err(|source| Error::Io {
        what: "cannot write",
        path: output.to_path_buf(),
        source,
    })?;
    Ok(summary)
}
