//! Writing kernel events: the table of system loggers and what each selects, the summary
//! word the OS operations test first (P15), and the stores of classic (system-header) and
//! manifest (`EVENT_HEADER`) records into a session's buffers.

use crate::data::cache::Versioned;
use crate::data::context::LoggerContext;
use crate::data::route::RegEntry;
use crate::data::store::{refusal, store_bytes};
use crate::filter::flags::{GroupMask, SystemProvider};
use crate::filter::{EventView, session_accepts};
use arc_swap::ArcSwap;
use etwsim_buffers::Record;
use etwsim_decode::fields::Value;
use etwsim_decode::mof::Schema;
use etwsim_types::record::{MAX_EVENT_SIZE, align8, header_flags, header_type};
use etwsim_types::{EventDescriptor, EventHeader, Guid};
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bits 32 and up of the summary word: the manifest kernel providers some session enables.
pub(crate) const KERNEL_FILE: u64 = 1 << 32;
/// Microsoft-Windows-Kernel-Process is enabled somewhere.
pub(crate) const KERNEL_PROCESS: u64 = 1 << 33;

/// The header version classic FileIo name events carry (KRN-17: the layout is the same in v2
/// and v3; 2 is what etl-parser's decoder, written from real files, keys them by).
pub(crate) const FILE_NAME_VERSION: u8 = 2;

/// One system logger as the kernel-event path sees it.
pub(crate) struct SysLogger {
    pub(crate) ctx: Arc<LoggerContext>,
    /// The effective EnableFlags word (base mask, equivalences, System Providers).
    pub(in crate::data) flags: AtomicU32,
    pub(crate) masks: Mutex<Masks>,
    /// FileKeys this session has a name event for (KRN-33).
    pub(crate) named: Mutex<HashSet<u64>>,
}

/// What selects a system logger's kernel events.
#[derive(Clone, Debug, Default)]
pub(crate) struct Masks {
    /// EnableFlags (StartTrace, UPDATE) or TraceSetInformation's group mask.
    pub(crate) base: GroupMask,
    /// System Providers enabled with EnableTraceEx2, with their MatchAnyKeyword (KRN-03).
    pub(crate) providers: BTreeMap<Guid, u64>,
}

impl Masks {
    pub(in crate::data) fn effective(&self) -> GroupMask {
        self.providers
            .iter()
            .filter_map(|(g, kw)| Some(SystemProvider::by_guid(*g)?.flags_for(*kw)))
            .fold(self.base, GroupMask::with_flags)
    }
}

impl SysLogger {
    #[inline]
    pub(crate) fn wants(&self, flag: u32) -> bool {
        self.flags.load(Ordering::Relaxed) & flag != 0
    }
}

/// Where and when a kernel event happens: the header's process and thread, the CPU whose
/// buffer takes it, the clock ticks.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Origin {
    pub(crate) pid: u32,
    pub(crate) tid: u32,
    pub(crate) cpu: usize,
    pub(crate) ticks: u64,
}

/// Where the versions of [`Snapshot`]s come from: one counter for every kernel, so that a
/// version names one snapshot of one kernel's system loggers.
static SNAPSHOT_VERSION: AtomicU64 = AtomicU64::new(0);

/// The system loggers as one publication left them.
#[derive(Default)]
pub(crate) struct Snapshot {
    /// Unique among every kernel's snapshots (0: the empty list a kernel starts with).
    version: u64,
    pub(in crate::data) list: Vec<Arc<SysLogger>>,
}

impl Versioned for Snapshot {
    fn version(&self) -> u64 {
        self.version
    }
}

impl std::ops::Deref for Snapshot {
    type Target = [Arc<SysLogger>];
    fn deref(&self) -> &[Arc<SysLogger>] {
        &self.list
    }
}

/// The system loggers and the summary word.
#[derive(Default)]
pub(crate) struct Loggers {
    /// Bits 0–31: the OR of every system logger's effective flags; bit 32 and up: manifest
    /// kernel providers enabled somewhere. An OS operation tests this word first.
    pub(in crate::data) wanted: AtomicU64,
    list: Mutex<Vec<Arc<SysLogger>>>,
    pub(in crate::data) snapshot: ArcSwap<Snapshot>,
    /// The version of the snapshot in `snapshot`, stored (Release) after it ([`Loggers::with`]).
    pub(in crate::data) version: AtomicU64,
}

