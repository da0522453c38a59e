//! What EventRegister, EventUnregister, EventSetInformation and EnableTraceEx2 do to the
//! kernel's tables: registrations and the enable slots of the GUID table
//! (`control::provider`), under the state lock, with the callbacks they queue.

use crate::Result;
use crate::control::provider::ENABLE_SLOTS;
use crate::control::provider::EnableConfig;
use crate::control::provider::EnableParams;
use crate::control::provider::GuidEntry;
use crate::control::provider::MAX_REGISTRATIONS_PER_PROCESS;
use crate::control::provider::Pending;
use crate::control::provider::SlotEntry;
use crate::control::provider::change;
use crate::control::provider::notify;
use crate::control::provider::rebuild;
use crate::control::state::State;
use crate::data::context::LoggerContext;
use crate::data::route::NewReg;
use crate::data::route::RegEntry;
use crate::data::route::RegKind;
use crate::error::Error;
use crate::filter::FilterSet;
use crate::filter::SlotFilter;
use crate::machine::process::ProcessRecord;
use etwsim_types::ControlCode;
use etwsim_types::EnableProperty;
use etwsim_types::Guid;
use std::sync::Arc;
impl State {
    /// The provider group entry `reg` is a member of, if any (PRV-36).
    fn group_of(&self, reg: &RegEntry) -> Option<&GuidEntry> {
        reg.group.get().and_then(|g| self.providers.groups.get(g))
    }

