//! The vocabulary of etwsim: the values that travel between providers, sessions, files and
//! consumers in Event Tracing for Windows.
//!
//! | type | Windows name |
//! |---|---|
//! | [`Guid`] | `GUID` |
//! | [`Level`], [`Keyword`], [`Opcode`], [`Task`], [`Channel`] | the `EVENT_DESCRIPTOR` fields |
//! | [`EventDescriptor`] | `EVENT_DESCRIPTOR` |
//! | [`LogFileMode`] | `EVENT_TRACE_*_MODE` |
//! | [`EnableProperty`] | `EVENT_ENABLE_PROPERTY_*` |
//! | [`ClockType`] | `Wnode.ClientContext` |
//! | [`TraceControl`], [`ControlCode`] | `EVENT_TRACE_CONTROL_*`, `EVENT_CONTROL_CODE_*` |
//! | [`FilterType`] | `EVENT_FILTER_TYPE_*` |
//! | [`EnableInfo`] | `TRACE_ENABLE_INFO` |
//! | [`Win32Error`] | the `ERROR_*` codes of `winerror.h` |
//!
//! Open wire values (levels, opcodes, keywords…) are newtypes over the raw integer with the
//! `winmeta.h` constants, so a provider-defined level 42 is as representable as `Level::ERROR`.
//!
//! ```
//! use etwsim_types::{EventDescriptor, Guid, Keyword, Level, Win32Error};
//!
//! let provider: Guid = "{b3864c38-4273-58c5-545b-8b3608343471}".parse().unwrap();
//! let desc = EventDescriptor::new(7, Level::WARNING, Keyword(0x10));
//! assert_eq!(provider.to_string(), "{b3864c38-4273-58c5-545b-8b3608343471}");
//! assert!(desc.level < Level::VERBOSE);
//! assert_eq!(Win32Error::ERROR_ALREADY_EXISTS.to_string(), "ERROR_ALREADY_EXISTS (183)");
//! ```
#![forbid(unsafe_code)]

mod descriptor;
mod error;
mod guid;
pub mod kernel_class;
mod mode;
pub mod record;
mod sid;
pub mod win32_consts;

pub use descriptor::{Channel, EventDescriptor, Keyword, Level, Opcode, Task};
pub use error::Win32Error;
pub use guid::{Guid, ParseGuidError};
pub use kernel_class::KernelClass;
pub use mode::{
    ClockType, ControlCode, EnableInfo, EnableProperty, FilterType, LogFileMode, TraceControl,
};
pub use record::{BufferContext, BufferHeader, EventHeader, EventRecord, ExtendedItem};
pub use sid::{Sid, SidError};
