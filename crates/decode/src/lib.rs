//! Consumer-side decoding: classic kernel (MOF) layouts both ways, instrumentation manifests,
//! payload filters.
//!
//! (This `lib.rs` only declares the MOF/manifest half; the TraceLogging half and the crate
//! map live in the other half of the crate.)
#![forbid(unsafe_code)]

pub mod decode_error;
pub mod fields;
pub mod fuzzing;
pub mod manifest;
pub mod mof;
mod wire;

pub use decode_error::DecodeError;
