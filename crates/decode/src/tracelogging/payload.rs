//! Field values ⇄ payload bytes (DEC-08, DEC-09, DEC-12, DEC-13, DEC-15).
//!
//! Values follow one another with no padding; every integer is little-endian at its natural
//! size; the metadata alone says how many bytes a value takes.

use super::schema::{Arity, FieldDef, InType};
use crate::error::{Error, Result};
use crate::fields::SystemTime;
use crate::value::{Field, Value};
use crate::wire::utf16_lossy;
use etwsim_types::Guid;

/// The most values one event may decode to, counting every value and every copy of a field
/// definition a decoded struct carries — one for each definition and one for each 64
/// bytes of name and custom type information it holds: etwsim's guard
/// against metadata that makes a few payload bytes stand for billions of struct elements,
/// or for thousands of copies of a long name (no rule sets a limit).
///
/// Unlike the manifest decoder ([`crate::manifest::Template::decode`]), this one does not
/// also bound values that take no payload bytes by the payload's length: the encoder builds
/// any fixed-count array of empty structs, and every event it builds decodes back.
pub const MAX_VALUES: usize = 1 << 20;

/// Bytes of a copied definition's name and custom type information that count as one value
/// against [`MAX_VALUES`].
const COPY_BYTES: usize = 64;

/// What a copy of `def` costs against [`MAX_VALUES`]: each definition in it (itself and all
/// its members, nested), and each [`COPY_BYTES`] of their names and custom type information.
fn weight(def: &FieldDef) -> usize {
    let custom = match &def.arity {
        Arity::Custom(info) => info.len(),
        _ => 0,
    };
    1 + (def.name.len() + custom) / COPY_BYTES + def.members.iter().map(weight).sum::<usize>()
}

/// A counted value's largest byte count, and a VCOUNT array's largest element count.
const MAX_COUNT: usize = u16::MAX as usize;

/// One step of a field's path, for error messages.
#[derive(Clone, Copy)]
enum Seg<'d> {
    Name(&'d str),
    Index(usize),
}

