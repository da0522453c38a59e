//! Manifest payload encoding (DEC-17, DEC-18, DEC-20): the inverse of the payload decoder
//! ([`Template::decode`]). The template's items are written in order, each from the field of
//! its name, packed with no padding (EVT-11), in the layout the decoder reads — so the fields
//! a payload decodes to encode back to its bytes, and encoded fields decode back to themselves.
//!
//! The rules — how fields meet the template, and the bounds — are on [`Template::encode`].

use super::decode::MAX_COUNT;
use super::{
    DataDef, EventDef, InType, Item, MAX_PARAM, Manifest, OutType, Param, Provider, StructDef,
    Template,
};
use crate::Error;
use crate::fields::Sid;
use crate::value::{Field, Value};
use etwsim_types::Guid;
use std::collections::{HashMap, HashSet};

/// The `layout` of this encoder's [`Error::Encode`]s.
const LAYOUT: &str = "manifest template";

impl Manifest {
    /// Encodes `fields` as the payload of event (`id`, `version`) of provider `provider`
    /// (DEC-17): the inverse of [`decode_event`](Self::decode_event).
    ///
    /// # Errors
    /// [`Error::NoManifestEvent`] when the manifest has no such event; otherwise as
    /// [`Provider::encode`].
    pub fn encode_event(
        &self,
        provider: Guid,
        id: u16,
        version: u8,
        fields: &[Field],
        pointer_size: u8,
    ) -> Result<Vec<u8>, Error> {
        let missing = || Error::NoManifestEvent {
            provider,
            id,
            version,
        };
        let p = self.provider(provider).ok_or_else(missing)?;
        let e = p.event(id, version).ok_or_else(missing)?;
        p.encode(e, fields, pointer_size)
    }
}

impl Provider {
    /// Encodes `fields` as the payload of `event` by its template: the inverse of
    /// [`decode`](Self::decode) (the rules are on [`Template::encode`]). An event without a
    /// template has an empty payload and takes no fields.
    ///
    /// ```
    /// use etwsim_decode::manifest::load_manifest;
    /// use etwsim_decode::{Field, Value};
    ///
    /// # fn main() -> Result<(), etwsim_decode::Error> {
    /// let xml = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
    ///  <instrumentation><events>
    ///   <provider name="Demo" guid="{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}" symbol="DEMO">
    ///    <templates><template tid="T">
    ///     <data name="Path" inType="win:UnicodeString"/>
    ///     <data name="Count" inType="win:UInt16"/>
    ///     <data name="Sizes" inType="win:UInt32" count="Count"/>
    ///    </template></templates>
    ///    <events><event value="7" version="1" template="T"/></events>
    ///   </provider>
    ///  </events></instrumentation>
    /// </instrumentationManifest>"#;
    /// let manifest = load_manifest(xml.as_bytes())?;
    /// let provider = &manifest.providers[0];
    /// let event = provider.event(7, 1).unwrap();
    /// // `Count` is left out: the encoder writes the array's length.
    /// let fields = [
    ///     Field::new("Path", Value::String("C:\\a".into())),
    ///     Field::new("Sizes", Value::Array(vec![Value::U32(512), Value::U32(4096)])),
    /// ];
    /// let payload = provider.encode(event, &fields, 8)?;
    /// assert_eq!(payload.len(), 10 + 2 + 8);
    /// let decoded = provider.decode(event, &payload, 8)?;
    /// assert_eq!(decoded[1], Field::new("Count", Value::U16(2)));
    /// assert_eq!(decoded[2], fields[1]);
    /// // Decoded fields encode back to the same bytes.
    /// assert_eq!(provider.encode(event, &decoded, 8)?, payload);
    /// // A count that does not match its array is refused, naming the field.
    /// let wrong = [fields[0].clone(), Field::new("Count", Value::U16(3)), fields[1].clone()];
    /// assert!(provider.encode(event, &wrong, 8).unwrap_err().to_string().contains("Sizes"));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::NoTemplate`] when the event names a template the loader left out or that the
    /// manifest does not define; [`Error::Encode`] naming the field for a field given to an
    /// event without a template; otherwise as [`Template::encode`].
    pub fn encode(
        &self,
        event: &EventDef,
        fields: &[Field],
        pointer_size: u8,
    ) -> Result<Vec<u8>, Error> {
        match (self.template_of(event), &event.template) {
            (Some(template), _) => template.encode(fields, pointer_size),
            (None, None) => match (pointer_size, fields.first()) {
                (4 | 8, None) => Ok(Vec::new()),
                (4 | 8, Some(f)) => Err(fail(f.name.clone(), "the event has no template")),
                (n, _) => Err(Error::PointerSize(n)),
            },
            (None, Some(tid)) => Err(self.no_template(tid)),
        }
    }
}

