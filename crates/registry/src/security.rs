//! Self-relative security descriptors on ETW GUIDs, their access rights, and the access check
//! (SEC-01, SEC-02, SEC-08).
//!
//! ETW guards each session and provider GUID with a security descriptor: the rights of SEC-01
//! ([`AccessMask::TRACELOG_CREATE_REALTIME`], …), checked for the operations of SEC-02
//! ([`TraceOperation`]). Descriptors are stored as `REG_BINARY` values named by the GUID under
//! [`WMI_SECURITY_PATH`], and the one of `DefaultTraceSecurityGuid` applies to GUIDs without
//! their own (SEC-08): [`stored_descriptor`], [`effective_descriptor`], [`store_descriptor`].
//!
//! The binary layouts are winnt.h's, all little-endian except a SID's identifier authority:
//!
//! | structure | layout |
//! |---|---|
//! | `SECURITY_DESCRIPTOR_RELATIVE` | Revision u8 (1), Sbz1 u8, Control u16 (SE_SELF_RELATIVE set), then the offsets of Owner, Group, Sacl and Dacl (u32 each, 0 = none) — 20 bytes |
//! | `ACL` | AclRevision u8 (2, or 4 with object ACEs), Sbz1 u8, AclSize u16, AceCount u16, Sbz2 u16, then the ACEs |
//! | `ACE_HEADER` | AceType u8, AceFlags u8, AceSize u16; ACCESS_ALLOWED / ACCESS_DENIED / SYSTEM_AUDIT / SYSTEM_ALARM / SYSTEM_MANDATORY_LABEL ACEs continue with Mask u32 and a SID |
//! | `SID` | Revision u8 (1), SubAuthorityCount u8 (≤ 15), IdentifierAuthority 6 bytes big-endian, SubAuthority u32 × count |
//!
//! [`access_check`] follows Microsoft's "How DACLs control access to an object": no DACL (or a
//! NULL DACL) grants everything; an empty DACL grants nothing; otherwise the ACEs are read in
//! order, skipping inherit-only ACEs and ACEs whose SID is not in the token, an access-denied
//! ACE that denies any still-wanted right ends the check with a denial, access-allowed ACEs
//! accumulate rights, and the check succeeds as soon as every wanted right is granted. The
//! owner is implicitly granted READ_CONTROL and WRITE_DAC unless the DACL has an OWNER RIGHTS
//! (`S-1-3-4`) ACE, which then says what the owner gets. MAXIMUM_ALLOWED asks for every right the DACL grants. Not modelled:
//! generic-right mapping (GENERIC_* bits are compared as they are; ETW's mapping for GUID
//! objects is not documented), privileges, restricted tokens, integrity labels and object
//! ACEs (ACEs of other types are kept but do not take part in the check). A zero desired mask
//! is denied (simulator choice).

use bitflags::bitflags;
use etwsim_types::{Guid, SidError};

use crate::error::Error;
use crate::key::Registry;
use crate::value::{Value, ValueType};

/// `REGSTR_PATH_WMI_SECURITY`: where ETW keeps GUID security descriptors (SEC-08).
pub const WMI_SECURITY_PATH: &str =
    r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Security";

