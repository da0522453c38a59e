//! GUID security descriptors as the kernel uses them: the TRACELOG_* rights on StartTrace,
//! ControlTrace, EnableTraceEx2, EventRegister and real-time consumers; EventAccessControl,
//! EventAccessQuery, EventAccessRemove; WMI\Security at boot and across reboots (SEC-01 …
//! SEC-10).
use crate::common;
use common::*;
use etwsim::registry::security::{WMI_SECURITY_PATH, store_descriptor};
use etwsim::registry::{AccessMask, AceType, Acl, Registry, SecurityDescriptor, Sid};
use etwsim::{
    BootOptions, ConsumerOptions, EnableParams, EventSecurityOperation, Groups, Guid, Kernel,
    Machine, Target, Token, TraceControl, Win32Error,
};

fn plu(k: &Kernel) -> etwsim::Process {
    k.spawn(
        "perf.exe",
        Token::user("pat").with_groups(Groups::PERFORMANCE_LOG_USERS),
    )
    .unwrap()
}

fn session_guid(n: u32) -> Guid {
    Guid::from_fields(0xabcd_0000 + n, 1, 2, [3, 4, 5, 6, 7, 8, 9, n as u8])
}

/// EnableTraceEx2(ENABLE_PROVIDER) of `provider` into `s` as `caller`.
fn enable_as(
    k: &Kernel,
    caller: &etwsim::Process,
    s: &etwsim::Session,
    provider: Guid,
) -> etwsim::Result<()> {
    k.enable_trace_ex2(
        caller,
        Target::Handle(s.handle()),
        provider,
        etwsim::ControlCode::EnableProvider,
        &EnableParams::new(),
    )
}

/// Sets `guid`'s DACL to one ACE as the System process (EventSecuritySetDACL).
fn set_dacl(k: &Kernel, guid: Guid, sid: Sid, rights: AccessMask, allow: bool) {
    k.event_access_control(
        &k.system_process(),
        guid,
        EventSecurityOperation::SetDacl,
        &sid,
        rights,
        allow,
    )
    .unwrap();
}

// rule: SEC-01
// rule: SEC-02
// rule: SEC-09
#[test]
fn start_trace_needs_create_realtime_on_the_session_guid() {
    let k = kernel();
    let p = plu(&k);
    let g = session_guid(1);
    // Only WMIGUID_QUERY for Everyone on this session GUID.
    set_dacl(&k, g, Sid::everyone(), AccessMask::WMIGUID_QUERY, true);
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        k.session("Guarded").guid(g).caller(&p).start()
    });
    // The same caller may start a session under another GUID (the default policy).
    k.session("Other")
        .guid(session_guid(2))
        .caller(&p)
        .start()
        .unwrap();
    // A grant of TRACELOG_CREATE_REALTIME is enough — even for a standard user (SEC-09).
    let user = user_process(&k, "u.exe");
    set_dacl(
        &k,
        g,
        Sid::everyone(),
        AccessMask::TRACELOG_CREATE_REALTIME,
        true,
    );
    k.session("Guarded").guid(g).caller(&user).start().unwrap();
}

// rule: SEC-02
#[test]
fn a_file_session_needs_create_ondisk() {
    let k = kernel();
    let p = plu(&k);
    let g = session_guid(3);
    set_dacl(
        &k,
        g,
        Sid::everyone(),
        AccessMask::TRACELOG_CREATE_REALTIME,
        true,
    );
    let dir = std::env::temp_dir();
    let file = dir.join(format!("etwsim-sec-ondisk-{}.etl", std::process::id()));
    let file = file.to_str().unwrap().to_owned();
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        k.session("Disk")
            .guid(g)
            .caller(&p)
            .mode(etwsim::LogFileMode::SEQUENTIAL)
            .log_file(&file)
            .start()
    });
    k.session("Rt").guid(g).caller(&p).start().unwrap();
}

// rule: SEC-02
// rule: SEC-10
#[test]
fn query_needs_wmiguid_query_and_query_all_traces_hides_the_session() {
    let k = kernel();
    let g = session_guid(4);
    let s = k.session("Hidden").guid(g).start().unwrap();
    set_dacl(
        &k,
        g,
        Sid::local_system(),
        AccessMask::WMIGUID_ALL_ACCESS,
        true,
    );
    let p = plu(&k);
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        k.control_trace(&p, Target::Name("Hidden"), TraceControl::Query, None)
    });
    assert!(k.query_all_traces(&p).iter().all(|q| q.name != "Hidden"));
    assert!(s.query().is_ok(), "the System process still may");
}

