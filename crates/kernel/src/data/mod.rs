//! The data plane: where an enabled event goes once the control plane has let it through.
//!
//! The write path (routing, size checks, reservation, loss policy, copy), the per-CPU buffer
//! pool, the logger thread that flushes buffers, the sinks it flushes into (`.etl` file, memory)
//! and the real-time consumers that read them.

pub(crate) mod cache;
pub(crate) mod classic;
pub(crate) mod consumer;
pub(crate) mod context;
pub(crate) mod core;
pub(crate) mod file_sink;
pub(crate) mod lane;
pub(crate) mod local;
pub(crate) mod logger;
pub(crate) mod properties;
pub(crate) mod realtime;
pub(crate) mod route;
pub(crate) mod sink;
pub(crate) mod store;
pub(crate) mod sys;
pub(crate) mod write;