bitflags! {
    /// An `ACCESS_MASK`: the ETW GUID rights of wmistr.h (SEC-01) and the standard and generic
    /// rights of winnt.h. Unknown bits are kept.
    #[doc(alias = "ACCESS_MASK")]
    #[doc(alias = "WMIGUID_QUERY")]
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    pub struct AccessMask: u32 {
        /// `WMIGUID_QUERY` 0x0001: query a session.
        const WMIGUID_QUERY = 0x0001;
        /// `WMIGUID_SET` 0x0002.
        const WMIGUID_SET = 0x0002;
        /// `WMIGUID_NOTIFICATION` 0x0004.
        const WMIGUID_NOTIFICATION = 0x0004;
        /// `WMIGUID_READ_DESCRIPTION` 0x0008.
        const WMIGUID_READ_DESCRIPTION = 0x0008;
        /// `WMIGUID_EXECUTE` 0x0010.
        const WMIGUID_EXECUTE = 0x0010;
        /// `TRACELOG_CREATE_REALTIME` 0x0020: start or update a real-time session.
        const TRACELOG_CREATE_REALTIME = 0x0020;
        /// `TRACELOG_CREATE_ONDISK` 0x0040: start or update a session writing a file.
        const TRACELOG_CREATE_ONDISK = 0x0040;
        /// `TRACELOG_GUID_ENABLE` 0x0080 (on a provider GUID): enable that provider.
        const TRACELOG_GUID_ENABLE = 0x0080;
        /// `TRACELOG_ACCESS_KERNEL_LOGGER` 0x0100: not used.
        const TRACELOG_ACCESS_KERNEL_LOGGER = 0x0100;
        /// `TRACELOG_LOG_EVENT` 0x0200: log into a SECURE_MODE session (Vista+; the same bit was
        /// `TRACELOG_CREATE_INPROC` before).
        const TRACELOG_LOG_EVENT = 0x0200;
        /// `TRACELOG_ACCESS_REALTIME` 0x0400: consume a session in real time.
        const TRACELOG_ACCESS_REALTIME = 0x0400;
        /// `TRACELOG_REGISTER_GUIDS` 0x0800 (on a provider GUID): register that provider.
        const TRACELOG_REGISTER_GUIDS = 0x0800;
        /// `TRACELOG_JOIN_GROUP` 0x1000: join a provider group (SEC-11).
        const TRACELOG_JOIN_GROUP = 0x1000;
        /// `DELETE` 0x0001_0000.
        const DELETE = 0x0001_0000;
        /// `READ_CONTROL` 0x0002_0000 (= `STANDARD_RIGHTS_READ`).
        const READ_CONTROL = 0x0002_0000;
        /// `WRITE_DAC` 0x0004_0000.
        const WRITE_DAC = 0x0004_0000;
        /// `WRITE_OWNER` 0x0008_0000.
        const WRITE_OWNER = 0x0008_0000;
        /// `SYNCHRONIZE` 0x0010_0000.
        const SYNCHRONIZE = 0x0010_0000;
        /// `ACCESS_SYSTEM_SECURITY` 0x0100_0000.
        const ACCESS_SYSTEM_SECURITY = 0x0100_0000;
        /// `MAXIMUM_ALLOWED` 0x0200_0000: as a desired mask, every right the DACL grants.
        const MAXIMUM_ALLOWED = 0x0200_0000;
        /// `GENERIC_ALL` 0x1000_0000.
        const GENERIC_ALL = 0x1000_0000;
        /// `GENERIC_EXECUTE` 0x2000_0000.
        const GENERIC_EXECUTE = 0x2000_0000;
        /// `GENERIC_WRITE` 0x4000_0000.
        const GENERIC_WRITE = 0x4000_0000;
        /// `GENERIC_READ` 0x8000_0000.
        const GENERIC_READ = 0x8000_0000;
        // Keep bits no constant names.
        const _ = !0;
    }
}

impl AccessMask {
    /// `STANDARD_RIGHTS_READ` = READ_CONTROL.
    pub const STANDARD_RIGHTS_READ: AccessMask = AccessMask::READ_CONTROL;
    /// `WMIGUID_ALL_ACCESS` (RS1+): STANDARD_RIGHTS_READ | SYNCHRONIZE | every WMIGUID_* and
    /// TRACELOG_* right = 0x0012_1FFF (SEC-01).
    pub const WMIGUID_ALL_ACCESS: AccessMask = AccessMask::from_bits_retain(0x0012_1FFF);
    /// Every standard and specific right (`STANDARD_RIGHTS_ALL | SPECIFIC_RIGHTS_ALL`): what a
    /// missing or NULL DACL grants to MAXIMUM_ALLOWED.
    pub const ALL_RIGHTS: AccessMask = AccessMask::from_bits_retain(0x001F_FFFF);
}

/// An ETW operation and the right it needs (SEC-02).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum TraceOperation {
    /// Query a session (`ControlTrace` QUERY): WMIGUID_QUERY on the session GUID.
    QuerySession,
    /// Start or update a real-time session: TRACELOG_CREATE_REALTIME on the session GUID.
    StartRealTime,
    /// Start or update a session that writes a file: TRACELOG_CREATE_ONDISK on the session
    /// GUID.
    StartOnDisk,
    /// Enable a provider: TRACELOG_GUID_ENABLE on the provider GUID.
    EnableProvider,
    /// Log into a SECURE_MODE session: TRACELOG_LOG_EVENT on the session GUID.
    LogToSecureSession,
    /// Consume a session in real time: TRACELOG_ACCESS_REALTIME on the session GUID.
    ConsumeRealTime,
    /// Register a provider: TRACELOG_REGISTER_GUIDS on the provider GUID.
    RegisterProvider,
}

