//! Bounds-checked little-endian reads. Every read names what it was reading, so a short
//! slice becomes an [`Error::Truncated`] with the file offset instead of a panic.

use crate::error::{Error, Result};

/// A slice and the file offset of its first byte.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Bytes<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) base: u64,
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(b: &'a [u8], base: u64) -> Bytes<'a> {
        Bytes { b, base }
    }

    pub(crate) fn len(&self) -> usize {
        self.b.len()
    }

    /// The file offset of byte `at`.
    pub(crate) fn offset(&self, at: usize) -> u64 {
        self.base.saturating_add(at as u64)
    }

    /// `len` bytes at `at`.
    pub(crate) fn slice(&self, at: usize, len: usize, what: &'static str) -> Result<&'a [u8]> {
        at.checked_add(len)
            .and_then(|end| self.b.get(at..end))
            .ok_or_else(|| {
                Error::truncated(
                    what,
                    self.offset(at),
                    len as u64,
                    self.b.len().saturating_sub(at) as u64,
                )
            })
    }

    /// The part from `at` on, as a new view.
    pub(crate) fn tail(&self, at: usize) -> Bytes<'a> {
        Bytes {
            b: self.b.get(at..).unwrap_or(&[]),
            base: self.offset(at),
        }
    }

    /// The first `len` bytes, as a new view (fewer if the slice is shorter).
    pub(crate) fn head(&self, len: usize) -> Bytes<'a> {
        Bytes {
            b: &self.b[..len.min(self.b.len())],
            base: self.base,
        }
    }

    fn array<const N: usize>(&self, at: usize, what: &'static str) -> Result<[u8; N]> {
        let s = self.slice(at, N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    pub(crate) fn u8(&self, at: usize, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(at, what)?[0])
    }

    pub(crate) fn u16(&self, at: usize, what: &'static str) -> Result<u16> {
        self.array(at, what).map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&self, at: usize, what: &'static str) -> Result<u32> {
        self.array(at, what).map(u32::from_le_bytes)
    }

    pub(crate) fn i64(&self, at: usize, what: &'static str) -> Result<i64> {
        self.array(at, what).map(i64::from_le_bytes)
    }
}

/// Little-endian writes into a byte vector that grows as needed.
pub(crate) trait PutLe {
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_u64(&mut self, v: u64);
    fn put_i64(&mut self, v: i64);
}

impl PutLe for Vec<u8> {
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i64(&mut self, v: i64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
}

/// Overwrites 4 bytes at `at` of a slice known to be long enough.
pub(crate) fn patch_u32(b: &mut [u8], at: usize, v: u32) {
    if let Some(s) = b.get_mut(at..at + 4) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

/// Overwrites 8 bytes at `at` of a slice known to be long enough.
pub(crate) fn patch_i64(b: &mut [u8], at: usize, v: i64) {
    if let Some(s) = b.get_mut(at..at + 8) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

/// UTF-16LE text up to the first NUL (or the end), lossily; returns the text and the bytes
/// consumed including the NUL when there is one.
pub(crate) fn utf16z(b: &[u8]) -> (String, usize) {
    let mut units = Vec::with_capacity(b.len() / 2);
    let mut used = 0;
    for pair in b.chunks_exact(2) {
        used += 2;
        let u = u16::from_le_bytes([pair[0], pair[1]]);
        if u == 0 {
            return (String::from_utf16_lossy(&units), used);
        }
        units.push(u);
    }
    (String::from_utf16_lossy(&units), used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_reads_are_errors_with_offsets() {
        let b = Bytes::new(&[1, 2, 3], 0x100);
        assert_eq!(b.u16(1, "x").unwrap(), 0x0302);
        let e = b.u32(1, "a field").unwrap_err();
        assert_eq!(e.offset(), Some(0x101));
        assert!(b.slice(usize::MAX, 2, "huge").is_err());
        assert_eq!(b.tail(10).len(), 0);
    }

    #[test]
    fn utf16_strings_stop_at_nul() {
        let mut v = Vec::new();
        for u in "ab".encode_utf16().chain([0, 0x63]) {
            v.extend_from_slice(&u.to_le_bytes());
        }
        assert_eq!(utf16z(&v), ("ab".to_string(), 6));
        assert_eq!(utf16z(&[0x61, 0]), ("a".to_string(), 2));
        assert_eq!(utf16z(&[0x61]), (String::new(), 0));
    }
}
