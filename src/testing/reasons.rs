//! Reasons as assertions: the events a session dropped, and why, from the kernel's journal.

use super::Match;
use crate::journal::{JournalEntry, JournalEvent};
use crate::{EventDescriptor, Guid, Reason};
use std::fmt;

/// One event a session did not record, with the kernel's reason (a journal `Write` entry's
/// verdict).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// The session that dropped it.
    pub session: String,
    /// The provider.
    pub provider: Guid,
    /// The writing process.
    pub pid: u32,
    /// The event.
    pub descriptor: EventDescriptor,
    /// Why: the rule and the values compared ([`Reason::rule`]).
    pub reason: Reason,
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.descriptor;
        write!(
            f,
            "[{}] {} id {} level {} keyword {:#x} pid {} dropped: {}",
            self.session, self.provider, d.id, d.level.0, d.keyword.0, self.pid, self.reason
        )
    }
}

/// The events sessions dropped, from [`Records::dropped`](super::Records::dropped).
#[derive(Clone, Debug, Default)]
pub struct Drops {
    pub(crate) journaling: bool,
    pub(crate) events: Vec<Dropped>,
}

impl Drops {
    pub(crate) fn from_journal(journaling: bool, entries: &[JournalEntry]) -> Drops {
        let mut events = Vec::new();
        for e in entries {
            if let JournalEvent::Write {
                provider,
                pid,
                descriptor,
                verdicts,
                ..
            } = &e.event
            {
                for v in verdicts.iter().filter(|v| !v.recorded) {
                    events.push(Dropped {
                        session: v.session_name.clone(),
                        provider: *provider,
                        pid: *pid,
                        descriptor: *descriptor,
                        reason: v.reason.clone(),
                    });
                }
            }
        }
        Drops { journaling, events }
    }

    /// Every dropped event, in write order.
    pub fn iter(&self) -> std::slice::Iter<'_, Dropped> {
        self.events.iter()
    }

    /// How many drops (one per session that dropped an event).
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Nothing dropped.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Starts an assertion about the drops `m` matches (by id, level, keyword, opcode,
    /// provider, pid, session; a name only for an EVENT_NAME drop; fields never — the
    /// journal keeps no payload).
    #[track_caller]
    pub fn expect(&self, m: Match) -> DropExpectation<'_> {
        assert!(
            self.journaling,
            "no journal: dropped events are known only to a kernel built with a journal \
             (Capture::journal(n), or KernelBuilder::journal(n))"
        );
        DropExpectation { drops: self, m }
    }
}

fn matches(m: &Match, d: &Dropped) -> bool {
    let name = match &d.reason {
        Reason::EventNameFiltered { name, .. } => Some(name.as_str()),
        _ => None,
    };
    m.matches_parts(&d.descriptor, d.provider, d.pid, &d.session, name)
}

/// An assertion about dropped events in progress: [`Drops::expect`] then why or how many.
#[derive(Debug)]
#[must_use = "a drop expectation checks nothing until because(), once(), times() or never() runs"]
pub struct DropExpectation<'a> {
    drops: &'a Drops,
    m: Match,
}

impl DropExpectation<'_> {
    fn found(&self) -> Vec<&Dropped> {
        self.drops.iter().filter(|d| matches(&self.m, d)).collect()
    }

    /// At least one matching event was dropped, and every one of them for `rule`
    /// (`"FLT-19"`, as [`Reason::rule`] names it); or a panic listing the drops.
    #[track_caller]
    pub fn because(self, rule: &str) {
        let found = self.found();
        let ok = !found.is_empty() && found.iter().all(|d| d.reason.rule() == rule);
        if !ok {
            self.fail(&format!("{} dropped because of {rule}", self.m));
        }
    }

    /// Exactly `n` matching drops.
    #[track_caller]
    pub fn times(self, n: usize) {
        if self.found().len() != n {
            self.fail(&format!("exactly {n} drop(s) of {}", self.m));
        }
    }

    /// Exactly one.
    #[track_caller]
    pub fn once(self) {
        self.times(1);
    }

    /// None: no session dropped such an event.
    #[track_caller]
    pub fn never(self) {
        self.times(0);
    }

    #[track_caller]
    fn fail(&self, wanted: &str) -> ! {
        let found = self.found();
        let mut msg = format!(
            "expected {wanted}, found {} matching drop(s); the journal has {} drop(s):",
            found.len(),
            self.drops.len()
        );
        for d in self.drops.iter().take(50) {
            msg.push_str("\n  ");
            msg.push_str(&d.to_string());
            msg.push_str(&format!(" [{}]", d.reason.rule()));
        }
        panic!("{msg}");
    }
}
