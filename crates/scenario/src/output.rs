//! A run's outcome as text for people or as JSON Lines for programs.
//!
//! JSON Lines: one object per journal entry — `seq`, `time` (100 ns units since boot),
//! `kind` (`Control`, `Callback`, `Write`, `BufferSwitch`, `Flush`, `Loss`) and the entry's
//! fields —, then one `Expectation` object per expectation, then one `Summary`.

use crate::run::{ExpectationResult, Outcome};
use etwsim::JournalEntry;
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The journal as text: one entry per line (a write's verdicts on the lines under it), as
/// [`JournalEntry`]'s `Display` shows it.
pub fn journal_text(journal: &[JournalEntry]) -> String {
    let mut out = String::new();
    for e in journal {
        let _ = writeln!(out, "{e}");
    }
    out
}

/// The journal as JSON Lines, one [`JournalEntry::to_json`] object per line.
pub fn journal_json_lines(journal: &[JournalEntry]) -> String {
    let mut out = String::new();
    for e in journal {
        let _ = writeln!(out, "{}", e.to_json());
    }
    out
}

/// One expectation's result as a line of text: `ok   line 53  what = value` or
/// `FAIL line 53  what: expected X, got Y`.
pub fn expectation_text(e: &ExpectationResult) -> String {
    if e.passed {
        format!("ok    line {:<4} {} = {}", e.line, e.what, e.actual)
    } else {
        format!(
            "FAIL  line {:<4} {}: expected {}, got {}",
            e.line, e.what, e.expected, e.actual
        )
    }
}

fn counts(o: &Outcome) -> (usize, usize) {
    let failed = o.failures().count();
    (o.expectations.len() - failed, failed)
}

/// The whole outcome as text: the journal, the expectations, the files, and a closing
/// `N passed, M failed` line.
pub fn outcome_text(o: &Outcome) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "scenario {} ({})", o.scenario, o.file);
    let _ = writeln!(
        out,
        "\njournal: {} entries{}",
        o.journal.len(),
        if o.journal_dropped > 0 {
            format!(" (the {} oldest dropped by the bound)", o.journal_dropped)
        } else {
            String::new()
        }
    );
    out.push_str(&journal_text(&o.journal));
    let _ = writeln!(out, "\nsessions:");
    for s in &o.sessions {
        match &s.stats {
            Some(p) => {
                let _ = write!(
                    out,
                    "  {:<16} events {:<8} EventsLost {:<6} BuffersWritten {:<6} LogBuffersLost {:<4} RealTimeBuffersLost {}",
                    s.name,
                    s.events.map_or_else(|| "-".to_string(), |n| n.to_string()),
                    p.events_lost,
                    p.buffers_written,
                    p.log_buffers_lost,
                    p.real_time_buffers_lost
                );
                if let Some(n) = s.delivered {
                    // What the consumer was told of losses: the RT_LostEvent markers (BUF-14).
                    let markers = s
                        .kernel_events
                        .iter()
                        .filter(|e| e.event.schema.class.guid == etwsim::Guid::RT_LOST_EVENT)
                        .count();
                    let _ = write!(out, "  delivered {n} (loss markers {markers})");
                }
                for (name, n) in &s.consumers {
                    let _ = write!(out, "  consumer {name:?} {n}");
                }
                out.push('\n');
            }
            None => {
                let _ = writeln!(out, "  {:<16} never started", s.name);
            }
        }
    }
    if !o.files.is_empty() {
        let _ = writeln!(out, "\nfiles:");
        for f in &o.files {
            let _ = writeln!(out, "  {} ({} bytes)", f.path, f.bytes.len());
        }
    }
    if !o.boots.is_empty() {
        let _ = writeln!(out, "\nboots:");
        for b in &o.boots {
            for line in b.to_string().lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    if let Some(a) = &o.aborted {
        let _ = writeln!(out, "\nthe steps stopped early: {a}");
    }
    let _ = writeln!(out, "\nexpectations:");
    for e in &o.expectations {
        let _ = writeln!(out, "  {}", expectation_text(e));
    }
    let (passed, failed) = counts(o);
    let _ = writeln!(out, "\n{passed} passed, {failed} failed");
    out
}

/// The whole outcome as JSON Lines: the journal entries, one `Expectation` object per
/// expectation, then a `Summary`.
pub fn outcome_json_lines(o: &Outcome) -> String {
    let mut out = journal_json_lines(&o.journal);
    for e in &o.expectations {
        let _ = writeln!(
            out,
            "{}",
            json!({
                "kind": "Expectation",
                "line": e.line,
                "what": e.what,
                "expected": e.expected,
                "actual": e.actual,
                "passed": e.passed,
            })
        );
    }
    let (passed, failed) = counts(o);
    let sessions: Vec<Value> = o
        .sessions
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "events": s.events,
                "delivered": s.delivered,
                "consumers": s
                    .consumers
                    .iter()
                    .map(|(n, k)| json!({"name": n, "delivered": k}))
                    .collect::<Vec<_>>(),
                "events_lost": s.stats.as_ref().map(|p| p.events_lost),
                "buffers_written": s.stats.as_ref().map(|p| p.buffers_written),
                "log_buffers_lost": s.stats.as_ref().map(|p| p.log_buffers_lost),
                "real_time_buffers_lost": s.stats.as_ref().map(|p| p.real_time_buffers_lost),
            })
        })
        .collect();
    let _ = writeln!(
        out,
        "{}",
        json!({
            "kind": "Summary",
            "scenario": o.scenario,
            "file": o.file,
            "passed": passed,
            "failed": failed,
            "aborted": o.aborted.as_ref().map(|a| json!({"line": a.line, "key": a.key, "message": a.message})),
            "journal_entries": o.journal.len(),
            "journal_dropped": o.journal_dropped,
            "sessions": sessions,
            "files": o.files.iter().map(|f| json!({"path": f.path, "bytes": f.bytes.len()})).collect::<Vec<_>>(),
            "boots": o.boots.iter().map(|b| Value::Array(b.json_values())).collect::<Vec<_>>(),
        })
    );
    out
}
