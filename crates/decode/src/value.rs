//! The crate's one value type, its one field type and its one renderer: [`Value`] is what a
//! payload held, whichever decoder read it (TraceLogging, manifest, classic kernel layouts,
//! MOF classes, WPP); [`Field`] names a value; [`Value::display_with`] and [`Value::render`]
//! show a value for people with the formatting hint ([`Hint`]) of the format that described
//! it (DEC-12, DEC-27, DEC-28).
//!
//! # What a value keeps
//!
//! Values keep what the payload held, not how it is shown: a pointer stays a number, 8-bit
//! text stays bytes (its encoding depends on the hint, DEC-12), a SID stays its binary form.
//! The variants are as exact as the most exact decoder needs: TraceLogging decodes every
//! InType to its own variant (a counted string is [`Value::CountedString`], a BOOL32 keeps
//! its 32 bits, a HEXINT32 is [`Value::HexInt32`]), so decoded fields encode back to the same
//! bytes; the manifest and MOF decoders, whose template or layout already names each field's
//! type, use the plain variants ([`Value::String`], [`Value::Ansi`], [`Value::U32`]…), and
//! only the classic kernel layouts make [`Value::Null`] and [`Value::TokenUser`] (KRN-27).
//!
//! # How a value is shown
//!
//! One renderer, three rule sets, chosen by the [`Hint`]:
//!
//! * [`Hint::None`] — the invariant rendering without hints (DEC-28): decimal integers without
//!   grouping, pointers as `0x` + lower-case hex, GUIDs braced, SIDs as `S-1-…`, binary as
//!   upper-case hex, 8-bit text as Windows-1252. It is [`Value`]'s `Display`, and how classic
//!   kernel (MOF) fields are shown.
//! * [`Hint::TraceLogging`] — a TraceLogging OutType (DEC-10, DEC-27): HEXINT32 and POINTER in
//!   fixed-width upper-case hex, PORT byte-swapped, IPV4/IPV6/SOCKETADDRESS as addresses,
//!   Win32 errors as `0x5`, NTSTATUS and HRESULT as `0x%08X`, code pointers in lower case.
//! * [`Hint::Manifest`] — a manifest field's `inType` and `outType` (DEC-20, DEC-27):
//!   `win:HexInt*` in hex of the value's width, pointers as `0x` + lower-case hex, booleans
//!   from any integer. Value and bit maps (DEC-24) come first, from
//!   [`Provider::render`](crate::manifest::Provider::render), which needs the provider.
//!
//! Where the rule sets differ (a pointer's width, a struct's `{a=1}` or `{a: 1}`), they
//! render what the tools of that format show, byte for byte.

use crate::fields::{Sid, SystemTime, TokenUser, windows_1252, windows_1252_char};
use crate::manifest::{InType as ManifestInType, OutType as ManifestOutType};
use crate::tracelogging::{FieldDef, InType, OutType};
use etwsim_types::Guid;
use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::net::{Ipv4Addr, Ipv6Addr};

