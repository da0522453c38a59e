//! Field values ([`Value`], [`Field`]) and how they are shown (DEC-12, DEC-27, DEC-28).

use super::schema::{FieldDef, InType, OutType};
use crate::fields::windows_1252_char as windows_1252;
use etwsim_types::Guid;
use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// `SYSTEMTIME` (DEC-09): the one type the MOF, manifest and TraceLogging decoders share.
pub use crate::fields::SystemTime;

/// One decoded value, its variant fixed by the field's [`InType`] (DEC-09).
///
/// Text in UTF-16 is held as a `String` (unpaired surrogates become U+FFFD); 8-bit text is
/// held as its bytes, because their encoding depends on the OutType (DEC-12) — see
/// [`Field::text`].
#[derive(Clone, PartialEq, Debug)]
pub enum Value {
    /// UNICODESTRING (1): NUL-terminated UTF-16.
    CStr16(String),
    /// ANSISTRING (2): NUL-terminated 8-bit text, without the NUL.
    CStr8(Vec<u8>),
    /// INT8 (3).
    I8(i8),
    /// UINT8 (4).
    U8(u8),
    /// INT16 (5).
    I16(i16),
    /// UINT16 (6).
    U16(u16),
    /// INT32 (7).
    I32(i32),
    /// UINT32 (8).
    U32(u32),
    /// INT64 (9).
    I64(i64),
    /// UINT64 (10).
    U64(u64),
    /// FLOAT (11).
    F32(f32),
    /// DOUBLE (12).
    F64(f64),
    /// BOOL32 (13): any non-zero value is true.
    Bool32(i32),
    /// BINARY (14), COUNTEDBINARY (25) and the bytes of a CUSTOM field.
    Binary(Vec<u8>),
    /// GUID (15).
    Guid(Guid),
    /// POINTER (16), zero-extended from a 32-bit writer.
    Pointer(u64),
    /// FILETIME (17): 100-ns intervals since 1601-01-01 UTC.
    FileTime(i64),
    /// SYSTEMTIME (18).
    SystemTime(SystemTime),
    /// SID (19): the binary SID, `8 + 4 × SubAuthorityCount` bytes.
    Sid(Vec<u8>),
    /// HEXINT32 (20).
    HexInt32(u32),
    /// HEXINT64 (21).
    HexInt64(u64),
    /// COUNTEDSTRING (22): counted UTF-16.
    Str16(String),
    /// COUNTEDANSISTRING (23): counted 8-bit text.
    Str8(Vec<u8>),
    /// STRUCT (24): the members.
    Struct(Vec<Field>),
    /// An array field (CCOUNT or VCOUNT): the elements, each of the field's InType.
    Array(Vec<Value>),
}

impl Value {
    /// The InType a scalar of this variant has; `None` for `Binary` (three InTypes) and
    /// `Array`.
    pub fn in_type(&self) -> Option<InType> {
        Some(match self {
            Value::CStr16(_) => InType::UNICODE_STRING,
            Value::CStr8(_) => InType::ANSI_STRING,
            Value::I8(_) => InType::INT8,
            Value::U8(_) => InType::UINT8,
            Value::I16(_) => InType::INT16,
            Value::U16(_) => InType::UINT16,
            Value::I32(_) => InType::INT32,
            Value::U32(_) => InType::UINT32,
            Value::I64(_) => InType::INT64,
            Value::U64(_) => InType::UINT64,
            Value::F32(_) => InType::FLOAT,
            Value::F64(_) => InType::DOUBLE,
            Value::Bool32(_) => InType::BOOL32,
            Value::Guid(_) => InType::GUID,
            Value::Pointer(_) => InType::POINTER,
            Value::FileTime(_) => InType::FILETIME,
            Value::SystemTime(_) => InType::SYSTEMTIME,
            Value::Sid(_) => InType::SID,
            Value::HexInt32(_) => InType::HEXINT32,
            Value::HexInt64(_) => InType::HEXINT64,
            Value::Str16(_) => InType::COUNTED_STRING,
            Value::Str8(_) => InType::COUNTED_ANSI_STRING,
            Value::Struct(_) => InType::STRUCT,
            Value::Binary(_) | Value::Array(_) => return None,
        })
    }

