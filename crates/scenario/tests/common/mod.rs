//! Shared test support.

pub(crate) mod load_scenario;