/// One decoded value (see the [module docs](self) for which decoder makes which variant).
///
/// Text in UTF-16 is held as a `String` (unpaired surrogates become U+FFFD); 8-bit text is
/// held as its bytes, because their encoding depends on the hint (DEC-12) — see
/// [`Field::text`] and [`Value::as_text`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// Nothing: a kernel SID field that was absent (its u32 0, KRN-27).
    Null,
    /// `win:Int8`, TraceLogging INT8 (3), MOF `sint8`, WPP `ItemChar`.
    I8(i8),
    /// `win:UInt8`, TraceLogging UINT8 (4), MOF `u8`.
    U8(u8),
    /// `win:Int16`, TraceLogging INT16 (5).
    I16(i16),
    /// `win:UInt16`, TraceLogging UINT16 (6), MOF `u16`, a port in host order.
    U16(u16),
    /// `win:Int32`, TraceLogging INT32 (7), MOF `i32`.
    I32(i32),
    /// `win:UInt32` / `win:HexInt32`, TraceLogging UINT32 (8), MOF `u32`.
    U32(u32),
    /// `win:Int64`, TraceLogging INT64 (9), MOF `i64`.
    I64(i64),
    /// `win:UInt64` / `win:HexInt64`, TraceLogging UINT64 (10), MOF `u64`.
    U64(u64),
    /// `win:Float`, TraceLogging FLOAT (11).
    F32(f32),
    /// `win:Double`, TraceLogging DOUBLE (12).
    F64(f64),
    /// A 4-byte boolean as written: `win:Boolean`, MOF `boolean`, TraceLogging BOOL32 (13).
    /// Any non-zero value is true.
    Bool32(i32),
    /// TraceLogging HEXINT32 (20).
    HexInt32(u32),
    /// TraceLogging HEXINT64 (21).
    HexInt64(u64),
    /// `win:Pointer`, MOF `ptr`, TraceLogging POINTER (16): 4 or 8 bytes by the writer's
    /// pointer size, zero-extended.
    Pointer(u64),
    /// `win:FILETIME`, TraceLogging FILETIME (17): 100-ns intervals since 1601-01-01 UTC.
    FileTime(i64),
    /// `win:SYSTEMTIME`, TraceLogging SYSTEMTIME (18).
    SystemTime(SystemTime),
    /// `win:GUID`, TraceLogging GUID (15).
    Guid(Guid),
    /// `win:SID`, TraceLogging SID (19): the binary SID as the payload held it,
    /// `8 + 4 × SubAuthorityCount` bytes. The manifest, MOF-class and WPP decoders only make
    /// valid ones; TraceLogging keeps any revision and count, so that it encodes back
    /// exactly. [`Value::sid`] reads it as a [`Sid`].
    Sid(Vec<u8>),
    /// A kernel SID block: `TOKEN_USER` followed by the SID (KRN-27).
    TokenUser(TokenUser),
    /// NUL-terminated UTF-16 text, without its NUL: `win:UnicodeString` (and the manifest's
    /// `win:CountedUnicodeString`), MOF `UTF-16z`, TraceLogging UNICODESTRING (1).
    String(String),
    /// Counted UTF-16 text: TraceLogging COUNTEDSTRING (22).
    CountedString(String),
    /// NUL-terminated 8-bit text as stored, without its NUL: `win:AnsiString` (and the
    /// manifest's `win:CountedAnsiString`), MOF `ANSIz`, TraceLogging ANSISTRING (2).
    Ansi(Vec<u8>),
    /// Counted 8-bit text: TraceLogging COUNTEDANSISTRING (23).
    CountedAnsi(Vec<u8>),
    /// Raw bytes: `win:Binary`, a fixed-size MOF block, TraceLogging BINARY (14),
    /// COUNTEDBINARY (25) and the bytes of a CUSTOM field.
    Binary(Vec<u8>),
    /// An array field (a manifest `count`, a TraceLogging CCOUNT or VCOUNT): its elements
    /// in order.
    Array(Vec<Value>),
    /// A manifest `struct`, a TraceLogging STRUCT (24): its members in order.
    Struct(Vec<Field>),
}

/// A named value: one property of a decoded event, or a field to encode.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The property name (the layout's, the template's or the metadata's).
    pub name: String,
    /// Its value.
    pub value: Value,
    /// The TraceLogging definition the value was decoded with, or is to be encoded by (its
    /// name is [`name`](Self::name)): in type, OutType hint, tag, arity, members. `None` for
    /// the fields of the other decoders, whose layout or template describes them.
    pub def: Option<FieldDef>,
}

/// How a value is shown: the formatting hint of the format that described it (see the
/// [module docs](self)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Hint {
    /// No hint: the invariant rendering (DEC-28).
    #[default]
    None,
    /// A TraceLogging field's OutType (DEC-10, DEC-27); [`OutType::DEFAULT`] for the
    /// InType's default.
    TraceLogging(OutType),
    /// A manifest field's `inType` and `outType` (DEC-20, DEC-27), without its map.
    Manifest {
        /// The `inType`.
        in_type: ManifestInType,
        /// The `outType`, when the template gives one.
        out_type: Option<ManifestOutType>,
    },
}

impl From<OutType> for Hint {
    fn from(out: OutType) -> Hint {
        Hint::TraceLogging(out)
    }
}

impl Field {
    /// A field named `name` holding `value`, with no TraceLogging definition.
    pub fn new(name: impl Into<String>, value: Value) -> Field {
        Field {
            name: name.into(),
            value,
            def: None,
        }
    }

    /// A TraceLogging field: the definition's name, `value`, the definition.
    pub fn with_def(def: FieldDef, value: Value) -> Field {
        Field {
            name: def.name.clone(),
            value,
            def: Some(def),
        }
    }