impl Template {
    /// Encodes `fields` by this template: the inverse of [`decode`](Self::decode), with the
    /// same `pointer_size` (4 or 8). [`Provider::encode`] has an example.
    ///
    /// # How fields meet the template
    ///
    /// * Each item (and each struct member) takes the first unused field of its name; a field the
    ///   template has no item for is an error, as is an item without a field — except a `count` or
    ///   `length` field, below.
    /// * Each value must be the variant the decoder makes for the item's `inType`:
    ///   [`Value::String`] for `win:UnicodeString` and `win:CountedUnicodeString`, [`Value::Ansi`]
    ///   for the ANSI strings, [`Value::U32`] for `win:UInt32` and `win:HexInt32`,
    ///   [`Value::Bool32`] for `win:Boolean`, [`Value::Binary`] for the binaries, [`Value::Array`]
    ///   of them for an item with a `count`, [`Value::Struct`] for a `struct`. The TraceLogging
    ///   spellings of the same wire types are taken too ([`Value::CountedString`],
    ///   [`Value::CountedAnsi`], [`Value::HexInt32`], [`Value::HexInt64`]); nothing is converted
    ///   between widths or signs.
    /// * **Counts and lengths taken from a field** (`count="Count"`, `length="Len"`): when the
    ///   caller gives that field, its value is checked against the array's length or the value's
    ///   length; when the caller leaves it out, the encoder writes it — the array's length, the
    ///   binary's bytes, the string's UTF-16 units or bytes (the longest of an array's) — in the
    ///   field's own integer `inType`. A fixed count must equal the array's length.
    /// * A string shorter than its `length` is padded with NULs (the decoder stops at the first
    ///   NUL), so NUL-terminated and fixed-length strings may not hold a NUL themselves. A
    ///   NUL-terminated string is always written with its NUL, also as the last field (where the
    ///   decoder also accepts one without it).
    /// * `win:Pointer` is 4 or 8 bytes by the pointer size, as for the decoder; a 4-byte pointer
    ///   must fit in 32 bits. `win:UInt16` shown as `win:Port` is written big-endian, as read.
    ///
    /// # Bounds
    ///
    /// Nothing here panics on any fields; time and memory are linear in the fields and the
    /// output. The encoder refuses what the decoder would refuse: values that take no bytes beyond
    /// the decoder's value budget ([`Template::decode`]), counts and lengths over 65,535.
    ///
    /// # Errors
    /// [`Error::PointerSize`]; [`Error::Encode`] naming the field (`Name`, `Array[2]`,
    /// `Struct[1].Member`) and saying what is wrong: a field missing or not in the template, a
    /// value whose variant does not fit the item's `inType`, an array for an item without a
    /// count (or the other way round), an array or value whose length does not match its
    /// count or length, a count or length field that is not an earlier integer field or is
    /// over 65,535 (or too large for its own type, when filled in), a NUL inside a
    /// NUL-terminated string, a counted value over 65,535 bytes, a SID that is not a valid
    /// binary SID, a pointer wider than 4 bytes for a 32-bit writer, and a payload with more
    /// values that take no bytes than the decoder's value budget allows.
    pub fn encode(&self, fields: &[Field], pointer_size: u8) -> Result<Vec<u8>, Error> {
        if !matches!(pointer_size, 4 | 8) {
            return Err(Error::PointerSize(pointer_size));
        }
        let mut e = Encoder {
            out: Vec::new(),
            pointer_size,
            referenced: self.referenced(),
            free: 0,
        };
        let mut given = Given::new(fields);
        let mut top = Scope::default();
        // The top-level item whose values took no bytes most often (for the budget's error).
        let mut busiest: (usize, &str) = (0, "");
        for item in &self.items {
            let at = At::top(item.name());
            let before = e.free;
            match (given.take(item.name()), item) {
                (None, Item::Data(d)) => e.missing(&mut top, d, at)?,
                (None, Item::Struct(_)) => return Err(fail(at.path(), MISSING)),
                (Some(f), Item::Data(d)) => e.data(d, &f.value, &mut top, None, at)?,
                (Some(f), Item::Struct(s)) => e.structure(s, &f.value, &mut top, at)?,
            }
            if e.free - before > busiest.0 {
                busiest = (e.free - before, item.name());
            }
        }
        if let Some(f) = given.left_over() {
            return Err(fail(
                f.name.clone(),
                "the template has no item of this name",
            ));
        }
        top.finish(At::top)?;
        let limit = e.out.len().saturating_add(self.definitions());
        if e.free > limit {
            return Err(fail(
                busiest.1.to_owned(),
                format!(
                    "the payload would hold {} values that take no bytes; the decoder's budget \
                     for a payload of {} bytes is {limit}",
                    e.free,
                    e.out.len()
                ),
            ));
        }
        Ok(e.out)
    }

