//! The crate's one error type.
//!
//! Every decoding error says *what* was being read and *where* (the byte offset in the file,
//! or in the slice handed to a decoding function), in the style of regex-automata's
//! serialization errors; the reader wraps them with the file's name ([`Error::InFile`]).
//! Each message is complete on its own: no variant chains to a `source()`, so printing an
//! error once prints all of it.

use etwsim_types::Win32Error;
use std::io;
use std::path::PathBuf;

/// Result alias of the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why reading or writing `.etl` data failed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes ran out before a structure was complete.
    #[error("{what} at offset {offset:#x}: needs {needed} bytes, only {available} left")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// Bytes the structure needs.
        needed: u64,
        /// Bytes that were there.
        available: u64,
    },
    /// A field holds a value the format does not allow.
    #[error("{what} at offset {offset:#x}: {problem}")]
    Corrupt {
        /// What was being read.
        what: &'static str,
        /// Where the structure starts.
        offset: u64,
        /// What is wrong with it.
        problem: String,
    },
    /// An error inside one named file.
    #[error("{path}: {error}", path = path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What went wrong in it.
        error: Box<Error>,
    },
    /// The operating system refused an I/O operation.
    #[error("{what} {path}: {error}", path = path.display())]
    Io {
        /// What was being done ("creating", "writing data buffer 3 of", …).
        what: String,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        error: io::Error,
    },
    /// A writer option is out of range or contradicts another.
    #[error("invalid writer option: {0}")]
    InvalidOption(String),
    /// APPEND: the existing file was written with different settings (SES-34).
    #[error(
        "cannot append to {path}: its {field} is {existing}, the session's is {requested}",
        path = path.display()
    )]
    AppendMismatch {
        /// The existing file.
        path: PathBuf,
        /// The setting that differs ("BufferSize", "clock type", "NumberOfProcessors").
        field: &'static str,
        /// The file's value.
        existing: u64,
        /// The session's value.
        requested: u64,
    },
    /// NEWFILE: the file name has no usable `%d` counter (SES-35).
    #[error("file name pattern {pattern:?}: {problem}")]
    BadPattern {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The writer was handed bytes that are not a complete buffer of its size.
    #[error("buffer handed to the writer: {0}")]
    InvalidBuffer(String),
    /// The operation needs a log-file mode this writer does not have (SES-81).
    #[error("{operation} needs {needs}; this writer's LogFileMode is {mode:#x}")]
    WrongMode {
        /// The operation ("INCREMENT_FILE").
        operation: &'static str,
        /// The mode it needs.
        needs: &'static str,
        /// The writer's `LogFileMode` bits.
        mode: u32,
    },
    /// The writer was already closed.
    #[error("the writer is closed")]
    Closed,
    /// A record can never fit in one buffer.
    #[error("a {size}-byte record cannot fit: at most {max} bytes fit in one buffer")]
    RecordTooLarge {
        /// The record's size.
        size: usize,
        /// The most a record may take.
        max: usize,
    },
    /// ProcessTrace takes 1 to 64 files (CON-03).
    #[error("{count} files: a reader takes 1 to 64")]
    FileCount {
        /// How many were given.
        count: usize,
    },
}

impl Error {
    pub(crate) fn truncated(what: &'static str, offset: u64, needed: u64, available: u64) -> Error {
        Error::Truncated {
            what,
            offset,
            needed,
            available,
        }
    }

    pub(crate) fn corrupt(what: &'static str, offset: u64, problem: impl Into<String>) -> Error {
        Error::Corrupt {
            what,
            offset,
            problem: problem.into(),
        }
    }

    pub(crate) fn io(what: impl Into<String>, path: impl Into<PathBuf>, error: io::Error) -> Error {
        Error::Io {
            what: what.into(),
            path: path.into(),
            error,
        }
    }

    pub(crate) fn in_file(self, path: impl Into<PathBuf>) -> Error {
        match self {
            e @ (Error::InFile { .. } | Error::Io { .. }) => e,
            e => Error::InFile {
                path: path.into(),
                error: Box::new(e),
            },
        }
    }

