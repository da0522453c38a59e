//! Security descriptors on ETW GUIDs: the rights (SEC-01), which operation needs which
//! (SEC-02), their registry home (SEC-08), the binary layout and the access check.

use etwsim_registry::security::{
    WMI_SECURITY_PATH, effective_descriptor, remove_descriptor, store_descriptor, stored_descriptor,
};
use etwsim_registry::{
    AccessMask, AccessReason, Ace, AceBody, AceFlags, AceType, Acl, Control, Error, Registry,
    SecurityDescriptor, Sid, TokenSids, TraceOperation, Value, ValueType, access_check,
};
use etwsim_types::Guid;
use proptest::prelude::*;

#[test]
fn access_rights_have_the_wmistr_values() {
    // rule: SEC-01
    let expected = [
        (AccessMask::WMIGUID_QUERY, 0x0001),
        (AccessMask::WMIGUID_SET, 0x0002),
        (AccessMask::WMIGUID_NOTIFICATION, 0x0004),
        (AccessMask::WMIGUID_READ_DESCRIPTION, 0x0008),
        (AccessMask::WMIGUID_EXECUTE, 0x0010),
        (AccessMask::TRACELOG_CREATE_REALTIME, 0x0020),
        (AccessMask::TRACELOG_CREATE_ONDISK, 0x0040),
        (AccessMask::TRACELOG_GUID_ENABLE, 0x0080),
        (AccessMask::TRACELOG_ACCESS_KERNEL_LOGGER, 0x0100),
        (AccessMask::TRACELOG_LOG_EVENT, 0x0200),
        (AccessMask::TRACELOG_ACCESS_REALTIME, 0x0400),
        (AccessMask::TRACELOG_REGISTER_GUIDS, 0x0800),
        (AccessMask::TRACELOG_JOIN_GROUP, 0x1000),
    ];
    let mut all = AccessMask::STANDARD_RIGHTS_READ | AccessMask::SYNCHRONIZE;
    for (right, value) in expected {
        assert_eq!(right.bits(), value, "{right:?}");
        all |= right;
    }
    assert_eq!(AccessMask::WMIGUID_ALL_ACCESS, all);
    assert_eq!(AccessMask::WMIGUID_ALL_ACCESS.bits(), 0x0012_1FFF);
}

#[test]
fn each_operation_needs_its_documented_right_on_the_documented_guid() {
    // rule: SEC-02
    let table = [
        (
            TraceOperation::QuerySession,
            AccessMask::WMIGUID_QUERY,
            false,
        ),
        (
            TraceOperation::StartRealTime,
            AccessMask::TRACELOG_CREATE_REALTIME,
            false,
        ),
        (
            TraceOperation::StartOnDisk,
            AccessMask::TRACELOG_CREATE_ONDISK,
            false,
        ),
        (
            TraceOperation::EnableProvider,
            AccessMask::TRACELOG_GUID_ENABLE,
            true,
        ),
        (
            TraceOperation::LogToSecureSession,
            AccessMask::TRACELOG_LOG_EVENT,
            false,
        ),
        (
            TraceOperation::ConsumeRealTime,
            AccessMask::TRACELOG_ACCESS_REALTIME,
            false,
        ),
        (
            TraceOperation::RegisterProvider,
            AccessMask::TRACELOG_REGISTER_GUIDS,
            true,
        ),
    ];
    for (op, right, on_provider) in table {
        assert_eq!(op.required_access(), right, "{op:?}");
        assert_eq!(op.on_provider_guid(), on_provider, "{op:?}");
    }
}

fn user() -> Sid {
    "S-1-5-21-1-2-3-1001".parse().unwrap()
}

fn sd(dacl: Option<Vec<Ace>>) -> SecurityDescriptor {
    SecurityDescriptor::new(
        Some(Sid::builtin_administrators()),
        Some(Sid::local_system()),
        dacl.map(Acl::new),
    )
}