// rule: SEC-02
// rule: SEC-04
#[test]
fn enable_needs_guid_enable_on_the_provider_guid() {
    let k = kernel();
    let s = k.session("S").start().unwrap();
    let user = user_process(&k, "u.exe");
    let granted = guid(1);
    let other = guid(2);
    // A standard user may not enable providers by default …
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        enable_as(&k, &user, &s, granted)
    });
    // … unless the provider's descriptor grants TRACELOG_GUID_ENABLE.
    let sids = etwsim::token_sids(&user.token());
    set_dacl(
        &k,
        granted,
        sids.user.clone(),
        AccessMask::TRACELOG_GUID_ENABLE,
        true,
    );
    enable_as(&k, &user, &s, granted).unwrap();
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        enable_as(&k, &user, &s, other)
    });
    // An explicit deny beats group membership: an administrator denied on this GUID.
    let admin = admin_process(&k, "a.exe");
    k.event_access_control(
        &k.system_process(),
        other,
        EventSecurityOperation::AddDacl,
        &Sid::builtin_administrators(),
        AccessMask::TRACELOG_GUID_ENABLE,
        false,
    )
    .unwrap();
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        enable_as(&k, &admin, &s, other)
    });
}

// rule: SEC-02
// rule: SEC-03
#[test]
fn register_needs_register_guids_only_when_a_descriptor_says_so() {
    let k = kernel();
    let user = user_process(&k, "u.exe");
    user.register_provider(guid(1)).unwrap(); // SEC-03: open to everyone by default
    set_dacl(
        &k,
        guid(2),
        Sid::builtin_administrators(),
        AccessMask::TRACELOG_REGISTER_GUIDS,
        true,
    );
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        user.register_provider(guid(2))
    });
    admin_process(&k, "a.exe")
        .register_provider(guid(2))
        .unwrap();
}

// rule: SEC-02
// rule: SEC-05
#[test]
fn real_time_consumers_need_access_realtime_on_the_session_guid() {
    let k = kernel();
    let g = session_guid(5);
    k.session("Rt").guid(g).start().unwrap();
    let user = user_process(&k, "u.exe");
    assert!(matches!(
        k.open_realtime(&user, "Rt", ConsumerOptions::default()),
        Err(e) if e.win32_code() == Win32Error::ERROR_ACCESS_DENIED
    ));
    set_dacl(
        &k,
        g,
        Sid::everyone(),
        AccessMask::TRACELOG_ACCESS_REALTIME,
        true,
    );
    k.open_realtime(&user, "Rt", ConsumerOptions::default())
        .unwrap();
    // Performance Log Users hold it through Everyone here, as any caller does.
    let p = plu(&k);
    k.open_realtime(&p, "Rt", ConsumerOptions::default())
        .unwrap();
}

// rule: SEC-07
#[test]
fn access_control_query_and_remove() {
    let k = kernel();
    let g = guid(7);
    // No descriptor: the default permissions.
    assert_eq!(k.event_access_query(g), etwsim::default_descriptor());
    let alice = Sid::new(5, &[21, 1, 2, 3, 1001]).unwrap();
    let sys = k.system_process();
    k.event_access_control(
        &sys,
        g,
        EventSecurityOperation::AddDacl,
        &alice,
        AccessMask::TRACELOG_GUID_ENABLE,
        true,
    )
    .unwrap();
    let sd = k.event_access_query(g);
    let aces = &sd.dacl.as_ref().unwrap().aces;
    assert_eq!(
        aces.len(),
        etwsim::default_descriptor().dacl.unwrap().aces.len() + 1
    );
    assert_eq!(
        aces.last().unwrap().mask_and_sid(),
        Some((AccessMask::TRACELOG_GUID_ENABLE, &alice))
    );
    // SetDACL replaces; AddDACL with a deny puts it first.
    k.event_access_control(
        &sys,
        g,
        EventSecurityOperation::SetDacl,
        &alice,
        AccessMask::WMIGUID_QUERY,
        true,
    )
    .unwrap();
    k.event_access_control(
        &sys,
        g,
        EventSecurityOperation::AddDacl,
        &Sid::everyone(),
        AccessMask::WMIGUID_QUERY,
        false,
    )
    .unwrap();
    let aces = k.event_access_query(g).dacl.unwrap().aces;
    assert_eq!(aces.len(), 2);
    assert_eq!(aces[0].ace_type, AceType::ACCESS_DENIED);
    // The SACL operations ignore AllowOrDeny: an audit ACE either way.
    k.event_access_control(
        &sys,
        g,
        EventSecurityOperation::SetSacl,
        &alice,
        AccessMask::WMIGUID_QUERY,
        false,
    )
    .unwrap();
    let sacl = k.event_access_query(g).sacl.unwrap();
    assert_eq!(sacl.aces[0].ace_type, AceType::SYSTEM_AUDIT);
    // Remove: the defaults apply again.
    k.event_access_remove(&sys, g).unwrap();
    assert_eq!(k.event_access_query(g), etwsim::default_descriptor());
    assert_eq!(
        EventSecurityOperation::from_raw(3),
        Some(EventSecurityOperation::AddSacl)
    );
    assert_eq!(EventSecurityOperation::from_raw(4), None);
}

