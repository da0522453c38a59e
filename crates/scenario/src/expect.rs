//! Checking a run's expectations: each compares one number (or flag, or GUID) the run
//! produced with the one the file expects, and keeps both for the report.

use crate::run::{ExpectationResult, Outcome, OutputFile};
use crate::scenario::{
    Bound, CallbackField, Check, FileField, JournalMatch, Scenario, SessionField, TotalField,
};
use etwsim::etl::LogFile;
use etwsim::{Guid, JournalEntry, JournalEvent, Win32Error};
use std::path::Path;

/// What the `.etl` reader finds in one output file.
#[derive(Clone, Debug)]
pub(crate) struct FileCount {
    pub path: String,
    /// The logger name in its header.
    pub logger: String,
    /// Records in its data buffers (the header buffer's records not counted).
    pub records: u64,
    /// `EventsLost` in its header.
    pub events_lost: u64,
    /// Why it could not be read, if it could not.
    pub error: Option<String>,
}

/// Reads every output file with the `.etl` reader.
pub(crate) fn file_counts(files: &[OutputFile]) -> Vec<FileCount> {
    files
        .iter()
        .map(|f| {
            let mut count = FileCount {
                path: f.path.clone(),
                logger: String::new(),
                records: 0,
                events_lost: 0,
                error: None,
            };
            match LogFile::from_bytes(&f.path, f.bytes.clone()) {
                Ok(mut file) => {
                    count.logger = file.header().logger_name.clone();
                    count.events_lost = u64::from(file.header().events_lost);
                    let mut n = 0u64;
                    if let Err(e) = file.for_each_record(|_| n += 1) {
                        count.error = Some(e.to_string());
                    }
                    count.records = n;
                }
                Err(e) => count.error = Some(e.to_string()),
            }
            count
        })
        .collect()
}

fn result_name(r: &Result<(), Win32Error>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => e.name().map_or_else(|| e.0.to_string(), str::to_string),
    }
}