    /// The names the template's `count` and `length` attributes refer to.
    fn referenced(&self) -> HashSet<&str> {
        let mut names = HashSet::new();
        for item in &self.items {
            match item {
                Item::Data(d) => names.extend(params(d).into_iter().flatten()),
                Item::Struct(s) => {
                    names.extend(field(&s.count));
                    names.extend(s.members.iter().flat_map(params).flatten());
                }
            }
        }
        names
    }
}

/// The field name a `count` or `length` refers to, if it refers to one.
fn field(p: &Option<Param>) -> Option<&str> {
    match p {
        Some(Param::Field(f)) => Some(f.as_str()),
        _ => None,
    }
}

/// The field names a `data` element's `count` and `length` refer to.
fn params(d: &DataDef) -> [Option<&str>; 2] {
    [field(&d.count), field(&d.length)]
}

/// The reason given for an item without a field.
const MISSING: &str = "missing: no field of this name was given";

fn fail(field: String, reason: impl Into<String>) -> Error {
    Error::Encode {
        layout: LAYOUT,
        field,
        reason: reason.into(),
    }
}

/// A field's place, for an error: `Name`, `Name[2]`, `Struct[1].Member[0]`. Made into text
/// only when there is an error.
#[derive(Copy, Clone)]
struct At<'a> {
    /// The struct and the instance's index in its array, for a member.
    outer: Option<(&'a str, Option<usize>)>,
    name: &'a str,
    /// The element's index, for an array element.
    index: Option<usize>,
}

impl<'a> At<'a> {
    fn top(name: &'a str) -> At<'a> {
        At {
            outer: None,
            name,
            index: None,
        }
    }

    fn element(self, index: usize) -> At<'a> {
        At {
            index: Some(index),
            ..self
        }
    }

    fn path(self) -> String {
        let index = |i: Option<usize>| i.map_or(String::new(), |i| format!("[{i}]"));
        match self.outer {
            Some((s, i)) => format!("{s}{}.{}{}", index(i), self.name, index(self.index)),
            None => format!("{}{}", self.name, index(self.index)),
        }
    }
}

/// What a later `count` or `length` finds under a name already written.
enum Slot {
    /// The value as an integer (`None` when it is not one: the decoder refuses it as a count).
    Known(Option<i128>),
    /// A field the caller left out, written as zeros, to be filled in by the first count or
    /// length that refers to it.
    Pending(Reserved),
}

#[derive(Copy, Clone)]
struct Reserved {
    at: usize,
    width: usize,
    max: u64,
    big_endian: bool,
}

/// The fields written in one scope (the top level, or one struct instance): the first of
/// each name, as the decoder finds them.
#[derive(Default)]
struct Scope<'t> {
    slots: HashMap<&'t str, Slot>,
    /// The names reserved here, in order.
    reserved: Vec<&'t str>,
}

impl<'t> Scope<'t> {
    fn known(&mut self, name: &'t str, value: &Value) {
        self.slots
            .entry(name)
            .or_insert_with(|| Slot::Known(value.as_i128()));
    }