    /// `true` when a scalar of `in_type` may hold this value.
    pub fn fits(&self, in_type: InType) -> bool {
        match self {
            Value::Binary(_) => in_type == InType::BINARY || in_type == InType::COUNTED_BINARY,
            v => v.in_type() == Some(in_type),
        }
    }

    /// The value as a signed integer, for every integer variant (HEXINT and POINTER
    /// included, reinterpreted).
    pub fn as_i64(&self) -> Option<i64> {
        Some(match *self {
            Value::I8(v) => v.into(),
            Value::U8(v) => v.into(),
            Value::I16(v) => v.into(),
            Value::U16(v) => v.into(),
            Value::I32(v) | Value::Bool32(v) => v.into(),
            Value::U32(v) | Value::HexInt32(v) => v.into(),
            Value::I64(v) | Value::FileTime(v) => v,
            Value::U64(v) | Value::HexInt64(v) | Value::Pointer(v) => v as i64,
            _ => return None,
        })
    }

    /// The value as an unsigned integer, for every integer variant (negative values
    /// reinterpreted at their width).
    pub fn as_u64(&self) -> Option<u64> {
        Some(match *self {
            Value::I8(v) => u64::from(v as u8),
            Value::I16(v) => u64::from(v as u16),
            Value::I32(v) | Value::Bool32(v) => u64::from(v as u32),
            Value::I64(v) | Value::FileTime(v) => v as u64,
            _ => return self.as_i64().map(|v| v as u64),
        })
    }
}

impl fmt::Display for Value {
    /// The value with its InType's default rendering (no OutType hint).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, self, OutType::DEFAULT)
    }
}

impl Value {
    /// The value rendered with the OutType hint `out` (DEC-27, DEC-28), strings unquoted: what
    /// [`Field::display_value`] shows for one element of an array field.
    pub fn display_with(&self, out: OutType) -> impl fmt::Display + '_ {
        struct Hinted<'a>(&'a Value, OutType);
        impl fmt::Display for Hinted<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                render(f, self.0, self.1)
            }
        }
        Hinted(self, out)
    }
}

/// One decoded field: its definition and its value.
#[derive(Clone, PartialEq, Debug)]
pub struct Field {
    /// The definition from the metadata.
    pub def: FieldDef,
    /// The value from the payload.
    pub value: Value,
}

impl Field {
    /// The field name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The text of a string field: UTF-16 strings as they are, 8-bit strings decoded as
    /// UTF-8 when the OutType is UTF8, XML or JSON and as Windows-1252 otherwise (DEC-12).
    /// `None` for other fields.
    pub fn text(&self) -> Option<Cow<'_, str>> {
        match &self.value {
            Value::CStr16(s) | Value::Str16(s) => Some(Cow::Borrowed(s)),
            Value::CStr8(b) | Value::Str8(b) => Some(ansi_text(b, self.def.out_type)),
            _ => None,
        }
    }

    /// The member of a struct field with this name.
    pub fn member(&self, name: &str) -> Option<&Field> {
        match &self.value {
            Value::Struct(members) => members.iter().find(|m| m.name() == name),
            _ => None,
        }
    }

    /// The value rendered with the field's OutType hint (DEC-27, DEC-28): what
    /// [`Display`](fmt::Display) shows after `name=`.
    pub fn display_value(&self) -> impl fmt::Display + '_ {
        self.value.display_with(self.def.out_type)
    }
}

impl fmt::Display for Field {
    /// `name=value`, strings quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=", self.def.name)?;
        render_quoted(f, &self.value, self.def.out_type)
    }
}

