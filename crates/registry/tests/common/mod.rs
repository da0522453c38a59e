//! Shared test support.

pub mod read_reg;
