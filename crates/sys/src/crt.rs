//! The UTF-16 C runtime: `wcslen` … `_wcsdup`, the MSVC-dialect `printf` formatter and
//! strsafe's `StringCch*`/`StringCb*`, exported as `etwsim_*` for `include/win/` (whose
//! `wchar.h`, `stdio.h` and `strsafe.h` give them the Windows names).
//!
//! glibc's wide functions assume a 32-bit `wchar_t`; a program built with `-fshort-wchar`
//! hands them 16-bit strings and gets wrong lengths or crashes. These functions take
//! 16-bit units. Where Windows's CRT faults (a NULL string to `wcslen`, `wcscpy`,
//! `wcscmp`…), these report the fault on stderr and abort, so a bug fails as loudly as on
//! Windows; where Windows returns an error (`*_s`, strsafe), they return it.

use std::ffi::{c_char, c_int, c_void};

/// `EINVAL`.
const EINVAL: c_int = 22;
/// `ERANGE`.
const ERANGE: c_int = 34;
/// `STRUNCATE` (MSVC's errno value for a truncating `_TRUNCATE` copy).
const STRUNCATE: c_int = 80;
/// `_TRUNCATE`.
const TRUNCATE: usize = usize::MAX;
/// `STRSAFE_E_INSUFFICIENT_BUFFER`.
pub(crate) const STRSAFE_E_INSUFFICIENT_BUFFER: i32 = 0x8007_007Au32 as i32;
/// `STRSAFE_E_INVALID_PARAMETER`.
pub(crate) const STRSAFE_E_INVALID_PARAMETER: i32 = 0x8007_0057u32 as i32;
/// `STRSAFE_MAX_CCH`.
const STRSAFE_MAX_CCH: usize = 2_147_483_647;

unsafe extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn fwrite(ptr: *const c_void, size: usize, n: usize, stream: *mut c_void) -> usize;
    fn __errno_location() -> *mut c_int;
}

fn set_errno(e: c_int) {
    // SAFETY: glibc's per-thread errno location is always valid.
    unsafe { *__errno_location() = e };
}

/// Windows faults here (an access violation); so does this, with a message.
fn fault(func: &str) -> ! {
    eprintln!("etwsim: {func}: NULL pointer (an access violation on Windows)");
    std::process::abort()
}

/// Length of a NUL-terminated UTF-16 string.
///
/// # Safety
/// `s` is non-NULL and NUL-terminated.
unsafe fn len16(s: *const u16) -> usize {
    let mut n = 0;
    // SAFETY: the caller's string is NUL-terminated, so every unit up to it is readable.
    while unsafe { *s.add(n) } != 0 {
        n += 1;
    }
    n
}

/// Length of a UTF-16 string, reading at most `max` units.
///
/// # Safety
/// `s` points to `max` readable units or is NUL-terminated before them.
unsafe fn nlen16(s: *const u16, max: usize) -> usize {
    let mut n = 0;
    // SAFETY: units before `max` or before the NUL are readable (caller's contract).
    while n < max && unsafe { *s.add(n) } != 0 {
        n += 1;
    }
    n
}

/// # Safety
/// `s` is NUL-terminated.
unsafe fn slice16<'a>(s: *const u16) -> &'a [u16] {
    // SAFETY: `len16` units are readable.
    unsafe { std::slice::from_raw_parts(s, len16(s)) }
}

/// # Safety
/// `s` is NUL-terminated.
unsafe fn slice8<'a>(s: *const u8) -> &'a [u8] {
    // SAFETY: `s` is a NUL-terminated C string.
    unsafe { std::ffi::CStr::from_ptr(s.cast::<c_char>()) }.to_bytes()
}

/// `wcslen`. NULL faults, as on Windows.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcslen(s: *const u16) -> usize {
    if s.is_null() {
        fault("wcslen");
    }
    // SAFETY: non-NULL and NUL-terminated (contract).
    unsafe { len16(s) }
}

/// `wcsnlen`: at most `max` units are read. NULL faults, as on Windows.
///
/// # Safety
/// `s` is NULL, or readable for `max` units or up to its NUL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsnlen(s: *const u16, max: usize) -> usize {
    if s.is_null() {
        fault("wcsnlen");
    }
    // SAFETY: contract.
    unsafe { nlen16(s, max) }
}

/// `wcscpy`. NULL faults, as on Windows; the destination must hold the source.
///
/// # Safety
/// `src` NUL-terminated, `dst` writable for its length + 1, not overlapping.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcscpy(dst: *mut u16, src: *const u16) -> *mut u16 {
    if dst.is_null() || src.is_null() {
        fault("wcscpy");
    }
    // SAFETY: contract: `len + 1` units readable from src and writable at dst.
    unsafe { std::ptr::copy(src, dst, len16(src) + 1) };
    dst
}

/// `wcsncpy`: copies at most `n` units and pads with NULs (no terminator when `src` is
/// `n` units or longer, as C specifies).
///
/// # Safety
/// `dst` writable for `n` units; `src` readable up to `n` units or its NUL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsncpy(dst: *mut u16, src: *const u16, n: usize) -> *mut u16 {
    if n == 0 {
        return dst;
    }
    if dst.is_null() || src.is_null() {
        fault("wcsncpy");
    }
    // SAFETY: contract.
    unsafe {
        let len = nlen16(src, n);
        std::ptr::copy(src, dst, len);
        std::ptr::write_bytes(dst.add(len), 0, n - len);
    }
    dst
}

/// `wcscat`. NULL faults, as on Windows.
///
/// # Safety
/// Both NUL-terminated; `dst` has room for both.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcscat(dst: *mut u16, src: *const u16) -> *mut u16 {
    if dst.is_null() || src.is_null() {
        fault("wcscat");
    }
    // SAFETY: contract.
    unsafe { std::ptr::copy(src, dst.add(len16(dst)), len16(src) + 1) };
    dst
}

