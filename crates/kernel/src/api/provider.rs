//! The provider handles (`REGHANDLE`): [`Provider`](crate::Provider) and
//! [`ClassicProvider`](crate::ClassicProvider), their writes (each one call into
//! `data::write`'s engine), and the registration and enable entry points — EventRegister,
//! RegisterTraceGuids, EnableTraceEx2, EnumerateTraceGuidsEx — which check and order the work
//! and call into the GUID table (`control::provider`).

use crate::Result;
use crate::api::kernel::Kernel;
use crate::api::process::Process;
use crate::api::session::Session;
use crate::control::provider::ENABLE_SLOTS;
use crate::control::provider::EnableParams;
use crate::control::provider::ProviderInstanceInfo;
use crate::control::provider::SlotEntry;
use crate::control::provider::TRACE_PROVIDER_FLAG_LEGACY;
use crate::control::provider::TRACE_PROVIDER_FLAG_PRE_ENABLE;
use crate::control::provider::TraceGuidInfo;
use crate::control::provider::enable_info;
use crate::control::session::Target;
use crate::control::state::State;
use crate::control::traits::EventInfoClass;
use crate::control::traits::blob_of;
use crate::control::traits::parse_exact;
use crate::data::classic::ClassicEvent;
use crate::data::route::ClassicNotification;
use crate::data::route::EnableNotification;
use crate::data::route::EnableState;
use crate::data::route::RegEntry;
use crate::data::route::RegKind;
use crate::data::write::EventPath;
use crate::data::write::WriteOptions;
use crate::error::Error;
use crate::filter::EventView;
use crate::filter::session_accepts;
use crate::filter::verdict::Explanation;
use crate::filter::verdict::Reason;
use crate::filter::verdict::Verdict;
use crate::filter::verdict::judge;
use crate::machine::ids::TraceHandle;
use etwsim_decode::tracelogging::EventBuilder;
use etwsim_decode::tracelogging::ProviderTraits;
use etwsim_types::ControlCode;
use etwsim_types::EnableInfo;
use etwsim_types::EventDescriptor;
use etwsim_types::Guid;
use etwsim_types::Keyword;
use etwsim_types::Level;
use std::sync::Arc;
/// A provider registration: the handle EventRegister returns (`REGHANDLE`).
///
/// Dropping it unregisters (EventUnregister), with no callback (PRV-08).
#[doc(alias = "REGHANDLE")]
pub struct Provider {
    pub(in crate::api) kernel: Kernel,
    pub(in crate::api) reg: Arc<RegEntry>,
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
        self.reg.is_enabled()
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
            .routes()
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
        self.reg.is_registered()
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
            None,
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
        self.inner.reg.routes().first().map(|r| r.logger.handle)
    }
    /// `GetTraceEnableLevel`.
    pub fn enable_level(&self) -> Level {
        self.inner
            .reg
            .routes()
            .first()
            .map_or(Level(0), |r| r.filter.level)
    }
    /// `GetTraceEnableFlags`: the low 32 bits of the session's MatchAnyKeyword (PRV-23).
    pub fn enable_flags(&self) -> u32 {
        self.inner
            .reg
            .routes()
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
        self.inner
            .kernel
            .trace_event(reg.process_key, reg.pid, logger, event)
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
            None,
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

impl Kernel {
    /// EnableTraceEx2 as `caller`, on the session `target` names.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` (GUID_NULL, zero handle, a filter breaking its limits, kernel
    /// groups, …), `ERROR_WMI_INSTANCE_NOT_FOUND` for a stopped session (PRV-20),
    /// `ERROR_NO_SYSTEM_RESOURCES` for a 9th session (PRV-21), `ERROR_ACCESS_DENIED` (SEC-04).
    /// EVENT_ENABLE_PROPERTY_PROVIDER_GROUP enables a provider group (PRV-36); with an
    /// event-ID, event-name or payload filter, or on a private session, it is
    /// `ERROR_INVALID_PARAMETER`. Nothing changes when an error is returned.
    pub fn enable_trace_ex2(
        &self,
        caller: &Process,
        target: Target<'_>,
        guid: Guid,
        code: ControlCode,
        params: &EnableParams,
    ) -> Result<()> {
        let session = self.journal_session(caller, target);
        let r = self.check_thread().and_then(|()| {
            self.control(|s: &mut State| {
                let rec = s.live_process(caller.start_key)?.clone();
                let ctx = s.resolve(caller.start_key, target)?;
                let filters = s.check_enable(&rec, &ctx, guid, code, params)?;
                // The system providers (kernel manifest providers, System Providers, kernel
                // rundowns) take their GUIDs here, before the GUID table does.
                let hook = crate::api::sysproviders::enable_hook(
                    self,
                    s,
                    &ctx,
                    guid,
                    code,
                    params,
                    filters.trace_handle,
                );
                match hook {
                    Some(r) => r,
                    None => s.apply_enable(&ctx, guid, code, params, filters),
                }
                .map(|p| ((), p))
            })
        });
        self.note_control(
            || format!("EnableTraceEx2({})", code.name()),
            || format!("{guid} on {target}"),
            session,
            &r,
        );
        r
    }

    /// EnumerateTraceGuidsEx(TraceGuidQueryList): every GUID that is registered or enabled.
    pub fn provider_guids(&self) -> Vec<Guid> {
        self.with_state(|s| s.providers.guids().copied().collect())
    }

    /// EnumerateTraceGuidsEx(TraceGuidQueryInfo) for one GUID (PRV-06, PRV-29).
    pub fn trace_guid_info(&self, guid: Guid) -> Option<TraceGuidInfo> {
        self.with_state(|s| {
            let e = s.providers.get(&guid)?;
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
            if let Some(e) = s.providers.get(&guid) {
                for (i, slot) in e.slots.iter().enumerate() {
                    out[i] = slot.as_ref().map(|s| (s.logger.handle, enable_info(s)));
                }
            }
            out
        })
    }
}

impl Provider {
    /// Each session's verdict on `event` if this registration wrote it now, and why: the
    /// routing decision of the event path as data (see the module docs). Writes nothing.
    pub fn explain(&self, event: &EventView<'_>) -> Explanation {
        self.kernel.explain_reg(&self.reg, event)
    }
}

impl Kernel {
    /// [`Provider::explain`] for registration `reg`.
    pub(in crate::api) fn explain_reg(
        &self,
        reg: &Arc<RegEntry>,
        event: &EventView<'_>,
    ) -> Explanation {
        let event = &EventView {
            inprivate: event.inprivate || reg.inprivate,
            ..*event
        };
        let routes = reg.routes();
        let routed = |slot: u8| routes.iter().find(|r| r.slot == slot);
        let process = self.with_state(|st| st.processes.get(&reg.process_key).cloned());
        // Why a slot's session does not reach this registration: its scope, else a classic
        // provider's newer enabler (PRV-22).
        let excluded_by = |s: &SlotEntry| {
            crate::control::provider::slot_excludes(s, reg, process.as_ref()).unwrap_or("PRV-22")
        };
        let verdict = |slot: u8, route_slot: u8, s: &SlotEntry| {
            let (recorded, reason) = if !s.logger.is_running() {
                (false, Reason::SessionStopping)
            } else if !reg.is_registered() {
                (false, Reason::OutOfScope { rule: "PRV-08" })
            } else if routed(route_slot).is_none() {
                (
                    false,
                    Reason::OutOfScope {
                        rule: excluded_by(s),
                    },
                )
            } else {
                judge(event, route_slot, &s.cfg.filter)
            };
            Verdict {
                session: s.logger.handle,
                session_name: s.logger.cfg.name.clone(),
                slot,
                recorded,
                reason,
            }
        };
        self.with_state(|st| {
            let mut verdicts = Vec::new();
            if let Some(e) = st.providers.get(&reg.guid) {
                for (i, s) in e.slots.iter().enumerate() {
                    if let Some(s) = s {
                        verdicts.push(verdict(i as u8, i as u8, s));
                    }
                }
            }
            if let Some(g) = reg.group.get().and_then(|g| st.providers.group(g)) {
                for (i, s) in g.slots.iter().enumerate() {
                    let Some(s) = s else { continue };
                    if verdicts.iter().any(|v| v.session == s.logger.handle) {
                        continue; // enabled directly too: routed once, by its own slot
                    }
                    verdicts.push(verdict(
                        8 + i as u8,
                        crate::control::provider::GROUP_ROUTE_SLOT + i as u8,
                        s,
                    ));
                }
            }
            Explanation {
                provider: reg.guid,
                verdicts,
            }
        })
    }
}

impl Provider {
    /// The event path of this registration (`data::write`).
    #[inline(always)]
    fn writer(&self) -> EventPath<'_, Kernel> {
        EventPath {
            kernel: &self.kernel,
            reg: &self.reg,
        }
    }

    /// `EventWrite`: writes the event to every session that wants it. `data` is the list of
    /// `EVENT_DATA_DESCRIPTOR` blocks, concatenated with no padding (EVT-11).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for more than 128 blocks; `ERROR_ARITHMETIC_OVERFLOW`
    /// (EVT-05), `ERROR_MORE_DATA` (EVT-06), `ERROR_NOT_ENOUGH_MEMORY` (EVT-07) or
    /// `ERROR_LOG_FILE_FULL` (EVT-08) when a session without INDEPENDENT_SESSION_MODE could
    /// not take it — then no such session records it (EVT-09). Lost events are counted either
    /// way.
    #[inline(always)]
    pub fn write(&self, descriptor: &EventDescriptor, data: &[&[u8]]) -> Result<()> {
        self.writer().write(descriptor, data)
    }

    /// `EventWrite` with a payload built only when some session may want the event.
    ///
    /// # Errors
    /// As [`Provider::write`].
    #[inline]
    pub fn write_with<R: AsRef<[u8]>>(
        &self,
        descriptor: &EventDescriptor,
        build: impl FnOnce() -> R,
    ) -> Result<()> {
        self.writer().write_with(descriptor, build)
    }

    /// `TraceLoggingWrite`: a TraceLogging event called `name`, its fields added by `fields`
    /// — which runs only when some session may want an event of the descriptor's level and
    /// keyword (the enable check comes first and builds nothing, EVT-02, PRV-31).
    ///
    /// The metadata goes where TraceLogging puts it (DEC-03): an `EVENT_SCHEMA_TL` extended
    /// item, with the registration's traits as the `PROV_TRAITS` item, the field values as
    /// user data — for a provider that honours data-descriptor types (traits set with
    /// [`Provider::set_traits`], as [`crate::Process::register_tracelogging`] does, or
    /// UseDescriptorType, EVT-12). For any other provider ETW ignores the Type byte, so the
    /// metadata lands in the payload in front of the values, as it would on Windows, and the
    /// event is an ordinary one to every filter. Otherwise EVENT_NAME filters see `name`
    /// (FLT-22), and EVENT_ID and payload filters do not apply (FLT-19, FLT-18).
    ///
    /// `descriptor` is usually [`etwsim_decode::tracelogging::descriptor`]`(level, keyword)`
    /// (Id 0, Version 0, Channel 11, EVT-27); what `fields` sets with the builder's `level`,
    /// `keyword`, `opcode`… changes the descriptor written (sessions then filter by it).
    ///
    /// ```
    /// use etwsim_decode::tracelogging::{Value, decode_record, descriptor};
    /// use etwsim_kernel::{EnableParams, Kernel, MemorySink, ProviderTraits, Token};
    /// use etwsim_types::{EventDescriptor, Keyword, Level};
    ///
    /// const OPENED: EventDescriptor = descriptor(Level::INFORMATION, Keyword(0x1));
    ///
    /// let k = Kernel::builder().deterministic(1).build()?;
    /// let app = k.spawn("app.exe", Token::user("u"))?;
    /// let guid = "{b3864c38-4273-58c5-545b-8b3608343471}".parse().unwrap();
    /// let p = app.register_tracelogging(guid, &ProviderTraits::new("MyProvider"))?;
    /// let sink = MemorySink::new();
    /// let s = k.session("s").log_file("s.etl").sink(sink.clone()).start()?;
    /// s.enable(guid, &EnableParams::new())?;
    /// p.write_tracelogging("FileOpened", &OPENED, |e| {
    ///     e.str16("Path", r"C:\a.txt").value("Bytes", 4096u64);
    /// })?;
    /// s.stop()?;
    /// let decoded = decode_record(&sink.records()[0]).unwrap().unwrap();
    /// assert_eq!(decoded.to_string(), r#"MyProvider/FileOpened Path="C:\\a.txt", Bytes=4096"#);
    /// assert_eq!(decoded.value("Bytes"), Some(&Value::U64(4096)));
    /// # Ok::<(), etwsim_kernel::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for fields the builder cannot encode (a value that does not
    /// fit its type, a struct left open…); `ERROR_ARITHMETIC_OVERFLOW` for metadata over
    /// 65,535 bytes (DEC-15); otherwise as [`Provider::write`].
    #[inline]
    pub fn write_tracelogging(
        &self,
        name: &str,
        descriptor: &EventDescriptor,
        fields: impl FnOnce(&mut EventBuilder),
    ) -> Result<()> {
        self.writer().write_tracelogging(name, descriptor, fields)
    }

    /// `TraceLoggingWriteActivity`: [`Provider::write_tracelogging`] with an explicit
    /// activity ID and/or related activity ID (EVT-14, EVT-17).
    ///
    /// # Errors
    /// As [`Provider::write_tracelogging`].
    #[inline]
    pub fn write_tracelogging_transfer(
        &self,
        name: &str,
        descriptor: &EventDescriptor,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        fields: impl FnOnce(&mut EventBuilder),
    ) -> Result<()> {
        self.writer().write_tracelogging_transfer(
            name,
            descriptor,
            activity_id,
            related_activity_id,
            fields,
        )
    }

    /// `EventWriteTransfer`: with an explicit activity ID and/or related activity ID
    /// (EVT-14, EVT-17).
    ///
    /// # Errors
    /// As [`Provider::write`].
    #[inline]
    pub fn write_transfer(
        &self,
        descriptor: &EventDescriptor,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        data: &[&[u8]],
    ) -> Result<()> {
        self.writer()
            .write_transfer(descriptor, activity_id, related_activity_id, data)
    }

    /// `EventWriteEx`: with a session filter mask and flags (EVT-04).
    ///
    /// # Errors
    /// As [`Provider::write`]; `ERROR_INVALID_PARAMETER` for unknown flags.
    #[inline]
    pub fn write_ex(
        &self,
        descriptor: &EventDescriptor,
        filter: u64,
        flags: u32,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        data: &[&[u8]],
    ) -> Result<()> {
        self.writer().write_ex(
            descriptor,
            filter,
            flags,
            activity_id,
            related_activity_id,
            data,
        )
    }

    /// `EventWriteString`: a string-only event, Id/Version/Opcode/Task/Channel 0, the payload
    /// the UTF-16 string with its NUL, EVENT_HEADER_FLAG_STRING_ONLY set (EVT-13).
    ///
    /// # Errors
    /// As [`Provider::write`].
    #[inline]
    pub fn write_string(&self, level: Level, keyword: Keyword, text: &str) -> Result<()> {
        self.writer().write_string(level, keyword, text)
    }

    /// The general write: every option of EventWriteEx and TraceLogging.
    ///
    /// # Errors
    /// As [`Provider::write_ex`].
    #[inline]
    pub fn write_with_options(
        &self,
        descriptor: &EventDescriptor,
        options: &WriteOptions<'_>,
        data: &[&[u8]],
    ) -> Result<()> {
        self.writer().write_with_options(descriptor, options, data)
    }
}

