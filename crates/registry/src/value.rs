//! Registry values: a type number and raw bytes, as the registry itself stores them (REG-01).
//!
//! A [`Value`] keeps the bytes exactly as written, whatever its type says, so nothing is lost on
//! a round trip through a `.reg` file; the typed readers ([`Value::to_dword`],
//! [`Value::to_string_lossy`], …) decode them and say `None` when the type or the length does not
//! fit. [`Key`](crate::Key)'s readers turn that into an [`Error`](crate::Error) naming the value.

use std::fmt;

/// A registry value type (`REG_*`): an open number, since a `.reg` file may write any 32-bit
/// type with `hex(N):` (REG-08).
#[doc(alias = "REG_SZ")]
#[doc(alias = "REG_DWORD")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ValueType(pub u32);

impl ValueType {
    /// `REG_NONE` 0: no defined type.
    pub const NONE: ValueType = ValueType(0);
    /// `REG_SZ` 1: a NUL-terminated UTF-16 string.
    pub const SZ: ValueType = ValueType(1);
    /// `REG_EXPAND_SZ` 2: a UTF-16 string with `%VAR%` references.
    pub const EXPAND_SZ: ValueType = ValueType(2);
    /// `REG_BINARY` 3: bytes.
    pub const BINARY: ValueType = ValueType(3);
    /// `REG_DWORD` 4: a little-endian 32-bit number.
    pub const DWORD: ValueType = ValueType(4);
    /// `REG_DWORD_BIG_ENDIAN` 5: a big-endian 32-bit number.
    pub const DWORD_BIG_ENDIAN: ValueType = ValueType(5);
    /// `REG_LINK` 6: a symbolic link (UTF-16 path, no terminator).
    pub const LINK: ValueType = ValueType(6);
    /// `REG_MULTI_SZ` 7: NUL-separated UTF-16 strings ending in a double NUL.
    pub const MULTI_SZ: ValueType = ValueType(7);
    /// `REG_RESOURCE_LIST` 8.
    pub const RESOURCE_LIST: ValueType = ValueType(8);
    /// `REG_FULL_RESOURCE_DESCRIPTOR` 9.
    pub const FULL_RESOURCE_DESCRIPTOR: ValueType = ValueType(9);
    /// `REG_RESOURCE_REQUIREMENTS_LIST` 10.
    pub const RESOURCE_REQUIREMENTS_LIST: ValueType = ValueType(10);
    /// `REG_QWORD` 11: a little-endian 64-bit number.
    pub const QWORD: ValueType = ValueType(11);

    /// The `REG_*` name of a documented type, `None` for any other number.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "REG_NONE",
            1 => "REG_SZ",
            2 => "REG_EXPAND_SZ",
            3 => "REG_BINARY",
            4 => "REG_DWORD",
            5 => "REG_DWORD_BIG_ENDIAN",
            6 => "REG_LINK",
            7 => "REG_MULTI_SZ",
            8 => "REG_RESOURCE_LIST",
            9 => "REG_FULL_RESOURCE_DESCRIPTOR",
            10 => "REG_RESOURCE_REQUIREMENTS_LIST",
            11 => "REG_QWORD",
            _ => return None,
        })
    }

    /// `true` for the types whose data is UTF-16 text that a `.reg` importer terminates and,
    /// in an ANSI file, converts (REG_SZ, REG_EXPAND_SZ, REG_MULTI_SZ; REG-12).
    pub fn is_string(self) -> bool {
        matches!(self.0, 1 | 2 | 7)
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "type {:#x}", self.0),
        }
    }
}

impl fmt::Debug for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One registry value's type and data, exactly as stored.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Value {
    ty: ValueType,
    data: Vec<u8>,
}

impl Value {
    /// A value of any type with these bytes, unchecked (as `RegSetValueEx` stores them).
    pub fn new(ty: ValueType, data: impl Into<Vec<u8>>) -> Value {
        Value {
            ty,
            data: data.into(),
        }
    }

    /// `REG_SZ`: the text as UTF-16LE with its terminating NUL.
    pub fn sz(text: &str) -> Value {
        Value::new(ValueType::SZ, utf16_with_nul(text))
    }

    /// `REG_EXPAND_SZ`: the text as UTF-16LE with its terminating NUL.
    pub fn expand_sz(text: &str) -> Value {
        Value::new(ValueType::EXPAND_SZ, utf16_with_nul(text))
    }

    /// `REG_MULTI_SZ`: each string NUL-terminated, then one more NUL.
    pub fn multi_sz<S: AsRef<str>>(strings: &[S]) -> Value {
        let mut data = Vec::new();
        for s in strings {
            data.extend(utf16_with_nul(s.as_ref()));
        }
        data.extend([0, 0]);
        Value::new(ValueType::MULTI_SZ, data)
    }

    /// `REG_DWORD`, little-endian.
    pub fn dword(v: u32) -> Value {
        Value::new(ValueType::DWORD, v.to_le_bytes())
    }

    /// `REG_DWORD_BIG_ENDIAN`.
    pub fn dword_big_endian(v: u32) -> Value {
        Value::new(ValueType::DWORD_BIG_ENDIAN, v.to_be_bytes())
    }

    /// `REG_QWORD`, little-endian.
    pub fn qword(v: u64) -> Value {
        Value::new(ValueType::QWORD, v.to_le_bytes())
    }

