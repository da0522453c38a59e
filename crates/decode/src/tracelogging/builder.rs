//! The typed event builder: fields in, [`TraceLoggingEvent`] (descriptor, metadata blob,
//! payload) out (DEC-03, DEC-05…DEC-09, DEC-13, DEC-15, EVT-27).

use super::payload::encode_field;
use super::schema::{Arity, EventSchema, FieldDef, InType, OutType};
use super::traits::ProviderTraits;
use crate::error::{Error, Result};
use crate::fields::SystemTime;
use crate::value::{Field, Value};
use etwsim_types::record::{ext_type, header_flags, record_size};
use etwsim_types::{
    Channel, EventDescriptor, EventHeader, EventRecord, ExtendedItem, Guid, Keyword, Level, Opcode,
    Task,
};

/// A Rust value that is one TraceLogging scalar of a fixed InType: the element type of
/// [`EventBuilder::value`], [`EventBuilder::array`] and [`EventBuilder::fixed_array`].
pub trait Scalar {
    /// The InType the value is written as.
    const IN_TYPE: InType;
    /// The value.
    fn to_value(&self) -> Value;
}

macro_rules! scalar {
    ($($t:ty => $in:ident, $v:ident;)*) => {$(
        impl Scalar for $t {
            const IN_TYPE: InType = InType::$in;
            fn to_value(&self) -> Value {
                Value::$v(*self)
            }
        }
    )*};
}

scalar! {
    i8 => INT8, I8;
    u8 => UINT8, U8;
    i16 => INT16, I16;
    u16 => UINT16, U16;
    i32 => INT32, I32;
    u32 => UINT32, U32;
    i64 => INT64, I64;
    u64 => UINT64, U64;
    f32 => FLOAT, F32;
    f64 => DOUBLE, F64;
    Guid => GUID, Guid;
    SystemTime => SYSTEMTIME, SystemTime;
}

impl Scalar for bool {
    const IN_TYPE: InType = InType::BOOL32;
    fn to_value(&self) -> Value {
        Value::Bool32(i32::from(*self))
    }
}

impl<T: Scalar + ?Sized> Scalar for &T {
    const IN_TYPE: InType = T::IN_TYPE;
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

/// A built TraceLogging event: what `TraceLoggingWrite` hands `EventWriteTransfer`
/// (DEC-03) besides the provider traits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLoggingEvent {
    /// The descriptor: Id and Version 0, Channel 11, Level/Keyword/Opcode as set (EVT-27).
    pub descriptor: EventDescriptor,
    /// The event metadata blob: data descriptor Type 1, the `EVENT_SCHEMA_TL` item (DEC-05).
    pub metadata: Vec<u8>,
    /// The field values: data descriptor Type 0, the record's user data.
    pub payload: Vec<u8>,
}

impl TraceLoggingEvent {
    /// The extended items ETW attaches when the provider set its traits (DEC-03): the
    /// `PROV_TRAITS` item (when `traits` is given), then `EVENT_SCHEMA_TL`.
    ///
    /// # Errors
    /// As [`ProviderTraits::to_bytes`].
    pub fn extended_items(&self, traits: Option<&ProviderTraits>) -> Result<Vec<ExtendedItem>> {
        let mut items = Vec::with_capacity(2);
        if let Some(t) = traits {
            items.push(ExtendedItem {
                ext_type: ext_type::PROV_TRAITS,
                data: t.to_bytes()?,
            });
        }
        items.push(ExtendedItem {
            ext_type: ext_type::EVENT_SCHEMA_TL,
            data: self.metadata.clone(),
        });
        Ok(items)
    }