impl Loggers {
    /// One `Relaxed` load: is any session interested in `bits`?
    #[inline(always)]
    pub(crate) fn wants(&self, bits: u64) -> bool {
        self.wanted.load(Ordering::Relaxed) & bits != 0
    }

    /// The current system loggers (a snapshot: no lock).
    pub(crate) fn current(&self) -> Arc<Snapshot> {
        self.snapshot.load_full()
    }

    pub(crate) fn find(&self, ctx: &Arc<LoggerContext>) -> Option<Arc<SysLogger>> {
        self.list
            .lock()
            .iter()
            .find(|l| Arc::ptr_eq(&l.ctx, ctx))
            .cloned()
    }

    pub(crate) fn add(&self, ctx: &Arc<LoggerContext>, base: GroupMask) -> Arc<SysLogger> {
        let l = Arc::new(SysLogger {
            ctx: ctx.clone(),
            flags: AtomicU32::new(base.effective_flags()),
            masks: Mutex::new(Masks {
                base,
                providers: BTreeMap::new(),
            }),
            named: Mutex::new(HashSet::new()),
        });
        let mut list = self.list.lock();
        list.push(l.clone());
        self.publish(&list);
        l
    }

    pub(crate) fn remove(&self, ctx: &Arc<LoggerContext>) {
        let mut list = self.list.lock();
        list.retain(|l| !Arc::ptr_eq(&l.ctx, ctx));
        self.publish(&list);
    }

    /// Changes one logger's masks and republishes the summary.
    pub(crate) fn update(&self, l: &SysLogger, f: impl FnOnce(&mut Masks)) {
        let list = self.list.lock();
        let mut m = l.masks.lock();
        f(&mut m);
        l.flags
            .store(m.effective().effective_flags(), Ordering::Relaxed);
        drop(m);
        self.publish(&list);
    }

    fn publish(&self, list: &[Arc<SysLogger>]) {
        let version = SNAPSHOT_VERSION.fetch_add(1, Ordering::Relaxed) + 1;
        self.snapshot.store(Arc::new(Snapshot {
            version,
            list: list.to_vec(),
        }));
        self.version.store(version, Ordering::Release);
        let flags = list
            .iter()
            .filter(|l| l.ctx.is_running())
            .fold(0u32, |acc, l| acc | l.flags.load(Ordering::Relaxed));
        let high = self.wanted.load(Ordering::Relaxed) & !0xFFFF_FFFF;
        self.wanted
            .store(high | u64::from(flags), Ordering::Relaxed);
    }

    /// Sets or clears summary bits of the manifest providers.
    pub(crate) fn set_provider_bit(&self, bit: u64, on: bool) {
        if on {
            self.wanted.fetch_or(bit, Ordering::Relaxed);
        } else {
            self.wanted.fetch_and(!bit, Ordering::Relaxed);
        }
    }
}

/// The 64-bit payload of `schema` with `values`. `None` if the values do not fit the layout
/// (an internal error: the OS layer validates what users pass).
pub(crate) fn payload(schema: &Schema, values: &[Value]) -> Option<Vec<u8>> {
    match schema.encode(values, 8) {
        Ok(p) => Some(p),
        Err(e) => {
            debug_assert!(false, "kernel payload {}: {e}", schema.layout.name);
            None
        }
    }
}

/// A system record (`SYSTEM_TRACE_HEADER`, 64-bit) of `schema` with `payload`, its timestamp
/// field left 0 (each session stamps its own clock, [`stamp`]).
pub(crate) fn system_record(schema: &Schema, payload: Vec<u8>, o: &Origin) -> Option<Vec<u8>> {
    let rec = etwsim_etl::TraceRecord {
        header_type: header_type::SYSTEM64,
        version: u16::from(schema.version),
        hook_id: schema.hook_id(),
        thread_id: Some(o.tid),
        process_id: Some(o.pid),
        timestamp: Some(0),
        payload,
        ..etwsim_etl::TraceRecord::default()
    };
    rec.encode().ok()
}