/// The `*_s` copy and concatenation: `dst` (capacity `size`) gets `existing` units kept,
/// then up to `count` units of `src` (`TRUNCATE`: as many as fit).
///
/// # Safety
/// `dst` writable for `size` units; `src` readable up to `count` units or its NUL.
unsafe fn copy_s(dst: *mut u16, size: usize, src: *const u16, count: usize, cat: bool) -> c_int {
    if dst.is_null() || size == 0 {
        set_errno(EINVAL);
        return EINVAL;
    }
    // SAFETY: `dst` has `size` writable units (contract).
    let out = unsafe { std::slice::from_raw_parts_mut(dst, size) };
    let start = if cat {
        match out.iter().position(|&c| c == 0) {
            Some(p) => p,
            None => {
                // An unterminated destination within its declared size.
                out[0] = 0;
                set_errno(EINVAL);
                return EINVAL;
            }
        }
    } else {
        0
    };
    if src.is_null() {
        out[0] = 0;
        set_errno(EINVAL);
        return EINVAL;
    }
    // SAFETY: `src` readable up to `count` units or its NUL (contract).
    let n = unsafe { nlen16(src, count) };
    let room = size - start - 1;
    let (n, truncated) = if n > room {
        if count != TRUNCATE {
            out[0] = 0;
            set_errno(ERANGE);
            return ERANGE;
        }
        (room, true)
    } else {
        (n, false)
    };
    // SAFETY: `n` units of src are readable (within `nlen16`'s count).
    let s = unsafe { std::slice::from_raw_parts(src, n) };
    out[start..start + n].copy_from_slice(s);
    out[start + n] = 0;
    if truncated { STRUNCATE } else { 0 }
}

/// `wcscpy_s`: EINVAL for a NULL `dst`, size 0 or NULL `src`; ERANGE (and `dst[0] = 0`)
/// when `src` does not fit.
///
/// # Safety
/// `dst` writable for `size` units; `src` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcscpy_s(dst: *mut u16, size: usize, src: *const u16) -> c_int {
    // SAFETY: contract.
    unsafe { copy_s(dst, size, src, usize::MAX - 1, false) }
}

/// `wcsncpy_s`: as `wcscpy_s`, at most `count` units; `_TRUNCATE` copies what fits and
/// returns STRUNCATE.
///
/// # Safety
/// `dst` writable for `size` units; `src` readable up to `count` units or its NUL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsncpy_s(
    dst: *mut u16,
    size: usize,
    src: *const u16,
    count: usize,
) -> c_int {
    if count == 0 && !dst.is_null() && size > 0 {
        // SAFETY: size > 0.
        unsafe { *dst = 0 };
        return 0;
    }
    // SAFETY: contract.
    unsafe { copy_s(dst, size, src, count, false) }
}

/// `wcscat_s`: as `wcscpy_s`, after `dst`'s string; EINVAL when `dst` has no NUL within
/// `size`.
///
/// # Safety
/// `dst` writable for `size` units; `src` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcscat_s(dst: *mut u16, size: usize, src: *const u16) -> c_int {
    // SAFETY: contract.
    unsafe { copy_s(dst, size, src, usize::MAX - 1, true) }
}

/// # Safety
/// Both readable up to `n` units or their NUL.
unsafe fn cmp16(a: *const u16, b: *const u16, n: usize, fold: bool) -> c_int {
    let f = |c: u16| {
        if fold && (u16::from(b'A')..=u16::from(b'Z')).contains(&c) {
            c + 32
        } else {
            c
        }
    };
    for i in 0..n {
        // SAFETY: within both strings (contract: we stop at the first NUL).
        let (x, y) = unsafe { (f(*a.add(i)), f(*b.add(i))) };
        if x != y {
            return c_int::from(x) - c_int::from(y);
        }
        if x == 0 {
            return 0;
        }
    }
    0
}

/// `wcscmp`: by UTF-16 unit. NULL faults, as on Windows.
///
/// # Safety
/// Both NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcscmp(a: *const u16, b: *const u16) -> c_int {
    if a.is_null() || b.is_null() {
        fault("wcscmp");
    }
    // SAFETY: contract.
    unsafe { cmp16(a, b, usize::MAX, false) }
}

/// `wcsncmp`. NULL faults, as on Windows.
///
/// # Safety
/// Both readable up to `n` units or their NUL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsncmp(a: *const u16, b: *const u16, n: usize) -> c_int {
    if n == 0 {
        return 0;
    }
    if a.is_null() || b.is_null() {
        fault("wcsncmp");
    }
    // SAFETY: contract.
    unsafe { cmp16(a, b, n, false) }
}

/// `_wcsicmp` in the "C" locale (A–Z fold to a–z). NULL: EINVAL and `_NLSCMPERROR`
/// (0x7fffffff), as the CRT's documented invalid-parameter return.
///
/// # Safety
/// Both NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsicmp(a: *const u16, b: *const u16) -> c_int {
    if a.is_null() || b.is_null() {
        set_errno(EINVAL);
        return 0x7fff_ffff;
    }
    // SAFETY: contract.
    unsafe { cmp16(a, b, usize::MAX, true) }
}

/// `wcschr`: the terminator itself is found for `c == 0`. NULL faults, as on Windows.
///
/// # Safety
/// `s` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcschr(s: *const u16, c: u16) -> *mut u16 {
    if s.is_null() {
        fault("wcschr");
    }
    // SAFETY: contract.
    let v = unsafe { std::slice::from_raw_parts(s, len16(s) + 1) };
    v.iter()
        .position(|&u| u == c)
        .map_or(std::ptr::null_mut(), |i| s.wrapping_add(i).cast_mut())
}

/// `wcsrchr`. NULL faults, as on Windows.
///
/// # Safety
/// `s` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsrchr(s: *const u16, c: u16) -> *mut u16 {
    if s.is_null() {
        fault("wcsrchr");
    }
    // SAFETY: contract.
    let v = unsafe { std::slice::from_raw_parts(s, len16(s) + 1) };
    v.iter()
        .rposition(|&u| u == c)
        .map_or(std::ptr::null_mut(), |i| s.wrapping_add(i).cast_mut())
}

/// `wcsstr`: an empty needle finds the haystack. NULL faults, as on Windows.
///
/// # Safety
/// Both NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsstr(hay: *const u16, needle: *const u16) -> *mut u16 {
    if hay.is_null() || needle.is_null() {
        fault("wcsstr");
    }
    // SAFETY: contract.
    let (h, n) = unsafe { (slice16(hay), slice16(needle)) };
    if n.is_empty() {
        return hay.cast_mut();
    }
    h.windows(n.len())
        .position(|w| w == n)
        .map_or(std::ptr::null_mut(), |i| hay.wrapping_add(i).cast_mut())
}