    /// The event as a consumer receives it from `provider` — header, the items of
    /// [`extended_items`](Self::extended_items), the payload as user data — with every
    /// other header field zero.
    ///
    /// # Errors
    /// As [`extended_items`](Self::extended_items); [`Error::TooLarge`] when the record
    /// exceeds 65,535 bytes (EVT-05).
    pub fn to_record(
        &self,
        provider: Guid,
        traits: Option<&ProviderTraits>,
    ) -> Result<EventRecord> {
        let items = self.extended_items(traits)?;
        let size = record_size(&items, self.payload.len());
        let size = u16::try_from(size).map_err(|_| Error::TooLarge {
            what: "the event record",
            size,
            limit: usize::from(u16::MAX),
        })?;
        Ok(EventRecord {
            header: EventHeader {
                size,
                header_type: 0x13,
                flags: header_flags::EXTENDED_INFO,
                provider_id: provider,
                descriptor: self.descriptor,
                ..EventHeader::default()
            },
            extended_data: items,
            user_data: self.payload.clone(),
            ..EventRecord::default()
        })
    }
}

/// The descriptor `TraceLoggingWrite` gives an event with this level and keyword (EVT-27):
/// Id and Version 0, Channel 11 (`WINEVENT_CHANNEL_TRACELOGGING`), Opcode and Task 0. A
/// `const fn`, so an event's descriptor can be a constant:
///
/// ```
/// use etwsim_decode::tracelogging::descriptor;
/// use etwsim_types::{EventDescriptor, Keyword, Level, Opcode};
///
/// const STARTED: EventDescriptor =
///     descriptor(Level::INFORMATION, Keyword(0x1)).with_opcode(Opcode::START);
/// assert_eq!((STARTED.id, STARTED.version, STARTED.channel.0), (0, 0, 11));
/// ```
pub const fn descriptor(level: Level, keyword: Keyword) -> EventDescriptor {
    EventDescriptor::new(0, level, keyword).with_channel(Channel::TRACELOGGING)
}

/// A struct being filled by [`EventBuilder::begin_struct`].
#[derive(Clone, Debug)]
struct OpenStruct {
    name: String,
    fields: Vec<(FieldDef, Value)>,
}

/// Builds one TraceLogging event: name, tag, descriptor fields and typed fields.
///
/// Each `add`-style method appends a field to the innermost open struct (or the event);
/// [`out_type`](Self::out_type) and [`field_tag`](Self::field_tag) change the field added
/// last. Mistakes (a value that does not fit, a struct left open, too many members…) are
/// reported by [`build`](Self::build), with the field's name; the builder never panics.
///
/// Defaults are TraceLoggingWrite's (EVT-27): level 5 (VERBOSE), keyword 0, opcode 0,
/// channel 11, Id and Version 0.
///
/// ```
/// use etwsim_decode::tracelogging::{EventBuilder, OutType};
/// use etwsim_types::{Keyword, Level};
///
/// let event = EventBuilder::new("Connect")
///     .level(Level::INFORMATION)
///     .keyword(Keyword(0x10))
///     .str16("Host", "example.invalid")
///     .value("Port", 443u16.to_be())
///     .out_type(OutType::PORT)
///     .hresult("Result", 0)
///     .build()
///     .unwrap();
/// assert_eq!(event.descriptor.level, Level::INFORMATION);
/// assert_eq!(u16::from_le_bytes([event.metadata[0], event.metadata[1]]) as usize, event.metadata.len());
/// ```
#[derive(Clone, Debug)]
pub struct EventBuilder {
    name: String,
    tag: u32,
    descriptor: EventDescriptor,
    fields: Vec<(FieldDef, Value)>,
    open: Vec<OpenStruct>,
    error: Option<Error>,
}

impl EventBuilder {
    /// A builder for an event called `name` with TraceLoggingWrite's defaults.
    pub fn new(name: impl Into<String>) -> EventBuilder {
        EventBuilder {
            name: name.into(),
            tag: 0,
            descriptor: descriptor(Level::VERBOSE, Keyword::NONE),
            fields: Vec::new(),
            open: Vec::new(),
            error: None,
        }
    }

    /// Replaces the whole descriptor (level, keyword, opcode, channel, task, id, version).
    pub fn set_descriptor(&mut self, descriptor: EventDescriptor) -> &mut Self {
        self.descriptor = descriptor;
        self
    }

    /// `TraceLoggingLevel`.
    pub fn level(&mut self, level: Level) -> &mut Self {
        self.descriptor.level = level;
        self
    }

