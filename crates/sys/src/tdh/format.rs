//! `TdhFormatProperty`: one value of a property as text.
//!
//! | in type | out type | text | source |
//! |---|---|---|---|
//! | INT8…INT64 | NULL, BYTE, SHORT, INT, LONG | decimal, signed (`-5`) | TDH_IN_TYPE / TDH_OUT_TYPE pages, Learn ("Remarks" of EVENT_PROPERTY_INFO) |
//! | UINT8…UINT64 | NULL, UNSIGNED*, PID, TID | decimal (`4096`) | same |
//! | UINT8…UINT64, INT*, HEXINT32, HEXINT64 | HEXINT8…HEXINT64, and HEXINT32/64 in types | `0x` and upper-case hex (`0x1F`) | Learn's TDH_OUT_TYPE ("hexadecimal"); the upper case as the "Using TdhFormatProperty" sample's published output |
//! | UINT32, HEXINT32 | WIN32ERROR, NTSTATUS, HRESULT | `0x` and upper-case hex (Windows prints the system message; etwsim has no message table: project's choice) | project's choice |
//! | UINT8, UINT32, BOOLEAN | BOOLEAN (and BOOLEAN's default) | `true` / `false` | TdhFormatProperty output as TraceEvent/`tracerpt` show it |
//! | UINT16 | PORT | the port in host order (network byte order swapped) | TDH_OUTTYPE_PORT on Learn |
//! | UINT32 | IPV4 | dotted quad of the bytes in order (`192.0.2.1`) | TDH_OUTTYPE_IPV4 |
//! | BINARY (16 bytes) | IPV6 | RFC 5952 text (`fe80::1`, lower case), as `RtlIpv6AddressToString` | TDH_OUTTYPE_IPV6 |
//! | FLOAT, DOUBLE | any | Rust's shortest round-trip decimal (`1.5`) | project's reading |
//! | POINTER, SIZET | any | `0x` and upper-case hex of the 4 or 8 bytes (`0x7FF6A000`) | as HEXINT |
//! | GUID | any | `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`, upper case | StringFromGUID2's format |
//! | FILETIME, SYSTEMTIME | DATETIME and default | ISO 8601 UTC with 7 fraction digits and TDH's LEFT-TO-RIGHT MARKs (U+200E) around the date parts: `\u{200E}2024\u{200E}-\u{200E}01\u{200E}-\u{200E}02T03:04:05.0000000Z` | TdhFormatProperty output as published in TraceEvent issues (the marks are TDH's) |
//! | SID, WBEMSID | any | `S-1-5-18` (Windows resolves account names; etwsim has none to resolve: project's choice) | ConvertSidToStringSid's format |
//! | UNICODESTRING, COUNTEDSTRING (22, 300) | any | the text (up to a NUL, or the length) | TDH_IN_TYPE |
//! | ANSISTRING, COUNTEDANSISTRING (23, 301) | any | the bytes as Windows-1252 | TDH_IN_TYPE |
//! | BINARY, COUNTEDBINARY (25) | HEXBINARY, default | `0x` and the bytes in upper-case hex (`0x0102FF`) | TDH_OUTTYPE_HEXBINARY |
//! | integers with a value map | any | the entry's text; a value not in the map: the number in decimal | Learn's EVENT_MAP_INFO |
//! | integers with a bit map | any | the entries whose bits are set, joined by ` | `; bits not in the map as `0x…` | Learn's EVENT_MAP_INFO (EVENTMAP_INFO_FLAG_MANIFEST_BITMAP) |
//!
//! Rows marked "project's choice" or "reading" are where Microsoft documents no output.

use super::schema::{intype as i, outtype as o};
use super::{
    EVENT_MAP_INFO, EVENTMAP_INFO_FLAG_MANIFEST_BITMAP, INSUFFICIENT_BUFFER, INVALID_EVENT_DATA,
    INVALID_PARAMETER, TRACE_EVENT_INFO,
};
use crate::ffi_guard;
use std::fmt::Write;

