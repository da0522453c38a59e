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
//! predicate ([`crate::filter::session_accepts`]) decides for real.
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

use crate::data::context::LoggerContext;
use crate::data::route::GROUP_SHIFT;
use crate::data::route::ID_DENY;
use crate::data::route::KW0;
use crate::data::route::NAME_GATE;
use crate::data::route::{
    ClassicNotification, EnableNotification, ID_GATE, Published, RegEntry, RegKind, Route, Routes,
    id_deny, id_gate, name_gate,
};
use crate::filter::{EventFilter, SlotFilter, effective_all, effective_any, effective_level};
use crate::machine::ids::TraceHandle;
use crate::machine::process::ProcessRecord;
use etwsim_types::{ControlCode, EnableInfo, EnableProperty, Guid, Keyword, Level};
use std::collections::BTreeMap;
use std::sync::Arc;

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

/// The configuration one EnableTraceEx2 call left in a slot.
#[derive(Debug)]
pub(crate) struct EnableConfig {
    pub(crate) filter: Arc<SlotFilter>,
    pub(in crate::control) source_id: Guid,
    pub(in crate::control) seq: u64,
    /// Start keys of the processes a PID filter matched at enable time (FLT-16).
    pub(in crate::control) pid_scope: Option<Vec<u64>>,
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
    pub(in crate::control) fn slot_of(&self, h: TraceHandle) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.logger.handle == h))
    }

    pub(in crate::control) fn is_empty(&self) -> bool {
        self.regs.is_empty() && self.slots.iter().all(Option::is_none)
    }
}

/// The GUID table (`EtwpGuidHashTable`): provider GUIDs and provider groups, each with its 8
/// enable slots and its registrations.
pub(crate) struct GuidTable {
    /// `ETW_GUID_ENTRY` table.
    pub(in crate::control) guids: BTreeMap<Guid, GuidEntry>,
    /// Provider groups (PRV-36): a group GUID's 8 enable slots and its member registrations
    /// (those whose traits name the group), by group GUID.
    pub(in crate::control) groups: BTreeMap<Guid, GuidEntry>,
    pub(in crate::control) next_reg_id: u64,
    /// Counts EnableTraceEx2 calls; orders "last one wins" for classic providers (PRV-22).
    pub(in crate::control) enable_seq: u64,
}

impl GuidTable {
    /// The `ETW_GUID_ENTRY` of provider `guid`, if it is registered or enabled.
    pub(crate) fn get(&self, guid: &Guid) -> Option<&GuidEntry> {
        self.guids.get(guid)
    }

    /// The entry of provider group `guid` (PRV-36).
    pub(crate) fn group(&self, guid: &Guid) -> Option<&GuidEntry> {
        self.groups.get(guid)
    }

    /// Every provider GUID with an entry, ascending.
    pub(crate) fn guids(&self) -> impl Iterator<Item = &Guid> {
        self.guids.keys()
    }

    /// The classic registration of process `key` whose enable slot session `handle` holds:
    /// its GUID and slot (a classic provider logs to one session, PRV-22).
    pub(crate) fn classic_slot(&self, key: u64, handle: TraceHandle) -> Option<(Guid, u8)> {
        self.guids.iter().find_map(|(g, e)| {
            let classic = e
                .regs
                .iter()
                .any(|r| r.is_classic() && r.process_key == key);
            let slot = e.slot_of(handle).filter(|_| classic)?;
            Some((*g, slot as u8))
        })
    }

    /// The next registration id and the EnableTraceEx2 count (what a later call depends on).
    pub(crate) fn counters(&self) -> (u64, u64) {
        (self.next_reg_id, self.enable_seq)
    }
}

impl Default for GuidTable {
    fn default() -> GuidTable {
        GuidTable {
            guids: BTreeMap::new(),
            groups: BTreeMap::new(),
            next_reg_id: 1,
            enable_seq: 0,
        }
    }
}

/// Does slot `s` enable registration `reg` of process `p`? Private sessions see only their
/// own process (SES-42); scope filters narrow the rest (FLT-16, FLT-17).
fn slot_applies(s: &SlotEntry, reg: &RegEntry, p: Option<&ProcessRecord>) -> bool {
    slot_excludes(s, reg, p).is_none()
}

