//! Providers: `ETW_GUID_ENTRY` ([`GuidEntry`]) with its 8 enable slots, `ETW_REG_ENTRY`
//! ([`RegEntry`], public handle [`Provider`]) with its cached enable word, enable callbacks,
//! and EnableTraceEx2 (PRV-01…PRV-36).
//!
//! # The cached enable word (the fast path)
//!
//! Like `tracing`'s per-callsite interest, every registration caches what the enable slots
//! of its GUID mean *for it*, in three atomics written by one cold function ([`rebuild`])
//! under the kernel's state lock and read with `Relaxed` loads on the hot path:
//!
//! * `word`: bits 0–7 the enable mask (one bit per slot whose session enables this
//!   registration, after scope filters), bits 8–15 the composite effective level (the most
//!   verbose of those sessions, FLT-02 applied), bit 16 "some session takes keyword-0 events"
//!   (FLT-07). Zero exactly when no session wants the provider.
//! * `any`, `all`: the composite keywords (PRV-12, with FLT-05 and FLT-06 applied).
//!
//! `is_enabled()` is one load and a compare (P1); `is_enabled_for(level, keyword)` adds a
//! shift, a compare and two more loads (P2). The test is conservative (PRV-30): the per-session
//! predicate ([`crate::control::filter::session_accepts`]) decides for real.
//!
//! Two more things `rebuild` caches for the event path (P4, P5): bit 17 of `word` with
//! `id_gate`, a 256-bit summary of the event ids the sessions' EVENT_ID filters let through
//! when *every* session has a filter-in id list (FLT-19) — an id whose bit is clear is
//! rejected before the routes are even loaded; and, in the route table, whether the one
//! session it holds needs nothing beyond level and keywords (no extended item, no per-event
//! filter), which lets the write take the single-session path (see `write`).
//!
//! # Callbacks
//!
//! A control operation computes each registration's state before and after, and queues one
//! notification per registration whose view changed or that the operation concerns; the
//! kernel delivers them after releasing its state lock (see `kernel`'s locking notes). The
//! values are the composite of PRV-11/12/13: the callback sees level 255 for a session at
//! level 0 and all-ones for a session with MatchAnyKeyword 0 (the project's choice for the
//! open question of PRV-11/12), so a provider that filters with them never drops an event a
//! session would take.

use crate::control::filter::{
    EventFilter, EventView, FilterSet, SlotFilter, effective_all, effective_any, effective_level,
    session_accepts,
};
use crate::control::session::{LoggerContext, Session, Target, TraceHandle};
use crate::machine::kernel::{Kernel, State};
use crate::machine::process::{Process, ProcessRecord};
use crate::machine::thread::{
    VersionCache, Versioned, WriterLocal, with_versioned, with_writer_local,
};
use crate::{Error, Result};
use arc_swap::ArcSwap;
use etwsim_types::{
    ControlCode, EnableInfo, EnableProperty, EventDescriptor, Guid, Keyword, Level,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Enable slots per GUID entry: at most 8 sessions per modern provider (PRV-21).
pub const ENABLE_SLOTS: usize = 8;
/// Registrations one process may hold (PRV-04).
pub const MAX_REGISTRATIONS_PER_PROCESS: u32 = 1024;
/// `TRACE_PROVIDER_FLAG_LEGACY`: a RegisterTraceGuids registration (PRV-06).
pub const TRACE_PROVIDER_FLAG_LEGACY: u32 = 0x1;
/// `TRACE_PROVIDER_FLAG_PRE_ENABLE`: enabled before any registration (PRV-06).
pub const TRACE_PROVIDER_FLAG_PRE_ENABLE: u32 = 0x2;
/// `WMI_ENABLE_EVENTS`: classic control callback request (PRV-23).
pub const WMI_ENABLE_EVENTS: u32 = 4;
/// `WMI_DISABLE_EVENTS` (PRV-23).
pub const WMI_DISABLE_EVENTS: u32 = 5;
/// `WMI_CAPTURE_STATE` (PRV-23).
pub const WMI_CAPTURE_STATE: u32 = 10;

const MASK: u64 = 0xff;
const KW0: u64 = 1 << 16;
/// Every route has a filter-in EVENT_ID list: `id_gate` summarises their union.
pub(crate) const ID_GATE: u64 = 1 << 17;
/// Every route has an EVENT_ID list and some list is filter-out: `id_gate` holds, exactly, the
/// ids below 256 that every route rejects (P12).
const ID_DENY: u64 = 1 << 18;
/// Every route has a filter-in EVENT_NAME list that applies to every level and keyword:
/// `name_gate` summarises their names (P12).
const NAME_GATE: u64 = 1 << 19;
/// Bits 24–31 of the word: the provider group's slots that enable the registration (PRV-36).
const GROUP_SHIFT: u32 = 24;

/// What an enable callback receives (`PENABLECALLBACK`'s arguments, PRV-09).
#[doc(alias = "PENABLECALLBACK")]
#[doc(alias = "EnableCallback")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnableNotification {
    /// `SourceId`: the controller's SourceId, or GUID_NULL for a pre-enable, a stopping
    /// session or a controller that gave none (PRV-14).
    pub source_id: Guid,
    /// `IsEnabled`: the provider's aggregate state, or CAPTURE_STATE (PRV-09, PRV-10).
    pub is_enabled: ControlCode,
    /// Composite `Level` (PRV-11).
    pub level: Level,
    /// Composite `MatchAnyKeyword` (PRV-12).
    pub match_any_keyword: Keyword,
    /// Composite `MatchAllKeyword` (PRV-12).
    pub match_all_keyword: Keyword,
    /// `FilterData`: the chain of schematized filters, one per session that gave one, each an
    /// `EVENT_FILTER_HEADER` whose InstanceId is that session's enable-slot number and whose
    /// NextOffset links the next (PRV-15). `None` when no session gave one.
    pub filter_data: Option<Vec<u8>>,
}

impl EnableNotification {
    /// The schematized filters of `filter_data`: (InstanceId, the whole block).
    pub fn schematized_filters(&self) -> Vec<(u64, &[u8])> {
        let mut out = Vec::new();
        let Some(data) = &self.filter_data else {
            return out;
        };
        let mut off = 0usize;
        while off + 24 <= data.len() {
            let block = &data[off..];
            let instance = u64::from_le_bytes(block[8..16].try_into().unwrap_or_default());
            let size = u32::from_le_bytes(block[16..20].try_into().unwrap_or_default()) as usize;
            let next = u32::from_le_bytes(block[20..24].try_into().unwrap_or_default()) as usize;
            out.push((instance, &block[..size.min(block.len())]));
            if next == 0 {
                break;
            }
            off += next;
        }
        out
    }
}

/// An enable callback: called synchronously, in order, outside the kernel's table lock.
pub type EnableCallback = Arc<dyn Fn(&EnableNotification) + Send + Sync>;

/// What a classic provider's `WMIDPREQUEST` control callback receives (PRV-23).
#[doc(alias = "WMIDPREQUEST")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassicNotification {
    /// `WMI_ENABLE_EVENTS` (4), `WMI_DISABLE_EVENTS` (5) or `WMI_CAPTURE_STATE` (10).
    pub request_code: u32,
    /// What `GetTraceLoggerHandle` returns: the session that owns the provider.
    pub logger_handle: TraceHandle,
    /// What `GetTraceEnableLevel` returns.
    pub enable_level: Level,
    /// What `GetTraceEnableFlags` returns: the low 32 bits of MatchAnyKeyword.
    pub enable_flags: u32,
}

/// A classic provider's control callback.
pub type ClassicCallback = Arc<dyn Fn(&ClassicNotification) + Send + Sync>;

pub(crate) enum RegKind {
    Modern(Option<EnableCallback>),
    Classic(Option<ClassicCallback>),
}

/// One enabled session as the event path sees it from a registration.
#[derive(Debug)]
pub(crate) struct Route {
    pub(crate) slot: u8,
    pub(crate) logger: Arc<LoggerContext>,
    pub(crate) filter: Arc<SlotFilter>,
}

/// The extended items a session can ask for, and EXCLUDE_INPRIVATE: with none of them (and no
/// per-event filter), level and keywords alone decide and the record is header + payload.
const PER_EVENT_PROPERTIES: EnableProperty = EnableProperty::SID
    .union(EnableProperty::TS_ID)
    .union(EnableProperty::STACK_TRACE)
    .union(EnableProperty::EVENT_KEY)
    .union(EnableProperty::PROCESS_START_KEY)
    .union(EnableProperty::EXCLUDE_INPRIVATE);

