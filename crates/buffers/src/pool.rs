//! A session's buffer pool: per-CPU in-use buffers, lock-free reservation, switching, growth
//! up to MaximumBuffers, loss beyond it, and BUFFERING mode's ring (BUF-01…BUF-11).
//!
//! # Buffers
//!
//! A buffer is `BufferSize` bytes, 8-byte aligned ([`RawBuffer`], this crate's one module
//! with `unsafe`: its accesses are made exclusive by the protocol below). Records are
//! 8-byte aligned and padded (BUF-15). The first 0x48 bytes are the `WMI_BUFFER_HEADER`,
//! which the logger writes in place, with the fill of the unused tail, when the buffer is
//! flushed ([`BufferPool::flushed`]); the sink then reads the buffer itself, not a copy.
//!
//! # The reservation protocol
//!
//! Each buffer has one atomic `state` word:
//!
//! | bits | field | meaning |
//! |---|---|---|
//! | 0–24 | offset | bytes reserved so far, header included |
//! | 25–39 | writers | reservations not yet committed |
//! | 40 | sealed | no new reservations; flush when writers reach 0 |
//! | 41–63 | generation | bumped each time the buffer is recycled |
//!
//! Each CPU slot holds `generation << 16 | index + 1` of its in-use buffer (0: none). A writer
//! loads the slot, then the buffer's state, and reserves with one CAS that adds its length to
//! the offset and one to the writers — only if the generation still matches the slot's and
//! the buffer is not sealed, so a writer holding a stale slot value can never write into a
//! recycled buffer. A record that does not fit seals the buffer and detaches it from the
//! slot (BUF-03); the next attempt installs a free buffer, or grows the pool up to
//! MaximumBuffers (BUF-04), or fails: the caller counts the event as lost (EVT-07).
//!
//! Committing subtracts one writer with `AcqRel`. Exactly one party sees "sealed and no
//! writers": the sealer, if no writer was in flight when it sealed, or else the last writer to
//! commit. That party pushes the buffer onto the ready queue; the logger pops it (its
//! `Acquire` pairs with every writer's `Release`), writes it out and recycles it.
//!
//! Buffers reach the logger in the order they become ready, not the order they were
//! installed: a buffer sealed while another writer is still in it, or sealed by a flush that
//! is preempted before queueing it, can be overtaken by the CPU's next buffer, so one thread's
//! records may be delivered out of order across buffers (BUF-11; consumers sort by
//! timestamp). Within one buffer records are in reservation order.
//!
//! The protocol is model-checked with loom (`loom_tests` below, run under
//! `--cfg etwsim_loom`), including variants with deliberate bugs the model must catch.
//!
//! Who writes what: `state` — writers (reserve, commit), sealers, the logger (recycle);
//! slots — writers (install, detach) and flushers (detach); `bytes` — the owner of a
//! reservation (its range only, through [`BufferPool::record`]'s [`Reserved`]), the installer
//! (before the slot is set, `own_lines`) and the logger (reads, after the buffer is ready,
//! through a [`Ready`]).

use crate::doorbell::Doorbell;
use crate::raw::{RawBuffer, Record};
use crate::sync::{AtomicU32, AtomicU64, FreeList, IndexQueue, Ordering};
use crossbeam::utils::CachePadded;
use std::sync::OnceLock;

/// `sizeof(WMI_BUFFER_HEADER)`: the bytes at the start of every buffer that the logger fills
/// in when it writes the buffer out ([`BufferPool::flushed`]); records start after them.
pub const HEADER: u64 = 0x48;
const OFFSET_MASK: u64 = (1 << 25) - 1;
const WRITER_ONE: u64 = 1 << 25;
const WRITERS_MASK: u64 = ((1 << 15) - 1) << 25;
const SEALED: u64 = 1 << 40;
const GEN_SHIFT: u32 = 41;

#[inline(always)]
fn offset(st: u64) -> u64 {
    st & OFFSET_MASK
}
#[inline(always)]
fn writers(st: u64) -> u64 {
    (st & WRITERS_MASK) >> 25
}
#[inline(always)]
fn generation(st: u64) -> u64 {
    st >> GEN_SHIFT
}

/// A deliberate protocol bug the loom model runs the pool with, to prove the model catches
/// it (see `loom_tests`). Exists only under `--cfg etwsim_loom`.
#[cfg(etwsim_loom)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bug {
    /// The real protocol.
    None,
    /// Commit with `Relaxed` instead of `AcqRel`: a record's bytes are not published (loom
    /// sees the logger's read of them race with the writer's copy).
    RelaxedCommit,
    /// A sealer pushes the buffer to the ready queue even though writers are still in it.
    SealerIgnoresWriters,
    /// A writer does not compare the slot's generation with the buffer's.
    NoGenerationCheck,
    /// A record's writer is handed its reservation plus the next word: its padding
    /// overwrites the bytes of the next record (a data race on the buffer's cells).
    RecordOverrun,
}

/// `true` when the pool runs with the deliberate bug `$bug` — only ever under loom; a
/// constant `false` (no code, no field) in every other build.
#[cfg(etwsim_loom)]
macro_rules! injected {
    ($pool:expr, $bug:ident) => {
        $pool.bug == Bug::$bug
    };
}
#[cfg(not(etwsim_loom))]
macro_rules! injected {
    ($pool:expr, $bug:ident) => {
        false
    };
}

/// One CPU slot of a pool.
struct PerCpu {
    /// The in-use buffer: `(generation tag << 16) | (index + 1)`, 0 for none.
    slot: AtomicU64,
    /// Writes in progress on this slot, from the running check to the commit: STOP waits for
    /// them to reach zero before its final flush, so no write that saw the session running
    /// lands after the last flush. `SeqCst` on both sides (a Dekker handshake with the
    /// session's state word).
    active: AtomicU32,
}

/// One buffer: its reservation state and its bytes.
pub(crate) struct Buffer {
    state: AtomicU64,
    /// Allocated when the pool first hands the buffer out (growth, BUF-04).
    bytes: OnceLock<RawBuffer>,
    /// The CPU slot the buffer was last installed in (its header's ProcessorIndex).
    cpu: AtomicU32,
}

impl Buffer {
    /// A buffer whose bytes are allocated now (`eager`, used by the loom model so every
    /// cell exists before the threads start) or on first use.
    fn new(size: u64, eager: bool) -> Buffer {
        let bytes = OnceLock::new();
        if eager {
            let _ = bytes.set(RawBuffer::new(size));
        }
        Buffer {
            state: AtomicU64::new(HEADER),
            bytes,
            cpu: AtomicU32::new(0),
        }
    }