#[test]
fn descriptors_live_under_wmi_security_named_by_guid_with_a_default() {
    // rule: SEC-08
    assert_eq!(
        WMI_SECURITY_PATH,
        r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Security"
    );
    let session: Guid = "{6f3e2a10-0000-4000-8000-000000000001}".parse().unwrap();
    let mut reg = Registry::new();
    assert_eq!(effective_descriptor(&reg, session), Ok(None));
    let default = sd(Some(vec![Ace::allow(
        Sid::everyone(),
        AccessMask::WMIGUID_QUERY,
    )]));
    store_descriptor(&mut reg, Guid::DEFAULT_TRACE_SECURITY, &default).unwrap();
    // Stored as REG_BINARY named by the bare GUID.
    let raw = reg
        .value(WMI_SECURITY_PATH, "0811c1af-7a07-4a06-82ed-869455cdf713")
        .unwrap();
    assert_eq!(raw.ty(), ValueType::BINARY);
    assert_eq!(
        effective_descriptor(&reg, session),
        Ok(Some((Guid::DEFAULT_TRACE_SECURITY, default.clone())))
    );
    // A GUID's own descriptor wins; a braced, upper-case value name is found too.
    let own = sd(Some(vec![]));
    reg.set_value(
        WMI_SECURITY_PATH,
        "{6F3E2A10-0000-4000-8000-000000000001}",
        Value::binary(own.to_bytes().unwrap()),
    )
    .unwrap();
    assert_eq!(stored_descriptor(&reg, session), Ok(Some(own.clone())));
    assert_eq!(
        effective_descriptor(&reg, session),
        Ok(Some((session, own)))
    );
    assert!(remove_descriptor(&mut reg, session));
    assert_eq!(
        effective_descriptor(&reg, session).unwrap().unwrap().0,
        Guid::DEFAULT_TRACE_SECURITY
    );
    // A value of the wrong type, or bad bytes, is an error naming it.
    reg.set_value(
        WMI_SECURITY_PATH,
        "6f3e2a10-0000-4000-8000-000000000001",
        Value::dword(1),
    )
    .unwrap();
    assert_eq!(
        stored_descriptor(&reg, session).unwrap_err().to_string(),
        "6f3e2a10-0000-4000-8000-000000000001 is REG_DWORD, expected REG_BINARY"
    );
    reg.set_value(
        WMI_SECURITY_PATH,
        "6f3e2a10-0000-4000-8000-000000000001",
        Value::binary(vec![1, 0]),
    )
    .unwrap();
    assert!(matches!(
        stored_descriptor(&reg, session),
        Err(Error::BadSecurityDescriptor { .. })
    ));
}

#[test]
fn a_descriptor_has_the_self_relative_layout() {
    let d = sd(Some(vec![Ace::allow(
        Sid::local_system(),
        AccessMask::WMIGUID_ALL_ACCESS,
    )]));
    let b = d.to_bytes().unwrap();
    assert_eq!(b[0], 1);
    let control = u16::from_le_bytes([b[2], b[3]]);
    assert_eq!(control, 0x8004, "SE_SELF_RELATIVE | SE_DACL_PRESENT");
    let off = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
    // Header, then DACL (8 + ACE 4+4+12), then owner (16) and group (12).
    assert_eq!((off(12), off(16), off(4), off(8)), (0, 20, 48, 64));
    assert_eq!(&b[20..28], &[2, 0, 28, 0, 1, 0, 0, 0]);
    assert_eq!(&b[28..32], &[0, 0, 20, 0]);
    assert_eq!(&b[32..36], &0x0012_1FFFu32.to_le_bytes());
    assert_eq!(b.len(), 76);
    assert_eq!(SecurityDescriptor::from_bytes(&b), Ok(d));
}

#[test]
fn bad_bytes_are_errors_naming_the_structure() {
    let good = sd(Some(vec![Ace::deny(user(), AccessMask::WMIGUID_QUERY)]))
        .to_bytes()
        .unwrap();
    // Every truncation fails cleanly.
    for n in 0..good.len() {
        assert!(SecurityDescriptor::from_bytes(&good[..n]).is_err(), "{n}");
    }
    let mut b = good.clone();
    b[0] = 2;
    assert!(
        SecurityDescriptor::from_bytes(&b)
            .unwrap_err()
            .to_string()
            .starts_with("SECURITY_DESCRIPTOR_RELATIVE at offset 0x0: Revision 2")
    );
    let mut b = good.clone();
    b[3] = 0; // clear SE_SELF_RELATIVE
    assert!(SecurityDescriptor::from_bytes(&b).is_err());
    let mut b = good.clone();
    b[16..20].copy_from_slice(&1000u32.to_le_bytes());
    assert!(
        SecurityDescriptor::from_bytes(&b)
            .unwrap_err()
            .to_string()
            .contains("past the end")
    );
    let mut b = good.clone();
    b[20] = 9; // AclRevision
    assert_eq!(
        SecurityDescriptor::from_bytes(&b).unwrap_err().to_string(),
        "ACL at offset 0x14: AclRevision 9 (expected 2 to 4)"
    );
    let mut b = good;
    b[37] = 16; // the ACE's SID claims 16 sub-authorities
    assert!(
        SecurityDescriptor::from_bytes(&b)
            .unwrap_err()
            .to_string()
            .starts_with("SID at offset 0x24")
    );
    // Deterministic byte flips never panic.
    let base = sd(Some(vec![
        Ace::allow(user(), AccessMask::WMIGUID_QUERY),
        Ace {
            ace_type: AceType(5),
            flags: AceFlags::empty(),
            body: AceBody::Raw(vec![1, 2, 3, 4]),
        },
    ]))
    .to_bytes()
    .unwrap();
    for i in 0..base.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff] {
            let mut b = base.clone();
            b[i] = v;
            let _ = SecurityDescriptor::from_bytes(&b);
        }
    }
}

