//! A pool buffer's bytes: the one module of this crate with `unsafe`, the only `unsafe` on the
//! kernel's side (issue 14).
//!
//! A buffer is `BufferSize` bytes, 8-byte aligned and zero-initialised, kept as
//! `UnsafeCell<u64>` words (loom's `UnsafeCell` under `--cfg etwsim_loom`, so the model checks
//! the causality of every access) and read and written as bytes: a record's header is one
//! 80-byte copy, each payload block one `copy_nonoverlapping`; the logger writes the buffer's
//! header and fill in place and lends the sink the bytes themselves, with no copy. With atomic
//! words instead (no `unsafe`) every word was a separate store and load; the measured
//! difference is in docs/ARCHITECTURE.md.
//!
//! # Why the accesses are exclusive
//!
//! Nothing here synchronises: the reservation protocol of the pool (`pool.rs`) does, and this
//! module is private to the crate (its items are `pub(crate)`, but for the [`Record`] writer the
//! pool hands out inside a reservation), so only the pool reaches the bytes, at three protocol
//! steps:
//!
//! - a [`Record`] writes one reservation's range, from the CAS that reserved it to the commit
//!   that publishes it (`AcqRel`): no other writer's range overlaps it, and the logger reads a
//!   buffer only after every reservation in it committed;
//! - [`RawBuffer::flushed`] (and `RawBuffer::copy_out`, which tests and the loom model use)
//!   writes the header and fill of a buffer the logger popped from the ready queue, then
//!   lends it to the sink: it is sealed and its writers drained, the pop's `Acquire` pairs
//!   with the commits' `Release`, and the buffer goes back to the free list only after the
//!   loan ends;
//! - [`RawBuffer::own_lines`] writes a buffer freshly taken from the free list (or grown, or
//!   evicted from the ready queue in ring mode) before its slot is installed: no writer can
//!   reach it yet, and the logger released it.
//!
//! Bounds are checked on every access: a range outside the buffer is refused (nothing is
//! copied), never undefined behaviour.

use std::marker::PhantomData;

/// A word of the buffer: std's `UnsafeCell`, or loom's under `--cfg etwsim_loom`.
type Cell = crate::sync::UnsafeCell<u64>;

/// An 8-byte-aligned, zero-initialised byte buffer, shared between the threads of a pool.
pub(crate) struct RawBuffer {
    cells: Box<[Cell]>,
}

// SAFETY: the cells are only accessed through the methods below, each at a protocol step that
// makes its range exclusive to the calling thread (the module documentation lists them); the
// pool's atomics order those steps. `Send` follows from `UnsafeCell<u64>: Send`.
unsafe impl Sync for RawBuffer {}

impl RawBuffer {
    /// `bytes` zero bytes (rounded down to whole words).
    pub(crate) fn new(bytes: u64) -> RawBuffer {
        RawBuffer {
            cells: (0..bytes / 8).map(|_| Cell::new(0)).collect(),
        }
    }

