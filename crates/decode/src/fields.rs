//! Decoded field values shared by every decoder — [`Value`] and a named [`Field`], from
//! [`crate::value`] — and the Windows structures a payload can carry ([`Sid`],
//! [`TokenUser`], [`SystemTime`]).
//!
//! Values keep what the payload held, not how it is shown: an ANSI string stays bytes
//! ([`Value::Ansi`], shown as Windows-1252 by [`windows_1252`], DEC-12), a pointer stays a
//! number. Rendering for people is [`Value`]'s `Display` (invariant culture, no digit grouping,
//! DEC-28) or, with a format's out-type hints, [`Value::display_with`] (DEC-27).
//!
//! An `EventWriteString` event has no fields: [`string_only_text`] is its text (EVT-13).

pub use crate::value::{Field, Value, find};
use std::fmt;

/// The text of an `EventWriteString` event: a record whose header has
/// `EVENT_HEADER_FLAG_STRING_ONLY` (0x0004, EVT-19) carries no fields, only a UTF-16LE
/// string, normally with its NUL terminator (EVT-13). It is read leniently and bounded by the
/// payload, as TDH-based tools show such events: up to the first NUL code unit, or to the end
/// when there is none; a last odd byte is ignored; unpaired surrogates become U+FFFD. It never
/// fails, and makes at most one character per two payload bytes.
///
/// ```
/// use etwsim_decode::fields::string_only_text;
///
/// let payload: Vec<u8> = "démarré\0".encode_utf16().flat_map(u16::to_le_bytes).collect();
/// assert_eq!(string_only_text(&payload), "démarré");
/// assert_eq!(string_only_text(&payload[..5]), "dé"); // unterminated, odd: bounded
/// ```
#[doc(alias = "EventWriteString")]
#[doc(alias = "EVENT_HEADER_FLAG_STRING_ONLY")]
pub fn string_only_text(payload: &[u8]) -> String {
    let units = payload.chunks_exact(2).take_while(|c| c != &[0, 0]).count();
    crate::wire::utf16_lossy(&payload[..units * 2])
}

/// `win:SID` values and the SID of a [`TokenUser`] block: the workspace's one SID type
/// (binary form `8 + 4 × count` bytes, DEC-09 type 19; text `S-1-5-18`). A payload SID whose
/// revision is not 1 is a bad value, as `IsValidSid` would say.
pub use etwsim_types::Sid;

/// A kernel SID block (KRN-27): `TOKEN_USER` — `SID_AND_ATTRIBUTES {PSID Sid; DWORD
/// Attributes}`, 16 bytes for a 64-bit writer (pointer, attributes, 4 bytes of padding) and 8
/// for a 32-bit one — followed by the SID itself.
///
/// Decoders tell a present block from an absent one (a u32 0) by the low 32 bits of the
/// pointer, so a present block's pointer must not have them all zero.
#[doc(alias = "TOKEN_USER")]
#[doc(alias = "SID_AND_ATTRIBUTES")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenUser {
    /// `User.Sid`: the kernel address the SID had (its low 32 bits are non-zero).
    pub sid_pointer: u64,
    /// `User.Attributes`.
    pub attributes: u32,
    /// The SID.
    pub sid: Sid,
}

impl TokenUser {
    /// A placeholder kernel address for [`TokenUser::new`]: non-zero in its low 32 bits.
    pub const DEFAULT_SID_POINTER: u64 = 0xFFFF_A000_0000_1010;

    /// A block for `sid` with [`DEFAULT_SID_POINTER`](Self::DEFAULT_SID_POINTER) and no
    /// attributes.
    pub fn new(sid: Sid) -> TokenUser {
        TokenUser {
            sid_pointer: Self::DEFAULT_SID_POINTER,
            attributes: 0,
            sid,
        }
    }
}

/// `SYSTEMTIME`: eight little-endian u16 fields (DEC-09 type 18).
#[doc(alias = "SYSTEMTIME")]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SystemTime {
    /// `wYear`.
    pub year: u16,
    /// `wMonth` (1–12).
    pub month: u16,
    /// `wDayOfWeek` (0 = Sunday).
    pub day_of_week: u16,
    /// `wDay`.
    pub day: u16,
    /// `wHour`.
    pub hour: u16,
    /// `wMinute`.
    pub minute: u16,
    /// `wSecond`.
    pub second: u16,
    /// `wMilliseconds`.
    pub milliseconds: u16,
}

impl SystemTime {
    /// From the 16 wire bytes.
    pub fn from_bytes(b: [u8; 16]) -> SystemTime {
        SystemTime::from_words(std::array::from_fn(|i| {
            u16::from_le_bytes([b[2 * i], b[2 * i + 1]])
        }))
    }

    /// From the eight words in wire order.
    pub fn from_words(w: [u16; 8]) -> SystemTime {
        SystemTime {
            year: w[0],
            month: w[1],
            day_of_week: w[2],
            day: w[3],
            hour: w[4],
            minute: w[5],
            second: w[6],
            milliseconds: w[7],
        }
    }

    /// The eight words in wire order.
    pub fn to_words(self) -> [u16; 8] {
        [
            self.year,
            self.month,
            self.day_of_week,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.milliseconds,
        ]
    }

    /// The 16 wire bytes.
    pub fn to_bytes(self) -> [u8; 16] {
        let mut out = [0; 16];
        for (i, w) in self.to_words().iter().enumerate() {
            out[2 * i..2 * i + 2].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

impl fmt::Display for SystemTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}",
            self.year, self.month, self.day, self.hour, self.minute, self.second, self.milliseconds
        )
    }
}

/// Windows-1252 text as a `String`: each byte through [`windows_1252_char`] (DEC-12).
pub fn windows_1252(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| windows_1252_char(b)).collect()
}

/// One Windows-1252 byte as a character: 0x80–0x9F to their characters; the five bytes the
/// code page leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) to the C1 control of the same
/// value, as MultiByteToWideChar does; every other byte to the same code point.
pub fn windows_1252_char(b: u8) -> char {
    const HIGH: [u16; 32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
        0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ];
    match b {
        0x80..=0x9F => char::from_u32(u32::from(HIGH[usize::from(b - 0x80)])).unwrap_or('\u{FFFD}'),
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_1252_maps_the_high_block() {
        assert_eq!(windows_1252(b"caf\xE9 \x80 \x81"), "café € \u{81}");
    }
}
