//! Manifest payload decoding (DEC-17, DEC-18, DEC-20): the template's items in order, packed
//! with no padding (EVT-11), counts and lengths fixed or taken from earlier fields.

use super::{
    DataDef, EventDef, InType, Item, Manifest, OutType, Param, Provider, StructDef, Template,
};
use crate::Error;
use crate::fields::{Field, SystemTime, Value};
use crate::wire::Cursor;
use etwsim_types::Guid;

/// The largest `count` a payload may ask for (TDH counts are 16-bit).
pub(super) const MAX_COUNT: i128 = u16::MAX as i128;

impl Manifest {
    /// Decodes the payload of event (`id`, `version`) of provider `provider` (DEC-17).
    ///
    /// # Errors
    /// [`Error::NoManifestEvent`] when the manifest has no such event; otherwise as
    /// [`Provider::decode`].
    pub fn decode_event(
        &self,
        provider: Guid,
        id: u16,
        version: u8,
        payload: &[u8],
        pointer_size: u8,
    ) -> Result<(&Provider, &EventDef, Vec<Field>), Error> {
        let missing = || Error::NoManifestEvent {
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
    /// [`Error::NoTemplate`] when the event names a template the loader left out (the
    /// error carries its diagnostic) or that the manifest does not define; otherwise as
    /// [`Template::decode`].
    pub fn decode(
        &self,
        event: &EventDef,
        payload: &[u8],
        pointer_size: u8,
    ) -> Result<Vec<Field>, Error> {
        match (self.template_of(event), &event.template) {
            (Some(template), _) => template.decode(payload, pointer_size),
            (None, None) => Cursor::new(payload, pointer_size).map(|_| Vec::new()),
            (None, Some(tid)) => Err(self.no_template(tid)),
        }
    }

    /// [`Error::NoTemplate`] for an event naming template `tid`, which this provider lacks.
    pub(super) fn no_template(&self, tid: &str) -> Error {
        Error::NoTemplate {
            tid: tid.to_owned(),
            why: match self.left_out_templates.iter().find(|(t, _)| t == tid) {
                Some((_, d)) => format!("was left out of the manifest ({d})"),
                None => "is not defined in the manifest".into(),
            },
        }
    }
}

impl Template {
    /// Decodes `payload` by this template: its items in order, packed with no padding, counts
    /// and lengths fixed or taken from earlier fields; `pointer_size` (4 or 8) sizes
    /// `win:Pointer` fields. Bytes after the last field are ignored.
    ///
    /// # The value budget
    ///
    /// A decoder never makes more values than the payload has bytes to give them. A value
    /// that takes bytes of the payload is paid for by them; one that takes none (a
    /// zero-length string or binary, a struct whose members take none) spends one unit of a
    /// budget of *the payload's length + the template's definitions* (its items and struct
    /// members). An array is not charged itself — its elements are, and it belongs to a
    /// top-level item or to a struct that was. So every template decodes when its counts are
    /// 0 or 1, and whatever the counts say a decode makes at most a few values per payload
    /// byte plus the budget. The values are made one by one; nothing is allocated from a
    /// count first.
    ///
    /// # Errors
    /// [`Error::PointerSize`]; [`Error::Truncated`] / [`Error::BadValue`]
    /// naming the field and its offset (a short payload, an unterminated or odd-length
    /// string, a bad SID, a count or length field that is negative or too large);
    /// [`Error::TooManyValues`] naming the field and its count when the values that
    /// take no bytes exhaust the budget.
    pub fn decode(&self, payload: &[u8], pointer_size: u8) -> Result<Vec<Field>, Error> {
        let mut c = Cursor::new(payload, pointer_size)?;
        let mut budget = Budget::new(payload.len(), self);
        let mut out: Vec<Field> = Vec::with_capacity(self.items.len());
        let n = self.items.len();
        for (i, item) in self.items.iter().enumerate() {
            let last = i + 1 == n;
            let start = c.offset;
            // The single value of an item without a count (an array's elements are accounted
            // for as they are made).
            let (value, single) = match item {
                Item::Data(d) => {
                    let count = resolve(&c, &out, &d.name, d.count.as_ref())?;
                    let length = resolve(&c, &out, &d.name, d.length.as_ref())?;
                    match count {
                        Some(k) => {
                            let read =
                                |c: &mut Cursor<'_>, _: &mut Budget| read_data(c, d, length, false);
                            (array(&mut c, &mut budget, At::top(&d.name), k, read)?, None)
                        }
                        None => (read_data(&mut c, d, length, last)?, Some(1)),
                    }
                }
                Item::Struct(s) => {
                    let count = resolve(&c, &out, &s.name, s.count.as_ref())?;
                    let top = &out;
                    match count {
                        Some(k) => {
                            let one = |c: &mut Cursor<'_>, b: &mut Budget| one_struct(c, b, s, top);
                            (array(&mut c, &mut budget, At::top(&s.name), k, one)?, None)
                        }
                        None => (one_struct(&mut c, &mut budget, s, top)?, Some(1)),
                    }
                }
            };
            if let Some(count) = single {
                budget.made(&c, start, At::top(item.name()), count)?;
            }
            out.push(Field::new(item.name(), value));
        }
        Ok(out)
    }

    /// The template's definitions: its items and their struct members.
    pub(super) fn definitions(&self) -> usize {
        self.items
            .iter()
            .map(|i| match i {
                Item::Data(_) => 1,
                Item::Struct(s) => 1 + s.members.len(),
            })
            .sum()
    }
}

/// A field's place, for an error: a top-level item, or a member of a struct.
#[derive(Copy, Clone)]
struct At<'t> {
    outer: Option<&'t str>,
    name: &'t str,
}

impl<'t> At<'t> {
    fn top(name: &'t str) -> At<'t> {
        At { outer: None, name }
    }

    fn path(self) -> String {
        match self.outer {
            Some(outer) => format!("{outer}.{}", self.name),
            None => self.name.to_owned(),
        }
    }
}

/// The budget of values that take no payload bytes (see [`Template::decode`]).
struct Budget {
    left: usize,
    limit: usize,
    payload: usize,
}

impl Budget {
    fn new(payload: usize, template: &Template) -> Budget {
        let limit = payload.saturating_add(template.definitions());
        Budget {
            left: limit,
            limit,
            payload,
        }
    }