    /// The buffer's length in bytes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.cells.len() * 8
    }

    /// `[at, at + len)` if it lies inside the buffer.
    #[inline]
    fn fits(&self, at: usize, len: usize) -> bool {
        at.checked_add(len).is_some_and(|end| end <= self.len())
    }

    /// The writer of a reservation's range `[at, at + len)` (`at` and `len` multiples of 8);
    /// empty — every write refused — if the range is not inside the buffer or not aligned.
    ///
    /// The caller holds the reservation of that range, not yet committed.
    #[inline]
    pub(crate) fn record(&self, at: usize, len: usize) -> Record<'_> {
        let (at, len) = if self.fits(at, len) && (at | len) % 8 == 0 {
            (at, len)
        } else {
            (0, 0)
        };
        Record {
            buf: self,
            start: at,
            at,
            end: at + len,
            _not_send: PhantomData,
        }
    }

    /// Writes a whole record into the reservation `[at, at + len)` (as for
    /// [`RawBuffer::record`]): the words of `head` (little-endian), then `payload`, then zeros
    /// to the end. `false`, and nothing written, if the range is not inside the buffer, not
    /// aligned, or shorter than `head` and `payload`.
    ///
    /// The caller holds the reservation of that range, not yet committed.
    #[inline(always)]
    pub(crate) fn write_record<const N: usize>(
        &self,
        at: usize,
        len: usize,
        head: &[u64; N],
        payload: &[u8],
    ) -> bool {
        let body = payload.len().saturating_add(8 * N);
        if !(self.fits(at, len) && (at | len) % 8 == 0 && body <= len) {
            return false;
        }
        // Every range below is inside `[at, at + len)`, checked above, as `write_words_in`,
        // `write_in`, `pad_word_in` and `zero_in` require.
        self.write_words_in(at, head);
        if !payload.is_empty() {
            self.write_in(at + 8 * N, payload);
        }
        let end = at + body;
        if end % 8 != 0 {
            // `len` is a multiple of 8 and `body <= len`: the word holding `end` is inside.
            self.pad_word_in(end);
        }
        let padded = (end + 7) & !7;
        if padded < at + len {
            self.zero_in(padded, at + len - padded);
        }
        true
    }

    /// Copies `[at, at + out.len())` into `out`; `false` (nothing copied) if that range is
    /// not inside the buffer.
    ///
    /// The caller is the logger holding the buffer it popped from the ready queue (sealed,
    /// every writer committed).
    #[cfg(any(test, etwsim_loom))]
    pub(crate) fn copy_out(&self, at: usize, out: &mut [u8]) -> bool {
        if !self.fits(at, out.len()) {
            return false;
        }
        // In pieces of at most 2 KB: glibc copies larger blocks with `rep movsb`, which
        // valgrind counts (and callgrind's instruction counts report) one byte at a time; its
        // vector loop for these sizes is as fast on the CPU.
        #[cfg(not(etwsim_loom))]
        for (k, piece) in out.chunks_mut(2048).enumerate() {
            // SAFETY: `[at, at + out.len())` is inside the buffer (checked above), so is each
            // piece of it, and `out` is a distinct, exclusively borrowed allocation. The
            // buffer was popped from the ready queue: it is sealed and every writer committed
            // (`AcqRel`) before the push the pop's `Acquire` pairs with, so no thread writes
            // these bytes while they are read.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.base().add(at + k * 2048),
                    piece.as_mut_ptr(),
                    piece.len(),
                );
            }
        }
        #[cfg(etwsim_loom)]
        for (k, byte) in out.iter_mut().enumerate() {
            let i = at + k;
            // SAFETY: loom's read access (checked for causality) of an in-bounds word; the
            // pointer is valid for the closure's duration.
            *byte = self.cells[i / 8].with(|p| unsafe { *p }).to_le_bytes()[i % 8];
        }
        true
    }

    /// The buffer as the logger writes it out, in place: `header` over its first bytes and
    /// `fill` from `used` (clamped to `[header.len(), len()]`) to the end, then every byte of
    /// it, borrowed. No copy: the sink reads the pool's buffer, as Windows' logger thread
    /// writes the buffer itself to the log file.
    ///
    /// The caller is the logger holding the buffer it popped from the ready queue (sealed,
    /// every writer committed), and holds it until the slice is gone: the pool ties the slice's
    /// borrow to its `Ready`, which the buffer's release consumes.
    #[cfg(not(etwsim_loom))]
    pub(crate) fn flushed(&self, header: &[u8], used: usize, fill: u8) -> &[u8] {
        let len = self.len();
        let head = header.len().min(len);
        let used = used.clamp(head, len);
        // SAFETY: `[0, head)` and `[used, len)` are inside the buffer, and the slice covers
        // exactly its `len()` bytes, all initialised (zeroed at allocation). The buffer was
        // popped from the ready queue: it is sealed and every writer committed (`AcqRel`)
        // before the push the pop's `Acquire` pairs with; no writer can reserve in a sealed
        // buffer, and none can take it before its release, which the caller does only after
        // the slice is gone. So the stores below race with nothing, and no thread writes the
        // bytes while the shared slice lives. `header` is a caller's slice, never this
        // buffer's bytes, so the copy does not overlap.
        unsafe {
            let base = self.base();
            std::ptr::copy_nonoverlapping(header.as_ptr(), base, head);
            std::ptr::write_bytes(base.add(used), fill, len - used);
            std::slice::from_raw_parts(base.cast_const(), len)
        }
    }

    /// Takes every cache line of the buffer into the caller's cache, one store of 0 into the
    /// first word of each 64-byte line (see `own_lines` in `pool.rs` for why).
    ///
    /// The caller has just taken the buffer (free list, growth, or ring-mode eviction) and
    /// not yet installed it in a slot.
    pub(crate) fn own_lines(&self) {
        for cell in self.cells.iter().step_by(8) {
            #[cfg(not(etwsim_loom))]
            // SAFETY: `cell` is a word of this buffer, valid for writes through its
            // `UnsafeCell`. The buffer is the caller's alone: taken from the free list (the
            // logger released it after reading), grown, or evicted from the ready queue, and
            // not yet installed in a slot, so no writer or logger can reach it.
            unsafe {
                cell.get().write(0);
            }
            #[cfg(etwsim_loom)]
            // SAFETY: loom's write access (checked for causality) of an in-bounds word.
            cell.with_mut(|p| unsafe { p.write(0) });
        }
    }

    /// The first byte of the buffer, valid for reads and writes of `len()` bytes through the
    /// cells' `UnsafeCell`s.
    #[cfg(not(etwsim_loom))]
    #[inline(always)]
    fn base(&self) -> *mut u8 {
        Cell::raw_get(self.cells.as_ptr()).cast::<u8>()
    }

    /// Copies `src` to `[at, at + src.len())`, which the caller checked is inside the buffer
    /// and inside its reservation.
    #[inline(always)]
    fn write_in(&self, at: usize, src: &[u8]) {
        debug_assert!(self.fits(at, src.len()));
        #[cfg(not(etwsim_loom))]
        // SAFETY: `[at, at + src.len())` is inside the buffer and inside the caller's
        // reservation (`Record` checks both), not yet committed: no other writer's range
        // overlaps it and the logger does not read the buffer until the commit. `src` is a
        // caller's slice, never this buffer's bytes (they are only reachable through raw
        // pointers), so the ranges do not overlap. Every access below stays inside both.
        unsafe {
            let (s, d, n) = (src.as_ptr(), self.base().add(at), src.len());
            // Up to 64 bytes inline (overlapping moves of the head and the tail), longer
            // blocks through `memcpy`: a call costs more than a short record or payload.
            if (8..=16).contains(&n) {
                head_and_tail::<8>(s, d, n);
            } else if (17..=32).contains(&n) {
                head_and_tail::<16>(s, d, n);
            } else if (33..=64).contains(&n) {
                head_and_tail::<32>(s, d, n);
            } else if n < 8 {
                for k in 0..n {
                    d.add(k).write(s.add(k).read());
                }
            } else {
                std::ptr::copy_nonoverlapping(s, d, n);
            }
        }
        #[cfg(etwsim_loom)]
        for (k, &byte) in src.iter().enumerate() {
            let i = at + k;
            // SAFETY: loom's write access (checked for causality) of an in-bounds word.
            self.cells[i / 8].with_mut(|p| unsafe {
                let mut w = p.read().to_le_bytes();
                w[i % 8] = byte;
                p.write(u64::from_le_bytes(w));
            });
        }
    }

    /// Stores `words` as little-endian bytes at `at` (a multiple of 8), which the caller
    /// checked as in [`RawBuffer::write_in`]: one store per word, no copy through the stack.
    #[inline(always)]
    fn write_words_in(&self, at: usize, words: &[u64]) {
        debug_assert!(at % 8 == 0 && self.fits(at, words.len() * 8));
        #[cfg(not(etwsim_loom))]
        for (k, w) in words.iter().enumerate() {
            // SAFETY: as in `write_in`: the word `[at + 8k, at + 8k + 8)` is inside the buffer
            // and the caller's uncommitted reservation; `at` is a multiple of 8 and the
            // buffer is 8-byte aligned, so the word pointer is aligned.
            unsafe {
                self.base().add(at + 8 * k).cast::<u64>().write(w.to_le());
            }
        }
        #[cfg(etwsim_loom)]
        for (k, w) in words.iter().enumerate() {
            self.write_in(at + 8 * k, &w.to_le_bytes());
        }
    }

    /// Zeroes `[at, next multiple of 8)` (`at` not a multiple of 8), checked by the caller as
    /// in [`RawBuffer::write_in`]: the word holding `at` is inside the reservation (whose
    /// ends are multiples of 8), its bytes before `at` are the record's and stay.
    #[inline(always)]
    fn pad_word_in(&self, at: usize) {
        debug_assert!(at % 8 != 0 && self.fits(at & !7, 8));
        let keep = (1u64 << (8 * (at % 8))) - 1;
        #[cfg(not(etwsim_loom))]
        // SAFETY: the word `[at & !7, (at & !7) + 8)` is inside the buffer and the caller's
        // uncommitted reservation (checked by `Record::pad8`), aligned (the buffer is 8-byte
        // aligned); its bytes before `at` were written by this record's writer.
        unsafe {
            let w = self.base().add(at & !7).cast::<u64>();
            w.write((u64::from_le(w.read()) & keep).to_le());
        }
        #[cfg(etwsim_loom)]
        self.zero_in(at, 8 - at % 8);
        let _ = keep;
    }

    /// Zeroes `[at, at + len)`, checked by the caller as in [`RawBuffer::write_in`].
    #[inline(always)]
    fn zero_in(&self, at: usize, len: usize) {
        debug_assert!(self.fits(at, len));
        #[cfg(not(etwsim_loom))]
        // SAFETY: as in `write_in`: inside the buffer and the caller's uncommitted reservation.
        unsafe {
            std::ptr::write_bytes(self.base().add(at), 0, len);
        }
        #[cfg(etwsim_loom)]
        for i in at..at + len {
            // SAFETY: loom's write access (checked for causality) of an in-bounds word.
            self.cells[i / 8].with_mut(|p| unsafe {
                let mut w = p.read().to_le_bytes();
                w[i % 8] = 0;
                p.write(u64::from_le_bytes(w));
            });
        }
    }
}

