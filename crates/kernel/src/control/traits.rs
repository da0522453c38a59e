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

use crate::control::provider::Provider;
use crate::{Error, Result};
pub use etwsim_decode::tracelogging::{ProviderTraits, TRAIT_TYPE_DECODE_GUID, TRAIT_TYPE_GROUP};
use etwsim_types::Guid;

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
fn parse_exact(blob: &[u8]) -> Result<ProviderTraits> {
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
fn blob_of(traits: &ProviderTraits) -> Result<Vec<u8>> {
    traits.to_bytes().map_err(|e| Error::invalid(e.to_string()))
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

#[cfg(test)]
mod tests {
    use super::*;

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
