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
use etwsim_registry::{Ace, Acl, SecurityDescriptor, Sid, TokenSids};
use etwsim_types::Guid;

use crate::machine::process::{Groups, Token};

/// `EVENTSECURITYOPERATION`: what [`Kernel::event_access_control`](crate::Kernel::event_access_control) does (SEC-07).
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
    let user = token.sid.clone();
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

pub(in crate::control) fn op_name(op: TraceOperation) -> &'static str {
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