/// Copies `n` bytes from `s` to `d` (`K <= n <= 2K`) as two moves of `K` bytes, the head and
/// the tail, overlapping when `n < 2K`: no loop, no call.
///
/// # Safety
///
/// `s` is valid for reads and `d` for writes of `n` bytes, and the two ranges do not overlap.
#[cfg(not(etwsim_loom))]
#[inline(always)]
unsafe fn head_and_tail<const K: usize>(s: *const u8, d: *mut u8, n: usize) {
    debug_assert!(K <= n && n <= 2 * K);
    // SAFETY: `[0, K)` and `[n - K, n)` lie inside `[0, n)` since `K <= n`; the caller
    // guarantees both pointers are valid for `n` bytes and the ranges are disjoint.
    // `read_unaligned` / `write_unaligned` need no alignment.
    unsafe {
        d.cast::<[u8; K]>()
            .write_unaligned(s.cast::<[u8; K]>().read_unaligned());
        d.add(n - K)
            .cast::<[u8; K]>()
            .write_unaligned(s.add(n - K).cast::<[u8; K]>().read_unaligned());
    }
}

/// Writes one record into its reservation, front to back: every write lands at the cursor
/// and is cut at the reservation's end (the part past it is refused), so a record never
/// reaches another's bytes. Reached through a [`Reserved`](crate::Reserved).
pub struct Record<'a> {
    buf: &'a RawBuffer,
    start: usize,
    at: usize,
    end: usize,
    /// A record is written by the thread that reserved it.
    _not_send: PhantomData<*mut u8>,
}

