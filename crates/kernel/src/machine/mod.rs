//! The machine under the kernel (the lowest layer): the clock, the disk and the identities
//! (tokens, SIDs, handles) every other layer names.

pub mod clock;
pub(crate) mod config;
pub(crate) mod disk;
pub(crate) mod ids;
pub(crate) mod process;
pub(crate) mod thread;
