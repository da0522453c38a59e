//! `GUID`: ETW's 128-bit identifier for providers, sessions and activities.
//!
//! Windows stores a GUID as `{u32 Data1; u16 Data2; u16 Data3; u8 Data4[8]}` in native
//! (little-endian) order, so its bytes on disk differ from the RFC 4122 byte order of the
//! same text form. [`Guid::from_bytes_le`] / [`Guid::to_bytes_le`] convert the Windows byte
//! order, which is what `.etl` files and `EVENT_HEADER.ProviderId` hold.

use std::fmt;
use std::str::FromStr;

/// A Windows `GUID`, over [`uuid::Uuid`].
///
/// Prints in the registry form `{9e814aad-3204-11d2-9a82-006008a86939}`; parses that form with
/// or without braces, in either case.
#[doc(alias = "GUID")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Guid(uuid::Uuid);

/// Parsing a GUID from text failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a GUID: {input:?} (expected {{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}})")]
pub struct ParseGuidError {
    input: String,
}

impl Guid {
    /// `GUID_NULL`, all zeros.
    #[doc(alias = "GUID_NULL")]
    pub const NULL: Guid = Guid(uuid::Uuid::nil());

    /// `SystemTraceControlGuid` {9e814aad-3204-11d2-9a82-006008a86939}: the NT Kernel Logger's
    /// session GUID and the SystemTraceProvider.
    pub const SYSTEM_TRACE_CONTROL: Guid = Guid::from_fields(
        0x9e81_4aad,
        0x3204,
        0x11d2,
        [0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39],
    );
    /// `GlobalLoggerGuid` {e8908abc-aa84-11d2-9a93-00805f85d7c6}.
    pub const GLOBAL_LOGGER: Guid = Guid::from_fields(
        0xe890_8abc,
        0xaa84,
        0x11d2,
        [0x9a, 0x93, 0x00, 0x80, 0x5f, 0x85, 0xd7, 0xc6],
    );
    /// `EventTraceGuid` {68fdd900-4a3e-11d1-84f4-0000f80464e3}: the log-file header events.
    pub const EVENT_TRACE: Guid = Guid::from_fields(
        0x68fd_d900,
        0x4a3e,
        0x11d1,
        [0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3],
    );
    /// `EventTraceConfigGuid` {01853a65-418f-4f36-aefc-dc0f1d2fd235}.
    pub const EVENT_TRACE_CONFIG: Guid = Guid::from_fields(
        0x0185_3a65,
        0x418f,
        0x4f36,
        [0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35],
    );
    /// `DefaultTraceSecurityGuid` {0811c1af-7a07-4a06-82ed-869455cdf713}.
    pub const DEFAULT_TRACE_SECURITY: Guid = Guid::from_fields(
        0x0811_c1af,
        0x7a07,
        0x4a06,
        [0x82, 0xed, 0x86, 0x94, 0x55, 0xcd, 0xf7, 0x13],
    );
    /// `PrivateLoggerNotificationGuid` {3595ab5c-042a-4c8e-b942-2d059bfeb1b1}.
    pub const PRIVATE_LOGGER_NOTIFICATION: Guid = Guid::from_fields(
        0x3595_ab5c,
        0x042a,
        0x4c8e,
        [0xb9, 0x42, 0x2d, 0x05, 0x9b, 0xfe, 0xb1, 0xb1],
    );
    /// The `Lost_Event` / `RT_LostEvent` class {6a399ae0-4bc6-4de9-870b-3657f8947e7e}.
    pub const RT_LOST_EVENT: Guid = Guid::from_fields(
        0x6a39_9ae0,
        0x4bc6,
        0x4de9,
        [0x87, 0x0b, 0x36, 0x57, 0xf8, 0x94, 0x7e, 0x7e],
    );

    /// Builds a GUID from its four Windows fields.
    pub const fn from_fields(data1: u32, data2: u16, data3: u16, data4: [u8; 8]) -> Guid {
        Guid(uuid::Uuid::from_fields(data1, data2, data3, &data4))
    }

    /// The four Windows fields `(Data1, Data2, Data3, Data4)`.
    pub fn fields(&self) -> (u32, u16, u16, [u8; 8]) {
        let (a, b, c, d) = self.0.as_fields();
        (a, b, c, *d)
    }

    /// From the 16 bytes of a Windows `GUID` in memory (Data1..3 little-endian).
    pub const fn from_bytes_le(bytes: [u8; 16]) -> Guid {
        Guid(uuid::Uuid::from_bytes_le(bytes))
    }

    /// The 16 bytes of a Windows `GUID` in memory (Data1..3 little-endian), as `.etl` files hold it.
    pub fn to_bytes_le(&self) -> [u8; 16] {
        self.0.to_bytes_le()
    }

    /// From the 16 bytes in RFC 4122 (big-endian) order.
    pub const fn from_u128(value: u128) -> Guid {
        Guid(uuid::Uuid::from_u128(value))
    }

    /// The 128-bit value in RFC 4122 order.
    pub const fn as_u128(&self) -> u128 {
        self.0.as_u128()
    }

    /// `true` for `GUID_NULL`.
    pub const fn is_null(&self) -> bool {
        self.0.is_nil()
    }

    /// The underlying [`uuid::Uuid`].
    pub const fn as_uuid(&self) -> &uuid::Uuid {
        &self.0
    }
}

impl From<uuid::Uuid> for Guid {
    fn from(u: uuid::Uuid) -> Guid {
        Guid(u)
    }
}

impl From<Guid> for uuid::Uuid {
    fn from(g: Guid) -> uuid::Uuid {
        g.0
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.0.hyphenated())
    }
}

impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Guid {
    type Err = ParseGuidError;

    fn from_str(s: &str) -> Result<Guid, ParseGuidError> {
        let err = || ParseGuidError {
            input: s.to_owned(),
        };
        let inner = match (s.strip_prefix('{'), s.ends_with('}')) {
            (Some(rest), true) => &rest[..rest.len() - 1],
            (None, false) => s,
            _ => return Err(err()),
        };
        // Only the hyphenated 36-character form: the registry and every ETW tool print it.
        if inner.len() != 36 {
            return Err(err());
        }
        uuid::Uuid::try_parse(inner).map(Guid).map_err(|_| err())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_byte_order_round_trips() {
        let g: Guid = "{9e814aad-3204-11d2-9a82-006008a86939}".parse().unwrap();
        assert_eq!(g, Guid::SYSTEM_TRACE_CONTROL);
        let le = g.to_bytes_le();
        assert_eq!(&le[..4], &[0xad, 0x4a, 0x81, 0x9e]);
        assert_eq!(&le[4..6], &[0x04, 0x32]);
        assert_eq!(&le[8..], &[0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39]);
        assert_eq!(Guid::from_bytes_le(le), g);
    }

    #[test]
    fn parses_and_prints_registry_form() {
        let g: Guid = "9E814AAD-3204-11D2-9A82-006008A86939".parse().unwrap();
        assert_eq!(g.to_string(), "{9e814aad-3204-11d2-9a82-006008a86939}");
        for bad in [
            "",
            "{}",
            "{9e814aad-3204-11d2-9a82-006008a86939",
            "9e814aad32",
            "{zz814aad-3204-11d2-9a82-006008a86939}",
        ] {
            assert!(bad.parse::<Guid>().is_err(), "{bad:?}");
        }
        assert!(Guid::NULL.is_null());
    }
}