impl TraceOperation {
    /// The right this operation needs.
    pub fn required_access(self) -> AccessMask {
        match self {
            TraceOperation::QuerySession => AccessMask::WMIGUID_QUERY,
            TraceOperation::StartRealTime => AccessMask::TRACELOG_CREATE_REALTIME,
            TraceOperation::StartOnDisk => AccessMask::TRACELOG_CREATE_ONDISK,
            TraceOperation::EnableProvider => AccessMask::TRACELOG_GUID_ENABLE,
            TraceOperation::LogToSecureSession => AccessMask::TRACELOG_LOG_EVENT,
            TraceOperation::ConsumeRealTime => AccessMask::TRACELOG_ACCESS_REALTIME,
            TraceOperation::RegisterProvider => AccessMask::TRACELOG_REGISTER_GUIDS,
        }
    }

    /// `true` when the right is checked on the provider's GUID, `false` for the session's.
    pub fn on_provider_guid(self) -> bool {
        matches!(
            self,
            TraceOperation::EnableProvider | TraceOperation::RegisterProvider
        )
    }
}

fn bad(what: &'static str, offset: usize, problem: impl Into<String>) -> Error {
    Error::BadSecurityDescriptor {
        what,
        offset,
        problem: problem.into(),
    }
}

/// `len` bytes of `bytes` at `at`, or an error naming `what` at `base + at`.
fn take<'a>(
    bytes: &'a [u8],
    at: usize,
    len: usize,
    what: &'static str,
    base: usize,
) -> Result<&'a [u8], Error> {
    at.checked_add(len)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| {
            bad(
                what,
                base + at,
                format!(
                    "needs {len} bytes, only {} left",
                    bytes.len().saturating_sub(at)
                ),
            )
        })
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The security identifier: one type for the whole workspace, defined in `etwsim-types`.
pub use etwsim_types::Sid;

/// Reads the SID at the start of `bytes`, which sit at `base` in the whole input; errors
/// name the SID's offset there.
fn read_sid(bytes: &[u8], base: usize) -> Result<(Sid, usize), Error> {
    Sid::read(bytes).map_err(|e| match e {
        SidError::Binary { offset, problem } => bad("SID", base + offset, problem),
        other => bad("SID", base, other.to_string()),
    })
}

impl From<SidError> for Error {
    fn from(e: SidError) -> Error {
        match e {
            SidError::Text { input, problem } => Error::BadSidString { input, problem },
            SidError::Parts {
                authority,
                count,
                problem,
            } => Error::BadSidString {
                input: format!("authority {authority}, {count} sub-authorities"),
                problem,
            },
            SidError::Binary { offset, problem } => bad("SID", offset, problem),
            other => bad("SID", 0, other.to_string()),
        }
    }
}

/// An ACE type (`ACE_HEADER.AceType`): an open number.
#[doc(alias = "ACCESS_ALLOWED_ACE_TYPE")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct AceType(pub u8);

impl AceType {
    /// `ACCESS_ALLOWED_ACE_TYPE` 0.
    pub const ACCESS_ALLOWED: AceType = AceType(0);
    /// `ACCESS_DENIED_ACE_TYPE` 1.
    pub const ACCESS_DENIED: AceType = AceType(1);
    /// `SYSTEM_AUDIT_ACE_TYPE` 2.
    pub const SYSTEM_AUDIT: AceType = AceType(2);
    /// `SYSTEM_ALARM_ACE_TYPE` 3.
    pub const SYSTEM_ALARM: AceType = AceType(3);
    /// `SYSTEM_MANDATORY_LABEL_ACE_TYPE` 0x11.
    pub const SYSTEM_MANDATORY_LABEL: AceType = AceType(0x11);

    /// `true` for the types laid out as header, Mask and SID.
    fn has_mask_and_sid(self) -> bool {
        matches!(self.0, 0..=3 | 0x11)
    }
}

bitflags! {
    /// `ACE_HEADER.AceFlags`: inheritance and audit flags.
    #[doc(alias = "INHERIT_ONLY_ACE")]
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    pub struct AceFlags: u8 {
        /// `OBJECT_INHERIT_ACE` 0x01.
        const OBJECT_INHERIT = 0x01;
        /// `CONTAINER_INHERIT_ACE` 0x02.
        const CONTAINER_INHERIT = 0x02;
        /// `NO_PROPAGATE_INHERIT_ACE` 0x04.
        const NO_PROPAGATE_INHERIT = 0x04;
        /// `INHERIT_ONLY_ACE` 0x08: the ACE does not apply to this object.
        const INHERIT_ONLY = 0x08;
        /// `INHERITED_ACE` 0x10.
        const INHERITED = 0x10;
        /// `SUCCESSFUL_ACCESS_ACE_FLAG` 0x40.
        const SUCCESSFUL_ACCESS = 0x40;
        /// `FAILED_ACCESS_ACE_FLAG` 0x80.
        const FAILED_ACCESS = 0x80;
        // Keep bits no constant names.
        const _ = !0;
    }
}