    /// An error for the first reserved field nothing filled in.
    fn finish(&self, at: impl Fn(&'t str) -> At<'t>) -> Result<(), Error> {
        match self
            .reserved
            .iter()
            .find(|n| matches!(self.slots.get(*n), Some(Slot::Pending(_))))
        {
            Some(n) => Err(fail(at(n).path(), MISSING)),
            None => Ok(()),
        }
    }
}

/// The caller's fields of one scope, each taken once, by name, in order.
struct Given<'f> {
    fields: &'f [Field],
    /// For each name, the indices not yet taken, last first.
    by_name: HashMap<&'f str, Vec<usize>>,
    taken: Vec<bool>,
}

impl<'f> Given<'f> {
    fn new(fields: &'f [Field]) -> Given<'f> {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, f) in fields.iter().enumerate().rev() {
            by_name.entry(f.name.as_str()).or_default().push(i);
        }
        Given {
            fields,
            by_name,
            taken: vec![false; fields.len()],
        }
    }

    fn take(&mut self, name: &str) -> Option<&'f Field> {
        let i = self.by_name.get_mut(name)?.pop()?;
        self.taken[i] = true;
        self.fields.get(i)
    }

    fn left_over(&self) -> Option<&'f Field> {
        self.fields
            .iter()
            .zip(&self.taken)
            .find(|(_, t)| !**t)
            .map(|(f, _)| f)
    }
}

struct Encoder<'t> {
    out: Vec<u8>,
    pointer_size: u8,
    /// The names `count` and `length` attributes refer to: a field of one of these names
    /// that the caller leaves out is reserved and filled in.
    referenced: HashSet<&'t str>,
    /// Values written that took no bytes (the decoder's budget).
    free: usize,
}

impl<'t> Encoder<'t> {
    /// An item the caller gave no field for: reserved when a count or length may fill it,
    /// else an error.
    fn missing(&mut self, scope: &mut Scope<'t>, d: &'t DataDef, at: At<'_>) -> Result<(), Error> {
        let fillable = d.count.is_none()
            && self.referenced.contains(d.name.as_str())
            && !scope.slots.contains_key(d.name.as_str());
        let Some((width, max)) = fillable.then(|| self.integer(d.in_type)).flatten() else {
            return Err(fail(at.path(), MISSING));
        };
        let reserved = Reserved {
            at: self.out.len(),
            width,
            max,
            big_endian: d.in_type == InType::UINT16 && d.out_type == Some(OutType::PORT),
        };
        self.out.resize(self.out.len() + width, 0);
        scope.slots.insert(&d.name, Slot::Pending(reserved));
        scope.reserved.push(&d.name);
        Ok(())
    }

    /// The width and largest value of an integer in-type a count or length can be written in.
    fn integer(&self, t: InType) -> Option<(usize, u64)> {
        Some(match t {
            InType::INT8 => (1, i8::MAX as u64),
            InType::UINT8 => (1, u8::MAX.into()),
            InType::INT16 => (2, i16::MAX as u64),
            InType::UINT16 => (2, u16::MAX.into()),
            InType::INT32 => (4, i32::MAX as u64),
            InType::UINT32 | InType::HEX_INT32 => (4, u32::MAX.into()),
            InType::INT64 => (8, i64::MAX as u64),
            InType::UINT64 | InType::HEX_INT64 => (8, u64::MAX),
            InType::POINTER => (usize::from(self.pointer_size), u64::MAX),
            _ => return None,
        })
    }

    /// The values of an item: the elements of an array for an item with a count, else the
    /// value itself.
    fn elements<'v>(has_count: bool, value: &'v Value, at: At<'_>) -> Result<&'v [Value], Error> {
        match (has_count, value) {
            (true, Value::Array(v)) => Ok(v),
            (true, v) => Err(fail(
                at.path(),
                format!(
                    "the item has a count: an Array is needed, not {}",
                    variant(v)
                ),
            )),
            (false, Value::Array(_)) => {
                Err(fail(at.path(), "an Array for an item without a count"))
            }
            (false, v) => Ok(std::slice::from_ref(v)),
        }
    }

