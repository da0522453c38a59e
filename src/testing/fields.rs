//! Decoded fields of a captured event: typed values (the decoder's own value types) and
//! their one rendering, the decoder's — what `etwsim dump` shows.
//!
//! * TraceLogging fields render with their OutType (`Value::display_with`, DEC-27): a
//!   HEXINT32 as `0x…`, a Win32 error as its hex code, a BOOL32 as `true`;
//! * manifest fields render with their value or bit map, then their out-type
//!   (`manifest::Provider::render`, DEC-24, DEC-27): `Currency=EUR`, `Status=0x80070005`;
//! * kernel (MOF) fields render invariantly (DEC-28).
//!
//! Paths are dotted for struct members (`Client.Pid`) and take an element index for arrays
//! (`Ids.1`).

use etwsim_decode::fields::{Field as MofField, Value as MofValue};
use etwsim_decode::manifest::{Item, Provider as ManifestProvider};
use etwsim_decode::tracelogging::{Field as TlField, OutType, Value as TlValue};
use etwsim_types::Guid;
use std::fmt;

/// A decoded field value, typed: the decoder's own value type for the event's description.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// A TraceLogging field's value (`etwsim::decode::tracelogging::Value`).
    TraceLogging(&'a TlValue),
    /// A manifest or kernel (MOF) field's value (`etwsim::decode::fields::Value`).
    Manifest(&'a MofValue),
}

impl Value<'_> {
    /// The value's type as tests name it: `u32`, `i64`, `string`, `ansi`, `bool`, `guid`,
    /// `hexint32` (a TraceLogging HEXINT32, compared as a `u32`), `struct`, `array`…
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::TraceLogging(v) => match v {
                TlValue::CStr16(_) | TlValue::Str16(_) => "string",
                TlValue::CStr8(_) | TlValue::Str8(_) => "ansi",
                TlValue::I8(_) => "i8",
                TlValue::U8(_) => "u8",
                TlValue::I16(_) => "i16",
                TlValue::U16(_) => "u16",
                TlValue::I32(_) => "i32",
                TlValue::U32(_) => "u32",
                TlValue::I64(_) => "i64",
                TlValue::U64(_) => "u64",
                TlValue::F32(_) => "f32",
                TlValue::F64(_) => "f64",
                TlValue::Bool32(_) => "bool",
                TlValue::Binary(_) => "binary",
                TlValue::Guid(_) => "guid",
                TlValue::Pointer(_) => "pointer",
                TlValue::FileTime(_) => "filetime",
                TlValue::SystemTime(_) => "systemtime",
                TlValue::Sid(_) => "sid",
                TlValue::HexInt32(_) => "hexint32",
                TlValue::HexInt64(_) => "hexint64",
                TlValue::Struct(_) => "struct",
                TlValue::Array(_) => "array",
            },
            Value::Manifest(v) => match v {
                MofValue::Null => "null",
                MofValue::I8(_) => "i8",
                MofValue::U8(_) => "u8",
                MofValue::I16(_) => "i16",
                MofValue::U16(_) => "u16",
                MofValue::I32(_) => "i32",
                MofValue::U32(_) => "u32",
                MofValue::I64(_) => "i64",
                MofValue::U64(_) => "u64",
                MofValue::F32(_) => "f32",
                MofValue::F64(_) => "f64",
                MofValue::Bool(_) => "bool",
                MofValue::Pointer(_) => "pointer",
                MofValue::FileTime(_) => "filetime",
                MofValue::SystemTime(_) => "systemtime",
                MofValue::Guid(_) => "guid",
                MofValue::Sid(_) | MofValue::TokenUser(_) => "sid",
                MofValue::String(_) => "string",
                MofValue::Ansi(_) => "ansi",
                MofValue::Binary(_) => "binary",
                MofValue::Array(_) => "array",
                MofValue::Struct(_) => "struct",
                _ => "value",
            },
        }
    }
}

impl fmt::Display for Value<'_> {
    /// The value with no rendering hint (`7`, `2147942405`): the raw in-type text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::TraceLogging(v) => fmt::Display::fmt(v, f),
            Value::Manifest(v) => fmt::Display::fmt(v, f),
        }
    }
}

