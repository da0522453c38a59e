//! The kernel's entry points (the top layer): the [`Kernel`](crate::Kernel) value and the
//! handles a caller holds — processes, threads, providers, sessions. Each entry point checks
//! and orders the work, then calls into the layers below (docs/ARCHITECTURE.md, "Layers").

pub(crate) mod config;
pub(crate) mod file;
pub(crate) mod kernel;
pub(crate) mod os;
pub(crate) mod process;
pub(crate) mod provider;
pub(crate) mod session;
pub(in crate::api) mod sysproviders;
pub(crate) mod thread;
