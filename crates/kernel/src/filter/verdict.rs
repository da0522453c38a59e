//! Why each session kept or dropped an event: the routing decision of the event path, told
//! as data.
//!
//! [`Provider::explain`](crate::Provider::explain) walks the same steps as the write — the sessions holding the
//! provider's enable slots (and its provider group's, PRV-36), scope filters (FLT-16,
//! FLT-17, private sessions), then the per-session predicate of `filter::session_accepts`
//! (level FLT-01, keyword 0 FLT-04/FLT-07, MatchAny/MatchAll FLT-04…06, the EventWriteEx
//! mask EVT-04, EXCLUDE_INPRIVATE FLT-11, event ids FLT-19, event names FLT-22, the payload
//! of manifest events FLT-18, judged on the view's data blocks) — and
//! returns, for every session that holds a slot, its [`Verdict`] with the [`Reason`]: the
//! rule and the values compared. It writes nothing and changes nothing.
//!
//! ```
//! use etwsim_kernel::{EnableParams, EventView, Kernel, Token};
//! use etwsim_types::{EventDescriptor, Keyword, Level};
//!
//! let k = Kernel::builder().deterministic(1).build()?;
//! let app = k.spawn("app.exe", Token::user("u"))?;
//! let guid = "{5eed0101-2026-4e75-8000-73686f703031}".parse().unwrap();
//! let p = app.register_provider(guid)?;
//! let s = k.session("s").start()?;
//! s.enable(guid, &EnableParams::new().level(Level::INFORMATION))?;
//! let verbose = EventDescriptor::new(7, Level::VERBOSE, Keyword(0x10));
//! let why = p.explain(&EventView::new(&verbose));
//! assert!(!why.verdicts[0].recorded);
//! assert_eq!(why.verdicts[0].reason.to_string(), "level 5 > session level 4 (FLT-01)");
//! # Ok::<(), etwsim_kernel::Error>(())
//! ```

use crate::filter::{
    EventView, SlotFilter, effective_all, effective_any, effective_level, payload_passes,
};
use crate::machine::ids::TraceHandle;
use etwsim_types::{EnableProperty, Guid, Keyword, Level};
use std::fmt;

/// Why a session records an event or not: the rule and the values it compared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// Every test passed: the level is within the session's, and the keywords match.
    Accepted {
        /// The event's level.
        level: Level,
        /// The session's effective level (0 counts as 255).
        session_level: Level,
        /// The event's keyword.
        keyword: Keyword,
        /// The session's effective MatchAnyKeyword.
        match_any: Keyword,
    },
    /// The session is stopping: it takes no more events (SES-80).
    SessionStopping,
    /// A scope filter (PID, executable or package name) or a private session leaves the
    /// writing process out (FLT-16, FLT-17, SES-42); a classic provider logs only to its
    /// newest enabler (PRV-22).
    OutOfScope,
    /// The event's level is above the session's (FLT-01).
    LevelAbove {
        /// The event's level.
        level: Level,
        /// The session's level.
        session_level: Level,
    },
    /// Keyword 0, and the session set IGNORE_KEYWORD_0 (FLT-07).
    KeywordZeroIgnored,
    /// No keyword bit in common with the session's MatchAnyKeyword (FLT-04).
    NoAnyKeyword {
        /// The event's keyword.
        keyword: Keyword,
        /// The session's effective MatchAnyKeyword.
        match_any: Keyword,
    },
    /// Some bit of the session's MatchAllKeyword is missing from the event (FLT-05).
    MissingAllKeyword {
        /// The event's keyword.
        keyword: Keyword,
        /// The session's effective MatchAllKeyword.
        match_all: Keyword,
    },
    /// EventWriteEx's Filter excluded the session's enable slot (EVT-04).
    ExcludedByWriteFilter {
        /// The slot.
        slot: u8,
    },
    /// An InPrivate event, and the session set EXCLUDE_INPRIVATE (FLT-11).
    InPrivateExcluded,
    /// The session's EVENT_ID filter says no to this id (FLT-19).
    EventIdFiltered {
        /// The event id.
        id: u16,
        /// `true`: the list names the ids to keep; `false`: the ids to drop.
        filter_in: bool,
    },
    /// The session's EVENT_NAME filter says no to this TraceLogging event (FLT-22).
    EventNameFiltered {
        /// The event name.
        name: String,
        /// `true`: the list names the events to keep; `false`: the events to drop.
        filter_in: bool,
    },
    /// The session's PAYLOAD filter is bound to this manifest event and its decoded fields
    /// do not satisfy it (FLT-18).
    PayloadFiltered {
        /// The event id.
        id: u16,
        /// The event version.
        version: u8,
    },
}

