//! Metadata + payload → [`DecodedEvent`]; records carrying an `EVENT_SCHEMA_TL` item
//! (DEC-01…DEC-05).

use super::payload::PayloadReader;
use super::schema::{EventSchema, FieldDef, InType};
use super::traits::ProviderTraits;
use crate::error::{Error, Result};
use crate::value::{Field, Value};
use etwsim_etl::EventView;
use etwsim_types::record::{ext_type, header_flags, header_type};
use etwsim_types::{EventDescriptor, EventRecord};
use std::fmt;

/// A decoded TraceLogging event: its name and tag from the metadata, its fields from the
/// payload and — when it came from a record — the provider name and the descriptor.
#[derive(Clone, PartialEq, Debug)]
pub struct DecodedEvent {
    /// The event name from the metadata (the event's identity, DEC-02).
    pub name: String,
    /// The 28-bit event tag, 0 for none.
    pub tag: u32,
    /// The fields, in metadata order.
    pub fields: Vec<Field>,
    /// The provider name from a `PROV_TRAITS` item, when the record had one (DEC-04).
    pub provider_name: Option<String>,
    /// The record's descriptor (level, keyword, opcode…), when decoded from a record.
    pub descriptor: Option<EventDescriptor>,
    /// Payload bytes after the last field. Decoders ignore them; a well-formed event has none.
    pub trailing_bytes: usize,
}

impl DecodedEvent {
    /// The field at `path`: a top-level name, or `Outer.Inner` for struct members.
    pub fn field(&self, path: &str) -> Option<&Field> {
        let mut parts = path.split('.');
        let first = parts.next()?;
        let mut field = self.fields.iter().find(|f| f.name() == first)?;
        for part in parts {
            field = field.member(part)?;
        }
        Some(field)
    }

    /// The value of the field at `path` (see [`field`](Self::field)).
    pub fn value(&self, path: &str) -> Option<&Value> {
        self.field(path).map(|f| &f.value)
    }

    /// The fields as TDH lists them as properties (DEC-14): every BINARY (14) field, at
    /// any struct depth (arrays of structs are left as they are), is preceded by a synthesised UINT16 `<Name>.Length` holding its byte
    /// count; COUNTEDBINARY (25) stays one property.
    pub fn tdh_properties(&self) -> Vec<Field> {
        fn walk(fields: &[Field], out: &mut Vec<Field>) {
            for f in fields {
                let binary = f.def.as_ref().is_some_and(|d| d.in_type == InType::BINARY);
                match &f.value {
                    Value::Binary(b) if binary => {
                        out.push(Field::with_def(
                            FieldDef::new(format!("{}.Length", f.name), InType::UINT16),
                            Value::U16(b.len() as u16),
                        ));
                        out.push(f.clone());
                    }
                    Value::Struct(members) => {
                        let mut inner = Vec::with_capacity(members.len());
                        walk(members, &mut inner);
                        let def = f.def.as_ref().map(|d| FieldDef {
                            members: inner.iter().filter_map(|m| m.def.clone()).collect(),
                            ..d.clone()
                        });
                        out.push(Field {
                            name: f.name.clone(),
                            value: Value::Struct(inner),
                            def,
                        });
                    }
                    _ => out.push(f.clone()),
                }
            }
        }
        let mut out = Vec::with_capacity(self.fields.len());
        walk(&self.fields, &mut out);
        out
    }
}

impl fmt::Display for DecodedEvent {
    /// `Provider/Name name=value, …`: strings quoted, values with their OutType hints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.provider_name {
            write!(f, "{p}/")?;
        }
        f.write_str(&self.name)?;
        for (i, field) in self.fields.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{field}")?;
        }
        Ok(())
    }
}

impl EventSchema {
    /// Decodes a payload against this schema, with 64-bit pointers.
    ///
    /// # Errors
    /// [`Error::PayloadTruncated`] or [`Error::PayloadBadValue`] naming the field and its payload
    /// offset.
    pub fn decode_payload(&self, payload: &[u8]) -> Result<DecodedEvent> {
        self.decode_payload_with(payload, 8)
    }

    /// Decodes a payload; POINTER (16) values take `pointer_size` bytes (4 or 8).
    ///
    /// # Errors
    /// As [`decode_payload`](Self::decode_payload).
    pub fn decode_payload_with(&self, payload: &[u8], pointer_size: usize) -> Result<DecodedEvent> {
        let mut r = PayloadReader::new(payload, pointer_size);
        let values = r.values(&self.fields)?;
        let fields = self.fields.iter().zip(values);
        Ok(DecodedEvent {
            name: self.name.clone(),
            tag: self.tag,
            fields: fields
                .map(|(def, value)| Field::with_def(def.clone(), value))
                .collect(),
            provider_name: None,
            descriptor: None,
            trailing_bytes: r.remaining(),
        })
    }