/// The sessions a registration feeds, in slot order, as `rebuild` left them.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Unique among all route tables of the process (0: the empty table a registration
    /// starts with): the key of the writers' per-thread cache (`with_routes`).
    version: u64,
    list: Vec<Route>,
    /// Exactly one route, whose session asks for no extended item and filters by nothing but
    /// level and keywords (no EVENT_ID / EVENT_NAME / PAYLOAD filter, no EXCLUDE_INPRIVATE):
    /// the write can take the single-session path.
    pub(crate) single: bool,
    /// With `single`: that session's level and keyword test (FLT-01…FLT-07) with its
    /// effective values worked out once here, so the write only compares.
    single_gate: LevelKeywordGate,
}

/// One session's level and keyword test, precomputed (`level_keyword_pass`'s answer for
/// every descriptor, `single_gate_matches_level_keyword_pass` checks it).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct LevelKeywordGate {
    /// The effective level (0 → 255).
    level: u8,
    /// Keyword-0 events pass (no IGNORE_KEYWORD_0).
    keyword_zero: bool,
    /// The effective MatchAnyKeyword.
    any: u64,
    /// The effective MatchAllKeyword.
    all: u64,
}

impl LevelKeywordGate {
    /// Takes nothing.
    pub(crate) const NONE: LevelKeywordGate = LevelKeywordGate {
        level: 0,
        keyword_zero: false,
        any: 0,
        all: u64::MAX,
    };

    fn new(f: &SlotFilter) -> LevelKeywordGate {
        let any = effective_any(f.match_any, true);
        LevelKeywordGate {
            level: effective_level(f.level).0,
            keyword_zero: !f.enable_property.contains(EnableProperty::IGNORE_KEYWORD_0),
            any: any.0,
            all: effective_all(f.match_any, f.match_all).0,
        }
    }

    #[inline]
    pub(crate) fn passes(&self, d: &EventDescriptor) -> bool {
        if d.level.0 > self.level {
            return false; // a level-0 event is never above it
        }
        if d.keyword.0 == 0 {
            self.keyword_zero
        } else {
            d.keyword.0 & self.any != 0 && d.keyword.0 & self.all == self.all
        }
    }
}

/// The last route-table version handed out.
static ROUTES_VERSION: AtomicU64 = AtomicU64::new(0);

/// Route tables this OS thread wrote through recently, newest replacing the oldest.
const ROUTE_CACHE_SIZE: usize = 4;

/// The route tables one OS thread wrote through recently (part of its
/// [`crate::machine::thread::WriterLocal`]).
pub(crate) type RouteCache = VersionCache<Routes, ROUTE_CACHE_SIZE>;

impl Versioned for Routes {
    fn version(&self) -> u64 {
        self.version
    }
}

impl RegEntry {
    /// [`Provider::is_enabled_for`] on the registration itself (the kernel's own providers
    /// keep only their registration).
    #[inline(always)]
    pub(crate) fn is_enabled_for(&self, level: Level, keyword: Keyword) -> bool {
        let w = self.word.load(Ordering::Relaxed);
        if w == 0 || level.0 > (w >> 8) as u8 {
            return false;
        }
        if keyword.0 == 0 {
            return w & KW0 != 0;
        }
        let any = self.any.load(Ordering::Relaxed);
        let all = self.all.load(Ordering::Relaxed);
        keyword.0 & any != 0 && keyword.0 & all == all
    }

    /// The version of the registration's current route table (0 while it has none).
    #[inline(always)]
    pub(crate) fn routes_version(&self) -> u64 {
        self.routes_version.load(Ordering::Acquire)
    }

    /// The registration's current route table if this OS thread's route cache holds it
    /// (`None` on a miss: [`RegEntry::with_routes_in`] then loads and caches it).
    #[inline(always)]
    pub(crate) fn cached_routes<'a>(&self, cache: &'a RouteCache) -> Option<&'a Routes> {
        cache.get(self.routes_version.load(Ordering::Acquire))
    }

    /// Runs `f` with the registration's current route table, from this OS thread's
    /// [`RouteCache`] (a [`VersionCache`]: `rebuild` stores the version after the table, so
    /// a hit is the current table, used with no reference count and no `ArcSwap` debt slot,
    /// P5). A replaced table can stay cached until this thread writes again (at most four per
    /// thread); a session it names that has stopped is not written to (`is_running`).
    #[inline(always)]
    pub(crate) fn with_routes<R>(&self, f: impl FnOnce(&Routes) -> R) -> R {
        with_writer_local(|local| self.with_routes_in(local, f))
    }

    /// [`RegEntry::with_routes`] with this OS thread's writer state already at hand (`None`
    /// while the thread's locals are being destroyed: no cache then).
    #[inline(always)]
    pub(crate) fn with_routes_in<R>(
        &self,
        local: Option<&WriterLocal>,
        f: impl FnOnce(&Routes) -> R,
    ) -> R {
        with_versioned(
            local.map(|l| &l.routes),
            self.routes_version.load(Ordering::Acquire),
            || self.routes.load_full(),
            f,
        )
    }
}

impl Routes {
    fn new(list: Vec<Route>) -> Routes {
        let single = matches!(&list[..], [r] if {
            let f = &r.filter;
            f.filters.event_ids.is_none()
                && f.filters.event_names.is_none()
                && f.filters.payload.is_none()
                && !f.enable_property.intersects(PER_EVENT_PROPERTIES)
                // SEC-06: a SECURE_MODE session checks the writer on the general path.
                && !r.logger.cfg.mode.contains(etwsim_types::LogFileMode::SECURE)
        });
        let single_gate = match &list[..] {
            [r] if single => LevelKeywordGate::new(&r.filter),
            _ => LevelKeywordGate::default(),
        };
        Routes {
            version: ROUTES_VERSION.fetch_add(1, Ordering::Relaxed) + 1,
            list,
            single,
            single_gate,
        }
    }

    /// With `single`: whether the one session's level and keywords take `d` (what
    /// `level_keyword_pass` answers for it).
    #[inline]
    pub(crate) fn single_passes(&self, d: &EventDescriptor) -> bool {
        self.single_gate.passes(d)
    }

    /// With `single`: the one session's level and keyword test.
    pub(crate) fn single_gate(&self) -> LevelKeywordGate {
        self.single_gate
    }

    /// With `single`: whether the session's level and keyword test is `reg`'s own
    /// ([`RegEntry::is_enabled_for`] with its current word and keywords, which `rebuild`
    /// made from this one session): then an event that passed that one passes this one.
    pub(crate) fn single_gate_is(&self, reg: &RegEntry) -> bool {
        let w = reg.word.load(Ordering::Relaxed);
        let g = &self.single_gate;
        self.single
            && w != 0
            && g.level == (w >> 8) as u8
            && g.keyword_zero == (w & KW0 != 0)
            && g.any == reg.any.load(Ordering::Relaxed)
            && g.all == reg.all.load(Ordering::Relaxed)
    }
}

impl std::ops::Deref for Routes {
    type Target = [Route];
    fn deref(&self) -> &[Route] {
        &self.list
    }
}

/// The bit of event id `id` in a 256-bit id summary.
#[inline]
fn id_bit(id: u16) -> (usize, u64) {
    (usize::from(id >> 6) & 3, 1u64 << (id & 63))
}

/// The name gate's bit of `name`, from its length and its first and last eight bytes (fewer
/// for a shorter name) mixed by one multiplication: a handful of instructions whatever the
/// name's length (P12). Names that differ only in the middle share a bit; the gate is a
/// "maybe" and the session's own filter then decides.
#[inline]
fn name_bit(name: &str) -> (usize, u64) {
    let b = name.as_bytes();
    let n = b.len();
    let word = |c: &[u8]| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    let half = |c: &[u8]| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let (x, y) = if n >= 8 {
        (word(b), word(&b[n - 8..]))
    } else if n >= 4 {
        (half(b), half(&b[n - 4..]))
    } else if n > 0 {
        (
            u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16,
            0,
        )
    } else {
        (0, 0)
    };
    let h = (x ^ y.rotate_left(29) ^ (n as u64) << 56).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56;
    ((h >> 6) as usize, 1u64 << (h & 63))
}