fn eq(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// Whether journal entry `e` is one `m` counts.
pub(crate) fn matches(m: &JournalMatch, e: &JournalEntry) -> bool {
    let ev = &e.event;
    if kind_name(ev) != m.kind {
        return false;
    }
    // A Write entry is judged by its verdicts: those of `session` (all of them without it),
    // of which one must have `recorded` and `rule` as asked.
    if let JournalEvent::Write { verdicts, .. } = ev {
        let ok = verdicts.iter().any(|v| {
            m.session.as_ref().is_none_or(|s| eq(&v.session_name, s))
                && m.recorded.is_none_or(|r| v.recorded == r)
                && m.rule.as_ref().is_none_or(|r| eq(v.reason.rule(), r))
        });
        if !ok {
            return false;
        }
    } else {
        if let Some(s) = &m.session {
            let ok = match ev {
                JournalEvent::BufferSwitch { session, .. }
                | JournalEvent::Flush { session, .. }
                | JournalEvent::Loss { session, .. } => eq(session, s),
                JournalEvent::Control { target, .. } => eq(target, s),
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        if let Some(r) = &m.rule {
            if !matches!(ev, JournalEvent::Loss { rule, .. } if eq(rule, r)) {
                return false;
            }
        }
    }
    if let Some(g) = m.provider {
        let ok = match ev {
            JournalEvent::Callback { provider, .. } | JournalEvent::Write { provider, .. } => {
                *provider == g
            }
            JournalEvent::Control { target, .. } => target.contains(&g.to_string()),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    if let Some(c) = &m.counter {
        let ok = matches!(ev, JournalEvent::Loss { counter, .. } if eq(counter.name(), c));
        if !ok {
            return false;
        }
    }
    if let Some(c) = &m.call {
        let ok = matches!(ev, JournalEvent::Control { call, .. }
            if call.to_ascii_lowercase().starts_with(&c.trim().to_ascii_lowercase()));
        if !ok {
            return false;
        }
    }
    if let Some(want) = &m.result {
        let got = match ev {
            JournalEvent::Control { result, .. } | JournalEvent::Write { result, .. } => {
                result_name(result)
            }
            _ => return false,
        };
        let as_code = match ev {
            JournalEvent::Control { result: Err(e), .. }
            | JournalEvent::Write { result: Err(e), .. } => e.0.to_string(),
            _ => String::new(),
        };
        if !eq(&got, want) && as_code != want.trim() {
            return false;
        }
    }
    if let Some(c) = &m.contains {
        if !e.to_string().contains(c.as_str()) {
            return false;
        }
    }
    true
}

/// The journal entry's kind, as `kind` names it.
pub fn kind_name(e: &JournalEvent) -> &'static str {
    match e {
        JournalEvent::Control { .. } => "Control",
        JournalEvent::Callback { .. } => "Callback",
        JournalEvent::Write { .. } => "Write",
        JournalEvent::BufferSwitch { .. } => "BufferSwitch",
        JournalEvent::Flush { .. } => "Flush",
        JournalEvent::Loss { .. } => "Loss",
        _ => "Other",
    }
}

struct Verdict {
    expected: String,
    actual: String,
    passed: bool,
}

fn numbers(expected: u64, actual: Result<u64, String>) -> Verdict {
    match actual {
        Ok(a) => Verdict {
            expected: expected.to_string(),
            actual: a.to_string(),
            passed: a == expected,
        },
        Err(why) => Verdict {
            expected: expected.to_string(),
            actual: why,
            passed: false,
        },
    }
}

/// Checks every expectation of `sc` against the run's `outcome`.
pub(crate) fn check(sc: &Scenario, outcome: &Outcome) -> Vec<ExpectationResult> {
    let counts = file_counts(&outcome.files);
    sc.expectations
        .iter()
        .map(|e| {
            let v = check_one(&e.check, outcome, &counts);
            ExpectationResult {
                line: e.line,
                what: e.what.clone(),
                expected: v.expected,
                actual: v.actual,
                passed: v.passed,
            }
        })
        .collect()
}

fn check_one(check: &Check, o: &Outcome, counts: &[FileCount]) -> Verdict {
    match check {
        Check::Session {
            session,
            field,
            expected,
        } => {
            let s = &o.sessions[*session];
            let stat = |f: fn(&etwsim::SessionProperties) -> u32| {
                s.stats
                    .as_ref()
                    .map(|p| u64::from(f(p)))
                    .ok_or_else(|| "the session never started".to_string())
            };
            let actual = match field {
                SessionField::Events => s.events.ok_or_else(|| {
                    "nothing to count: the session has no log file, memory sink or consumer"
                        .to_string()
                }),
                SessionField::Delivered => s
                    .delivered
                    .ok_or_else(|| "no `consume` step attached a consumer".to_string()),
                SessionField::EventsLost => stat(|p| p.events_lost),
                SessionField::BuffersWritten => stat(|p| p.buffers_written),
                SessionField::LogBuffersLost => stat(|p| p.log_buffers_lost),
                SessionField::RealTimeBuffersLost => stat(|p| p.real_time_buffers_lost),
            };
            numbers(*expected, actual)
        }
        Check::Total { field, expected } => {
            let actual = match field {
                TotalField::Events => o.sessions.iter().filter_map(|s| s.events).sum(),
                TotalField::EventsLost => o
                    .sessions
                    .iter()
                    .filter_map(|s| s.stats.as_ref())
                    .map(|p| u64::from(p.events_lost))
                    .sum(),
                TotalField::Writes => o.writes_total,
                TotalField::WritesFailed => o.write_errors.iter().map(|(_, n)| n).sum(),
            };
            numbers(*expected, Ok(actual))
        }
        Check::CallbackCount {
            provider,
            reg,
            expected,
        } => numbers(
            *expected,
            Ok(o.providers[*provider].callbacks[*reg].len() as u64),
        ),
        Check::CallbackValue {
            provider,
            reg,
            index,
            field,
            expected,
        } => {
            let list = &o.providers[*provider].callbacks[*reg];
            let show = |v: u128| match field {
                CallbackField::Any | CallbackField::All => format!("{v:#x}"),
                CallbackField::SourceId => Guid::from_u128(v).to_string(),
                _ => v.to_string(),
            };
            let pick = match index {
                None => list.last(),
                Some(n) => usize::try_from(*n - 1).ok().and_then(|i| list.get(i)),
            };
            match pick {
                None => Verdict {
                    expected: show(*expected),
                    actual: format!("no such callback ({} received)", list.len()),
                    passed: false,
                },
                Some(c) => {
                    let got = match field {
                        CallbackField::IsEnabled => u128::from(c.is_enabled),
                        CallbackField::Level => u128::from(c.level),
                        CallbackField::Any => u128::from(c.any),
                        CallbackField::All => u128::from(c.all),
                        CallbackField::SourceId => c.source_id.as_u128(),
                    };
                    Verdict {
                        expected: show(*expected),
                        actual: show(got),
                        passed: got == *expected,
                    }
                }
            }
        }
        Check::File {
            path,
            field,
            expected,
        } => {
            let found = counts
                .iter()
                .find(|c| Path::new(&c.path) == Path::new(path));
            match field {
                FileField::Exists => Verdict {
                    expected: (*expected != 0).to_string(),
                    actual: found.is_some().to_string(),
                    passed: found.is_some() == (*expected != 0),
                },
                FileField::Records | FileField::EventsLost => {
                    let actual = match found {
                        None => Err("no such file".to_string()),
                        Some(FileCount {
                            error: Some(e),
                            records,
                            ..
                        }) if *field == FileField::Records => {
                            Err(format!("{records} records, then: {e}"))
                        }
                        Some(c) if *field == FileField::Records => Ok(c.records),
                        Some(c) if c.logger.is_empty() && c.error.is_some() => {
                            Err(c.error.clone().unwrap_or_default())
                        }
                        Some(c) => Ok(c.events_lost),
                    };
                    numbers(*expected, actual)
                }
            }
        }
        Check::Journal { matcher, bound } => {
            let n = o.journal.iter().filter(|e| matches(matcher, e)).count() as u64;
            let (expected, passed) = match bound {
                Bound::Exactly(x) => (x.to_string(), n == *x),
                Bound::AtLeast(x) => (format!("at least {x}"), n >= *x),
                Bound::AtMost(x) => (format!("at most {x}"), n <= *x),
            };
            let mut actual = n.to_string();
            if o.journal_dropped > 0 {
                actual.push_str(&format!(
                    " ({} older entries were dropped by the journal's bound)",
                    o.journal_dropped
                ));
            }
            Verdict {
                expected,
                actual,
                passed,
            }
        }
    }
}