    /// The number a `count` or `length` stands for: fixed, or the value of an earlier field
    /// (of the struct instance `inner` when it has one of that name, else of `outer`, the top
    /// level). A reserved field is filled in with `want` (the array's or value's length).
    fn resolve(
        &mut self,
        p: Option<&Param>,
        want: Option<usize>,
        inner: &mut Scope<'t>,
        outer: Option<&mut Scope<'t>>,
        at: At<'_>,
        what: &str,
    ) -> Result<Option<usize>, Error> {
        let f = match p {
            None => return Ok(None),
            Some(Param::Fixed(n)) if *n <= MAX_PARAM => return Ok(Some(*n as usize)),
            Some(Param::Fixed(n)) => {
                return Err(fail(
                    at.path(),
                    format!("its fixed {what} {n} is over {MAX_PARAM}"),
                ));
            }
            Some(Param::Field(f)) => f.as_str(),
        };
        let slot = match outer {
            Some(outer) if !inner.slots.contains_key(f) => outer.slots.get_mut(f),
            _ => inner.slots.get_mut(f),
        };
        let Some(slot) = slot else {
            return Err(fail(
                at.path(),
                format!("its {what} field {f} is not an earlier field of the template"),
            ));
        };
        match slot {
            Slot::Known(Some(v)) if (0..=MAX_COUNT).contains(v) => Ok(Some(*v as usize)),
            Slot::Known(v) => Err(fail(
                at.path(),
                match v {
                    Some(v) => format!("its {what} field {f} is {v}, not 0-{MAX_COUNT}"),
                    None => format!("its {what} field {f} is not an integer"),
                },
            )),
            Slot::Pending(r) => {
                let Some(n) = want else { return Ok(None) };
                let r = *r;
                if n as u64 > r.max || n as i128 > MAX_COUNT {
                    return Err(fail(
                        at.path(),
                        format!(
                            "its {what} {n} does not fit its {what} field {f} (at most {})",
                            r.max.min(MAX_COUNT as u64)
                        ),
                    ));
                }
                let bytes = (n as u64).to_le_bytes();
                if let Some(dst) = self.out.get_mut(r.at..r.at + r.width) {
                    dst.copy_from_slice(&bytes[..r.width]);
                    if r.big_endian {
                        dst.reverse();
                    }
                }
                *slot = Slot::Known(Some(n as i128));
                Ok(Some(n))
            }
        }
    }

    /// A `data` item (or struct member), `value` its field's value.
    fn data(
        &mut self,
        d: &'t DataDef,
        value: &Value,
        inner: &mut Scope<'t>,
        mut outer: Option<&mut Scope<'t>>,
        at: At<'_>,
    ) -> Result<(), Error> {
        let elems = Self::elements(d.count.is_some(), value, at)?;
        let n = elems.len();
        let count = self.resolve(
            d.count.as_ref(),
            Some(n),
            inner,
            outer.as_deref_mut(),
            at,
            "count",
        )?;
        if let Some(k) = count.filter(|k| *k != n) {
            return Err(fail(
                at.path(),
                format!("an array of {n} values, but its count is {k}"),
            ));
        }
        let want = uses_length(d.in_type).then(|| elems.iter().map(length_of).max().unwrap_or(0));
        let length = self.resolve(d.length.as_ref(), want, inner, outer, at, "length")?;
        for (i, v) in elems.iter().enumerate() {
            let start = self.out.len();
            let at = if d.count.is_some() { at.element(i) } else { at };
            self.write(d, v, length, at)?;
            if self.out.len() == start {
                self.free += 1;
            }
        }
        inner.known(&d.name, value);
        Ok(())
    }

    /// A `struct` item, `value` its field's value.
    fn structure(
        &mut self,
        s: &'t StructDef,
        value: &Value,
        top: &mut Scope<'t>,
        at: At<'_>,
    ) -> Result<(), Error> {
        let elems = Self::elements(s.count.is_some(), value, at)?;
        let n = elems.len();
        let count = self.resolve(s.count.as_ref(), Some(n), top, None, at, "count")?;
        if let Some(k) = count.filter(|k| *k != n) {
            return Err(fail(
                at.path(),
                format!("an array of {n} structs, but its count is {k}"),
            ));
        }
        for (i, v) in elems.iter().enumerate() {
            let index = s.count.is_some().then_some(i);
            let Value::Struct(members) = v else {
                let at = index.map_or(at, |i| at.element(i));
                return Err(fail(
                    at.path(),
                    format!("a struct: a Struct is needed, not {}", variant(v)),
                ));
            };
            let start = self.out.len();
            self.members(s, members, top, index)?;
            if self.out.len() == start {
                self.free += 1;
            }
        }
        top.known(&s.name, value);
        Ok(())
    }

