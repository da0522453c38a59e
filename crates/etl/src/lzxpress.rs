//! LZXpress in its plain LZ77 form ([MS-XCA] §2.3 compression, §2.4 decompression): the
//! codec of compressed `.etl` buffers (`ETW_BUFFER_FLAG_COMPRESSED`, BUF-15). Not the
//! LZ77+Huffman variant of §2.1/§2.2.
//!
//! Written here from the algorithm as [MS-XCA] describes it (no crate on crates.io does
//! exactly this with a bounded output: `rust-lzxpress` 0.7.1 returns an unbounded `Vec`
//! from its `decompress(&[u8])`, `ms-compress` is LGPL-licensed and needs Rust 1.96), and
//! checked against the worked examples of [MS-XCA] §3.1 and, in
//! `crates/etl/tests/etl/compressed.rs`, against dissect.util's decompressor.
//!
//! # The stream
//!
//! The compressed bytes are groups of up to 32 symbols, each group led by a little-endian
//! 32-bit flags word read from its most significant bit down: a 0 bit is one literal byte,
//! a 1 bit a match. A match is a little-endian `u16`: the high 13 bits are the distance
//! back minus 1 (1..=8192 bytes back), the low 3 bits the length minus 3. A length field
//! of 7 goes on in a half byte (a nibble): the first such match of a pair takes a new byte
//! and uses its low nibble, the next one uses the high nibble of that same byte. A nibble
//! of 15 goes on in one byte; a byte of 255 goes on in a `u16` holding the length minus 3
//! (a `u16` of 0 goes on in a `u32` holding it). The stream ends at a match bit with no
//! input left: the compressor sets every unused bit of the last flags word.
//!
//! # Bounds
//!
//! [`decompress_into`] never writes more than the caller's limit, checks every read, and
//! returns an [`Error`] naming the offset in the compressed stream of the symbol at fault:
//! a match that reaches back before the start of the output, a length that would pass the
//! limit (lengths are added up in 64 bits, so none can wrap), a stream that ends inside a
//! flags word or a match. A stream that simply runs out at a symbol boundary ends there;
//! the caller compares the output's length with what it expected.
//!
//! [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8

use crate::error::{Error, Result};

/// The farthest a match reaches back: 13 bits of distance, plus 1.
pub const MAX_DISTANCE: usize = 8192;
/// The shortest match the format encodes.
pub const MIN_MATCH: usize = 3;

const WHAT_FLAGS: &str = "LZXpress flags word";
const WHAT_MATCH: &str = "LZXpress match";
const WHAT_LENGTH: &str = "LZXpress match length";
const WHAT_LITERAL: &str = "LZXpress literal";

/// Decompresses `input`, at most `limit` bytes of output.
///
/// ```
/// use etwsim_etl::lzxpress;
/// // [MS-XCA] §3.1: "abc" 100 times.
/// let packed = [0xff, 0xff, 0xff, 0x1f, b'a', b'b', b'c', 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01];
/// let text = lzxpress::decompress(&packed, 300).unwrap();
/// assert_eq!(text, b"abc".repeat(100));
/// assert!(lzxpress::decompress(&packed, 299).is_err());
/// ```
///
/// # Errors
/// As [`decompress_into`].
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress_into(input, limit, &mut out)?;
    Ok(out)
}

