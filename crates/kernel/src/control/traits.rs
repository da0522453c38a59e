//! Provider traits and `EventSetInformation` (PRV-33…PRV-35).
//!
//! A TraceLogging provider registers with EventRegister and then hands ETW its *traits*: a
//! blob holding its name and optional typed traits (provider group, decode GUID). ETW attaches
//! the blob to every event of the provider as a `PROV_TRAITS` extended item and, once traits
//! are set, honours the `Type` byte of data descriptors (EVT-12).
//!
//! Blob layout (provider-traits page): `u16 TotalSize` (including itself), the provider name
//! as NUL-terminated UTF-8, then traits, each `u16 Size` (including itself), `u8 Type`, data.

use crate::control::provider::Provider;
use crate::{Error, Result};
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

/// `EtwProviderTraitTypeGroup`: the provider-group GUID trait (PRV-34, PRV-36).
pub const TRAIT_TYPE_GROUP: u8 = 1;
/// `EtwProviderTraitTypeDecodeGuid`: the decode-GUID trait (PRV-34).
pub const TRAIT_TYPE_DECODE_GUID: u8 = 2;

/// A provider's traits, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderTraits {
    /// The provider name.
    pub name: String,
    /// Every trait as (type, data), in blob order.
    pub traits: Vec<(u8, Vec<u8>)>,
}

impl ProviderTraits {
    /// Traits with just a name.
    pub fn new(name: &str) -> ProviderTraits {
        ProviderTraits {
            name: name.into(),
            traits: Vec::new(),
        }
    }

    /// With a provider-group trait.
    pub fn with_group(mut self, group: Guid) -> ProviderTraits {
        self.traits
            .push((TRAIT_TYPE_GROUP, group.to_bytes_le().to_vec()));
        self
    }

    /// The group GUID, if a group trait is present.
    pub fn group(&self) -> Option<Guid> {
        self.guid_trait(TRAIT_TYPE_GROUP)
    }

    /// The decode GUID, if present.
    pub fn decode_guid(&self) -> Option<Guid> {
        self.guid_trait(TRAIT_TYPE_DECODE_GUID)
    }

    fn guid_trait(&self, ty: u8) -> Option<Guid> {
        self.traits
            .iter()
            .find(|(t, _)| *t == ty)
            .and_then(|(_, d)| {
                let b: [u8; 16] = d.get(..16)?.try_into().ok()?;
                Some(Guid::from_bytes_le(b))
            })
    }

    /// The blob, as EventSetInformation takes it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0, 0];
        out.extend_from_slice(self.name.as_bytes());
        out.push(0);
        for (ty, data) in &self.traits {
            out.extend_from_slice(&((data.len() + 3) as u16).to_le_bytes());
            out.push(*ty);
            out.extend_from_slice(data);
        }
        let total = out.len() as u16;
        out[..2].copy_from_slice(&total.to_le_bytes());
        out
    }

    /// Parses a traits blob.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` when TotalSize disagrees with the data, the name is not
    /// NUL-terminated UTF-8, or a trait's size runs past the end.
    pub fn parse(blob: &[u8]) -> Result<ProviderTraits> {
        if blob.len() < 3 {
            return Err(Error::invalid(
                "a traits blob has at least a size and a NUL",
            ));
        }
        let total = usize::from(u16::from_le_bytes([blob[0], blob[1]]));
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
        let name = std::str::from_utf8(&blob[2..2 + nul])
            .map_err(|_| Error::invalid("the provider name is not UTF-8"))?
            .to_owned();
        let mut traits = Vec::new();
        let mut rest = &blob[3 + nul..];
        while !rest.is_empty() {
            if rest.len() < 3 {
                return Err(Error::invalid("a trait is shorter than its 3-byte header"));
            }
            let size = usize::from(u16::from_le_bytes([rest[0], rest[1]]));
            if size < 3 || size > rest.len() {
                return Err(Error::invalid(format!("a trait claims {size} bytes")));
            }
            traits.push((rest[2], rest[3..size].to_vec()));
            rest = &rest[size..];
        }
        Ok(ProviderTraits { name, traits })
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
                let traits = ProviderTraits::parse(data)?;
                let group = traits.group();
                info.traits = Some(traits);
                let _ = self.reg.traits_blob.set(data.into());
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
        self.set_information(EventInfoClass::SetTraits as u32, &traits.to_bytes())
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
        ProviderTraits::parse(&traits.to_bytes())?;
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
    fn traits_blob_round_trips_and_rejects_truncation() {
        let g: Guid = "{11111111-2222-3333-4444-555555555555}".parse().unwrap();
        let t = ProviderTraits::new("MyProvider").with_group(g);
        let b = t.to_bytes();
        assert_eq!(ProviderTraits::parse(&b).unwrap(), t);
        assert_eq!(t.group(), Some(g));
        for cut in 0..b.len() {
            assert!(ProviderTraits::parse(&b[..cut]).is_err());
        }
    }
}