    /// The field name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The hint the value is shown with: the TraceLogging OutType of its definition, if it
    /// has one, else none.
    pub fn hint(&self) -> Hint {
        match &self.def {
            Some(def) => Hint::TraceLogging(def.out_type),
            None => Hint::None,
        }
    }

    /// The text of a string field: UTF-16 strings as they are, 8-bit strings decoded as
    /// UTF-8 when the OutType is UTF8, XML or JSON and as Windows-1252 otherwise (DEC-12).
    /// `None` for other fields.
    pub fn text(&self) -> Option<Cow<'_, str>> {
        match &self.value {
            Value::String(s) | Value::CountedString(s) => Some(Cow::Borrowed(s)),
            Value::Ansi(b) | Value::CountedAnsi(b) => Some(ansi_text(b, self.hint())),
            _ => None,
        }
    }

    /// The member of a struct field with this name.
    pub fn member(&self, name: &str) -> Option<&Field> {
        match &self.value {
            Value::Struct(members) => members.iter().find(|m| m.name == name),
            _ => None,
        }
    }

    /// The value rendered with the field's hint (DEC-27, DEC-28): what
    /// [`Display`](fmt::Display) shows after `name=`.
    pub fn display_value(&self) -> impl fmt::Display + '_ {
        self.value.display_with(self.hint())
    }
}

impl fmt::Display for Field {
    /// `name=value` with the field's hint, strings quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=", self.name)?;
        render_quoted(f, &self.value, self.hint())
    }
}

/// The value of the field named `name` in `fields`, if any (first match).
pub fn find<'a>(fields: &'a [Field], name: &str) -> Option<&'a Value> {
    fields.iter().find(|f| f.name == name).map(|f| &f.value)
}

impl Value {
    /// The value as a signed 128-bit integer, for integer-like values (integers, HEXINTs,
    /// pointers, FILETIME, booleans as 0/1); `None` for the others.
    pub fn as_i128(&self) -> Option<i128> {
        Some(match *self {
            Value::I8(v) => v.into(),
            Value::U8(v) => v.into(),
            Value::I16(v) => v.into(),
            Value::U16(v) => v.into(),
            Value::I32(v) => v.into(),
            Value::U32(v) | Value::HexInt32(v) => v.into(),
            Value::I64(v) => v.into(),
            Value::U64(v) | Value::HexInt64(v) => v.into(),
            Value::Pointer(v) => v.into(),
            Value::FileTime(v) => v.into(),
            Value::Bool32(v) => i128::from(v != 0),
            _ => return None,
        })
    }

    /// The value as a signed integer, for every integer variant (HEXINT, POINTER and BOOL32
    /// included, reinterpreted at 64 bits: a BOOL32 as written, not as 0/1).
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

    /// The value as text, for string values (8-bit text read as Windows-1252, DEC-12).
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::String(s) | Value::CountedString(s) => Some(s.clone()),
            Value::Ansi(b) | Value::CountedAnsi(b) => Some(windows_1252(b)),
            _ => None,
        }
    }

    /// A SID value (or the SID of a kernel SID block) as a [`Sid`]; `None` for other values
    /// and for binary SIDs that are not valid ones (a TraceLogging SID of another revision,
    /// or with more than 15 sub-authorities).
    pub fn sid(&self) -> Option<Sid> {
        match self {
            // Through its text: `S-R-A-…` is what every SID type reads.
            Value::Sid(b) => {
                let count = usize::from(*b.get(1)?);
                if count > 15 || b.len() != 8 + 4 * count {
                    return None;
                }
                sid_text(b).parse().ok()
            }
            Value::TokenUser(t) => Some(t.sid.clone()),
            _ => None,
        }
    }

    /// The TraceLogging InType a scalar of this variant has; `None` for `Binary` (three
    /// InTypes), `Array`, and the kernel's `Null` and `TokenUser`.
    pub fn in_type(&self) -> Option<InType> {
        Some(match self {
            Value::String(_) => InType::UNICODE_STRING,
            Value::Ansi(_) => InType::ANSI_STRING,
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
            Value::CountedString(_) => InType::COUNTED_STRING,
            Value::CountedAnsi(_) => InType::COUNTED_ANSI_STRING,
            Value::Struct(_) => InType::STRUCT,
            Value::Binary(_) | Value::Array(_) | Value::Null | Value::TokenUser(_) => {
                return None;
            }
        })
    }

    /// `true` when a TraceLogging scalar of `in_type` may hold this value.
    pub fn fits(&self, in_type: InType) -> bool {
        match self {
            Value::Binary(_) => in_type == InType::BINARY || in_type == InType::COUNTED_BINARY,
            v => v.in_type() == Some(in_type),
        }
    }

    /// The value rendered with `hint` (DEC-27, DEC-28), strings unquoted: the crate's one
    /// renderer (see the [module docs](self)). A TraceLogging [`OutType`] converts into its
    /// hint: `value.display_with(OutType::HEX)`.
    pub fn display_with(&self, hint: impl Into<Hint>) -> impl fmt::Display + '_ {
        struct Hinted<'a>(&'a Value, Hint);
        impl fmt::Display for Hinted<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                render(f, self.0, self.1)
            }
        }
        Hinted(self, hint.into())
    }

    /// The value rendered with `hint` as a `String`: what
    /// [`display_with`](Self::display_with) shows.
    pub fn render(&self, hint: impl Into<Hint>) -> String {
        match hint.into() {
            Hint::Manifest { in_type, out_type } => manifest_text(in_type, out_type, self),
            hint => self.display_with(hint).to_string(),
        }
    }
}