    #[inline]
    fn bytes(&self) -> &RawBuffer {
        self.bytes
            .get()
            .expect("a buffer is allocated before it is handed out")
    }
}

/// Takes every cache line of a buffer the installing writer is about to fill into its own
/// cache, one plain store per 64-byte line ([`RawBuffer::own_lines`]), before any record is
/// reserved in it.
///
/// The logger thread read the buffer last, usually on another CPU. Without this, each record's
/// first store misses on a line the logger's core holds, and the record's commit — a locked
/// instruction — waits for that miss: one cross-core round trip per record, serialised. Here
/// the misses come back to back, with no locked instruction between them, so the CPU
/// overlaps them. The buffer is the installer's alone until its slot is set (taken from the
/// free list, or a new one), and every word stored here is overwritten by a record or by the
/// logger's header and fill, so the stores change nothing anyone reads.
///
/// Under loom every install does it (there is no logger thread to race), so the model checks
/// that the buffer really is the installer's alone at that point.
#[inline(never)]
fn own_lines(bytes: &RawBuffer) {
    bytes.own_lines();
}

/// Why a reservation failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReserveError {
    /// The record can never fit in one buffer (EVT-06: `ERROR_MORE_DATA`).
    TooBig,
    /// No free buffer and the pool is at MaximumBuffers (EVT-07: `ERROR_NOT_ENOUGH_MEMORY`).
    NoBuffer,
    /// The pool belongs to a single-threaded kernel and the caller is another OS thread
    /// (`ERROR_INVALID_THREAD_ID`).
    WrongThread,
}

/// A reserved, not yet committed, range of a buffer: made only by the pool's reservation, and
/// the proof that `[offset, offset + len)` of buffer `index` is its holder's alone until
/// [`BufferPool::commit`] consumes it. Private to this module.
struct Reservation {
    index: u32,
    /// Byte offset of the record in the buffer (multiple of 8; a buffer is at most 16 MB).
    /// 32 bits, so a `Result<Reservation, _>` comes back in registers.
    offset: u32,
    /// The reserved length in bytes.
    len: u32,
}

/// A record being written ([`BufferPool::record`]): its reservation (the proof that the range
/// is the holder's alone) and the [`Record`] writing it. Dropping it zero-fills the rest of the
/// range and commits.
pub struct Reserved<'a> {
    pool: &'a BufferPool,
    /// Committed by `drop`, once.
    reservation: Reservation,
    record: Record<'a>,
}

impl<'a> std::ops::Deref for Reserved<'a> {
    type Target = Record<'a>;
    #[inline(always)]
    fn deref(&self) -> &Record<'a> {
        &self.record
    }
}

impl<'a> std::ops::DerefMut for Reserved<'a> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Record<'a> {
        &mut self.record
    }
}

impl Drop for Reserved<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // Under loom a panic here is a failed model (e.g. a data race caught at a write):
        // touching loom's cells or atomics while unwinding would panic again and abort.
        #[cfg(etwsim_loom)]
        if std::thread::panicking() {
            return;
        }
        self.record.pad_to_end();
        self.pool.commit(&self.reservation);
    }
}

/// A buffer the logger popped from the ready queue ([`BufferPool::pop_ready`]): sealed, every
/// writer committed. Write it out with [`BufferPool::flushed`], then give it back with
/// [`BufferPool::release`].
pub struct Ready {
    index: u32,
    /// The pool that popped it (its address): only that pool lends its bytes.
    pool: usize,
    /// The CPU slot it was filled on (its header's ProcessorIndex).
    pub cpu: u16,
    /// The bytes used, header included.
    pub used: u64,
}

/// A session's buffers: per-CPU in-use buffers, a free list, a ready (flush) queue, growth up
/// to MaximumBuffers and BUFFERING mode's ring.
pub struct BufferPool {
    /// Bytes per buffer (BufferSize × 1024).
    size: u64,
    /// MaximumBuffers (UPDATE may change it, SES-77).
    max: AtomicU32,
    /// Buffers handed out so far (NumberOfBuffers).
    allocated: AtomicU32,
    /// Shared with the owner thread's [`OwnerHandle`] of a single-threaded pool (an `Arc`
    /// costs the shared path nothing: its counts sit before the slice).
    buffers: std::sync::Arc<[Buffer]>,
    free: FreeList,
    /// Sealed and drained buffers, oldest first: the flush queue.
    ready: IndexQueue,
    /// Per CPU slot: the in-use buffer and the writes in progress (one line each, indexed once
    /// per write).
    cpus: Box<[CachePadded<PerCpu>]>,
    /// BUFFERING mode: a fixed ring; when no buffer is free the oldest ready one is reused.
    ring: bool,
    /// Wakes the logger when a buffer becomes ready (threaded mode) and the doorbell says so.
    waker: OnceLock<Box<dyn Fn() + Send + Sync>>,
    /// When a ready buffer wakes the logger thread (threaded mode; the logger thread reads
    /// and announces through it).
    pub doorbell: Doorbell,
    /// A single-threaded kernel's OS thread ([`os_thread`]): the only one that may reserve,
    /// seal or write through an [`Owned`] (see "The single-threaded pool" below). 0: any
    /// thread.
    owner: u64,
    /// The loom model's deliberate bug (`Bug::None` unless a test sets another).
    #[cfg(etwsim_loom)]
    bug: Bug,
}

/// The owner thread's hold on a single-threaded pool's buffers ([`BufferPool::cursor`]):
/// made only on that thread, and not `Send`, so whoever holds one is the pool's owner (which
/// never changes). It keeps the buffers alive, and writes records after a [`Cursor`].
pub struct OwnerHandle {
    buffers: std::sync::Arc<[Buffer]>,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl OwnerHandle {
    /// Opens the range after `at` for one record of `len` bytes: `Some` when the buffer's
    /// state is still `at.state` — nothing reserved in it, sealed it or recycled it since
    /// the cursor was made. A record written through the returned [`Owned`] is the one a
    /// reservation of `len` bytes at that offset would have written.
    #[inline(always)]
    pub fn open(&self, at: Cursor, len: u64) -> Option<Owned<'_>> {
        let buffer = self.buffers.get(at.index as usize)?;
        if buffer.state.load(Ordering::Relaxed) != at.state {
            return None;
        }
        Some(Owned {
            buffer,
            at,
            len,
            _not_send: std::marker::PhantomData,
        })
    }
}