/// `ETW_REG_ENTRY`: one registration of a provider GUID in one process.
#[doc(alias = "ETW_REG_ENTRY")]
pub struct RegEntry {
    /// Packed enable mask, composite level, keyword-0 bit. Written by `rebuild` under the
    /// state lock (after `any` and `all`), read `Relaxed` by the fast path.
    word: AtomicU64,
    /// Composite effective MatchAnyKeyword. Same writer and readers as `word`.
    any: AtomicU64,
    /// Composite effective MatchAllKeyword. Same writer and readers as `word`.
    all: AtomicU64,
    /// The sessions this registration currently feeds, in slot order; swapped whole by
    /// `rebuild`, loaded without a lock by the event path.
    pub(crate) routes: ArcSwap<Routes>,
    /// The version of the table in `routes`, stored (Release) after it (`with_routes`).
    routes_version: AtomicU64,
    /// With [`ID_GATE`] set in `word`: bit `id mod 256` is set for every id some session's
    /// filter-in EVENT_ID list holds (FLT-19). With [`ID_DENY`]: bit `id` is set for every id
    /// below 256 that every session rejects. Same writer and readers as `word`.
    id_gate: [AtomicU64; 4],
    /// With [`NAME_GATE`] set in `word`: bit `hash(name) mod 256` is set for every name some
    /// session's filter-in EVENT_NAME list holds (FLT-22). Same writer and readers as `word`.
    name_gate: [AtomicU64; 4],
    /// Cleared by unregister; a cleared registration gets no more callbacks (PRV-08).
    registered: AtomicBool,
    pub(crate) id: u64,
    pub(crate) guid: Guid,
    /// `guid` as the two little-endian words of its GUID bytes, as a record header holds it.
    pub(crate) guid_words: [u64; 2],
    pub(crate) pid: u32,
    pub(crate) process_key: u64,
    /// The registering process is marked InPrivate: all its events count as InPrivate for
    /// EXCLUDE_INPRIVATE sessions (FLT-11).
    pub(crate) inprivate: bool,
    kind: RegKind,
    /// What EventSetInformation set (PRV-34, PRV-35).
    pub(crate) info: parking_lot::Mutex<RegInfo>,
    /// The traits blob, once set: attached to every event as PROV_TRAITS (PRV-34). Set once,
    /// read without a lock by the event path.
    pub(crate) traits_blob: std::sync::OnceLock<Box<[u8]>>,
    /// The provider group the traits named (PRV-36), set once with them, under the state lock.
    pub(crate) group: std::sync::OnceLock<Guid>,
    /// The registering process's user SID, binary (SID items, FLT-11).
    pub(crate) sid: Box<[u8]>,
    /// The registering process's terminal-session id (TS_ID items, FLT-11).
    pub(crate) ts_id: u32,
}

/// Per-registration information set by EventSetInformation.
#[derive(Debug, Default)]
pub(crate) struct RegInfo {
    pub(crate) traits: Option<crate::control::traits::ProviderTraits>,
    pub(crate) use_descriptor_type: bool,
}

impl std::fmt::Debug for RegEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegEntry")
            .field("id", &self.id)
            .field("guid", &self.guid)
            .field("pid", &self.pid)
            .field(
                "word",
                &format_args!("{:#x}", self.word.load(Ordering::Relaxed)),
            )
            .finish_non_exhaustive()
    }
}

impl RegEntry {
    fn is_classic(&self) -> bool {
        matches!(self.kind, RegKind::Classic(_))
    }

    fn mask(&self) -> u8 {
        (self.word.load(Ordering::Relaxed) & MASK) as u8
    }

    /// The group slots (PRV-36) that enable this registration, as a bit mask.
    fn group_mask(&self) -> u8 {
        (self.word.load(Ordering::Relaxed) >> GROUP_SHIFT) as u8
    }

    /// `false` when every session that enables the registration has a filter-in EVENT_ID
    /// list without `id` (FLT-19): a manifest event with this id is recorded nowhere. `true`
    /// means "maybe" (the per-session predicate decides).
    /// With a deny gate, `false` also when every session rejects `id` (filter-out lists, or a
    /// mix: P12).
    #[inline]
    pub(crate) fn id_may_pass(&self, id: u16) -> bool {
        let w = self.word.load(Ordering::Relaxed);
        if w & (ID_GATE | ID_DENY) == 0 {
            return true;
        }
        let (i, bit) = id_bit(id);
        let set = self.id_gate[i].load(Ordering::Relaxed) & bit != 0;
        if w & ID_GATE != 0 {
            set
        } else {
            !(id < 256 && set)
        }
    }

    /// `false` when every session that enables the registration has a filter-in EVENT_NAME
    /// list (applying to every level and keyword) without `name` (FLT-22); `true` means
    /// "maybe".
    #[inline]
    pub(crate) fn name_may_pass(&self, name: &str) -> bool {
        if self.word.load(Ordering::Relaxed) & NAME_GATE == 0 {
            return true;
        }
        let (i, bit) = name_bit(name);
        self.name_gate[i].load(Ordering::Relaxed) & bit != 0
    }

    /// The cached enable word, decoded.
    pub fn enable_state(&self) -> EnableState {
        let w = self.word.load(Ordering::Relaxed);
        EnableState {
            mask: (w & MASK) as u8,
            level: Level((w >> 8) as u8),
            match_any: Keyword(self.any.load(Ordering::Relaxed)),
            match_all: Keyword(self.all.load(Ordering::Relaxed)),
            keyword_zero: w & KW0 != 0,
        }
    }
}

/// The configuration one EnableTraceEx2 call left in a slot.
#[derive(Debug)]
pub(crate) struct EnableConfig {
    pub(crate) filter: Arc<SlotFilter>,
    pub(crate) source_id: Guid,
    seq: u64,
    /// Start keys of the processes a PID filter matched at enable time (FLT-16).
    pid_scope: Option<Vec<u64>>,
}

#[derive(Clone, Debug)]
pub(crate) struct SlotEntry {
    pub(crate) logger: Arc<LoggerContext>,
    pub(crate) cfg: Arc<EnableConfig>,
}

/// `ETW_GUID_ENTRY`: a provider GUID's 8 enable slots and its registrations.
#[doc(alias = "ETW_GUID_ENTRY")]
#[derive(Debug, Default)]
pub struct GuidEntry {
    pub(crate) slots: [Option<SlotEntry>; ENABLE_SLOTS],
    pub(crate) regs: Vec<Arc<RegEntry>>,
}

impl GuidEntry {
    fn slot_of(&self, h: TraceHandle) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.logger.handle == h))
    }

    fn is_empty(&self) -> bool {
        self.regs.is_empty() && self.slots.iter().all(Option::is_none)
    }
}

/// Does slot `s` enable registration `reg` of process `p`? Private sessions see only their
/// own process (SES-42); scope filters narrow the rest (FLT-16, FLT-17).
fn slot_applies(s: &SlotEntry, reg: &RegEntry, p: Option<&ProcessRecord>) -> bool {
    if s.logger.cfg.kernel_logger {
        return false; // KRN-02 (choice): the enable succeeds, no event reaches the kernel logger
    }
    if let Some(owner) = s.logger.private_owner {
        if owner != reg.process_key {
            return false;
        }
    }
    if reg.is_classic() {
        return true; // FLT-27: no scope filtering for classic providers
    }
    if let Some(keys) = &s.cfg.pid_scope {
        if !keys.contains(&reg.process_key) {
            return false;
        }
    }
    let f = &s.cfg.filter.filters;
    let Some(p) = p else { return !f.has_scope() };
    let matches = |list: &Option<Vec<String>>, value: Option<&str>| match list {
        None => true,
        Some(names) => value.is_some_and(|v| names.contains(&crate::control::session::name_key(v))),
    };
    matches(&f.executable_names, Some(p.file_name()))
        && matches(&f.package_ids, p.package_id.as_deref())
        && matches(&f.package_app_ids, p.package_app_id.as_deref())
}

/// The slots that enable `reg`, as a bit mask. For a classic registration only the most
/// recent enabler counts: classic providers log to one session, the last one wins (PRV-22).
fn applicable(entry: &GuidEntry, reg: &RegEntry, p: Option<&ProcessRecord>) -> u8 {
    let mut mask = 0u8;
    let mut best: Option<(u64, usize)> = None;
    for (i, s) in entry.slots.iter().enumerate() {
        let Some(s) = s else { continue };
        if !s.logger.is_running() || !slot_applies(s, reg, p) {
            continue;
        }
        if reg.is_classic() {
            if best.is_none_or(|(seq, _)| s.cfg.seq > seq) {
                best = Some((s.cfg.seq, i));
            }
        } else {
            mask |= 1 << i;
        }
    }
    match best {
        Some((_, i)) => 1 << i,
        None => mask,
    }
}

/// The composite of `slots`: (effective level, any, all, keyword-0 allowed).
fn composite(slots: &[(u8, &SlotEntry)], modern: bool) -> (u8, u64, u64, bool) {
    let (mut level, mut any, mut all, mut kw0) = (0u8, 0u64, u64::MAX, false);
    for (_, s) in slots {
        let f = &s.cfg.filter;
        level = level.max(effective_level(f.level).0);
        any |= effective_any(f.match_any, modern).0;
        all &= effective_all(f.match_any, f.match_all).0;
        kw0 |= !f.enable_property.contains(EnableProperty::IGNORE_KEYWORD_0);
    }
    if slots.is_empty() {
        (0, 0, 0, false)
    } else {
        (level, any, all, kw0)
    }
}

/// The route slot number of group slot `i`: past the 64 bits of EventWriteEx's Filter, which
/// names the provider's own enable slots (EVT-04), so a group session is never excluded by it.
pub(crate) const GROUP_ROUTE_SLOT: u8 = 64;

