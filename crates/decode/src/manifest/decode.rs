//! Manifest payload decoding (DEC-17, DEC-18, DEC-20): the template's items in order, packed
//! with no padding (EVT-11), counts and lengths fixed or taken from earlier fields.

use super::{DataDef, EventDef, InType, Item, Manifest, OutType, Param, Provider, Template};
use crate::decode_error::DecodeError;
use crate::fields::{Field, SystemTime, Value};
use crate::wire::Cursor;
use etwsim_types::Guid;

/// The largest `count` a payload may ask for (TDH counts are 16-bit).
const MAX_COUNT: i128 = u16::MAX as i128;

impl Manifest {
    /// Decodes the payload of event (`id`, `version`) of provider `provider` (DEC-17).
    ///
    /// # Errors
    /// [`DecodeError::NoManifestEvent`] when the manifest has no such event; otherwise as
    /// [`Provider::decode`].
    pub fn decode_event(
        &self,
        provider: Guid,
        id: u16,
        version: u8,
        payload: &[u8],
        pointer_size: u8,
    ) -> Result<(&Provider, &EventDef, Vec<Field>), DecodeError> {
        let missing = || DecodeError::NoManifestEvent {
            provider,
            id,
            version,
        };
        let p = self.provider(provider).ok_or_else(missing)?;
        let e = p.event(id, version).ok_or_else(missing)?;
        Ok((p, e, p.decode(e, payload, pointer_size)?))
    }
}

impl Provider {
    /// Decodes `payload` by the template of `event`; `pointer_size` (4 or 8) sizes
    /// `win:Pointer` fields. An event without a template has no fields; bytes after the last
    /// field are ignored.
    ///
    /// # Errors
    /// As [`Template::decode`].
    pub fn decode(
        &self,
        event: &EventDef,
        payload: &[u8],
        pointer_size: u8,
    ) -> Result<Vec<Field>, DecodeError> {
        match self.template_of(event) {
            Some(template) => template.decode(payload, pointer_size),
            None => Cursor::new(payload, pointer_size).map(|_| Vec::new()),
        }
    }
}

impl Template {
    /// Decodes `payload` by this template: its items in order, packed with no padding, counts
    /// and lengths fixed or taken from earlier fields; `pointer_size` (4 or 8) sizes
    /// `win:Pointer` fields. Bytes after the last field are ignored.
    ///
    /// # Errors
    /// [`DecodeError::PointerSize`]; [`DecodeError::Truncated`] / [`DecodeError::BadValue`]
    /// naming the field and its offset (a short payload, an unterminated or odd-length
    /// string, a bad SID, a count or length field that is negative or too large).
    pub fn decode(&self, payload: &[u8], pointer_size: u8) -> Result<Vec<Field>, DecodeError> {
        let mut c = Cursor::new(payload, pointer_size)?;
        let template = self;
        let mut out: Vec<Field> = Vec::with_capacity(template.items.len());
        let n = template.items.len();
        for (i, item) in template.items.iter().enumerate() {
            let last = i + 1 == n;
            let value = match item {
                Item::Data(d) => {
                    let count = resolve(&c, &out, &d.name, d.count.as_ref())?;
                    let length = resolve(&c, &out, &d.name, d.length.as_ref())?;
                    match count {
                        Some(k) => Value::Array(
                            (0..k)
                                .map(|_| read_data(&mut c, d, length, false))
                                .collect::<Result<_, _>>()?,
                        ),
                        None => read_data(&mut c, d, length, last)?,
                    }
                }
                Item::Struct(s) => {
                    let count = resolve(&c, &out, &s.name, s.count.as_ref())?;
                    let one = |c: &mut Cursor<'_>| -> Result<Value, DecodeError> {
                        let members = s
                            .members
                            .iter()
                            .map(|m| {
                                let length = match &m.length {
                                    Some(Param::Fixed(n)) => Some(*n as usize),
                                    _ => None,
                                };
                                let v = match &m.count {
                                    Some(Param::Fixed(k)) => Value::Array(
                                        (0..*k)
                                            .map(|_| read_data(c, m, length, false))
                                            .collect::<Result<_, _>>()?,
                                    ),
                                    _ => read_data(c, m, length, false)?,
                                };
                                Ok(Field::new(m.name.clone(), v))
                            })
                            .collect::<Result<Vec<_>, DecodeError>>()?;
                        Ok(Value::Struct(members))
                    };
                    match count {
                        Some(k) => {
                            Value::Array((0..k).map(|_| one(&mut c)).collect::<Result<_, _>>()?)
                        }
                        None => one(&mut c)?,
                    }
                }
            };
            out.push(Field::new(item.name(), value));
        }
        Ok(out)
    }
}

