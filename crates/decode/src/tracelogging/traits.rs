//! The provider traits blob both ways (PRV-34, DEC-04): what `EventSetInformation
//! (EventProviderSetTraits)` takes and what the `PROV_TRAITS` extended item carries.
//!
//! `u16 TotalSize` (including itself), the provider name as NUL-terminated UTF-8, then
//! traits, each `u16 Size` (including its 3-byte header), `u8 Type`, data. Types 1 (group)
//! and 2 (decode GUID) hold a GUID in Windows byte order. This is the one `ProviderTraits` of
//! the workspace: the kernel re-exports it for EventSetInformation and adds that call's
//! stricter checks.

use crate::error::{Error, Result};
use etwsim_types::Guid;

/// `EtwProviderTraitTypeGroup`: the provider-group GUID (PRV-34, PRV-36).
pub const TRAIT_TYPE_GROUP: u8 = 1;
/// `EtwProviderTraitTypeDecodeGuid`: the decode GUID (PRV-34).
pub const TRAIT_TYPE_DECODE_GUID: u8 = 2;

/// A provider's traits: its name and typed traits, in blob order.
#[doc(alias = "EventProviderSetTraits")]
#[doc(alias = "PROVIDER_METADATA")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderTraits {
    /// The provider name.
    pub name: String,
    /// Every trait as (type, data), in blob order; unknown types are kept as they are.
    pub traits: Vec<(u8, Vec<u8>)>,
}

impl ProviderTraits {
    /// Traits with just a name.
    pub fn new(name: impl Into<String>) -> ProviderTraits {
        ProviderTraits {
            name: name.into(),
            traits: Vec::new(),
        }
    }

    /// With a provider-group trait (type 1).
    pub fn with_group(mut self, group: Guid) -> ProviderTraits {
        self.traits
            .push((TRAIT_TYPE_GROUP, group.to_bytes_le().to_vec()));
        self
    }

    /// With a decode-GUID trait (type 2).
    pub fn with_decode_guid(mut self, guid: Guid) -> ProviderTraits {
        self.traits
            .push((TRAIT_TYPE_DECODE_GUID, guid.to_bytes_le().to_vec()));
        self
    }

    /// The group GUID, if a group trait with 16 bytes is present.
    pub fn group(&self) -> Option<Guid> {
        self.guid_trait(TRAIT_TYPE_GROUP)
    }

    /// The decode GUID, if present.
    pub fn decode_guid(&self) -> Option<Guid> {
        self.guid_trait(TRAIT_TYPE_DECODE_GUID)
    }

    fn guid_trait(&self, ty: u8) -> Option<Guid> {
        let (_, data) = self.traits.iter().find(|(t, _)| *t == ty)?;
        Some(Guid::from_bytes_le(data.get(..16)?.try_into().ok()?))
    }

    /// The blob.
    ///
    /// # Errors
    /// [`Error::Build`] for a name with a NUL; [`Error::TooLarge`] when a trait or the
    /// whole blob exceeds its 16-bit size.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        if self.name.contains('\0') {
            return Err(Error::Build {
                field: String::new(),
                problem: format!("the provider name {:?} contains a NUL", self.name),
            });
        }
        let too_large = |what, size| Error::TooLarge {
            what,
            size,
            limit: usize::from(u16::MAX),
        };
        let mut out = vec![0, 0];
        out.extend_from_slice(self.name.as_bytes());
        out.push(0);
        for (ty, data) in &self.traits {
            let size = u16::try_from(data.len() + 3)
                .map_err(|_| too_large("a provider trait", data.len() + 3))?;
            out.extend_from_slice(&size.to_le_bytes());
            out.push(*ty);
            out.extend_from_slice(data);
        }
        let total =
            u16::try_from(out.len()).map_err(|_| too_large("the provider traits", out.len()))?;
        out[..2].copy_from_slice(&total.to_le_bytes());
        Ok(out)
    }

    /// Parses a traits blob. Bytes after `TotalSize` are ignored (an extended item's data
    /// may be longer); a name that is not UTF-8 is read lossily.
    ///
    /// # Errors
    /// [`Error::ProviderTraits`] with the byte offset: a blob shorter than `TotalSize` or
    /// than 3 bytes, a name without its NUL, a trait shorter than its header or running past
    /// `TotalSize`.
    pub fn parse(blob: &[u8]) -> Result<ProviderTraits> {
        let err = |offset, problem: String| Error::ProviderTraits { offset, problem };
        let total = match blob {
            [lo, hi, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
            _ => return Err(err(0, format!("{} bytes, TotalSize needs 2", blob.len()))),
        };
        if total < 3 || total > blob.len() {
            return Err(err(
                0,
                format!(
                    "TotalSize {total} with {} bytes given (at least 3)",
                    blob.len()
                ),
            ));
        }
        let blob = &blob[..total];
        let nul = blob[2..]
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| err(2, "the provider name has no NUL terminator".into()))?;
        let name = String::from_utf8_lossy(&blob[2..2 + nul]).into_owned();
        let mut traits = Vec::new();
        let mut at = 3 + nul;
        while at < total {
            let rest = &blob[at..];
            if rest.len() < 3 {
                return Err(err(
                    at,
                    format!("{} bytes left, a trait header needs 3", rest.len()),
                ));
            }
            let size = usize::from(u16::from_le_bytes([rest[0], rest[1]]));
            if size < 3 || size > rest.len() {
                return Err(err(
                    at,
                    format!("a trait of Size {size} with {} bytes left", rest.len()),
                ));
            }
            traits.push((rest[2], rest[3..size].to_vec()));
            at += size;
        }
        Ok(ProviderTraits { name, traits })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_layout_matches_prv_34() {
        // rule: PRV-34
        // rule: DEC-04
        let g: Guid = "{11111111-2222-3333-4444-555555555555}".parse().unwrap();
        let t = ProviderTraits::new("MyProvider").with_group(g);
        let b = t.to_bytes().unwrap();
        // 2 + "MyProvider" + NUL + one 19-byte GUID trait
        assert_eq!(b.len(), 2 + 10 + 1 + 19);
        assert_eq!(&b[..2], &(b.len() as u16).to_le_bytes());
        assert_eq!(&b[2..13], b"MyProvider\0");
        assert_eq!(&b[13..16], &[19, 0, TRAIT_TYPE_GROUP]);
        assert_eq!(&b[16..20], &[0x11, 0x11, 0x11, 0x11]); // Data1, little-endian
        assert_eq!(ProviderTraits::parse(&b).unwrap(), t);
        assert_eq!(t.group(), Some(g));
        for cut in 0..b.len() {
            assert!(ProviderTraits::parse(&b[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn unknown_traits_are_kept_and_skipped_by_size() {
        // rule: DEC-04
        let g: Guid = "{11111111-2222-3333-4444-555555555555}".parse().unwrap();
        let mut t = ProviderTraits::new("P");
        t.traits.push((0x80, vec![1, 2, 3, 4, 5]));
        let t = t.with_decode_guid(g);
        let parsed = ProviderTraits::parse(&t.to_bytes().unwrap()).unwrap();
        assert_eq!(parsed.traits[0], (0x80, vec![1, 2, 3, 4, 5]));
        assert_eq!(parsed.decode_guid(), Some(g));
    }
}
