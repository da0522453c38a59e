//! The crate's one error type.

use crate::value::ValueType;

/// What went wrong in the registry model, a `.reg` file or a security descriptor.
///
/// Every variant names *what* was being read and *where* (a line of a `.reg` file, a value of a
/// key, a byte offset in a descriptor) and what was expected instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The first line of a `.reg` file is not a header (REG-04): the file is not a registry
    /// script and nothing was imported.
    #[error(
        "line 1: expected the header `Windows Registry Editor Version 5.00` or `REGEDIT4`, found {found:?}"
    )]
    NotARegistryScript {
        /// The first line as read (shortened).
        found: String,
    },
    /// The header is `REGEDIT` alone: the Windows 3.1 format, which is out of scope (REG-04).
    #[error(
        "line 1: `REGEDIT` (the Windows 3.1 format) is not supported; expected `Windows Registry Editor Version 5.00` or `REGEDIT4`"
    )]
    Windows31Format,
    /// A UTF-8 byte-order mark in front of the header, refused under
    /// [`ImportOptions::utf8_bom`](crate::ImportOptions::utf8_bom) = `Refuse` (REG-04).
    #[error(
        "line 1: a UTF-8 byte-order mark precedes the header (refused, as Wine's regedit does)"
    )]
    Utf8BomRefused,
    /// A line of a `.reg` file was rejected (returned by a strict import, REG-13).
    #[error("line {line}: expected {expected}, found {found:?}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What the grammar wanted at that point.
        expected: &'static str,
        /// The text found there (shortened).
        found: String,
    },
    /// A key path that cannot name a key: an unknown root, an empty component, a name too long.
    #[error("key path {path:?}: expected {expected}")]
    BadKeyPath {
        /// The path as given (shortened).
        path: String,
        /// What a path needs instead.
        expected: &'static str,
    },
    /// A value name that cannot be stored (a NUL, or longer than 16,383 characters).
    #[error("value name {name:?}: expected {expected}")]
    BadValueName {
        /// The name as given (shortened).
        name: String,
        /// What a name needs instead.
        expected: &'static str,
    },
    /// No key at this path.
    #[error("key {path:?} does not exist")]
    KeyNotFound {
        /// The path as given.
        path: String,
    },
    /// A value has another type than the reader needs ("Start is REG_SZ, expected REG_DWORD").
    #[error("{value} is {found}, expected {expected}")]
    WrongType {
        /// The value's name (`@` for the default value).
        value: String,
        /// Its type.
        found: ValueType,
        /// The type the reader needs.
        expected: ValueType,
    },
    /// A value has the right type but data that type cannot hold (a 3-byte REG_DWORD…).
    #[error("{value} ({ty}, {len} bytes): expected {expected}")]
    BadValueData {
        /// The value's name (`@` for the default value).
        value: String,
        /// Its type.
        ty: ValueType,
        /// Its data length in bytes.
        len: usize,
        /// What the data should have been.
        expected: &'static str,
    },
    /// A security descriptor, ACL, ACE or SID could not be decoded.
    #[error("{what} at offset {offset:#x}: {problem}")]
    BadSecurityDescriptor {
        /// The structure being read (`SID`, `ACL`, `ACE`, `SECURITY_DESCRIPTOR_RELATIVE`).
        what: &'static str,
        /// Byte offset of that structure in the input.
        offset: usize,
        /// What was wrong.
        problem: String,
    },
    /// A SID in string form (`S-1-5-18`) could not be parsed.
    #[error("not a SID: {input:?} ({problem})")]
    BadSidString {
        /// The text as given (shortened).
        input: String,
        /// What was wrong.
        problem: &'static str,
    },
}

/// At most this many characters of offending text are quoted in an error.
const QUOTE_MAX: usize = 48;

/// `text`, shortened for quoting in an error message.
pub(crate) fn quote(text: &str) -> String {
    if text.chars().count() <= QUOTE_MAX {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(QUOTE_MAX).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_type_reads_like_a_sentence() {
        let e = Error::WrongType {
            value: "Start".into(),
            found: ValueType::SZ,
            expected: ValueType::DWORD,
        };
        assert_eq!(e.to_string(), "Start is REG_SZ, expected REG_DWORD");
    }

    #[test]
    fn long_text_is_shortened() {
        let long = "x".repeat(100);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_MAX + 1);
        assert!(q.ends_with('…'));
        assert_eq!(quote("short"), "short");
    }
}
