//! The journal: an opt-in, bounded, ordered record of what the kernel did.
//!
//! Windows keeps no such record; tools reconstruct it from ETW's own events and counters. The
//! journal tells it directly, in the order it happened: control calls and their results
//! ([`JournalEvent::Control`]), enable callbacks with the values they carried
//! ([`JournalEvent::Callback`]), each write's routing decision — every session's verdict and
//! the rule behind it ([`JournalEvent::Write`]) —, buffer switches
//! ([`JournalEvent::BufferSwitch`]), flushes ([`JournalEvent::Flush`]) and losses with their
//! reason and counter ([`JournalEvent::Loss`]).
//!
//! It is off unless [`KernelBuilder::journal`](crate::KernelBuilder::journal) asks for it, and
//! then keeps the newest `capacity` entries ([`Kernel::journal_dropped`](crate::Kernel::journal_dropped) counts the ones it let
//! go). When off, the event path pays one branch on an `Option`.
//!
//! ```
//! use etwsim_kernel::{EnableParams, JournalEvent, Kernel, Token};
//! use etwsim_types::{EventDescriptor, Keyword, Level};
//!
//! let k = Kernel::builder().deterministic(1).journal(1000).build()?;
//! let app = k.spawn("app.exe", Token::user("u"))?;
//! let guid = "{5eed0101-2026-4e75-8000-6a6f75726e31}".parse().unwrap();
//! let p = app.register_provider(guid)?;
//! let s = k.session("s").start()?;
//! s.enable(guid, &EnableParams::new().level(Level::INFORMATION))?;
//! p.write(&EventDescriptor::new(7, Level::VERBOSE, Keyword(0)), &[])?;
//! let journal = k.journal();
//! let last = journal.last().unwrap();
//! assert!(matches!(&last.event, JournalEvent::Write { verdicts, .. } if !verdicts[0].recorded));
//! assert!(last.to_string().contains("level 5 > session level 4 (FLT-01)"));
//! # Ok::<(), etwsim_kernel::Error>(())
//! ```

use crate::filter::verdict::Verdict;
use crate::machine::ids::TraceHandle;
use etwsim_types::{EventDescriptor, Guid, Keyword, Level, TraceControl, Win32Error};
use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::fmt;

/// One thing the kernel did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalEntry {
    /// Its place in the journal: 1, 2, 3… (entries let go by the bound leave gaps at the
    /// start, never in the middle).
    pub seq: u64,
    /// The kernel's time when it happened, in 100 ns units since boot (virtual time in
    /// deterministic mode).
    pub time: u64,
    /// What happened.
    pub event: JournalEvent,
}

/// Which loss counter a [`JournalEvent::Loss`] incremented.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LossCounter {
    /// `EventsLost`: an event was discarded (no buffer, a disk that stopped the session, …).
    EventsLost,
    /// `LogBuffersLost`: a buffer could not be written to the log file.
    LogBuffersLost,
    /// `RealTimeBuffersLost`: a buffer could not be delivered to real-time consumers.
    RealTimeBuffersLost,
}

impl LossCounter {
    /// The counter's name in `EVENT_TRACE_PROPERTIES`.
    pub fn name(self) -> &'static str {
        match self {
            LossCounter::EventsLost => "EventsLost",
            LossCounter::LogBuffersLost => "LogBuffersLost",
            LossCounter::RealTimeBuffersLost => "RealTimeBuffersLost",
        }
    }
}

/// Why a session's buffers were written out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FlushReason {
    /// The logger wrote out the buffers that were ready: full ones (BUF-05), or partly filled
    /// ones the FlushTimer sealed (SES-63).
    Logger,
    /// A control call wrote out every buffer with records: ControlTrace FLUSH (BUF-09),
    /// INCREMENT_FILE or CONVERT_TO_REALTIME (SES-81), an UPDATE to a new log file.
    Control(TraceControl),
    /// The session stopped (SES-79).
    Stop,
}

impl fmt::Display for FlushReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlushReason::Logger => f.write_str("by the logger"),
            FlushReason::Control(c) => write!(f, "by ControlTrace({})", c.name()),
            FlushReason::Stop => f.write_str("at stop"),
        }
    }
}

