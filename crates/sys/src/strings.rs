//! C strings in and out: `LPCWSTR` (UTF-16) and `LPCSTR` (ANSI, taken as Latin-1: each byte
//! is the code point of the same value, so a name keeps its length in characters both ways).
//!
//! Reading one is two steps: [`raw`] (`unsafe`) finds how far the string reaches — its NUL,
//! or [`MAX_STRING_CHARS`] + 1 characters when none comes within them — and makes that a
//! slice; [`decode`] (safe, over bytes: what the fuzz target calls too) reads the characters
//! before the NUL.

use std::ffi::c_void;

/// The longest string read from a caller, in characters: `UNICODE_STRING`'s limit. A longer
/// string (or one never terminated within it) is refused rather than read on.
pub(crate) const MAX_STRING_CHARS: usize = 32_767;

/// Which string type a function's `A` or `W` form takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// `W`: UTF-16.
    Wide,
    /// `A`: Latin-1 bytes.
    Ansi,
}

impl Encoding {
    /// Bytes per character.
    pub(crate) const fn unit(self) -> usize {
        match self {
            Encoding::Wide => 2,
            Encoding::Ansi => 1,
        }
    }
}

/// The UTF-16 units before the first NUL of `bytes` (native-endian pairs), if one comes
/// within [`MAX_STRING_CHARS`] + 1 units; `None` for a string not terminated in time or not
/// within `bytes`.
pub(crate) fn wide_units(bytes: &[u8]) -> Option<Vec<u16>> {
    let units = bytes
        .chunks_exact(2)
        .take(MAX_STRING_CHARS + 1)
        .map(|c| u16::from_ne_bytes([c[0], c[1]]));
    let mut out = Vec::new();
    for u in units {
        if u == 0 {
            return Some(out);
        }
        out.push(u);
    }
    None
}

/// The string `bytes` starts with, in `enc`: the characters before its NUL. `Err` for one
/// with no NUL within [`MAX_STRING_CHARS`] characters or within `bytes`, or (UTF-16) not
/// valid UTF-16.
pub(crate) fn decode(bytes: &[u8], enc: Encoding) -> Result<String, ()> {
    match enc {
        Encoding::Wide => String::from_utf16(&wide_units(bytes).ok_or(())?).map_err(|_| ()),
        Encoding::Ansi => {
            let limit = &bytes[..bytes.len().min(MAX_STRING_CHARS + 1)];
            let len = limit.iter().position(|&b| b == 0).ok_or(())?;
            Ok(limit[..len].iter().map(|&b| char::from(b)).collect())
        }
    }
}

/// The bytes of the string at `p`, in `enc`: through its NUL, or [`MAX_STRING_CHARS`] + 1
/// characters when no NUL comes within them.
///
/// # Safety
/// `p` points at readable characters of `enc` up to a NUL, or at least
/// [`MAX_STRING_CHARS`] + 1 of them, that stay unchanged for `'a`.
pub(crate) unsafe fn raw<'a>(p: *const u8, enc: Encoding) -> &'a [u8] {
    let unit = enc.unit();
    let mut chars = MAX_STRING_CHARS + 1;
    for i in 0..=MAX_STRING_CHARS {
        // SAFETY: characters before the NUL are readable (the caller's contract), and the
        // loop stops at the first NUL or after MAX_STRING_CHARS + 1 characters; unaligned
        // reads accept any address.
        let nul = unsafe {
            match enc {
                Encoding::Wide => p.add(2 * i).cast::<u16>().read_unaligned() == 0,
                Encoding::Ansi => p.add(i).read() == 0,
            }
        };
        if nul {
            chars = i + 1;
            break;
        }
    }
    // SAFETY: the `chars` characters just read are readable and stay so for 'a (contract);
    // u8 has no alignment.
    unsafe { std::slice::from_raw_parts(p, chars * unit) }
}

/// The string argument at `p` in `enc`: `None` for NULL, `Err` as [`decode`].
///
/// # Safety
/// `p` is NULL or as [`raw`] says.
pub(crate) unsafe fn name(p: *const c_void, enc: Encoding) -> Option<Result<String, ()>> {
    // SAFETY: forwarded contract.
    (!p.is_null()).then(|| decode(unsafe { raw(p.cast(), enc) }, enc))
}

/// `s` as UTF-16 with a NUL.
pub(crate) fn to_wide(s: &str) -> Vec<u16> {
    s.encode_utf16().chain(std::iter::once(0)).collect()
}

/// `s` as Latin-1 with a NUL; a character outside Latin-1 becomes `?`.
pub(crate) fn to_ansi(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .chain(std::iter::once(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide_bytes(units: &[u16]) -> Vec<u8> {
        units.iter().flat_map(|u| u.to_ne_bytes()).collect()
    }

    #[test]
    fn a_string_ends_at_its_nul_within_the_limit_and_the_bytes() {
        assert_eq!(decode(b"ab\0cd", Encoding::Ansi), Ok("ab".to_owned()));
        assert_eq!(decode(b"ab", Encoding::Ansi), Err(()));
        assert_eq!(decode(b"", Encoding::Ansi), Err(()));
        assert_eq!(
            decode(&wide_bytes(&[0x41, 0x42, 0]), Encoding::Wide),
            Ok("AB".into())
        );
        // An odd last byte is not a unit.
        assert_eq!(decode(&[0x41, 0, 0], Encoding::Wide), Err(()));
        // An unpaired surrogate is not UTF-16.
        assert_eq!(decode(&wide_bytes(&[0xD800, 0]), Encoding::Wide), Err(()));
        // The NUL may be the (MAX_STRING_CHARS + 1)th character, not later.
        let mut long = vec![b'x'; MAX_STRING_CHARS];
        long.push(0);
        assert_eq!(
            decode(&long, Encoding::Ansi).map(|s| s.len()),
            Ok(MAX_STRING_CHARS)
        );
        long.insert(0, b'x');
        assert_eq!(decode(&long, Encoding::Ansi), Err(()));
    }

    #[test]
    fn raw_stops_at_the_nul_or_the_limit() {
        let w = [0x41u16, 0x42, 0, 0x43];
        // SAFETY: the array holds a NUL-terminated string.
        let got = unsafe { raw(w.as_ptr().cast(), Encoding::Wide) };
        assert_eq!(got, &wide_bytes(&w[..3])[..]);
        let long = vec![b'y'; MAX_STRING_CHARS + 5];
        // SAFETY: more than MAX_STRING_CHARS + 1 readable bytes.
        let got = unsafe { raw(long.as_ptr(), Encoding::Ansi) };
        assert_eq!(got.len(), MAX_STRING_CHARS + 1);
        assert_eq!(decode(got, Encoding::Ansi), Err(()));
    }
}
