//! Decoded fields of a captured event: typed values (the decoder's one value type,
//! `etwsim::decode::Value`) and their one rendering, the decoder's — what `etwsim dump` shows.
//!
//! * TraceLogging fields render with their OutType (`Value::display_with`, DEC-27): a
//!   HEXINT32 as `0x…`, a Win32 error as its hex code, a BOOL32 as `true`;
//! * manifest fields render with their value or bit map, then their out-type
//!   (`manifest::Provider::render`, DEC-24, DEC-27): `Currency=EUR`, `Status=0x80070005`;
//! * kernel (MOF) fields render invariantly (DEC-28).
//!
//! Paths are dotted for struct members (`Client.Pid`) and take an element index for arrays
//! (`Ids.1`).

use etwsim_decode::Field as DecodedField;
use etwsim_decode::Value as DecodedValue;
use etwsim_decode::manifest::{Item, Provider as ManifestProvider};
use etwsim_decode::tracelogging::OutType;
use etwsim_types::Guid;
use std::fmt;

/// A decoded field value, typed: the decoder's value (`etwsim::decode::Value`), and which
/// kind of description the event had (it chooses the value's plain rendering).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// A TraceLogging field's value.
    TraceLogging(&'a DecodedValue),
    /// A manifest or kernel (MOF) field's value.
    Manifest(&'a DecodedValue),
}

impl Value<'_> {
    /// The value's type as tests name it: `u32`, `i64`, `string`, `ansi`, `bool`, `guid`,
    /// `hexint32` (a TraceLogging HEXINT32, compared as a `u32`), `struct`, `array`…
    pub fn type_name(&self) -> &'static str {
        match self.value() {
            DecodedValue::Null => "null",
            DecodedValue::String(_) | DecodedValue::CountedString(_) => "string",
            DecodedValue::Ansi(_) | DecodedValue::CountedAnsi(_) => "ansi",
            DecodedValue::I8(_) => "i8",
            DecodedValue::U8(_) => "u8",
            DecodedValue::I16(_) => "i16",
            DecodedValue::U16(_) => "u16",
            DecodedValue::I32(_) => "i32",
            DecodedValue::U32(_) => "u32",
            DecodedValue::I64(_) => "i64",
            DecodedValue::U64(_) => "u64",
            DecodedValue::F32(_) => "f32",
            DecodedValue::F64(_) => "f64",
            DecodedValue::Bool32(_) => "bool",
            DecodedValue::Binary(_) => "binary",
            DecodedValue::Guid(_) => "guid",
            DecodedValue::Pointer(_) => "pointer",
            DecodedValue::FileTime(_) => "filetime",
            DecodedValue::SystemTime(_) => "systemtime",
            DecodedValue::Sid(_) | DecodedValue::TokenUser(_) => "sid",
            DecodedValue::HexInt32(_) => "hexint32",
            DecodedValue::HexInt64(_) => "hexint64",
            DecodedValue::Struct(_) => "struct",
            DecodedValue::Array(_) => "array",
            _ => "value",
        }
    }

    /// The decoder's value.
    pub fn value(&self) -> &DecodedValue {
        match self {
            Value::TraceLogging(v) | Value::Manifest(v) => v,
        }
    }
}

impl fmt::Display for Value<'_> {
    /// The value with no rendering hint (`7`, `2147942405`): the raw in-type text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::TraceLogging(v) => fmt::Display::fmt(&v.display_with(OutType::DEFAULT), f),
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
        use DecodedValue as V;
        use Expected as E;
        match (self, v.value()) {
            (E::I8(a), V::I8(b)) => a == b,
            (E::U8(a), V::U8(b)) => a == b,
            (E::I16(a), V::I16(b)) => a == b,
            (E::U16(a), V::U16(b)) => a == b,
            (E::I32(a), V::I32(b)) => a == b,
            (E::U32(a), V::U32(b) | V::HexInt32(b)) => a == b,
            (E::I64(a), V::I64(b)) => a == b,
            (E::U64(a), V::U64(b) | V::HexInt64(b)) => a == b,
            (E::F32(a), V::F32(b)) => a == b,
            (E::F64(a), V::F64(b)) => a == b,
            (E::Bool(a), V::Bool32(b)) => *a == (*b != 0),
            (E::Str(a), V::String(b) | V::CountedString(b)) => a == b,
            (E::Str(a), V::Ansi(b) | V::CountedAnsi(b)) => a.as_bytes() == &b[..],
            (E::Guid(a), V::Guid(b)) => a == b,
            _ => false,
        }
    }
}

/// The decoded fields of one event, and which kind of description the event had.
#[derive(Clone, Debug, Default)]
pub(crate) enum Decoded {
    /// Not decoded.
    #[default]
    None,
    /// TraceLogging fields.
    Tl(Vec<DecodedField>),
    /// Manifest or kernel (MOF) fields.
    Mof(Vec<DecodedField>),
}

impl Decoded {
    /// The value at a dotted path.
    pub(crate) fn value(&self, path: &str) -> Option<Value<'_>> {
        let (fields, traced) = match self {
            Decoded::None => return None,
            Decoded::Tl(fields) => (fields, true),
            Decoded::Mof(fields) => (fields, false),
        };
        let mut parts = path.split('.');
        let first = parts.next()?;
        let mut v = etwsim_decode::value::find(fields, first)?;
        for part in parts {
            v = match v {
                DecodedValue::Struct(m) => etwsim_decode::value::find(m, part)?,
                DecodedValue::Array(items) => items.get(part.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(if traced {
            Value::TraceLogging(v)
        } else {
            Value::Manifest(v)
        })
    }
}

/// Every field and struct member of a TraceLogging event, rendered with its OutType: the
/// struct's members under dotted paths (the struct itself is not listed).
pub(crate) fn tl_rendered(fields: &[DecodedField], prefix: &str, out: &mut Vec<(String, String)>) {
    for f in fields {
        let path = format!("{prefix}{}", f.name);
        match &f.value {
            DecodedValue::Struct(members) => tl_rendered(members, &format!("{path}."), out),
            v => {
                let hint = f.def.as_ref().map_or(OutType::DEFAULT, |d| d.out_type);
                out.push((path, tl_text(v, hint)));
            }
        }
    }
}

fn tl_text(v: &DecodedValue, out: OutType) -> String {
    match v {
        // An array of 8- or 16-bit characters with OutType STRING is text (as dump shows it).
        DecodedValue::Array(items)
            if out == OutType::STRING
                && items.iter().all(|i| {
                    matches!(
                        i,
                        DecodedValue::I8(_) | DecodedValue::U8(_) | DecodedValue::U16(_)
                    )
                }) =>
        {
            items
                .iter()
                .map(|i| i.display_with(out).to_string())
                .collect()
        }
        DecodedValue::Array(items) => {
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
    fields: &[DecodedField],
    out: &mut Vec<(String, String)>,
) {
    for (f, item) in fields.iter().zip(items) {
        match (item, &f.value) {
            (Item::Struct(s), DecodedValue::Struct(members)) => {
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
pub(crate) fn mof_rendered(fields: &[DecodedField], out: &mut Vec<(String, String)>) {
    for f in fields {
        out.push((f.name.clone(), f.value.to_string()));
    }
}
