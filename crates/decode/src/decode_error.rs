//! The errors of the MOF, manifest and payload-filter decoders: each says what was being read
//! and where (payload offset and field, or XML line and element).

use etwsim_types::{Guid, Win32Error};

/// `ERROR_NOT_FOUND` (1168): TDH's answer when it has no schema for an event.
const ERROR_NOT_FOUND: Win32Error = Win32Error(1168);

/// What went wrong while decoding a payload, encoding one, loading a manifest or building a
/// payload filter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
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
    /// The payload ends inside a field.
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
    /// A string field that cannot be read: unterminated where a later field follows, an odd
    /// number of UTF-16 bytes, a bad SID.
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
    /// Values that do not fit the layout being encoded.
    #[error("encoding {layout}: field {field}: {reason}")]
    Encode {
        /// The layout (`FileIo_ReadWrite`).
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
}

impl DecodeError {
    /// Whether this is the "no schema" answer (the event is fine; nothing describes it).
    pub fn is_no_schema(&self) -> bool {
        matches!(
            self,
            DecodeError::NoSchema { .. }
                | DecodeError::NoManifestEvent { .. }
                | DecodeError::NoTemplate { .. }
        )
    }

    /// The Win32 code a TDH-like API returns for it: `ERROR_NOT_FOUND` (1168) for a missing
    /// schema, `ERROR_INVALID_PARAMETER` (87) otherwise.
    pub fn win32_code(&self) -> Win32Error {
        if self.is_no_schema() {
            ERROR_NOT_FOUND
        } else {
            Win32Error::ERROR_INVALID_PARAMETER
        }
    }
}