/// Recomputes a registration's cached word and routes from its GUID entry and, for a member
/// of a provider group, the group's entry (PRV-36): the one cold function that writes them.
/// Returns the (old, new) masks: the own slots in the low byte, the group slots in the high.
///
/// A session that enables the provider itself and through its group routes once, with the
/// provider's own settings (the project's choice: the direct enable is the more specific).
pub(crate) fn rebuild(
    entry: &GuidEntry,
    group: Option<&GuidEntry>,
    reg: &RegEntry,
    p: Option<&ProcessRecord>,
) -> (u16, u16) {
    let old = u16::from(reg.mask()) | u16::from(reg.group_mask()) << 8;
    let registered = reg.registered.load(Ordering::Relaxed);
    let mask = if registered {
        applicable(entry, reg, p)
    } else {
        0
    };
    let mut active: Vec<(u8, &SlotEntry)> = entry
        .slots
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .filter_map(|(i, s)| Some((i as u8, s.as_ref()?)))
        .collect();
    let mut group_mask = 0u8;
    if let Some(g) = group.filter(|_| registered && !reg.is_classic()) {
        for (i, s) in g.slots.iter().enumerate() {
            let Some(s) = s else { continue };
            let direct = active
                .iter()
                .any(|(_, a)| Arc::ptr_eq(&a.logger, &s.logger));
            if s.logger.is_running() && slot_applies(s, reg, p) && !direct {
                group_mask |= 1 << i;
                active.push((GROUP_ROUTE_SLOT + i as u8, s));
            }
        }
    }
    let (level, any, all, kw0) = composite(&active, !reg.is_classic());
    reg.any.store(any, Ordering::Relaxed);
    reg.all.store(all, Ordering::Relaxed);
    let routes: Vec<Route> = active
        .iter()
        .map(|(slot, s)| Route {
            slot: *slot,
            logger: s.logger.clone(),
            filter: s.cfg.filter.clone(),
        })
        .collect();
    let gate = id_gate(&routes);
    let deny = if gate.is_none() {
        id_deny(&routes)
    } else {
        None
    };
    for (cell, bits) in reg.id_gate.iter().zip(gate.or(deny).unwrap_or_default()) {
        cell.store(bits, Ordering::Relaxed);
    }
    let names = name_gate(&routes);
    for (cell, bits) in reg.name_gate.iter().zip(names.unwrap_or_default()) {
        cell.store(bits, Ordering::Relaxed);
    }
    let word = if active.is_empty() {
        0
    } else {
        u64::from(mask)
            | (u64::from(level) << 8)
            | if kw0 { KW0 } else { 0 }
            | if gate.is_some() { ID_GATE } else { 0 }
            | if deny.is_some() { ID_DENY } else { 0 }
            | if names.is_some() { NAME_GATE } else { 0 }
            | u64::from(group_mask) << GROUP_SHIFT
    };
    reg.word.store(word, Ordering::Release);
    let routes = Routes::new(routes);
    let version = routes.version;
    reg.routes.store(Arc::new(routes));
    reg.routes_version.store(version, Ordering::Release);
    (old, u16::from(mask) | u16::from(group_mask) << 8)
}

/// The id summary of `routes` when every one has a filter-in EVENT_ID list (FLT-19): the
/// union of their ids, one bit per `id mod 256`. `None` when some route could take an id its
/// list does not name (no id filter, or a filter-out list).
fn id_gate(routes: &[Route]) -> Option<[u64; 4]> {
    if routes.is_empty() {
        return None;
    }
    let mut bits = [0u64; 4];
    for r in routes {
        let ids = r.filter.filters.event_ids.as_ref()?;
        if !ids.filter_in {
            return None;
        }
        for &id in &ids.ids {
            let (i, bit) = id_bit(id);
            bits[i] |= bit;
        }
    }
    Some(bits)
}

/// The ids below 256 that every route rejects, exactly, when every route has an EVENT_ID list
/// and some list is filter-out (FLT-19): the ids every filter-out list names and no filter-in
/// list does. `None` when some route has no id list (it rejects no id), or when no id below
/// 256 is rejected everywhere.
fn id_deny(routes: &[Route]) -> Option<[u64; 4]> {
    if routes.is_empty() {
        return None;
    }
    let mut bits = [u64::MAX; 4];
    for r in routes {
        let ids = r.filter.filters.event_ids.as_ref()?;
        let mut listed = [0u64; 4];
        for &id in ids.ids.iter().filter(|&&id| id < 256) {
            let (i, bit) = id_bit(id);
            listed[i] |= bit;
        }
        for (b, l) in bits.iter_mut().zip(listed) {
            // A filter-out list rejects what it names; a filter-in list what it does not.
            *b &= if ids.filter_in { !l } else { l };
        }
    }
    (bits != [0; 4]).then_some(bits)
}

/// The name summary of `routes` when every one has a filter-in EVENT_NAME list whose own
/// level/keyword gate takes every event (FLT-22): the union of the names' bits.
fn name_gate(routes: &[Route]) -> Option<[u64; 4]> {
    if routes.is_empty() {
        return None;
    }
    let mut bits = [0u64; 4];
    for r in routes {
        let nf = r.filter.filters.event_names.as_ref()?;
        if !nf.filter_in || nf.level.0 != 0 || nf.match_any.0 != 0 || nf.match_all.0 != 0 {
            return None;
        }
        for n in &nf.names {
            let (i, bit) = name_bit(n);
            bits[i] |= bit;
        }
    }
    Some(bits)
}

/// A callback waiting to run once the state lock is released.
pub(crate) struct Pending {
    reg: Arc<RegEntry>,
    what: PendingKind,
}

enum PendingKind {
    Modern(EnableNotification),
    Classic(ClassicNotification),
}

impl Pending {
    /// The journal's record of this callback, if one will run.
    pub(crate) fn journal_event(&self) -> Option<crate::journal::JournalEvent> {
        if !self.reg.registered.load(Ordering::Acquire) {
            return None;
        }
        let (provider, pid) = (self.reg.guid, self.reg.pid);
        match (&self.reg.kind, &self.what) {
            (RegKind::Modern(Some(_)), PendingKind::Modern(n)) => {
                Some(crate::journal::JournalEvent::Callback {
                    provider,
                    pid,
                    code: n.is_enabled as u32,
                    level: n.level,
                    match_any: n.match_any_keyword,
                    match_all: n.match_all_keyword,
                })
            }
            (RegKind::Classic(Some(_)), PendingKind::Classic(n)) => {
                Some(crate::journal::JournalEvent::Callback {
                    provider,
                    pid,
                    code: n.request_code,
                    level: n.enable_level,
                    match_any: Keyword(u64::from(n.enable_flags)),
                    match_all: Keyword(0),
                })
            }
            _ => None,
        }
    }

    pub(crate) fn deliver(self) {
        if !self.reg.registered.load(Ordering::Acquire) {
            return; // unregistered in the meantime: the callback is cancelled (PRV-08)
        }
        match (&self.reg.kind, &self.what) {
            (RegKind::Modern(Some(cb)), PendingKind::Modern(n)) => cb(n),
            (RegKind::Classic(Some(cb)), PendingKind::Classic(n)) => cb(n),
            _ => {}
        }
    }
}

/// The schematized-filter chain of the slots in `mask` (PRV-15).
fn filter_chain(entry: &GuidEntry, mask: u8) -> Option<Vec<u8>> {
    let blocks: Vec<(usize, &[u8])> = entry
        .slots
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .filter_map(|(i, s)| Some((i, s.as_ref()?.cfg.filter.filters.schematized()?)))
        .collect();
    if blocks.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for (n, (slot, data)) in blocks.iter().enumerate() {
        let start = out.len();
        out.extend_from_slice(data);
        out[start + 8..start + 16].copy_from_slice(&(*slot as u64).to_le_bytes());
        let padded = data.len().div_ceil(8) * 8;
        out.resize(start + padded, 0);
        let next = if n + 1 < blocks.len() {
            padded as u32
        } else {
            0
        };
        out[start + 20..start + 24].copy_from_slice(&next.to_le_bytes());
    }
    Some(out)
}