impl Reason {
    /// The rule this reason applies.
    pub fn rule(&self) -> &'static str {
        match self {
            Reason::Accepted { .. } => "FLT-01",
            Reason::SessionStopping => "SES-80",
            Reason::OutOfScope => "FLT-16",
            Reason::LevelAbove { .. } => "FLT-01",
            Reason::KeywordZeroIgnored => "FLT-07",
            Reason::NoAnyKeyword { .. } => "FLT-04",
            Reason::MissingAllKeyword { .. } => "FLT-05",
            Reason::ExcludedByWriteFilter { .. } => "EVT-04",
            Reason::InPrivateExcluded => "FLT-11",
            Reason::EventIdFiltered { .. } => "FLT-19",
            Reason::EventNameFiltered { .. } => "FLT-22",
            Reason::PayloadFiltered { .. } => "FLT-18",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Accepted {
                level,
                session_level,
                keyword,
                match_any,
            } => {
                write!(f, "level {} ≤ {}; ", level.0, session_level.0)?;
                if keyword.0 == 0 {
                    write!(f, "keyword 0 passes any keyword test (FLT-04)")
                } else if match_any.0 == u64::MAX {
                    write!(f, "MatchAnyKeyword 0 takes every keyword (FLT-05)")
                } else {
                    write!(
                        f,
                        "keyword {:#x} matches MatchAnyKeyword {:#x} (FLT-04)",
                        keyword.0, match_any.0
                    )
                }
            }
            Reason::SessionStopping => write!(f, "the session is stopping (SES-80)"),
            Reason::OutOfScope => write!(
                f,
                "a scope filter or a private session leaves the writing process out (FLT-16)"
            ),
            Reason::LevelAbove {
                level,
                session_level,
            } => write!(
                f,
                "level {} > session level {} (FLT-01)",
                level.0, session_level.0
            ),
            Reason::KeywordZeroIgnored => {
                write!(f, "IGNORE_KEYWORD_0 drops events with keyword 0 (FLT-07)")
            }
            Reason::NoAnyKeyword { keyword, match_any } => write!(
                f,
                "keyword {:#x} shares no bit with MatchAnyKeyword {:#x} (FLT-04)",
                keyword.0, match_any.0
            ),
            Reason::MissingAllKeyword { keyword, match_all } => write!(
                f,
                "keyword {:#x} lacks bits of MatchAllKeyword {:#x} (FLT-05)",
                keyword.0, match_all.0
            ),
            Reason::ExcludedByWriteFilter { slot } => write!(
                f,
                "EventWriteEx's Filter excludes enable slot {slot} (EVT-04)"
            ),
            Reason::InPrivateExcluded => {
                write!(f, "EXCLUDE_INPRIVATE drops InPrivate events (FLT-11)")
            }
            Reason::EventIdFiltered { id, filter_in } => write!(
                f,
                "the EVENT_ID filter {} id {id} (FLT-19)",
                if *filter_in {
                    "does not list"
                } else {
                    "excludes"
                }
            ),
            Reason::EventNameFiltered { name, filter_in } => write!(
                f,
                "the EVENT_NAME filter {} {name:?} (FLT-22)",
                if *filter_in {
                    "does not list"
                } else {
                    "excludes"
                }
            ),
            Reason::PayloadFiltered { id, version } => write!(
                f,
                "the payload of event {id} version {version} does not satisfy the PAYLOAD filter (FLT-18)"
            ),
        }
    }
}