/// An access-control entry.
#[doc(alias = "ACE")]
#[doc(alias = "ACCESS_ALLOWED_ACE")]
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ace {
    /// Its type.
    pub ace_type: AceType,
    /// Its flags.
    pub flags: AceFlags,
    /// What follows the header.
    pub body: AceBody,
}

/// What follows an ACE's header.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AceBody {
    /// Access mask and SID (allowed, denied, audit, alarm, mandatory label).
    MaskAndSid {
        /// The rights.
        mask: AccessMask,
        /// Whom they concern.
        sid: Sid,
    },
    /// Any other type's bytes, kept as they are.
    Raw(Vec<u8>),
}

impl Ace {
    /// An `ACCESS_ALLOWED_ACE`.
    pub fn allow(sid: Sid, mask: AccessMask) -> Ace {
        Ace {
            ace_type: AceType::ACCESS_ALLOWED,
            flags: AceFlags::empty(),
            body: AceBody::MaskAndSid { mask, sid },
        }
    }

    /// An `ACCESS_DENIED_ACE`.
    pub fn deny(sid: Sid, mask: AccessMask) -> Ace {
        Ace {
            ace_type: AceType::ACCESS_DENIED,
            flags: AceFlags::empty(),
            body: AceBody::MaskAndSid { mask, sid },
        }
    }

    /// This ACE with these flags.
    pub fn with_flags(self, flags: AceFlags) -> Ace {
        Ace { flags, ..self }
    }

    /// The mask and SID of a mask-and-SID ACE.
    pub fn mask_and_sid(&self) -> Option<(AccessMask, &Sid)> {
        match &self.body {
            AceBody::MaskAndSid { mask, sid } => Some((*mask, sid)),
            AceBody::Raw(_) => None,
        }
    }

    fn binary_len(&self) -> usize {
        4 + match &self.body {
            AceBody::MaskAndSid { sid, .. } => 4 + sid.binary_len(),
            AceBody::Raw(b) => b.len(),
        }
    }

    fn read(bytes: &[u8], base: usize) -> Result<(Ace, usize), Error> {
        let head = take(bytes, 0, 4, "ACE", base)?;
        let ace_type = AceType(head[0]);
        let flags = AceFlags::from_bits_retain(head[1]);
        let size = usize::from(u16_at(head, 2));
        if size < 4 {
            return Err(bad("ACE", base, format!("AceSize {size} (at least 4)")));
        }
        let all = take(bytes, 0, size, "ACE", base)?;
        let content = &all[4..];
        let body = if ace_type.has_mask_and_sid() {
            let mask = take(content, 0, 4, "ACE", base + 4)?;
            let mask = AccessMask::from_bits_retain(u32_at(mask, 0));
            let (sid, _) = read_sid(&content[4..], base + 8)?;
            AceBody::MaskAndSid { mask, sid }
        } else {
            AceBody::Raw(content.to_vec())
        };
        Ok((
            Ace {
                ace_type,
                flags,
                body,
            },
            size,
        ))
    }

    fn write(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        let size = u16::try_from(self.binary_len())
            .map_err(|_| bad("ACE", out.len(), "larger than 65,535 bytes"))?;
        out.push(self.ace_type.0);
        out.push(self.flags.bits());
        out.extend_from_slice(&size.to_le_bytes());
        match &self.body {
            AceBody::MaskAndSid { mask, sid } => {
                out.extend_from_slice(&mask.bits().to_le_bytes());
                sid.write_to(out);
            }
            AceBody::Raw(b) => out.extend_from_slice(b),
        }
        Ok(())
    }
}

/// An access-control list.
#[doc(alias = "ACL")]
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Acl {
    /// `AclRevision`: 2 (`ACL_REVISION`) or 4 (`ACL_REVISION_DS`, with object ACEs).
    pub revision: u8,
    /// The ACEs, in evaluation order.
    pub aces: Vec<Ace>,
}

impl Acl {
    /// `ACL_REVISION`.
    pub const REVISION: u8 = 2;
    /// `ACL_REVISION_DS`.
    pub const REVISION_DS: u8 = 4;