fn notify(entry: &GuidEntry, reg: &Arc<RegEntry>, code: ControlCode, source_id: Guid) -> Pending {
    let mask = reg.mask();
    let what = if reg.is_classic() {
        let slot = (0..ENABLE_SLOTS)
            .find(|i| mask & (1 << i) != 0)
            .and_then(|i| entry.slots[i].as_ref());
        let (handle, level, flags) = match slot {
            Some(s) => (
                s.logger.handle,
                s.cfg.filter.level,
                s.cfg.filter.match_any.0 as u32,
            ),
            None => (TraceHandle(0), Level(0), 0),
        };
        PendingKind::Classic(ClassicNotification {
            request_code: match code {
                ControlCode::DisableProvider => WMI_DISABLE_EVENTS,
                ControlCode::EnableProvider => WMI_ENABLE_EVENTS,
                ControlCode::CaptureState => WMI_CAPTURE_STATE,
            },
            logger_handle: handle,
            enable_level: level,
            enable_flags: flags,
        })
    } else {
        let w = reg.word.load(Ordering::Relaxed);
        PendingKind::Modern(EnableNotification {
            source_id,
            is_enabled: code,
            level: Level((w >> 8) as u8),
            match_any_keyword: Keyword(reg.any.load(Ordering::Relaxed)),
            match_all_keyword: Keyword(reg.all.load(Ordering::Relaxed)),
            filter_data: if code == ControlCode::DisableProvider {
                None
            } else {
                filter_chain(entry, mask)
            },
        })
    };
    Pending {
        reg: reg.clone(),
        what,
    }
}

/// The callback a registration hears when the slot with `bit` changed and its masks went from
/// `old` to `new`: ENABLE when that slot enables it now, or enabled it and others still do;
/// DISABLE when that slot enabled it and was the last (PRV-09, PRV-10, PRV-16).
fn change(old: u16, new: u16, bit: u16, classic: bool) -> Option<ControlCode> {
    if new & bit != 0 || (old & bit != 0 && new != 0) {
        Some(ControlCode::EnableProvider)
    } else if old & bit != 0 || (classic && old != 0 && new == 0) {
        Some(ControlCode::DisableProvider)
    } else {
        None
    }
}

impl State {
    /// The provider group entry `reg` is a member of, if any (PRV-36).
    fn group_of(&self, reg: &RegEntry) -> Option<&GuidEntry> {
        reg.group.get().and_then(|g| self.groups.get(g))
    }

    /// Rebuilds every registration of `guid`, then queues callbacks: registrations that the
    /// session in `slot` enables now, or enabled before, hear about it (PRV-09, PRV-10, PRV-16).
    fn rebuild_and_notify(&mut self, guid: Guid, slot: usize, source_id: Guid) -> Vec<Pending> {
        let Some(entry) = self.guids.get(&guid) else {
            return Vec::new();
        };
        let bit = 1u16 << slot;
        let mut pending = Vec::new();
        for reg in &entry.regs {
            let group = self.group_of(reg);
            let (old, new) = rebuild(entry, group, reg, self.processes.get(&reg.process_key));
            if let Some(code) = change(old, new, bit, reg.is_classic()) {
                pending.push(notify(entry, reg, code, source_id));
            }
        }
        pending
    }

    /// The same for the members of provider group `group` after its `slot` changed (PRV-36).
    fn rebuild_group_and_notify(
        &mut self,
        group: Guid,
        slot: usize,
        source_id: Guid,
    ) -> Vec<Pending> {
        let Some(g) = self.groups.get(&group) else {
            return Vec::new();
        };
        let bit = 1u16 << (8 + slot);
        let mut pending = Vec::new();
        for reg in &g.regs {
            let Some(entry) = self.guids.get(&reg.guid) else {
                continue;
            };
            let (old, new) = rebuild(entry, Some(g), reg, self.processes.get(&reg.process_key));
            if let Some(code) = change(old, new, bit, false) {
                pending.push(notify(entry, reg, code, source_id));
            }
        }
        pending
    }

    /// A registration whose traits name provider group `group` joins it (PRV-36): it is
    /// enabled at once by every session that enabled the group, and told so.
    pub(crate) fn join_group(&mut self, reg: &Arc<RegEntry>, group: Guid) -> Vec<Pending> {
        if !self.may_join_group(reg.process_key, group) {
            return Vec::new(); // SEC-11: membership denied
        }
        if reg.group.set(group).is_err() || !reg.registered.load(Ordering::Relaxed) {
            return Vec::new();
        }
        self.groups.entry(group).or_default().regs.push(reg.clone());
        let (Some(entry), Some(g)) = (self.guids.get(&reg.guid), self.groups.get(&group)) else {
            return Vec::new();
        };
        let (old, new) = rebuild(entry, Some(g), reg, self.processes.get(&reg.process_key));
        if (new & !old) >> 8 != 0 {
            vec![notify(entry, reg, ControlCode::EnableProvider, Guid::NULL)]
        } else {
            Vec::new()
        }
    }

    fn drop_entry_if_empty(&mut self, guid: Guid) {
        if self.guids.get(&guid).is_some_and(GuidEntry::is_empty) {
            self.guids.remove(&guid);
        }
    }

    fn drop_group_if_empty(&mut self, group: Guid) {
        if self.groups.get(&group).is_some_and(GuidEntry::is_empty) {
            self.groups.remove(&group);
        }
    }

    /// A stopping session lets go of every provider, with callbacks carrying SourceId
    /// GUID_NULL (SES-80, PRV-14).
    pub(crate) fn disable_everywhere(&mut self, ctx: &Arc<LoggerContext>) -> Vec<Pending> {
        let guids: Vec<(Guid, usize)> = self
            .guids
            .iter()
            .filter_map(|(g, e)| Some((*g, e.slot_of(ctx.handle)?)))
            .collect();
        let mut pending = Vec::new();
        for (guid, slot) in guids {
            // Clearing the slot first is safe: each registration's cached word still holds
            // the old mask, which rebuild_and_notify compares the new one against.
            if let Some(e) = self.guids.get_mut(&guid) {
                e.slots[slot] = None;
            }
            pending.extend(self.rebuild_and_notify(guid, slot, Guid::NULL));
            self.drop_entry_if_empty(guid);
        }
        let groups: Vec<(Guid, usize)> = self
            .groups
            .iter()
            .filter_map(|(g, e)| Some((*g, e.slot_of(ctx.handle)?)))
            .collect();
        for (group, slot) in groups {
            if let Some(e) = self.groups.get_mut(&group) {
                e.slots[slot] = None;
            }
            pending.extend(self.rebuild_group_and_notify(group, slot, Guid::NULL));
            self.drop_group_if_empty(group);
        }
        pending
    }

    pub(crate) fn drop_process_registrations(&mut self, key: u64) {
        let regs: Vec<Arc<RegEntry>> = self
            .guids
            .values()
            .flat_map(|e| e.regs.iter().filter(|r| r.process_key == key).cloned())
            .collect();
        for r in regs {
            self.unregister(&r);
        }
    }

    pub(crate) fn register(
        &mut self,
        key: u64,
        guid: Guid,
        kind: RegKind,
    ) -> Result<(Arc<RegEntry>, Vec<Pending>)> {
        if guid.is_null() {
            return Err(Error::invalid("ProviderId is GUID_NULL"));
        }
        let rec = self.live_process(key)?;
        self.check_register_rights(&rec.token, guid)?; // SEC-02: TRACELOG_REGISTER_GUIDS
        if rec.registrations >= MAX_REGISTRATIONS_PER_PROCESS {
            return Err(Error::LimitReached {
                what: "provider registrations per process",
                limit: MAX_REGISTRATIONS_PER_PROCESS,
            });
        }
        let pid = rec.pid;
        let inprivate = rec.inprivate;
        let sid = etwsim_types::record::encode_sid(&rec.token.sid)
            .unwrap_or_default()
            .into_boxed_slice();
        let ts_id = rec.token.terminal_session;
        let id = self.next_reg_id;
        self.next_reg_id += 1;
        let reg = Arc::new(RegEntry {
            word: AtomicU64::new(0),
            any: AtomicU64::new(0),
            all: AtomicU64::new(0),
            routes: ArcSwap::from_pointee(Routes::default()),
            routes_version: AtomicU64::new(0),
            id_gate: Default::default(),
            name_gate: Default::default(),
            registered: AtomicBool::new(true),
            id,
            guid,
            guid_words: crate::data::write::guid_words(&guid),
            pid,
            process_key: key,
            inprivate,
            kind,
            info: parking_lot::Mutex::new(RegInfo::default()),
            traits_blob: std::sync::OnceLock::new(),
            group: std::sync::OnceLock::new(),
            sid,
            ts_id,
        });
        self.processes
            .get_mut(&key)
            .expect("checked live")
            .registrations += 1;
        let entry = self.guids.entry(guid).or_default();
        entry.regs.push(reg.clone());
        let (_, mask) = rebuild(entry, None, &reg, self.processes.get(&key));
        // PRV-06, PRV-07: a pre-enabled provider hears about it before EventRegister returns.
        let pending = if mask != 0 {
            vec![notify(entry, &reg, ControlCode::EnableProvider, Guid::NULL)]
        } else {
            Vec::new()
        };
        Ok((reg, pending))
    }