impl fmt::Display for Value {
    /// The invariant rendering without hints (DEC-28): [`Hint::None`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        invariant(f, self)
    }
}

/// The one renderer: `v` with `hint`, strings unquoted.
fn render(f: &mut fmt::Formatter<'_>, v: &Value, hint: Hint) -> fmt::Result {
    match hint {
        Hint::None => invariant(f, v),
        Hint::TraceLogging(out) => traced(f, v, out),
        Hint::Manifest { in_type, out_type } => f.write_str(&manifest_text(in_type, out_type, v)),
    }
}

/// Strings quoted (so commas inside them read clearly), everything else as [`render`].
pub(crate) fn render_quoted(f: &mut fmt::Formatter<'_>, v: &Value, hint: Hint) -> fmt::Result {
    match v {
        Value::String(s) | Value::CountedString(s) => write!(f, "{s:?}"),
        Value::Ansi(b) | Value::CountedAnsi(b) => write!(f, "{:?}", ansi_text(b, hint)),
        _ => render(f, v, hint),
    }
}

/// Invariant rendering without hints (DEC-28): decimal integers without grouping, pointers
/// as `0x` + lowercase hex, GUIDs braced, SIDs as `S-1-…`, binary as hex.
fn invariant(f: &mut fmt::Formatter<'_>, v: &Value) -> fmt::Result {
    match v {
        Value::Null => Ok(()),
        Value::I8(v) => write!(f, "{v}"),
        Value::U8(v) => write!(f, "{v}"),
        Value::I16(v) => write!(f, "{v}"),
        Value::U16(v) => write!(f, "{v}"),
        Value::I32(v) => write!(f, "{v}"),
        Value::U32(v) => write!(f, "{v}"),
        Value::I64(v) => write!(f, "{v}"),
        Value::U64(v) => write!(f, "{v}"),
        Value::F32(v) => write!(f, "{v}"),
        Value::F64(v) => write!(f, "{v}"),
        Value::Bool32(v) => f.write_str(if *v != 0 { "true" } else { "false" }),
        Value::HexInt32(x) => write!(f, "0x{x:08X}"),
        Value::HexInt64(x) => write!(f, "0x{x:016X}"),
        Value::Pointer(v) => write!(f, "{v:#x}"),
        Value::FileTime(v) => write!(f, "{}", etwsim_types::record::filetime_utc(*v)),
        Value::SystemTime(t) => write!(f, "{t}"),
        Value::Guid(g) => write!(f, "{g}"),
        Value::Sid(b) => match v.sid() {
            Some(sid) => write!(f, "{sid}"),
            None => f.write_str(&sid_text(b)),
        },
        Value::TokenUser(t) => write!(f, "{}", t.sid),
        Value::String(s) | Value::CountedString(s) => f.write_str(s),
        Value::Ansi(b) | Value::CountedAnsi(b) => f.write_str(&windows_1252(b)),
        Value::Binary(b) => {
            f.write_str("0x")?;
            b.iter().try_for_each(|x| write!(f, "{x:02X}"))
        }
        Value::Array(items) => {
            f.write_str("[")?;
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                invariant(f, v)?;
            }
            f.write_str("]")
        }
        Value::Struct(fields) => {
            f.write_str("{")?;
            for (i, m) in fields.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{}: ", m.name)?;
                invariant(f, &m.value)?;
            }
            f.write_str("}")
        }
    }
}