    /// An `ACL_REVISION` list of these ACEs.
    pub fn new(aces: Vec<Ace>) -> Acl {
        Acl {
            revision: Acl::REVISION,
            aces,
        }
    }

    fn binary_len(&self) -> usize {
        8 + self.aces.iter().map(Ace::binary_len).sum::<usize>()
    }

    fn read(bytes: &[u8], base: usize) -> Result<Acl, Error> {
        let head = take(bytes, 0, 8, "ACL", base)?;
        let revision = head[0];
        if !(2..=4).contains(&revision) {
            return Err(bad(
                "ACL",
                base,
                format!("AclRevision {revision} (expected 2 to 4)"),
            ));
        }
        let size = usize::from(u16_at(head, 2));
        let count = usize::from(u16_at(head, 4));
        if size < 8 {
            return Err(bad("ACL", base, format!("AclSize {size} (at least 8)")));
        }
        let body = take(bytes, 0, size, "ACL", base)?;
        let mut aces = Vec::new();
        let mut at = 8;
        for _ in 0..count {
            let (ace, len) = Ace::read(&body[at..], base + at)?;
            aces.push(ace);
            at += len;
        }
        Ok(Acl { revision, aces })
    }

    fn write(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        let at = out.len();
        let size = u16::try_from(self.binary_len())
            .map_err(|_| bad("ACL", at, "larger than 65,535 bytes"))?;
        let count =
            u16::try_from(self.aces.len()).map_err(|_| bad("ACL", at, "more than 65,535 ACEs"))?;
        out.extend_from_slice(&[self.revision, 0]);
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        for ace in &self.aces {
            ace.write(out)?;
        }
        Ok(())
    }
}

bitflags! {
    /// `SECURITY_DESCRIPTOR_CONTROL`.
    #[doc(alias = "SECURITY_DESCRIPTOR_CONTROL")]
    #[doc(alias = "SE_DACL_PRESENT")]
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    pub struct Control: u16 {
        /// `SE_OWNER_DEFAULTED`.
        const OWNER_DEFAULTED = 0x0001;
        /// `SE_GROUP_DEFAULTED`.
        const GROUP_DEFAULTED = 0x0002;
        /// `SE_DACL_PRESENT`: a DACL is present (a zero offset then means a NULL DACL).
        const DACL_PRESENT = 0x0004;
        /// `SE_DACL_DEFAULTED`.
        const DACL_DEFAULTED = 0x0008;
        /// `SE_SACL_PRESENT`.
        const SACL_PRESENT = 0x0010;
        /// `SE_SACL_DEFAULTED`.
        const SACL_DEFAULTED = 0x0020;
        /// `SE_DACL_AUTO_INHERIT_REQ`.
        const DACL_AUTO_INHERIT_REQ = 0x0100;
        /// `SE_SACL_AUTO_INHERIT_REQ`.
        const SACL_AUTO_INHERIT_REQ = 0x0200;
        /// `SE_DACL_AUTO_INHERITED`.
        const DACL_AUTO_INHERITED = 0x0400;
        /// `SE_SACL_AUTO_INHERITED`.
        const SACL_AUTO_INHERITED = 0x0800;
        /// `SE_DACL_PROTECTED`.
        const DACL_PROTECTED = 0x1000;
        /// `SE_SACL_PROTECTED`.
        const SACL_PROTECTED = 0x2000;
        /// `SE_RM_CONTROL_VALID`.
        const RM_CONTROL_VALID = 0x4000;
        /// `SE_SELF_RELATIVE`: offsets, not pointers.
        const SELF_RELATIVE = 0x8000;
        // Keep bits no constant names.
        const _ = !0;
    }
}

/// A self-relative security descriptor (`SECURITY_DESCRIPTOR_RELATIVE` and what its offsets
/// point at).
///
/// `dacl` is `None` both when the DACL is absent and for a NULL DACL (`DACL_PRESENT` with a
/// zero offset); both grant every access. [`SecurityDescriptor::to_bytes`] sets
/// `SELF_RELATIVE`, and `DACL_PRESENT` / `SACL_PRESENT` when the list is there.
#[doc(alias = "SECURITY_DESCRIPTOR")]
#[doc(alias = "SECURITY_DESCRIPTOR_RELATIVE")]
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SecurityDescriptor {
    /// `Control`.
    pub control: Control,
    /// The owner.
    pub owner: Option<Sid>,
    /// The primary group.
    pub group: Option<Sid>,
    /// The system ACL (audit).
    pub sacl: Option<Acl>,
    /// The discretionary ACL (who may do what).
    pub dacl: Option<Acl>,
}

