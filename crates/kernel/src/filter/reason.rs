//! [`Reason`]: why the per-session predicate (`filter::decide`) kept or dropped an event, the
//! rule and the values it compared. Apart from `filter::verdict`, which runs the predicate,
//! so that the predicate can name its reasons without an import circle.

use etwsim_types::{Keyword, Level};
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