    fn unregister(&mut self, reg: &Arc<RegEntry>) -> bool {
        if !reg.registered.swap(false, Ordering::AcqRel) {
            return false;
        }
        reg.word.store(0, Ordering::Release);
        reg.routes.store(Arc::new(Routes::default()));
        reg.routes_version.store(0, Ordering::Release);
        if let Some(e) = self.guids.get_mut(&reg.guid) {
            e.regs.retain(|r| !Arc::ptr_eq(r, reg));
        }
        if let Some(&group) = reg.group.get() {
            if let Some(g) = self.groups.get_mut(&group) {
                g.regs.retain(|r| !Arc::ptr_eq(r, reg));
            }
            self.drop_group_if_empty(group);
        }
        if let Some(p) = self.processes.get_mut(&reg.process_key) {
            p.registrations -= 1;
        }
        self.drop_entry_if_empty(reg.guid);
        true
    }

    /// EnableTraceEx2's work once the session is resolved. Checks everything before changing
    /// anything.
    fn enable_trace(
        &mut self,
        caller: &ProcessRecord,
        ctx: &Arc<LoggerContext>,
        guid: Guid,
        code: ControlCode,
        p: &EnableParams,
    ) -> Result<Vec<Pending>> {
        if !ctx.is_running() {
            return Err(Error::SessionNotFound(format!(
                "session {:?} is stopping",
                ctx.cfg.name
            )));
        }
        if ctx.private_owner.is_none() {
            // SEC-02, SEC-04: TRACELOG_GUID_ENABLE on the provider GUID (private sessions are
            // exempt).
            self.check_enable_rights(&caller.token, guid, &ctx.cfg.name)?;
        }
        if guid.is_null() {
            return Err(Error::invalid("ProviderId is GUID_NULL"));
        }
        let unknown = p.enable_property.bits() & !EnableProperty::all().bits();
        if unknown != 0 {
            // FLT-13 (choice): the same refusal as the win32 face's.
            return Err(Error::invalid(format!(
                "unknown EnableProperty bits {unknown:#x}"
            )));
        }
        let filters = FilterSet::new(&p.filters)?;
        if let Some(pf) = &filters.payload {
            if code == ControlCode::EnableProvider && pf.filter.provider() != guid {
                // FLT-18 (choice of code): a payload filter names its provider.
                return Err(Error::invalid(format!(
                    "the payload filter is for provider {}, not {guid}",
                    pf.filter.provider()
                )));
            }
        }
        if let Some(h) = filters.trace_handle {
            if code != ControlCode::CaptureState || guid != Guid::SYSTEM_TRACE_CONTROL {
                return Err(Error::invalid(
                    "a TRACEHANDLE filter goes only with CAPTURE_STATE on SystemTraceControlGuid",
                ));
            }
            if !self.running_loggers().any(|l| l.handle.0 == h) {
                return Err(Error::invalid(format!(
                    "TRACEHANDLE filter {h:#x} names no running session"
                )));
            }
        }
        // The system providers: kernel manifest providers, System Providers, kernel rundowns.
        if let Some(r) =
            crate::system::rundown::enable_hook(self, ctx, guid, code, p, filters.trace_handle)
        {
            return r;
        }
        if guid == Guid::SYSTEM_TRACE_CONTROL && code != ControlCode::CaptureState {
            return Err(Error::invalid(
                "kernel event groups are chosen with EnableFlags at StartTrace or UPDATE, not EnableTraceEx2",
            ));
        }
        if ctx.private_owner.is_some() && filters.event_ids.is_some() {
            return Err(Error::invalid(
                "event-ID filters are not accepted by private sessions",
            ));
        }
        if p.enable_property.contains(EnableProperty::PROVIDER_GROUP) {
            return self.enable_group(ctx, guid, code, p, filters);
        }
        match code {
            ControlCode::EnableProvider => self.enable_slot(ctx, guid, p, filters),
            ControlCode::DisableProvider => {
                let Some(slot) = self.guids.get(&guid).and_then(|e| e.slot_of(ctx.handle)) else {
                    return Ok(Vec::new()); // not enabled there: nothing to do
                };
                self.guids.get_mut(&guid).expect("found above").slots[slot] = None;
                let pending = self.rebuild_and_notify(guid, slot, p.source_id);
                self.drop_entry_if_empty(guid);
                Ok(pending)
            }
            ControlCode::CaptureState => {
                let Some(entry) = self.guids.get(&guid) else {
                    return Ok(Vec::new());
                };
                let Some(slot) = entry.slot_of(ctx.handle) else {
                    return Ok(Vec::new());
                };
                Ok(entry
                    .regs
                    .iter()
                    .filter(|r| r.mask() & (1 << slot) != 0)
                    .map(|r| notify(entry, r, ControlCode::CaptureState, p.source_id))
                    .collect())
            }
        }
    }

    /// The configuration one EnableTraceEx2 call leaves in a slot: its filter, its SourceId,
    /// its order among enables (PRV-22), and the processes a PID filter names now (FLT-16).
    fn enable_config(&mut self, p: &EnableParams, filters: FilterSet) -> Arc<EnableConfig> {
        let pid_scope = filters.pids.as_ref().map(|pids| {
            pids.iter()
                .filter_map(|pid| self.live_pids.get(pid).copied())
                .collect()
        });
        self.enable_seq += 1;
        Arc::new(EnableConfig {
            filter: Arc::new(SlotFilter {
                level: p.level,
                match_any: p.match_any,
                match_all: p.match_all,
                enable_property: p.enable_property,
                filters,
            }),
            source_id: p.source_id,
            seq: self.enable_seq,
            pid_scope,
        })
    }

    /// EnableTraceEx2 with EVENT_ENABLE_PROPERTY_PROVIDER_GROUP: `group` names a provider
    /// group, whose 8 slots enable every member registration, present and future (PRV-36).
    fn enable_group(
        &mut self,
        ctx: &Arc<LoggerContext>,
        group: Guid,
        code: ControlCode,
        p: &EnableParams,
        filters: FilterSet,
    ) -> Result<Vec<Pending>> {
        if ctx.private_owner.is_some() {
            return Err(Error::invalid(
                "private sessions cannot control provider groups",
            ));
        }
        if filters.event_ids.is_some() || filters.event_names.is_some() || filters.payload.is_some()
        {
            return Err(Error::invalid(
                "event-ID, event-name and payload filters do not apply to provider groups",
            ));
        }
        let existing = self.groups.get(&group).and_then(|e| e.slot_of(ctx.handle));
        match code {
            ControlCode::EnableProvider => {
                let slot = match existing {
                    Some(i) => i,
                    None => self
                        .groups
                        .get(&group)
                        .map_or(Some(0), |e| e.slots.iter().position(Option::is_none))
                        .ok_or(Error::LimitReached {
                            what: "sessions enabling one provider group",
                            limit: ENABLE_SLOTS as u32,
                        })?,
                };
                let cfg = self.enable_config(p, filters);
                self.groups.entry(group).or_default().slots[slot] = Some(SlotEntry {
                    logger: ctx.clone(),
                    cfg,
                });
                Ok(self.rebuild_group_and_notify(group, slot, p.source_id))
            }
            ControlCode::DisableProvider => {
                let Some(slot) = existing else {
                    return Ok(Vec::new());
                };
                self.groups.get_mut(&group).expect("found above").slots[slot] = None;
                let pending = self.rebuild_group_and_notify(group, slot, p.source_id);
                self.drop_group_if_empty(group);
                Ok(pending)
            }
            ControlCode::CaptureState => {
                let (Some(slot), Some(g)) = (existing, self.groups.get(&group)) else {
                    return Ok(Vec::new());
                };
                Ok(g.regs
                    .iter()
                    .filter(|r| r.group_mask() & (1 << slot) != 0)
                    .filter_map(|r| {
                        let entry = self.guids.get(&r.guid)?;
                        Some(notify(entry, r, ControlCode::CaptureState, p.source_id))
                    })
                    .collect())
            }
        }
    }

    fn enable_slot(
        &mut self,
        ctx: &Arc<LoggerContext>,
        guid: Guid,
        p: &EnableParams,
        filters: FilterSet,
    ) -> Result<Vec<Pending>> {
        let existing = self.guids.get(&guid);
        let classic = existing.is_some_and(|e| e.regs.iter().any(|r| r.is_classic()));
        let slot = match existing.and_then(|e| e.slot_of(ctx.handle)) {
            Some(i) => i,
            None if classic => 0,
            None => existing
                .map_or(Some(0), |e| e.slots.iter().position(Option::is_none))
                .ok_or(Error::LimitReached {
                    what: "sessions enabling one provider",
                    limit: ENABLE_SLOTS as u32,
                })?,
        };
        let cfg = self.enable_config(p, filters);
        let entry = self.guids.entry(guid).or_default();
        if classic {
            // PRV-22: a classic provider logs to one session; the last enabler wins.
            for (i, s) in entry.slots.iter_mut().enumerate() {
                if i != slot {
                    *s = None;
                }
            }
        }
        entry.slots[slot] = Some(SlotEntry {
            logger: ctx.clone(),
            cfg,
        });
        Ok(self.rebuild_and_notify(guid, slot, p.source_id))
    }
}