/// The C `strtol` family over UTF-16: the magnitude (saturated), its sign, and the units
/// consumed (0 when no number).
fn parse_int(s: &[u16], base: c_int) -> Option<(bool, u64, bool, usize)> {
    if base != 0 && !(2..=36).contains(&base) {
        return None;
    }
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let mut i = 0;
    while matches!(at(i), 0x20 | 0x09..=0x0d) {
        i += 1;
    }
    let neg = at(i) == u16::from(b'-');
    if neg || at(i) == u16::from(b'+') {
        i += 1;
    }
    let mut base = base as u32;
    let hex_prefix = at(i) == u16::from(b'0') && (at(i + 1) | 0x20) == u16::from(b'x');
    if (base == 0 || base == 16) && hex_prefix && (at(i + 2) as u8 as char).is_ascii_hexdigit() {
        i += 2;
        base = 16;
    } else if base == 0 {
        base = if at(i) == u16::from(b'0') { 8 } else { 10 };
    }
    let start = i;
    let mut v: u64 = 0;
    let mut overflow = false;
    while let Some(d) = char::from_u32(u32::from(at(i))).and_then(|c| c.to_digit(base)) {
        match v
            .checked_mul(u64::from(base))
            .and_then(|x| x.checked_add(u64::from(d)))
        {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return Some((false, 0, false, 0));
    }
    Some((neg, v, overflow, i))
}

/// # Safety
/// `s` NUL-terminated; `end` NULL or writable.
unsafe fn strtol16(s: *const u16, end: *mut *mut u16, base: c_int, signed: bool) -> i64 {
    if s.is_null() {
        set_errno(EINVAL);
        return 0;
    }
    // SAFETY: contract.
    let v = unsafe { slice16(s) };
    let r = parse_int(v, base);
    let consumed = r.map_or(0, |r| r.3);
    if !end.is_null() {
        // SAFETY: `end` writable (contract).
        unsafe { *end = s.wrapping_add(consumed).cast_mut() };
    }
    let Some((neg, mag, overflow, _)) = r else {
        set_errno(EINVAL);
        return 0;
    };
    // Windows's `long` is 32 bits.
    if signed {
        let lim = if neg { 1u64 << 31 } else { (1u64 << 31) - 1 };
        if overflow || mag > lim {
            set_errno(ERANGE);
            return if neg {
                i64::from(i32::MIN)
            } else {
                i64::from(i32::MAX)
            };
        }
        if neg { -(mag as i64) } else { mag as i64 }
    } else {
        if overflow || mag > u64::from(u32::MAX) {
            set_errno(ERANGE);
            return i64::from(u32::MAX);
        }
        let m = mag as u32;
        i64::from(if neg { m.wrapping_neg() } else { m })
    }
}

/// `wcstol` with Windows's 32-bit `long`: ERANGE and LONG_MAX/LONG_MIN on overflow; EINVAL
/// for a NULL string or a bad base.
///
/// # Safety
/// `s` NULL or NUL-terminated; `end` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcstol(s: *const u16, end: *mut *mut u16, base: c_int) -> i32 {
    // SAFETY: contract.
    unsafe { strtol16(s, end, base, true) as i32 }
}

/// `wcstoul` with Windows's 32-bit `unsigned long`.
///
/// # Safety
/// As `etwsim_wcstol`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcstoul(s: *const u16, end: *mut *mut u16, base: c_int) -> u32 {
    // SAFETY: contract.
    unsafe { strtol16(s, end, base, false) as u32 }
}

/// `_wtoi`: `(int)wcstol(s, NULL, 10)`; NULL gives EINVAL and 0.
///
/// # Safety
/// `s` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wtoi(s: *const u16) -> c_int {
    // SAFETY: contract.
    unsafe { strtol16(s, std::ptr::null_mut(), 10, true) as c_int }
}

/// `_wcsdup`: a `malloc` copy (free it with `free`); NULL for NULL (EINVAL) or no memory.
///
/// # Safety
/// `s` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_wcsdup(s: *const u16) -> *mut u16 {
    if s.is_null() {
        set_errno(EINVAL);
        return std::ptr::null_mut();
    }
    // SAFETY: contract.
    let n = unsafe { len16(s) } + 1;
    // SAFETY: plain allocation.
    let p = unsafe { malloc(n * 2) }.cast::<u16>();
    if !p.is_null() {
        // SAFETY: `n` units readable and writable.
        unsafe { std::ptr::copy_nonoverlapping(s, p, n) };
    }
    p
}

// ---- the formatter ----

/// One argument the header's C code took from a `va_list` (kinds from `etwsim_fmt_kinds`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union FmtArg {
    /// An integer (sign- or zero-extended by the C side as its kind says).
    pub i: i64,
    /// A floating-point number.
    pub d: f64,
    /// A pointer.
    pub p: *const c_void,
}

/// The `va_arg` type of each argument: `int`.
const K_INT: u8 = 1;
/// `long long`.
const K_I64: u8 = 2;
/// `double`.
const K_DOUBLE: u8 = 3;
/// `long double`.
const K_LDOUBLE: u8 = 4;
/// A pointer.
const K_PTR: u8 = 5;

/// A conversion: its flags, width, precision, size and type.
#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: Option<Width>,
    prec: Option<Width>,
    /// 1, 2, 4 or 8 bytes for integers; 0: the default (`int`).
    size: u8,
    /// `h` (narrow) or `l`/`w` (wide) on `s`/`c`: Some(false)/Some(true).
    wide: Option<bool>,
    long_double: bool,
    conv: u8,
}

#[derive(Clone, Copy)]
enum Width {
    Fixed(usize),
    Star,
}

/// One piece of a parsed format: literal units, or a conversion.
enum Piece {
    Lit(usize, usize),
    Conv(Spec),
    Percent,
}