    /// One instance of struct `s` from its members' fields.
    fn members(
        &mut self,
        s: &'t StructDef,
        fields: &[Field],
        top: &mut Scope<'t>,
        index: Option<usize>,
    ) -> Result<(), Error> {
        let at = |name: &'t str| At {
            outer: Some((s.name.as_str(), index)),
            name,
            index: None,
        };
        let mut given = Given::new(fields);
        let mut scope = Scope::default();
        for m in &s.members {
            match given.take(&m.name) {
                None => self.missing(&mut scope, m, at(&m.name))?,
                Some(f) => self.data(m, &f.value, &mut scope, Some(top), at(&m.name))?,
            }
        }
        if let Some(f) = given.left_over() {
            let place = At::top(&s.name);
            let place = index.map_or(place, |i| place.element(i)).path();
            return Err(fail(
                format!("{place}.{}", f.name),
                "the struct has no member of this name",
            ));
        }
        scope.finish(at)
    }

    /// One value of `d` (one array element when `d` has a count), as the decoder's
    /// `read_data` reads it.
    fn write(
        &mut self,
        d: &DataDef,
        v: &Value,
        length: Option<usize>,
        at: At<'_>,
    ) -> Result<(), Error> {
        let out = &mut self.out;
        let nul_inside = || {
            fail(
                at.path(),
                "a NUL inside a NUL-terminated or fixed-length string \
                 (the decoder stops at the first)",
            )
        };
        let too_long = |what: &str, len: usize, n: usize| {
            fail(at.path(), format!("{len} {what}, more than its length {n}"))
        };
        let counted = |len: usize| {
            u16::try_from(len).map_err(|_| {
                fail(
                    at.path(),
                    format!("{len} bytes, more than a counted value's 65535"),
                )
            })
        };
        match (d.in_type, v) {
            (InType::UNICODE_STRING, Value::String(s) | Value::CountedString(s)) => {
                if s.contains('\0') {
                    return Err(nul_inside());
                }
                let units = s.encode_utf16().count();
                let pad = match length {
                    Some(n) if units > n => return Err(too_long("UTF-16 units", units, n)),
                    Some(n) => n - units,
                    None => 1,
                };
                out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
                out.resize(out.len() + 2 * pad, 0);
            }
            (InType::ANSI_STRING, Value::Ansi(b) | Value::CountedAnsi(b)) => {
                if b.contains(&0) {
                    return Err(nul_inside());
                }
                let pad = match length {
                    Some(n) if b.len() > n => return Err(too_long("bytes", b.len(), n)),
                    Some(n) => n - b.len(),
                    None => 1,
                };
                out.extend_from_slice(b);
                out.resize(out.len() + pad, 0);
            }
            (InType::INT8, Value::I8(x)) => out.extend(x.to_le_bytes()),
            (InType::UINT8, Value::U8(x)) => out.push(*x),
            (InType::INT16, Value::I16(x)) => out.extend(x.to_le_bytes()),
            (InType::UINT16, Value::U16(x)) if d.out_type == Some(OutType::PORT) => {
                out.extend(x.to_be_bytes());
            }
            (InType::UINT16, Value::U16(x)) => out.extend(x.to_le_bytes()),
            (InType::INT32, Value::I32(x)) | (InType::BOOLEAN, Value::Bool32(x)) => {
                out.extend(x.to_le_bytes());
            }
            (InType::UINT32, Value::U32(x))
            | (InType::HEX_INT32, Value::U32(x) | Value::HexInt32(x)) => {
                out.extend(x.to_le_bytes());
            }
            (InType::INT64, Value::I64(x)) | (InType::FILETIME, Value::FileTime(x)) => {
                out.extend(x.to_le_bytes());
            }
            (InType::UINT64, Value::U64(x))
            | (InType::HEX_INT64, Value::U64(x) | Value::HexInt64(x)) => {
                out.extend(x.to_le_bytes());
            }
            (InType::FLOAT, Value::F32(x)) => out.extend(x.to_le_bytes()),
            (InType::DOUBLE, Value::F64(x)) => out.extend(x.to_le_bytes()),
            (InType::BINARY, Value::Binary(b)) => {
                let n = match (length, d.out_type) {
                    (Some(n), _) => n,
                    (None, Some(OutType::IPV6)) => 16,
                    (None, _) => return Err(fail(at.path(), "win:Binary without a length")),
                };
                if b.len() != n {
                    return Err(fail(
                        at.path(),
                        format!("{} bytes, but its length is {n}", b.len()),
                    ));
                }
                out.extend_from_slice(b);
            }
            (InType::GUID, Value::Guid(g)) => out.extend(g.to_bytes_le()),
            (InType::POINTER, Value::Pointer(p)) if self.pointer_size == 4 => {
                let p = u32::try_from(*p).map_err(|_| {
                    fail(at.path(), format!("pointer {p:#x} does not fit in 4 bytes"))
                })?;
                out.extend(p.to_le_bytes());
            }
            (InType::POINTER, Value::Pointer(p)) => out.extend(p.to_le_bytes()),
            (InType::SYSTEMTIME, Value::SystemTime(t)) => out.extend(t.to_bytes()),
            (InType::SID, Value::Sid(b)) => match Sid::read(b) {
                Ok((_, n)) if n == b.len() => out.extend_from_slice(b),
                _ => {
                    return Err(fail(
                        at.path(),
                        "not a valid binary SID \
                         (revision 1, 8 + 4 × its sub-authority count bytes)",
                    ));
                }
            },
            (InType::COUNTED_UNICODE_STRING, Value::String(s) | Value::CountedString(s)) => {
                let bytes = s.encode_utf16().count().saturating_mul(2);
                out.extend(counted(bytes)?.to_le_bytes());
                out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
            }
            (InType::COUNTED_ANSI_STRING, Value::Ansi(b) | Value::CountedAnsi(b))
            | (InType::COUNTED_BINARY, Value::Binary(b)) => {
                out.extend(counted(b.len())?.to_le_bytes());
                out.extend_from_slice(b);
            }
            (t, v) => {
                return Err(fail(
                    at.path(),
                    match t.name() {
                        Some(name) => format!("a {} value does not fit in-type {name}", variant(v)),
                        None => format!("in-type {} cannot be encoded", t.0),
                    },
                ));
            }
        }
        Ok(())
    }
}