    /// `TraceLoggingKeyword`: OR-ed into the keyword, as repeated keyword arguments are
    /// (EVT-27).
    pub fn keyword(&mut self, keyword: Keyword) -> &mut Self {
        self.descriptor.keyword |= keyword;
        self
    }

    /// `TraceLoggingOpcode`.
    pub fn opcode(&mut self, opcode: Opcode) -> &mut Self {
        self.descriptor.opcode = opcode;
        self
    }

    /// `TraceLoggingChannel` (default 11, `WINEVENT_CHANNEL_TRACELOGGING`).
    pub fn channel(&mut self, channel: Channel) -> &mut Self {
        self.descriptor.channel = channel;
        self
    }

    /// The descriptor's task (normally 0).
    pub fn task(&mut self, task: Task) -> &mut Self {
        self.descriptor.task = task;
        self
    }

    /// Id and version, for events with a manually assigned stable id (normally 0, 0).
    pub fn id_version(&mut self, id: u16, version: u8) -> &mut Self {
        self.descriptor.id = id;
        self.descriptor.version = version;
        self
    }

    /// `TraceLoggingEventTag`: the 28-bit event tag (DEC-05).
    pub fn tag(&mut self, tag: u32) -> &mut Self {
        self.tag = tag;
        self
    }

    fn scope(&mut self) -> &mut Vec<(FieldDef, Value)> {
        match self.open.last_mut() {
            Some(s) => &mut s.fields,
            None => &mut self.fields,
        }
    }

