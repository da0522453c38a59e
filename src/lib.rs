//! etwsim: a pure-Rust simulator of the kernel side of Event Tracing for Windows.
//!
//! Two faces over one engine:
//!
//! * the **Rust API** — [`Kernel`], [`Session`], [`Provider`], [`EnableParams`]: typed,
//!   `Result<_, Error>`, every error with its Win32 code (`err.win32_code()`);
//! * the **[`win32`] face** — `start_trace`, `control_trace`, `enable_trace_ex2`,
//!   `event_register`… with the documented structures and numeric returns.
//!
//! ```
//! use etwsim::{EnableParams, Kernel, Level, Keyword, Token};
//!
//! let kernel = Kernel::builder().deterministic(7).build()?;
//! let app = kernel.spawn("app.exe", Token::user("alice"))?;
//! let guid = "{b3864c38-4273-58c5-545b-8b3608343471}".parse().unwrap();
//! let provider = app.register_provider(guid)?;
//!
//! let session = kernel.session("MySession").start()?;
//! session.enable(guid, &EnableParams::new().level(Level::INFORMATION))?;
//! assert!(provider.is_enabled_for(Level::WARNING, Keyword(0)));
//! assert_eq!(provider.enable_state().mask, 0b1);
//! # Ok::<(), etwsim::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod capacity;
pub mod testing;
pub mod win32;

/// The `.etl` format: writing and reading real log files (`etwsim-etl`).
pub use etwsim_etl as etl;

/// Decoding: TraceLogging events both ways, manifests and payload filters, kernel (MOF)
/// layouts (`etwsim-decode`).
pub use etwsim_decode as decode;

/// The registry: keys, values, `.reg` files, the AutoLogger views, security descriptors
/// (`etwsim-registry`); a [`Machine`] boots from one.
pub use etwsim_registry as registry;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use etwsim_kernel::*;
pub use etwsim_types::record;
pub use etwsim_types::{
    BufferContext, BufferHeader, Channel, ClockType, ControlCode, EnableInfo, EnableProperty,
    EventDescriptor, EventHeader, EventRecord, ExtendedItem, FilterType, Guid, Keyword, Level,
    LogFileMode, Opcode, ParseGuidError, Sid, SidError, Task, TraceControl, Win32Error,
};