impl Provider {
    /// `EventSetInformation(RegHandle, InformationClass, EventInformation)`.
    ///
    /// `EventProviderBinaryTrackInfo` and `EventProviderSetReserved1` are accepted and have no
    /// effect the simulation can show (binary tracking feeds rundown of image paths).
    ///
    /// # Errors
    /// `ERROR_NOT_SUPPORTED` for a class that is not a recognised value (as EventSetInformation
    /// documents); `ERROR_INVALID_PARAMETER` for a malformed traits blob, traits set a second
    /// time (PRV-34; the code is the project's choice), or UseDescriptorType data that is not
    /// one byte; `ERROR_INVALID_HANDLE` after unregistering.
    pub fn set_information(&self, class: u32, data: &[u8]) -> Result<()> {
        if !self.is_registered() {
            return Err(Error::InvalidRegHandle(self.reg_handle()));
        }
        let class = EventInfoClass::from_raw(class).ok_or_else(|| Error::Other {
            code: etwsim_types::Win32Error::ERROR_NOT_SUPPORTED,
            context: format!("EVENT_INFO_CLASS {class} is not a recognised class"),
        })?;
        let mut info = self.reg.info.lock();
        match class {
            EventInfoClass::BinaryTrackInfo | EventInfoClass::SetReserved1 => Ok(()),
            EventInfoClass::SetTraits => {
                if info.traits.is_some() {
                    return Err(Error::invalid(
                        "provider traits can be set only once per registration",
                    ));
                }
                let traits = parse_exact(data)?;
                let group = traits.group();
                info.traits = Some(traits);
                let _ = self.reg.traits_blob.set(data.into());
                crate::machine::thread::invalidate_lanes(); // a lane writes no traits item
                info.use_descriptor_type = true;
                drop(info);
                // PRV-36: a group trait joins the group, and the sessions that enabled the
                // group enable this registration now (its callback runs before we return).
                if let Some(group) = group {
                    let reg = self.reg.clone();
                    self.kernel
                        .control(|s| Ok(((), s.join_group(&reg, group))))?;
                }
                Ok(())
            }
            EventInfoClass::UseDescriptorType => {
                let [b] = data else {
                    return Err(Error::invalid("UseDescriptorType takes one BOOLEAN byte"));
                };
                info.use_descriptor_type = *b != 0;
                Ok(())
            }
        }
    }

