//! GUID security: the descriptors of `HKLM\…\WMI\Security` as the kernel uses them (SEC-01 …
//! SEC-09).
//!
//! The kernel keeps a table of self-relative descriptors by GUID — session GUIDs and provider
//! GUIDs alike, plus `DefaultTraceSecurityGuid`'s, which applies to every GUID without its own
//! (SEC-08). A [`Machine`](crate::Machine) loads it from the registry at boot and writes it
//! back at shutdown. Each guarded call asks [`State::check_access`] for the right SEC-02 names:
//!
//! | call | right | on |
//! |---|---|---|
//! | StartTrace, ControlTrace(UPDATE) | TRACELOG_CREATE_REALTIME (REAL_TIME), TRACELOG_CREATE_ONDISK (a log file) | the session GUID |
//! | ControlTrace(QUERY) | WMIGUID_QUERY | the session GUID |
//! | EnableTraceEx2 into a non-private session | TRACELOG_GUID_ENABLE | the provider GUID |
//! | EventRegister / RegisterTraceGuids | TRACELOG_REGISTER_GUIDS | the provider GUID |
//! | OpenTrace (real time) | TRACELOG_ACCESS_REALTIME | the session GUID |
//!
//! When a descriptor applies, its DACL decides alone ([`etwsim_registry::access_check`]); when
//! none is stored, the default policy of SEC-03 decides as before (administrators, Performance
//! Log Users, the service accounts; registration open to everyone). The NT Kernel Logger's
//! "administrators and LocalSystem only" (SES-29) stays on top. A session's GUID is the one it
//! was given (SEC-09: that is why one gives a session a GUID); a session started with
//! GUID_NULL is checked against the default descriptor only.
//!
//! A token's SIDs ([`token_sids`]): its user SID, Everyone, Authenticated Users, Users, and
//! its groups — Administrators enabled when elevated, deny-only otherwise.

use std::collections::BTreeMap;

use etwsim_registry::security::{AccessMask, TraceOperation};
use etwsim_registry::{
    Ace, AceBody, AceType, Acl, SecurityDescriptor, Sid, TokenSids, access_check,
};
use etwsim_types::Guid;

use crate::error::{Error, Result};
use crate::machine::kernel::{Kernel, State};
use crate::machine::process::{Groups, Process, Token};

/// `EVENTSECURITYOPERATION`: what [`Kernel::event_access_control`] does (SEC-07).
#[doc(alias = "EVENTSECURITYOPERATION")]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EventSecurityOperation {
    /// `EventSecuritySetDACL` (0): the DACL becomes this one ACE.
    SetDacl = 0,
    /// `EventSecuritySetSACL` (1): the SACL becomes this one audit ACE.
    SetSacl = 1,
    /// `EventSecurityAddDACL` (2): the ACE is added to the DACL (a deny ACE first, an allow ACE
    /// last).
    AddDacl = 2,
    /// `EventSecurityAddSACL` (3): the audit ACE is added to the SACL.
    AddSacl = 3,
}

impl EventSecurityOperation {
    /// From the raw `EVENTSECURITYOPERATION` value.
    pub fn from_raw(value: u32) -> Option<EventSecurityOperation> {
        match value {
            0 => Some(EventSecurityOperation::SetDacl),
            1 => Some(EventSecurityOperation::SetSacl),
            2 => Some(EventSecurityOperation::AddDacl),
            3 => Some(EventSecurityOperation::AddSacl),
            _ => None,
        }
    }
}

/// The GUID descriptors a kernel holds (`…\WMI\Security` in memory).
pub(crate) type SecurityTable = BTreeMap<Guid, SecurityDescriptor>;

