//! C strings in and out: `LPCWSTR` (UTF-16) and `LPCSTR` (ANSI, taken as Latin-1: each byte
//! is the code point of the same value, so a name keeps its length in characters both ways).

/// The longest string read from a caller, in characters: `UNICODE_STRING`'s limit. A longer
/// string (or one never terminated within it) is refused rather than read on.
pub(crate) const MAX_STRING_CHARS: usize = 32_767;

/// The UTF-16 string at `p`: `None` for NULL, `Err` for one longer than
/// [`MAX_STRING_CHARS`] or not valid UTF-16.
///
/// # Safety
/// `p` is NULL or points at readable UTF-16 units up to a NUL, or at least
/// [`MAX_STRING_CHARS`] + 1 of them.
pub(crate) unsafe fn wide(p: *const u16) -> Option<Result<String, ()>> {
    if p.is_null() {
        return None;
    }
    let mut units = Vec::new();
    for i in 0..=MAX_STRING_CHARS {
        // SAFETY: units before the NUL are readable (the caller's contract), and the loop
        // stops at the first NUL or after MAX_STRING_CHARS + 1 units.
        let u = unsafe { p.add(i).read_unaligned() };
        if u == 0 {
            return Some(String::from_utf16(&units).map_err(|_| ()));
        }
        units.push(u);
    }
    Some(Err(()))
}

/// The units of the UTF-16 string at `p`, without its NUL: `None` for NULL or one longer
/// than [`MAX_STRING_CHARS`].
///
/// # Safety
/// As [`wide`].
pub(crate) unsafe fn wide_units(p: *const u16) -> Option<Vec<u16>> {
    if p.is_null() {
        return None;
    }
    let mut units = Vec::new();
    for i in 0..=MAX_STRING_CHARS {
        // SAFETY: as in `wide`.
        let u = unsafe { p.add(i).read_unaligned() };
        if u == 0 {
            return Some(units);
        }
        units.push(u);
    }
    None
}

/// The ANSI string at `p`, each byte taken as the Latin-1 character of its value: `None`
/// for NULL, `Err` for one longer than [`MAX_STRING_CHARS`].
///
/// # Safety
/// `p` is NULL or points at readable bytes up to a NUL, or at least [`MAX_STRING_CHARS`] + 1
/// of them.
pub(crate) unsafe fn ansi(p: *const u8) -> Option<Result<String, ()>> {
    if p.is_null() {
        return None;
    }
    let mut s = String::new();
    for i in 0..=MAX_STRING_CHARS {
        // SAFETY: as in `wide`, for bytes.
        let b = unsafe { p.add(i).read() };
        if b == 0 {
            return Some(Ok(s));
        }
        s.push(char::from(b));
    }
    Some(Err(()))
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

/// Which string type a function's `A` or `W` form takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// `W`: UTF-16.
    Wide,
    /// `A`: Latin-1 bytes.
    Ansi,
}

/// The name argument of a controller function in either encoding.
///
/// # Safety
/// As [`wide`] / [`ansi`], `p` being a `*const u16` for [`Encoding::Wide`] and a
/// `*const u8` for [`Encoding::Ansi`].
pub(crate) unsafe fn name(p: *const std::ffi::c_void, enc: Encoding) -> Option<Result<String, ()>> {
    match enc {
        // SAFETY: forwarded contract.
        Encoding::Wide => unsafe { wide(p.cast()) },
        // SAFETY: forwarded contract.
        Encoding::Ansi => unsafe { ansi(p.cast()) },
    }
}