/// What a [`JournalEntry`] records.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JournalEvent {
    /// A control call: StartTrace, ControlTrace(…), EnableTraceEx2(…), EventRegister,
    /// EventUnregister, RegisterTraceGuids.
    Control {
        /// The Windows name of the call, with its control code where it has one
        /// (`"ControlTrace(STOP)"`, `"EnableTraceEx2(ENABLE_PROVIDER)"`).
        call: String,
        /// What it named: a session name or handle, a provider GUID.
        target: String,
        /// The session it acted on, by its name, when it names one (StartTrace, ControlTrace,
        /// EnableTraceEx2 — a handle is resolved to its session's name when the call is made);
        /// `None` for the calls on no session.
        session: Option<String>,
        /// `Ok`, or the Win32 code it returned.
        result: Result<(), Win32Error>,
    },
    /// An enable callback ran (PRV-09…PRV-15), or a classic provider's control callback
    /// (PRV-20).
    Callback {
        /// The provider GUID.
        provider: Guid,
        /// The registering process.
        pid: u32,
        /// `IsEnabled` (0 disable, 1 enable, 2 capture state), or the classic request code
        /// (4 enable, 5 disable, 10 capture state).
        code: u32,
        /// The composite level it carried.
        level: Level,
        /// The composite MatchAnyKeyword (a classic provider: its EnableFlags).
        match_any: Keyword,
        /// The composite MatchAllKeyword (0 for a classic provider).
        match_all: Keyword,
    },
    /// A provider wrote an event that some session enables: every enabling session's verdict
    /// and the write's result.
    Write {
        /// The provider GUID.
        provider: Guid,
        /// The writing process.
        pid: u32,
        /// The event.
        descriptor: EventDescriptor,
        /// `Ok`, or the code the write returned (EVT-07: every target lost it, …).
        result: Result<(), Win32Error>,
        /// Each enabling session's verdict, with the rule and the values compared.
        verdicts: Vec<Verdict>,
    },
    /// A CPU's in-use buffer was switched for another (BUF-02, BUF-03).
    BufferSwitch {
        /// The session.
        session: String,
        /// Its handle.
        handle: TraceHandle,
        /// The writer's CPU.
        cpu: u16,
        /// The session's `NumberOfBuffers` after the switch.
        buffers: u32,
    },
    /// Buffers went to the session's sink (log file, real-time delivery, memory).
    Flush {
        /// The session.
        session: String,
        /// Its handle.
        handle: TraceHandle,
        /// How many buffers were written out.
        buffers: u32,
        /// Why.
        reason: FlushReason,
    },
    /// Something was lost: an event or a buffer, with the counter it incremented.
    Loss {
        /// The session.
        session: String,
        /// Its handle.
        handle: TraceHandle,
        /// The counter incremented.
        counter: LossCounter,
        /// How much it went up by.
        count: u32,
        /// Why, in words.
        reason: String,
        /// The rule that documents the loss.
        rule: &'static str,
    },
}

impl fmt::Display for JournalEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.time / 10;
        write!(f, "#{:<5} {:>6}.{:03} ms  ", self.seq, us / 1000, us % 1000)?;
        fmt::Display::fmt(&self.event, f)
    }
}

fn result_text(r: &Result<(), Win32Error>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

impl fmt::Display for JournalEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalEvent::Control {
                call,
                target,
                result,
                ..
            } => write!(f, "{call} {target} -> {}", result_text(result)),
            JournalEvent::Callback {
                provider,
                pid,
                code,
                level,
                match_any,
                match_all,
            } => write!(
                f,
                "callback {provider} (pid {pid}): IsEnabled {code}, level {}, any {:#x}, all {:#x}",
                level.0, match_any.0, match_all.0
            ),
            JournalEvent::Write {
                provider,
                pid,
                descriptor,
                result,
                verdicts,
            } => {
                write!(
                    f,
                    "write {provider} id {} level {} keyword {:#x} (pid {pid}) -> {}",
                    descriptor.id,
                    descriptor.level.0,
                    descriptor.keyword.0,
                    result_text(result)
                )?;
                for v in verdicts {
                    write!(f, "\n          {v}")?;
                }
                Ok(())
            }
            JournalEvent::BufferSwitch {
                session,
                cpu,
                buffers,
                ..
            } => write!(
                f,
                "{session}: CPU {cpu} switches buffers ({buffers} allocated) (BUF-03)"
            ),
            JournalEvent::Flush {
                session,
                buffers,
                reason,
                ..
            } => write!(f, "{session}: {buffers} buffer(s) written out {reason}"),
            JournalEvent::Loss {
                session,
                counter,
                count,
                reason,
                rule,
                ..
            } => write!(
                f,
                "{session}: {} += {count}: {reason} ({rule})",
                counter.name()
            ),
        }
    }
}