impl SecurityDescriptor {
    /// `SECURITY_DESCRIPTOR_REVISION`.
    pub const REVISION: u8 = 1;
    /// The size of the fixed header.
    pub const HEADER_LEN: usize = 20;

    /// A descriptor with this owner, group and DACL (no SACL), flags set to match.
    pub fn new(owner: Option<Sid>, group: Option<Sid>, dacl: Option<Acl>) -> SecurityDescriptor {
        let mut control = Control::SELF_RELATIVE;
        control.set(Control::DACL_PRESENT, dacl.is_some());
        SecurityDescriptor {
            control,
            owner,
            group,
            sacl: None,
            dacl,
        }
    }

    /// Decodes a self-relative descriptor.
    ///
    /// # Errors
    /// [`Error::BadSecurityDescriptor`] naming the structure and offset: a short buffer, a
    /// revision other than 1, a descriptor without SE_SELF_RELATIVE, an offset or size past the
    /// end, a bad SID or ACL.
    pub fn from_bytes(bytes: &[u8]) -> Result<SecurityDescriptor, Error> {
        const WHAT: &str = "SECURITY_DESCRIPTOR_RELATIVE";
        let head = take(bytes, 0, SecurityDescriptor::HEADER_LEN, WHAT, 0)?;
        if head[0] != SecurityDescriptor::REVISION {
            return Err(bad(WHAT, 0, format!("Revision {} (expected 1)", head[0])));
        }
        let control = Control::from_bits_retain(u16_at(head, 2));
        if !control.contains(Control::SELF_RELATIVE) {
            return Err(bad(
                WHAT,
                0,
                "SE_SELF_RELATIVE is not set (an absolute descriptor holds pointers)",
            ));
        }
        let offset = |field: usize| -> Result<Option<usize>, Error> {
            let off = usize::try_from(u32_at(head, field)).unwrap_or(usize::MAX);
            if off == 0 {
                Ok(None)
            } else if off >= bytes.len() {
                Err(bad(
                    WHAT,
                    field,
                    format!("offset {off:#x} is past the end ({:#x} bytes)", bytes.len()),
                ))
            } else {
                Ok(Some(off))
            }
        };
        let sid_at = |field| -> Result<Option<Sid>, Error> {
            offset(field)?
                .map(|o| read_sid(&bytes[o..], o).map(|(s, _)| s))
                .transpose()
        };
        let owner = sid_at(4)?;
        let group = sid_at(8)?;
        let acl_at = |field, present: bool| -> Result<Option<Acl>, Error> {
            if !present {
                return Ok(None);
            }
            offset(field)?
                .map(|o| Acl::read(&bytes[o..], o))
                .transpose()
        };
        let sacl = acl_at(12, control.contains(Control::SACL_PRESENT))?;
        let dacl = acl_at(16, control.contains(Control::DACL_PRESENT))?;
        Ok(SecurityDescriptor {
            control,
            owner,
            group,
            sacl,
            dacl,
        })
    }

    /// The self-relative bytes: the header, then SACL, DACL, owner and group.
    ///
    /// # Errors
    /// [`Error::BadSecurityDescriptor`] when an ACL or ACE would pass 65,535 bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        let mut control = self.control | Control::SELF_RELATIVE;
        if self.dacl.is_some() {
            control |= Control::DACL_PRESENT;
        }
        if self.sacl.is_some() {
            control |= Control::SACL_PRESENT;
        }
        let mut out = vec![0u8; SecurityDescriptor::HEADER_LEN];
        out[0] = SecurityDescriptor::REVISION;
        out[2..4].copy_from_slice(&control.bits().to_le_bytes());
        let place = |out: &mut Vec<u8>, field: usize| -> Result<(), Error> {
            let at = u32::try_from(out.len())
                .map_err(|_| bad("SECURITY_DESCRIPTOR_RELATIVE", field, "larger than 4 GB"))?;
            out[field..field + 4].copy_from_slice(&at.to_le_bytes());
            Ok(())
        };
        if let Some(acl) = &self.sacl {
            place(&mut out, 12)?;
            acl.write(&mut out)?;
        }
        if let Some(acl) = &self.dacl {
            place(&mut out, 16)?;
            acl.write(&mut out)?;
        }
        if let Some(sid) = &self.owner {
            place(&mut out, 4)?;
            sid.write_to(&mut out);
        }
        if let Some(sid) = &self.group {
            place(&mut out, 8)?;
            sid.write_to(&mut out);
        }
        Ok(out)
    }
}

