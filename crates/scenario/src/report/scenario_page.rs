//! The page of a scenario run: the timeline from the writes, the kernel events and the
//! journal; each write's detail rows; the counters, the enable slots at the last moment a
//! session ran, the expectations, the boots.

use super::html::render;
use super::{
    Counters, MAX_LISTED_JOURNAL, MAX_MARKED_EVENTS, MAX_MARKED_JOURNAL, Mark, MarkKind, Page,
    ProviderSlots, SessionLanes, SlotRow, descriptor_rows, hex_preview, manifest_rows, ms,
};
use crate::run::{Outcome, WriteRecord};
use crate::scenario::Scenario;
use etwsim::record::filetime_utc;
use etwsim::{JournalEvent, LossCounter};

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

pub(super) fn scenario_page(sc: &Scenario, o: &Outcome) -> Page {
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
            JournalEvent::BufferSwitch { session, cpu, .. } => {
                if let Some(s) = session_of(session) {
                    add_cpu(&mut page, s, *cpu);
                    page.marks.push(Mark {
                        session: s,
                        cpu: Some(*cpu),
                        time: e.time,
                        kind: MarkKind::Switch,
                        title: format!("#{} {}", e.seq, e.event),
                    });
                }
            }
            JournalEvent::Flush { session, .. } => {
                if let Some(s) = session_of(session) {
                    page.marks.push(Mark {
                        session: s,
                        cpu: None,
                        time: e.time,
                        kind: MarkKind::Flush,
                        title: format!("#{} {}", e.seq, e.event),
                    });
                }
            }
            JournalEvent::Loss {
                session, counter, ..
            } if *counter != LossCounter::EventsLost => {
                if let Some(s) = session_of(session) {
                    page.marks.push(Mark {
                        session: s,
                        cpu: None,
                        time: e.time,
                        kind: MarkKind::Loss,
                        title: format!("#{} {}", e.seq, e.event),
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