/// The SIDs of a simulated token, as the access check sees them.
pub fn token_sids(token: &Token) -> TokenSids {
    let user = token.sid.parse::<Sid>().unwrap_or_else(|_| Sid::everyone());
    let mut groups = vec![
        Sid::everyone(),
        Sid::authenticated_users(),
        Sid::builtin_users(),
    ];
    let mut deny_only = Vec::new();
    let g = token.groups;
    if g.contains(Groups::ADMINISTRATORS) {
        if token.elevated {
            groups.push(Sid::builtin_administrators());
        } else {
            deny_only.push(Sid::builtin_administrators());
        }
    }
    for (flag, sid) in [
        (Groups::PERFORMANCE_LOG_USERS, Sid::performance_log_users()),
        (Groups::LOCAL_SYSTEM, Sid::local_system()),
        (Groups::LOCAL_SERVICE, Sid::local_service()),
        (Groups::NETWORK_SERVICE, Sid::network_service()),
    ] {
        if g.contains(flag) {
            groups.push(sid);
        }
    }
    TokenSids {
        user,
        groups,
        deny_only,
    }
}

/// The default policy of SEC-03 as a descriptor (what EventAccessQuery returns for a GUID
/// without one): owner LocalSystem; full access for LocalSystem, Administrators, LocalService,
/// NetworkService and Performance Log Users; TRACELOG_REGISTER_GUIDS for Everyone.
pub fn default_descriptor() -> SecurityDescriptor {
    let all = AccessMask::WMIGUID_ALL_ACCESS;
    SecurityDescriptor::new(
        Some(Sid::local_system()),
        Some(Sid::local_system()),
        Some(Acl::new(vec![
            Ace::allow(Sid::local_system(), all),
            Ace::allow(Sid::builtin_administrators(), all),
            Ace::allow(Sid::local_service(), all),
            Ace::allow(Sid::network_service(), all),
            Ace::allow(Sid::performance_log_users(), all),
            Ace::allow(Sid::everyone(), AccessMask::TRACELOG_REGISTER_GUIDS),
        ])),
    )
}

fn op_name(op: TraceOperation) -> &'static str {
    match op {
        TraceOperation::QuerySession => "WMIGUID_QUERY",
        TraceOperation::StartRealTime => "TRACELOG_CREATE_REALTIME",
        TraceOperation::StartOnDisk => "TRACELOG_CREATE_ONDISK",
        TraceOperation::EnableProvider => "TRACELOG_GUID_ENABLE",
        TraceOperation::LogToSecureSession => "TRACELOG_LOG_EVENT",
        TraceOperation::ConsumeRealTime => "TRACELOG_ACCESS_REALTIME",
        TraceOperation::RegisterProvider => "TRACELOG_REGISTER_GUIDS",
        _ => "an ETW right",
    }
}

impl State {
    /// The descriptor that applies to `guid`: its own, else DefaultTraceSecurityGuid's
    /// (SEC-08), else none.
    pub(crate) fn descriptor_for(&self, guid: Guid) -> Option<&SecurityDescriptor> {
        self.security
            .get(&guid)
            .or_else(|| self.security.get(&Guid::DEFAULT_TRACE_SECURITY))
    }

    /// May `token` do `op` on `guid`? A stored descriptor decides (SEC-02, SEC-08); without
    /// one, `default_allowed` (SEC-03's policy) does. `ERROR_ACCESS_DENIED` otherwise.
    pub(crate) fn check_access(
        &self,
        token: &Token,
        guid: Guid,
        op: TraceOperation,
        default_allowed: bool,
    ) -> Result<()> {
        let allowed = match self.descriptor_for(guid) {
            Some(sd) => access_check(sd, &token_sids(token), op.required_access()).allowed,
            None => default_allowed,
        };
        if allowed {
            Ok(())
        } else {
            let by = if self.descriptor_for(guid).is_some() {
                "its security descriptor"
            } else {
                "the default policy (administrators, Performance Log Users, service accounts)"
            };
            Err(Error::AccessDenied(format!(
                "{} does not hold {} on {guid} ({by})",
                token.user,
                op_name(op)
            )))
        }
    }
}

