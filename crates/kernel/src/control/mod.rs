//! The control plane: what a controller and a provider agree on before any event is written.
//!
//! Sessions (`WMI_LOGGER_CONTEXT`), the provider GUID table (`ETW_GUID_ENTRY`) and its
//! registrations (`ETW_REG_ENTRY`), EnableTraceEx2 and its 8 enable slots, the session-side
//! filters, the installed manifests payload filters are built from, provider traits, and [`explain`](crate::Provider::explain), which replays the
//! control plane's decisions for one event.

pub(crate) mod access;
pub(in crate::control) mod controller;
pub(in crate::control) mod enable;
pub(crate) mod manifests;
pub(crate) mod notify;
pub(crate) mod provider;
pub(crate) mod security;
pub(crate) mod session;
pub(crate) mod state;
pub(crate) mod traits;
