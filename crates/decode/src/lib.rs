//! Consumer-side decoding for etwsim: turning an event's bytes back into named, typed
//! fields, as TDH does on Windows (rules DEC-01…DEC-29).
//!
//! # Map
//!
//! | type | Windows name | what it is |
//! |---|---|---|
//! | [`tracelogging::EventBuilder`], [`tracelogging::TraceLoggingEvent`] | `TraceLoggingWrite` | builds a TraceLogging event: descriptor, metadata blob, payload |
//! | [`tracelogging::EventSchema`], [`tracelogging::FieldDef`] | the `EVENT_SCHEMA_TL` blob | event name, tag and field definitions, both ways |
//! | [`tracelogging::InType`], [`tracelogging::OutType`], [`tracelogging::Arity`] | `TlgIn*`, `TlgOut*`, CCOUNT/VCOUNT/CUSTOM | a field's layout, formatting hint and array kind |
//! | [`Value`], [`Field`], [`Hint`] | the property values of `TRACE_EVENT_INFO` | every decoder's values and named fields (nested structs and arrays), and their one renderer with out-type hints (DEC-12, DEC-27, DEC-28) |
//! | [`tracelogging::DecodedEvent`] | `TRACE_EVENT_INFO` + property values | a decoded TraceLogging event: name, tag, fields |
//! | [`tracelogging::decode_event`], [`tracelogging::decode_record`], [`tracelogging::decode_event_view`] | `TdhGetEventInformation` for `DecodingSourceTlg` | metadata + payload, or a whole record, to a [`tracelogging::DecodedEvent`] |
//! | [`tracelogging::ProviderTraits`] | `EventProviderSetTraits` blob, `PROV_TRAITS` item | provider name, group and decode GUIDs |
//! | [`Error`] | | the crate's one error: what could not be decoded, encoded, loaded or built, and where (byte and field, or XML line and element) |
//! | [`mof::MofClass`], [`mof::Schema`], [`mof::decode_system`] | the MOF classes of the NT Kernel Logger (`FileIo`, `Process`…) | the kernel event layouts, both ways (KRN-12…KRN-30) |
//! | [`fileio::NameResolver`] | TraceEvent's `KernelTraceEventParserState` file names, wtrace's map | FileKey / FileObject → file name for FileIo and DiskIo events, with eviction policies (KRN-38, KRN-39) |
//! | [`manifest::Manifest`] | an instrumentation manifest (`.man`) | providers, events, templates, maps, keywords, messages (DEC-16…DEC-27) |
//! | [`fields::string_only_text`] | `EventWriteString`, `EVENT_HEADER_FLAG_STRING_ONLY` | the text of a string-only event (EVT-13) |
//! | [`manifest`]'s payload filters | `TdhCreatePayloadFilter`, `TdhAggregatePayloadFilters` | field/operator/value tests on decoded events (FLT-18) |
//! | [`property::PropertyFlags`] | `PROPERTY_FLAGS` | what TDH reports about each property: struct, counts, lengths, tags (DEC-29) |
//! | [`mof_class::MofClasses`], [`mof_class::ClassEvent`] | a user provider's MOF classes (`EventTrace`-derived, `RegisterTraceGuids` + `TraceEvent`) | classic events decoded by `Guid`, `EventType`, `EventVersion` and `WmiDataId` order |
//! | [`wpp::TmfSet`], [`wpp::WppMessage`], [`wpp::DecodedMessage`] | TMF files, `TraceMessage` records, `TdhGetWppMessage` | WPP messages decoded and formatted as TraceFmt does |
//!
//! Provider GUIDs derived from names (GID-01) are
//! [`etwsim_types::Guid::from_provider_name`].
//!
//! # Example
//!
//! Build a TraceLogging event, decode it back, read a field:
//!
//! ```
//! use etwsim_decode::tracelogging::{EventBuilder, OutType, Value, decode_event};
//! use etwsim_types::{Keyword, Level};
//!
//! # fn main() -> Result<(), etwsim_decode::Error> {
//! let event = EventBuilder::new("FileOpened")
//!     .level(Level::INFORMATION)
//!     .keyword(Keyword(0x1))
//!     .str16("Path", r"C:\temp\a.txt")
//!     .value("Bytes", 4096u64)
//!     .win32_error("Status", 5)
//!     .begin_struct("Caller")
//!     .value("Pid", 1234u32)
//!     .out_type(OutType::PID)
//!     .array("Flags", [1u8, 2, 3])
//!     .end_struct()
//!     .build()?;
//!
//! let decoded = decode_event(&event.metadata, &event.payload)?;
//! assert_eq!(decoded.name, "FileOpened");
//! assert_eq!(decoded.value("Bytes"), Some(&Value::U64(4096)));
//! assert_eq!(decoded.value("Caller.Pid"), Some(&Value::U32(1234)));
//! assert_eq!(
//!     decoded.to_string(),
//!     r#"FileOpened Path="C:\\temp\\a.txt", Bytes=4096, Status=0x5, Caller={Pid=1234, Flags=[1, 2, 3]}"#
//! );
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod error;
pub mod fields;
pub mod fileio;
pub mod fuzzing;
pub mod manifest;
pub mod mof;
pub mod mof_class;
pub mod property;
pub mod tracelogging;
pub mod value;
mod wire;
pub mod wpp;

pub use error::{Error, Result};
pub use value::{Field, Hint, Value};