#[test]
fn sids_print_and_parse_in_string_form() {
    for s in [
        "S-1-5-18",
        "S-1-5-32-544",
        "S-1-1-0",
        "S-1-5",
        "S-1-0x123456789ABC-1",
    ] {
        let sid: Sid = s.parse().unwrap();
        assert_eq!(sid.to_string(), s);
        assert_eq!(Sid::read(&sid.to_bytes()).unwrap().0, sid);
    }
    assert_eq!("s-1-5-18".parse::<Sid>(), Ok(Sid::local_system()));
    assert_eq!("S-1-0x5-18".parse::<Sid>(), Ok(Sid::local_system()));
    for bad in [
        "",
        "S",
        "S-2-5-18",
        "S-1",
        "S-1--18",
        "S-1-5-x",
        "S-1-5-4294967296",
        "S-1-0x",
        "S-1-0x1234567890ABC",
        "X-1-5-18",
        "S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16",
    ] {
        assert!(bad.parse::<Sid>().is_err(), "{bad:?}");
    }
    assert_eq!(
        "S-1-5-x".parse::<Sid>().unwrap_err().to_string(),
        "not a SID: \"S-1-5-x\" (sub-authorities are decimal numbers)"
    );
    assert!(Sid::new(1 << 48, &[]).is_err());
}

fn token() -> TokenSids {
    TokenSids::new(user(), vec![Sid::everyone(), Sid::performance_log_users()])
}

#[test]
fn no_dacl_grants_everything_and_an_empty_dacl_nothing() {
    let q = AccessMask::WMIGUID_QUERY;
    let d = access_check(&sd(None), &token(), q);
    assert!(d.allowed);
    assert_eq!(d.reason, AccessReason::NoDacl);
    // A NULL DACL (DACL_PRESENT with offset 0) reads back as no DACL and grants.
    let mut null = sd(None);
    null.control |= Control::DACL_PRESENT;
    let back = SecurityDescriptor::from_bytes(&null.to_bytes().unwrap()).unwrap();
    assert!(back.control.contains(Control::DACL_PRESENT) && back.dacl.is_none());
    assert!(access_check(&back, &token(), q).allowed);
    let d = access_check(&sd(Some(vec![])), &token(), q);
    assert!(!d.allowed);
    assert_eq!(d.reason, AccessReason::NotGranted { missing: q });
    assert_eq!(
        access_check(&sd(None), &token(), AccessMask::empty()).reason,
        AccessReason::NothingRequested
    );
}

#[test]
fn aces_are_read_in_order_and_a_deny_first_wins() {
    let rt = AccessMask::TRACELOG_ACCESS_REALTIME;
    let q = AccessMask::WMIGUID_QUERY;
    let allow_plu = Ace::allow(Sid::performance_log_users(), rt | q);
    let deny_user = Ace::deny(user(), rt);
    // Deny before allow: denied by ACE 0.
    let d = access_check(
        &sd(Some(vec![deny_user.clone(), allow_plu.clone()])),
        &token(),
        rt,
    );
    assert_eq!((d.allowed, d.reason), (false, AccessReason::DeniedByAce(0)));
    // Allow before deny: granted at ACE 0, the deny is never read.
    let d = access_check(
        &sd(Some(vec![allow_plu.clone(), deny_user.clone()])),
        &token(),
        rt,
    );
    assert!(d.allowed);
    assert_eq!(d.granted, rt);
    // A deny of another right does not matter.
    let d = access_check(
        &sd(Some(vec![deny_user.clone(), allow_plu.clone()])),
        &token(),
        q,
    );
    assert!(d.allowed);
    // Rights accumulate over several allow ACEs.
    let split = vec![Ace::allow(user(), q), Ace::allow(Sid::everyone(), rt)];
    assert!(access_check(&sd(Some(split.clone())), &token(), q | rt).allowed);
    // ACEs for SIDs not in the token, and inherit-only ACEs, are skipped.
    let skipped = vec![
        Ace::deny(Sid::local_system(), rt),
        Ace::deny(user(), rt).with_flags(AceFlags::INHERIT_ONLY | AceFlags::OBJECT_INHERIT),
        allow_plu.clone(),
    ];
    assert!(access_check(&sd(Some(skipped)), &token(), rt).allowed);
    // Part granted, part not: denied with the missing rights.
    let d = access_check(
        &sd(Some(vec![Ace::allow(user(), q)])),
        &token(),
        q | AccessMask::TRACELOG_GUID_ENABLE,
    );
    assert_eq!(
        d.reason,
        AccessReason::NotGranted {
            missing: AccessMask::TRACELOG_GUID_ENABLE
        }
    );
    // Deny-only groups match deny ACEs but not allow ACEs.
    let mut limited = TokenSids::new(user(), vec![]);
    limited.deny_only = vec![Sid::builtin_administrators()];
    let admins_only = vec![Ace::allow(Sid::builtin_administrators(), rt)];
    assert!(!access_check(&sd(Some(admins_only)), &limited, rt).allowed);
    let deny_admins = vec![
        Ace::deny(Sid::builtin_administrators(), rt),
        Ace::allow(user(), rt),
    ];
    assert_eq!(
        access_check(&sd(Some(deny_admins)), &limited, rt).reason,
        AccessReason::DeniedByAce(0)
    );
}

