//! The access checks of control calls on the kernel's tables (SEC-01…SEC-08): a caller's token
//! against the GUID security descriptors (`control::security`).

use crate::Result;
use crate::control::security::op_name;
use crate::control::security::token_sids;
use crate::control::state::State;
use crate::data::context::LoggerContext;
use crate::error::Error;
use crate::machine::process::ProcessRecord;
use crate::machine::process::Token;
use etwsim_registry::SecurityDescriptor;
use etwsim_registry::access_check;
use etwsim_registry::security::AccessMask;
use etwsim_registry::security::TraceOperation;
use etwsim_types::Guid;
use etwsim_types::TraceControl;
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

impl State {
    pub(crate) fn check_write_dac(&self, token: &Token, guid: Guid) -> Result<()> {
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
    pub(in crate::control) fn check_start_rights(
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
    pub(in crate::control) fn check_control_rights(
        &self,
        token: &Token,
        ctx: &crate::data::context::LoggerContext,
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
    pub(in crate::control) fn check_enable_rights(
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
    pub(in crate::control) fn may_join_group(&self, process_key: u64, group: Guid) -> bool {
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
    pub(in crate::control) fn check_register_rights(
        &self,
        token: &Token,
        provider: Guid,
    ) -> Result<()> {
        self.check_access(token, provider, TraceOperation::RegisterProvider, true)
    }
}

/// ControlTrace's access check (SEC-01, SEC-03): the NT Kernel Logger for administrators and
/// LocalSystem, other sessions for the privileged groups or a descriptor that grants it.
pub(crate) fn check_control_access(
    s: &State,
    rec: &ProcessRecord,
    ctx: &LoggerContext,
    code: TraceControl,
) -> Result<()> {
    if ctx.private_owner.is_some() {
        return Ok(()); // resolve() already limited private sessions to their own process
    }
    if ctx.cfg.kernel_logger && !rec.token.may_control_kernel_logger() {
        return Err(Error::AccessDenied(format!(
            "{} may not control the NT Kernel Logger (administrators and LocalSystem only)",
            rec.token.user
        )));
    }
    if !rec.token.may_control_sessions() && s.descriptor_for(ctx.cfg.guid).is_none() {
        return Err(Error::AccessDenied(format!(
            "{} is not an administrator, a Performance Log User or a service account",
            rec.token.user
        )));
    }
    s.check_control_rights(&rec.token, ctx, code)
}