/// 8-bit text per DEC-12: UTF-8 for the UTF8, XML and JSON hints (TraceLogging's or the
/// manifest's), Windows-1252 otherwise.
fn ansi_text(bytes: &[u8], hint: Hint) -> Cow<'_, str> {
    let utf8 = match hint {
        Hint::None => false,
        Hint::TraceLogging(out) => matches!(out, OutType::UTF8 | OutType::XML | OutType::JSON),
        Hint::Manifest { out_type, .. } => matches!(
            out_type,
            Some(ManifestOutType::UTF8 | ManifestOutType::XML | ManifestOutType::JSON)
        ),
    };
    if utf8 {
        String::from_utf8_lossy(bytes)
    } else if bytes.is_ascii() {
        Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default())
    } else {
        Cow::Owned(windows_1252(bytes))
    }
}

/// A value with a TraceLogging OutType hint (DEC-27), in the invariant culture with no digit
/// grouping and decimal for everything unhinted (DEC-28). Hex digits are upper case, except
/// CODE_POINTER's, which DEC-27 gives in lower case.
fn traced(f: &mut fmt::Formatter<'_>, v: &Value, out: OutType) -> fmt::Result {
    let hint = Hint::TraceLogging(out);
    match (v, out) {
        (Value::String(s) | Value::CountedString(s), _) => f.write_str(s),
        (Value::Ansi(b) | Value::CountedAnsi(b), _) => f.write_str(&ansi_text(b, hint)),
        (Value::I8(c), OutType::STRING) => write!(f, "{}", windows_1252_char(*c as u8)),
        (Value::U8(c), OutType::STRING) => write!(f, "{}", windows_1252_char(*c)),
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
                render_quoted(f, item, hint)?;
            }
            f.write_str("]")
        }
        (Value::Null | Value::TokenUser(_), _) => invariant(f, v),
    }
}

/// The width a manifest `win:HexInt*` out-type shows a value at: the value and its digits.
fn manifest_hex(value: &Value) -> Option<(u64, usize)> {
    Some(match *value {
        Value::I8(v) => (u64::from(v as u8), 2),
        Value::U8(v) => (v.into(), 2),
        Value::I16(v) => (u64::from(v as u16), 4),
        Value::U16(v) => (v.into(), 4),
        Value::I32(v) => (u64::from(v as u32), 8),
        Value::U32(v) => (v.into(), 8),
        Value::I64(v) => (v as u64, 16),
        Value::U64(v) | Value::Pointer(v) => (v, 16),
        _ => return None,
    })
}

