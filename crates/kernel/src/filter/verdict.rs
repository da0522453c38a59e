//! Why each session kept or dropped an event: the routing decision of the event path, told
//! as data.
//!
//! [`Provider::explain`](crate::Provider::explain) walks the same steps as the write — the
//! sessions holding the provider's enable slots (and its provider group's, PRV-36), scope
//! filters (FLT-16, FLT-17, private sessions), then the per-session predicate itself
//! (`filter::decide`, which the write runs as `filter::session_accepts`: level FLT-01,
//! keyword 0 FLT-04/FLT-07, MatchAny/MatchAll FLT-04…06, the EventWriteEx mask EVT-04,
//! EXCLUDE_INPRIVATE FLT-11, event ids FLT-19, event names FLT-22, the payload of manifest
//! events FLT-18, judged on the view's data blocks) — and returns, for every session that
//! holds a slot, its [`Verdict`] with the [`Reason`]: the
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

pub use crate::filter::reason::Reason;
use crate::filter::{EventView, SlotFilter, decide};
use crate::machine::ids::TraceHandle;
use etwsim_types::Guid;
use std::fmt;

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

/// The per-session predicate ([`decide`]) with the reason of the first test that fails (or
/// of the acceptance): the same function as `filter::session_accepts`, answering with its
/// reason.
pub(crate) fn judge(ev: &EventView<'_>, slot: u8, s: &SlotFilter) -> (bool, Reason) {
    decide(ev, slot, s)
}