/// One session's verdict on an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The session.
    pub session: TraceHandle,
    /// Its name.
    pub session_name: String,
    /// The enable slot it holds: 0–7 in the provider's GUID entry, 8–15 in its provider
    /// group's (PRV-36).
    pub slot: u8,
    /// Whether the session records the event.
    pub recorded: bool,
    /// Why.
    pub reason: Reason,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}  {}  {}",
            self.session_name,
            if self.recorded {
                "recorded"
            } else {
                "dropped "
            },
            self.reason
        )
    }
}

/// Every session's verdict on one event of one registration, in slot order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The provider GUID.
    pub provider: Guid,
    /// The verdicts of the sessions that hold an enable slot of the provider (or its group).
    pub verdicts: Vec<Verdict>,
}

impl Explanation {
    /// The sessions that record the event.
    pub fn recorded_by(&self) -> impl Iterator<Item = &Verdict> {
        self.verdicts.iter().filter(|v| v.recorded)
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.verdicts.is_empty() {
            return write!(f, "no session enables {}", self.provider);
        }
        for (i, v) in self.verdicts.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

/// The per-session predicate of `filter::session_accepts`, step by step, with the reason of
/// the first test that fails (or of the acceptance).
pub(crate) fn judge(ev: &EventView<'_>, slot: u8, s: &SlotFilter) -> (bool, Reason) {
    let d = ev.descriptor;
    let session_level = effective_level(s.level);
    if d.level.0 != 0 && d.level > session_level {
        return (
            false,
            Reason::LevelAbove {
                level: d.level,
                session_level: s.level,
            },
        );
    }
    let match_any = effective_any(s.match_any, true);
    if d.keyword.0 == 0 {
        if s.enable_property.contains(EnableProperty::IGNORE_KEYWORD_0) {
            return (false, Reason::KeywordZeroIgnored);
        }
    } else {
        if !d.keyword.intersects(match_any) {
            return (
                false,
                Reason::NoAnyKeyword {
                    keyword: d.keyword,
                    match_any,
                },
            );
        }
        let match_all = effective_all(s.match_any, s.match_all);
        if !d.keyword.contains(match_all) {
            return (
                false,
                Reason::MissingAllKeyword {
                    keyword: d.keyword,
                    match_all,
                },
            );
        }
    }
    if slot < 64 && ev.filter_mask & (1u64 << slot) != 0 {
        return (false, Reason::ExcludedByWriteFilter { slot });
    }
    if ev.inprivate
        && s.enable_property
            .contains(EnableProperty::EXCLUDE_INPRIVATE)
    {
        return (false, Reason::InPrivateExcluded);
    }
    match ev.name {
        None => {
            if let Some(ids) = &s.filters.event_ids {
                if !ids.passes(d.id) {
                    return (
                        false,
                        Reason::EventIdFiltered {
                            id: d.id,
                            filter_in: ids.filter_in,
                        },
                    );
                }
            }
        }
        Some(name) => {
            if let Some(nf) = &s.filters.event_names {
                if nf.gate(d) && nf.contains(name) != nf.filter_in {
                    return (
                        false,
                        Reason::EventNameFiltered {
                            name: name.to_owned(),
                            filter_in: nf.filter_in,
                        },
                    );
                }
            }
        }
    }
    if !payload_passes(ev, s) {
        return (
            false,
            Reason::PayloadFiltered {
                id: d.id,
                version: d.version,
            },
        );
    }
    (
        true,
        Reason::Accepted {
            level: d.level,
            session_level,
            keyword: d.keyword,
            match_any,
        },
    )
}