/// The parameters of one EnableTraceEx2 call beyond the control code: level, keywords and
/// `ENABLE_TRACE_PARAMETERS` (PRV-17…PRV-24, FLT-10…FLT-24).
#[doc(alias = "ENABLE_TRACE_PARAMETERS")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnableParams {
    /// Level; 0 means every level (FLT-02).
    pub level: Level,
    /// MatchAnyKeyword; 0 means every keyword for modern providers (FLT-05).
    pub match_any: Keyword,
    /// MatchAllKeyword.
    pub match_all: Keyword,
    /// EnableProperty.
    pub enable_property: EnableProperty,
    /// SourceId passed to callbacks (PRV-14).
    pub source_id: Guid,
    /// Filter descriptors; they replace the previous set as a whole (PRV-24).
    pub filters: Vec<EventFilter>,
}

impl EnableParams {
    /// Every level, every keyword, no filter.
    pub fn new() -> EnableParams {
        EnableParams::default()
    }
    /// With `level`.
    pub fn level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }
    /// With MatchAnyKeyword.
    pub fn any(mut self, any: u64) -> Self {
        self.match_any = Keyword(any);
        self
    }
    /// With MatchAllKeyword.
    pub fn all(mut self, all: u64) -> Self {
        self.match_all = Keyword(all);
        self
    }
    /// With EnableProperty.
    pub fn property(mut self, property: EnableProperty) -> Self {
        self.enable_property = property;
        self
    }
    /// With SourceId.
    pub fn source_id(mut self, id: Guid) -> Self {
        self.source_id = id;
        self
    }
    /// With one more filter.
    pub fn filter(mut self, filter: EventFilter) -> Self {
        self.filters.push(filter);
        self
    }
}

/// A snapshot of a registration's cached enable word, for learners and tests.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EnableState {
    /// The 8-bit enable mask: bit *i* set when the session in slot *i* enables this
    /// registration.
    pub mask: u8,
    /// Composite effective level.
    pub level: Level,
    /// Composite effective MatchAnyKeyword.
    pub match_any: Keyword,
    /// Composite effective MatchAllKeyword.
    pub match_all: Keyword,
    /// Whether some session takes keyword-0 events.
    pub keyword_zero: bool,
}

/// A provider registration: the handle EventRegister returns (`REGHANDLE`).
///
/// Dropping it unregisters (EventUnregister), with no callback (PRV-08).
#[doc(alias = "REGHANDLE")]
pub struct Provider {
    pub(crate) kernel: Kernel,
    pub(crate) reg: Arc<RegEntry>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.reg.fmt(f)
    }
}

impl Provider {
    /// `EventEnabled`-style check with no level or keyword: does any session want this
    /// provider? One relaxed load (P1).
    #[inline]
    pub fn is_enabled(&self) -> bool {
        self.reg.word.load(Ordering::Relaxed) != 0
    }

    /// `EventProviderEnabled(level, keyword)`: could a session want an event with this level
    /// and keyword? Conservative: `true` may still be filtered later (PRV-30, PRV-32).
    #[inline]
    pub fn is_enabled_for(&self, level: Level, keyword: Keyword) -> bool {
        self.reg.is_enabled_for(level, keyword)
    }

    /// `EventEnabled(descriptor)`.
    #[inline]
    pub fn event_enabled(&self, descriptor: &EventDescriptor) -> bool {
        self.is_enabled_for(descriptor.level, descriptor.keyword)
    }

    /// The cached enable word, decoded.
    pub fn enable_state(&self) -> EnableState {
        self.reg.enable_state()
    }

    /// Routing (step 2 of the event flow): the sessions that would record this event, in
    /// enable-slot order, after every per-session filter (FLT-20). An event of a registration
    /// in an InPrivate process counts as InPrivate whatever `event.inprivate` says (FLT-11).
    pub fn targets(&self, event: &EventView<'_>) -> Vec<TraceHandle> {
        if !self.is_enabled() {
            return Vec::new();
        }
        let event = &EventView {
            inprivate: event.inprivate || self.reg.inprivate,
            ..*event
        };
        self.reg
            .routes
            .load()
            .iter()
            .filter(|r| session_accepts(event, r.slot, &r.filter))
            .map(|r| r.logger.handle)
            .collect()
    }

    /// The provider GUID.
    pub fn guid(&self) -> Guid {
        self.reg.guid
    }

    /// The registration handle value (`REGHANDLE`), never 0.
    pub fn reg_handle(&self) -> u64 {
        self.reg.id
    }

    /// The registering process's PID.
    pub fn pid(&self) -> u32 {
        self.reg.pid
    }

    /// `false` after unregistering.
    #[inline]
    pub fn is_registered(&self) -> bool {
        self.reg.registered.load(Ordering::Acquire)
    }

    /// EventUnregister.
    ///
    /// # Errors
    /// `ERROR_INVALID_HANDLE` if it was already unregistered (by its process exiting).
    pub fn unregister(self) -> Result<()> {
        self.unregister_in_place()
    }

    /// EventUnregister through a shared reference: the registration ends, this value stays
    /// (unregistered, never enabled) until dropped. For handle tables that hand out
    /// `&Provider`.
    ///
    /// # Errors
    /// `ERROR_INVALID_HANDLE` if it was already unregistered.
    pub fn unregister_in_place(&self) -> Result<()> {
        let reg = self.reg.clone();
        let done = self
            .kernel
            .control(|s: &mut State| Ok((s.unregister(&reg), Vec::new())))?;
        let r = if done {
            Ok(())
        } else {
            Err(Error::InvalidRegHandle(self.reg.id))
        };
        self.kernel.note_control(
            || "EventUnregister".to_string(),
            || format!("{} (pid {})", self.reg.guid, self.pid()),
            &r,
        );
        r
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        if self.is_registered() {
            let _ = self.unregister_in_place();
        }
    }
}

/// A classic (RegisterTraceGuids / MOF / WPP) provider registration (PRV-22, PRV-23).
pub struct ClassicProvider {
    inner: Provider,
}

impl std::fmt::Debug for ClassicProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl ClassicProvider {
    /// `GetTraceLoggerHandle`: the one session that has the provider, if any.
    pub fn logger_handle(&self) -> Option<TraceHandle> {
        self.inner
            .reg
            .routes
            .load()
            .first()
            .map(|r| r.logger.handle)
    }
    /// `GetTraceEnableLevel`.
    pub fn enable_level(&self) -> Level {
        self.inner
            .reg
            .routes
            .load()
            .first()
            .map_or(Level(0), |r| r.filter.level)
    }
    /// `GetTraceEnableFlags`: the low 32 bits of the session's MatchAnyKeyword (PRV-23).
    pub fn enable_flags(&self) -> u32 {
        self.inner
            .reg
            .routes
            .load()
            .first()
            .map_or(0, |r| r.filter.match_any.0 as u32)
    }
    /// The control GUID.
    pub fn guid(&self) -> Guid {
        self.inner.guid()
    }
    /// `TraceEvent` into the session `logger` names (the handle the control callback got),
    /// as the registering process: [`Process::trace_event`].
    ///
    /// # Errors
    /// As [`Process::trace_event`].
    pub fn trace_event(
        &self,
        logger: TraceHandle,
        event: &crate::data::classic::ClassicEvent<'_>,
    ) -> Result<()> {
        let reg = &self.inner.reg;
        crate::data::classic::trace_event(
            &self.inner.kernel,
            reg.process_key,
            reg.pid,
            logger,
            event,
        )
    }
    /// `UnregisterTraceGuids`.
    ///
    /// # Errors
    /// `ERROR_INVALID_HANDLE` if already unregistered.
    pub fn unregister(self) -> Result<()> {
        self.inner.unregister_in_place()
    }
}

impl Process {
    /// EventRegister without a callback.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for GUID_NULL or an exited process, `ERROR_NO_SYSTEM_RESOURCES`
    /// past 1,024 registrations in the process (PRV-04).
    pub fn register_provider(&self, guid: Guid) -> Result<Provider> {
        self.register_kind(guid, RegKind::Modern(None))
    }

    /// EventRegister with an enable callback, which runs before this returns if a session
    /// already enables the GUID (PRV-06, PRV-07).
    ///
    /// # Errors
    /// As [`Process::register_provider`].
    pub fn register_provider_with_callback(
        &self,
        guid: Guid,
        callback: impl Fn(&EnableNotification) + Send + Sync + 'static,
    ) -> Result<Provider> {
        self.register_kind(guid, RegKind::Modern(Some(Arc::new(callback))))
    }

    /// RegisterTraceGuids: a classic provider with a control callback.
    ///
    /// # Errors
    /// As [`Process::register_provider`].
    pub fn register_trace_guids(
        &self,
        guid: Guid,
        callback: impl Fn(&ClassicNotification) + Send + Sync + 'static,
    ) -> Result<ClassicProvider> {
        let inner = self.register_kind(guid, RegKind::Classic(Some(Arc::new(callback))))?;
        Ok(ClassicProvider { inner })
    }