/// Parses a format (units of either width); `None` for a conversion Windows refuses
/// (`%n`, an unknown type).
fn parse_fmt(f: &[u16]) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| {
        f.get(i)
            .map_or(0u8, |&c| if c < 128 { c as u8 } else { 0xff })
    };
    while i < f.len() {
        if f[i] != u16::from(b'%') {
            let s = i;
            while i < f.len() && f[i] != u16::from(b'%') {
                i += 1;
            }
            out.push(Piece::Lit(s, i));
            continue;
        }
        i += 1;
        if at(i) == b'%' {
            out.push(Piece::Percent);
            i += 1;
            continue;
        }
        let mut sp = Spec::default();
        loop {
            match at(i) {
                b'-' => sp.left = true,
                b'+' => sp.plus = true,
                b' ' => sp.space = true,
                b'0' => sp.zero = true,
                b'#' => sp.alt = true,
                _ => break,
            }
            i += 1;
        }
        let num = |i: &mut usize| {
            let mut n = 0usize;
            while at(*i).is_ascii_digit() {
                n = n
                    .saturating_mul(10)
                    .saturating_add(usize::from(at(*i) - b'0'));
                *i += 1;
            }
            n
        };
        if at(i) == b'*' {
            sp.width = Some(Width::Star);
            i += 1;
        } else if at(i).is_ascii_digit() {
            sp.width = Some(Width::Fixed(num(&mut i)));
        }
        if at(i) == b'.' {
            i += 1;
            if at(i) == b'*' {
                sp.prec = Some(Width::Star);
                i += 1;
            } else {
                sp.prec = Some(Width::Fixed(num(&mut i)));
            }
        }
        let rest = |i: usize, s: &[u8]| s.iter().enumerate().all(|(k, &c)| at(i + k) == c);
        match at(i) {
            b'h' if at(i + 1) == b'h' => (sp.size, i) = (1, i + 2),
            b'h' => (sp.size, sp.wide, i) = (2, Some(false), i + 1),
            b'l' if at(i + 1) == b'l' => (sp.size, i) = (8, i + 2),
            b'l' | b'w' => (sp.size, sp.wide, i) = (4, Some(true), i + 1),
            b'I' if rest(i, b"I64") => (sp.size, i) = (8, i + 3),
            b'I' if rest(i, b"I32") => (sp.size, i) = (4, i + 3),
            b'I' | b'j' | b'z' | b't' => (sp.size, i) = (8, i + 1),
            b'L' => (sp.long_double, i) = (true, i + 1),
            _ => {}
        }
        sp.conv = at(i);
        if !b"cCdiouxXeEfFgGpsS".contains(&sp.conv) {
            return None;
        }
        i += 1;
        out.push(Piece::Conv(sp));
    }
    Some(out)
}

/// The `va_arg` kinds of a parsed format's arguments, in order.
fn kinds(pieces: &[Piece]) -> Vec<u8> {
    let mut k = Vec::new();
    for p in pieces {
        let Piece::Conv(sp) = p else { continue };
        if matches!(sp.width, Some(Width::Star)) {
            k.push(K_INT);
        }
        if matches!(sp.prec, Some(Width::Star)) {
            k.push(K_INT);
        }
        k.push(match sp.conv {
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' if sp.long_double => K_LDOUBLE,
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => K_DOUBLE,
            b'p' | b's' | b'S' => K_PTR,
            _ if sp.size == 8 => K_I64,
            _ => K_INT,
        });
    }
    k
}

/// Reads a format's units: UTF-16 when `wide`, bytes otherwise.
///
/// # Safety
/// `fmt` NUL-terminated in its width.
unsafe fn fmt_units(fmt: *const c_void, wide: bool) -> Vec<u16> {
    if wide {
        // SAFETY: contract.
        unsafe { slice16(fmt.cast()) }.to_vec()
    } else {
        // SAFETY: contract.
        unsafe { slice8(fmt.cast()) }
            .iter()
            .map(|&b| u16::from(b))
            .collect()
    }
}

/// `etwsim_fmt_kinds`: writes the `va_arg` kind of each argument `fmt` consumes to
/// `kinds` (at most `max`); returns their count, or -1 for a refused format (`%n`, an
/// unknown conversion, NULL) or more than `max` arguments.
///
/// # Safety
/// `fmt` NULL or NUL-terminated; `kinds` writable for `max` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_fmt_kinds(
    fmt: *const c_void,
    wide: c_int,
    kinds_out: *mut u8,
    max: usize,
) -> c_int {
    if fmt.is_null() || kinds_out.is_null() {
        return -1;
    }
    // SAFETY: contract.
    let f = unsafe { fmt_units(fmt, wide != 0) };
    let Some(pieces) = parse_fmt(&f) else {
        return -1;
    };
    let k = kinds(&pieces);
    if k.len() > max {
        return -1;
    }
    // SAFETY: `max` bytes writable.
    unsafe { std::ptr::copy_nonoverlapping(k.as_ptr(), kinds_out, k.len()) };
    k.len() as c_int
}