    /// Rebuilds every registration of `guid`, then queues callbacks: registrations that the
    /// session in `slot` enables now, or enabled before, hear about it (PRV-09, PRV-10, PRV-16).
    fn rebuild_and_notify(&mut self, guid: Guid, slot: usize, source_id: Guid) -> Vec<Pending> {
        let Some(entry) = self.providers.guids.get(&guid) else {
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
        let Some(g) = self.providers.groups.get(&group) else {
            return Vec::new();
        };
        let bit = 1u16 << (8 + slot);
        let mut pending = Vec::new();
        for reg in &g.regs {
            let Some(entry) = self.providers.guids.get(&reg.guid) else {
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
        if reg.group.set(group).is_err() || !reg.is_registered() {
            return Vec::new();
        }
        self.providers
            .groups
            .entry(group)
            .or_default()
            .regs
            .push(reg.clone());
        let (Some(entry), Some(g)) = (
            self.providers.guids.get(&reg.guid),
            self.providers.groups.get(&group),
        ) else {
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
        if self
            .providers
            .guids
            .get(&guid)
            .is_some_and(GuidEntry::is_empty)
        {
            self.providers.guids.remove(&guid);
        }
    }

    fn drop_group_if_empty(&mut self, group: Guid) {
        if self
            .providers
            .groups
            .get(&group)
            .is_some_and(GuidEntry::is_empty)
        {
            self.providers.groups.remove(&group);
        }
    }

    /// A stopping session lets go of every provider, with callbacks carrying SourceId
    /// GUID_NULL (SES-80, PRV-14).
    pub(crate) fn disable_everywhere(&mut self, ctx: &Arc<LoggerContext>) -> Vec<Pending> {
        let guids: Vec<(Guid, usize)> = self
            .providers
            .guids
            .iter()
            .filter_map(|(g, e)| Some((*g, e.slot_of(ctx.handle)?)))
            .collect();
        let mut pending = Vec::new();
        for (guid, slot) in guids {
            // Clearing the slot first is safe: each registration's cached word still holds
            // the old mask, which rebuild_and_notify compares the new one against.
            if let Some(e) = self.providers.guids.get_mut(&guid) {
                e.slots[slot] = None;
            }
            pending.extend(self.rebuild_and_notify(guid, slot, Guid::NULL));
            self.drop_entry_if_empty(guid);
        }
        let groups: Vec<(Guid, usize)> = self
            .providers
            .groups
            .iter()
            .filter_map(|(g, e)| Some((*g, e.slot_of(ctx.handle)?)))
            .collect();
        for (group, slot) in groups {
            if let Some(e) = self.providers.groups.get_mut(&group) {
                e.slots[slot] = None;
            }
            pending.extend(self.rebuild_group_and_notify(group, slot, Guid::NULL));
            self.drop_group_if_empty(group);
        }
        pending
    }

    pub(crate) fn drop_process_registrations(&mut self, key: u64) {
        let regs: Vec<Arc<RegEntry>> = self
            .providers
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
        let sid = rec.token.sid.to_bytes().into_boxed_slice();
        let ts_id = rec.token.terminal_session;
        let id = self.providers.next_reg_id;
        self.providers.next_reg_id += 1;
        let reg = Arc::new(RegEntry::new(NewReg {
            id,
            guid,
            pid,
            process_key: key,
            inprivate,
            kind,
            sid,
            ts_id,
        }));
        self.processes
            .get_mut(&key)
            .expect("checked live")
            .registrations += 1;
        let entry = self.providers.guids.entry(guid).or_default();
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

    pub(crate) fn unregister(&mut self, reg: &Arc<RegEntry>) -> bool {
        if !reg.retire() {
            return false;
        }
        if let Some(e) = self.providers.guids.get_mut(&reg.guid) {
            e.regs.retain(|r| !Arc::ptr_eq(r, reg));
        }
        if let Some(&group) = reg.group.get() {
            if let Some(g) = self.providers.groups.get_mut(&group) {
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
    pub(crate) fn check_enable(
        &self,
        caller: &ProcessRecord,
        ctx: &Arc<LoggerContext>,
        guid: Guid,
        code: ControlCode,
        p: &EnableParams,
    ) -> Result<FilterSet> {
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
        Ok(filters)
    }

    /// EnableTraceEx2's change to the GUID table, once [`State::check_enable`] accepted the
    /// call and the system providers' hook (`api::sysproviders::enable_hook`) left it to the
    /// table: the checks that depend on the provider, then the slot, the group or the capture.
    pub(crate) fn apply_enable(
        &mut self,
        ctx: &Arc<LoggerContext>,
        guid: Guid,
        code: ControlCode,
        p: &EnableParams,
        filters: FilterSet,
    ) -> Result<Vec<Pending>> {
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
                let Some(slot) = self
                    .providers
                    .guids
                    .get(&guid)
                    .and_then(|e| e.slot_of(ctx.handle))
                else {
                    return Ok(Vec::new()); // not enabled there: nothing to do
                };
                self.providers
                    .guids
                    .get_mut(&guid)
                    .expect("found above")
                    .slots[slot] = None;
                let pending = self.rebuild_and_notify(guid, slot, p.source_id);
                self.drop_entry_if_empty(guid);
                Ok(pending)
            }
            ControlCode::CaptureState => {
                let Some(entry) = self.providers.guids.get(&guid) else {
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
                .filter_map(|pid| self.processes.live_key(*pid))
                .collect()
        });
        self.providers.enable_seq += 1;
        Arc::new(EnableConfig {
            filter: Arc::new(SlotFilter {
                level: p.level,
                match_any: p.match_any,
                match_all: p.match_all,
                enable_property: p.enable_property,
                filters,
            }),
            source_id: p.source_id,
            seq: self.providers.enable_seq,
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
        let existing = self
            .providers
            .groups
            .get(&group)
            .and_then(|e| e.slot_of(ctx.handle));
        match code {
            ControlCode::EnableProvider => {
                let slot = match existing {
                    Some(i) => i,
                    None => self
                        .providers
                        .groups
                        .get(&group)
                        .map_or(Some(0), |e| e.slots.iter().position(Option::is_none))
                        .ok_or(Error::LimitReached {
                            what: "sessions enabling one provider group",
                            limit: ENABLE_SLOTS as u32,
                        })?,
                };
                let cfg = self.enable_config(p, filters);
                self.providers.groups.entry(group).or_default().slots[slot] = Some(SlotEntry {
                    logger: ctx.clone(),
                    cfg,
                });
                Ok(self.rebuild_group_and_notify(group, slot, p.source_id))
            }
            ControlCode::DisableProvider => {
                let Some(slot) = existing else {
                    return Ok(Vec::new());
                };
                self.providers
                    .groups
                    .get_mut(&group)
                    .expect("found above")
                    .slots[slot] = None;
                let pending = self.rebuild_group_and_notify(group, slot, p.source_id);
                self.drop_group_if_empty(group);
                Ok(pending)
            }
            ControlCode::CaptureState => {
                let (Some(slot), Some(g)) = (existing, self.providers.groups.get(&group)) else {
                    return Ok(Vec::new());
                };
                Ok(g.regs
                    .iter()
                    .filter(|r| r.group_mask() & (1 << slot) != 0)
                    .filter_map(|r| {
                        let entry = self.providers.guids.get(&r.guid)?;
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
        let existing = self.providers.guids.get(&guid);
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
        let entry = self.providers.guids.entry(guid).or_default();
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