/// The rule by which slot `s` leaves registration `reg` of process `p` out, if it does: the
/// kernel logger takes no provider events (KRN-02, a choice), a private session only its own
/// process's (SES-42), a PID filter only the processes it named at enable time (FLT-16), a
/// name or package filter only the processes it names (FLT-17).
pub(crate) fn slot_excludes(
    s: &SlotEntry,
    reg: &RegEntry,
    p: Option<&ProcessRecord>,
) -> Option<&'static str> {
    if s.logger.cfg.kernel_logger {
        return Some("KRN-02"); // choice: the enable succeeds, no event reaches the kernel logger
    }
    if let Some(owner) = s.logger.private_owner {
        if owner != reg.process_key {
            return Some("SES-42");
        }
    }
    if reg.is_classic() {
        return None; // FLT-27: no scope filtering for classic providers
    }
    if let Some(keys) = &s.cfg.pid_scope {
        if !keys.contains(&reg.process_key) {
            return Some("FLT-16");
        }
    }
    let f = &s.cfg.filter.filters;
    let Some(p) = p else {
        return if f.executable_names.is_some()
            || f.package_ids.is_some()
            || f.package_app_ids.is_some()
        {
            Some("FLT-17")
        } else {
            f.pids.as_ref().map(|_| "FLT-16")
        };
    };
    let matches = |list: &Option<Vec<String>>, value: Option<&str>| match list {
        None => true,
        Some(names) => value.is_some_and(|v| names.contains(&crate::machine::ids::name_key(v))),
    };
    let named = matches(&f.executable_names, Some(p.file_name()))
        && matches(&f.package_ids, p.package_id.as_deref())
        && matches(&f.package_app_ids, p.package_app_id.as_deref());
    (!named).then_some("FLT-17")
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
pub(in crate::control) fn rebuild(
    entry: &GuidEntry,
    group: Option<&GuidEntry>,
    reg: &RegEntry,
    p: Option<&ProcessRecord>,
) -> (u16, u16) {
    let old = u16::from(reg.mask()) | u16::from(reg.group_mask()) << 8;
    let registered = reg.is_registered();
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
    let names = name_gate(&routes);
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
    reg.publish(Published {
        word,
        any,
        all,
        id_gate: gate.or(deny).unwrap_or_default(),
        name_gate: names.unwrap_or_default(),
        routes: Routes::new(routes),
    });
    (old, u16::from(mask) | u16::from(group_mask) << 8)
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
        if !self.reg.is_registered() {
            return None;
        }
        let (provider, pid) = (self.reg.guid, self.reg.pid);
        match (self.reg.kind(), &self.what) {
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
        if !self.reg.is_registered() {
            return; // unregistered in the meantime: the callback is cancelled (PRV-08)
        }
        match (self.reg.kind(), &self.what) {
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

pub(in crate::control) fn notify(
    entry: &GuidEntry,
    reg: &Arc<RegEntry>,
    code: ControlCode,
    source_id: Guid,
) -> Pending {
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
        let state = reg.enable_state();
        PendingKind::Modern(EnableNotification {
            source_id,
            is_enabled: code,
            level: state.level,
            match_any_keyword: state.match_any,
            match_all_keyword: state.match_all,
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
pub(in crate::control) fn change(
    old: u16,
    new: u16,
    bit: u16,
    classic: bool,
) -> Option<ControlCode> {
    if new & bit != 0 || (old & bit != 0 && new != 0) {
        Some(ControlCode::EnableProvider)
    } else if old & bit != 0 || (classic && old != 0 && new == 0) {
        Some(ControlCode::DisableProvider)
    } else {
        None
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

pub(crate) fn enable_info(s: &SlotEntry) -> EnableInfo {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::route::name_bit;
    use crate::filter::FilterSet;
    use crate::filter::LevelKeywordGate;
    use crate::filter::level_keyword_pass;
    use etwsim_types::EventDescriptor;

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