/// The SIDs of an access token, as the access check sees them.
#[doc(alias = "TOKEN_GROUPS")]
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TokenSids {
    /// The user.
    pub user: Sid,
    /// Enabled groups (matched by allow and deny ACEs).
    pub groups: Vec<Sid>,
    /// Deny-only groups (`SE_GROUP_USE_FOR_DENY_ONLY`: matched by deny ACEs only), e.g.
    /// Administrators in a token that is not elevated.
    pub deny_only: Vec<Sid>,
}

impl TokenSids {
    /// A token of this user and these enabled groups.
    pub fn new(user: Sid, groups: Vec<Sid>) -> TokenSids {
        TokenSids {
            user,
            groups,
            deny_only: Vec::new(),
        }
    }

    fn matches_allow(&self, sid: &Sid) -> bool {
        self.user == *sid || self.groups.contains(sid)
    }

    fn matches_deny(&self, sid: &Sid) -> bool {
        self.matches_allow(sid) || self.deny_only.contains(sid)
    }
}

/// Why [`access_check`] decided as it did.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum AccessReason {
    /// No DACL, or a NULL DACL: every access is granted.
    NoDacl,
    /// The ACEs (and the owner's implicit rights) granted every wanted right.
    Granted,
    /// The access-denied ACE at this index denied a wanted right.
    DeniedByAce(usize),
    /// The end of the DACL was reached without every wanted right granted (an empty DACL
    /// included).
    NotGranted {
        /// The wanted rights no ACE granted.
        missing: AccessMask,
    },
    /// The desired mask was zero.
    NothingRequested,
}

/// The outcome of [`access_check`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AccessDecision {
    /// `true` when the access is granted.
    pub allowed: bool,
    /// The rights granted (for MAXIMUM_ALLOWED, every right the DACL grants).
    pub granted: AccessMask,
    /// Why.
    pub reason: AccessReason,
}

/// `AccessCheck`: may a token with these SIDs have `desired` on an object with this
/// descriptor? The DACL evaluation order of "How DACLs control access to an object"; see the
/// module docs for what is not modelled.
#[doc(alias = "AccessCheck")]
pub fn access_check(
    sd: &SecurityDescriptor,
    token: &TokenSids,
    desired: AccessMask,
) -> AccessDecision {
    let maximum = desired.contains(AccessMask::MAXIMUM_ALLOWED);
    let wanted = desired - AccessMask::MAXIMUM_ALLOWED;
    if desired.is_empty() {
        return AccessDecision {
            allowed: false,
            granted: AccessMask::empty(),
            reason: AccessReason::NothingRequested,
        };
    }
    let Some(dacl) = &sd.dacl else {
        let granted = if maximum {
            AccessMask::ALL_RIGHTS | wanted
        } else {
            wanted
        };
        return AccessDecision {
            allowed: true,
            granted,
            reason: AccessReason::NoDacl,
        };
    };
    let mut granted = AccessMask::empty();
    let mut denied = AccessMask::empty();
    // The owner's implicit rights, unless OWNER RIGHTS says otherwise.
    let owner_rights = Sid::owner_rights();
    let has_owner_rights_ace = dacl
        .aces
        .iter()
        .any(|a| a.mask_and_sid().is_some_and(|(_, s)| *s == owner_rights));
    let is_owner = sd.owner.as_ref().is_some_and(|o| token.matches_allow(o));
    if !has_owner_rights_ace && is_owner {
        granted |= AccessMask::READ_CONTROL | AccessMask::WRITE_DAC;
    }
    // An OWNER RIGHTS ACE concerns whoever owns the object.
    let allows = |sid: &Sid| token.matches_allow(sid) || (*sid == owner_rights && is_owner);
    let denies = |sid: &Sid| token.matches_deny(sid) || (*sid == owner_rights && is_owner);
    let done = |granted: AccessMask| !maximum && granted.contains(wanted);
    if done(granted) {
        return AccessDecision {
            allowed: true,
            granted: wanted,
            reason: AccessReason::Granted,
        };
    }
    for (index, ace) in dacl.aces.iter().enumerate() {
        if ace.flags.contains(AceFlags::INHERIT_ONLY) {
            continue;
        }
        let Some((mask, sid)) = ace.mask_and_sid() else {
            continue;
        };
        match ace.ace_type {
            AceType::ACCESS_DENIED if denies(sid) => {
                let newly = mask - granted;
                if maximum {
                    denied |= newly;
                } else if newly.intersects(wanted) {
                    return AccessDecision {
                        allowed: false,
                        granted: AccessMask::empty(),
                        reason: AccessReason::DeniedByAce(index),
                    };
                }
            }
            AceType::ACCESS_ALLOWED if allows(sid) => {
                granted |= mask - denied;
                if done(granted) {
                    return AccessDecision {
                        allowed: true,
                        granted: wanted,
                        reason: AccessReason::Granted,
                    };
                }
            }
            _ => {}
        }
    }
    if maximum {
        let allowed = !granted.is_empty() && granted.contains(wanted);
        let reason = if allowed {
            AccessReason::Granted
        } else {
            AccessReason::NotGranted {
                missing: if granted.is_empty() {
                    desired
                } else {
                    wanted - granted
                },
            }
        };
        return AccessDecision {
            allowed,
            granted: if allowed {
                granted
            } else {
                AccessMask::empty()
            },
            reason,
        };
    }
    AccessDecision {
        allowed: false,
        granted: AccessMask::empty(),
        reason: AccessReason::NotGranted {
            missing: wanted - granted,
        },
    }
}