/// A single-threaded pool's in-use buffer of one CPU slot, as its owner last left it: the
/// buffer's index and its state word ([`BufferPool::cursor`], [`Owned::write`]). Its
/// fields are this module's: a cursor's state is always one with no writer in flight and
/// no seal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    index: u32,
    state: u64,
}

impl Cursor {
    /// A cursor no buffer matches (the index of none).
    pub const NONE: Cursor = Cursor {
        index: u32::MAX,
        state: 0,
    };
}

/// One record's range in a single-threaded pool, opened by [`OwnerHandle::open`]: the proof
/// that the calling OS thread owns the pool and that nothing was reserved after the cursor.
/// Not `Send`: it is written on the thread that opened it.
///
/// # The single-threaded pool
///
/// The pool of a single-threaded kernel (`KernelBuilder::single_threaded`) has an `owner`,
/// the OS thread that built the kernel. Every path that reaches its buffers' bytes or moves
/// their state — reservation ([`BufferPool::record`], [`BufferPool::write_record`]), sealing
/// ([`BufferPool::seal_all`], [`BufferPool::seal_if_full`]), the logger's pop
/// ([`BufferPool::pop_ready`]) and the owner's [`OwnerHandle`] — checks that the caller is
/// the owner, and refuses (or does nothing) otherwise. So one OS thread does everything to the buffers, in
/// program order, and a record needs neither a CAS nor a writers count: [`Owned::write`]
/// writes the bytes after the offset with plain stores and moves the offset with one store.
/// The state word stays what the shared protocol above would leave (offset + `len`, no
/// writer), so the reservation protocol, the seal and the logger take over from it as from
/// any committed record.
pub struct Owned<'a> {
    buffer: &'a Buffer,
    at: Cursor,
    len: u64,
    _not_send: std::marker::PhantomData<*mut u8>,
}

impl Owned<'_> {
    /// Writes the record — the words of `head` (little-endian), `payload`, zeros to `len` —
    /// and publishes it (the state word moves past it, `Release`). Returns the cursor after
    /// it; `None`, with nothing written, if the record does not fit in the buffer, `len` is
    /// not a multiple of 8, or `head` and `payload` take more than `len` bytes.
    #[inline(always)]
    pub fn write<const N: usize>(self, head: &[u64; N], payload: &[u8]) -> Option<Cursor> {
        let Owned {
            buffer, at, len, ..
        } = self;
        if !buffer
            .bytes()
            .write_record(offset(at.state) as usize, len as usize, head, payload)
        {
            return None;
        }
        let state = at.state + len;
        buffer.state.store(state, Ordering::Release);
        Some(Cursor { state, ..at })
    }
}

/// This OS thread's number: unique in the process, never 0, fixed for the thread's life (the
/// owner of a single-threaded pool, [`BufferPool::owned_by`], and of its kernel). `std`'s
/// `ThreadId` would do, but reading it clones the thread's handle; this is one thread-local
/// load.
#[inline(always)]
pub fn os_thread() -> u64 {
    // std's atomic, also under loom: a process-wide counter outside any model (the models'
    // pools have no owner and never ask).
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    thread_local! {
        static ME: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }
    // A thread whose locals are gone has no number: 0, which owns nothing.
    ME.try_with(|me| match me.get() {
        0 => {
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            me.set(n);
            n
        }
        n => n,
    })
    .unwrap_or(0)
}

/// The outcome of [`BufferPool::commit`]: whether the logger has work now.
type Committed = bool;

impl BufferPool {
    /// A pool of `min` buffers allocated now (BUF-01), growing to at most `cap` (the largest
    /// MaximumBuffers UPDATE may set), with `cpus` in-use slots; `ring` for BUFFERING mode's
    /// ring (BUF-09).
    pub fn new(
        buffer_size: u64,
        min: u32,
        max: u32,
        cap: u32,
        cpus: usize,
        ring: bool,
    ) -> BufferPool {
        let cap = cap.max(max).max(min);
        let pool = BufferPool {
            size: buffer_size,
            max: AtomicU32::new(max.max(min)),
            allocated: AtomicU32::new(0),
            buffers: (0..cap)
                .map(|_| Buffer::new(buffer_size, cfg!(etwsim_loom)))
                .collect(),
            free: FreeList::new(cap as usize),
            ready: IndexQueue::new(cap as usize),
            cpus: (0..cpus.max(1))
                .map(|_| {
                    CachePadded::new(PerCpu {
                        slot: AtomicU64::new(0),
                        active: AtomicU32::new(0),
                    })
                })
                .collect(),
            ring,
            waker: OnceLock::new(),
            doorbell: Doorbell::new(),
            owner: 0,
            #[cfg(etwsim_loom)]
            bug: Bug::None,
        };
        for _ in 0..min {
            if let Some(i) = pool.grow() {
                pool.free.push(i).expect("capacity covers every buffer");
            }
        }
        pool
    }

    /// The pool of a single-threaded kernel owned by OS thread `owner` (`None`: shared).
    pub fn owned_by(mut self, owner: Option<u64>) -> BufferPool {
        self.owner = owner.unwrap_or(0);
        self
    }

    /// `true` when the calling OS thread may not touch this pool's buffers: the pool has an
    /// owner and it is another thread.
    #[inline(always)]
    fn foreign(&self) -> bool {
        self.owner != 0 && self.owner != os_thread()
    }

    /// Bytes per buffer.
    #[inline]
    pub fn buffer_size(&self) -> u64 {
        self.size
    }

    /// The largest record a buffer can take.
    #[inline]
    pub fn capacity(&self) -> u64 {
        self.size - HEADER
    }

    /// Sets MaximumBuffers (UPDATE, SES-77): never below the buffers already allocated, nor
    /// above the pool's cap.
    pub fn set_max(&self, max: u32) {
        let max = max
            .max(self.allocated.load(Ordering::Relaxed))
            .min(self.buffers.len() as u32);
        self.max.store(max, Ordering::Relaxed);
    }

    /// NumberOfBuffers.
    #[inline]
    pub fn allocated(&self) -> u32 {
        self.allocated.load(Ordering::Relaxed)
    }

    /// FreeBuffers.
    pub fn free_count(&self) -> u32 {
        self.free.len() as u32
    }