// rule: SEC-07
#[test]
fn only_administrators_change_security_and_a_refusal_changes_nothing() {
    let k = kernel();
    let user = user_process(&k, "u.exe");
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        k.event_access_control(
            &user,
            guid(1),
            EventSecurityOperation::SetDacl,
            &Sid::everyone(),
            AccessMask::WMIGUID_ALL_ACCESS,
            true,
        )
    });
    set_dacl(
        &k,
        guid(1),
        Sid::everyone(),
        AccessMask::WMIGUID_QUERY,
        true,
    );
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        k.event_access_remove(&user, guid(1))
    });
}

fn dacl_only(sid: Sid, mask: AccessMask) -> SecurityDescriptor {
    SecurityDescriptor::new(
        None,
        None,
        Some(Acl::new(vec![etwsim::registry::Ace::allow(sid, mask)])),
    )
}

// rule: SEC-08
#[test]
fn boot_reads_wmi_security_with_the_default_trace_security_guid_fallback() {
    let mut reg = Registry::new();
    let g = session_guid(8);
    // The default descriptor: LocalSystem only. Its own descriptor lets Everyone register g.
    store_descriptor(
        &mut reg,
        Guid::DEFAULT_TRACE_SECURITY,
        &dacl_only(Sid::local_system(), AccessMask::WMIGUID_ALL_ACCESS),
    )
    .unwrap();
    store_descriptor(
        &mut reg,
        g,
        &dacl_only(Sid::everyone(), AccessMask::TRACELOG_REGISTER_GUIDS),
    )
    .unwrap();
    reg.set_value(
        WMI_SECURITY_PATH,
        "not-a-guid",
        etwsim::registry::Value::dword(1),
    )
    .unwrap();
    let root = std::env::temp_dir().join(format!("etwsim-sec08-{}", std::process::id()));
    let builder = Kernel::builder().deterministic(3);
    let mut m = Machine::boot(builder, reg, BootOptions::new(&root)).unwrap();
    assert!(
        m.report().notes[0].contains("not-a-guid"),
        "{:?}",
        m.report().notes
    );
    let k = m.kernel().clone();
    let admin = admin_process(&k, "a.exe");
    // The default descriptor applies to GUIDs without their own: administrators lose access.
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        admin.register_provider(guid(1))
    });
    admin.register_provider(g).unwrap();
    // EventAccessRemove persists: after a reboot the registry no longer has g's descriptor.
    k.event_access_remove(&k.system_process(), g).unwrap();
    m.reboot().unwrap();
    assert!(
        etwsim::registry::security::stored_descriptor(m.registry(), g)
            .unwrap()
            .is_none()
    );
    assert!(
        m.kernel()
            .security_descriptors()
            .contains_key(&Guid::DEFAULT_TRACE_SECURITY)
    );
    let _ = std::fs::remove_dir_all(root);
}