/// Output being built: narrow bytes or UTF-16 units.
enum Out {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

impl Out {
    fn ascii(&mut self, s: &[u8]) {
        match self {
            Out::Narrow(v) => v.extend_from_slice(s),
            Out::Wide(v) => v.extend(s.iter().map(|&b| u16::from(b))),
        }
    }
    fn len(&self) -> usize {
        match self {
            Out::Narrow(v) => v.len(),
            Out::Wide(v) => v.len(),
        }
    }
}

/// Formats into `out`; `None` for a refused format.
///
/// # Safety
/// Pointer arguments point to what their conversions say (`%s`: a NUL-terminated string).
unsafe fn format(f: &[u16], fmt_wide: bool, args: &[FmtArg], out: &mut Out) -> Option<()> {
    let pieces = parse_fmt(f)?;
    let mut next = args.iter().copied();
    let mut arg = || next.next();
    for p in pieces {
        let mut sp = match p {
            Piece::Lit(s, e) => {
                match out {
                    Out::Narrow(v) => v.extend(f[s..e].iter().map(|&u| u as u8)),
                    Out::Wide(v) => v.extend_from_slice(&f[s..e]),
                }
                continue;
            }
            Piece::Percent => {
                out.ascii(b"%");
                continue;
            }
            Piece::Conv(sp) => sp,
        };
        // SAFETY (all union reads below): the C side filled each argument with the kind
        // `kinds` gave, which `format`'s own parse consumes in the same order.
        let width = match sp.width {
            Some(Width::Star) => {
                // SAFETY: the C side filled each argument with the kind etwsim_fmt_kinds gave; this parse consumes them in that order.
                let w = unsafe { arg()?.i } as i32;
                if w < 0 {
                    sp.left = true;
                }
                Some(w.unsigned_abs() as usize)
            }
            Some(Width::Fixed(w)) => Some(w),
            None => None,
        };
        let prec = match sp.prec {
            Some(Width::Star) => {
                // SAFETY: the C side filled each argument with the kind etwsim_fmt_kinds gave; this parse consumes them in that order.
                let p = unsafe { arg()?.i } as i32;
                (p >= 0).then_some(p as usize)
            }
            Some(Width::Fixed(p)) => Some(p),
            None => None,
        };
        let width = width.unwrap_or(0);
        // The body: units (for strings and chars) or ASCII (numbers), and a zero-pad prefix
        // length for numbers.
        let mut body: Vec<u16> = Vec::new();
        let mut sign_len = 0;
        let mut numeric = false;
        match sp.conv {
            b's' | b'S' | b'c' | b'C' => {
                // Which width the argument has: h → narrow, l/w → wide, otherwise `s`/`c`
                // are the function's own width and `S`/`C` the other.
                let is_wide = sp.wide.unwrap_or(fmt_wide == sp.conv.is_ascii_lowercase());
                let narrow_out = matches!(out, Out::Narrow(_));
                let mut units: Vec<u16> = Vec::new();
                if sp.conv.eq_ignore_ascii_case(&b'c') {
                    // SAFETY: the C side filled each argument with the kind etwsim_fmt_kinds gave; this parse consumes them in that order.
                    let v = unsafe { arg()?.i } as u32;
                    units.push(if is_wide {
                        v as u16
                    } else {
                        u16::from(v as u8)
                    });
                } else {
                    // SAFETY: the C side filled each argument with the kind etwsim_fmt_kinds gave; this parse consumes them in that order.
                    let p = unsafe { arg()?.p };
                    if p.is_null() {
                        units.extend("(null)".encode_utf16());
                    } else if is_wide {
                        let p = p.cast::<u16>();
                        // SAFETY: a UTF-16 string, read up to the precision or its NUL.
                        let n = unsafe { nlen16(p, prec.unwrap_or(usize::MAX)) };
                        // SAFETY: the caller's string, read up to the precision or its NUL (contract).
                        units.extend_from_slice(unsafe { std::slice::from_raw_parts(p, n) });
                    } else {
                        let p = p.cast::<u8>();
                        let max = prec.unwrap_or(usize::MAX);
                        let mut n = 0;
                        // SAFETY: a narrow string, read up to the precision or its NUL.
                        while n < max && unsafe { *p.add(n) } != 0 {
                            n += 1;
                        }
                        // SAFETY: the caller's string, read up to the precision or its NUL (contract).
                        let s = unsafe { std::slice::from_raw_parts(p, n) };
                        units.extend(s.iter().map(|&b| u16::from(b)));
                    }
                }
                // Narrow output of wide text is UTF-8; wide output of narrow text is the
                // "C" locale's one unit per byte; otherwise the units as they are.
                body = if narrow_out && is_wide {
                    String::from_utf16_lossy(&units)
                        .bytes()
                        .map(u16::from)
                        .collect()
                } else {
                    units
                };
            }
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'p' => {
                numeric = sp.conv != b'p';
                let raw = if sp.conv == b'p' {
                    // SAFETY: the C side filled each argument with the kind etwsim_fmt_kinds gave; this parse consumes them in that order.
                    (unsafe { arg()?.p }) as usize as u64
                } else {
                    // SAFETY: the C side filled each argument with the kind etwsim_fmt_kinds gave; this parse consumes them in that order.
                    (unsafe { arg()?.i }) as u64
                };
                let signed = matches!(sp.conv, b'd' | b'i');
                let bits = match sp.size {
                    1 => 8,
                    2 => 16,
                    8 => 64,
                    _ => 32,
                };
                let (neg, mag) = if signed {
                    let v = ((raw << (64 - bits)) as i64) >> (64 - bits);
                    (v < 0, v.unsigned_abs())
                } else if bits == 64 {
                    (false, raw)
                } else {
                    (false, raw & ((1u64 << bits) - 1))
                };
                let mut digits = match sp.conv {
                    b'o' => format!("{mag:o}"),
                    b'x' => format!("{mag:x}"),
                    b'X' => format!("{mag:X}"),
                    b'p' => format!("{mag:016X}"),
                    _ => mag.to_string(),
                };
                if let Some(pr) = prec.filter(|_| sp.conv != b'p') {
                    if pr == 0 && mag == 0 {
                        digits.clear();
                    }
                    while digits.len() < pr {
                        digits.insert(0, '0');
                    }
                }
                let mut pre = String::new();
                if neg {
                    pre.push('-');
                } else if signed && sp.plus {
                    pre.push('+');
                } else if signed && sp.space {
                    pre.push(' ');
                }
                if sp.alt && mag != 0 {
                    match sp.conv {
                        b'x' => pre.push_str("0x"),
                        b'X' => pre.push_str("0X"),
                        b'o' if !digits.starts_with('0') => pre.push('0'),
                        _ => {}
                    }
                }
                if prec.is_some() {
                    sp.zero = false;
                }
                sign_len = pre.len();
                body.extend(pre.bytes().chain(digits.bytes()).map(u16::from));
            }
            _ => {
                numeric = true;
                // SAFETY: the C side filled each argument with the kind etwsim_fmt_kinds gave; this parse consumes them in that order.
                let v = unsafe { arg()?.d };
                let s = float(v, sp.conv, prec.unwrap_or(6), sp.alt);
                let mut pre = String::new();
                if v.is_sign_negative() && !v.is_nan() {
                    pre.push('-');
                } else if sp.plus {
                    pre.push('+');
                } else if sp.space {
                    pre.push(' ');
                }
                if !v.is_finite() {
                    sp.zero = false;
                }
                sign_len = pre.len();
                body.extend(pre.bytes().chain(s.bytes()).map(u16::from));
            }
        }
        let pad = width.saturating_sub(body.len());
        let push = |out: &mut Out, units: &[u16]| match out {
            Out::Narrow(v) => v.extend(units.iter().map(|&u| u as u8)),
            Out::Wide(v) => v.extend_from_slice(units),
        };
        if sp.left {
            push(out, &body);
            out.ascii(&vec![b' '; pad]);
        } else if sp.zero && numeric {
            push(out, &body[..sign_len]);
            out.ascii(&vec![b'0'; pad]);
            push(out, &body[sign_len..]);
        } else {
            out.ascii(&vec![b' '; pad]);
            push(out, &body);
        }
    }
    Some(())
}

/// `%e`/`%f`/`%g` of `|v|` as the UCRT writes them (two exponent digits at least,
/// `inf`/`nan`).
fn float(v: f64, conv: u8, prec: usize, alt: bool) -> String {
    let upper = conv.is_ascii_uppercase();
    let a = v.abs();
    let s = if a.is_nan() {
        "nan".to_owned()
    } else if a.is_infinite() {
        "inf".to_owned()
    } else {
        match conv.to_ascii_lowercase() {
            b'f' => {
                let s = format!("{a:.prec$}");
                if alt && prec == 0 { s + "." } else { s }
            }
            b'e' => exp(a, prec, alt),
            _ => {
                let p = prec.max(1);
                let e = exp(a, p - 1, false);
                let x: i32 = e[e.find('e').unwrap_or(0) + 1..].parse().unwrap_or(0);
                let mut s = if x < -4 || x >= p as i32 {
                    exp(a, p - 1, alt)
                } else {
                    let fp = (p as i32 - 1 - x).max(0) as usize;
                    format!("{a:.fp$}")
                };
                if !alt {
                    let (m, e) = match s.find('e') {
                        Some(i) => (s[..i].to_owned(), s[i..].to_owned()),
                        None => (s.clone(), String::new()),
                    };
                    let m = if m.contains('.') {
                        m.trim_end_matches('0').trim_end_matches('.').to_owned()
                    } else {
                        m
                    };
                    s = m + &e;
                }
                s
            }
        }
    };
    if upper { s.to_ascii_uppercase() } else { s }
}

fn exp(a: f64, prec: usize, alt: bool) -> String {
    let s = format!("{a:.prec$e}");
    let (m, e) = s.split_at(s.find('e').unwrap_or(s.len()));
    let x: i32 = e.get(1..).and_then(|e| e.parse().ok()).unwrap_or(0);
    let dot = if alt && prec == 0 { "." } else { "" };
    format!(
        "{m}{dot}e{}{:02}",
        if x < 0 { '-' } else { '+' },
        x.unsigned_abs()
    )
}

/// Where `etwsim_fmt` writes.
const DEST_FILE: c_int = 0;
/// A buffer of `cap` units: truncated output is cut to `cap - 1` and NUL-terminated, and
/// the result is -1 (`swprintf`, `vswprintf`).
const DEST_TRUNC: c_int = 1;
/// `_snwprintf`: `cap` units at most, NUL-terminated only if room; -1 when cut.
const DEST_SN: c_int = 2;
/// `snprintf` (C99): cut and NUL-terminated; the result is the full length.
const DEST_C99: c_int = 3;
/// `sprintf`: no bound.
const DEST_UNBOUNDED: c_int = 4;

/// `etwsim_fmt`: formats `fmt` (UTF-16 when `wide`, else bytes) with the header-collected
/// `args`, to a `FILE *` (`dest` 0; wide text is written as UTF-8) or a buffer of `cap`
/// units in the `dest` mode. Returns the count the function documents, or -1 (with EINVAL)
/// for a NULL format or buffer or a refused conversion (`%n`, unknown).
///
/// # Safety
/// `fmt` NUL-terminated; `args` holds `nargs` arguments of `etwsim_fmt_kinds`'s kinds;
/// `out` a `FILE *` or a buffer of `cap` units.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_fmt(
    fmt: *const c_void,
    wide: c_int,
    args: *const FmtArg,
    nargs: usize,
    dest: c_int,
    out: *mut c_void,
    cap: usize,
) -> c_int {
    crate::ffi_guard(-1, || {
        let wide = wide != 0;
        if fmt.is_null() || out.is_null() || (args.is_null() && nargs != 0) {
            set_errno(EINVAL);
            return -1;
        }
        // SAFETY: contract.
        let f = unsafe { fmt_units(fmt, wide) };
        let args = if nargs == 0 {
            &[][..]
        } else {
            // SAFETY: `nargs` arguments (contract).
            unsafe { std::slice::from_raw_parts(args, nargs) }
        };
        let mut o = if wide {
            Out::Wide(Vec::new())
        } else {
            Out::Narrow(Vec::new())
        };
        // SAFETY: the arguments are what the format says (contract).
        if unsafe { format(&f, wide, args, &mut o) }.is_none() {
            set_errno(EINVAL);
            return -1;
        }
        let n = o.len();
        if dest == DEST_FILE {
            let bytes = match &o {
                Out::Narrow(v) => v.clone(),
                Out::Wide(v) => String::from_utf16_lossy(v).into_bytes(),
            };
            // SAFETY: `out` is a FILE * (contract).
            let w = unsafe { fwrite(bytes.as_ptr().cast(), 1, bytes.len(), out) };
            return if w == bytes.len() {
                n.min(i32::MAX as usize) as c_int
            } else {
                -1
            };
        }
        // SAFETY: `out` holds `cap` units (contract); `put` writes within it.
        unsafe { put(&o, out, cap, dest) }
    })
}