/// What [`Match::field`](super::Match::field) compares a field with: a Rust value whose type
/// must be the field's. `4242u32` matches a UInt32 (or a TraceLogging HEXINT32) field holding
/// 4242, not a UInt64 or a string `"4242"`; `"alice"` matches a UTF-16 or an 8-bit string
/// field. Compare the rendered text with [`Match::rendered`](super::Match::rendered).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Expected {
    /// An `i8`.
    I8(i8),
    /// A `u8`.
    U8(u8),
    /// An `i16`.
    I16(i16),
    /// A `u16`.
    U16(u16),
    /// An `i32`.
    I32(i32),
    /// A `u32` (also a TraceLogging HEXINT32).
    U32(u32),
    /// An `i64`.
    I64(i64),
    /// A `u64` (also a TraceLogging HEXINT64).
    U64(u64),
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
    /// A boolean (TraceLogging BOOL32, `win:Boolean`).
    Bool(bool),
    /// Text: a UTF-16 string, or an 8-bit string with these bytes.
    Str(String),
    /// A GUID.
    Guid(Guid),
}

macro_rules! expected_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Expected {
            fn from(v: $t) -> Expected { Expected::$v(v) }
        }
    )*};
}
expected_from!(i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32,
    i64 => I64, u64 => U64, f32 => F32, f64 => F64, bool => Bool, String => Str, Guid => Guid);

impl From<&str> for Expected {
    fn from(v: &str) -> Expected {
        Expected::Str(v.to_string())
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::I8(v) => write!(f, "i8 {v}"),
            Expected::U8(v) => write!(f, "u8 {v}"),
            Expected::I16(v) => write!(f, "i16 {v}"),
            Expected::U16(v) => write!(f, "u16 {v}"),
            Expected::I32(v) => write!(f, "i32 {v}"),
            Expected::U32(v) => write!(f, "u32 {v}"),
            Expected::I64(v) => write!(f, "i64 {v}"),
            Expected::U64(v) => write!(f, "u64 {v}"),
            Expected::F32(v) => write!(f, "f32 {v}"),
            Expected::F64(v) => write!(f, "f64 {v}"),
            Expected::Bool(v) => write!(f, "bool {v}"),
            Expected::Str(v) => write!(f, "string {v:?}"),
            Expected::Guid(v) => write!(f, "guid {v}"),
        }
    }
}

impl Expected {
    /// Whether `v` has this type and value.
    pub fn matches(&self, v: Value<'_>) -> bool {
        use Expected as E;
        match v {
            Value::TraceLogging(v) => match (self, v) {
                (E::I8(a), TlValue::I8(b)) => a == b,
                (E::U8(a), TlValue::U8(b)) => a == b,
                (E::I16(a), TlValue::I16(b)) => a == b,
                (E::U16(a), TlValue::U16(b)) => a == b,
                (E::I32(a), TlValue::I32(b)) => a == b,
                (E::U32(a), TlValue::U32(b) | TlValue::HexInt32(b)) => a == b,
                (E::I64(a), TlValue::I64(b)) => a == b,
                (E::U64(a), TlValue::U64(b) | TlValue::HexInt64(b)) => a == b,
                (E::F32(a), TlValue::F32(b)) => a == b,
                (E::F64(a), TlValue::F64(b)) => a == b,
                (E::Bool(a), TlValue::Bool32(b)) => *a == (*b != 0),
                (E::Str(a), TlValue::CStr16(b) | TlValue::Str16(b)) => a == b,
                (E::Str(a), TlValue::CStr8(b) | TlValue::Str8(b)) => a.as_bytes() == &b[..],
                (E::Guid(a), TlValue::Guid(b)) => a == b,
                _ => false,
            },
            Value::Manifest(v) => match (self, v) {
                (E::I8(a), MofValue::I8(b)) => a == b,
                (E::U8(a), MofValue::U8(b)) => a == b,
                (E::I16(a), MofValue::I16(b)) => a == b,
                (E::U16(a), MofValue::U16(b)) => a == b,
                (E::I32(a), MofValue::I32(b)) => a == b,
                (E::U32(a), MofValue::U32(b)) => a == b,
                (E::I64(a), MofValue::I64(b)) => a == b,
                (E::U64(a), MofValue::U64(b)) => a == b,
                (E::F32(a), MofValue::F32(b)) => a == b,
                (E::F64(a), MofValue::F64(b)) => a == b,
                (E::Bool(a), MofValue::Bool(b)) => a == b,
                (E::Str(a), MofValue::String(b)) => a == b,
                (E::Str(a), MofValue::Ansi(b)) => a.as_bytes() == &b[..],
                (E::Guid(a), MofValue::Guid(b)) => a == b,
                _ => false,
            },
        }
    }
}

