//! The engine's error type. Every variant knows its Win32 code ([`Error::win32_code`]), which
//! is what the `win32` face returns; lost events are counters, never errors.

use etwsim_types::{Guid, Win32Error};

/// Result alias of the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an engine call was rejected. A rejected call changes nothing.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An argument is malformed or out of range (`ERROR_INVALID_PARAMETER`).
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// A size field is wrong or a buffer cannot hold what it must (`ERROR_BAD_LENGTH`).
    #[error("bad length: {0}")]
    BadLength(String),
    /// A session with this name is already running (`ERROR_ALREADY_EXISTS`, SES-08, SES-10).
    #[error("a session named {name:?} is already running")]
    SessionNameInUse {
        /// The name asked for.
        name: String,
    },
    /// A running session already has this GUID (`ERROR_ALREADY_EXISTS`, SES-09).
    #[error("session GUID {guid} is already used by session {name:?}")]
    SessionGuidInUse {
        /// The GUID asked for.
        guid: Guid,
        /// The session that has it.
        name: String,
    },
    /// A limit on sessions, registrations or enable slots is reached
    /// (`ERROR_NO_SYSTEM_RESOURCES`, SES-02, SES-05, SES-06, PRV-04, PRV-21).
    #[error("limit reached: {what} (at most {limit})")]
    LimitReached {
        /// What ran out.
        what: &'static str,
        /// The limit.
        limit: u32,
    },
    /// The session would have nowhere to send events, or its log file is in use
    /// (`ERROR_BAD_PATHNAME`, SES-24, SES-25).
    #[error("bad log file path: {0}")]
    BadPathname(String),
    /// Not enough simulated disk space for the log file (`ERROR_DISK_FULL`, SES-27).
    #[error("disk full: {needed} bytes needed, {available} free")]
    DiskFull {
        /// Bytes the session needs.
        needed: u64,
        /// Bytes free on the simulated disk.
        available: u64,
    },
    /// The caller's token does not allow the operation (`ERROR_ACCESS_DENIED`, SES-29, SEC-04).
    #[error("access denied: {0}")]
    AccessDenied(String),
    /// No running session has this name, or the handle's session has stopped
    /// (`ERROR_WMI_INSTANCE_NOT_FOUND`, SES-74, PRV-20).
    #[error("session not found: {0}")]
    SessionNotFound(String),
    /// The session is already being stopped (`ERROR_ACTIVE_CONNECTIONS`, SES-79).
    #[error("session {name:?} is already stopping")]
    StopInProgress {
        /// The session.
        name: String,
    },
    /// A registration handle is zero, unknown or unregistered (`ERROR_INVALID_HANDLE`, PRV-03).
    #[error("invalid registration handle {0:#x}")]
    InvalidRegHandle(u64),
    /// Output was only partly returned (`ERROR_MORE_DATA`): informational, the operation
    /// itself was carried out.
    #[error("more data: {0}")]
    MoreData(String),
    /// The event as stored would exceed 65,535 bytes (`ERROR_ARITHMETIC_OVERFLOW`, EVT-05).
    #[error("the event takes {size} bytes, more than the 65,535 an event may take")]
    EventTooLarge {
        /// Bytes the event would take in the session that refused it.
        size: usize,
    },
    /// The event does not fit in one of the session's buffers (`ERROR_MORE_DATA`, EVT-06).
    #[error("the event takes {size} bytes, a buffer holds at most {capacity}")]
    EventLargerThanBuffer {
        /// Bytes the event would take.
        size: usize,
        /// Bytes one buffer can hold for events.
        capacity: usize,
    },
    /// No free buffer and the pool is at MaximumBuffers (`ERROR_NOT_ENOUGH_MEMORY`, EVT-07).
    #[error("no free buffer: the session cannot flush as fast as events arrive")]
    NoFreeBuffer,
    /// A real-time session without a consumer has a full backing store
    /// (`ERROR_LOG_FILE_FULL`, the project's Win32 form of STATUS_LOG_FILE_FULL, EVT-08).
    #[error("the real-time backing store is full and no consumer is attached")]
    RealTimeBacklogFull,
    /// A single-threaded kernel ([`KernelBuilder::single_threaded`](crate::KernelBuilder::single_threaded))
    /// was asked to write, step its loggers or control its sessions from an OS thread other
    /// than the one that built it (`ERROR_INVALID_THREAD_ID`, the simulator's contract).
    #[error("this single-threaded kernel belongs to another OS thread")]
    WrongThread,
    /// Any other documented Win32 code, with context.
    #[error("{code}: {context}")]
    Other {
        /// The code.
        code: Win32Error,
        /// What failed.
        context: String,
    },
}

impl Error {
    /// The Win32 code the real API returns for this failure.
    pub fn win32_code(&self) -> Win32Error {
        match self {
            Error::InvalidParameter(_) => Win32Error::ERROR_INVALID_PARAMETER,
            Error::BadLength(_) => Win32Error::ERROR_BAD_LENGTH,
            Error::SessionNameInUse { .. } | Error::SessionGuidInUse { .. } => {
                Win32Error::ERROR_ALREADY_EXISTS
            }
            Error::LimitReached { .. } => Win32Error::ERROR_NO_SYSTEM_RESOURCES,
            Error::BadPathname(_) => Win32Error::ERROR_BAD_PATHNAME,
            Error::DiskFull { .. } => Win32Error::ERROR_DISK_FULL,
            Error::AccessDenied(_) => Win32Error::ERROR_ACCESS_DENIED,
            Error::SessionNotFound(_) => Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND,
            Error::StopInProgress { .. } => Win32Error::ERROR_ACTIVE_CONNECTIONS,
            Error::InvalidRegHandle(_) => Win32Error::ERROR_INVALID_HANDLE,
            Error::MoreData(_) => Win32Error::ERROR_MORE_DATA,
            Error::EventTooLarge { .. } => Win32Error::ERROR_ARITHMETIC_OVERFLOW,
            Error::EventLargerThanBuffer { .. } => Win32Error::ERROR_MORE_DATA,
            Error::NoFreeBuffer => Win32Error::ERROR_NOT_ENOUGH_MEMORY,
            Error::RealTimeBacklogFull => Win32Error::ERROR_LOG_FILE_FULL,
            Error::WrongThread => Win32Error::ERROR_INVALID_THREAD_ID,
            Error::Other { code, .. } => *code,
        }
    }

    /// What went wrong, for a line that shows [`win32_code`](Self::win32_code) beside it:
    /// the error's text without the code an [`Error::Other`] starts with, so the code is
    /// named once ("ERROR_PATH_NOT_FOUND (3): the folder … does not exist", not the code
    /// twice).
    pub fn reason(&self) -> String {
        match self {
            Error::Other { context, .. } => context.clone(),
            e => e.to_string(),
        }
    }

    pub(crate) fn invalid(msg: impl Into<String>) -> Error {
        Error::InvalidParameter(msg.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_names_no_code_so_a_line_can_name_it_once() {
        let e = Error::Other {
            code: Win32Error::ERROR_PATH_NOT_FOUND,
            context: "the folder C:\\Traces does not exist".into(),
        };
        assert_eq!(
            e.to_string(),
            "ERROR_PATH_NOT_FOUND (3): the folder C:\\Traces does not exist"
        );
        assert_eq!(e.reason(), "the folder C:\\Traces does not exist");
        let e = Error::invalid("bad");
        assert_eq!(e.reason(), e.to_string());
    }
}