    /// Buffers waiting for the logger.
    #[inline]
    pub fn ready_count(&self) -> usize {
        self.ready.len()
    }

    fn grow(&self) -> Option<u32> {
        let max = self.max.load(Ordering::Relaxed);
        let i = self
            .allocated
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()?;
        if self.buffers[i as usize].bytes.get().is_none() {
            let _ = self.buffers[i as usize]
                .bytes
                .set(RawBuffer::new(self.size));
        }
        Some(i)
    }

    /// A buffer to install: a free one, a new one (growth), or in ring mode the oldest ready.
    fn take(&self) -> Option<u32> {
        if let Some(i) = self.free.pop() {
            return Some(i);
        }
        if let Some(i) = self.grow() {
            return Some(i);
        }
        if self.ring {
            // BUF-09: the oldest filled buffer is reused; its events are evicted.
            let i = self.ready.pop()?;
            self.recycle_state(i);
            return Some(i);
        }
        None
    }

    fn recycle_state(&self, i: u32) {
        let b = &self.buffers[i as usize];
        let st = b.state.load(Ordering::Acquire);
        b.state.store(
            ((generation(st) + 1) << GEN_SHIFT) | HEADER,
            Ordering::Release,
        );
    }

    /// The per-CPU slot of simulated CPU `cpu`: the CPU itself (the pool has one slot per CPU
    /// of its kernel), folded only if a caller passes a larger number — no division on the
    /// write path.
    #[inline]
    fn slot_of(&self, cpu: usize) -> usize {
        let n = self.cpus.len();
        if cpu < n { cpu } else { cpu % n }
    }

    /// Reserves `len` bytes (a multiple of 8) in `cpu`'s in-use buffer.
    ///
    /// The common case — the slot names a current, unsealed buffer with room, and the CAS
    /// succeeds at the first try — is this inlined function: the first round of
    /// [`BufferPool::reserve_slow`]'s loop, with the same loads, checks and CAS. Anything else
    /// (no buffer, a stale or sealed one, a full one, a lost race) goes to that loop, which
    /// starts over from the slot.
    #[inline(always)]
    fn reserve(&self, cpu: usize, len: u64) -> Result<Reservation, ReserveError> {
        let slot = self.slot_of(cpu);
        self.reserve_at(slot, &self.cpus[slot], len)
    }

    /// [`BufferPool::reserve`] in slot `slot`, whose state is `pc`.
    #[inline(always)]
    fn reserve_at(&self, slot: usize, pc: &PerCpu, len: u64) -> Result<Reservation, ReserveError> {
        if len <= self.capacity() {
            let cur = pc.slot.load(Ordering::Acquire);
            if cur != 0 {
                let (generation_tag, i) = (cur >> 16, ((cur & 0xffff) - 1) as u32);
                if let Some(b) = self.buffers.get(i as usize) {
                    let st = b.state.load(Ordering::Acquire);
                    let current = generation(st) == generation_tag & ((1 << 23) - 1)
                        || injected!(self, NoGenerationCheck);
                    if current && st & SEALED == 0 && offset(st) + len <= self.size {
                        if let Some(r) = Self::bump(b, i, st, len) {
                            return Ok(r);
                        }
                    }
                }
            }
        }
        self.reserve_slow(slot, len)
    }

    /// [`BufferPool::reserve`] in full: installs, detaches, seals and retries as needed.
    #[inline(never)]
    fn reserve_slow(&self, cpu: usize, len: u64) -> Result<Reservation, ReserveError> {
        if len > self.capacity() {
            return Err(ReserveError::TooBig);
        }
        let cpu = self.slot_of(cpu);
        let slot = &self.cpus[cpu].slot;
        loop {
            let cur = slot.load(Ordering::Acquire);
            if cur == 0 {
                let i = self.take().ok_or(ReserveError::NoBuffer)?;
                let b = &self.buffers[i as usize];
                if self.waker.get().is_some() || cfg!(etwsim_loom) {
                    // Threaded: a logger thread, maybe on another CPU, read this buffer last.
                    own_lines(b.bytes());
                }
                b.cpu.store(cpu as u32, Ordering::Relaxed);
                let generation_tag = generation(b.state.load(Ordering::Acquire));
                if slot
                    .compare_exchange(
                        0,
                        (generation_tag << 16) | u64::from(i + 1),
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    )
                    .is_err()
                {
                    self.free.push(i).expect("capacity covers every buffer");
                }
                continue;
            }
            let (generation_tag, i) = (cur >> 16, ((cur & 0xffff) - 1) as u32);
            let b = &self.buffers[i as usize];
            let st = b.state.load(Ordering::Acquire);
            let stale = generation(st) != generation_tag & ((1 << 23) - 1)
                && !injected!(self, NoGenerationCheck);
            if stale || st & SEALED != 0 {
                // The slot names a buffer that was sealed (and maybe recycled): detach it.
                let _ = slot.compare_exchange(cur, 0, Ordering::AcqRel, Ordering::Acquire);
                continue;
            }
            if offset(st) + len > self.size {
                // BUF-03: full. Seal it; whoever sees it drained hands it to the logger.
                if b.state
                    .compare_exchange(st, st | SEALED, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    let _ = slot.compare_exchange(cur, 0, Ordering::AcqRel, Ordering::Acquire);
                    if writers(st) == 0 || injected!(self, SealerIgnoresWriters) {
                        self.push_ready(i);
                    }
                }
                continue;
            }
            if let Some(r) = Self::bump(b, i, st, len) {
                return Ok(r);
            }
        }
    }