/// Strings quoted (so commas inside them read clearly), everything else as [`render`].
pub(crate) fn render_quoted(f: &mut fmt::Formatter<'_>, v: &Value, out: OutType) -> fmt::Result {
    match v {
        Value::CStr16(s) | Value::Str16(s) => write!(f, "{s:?}"),
        Value::CStr8(b) | Value::Str8(b) => write!(f, "{:?}", ansi_text(b, out)),
        _ => render(f, v, out),
    }
}

/// 8-bit text per DEC-12: UTF-8 for the UTF8, XML and JSON hints, Windows-1252 otherwise.
fn ansi_text(bytes: &[u8], out: OutType) -> Cow<'_, str> {
    if matches!(out, OutType::UTF8 | OutType::XML | OutType::JSON) {
        String::from_utf8_lossy(bytes)
    } else if bytes.is_ascii() {
        Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default())
    } else {
        Cow::Owned(bytes.iter().map(|&b| windows_1252(b)).collect())
    }
}

/// Renders a value with an OutType hint (DEC-27), in the invariant culture with no digit
/// grouping and decimal for everything unhinted (DEC-28). Hex digits are upper case,
/// except CODE_POINTER's, which DEC-27 gives in lower case.
pub(crate) fn render(f: &mut fmt::Formatter<'_>, v: &Value, out: OutType) -> fmt::Result {
    match (v, out) {
        (Value::CStr16(s) | Value::Str16(s), _) => f.write_str(s),
        (Value::CStr8(b) | Value::Str8(b), _) => f.write_str(&ansi_text(b, out)),
        (Value::I8(c), OutType::STRING) => write!(f, "{}", windows_1252(*c as u8)),
        (Value::U8(c), OutType::STRING) => write!(f, "{}", windows_1252(*c)),
        (Value::U16(c), OutType::STRING) => {
            let c = char::from_u32(u32::from(*c)).unwrap_or('\u{FFFD}');
            write!(f, "{c}")
        }
        (Value::U8(b), OutType::BOOLEAN) => write!(f, "{}", *b != 0),
        (Value::Bool32(b), _) => write!(f, "{}", *b != 0),
        (Value::U16(p), OutType::PORT) => write!(f, "{}", p.swap_bytes()),
        (Value::U32(a) | Value::HexInt32(a), OutType::IPV4) => {
            let [a, b, c, d] = a.to_le_bytes();
            write!(f, "{a}.{b}.{c}.{d}")
        }
        (Value::U32(e) | Value::HexInt32(e), OutType::WIN32_ERROR) => write!(f, "0x{e:X}"),
        (Value::I32(e), OutType::WIN32_ERROR) => write!(f, "0x{:X}", *e as u32),
        (Value::U32(e) | Value::HexInt32(e), OutType::NTSTATUS | OutType::HRESULT) => {
            write!(f, "0x{e:08X}")
        }
        (Value::I32(e), OutType::NTSTATUS | OutType::HRESULT) => write!(f, "0x{:08X}", *e as u32),
        (Value::U64(p) | Value::HexInt64(p) | Value::Pointer(p), OutType::CODE_POINTER) => {
            write!(f, "0x{p:08x}")
        }
        (Value::U32(p) | Value::HexInt32(p), OutType::CODE_POINTER) => write!(f, "0x{p:08x}"),
        (Value::I8(x), OutType::HEX) => write!(f, "0x{:02X}", *x as u8),
        (Value::U8(x), OutType::HEX) => write!(f, "0x{x:02X}"),
        (Value::I16(x), OutType::HEX) => write!(f, "0x{:04X}", *x as u16),
        (Value::U16(x), OutType::HEX) => write!(f, "0x{x:04X}"),
        (Value::I32(x), OutType::HEX) => write!(f, "0x{:08X}", *x as u32),
        (Value::U32(x), OutType::HEX) => write!(f, "0x{x:08X}"),
        (Value::I64(x), OutType::HEX) => write!(f, "0x{:016X}", *x as u64),
        (Value::U64(x), OutType::HEX) => write!(f, "0x{x:016X}"),
        (Value::HexInt32(x), _) => write!(f, "0x{x:08X}"),
        (Value::HexInt64(x) | Value::Pointer(x), _) => write!(f, "0x{x:016X}"),
        (Value::U8(x), OutType::SIGNED) => write!(f, "{}", *x as i8),
        (Value::U16(x), OutType::SIGNED) => write!(f, "{}", *x as i16),
        (Value::U32(x), OutType::SIGNED) => write!(f, "{}", *x as i32),
        (Value::U64(x), OutType::SIGNED) => write!(f, "{}", *x as i64),
        (Value::I8(x), OutType::UNSIGNED) => write!(f, "{}", *x as u8),
        (Value::I16(x), OutType::UNSIGNED) => write!(f, "{}", *x as u16),
        (Value::I32(x), OutType::UNSIGNED) => write!(f, "{}", *x as u32),
        (Value::I64(x), OutType::UNSIGNED) => write!(f, "{}", *x as u64),
        (Value::I8(x), _) => write!(f, "{x}"),
        (Value::U8(x), _) => write!(f, "{x}"),
        (Value::I16(x), _) => write!(f, "{x}"),
        (Value::U16(x), _) => write!(f, "{x}"),
        (Value::I32(x), _) => write!(f, "{x}"),
        (Value::U32(x), _) => write!(f, "{x}"),
        (Value::I64(x), OutType::FILETIME) | (Value::FileTime(x), _) => {
            f.write_str(&etwsim_types::record::filetime_utc(*x))
        }
        (Value::I64(x), _) => write!(f, "{x}"),
        (Value::U64(x), _) => write!(f, "{x}"),
        (Value::F32(x), _) => write!(f, "{x}"),
        (Value::F64(x), _) => write!(f, "{x}"),
        (Value::Guid(g), _) => write!(f, "{g}"),
        (Value::SystemTime(t), _) => write!(f, "{t}"),
        (Value::Sid(b), _) => f.write_str(&sid_text(b)),
        (Value::Binary(b), OutType::IPV6) if b.len() == 16 => f.write_str(&ipv6_text(b)),
        (Value::Binary(b), OutType::SOCKET_ADDRESS) => match socket_address_text(b) {
            Some(s) => f.write_str(&s),
            None => f.write_str(&hex_bytes(b)),
        },
        (Value::Binary(b), _) => f.write_str(&hex_bytes(b)),
        (Value::Struct(members), _) => {
            f.write_str("{")?;
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{m}")?;
            }
            f.write_str("}")
        }
        (Value::Array(items), _) => {
            f.write_str("[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                render_quoted(f, item, out)?;
            }
            f.write_str("]")
        }
    }
}

