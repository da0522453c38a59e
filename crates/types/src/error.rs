//! Win32 error codes, as ETW's user-mode APIs return them.
//!
//! Every engine error in etwsim maps to one of these codes (`err.win32_code()`), and the
//! `win32` face returns them as plain numbers. The values come from `winerror.h`; the
//! table of the codes ETW uses is at the top of the behaviour reference.

use std::fmt;

/// A Win32 error code (`DWORD`), printed with its symbolic name: `ERROR_NO_SYSTEM_RESOURCES (1450)`.
///
/// An open newtype: any `u32` is representable, the codes ETW documents have constants.
#[doc(alias = "DWORD")]
#[doc(alias = "ULONG")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Win32Error(pub u32);

macro_rules! win32_codes {
    ($( $(#[$doc:meta])* $name:ident = $value:expr, $message:literal; )*) => {
        impl Win32Error {
            $( $(#[$doc])* pub const $name: Win32Error = Win32Error($value); )*

            /// The symbolic name of a known code (`"ERROR_BAD_LENGTH"`), `None` for others.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $value => Some(stringify!($name)), )*
                    _ => None,
                }
            }

            /// The system message of a known code, as `FormatMessage` gives it (without its
            /// line end): `"The parameter is incorrect."`; `None` for others.
            pub fn message(self) -> Option<&'static str> {
                match self.0 {
                    $( $value => Some($message), )*
                    _ => None,
                }
            }
        }
    };
}

win32_codes! {
    /// The operation completed successfully (0).
    ERROR_SUCCESS = 0,
        "The operation completed successfully.";
    /// Incorrect function (1); EnableTraceEx2 on an unregistered classic provider (PRV-19).
    ERROR_INVALID_FUNCTION = 1,
        "Incorrect function.";
    /// The system cannot find the file specified (2); a file opened with FILE_OPEN that does
    /// not exist, a manifest TdhLoadManifest cannot read.
    ERROR_FILE_NOT_FOUND = 2,
        "The system cannot find the file specified.";
    /// The system cannot find the path specified (3); a log file's folder does not exist.
    ERROR_PATH_NOT_FOUND = 3,
        "The system cannot find the path specified.";
    /// Access is denied (5).
    ERROR_ACCESS_DENIED = 5,
        "Access is denied.";
    /// The handle is invalid (6).
    ERROR_INVALID_HANDLE = 6,
        "The handle is invalid.";
    /// Not enough memory (8); no free buffer for an event (EVT-07).
    ERROR_NOT_ENOUGH_MEMORY = 8,
        "Not enough memory resources are available to process this command.";
    /// Not enough storage (14).
    ERROR_OUTOFMEMORY = 14,
        "Not enough memory resources are available to complete this operation.";
    /// The program issued a command but the command length is incorrect (24).
    ERROR_BAD_LENGTH = 24,
        "The program issued a command but the command length is incorrect.";
    /// The process cannot access the file because another process is using it (32).
    ERROR_SHARING_VIOLATION = 32,
        "The process cannot access the file because it is being used by another process.";
    /// The request is not supported (50).
    ERROR_NOT_SUPPORTED = 50,
        "The request is not supported.";
    /// The parameter is incorrect (87).
    ERROR_INVALID_PARAMETER = 87,
        "The parameter is incorrect.";
    /// There is not enough space on the disk (112).
    ERROR_DISK_FULL = 112,
        "There is not enough space on the disk.";
    /// The data area passed to a system call is too small (122).
    ERROR_INSUFFICIENT_BUFFER = 122,
        "The data area passed to a system call is too small.";
    /// The specified path is invalid (161).
    ERROR_BAD_PATHNAME = 161,
        "The specified path is invalid.";
    /// The requested resource is in use (170).
    ERROR_BUSY = 170,
        "The requested resource is in use.";
    /// Cannot create a file when that file already exists (183).
    ERROR_ALREADY_EXISTS = 183,
        "Cannot create a file when that file already exists.";
    /// The flag passed is not correct (186).
    ERROR_INVALID_FLAG_NUMBER = 186,
        "The flag passed is not correct.";
    /// More data is available (234).
    ERROR_MORE_DATA = 234,
        "More data is available.";
    /// Arithmetic result exceeded 32 bits (534); an event over 64 KB (EVT-05).
    ERROR_ARITHMETIC_OVERFLOW = 534,
        "Arithmetic result exceeded 32 bits.";
    /// Invalid access to memory location (998).
    ERROR_NOACCESS = 998,
        "Invalid access to memory location.";
    /// Element not found (1168); TDH and TdhCreatePayloadFilter's answer when no schema
    /// describes the event.
    ERROR_NOT_FOUND = 1168,
        "Element not found.";
    /// The operation was canceled by the user (1223).
    ERROR_CANCELLED = 1223,
        "The operation was canceled by the user.";
    /// An attempt was made to perform an initialization operation when initialization has
    /// already been completed (1247).
    ERROR_ALREADY_INITIALIZED = 1247,
        "An attempt was made to perform an initialization operation when initialization has already been completed.";
    /// The security ID structure is invalid (1337): ConvertSidToStringSid of a SID whose
    /// revision is not 1 or with more than 15 sub-authorities.
    ERROR_INVALID_SID = 1337,
        "The security ID structure is invalid.";
    /// The thread identifier is invalid (1444); a single-threaded kernel called from
    /// another OS thread (the simulator's contract, `KernelBuilder::single_threaded`).
    ERROR_INVALID_THREAD_ID = 1444,
        "Invalid thread identifier.";
    /// Insufficient system resources exist to complete the requested service (1450).
    ERROR_NO_SYSTEM_RESOURCES = 1450,
        "Insufficient system resources exist to complete the requested service.";
    /// This operation returned because the timeout period expired (1460).
    ERROR_TIMEOUT = 1460,
        "This operation returned because the timeout period expired.";
    /// The log file is full (1502).
    ERROR_LOG_FILE_FULL = 1502,
        "The event log file is full.";
    /// The specified time is invalid (1901).
    ERROR_INVALID_TIME = 1901,
        "The specified time is invalid.";
    /// The device is in use by an active process and cannot be disconnected (2402).
    ERROR_ACTIVE_CONNECTIONS = 2402,
        "Active connections still exist.";
    /// The GUID passed was not recognized as valid by a WMI data provider (4200).
    ERROR_WMI_GUID_NOT_FOUND = 4200,
        "The GUID passed was not recognized as valid by a WMI data provider.";
    /// The instance name passed was not recognized as valid by a WMI data provider (4201).
    ERROR_WMI_INSTANCE_NOT_FOUND = 4201,
        "The instance name passed was not recognized as valid by a WMI data provider.";
    /// The close operation is pending (7007); CloseTrace while ProcessTrace runs (CON-07).
    ERROR_CTX_CLOSE_PENDING = 7007,
        "The requested operation cannot be completed because the connection is being closed.";
}

impl Win32Error {
    /// The numeric value.
    pub const fn code(self) -> u32 {
        self.0
    }

    /// `true` for `ERROR_SUCCESS`.
    pub const fn is_success(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for Win32Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name} ({})", self.0),
            None => write!(f, "Win32 error {}", self.0),
        }
    }
}

impl fmt::Debug for Win32Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<Win32Error> for u32 {
    fn from(e: Win32Error) -> u32 {
        e.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_name_and_code() {
        assert_eq!(
            Win32Error::ERROR_NO_SYSTEM_RESOURCES.to_string(),
            "ERROR_NO_SYSTEM_RESOURCES (1450)"
        );
        assert_eq!(Win32Error(99999).to_string(), "Win32 error 99999");
    }
}