/// A value or bit map read from an `EVENT_MAP_INFO`.
pub(crate) struct Map {
    bits: bool,
    entries: Vec<(u32, String)>,
}

/// The most entries read from a caller's map.
const MAX_ENTRIES: u32 = 1 << 16;

/// The map at `p`.
///
/// # Safety
/// `p` points at a readable `EVENT_MAP_INFO` whose entries' `OutputOffset`s name
/// NUL-terminated UTF-16 strings from `p`.
unsafe fn read_map(p: *const EVENT_MAP_INFO) -> Option<Map> {
    // SAFETY: readable (contract).
    let h = unsafe { p.read_unaligned() };
    if h.EntryCount > MAX_ENTRIES {
        return None;
    }
    let base = p.cast::<u8>();
    let mut entries = Vec::with_capacity(h.EntryCount as usize);
    for k in 0..h.EntryCount as usize {
        // SAFETY: EntryCount entries (contract).
        let e = unsafe { (*p).MapEntryArray.as_ptr().add(k).read_unaligned() };
        // SAFETY: the string lies in the caller's buffer (contract).
        let text = unsafe { super::wide_name(base.add(e.OutputOffset as usize) as u64) }?;
        entries.push((e.Value, text));
    }
    Some(Map {
        bits: h.Flag & EVENTMAP_INFO_FLAG_MANIFEST_BITMAP != 0,
        entries,
    })
}

fn mapped(map: &Map, v: u64) -> String {
    if !map.bits {
        return match map.entries.iter().find(|(k, _)| u64::from(*k) == v) {
            Some((_, t)) => t.trim_end().to_owned(),
            None => v.to_string(),
        };
    }
    let mut parts = Vec::new();
    let mut left = v;
    for (k, t) in &map.entries {
        let k = u64::from(*k);
        if k != 0 && v & k == k {
            parts.push(t.trim_end().to_owned());
            left &= !k;
        }
    }
    if left != 0 || parts.is_empty() {
        parts.push(format!("0x{left:X}"));
    }
    parts.join(" | ")
}

fn le(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(a)
}

fn signed(b: &[u8]) -> i64 {
    let v = le(b);
    let bits = 8 * b.len() as u32;
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

fn hex_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    for x in b {
        let _ = write!(s, "{x:02X}");
    }
    s
}

fn guid(b: &[u8]) -> String {
    let d1 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let d2 = u16::from_le_bytes([b[4], b[5]]);
    let d3 = u16::from_le_bytes([b[6], b[7]]);
    format!(
        "{{{d1:08X}-{d2:04X}-{d3:04X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}}}",
        b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
    )
}

/// Days since 1970-01-01 → (year, month, day) (Howard Hinnant's civil_from_days).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

const LRM: char = '\u{200E}';

fn datetime(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32, frac7: u32) -> String {
    format!("{LRM}{y:04}{LRM}-{LRM}{mo:02}{LRM}-{LRM}{d:02}T{h:02}:{mi:02}:{s:02}.{frac7:07}Z")
}

fn filetime(v: u64) -> String {
    let secs = (v / 10_000_000) as i64 - 11_644_473_600;
    let frac = (v % 10_000_000) as u32;
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400) as u32;
    datetime(y, m, d, t / 3600, t / 60 % 60, t % 60, frac)
}

fn sid(b: &[u8]) -> Option<String> {
    let n = usize::from(*b.get(1)?);
    if b.len() < 8 + 4 * n {
        return None;
    }
    let auth = b[2..8].iter().fold(0u64, |a, &x| a << 8 | u64::from(x));
    let mut s = format!("S-{}-{auth}", b[0]);
    for k in 0..n {
        let at = 8 + 4 * k;
        let _ = write!(
            s,
            "-{}",
            u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
        );
    }
    Some(s)
}

fn ipv6(b: &[u8]) -> String {
    let a: [u8; 16] = b.try_into().unwrap_or([0; 16]);
    std::net::Ipv6Addr::from(a).to_string()
}

