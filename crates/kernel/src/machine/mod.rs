//! The simulated machine: the state the control and data planes run on.
//!
//! The [`Kernel`](crate::Kernel) value (the silo's logger array and GUID table), processes and
//! their tokens, threads and their activity IDs, the clock and the disk.

pub mod clock;
pub(crate) mod disk;
pub(crate) mod kernel;
pub(crate) mod process;
pub(crate) mod thread;
