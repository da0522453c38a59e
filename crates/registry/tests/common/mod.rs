//! Shared test support.

pub(crate) mod read_reg;