/// Decompresses `input` into `out` (cleared first; its allocation is reused), at most
/// `limit` bytes. On error `out` holds what was decompressed before the fault.
///
/// # Errors
/// [`Error::Truncated`] when the stream ends inside a flags word or a match;
/// [`Error::Corrupt`] for a match before the start of the output, a match or literal that
/// would make the output longer than `limit`, or an extended length below its minimum.
/// The offset is the symbol's position in `input`.
pub fn decompress_into(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<()> {
    out.clear();
    decompress_append(input, limit, out)
}

/// As [`decompress_into`], appending to what `out` already holds: the output (what
/// matches may reach back into, what `limit` bounds) starts at `out`'s current end.
pub(crate) fn decompress_append(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<()> {
    let base = out.len();
    let mut op = base;
    let result = inflate(input, limit, out, base, &mut op);
    out.truncate(op);
    result
}

/// Bytes the output may hold past its end while decompressing: literal runs and short
/// matches are copied 16 or 32 bytes at a time (fixed-size copies, no call), and the surplus
/// is cut off at the end.
const SLACK: usize = 32;

/// Copies `N` bytes from `from` to `to` within `out` (`from + N <= to`, `to + N` inside).
#[inline(always)]
fn copy_fixed<const N: usize>(out: &mut [u8], from: usize, to: usize) {
    let mut chunk = [0u8; N];
    chunk.copy_from_slice(&out[from..from + N]);
    out[to..to + N].copy_from_slice(&chunk);
}

/// Grows `out` (zero-filled) to hold `need` bytes, doubling, never past `cap`.
#[inline]
fn ensure(out: &mut Vec<u8>, need: usize, cap: usize) {
    if need > out.len() {
        out.resize(need.max(out.len().saturating_mul(2)).min(cap).max(need), 0);
    }
}

/// The decompressor proper: writes into `out` from `base` on, `*op` the next output
/// position (everything from `*op` on is scratch, cut off by the caller).
fn inflate(
    input: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
    base: usize,
    op: &mut usize,
) -> Result<()> {
    let len = input.len();
    let end = base.saturating_add(limit);
    let cap = end.saturating_add(SLACK);
    // A first size the input can plausibly justify (the output grows, never past `cap`).
    ensure(
        out,
        base + limit.min(input.len().saturating_mul(8)).min(1 << 24),
        cap,
    );
    let mut pos = 0usize;
    let mut flags = 0u32;
    let mut left = 0u32; // flag bits not yet used, the next one at bit `left - 1`
    let mut half: Option<usize> = None; // the byte whose high nibble the next long match uses
    loop {
        if left == 0 {
            if pos == len {
                return Ok(());
            }
            let word = input
                .get(pos..pos + 4)
                .ok_or_else(|| Error::truncated(WHAT_FLAGS, pos as u64, 4, (len - pos) as u64))?;
            flags = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            pos += 4;
            left = 32;
        }
        // A run of literals: the 0 bits at the top of what is left of the flags word.
        let lits = (flags << (32 - left)).leading_zeros().min(left);
        if lits > 0 {
            let n = lits as usize;
            let have = (len - pos).min(n);
            if have > end - *op {
                return Err(Error::corrupt(
                    WHAT_LITERAL,
                    (pos + (end - *op)) as u64,
                    format!("makes the output longer than its limit of {limit} bytes"),
                ));
            }
            ensure(out, *op + SLACK, cap);
            if pos + SLACK <= len && *op + SLACK <= out.len() {
                // All 32 at once; only `have` of them count.
                out[*op..*op + SLACK].copy_from_slice(&input[pos..pos + SLACK]);
            } else {
                out[*op..*op + have].copy_from_slice(&input[pos..pos + have]);
            }
            *op += have;
            pos += have;
            if have < n {
                return Ok(()); // the input ended among literals
            }
            left -= lits;
            continue;
        }
        left -= 1;
        if pos == len {
            return Ok(()); // a match bit with no input left: the end
        }
        let at = pos;
        let word = input
            .get(pos..pos + 2)
            .ok_or_else(|| Error::truncated(WHAT_MATCH, at as u64, 2, (len - pos) as u64))?;
        let word = u16::from_le_bytes([word[0], word[1]]);
        pos += 2;
        let distance = usize::from(word >> 3) + 1;
        let mut length = u64::from(word & 7);
        if length == 7 {
            let nibble = match half.take() {
                Some(shared) => input[shared] >> 4,
                None => {
                    let b = *input
                        .get(pos)
                        .ok_or_else(|| Error::truncated(WHAT_LENGTH, pos as u64, 1, 0))?;
                    half = Some(pos);
                    pos += 1;
                    b & 0x0F
                }
            };
            length = u64::from(nibble);
            if length == 15 {
                let b = *input
                    .get(pos)
                    .ok_or_else(|| Error::truncated(WHAT_LENGTH, pos as u64, 1, 0))?;
                pos += 1;
                length = u64::from(b);
                if length == 255 {
                    let w = input.get(pos..pos + 2).ok_or_else(|| {
                        Error::truncated(WHAT_LENGTH, pos as u64, 2, (len - pos) as u64)
                    })?;
                    let mut v = u64::from(u16::from_le_bytes([w[0], w[1]]));
                    pos += 2;
                    if v == 0 {
                        let d = input.get(pos..pos + 4).ok_or_else(|| {
                            Error::truncated(WHAT_LENGTH, pos as u64, 4, (len - pos) as u64)
                        })?;
                        v = u64::from(u32::from_le_bytes([d[0], d[1], d[2], d[3]]));
                        pos += 4;
                    }
                    if v < 15 + 7 {
                        return Err(Error::corrupt(
                            WHAT_MATCH,
                            at as u64,
                            format!("its extended length {v} is below the minimum of 22"),
                        ));
                    }
                    length = v - (15 + 7);
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        let have = *op - base;
        if distance > have {
            return Err(Error::corrupt(
                WHAT_MATCH,
                at as u64,
                format!(
                    "reaches {distance} bytes back, before the start of the output \
                     ({have} bytes so far)"
                ),
            ));
        }
        if length > (end - *op) as u64 {
            return Err(Error::corrupt(
                WHAT_MATCH,
                at as u64,
                format!(
                    "of {length} bytes makes the output longer than its limit of {limit} bytes \
                     ({have} so far)"
                ),
            ));
        }
        // Within `limit` (a usize), so the cast is exact.
        let length = length as usize;
        let from = *op - distance;
        if distance >= 8 && length <= 8 {
            ensure(out, *op + 8, cap);
            copy_fixed::<8>(out, from, *op);
        } else if distance >= 16 && length <= 16 {
            // The common short match: 16 bytes at once, all of them already written (the
            // surplus past `length` is overwritten next or cut off at the end).
            ensure(out, *op + 16, cap);
            copy_fixed::<16>(out, from, *op);
        } else if distance >= 32 && length <= 32 {
            ensure(out, *op + 32, cap);
            copy_fixed::<32>(out, from, *op);
        } else if distance >= length {
            ensure(out, *op + length, cap);
            out.copy_within(from..from + length, *op);
        } else if length <= 16 {
            // Short and overlapping: byte by byte, as the format defines it.
            ensure(out, *op + length, cap);
            for i in 0..length {
                out[*op + i] = out[from + i];
            }
        } else if distance == 1 {
            ensure(out, *op + length, cap);
            let b = out[from];
            out[*op..*op + length].fill(b);
        } else {
            // Overlapping: the output repeats its last `distance` bytes. Copying from `from`
            // everything written since (a multiple of `distance`) keeps the period and
            // doubles the step.
            ensure(out, *op + length, cap);
            let mut done = 0;
            while done < length {
                let n = (length - done).min(*op + done - from);
                out.copy_within(from..from + n, *op + done);
                done += n;
            }
        }
        *op += length;
    }
}

/// Compresses `input` (one call, one stream; reusing a [`Compressor`] saves its table).
///
/// ```
/// use etwsim_etl::lzxpress;
/// let text = b"abcdefghijklmnopqrstuvwxyz";
/// let packed = lzxpress::compress(text);
/// // [MS-XCA] §3.1: 26 literals after a flags word whose 6 unused bits are set.
/// assert_eq!(&packed[..4], &[0x3f, 0, 0, 0]);
/// assert_eq!(lzxpress::decompress(&packed, text.len()).unwrap(), text);
/// ```
pub fn compress(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    Compressor::new().compress_into(input, &mut out);
    out
}

const HASH_BITS: u32 = 14;

/// A plain-LZ77 compressor with its match table, reused across calls.
///
/// Greedy matching on 3-byte hashes, one candidate per hash, within the format's
/// 8192-byte window. The output is what [`decompress_into`] (and Windows'
/// `COMPRESSION_FORMAT_XPRESS`) reads; its worst case is the input plus 4 bytes per 32 input
/// bytes plus 4.
#[derive(Clone)]
pub struct Compressor {
    /// Position + 1 of the last place each hash was seen (0 = never).
    table: Vec<u32>,
}

impl std::fmt::Debug for Compressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compressor").finish_non_exhaustive()
    }
}

impl Default for Compressor {
    fn default() -> Self {
        Compressor::new()
    }
}

/// Where the stream's symbols go: the bytes, the current flags word and its place, the
/// nibble byte a long match may share.
struct Sink<'o> {
    out: &'o mut Vec<u8>,
    flags: u32,
    count: u32,
    flags_at: usize,
    half: Option<usize>,
}

impl Sink<'_> {
    fn bit(&mut self, one: bool) {
        self.flags = (self.flags << 1) | u32::from(one);
        self.count += 1;
        if self.count == 32 {
            self.out[self.flags_at..self.flags_at + 4].copy_from_slice(&self.flags.to_le_bytes());
            self.flags_at = self.out.len();
            self.out.extend_from_slice(&[0; 4]);
            self.flags = 0;
            self.count = 0;
        }
    }

    fn literal(&mut self, b: u8) {
        self.out.push(b);
        self.bit(false);
    }

    /// A match of `length` (≥ 3) bytes `distance` (1..=8192) back.
    fn matched(&mut self, distance: usize, length: usize) {
        let code = (length - MIN_MATCH).min(7);
        // distance ≤ 8192: the 13 bits hold distance − 1.
        let word = (((distance - 1) as u16) << 3) | code as u16;
        self.out.extend_from_slice(&word.to_le_bytes());
        if code == 7 {
            let rest = length - MIN_MATCH - 7;
            let nibble = rest.min(15) as u8;
            match self.half.take() {
                Some(at) => self.out[at] |= nibble << 4,
                None => {
                    self.half = Some(self.out.len());
                    self.out.push(nibble);
                }
            }
            if rest >= 15 {
                let rest = rest - 15;
                if rest < 255 {
                    self.out.push(rest as u8);
                } else {
                    self.out.push(255);
                    let total = length - MIN_MATCH;
                    match u16::try_from(total) {
                        Ok(v) => self.out.extend_from_slice(&v.to_le_bytes()),
                        Err(_) => {
                            self.out.extend_from_slice(&[0, 0]);
                            // Inputs are far below 4 GiB (a buffer is at most 16 MiB).
                            let v = u32::try_from(total).unwrap_or(u32::MAX);
                            self.out.extend_from_slice(&v.to_le_bytes());
                        }
                    }
                }
            }
        }
        self.bit(true);
    }

    /// Writes the last flags word, its unused bits set (the end marker).
    fn finish(self) {
        let flags = match self.count {
            0 => u32::MAX,
            n => (self.flags << (32 - n)) | ((1u32 << (32 - n)) - 1),
        };
        self.out[self.flags_at..self.flags_at + 4].copy_from_slice(&flags.to_le_bytes());
    }
}

#[inline]
fn hash3(b: &[u8], at: usize) -> usize {
    let v = u32::from(b[at]) | u32::from(b[at + 1]) << 8 | u32::from(b[at + 2]) << 16;
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// How many bytes from `a` equal those from `b` (`a < b`), at most `max`.
#[inline]
fn common(input: &[u8], a: usize, b: usize, max: usize) -> usize {
    let mut n = 0;
    while n + 8 <= max {
        let x = u64::from_le_bytes(input[a + n..a + n + 8].try_into().unwrap_or([0; 8]));
        let y = u64::from_le_bytes(input[b + n..b + n + 8].try_into().unwrap_or([0; 8]));
        let d = x ^ y;
        if d != 0 {
            return n + (d.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < max && input[a + n] == input[b + n] {
        n += 1;
    }
    n
}

impl Compressor {
    /// A compressor with an empty table.
    pub fn new() -> Compressor {
        Compressor {
            table: vec![0; 1 << HASH_BITS],
        }
    }

    /// Compresses `input` into `out` (cleared first).
    pub fn compress_into(&mut self, input: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.reserve(input.len() + input.len() / 8 + 8);
        out.extend_from_slice(&[0; 4]);
        self.table.fill(0);
        let mut sink = Sink {
            out,
            flags: 0,
            count: 0,
            flags_at: 0,
            half: None,
        };
        let n = input.len();
        let mut i = 0;
        while i < n {
            if i + MIN_MATCH <= n {
                let h = hash3(input, i);
                let candidate = self.table[h] as usize;
                // Positions fit: a buffer is at most 16 MiB.
                self.table[h] = i as u32 + 1;
                if candidate != 0 {
                    let c = candidate - 1;
                    let distance = i - c;
                    if distance <= MAX_DISTANCE {
                        let length = common(input, c, i, n - i);
                        if length >= MIN_MATCH {
                            sink.matched(distance, length);
                            let end = i + length;
                            // Remember the positions inside the match, for later matches.
                            let mut j = i + 1;
                            while j < end && j + MIN_MATCH <= n {
                                self.table[hash3(input, j)] = j as u32 + 1;
                                j += 1;
                            }
                            i = end;
                            continue;
                        }
                    }
                }
            }
            sink.literal(input[i]);
            i += 1;
        }
        sink.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(data: &[u8]) -> Vec<u8> {
        let packed = compress(data);
        let back = decompress(&packed, data.len()).unwrap();
        assert_eq!(back, data, "round trip of {} bytes", data.len());
        if !data.is_empty() {
            assert!(
                decompress(&packed, data.len() - 1).is_err(),
                "limit is exact"
            );
        }
        packed
    }

    /// xorshift64*, deterministic.
    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s >> 12;
                s ^= s << 25;
                s ^= s >> 27;
                (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
            })
            .collect()
    }

    #[test]
    fn the_ms_xca_examples_both_ways() {
        // [MS-XCA] §3.1, Plain LZ77: the alphabet as literals, and "abc" 100 times as three
        // literals and one 297-byte match 3 back (length in the nibble, byte and u16 forms).
        let alphabet = b"abcdefghijklmnopqrstuvwxyz";
        let mut want = vec![0x3f, 0, 0, 0];
        want.extend_from_slice(alphabet);
        assert_eq!(compress(alphabet), want);
        assert_eq!(decompress(&want, 26).unwrap(), alphabet);
        let abc = b"abc".repeat(100);
        let want = [
            0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01,
        ];
        assert_eq!(compress(&abc), want);
        assert_eq!(decompress(&want, 300).unwrap(), abc);
    }

    #[test]
    fn round_trips() {
        assert_eq!(
            round_trip(&[]),
            [0xff; 4],
            "empty: one flags word, all end bits"
        );
        round_trip(b"x");
        round_trip(&[0; 100_000]);
        round_trip(&[7; 3]);
        round_trip(&noise(70_000, 1));
        let mut records = Vec::new();
        for i in 0..2000u32 {
            records.extend_from_slice(&[0x50, 0, 0x13, 0xC0]);
            records.extend_from_slice(&i.to_le_bytes());
            records.extend_from_slice(b"same provider, same payload shape");
            records.extend_from_slice(&(i * 7).to_le_bytes());
        }
        let packed = round_trip(&records);
        assert!(packed.len() < records.len() / 4, "{}", packed.len());
    }

    #[test]
    fn every_length_form_and_the_shared_nibble() {
        // Lengths at each boundary of the 3-bit, nibble, byte, u16 and u32 forms, each made
        // one match by a distinct prefix; two long matches in a row share one nibble byte.
        for length in [
            3, 9, 10, 11, 24, 25, 26, 279, 280, 281, 65_537, 65_538, 65_539, 70_000,
        ] {
            let mut data = b"XY".to_vec();
            data.extend(std::iter::repeat_n(b'z', length + 1));
            round_trip(&data);
        }
        // Two consecutive long matches: the second one's length lives in the first one's
        // nibble byte's high half.
        let mut data = vec![b'a'; 20];
        data.extend_from_slice(b"bcd");
        data.extend(std::iter::repeat_n(b'b', 30));
        let packed = round_trip(&data);
        // 'a', a 19-byte match (nibble 9, a new byte), "bcd", 'b'... then a long match of
        // 'b's whose nibble goes into the high half of that byte.
        assert_eq!(packed[7] & 0x0F, 9, "{packed:02x?}");
        assert_ne!(packed[7] >> 4, 0, "{packed:02x?}");
        // Hand-made: literal 'a', then two matches of distance 1 with lengths 10+5 and
        // 10+12: one nibble byte 0xC5 serves both.
        let flags = (0b011u32 << 29) | ((1 << 29) - 1);
        let mut s = flags.to_le_bytes().to_vec();
        s.push(b'a');
        s.extend_from_slice(&7u16.to_le_bytes());
        s.push(0xC5);
        s.extend_from_slice(&7u16.to_le_bytes());
        let out = decompress(&s, 100).unwrap();
        assert_eq!(out, vec![b'a'; 1 + 15 + 22]);
        // u32 length form: byte 255, u16 0, u32 total − 3.
        let mut s = ((0b01u32 << 30) | ((1 << 30) - 1)).to_le_bytes().to_vec();
        s.push(b'q');
        s.extend_from_slice(&7u16.to_le_bytes());
        s.extend_from_slice(&[15, 255, 0, 0]);
        s.extend_from_slice(&99_997u32.to_le_bytes());
        assert_eq!(decompress(&s, 100_001).unwrap(), vec![b'q'; 100_001]);
        assert!(decompress(&s, 100_000).is_err());
    }

    #[test]
    fn faults_name_their_offset() {
        let ok = compress(&b"abc".repeat(100));
        // A match reaching before the start: the first symbol is a match.
        let e = decompress(&[0xff, 0xff, 0xff, 0xff, 0x00, 0x00], 100).unwrap_err();
        assert_eq!(e.offset(), Some(4));
        assert!(e.to_string().contains("before the start"), "{e}");
        // Over the limit: at the match (offset 7).
        let e = decompress(&ok, 299).unwrap_err();
        assert_eq!(e.offset(), Some(7));
        // Cut inside the flags word, the match word, the nibble, the byte, the u16.
        for cut in [2, 8, 9, 10, 12] {
            let e = decompress(&ok[..cut], 300).unwrap_err();
            assert!(matches!(e, Error::Truncated { .. }), "cut {cut}: {e}");
        }
        // Cut at symbol boundaries: a shorter output, no error.
        assert_eq!(decompress(&ok[..4], 300).unwrap(), b"");
        assert_eq!(decompress(&ok[..6], 300).unwrap(), b"ab");
        // An extended length below 22.
        let mut bad = ok.clone();
        bad[11] = 21;
        bad[12] = 0;
        let e = decompress(&bad, 1000).unwrap_err();
        assert!(e.to_string().contains("below the minimum"), "{e}");
        // The largest u32 length neither wraps nor allocates: it is over any limit.
        let mut s = ((0b01u32 << 30) | ((1 << 30) - 1)).to_le_bytes().to_vec();
        s.push(b'q');
        s.extend_from_slice(&7u16.to_le_bytes());
        s.extend_from_slice(&[15, 255, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        let e = decompress(&s, 1 << 20).unwrap_err();
        assert_eq!(e.offset(), Some(5));
        assert!(e.to_string().contains("limit"), "{e}");
        // A literal run past the limit.
        let e = decompress(&compress(b"abcdefgh"), 5).unwrap_err();
        assert_eq!(e.offset(), Some(9));
    }
}
