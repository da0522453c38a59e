//! The crate's one error type, for every decoder and encoder in it: TraceLogging (metadata,
//! payload, provider traits, the builder), the classic kernel (MOF) layouts, MOF classes,
//! WPP, manifests and payload filters.
//!
//! Every decoding error says *what* was being read and *where*: the byte offset inside the
//! blob that was handed in (the event metadata, the payload, the provider traits) and, for
//! payload errors, the field's path (`Outer.Inner[2]`); manifest errors give the XML line
//! and element. Nothing in this crate panics on bad bytes. Each message is complete on its
//! own; no variant chains to a `source()`.

use etwsim_types::{Guid, Win32Error};
use std::sync::Arc;

/// Result alias of the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why decoding (or building, or encoding) an event failed, why a manifest could not be
/// loaded, or why a payload filter could not be built.
///
/// The TraceLogging variants come first (their messages start `TraceLogging`); the payload
/// errors of the other decoders are [`Truncated`](Error::Truncated) and
/// [`BadValue`](Error::BadValue).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The TraceLogging event metadata (the `EVENT_SCHEMA_TL` blob) is malformed (DEC-05…DEC-09).
    #[error("TraceLogging metadata at byte {offset}{}: {problem}", in_field(field))]
    Metadata {
        /// The field being defined, if the problem is inside a field definition.
        field: Option<String>,
        /// Offset in the metadata blob.
        offset: usize,
        /// What is wrong.
        problem: String,
    },
    /// The payload ended before a field's value was complete.
    #[error(
        "TraceLogging field {field:?} at payload byte {offset}: needs {needed} bytes, only {available} left"
    )]
    PayloadTruncated {
        /// The field's path (`Struct.Member[3]`).
        field: String,
        /// Offset in the payload where the value (or its part) starts.
        offset: usize,
        /// Bytes the value needs.
        needed: usize,
        /// Bytes left in the payload.
        available: usize,
    },
    /// A TraceLogging field's value is not valid for its type (a string without its NUL, a
    /// SID whose sub-authority count runs past the payload…).
    #[error("TraceLogging field {field:?} at payload byte {offset}: {problem}")]
    PayloadBadValue {
        /// The field's path.
        field: String,
        /// Offset in the payload.
        offset: usize,
        /// What is wrong.
        problem: String,
    },
    /// A provider traits blob (`PROV_TRAITS`, PRV-34, DEC-04) is malformed.
    #[error("provider traits at byte {offset}: {problem}")]
    ProviderTraits {
        /// Offset in the traits blob.
        offset: usize,
        /// What is wrong.
        problem: String,
    },
    /// Something built is larger than its 16-bit size field allows (DEC-15).
    #[error("{what} would be {size} bytes, more than the {limit} its size field allows")]
    TooLarge {
        /// What was being built.
        what: &'static str,
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// An event or field description that cannot be encoded (a value that does not match
    /// its field's type, a struct left open, an array of BINARY…).
    #[error("cannot build TraceLogging field {field:?}: {problem}")]
    Build {
        /// The field's path.
        field: String,
        /// What is wrong.
        problem: String,
    },
    /// No kernel layout for this (class, event type, version) (DEC-01, KRN-14): show the
    /// payload as hex.
    #[error("no schema for kernel class {class} event type {opcode} version {version}")]
    NoSchema {
        /// The class GUID (for a HookId without a known group, [`Guid::NULL`]).
        class: Guid,
        /// The event type (opcode).
        opcode: u8,
        /// The header version.
        version: u8,
    },
    /// No manifest event for (provider, id, version) (DEC-17).
    #[error("no manifest event {id} version {version} for provider {provider}")]
    NoManifestEvent {
        /// The provider GUID.
        provider: Guid,
        /// The event id.
        id: u16,
        /// The event version.
        version: u8,
    },
    /// A manifest event whose template the loader left out, or that names a template the
    /// manifest does not define: the event is known, its payload cannot be decoded (the
    /// manifest's [`Severity::Error`](crate::manifest::Severity::Error) diagnostic says why).
    #[error("template {tid:?} {why}: the payload cannot be decoded")]
    NoTemplate {
        /// The template id the event names.
        tid: String,
        /// Why there is no such template: `is not defined in the manifest`, or `was left
        /// out of the manifest (LINE: <element>: …)`.
        why: String,
    },
    /// A MOF, manifest, MOF-class or WPP payload ends inside a field.
    #[error("field {field} at payload offset {offset}: needs {needed} bytes, {available} left")]
    Truncated {
        /// The field being read.
        field: String,
        /// Its offset in the payload.
        offset: usize,
        /// Bytes it needs.
        needed: usize,
        /// Bytes left from `offset`.
        available: usize,
    },
    /// A MOF, manifest, MOF-class or WPP string field that cannot be read: unterminated
    /// where a later field follows, an odd number of UTF-16 bytes, a bad SID.
    #[error("field {field} at payload offset {offset}: {reason}")]
    BadValue {
        /// The field being read.
        field: String,
        /// Its offset in the payload.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// A payload whose template would make more values than the payload can pay for: values
    /// that take no bytes (zero-length strings and binaries, empty arrays and structs) each
    /// spend one of a budget of the payload's length plus the template's definitions
    /// ([`crate::manifest::Template::decode`]). Refused before the values are made.
    #[error(
        "field {field} at payload offset {offset}: a count of {count} makes more values \
         than a payload of {payload} bytes may ({limit} values that take no bytes)"
    )]
    TooManyValues {
        /// The field whose values exhausted the budget (`Struct.Member` inside a struct).
        field: String,
        /// Its offset in the payload.
        offset: usize,
        /// The count (array length) being made, 1 for a single value.
        count: usize,
        /// The payload's length.
        payload: usize,
        /// The budget of values that take no bytes.
        limit: usize,
    },
    /// A pointer size other than 4 or 8.
    #[error("pointer size {0} (must be 4 or 8)")]
    PointerSize(u8),
    /// Values that do not fit the layout being encoded: a kernel layout's, or a manifest
    /// template's ([`Template::encode`](crate::manifest::Template::encode)).
    #[error("encoding {layout}: field {field}: {reason}")]
    Encode {
        /// The layout (`FileIo_ReadWrite`, `manifest template`).
        layout: &'static str,
        /// The field (or `"<count>"` for a wrong number of values).
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// The manifest is not well-formed XML.
    #[error("manifest XML, line {line} column {column}: {message}")]
    Xml {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The parser's message.
        message: String,
    },
    /// The manifest is XML but breaks a manifest rule (DEC-16…DEC-20).
    #[error("manifest line {line}, <{element}>: {message}")]
    Manifest {
        /// 1-based line of the element.
        line: u32,
        /// The element's name.
        element: String,
        /// What is wrong.
        message: String,
    },
    /// A payload filter that TdhCreatePayloadFilter would refuse (FLT-18).
    #[error("payload filter: {0}")]
    Filter(String),
    /// A MOF file that cannot be read (a syntax error), naming the file and line.
    #[error("{file}:{line}: {message}")]
    MofSyntax {
        /// The file.
        file: Arc<str>,
        /// The 1-based line.
        line: u32,
        /// What is wrong.
        message: String,
    },
    /// No MOF class given has this GUID.
    #[error("no MOF class given has GUID {guid} (--mof FILE)")]
    NoMofClass {
        /// The event's GUID.
        guid: Guid,
    },
    /// The GUID's MOF classes have no version `version` (and none without `EventVersion`).
    #[error("MOF class {class} has no EventVersion({version}), nor a version without one")]
    NoMofVersion {
        /// The (first) class with the GUID.
        class: String,
        /// The record's `Class.Version`.
        version: u8,
    },
    /// No event type class of the MOF class lists this event type.
    #[error("MOF class {class} has no event type class with EventType {event_type}")]
    NoMofEventType {
        /// The event class.
        class: String,
        /// The record's `Class.Type`.
        event_type: u8,
    },
    /// The MOF event type class's layout could not be built.
    #[error("MOF class {class} cannot be decoded: {reason}")]
    MofUnusable {
        /// The event type class.
        class: String,
        /// Why.
        reason: String,
    },
    /// A WPP message with neither a message GUID nor a component id.
    #[error("a WPP message without a message GUID or component id: no TMF can describe it")]
    WppNoGuid,
    /// No TMF file given describes this WPP message.
    #[error("no TMF file given describes message {number} of {guid} (--tmf FILE or FOLDER)")]
    WppNoFormat {
        /// The message GUID.
        guid: Guid,
        /// The message number.
        number: u16,
    },
    /// A WPP argument does not fit the payload, or has a type this decoder does not know.
    #[error("argument %{index} ({name}): {error}")]
    WppArgument {
        /// The argument's expression.
        name: String,
        /// Its insert number.
        index: u16,
        /// What is wrong, and where in the payload ([`Error::Truncated`],
        /// [`Error::BadValue`]…).
        error: Box<Error>,
    },
}

impl Error {
    /// Whether this is the "no schema" answer of the kernel layouts and manifests (the event
    /// is fine; nothing describes it).
    pub fn is_no_schema(&self) -> bool {
        matches!(
            self,
            Error::NoSchema { .. } | Error::NoManifestEvent { .. } | Error::NoTemplate { .. }
        )
    }

    /// The Win32 code a TDH-like API returns for it: `ERROR_NOT_FOUND` (1168) for a missing
    /// schema, `ERROR_INVALID_PARAMETER` (87) otherwise.
    pub fn win32_code(&self) -> Win32Error {
        if self.is_no_schema() {
            Win32Error::ERROR_NOT_FOUND
        } else {
            Win32Error::ERROR_INVALID_PARAMETER
        }
    }
}

fn in_field(field: &Option<String>) -> String {
    match field {
        Some(name) => format!(" (field {name:?})"),
        None => String::new(),
    }
}