    fn fail(&mut self, field: &str, problem: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(Error::Build {
                field: field.to_owned(),
                problem: problem.into(),
            });
        }
    }

    /// Appends a field given as a definition and a value: the general form every other
    /// method uses, which also reaches what they do not (arrays of structs, CUSTOM fields,
    /// POINTER). The value is checked against the definition by [`build`](Self::build).
    pub fn field(&mut self, def: FieldDef, value: Value) -> &mut Self {
        self.scope().push((def, value));
        self
    }

    fn scalar(
        &mut self,
        name: &str,
        in_type: InType,
        out_type: OutType,
        value: Value,
    ) -> &mut Self {
        self.field(FieldDef::new(name, in_type).with_out_type(out_type), value)
    }

    fn vcount(&mut self, name: &str, in_type: InType, values: Vec<Value>) -> &mut Self {
        self.field(
            FieldDef::new(name, in_type).with_arity(Arity::Variable),
            Value::Array(values),
        )
    }

    /// Sets the OutType (formatting hint, DEC-10) of the field added last.
    pub fn out_type(&mut self, out_type: OutType) -> &mut Self {
        match self.scope().last_mut() {
            Some((def, _)) => def.out_type = out_type,
            None => self.fail("", "out_type() before any field"),
        }
        self
    }

    /// Sets the 28-bit field tag of the field added last (DEC-07).
    pub fn field_tag(&mut self, tag: u32) -> &mut Self {
        match self.scope().last_mut() {
            Some((def, _)) => def.tag = tag,
            None => self.fail("", "field_tag() before any field"),
        }
        self
    }

    /// A scalar of a fixed-size type: integers (INT8…UINT64), `f32`/`f64` (FLOAT, DOUBLE),
    /// `bool` (BOOL32), [`Guid`], [`SystemTime`].
    pub fn value<T: Scalar>(&mut self, name: &str, value: T) -> &mut Self {
        self.scalar(name, T::IN_TYPE, OutType::DEFAULT, value.to_value())
    }

    /// A variable-count (VCOUNT) array of scalars: a u16 count in the payload, then the
    /// values (DEC-13). More than 65,535 values are cut there (DEC-15).
    pub fn array<T: Scalar>(
        &mut self,
        name: &str,
        values: impl IntoIterator<Item = T>,
    ) -> &mut Self {
        let values = values.into_iter().map(|v| v.to_value()).collect();
        self.vcount(name, T::IN_TYPE, values)
    }

    /// A constant-count (CCOUNT) array of scalars: the count goes into the metadata
    /// (DEC-07, DEC-13). More than 65,535 values is a build error.
    pub fn fixed_array<T: Scalar>(
        &mut self,
        name: &str,
        values: impl IntoIterator<Item = T>,
    ) -> &mut Self {
        let values: Vec<Value> = values.into_iter().map(|v| v.to_value()).collect();
        match u16::try_from(values.len()) {
            Ok(n) => self.field(
                FieldDef::new(name, T::IN_TYPE).with_arity(Arity::Fixed(n)),
                Value::Array(values),
            ),
            Err(_) => {
                self.fail(
                    name,
                    format!(
                        "{} values, a fixed-count array holds at most 65,535",
                        values.len()
                    ),
                );
                self
            }
        }
    }

    /// BOOL32 (13).
    pub fn bool32(&mut self, name: &str, value: bool) -> &mut Self {
        self.value(name, value)
    }

    /// HEXINT32 (20).
    pub fn hex32(&mut self, name: &str, value: u32) -> &mut Self {
        self.scalar(
            name,
            InType::HEXINT32,
            OutType::DEFAULT,
            Value::HexInt32(value),
        )
    }

    /// HEXINT64 (21).
    pub fn hex64(&mut self, name: &str, value: u64) -> &mut Self {
        self.scalar(
            name,
            InType::HEXINT64,
            OutType::DEFAULT,
            Value::HexInt64(value),
        )
    }

    /// A pointer as a 64-bit writer logs it: HEXINT64 (TraceLogging has no POINTER
    /// type, DEC-09; `TraceLoggingPointer` picks HEXINT64 on 64-bit Windows).
    pub fn pointer(&mut self, name: &str, value: u64) -> &mut Self {
        self.hex64(name, value)
    }

    /// A code address: HEXINT64 with OutType CODE_POINTER.
    pub fn code_pointer(&mut self, name: &str, value: u64) -> &mut Self {
        self.scalar(
            name,
            InType::HEXINT64,
            OutType::CODE_POINTER,
            Value::HexInt64(value),
        )
    }

    /// `TraceLoggingHResult`: INT32 with OutType HRESULT.
    pub fn hresult(&mut self, name: &str, value: i32) -> &mut Self {
        self.scalar(name, InType::INT32, OutType::HRESULT, Value::I32(value))
    }

    /// `TraceLoggingWinError`: UINT32 with OutType WIN32ERROR.
    pub fn win32_error(&mut self, name: &str, value: u32) -> &mut Self {
        self.scalar(
            name,
            InType::UINT32,
            OutType::WIN32_ERROR,
            Value::U32(value),
        )
    }

    /// `TraceLoggingNTStatus`: INT32 with OutType NTSTATUS.
    pub fn ntstatus(&mut self, name: &str, value: i32) -> &mut Self {
        self.scalar(name, InType::INT32, OutType::NTSTATUS, Value::I32(value))
    }

    /// FILETIME (17): 100-ns intervals since 1601-01-01 UTC.
    pub fn filetime(&mut self, name: &str, value: i64) -> &mut Self {
        self.scalar(
            name,
            InType::FILETIME,
            OutType::DEFAULT,
            Value::FileTime(value),
        )
    }

    /// SYSTEMTIME (18).
    pub fn systemtime(&mut self, name: &str, value: SystemTime) -> &mut Self {
        self.value(name, value)
    }

    /// SID (19): a binary SID; only its `8 + 4 × SubAuthorityCount` bytes are written.
    pub fn sid(&mut self, name: &str, sid: &[u8]) -> &mut Self {
        self.scalar(
            name,
            InType::SID,
            OutType::DEFAULT,
            Value::Sid(sid.to_vec()),
        )
    }

    /// BINARY (14): u16 byte count + bytes; never an array (DEC-13).
    pub fn binary(&mut self, name: &str, bytes: &[u8]) -> &mut Self {
        self.scalar(
            name,
            InType::BINARY,
            OutType::DEFAULT,
            Value::Binary(bytes.to_vec()),
        )
    }

    /// COUNTEDBINARY (25): as BINARY, but understood only by newer decoders (DEC-14).
    pub fn counted_binary(&mut self, name: &str, bytes: &[u8]) -> &mut Self {
        self.scalar(
            name,
            InType::COUNTED_BINARY,
            OutType::DEFAULT,
            Value::Binary(bytes.to_vec()),
        )
    }

    /// COUNTEDSTRING (22): u16 byte count + UTF-16LE, no NUL.
    pub fn str16(&mut self, name: &str, text: &str) -> &mut Self {
        self.scalar(
            name,
            InType::COUNTED_STRING,
            OutType::DEFAULT,
            Value::CountedString(text.into()),
        )
    }

    /// UNICODESTRING (1): UTF-16LE and a NUL (text after an embedded NUL is dropped).
    pub fn cstr16(&mut self, name: &str, text: &str) -> &mut Self {
        self.scalar(
            name,
            InType::UNICODE_STRING,
            OutType::DEFAULT,
            Value::String(text.into()),
        )
    }

    /// COUNTEDANSISTRING (23): u16 byte count + 8-bit bytes. Give OutType UTF8 for UTF-8
    /// text; otherwise decoders read Windows-1252 (DEC-12).
    pub fn str8(&mut self, name: &str, bytes: &[u8]) -> &mut Self {
        self.scalar(
            name,
            InType::COUNTED_ANSI_STRING,
            OutType::DEFAULT,
            Value::CountedAnsi(bytes.to_vec()),
        )
    }

    /// ANSISTRING (2): 8-bit bytes and a NUL.
    pub fn cstr8(&mut self, name: &str, bytes: &[u8]) -> &mut Self {
        self.scalar(
            name,
            InType::ANSI_STRING,
            OutType::DEFAULT,
            Value::Ansi(bytes.to_vec()),
        )
    }

    /// A UTF-8 string as COUNTEDANSISTRING with OutType UTF8 (DEC-12).
    pub fn utf8(&mut self, name: &str, text: &str) -> &mut Self {
        self.str8(name, text.as_bytes()).out_type(OutType::UTF8)
    }

    /// A VCOUNT array of COUNTEDSTRING.
    pub fn str16_array<'s>(
        &mut self,
        name: &str,
        texts: impl IntoIterator<Item = &'s str>,
    ) -> &mut Self {
        let values = texts
            .into_iter()
            .map(|t| Value::CountedString(t.into()))
            .collect();
        self.vcount(name, InType::COUNTED_STRING, values)
    }

    /// A VCOUNT array of UNICODESTRING.
    pub fn cstr16_array<'s>(
        &mut self,
        name: &str,
        texts: impl IntoIterator<Item = &'s str>,
    ) -> &mut Self {
        let values = texts.into_iter().map(|t| Value::String(t.into())).collect();
        self.vcount(name, InType::UNICODE_STRING, values)
    }

    /// A VCOUNT array of COUNTEDANSISTRING (per element: u16 length + bytes, DEC-13).
    pub fn str8_array<'s>(
        &mut self,
        name: &str,
        texts: impl IntoIterator<Item = &'s [u8]>,
    ) -> &mut Self {
        let values = texts
            .into_iter()
            .map(|t| Value::CountedAnsi(t.to_vec()))
            .collect();
        self.vcount(name, InType::COUNTED_ANSI_STRING, values)
    }

    /// A VCOUNT array of ANSISTRING.
    pub fn cstr8_array<'s>(
        &mut self,
        name: &str,
        texts: impl IntoIterator<Item = &'s [u8]>,
    ) -> &mut Self {
        let values = texts.into_iter().map(|t| Value::Ansi(t.to_vec())).collect();
        self.vcount(name, InType::ANSI_STRING, values)
    }

    /// A VCOUNT array of COUNTEDBINARY.
    pub fn counted_binary_array<'s>(
        &mut self,
        name: &str,
        blobs: impl IntoIterator<Item = &'s [u8]>,
    ) -> &mut Self {
        let values = blobs
            .into_iter()
            .map(|b| Value::Binary(b.to_vec()))
            .collect();
        self.vcount(name, InType::COUNTED_BINARY, values)
    }

    /// A VCOUNT array of SID.
    pub fn sid_array<'s>(
        &mut self,
        name: &str,
        sids: impl IntoIterator<Item = &'s [u8]>,
    ) -> &mut Self {
        let values = sids.into_iter().map(|b| Value::Sid(b.to_vec())).collect();
        self.vcount(name, InType::SID, values)
    }

    /// A VCOUNT array of FILETIME.
    pub fn filetime_array(
        &mut self,
        name: &str,
        values: impl IntoIterator<Item = i64>,
    ) -> &mut Self {
        let values = values.into_iter().map(Value::FileTime).collect();
        self.vcount(name, InType::FILETIME, values)
    }

    /// A VCOUNT array of HEXINT32.
    pub fn hex32_array(&mut self, name: &str, values: impl IntoIterator<Item = u32>) -> &mut Self {
        let values = values.into_iter().map(Value::HexInt32).collect();
        self.vcount(name, InType::HEXINT32, values)
    }

    /// A VCOUNT array of HEXINT64.
    pub fn hex64_array(&mut self, name: &str, values: impl IntoIterator<Item = u64>) -> &mut Self {
        let values = values.into_iter().map(Value::HexInt64).collect();
        self.vcount(name, InType::HEXINT64, values)
    }

    /// Opens a struct (`TraceLoggingStruct`, DEC-08): the fields added until the matching
    /// [`end_struct`](Self::end_struct) are its members (a nested struct counts as one).
    pub fn begin_struct(&mut self, name: &str) -> &mut Self {
        self.open.push(OpenStruct {
            name: name.into(),
            fields: Vec::new(),
        });
        self
    }

    /// Closes the innermost open struct; it becomes the field added last.
    pub fn end_struct(&mut self) -> &mut Self {
        match self.open.pop() {
            Some(s) => {
                let def =
                    FieldDef::structure(s.name, s.fields.iter().map(|(d, _)| d.clone()).collect());
                // The members' definitions are in `def`; the values need only their names.
                let members = s.fields.into_iter().map(|(d, v)| Field::new(d.name, v));
                self.field(def, Value::Struct(members.collect()))
            }
            None => {
                self.fail("", "end_struct() without an open struct");
                self
            }
        }
    }

    /// The schema as it stands (the metadata [`build`](Self::build) encodes).
    pub fn schema(&self) -> EventSchema {
        EventSchema {
            name: self.name.clone(),
            tag: self.tag,
            fields: self.fields.iter().map(|(d, _)| d.clone()).collect(),
        }
    }

    /// Encodes the event.
    ///
    /// # Errors
    /// [`Error::Build`] naming the field for the first mistake (a value that does not fit
    /// its definition, a struct still open, a definition [`FieldDef::check`] refuses);
    /// [`Error::TooLarge`] when the metadata exceeds 65,535 bytes (DEC-15).
    pub fn build(&self) -> Result<TraceLoggingEvent> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Some(s) = self.open.last() {
            return Err(Error::Build {
                field: s.name.clone(),
                problem: "the struct was never closed with end_struct()".into(),
            });
        }
        let metadata = self.schema().to_bytes()?;
        let mut payload = Vec::new();
        for (def, value) in &self.fields {
            encode_field(def, value, &mut payload, &def.name)?;
        }
        Ok(TraceLoggingEvent {
            descriptor: self.descriptor,
            metadata,
            payload,
        })
    }
}

/// Encodes an event from a schema's worth of fields: what [`EventBuilder::build`] does
/// for fields gathered elsewhere (a decoded event's, for instance). Each field is encoded by
/// its [`def`](Field::def).
///
/// # Errors
/// As [`EventBuilder::build`]; [`Error::Build`] for a field without a TraceLogging
/// definition.
pub fn encode(name: &str, tag: u32, fields: &[Field]) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut b = EventBuilder::new(name);
    b.tag(tag);
    for f in fields {
        match &f.def {
            Some(def) => b.field(def.clone(), f.value.clone()),
            None => {
                b.fail(
                    &f.name,
                    "a field without a TraceLogging definition cannot be encoded",
                );
                &mut b
            }
        };
    }
    let e = b.build()?;
    Ok((e.metadata, e.payload))
}