    /// Accounts for one value of `field` (one of `count`) made from `start` to the cursor: free
    /// when it took bytes, one unit of the budget when it took none.
    fn made(
        &mut self,
        c: &Cursor<'_>,
        start: usize,
        field: At<'_>,
        count: usize,
    ) -> Result<(), Error> {
        if c.offset > start {
            return Ok(());
        }
        match self.left.checked_sub(1) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(Error::TooManyValues {
                field: field.path(),
                offset: start,
                count,
                payload: self.payload,
                limit: self.limit,
            }),
        }
    }
}

/// `count` values made by `one`, each accounted for as it is made.
fn array(
    c: &mut Cursor<'_>,
    budget: &mut Budget,
    field: At<'_>,
    count: usize,
    mut one: impl FnMut(&mut Cursor<'_>, &mut Budget) -> Result<Value, Error>,
) -> Result<Value, Error> {
    let mut items = Vec::new();
    for _ in 0..count {
        let start = c.offset;
        items.push(one(c, budget)?);
        budget.made(c, start, field, count)?;
    }
    Ok(Value::Array(items))
}

/// One instance of struct `s`: its members, whose counts and lengths are fixed or taken from
/// an earlier member of this instance, else from an earlier top-level field (`top`).
fn one_struct(
    c: &mut Cursor<'_>,
    budget: &mut Budget,
    s: &StructDef,
    top: &[Field],
) -> Result<Value, Error> {
    let mut members: Vec<Field> = Vec::with_capacity(s.members.len());
    for m in &s.members {
        let at = At {
            outer: Some(&s.name),
            name: &m.name,
        };
        let scope = |p: Option<&Param>| match p {
            Some(Param::Field(f)) if crate::fields::find(&members, f).is_some() => {
                resolve(c, &members, &m.name, p)
            }
            _ => resolve(c, top, &m.name, p),
        };
        let length = scope(m.length.as_ref())?;
        let count = scope(m.count.as_ref())?;
        let start = c.offset;
        let value = match count {
            Some(k) => {
                let read = |c: &mut Cursor<'_>, _: &mut Budget| read_data(c, m, length, false);
                array(c, budget, at, k, read)?
            }
            None => {
                let v = read_data(c, m, length, false)?;
                budget.made(c, start, at, 1)?;
                v
            }
        };
        members.push(Field::new(m.name.clone(), value));
    }
    Ok(Value::Struct(members))
}

/// The value of a `count` / `length` parameter: fixed, or an earlier integer field of
/// `earlier`.
fn resolve(
    c: &Cursor<'_>,
    earlier: &[Field],
    name: &str,
    p: Option<&Param>,
) -> Result<Option<usize>, Error> {
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
) -> Result<Value, Error> {
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
        InType::BOOLEAN => Value::Bool32(c.u32(name)? as i32),
        InType::BINARY => {
            // TDH: without a length, a binary shown as win:IPv6 is an IN6_ADDR (16 bytes).
            let n = match (length, d.out_type) {
                (Some(n), _) => n,
                (None, Some(OutType::IPV6)) => 16,
                (None, _) => return Err(c.bad(name, c.offset, "win:Binary without a length")),
            };
            Value::Binary(c.take(name, n)?.to_vec())
        }
        InType::GUID => Value::Guid(Guid::from_bytes_le(c.array(name)?)),
        InType::POINTER => Value::Pointer(c.pointer(name)?),
        InType::FILETIME => Value::FileTime(i64::from_le_bytes(c.array(name)?)),
        InType::SYSTEMTIME => Value::SystemTime(SystemTime::from_bytes(c.array(name)?)),
        InType::SID => {
            let at = c.offset;
            c.sid(name)?;
            Value::Sid(c.bytes[at..c.offset].to_vec())
        }
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