    /// `EventSetInformation(EventProviderSetTraits)` with typed traits.
    ///
    /// # Errors
    /// As [`Provider::set_information`].
    pub fn set_traits(&self, traits: &ProviderTraits) -> Result<()> {
        self.set_information(EventInfoClass::SetTraits as u32, &blob_of(traits)?)
    }

    /// The traits set on this registration.
    pub fn traits(&self) -> Option<ProviderTraits> {
        self.reg.info.lock().traits.clone()
    }

    /// Whether ETW honours data descriptors' `Type` byte for this provider (EVT-12).
    pub fn uses_descriptor_type(&self) -> bool {
        self.reg.info.lock().use_descriptor_type
    }
}

impl crate::Process {
    /// `TraceLoggingRegister`: EventRegister, then EventSetInformation(SetTraits) with the
    /// provider's name (and group). If setting the traits fails the registration is undone and
    /// the error returned (PRV-33).
    ///
    /// # Errors
    /// As [`crate::Process::register_provider`] and [`Provider::set_information`].
    pub fn register_tracelogging(&self, guid: Guid, traits: &ProviderTraits) -> Result<Provider> {
        // Check the blob before registering, so a refusal leaves no trace (not even a used
        // registration id): a failed TraceLoggingRegister changes nothing.
        parse_exact(&blob_of(traits)?)?;
        let p = self.register_provider(guid)?;
        match p.set_traits(traits) {
            Ok(()) => Ok(p),
            Err(e) => {
                let _ = p.unregister();
                Err(e)
            }
        }
    }
}