/// An `EVENT_HEADER` record (64-bit) of a manifest kernel provider, timestamp left 0.
pub(in crate::data) fn event_record(
    provider: Guid,
    desc: &EventDescriptor,
    payload: &[u8],
    o: &Origin,
) -> Vec<u8> {
    let mut head = [0u8; etwsim_types::record::EVENT_HEADER_SIZE];
    let size = (head.len() + payload.len()).min(usize::from(u16::MAX)) as u16;
    etwsim_types::record::encode_event_header(
        &EventHeader {
            size,
            header_type: u16::from(header_type::EVENT_HEADER64),
            flags: header_flags::HEADER_64_BIT,
            thread_id: o.tid,
            process_id: o.pid,
            timestamp: 0,
            provider_id: provider,
            descriptor: *desc,
            ..EventHeader::default()
        },
        &mut head,
    );
    let mut out = head.to_vec();
    out.extend_from_slice(payload);
    out
}

/// Writes `rec`'s timestamp for `ctx`'s clock: bytes 16–23 of a system header and of an
/// `EVENT_HEADER` alike.
fn stamp(rec: &mut [u8], ctx: &LoggerContext, ticks: u64) {
    let ts = ctx.clock.raw(ticks, ctx.cfg.clock);
    rec[16..24].copy_from_slice(&ts.to_le_bytes());
}

/// Stores one record in `ctx`'s buffer of CPU `o.cpu`, as a write does: inside the pool's
/// in-flight bracket, only while the session takes writes (or, for the stop rundown, while
/// it is being stopped by the caller); a refusal counts in EventsLost.
pub(crate) fn store(ctx: &LoggerContext, rec: &mut [u8], o: &Origin, at_stop: bool) {
    stamp(rec, ctx, o.ticks);
    put(ctx, rec.len(), o, at_stop, |r| store_bytes(r, rec));
}

/// [`store`]'s bracket: reserves `align8(size)` bytes in `ctx`'s buffer of CPU `o.cpu` and
/// has `fill` write the record, or counts the event lost.
#[inline]
fn put(
    ctx: &LoggerContext,
    size: usize,
    o: &Origin,
    at_stop: bool,
    fill: impl FnOnce(&mut Record<'_>),
) {
    let len = align8(size);
    let lost = || {
        ctx.counters.events_lost.fetch_add(1, Ordering::Relaxed);
    };
    if refusal(ctx, size).is_some() {
        return lost(); // EVT-05, EVT-06, EVT-08, as a write's
    }
    ctx.pool.enter(o.cpu);
    if at_stop || ctx.accepts_writes() {
        match ctx.pool.record(o.cpu, len as u64) {
            Ok(mut rec) => fill(&mut rec),
            Err(_) => lost(),
        }
    }
    ctx.pool.exit(o.cpu);
}

/// A classic event's HookId and header version, resolved once from the MOF table (P15: the
/// recorded path looks nothing up by name).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Hook {
    pub(in crate::data) hook_id: u16,
    pub(in crate::data) version: u8,
}

impl Hook {
    pub(crate) fn of(schema: &Schema) -> Hook {
        Hook {
            hook_id: schema.hook_id(),
            version: schema.version,
        }
    }
}

/// Characters per step of [`widen_ascii`].
const WIDEN_STEP: usize = 16;