fn path_text(path: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Name(n) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(n);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Decodes payload bytes against field definitions.
pub(crate) struct PayloadReader<'a, 'd> {
    bytes: &'a [u8],
    at: usize,
    pointer_size: usize,
    values: usize,
    path: Vec<Seg<'d>>,
}

impl<'a, 'd> PayloadReader<'a, 'd> {
    pub(crate) fn new(bytes: &'a [u8], pointer_size: usize) -> Self {
        PayloadReader {
            bytes,
            at: 0,
            pointer_size,
            values: 0,
            path: Vec::new(),
        }
    }

    /// Bytes not consumed.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let available = self.remaining();
        if n > available {
            return Err(Error::PayloadTruncated {
                field: path_text(&self.path),
                offset: self.at,
                needed: n,
                available,
            });
        }
        let b = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(b)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn bad(&self, offset: usize, problem: impl Into<String>) -> Error {
        Error::PayloadBadValue {
            field: path_text(&self.path),
            offset,
            problem: problem.into(),
        }
    }

    /// Decodes the value of every top-level field, in order: the caller pairs them with
    /// their definitions (moved when it owns the schema, cloned otherwise).
    pub(crate) fn values(&mut self, defs: &'d [FieldDef]) -> Result<Vec<Value>> {
        defs.iter()
            .map(|def| {
                self.charge(weight(def))?;
                self.path.push(Seg::Name(&def.name));
                let value = self.field(def)?;
                self.path.pop();
                Ok(value)
            })
            .collect()
    }

    fn field(&mut self, def: &'d FieldDef) -> Result<Value> {
        match &def.arity {
            Arity::Scalar => self.one(def),
            Arity::Fixed(n) => self.elements(def, usize::from(*n)),
            Arity::Variable => {
                let n = self.u16()?;
                self.elements(def, usize::from(n))
            }
            Arity::Custom(_) => {
                let n = self.u16()?;
                Ok(Value::Binary(self.take(usize::from(n))?.to_vec()))
            }
        }
    }

    fn elements(&mut self, def: &'d FieldDef, n: usize) -> Result<Value> {
        let mut items = Vec::with_capacity(n.min(self.remaining() + 1));
        for i in 0..n {
            self.path.push(Seg::Index(i));
            items.push(self.one(def)?);
            self.path.pop();
        }
        Ok(Value::Array(items))
    }

    /// Counts `n` values against [`MAX_VALUES`].
    fn charge(&mut self, n: usize) -> Result<()> {
        self.values += n;
        if self.values > MAX_VALUES {
            return Err(self.bad(
                self.at,
                format!("the event holds more than {MAX_VALUES} values"),
            ));
        }
        Ok(())
    }

    fn one(&mut self, def: &'d FieldDef) -> Result<Value> {
        self.charge(1)?;
        let start = self.at;
        Ok(match def.in_type {
            InType::STRUCT => {
                let mut members = Vec::with_capacity(def.members.len());
                for m in &def.members {
                    self.charge(weight(m))?;
                    self.path.push(Seg::Name(&m.name));
                    let value = self.field(m)?;
                    self.path.pop();
                    members.push(Field::with_def(m.clone(), value));
                }
                Value::Struct(members)
            }
            InType::UNICODE_STRING => {
                let rest = &self.bytes[self.at..];
                let units = rest.chunks_exact(2).take_while(|c| c != &[0, 0]).count();
                if units * 2 + 2 > rest.len() {
                    return Err(self.bad(start, "a UTF-16 string with no NUL terminator"));
                }
                self.at += units * 2 + 2;
                Value::String(utf16_lossy(&rest[..units * 2]))
            }
            InType::ANSI_STRING => {
                let rest = &self.bytes[self.at..];
                let nul = rest
                    .iter()
                    .position(|&b| b == 0)
                    .ok_or_else(|| self.bad(start, "an 8-bit string with no NUL terminator"))?;
                self.at += nul + 1;
                Value::Ansi(rest[..nul].to_vec())
            }
            InType::INT8 => Value::I8(i8::from_le_bytes(self.array()?)),
            InType::UINT8 => Value::U8(u8::from_le_bytes(self.array()?)),
            InType::INT16 => Value::I16(i16::from_le_bytes(self.array()?)),
            InType::UINT16 => Value::U16(u16::from_le_bytes(self.array()?)),
            InType::INT32 => Value::I32(i32::from_le_bytes(self.array()?)),
            InType::UINT32 => Value::U32(u32::from_le_bytes(self.array()?)),
            InType::INT64 => Value::I64(i64::from_le_bytes(self.array()?)),
            InType::UINT64 => Value::U64(u64::from_le_bytes(self.array()?)),
            InType::FLOAT => Value::F32(f32::from_le_bytes(self.array()?)),
            InType::DOUBLE => Value::F64(f64::from_le_bytes(self.array()?)),
            InType::BOOL32 => Value::Bool32(i32::from_le_bytes(self.array()?)),
            InType::GUID => Value::Guid(Guid::from_bytes_le(self.array()?)),
            InType::POINTER => Value::Pointer(if self.pointer_size == 4 {
                u64::from(u32::from_le_bytes(self.array()?))
            } else {
                u64::from_le_bytes(self.array()?)
            }),
            InType::FILETIME => Value::FileTime(i64::from_le_bytes(self.array()?)),
            InType::SYSTEMTIME => {
                let b: [u8; 16] = self.array()?;
                let mut w = [0u16; 8];
                for (i, x) in w.iter_mut().enumerate() {
                    *x = u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
                }
                Value::SystemTime(SystemTime::from_words(w))
            }
            InType::SID => {
                let head: [u8; 8] = self.array()?;
                self.at = start;
                Value::Sid(self.take(8 + 4 * usize::from(head[1]))?.to_vec())
            }
            InType::HEXINT32 => Value::HexInt32(u32::from_le_bytes(self.array()?)),
            InType::HEXINT64 => Value::HexInt64(u64::from_le_bytes(self.array()?)),
            InType::COUNTED_STRING => {
                let n = usize::from(self.u16()?);
                if n % 2 != 0 {
                    return Err(
                        self.bad(start, format!("a UTF-16 string of {n} bytes, an odd count"))
                    );
                }
                Value::CountedString(utf16_lossy(self.take(n)?))
            }
            InType::COUNTED_ANSI_STRING => {
                let n = usize::from(self.u16()?);
                Value::CountedAnsi(self.take(n)?.to_vec())
            }
            InType::BINARY | InType::COUNTED_BINARY => {
                let n = usize::from(self.u16()?);
                Value::Binary(self.take(n)?.to_vec())
            }
            other => {
                // EventSchema::parse refuses these; a hand-made schema may still hold one.
                return Err(self.bad(start, format!("InType {} has no payload layout", other.0)));
            }
        })
    }
}

/// Encodes one field's value after `out`, checked against its definition. Counted values
/// longer than 65,535 bytes and VCOUNT arrays longer than 65,535 elements are cut there,
/// as tracelogging_dynamic does (DEC-15).
pub(crate) fn encode_field(
    def: &FieldDef,
    value: &Value,
    out: &mut Vec<u8>,
    path: &str,
) -> Result<()> {
    let mismatch = |problem: String| Error::Build {
        field: path.to_owned(),
        problem,
    };
    match (&def.arity, value) {
        (Arity::Scalar, v) => encode_one(def, v, out, path),
        (Arity::Fixed(n), Value::Array(items)) => {
            if items.len() != usize::from(*n) {
                return Err(mismatch(format!(
                    "a fixed-count array of {n} was given {} values",
                    items.len()
                )));
            }
            for (i, item) in items.iter().enumerate() {
                encode_one(def, item, out, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Arity::Variable, Value::Array(items)) => {
            let items = &items[..items.len().min(MAX_COUNT)];
            out.extend_from_slice(&(items.len() as u16).to_le_bytes());
            for (i, item) in items.iter().enumerate() {
                encode_one(def, item, out, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Arity::Custom(_), Value::Binary(b)) => {
            counted(b, out);
            Ok(())
        }
        (arity, v) => Err(mismatch(format!(
            "a {arity:?} field cannot hold {}",
            variant_name(v)
        ))),
    }
}

fn counted(b: &[u8], out: &mut Vec<u8>) {
    let b = &b[..b.len().min(MAX_COUNT)];
    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    out.extend_from_slice(b);
}

fn variant_name(v: &Value) -> String {
    match v.in_type().and_then(|t| t.name()) {
        Some(n) => format!("a {n} value"),
        None if matches!(v, Value::Array(_)) => "an array".into(),
        None if matches!(v, Value::Null) => "a null value".into(),
        None if matches!(v, Value::TokenUser(_)) => "a kernel SID block".into(),
        None => "a binary value".into(),
    }
}

fn encode_one(def: &FieldDef, value: &Value, out: &mut Vec<u8>, path: &str) -> Result<()> {
    if !value.fits(def.in_type) {
        return Err(Error::Build {
            field: path.to_owned(),
            problem: format!(
                "an {:?} field cannot hold {}",
                def.in_type,
                variant_name(value)
            ),
        });
    }
    match value {
        Value::Struct(members) => {
            if members.len() != def.members.len() {
                return Err(Error::Build {
                    field: path.to_owned(),
                    problem: format!(
                        "the STRUCT has {} members, {} values were given",
                        def.members.len(),
                        members.len()
                    ),
                });
            }
            for (m, v) in def.members.iter().zip(members) {
                encode_field(m, &v.value, out, &format!("{path}.{}", m.name))?;
            }
        }
        Value::String(s) => {
            for u in s.encode_utf16().take_while(|&u| u != 0) {
                out.extend_from_slice(&u.to_le_bytes());
            }
            out.extend_from_slice(&[0, 0]);
        }
        Value::Ansi(b) => {
            out.extend(b.iter().take_while(|&&c| c != 0));
            out.push(0);
        }
        Value::I8(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::U8(v) => out.push(*v),
        Value::I16(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::I32(v) | Value::Bool32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::U32(v) | Value::HexInt32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::I64(v) | Value::FileTime(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::U64(v) | Value::HexInt64(v) | Value::Pointer(v) => {
            out.extend_from_slice(&v.to_le_bytes())
        }
        Value::F32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::Guid(g) => out.extend_from_slice(&g.to_bytes_le()),
        Value::SystemTime(t) => {
            for w in t.to_words() {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        Value::Sid(b) => {
            let len = b.get(1).map(|&n| 8 + 4 * usize::from(n));
            match len {
                Some(len) if b.len() >= len => out.extend_from_slice(&b[..len]),
                _ => {
                    return Err(Error::Build {
                        field: path.to_owned(),
                        problem: format!(
                            "{} bytes are not a SID (8 + 4 × SubAuthorityCount)",
                            b.len()
                        ),
                    });
                }
            }
        }
        Value::CountedString(s) => {
            let units: Vec<u16> = s.encode_utf16().take(MAX_COUNT / 2).collect();
            out.extend_from_slice(&((units.len() * 2) as u16).to_le_bytes());
            for u in units {
                out.extend_from_slice(&u.to_le_bytes());
            }
        }
        Value::CountedAnsi(b) | Value::Binary(b) => counted(b, out),
        Value::Array(_) => {
            return Err(Error::Build {
                field: path.to_owned(),
                problem: "a scalar field cannot hold an array".into(),
            });
        }
        // `fits` refuses them: no TraceLogging InType holds them.
        Value::Null | Value::TokenUser(_) => {
            return Err(Error::Build {
                field: path.to_owned(),
                problem: format!(
                    "an {:?} field cannot hold {}",
                    def.in_type,
                    variant_name(value)
                ),
            });
        }
    }
    Ok(())
}
