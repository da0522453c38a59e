//! The etwsim engine: the kernel side of Event Tracing for Windows as a Rust value.
//!
//! | etwsim | Windows | what it holds |
//! |---|---|---|
//! | [`Kernel`] | the silo's ETW state (`EtwpLoggerContext[]`, GUID table) | logger slots, GUID entries, processes |
//! | [`LoggerContext`] / [`Session`] | `WMI_LOGGER_CONTEXT` / a `TRACEHANDLE` | one session's settings, counters, state |
//! | [`GuidEntry`] | `ETW_GUID_ENTRY` | a provider GUID's 8 enable slots and its registrations |
//! | [`RegEntry`] / [`Provider`] | `ETW_REG_ENTRY` / a `REGHANDLE` | one registration and its cached enable word |
//! | [`EnableParams`] | `ENABLE_TRACE_PARAMETERS` + level/keywords | one EnableTraceEx2 call |
//! | [`EventFilter`] | `EVENT_FILTER_DESCRIPTOR` | one filter |
//! | [`PayloadFilter`], [`AggregateFilter`], [`PayloadFilterBuilder`] | `TdhCreatePayloadFilter`, `TdhAggregatePayloadFilters`, `PAYLOAD_FILTER_PREDICATE` | payload filters on installed manifests' events ([`Kernel::install_manifest`]) |
//! | [`Process`], [`Thread`], [`Token`] | `EPROCESS`, `ETHREAD`, access token | who writes and who controls |
//! | [`FileHandle`], [`Image`], [`system`] | `FILE_OBJECT`, a mapped image, the SystemTraceProvider | OS activity and the kernel events it writes |
//!
//! Nothing is global: every [`Kernel`] is its own simulated machine.
//!
//! ```
//! use etwsim_kernel::{EnableParams, Kernel, Token};
//! use etwsim_types::{Guid, Keyword, Level};
//!
//! let kernel = Kernel::builder().deterministic(1).build()?;
//! let app = kernel.spawn("app.exe", Token::user("alice"))?;
//! let guid: Guid = "{b3864c38-4273-58c5-545b-8b3608343471}".parse().unwrap();
//! let provider = app.register_provider(guid)?;
//! assert!(!provider.is_enabled());
//!
//! let session = kernel.session("demo").start()?;
//! session.enable(guid, &EnableParams::new().level(Level::WARNING).any(0x10))?;
//! assert!(provider.is_enabled_for(Level::ERROR, Keyword(0x10)));
//! assert!(!provider.is_enabled_for(Level::VERBOSE, Keyword(0x10)));
//! session.stop()?;
//! assert!(!provider.is_enabled());
//! # Ok::<(), etwsim_kernel::Error>(())
//! ```
// No `unsafe`: the buffer pool's bytes, the one `unsafe` module on the kernel's side, live in
// the etwsim-buffers crate (crates/buffers, docs/ARCHITECTURE.md).
#![forbid(unsafe_code)]

// The rooms (docs/ARCHITECTURE.md): the control plane, the data plane, the simulated machine
// and the system providers (the OS activity and the kernel events it writes).
mod api;
pub mod boot;
mod control;
mod data;
mod error;
pub mod filter;
pub mod journal;
mod machine;
pub mod system;

pub use boot::{BootOptions, BootReport, BootSessionKind, Machine, ProviderReport, SessionReport};
pub use machine::clock;

pub use api::config::PayloadFilterBuilder;
pub use api::file::{ClosingFile, FileHandle};
pub use api::kernel::{GuidSnapshot, Kernel, KernelBuilder, KernelSnapshot};
pub use api::os::Image;
pub use api::process::Process;
pub use api::provider::{ClassicProvider, Provider};
pub use api::session::{Session, SessionBuilder};
pub use api::thread::{ActivityControl, Thread, ThreadGuard};
pub use control::notify::{SESSION_NOTIFICATION_GUID, SessionNotification, notification_payload};
pub use control::provider::{
    ENABLE_SLOTS, EnableParams, GuidEntry, MAX_REGISTRATIONS_PER_PROCESS, ProviderInstanceInfo,
    TRACE_PROVIDER_FLAG_LEGACY, TRACE_PROVIDER_FLAG_PRE_ENABLE, TraceGuidInfo, WMI_CAPTURE_STATE,
    WMI_DISABLE_EVENTS, WMI_ENABLE_EVENTS,
};
pub use control::security::{EventSecurityOperation, default_descriptor, token_sids};
pub use control::session::{
    CKCL_NAME, GLOBAL_LOGGER_NAME, KERNEL_LOGGER_NAME, MAX_BUFFER_SIZE_KB, MAX_NAME_CHARS,
    MAX_PRIVATE_IN_PROC_SESSIONS, MAX_PRIVATE_SESSIONS, MAX_SYSTEM_LOGGERS, MIN_BUFFER_SIZE_KB,
    SessionConfig, SessionUpdate, Target, UNLIMITED_FILE_RESERVE, WMI_GLOBAL_LOGGER_ID,
};
pub use control::traits::{
    EventInfoClass, ProviderTraits, TRAIT_TYPE_DECODE_GUID, TRAIT_TYPE_GROUP,
};
pub use data::classic::{ClassicEvent, EVENT_TRACE_HEADER_SIZE};
pub use data::consumer::{Consumer, ConsumerOptions, RT_LOST_BUFFER, RT_LOST_EVENT, RT_LOST_FILE};
pub use data::context::LoggerContext;
pub use data::properties::SessionProperties;
pub use data::route::{
    ClassicCallback, ClassicNotification, EnableCallback, EnableNotification, EnableState, RegEntry,
};
pub use data::sink::{BufferInfo, MemorySink, Sink};
pub use data::write::{EVENT_WRITE_FLAG_INPRIVATE, EVENT_WRITE_FLAG_NO_FAULTING, WriteOptions};
pub use error::{Error, Result};
pub use etwsim_decode::manifest::filter::{
    AggregateFilter, PayloadFilter, PayloadOperator, Predicate,
};
pub use filter::verdict::{Explanation, Reason, Verdict};
pub use filter::{EventFilter, EventView, FilterSet, NameFilter, SlotFilter};
pub use journal::{FlushReason, JournalEntry, JournalEvent, LossCounter};
pub use machine::config::{ExecutionMode, KernelConfig, MAX_BUFFERS_CAP};
pub use machine::disk::{Disk, VirtualDisk};
pub use machine::ids::TraceHandle;
pub use machine::process::ProcessSpec;
pub use machine::process::{Groups, Token};
pub use system::{
    CreateFile, Disposition, GroupMask, KERNEL_FILE_PROVIDER, KERNEL_PROCESS_PROVIDER,
    KERNEL_RUNDOWN_PROVIDER, event_trace_flag,
};