impl JournalEvent {
    /// The entry's kind, as the JSON form's `kind` and a scenario's `[[expect.journal]]`
    /// name it: `Control`, `Callback`, `Write`, `BufferSwitch`, `Flush` or `Loss`.
    pub fn kind(&self) -> &'static str {
        match self {
            JournalEvent::Control { .. } => "Control",
            JournalEvent::Callback { .. } => "Callback",
            JournalEvent::Write { .. } => "Write",
            JournalEvent::BufferSwitch { .. } => "BufferSwitch",
            JournalEvent::Flush { .. } => "Flush",
            JournalEvent::Loss { .. } => "Loss",
        }
    }
}

impl JournalEntry {
    /// The entry as one JSON object, for programs (its [`Display`](fmt::Display) is the text
    /// form, for people): `seq`, `time` (100 ns units since boot), `kind`
    /// ([`JournalEvent::kind`]), then the entry's fields — a result as `result` (`ok` or the
    /// Win32 code's name) and `code`; a write's descriptor fields and its `verdicts`, each
    /// with `session`, `slot`, `recorded`, `rule` and `reason`.
    pub fn to_json(&self) -> Value {
        entry_json(self)
    }
}

fn result_json(m: &mut Map<String, Value>, r: &Result<(), Win32Error>) {
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

fn entry_json(e: &JournalEntry) -> Value {
    let mut m = Map::new();
    m.insert("seq".into(), json!(e.seq));
    m.insert("time".into(), json!(e.time));
    m.insert("kind".into(), json!(e.event.kind()));
    match &e.event {
        JournalEvent::Control {
            call,
            target,
            session,
            result,
        } => {
            m.insert("call".into(), json!(call));
            m.insert("target".into(), json!(target));
            if let Some(s) = session {
                m.insert("session".into(), json!(s));
            }
            result_json(&mut m, result);
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
            result_json(&mut m, result);
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
    }
    Value::Object(m)
}

/// The bounded store behind [`Kernel::journal`](crate::Kernel::journal).
#[derive(Debug)]
pub(crate) struct Journal {
    capacity: usize,
    inner: Mutex<Ring>,
}

#[derive(Debug, Default)]
struct Ring {
    entries: VecDeque<JournalEntry>,
    next_seq: u64,
    dropped: u64,
}

impl Journal {
    pub(crate) fn new(capacity: usize) -> Journal {
        Journal {
            capacity,
            inner: Mutex::new(Ring {
                next_seq: 1,
                ..Ring::default()
            }),
        }
    }

    pub(crate) fn push(&self, time: u64, event: JournalEvent) {
        let mut r = self.inner.lock();
        let seq = r.next_seq;
        r.next_seq += 1;
        if r.entries.len() == self.capacity {
            r.entries.pop_front();
            r.dropped += 1;
        }
        if self.capacity > 0 {
            r.entries.push_back(JournalEntry { seq, time, event });
        } else {
            r.dropped += 1;
        }
    }

    pub(crate) fn entries(&self) -> Vec<JournalEntry> {
        self.inner.lock().entries.iter().cloned().collect()
    }

    pub(crate) fn take(&self) -> Vec<JournalEntry> {
        self.inner.lock().entries.drain(..).collect()
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.inner.lock().dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_keeps_the_newest_entries_and_counts_the_rest() {
        let j = Journal::new(2);
        for i in 0..5u64 {
            j.push(
                i,
                JournalEvent::Control {
                    call: "StartTrace".into(),
                    target: format!("s{i}"),
                    session: Some(format!("s{i}")),
                    result: Ok(()),
                },
            );
        }
        let e = j.entries();
        assert_eq!(e.iter().map(|e| e.seq).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(j.dropped(), 3);
        assert_eq!(j.take().len(), 2);
        assert!(j.entries().is_empty());
    }
}
