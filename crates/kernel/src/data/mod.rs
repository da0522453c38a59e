//! The data plane: where an enabled event goes once the control plane has let it through.
//!
//! | module | what it is |
//! |---|---|
//! | `route` | a registration (`ETW_REG_ENTRY`) and its route table: the interface between control and data |
//! | `context` | a running session (`WMI_LOGGER_CONTEXT`): its settings, counters and buffer pool |
//! | `properties` | a session's settings and statistics as QUERY returns them |
//! | `write` | the event path: enable checks, routing, the per-session predicate, loss policy |
//! | `lane` | the single-threaded kernel's event path, which caches what the last write found |
//! | `store` | storing a record into a session's buffer, and why a session refuses it |
//! | `classic` | TraceEvent's `EVENT_TRACE_HEADER` records |
//! | `sys` | kernel events: the system loggers' table and the stores into their buffers |
//! | `local`, `cache` | what one OS thread keeps for writing: entered threads, cached route tables |
//! | `core` | what the data plane needs of the kernel: clock, journal, EVENT_KEY counter, owner thread |
//! | `logger`, `sink`, `file_sink` | the logger work that writes flushed buffers out, and where they go |
//! | `realtime`, `consumer` | real-time delivery and its consumers |
//!
//! The buffer pool itself is the `etwsim-buffers` crate.

pub(in crate::data) mod cache;
pub(crate) mod classic;
pub(crate) mod consumer;
pub(crate) mod context;
pub(crate) mod core;
pub(crate) mod file_sink;
pub(in crate::data) mod lane;
pub(crate) mod local;
pub(in crate::data) mod logger;
pub(crate) mod properties;
pub(crate) mod realtime;
pub(crate) mod route;
pub(crate) mod sink;
pub(in crate::data) mod store;
pub(crate) mod sys;
pub(crate) mod write;
