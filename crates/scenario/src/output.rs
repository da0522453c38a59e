//! A run's outcome as text for people or as JSON Lines for programs.
//!
//! JSON Lines: one object per journal entry — `seq`, `time` (100 ns units since boot),
//! `kind` (`Control`, `Callback`, `Write`, `BufferSwitch`, `Flush`, `Loss`) and the entry's
//! fields —, then one `Expectation` object per expectation, then one `Summary`.

use crate::expect::kind_name;
use crate::run::{ExpectationResult, Outcome};
use etwsim::{JournalEntry, JournalEvent, Win32Error};
use serde_json::{Map, Value, json};
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

fn result_fields(m: &mut Map<String, Value>, r: &Result<(), Win32Error>) {
    match r {
        Ok(()) => {
            m.insert("result".into(), json!("ok"));
            m.insert("code".into(), json!(0));
        }
        Err(e) => {
            m.insert(
                "result".into(),
                json!(e.name().map_or_else(|| format!("{e:?}"), str::to_string)),
            );
            m.insert("code".into(), json!(e.0));
        }
    }
}

/// One journal entry as a JSON object: `seq`, `time`, `kind`, then its fields.
pub fn entry_json(e: &JournalEntry) -> Value {
    let mut m = Map::new();
    m.insert("seq".into(), json!(e.seq));
    m.insert("time".into(), json!(e.time));
    m.insert("kind".into(), json!(kind_name(&e.event)));
    match &e.event {
        JournalEvent::Control {
            call,
            target,
            result,
        } => {
            m.insert("call".into(), json!(call));
            m.insert("target".into(), json!(target));
            result_fields(&mut m, result);
        }
        JournalEvent::Callback {
            provider,
            pid,
            code,
            level,
            match_any,
            match_all,
        } => {
            m.insert("provider".into(), json!(provider.to_string()));
            m.insert("pid".into(), json!(pid));
            m.insert("is_enabled".into(), json!(code));
            m.insert("level".into(), json!(level.0));
            m.insert("match_any".into(), json!(match_any.0));
            m.insert("match_all".into(), json!(match_all.0));
        }
        JournalEvent::Write {
            provider,
            pid,
            descriptor: d,
            result,
            verdicts,
        } => {
            m.insert("provider".into(), json!(provider.to_string()));
            m.insert("pid".into(), json!(pid));
            m.insert("id".into(), json!(d.id));
            m.insert("version".into(), json!(d.version));
            m.insert("channel".into(), json!(d.channel.0));
            m.insert("level".into(), json!(d.level.0));
            m.insert("opcode".into(), json!(d.opcode.0));
            m.insert("task".into(), json!(d.task.0));
            m.insert("keyword".into(), json!(d.keyword.0));
            result_fields(&mut m, result);
            let v: Vec<Value> = verdicts
                .iter()
                .map(|v| {
                    json!({
                        "session": v.session_name,
                        "slot": v.slot,
                        "recorded": v.recorded,
                        "rule": v.reason.rule(),
                        "reason": v.reason.to_string(),
                    })
                })
                .collect();
            m.insert("verdicts".into(), Value::Array(v));
        }
        JournalEvent::BufferSwitch {
            session,
            handle,
            cpu,
            buffers,
        } => {
            m.insert("session".into(), json!(session));
            m.insert("handle".into(), json!(handle.0));
            m.insert("cpu".into(), json!(cpu));
            m.insert("buffers".into(), json!(buffers));
        }
        JournalEvent::Flush {
            session,
            handle,
            buffers,
            reason,
        } => {
            m.insert("session".into(), json!(session));
            m.insert("handle".into(), json!(handle.0));
            m.insert("buffers".into(), json!(buffers));
            m.insert("reason".into(), json!(reason.to_string()));
        }
        JournalEvent::Loss {
            session,
            handle,
            counter,
            count,
            reason,
            rule,
        } => {
            m.insert("session".into(), json!(session));
            m.insert("handle".into(), json!(handle.0));
            m.insert("counter".into(), json!(counter.name()));
            m.insert("count".into(), json!(count));
            m.insert("reason".into(), json!(reason));
            m.insert("rule".into(), json!(rule));
        }
        other => {
            m.insert("text".into(), json!(other.to_string()));
        }
    }
    Value::Object(m)
}

/// The journal as JSON Lines, one [`entry_json`] object per line.
pub fn journal_json_lines(journal: &[JournalEntry]) -> String {
    let mut out = String::new();
    for e in journal {
        let _ = writeln!(out, "{}", entry_json(e));
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
                let _ = writeln!(
                    out,
                    "  {:<16} events {:<8} EventsLost {:<6} BuffersWritten {:<6} LogBuffersLost {:<4} RealTimeBuffersLost {}",
                    s.name,
                    s.events.map_or_else(|| "-".to_string(), |n| n.to_string()),
                    p.events_lost,
                    p.buffers_written,
                    p.log_buffers_lost,
                    p.real_time_buffers_lost
                );
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