    /// The reservation itself: one CAS from the state `st` the checks were made on, adding
    /// `len` to the offset and one writer. `None` if the state changed meanwhile.
    #[inline(always)]
    fn bump(b: &Buffer, i: u32, st: u64, len: u64) -> Option<Reservation> {
        b.state
            .compare_exchange_weak(
                st,
                st + len + WRITER_ONE,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .ok()
            .map(|_| Reservation {
                index: i,
                offset: offset(st) as u32,
                len: len as u32,
            })
    }

    /// Would a reservation of `len` bytes on `cpu` succeed now? Exact when nothing runs
    /// concurrently (deterministic mode); a hint otherwise. Used for EVT-09's all-or-none.
    #[inline]
    pub fn can_reserve(&self, cpu: usize, len: u64) -> bool {
        if len > self.capacity() {
            return false;
        }
        let cur = self.cpus[self.slot_of(cpu)].slot.load(Ordering::Acquire);
        if cur != 0 {
            let b = &self.buffers[((cur & 0xffff) - 1) as usize];
            let st = b.state.load(Ordering::Acquire);
            if st & SEALED == 0 && offset(st) + len <= self.size {
                return true;
            }
        }
        !self.free.is_empty()
            || self.allocated.load(Ordering::Relaxed) < self.max.load(Ordering::Relaxed)
            || (self.ring && !self.ready.is_empty())
    }

    /// Reserves a record of `len` bytes (a multiple of 8) in `cpu`'s in-use buffer, to be
    /// written front to back through the returned [`Reserved`] (a [`Record`]); dropping it
    /// zero-fills what was not written and commits.
    #[inline(always)]
    pub fn record(&self, cpu: usize, len: u64) -> Result<Reserved<'_>, ReserveError> {
        if self.foreign() {
            return Err(ReserveError::WrongThread);
        }
        let r = self.reserve(cpu, len)?;
        let len = if injected!(self, RecordOverrun) {
            // Into the next record, never past the buffer (that the bounds check would refuse).
            (u64::from(r.len) + 8).min(self.size - u64::from(r.offset)) as u32
        } else {
            r.len
        };
        let record = self.buffers[r.index as usize]
            .bytes()
            .record(r.offset as usize, len as usize);
        Ok(Reserved {
            pool: self,
            reservation: r,
            record,
        })
    }

    /// The common record's whole store in `cpu`'s slot: marks a write in progress (as
    /// [`BufferPool::enter`]), asks `accepts` whether the session still takes writes, and if
    /// so reserves, writes and commits the record — the words of `head` (a record's header),
    /// `payload`, and zeros to `len` (a multiple of 8) — then ends the mark (as
    /// [`BufferPool::exit`]). What `enter`, [`BufferPool::record`], `put_words`, `put`, the
    /// guard's drop and `exit` do, with the slot looked up once, one bounds check for the
    /// bytes, and nothing passed through memory. `Ok(false)` when `accepts` said no.
    #[inline(always)]
    pub fn write_record<const N: usize>(
        &self,
        cpu: usize,
        accepts: impl FnOnce() -> bool,
        len: u64,
        head: &[u64; N],
        payload: &[u8],
    ) -> Result<bool, ReserveError> {
        if self.foreign() {
            return Err(ReserveError::WrongThread);
        }
        let slot = self.slot_of(cpu);
        let pc = &self.cpus[slot];
        pc.active.fetch_add(1, Ordering::SeqCst);
        let result = if accepts() {
            self.write_record_at(slot, pc, len, head, payload)
                .map(|()| true)
        } else {
            Ok(false)
        };
        pc.active.fetch_sub(1, Ordering::Release);
        result
    }

    /// [`BufferPool::write_record`] inside the in-flight mark.
    #[inline(always)]
    fn write_record_at<const N: usize>(
        &self,
        slot: usize,
        pc: &PerCpu,
        len: u64,
        head: &[u64; N],
        payload: &[u8],
    ) -> Result<(), ReserveError> {
        let r = self.reserve_at(slot, pc, len)?;
        let len = if injected!(self, RecordOverrun) {
            (u64::from(r.len) + 8).min(self.size - u64::from(r.offset)) as u32
        } else {
            r.len
        };
        let b = &self.buffers[r.index as usize];
        let written = b
            .bytes()
            .write_record(r.offset as usize, len as usize, head, payload);
        debug_assert!(written, "a reservation lies inside its buffer");
        let _ = self.commit_in(b, r.index);
        Ok(())
    }

    /// Where the next record of a single-threaded pool's owner goes in `cpu`'s slot: the
    /// owner's handle on the pool's buffers, and a cursor on the slot's in-use buffer — when
    /// this OS thread owns the pool and that buffer is installed, current, unsealed and has no
    /// write in flight. `None` otherwise (and always for a shared pool). See "The
    /// single-threaded pool".
    pub fn cursor(&self, cpu: usize) -> Option<(OwnerHandle, Cursor)> {
        if self.owner == 0 || self.owner != os_thread() {
            return None;
        }
        let cur = self.cpus[self.slot_of(cpu)].slot.load(Ordering::Acquire);
        if cur == 0 {
            return None;
        }
        let (generation_tag, index) = (cur >> 16, ((cur & 0xffff) - 1) as u32);
        let st = self
            .buffers
            .get(index as usize)?
            .state
            .load(Ordering::Acquire);
        let current = generation(st) == generation_tag & ((1 << 23) - 1);
        (current && st & (SEALED | WRITERS_MASK) == 0).then(|| {
            let handle = OwnerHandle {
                buffers: self.buffers.clone(),
                _not_send: std::marker::PhantomData,
            };
            (handle, Cursor { index, state: st })
        })
    }

    /// Commits a reservation (once: by [`Reserved`]'s `drop` or [`BufferPool::write_record`]).
    /// Returns `true`
    /// when this made a sealed buffer ready.
    #[inline(always)]
    fn commit(&self, r: &Reservation) -> Committed {
        self.commit_in(&self.buffers[r.index as usize], r.index)
    }

    /// [`BufferPool::commit`] of a reservation in `b`, buffer `index`.
    #[inline(always)]
    fn commit_in(&self, b: &Buffer, index: u32) -> Committed {
        let order = if injected!(self, RelaxedCommit) {
            Ordering::Relaxed
        } else {
            Ordering::AcqRel
        };
        let prev = b.state.fetch_sub(WRITER_ONE, order);
        if writers(prev) == 1 && prev & SEALED != 0 {
            self.push_ready(index);
            return true;
        }
        false
    }

    fn push_ready(&self, i: u32) {
        self.ready.push(i).expect("capacity covers every buffer");
        if let Some(wake) = self.waker.get() {
            if self
                .doorbell
                .rung(Doorbell::batch(self.max.load(Ordering::Relaxed)))
            {
                wake();
            }
        }
    }

    /// Sets the function that wakes the logger when a buffer becomes ready.
    pub fn set_waker(&self, wake: Box<dyn Fn() + Send + Sync>) {
        let _ = self.waker.set(wake);
    }

    /// Seals every CPU's in-use buffer that holds records, so the next flush takes them
    /// (FlushTimer, ControlTrace FLUSH, stop — BUF-05). Empty in-use buffers stay.
    pub fn seal_all(&self) {
        if self.foreign() {
            return; // the owner's buffers: see "The single-threaded pool"
        }
        for slot in 0..self.cpus.len() {
            self.seal_in_use(slot, |st| offset(st) != HEADER);
        }
    }