fn utf16(b: &[u8]) -> String {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

fn ansi(b: &[u8]) -> String {
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    etwsim::decode::fields::windows_1252(&b[..end])
}

/// The text of the value at the start of `data` and the bytes it takes.
pub(crate) fn format_value(
    in_type: u16,
    out_type: u16,
    length: u16,
    ptr: usize,
    data: &[u8],
    map: Option<&Map>,
) -> Result<(String, usize), u32> {
    let take = |n: usize| data.get(..n).ok_or(INVALID_EVENT_DATA);
    let int_size = match in_type {
        i::INT8 | i::UINT8 => Some(1),
        i::INT16 | i::UINT16 => Some(2),
        i::INT32 | i::UINT32 | i::HEXINT32 | i::BOOLEAN => Some(4),
        i::INT64 | i::UINT64 | i::HEXINT64 => Some(8),
        i::POINTER | i::SIZET => Some(ptr),
        _ => None,
    };
    if let Some(n) = int_size {
        let b = take(n)?;
        let v = le(b);
        if let Some(m) = map {
            return Ok((mapped(m, v), n));
        }
        let text = match (in_type, out_type) {
            (i::BOOLEAN, _) | (_, o::BOOLEAN) => (if v != 0 { "true" } else { "false" }).to_owned(),
            (_, o::HEXINT8 | o::HEXINT16 | o::HEXINT32 | o::HEXINT64)
            | (i::HEXINT32 | i::HEXINT64 | i::POINTER | i::SIZET, _)
            | (_, o::WIN32ERROR | o::NTSTATUS | o::HRESULT) => format!("0x{v:X}"),
            (i::UINT16, o::PORT) => u16::from_be_bytes([b[0], b[1]]).to_string(),
            (i::UINT32, o::IPV4) => format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]),
            (i::INT8 | i::INT16 | i::INT32 | i::INT64, _) => signed(b).to_string(),
            _ => v.to_string(),
        };
        return Ok((text, n));
    }
    Ok(match in_type {
        i::NULL => (String::new(), 0),
        i::FLOAT => {
            let b = take(4)?;
            (f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(), 4)
        }
        i::DOUBLE => (f64::from_bits(le(take(8)?)).to_string(), 8),
        i::GUID => (guid(take(16)?), 16),
        i::FILETIME => (filetime(le(take(8)?)), 8),
        i::SYSTEMTIME => {
            let b = take(16)?;
            let w = |k: usize| u16::from_le_bytes([b[2 * k], b[2 * k + 1]]);
            let t = datetime(
                i64::from(w(0)),
                u32::from(w(1)),
                u32::from(w(3)),
                u32::from(w(4)),
                u32::from(w(5)),
                u32::from(w(6)),
                u32::from(w(7)) * 10_000,
            );
            (t, 16)
        }
        i::SID => {
            let n = 8 + 4 * usize::from(*data.get(1).ok_or(INVALID_EVENT_DATA)?);
            (sid(take(n)?).ok_or(INVALID_EVENT_DATA)?, n)
        }
        i::WBEMSID => {
            if le(take(4)?) == 0 {
                (String::new(), 4)
            } else {
                let at = 2 * ptr;
                let k = usize::from(*data.get(at + 1).ok_or(INVALID_EVENT_DATA)?);
                let n = at + 8 + 4 * k;
                (sid(&take(n)?[at..]).ok_or(INVALID_EVENT_DATA)?, n)
            }
        }
        i::UNICODESTRING => {
            let n = if length > 0 {
                2 * usize::from(length)
            } else {
                data.chunks_exact(2)
                    .position(|c| c == [0, 0])
                    .map(|k| 2 * k + 2)
                    .ok_or(INVALID_EVENT_DATA)?
            };
            (utf16(take(n)?), n)
        }
        i::ANSISTRING => {
            let n = if length > 0 {
                usize::from(length)
            } else {
                data.iter()
                    .position(|&b| b == 0)
                    .ok_or(INVALID_EVENT_DATA)?
                    + 1
            };
            (ansi(take(n)?), n)
        }
        i::MANIFEST_COUNTEDSTRING | i::COUNTEDSTRING => {
            let n = le(take(2)?) as usize;
            (utf16(&take(2 + n)?[2..]), 2 + n)
        }
        i::MANIFEST_COUNTEDANSISTRING | i::COUNTEDANSISTRING => {
            let n = le(take(2)?) as usize;
            (ansi(&take(2 + n)?[2..]), 2 + n)
        }
        i::MANIFEST_COUNTEDBINARY => {
            let n = le(take(2)?) as usize;
            (hex_bytes(&take(2 + n)?[2..]), 2 + n)
        }
        i::BINARY => {
            let n = usize::from(length);
            let b = take(n)?;
            if out_type == o::IPV6 && n == 16 {
                (ipv6(b), n)
            } else {
                (hex_bytes(b), n)
            }
        }
        _ => return Err(INVALID_PARAMETER),
    })
}

