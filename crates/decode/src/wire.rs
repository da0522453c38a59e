//! A cursor over a payload shared by the MOF and manifest decoders: every read names the
//! field and its offset when it fails, and nothing it does can panic.

use crate::Error;
use crate::fields::Sid;

/// A payload being read front to back.
pub(crate) struct Cursor<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) offset: usize,
    pub(crate) pointer_size: u8,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8], pointer_size: u8) -> Result<Cursor<'a>, Error> {
        match pointer_size {
            4 | 8 => Ok(Cursor {
                bytes,
                offset: 0,
                pointer_size,
            }),
            n => Err(Error::PointerSize(n)),
        }
    }

    /// Bytes left.
    pub(crate) fn left(&self) -> usize {
        self.bytes.len() - self.offset
    }

    pub(crate) fn take(&mut self, field: &str, n: usize) -> Result<&'a [u8], Error> {
        let left = self.left();
        if left < n {
            return Err(Error::Truncated {
                field: field.into(),
                offset: self.offset,
                needed: n,
                available: left,
            });
        }
        let s = &self.bytes[self.offset..self.offset + n];
        self.offset += n;
        Ok(s)
    }

    pub(crate) fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N], Error> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(field, N)?);
        Ok(a)
    }

    pub(crate) fn u16(&mut self, field: &str) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn u32(&mut self, field: &str) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn pointer(&mut self, field: &str) -> Result<u64, Error> {
        Ok(if self.pointer_size == 4 {
            self.u32(field)?.into()
        } else {
            u64::from_le_bytes(self.array(field)?)
        })
    }

    pub(crate) fn bad(&self, field: &str, offset: usize, reason: impl Into<String>) -> Error {
        Error::BadValue {
            field: field.into(),
            offset,
            reason: reason.into(),
        }
    }

    /// UTF-16LE up to a NUL code unit; when `last`, the end of the payload also ends it.
    pub(crate) fn utf16z(&mut self, field: &str, last: bool) -> Result<String, Error> {
        let start = self.offset;
        let rest = &self.bytes[start..];
        let units = rest.chunks_exact(2).take_while(|c| c != &[0, 0]).count();
        if units * 2 + 2 <= rest.len() {
            self.offset += units * 2 + 2;
        } else if !last {
            return Err(self.bad(field, start, "UTF-16 string without its NUL terminator"));
        } else if rest.len() % 2 != 0 {
            return Err(self.bad(field, start, "UTF-16 string with an odd number of bytes"));
        } else {
            self.offset = self.bytes.len();
        }
        Ok(utf16_lossy(&rest[..units * 2]))
    }

    /// `n` UTF-16 code units, not terminated.
    pub(crate) fn utf16_units(&mut self, field: &str, n: usize) -> Result<String, Error> {
        let bytes = self.take(field, n.saturating_mul(2))?;
        Ok(utf16_lossy(bytes))
    }

    /// 8-bit text up to a NUL byte; when `last`, the end of the payload also ends it.
    pub(crate) fn ansiz(&mut self, field: &str, last: bool) -> Result<Vec<u8>, Error> {
        let start = self.offset;
        let rest = &self.bytes[start..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                self.offset += n + 1;
                Ok(rest[..n].to_vec())
            }
            None if last => {
                self.offset = self.bytes.len();
                Ok(rest.to_vec())
            }
            None => Err(self.bad(field, start, "ANSI string without its NUL terminator")),
        }
    }

    /// A SID whose length comes from its count byte (DEC-12).
    pub(crate) fn sid(&mut self, field: &str) -> Result<Sid, Error> {
        let at = self.offset;
        let rest = &self.bytes[at..];
        match Sid::read(rest) {
            Ok((sid, len)) => {
                self.offset += len;
                Ok(sid)
            }
            Err(_) => {
                let count = rest.get(1).copied().map_or(0, usize::from);
                Err(if count > Sid::MAX_SUB_AUTHORITIES {
                    self.bad(field, at, format!("SID with {count} sub-authorities"))
                } else if rest.len() >= 8 + 4 * count {
                    self.bad(field, at, format!("SID revision {} (expected 1)", rest[0]))
                } else {
                    Error::Truncated {
                        field: field.into(),
                        offset: at,
                        needed: 8 + 4 * count,
                        available: rest.len(),
                    }
                })
            }
        }
    }
}

/// UTF-16LE bytes (an even number) as text, unpaired surrogates replaced with U+FFFD (as
/// `String::from_utf16_lossy`), decoded straight into the string: one allocation.
pub(crate) fn utf16_lossy(bytes: &[u8]) -> String {
    // Most text is ASCII: each unit's low byte is its character.
    if bytes.chunks_exact(2).all(|c| c[1] == 0 && c[0] < 0x80) {
        let ascii: Vec<u8> = bytes.chunks_exact(2).map(|c| c[0]).collect();
        return String::from_utf8(ascii).unwrap_or_default(); // ASCII: always UTF-8
    }
    let mut out = String::with_capacity(bytes.len() / 2);
    out.extend(
        char::decode_utf16(
            bytes
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]])),
        )
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_lossy_reads_as_from_utf16_lossy_does() {
        // ASCII, Latin-1, a surrogate pair, unpaired surrogates (high alone, low alone, high at
        // the end), an embedded NUL, nothing.
        let cases: [&[u16]; 7] = [
            &[0x43, 0x3a, 0x5c, 0x7f],
            &[0x43, 0x3a, 0x5c, 0xe9],
            &[0xd83d, 0xde00, 0x41],
            &[0xd800, 0x41, 0xdc00, 0x42],
            &[0x41, 0xd800],
            &[0x41, 0, 0x42],
            &[],
        ];
        for units in cases {
            let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            assert_eq!(utf16_lossy(&bytes), String::from_utf16_lossy(units));
        }
    }
}