/// A value with a manifest field's in-type and out-type hints (DEC-20, DEC-27, DEC-28).
fn manifest_text(in_type: ManifestInType, out: Option<ManifestOutType>, value: &Value) -> String {
    use ManifestInType as In;
    use ManifestOutType as Out;
    let Some(out) = out else {
        return match (in_type, value) {
            (In::HEX_INT32 | In::HEX_INT64, v) => {
                manifest_hex(v).map_or_else(|| v.to_string(), |(n, w)| format!("0x{n:0w$X}"))
            }
            (_, Value::Pointer(p)) => format!("{p:#x}"),
            (_, v) => v.to_string(),
        };
    };
    match (out, value) {
        (Out::STRING, Value::U8(b)) => char::from(*b).to_string(),
        (Out::STRING, Value::I8(b)) => char::from(*b as u8).to_string(),
        (Out::STRING, Value::U16(u)) => {
            char::from_u32((*u).into()).map_or_else(|| u.to_string(), String::from)
        }
        (Out::HEX_INT8 | Out::HEX_INT16 | Out::HEX_INT32 | Out::HEX_INT64, v) => {
            manifest_hex(v).map_or_else(|| v.to_string(), |(n, w)| format!("0x{n:0w$X}"))
        }
        (Out::BOOLEAN, v) => match v.as_i128() {
            Some(n) => (if n != 0 { "true" } else { "false" }).to_owned(),
            None => v.to_string(),
        },
        (Out::IPV4, Value::U32(a)) => Ipv4Addr::from(a.to_le_bytes()).to_string(),
        (Out::IPV6, Value::Binary(b)) => match <[u8; 16]>::try_from(b.as_slice()) {
            Ok(a) => Ipv6Addr::from(a).to_string(),
            Err(_) => value.to_string(),
        },
        (Out::SOCKET_ADDRESS, Value::Binary(b)) => {
            socket_address_text(b).unwrap_or_else(|| value.to_string())
        }
        (Out::ERROR_CODE | Out::WIN32_ERROR, v) => {
            manifest_hex(v).map_or_else(|| v.to_string(), |(n, _)| format!("{n:#x}"))
        }
        (Out::NTSTATUS | Out::HRESULT, v) => {
            manifest_hex(v).map_or_else(|| v.to_string(), |(n, _)| format!("0x{:08X}", n as u32))
        }
        (Out::CODE_POINTER, v) => {
            manifest_hex(v).map_or_else(|| v.to_string(), |(n, _)| format!("0x{n:08x}"))
        }
        (Out::UTF8 | Out::JSON | Out::XML, Value::Ansi(b)) => {
            String::from_utf8_lossy(b).into_owned()
        }
        (_, Value::Ansi(b)) => windows_1252(b),
        (_, Value::Pointer(p)) => format!("{p:#x}"),
        (_, v) => v.to_string(),
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

/// `S-R-A-S1-S2…` with the authority in decimal, whatever the revision and count (a
/// TraceLogging SID as written); a SID shorter than its header is shown as hex.
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
    Ipv6Addr::from(octets).to_string()
}

/// `address:port` for AF_INET (2) and `[address]:port` for AF_INET6 (23) sockaddrs
/// (DEC-27).
fn socket_address_text(b: &[u8]) -> Option<String> {
    let family = u16::from_le_bytes([*b.first()?, *b.get(1)?]);
    let port = u16::from_be_bytes([*b.get(2)?, *b.get(3)?]);
    match family {
        2 => {
            let a: [u8; 4] = b.get(4..8)?.try_into().ok()?;
            Some(format!("{}:{port}", Ipv4Addr::from(a)))
        }
        23 => Some(format!("[{}]:{port}", ipv6_text(b.get(8..24)?))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(value: Value, out: OutType) -> String {
        Field::with_def(
            FieldDef::new("x", value.in_type().unwrap_or(InType::BINARY)).with_out_type(out),
            value,
        )
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
        assert_eq!(Value::U32(32769).to_string(), "32769");
        assert_eq!(Value::Pointer(0x1F).to_string(), "0x1f");
    }

    #[test]
    fn ansi_text_is_windows_1252_unless_utf8() {
        // rule: DEC-12
        let tl = |out| Hint::TraceLogging(out);
        assert_eq!(ansi_text(&[0x80, b'x', 0xE9], tl(OutType::DEFAULT)), "€xé");
        assert_eq!(ansi_text("€xé".as_bytes(), tl(OutType::UTF8)), "€xé");
        assert_eq!(ansi_text(b"<a/>", tl(OutType::XML)), "<a/>");
        assert_eq!(ansi_text(&[0x80], Hint::None), "€");
    }

    #[test]
    fn manifest_hex_widths_follow_the_type() {
        // rule: DEC-27
        let hinted = |out, v: Value| {
            v.render(Hint::Manifest {
                in_type: ManifestInType::UINT32,
                out_type: Some(out),
            })
        };
        assert_eq!(
            hinted(ManifestOutType::HEX_INT32, Value::U32(0x1F)),
            "0x0000001F"
        );
        assert_eq!(
            hinted(ManifestOutType::NTSTATUS, Value::U32(0xC000_0034)),
            "0xC0000034"
        );
        assert_eq!(hinted(ManifestOutType::WIN32_ERROR, Value::U32(5)), "0x5");
    }

    #[test]
    fn sids_and_system_times_render() {
        let mut sid = vec![1, 4, 0, 0, 0, 0, 0, 5];
        for sub in [21u32, 1, 2, 3] {
            sid.extend_from_slice(&sub.to_le_bytes());
        }
        assert_eq!(sid_text(&sid), "S-1-5-21-1-2-3");
        assert_eq!(
            Value::Sid(sid.clone()).sid(),
            Some("S-1-5-21-1-2-3".parse::<Sid>().unwrap())
        );
        assert_eq!(Value::Sid(sid.clone()).to_string(), "S-1-5-21-1-2-3");
        assert_eq!(
            Value::Sid(sid).display_with(OutType::DEFAULT).to_string(),
            "S-1-5-21-1-2-3"
        );
        let t = SystemTime::from_words([2026, 1, 4, 1, 13, 5, 9, 7]);
        assert_eq!(t.to_string(), "2026-01-01T13:05:09.007");
    }
}