/// Writes formatted output into a caller's buffer in a `dest` mode.
///
/// # Safety
/// `out` writable for `cap` units of `o`'s width (unbounded for `DEST_UNBOUNDED`).
unsafe fn put(o: &Out, out: *mut c_void, cap: usize, dest: c_int) -> c_int {
    let n = o.len();
    let (copy, nul, ret) = match dest {
        DEST_UNBOUNDED => (n, true, n as i64),
        DEST_TRUNC | DEST_C99 if cap == 0 => {
            (0, false, if dest == DEST_C99 { n as i64 } else { -1 })
        }
        DEST_TRUNC if n >= cap => (cap - 1, true, -1),
        DEST_C99 if n >= cap => (cap - 1, true, n as i64),
        DEST_SN if n > cap => (cap, false, -1),
        DEST_SN if n == cap => (cap, false, n as i64),
        _ => (n, true, n as i64),
    };
    // SAFETY: `copy` (+1 for the NUL) units fit (checked above against `cap`).
    unsafe {
        match o {
            Out::Narrow(v) => {
                let d = out.cast::<u8>();
                std::ptr::copy_nonoverlapping(v.as_ptr(), d, copy);
                if nul {
                    *d.add(copy) = 0;
                }
            }
            Out::Wide(v) => {
                let d = out.cast::<u16>();
                std::ptr::copy_nonoverlapping(v.as_ptr(), d, copy);
                if nul {
                    *d.add(copy) = 0;
                }
            }
        }
    }
    ret.min(i64::from(i32::MAX)) as c_int
}

