//! Checking a run's expectations: each compares one number (or flag, or GUID) the run
//! produced with the one the file expects, and keeps both for the report.

use crate::run::{ExpectationResult, KernelEvent, Outcome, OutputFile};
use crate::scenario::{
    BootField, Bound, CallbackField, Check, FileField, JournalMatch, KernelMatch, Scenario,
    SessionField, TotalField,
};
use etwsim::etl::{LogFile, ReadOptions, Reader, Record};
use etwsim::{Guid, JournalEntry, JournalEvent, Win32Error};
use etwsim_decode::fields::Value;
use etwsim_decode::fileio::{NameResolver, Policy};
use etwsim_decode::mof;
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
    /// Its size in bytes.
    pub size: u64,
    /// Its `EVENT_HEADER` records, in file order.
    pub events: Vec<RecordInfo>,
    /// Why it could not be read, if it could not.
    pub error: Option<String>,
}

/// What `[[expect.file]]` checks of one `EVENT_HEADER` record.
#[derive(Clone, Debug)]
pub(crate) struct RecordInfo {
    pub id: u16,
    pub cpu: u16,
    /// `EVENT_HEADER.Flags` as the file holds them.
    pub flags: u16,
    /// The types of its extended items.
    pub ext: Vec<u16>,
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
                size: f.bytes.len() as u64,
                events: Vec::new(),
                error: None,
            };
            match LogFile::from_bytes(&f.path, f.bytes.clone()) {
                Ok(mut file) => {
                    count.logger = file.header().logger_name.clone();
                    count.events_lost = u64::from(file.header().events_lost);
                    let mut n = 0u64;
                    let events = &mut count.events;
                    if let Err(e) = file.for_each_record(|r| {
                        n += 1;
                        if let etwsim::etl::RecordView::Event(e) = r {
                            events.push(RecordInfo {
                                id: e.header.descriptor.id,
                                cpu: e.buffer_context.processor_index,
                                flags: e.header.flags,
                                ext: e.extended_data().map(|i| i.ext_type).collect(),
                            });
                        }
                    }) {
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

/// The kernel (MOF) events of the log files whose header names `session` (as `counts`, the
/// [`file_counts`] of `files`, found them), decoded, oldest first within each file (files in
/// name order). Records that are not kernel events, or do not decode, are left out. Only
/// the session's own files are read, so the sessions of a run read each file once between
/// them.
pub(crate) fn kernel_events(
    files: &[OutputFile],
    counts: &[FileCount],
    session: &str,
) -> Vec<KernelEvent> {
    let mut out = Vec::new();
    for (f, c) in files.iter().zip(counts) {
        if !c.logger.eq_ignore_ascii_case(session) {
            continue;
        }
        let Ok(file) = LogFile::from_bytes(&f.path, f.bytes.clone()) else {
            continue;
        };
        let pointer_size = u8::try_from(file.header().pointer_size).unwrap_or(8);
        let Ok(reader) = Reader::new(vec![file], ReadOptions::default()) else {
            continue;
        };
        for r in reader {
            let Ok(Record::Trace(t)) = r else { continue };
            if let Ok(event) = mof::decode_system(t.hook_id, t.version, pointer_size, &t.payload) {
                out.push(KernelEvent {
                    time: t.timestamp.unwrap_or(0),
                    pid: t.process_id.unwrap_or(0),
                    cpu: t.buffer_context.processor_index,
                    event,
                });
            }
        }
    }
    out
}

/// How many of `events` `m` selects. File names are resolved with `m`'s policy — by default
/// the file policy for a session that wrote files and TraceEvent's real-time one (names
/// forgotten at Cleanup) for a real-time session — as a consumer does: in real time each
/// event is named before it is observed; from a file, every event is observed first.
fn count_kernel(m: &KernelMatch, events: &[KernelEvent], from_file: bool) -> u64 {
    let policy = m.policy.unwrap_or(if from_file {
        Policy::File
    } else {
        Policy::EvictAtCleanup
    });
    let mut names = NameResolver::new(policy);
    if policy == Policy::File {
        for e in events {
            names.observe(&e.event, e.time);
        }
    }
    let mut n = 0;
    for e in events {
        let name = if policy == Policy::File {
            names.name_of(&e.event, e.time)
        } else {
            names.resolve(&e.event, e.time)
        };
        let schema = &e.event.schema;
        if schema.class != m.class || m.opcode.is_some_and(|o| o != schema.event.opcode) {
            continue;
        }
        if m.file_name.as_ref().is_some_and(|f| *f != name) {
            continue;
        }
        let fields_ok = m.fields.iter().all(|(k, v)| {
            e.event.get(k).is_some_and(|got| match got {
                Value::Pointer(p) => {
                    v.strip_prefix("0x")
                        .and_then(|h| u64::from_str_radix(h, 16).ok())
                        == Some(*p)
                }
                other => other.to_string() == *v,
            })
        });
        if fields_ok {
            n += 1;
        }
    }
    n
}

fn bounded(n: u64, bound: &Bound) -> (String, bool) {
    match bound {
        Bound::Exactly(x) => (x.to_string(), n == *x),
        Bound::AtLeast(x) => (format!("at least {x}"), n >= *x),
        Bound::AtMost(x) => (format!("at most {x}"), n <= *x),
        Bound::Between(lo, hi) => (format!("{lo} to {hi}"), (*lo..=*hi).contains(&n)),
    }
}

fn check_boot(boot: Option<u32>, session: &str, field: &BootField, o: &Outcome) -> Verdict {
    let fail = |expected: String, why: String| Verdict {
        expected,
        actual: why,
        passed: false,
    };
    let expected = match field {
        BootField::Started(b) => b.to_string(),
        BootField::Status(e) => e.to_string(),
        BootField::LogFile(f) => f.clone(),
        BootField::FileCounter(c) => c.to_string(),
        BootField::Note(_) | BootField::ModeHas(_) | BootField::ModeLacks(_) => "true".into(),
        BootField::ProviderEnabled(_, b) => b.to_string(),
        BootField::ProviderLevel(_, l) => l.to_string(),
        BootField::ProviderAny(_, a) => format!("{a:#x}"),
    };
    let report = match boot {
        None => o.boots.last(),
        Some(b) => o.boots.iter().find(|r| r.boot == b),
    };
    let Some(report) = report else {
        return fail(expected, format!("no such boot ({} booted)", o.boots.len()));
    };
    let Some(s) = report
        .sessions
        .iter()
        .find(|s| s.key_name.eq_ignore_ascii_case(session) || s.name.eq_ignore_ascii_case(session))
    else {
        return fail(expected, "the registry has no such session".into());
    };
    let mode = s.in_force.as_ref().map(|p| p.log_file_mode.bits());
    let provider = |g: &Guid| s.providers.iter().find(|p| p.guid == *g);
    let actual: Result<String, String> = match field {
        BootField::Started(_) => Ok(s.started().to_string()),
        BootField::Status(want) => match s.status {
            None => Err("no start was attempted".into()),
            Some(code) if want.matches(code) => Ok(want.to_string()),
            Some(code) => Ok(code
                .name()
                .map_or_else(|| code.0.to_string(), str::to_string)),
        },
        BootField::LogFile(_) => s.log_file.clone().ok_or_else(|| "no log file".to_string()),
        BootField::FileCounter(_) => s
            .file_counter
            .map(|c| c.to_string())
            .ok_or_else(|| "no FileCounter (FileMax is 0)".to_string()),
        BootField::Note(n) => Ok(s
            .overrides
            .iter()
            .any(|o| o.contains(n.as_str()))
            .to_string()),
        BootField::ModeHas(m) => mode
            .map(|b| (b & m == *m).to_string())
            .ok_or_else(|| "the session did not start".to_string()),
        BootField::ModeLacks(m) => mode
            .map(|b| (b & m == 0).to_string())
            .ok_or_else(|| "the session did not start".to_string()),
        BootField::ProviderEnabled(g, _) => provider(g)
            .map(|p| p.enabled.to_string())
            .ok_or_else(|| format!("no provider subkey {g}")),
        BootField::ProviderLevel(g, _) => provider(g)
            .map(|p| p.level.to_string())
            .ok_or_else(|| format!("no provider subkey {g}")),
        BootField::ProviderAny(g, _) => provider(g)
            .map(|p| format!("{:#x}", p.match_any))
            .ok_or_else(|| format!("no provider subkey {g}")),
    };
    match actual {
        Ok(a) => Verdict {
            passed: a == expected,
            expected,
            actual: a,
        },
        Err(why) => fail(expected, why),
    }
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
    if ev.kind() != m.kind {
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
                JournalEvent::Control { session, .. } => {
                    session.as_deref().is_some_and(|n| eq(n, s))
                }
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

struct Verdict {
    expected: String,
    actual: String,
    passed: bool,
}

fn numbers(expected: &Bound, actual: Result<u64, String>) -> Verdict {
    match actual {
        Ok(a) => {
            let (expected, passed) = bounded(a, expected);
            Verdict {
                expected,
                actual: a.to_string(),
                passed,
            }
        }
        Err(why) => Verdict {
            expected: bounded(0, expected).0,
            actual: why,
            passed: false,
        },
    }
}

/// The journal entries up to the checkpoint `after` (all of them without one); `Err` when
/// the run did not reach that step.
fn journal_upto<'o>(
    o: &'o Outcome,
    after: Option<&str>,
) -> Result<(&'o [JournalEntry], u64), String> {
    let Some(a) = after else {
        return Ok((&o.journal, o.journal_dropped));
    };
    let c = checkpoint(o, a)?;
    // `o.journal` holds the entries after the first `journal_dropped` the run made.
    let n = c.journal_len.saturating_sub(o.journal_dropped);
    let n = usize::try_from(n)
        .unwrap_or(usize::MAX)
        .min(o.journal.len());
    Ok((&o.journal[..n], o.journal_dropped.min(c.journal_len)))
}

fn checkpoint<'o>(o: &'o Outcome, name: &str) -> Result<&'o crate::run::Checkpoint, String> {
    o.checkpoints
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("the run did not reach step {name:?}"))
}

/// A session's value `field` right after the checkpoint `after`: its statistics then, what
/// its consumers had received, and — for `events` — the copies it had recorded, counted by
/// the journal's Write verdicts.
fn session_after(
    o: &Outcome,
    session: usize,
    field: SessionField,
    consumer: Option<&str>,
    after: &str,
) -> Result<u64, String> {
    let c = checkpoint(o, after)?;
    let name = &o.sessions[session].name;
    let stat = |f: fn(&etwsim::SessionProperties) -> u32| {
        c.stats
            .get(session)
            .and_then(Option::as_ref)
            .map(|p| u64::from(f(p)))
            .ok_or_else(|| "the session had not started yet".to_string())
    };
    match field {
        SessionField::Events => {
            let (entries, dropped) = journal_upto(o, Some(after))?;
            if dropped > 0 {
                return Err(format!(
                    "{dropped} journal entries were dropped by its bound: the count is not known"
                ));
            }
            Ok(entries
                .iter()
                .filter(|e| match &e.event {
                    JournalEvent::Write { verdicts, .. } => verdicts
                        .iter()
                        .any(|v| v.recorded && eq(&v.session_name, name)),
                    _ => false,
                })
                .count() as u64)
        }
        SessionField::Delivered => delivered_of(
            c.delivered.get(session).copied().flatten(),
            c.consumers.get(session).map_or(&[][..], Vec::as_slice),
            consumer,
        ),
        SessionField::EventsLost => stat(|p| p.events_lost),
        SessionField::BuffersWritten => stat(|p| p.buffers_written),
        SessionField::LogBuffersLost => stat(|p| p.log_buffers_lost),
        SessionField::RealTimeBuffersLost => stat(|p| p.real_time_buffers_lost),
    }
}

/// What a session's consumer received: the one `consumer` names, else the unnamed one.
fn delivered_of(
    unnamed: Option<u64>,
    named: &[(String, u64)],
    consumer: Option<&str>,
) -> Result<u64, String> {
    match consumer {
        None => unnamed.ok_or_else(|| "no `consume` step attached a consumer".to_string()),
        Some(n) => named
            .iter()
            .find(|(c, _)| c == n)
            .map(|(_, k)| *k)
            .ok_or_else(|| format!("no `consume` step attached a consumer {n:?}")),
    }
}

/// Checks every expectation of `sc` against the run's `outcome`, whose files `counts`
/// describes ([`file_counts`]).
pub(crate) fn check(
    sc: &Scenario,
    outcome: &Outcome,
    counts: &[FileCount],
) -> Vec<ExpectationResult> {
    sc.expectations
        .iter()
        .map(|e| {
            let v = check_one(&e.check, outcome, counts);
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
            name,
            field,
            expected,
            consumer,
            after,
        } => {
            // A boot session is found by name (`None`: no boot started it).
            let Some(session) = session.or_else(|| {
                o.sessions
                    .iter()
                    .position(|s| s.name.eq_ignore_ascii_case(name))
            }) else {
                return numbers(
                    expected,
                    Err(format!("no [[session]] and no boot session named {name:?}")),
                );
            };
            if let Some(a) = after {
                return numbers(
                    expected,
                    session_after(o, session, *field, consumer.as_deref(), a),
                );
            }
            let s = &o.sessions[session];
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
                SessionField::Delivered => {
                    delivered_of(s.delivered, &s.consumers, consumer.as_deref())
                }
                SessionField::EventsLost => stat(|p| p.events_lost),
                SessionField::BuffersWritten => stat(|p| p.buffers_written),
                SessionField::LogBuffersLost => stat(|p| p.log_buffers_lost),
                SessionField::RealTimeBuffersLost => stat(|p| p.real_time_buffers_lost),
            };
            numbers(expected, actual)
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
            numbers(expected, Ok(actual))
        }
        Check::CallbackCount {
            provider,
            reg,
            expected,
        } => numbers(
            expected,
            Ok(o.providers[*provider].callbacks[*reg].len() as u64),
        ),
        Check::CallbackFilterData {
            provider,
            reg,
            index,
            expected,
        } => {
            let list = &o.providers[*provider].callbacks[*reg];
            let show = |b: &[u8]| {
                if b.is_empty() {
                    "none".to_string()
                } else {
                    b.iter()
                        .map(|x| format!("{x:02x}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            };
            let pick = match index {
                None => list.last(),
                Some(n) => usize::try_from(*n - 1).ok().and_then(|i| list.get(i)),
            };
            match pick {
                None => Verdict {
                    expected: show(expected),
                    actual: format!("no such callback ({} received)", list.len()),
                    passed: false,
                },
                Some(c) => {
                    let got = c.filter_data.as_deref().unwrap_or_default();
                    Verdict {
                        expected: show(expected),
                        actual: show(got),
                        passed: got == expected.as_slice(),
                    }
                }
            }
        }
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
                        CallbackField::FilterDataSize => {
                            c.filter_data.as_ref().map_or(0, |d| d.len() as u128)
                        }
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
                FileField::Exists => {
                    let want = !matches!(expected, Bound::Exactly(0));
                    Verdict {
                        expected: want.to_string(),
                        actual: found.is_some().to_string(),
                        passed: found.is_some() == want,
                    }
                }
                FileField::Size => numbers(
                    expected,
                    found
                        .map(|c| c.size)
                        .ok_or_else(|| "no such file".to_string()),
                ),
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
                    numbers(expected, actual)
                }
            }
        }
        Check::FileRecordsWith {
            path,
            flag,
            bits,
            expected,
        } => {
            let found = counts
                .iter()
                .find(|c| Path::new(&c.path) == Path::new(path));
            let actual = match found {
                None => Err("no such file".to_string()),
                Some(FileCount { error: Some(e), .. }) => Err(format!("unreadable: {e}")),
                Some(c) => Ok(c
                    .events
                    .iter()
                    .filter(|r| {
                        if *flag {
                            r.flags & bits == *bits
                        } else {
                            r.ext.contains(bits)
                        }
                    })
                    .count() as u64),
            };
            numbers(expected, actual)
        }
        Check::FileRecords {
            path,
            cpus,
            expected: ids,
        } => {
            let found = counts
                .iter()
                .find(|c| Path::new(&c.path) == Path::new(path));
            let show = |v: &[u16]| {
                let mut t = v
                    .iter()
                    .take(32)
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                if v.len() > 32 {
                    t.push_str(&format!(", … ({} in all)", v.len()));
                }
                format!("[{t}]")
            };
            match found {
                None => Verdict {
                    expected: show(ids),
                    actual: "no such file".into(),
                    passed: false,
                },
                Some(c) => {
                    let got: Vec<u16> = c
                        .events
                        .iter()
                        .map(|r| if *cpus { r.cpu } else { r.id })
                        .collect();
                    Verdict {
                        expected: show(ids),
                        actual: match &c.error {
                            Some(e) => format!("{}, then: {e}", show(&got)),
                            None => show(&got),
                        },
                        passed: c.error.is_none() && got == *ids,
                    }
                }
            }
        }
        Check::Kernel {
            session,
            matcher,
            bound,
        } => {
            let s = &o.sessions[*session];
            let from_file = counts
                .iter()
                .any(|c| c.logger.eq_ignore_ascii_case(&s.name));
            let n = count_kernel(matcher, &s.kernel_events, from_file);
            let (expected, passed) = bounded(n, bound);
            Verdict {
                expected,
                actual: n.to_string(),
                passed,
            }
        }
        Check::Boot {
            boot,
            session,
            field,
        } => check_boot(*boot, session, field, o),
        Check::Journal {
            matcher,
            bound,
            after,
        } => {
            let (entries, dropped) = match journal_upto(o, after.as_deref()) {
                Ok(x) => x,
                Err(why) => {
                    return Verdict {
                        expected: bounded(0, bound).0,
                        actual: why,
                        passed: false,
                    };
                }
            };
            let n = entries.iter().filter(|e| matches(matcher, e)).count() as u64;
            let (expected, passed) = bounded(n, bound);
            let mut actual = n.to_string();
            if dropped > 0 {
                actual.push_str(&format!(
                    " ({dropped} older entries were dropped by the journal's bound)"
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