/// The decoded fields of one event, in the decoder's types.
#[derive(Clone, Debug, Default)]
pub(crate) enum Decoded {
    /// Not decoded.
    #[default]
    None,
    /// TraceLogging fields.
    Tl(Vec<TlField>),
    /// Manifest or kernel (MOF) fields.
    Mof(Vec<MofField>),
}

impl Decoded {
    /// The value at a dotted path.
    pub(crate) fn value(&self, path: &str) -> Option<Value<'_>> {
        let mut parts = path.split('.');
        let first = parts.next()?;
        match self {
            Decoded::None => None,
            Decoded::Tl(fields) => {
                let mut v = &fields.iter().find(|f| f.name() == first)?.value;
                for part in parts {
                    v = match v {
                        TlValue::Struct(m) => &m.iter().find(|f| f.name() == part)?.value,
                        TlValue::Array(items) => items.get(part.parse::<usize>().ok()?)?,
                        _ => return None,
                    };
                }
                Some(Value::TraceLogging(v))
            }
            Decoded::Mof(fields) => {
                let mut v = &fields.iter().find(|f| f.name == first)?.value;
                for part in parts {
                    v = match v {
                        MofValue::Struct(m) => &m.iter().find(|f| f.name == part)?.value,
                        MofValue::Array(items) => items.get(part.parse::<usize>().ok()?)?,
                        _ => return None,
                    };
                }
                Some(Value::Manifest(v))
            }
        }
    }
}

/// Every field and struct member of a TraceLogging event, rendered with its OutType: the
/// struct's members under dotted paths (the struct itself is not listed).
pub(crate) fn tl_rendered(fields: &[TlField], prefix: &str, out: &mut Vec<(String, String)>) {
    for f in fields {
        let path = format!("{prefix}{}", f.name());
        match &f.value {
            TlValue::Struct(members) => tl_rendered(members, &format!("{path}."), out),
            v => out.push((path, tl_text(v, f.def.out_type))),
        }
    }
}

fn tl_text(v: &TlValue, out: OutType) -> String {
    match v {
        // An array of 8- or 16-bit characters with OutType STRING is text (as dump shows it).
        TlValue::Array(items)
            if out == OutType::STRING
                && items
                    .iter()
                    .all(|i| matches!(i, TlValue::I8(_) | TlValue::U8(_) | TlValue::U16(_))) =>
        {
            items
                .iter()
                .map(|i| i.display_with(out).to_string())
                .collect()
        }
        TlValue::Array(items) => {
            let parts: Vec<String> = items.iter().map(|i| tl_text(i, out)).collect();
            format!("[{}]", parts.join(", "))
        }
        v => v.display_with(out).to_string(),
    }
}

/// Every field and struct member of a manifest event, rendered by the provider (maps and
/// out-types).
pub(crate) fn manifest_rendered(
    provider: &ManifestProvider,
    items: &[Item],
    fields: &[MofField],
    out: &mut Vec<(String, String)>,
) {
    for (f, item) in fields.iter().zip(items) {
        match (item, &f.value) {
            (Item::Struct(s), MofValue::Struct(members)) => {
                for (m, def) in members.iter().zip(&s.members) {
                    out.push((
                        format!("{}.{}", f.name, m.name),
                        provider.render(def, &m.value),
                    ));
                }
            }
            (Item::Data(def), v) => out.push((f.name.clone(), provider.render(def, v))),
            (Item::Struct(_), v) => out.push((f.name.clone(), v.to_string())),
        }
    }
}

/// Every field of a kernel (MOF) event, rendered invariantly (DEC-28).
pub(crate) fn mof_rendered(fields: &[MofField], out: &mut Vec<(String, String)>) {
    for f in fields {
        out.push((f.name.clone(), f.value.to_string()));
    }
}