    /// [`decode_payload_with`](Self::decode_payload_with) for a schema the caller gives up:
    /// its definitions move into the decoded fields instead of being copied.
    fn into_decoded(self, payload: &[u8], pointer_size: usize) -> Result<DecodedEvent> {
        let mut r = PayloadReader::new(payload, pointer_size);
        let values = r.values(&self.fields)?;
        let trailing_bytes = r.remaining();
        let fields = self.fields.into_iter().zip(values);
        Ok(DecodedEvent {
            name: self.name,
            tag: self.tag,
            fields: fields
                .map(|(def, value)| Field {
                    name: def.name.clone(),
                    value,
                    def: Some(def),
                })
                .collect(),
            provider_name: None,
            descriptor: None,
            trailing_bytes,
        })
    }
}

/// Decodes a TraceLogging event from its metadata blob and its payload (64-bit pointers).
///
/// # Errors
/// [`Error::Metadata`] for bad metadata (with its byte offset), [`Error::PayloadTruncated`]
/// or [`Error::PayloadBadValue`] for a payload that does not hold what the metadata announces
/// (with the field and its payload offset). Never panics.
pub fn decode_event(metadata: &[u8], payload: &[u8]) -> Result<DecodedEvent> {
    EventSchema::parse(metadata)?.into_decoded(payload, 8)
}

/// Decodes an event metadata blob immediately followed by its payload — the two data blocks
/// `TraceLoggingWrite` passes, concatenated: the metadata's `Size` says where the payload
/// starts. This is also the entry point of the `decode_tracelogging` fuzz target.
///
/// # Errors
/// As [`decode_event`]; a blob shorter than two bytes is [`Error::Metadata`].
pub fn decode_concatenated(data: &[u8]) -> Result<DecodedEvent> {
    let size = match data {
        [lo, hi, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
        _ => usize::MAX, // EventSchema::parse reports the short blob
    };
    let split = size.min(data.len());
    decode_event(&data[..split], &data[split..])
}

/// Decodes the items and user data of one record.
fn decode_parts<'a>(
    items: impl Iterator<Item = (u16, &'a [u8])>,
    user_data: &[u8],
    descriptor: EventDescriptor,
    pointer_size: usize,
) -> Option<Result<DecodedEvent>> {
    let mut schema = None;
    let mut traits = None;
    for (ty, data) in items {
        match ty {
            ext_type::EVENT_SCHEMA_TL if schema.is_none() => schema = Some(data),
            ext_type::PROV_TRAITS if traits.is_none() => traits = Some(data),
            _ => {}
        }
    }
    let schema = schema?;
    Some((|| {
        let mut event = EventSchema::parse(schema)?.into_decoded(user_data, pointer_size)?;
        event.provider_name = traits
            .map(ProviderTraits::parse)
            .transpose()?
            .map(|t| t.name);
        event.descriptor = Some(descriptor);
        Ok::<_, Error>(event)
    })())
}

/// POINTER size of a record: 4 for a 32-bit writer's header (type 0x12 or the 32-bit
/// flag), 8 otherwise.
fn pointer_size(header_type_byte: u16, flags: u16) -> usize {
    if header_type_byte == u16::from(header_type::EVENT_HEADER32)
        || flags & header_flags::HEADER_32_BIT != 0
    {
        4
    } else {
        8
    }
}

/// Decodes a record that carries an `EVENT_SCHEMA_TL` extended item (DEC-01, DEC-03):
/// `None` for any other record, which is not TraceLogging. A `PROV_TRAITS` item supplies
/// the provider name (DEC-04). The event is identified by its metadata, whatever its Id
/// (DEC-02).
///
/// # Errors
/// As [`decode_event`], and [`Error::ProviderTraits`] for a bad traits item.
pub fn decode_record(record: &EventRecord) -> Option<Result<DecodedEvent>> {
    let h = &record.header;
    decode_parts(
        record
            .extended_data
            .iter()
            .map(|i| (i.ext_type, i.data.as_slice())),
        &record.user_data,
        h.descriptor,
        pointer_size(h.header_type, h.flags),
    )
}

/// [`decode_record`] for a record borrowed from an `.etl` buffer.
///
/// # Errors
/// As [`decode_record`].
pub fn decode_event_view(view: &EventView<'_>) -> Option<Result<DecodedEvent>> {
    let h = &view.header;
    decode_parts(
        view.extended_data().map(|i| (i.ext_type, i.data)),
        view.user_data,
        h.descriptor,
        pointer_size(h.header_type, h.flags),
    )
}
