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
    pub const SYSTEM_TRACE_CONTROL: Guid =
        Guid::from_str_const("9e814aad-3204-11d2-9a82-006008a86939");
    /// `GlobalLoggerGuid` {e8908abc-aa84-11d2-9a93-00805f85d7c6}.
    pub const GLOBAL_LOGGER: Guid = Guid::from_str_const("e8908abc-aa84-11d2-9a93-00805f85d7c6");
    /// `EventTraceGuid` {68fdd900-4a3e-11d1-84f4-0000f80464e3}: the log-file header events.
    pub const EVENT_TRACE: Guid = Guid::from_str_const("68fdd900-4a3e-11d1-84f4-0000f80464e3");
    /// `EventTraceConfigGuid` {01853a65-418f-4f36-aefc-dc0f1d2fd235}.
    pub const EVENT_TRACE_CONFIG: Guid =
        Guid::from_str_const("01853a65-418f-4f36-aefc-dc0f1d2fd235");
    /// `DefaultTraceSecurityGuid` {0811c1af-7a07-4a06-82ed-869455cdf713}.
    pub const DEFAULT_TRACE_SECURITY: Guid =
        Guid::from_str_const("0811c1af-7a07-4a06-82ed-869455cdf713");
    /// `PrivateLoggerNotificationGuid` {3595ab5c-042a-4c8e-b942-2d059bfeb1b1}.
    pub const PRIVATE_LOGGER_NOTIFICATION: Guid =
        Guid::from_str_const("3595ab5c-042a-4c8e-b942-2d059bfeb1b1");
    /// The `Lost_Event` / `RT_LostEvent` class {6a399ae0-4bc6-4de9-870b-3657f8947e7e}.
    pub const RT_LOST_EVENT: Guid = Guid::from_str_const("6a399ae0-4bc6-4de9-870b-3657f8947e7e");

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (optionally in braces, either case) in a
    /// `const` context: the one parser behind the workspace's GUID constants.
    ///
    /// # Panics
    ///
    /// On a malformed string — at compile time when used in a `const`. Runtime text goes
    /// through [`FromStr`], which returns a [`ParseGuidError`] instead.
    pub const fn from_str_const(s: &str) -> Guid {
        let b = s.as_bytes();
        let (start, end) = if !b.is_empty() && b[0] == b'{' {
            assert!(
                b.len() == 38 && b[37] == b'}',
                "GUID constant: unbalanced braces"
            );
            (1, 37)
        } else {
            (0, b.len())
        };
        assert!(end - start == 36, "GUID constant: expected 36 characters");
        let mut v: u128 = 0;
        let mut i = start;
        while i < end {
            let c = b[i];
            let pos = i - start;
            if pos == 8 || pos == 13 || pos == 18 || pos == 23 {
                assert!(c == b'-', "GUID constant: expected '-' at 8, 13, 18, 23");
            } else {
                let d = match c {
                    b'0'..=b'9' => c - b'0',
                    b'a'..=b'f' => c - b'a' + 10,
                    b'A'..=b'F' => c - b'A' + 10,
                    _ => panic!("GUID constant: not a hex digit"),
                };
                v = (v << 4) | d as u128;
            }
            i += 1;
        }
        Guid::from_u128(v)
    }

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

    /// The provider GUID EventSource and TraceLogging derive from a provider name (GID-01).
    ///
    /// `EventSource.GetGuid` / `TraceLoggingDynamic`'s `GetGuidForName`: the name is
    /// upper-cased, encoded as UTF-16 big-endian without a NUL, hashed with SHA-1 after the
    /// 16 namespace bytes `482C2DB2C39047C887F81A15BFC130FB`; the first 16 digest bytes, with
    /// the high nibble of byte 7 set to 5, are read as a GUID in Windows byte order. The
    /// variant bits are left as the hash made them (GID-02). Any string is accepted, the
    /// empty one too; nothing is trimmed (GID-07).
    ///
    /// **Upper-casing (GID-04, GID-09).** This follows the rule's choice, the .NET /
    /// TraceLoggingDynamic.h behaviour: a *simple* (one-to-one) invariant mapping applied to
    /// each UTF-16 code unit on its own. So `ß` and ligatures such as `ﬁ` are kept as they
    /// are (Microsoft's Rust `tracelogging` crate and Python apply the full mapping and
    /// hash `SS`, `FI`), and letters outside the Basic Multilingual Plane (e.g. Deseret) are
    /// not upper-cased, their surrogates being mapped one at a time. For ASCII, accented
    /// Latin, Greek, Cyrillic and CJK names every implementation gives the same GUID.
    ///
    /// A name-derived GUID is only a convention of these frameworks (GID-06, GID-08):
    /// manifest providers such as Microsoft-Windows-Kernel-File have fixed GUIDs that are
    /// not the hash of their names.
    ///
    /// ```
    /// use etwsim_types::Guid;
    /// let g = Guid::from_provider_name("MyProvider");
    /// assert_eq!(g.to_string(), "{b3864c38-4273-58c5-545b-8b3608343471}");
    /// assert_eq!(Guid::from_provider_name("myprovider"), g);
    /// ```
    #[doc(alias = "EventSource.GetGuid")]
    #[doc(alias = "GetGuidForName")]
    pub fn from_provider_name(name: &str) -> Guid {
        use sha1::{Digest, Sha1};
        const NAMESPACE: [u8; 16] = [
            0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8, 0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1,
            0x30, 0xFB,
        ];
        let mut hasher = Sha1::new();
        hasher.update(NAMESPACE);
        for unit in name.encode_utf16() {
            hasher.update(simple_upper_utf16(unit).to_be_bytes());
        }
        let digest = hasher.finalize();
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        bytes[7] = (bytes[7] & 0x0F) | 0x50;
        Guid::from_bytes_le(bytes)
    }
}