impl Kernel {
    /// `EventAccessControl`: edits the descriptor of a session or provider GUID (SEC-07). The
    /// starting point is the GUID's stored descriptor, else the default one
    /// ([`default_descriptor`]). `allow` is ignored for the SACL operations.
    ///
    /// The caller must be an elevated administrator or LocalSystem: the descriptors are kept in
    /// `HKLM\…\WMI\Security` (simulator choice; the page does not name the right).
    ///
    /// # Errors
    /// `ERROR_ACCESS_DENIED` as above; `ERROR_INVALID_PARAMETER` for an exited caller. Nothing
    /// changes on error.
    #[doc(alias = "EventAccessControl")]
    pub fn event_access_control(
        &self,
        caller: &Process,
        guid: Guid,
        operation: EventSecurityOperation,
        sid: &Sid,
        rights: AccessMask,
        allow: bool,
    ) -> Result<()> {
        self.control(|s: &mut State| {
            let token = s.live_process(caller.start_key)?.token.clone();
            s.check_write_dac(&token, guid)?;
            let mut sd = s
                .security
                .get(&guid)
                .cloned()
                .unwrap_or_else(default_descriptor);
            let audit = Ace {
                ace_type: AceType::SYSTEM_AUDIT,
                flags: etwsim_registry::AceFlags::SUCCESSFUL_ACCESS
                    | etwsim_registry::AceFlags::FAILED_ACCESS,
                body: AceBody::MaskAndSid {
                    mask: rights,
                    sid: sid.clone(),
                },
            };
            let dacl_ace = if allow {
                Ace::allow(sid.clone(), rights)
            } else {
                Ace::deny(sid.clone(), rights)
            };
            match operation {
                EventSecurityOperation::SetDacl => sd.dacl = Some(Acl::new(vec![dacl_ace])),
                EventSecurityOperation::SetSacl => sd.sacl = Some(Acl::new(vec![audit])),
                EventSecurityOperation::AddDacl => {
                    let mut aces = sd.dacl.take().map(|a| a.aces).unwrap_or_default();
                    if allow {
                        aces.push(dacl_ace);
                    } else {
                        aces.insert(0, dacl_ace);
                    }
                    sd.dacl = Some(Acl::new(aces));
                }
                EventSecurityOperation::AddSacl => {
                    let mut aces = sd.sacl.take().map(|a| a.aces).unwrap_or_default();
                    aces.push(audit);
                    sd.sacl = Some(Acl::new(aces));
                }
            }
            s.security.insert(guid, sd);
            Ok(((), Vec::new()))
        })
    }

    /// `EventAccessQuery`: the descriptor of `guid` — its own, else DefaultTraceSecurityGuid's,
    /// else the default policy's ([`default_descriptor`]) (SEC-07).
    #[doc(alias = "EventAccessQuery")]
    pub fn event_access_query(&self, guid: Guid) -> SecurityDescriptor {
        self.with_state(|s| s.descriptor_for(guid).cloned())
            .unwrap_or_else(default_descriptor)
    }

    /// `EventAccessRemove`: deletes `guid`'s stored descriptor, so the defaults apply again
    /// (SEC-07). Removing a GUID without one succeeds and changes nothing.
    ///
    /// # Errors
    /// As [`Kernel::event_access_control`].
    #[doc(alias = "EventAccessRemove")]
    pub fn event_access_remove(&self, caller: &Process, guid: Guid) -> Result<()> {
        self.control(|s: &mut State| {
            let token = s.live_process(caller.start_key)?.token.clone();
            s.check_write_dac(&token, guid)?;
            s.security.remove(&guid);
            Ok(((), Vec::new()))
        })
    }

    /// Every stored descriptor, by GUID (what `HKLM\…\WMI\Security` holds).
    pub fn security_descriptors(&self) -> BTreeMap<Guid, SecurityDescriptor> {
        self.with_state(|s| s.security.clone())
    }

    /// Replaces the stored descriptors (boot loads them from the registry, SEC-08).
    pub(crate) fn load_security(&self, table: SecurityTable) {
        self.control(|s: &mut State| {
            s.security = table;
            Ok(((), Vec::new()))
        })
        .unwrap_or(());
    }
}