    /// A copy, for errors that are reported more than once (an I/O error is copied as its
    /// kind and message).
    pub(crate) fn duplicate(&self) -> Error {
        match self {
            Error::Truncated {
                what,
                offset,
                needed,
                available,
            } => Error::truncated(what, *offset, *needed, *available),
            Error::Corrupt {
                what,
                offset,
                problem,
            } => Error::corrupt(what, *offset, problem.clone()),
            Error::InFile { path, error } => Error::InFile {
                path: path.clone(),
                error: Box::new(error.duplicate()),
            },
            Error::Io { what, path, error } => Error::Io {
                what: what.clone(),
                path: path.clone(),
                error: io::Error::new(error.kind(), error.to_string()),
            },
            Error::InvalidOption(s) => Error::InvalidOption(s.clone()),
            Error::AppendMismatch {
                path,
                field,
                existing,
                requested,
            } => Error::AppendMismatch {
                path: path.clone(),
                field,
                existing: *existing,
                requested: *requested,
            },
            Error::BadPattern { pattern, problem } => Error::BadPattern {
                pattern: pattern.clone(),
                problem,
            },
            Error::InvalidBuffer(s) => Error::InvalidBuffer(s.clone()),
            Error::WrongMode {
                operation,
                needs,
                mode,
            } => Error::WrongMode {
                operation,
                needs,
                mode: *mode,
            },
            Error::Closed => Error::Closed,
            Error::RecordTooLarge { size, max } => Error::RecordTooLarge {
                size: *size,
                max: *max,
            },
            Error::FileCount { count } => Error::FileCount { count: *count },
        }
    }

    /// The file offset a decoding error points at, if it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Truncated { offset, .. } | Error::Corrupt { offset, .. } => Some(*offset),
            Error::InFile { error, .. } => error.offset(),
            _ => None,
        }
    }

    /// The Win32 code the `win32` face reports for this error. Format damage maps to
    /// `ERROR_BAD_PATHNAME` (what OpenTrace returns for a file it cannot use, CON-01); I/O
    /// errors map by kind.
    pub fn win32_code(&self) -> Win32Error {
        match self {
            Error::Truncated { .. } | Error::Corrupt { .. } => Win32Error::ERROR_BAD_PATHNAME,
            Error::InFile { error, .. } => error.win32_code(),
            Error::Io { error, .. } => match error.kind() {
                io::ErrorKind::NotFound => Win32Error::ERROR_PATH_NOT_FOUND,
                io::ErrorKind::PermissionDenied => Win32Error::ERROR_ACCESS_DENIED,
                io::ErrorKind::StorageFull => Win32Error::ERROR_DISK_FULL,
                _ => Win32Error::ERROR_INVALID_FUNCTION,
            },
            Error::InvalidOption(_)
            | Error::AppendMismatch { .. }
            | Error::InvalidBuffer(_)
            | Error::WrongMode { .. }
            | Error::RecordTooLarge { .. } => Win32Error::ERROR_INVALID_PARAMETER,
            Error::BadPattern { .. } => Win32Error::ERROR_BAD_PATHNAME,
            Error::Closed => Win32Error::ERROR_INVALID_HANDLE,
            Error::FileCount { .. } => Win32Error::ERROR_BAD_LENGTH,
        }
    }
}

/// For the kernel's `Sink`, which speaks `io::Result`: I/O errors keep their kind, damage
/// becomes `InvalidData`, caller mistakes `InvalidInput`.
impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        let kind = match &e {
            Error::Io { error, .. } => error.kind(),
            Error::Truncated { .. } | Error::Corrupt { .. } | Error::InFile { .. } => {
                io::ErrorKind::InvalidData
            }
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_and_where() {
        let e = Error::truncated("EVENT_HEADER", 0x10048, 80, 12).in_file("a.etl");
        assert_eq!(
            e.to_string(),
            "a.etl: EVENT_HEADER at offset 0x10048: needs 80 bytes, only 12 left"
        );
        assert_eq!(e.offset(), Some(0x10048));
        assert_eq!(e.win32_code(), Win32Error::ERROR_BAD_PATHNAME);
        let io: io::Error = e.into();
        assert_eq!(io.kind(), io::ErrorKind::InvalidData);
    }
}
