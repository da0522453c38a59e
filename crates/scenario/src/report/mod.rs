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
//!
//! This module holds the page's data model, which both sources fill; `scenario_page` and
//! `etl_page` fill it, `html` writes it, `write` writes report files.

mod etl_page;
mod html;
mod scenario_page;
mod write;

pub use etl_page::{EtlDamage, MAX_MARKED_BUFFERS, etl_bytes_html, etl_html};
pub use html::escape;
pub use scenario_page::scenario_html;
pub use write::{ReportSummary, load_manifests, write_report, write_report_with};

use crate::run::ExpectationResult;
use etwsim::{EventDescriptor, Guid};

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