/// `TdhFormatProperty(EventInfo, MapInfo, PointerSize, PropertyInType, PropertyOutType,
/// PropertyLength, UserDataLength, UserData, BufferSize, Buffer, UserDataConsumed)`: the
/// value at `UserData` as text (see the module's table), and the bytes it took.
/// `ERROR_INVALID_PARAMETER` for NULL `BufferSize` or `UserDataConsumed`, NULL `UserData`
/// with a length, a pointer size other than 4 or 8, an unknown in type;
/// `ERROR_EVT_INVALID_EVENT_DATA` when `UserDataLength` bytes do not hold the value;
/// `ERROR_INSUFFICIENT_BUFFER` with the bytes needed (text and NUL) in `*BufferSize`.
///
/// # Safety
/// Microsoft's contract: `UserData` holds `UserDataLength` bytes, `Buffer` `*BufferSize`
/// writable bytes (or is NULL), `MapInfo` NULL or a map of TdhGetEventMapInformation.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhFormatProperty(
    _eventinfo: *const TRACE_EVENT_INFO,
    mapinfo: *const EVENT_MAP_INFO,
    pointersize: u32,
    propertyintype: u16,
    propertyouttype: u16,
    propertylength: u16,
    userdatalength: u16,
    userdata: *const u8,
    buffersize: *mut u32,
    buffer: *mut u16,
    userdataconsumed: *mut u16,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if buffersize.is_null()
            || userdataconsumed.is_null()
            || (userdata.is_null() && userdatalength > 0)
            || !(pointersize == 4 || pointersize == 8)
        {
            return INVALID_PARAMETER;
        }
        let data = if userdata.is_null() {
            &[][..]
        } else {
            // SAFETY: UserDataLength bytes (contract).
            unsafe { std::slice::from_raw_parts(userdata, usize::from(userdatalength)) }
        };
        let map = if mapinfo.is_null() {
            None
        } else {
            // SAFETY: a map (contract).
            match unsafe { read_map(mapinfo) } {
                Some(m) => Some(m),
                None => return INVALID_PARAMETER,
            }
        };
        let (text, used) = match format_value(
            propertyintype,
            propertyouttype,
            propertylength,
            pointersize as usize,
            data,
            map.as_ref(),
        ) {
            Ok(v) => v,
            Err(e) => return e,
        };
        let wide: Vec<u16> = text.encode_utf16().chain([0]).collect();
        let need = (2 * wide.len()) as u32;
        // SAFETY: readable and writable (contract).
        let have = unsafe { buffersize.read_unaligned() };
        // SAFETY: as above.
        unsafe { buffersize.write_unaligned(need) };
        if buffer.is_null() || have < need {
            return INSUFFICIENT_BUFFER;
        }
        // SAFETY: `have` ≥ `need` writable bytes (contract); u16 writes unaligned-safe via
        // a byte copy.
        unsafe {
            std::ptr::copy_nonoverlapping(
                wide.as_ptr().cast::<u8>(),
                buffer.cast::<u8>(),
                need as usize,
            );
            userdataconsumed.write_unaligned(used as u16);
        }
        0
    })
}
