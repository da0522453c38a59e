//! The atomics the buffer protocol uses: `std`'s normally, loom's under `--cfg etwsim_loom`
//! so the reservation / switch protocol can be model-checked (see `tests/loom_buffer.rs`).

#[cfg(etwsim_loom)]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(etwsim_loom))]
pub(crate) use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