impl Process {
    /// `TraceEvent(TraceHandle, EventTrace)`: writes a classic event into the session
    /// `logger` names, as this process (its PID, the current simulated thread's TID and CPU).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for handle 0 or an exited process; `ERROR_INVALID_HANDLE`
    /// for a handle that names no running session this process can see, or the NT Kernel
    /// Logger (EVT-29, KRN-02); `ERROR_MORE_DATA` for a record larger than the session's
    /// buffer (EVT-06) or than 65,535 bytes; `ERROR_NOT_ENOUGH_MEMORY` when no buffer is
    /// free (EVT-07); `ERROR_LOG_FILE_FULL` when a real-time session's backing store is full
    /// (EVT-08); `ERROR_INVALID_THREAD_ID` from another OS thread than a single-threaded
    /// kernel's. A refused event counts in the session's EventsLost; a call rejected for its
    /// arguments, handle or thread changes nothing.
    pub fn trace_event(&self, logger: TraceHandle, event: &ClassicEvent<'_>) -> Result<()> {
        self.kernel
            .trace_event(self.start_key, self.pid, logger, event)
    }
}

impl Kernel {
    /// `TraceEvent` as process `process_key` (PID `pid`): the body of
    /// [`crate::Process::trace_event`] and [`ClassicProvider::trace_event`]. The session comes
    /// from the logger handle; the write itself is the data plane's
    /// (`data::classic::write_classic`).
    fn trace_event(
        &self,
        process_key: u64,
        pid: u32,
        logger: TraceHandle,
        event: &ClassicEvent<'_>,
    ) -> Result<()> {
        self.check_thread()?;
        let ctx = self.classic_session(process_key, logger)?;
        crate::data::local::with_current(self, process_key, |t| {
            let writer = crate::data::classic::ClassicWriter {
                pid,
                tid: t.tid,
                cpu: t.cpu.load(std::sync::atomic::Ordering::Relaxed) as usize,
                ticks: self.inner.clock.event_now(),
            };
            crate::data::classic::write_classic(&self.inner.core, &ctx, writer, event, || {
                self.with_state(|s| s.providers.classic_slot(process_key, ctx.handle))
            })
        })
    }

    /// The running session `logger` names, as process `process_key` sees it: one a classic
    /// provider may log to (not the NT Kernel Logger, not another process's private one).
    fn classic_session(
        &self,
        process_key: u64,
        logger: TraceHandle,
    ) -> Result<Arc<crate::data::context::LoggerContext>> {
        if logger.0 == 0 {
            return Err(Error::invalid("TraceEvent's session handle is 0"));
        }
        self.with_state(|s| {
            s.live_process(process_key)?;
            s.running_loggers()
                .find(|l| {
                    l.handle == logger
                        && l.is_running()
                        && l.private_owner.is_none_or(|o| o == process_key)
                        && !l.cfg.kernel_logger
                })
                .cloned()
                .ok_or_else(|| Error::Other {
                    code: etwsim_types::Win32Error::ERROR_INVALID_HANDLE,
                    context: format!(
                        "{logger} names no running session a classic provider may log to"
                    ),
                })
        })
    }
}