// rule: SEC-11
#[test]
fn joining_a_provider_group_needs_join_group_when_the_group_has_a_descriptor() {
    use etwsim::{EnableProperty, Keyword, Level, ProviderTraits};
    let k = kernel();
    let group = guid(50);
    set_dacl(
        &k,
        group,
        Sid::builtin_administrators(),
        AccessMask::TRACELOG_JOIN_GROUP | AccessMask::TRACELOG_GUID_ENABLE,
        true,
    );
    let traits = ProviderTraits::new("Contoso.Grouped").with_group(group);
    let user = user_process(&k, "u.exe");
    let admin = admin_process(&k, "a.exe");
    let refused = user.register_tracelogging(guid(1), &traits).unwrap();
    let member = admin.register_tracelogging(guid(2), &traits).unwrap();
    let s = k.session("G").start().unwrap();
    s.enable(
        group,
        &EnableParams::new().property(EnableProperty::PROVIDER_GROUP),
    )
    .unwrap();
    assert!(member.is_enabled_for(Level::INFORMATION, Keyword(1)));
    assert!(
        !refused.is_enabled(),
        "membership denied: the group's enable does not reach it"
    );
}

// rule: SEC-06
#[test]
fn a_secure_session_takes_events_only_from_log_event_holders() {
    use etwsim::{EventDescriptor, Keyword, Level, LogFileMode};
    let k = kernel();
    let g = session_guid(6);
    let s = k
        .session("Secure")
        .guid(g)
        .mode(LogFileMode::SECURE | LogFileMode::REAL_TIME)
        .start()
        .unwrap();
    s.enable(guid(1), &EnableParams::new()).unwrap();
    let mut c = k
        .open_realtime(&k.system_process(), "Secure", ConsumerOptions::default())
        .unwrap();
    let user = user_process(&k, "u.exe")
        .register_provider(guid(1))
        .unwrap();
    let admin = admin_process(&k, "a.exe")
        .register_provider(guid(1))
        .unwrap();
    let ev = |id| EventDescriptor::new(id, Level::INFORMATION, Keyword(1));
    user.write(&ev(1), &[b"user"]).unwrap(); // refused for this session, not an error
    admin.write(&ev(2), &[b"admin"]).unwrap();
    // Granting TRACELOG_LOG_EVENT on the session GUID lets the user log.
    k.event_access_control(
        &k.system_process(),
        g,
        EventSecurityOperation::AddDacl,
        &Sid::everyone(),
        AccessMask::TRACELOG_LOG_EVENT,
        true,
    )
    .unwrap();
    user.write(&ev(3), &[b"user"]).unwrap();
    admin.write(&ev(4), &[b"admin"]).unwrap();
    s.flush().unwrap();
    let ids: Vec<u16> = c.drain().iter().map(|e| e.header.descriptor.id).collect();
    assert_eq!(ids, [2, 3, 4]);
}

// rule: SEC-07
#[test]
fn the_win32_face_queries_with_more_data_and_edits_with_binary_sids() {
    use etwsim::win32::Win32;
    let k = kernel();
    let admin = Win32::new(&admin_process(&k, "a.exe"));
    let g = guid(9);
    // Size 0 asks for the size only.
    let mut size = 0u32;
    assert_eq!(
        admin.event_access_query(Some(&g), None, Some(&mut size)),
        Win32Error::ERROR_MORE_DATA.code()
    );
    let default_len = etwsim::default_descriptor().to_bytes().unwrap().len();
    assert_eq!(size as usize, default_len);
    let mut buf = vec![0u8; size as usize];
    assert_eq!(
        admin.event_access_query(Some(&g), Some(&mut buf), Some(&mut size)),
        0
    );
    assert_eq!(
        SecurityDescriptor::from_bytes(&buf).unwrap(),
        etwsim::default_descriptor()
    );
    // EventSecuritySetDACL (0) with a binary SID; a bad operation or SID is refused.
    let everyone = Sid::everyone().to_bytes();
    let query = AccessMask::WMIGUID_QUERY.bits();
    assert_eq!(
        admin.event_access_control(Some(&g), 0, Some(&everyone), query, true),
        0
    );
    let bad = Win32Error::ERROR_INVALID_PARAMETER.code();
    assert_eq!(
        admin.event_access_control(Some(&g), 4, Some(&everyone), query, true),
        bad
    );
    assert_eq!(
        admin.event_access_control(Some(&g), 0, Some(&[1, 2]), query, true),
        bad
    );
    assert_eq!(
        admin.event_access_control(None, 0, Some(&everyone), query, true),
        bad
    );
    let user = Win32::new(&user_process(&k, "u.exe"));
    assert_eq!(
        user.event_access_remove(Some(&g)),
        Win32Error::ERROR_ACCESS_DENIED.code()
    );
    assert_eq!(admin.event_access_remove(Some(&g)), 0);
    assert_eq!(k.event_access_query(g), etwsim::default_descriptor());
}