/// The simple (one-to-one) upper-case mapping of one UTF-16 code unit, as invariant-culture
/// `ToUpperInvariant` and `LCMapStringEx(LCMAP_UPPERCASE)` apply it (GID-04).
///
/// Surrogates are returned unchanged. Rust's `char::to_uppercase` is the *full* mapping; it
/// agrees with the simple one wherever it yields one character. Where it yields several
/// (`ß` → `SS`, ligatures, Greek letters with a iota subscript), the simple mapping is the
/// character itself — except for the Greek letters with ypogegrammeni, which UnicodeData.txt
/// maps to their title-case (prosgegrammeni) capitals.
fn simple_upper_utf16(unit: u16) -> u16 {
    let Some(c) = char::from_u32(u32::from(unit)) else {
        return unit; // a surrogate: per-unit mapping leaves it alone (GID-09 (c))
    };
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u16::try_from(u32::from(u)).unwrap_or(unit),
        _ => match unit {
            // ᾀ..ᾇ, ᾐ..ᾗ, ᾠ..ᾧ → ᾈ..ᾏ, ᾘ..ᾟ, ᾨ..ᾯ (the capitals map to themselves)
            0x1F80..=0x1FAF if unit & 0x08 == 0 => unit + 8,
            0x1FB3 => 0x1FBC, // ᾳ → ᾼ
            0x1FC3 => 0x1FCC, // ῃ → ῌ
            0x1FF3 => 0x1FFC, // ῳ → ῼ
            _ => unit,
        },
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

    #[test]
    fn const_parser_agrees_with_from_str_and_rejects_malformed_text() {
        for text in [
            "9e814aad-3204-11d2-9a82-006008a86939",
            "{9E814AAD-3204-11D2-9A82-006008A86939}",
            "00000000-0000-0000-0000-000000000000",
        ] {
            assert_eq!(
                Guid::from_str_const(text),
                text.parse::<Guid>().unwrap(),
                "{text}"
            );
        }
        for bad in [
            "",
            "{9e814aad-3204-11d2-9a82-006008a86939",
            "9e814aad-3204-11d2-9a82006008a86939",
            "9e814aad-3204-11d2-9a82-006008a8693",
            "zz814aad-3204-11d2-9a82-006008a86939",
        ] {
            assert!(
                std::panic::catch_unwind(|| Guid::from_str_const(bad)).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn name_hash_matches_the_published_vectors() {
        // rule: GID-05
        for (name, guid) in [
            ("MyProvider", "{b3864c38-4273-58c5-545b-8b3608343471}"),
            ("System.Net.Http", "{d30b5633-7ef1-5485-b4e0-94979b102068}"),
            ("System.Runtime", "{49592c0f-5a05-516d-aa4b-a64e02026c89}"),
            (
                "Microsoft-Diagnostics-DiagnosticSource",
                "{adb401e1-5296-51f8-c125-5fda75826144}",
            ),
        ] {
            assert_eq!(Guid::from_provider_name(name).to_string(), guid, "{name}");
        }
    }

    #[test]
    fn name_hash_of_the_empty_name_and_kept_spaces() {
        // rule: GID-07
        assert_eq!(
            Guid::from_provider_name("").to_string(),
            "{4445ee6c-fd5a-5b15-047a-5866ffa76aa6}"
        );
        let plain = Guid::from_provider_name("MyProvider");
        assert_ne!(Guid::from_provider_name(" MyProvider"), plain);
        assert_ne!(Guid::from_provider_name("MyProvider "), plain);
        assert_ne!(Guid::from_provider_name("My Provider"), plain);
    }

    #[test]
    fn name_hash_is_not_a_manifest_providers_guid() {
        // rule: GID-08
        let hashed = Guid::from_provider_name("Microsoft-Windows-Kernel-File");
        assert_eq!(hashed.to_string(), "{adbda5fe-c1cc-52c6-ab4c-42d986d8cad1}");
        assert_ne!(hashed.to_string(), "{edd08927-9cc4-4e65-b970-c2560fb5c289}");
    }

    #[test]
    fn name_hash_sets_the_version_nibble_only() {
        // rule: GID-02
        for name in ["MyProvider", "", "a", "Some.Other-Provider_42"] {
            let (_, _, data3, data4) = Guid::from_provider_name(name).fields();
            assert_eq!(data3 >> 12, 5, "{name}");
            // The variant bits are whatever the hash made them: MyProvider's are 0b01.
            if name == "MyProvider" {
                assert_eq!(data4[0] >> 6, 0b01);
            }
        }
    }

    #[test]
    fn simple_upper_case_mapping_per_utf16_unit() {
        // rule: GID-04
        assert_eq!(simple_upper_utf16(u16::from(b'a')), u16::from(b'A'));
        assert_eq!(simple_upper_utf16(0x00E9), 0x00C9); // é → É
        assert_eq!(simple_upper_utf16(0x00DF), 0x00DF); // ß stays (full mapping: SS)
        assert_eq!(simple_upper_utf16(0xFB01), 0xFB01); // ﬁ stays (full mapping: FI)
        assert_eq!(simple_upper_utf16(0x1F80), 0x1F88); // ᾀ → ᾈ (simple mapping)
        assert_eq!(simple_upper_utf16(0x1F88), 0x1F88);
        assert_eq!(simple_upper_utf16(0x1FB3), 0x1FBC);
        assert_eq!(simple_upper_utf16(0xD801), 0xD801); // a surrogate is left alone
        assert_eq!(simple_upper_utf16(0x03C3), 0x03A3); // σ → Σ
    }
}