/// `0x` and the bytes in upper-case hex (TDH's HEXBINARY form); empty binary is `0x`.
fn hex_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    for x in b {
        let _ = write!(s, "{x:02X}");
    }
    s
}

/// `S-R-A-S1-S2…`; a SID shorter than its header is shown as hex.
fn sid_text(b: &[u8]) -> String {
    if b.len() < 8 {
        return hex_bytes(b);
    }
    let mut authority = [0u8; 8];
    authority[2..].copy_from_slice(&b[2..8]);
    let mut s = format!("S-{}-{}", b[0], u64::from_be_bytes(authority));
    for sub in b[8..].chunks_exact(4) {
        let _ = write!(
            s,
            "-{}",
            u32::from_le_bytes([sub[0], sub[1], sub[2], sub[3]])
        );
    }
    s
}

/// The colon form with the longest run (≥ 2) of zero groups elided (DEC-27, RFC 5952).
fn ipv6_text(b: &[u8]) -> String {
    let mut octets = [0u8; 16];
    octets.copy_from_slice(&b[..16]);
    std::net::Ipv6Addr::from(octets).to_string()
}

/// `address:port` for AF_INET (2) and `[address]:port` for AF_INET6 (23) sockaddrs.
fn socket_address_text(b: &[u8]) -> Option<String> {
    let family = u16::from_le_bytes([*b.first()?, *b.get(1)?]);
    let port = u16::from_be_bytes([*b.get(2)?, *b.get(3)?]);
    match family {
        2 => {
            let a = b.get(4..8)?;
            Some(format!("{}.{}.{}.{}:{port}", a[0], a[1], a[2], a[3]))
        }
        23 => Some(format!("[{}]:{port}", ipv6_text(b.get(8..24)?))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(value: Value, out: OutType) -> String {
        Field {
            def: FieldDef::new("x", value.in_type().unwrap_or(InType::BINARY)).with_out_type(out),
            value,
        }
        .display_value()
        .to_string()
    }

    #[test]
    fn one_array_element_renders_with_its_fields_hint() {
        // rule: DEC-27
        assert_eq!(
            Value::U32(42).display_with(OutType::HEX).to_string(),
            "0x0000002A"
        );
        assert_eq!(
            Value::U16(0x41).display_with(OutType::STRING).to_string(),
            "A"
        );
        assert_eq!(
            Value::U32(42).display_with(OutType::DEFAULT).to_string(),
            "42"
        );
    }

    #[test]
    fn out_type_hints_render_as_dec_27_says() {
        // rule: DEC-27
        assert_eq!(shown(Value::U32(0x2A), OutType::HEX), "0x0000002A");
        assert_eq!(shown(Value::U8(7), OutType::HEX), "0x07");
        assert_eq!(
            shown(Value::HexInt64(0xAB), OutType::DEFAULT),
            "0x00000000000000AB"
        );
        assert_eq!(shown(Value::U32(1234), OutType::PID), "1234");
        assert_eq!(shown(Value::U16(0x5000), OutType::PORT), "80");
        assert_eq!(
            shown(Value::U32(u32::from_le_bytes([10, 0, 0, 1])), OutType::IPV4),
            "10.0.0.1"
        );
        let mut v6 = [0u8; 16];
        v6[0] = 0x20;
        v6[1] = 0x01;
        v6[2] = 0x0d;
        v6[3] = 0xb8;
        v6[15] = 1;
        assert_eq!(
            shown(Value::Binary(v6.to_vec()), OutType::IPV6),
            "2001:db8::1"
        );
        let mut sa = vec![2, 0, 0x1F, 0x90];
        sa.extend_from_slice(&[192, 168, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            shown(Value::Binary(sa), OutType::SOCKET_ADDRESS),
            "192.168.1.2:8080"
        );
        assert_eq!(shown(Value::U32(5), OutType::WIN32_ERROR), "0x5");
        assert_eq!(
            shown(Value::I32(-2147024891), OutType::HRESULT),
            "0x80070005"
        );
        assert_eq!(
            shown(Value::U32(0xC0000034), OutType::NTSTATUS),
            "0xC0000034"
        );
        assert_eq!(
            shown(Value::U64(0x1234), OutType::CODE_POINTER),
            "0x00001234"
        );
    }

    #[test]
    fn unhinted_numbers_are_plain_decimal() {
        // rule: DEC-28
        assert_eq!(shown(Value::U32(32769), OutType::DEFAULT), "32769");
        assert_eq!(shown(Value::I64(-1), OutType::DEFAULT), "-1");
        assert_eq!(shown(Value::U8(200), OutType::SIGNED), "-56");
    }

    #[test]
    fn ansi_text_is_windows_1252_unless_utf8() {
        // rule: DEC-12
        assert_eq!(ansi_text(&[0x80, b'x', 0xE9], OutType::DEFAULT), "€xé");
        assert_eq!(ansi_text("€xé".as_bytes(), OutType::UTF8), "€xé");
        assert_eq!(ansi_text(b"<a/>", OutType::XML), "<a/>");
    }

    #[test]
    fn sids_and_system_times_render() {
        let sid = etwsim_types::record::encode_sid("S-1-5-21-1-2-3").unwrap();
        assert_eq!(sid_text(&sid), "S-1-5-21-1-2-3");
        let t = SystemTime::from_words([2026, 1, 4, 1, 13, 5, 9, 7]);
        assert_eq!(t.to_string(), "2026-01-01T13:05:09.007");
    }
}
