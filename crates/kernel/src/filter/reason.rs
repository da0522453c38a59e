//! [`Reason`]: why the per-session predicate (`filter::decide`) kept or dropped an event, the
//! rule and the values it compared. Apart from `filter::verdict`, which runs the predicate,
//! so that the predicate can name its reasons without an import circle.

use etwsim_types::{Keyword, Level, Win32Error};
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
    /// The session's enable does not reach this registration, by `rule`: a PID filter
    /// (FLT-16), an executable or package name filter (FLT-17), a private session of another
    /// process (SES-42), a classic provider, which logs only to its newest enabler (PRV-22),
    /// the NT Kernel Logger, which takes no provider events (KRN-02), or a registration
    /// already closed by EventUnregister (PRV-08).
    OutOfScope {
        /// The rule that leaves the registration out.
        rule: &'static str,
    },
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
    /// Some bit of the session's MatchAllKeyword is missing from the event (FLT-04).
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
    /// A classic provider's event (TraceEvent): it goes to the session its logger handle
    /// names, with no level or keyword filtering (FLT-27).
    Classic,
    /// The filters let the event through but the session could not take it, and counted it
    /// in EventsLost: too large for any event (EVT-05) or for its buffers (EVT-06), no free
    /// buffer (EVT-07), a full real-time backlog (EVT-08).
    Lost {
        /// The error the session's refusal means.
        error: Win32Error,
        /// The rule of the refusal.
        rule: &'static str,
    },
    /// The filters let the event through and the session had room, but another session
    /// without INDEPENDENT_SESSION_MODE could not take it, and such sessions take an event
    /// all or none (EVT-09). Not a loss for this session.
    Withheld {
        /// The session that could not take it.
        by: String,
        /// Its refusal's error (what the write returned).
        error: Win32Error,
    },
}

impl Reason {
    /// The rule this reason applies: the one its text cites.
    pub fn rule(&self) -> &'static str {
        match self {
            Reason::Accepted {
                match_any, keyword, ..
            } if keyword.0 != 0 && match_any.0 == u64::MAX => "FLT-05",
            Reason::Accepted { .. } => "FLT-04",
            Reason::SessionStopping => "SES-80",
            Reason::OutOfScope { rule } => rule,
            Reason::LevelAbove { .. } => "FLT-01",
            Reason::KeywordZeroIgnored => "FLT-07",
            Reason::NoAnyKeyword { .. } => "FLT-04",
            Reason::MissingAllKeyword { .. } => "FLT-04",
            Reason::ExcludedByWriteFilter { .. } => "EVT-04",
            Reason::InPrivateExcluded => "FLT-11",
            Reason::EventIdFiltered { .. } => "FLT-19",
            Reason::EventNameFiltered { .. } => "FLT-22",
            Reason::PayloadFiltered { .. } => "FLT-18",
            Reason::Classic => "FLT-27",
            Reason::Lost { rule, .. } => rule,
            Reason::Withheld { .. } => "EVT-09",
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
            Reason::OutOfScope { rule } => {
                let why = match *rule {
                    "FLT-16" => "the PID filter does not name the writing process",
                    "FLT-17" => {
                        "the executable or package filter does not name the writing process"
                    }
                    "SES-42" => "a private session takes only its own process's events",
                    "PRV-22" => "a classic provider logs only to the session that enabled it last",
                    "KRN-02" => "the NT Kernel Logger takes no provider events",
                    "PRV-08" => "the registration was closed by EventUnregister",
                    _ => "the enable does not reach this registration",
                };
                write!(f, "{why} ({rule})")
            }
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
                "keyword {:#x} lacks bits of MatchAllKeyword {:#x} (FLT-04)",
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
            Reason::Classic => write!(
                f,
                "a classic event goes to the session its logger handle names, unfiltered (FLT-27)"
            ),
            Reason::Lost { error, rule } => {
                write!(f, "lost: the session could not take it, {error:?} ({rule})")
            }
            Reason::Withheld { by, error } => write!(
                f,
                "withheld: session {by:?} could not take it ({error:?}), and sessions without \
                 INDEPENDENT_SESSION_MODE take an event all or none (EVT-09)"
            ),
        }
    }
}