/// Whether values of this in-type have a `length` (strings and binaries of a fixed length).
fn uses_length(t: InType) -> bool {
    matches!(
        t,
        InType::UNICODE_STRING | InType::ANSI_STRING | InType::BINARY
    )
}

/// The length a `length` field left out is filled in with, for one value: UTF-16 units or
/// bytes.
fn length_of(v: &Value) -> usize {
    match v {
        Value::String(s) | Value::CountedString(s) => s.encode_utf16().count(),
        Value::Ansi(b) | Value::CountedAnsi(b) | Value::Binary(b) => b.len(),
        _ => 0,
    }
}

/// The name of a value's variant, for an error.
fn variant(v: &Value) -> &'static str {
    match v {
        Value::Null => "Null",
        Value::I8(_) => "I8",
        Value::U8(_) => "U8",
        Value::I16(_) => "I16",
        Value::U16(_) => "U16",
        Value::I32(_) => "I32",
        Value::U32(_) => "U32",
        Value::I64(_) => "I64",
        Value::U64(_) => "U64",
        Value::F32(_) => "F32",
        Value::F64(_) => "F64",
        Value::Bool32(_) => "Bool32",
        Value::HexInt32(_) => "HexInt32",
        Value::HexInt64(_) => "HexInt64",
        Value::Pointer(_) => "Pointer",
        Value::FileTime(_) => "FileTime",
        Value::SystemTime(_) => "SystemTime",
        Value::Guid(_) => "Guid",
        Value::Sid(_) => "Sid",
        Value::TokenUser(_) => "TokenUser",
        Value::String(_) => "String",
        Value::CountedString(_) => "CountedString",
        Value::Ansi(_) => "Ansi",
        Value::CountedAnsi(_) => "CountedAnsi",
        Value::Binary(_) => "Binary",
        Value::Array(_) => "Array",
        Value::Struct(_) => "Struct",
    }
}