/// The value of a `count` / `length` parameter: fixed, or an earlier integer field.
fn resolve(
    c: &Cursor<'_>,
    earlier: &[Field],
    name: &str,
    p: Option<&Param>,
) -> Result<Option<usize>, DecodeError> {
    match p {
        None => Ok(None),
        Some(Param::Fixed(n)) => Ok(Some(*n as usize)),
        Some(Param::Field(f)) => {
            let v = crate::fields::find(earlier, f).and_then(Value::as_i128);
            match v {
                Some(v) if (0..=MAX_COUNT).contains(&v) => Ok(Some(v as usize)),
                _ => Err(c.bad(
                    name,
                    c.offset,
                    format!("count/length field {f} is {v:?}, not 0-{MAX_COUNT}"),
                )),
            }
        }
    }
}

/// One value of `d` (one array element when `d` has a count).
fn read_data(
    c: &mut Cursor<'_>,
    d: &DataDef,
    length: Option<usize>,
    last: bool,
) -> Result<Value, DecodeError> {
    let name = d.name.as_str();
    let cut_nul = |mut b: Vec<u8>| {
        if let Some(n) = b.iter().position(|&x| x == 0) {
            b.truncate(n);
        }
        b
    };
    Ok(match d.in_type {
        InType::UNICODE_STRING => match length {
            Some(n) => {
                let s = c.utf16_units(name, n)?;
                Value::String(s.split('\0').next().unwrap_or("").to_owned())
            }
            None => Value::String(c.utf16z(name, last)?),
        },
        InType::ANSI_STRING => match length {
            Some(n) => Value::Ansi(cut_nul(c.take(name, n)?.to_vec())),
            None => Value::Ansi(c.ansiz(name, last)?),
        },
        InType::INT8 => Value::I8(c.array::<1>(name)?[0] as i8),
        InType::UINT8 => Value::U8(c.array::<1>(name)?[0]),
        InType::INT16 => Value::I16(i16::from_le_bytes(c.array(name)?)),
        InType::UINT16 if d.out_type == Some(OutType::PORT) => {
            Value::U16(u16::from_be_bytes(c.array(name)?))
        }
        InType::UINT16 => Value::U16(c.u16(name)?),
        InType::INT32 => Value::I32(i32::from_le_bytes(c.array(name)?)),
        InType::UINT32 | InType::HEX_INT32 => Value::U32(c.u32(name)?),
        InType::INT64 => Value::I64(i64::from_le_bytes(c.array(name)?)),
        InType::UINT64 | InType::HEX_INT64 => Value::U64(u64::from_le_bytes(c.array(name)?)),
        InType::FLOAT => Value::F32(f32::from_le_bytes(c.array(name)?)),
        InType::DOUBLE => Value::F64(f64::from_le_bytes(c.array(name)?)),
        InType::BOOLEAN => Value::Bool(c.u32(name)? != 0),
        InType::BINARY => {
            let n = length.ok_or_else(|| c.bad(name, c.offset, "win:Binary without a length"))?;
            Value::Binary(c.take(name, n)?.to_vec())
        }
        InType::GUID => Value::Guid(Guid::from_bytes_le(c.array(name)?)),
        InType::POINTER => Value::Pointer(c.pointer(name)?),
        InType::FILETIME => Value::FileTime(i64::from_le_bytes(c.array(name)?)),
        InType::SYSTEMTIME => Value::SystemTime(SystemTime::from_bytes(c.array(name)?)),
        InType::SID => Value::Sid(c.sid(name)?),
        InType::COUNTED_UNICODE_STRING => {
            let at = c.offset;
            let bytes = usize::from(c.u16(name)?);
            if bytes % 2 != 0 {
                return Err(c.bad(name, at, format!("counted UTF-16 string of {bytes} bytes")));
            }
            Value::String(c.utf16_units(name, bytes / 2)?)
        }
        InType::COUNTED_ANSI_STRING => {
            let n = usize::from(c.u16(name)?);
            Value::Ansi(c.take(name, n)?.to_vec())
        }
        InType::COUNTED_BINARY => {
            let n = usize::from(c.u16(name)?);
            Value::Binary(c.take(name, n)?.to_vec())
        }
        other => {
            return Err(c.bad(
                name,
                c.offset,
                format!("in-type {} cannot be decoded", other.0),
            ));
        }
    })
}