// ---- strsafe ----

/// `StringCchPrintf`'s body (`StringCbPrintf` passes bytes / unit size): formats into
/// `cch` units; STRSAFE_E_INSUFFICIENT_BUFFER with the output cut and NUL-terminated;
/// STRSAFE_E_INVALID_PARAMETER for `cch` 0 or above STRSAFE_MAX_CCH, a NULL destination
/// or format, or a refused conversion.
///
/// # Safety
/// `dst` writable for `cch` units; `fmt` and `args` as `etwsim_fmt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_strsafe_printf(
    dst: *mut c_void,
    cch: usize,
    wide: c_int,
    fmt: *const c_void,
    args: *const FmtArg,
    nargs: usize,
) -> i32 {
    crate::ffi_guard(STRSAFE_E_INVALID_PARAMETER, || {
        if dst.is_null() || cch == 0 || cch > STRSAFE_MAX_CCH {
            return STRSAFE_E_INVALID_PARAMETER;
        }
        let nul = |d: *mut c_void| {
            // SAFETY: cch ≥ 1 units writable.
            unsafe {
                if wide != 0 {
                    *d.cast::<u16>() = 0
                } else {
                    *d.cast::<u8>() = 0
                }
            }
        };
        if fmt.is_null() || (args.is_null() && nargs != 0) {
            nul(dst);
            return STRSAFE_E_INVALID_PARAMETER;
        }
        // SAFETY: contract.
        let f = unsafe { fmt_units(fmt, wide != 0) };
        let args = if nargs == 0 {
            &[][..]
        } else {
            // SAFETY: contract.
            unsafe { std::slice::from_raw_parts(args, nargs) }
        };
        let mut o = if wide != 0 {
            Out::Wide(Vec::new())
        } else {
            Out::Narrow(Vec::new())
        };
        // SAFETY: contract.
        if unsafe { format(&f, wide != 0, args, &mut o) }.is_none() {
            nul(dst);
            return STRSAFE_E_INVALID_PARAMETER;
        }
        // SAFETY: `cch` units writable.
        let r = unsafe { put(&o, dst, cch, DEST_TRUNC) };
        if r < 0 {
            STRSAFE_E_INSUFFICIENT_BUFFER
        } else {
            0
        }
    })
}

/// Reads a string of either width up to `max` units: its length, or `None` when no NUL
/// comes within `max`.
///
/// # Safety
/// `s` readable for `max` units or up to its NUL.
unsafe fn bounded_len(s: *const c_void, wide: bool, max: usize) -> Option<usize> {
    // SAFETY: contract.
    let n = unsafe {
        if wide {
            nlen16(s.cast(), max)
        } else {
            let p = s.cast::<u8>();
            let mut n = 0;
            while n < max && *p.add(n) != 0 {
                n += 1;
            }
            n
        }
    };
    (n < max).then_some(n)
}

/// `StringCchLength`: STRSAFE_E_INVALID_PARAMETER for NULL, `max` above STRSAFE_MAX_CCH,
/// or no NUL within `max` units (then `*len` is 0).
///
/// # Safety
/// `s` readable for `max` units or up to its NUL; `len` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_strsafe_length(
    s: *const c_void,
    wide: c_int,
    max: usize,
    len: *mut usize,
) -> i32 {
    // SAFETY: contract.
    let n = if s.is_null() || max > STRSAFE_MAX_CCH {
        None
    } else {
        // SAFETY: contract.
        unsafe { bounded_len(s, wide != 0, max) }
    };
    if !len.is_null() {
        // SAFETY: writable (contract).
        unsafe { *len = n.unwrap_or(0) };
    }
    if n.is_some() {
        0
    } else {
        STRSAFE_E_INVALID_PARAMETER
    }
}