impl Record<'_> {
    /// The record's byte offset in its buffer ([`HEADER`](crate::HEADER) for a buffer's first
    /// record).
    #[inline]
    pub fn offset(&self) -> u64 {
        self.start as u64
    }

    /// Bytes left in the reservation after the cursor.
    #[inline]
    pub fn room(&self) -> usize {
        self.end - self.at
    }

    /// Appends `bytes` (as much of them as the reservation has room for).
    #[inline(always)]
    pub fn put(&mut self, bytes: &[u8]) {
        let n = if bytes.len() <= self.room() {
            bytes.len()
        } else {
            self.room()
        };
        self.buf.write_in(self.at, &bytes[..n]);
        self.at += n;
    }

    /// Appends words as their little-endian bytes (a record's header), at a multiple of 8
    /// bytes; as many whole words as the reservation has room for.
    #[inline(always)]
    pub fn put_words(&mut self, words: &[u64]) {
        if self.at % 8 != 0 {
            self.pad8();
        }
        if words.len() * 8 <= self.room() {
            // The whole header: a copy of constant length once inlined, no `memcpy` call.
            self.buf.write_words_in(self.at, words);
            self.at += 8 * words.len();
        } else {
            self.put_words_cut(words);
        }
    }

    /// [`Record::put_words`] past the reservation's end: the words that fit.
    #[cold]
    #[inline(never)]
    fn put_words_cut(&mut self, words: &[u64]) {
        for w in words.iter().take(self.room() / 8) {
            self.buf.write_words_in(self.at, &[*w]);
            self.at += 8;
        }
    }

    /// Zero-pads to the next multiple of 8 bytes (the reservation's ends are multiples of 8,
    /// so the padding is inside it).
    #[inline(always)]
    pub fn pad8(&mut self) {
        if self.at % 8 != 0 {
            self.buf.pad_word_in(self.at);
            self.at = (self.at | 7) + 1;
        }
    }

    /// Zero-fills the rest of the reservation: a committed record never shows a recycled
    /// buffer's old bytes.
    #[inline(always)]
    pub(crate) fn pad_to_end(&mut self) {
        if self.at != self.end {
            self.buf.zero_in(self.at, self.end - self.at);
            self.at = self.end;
        }
    }
}

