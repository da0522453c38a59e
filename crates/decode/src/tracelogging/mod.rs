//! TraceLogging both ways: the typed [`EventBuilder`] encodes an event's metadata blob and
//! payload; [`decode_event`] / [`decode_record`] turn them back into named, typed fields.
//!
//! # The mechanism (DEC-03, DEC-05…DEC-15)
//!
//! A TraceLogging event describes itself. `TraceLoggingWrite` hands `EventWriteTransfer`
//! three kinds of data blocks: the provider traits (Type 2, [`ProviderTraits`]), the event
//! metadata (Type 1) and the field values (Type 0). ETW moves the first two out of the
//! payload into the `PROV_TRAITS` and `EVENT_SCHEMA_TL` extended items. The metadata is
//! `u16 Size`, the event tag in 7-bit groups, the NUL-terminated UTF-8 name, then one
//! definition per field: name, InType byte (type in bits 0–4, array kind in bits 5–6, bit 7
//! = an OutType byte follows), OutType byte (bit 7 = a field tag follows), tag, and a u16
//! count for constant-count arrays. A STRUCT's OutType byte is its member count. The payload
//! is the values back to back, with no padding and no type information of its own.
//!
//! Since such events normally all have Id 0, their identity is the metadata (the event
//! name and field list), never the Id (DEC-02): [`decode_record`] decodes every record by
//! the schema it carries.
//!
//! The encoder writes what Microsoft's `tracelogging_dynamic` crate writes, byte for byte
//! (the tests compare the two), including its 4-byte field-tag form; the event tag uses the
//! shortest form (DEC-06). The decoder accepts every tag form, skips extension bytes it does
//! not know, and reports bad input as an [`Error`](crate::Error) naming the field and the
//! byte offset — never a panic. Two guards no rule sets: structs nest at most
//! [`MAX_STRUCT_DEPTH`] deep and one event decodes to at most [`MAX_VALUES`] values.
//!
//! Microsoft pages: TraceLoggingProvider.h (the metadata format), "Provider Traits",
//! `EVENT_HEADER_EXTENDED_DATA_ITEM`.

mod builder;
mod event;
mod payload;
mod schema;
mod traits;

/// `SYSTEMTIME` (DEC-09): the one type the MOF, manifest and TraceLogging decoders share.
pub use crate::fields::SystemTime;
/// The crate's one value and field types, re-exported where TraceLogging users look for them.
pub use crate::value::{Field, Value};
pub use builder::{EventBuilder, Scalar, TraceLoggingEvent, descriptor, encode};
pub use event::{
    DecodedEvent, decode_concatenated, decode_event, decode_event_view, decode_record,
};
pub use payload::MAX_VALUES;
pub use schema::{
    Arity, EventSchema, FieldDef, InType, MAX_STRUCT_DEPTH, MAX_STRUCT_MEMBERS, MAX_TAG, OutType,
};
pub use traits::{ProviderTraits, TRAIT_TYPE_DECODE_GUID, TRAIT_TYPE_GROUP};