    /// `REG_BINARY`.
    pub fn binary(bytes: impl Into<Vec<u8>>) -> Value {
        Value::new(ValueType::BINARY, bytes)
    }

    /// The value's type.
    pub fn ty(&self) -> ValueType {
        self.ty
    }

    /// The raw bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The number, for a 4-byte `REG_DWORD`.
    pub fn to_dword(&self) -> Option<u32> {
        if self.ty != ValueType::DWORD {
            return None;
        }
        le_u32(&self.data)
    }

    /// The number, for a 4-byte `REG_DWORD_BIG_ENDIAN`.
    pub fn to_dword_big_endian(&self) -> Option<u32> {
        if self.ty != ValueType::DWORD_BIG_ENDIAN {
            return None;
        }
        let b: [u8; 4] = self.data.as_slice().try_into().ok()?;
        Some(u32::from_be_bytes(b))
    }

    /// The number, for an 8-byte `REG_QWORD`.
    pub fn to_qword(&self) -> Option<u64> {
        if self.ty != ValueType::QWORD {
            return None;
        }
        let b: [u8; 8] = self.data.as_slice().try_into().ok()?;
        Some(u64::from_le_bytes(b))
    }

    /// The text of a `REG_SZ`, `REG_EXPAND_SZ` or `REG_LINK`, up to the first NUL (unpaired
    /// surrogates become U+FFFD); `None` for other types or an odd byte length.
    pub fn to_string_lossy(&self) -> Option<String> {
        if !matches!(self.ty.0, 1 | 2 | 6) {
            return None;
        }
        let units = utf16_units(&self.data)?;
        let end = units.iter().position(|&u| u == 0).unwrap_or(units.len());
        Some(String::from_utf16_lossy(&units[..end]))
    }

    /// The strings of a `REG_MULTI_SZ` (the empty string ending the list is not included);
    /// `None` for other types or an odd byte length.
    pub fn to_multi_sz(&self) -> Option<Vec<String>> {
        if self.ty != ValueType::MULTI_SZ {
            return None;
        }
        let units = utf16_units(&self.data)?;
        let mut out = Vec::new();
        for part in units.split(|&u| u == 0) {
            if part.is_empty() {
                break;
            }
            out.push(String::from_utf16_lossy(part));
        }
        Some(out)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.ty)?;
        if let Some(v) = self.to_dword() {
            write!(f, "{v:#x}")?;
        } else if let Some(v) = self.to_qword() {
            write!(f, "{v:#x}")?;
        } else if let (true, Some(s)) = (self.ty.is_string(), self.to_string_lossy()) {
            write!(f, "{s:?}")?;
        } else if let Some(v) = self.to_multi_sz() {
            write!(f, "{v:?}")?;
        } else {
            for (i, b) in self.data.iter().enumerate() {
                let sep = if i == 0 { "" } else { "," };
                write!(f, "{sep}{b:02x}")?;
            }
        }
        f.write_str(")")
    }
}

/// `text` as UTF-16LE bytes followed by a NUL unit.
pub(crate) fn utf16_with_nul(text: &str) -> Vec<u8> {
    let mut out: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    out.extend([0, 0]);
    out
}

/// The UTF-16LE units of `data`, `None` for an odd length.
pub(crate) fn utf16_units(data: &[u8]) -> Option<Vec<u16>> {
    if data.len() % 2 != 0 {
        return None;
    }
    Some(
        data.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect(),
    )
}

fn le_u32(data: &[u8]) -> Option<u32> {
    let b: [u8; 4] = data.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_store_the_registry_byte_layout() {
        // rule: REG-01
        assert_eq!(Value::dword(0x0102_0304).data(), &[4, 3, 2, 1]);
        assert_eq!(Value::dword_big_endian(0x0102_0304).data(), &[1, 2, 3, 4]);
        assert_eq!(Value::qword(0x0102).data(), &[2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(Value::sz("A").data(), &[0x41, 0, 0, 0]);
        assert_eq!(
            Value::multi_sz(&["a", "b"]).data(),
            &[0x61, 0, 0, 0, 0x62, 0, 0, 0, 0, 0]
        );
        assert_eq!(ValueType::QWORD.0, 11);
        assert_eq!(ValueType::RESOURCE_REQUIREMENTS_LIST.0, 10);
    }

    #[test]
    fn readers_refuse_the_wrong_type_or_length() {
        assert_eq!(Value::dword(7).to_dword(), Some(7));
        assert_eq!(Value::dword(7).to_qword(), None);
        assert_eq!(Value::new(ValueType::DWORD, [1, 2, 3]).to_dword(), None);
        assert_eq!(Value::sz("x").to_dword(), None);
        assert_eq!(Value::new(ValueType::SZ, [0x41]).to_string_lossy(), None);
        assert_eq!(Value::sz("hé").to_string_lossy().as_deref(), Some("hé"));
        assert_eq!(
            Value::multi_sz(&["a", "bc"]).to_multi_sz(),
            Some(vec!["a".to_owned(), "bc".to_owned()])
        );
        assert_eq!(format!("{}", ValueType(0x1234)), "type 0x1234");
        assert_eq!(format!("{:?}", Value::dword(16)), "REG_DWORD(0x10)");
    }
}
