//! Provider traits and `EventSetInformation` (PRV-33…PRV-35).
//!
//! A TraceLogging provider registers with EventRegister and then hands ETW its *traits*: a
//! blob holding its name and optional typed traits (provider group, decode GUID). ETW attaches
//! the blob to every event of the provider as a `PROV_TRAITS` extended item and, once traits
//! are set, honours the `Type` byte of data descriptors (EVT-12).
//!
//! Blob layout (provider-traits page): `u16 TotalSize` (including itself), the provider name
//! as NUL-terminated UTF-8, then traits, each `u16 Size` (including itself), `u8 Type`, data.
//! [`ProviderTraits`] is the decode crate's (`etwsim_decode::tracelogging`), one type for the
//! blob both ways; this module adds what EventSetInformation checks on top of it.

use crate::{Error, Result};
pub use etwsim_decode::tracelogging::{ProviderTraits, TRAIT_TYPE_DECODE_GUID, TRAIT_TYPE_GROUP};

/// `EVENT_INFO_CLASS` values of EventSetInformation (PRV-35).
#[doc(alias = "EVENT_INFO_CLASS")]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum EventInfoClass {
    /// 0, `EventProviderBinaryTrackInfo`.
    BinaryTrackInfo = 0,
    /// 1, `EventProviderSetReserved1`.
    SetReserved1 = 1,
    /// 2, `EventProviderSetTraits`.
    SetTraits = 2,
    /// 3, `EventProviderUseDescriptorType` (data: one BOOLEAN byte).
    UseDescriptorType = 3,
}

impl EventInfoClass {
    /// From the raw value; `None` for unknown classes.
    pub fn from_raw(v: u32) -> Option<EventInfoClass> {
        Some(match v {
            0 => EventInfoClass::BinaryTrackInfo,
            1 => EventInfoClass::SetReserved1,
            2 => EventInfoClass::SetTraits,
            3 => EventInfoClass::UseDescriptorType,
            _ => return None,
        })
    }
}

/// The traits blob as EventSetInformation(EventProviderSetTraits) takes it (PRV-34): exactly
/// `TotalSize` bytes, a UTF-8 name, traits that end where the blob ends. Stricter than
/// [`ProviderTraits::parse`], which reads what an extended item carries (longer data, any
/// name bytes).
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` when TotalSize disagrees with the data, the name is not
/// NUL-terminated UTF-8, or a trait's size runs past the end.
pub(crate) fn parse_exact(blob: &[u8]) -> Result<ProviderTraits> {
    let total = match blob {
        [lo, hi, _, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
        _ => {
            return Err(Error::invalid(
                "a traits blob has at least a size and a NUL",
            ));
        }
    };
    if total != blob.len() {
        return Err(Error::invalid(format!(
            "traits TotalSize {total} but {} bytes were given",
            blob.len()
        )));
    }
    let nul = blob[2..]
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| Error::invalid("the provider name is not NUL-terminated"))?;
    if std::str::from_utf8(&blob[2..2 + nul]).is_err() {
        return Err(Error::invalid("the provider name is not UTF-8"));
    }
    ProviderTraits::parse(blob).map_err(|e| Error::invalid(e.to_string()))
}

/// The blob of `traits`, or `ERROR_INVALID_PARAMETER` for traits that have none (a name with
/// a NUL, sizes over 16 bits).
pub(crate) fn blob_of(traits: &ProviderTraits) -> Result<Vec<u8>> {
    traits.to_bytes().map_err(|e| Error::invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use etwsim_types::Guid;

    #[test]
    fn set_traits_blobs_are_exact_and_refused_when_truncated() {
        let g: Guid = "{11111111-2222-3333-4444-555555555555}".parse().unwrap();
        let t = ProviderTraits::new("MyProvider").with_group(g);
        let b = t.to_bytes().unwrap();
        assert_eq!(parse_exact(&b).unwrap(), t);
        for cut in 0..b.len() {
            assert!(parse_exact(&b[..cut]).is_err());
        }
        let mut longer = b.clone();
        longer.push(0);
        assert!(
            parse_exact(&longer).is_err(),
            "TotalSize must be the whole blob"
        );
        let mut not_utf8 = b.clone();
        not_utf8[2] = 0xFF;
        assert!(parse_exact(&not_utf8).is_err());
        assert!(blob_of(&ProviderTraits::new("a\0b")).is_err());
    }
}