/// `src` as UTF-16LE into `dst` (`2 * src.len()` bytes), if every byte of `src` is ASCII;
/// returns whether it was (when not, `dst` holds garbage the caller clears).
///
/// P15: [`WIDEN_STEP`] characters a step, each step one interleave with zeros per half and
/// an OR that gathers the high bits, in vector instructions (x86-64's baseline SSE2
/// included); a last partial step widens the string's last `WIDEN_STEP` characters again,
/// overlapping the step before with the same units. The character loop before it, and its
/// `is_ascii` pass, took ≈ 127 instructions for a 52-character path.
#[inline(always)]
fn widen_ascii(dst: &mut [u8], src: &[u8]) -> bool {
    // The characters as `u16`s first, then their bytes: the form the compiler turns into
    // interleaves (a unit-by-unit byte store stays a scalar loop).
    fn step(d: &mut [u8], chars: &[u8], seen: &mut u128) {
        let (Ok(d), Ok(chars)) = (
            <&mut [u8; 2 * WIDEN_STEP]>::try_from(d),
            <&[u8; WIDEN_STEP]>::try_from(chars),
        ) else {
            return;
        };
        let units: [u16; WIDEN_STEP] = std::array::from_fn(|i| u16::from(chars[i]));
        for (d, u) in d.chunks_exact_mut(2).zip(units) {
            d.copy_from_slice(&u.to_le_bytes());
        }
        *seen |= u128::from_le_bytes(*chars);
    }
    let n = src.len();
    if n < WIDEN_STEP {
        // Shorter than a step: one character at a time.
        for (d, &c) in dst.chunks_exact_mut(2).zip(src) {
            d[0] = c;
            d[1] = 0;
        }
        return src.is_ascii();
    }
    let mut seen = 0u128;
    for (c, d) in src
        .chunks_exact(WIDEN_STEP)
        .zip(dst.chunks_exact_mut(2 * WIDEN_STEP))
    {
        step(d, c, &mut seen);
    }
    if n % WIDEN_STEP != 0 {
        // The last step ends at the string's end, overlapping the one before.
        let at = n - WIDEN_STEP;
        if let Some(d) = dst.get_mut(2 * at..2 * n) {
            step(d, &src[at..], &mut seen);
        }
    }
    seen & u128::from_le_bytes([0x80; WIDEN_STEP]) == 0
}

/// The size of a 64-bit `SYSTEM_TRACE_HEADER`.
const SYSTEM_HEADER_SIZE: usize = 32;

/// A classic kernel record built in place on the stack: the `SYSTEM_TRACE_HEADER` (64-bit,
/// timestamp 0 until [`store`] stamps it) and then the payload's fields, at most `N` bytes
/// (`N` a multiple of 8; the bytes past the record stay 0, the padding of the last word).
/// The same bytes as [`payload`] + [`system_record`] of the event's values (P15; the golden
/// test `recorded_os_operations_write_the_golden_bytes` and the unit tests of `os` hold them
/// to it).
pub(crate) struct SysRecord<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> SysRecord<N> {
    /// `N`: the most bytes a record of this type holds.
    pub(crate) const SIZE: usize = N;

    /// The header of `hook` with `o`'s process and thread.
    #[inline]
    pub(crate) fn new(hook: Hook, o: &Origin) -> SysRecord<N> {
        const { assert!(N % 8 == 0 && N >= SYSTEM_HEADER_SIZE && N <= MAX_EVENT_SIZE) };
        let mut buf = [0u8; N];
        buf[0..2].copy_from_slice(&u16::from(hook.version).to_le_bytes());
        buf[2] = header_type::SYSTEM64;
        buf[3] = etwsim_types::record::TRACE_HEADER_MARKER;
        buf[6..8].copy_from_slice(&hook.hook_id.to_le_bytes());
        buf[8..12].copy_from_slice(&o.tid.to_le_bytes());
        buf[12..16].copy_from_slice(&o.pid.to_le_bytes());
        SysRecord {
            buf,
            len: SYSTEM_HEADER_SIZE,
        }
    }

    /// Writes the record's size into its header: once, when it is whole (P15: an append
    /// does not rewrite it).
    fn set_size(&mut self) {
        self.buf[4..6].copy_from_slice(&(self.len as u16).to_le_bytes());
    }

    /// Appends `bytes`; false (and nothing appended) if they do not fit.
    #[inline]
    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> bool {
        let Some(dst) = self.buf.get_mut(self.len..self.len + bytes.len()) else {
            return false;
        };
        dst.copy_from_slice(bytes);
        self.len += bytes.len();
        true
    }

