//! Identities every layer names: a session's `TRACEHANDLE` and the case-insensitive keys of
//! session names and paths, and a GUID as the two words a record holds.

use etwsim_types::Guid;

/// `TRACEHANDLE` / `CONTROLTRACE_ID` of a session: logger id in the low 16 bits, a start
/// generation above, so a stopped session's handle never names a later one (SES-15).
#[doc(alias = "TRACEHANDLE")]
#[doc(alias = "CONTROLTRACE_ID")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct TraceHandle(pub u64);

impl TraceHandle {
    /// The logger id (`LoggerId` in `ETW_BUFFER_CONTEXT` and `TRACE_ENABLE_INFO`).
    pub fn logger_id(self) -> u16 {
        (self.0 & 0xffff) as u16
    }

    pub(crate) fn generation(self) -> u64 {
        self.0 >> 16
    }
}

impl std::fmt::Display for TraceHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// Windows' case folding for names (`RtlUpcaseUnicodeChar`): one character to one character,
/// BMP only. A character whose full upper case is several characters (`ß` → `SS`) keeps its
/// own form, so `straße` and `STRASSE` are different names, as on Windows.
fn upcase_simple(c: char) -> char {
    if u32::from(c) > 0xFFFF {
        return c;
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) if u32::from(u) <= 0xFFFF => u,
        _ => c,
    }
}

pub(crate) fn eq_ignore_case(a: &str, b: &str) -> bool {
    a.chars()
        .map(upcase_simple)
        .eq(b.chars().map(upcase_simple))
}

/// The case-insensitive key of a session name or path.
pub(crate) fn name_key(s: &str) -> String {
    s.chars().map(upcase_simple).collect()
}

/// A GUID's 16 bytes as a record holds them (Windows byte order), as two little-endian words.
///
/// Computed from the GUID's 128-bit value: Data1, Data2 and Data3 little-endian in the first
/// word, Data4's bytes in order in the second (`guid_words_match_the_bytes` checks it).
#[inline]
pub(crate) fn guid_words(g: &Guid) -> [u64; 2] {
    let v = g.as_u128();
    let hi = (v >> 64) as u64; // Data1 (32 bits), Data2, Data3 (16 bits each)
    [
        (hi >> 32) | (hi >> 16 & 0xffff) << 32 | (hi & 0xffff) << 48,
        (v as u64).swap_bytes(),
    ]
}

/// The GUID whose record words ([`guid_words`]) are `w`.
pub(crate) fn guid_from_words(w: [u64; 2]) -> Guid {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&w[0].to_le_bytes());
    bytes[8..].copy_from_slice(&w[1].to_le_bytes());
    Guid::from_bytes_le(bytes)
}
