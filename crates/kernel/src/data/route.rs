//! A registration (`ETW_REG_ENTRY`, [`RegEntry`]) as both planes share it, and its route
//! table: the one interface between control and data.
//!
//! The control plane publishes (`RegEntry::publish`, under the kernel's state lock, from
//! `control::provider::rebuild`) the registration's cached enable word and its route table —
//! the sessions it feeds, with their filters; the write path reads them without a lock
//! (`RegEntry::is_enabled_for`, `RegEntry::with_routes`). The callback the registration was
//! made with and what EventSetInformation set are kept here for the control plane.

use crate::data::cache::{VersionCache, Versioned};
use crate::data::context::LoggerContext;
use crate::filter::{LevelKeywordGate, SlotFilter};
use crate::machine::ids::TraceHandle;
use arc_swap::ArcSwap;
use etwsim_types::{ControlCode, EnableProperty, EventDescriptor, Guid, Keyword, Level};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub(in crate::data) const MASK: u64 = 0xff;
pub(crate) const KW0: u64 = 1 << 16;
/// Every route has a filter-in EVENT_ID list: `id_gate` summarises their union.
pub(crate) const ID_GATE: u64 = 1 << 17;
/// Every route has an EVENT_ID list and some list is filter-out: `id_gate` holds, exactly, the
/// ids below 256 that every route rejects (P12).
pub(crate) const ID_DENY: u64 = 1 << 18;
/// Every route has a filter-in EVENT_NAME list that applies to every level and keyword:
/// `name_gate` summarises their names (P12).
pub(crate) const NAME_GATE: u64 = 1 << 19;
/// Bits 24–31 of the word: the provider group's slots that enable the registration (PRV-36).
pub(crate) const GROUP_SHIFT: u32 = 24;

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
    pub(in crate::data) single: bool,
    /// With `single`: that session's level and keyword test (FLT-01…FLT-07) with its
    /// effective values worked out once here, so the write only compares.
    single_gate: LevelKeywordGate,
}

/// The last route-table version handed out.
static ROUTES_VERSION: AtomicU64 = AtomicU64::new(0);

/// Route tables this OS thread wrote through recently, newest replacing the oldest.
const ROUTE_CACHE_SIZE: usize = 4;

/// The route tables one OS thread wrote through recently (part of its
/// [`crate::data::local::WriterLocal`]).
pub(in crate::data) type RouteCache = VersionCache<Routes, ROUTE_CACHE_SIZE>;

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
    pub(in crate::data) fn routes_version(&self) -> u64 {
        self.routes_version.load(Ordering::Acquire)
    }

    /// The registration's current route table if this OS thread's route cache holds it
    /// (`None` on a miss: [`RegEntry::with_routes_in`] then loads and caches it).
    #[inline(always)]
    pub(in crate::data) fn cached_routes<'a>(&self, cache: &'a RouteCache) -> Option<&'a Routes> {
        cache.get(self.routes_version.load(Ordering::Acquire))
    }
}