#[cfg(all(test, not(etwsim_loom)))]
mod tests {
    use super::*;

    /// `n` rounded up to a multiple of 8 (a record's padded length).
    fn align8(n: usize) -> usize {
        (n + 7) & !7
    }

    fn bytes(buf: &RawBuffer) -> Vec<u8> {
        let mut out = vec![0xAA; buf.len()];
        assert!(buf.copy_out(0, &mut out));
        out
    }

    #[test]
    fn is_zeroed_and_8_byte_aligned() {
        let buf = RawBuffer::new(256);
        assert_eq!(buf.len(), 256);
        assert_eq!(buf.cells.as_ptr() as usize % 8, 0);
        assert!(bytes(&buf).iter().all(|&b| b == 0));
        assert_eq!(RawBuffer::new(13).len(), 8, "whole words only");
    }

    #[test]
    fn out_of_bounds_ranges_are_refused() {
        let buf = RawBuffer::new(64);
        for (at, len) in [(64, 8), (56, 16), (usize::MAX - 7, 16), (4, 8), (8, 12)] {
            let mut r = buf.record(at, len);
            assert_eq!(r.room(), 0, "[{at}, +{len}) refused");
            r.put(&[1; 16]);
            r.pad8();
            r.pad_to_end();
        }
        assert!(bytes(&buf).iter().all(|&b| b == 0), "nothing written");
        let mut out = [0u8; 16];
        assert!(!buf.copy_out(56, &mut out));
        assert!(!buf.copy_out(usize::MAX, &mut out));
        assert_eq!(out, [0; 16], "nothing copied");
        // A record is cut at its reservation's end, not the buffer's.
        let mut r = buf.record(8, 16);
        r.put(&[7; 40]);
        assert_eq!(r.room(), 0);
        let b = bytes(&buf);
        assert_eq!(&b[8..24], &[7; 16]);
        assert!(b[..8].iter().chain(&b[24..]).all(|&b| b == 0));
    }

    #[test]
    fn odd_lengths_round_trip_with_their_padding() {
        let buf = RawBuffer::new(128);
        for len in 0..=40 {
            // Stale bytes first: padding must overwrite them.
            buf.record(16, 48).put(&[0xEE; 48]);
            let data: Vec<u8> = (0..len).map(|i| i as u8 + 1).collect();
            let mut r = buf.record(16, align8(len) + 8);
            assert_eq!(r.offset(), 16);
            r.put_words(&[u64::from_le_bytes(*b"headword")]);
            r.put(&data);
            r.pad8();
            assert_eq!(r.room(), 0, "{len}: the record fills its reservation");
            let mut want = b"headword".to_vec();
            want.extend(&data);
            want.resize(8 + align8(len), 0);
            let mut got = vec![0; want.len()];
            assert!(buf.copy_out(16, &mut got));
            assert_eq!(got, want, "{len} bytes");
            // pad_to_end zeroes what a short record left.
            let mut r = buf.record(16, 48);
            r.put(&data[..len.min(3)]);
            r.pad_to_end();
            let b = bytes(&buf);
            assert_eq!(&b[16..16 + len.min(3)], &data[..len.min(3)]);
            assert!(b[16 + len.min(3)..64].iter().all(|&b| b == 0), "{len}");
        }
    }
}
