//! Decoding (placeholder).
#![forbid(unsafe_code)]