impl State {
    fn check_write_dac(&self, token: &Token, guid: Guid) -> Result<()> {
        // The descriptors live in HKLM\…\WMI\Security, which administrators write (ALG-01's
        // "administrator rights", SEC-08): the caller must be one, whatever the descriptor.
        if token.is_admin() {
            Ok(())
        } else {
            Err(Error::AccessDenied(format!(
                "{} may not change the security of {guid}: administrators and LocalSystem only",
                token.user
            )))
        }
    }
}

impl State {
    /// StartTrace's rights on the session GUID: TRACELOG_CREATE_REALTIME for REAL_TIME,
    /// TRACELOG_CREATE_ONDISK for a log file (SEC-02, SEC-09).
    pub(crate) fn check_start_rights(
        &self,
        token: &Token,
        guid: Guid,
        mode: etwsim_types::LogFileMode,
        on_disk: bool,
    ) -> Result<()> {
        let default = token.may_control_sessions();
        if mode.contains(etwsim_types::LogFileMode::REAL_TIME) {
            self.check_access(token, guid, TraceOperation::StartRealTime, default)?;
        }
        if on_disk {
            self.check_access(token, guid, TraceOperation::StartOnDisk, default)?;
        }
        Ok(())
    }

    /// ControlTrace's rights on the session GUID: WMIGUID_QUERY for QUERY; for the others
    /// (UPDATE, FLUSH, STOP, …) the rights that start a session of its kind (SEC-02 names
    /// UPDATE; the others are a simulator choice).
    pub(crate) fn check_control_rights(
        &self,
        token: &Token,
        ctx: &crate::control::session::LoggerContext,
        code: etwsim_types::TraceControl,
    ) -> Result<()> {
        let guid = ctx.cfg.guid;
        let default = token.may_control_sessions();
        if code == etwsim_types::TraceControl::Query {
            return self.check_access(token, guid, TraceOperation::QuerySession, default);
        }
        let live = ctx.live.lock();
        let (mode, on_disk) = (live.mode, live.log_file.is_some());
        drop(live);
        self.check_start_rights(token, guid, mode, on_disk)
    }

    /// EnableTraceEx2's right: TRACELOG_GUID_ENABLE on the provider GUID (SEC-02, SEC-04).
    pub(crate) fn check_enable_rights(
        &self,
        token: &Token,
        provider: Guid,
        session: &str,
    ) -> Result<()> {
        self.check_access(
            token,
            provider,
            TraceOperation::EnableProvider,
            token.may_control_sessions(),
        )
        .map_err(|e| match e {
            Error::AccessDenied(why) => {
                Error::AccessDenied(format!("enabling into session {session:?}: {why}"))
            }
            other => other,
        })
    }

    /// May the process `process_key` join provider group `group`? TRACELOG_JOIN_GROUP on the
    /// group GUID when a descriptor applies; open to everyone by default (SEC-11, like
    /// registration, SEC-03).
    pub(crate) fn may_join_group(&self, process_key: u64, group: Guid) -> bool {
        match (self.processes.get(&process_key), self.descriptor_for(group)) {
            (Some(p), Some(sd)) => {
                access_check(sd, &token_sids(&p.token), AccessMask::TRACELOG_JOIN_GROUP).allowed
            }
            _ => true,
        }
    }

    /// SEC-06: may the process `process_key` log into the SECURE_MODE session `session`?
    /// TRACELOG_LOG_EVENT on the session GUID; without a descriptor, the default policy's
    /// holders (administrators, Performance Log Users, the service accounts).
    pub(crate) fn may_log_to_secure(&self, process_key: u64, session: Guid) -> bool {
        self.processes.get(&process_key).is_some_and(|p| {
            self.check_access(
                &p.token,
                session,
                TraceOperation::LogToSecureSession,
                p.token.may_control_sessions(),
            )
            .is_ok()
        })
    }

    /// EventRegister's right: TRACELOG_REGISTER_GUIDS on the provider GUID (SEC-02; open to
    /// everyone by default, SEC-03).
    pub(crate) fn check_register_rights(&self, token: &Token, provider: Guid) -> Result<()> {
        self.check_access(token, provider, TraceOperation::RegisterProvider, true)
    }
}
