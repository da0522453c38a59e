//! The exported functions and types under the module paths of the windows-sys crate, so that
//! Rust code written against windows-sys switches to the simulator with one `use`:
//!
//! ```
//! #[cfg(not(windows))]
//! use etwsim_sys::windows_sys;
//!
//! use windows_sys::Win32::System::Diagnostics::Etw::{EVENT_TRACE_PROPERTIES, StartTraceW};
//! # let _ = (std::mem::size_of::<EVENT_TRACE_PROPERTIES>(), StartTraceW as usize);
//! ```
//!
//! Signatures, field names and union member names are windows-sys 0.61's (the crate's tests
//! pin them against windows-sys itself).
#![allow(non_snake_case)]

/// `windows_sys::core`.
pub mod core {
    pub use crate::abi::{BOOL, GUID, PCSTR, PCWSTR, PSTR, PWSTR};
}

/// `windows_sys::Win32`.
pub mod Win32 {
    /// `windows_sys::Win32::Foundation`: the handle and time types the ETW items use.
    pub mod Foundation {
        pub use crate::abi::{BOOLEAN, FILETIME, HANDLE, WIN32_ERROR};
    }

    /// `windows_sys::Win32::System`.
    pub mod System {
        /// `windows_sys::Win32::System::Time`.
        pub mod Time {
            pub use crate::abi::{SYSTEMTIME, TIME_ZONE_INFORMATION};
        }

        /// `windows_sys::Win32::System::Diagnostics`.
        pub mod Diagnostics {
            /// `windows_sys::Win32::System::Diagnostics::Etw`: every function this crate
            /// exports and the structures, types and constants of evntrace.h, evntprov.h and
            /// evntcons.h they use.
            pub mod Etw {
                pub use crate::abi::*;
                pub use crate::{
                    CloseTrace, ControlTraceA, ControlTraceW, EnableTrace, EnableTraceEx,
                    EnableTraceEx2, EnumerateTraceGuidsEx, EventActivityIdControl, EventEnabled,
                    EventProviderEnabled, EventRegister, EventSetInformation, EventUnregister,
                    EventWrite, EventWriteEx, EventWriteString, EventWriteTransfer, FlushTraceA,
                    FlushTraceW, GetTraceEnableFlags, GetTraceEnableLevel, GetTraceLoggerHandle,
                    OpenTraceA, OpenTraceW, ProcessTrace, QueryAllTracesA, QueryAllTracesW,
                    QueryTraceA, QueryTraceW, RegisterTraceGuidsA, RegisterTraceGuidsW,
                    StartTraceA, StartTraceW, StopTraceA, StopTraceW, TraceEvent,
                    TraceQueryInformation, TraceSetInformation, UnregisterTraceGuids, UpdateTraceA,
                    UpdateTraceW,
                };
            }
        }
    }
}