    fn register_kind(&self, guid: Guid, kind: RegKind) -> Result<Provider> {
        let key = self.start_key;
        let call = if matches!(kind, RegKind::Classic(_)) {
            "RegisterTraceGuids"
        } else {
            "EventRegister"
        };
        let reg = self
            .kernel
            .control(|s: &mut State| s.register(key, guid, kind));
        self.kernel.note_control(
            || call.to_string(),
            || format!("{guid} (pid {})", self.pid()),
            &reg,
        );
        let reg = reg?;
        Ok(Provider {
            kernel: self.kernel.clone(),
            reg,
        })
    }
}

impl Session {
    /// EnableTraceEx2(ENABLE_PROVIDER): enables `guid` in this session, or updates the
    /// session's settings for it in place (PRV-24).
    ///
    /// # Errors
    /// As [`Kernel::enable_trace_ex2`].
    pub fn enable(&self, guid: Guid, params: &EnableParams) -> Result<()> {
        self.kernel.enable_trace_ex2(
            &self.caller,
            Target::Handle(self.handle()),
            guid,
            ControlCode::EnableProvider,
            params,
        )
    }

    /// EnableTraceEx2(DISABLE_PROVIDER).
    ///
    /// # Errors
    /// As [`Kernel::enable_trace_ex2`].
    pub fn disable(&self, guid: Guid) -> Result<()> {
        self.kernel.enable_trace_ex2(
            &self.caller,
            Target::Handle(self.handle()),
            guid,
            ControlCode::DisableProvider,
            &EnableParams::default(),
        )
    }

    /// EnableTraceEx2(CAPTURE_STATE): asks the provider's registrations enabled in this session
    /// to log their state (PRV-27).
    ///
    /// # Errors
    /// As [`Kernel::enable_trace_ex2`].
    pub fn capture_state(&self, guid: Guid, params: &EnableParams) -> Result<()> {
        self.kernel.enable_trace_ex2(
            &self.caller,
            Target::Handle(self.handle()),
            guid,
            ControlCode::CaptureState,
            params,
        )
    }
}

/// One registration (or pre-enable record) of a provider GUID, as EnumerateTraceGuidsEx
/// reports it (`TRACE_PROVIDER_INSTANCE_INFO`, PRV-29).
#[doc(alias = "TRACE_PROVIDER_INSTANCE_INFO")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderInstanceInfo {
    /// The registering process (0 for a pre-enable record).
    pub pid: u32,
    /// `TRACE_PROVIDER_FLAG_LEGACY` / `TRACE_PROVIDER_FLAG_PRE_ENABLE`.
    pub flags: u32,
    /// One `TRACE_ENABLE_INFO` per session enabling this instance (`EnableCount` of them).
    pub enable_info: Vec<EnableInfo>,
}

/// `TRACE_GUID_INFO`: every instance of one provider GUID.
#[doc(alias = "TRACE_GUID_INFO")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceGuidInfo {
    /// The GUID.
    pub guid: Guid,
    /// Its instances.
    pub instances: Vec<ProviderInstanceInfo>,
}

fn enable_info(s: &SlotEntry) -> EnableInfo {
    let f = &s.cfg.filter;
    EnableInfo {
        is_enabled: true,
        level: f.level,
        logger_id: s.logger.logger_id(),
        enable_property: f.enable_property,
        match_any_keyword: f.match_any,
        match_all_keyword: f.match_all,
        source_id: s.cfg.source_id,
    }
}

impl Kernel {
    /// EnableTraceEx2 as `caller`, on the session `target` names.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` (GUID_NULL, zero handle, a filter breaking its limits, kernel
    /// groups, …), `ERROR_WMI_INSTANCE_NOT_FOUND` for a stopped session (PRV-20),
    /// `ERROR_NO_SYSTEM_RESOURCES` for a 9th session (PRV-21), `ERROR_ACCESS_DENIED` (SEC-04),
    /// `ERROR_NOT_SUPPORTED` for provider groups. Nothing changes when an error is returned.
    pub fn enable_trace_ex2(
        &self,
        caller: &Process,
        target: Target<'_>,
        guid: Guid,
        code: ControlCode,
        params: &EnableParams,
    ) -> Result<()> {
        let r = self.check_thread().and_then(|()| {
            self.control(|s: &mut State| {
                let rec = s.live_process(caller.start_key)?.clone();
                let ctx = s.resolve(caller.start_key, target)?;
                s.enable_trace(&rec, &ctx, guid, code, params)
                    .map(|p| ((), p))
            })
        });
        self.note_control(
            || format!("EnableTraceEx2({})", code.name()),
            || format!("{guid} on {target}"),
            &r,
        );
        r
    }

    /// EnumerateTraceGuidsEx(TraceGuidQueryList): every GUID that is registered or enabled.
    pub fn provider_guids(&self) -> Vec<Guid> {
        self.with_state(|s| s.guids.keys().copied().collect())
    }

    /// EnumerateTraceGuidsEx(TraceGuidQueryInfo) for one GUID (PRV-06, PRV-29).
    pub fn trace_guid_info(&self, guid: Guid) -> Option<TraceGuidInfo> {
        self.with_state(|s| {
            let e = s.guids.get(&guid)?;
            let mut instances: Vec<ProviderInstanceInfo> = e
                .regs
                .iter()
                .map(|r| {
                    let mask = r.mask();
                    ProviderInstanceInfo {
                        pid: r.pid,
                        flags: if r.is_classic() {
                            TRACE_PROVIDER_FLAG_LEGACY
                        } else {
                            0
                        },
                        enable_info: e
                            .slots
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| mask & (1 << i) != 0)
                            .filter_map(|(_, s)| s.as_ref().map(enable_info))
                            .collect(),
                    }
                })
                .collect();
            if e.regs.is_empty() {
                instances.push(ProviderInstanceInfo {
                    pid: 0,
                    flags: TRACE_PROVIDER_FLAG_PRE_ENABLE,
                    enable_info: e.slots.iter().flatten().map(enable_info).collect(),
                });
            }
            Some(TraceGuidInfo { guid, instances })
        })
    }

    /// The enable slots of a GUID entry, slot by slot, for learners: which session holds
    /// each of the 8 slots and with what settings.
    pub fn enable_slots(&self, guid: Guid) -> [Option<(TraceHandle, EnableInfo)>; ENABLE_SLOTS] {
        self.with_state(|s| {
            let mut out: [Option<(TraceHandle, EnableInfo)>; ENABLE_SLOTS] = Default::default();
            if let Some(e) = s.guids.get(&guid) {
                for (i, slot) in e.slots.iter().enumerate() {
                    out[i] = slot.as_ref().map(|s| (s.logger.handle, enable_info(s)));
                }
            }
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::filter::level_keyword_pass;

    #[test]
    fn single_gate_matches_level_keyword_pass() {
        // rule: FLT-01, FLT-04, FLT-05, FLT-06, FLT-07
        let words = [0u64, 1, 2, 3, 0x8000_0000_0000_0001, u64::MAX];
        let props = [EnableProperty::empty(), EnableProperty::IGNORE_KEYWORD_0];
        for session_level in [0u8, 1, 4, 5, 255] {
            for &any in &words {
                for &all in &words {
                    for &p in &props {
                        let f = SlotFilter {
                            level: Level(session_level),
                            match_any: Keyword(any),
                            match_all: Keyword(all),
                            enable_property: p,
                            filters: FilterSet::default(),
                        };
                        let gate = LevelKeywordGate::new(&f);
                        for level in [0u8, 1, 4, 5, 6, 255] {
                            for &kw in &words {
                                let d = EventDescriptor::new(7, Level(level), Keyword(kw));
                                assert_eq!(
                                    gate.passes(&d),
                                    level_keyword_pass(&d, &f),
                                    "session {session_level} {any:#x} {all:#x} {p:?}, event {level} {kw:#x}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn name_bits_spread_and_repeat() {
        // The gate's bit is a function of the name alone, and short names spread over it.
        let names: Vec<String> = (0..64).map(|i| format!("Event{i}")).collect();
        let bits: std::collections::HashSet<_> = names.iter().map(|n| name_bit(n)).collect();
        assert!(bits.len() > 32, "{} distinct bits for 64 names", bits.len());
        for n in [
            "",
            "a",
            "ab",
            "abc",
            "Keep",
            "Skip",
            "FileOpened",
            "Microsoft.Windows.X",
        ] {
            let (i, bit) = name_bit(n);
            assert!(i < 4 && bit.count_ones() == 1);
            let copy = String::from(n);
            assert_eq!(name_bit(copy.as_str()), (i, bit));
        }
    }
}