#[test]
fn maximum_allowed_collects_every_granted_right_not_denied_first() {
    let max = AccessMask::MAXIMUM_ALLOWED;
    let aces = vec![
        Ace::deny(user(), AccessMask::TRACELOG_GUID_ENABLE),
        Ace::allow(Sid::everyone(), AccessMask::WMIGUID_ALL_ACCESS),
    ];
    let d = access_check(&sd(Some(aces)), &token(), max);
    assert!(d.allowed);
    assert_eq!(
        d.granted,
        AccessMask::WMIGUID_ALL_ACCESS - AccessMask::TRACELOG_GUID_ENABLE
    );
    assert!(!access_check(&sd(Some(vec![])), &token(), max).allowed);
}

#[test]
fn the_owner_may_read_and_change_the_dacl_unless_owner_rights_says_otherwise() {
    let rc = AccessMask::READ_CONTROL | AccessMask::WRITE_DAC;
    let owner = TokenSids::new(Sid::builtin_administrators(), vec![]);
    assert!(access_check(&sd(Some(vec![])), &owner, rc).allowed);
    let restricted = vec![Ace::allow(Sid::owner_rights(), AccessMask::READ_CONTROL)];
    assert!(!access_check(&sd(Some(restricted.clone())), &owner, rc).allowed);
    assert!(access_check(&sd(Some(restricted)), &owner, AccessMask::READ_CONTROL).allowed);
}

fn arb_sid() -> impl Strategy<Value = Sid> {
    (
        0u64..(1 << 48),
        proptest::collection::vec(any::<u32>(), 0..=15),
    )
        .prop_map(|(a, s)| Sid::new(a, &s).unwrap())
}

fn arb_ace() -> impl Strategy<Value = Ace> {
    prop_oneof![
        (0u8..4, any::<u8>(), any::<u32>(), arb_sid()).prop_map(|(t, f, m, sid)| Ace {
            ace_type: AceType(t),
            flags: AceFlags::from_bits_retain(f),
            body: AceBody::MaskAndSid {
                mask: AccessMask::from_bits_retain(m),
                sid,
            },
        }),
        (5u8..0x11, proptest::collection::vec(any::<u8>(), 0..24)).prop_map(|(t, b)| Ace {
            ace_type: AceType(t),
            flags: AceFlags::empty(),
            body: AceBody::Raw(b),
        }),
    ]
}

fn arb_acl() -> impl Strategy<Value = Acl> {
    (2u8..=4, proptest::collection::vec(arb_ace(), 0..6))
        .prop_map(|(revision, aces)| Acl { revision, aces })
}

proptest! {
    #[test]
    fn descriptors_parse_back_what_was_built(
        owner in proptest::option::of(arb_sid()),
        group in proptest::option::of(arb_sid()),
        sacl in proptest::option::of(arb_acl()),
        dacl in proptest::option::of(arb_acl()),
        extra in any::<u16>(),
    ) {
        let mut control = Control::from_bits_retain(extra) | Control::SELF_RELATIVE;
        control.set(Control::DACL_PRESENT, dacl.is_some());
        control.set(Control::SACL_PRESENT, sacl.is_some());
        let d = SecurityDescriptor { control, owner, group, sacl, dacl };
        let bytes = d.to_bytes().unwrap();
        prop_assert_eq!(SecurityDescriptor::from_bytes(&bytes), Ok(d));
    }
}