    /// Appends a `uint32`.
    #[inline]
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        let fits = self.bytes(&v.to_le_bytes());
        debug_assert!(fits, "a fixed field past {N} bytes");
        self
    }

    /// Appends a `uint64` or a 64-bit pointer.
    #[inline]
    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        let fits = self.bytes(&v.to_le_bytes());
        debug_assert!(fits, "a fixed field past {N} bytes");
        self
    }

    /// Appends a `UTF-16z` string; false (and nothing appended) if it does not fit.
    pub(crate) fn utf16z(&mut self, s: &str) -> bool {
        // ASCII first (the bytes past the record are 0, so the NUL is there already).
        let end = self.len + 2 * s.len() + 2;
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            let (dst, _nul) = dst.split_at_mut(2 * s.len());
            if widen_ascii(dst, s.as_bytes()) {
                self.len = end;
                return true;
            }
            dst.fill(0); // not ASCII: the padding stays 0 for the encoder below
        }
        let mut at = self.len;
        for u in s.encode_utf16().chain([0]) {
            let Some(dst) = self.buf.get_mut(at..at + 2) else {
                self.buf[self.len..at].fill(0); // the padding stays 0
                return false;
            };
            dst.copy_from_slice(&u.to_le_bytes());
            at += 2;
        }
        self.len = at;
        true
    }

    /// The payload written so far.
    pub(crate) fn payload(&self) -> &[u8] {
        &self.buf[SYSTEM_HEADER_SIZE..self.len]
    }

    /// The record (header, with its size, and payload, unpadded).
    #[cfg(test)]
    pub(crate) fn record(&self) -> Vec<u8> {
        let mut whole = SysRecord {
            buf: self.buf,
            len: self.len,
        };
        whole.set_size();
        whole.buf[..self.len].to_vec()
    }

    /// Whether every byte past the record is 0 (the padding a store writes).
    #[cfg(test)]
    pub(crate) fn buf_tail_is_zero(&self) -> bool {
        self.buf[self.len..].iter().all(|b| *b == 0)
    }

    /// Stores the record in `ctx`'s buffer of CPU `o.cpu` as [`store`] does, stamped with
    /// `ctx`'s clock: one copy of the record and its padding (the bytes past it are 0).
    ///
    /// The same checks and accounting as [`put`], with the record written and committed in
    /// one step ([`etwsim_buffers::BufferPool::write_record`]): it is whole already.
    #[inline]
    fn store(&mut self, ctx: &LoggerContext, o: &Origin) {
        self.set_size();
        stamp(&mut self.buf, ctx, o.ticks);
        let len = align8(self.len);
        let record = self.buf.get(..len).unwrap_or(&self.buf);
        if refusal(ctx, self.len).is_some() {
            ctx.counters.events_lost.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let stored = ctx
            .pool
            .write_record(o.cpu, || ctx.accepts_writes(), len as u64, &[], record);
        if stored.is_err() {
            ctx.counters.events_lost.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// [`classic`] for a record built in place: stored into every system logger whose flags
/// include `flag` (each stamps its own clock over the last one's).
#[inline]
pub(crate) fn classic_record<const N: usize>(
    loggers: &[Arc<SysLogger>],
    flag: u32,
    rec: &mut SysRecord<N>,
    o: &Origin,
) {
    for l in loggers.iter().filter(|l| l.wants(flag)) {
        rec.store(&l.ctx, o);
    }
}

/// Writes a classic kernel event into every system logger whose flags include `flag`.
pub(crate) fn classic(
    loggers: &[Arc<SysLogger>],
    flag: u32,
    schema: &Schema,
    payload: &[u8],
    o: &Origin,
) {
    let mut targets = loggers.iter().filter(|l| l.wants(flag)).peekable();
    if targets.peek().is_none() {
        return;
    }
    let Some(mut rec) = system_record(schema, payload.to_vec(), o) else {
        return;
    };
    // Each session stamps its own clock over the last one's: no copy.
    for l in targets {
        store(&l.ctx, &mut rec, o, false);
    }
}

/// Writes a manifest kernel provider's event into every session the registration's routes
/// say takes it (level, keywords and the other per-session filters, FLT-20); no extended
/// items (a choice: the kernel's providers are written here, not through EventWrite).
pub(crate) fn manifest(provider: &RegEntry, desc: &EventDescriptor, payload: &[u8], o: &Origin) {
    if !provider.is_enabled_for(desc.level, desc.keyword) {
        return;
    }
    let ev = EventView {
        descriptor: desc,
        name: None,
        filter_mask: 0,
        inprivate: false,
        payload: &[payload],
    };
    let rec = event_record(provider.guid, desc, payload, o);
    provider.with_routes(|routes| {
        for r in routes.iter() {
            if r.logger.is_running() && session_accepts(&ev, r.slot, &r.filter) {
                store(&r.logger, &mut rec.clone(), o, false);
            }
        }
    });
}