/// The name of the value holding `guid`'s descriptor: the GUID without braces, lower case.
fn value_name(guid: Guid) -> String {
    let s = guid.to_string();
    s.trim_start_matches('{').trim_end_matches('}').to_owned()
}

/// The descriptor stored for `guid` under [`WMI_SECURITY_PATH`] (SEC-08), if any. The value is
/// found by the GUID with or without braces, in any case.
///
/// # Errors
/// [`Error::WrongType`] when the value is not REG_BINARY, or the
/// [`SecurityDescriptor::from_bytes`] error for its bytes.
pub fn stored_descriptor(reg: &Registry, guid: Guid) -> Result<Option<SecurityDescriptor>, Error> {
    let Some(key) = reg.key(WMI_SECURITY_PATH) else {
        return Ok(None);
    };
    let bare = value_name(guid);
    let (name, value) = match key.value(&bare) {
        Some(v) => (bare, v),
        None => match key.value(&guid.to_string()) {
            Some(v) => (guid.to_string(), v),
            None => return Ok(None),
        },
    };
    if value.ty() != ValueType::BINARY {
        return Err(Error::WrongType {
            value: name,
            found: value.ty(),
            expected: ValueType::BINARY,
        });
    }
    SecurityDescriptor::from_bytes(value.data()).map(Some)
}

/// The descriptor that applies to `guid`: its own, else `DefaultTraceSecurityGuid`'s (SEC-08),
/// with the GUID it was stored under; `None` when neither is stored (the kernel's default
/// policy, SEC-03, then applies).
///
/// # Errors
/// As [`stored_descriptor`].
pub fn effective_descriptor(
    reg: &Registry,
    guid: Guid,
) -> Result<Option<(Guid, SecurityDescriptor)>, Error> {
    if let Some(sd) = stored_descriptor(reg, guid)? {
        return Ok(Some((guid, sd)));
    }
    Ok(stored_descriptor(reg, Guid::DEFAULT_TRACE_SECURITY)?
        .map(|sd| (Guid::DEFAULT_TRACE_SECURITY, sd)))
}

/// Stores `sd` for `guid` as a REG_BINARY value named by the GUID without braces (SEC-08),
/// replacing a braced spelling if one was there.
///
/// # Errors
/// As [`SecurityDescriptor::to_bytes`].
pub fn store_descriptor(
    reg: &mut Registry,
    guid: Guid,
    sd: &SecurityDescriptor,
) -> Result<(), Error> {
    let bytes = sd.to_bytes()?;
    reg.delete_value(WMI_SECURITY_PATH, &guid.to_string());
    reg.set_value(WMI_SECURITY_PATH, &value_name(guid), Value::binary(bytes))
}

/// Removes `guid`'s stored descriptor (`EventAccessRemove`), so defaults apply again; `false`
/// if there was none.
pub fn remove_descriptor(reg: &mut Registry, guid: Guid) -> bool {
    let bare = reg.delete_value(WMI_SECURITY_PATH, &value_name(guid));
    let braced = reg.delete_value(WMI_SECURITY_PATH, &guid.to_string());
    bare || braced
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sid_binary_layout() {
        let sid = Sid::builtin_administrators();
        assert_eq!(
            sid.to_bytes(),
            [1, 2, 0, 0, 0, 0, 0, 5, 32, 0, 0, 0, 0x20, 0x02, 0, 0]
        );
        assert_eq!(Sid::read(&sid.to_bytes()), Ok((sid, 16)));
    }
}