impl Routes {
    pub(crate) fn new(list: Vec<Route>) -> Routes {
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
    pub(in crate::data) fn single_passes(&self, d: &EventDescriptor) -> bool {
        self.single_gate.passes(d)
    }

    /// With `single`: the one session's level and keyword test.
    pub(in crate::data) fn single_gate(&self) -> LevelKeywordGate {
        self.single_gate
    }

    /// With `single`: whether the session's level and keyword test is `reg`'s own
    /// ([`RegEntry::is_enabled_for`] with its current word and keywords, which `rebuild`
    /// made from this one session): then an event that passed that one passes this one.
    pub(in crate::data) fn single_gate_is(&self, reg: &RegEntry) -> bool {
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
pub(crate) fn name_bit(name: &str) -> (usize, u64) {
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
    pub(in crate::data) routes: ArcSwap<Routes>,
    /// The version of the table in `routes`, stored (Release) after it (`with_routes`).
    pub(in crate::data) routes_version: AtomicU64,
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
    pub(in crate::data) guid_words: [u64; 2],
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
    pub(in crate::data) sid: Box<[u8]>,
    /// The registering process's terminal-session id (TS_ID items, FLT-11).
    pub(in crate::data) ts_id: u32,
}

/// Per-registration information set by EventSetInformation.
#[derive(Debug, Default)]
pub(crate) struct RegInfo {
    pub(crate) traits: Option<etwsim_decode::tracelogging::ProviderTraits>,
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

/// What [`RegEntry::new`] takes: who registered, and the callback kind.
pub(crate) struct NewReg {
    pub(crate) id: u64,
    pub(crate) guid: Guid,
    pub(crate) pid: u32,
    pub(crate) process_key: u64,
    pub(crate) inprivate: bool,
    pub(crate) kind: RegKind,
    pub(crate) sid: Box<[u8]>,
    pub(crate) ts_id: u32,
}

/// What [`RegEntry::publish`] stores: the cached word, keywords and gates, and the route table.
pub(crate) struct Published {
    pub(crate) word: u64,
    pub(crate) any: u64,
    pub(crate) all: u64,
    pub(crate) id_gate: [u64; 4],
    pub(crate) name_gate: [u64; 4],
    pub(crate) routes: Routes,
}

impl RegEntry {
    /// A registration enabled for no session yet.
    pub(crate) fn new(r: NewReg) -> RegEntry {
        RegEntry {
            word: AtomicU64::new(0),
            any: AtomicU64::new(0),
            all: AtomicU64::new(0),
            routes: ArcSwap::from_pointee(Routes::default()),
            routes_version: AtomicU64::new(0),
            id_gate: Default::default(),
            name_gate: Default::default(),
            registered: AtomicBool::new(true),
            id: r.id,
            guid: r.guid,
            guid_words: crate::machine::ids::guid_words(&r.guid),
            pid: r.pid,
            process_key: r.process_key,
            inprivate: r.inprivate,
            kind: r.kind,
            info: parking_lot::Mutex::new(RegInfo::default()),
            traits_blob: std::sync::OnceLock::new(),
            group: std::sync::OnceLock::new(),
            sid: r.sid,
            ts_id: r.ts_id,
        }
    }

    /// Stores what `rebuild` computed, in the order the lock-free readers rely on: keywords
    /// and gates, then the word (Release), then the route table and its version (Release,
    /// after the table: `with_routes`). Called under the kernel's state lock only.
    pub(crate) fn publish(&self, p: Published) {
        self.any.store(p.any, Ordering::Relaxed);
        self.all.store(p.all, Ordering::Relaxed);
        for (cell, bits) in self.id_gate.iter().zip(p.id_gate) {
            cell.store(bits, Ordering::Relaxed);
        }
        for (cell, bits) in self.name_gate.iter().zip(p.name_gate) {
            cell.store(bits, Ordering::Relaxed);
        }
        self.word.store(p.word, Ordering::Release);
        let version = p.routes.version;
        self.routes.store(Arc::new(p.routes));
        self.routes_version.store(version, Ordering::Release);
    }

    /// EventUnregister's part here: no more callbacks (PRV-08), no more routes. `false` when
    /// it was already unregistered.
    pub(crate) fn retire(&self) -> bool {
        if !self.registered.swap(false, Ordering::AcqRel) {
            return false;
        }
        self.word.store(0, Ordering::Release);
        self.routes.store(Arc::new(Routes::default()));
        self.routes_version.store(0, Ordering::Release);
        true
    }

    /// Still registered (not retired).
    #[inline]
    pub(crate) fn is_registered(&self) -> bool {
        self.registered.load(Ordering::Acquire)
    }

    /// Does any session want this registration? One relaxed load (P1).
    #[inline(always)]
    pub(crate) fn is_enabled(&self) -> bool {
        self.word.load(Ordering::Relaxed) != 0
    }

    /// The callback kind it registered with.
    pub(crate) fn kind(&self) -> &RegKind {
        &self.kind
    }

    /// The current route table (a reference-counted copy: for cold paths).
    pub(crate) fn routes(&self) -> Arc<Routes> {
        self.routes.load_full()
    }

    pub(crate) fn is_classic(&self) -> bool {
        matches!(self.kind, RegKind::Classic(_))
    }

    pub(crate) fn mask(&self) -> u8 {
        (self.word.load(Ordering::Relaxed) & MASK) as u8
    }

    /// The group slots (PRV-36) that enable this registration, as a bit mask.
    pub(crate) fn group_mask(&self) -> u8 {
        (self.word.load(Ordering::Relaxed) >> GROUP_SHIFT) as u8
    }

    /// `false` when every session that enables the registration has a filter-in EVENT_ID
    /// list without `id` (FLT-19): a manifest event with this id is recorded nowhere. `true`
    /// means "maybe" (the per-session predicate decides).
    /// With a deny gate, `false` also when every session rejects `id` (filter-out lists, or a
    /// mix: P12).
    #[inline]
    pub(in crate::data) fn id_may_pass(&self, id: u16) -> bool {
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
    pub(in crate::data) fn name_may_pass(&self, name: &str) -> bool {
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

/// The id summary of `routes` when every one has a filter-in EVENT_ID list (FLT-19): the
/// union of their ids, one bit per `id mod 256`. `None` when some route could take an id its
/// list does not name (no id filter, or a filter-out list).
pub(crate) fn id_gate(routes: &[Route]) -> Option<[u64; 4]> {
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
pub(crate) fn id_deny(routes: &[Route]) -> Option<[u64; 4]> {
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
pub(crate) fn name_gate(routes: &[Route]) -> Option<[u64; 4]> {
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