    /// Seals `cpu`'s in-use buffer if a record of `len` bytes does not fit in it, so the logger
    /// can flush it even though the record is refused (BUF-03: a full buffer is handed over
    /// when the next event does not fit, whether or not that event finds another buffer).
    pub fn seal_if_full(&self, cpu: usize, len: u64) {
        if self.foreign() {
            return;
        }
        self.seal_in_use(self.slot_of(cpu), |st| offset(st) + len > self.size);
    }

    /// Seals slot `slot`'s in-use buffer if `wanted(state)` says so, detaches it from the slot,
    /// and hands it to the logger if no writer is in it. A buffer that was sealed, recycled or
    /// replaced meanwhile is left alone (the generation check).
    fn seal_in_use(&self, slot: usize, wanted: impl Fn(u64) -> bool) {
        let slot = &self.cpus[slot].slot;
        let cur = slot.load(Ordering::Acquire);
        if cur == 0 {
            return;
        }
        let (generation_tag, i) = (cur >> 16, ((cur & 0xffff) - 1) as u32);
        let b = &self.buffers[i as usize];
        loop {
            let st = b.state.load(Ordering::Acquire);
            if generation(st) != generation_tag & ((1 << 23) - 1) || st & SEALED != 0 || !wanted(st)
            {
                return; // handled by someone else, or nothing to do
            }
            if b.state
                .compare_exchange(st, st | SEALED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                let _ = slot.compare_exchange(cur, 0, Ordering::AcqRel, Ordering::Acquire);
                if writers(st) == 0 {
                    self.push_ready(i);
                }
                return;
            }
        }
    }

    /// Bytes of records in buffers not yet written out: in the in-use buffers and waiting in
    /// the ready queue's count (exact when nothing runs concurrently).
    pub fn unflushed_bytes(&self) -> u64 {
        let in_use: u64 = self
            .cpus
            .iter()
            .filter_map(|c| {
                let cur = c.slot.load(Ordering::Acquire);
                (cur != 0).then(|| {
                    let b = &self.buffers[((cur & 0xffff) - 1) as usize];
                    offset(b.state.load(Ordering::Acquire)) - HEADER
                })
            })
            .sum();
        in_use + self.ready.len() as u64 * (self.size - HEADER)
    }

    /// Marks a write on `cpu` in progress; the write must then check the session still runs.
    #[inline(always)]
    pub fn enter(&self, cpu: usize) {
        self.cpus[self.slot_of(cpu)]
            .active
            .fetch_add(1, Ordering::SeqCst);
    }

    /// Ends a write marked with [`BufferPool::enter`].
    #[inline(always)]
    pub fn exit(&self, cpu: usize) {
        self.cpus[self.slot_of(cpu)]
            .active
            .fetch_sub(1, Ordering::Release);
    }

    /// Waits until no write is in progress (after the session stopped accepting new ones).
    pub fn wait_writers(&self) {
        let backoff = crossbeam::utils::Backoff::new();
        while self
            .cpus
            .iter()
            .any(|c| c.active.load(Ordering::SeqCst) != 0)
        {
            backoff.snooze();
        }
    }

    /// Takes the oldest ready buffer.
    pub fn pop_ready(&self) -> Option<Ready> {
        if self.foreign() {
            return None;
        }
        let i = self.ready.pop()?;
        let b = &self.buffers[i as usize];
        let st = b.state.load(Ordering::Acquire);
        Some(Ready {
            index: i,
            pool: self as *const BufferPool as usize,
            cpu: b.cpu.load(Ordering::Relaxed) as u16,
            used: offset(st).min(self.size),
        })
    }

    /// A ready buffer as the logger writes it out: `header` over its first 0x48 bytes and the
    /// unused tail set to `fill`, written in place; the slice is the buffer itself, lent until
    /// `ready` is released (under loom, a copy in `scratch`, so the model sees every read).
    pub fn flushed<'a>(
        &'a self,
        ready: &'a Ready,
        header: &[u8; HEADER as usize],
        fill: u8,
        scratch: &'a mut Vec<u8>,
    ) -> &'a [u8] {
        assert_eq!(
            ready.pool, self as *const BufferPool as usize,
            "a ready buffer is written out by the pool that popped it"
        );
        let used = ready.used as usize & !7;
        let bytes = self.buffers[ready.index as usize].bytes();
        #[cfg(not(etwsim_loom))]
        {
            let _ = scratch;
            bytes.flushed(header, used, fill)
        }
        #[cfg(etwsim_loom)]
        {
            let size = self.size as usize;
            let used = used.clamp(HEADER as usize, size);
            scratch.clear();
            scratch.resize(size, fill);
            scratch[..HEADER as usize].copy_from_slice(header);
            let copied = bytes.copy_out(HEADER as usize, &mut scratch[HEADER as usize..used]);
            debug_assert!(copied, "the used bytes lie inside the buffer");
            scratch
        }
    }

    /// Returns a flushed buffer to the free list (BUF-05).
    pub fn release(&self, ready: Ready) {
        self.recycle_state(ready.index);
        self.free
            .push(ready.index)
            .expect("capacity covers every buffer");
    }
}

#[cfg(all(test, not(etwsim_loom)))]
mod tests {
    use super::*;

    fn fill(pool: &BufferPool, cpu: usize, len: u64, tag: u64) -> Result<(), ReserveError> {
        let mut rec = pool.record(cpu, len)?;
        for _ in 0..len / 8 {
            rec.put(&tag.to_le_bytes());
        }
        Ok(())
    }

    #[test]
    fn switches_grows_and_loses_at_the_maximum() {
        // 256-byte buffers: 0x48 header + 184 bytes = 2 records of 88 bytes each.
        let pool = BufferPool::new(256, 2, 3, 3, 1, false);
        assert_eq!((pool.allocated(), pool.free_count()), (2, 2));
        for n in 0..6 {
            fill(&pool, 0, 88, n).unwrap();
        }
        assert_eq!(pool.allocated(), 3, "grew to MaximumBuffers");
        assert_eq!(
            pool.ready_count(),
            2,
            "two full buffers wait for the logger"
        );
        assert_eq!(fill(&pool, 0, 88, 9), Err(ReserveError::NoBuffer));
        assert_eq!(pool.reserve(0, 256).err(), Some(ReserveError::TooBig));
        let ready = pool.pop_ready().unwrap();
        assert_eq!((ready.cpu, ready.used), (0, 0x48 + 176));
        let mut scratch = Vec::new();
        let out = pool
            .flushed(&ready, &[0x11; 0x48], 0xff, &mut scratch)
            .to_vec();
        assert_eq!(out.len(), 256);
        assert_eq!(&out[..0x48], &[0x11; 0x48]);
        assert_eq!(&out[0x48..0x50], &0u64.to_le_bytes());
        assert_eq!(&out[0xa0..0xa8], &1u64.to_le_bytes());
        assert_eq!(out[0xf8..], [0xff; 8]);
        pool.release(ready);
        assert!(
            fill(&pool, 0, 88, 10).is_ok(),
            "a released buffer is reused"
        );
    }