/// `StringCchCopy`/`Cat` and their `N` forms: `dst` (`cch` units) gets, after its
/// existing string when `cat`, at most `count` units of `src`; cut and NUL-terminated
/// with STRSAFE_E_INSUFFICIENT_BUFFER when they do not fit; STRSAFE_E_INVALID_PARAMETER
/// for NULL, `cch` 0 or above STRSAFE_MAX_CCH, or a destination with no NUL within `cch`
/// (for `cat`).
///
/// # Safety
/// `dst` writable for `cch` units; `src` readable up to `count` units or its NUL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_strsafe_copy(
    dst: *mut c_void,
    cch: usize,
    wide: c_int,
    src: *const c_void,
    count: usize,
    cat: c_int,
) -> i32 {
    let w = wide != 0;
    if dst.is_null() || cch == 0 || cch > STRSAFE_MAX_CCH {
        return STRSAFE_E_INVALID_PARAMETER;
    }
    let start = if cat != 0 {
        // SAFETY: `cch` units readable.
        match unsafe { bounded_len(dst, w, cch) } {
            Some(n) => n,
            None => return STRSAFE_E_INVALID_PARAMETER,
        }
    } else {
        0
    };
    let unit = if w { 2 } else { 1 };
    // SAFETY: `start < cch`, inside the buffer.
    let at = unsafe { dst.cast::<u8>().add(start * unit) };
    if src.is_null() {
        // SAFETY: one unit at `at` is writable.
        unsafe { std::ptr::write_bytes(at, 0, unit) };
        return STRSAFE_E_INVALID_PARAMETER;
    }
    // SAFETY: contract.
    let n = unsafe { bounded_len(src, w, count) }.unwrap_or(count);
    let room = cch - start - 1;
    let take = n.min(room);
    // SAFETY: `take` units readable from src, `take + 1` writable at `at`.
    unsafe {
        std::ptr::copy(src.cast::<u8>(), at, take * unit);
        std::ptr::write_bytes(at.add(take * unit), 0, unit);
    }
    if n > room {
        STRSAFE_E_INSUFFICIENT_BUFFER
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<u16> {
        s.encode_utf16().chain([0]).collect()
    }

    fn fmtw(f: &str, args: &[FmtArg]) -> String {
        let f = w(f);
        let mut buf = [0u16; 256];
        // SAFETY: valid format, arguments and buffer.
        let n = unsafe {
            etwsim_fmt(
                f.as_ptr().cast(),
                1,
                args.as_ptr(),
                args.len(),
                1,
                buf.as_mut_ptr().cast(),
                256,
            )
        };
        assert!(n >= 0, "{f:?}");
        String::from_utf16(&buf[..n as usize]).unwrap()
    }

    #[test]
    fn lengths_and_copies() {
        let s = w("23 characters long text");
        // SAFETY: NUL-terminated.
        assert_eq!(unsafe { etwsim_wcslen(s.as_ptr()) }, 23);
        let mut d = [1u16; 8];
        // SAFETY: an 8-unit buffer.
        assert_eq!(
            // SAFETY: valid pointers and sizes, built just above.
            unsafe { etwsim_wcscpy_s(d.as_mut_ptr(), 8, s.as_ptr()) },
            ERANGE
        );
        assert_eq!(d[0], 0);
        // SAFETY: as above.
        assert_eq!(
            // SAFETY: valid pointers and sizes, built just above.
            unsafe { etwsim_wcsncpy_s(d.as_mut_ptr(), 8, s.as_ptr(), TRUNCATE) },
            STRUNCATE
        );
        assert_eq!(String::from_utf16(&d[..7]).unwrap(), "23 char");
        // SAFETY: NULL destination is refused.
        assert_eq!(
            // SAFETY: valid pointers and sizes, built just above.
            unsafe { etwsim_wcscpy_s(std::ptr::null_mut(), 8, s.as_ptr()) },
            EINVAL
        );
        let mut e = [b'x' as u16; 4];
        // SAFETY: an unterminated destination within its declared size.
        assert_eq!(
            // SAFETY: valid pointers and sizes, built just above.
            unsafe { etwsim_wcscat_s(e.as_mut_ptr(), 4, s.as_ptr()) },
            EINVAL
        );
    }

    #[test]
    fn numbers() {
        let s = w("  -0x7fffffff9z");
        let mut end = std::ptr::null_mut();
        // SAFETY: NUL-terminated, writable end.
        assert_eq!(unsafe { etwsim_wcstol(s.as_ptr(), &mut end, 0) }, i32::MIN);
        // SAFETY: `end` points into `s`.
        assert_eq!(unsafe { end.offset_from(s.as_ptr()) }, 14);
        let s = w("42abc");
        // SAFETY: NUL-terminated.
        assert_eq!(unsafe { etwsim_wtoi(s.as_ptr()) }, 42);
    }

    #[test]
    fn msvc_dialect() {
        let n = |i: i64| FmtArg { i };
        let narrow = b"narrow\0";
        let wide = w("wide");
        let p = |p: *const c_void| FmtArg { p };
        assert_eq!(
            fmtw(
                "%I64x|%5d|%-4u|%04X",
                &[n(0x1234_5678_9abc), n(-42), n(7), n(255)]
            ),
            "123456789abc|  -42|7   |00FF"
        );
        assert_eq!(
            fmtw(
                "%s %S %hs %ls %ws",
                &[
                    p(wide.as_ptr().cast()),
                    p(narrow.as_ptr().cast()),
                    p(narrow.as_ptr().cast()),
                    p(wide.as_ptr().cast()),
                    p(wide.as_ptr().cast())
                ]
            ),
            "wide narrow narrow wide wide"
        );
        assert_eq!(
            fmtw(
                "%.3f %e %g %g",
                &[
                    FmtArg { d: 1.0 / 3.0 },
                    FmtArg { d: 1234.5 },
                    FmtArg { d: 0.0001 },
                    FmtArg { d: 1e20 }
                ]
            ),
            "0.333 1.234500e+03 0.0001 1e+20"
        );
        assert_eq!(
            fmtw("%p", &[p(0x1234 as *const c_void)]),
            "0000000000001234"
        );
        let f = w("%n");
        let mut k = [0u8; 4];
        // SAFETY: valid format and buffer.
        assert_eq!(
            // SAFETY: valid pointers and sizes, built just above.
            unsafe { etwsim_fmt_kinds(f.as_ptr().cast(), 1, k.as_mut_ptr(), 4) },
            -1
        );
    }

    #[test]
    fn strsafe() {
        let mut d = [0u16; 6];
        let f = w("%d-%d");
        let a = [FmtArg { i: 1234 }, FmtArg { i: 5678 }];
        // SAFETY: a 6-unit buffer.
        let r = unsafe {
            etwsim_strsafe_printf(
                d.as_mut_ptr().cast(),
                6,
                1,
                f.as_ptr().cast(),
                a.as_ptr(),
                2,
            )
        };
        assert_eq!(r, STRSAFE_E_INSUFFICIENT_BUFFER);
        assert_eq!(String::from_utf16(&d[..5]).unwrap(), "1234-");
        assert_eq!(d[5], 0);
        // SAFETY: cch 0 is refused before any write.
        let r = unsafe {
            etwsim_strsafe_printf(
                d.as_mut_ptr().cast(),
                0,
                1,
                f.as_ptr().cast(),
                a.as_ptr(),
                2,
            )
        };
        assert_eq!(r, STRSAFE_E_INVALID_PARAMETER);
        let un = [b'a' as u16; 4];
        let mut len = 9;
        // SAFETY: 4 readable units, no NUL among them.
        assert_eq!(
            // SAFETY: valid pointers and sizes, built just above.
            unsafe { etwsim_strsafe_length(un.as_ptr().cast(), 1, 4, &mut len) },
            STRSAFE_E_INVALID_PARAMETER
        );
        assert_eq!(len, 0);
    }
}
