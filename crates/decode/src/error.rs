//! The crate's one error type.
//!
//! Every decoding error says *what* was being read and *where*: the byte offset inside the
//! blob that was handed in (the event metadata, the payload, the provider traits) and, for
//! payload errors, the field's path (`Outer.Inner[2]`). Nothing in this crate panics on
//! bad bytes. Each message is complete on its own; no variant chains to a `source()`.

/// Result alias of the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why decoding (or building) an event failed.
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
    /// A field's value is not valid for its type (a string without its NUL, a SID whose
    /// sub-authority count runs past the payload…).
    #[error("TraceLogging field {field:?} at payload byte {offset}: {problem}")]
    BadValue {
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
}

fn in_field(field: &Option<String>) -> String {
    match field {
        Some(name) => format!(" (field {name:?})"),
        None => String::new(),
    }
}