    #[test]
    fn ring_mode_evicts_the_oldest_buffer() {
        let pool = BufferPool::new(256, 2, 2, 2, 1, true);
        for n in 0..20 {
            fill(&pool, 0, 88, n).unwrap();
        }
        assert_eq!(pool.allocated(), 2);
        pool.seal_all();
        let mut tags = Vec::new();
        while let Some(ready) = pool.pop_ready() {
            let mut scratch = Vec::new();
            let out = pool.flushed(&ready, &[0; 0x48], 0, &mut scratch).to_vec();
            pool.release(ready);
            tags.push(u64::from_le_bytes(out[0x48..0x50].try_into().unwrap()));
        }
        assert_eq!(tags, vec![16, 18], "only the newest two buffers survive");
    }
}

/// Loom models of the reservation / switch protocol. Run with
/// `RUSTFLAGS="--cfg etwsim_loom" cargo test -p etwsim-buffers --release --lib loom`.
///
/// Every record is tagged: each of its words holds the same tag, whose low byte is the
/// record's length in words. The logger side walks each buffer it is handed, so a torn record
/// (a word that is not its record's tag), a duplicate or a lost record cannot go unnoticed.
/// The buffers' bytes are loom cells ([`crate::raw`]): every write of a record, every read of the
/// logger and every install's `own_lines` is checked for a happens-before with the accesses
/// before it, so a data race on the bytes fails the model as "Causality violation".
/// The `loom_catches_*` tests run the same models against a pool with a deliberate bug
/// ([`Bug`]) and must fail: they prove the models can see what they claim to check.
#[cfg(all(test, etwsim_loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A header and 32 bytes: four words of records per buffer, so a few records force
    /// buffer switches.
    const SIZE: u64 = HEADER + 32;

    /// Explores every interleaving of `f` with at most `bound` preemptions (`None`: all of
    /// them). Returns whether some execution delivered a writer's records out of the order it
    /// wrote them (`f` returns that for its execution).
    fn check(bound: Option<usize>, f: impl Fn() -> bool + Sync + Send + 'static) -> bool {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
        let reordered = std::sync::Arc::new(AtomicBool::new(false));
        let executions = std::sync::Arc::new(AtomicUsize::new(0));
        let (flag, count) = (reordered.clone(), executions.clone());
        let mut b = loom::model::Builder::new();
        b.preemption_bound = bound;
        b.check(move || {
            count.fetch_add(1, Relaxed);
            if f() {
                flag.store(true, Relaxed);
            }
        });
        eprintln!("loom explored {} executions", executions.load(Relaxed));
        reordered.load(Relaxed)
    }

    fn pool(min: u32, max: u32, cpus: usize, bug: Bug) -> Arc<BufferPool> {
        let mut p = BufferPool::new(SIZE, min, max, max, cpus, false);
        p.bug = bug;
        Arc::new(p)
    }

    /// The tag of record `seq` of writer `id`, `words` words long.
    fn tag(id: u64, seq: u64, words: u64) -> u64 {
        (id << 16) | (seq << 8) | words
    }

    /// A writer: one record per entry of `lens` (its length in words), on `cpu`. Returns the
    /// tags committed; a reservation refused for want of a buffer is a lost event (EVT-07).
    fn write(pool: &BufferPool, cpu: usize, id: u64, lens: &[u64]) -> Vec<u64> {
        let mut committed = Vec::new();
        for (seq, &n) in lens.iter().enumerate() {
            let t = tag(id, seq as u64, n);
            // Even records through the guard, odd ones in one step (`write_record`, the
            // common record's path): both protocols are explored.
            let result = if seq % 2 == 0 {
                pool.record(cpu, n * 8).map(|mut rec| {
                    for _ in 0..n {
                        rec.put(&t.to_le_bytes());
                    }
                })
            } else {
                let rest: Vec<u8> = (1..n).flat_map(|_| t.to_le_bytes()).collect();
                pool.write_record(cpu, || true, n * 8, &[t], &rest)
                    .map(|_| ())
            };
            match result {
                Ok(()) => committed.push(t),
                Err(ReserveError::NoBuffer) => {}
                Err(e) => panic!("a {n}-word record was refused: {e:?}"),
            }
        }
        committed
    }

    /// Logger work on the oldest ready buffer, if any: checks that it is sealed and that no
    /// writer is still in it, reads it as the logger does, appends its records to `seen`
    /// (delivery order) and recycles it. `false` when nothing was ready.
    fn log_one(pool: &BufferPool, seen: &mut Vec<u64>) -> bool {
        let Some(ready) = pool.pop_ready() else {
            return false;
        };
        let (i, used) = (ready.index, ready.used);
        let st = pool.buffers[i as usize].state.load(Ordering::Acquire);
        assert_eq!(
            writers(st),
            0,
            "a buffer was handed to the logger while a writer is still in it"
        );
        assert!(
            st & SEALED != 0,
            "a buffer was handed to the logger unsealed (twice, or before it was full)"
        );
        let mut scratch = Vec::new();
        let bytes = pool
            .flushed(&ready, &[0; HEADER as usize], 0, &mut scratch)
            .to_vec();
        let words: Vec<u64> = bytes[HEADER as usize..used as usize]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let mut at = 0;
        while at < words.len() {
            let t = words[at];
            let n = (t & 0xff) as usize;
            assert!(
                n > 0 && at + n <= words.len(),
                "torn record: word {at} of buffer {i} holds {t:#x}"
            );
            assert!(
                words[at..at + n].iter().all(|&w| w == t),
                "torn record {t:#x}: {:x?}",
                &words[at..at + n]
            );
            seen.push(t);
            at += n;
        }
        pool.release(ready);
        true
    }

    /// A flush (FLUSH, stop): seal every in-use buffer, then log everything ready.
    fn flush(pool: &BufferPool, seen: &mut Vec<u64>) {
        pool.seal_all();
        while log_one(pool, seen) {}
    }

    /// Every committed record was delivered exactly once, and nothing else was.
    fn assert_exactly_once(committed: &[u64], seen: &[u64]) {
        let mut s = seen.to_vec();
        s.sort_unstable();
        s.dedup();
        assert_eq!(
            s.len(),
            seen.len(),
            "a record was delivered twice: {seen:x?}"
        );
        let mut c = committed.to_vec();
        c.sort_unstable();
        assert_eq!(
            s, c,
            "a committed record was lost, or a record never committed was delivered"
        );
    }

    /// Whether some writer's records were delivered out of the order it wrote them.
    fn reordered(seen: &[u64]) -> bool {
        (1..=2).any(|id| {
            let seqs: Vec<u64> = seen
                .iter()
                .filter(|t| *t >> 16 == id)
                .map(|t| (t >> 8) & 0xff)
                .collect();
            seqs.windows(2).any(|w| w[0] > w[1])
        })
    }

    /// Model (a): two writers on one CPU slot, records of 1–3 words in 4-word buffers (so
    /// buffers switch, and a record that does not fit seals a buffer another writer is still
    /// in), a logger taking and recycling buffers concurrently, then a final flush. Returns
    /// whether some execution delivered a writer's records out of order.
    fn two_writers_one_cpu(bug: Bug, bound: Option<usize>) -> bool {
        check(bound, move || {
            let pool = pool(2, 3, 1, bug);
            let p = pool.clone();
            let w1 = thread::spawn(move || write(&p, 0, 1, &[1, 3, 2]));
            let p = pool.clone();
            let w2 = thread::spawn(move || write(&p, 0, 2, &[3, 1]));
            let p = pool.clone();
            let logger = thread::spawn(move || {
                let mut seen = Vec::new();
                log_one(&p, &mut seen);
                log_one(&p, &mut seen);
                seen
            });
            let mut committed = w1.join().unwrap();
            committed.extend(w2.join().unwrap());
            let mut seen = logger.join().unwrap();
            flush(&pool, &mut seen);
            assert_exactly_once(&committed, &seen);
            reordered(&seen)
        })
    }

    /// Model (b): a writer racing a flush (`seal_all`, then the logger), on a pool of two
    /// CPUs with a second writer on the other CPU; then the final flush. Returns whether some
    /// execution delivered a writer's records out of order.
    fn writers_racing_a_flush(bug: Bug, bound: Option<usize>) -> bool {
        check(bound, move || {
            let pool = pool(2, 3, 2, bug);
            let p = pool.clone();
            let w1 = thread::spawn(move || write(&p, 0, 1, &[1, 3, 2]));
            let p = pool.clone();
            let w2 = thread::spawn(move || write(&p, 1, 2, &[1]));
            let p = pool.clone();
            let flusher = thread::spawn(move || {
                let mut seen = Vec::new();
                flush(&p, &mut seen);
                seen
            });
            let mut committed = w1.join().unwrap();
            committed.extend(w2.join().unwrap());
            let mut seen = flusher.join().unwrap();
            flush(&pool, &mut seen);
            assert_exactly_once(&committed, &seen);
            reordered(&seen)
        })
    }

    /// Model (c): one buffer only. A writer's second record races a flush that seals,
    /// logs and recycles that buffer, so the writer can hold a stale slot value (the old
    /// generation) while the buffer is free again: it must never write into it. Small enough
    /// to explore exhaustively (no preemption bound).
    fn stale_slot_after_recycle(bug: Bug, bound: Option<usize>) {
        check(bound, move || {
            let pool = pool(1, 1, 1, bug);
            let p = pool.clone();
            let w = thread::spawn(move || write(&p, 0, 1, &[1, 1]));
            let p = pool.clone();
            let recycler = thread::spawn(move || {
                let mut seen = Vec::new();
                flush(&p, &mut seen);
                seen
            });
            let committed = w.join().unwrap();
            let mut seen = recycler.join().unwrap();
            flush(&pool, &mut seen);
            assert_exactly_once(&committed, &seen);
            false
        });
    }

    // rule: BUF-02
    // rule: BUF-03
    // rule: BUF-04
    // rule: BUF-11
    #[test]
    fn loom_two_writers_on_one_cpu_deliver_every_record_once_and_intact() {
        // BUF-11: order across buffers is not guaranteed. Here a writer's later record can
        // be flushed first: its earlier one sits in a buffer the other writer is still in.
        assert!(
            two_writers_one_cpu(Bug::None, Some(2)),
            "expected loom to find a reordering across buffers of two writers on one CPU"
        );
    }

    // rule: BUF-05
    // rule: BUF-11
    #[test]
    fn loom_a_writer_racing_a_flush_loses_and_duplicates_nothing() {
        // BUF-11 again, with one writer per CPU: a flush that seals a buffer and is
        // preempted before queueing it lets the writer fill and queue its next buffer first.
        assert!(
            writers_racing_a_flush(Bug::None, Some(2)),
            "expected loom to find a flush-induced reordering across buffers"
        );
    }

    #[test]
    fn loom_a_stale_slot_never_writes_into_a_recycled_buffer() {
        stale_slot_after_recycle(Bug::None, None);
    }

    #[test]
    #[should_panic(expected = "Causality violation")]
    fn loom_catches_a_relaxed_commit() {
        // Since the bytes are loom cells, the unpublished record is caught at the logger's
        // read of it (a data race), before the torn-record check could see old bytes.
        two_writers_one_cpu(Bug::RelaxedCommit, Some(2));
    }

    #[test]
    #[should_panic(expected = "Causality violation")]
    fn loom_catches_a_record_overrunning_its_reservation() {
        // The padding of a record given one word too many lands in the next record, which
        // another writer owns: a data race on the cells, whatever the bytes end up being.
        two_writers_one_cpu(Bug::RecordOverrun, Some(2));
    }

    #[test]
    #[should_panic(expected = "handed to the logger")]
    fn loom_catches_a_sealer_that_ignores_writers() {
        two_writers_one_cpu(Bug::SealerIgnoresWriters, Some(2));
    }

    #[test]
    #[should_panic(expected = "a committed record was lost")]
    fn loom_catches_a_missing_generation_check() {
        stale_slot_after_recycle(Bug::NoGenerationCheck, None);
    }
}
