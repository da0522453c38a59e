//! The event path: EventWrite, EventWriteTransfer, EventWriteEx, EventWriteString
//! (EVT-01…EVT-17, FLT-11, FLT-12, FLT-20, BUF-02…BUF-04).
//!
//! 1. The cached enable word says no → return `Ok` at once (EVT-02, PRV-31); the
//!    provider-side level/keyword test and the event-id gate (FLT-19) come next, still inline.
//! 2. Routing: the registration's route table (per-thread cached, `RegEntry::with_routes`),
//!    each session's predicate ([`session_accepts`]) → the target sessions (FLT-20). A table
//!    of one session that asks for no extended item takes `emit_single`: the same record,
//!    without the per-target plans of steps 3–4.
//! 3. Per target, the record is planned: the extended items that session asked for
//!    (related activity, SID, TS_ID, stack, event key, process start key, provider traits,
//!    TraceLogging schema) decide its size, checked against 65,535 bytes (EVT-05) and the
//!    session's buffer (EVT-06); a real-time session whose backing store is full refuses it
//!    (EVT-08).
//! 4. Policy: sessions without INDEPENDENT_SESSION_MODE take the event all or none — if one
//!    of them cannot (a failed check, or no space now), none records it and the write
//!    returns that session's error (EVT-09). An independent session's failure stays its own
//!    and is not reported (EVT-10). Every drop counts in EventsLost of the session that could
//!    not take it; never silent.
//! 5. Reserve in the writer's CPU buffer of each target, build the record straight into the
//!    buffer's words (header, items, payload, padding), commit.
//!
//! Steps 2–5 take no lock and allocate nothing (the per-thread stack frames of a
//! STACK_TRACE session are the exception: they sit behind the thread's mutex).

use crate::data::core::Host;
use crate::data::local::{WRITER_LOCAL, WriterLocal, current_in, with_writer_local};
use crate::data::route::RegEntry;
use crate::data::route::{Route, Routes};
use crate::data::store::Refusal;
use crate::data::store::refusal;
use crate::data::store::reserve_refusal;
use crate::data::store::store_bytes;
use crate::filter::verdict::Reason;
use crate::filter::{EventView, session_accepts, wants_stack};
use crate::journal::JournalEvent;
use crate::machine::ids::guid_words;
use crate::machine::thread::{ThreadState, lane_epoch};
use crate::{Error, Result};
use etwsim_buffers::Record;
use etwsim_decode::tracelogging::EventBuilder;
use etwsim_types::record::{
    EVENT_HEADER_SIZE, MAX_EVENT_DATA_DESCRIPTORS, MAX_STACK_FRAMES, align8, ext_type, header_flags,
};
use etwsim_types::{EnableProperty, EventDescriptor, Guid, Keyword, Level, LogFileMode};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// `EVENT_WRITE_FLAG_NO_FAULTING` (EVT-04).
pub const EVENT_WRITE_FLAG_NO_FAULTING: u32 = 0x1;
/// `EVENT_WRITE_FLAG_INPRIVATE`: dropped by EXCLUDE_INPRIVATE sessions (EVT-04, FLT-11).
pub const EVENT_WRITE_FLAG_INPRIVATE: u32 = 0x2;

/// What EventWriteTransfer / EventWriteEx and TraceLogging add to a plain EventWrite.
#[derive(Copy, Clone, Debug, Default)]
pub struct WriteOptions<'a> {
    /// `ActivityId`; `None` stamps the thread's activity ID (EVT-14).
    pub activity_id: Option<&'a Guid>,
    /// `RelatedActivityId`; `Some` adds a RELATED_ACTIVITYID item (EVT-17).
    pub related_activity_id: Option<&'a Guid>,
    /// EventWriteEx `Filter`: bit *i* excludes the session in enable slot *i* (EVT-04).
    pub filter: u64,
    /// EventWriteEx `Flags` (`EVENT_WRITE_FLAG_*`).
    pub flags: u32,
    /// A TraceLogging event's name (for EVENT_NAME filters, FLT-22).
    pub event_name: Option<&'a str>,
    /// A TraceLogging event's metadata: written as an EVENT_SCHEMA_TL item.
    pub tracelogging_metadata: Option<&'a [u8]>,
    /// Provider metadata attached to this event (a Type-2 data descriptor, EVT-12): written
    /// as its PROV_TRAITS item unless the provider set traits with EventSetInformation,
    /// which take precedence.
    pub provider_traits: Option<&'a [u8]>,
    /// A timestamp override (a Type-3 data descriptor, EVT-12): the event's `TimeStamp` in
    /// every session, as given (raw clock units), instead of the clock's.
    pub timestamp: Option<i64>,
}

impl WriteOptions<'_> {
    /// No option set: the options of a plain EventWrite ([`PLAIN`]'s values). Such a write
    /// takes the plain path (`write_routed_plain_in`) whatever options value it passes — the
    /// Win32 face's EventWrite passes its own default options.
    #[inline]
    fn is_plain(&self) -> bool {
        self.activity_id.is_none()
            && self.related_activity_id.is_none()
            && self.filter == 0
            && self.flags == 0
            && self.event_name.is_none()
            && self.tracelogging_metadata.is_none()
            && self.provider_traits.is_none()
            && self.timestamp.is_none()
    }
}

/// The options of a plain EventWrite: the write forms without options pass a reference to it
/// rather than building a `WriteOptions` on the stack per call, and the routes recognise it
/// by its address first (one compare), then any other options by value
/// ([`WriteOptions::is_plain`]).
static PLAIN: WriteOptions<'static> = WriteOptions {
    activity_id: None,
    related_activity_id: None,
    filter: 0,
    flags: 0,
    event_name: None,
    tracelogging_metadata: None,
    provider_traits: None,
    timestamp: None,
};

/// One extended item as the event path plans it, borrowing its data.
#[derive(Copy, Clone)]
enum Item<'a> {
    None,
    Bytes(u16, &'a [u8]),
    Guid(u16, [u8; 16]),
    U32(u16, u32),
    U64(u16, u64),
    Stack(&'a [u64]),
}

impl Item<'_> {
    fn ext(&self) -> u16 {
        match *self {
            Item::None => 0,
            Item::Bytes(t, _) | Item::Guid(t, _) | Item::U32(t, _) | Item::U64(t, _) => t,
            Item::Stack(_) => ext_type::STACK_TRACE64,
        }
    }

    fn data_len(&self) -> usize {
        match self {
            Item::None => 0,
            Item::Bytes(_, b) => b.len(),
            Item::Guid(..) => 16,
            Item::U32(..) => 4,
            Item::U64(..) => 8,
            Item::Stack(f) => 8 + 8 * f.len(),
        }
    }

    fn encoded_len(&self) -> usize {
        8 + align8(self.data_len())
    }

    fn write(&self, w: &mut Record<'_>) {
        match self {
            Item::None => {}
            Item::Bytes(_, b) => w.put(b),
            Item::Guid(_, g) => w.put(g),
            Item::U32(_, v) => w.put(&v.to_le_bytes()),
            Item::U64(_, v) => w.put(&v.to_le_bytes()),
            Item::Stack(frames) => {
                w.put(&0u64.to_le_bytes()); // MatchId
                for f in *frames {
                    w.put(&f.to_le_bytes());
                }
            }
        }
    }
}

/// The error of a write with more than 128 data blocks or unknown EventWriteEx flags.
#[cold]
#[inline(never)]
fn invalid_write(blocks: usize, flags: u32) -> Error {
    if blocks > MAX_EVENT_DATA_DESCRIPTORS {
        Error::invalid(format!(
            "{blocks} data descriptors, at most {MAX_EVENT_DATA_DESCRIPTORS} are allowed"
        ))
    } else {
        Error::invalid(format!("unknown EventWriteEx flags {flags:#x}"))
    }
}

/// A simulated stack for threads that set none: three frames derived from the event id, so
/// stacks are reproducible.
fn synthetic_stack(id: u16) -> [u64; 3] {
    let base = 0x7FF6_1000_0000 + (u64::from(id) << 8);
    [base + 0x14, base + 0x1_0020, base + 0x2_0030]
}

/// INDEPENDENT_SESSION_MODE: the session's failures stay its own (EVT-10).
#[inline]
fn is_independent(route: &Route) -> bool {
    route
        .logger
        .cfg
        .mode
        .contains(LogFileMode::INDEPENDENT_SESSION)
}

/// The 80-byte `EVENT_HEADER` as the ten little-endian words a record starts with: the same
/// bytes as [`etwsim_types::record::encode_event_header`] (`header_words_match_the_encoder`
/// checks it), built in registers instead of a byte array.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(in crate::data) fn header_words(
    size: u16,
    flags: u16,
    tid: u32,
    pid: u32,
    timestamp: i64,
    provider: [u64; 2],
    d: &EventDescriptor,
    activity: [u64; 2],
) -> [u64; 10] {
    HeaderTemplate::new(flags, tid, pid, provider, activity).words(size, timestamp, d)
}

/// The header words one writer's events into one session share (everything but the size,
/// the timestamp and the descriptor): what [`header_words`] builds every record from, and
/// what the single-threaded engine's lane keeps (`data/lane.rs`), so both write the same
/// bytes.
#[derive(Copy, Clone, Debug)]
pub(in crate::data) struct HeaderTemplate {
    /// Word 0 without the size: HeaderType 0x13 (EVENT_HEADER64), MarkerFlags 0xC0, Flags,
    /// EventProperty 0.
    w0: u64,
    /// ThreadId, ProcessId.
    w1: u64,
    provider: [u64; 2],
    activity: [u64; 2],
}

impl HeaderTemplate {
    pub(in crate::data) const EMPTY: HeaderTemplate = HeaderTemplate {
        w0: 0,
        w1: 0,
        provider: [0; 2],
        activity: [0; 2],
    };

    #[inline(always)]
    pub(in crate::data) fn new(
        flags: u16,
        tid: u32,
        pid: u32,
        provider: [u64; 2],
        activity: [u64; 2],
    ) -> HeaderTemplate {
        HeaderTemplate {
            w0: 0x13 << 16 | 0xC0 << 24 | u64::from(flags) << 32,
            w1: u64::from(tid) | u64::from(pid) << 32,
            provider,
            activity,
        }
    }

    /// The header of a record of `size` bytes stamped `timestamp` with descriptor `d`.
    #[inline(always)]
    pub(in crate::data) fn words(
        &self,
        size: u16,
        timestamp: i64,
        d: &EventDescriptor,
    ) -> [u64; 10] {
        [
            self.w0 | u64::from(size),
            self.w1,
            timestamp as u64,
            self.provider[0],
            self.provider[1],
            u64::from(d.id)
                | u64::from(d.version) << 16
                | u64::from(d.channel.0) << 24
                | u64::from(d.level.0) << 32
                | u64::from(d.opcode.0) << 40
                | u64::from(d.task.0) << 48,
            d.keyword.0,
            0, // KernelTime, UserTime
            self.activity[0],
            self.activity[1],
        ]
    }
}

/// One write's arguments, passed by one reference through the closures of the event path
/// (closures that capture a single pointer move cheaply).
#[derive(Copy, Clone)]
struct Call<'a> {
    desc: &'a EventDescriptor,
    opts: &'a WriteOptions<'a>,
    data: &'a [&'a [u8]],
    string_only: bool,
}

/// What every copy of one event shares.
#[derive(Copy, Clone)]
struct Stamp {
    /// The activity ID as the header's two words ([`guid_words`]).
    activity: [u64; 2],
    ticks: u64,
    /// The caller's timestamp override (EVT-12), used as is in every session.
    timestamp: Option<i64>,
    cpu: usize,
    tid: u32,
    string_only: bool,
}

/// What a record needs of the simulated thread that writes it.
#[derive(Copy, Clone)]
struct Writer {
    tid: u32,
    cpu: usize,
    /// The thread's activity ID as the header's two words.
    activity: [u64; 2],
}

struct Plan<'a> {
    route: &'a Route,
    items: [Item<'a>; 8],
    item_count: usize,
    size: usize,
    refusal: Option<Refusal>,
}

/// The event path of one registration in one kernel: what [`Provider`](crate::Provider)'s
/// writes run (`api` wraps each public write in one call, inlined).
pub(crate) struct EventPath<'a, H: Host> {
    /// The kernel (its core and its simulated threads).
    pub(crate) kernel: &'a H,
    /// The registration written through.
    pub(crate) reg: &'a Arc<RegEntry>,
}

// Two references, passed by value (in registers): a method that is not inlined gets them
// without the pair being stored on the stack first, so a write with no session costs what
// it did when the path was `Provider`'s own methods (P1).
impl<H: Host> Clone for EventPath<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H: Host> Copy for EventPath<'_, H> {}

impl<H: Host> EventPath<'_, H> {
    /// [`Provider::write`](crate::Provider::write).
    #[inline(always)]
    pub(crate) fn write(self, descriptor: &EventDescriptor, data: &[&[u8]]) -> Result<()> {
        // P1: with no session the inlined part is two loads, a test and a branch; the
        // descriptor is not touched until some session listens.
        if !self.reg.is_enabled() {
            return Ok(());
        }
        // Keeps the compiler from loading the descriptor's level and keyword ahead of the
        // test above (it emits no instruction).
        std::sync::atomic::compiler_fence(Ordering::Acquire);
        if self.kernel.core().owner.is_some() {
            return self.write_single_threaded(descriptor, data);
        }
        self.write_listened::<false>(descriptor, data)
    }

    /// `write` once some session listens: the provider-side level and keyword check (P2), the
    /// event-id gate (P4), then the event path (out of line). Forced inline with `write` and
    /// `write_event`: left to the compiler, the enabled path grew until `write` itself was no
    /// longer inlined, and a call site with no session then built its argument slice in memory
    /// for the call (a store-forwarding stall: 7.9 ns against 1.6 ns in `write_disabled`).
    ///
    /// `LANE`: a single-threaded kernel's write its lane did not take; the event path then
    /// runs only on the kernel's thread, and refills the lane (`write_routed_plain_in`).
    #[inline(always)]
    fn write_listened<const LANE: bool>(
        self,
        descriptor: &EventDescriptor,
        data: &[&[u8]],
    ) -> Result<()> {
        if !self
            .reg
            .is_enabled_for(descriptor.level, descriptor.keyword)
        {
            return self.not_wanted(descriptor, &PLAIN);
        }
        // `write_event` with `PLAIN` options, which it would only test: the arguments, then
        // the event-id gate (FLT-19).
        if data.len() > MAX_EVENT_DATA_DESCRIPTORS {
            return Err(invalid_write(data.len(), 0));
        }
        if !self.reg.id_may_pass(descriptor.id) {
            return self.not_wanted(descriptor, &PLAIN);
        }
        if LANE {
            self.kernel.core().check_thread()?;
        }
        self.write_routed_plain_in::<LANE>(descriptor, data)
    }

    /// A single-threaded kernel's plain write, from its first check on: its engine's lane
    /// when it holds what the write needs (`data/lane.rs`: the lane's own level and keyword
    /// test stands for the provider's), else [`Provider::write_listened`]'s checks and the
    /// shared path, which then refills the lane. From another OS thread than the kernel's,
    /// `ERROR_INVALID_THREAD_ID` and nothing changes.
    #[inline(always)]
    fn write_single_threaded(self, desc: &EventDescriptor, data: &[&[u8]]) -> Result<()> {
        if let [payload] = data {
            if let Some(r) = self.write_lane(desc, payload) {
                return r.map_err(Refusal::error);
            }
        }
        self.write_single_threaded_shared(desc, data)
    }

    /// A single-threaded kernel's write when its lane did not take it.
    #[cold]
    #[inline(never)]
    fn write_single_threaded_shared(self, desc: &EventDescriptor, data: &[&[u8]]) -> Result<()> {
        self.write_listened::<true>(desc, data)
    }

    /// [`Provider::write_with`](crate::Provider::write_with).
    #[inline]
    pub(crate) fn write_with<R: AsRef<[u8]>>(
        self,
        descriptor: &EventDescriptor,
        build: impl FnOnce() -> R,
    ) -> Result<()> {
        if !self
            .reg
            .is_enabled_for(descriptor.level, descriptor.keyword)
        {
            return self.not_wanted(descriptor, &PLAIN);
        }
        let payload = build();
        self.write_event(descriptor, &PLAIN, &[payload.as_ref()], false)
    }

    /// [`Provider::write_tracelogging`](crate::Provider::write_tracelogging).
    #[inline]
    pub(crate) fn write_tracelogging(
        self,
        name: &str,
        descriptor: &EventDescriptor,
        fields: impl FnOnce(&mut EventBuilder),
    ) -> Result<()> {
        self.write_tracelogging_transfer(name, descriptor, None, None, fields)
    }

    /// [`Provider::write_tracelogging_transfer`](crate::Provider::write_tracelogging_transfer).
    #[inline]
    pub(crate) fn write_tracelogging_transfer(
        self,
        name: &str,
        descriptor: &EventDescriptor,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        fields: impl FnOnce(&mut EventBuilder),
    ) -> Result<()> {
        if !self
            .reg
            .is_enabled_for(descriptor.level, descriptor.keyword)
        {
            let opts = WriteOptions {
                event_name: Some(name),
                activity_id,
                related_activity_id,
                ..PLAIN
            };
            return self.not_wanted(descriptor, &opts);
        }
        let mut builder = EventBuilder::new(name);
        builder.set_descriptor(*descriptor);
        fields(&mut builder);
        self.write_built_tracelogging(name, &builder, activity_id, related_activity_id)
    }

    /// The rest of a TraceLogging write once some session may want it: encode, then write
    /// with the metadata as the EVENT_SCHEMA_TL item (or in the payload, EVT-12).
    #[cold]
    #[inline(never)]
    fn write_built_tracelogging(
        self,
        name: &str,
        builder: &EventBuilder,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
    ) -> Result<()> {
        let event = builder.build().map_err(|e| match e {
            etwsim_decode::Error::TooLarge { size, .. } => Error::Other {
                code: etwsim_types::Win32Error::ERROR_ARITHMETIC_OVERFLOW,
                context: format!("TraceLogging event {name:?}: metadata of {size} bytes (DEC-15)"),
            },
            other => Error::invalid(format!("TraceLogging event {name:?}: {other}")),
        })?;
        let typed = self.reg.info.lock().use_descriptor_type;
        let options = WriteOptions {
            activity_id,
            related_activity_id,
            event_name: typed.then_some(name),
            tracelogging_metadata: typed.then_some(&event.metadata[..]),
            ..WriteOptions::default()
        };
        let data: [&[u8]; 2] = [&event.metadata, &event.payload];
        let data = if typed { &data[1..] } else { &data[..] };
        self.write_with_options(&event.descriptor, &options, data)
    }

    /// [`Provider::write_transfer`](crate::Provider::write_transfer).
    pub(crate) fn write_transfer(
        self,
        descriptor: &EventDescriptor,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        data: &[&[u8]],
    ) -> Result<()> {
        let options = WriteOptions {
            activity_id,
            related_activity_id,
            ..WriteOptions::default()
        };
        self.write_with_options(descriptor, &options, data)
    }

    /// [`Provider::write_ex`](crate::Provider::write_ex).
    pub(crate) fn write_ex(
        self,
        descriptor: &EventDescriptor,
        filter: u64,
        flags: u32,
        activity_id: Option<&Guid>,
        related_activity_id: Option<&Guid>,
        data: &[&[u8]],
    ) -> Result<()> {
        let options = WriteOptions {
            activity_id,
            related_activity_id,
            filter,
            flags,
            ..WriteOptions::default()
        };
        self.write_with_options(descriptor, &options, data)
    }

    /// [`Provider::write_string`](crate::Provider::write_string).
    pub(crate) fn write_string(self, level: Level, keyword: Keyword, text: &str) -> Result<()> {
        if !self.reg.is_enabled_for(level, keyword) {
            return self.not_wanted(&EventDescriptor::new(0, level, keyword), &PLAIN);
        }
        let units: Vec<u8> = text
            .encode_utf16()
            .chain(std::iter::once(0))
            .flat_map(u16::to_le_bytes)
            .collect();
        let descriptor = EventDescriptor::new(0, level, keyword);
        self.write_event(&descriptor, &PLAIN, &[&units], true)
    }

    /// [`Provider::write_with_options`](crate::Provider::write_with_options).
    #[inline]
    pub(crate) fn write_with_options(
        self,
        descriptor: &EventDescriptor,
        options: &WriteOptions<'_>,
        data: &[&[u8]],
    ) -> Result<()> {
        if !self
            .reg
            .is_enabled_for(descriptor.level, descriptor.keyword)
        {
            return self.not_wanted(descriptor, options);
        }
        self.write_event(descriptor, options, data, false)
    }

    /// The return of a write that no session wants (EVT-02): `Ok`, journaled when the
    /// kernel keeps a journal and some session enables the provider.
    #[inline]
    fn not_wanted(self, desc: &EventDescriptor, opts: &WriteOptions<'_>) -> Result<()> {
        if self.kernel.core().journal.is_some() {
            self.journal_write(desc, opts, &[], &Ok(()));
        }
        Ok(())
    }

    /// Journals a write: every enabling session's verdict (as [`Provider::explain`] gives
    /// it), corrected by what happened — a session that refused the event lost it, and a
    /// dependent session that had room was withheld it when another one refused (EVT-09) —,
    /// and the result.
    #[cold]
    #[inline(never)]
    fn journal_write(
        self,
        desc: &EventDescriptor,
        opts: &WriteOptions<'_>,
        data: &[&[u8]],
        result: &Result<()>,
    ) {
        let refused = crate::data::store::take_refusals();
        let mut why = self.kernel.explain(
            self.reg,
            &EventView {
                descriptor: desc,
                name: opts.event_name,
                filter_mask: opts.filter,
                inprivate: opts.flags & EVENT_WRITE_FLAG_INPRIVATE != 0,
                payload: data,
            },
        );
        if why.verdicts.is_empty() {
            return; // no session enables the provider: nothing was decided
        }
        let routes = self.reg.routes();
        let dependent = |handle| {
            routes
                .iter()
                .any(|r| r.logger.handle == handle && !is_independent(r))
        };
        let refuser = refused
            .iter()
            .find(|(h, _)| dependent(*h))
            .and_then(|(h, r)| {
                let v = why.verdicts.iter().find(|v| v.session == *h)?;
                Some((v.session_name.clone(), r.error().win32_code()))
            });
        for v in why.verdicts.iter_mut().filter(|v| v.recorded) {
            if let Some((_, r)) = refused.iter().find(|(h, _)| *h == v.session) {
                v.recorded = false;
                v.reason = Reason::Lost {
                    error: r.error().win32_code(),
                    rule: r.rule(),
                };
            } else if let (Err(_), Some((by, error))) = (result, &refuser) {
                if dependent(v.session) {
                    v.recorded = false;
                    v.reason = Reason::Withheld {
                        by: by.clone(),
                        error: *error,
                    };
                }
            }
        }
        self.kernel.core().note(|| JournalEvent::Write {
            provider: self.reg.guid,
            pid: self.reg.pid,
            descriptor: *desc,
            result: result.as_ref().map(|_| ()).map_err(Error::win32_code),
            verdicts: why.verdicts,
        });
    }

    /// The checks every write form shares once a session may want the event: the arguments
    /// (an invalid call is an error even when no session would record it), then the event-id
    /// gate. Inline, so an event every session's id filter rejects costs a few instructions
    /// (P4); the rest of the path is out of line.
    #[inline(always)]
    fn write_event(
        self,
        desc: &EventDescriptor,
        opts: &WriteOptions<'_>,
        data: &[&[u8]],
        string_only: bool,
    ) -> Result<()> {
        if data.len() > MAX_EVENT_DATA_DESCRIPTORS
            || opts.flags & !(EVENT_WRITE_FLAG_NO_FAULTING | EVENT_WRITE_FLAG_INPRIVATE) != 0
        {
            return Err(invalid_write(data.len(), opts.flags));
        }
        let may_pass = match opts.event_name {
            // FLT-19: no session takes this id (filter-in lists without it, filter-out lists
            // with it).
            None => self.reg.id_may_pass(desc.id),
            // FLT-22: no session's filter-in name list holds this name.
            Some(name) => self.reg.name_may_pass(name),
        };
        if !may_pass {
            return self.not_wanted(desc, opts);
        }
        self.write_routed(desc, opts, data, string_only)
    }

    /// Steps 2–5 of the event flow.
    #[cold]
    #[inline(never)]
    fn write_routed(
        self,
        desc: &EventDescriptor,
        opts: &WriteOptions<'_>,
        data: &[&[u8]],
        string_only: bool,
    ) -> Result<()> {
        if (std::ptr::eq(opts, &PLAIN) || opts.is_plain()) && !string_only {
            if self.kernel.core().owner.is_some() {
                return self.write_single_threaded(desc, data);
            }
            return self.write_routed_plain_in::<false>(desc, data);
        }
        self.write_general(desc, opts, data, string_only)
    }

    /// [`Provider::write_routed`] of a write with no option (`EventWrite`): the common
    /// record's path when it applies, else the general one.
    #[cold]
    #[inline(never)]
    ///
    /// `LANE`: the kernel is single-threaded and this is its thread; a write the
    /// single-session branch makes refills the thread's lane (`data/lane.rs`).
    fn write_routed_plain_in<const LANE: bool>(
        self,
        desc: &EventDescriptor,
        data: &[&[u8]],
    ) -> Result<()> {
        if let ([payload], None) = (data, &self.kernel.core().journal) {
            // One data block, no journal.
            if let Ok(Some(r)) =
                WRITER_LOCAL.try_with(|l| self.try_write_single::<LANE>(desc, payload, l))
            {
                return r.map_err(Refusal::error);
            }
        }
        self.write_general(desc, &PLAIN, data, false)
    }

    /// Steps 2–5 for the common write when this OS thread has what it needs at hand: the
    /// registration's route table in its cache, a single-session table (`Routes::single`),
    /// and the writer's simulated thread innermost among those it entered (or its implicit
    /// thread listed). `None` when any of that is missing — decided before any side effect —
    /// and the general path then does the whole write. The record is the one the general
    /// path's single-session branch (`route`, `emit_single`) writes.
    #[inline(always)]
    fn try_write_single<const LANE: bool>(
        self,
        desc: &EventDescriptor,
        payload: &&[u8],
        local: &WriterLocal,
    ) -> Option<std::result::Result<(), Refusal>> {
        let cache = local.routes.try_borrow().ok()?;
        let routes = self.reg.cached_routes(&cache)?;
        if !routes.single || self.reg.traits_blob.get().is_some() {
            return None;
        }
        // A single-threaded kernel's lane is filled below, with what is read after this.
        let epoch = if LANE { lane_epoch() } else { 0 };
        let route = &routes[0];
        if !(route.logger.is_running() && routes.single_passes(desc)) {
            return Some(Ok(())); // EVT-02
        }
        if route.logger.journal.is_some() {
            return None;
        }
        // The writer's simulated thread, as `current_in` finds it when it is the innermost
        // one entered, or when none is entered and this OS thread's implicit thread for the
        // process is listed (otherwise the general path looks it up). What the record needs
        // of it is read here and the list's borrow ends (one value less to keep through the
        // write).
        let mine = |t: &ThreadState| {
            t.kernel_id == self.kernel.id() && t.process_key == self.reg.process_key
        };
        let read = |t: &ThreadState| Writer {
            tid: t.tid,
            cpu: t.cpu.load(Ordering::Relaxed) as usize,
            activity: t.activity_words(),
        };
        let writer = {
            let entered = local.entered.try_borrow().ok()?;
            match entered.last() {
                Some(t) if mine(t) => read(t),
                Some(_) => return None,
                // A single-threaded kernel is deterministic: the process's main thread.
                None if LANE => read(&self.kernel.implicit_thread(self.reg.process_key)),
                None => {
                    let implicit = local.implicit.try_borrow().ok()?;
                    read(implicit.iter().find(|t| mine(t))?)
                }
            }
        };
        #[cfg(test)]
        tests::PLAIN_HITS.with(|h| h.set(h.get() + 1));
        let r = self.emit_plain(route, desc, payload, writer);
        if LANE && r.is_ok() {
            self.fill_lane(routes, epoch, (writer.tid, writer.cpu, writer.activity));
        }
        Some(r)
    }

    /// [`Provider::emit_single`] and [`Provider::store`] of the common record — header + one
    /// data block, no option, no journal — with every value in a local: the header is built
    /// in registers, and the record written and committed in one step
    /// ([`BufferPool::write_record`]). The same bytes as the general path (the golden
    /// workload hashes and `the_plain_write_path_writes_what_the_general_path_writes` in
    /// `tests/engine/determinism.rs` check it).
    #[inline(always)]
    fn emit_plain(
        self,
        route: &Route,
        desc: &EventDescriptor,
        payload: &[u8],
        writer: Writer,
    ) -> std::result::Result<(), Refusal> {
        let ctx = &route.logger;
        let ticks = self.kernel.core().clock.event_now();
        let Writer { tid, cpu, activity } = writer;
        let size = EVENT_HEADER_SIZE + payload.len();
        let mut result = match refusal(ctx, size) {
            Some(r) => Err(r),
            None => {
                let flags = if ctx.private_owner.is_some() {
                    header_flags::PRIVATE_SESSION
                } else {
                    0
                };
                let head = header_words(
                    size as u16,
                    flags,
                    tid,
                    self.reg.pid,
                    ctx.clock.raw(ticks, ctx.cfg.clock),
                    self.reg.guid_words,
                    desc,
                    activity,
                );
                // Stored only if the session still takes writes, checked inside the pool's
                // in-flight mark (the other half of STOP's handshake, see `store`).
                let pool = &ctx.pool;
                match pool.write_record(
                    cpu,
                    || ctx.accepts_writes(),
                    align8(size) as u64,
                    &head,
                    payload,
                ) {
                    Ok(_) => Ok(()),
                    Err(e) => Err(reserve_refusal(e, size, pool.capacity())),
                }
            }
        };
        if let Err(r) = result {
            ctx.counters.events_lost.fetch_add(1, Ordering::Relaxed);
            r.journal(ctx);
            if is_independent(route) {
                result = Ok(()); // EVT-10
            }
        }
        result
    }

    /// Steps 2–5 of the event flow, every form of write.
    #[inline(never)]
    fn write_general(
        self,
        desc: &EventDescriptor,
        opts: &WriteOptions<'_>,
        data: &[&[u8]],
        string_only: bool,
    ) -> Result<()> {
        self.kernel.core().check_thread()?; // a single-threaded kernel's sessions are its thread's
        let journaling = self.kernel.core().journal.is_some();
        if journaling {
            crate::data::store::begin_refusals();
        }
        let call = Call {
            desc,
            opts,
            data,
            string_only,
        };
        // One thread-local lookup serves the route cache and the current simulated thread.
        let r = with_writer_local(|local| {
            self.reg
                .with_routes_in(local, |routes| self.route(routes, &call, local))
        })
        .map_err(Refusal::error);
        if journaling {
            self.journal_write(desc, opts, data, &r);
        }
        r
    }

    /// Step 2 (routing) and on: the sessions of `routes` that take the event. The
    /// single-session check is inlined into the caller; the general case is out of line.
    #[inline(always)]
    fn route(
        self,
        routes: &Routes,
        call: &Call<'_>,
        local: Option<&WriterLocal>,
    ) -> std::result::Result<(), Refusal> {
        let Call { desc, opts, .. } = *call;
        let plain = std::ptr::eq(opts, &PLAIN)
            || (opts.related_activity_id.is_none()
                && opts.filter == 0
                && opts.flags == 0
                && opts.event_name.is_none()
                && opts.tracelogging_metadata.is_none()
                && opts.provider_traits.is_none()
                && opts.timestamp.is_none());
        if routes.single && plain && self.reg.traits_blob.get().is_none() {
            // One session, nothing but level and keywords to check, no extended item: the
            // record is header + payload (the general path below gives the same bytes).
            let route = &routes[0];
            if !(route.logger.is_running() && routes.single_passes(desc)) {
                return Ok(()); // EVT-02
            }
            return current_in(local, self.kernel, self.reg.process_key, |t| {
                self.emit_single(route, call, t)
            });
        }
        self.route_general(routes, call, local)
    }

    /// Step 2 for a table the single-session path does not cover: every session's predicate.
    #[inline(never)]
    fn route_general(
        self,
        routes: &Routes,
        call: &Call<'_>,
        local: Option<&WriterLocal>,
    ) -> std::result::Result<(), Refusal> {
        let Call {
            desc,
            opts,
            data,
            string_only,
        } = *call;
        let ev = EventView {
            descriptor: desc,
            name: opts.event_name,
            filter_mask: opts.filter,
            inprivate: opts.flags & EVENT_WRITE_FLAG_INPRIVATE != 0 || self.reg.inprivate,
            payload: data,
        };
        let mut targets: [Option<(&Route, bool)>; 8] = [None; 8];
        let mut n = 0;
        for r in routes.iter() {
            if r.logger.is_running()
                && session_accepts(&ev, r.slot, &r.filter)
                && self.may_log_to(&r.logger)
            {
                targets[n] = Some((r, wants_stack(&ev, &r.filter)));
                n += 1;
            }
        }
        if n == 0 {
            return Ok(()); // EVT-02: enabled, but every session's filters said no
        }
        current_in(local, self.kernel, self.reg.process_key, |t| {
            self.emit(desc, opts, data, &targets[..n], t, string_only)
        })
    }

    /// SEC-06: a SECURE_MODE session takes events only from writers holding TRACELOG_LOG_EVENT
    /// on its GUID; other sessions take every writer. A refused session is skipped like one
    /// whose filters said no (the write's code is undocumented; simulator choice).
    fn may_log_to(self, logger: &crate::data::context::LoggerContext) -> bool {
        !logger.cfg.mode.contains(LogFileMode::SECURE)
            || self
                .kernel
                .may_log_to_secure(self.reg.process_key, logger.cfg.guid)
    }

    /// The event path for one session that wants no extended item: no plan tables, no
    /// all-or-none pre-pass (with one target, the reservation's own answer is the policy's).
    #[inline(always)]
    fn emit_single(
        self,
        route: &Route,
        call: &Call<'_>,
        thread: &ThreadState,
    ) -> std::result::Result<(), Refusal> {
        let Call {
            desc,
            opts,
            data,
            string_only,
        } = *call;
        let activity = opts.activity_id;
        let ticks = self.kernel.core().clock.event_now();
        let stamp = Stamp {
            activity: match activity {
                Some(g) => guid_words(g),
                None => thread.activity_words(),
            },
            ticks,
            timestamp: None,
            cpu: thread.cpu.load(Ordering::Relaxed) as usize,
            tid: thread.tid,
            string_only,
        };
        let payload_len = match data {
            [one] => one.len(), // the common call: one block, no loop
            _ => data.iter().map(|d| d.len()).sum(),
        };
        let size = EVENT_HEADER_SIZE + payload_len;
        let refusal = match refusal(&route.logger, size) {
            Some(r) => Some(r),
            None => self.store(route, &[], size, desc, data, stamp).err(),
        };
        match refusal {
            None => Ok(()),
            Some(r) => {
                route
                    .logger
                    .counters
                    .events_lost
                    .fetch_add(1, Ordering::Relaxed);
                r.journal(&route.logger);
                if is_independent(route) {
                    Ok(()) // EVT-10
                } else {
                    Err(r)
                }
            }
        }
    }

    fn emit(
        self,
        desc: &EventDescriptor,
        opts: &WriteOptions<'_>,
        data: &[&[u8]],
        targets: &[Option<(&Route, bool)>],
        thread: &ThreadState,
        string_only: bool,
    ) -> std::result::Result<(), Refusal> {
        let kernel = self.kernel.core();
        let ticks = kernel.clock.event_now();
        let activity = match opts.activity_id {
            Some(g) => guid_words(g),
            None => thread.activity_words(),
        };
        let cpu = thread.cpu.load(Ordering::Relaxed) as usize;
        let payload_len: usize = data.iter().map(|d| d.len()).sum();
        let wants = |p: EnableProperty| {
            targets
                .iter()
                .flatten()
                .any(|(r, _)| r.filter.enable_property.contains(p))
        };
        let event_key = if wants(EnableProperty::EVENT_KEY) {
            kernel.event_keys.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            0
        };
        let any_stack = targets.iter().flatten().any(|(_, s)| *s);
        let thread_stack = if any_stack {
            Some(thread.stack.lock().clone())
        } else {
            None
        };
        let synthetic = synthetic_stack(desc.id);
        let frames: &[u64] = match &thread_stack {
            Some(f) if !f.is_empty() => &f[..f.len().min(MAX_STACK_FRAMES)],
            _ => &synthetic,
        };
        let traits = self
            .reg
            .traits_blob
            .get()
            .map(|b| &b[..])
            .or(opts.provider_traits);

        let mut plans: [Option<Plan<'_>>; 8] = Default::default();
        for (i, (route, stack)) in targets.iter().flatten().enumerate() {
            let p = route.filter.enable_property;
            let mut items = [Item::None; 8];
            let mut k = 0;
            macro_rules! push {
                ($item:expr) => {{
                    items[k] = $item;
                    k += 1;
                }};
            }
            if let Some(rel) = opts.related_activity_id {
                push!(Item::Guid(ext_type::RELATED_ACTIVITYID, rel.to_bytes_le()));
            }
            if p.contains(EnableProperty::SID) && !self.reg.sid.is_empty() {
                push!(Item::Bytes(ext_type::SID, &self.reg.sid));
            }
            if p.contains(EnableProperty::TS_ID) {
                push!(Item::U32(ext_type::TS_ID, self.reg.ts_id));
            }
            if *stack {
                push!(Item::Stack(frames));
            }
            if p.contains(EnableProperty::EVENT_KEY) {
                push!(Item::U64(ext_type::EVENT_KEY, event_key));
            }
            if p.contains(EnableProperty::PROCESS_START_KEY) {
                push!(Item::U64(ext_type::PROCESS_START_KEY, self.reg.process_key));
            }
            if let Some(t) = traits {
                push!(Item::Bytes(ext_type::PROV_TRAITS, t));
            }
            if let Some(m) = opts.tracelogging_metadata {
                push!(Item::Bytes(ext_type::EVENT_SCHEMA_TL, m));
            }
            let size = EVENT_HEADER_SIZE
                + items[..k].iter().map(Item::encoded_len).sum::<usize>()
                + payload_len;
            let refusal = refusal(&route.logger, size);
            plans[i] = Some(Plan {
                route,
                items,
                item_count: k,
                size,
                refusal,
            });
        }

        // EVT-09: the dependent (non-independent) targets take it all or none.
        let independent = |p: &Plan<'_>| is_independent(p.route);
        // Whether each dependent target has room is asked once: under threads a second look
        // can answer differently (the logger freed a buffer in between), and then an event
        // refused for lack of room would be neither recorded nor counted as lost.
        let mut room = [false; 8];
        for (i, p) in plans.iter().flatten().enumerate() {
            room[i] = !independent(p)
                && p.refusal.is_none()
                && p.route.logger.pool.can_reserve(cpu, align8(p.size) as u64);
        }
        let dependent_ok = plans
            .iter()
            .flatten()
            .enumerate()
            .all(|(i, p)| independent(p) || room[i]);
        let stamp = Stamp {
            activity,
            ticks,
            timestamp: opts.timestamp,
            cpu,
            tid: thread.tid,
            string_only,
        };
        let mut result = Ok(());
        for (i, plan) in plans.iter().flatten().enumerate() {
            let dependent = !independent(plan);
            let refusal = if dependent && !dependent_ok {
                match plan.refusal {
                    Some(r) => Some(r),
                    None if !room[i] => {
                        // BUF-03: the full in-use buffer is handed over even though the event
                        // is refused, so the logger can free it.
                        plan.route
                            .logger
                            .pool
                            .seal_if_full(cpu, align8(plan.size) as u64);
                        Some(Refusal::NO_BUFFER)
                    }
                    None => {
                        continue; // it could take it, but another session could not: none does
                    }
                }
            } else {
                plan.refusal
            };
            let refusal = match refusal {
                Some(r) => Some(r),
                None => self
                    .store(
                        plan.route,
                        &plan.items[..plan.item_count],
                        plan.size,
                        desc,
                        data,
                        stamp,
                    )
                    .err(),
            };
            if let Some(r) = refusal {
                plan.route
                    .logger
                    .counters
                    .events_lost
                    .fetch_add(1, Ordering::Relaxed);
                r.journal(&plan.route.logger);
                if dependent && result.is_ok() {
                    result = Err(r);
                }
            }
        }
        result
    }

    /// Stores one copy of the event in one session. The store is bracketed by the pool's
    /// in-flight count, and re-checks that the session still takes writes inside it: a STOP
    /// that began after the routing check waits for this write before its final flush, or
    /// this write sees the stop and stores nothing (the event came after the stop began).
    #[inline(always)]
    fn store(
        self,
        route: &Route,
        items: &[Item<'_>],
        size: usize,
        desc: &EventDescriptor,
        data: &[&[u8]],
        stamp: Stamp,
    ) -> std::result::Result<(), Refusal> {
        let pool = &route.logger.pool;
        pool.enter(stamp.cpu);
        let result = if route.logger.accepts_writes() {
            self.store_in_buffer(route, items, size, desc, data, stamp)
        } else {
            Ok(())
        };
        pool.exit(stamp.cpu);
        result
    }

    #[inline(always)]
    fn store_in_buffer(
        self,
        route: &Route,
        items: &[Item<'_>],
        size: usize,
        desc: &EventDescriptor,
        data: &[&[u8]],
        stamp: Stamp,
    ) -> std::result::Result<(), Refusal> {
        let ctx = &route.logger;
        let mut rec = ctx
            .pool
            .record(stamp.cpu, align8(size) as u64)
            .map_err(|e| reserve_refusal(e, size, ctx.pool.capacity()))?;
        if rec.offset() == etwsim_buffers::HEADER && ctx.journal.is_some() {
            // The first record of a buffer: this CPU just switched to it (BUF-02, BUF-03).
            ctx.note(|| JournalEvent::BufferSwitch {
                session: ctx.cfg.name.clone(),
                handle: ctx.handle,
                cpu: stamp.cpu as u16,
                buffers: ctx.pool.allocated(),
            });
        }
        let mut flags = 0;
        if !items.is_empty() {
            flags |= header_flags::EXTENDED_INFO;
        }
        if ctx.private_owner.is_some() {
            flags |= header_flags::PRIVATE_SESSION;
        }
        if stamp.string_only {
            flags |= header_flags::STRING_ONLY;
        }
        let head = header_words(
            size as u16,
            flags,
            stamp.tid,
            self.reg.pid,
            stamp
                .timestamp
                .unwrap_or_else(|| ctx.clock.raw(stamp.ticks, ctx.cfg.clock)),
            self.reg.guid_words,
            desc,
            stamp.activity,
        );
        rec.put_words(&head);
        if let ([], [payload]) = (items, data) {
            // The common record: header + one data block, no extended item.
            store_bytes(&mut rec, payload);
        } else {
            for (k, item) in items.iter().enumerate() {
                let linkage: u16 = u16::from(k + 1 < items.len());
                rec.put(&(item.encoded_len() as u16).to_le_bytes());
                rec.put(&item.ext().to_le_bytes());
                rec.put(&linkage.to_le_bytes());
                rec.put(&(item.data_len() as u16).to_le_bytes());
                item.write(&mut rec);
                rec.pad8();
            }
            for d in data {
                rec.put(d);
            }
            rec.pad8();
        }
        // Dropping the record commits it.
        drop(rec);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::ids::guid_from_words;
    use etwsim_types::record::{EventHeader, encode_event_header};
    use etwsim_types::{Channel, Keyword, Level, Opcode, Task};

    #[test]
    fn refusals_round_trip_through_their_packed_word() {
        assert_eq!(std::mem::size_of::<std::result::Result<(), Refusal>>(), 8);
        assert!(matches!(
            Refusal::too_large(70_000).error(),
            Error::EventTooLarge { size: 70_000 }
        ));
        assert!(matches!(
            Refusal::too_large(usize::MAX).error(),
            Error::EventTooLarge { size } if size == u32::MAX as usize
        ));
        assert!(matches!(
            Refusal::larger_than_buffer(5_000, 16 * 1024 * 1024 - 72).error(),
            Error::EventLargerThanBuffer { size: 5_000, capacity } if capacity == 16 * 1024 * 1024 - 72
        ));
        assert!(matches!(Refusal::NO_BUFFER.error(), Error::NoFreeBuffer));
        assert!(matches!(
            Refusal::BACKLOG_FULL.error(),
            Error::RealTimeBacklogFull
        ));
        assert!(matches!(Refusal::WRONG_THREAD.error(), Error::WrongThread));
    }

    thread_local! {
        /// Writes this thread sent down the plain path's single-session branch
        /// (`try_write_single` → `emit_plain`).
        pub(super) static PLAIN_HITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn plain_options_are_the_defaults() {
        assert_eq!(
            format!("{PLAIN:?}"),
            format!("{:?}", WriteOptions::default())
        );
        assert!(PLAIN.is_plain() && WriteOptions::default().is_plain());
        let g = Guid::from_u128(1);
        for opts in [
            WriteOptions {
                activity_id: Some(&g),
                ..WriteOptions::default()
            },
            WriteOptions {
                related_activity_id: Some(&g),
                ..WriteOptions::default()
            },
            WriteOptions {
                filter: 1,
                ..WriteOptions::default()
            },
            WriteOptions {
                flags: EVENT_WRITE_FLAG_INPRIVATE,
                ..WriteOptions::default()
            },
            WriteOptions {
                event_name: Some("E"),
                ..WriteOptions::default()
            },
            WriteOptions {
                tracelogging_metadata: Some(&[0]),
                ..WriteOptions::default()
            },
            WriteOptions {
                provider_traits: Some(&[0]),
                ..WriteOptions::default()
            },
            WriteOptions {
                timestamp: Some(0),
                ..WriteOptions::default()
            },
        ] {
            assert!(!opts.is_plain(), "{opts:?}");
        }
    }

    /// The Win32 face's EventWrite (and so the C ABI's) passes its own default
    /// `WriteOptions` to `Provider::write_with_options`: such a write takes the plain path's
    /// single-session branch as `Provider::write` does, and writes the same bytes.
    #[test]
    fn default_options_take_the_plain_path() {
        // rule: EVT-01
        use crate::{EnableParams, Kernel, MemorySink, Token};
        let hits = || PLAIN_HITS.with(std::cell::Cell::get);
        let run = |how: u8| {
            let k = Kernel::builder().deterministic(3).build().unwrap();
            let app = k.spawn("app.exe", Token::user("u")).unwrap();
            let g = Guid::from_u128(0x5eed_0000_0000_4000_8000_0000_0000_0029);
            let p = app.register_provider(g).unwrap();
            let t = app.spawn_thread(0).unwrap();
            let activity = Guid::from_u128(0xac71);
            t.set_activity_id(activity);
            let _on = t.enter();
            let sink = MemorySink::new();
            let s = k.session("s").log_file("s.etl").sink(sink.clone());
            let s = s.start().unwrap();
            s.enable(g, &EnableParams::new().level(Level::INFORMATION))
                .unwrap();
            let before = hits();
            let same_activity = WriteOptions {
                activity_id: Some(&activity),
                ..WriteOptions::default()
            };
            for i in 0..20u16 {
                let d = EventDescriptor::new(i, Level([4, 5][usize::from(i % 2)]), Keyword(1));
                let payload = i.to_le_bytes();
                match how {
                    0 => p.write(&d, &[&payload]),
                    1 => p.write_with_options(&d, &WriteOptions::default(), &[&payload]),
                    _ => p.write_with_options(&d, &same_activity, &[&payload]),
                }
                .unwrap();
            }
            let lean = hits() - before;
            s.stop().unwrap();
            (sink.buffers(), lean)
        };
        let (write, default, general) = (run(0), run(1), run(2));
        // The first write caches the route table on the general path; of the other 19, the
        // 9 at level 4 are written by the plain branch (the level-5 ones stop at the
        // provider-side check).
        assert_eq!(write.1, 9);
        assert_eq!(default.1, 9, "default options take the plain branch");
        assert_eq!(general.1, 0, "an activity ID takes the general path");
        assert_eq!(write.0, default.0);
        assert_eq!(write.0, general.0);
        assert!(!write.0.is_empty());
    }

    #[test]
    fn guid_words_match_the_bytes() {
        for v in [0u128, u128::MAX, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210] {
            let g = Guid::from_u128(v);
            let words: Vec<u8> = guid_words(&g)
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            assert_eq!(words, g.to_bytes_le());
            assert_eq!(guid_from_words(guid_words(&g)), g);
        }
    }

    #[test]
    fn store_bytes_pads_and_keeps_every_length() {
        use etwsim_buffers::{BufferPool, HEADER};
        // One buffer of a header and 80 bytes, written over and over: each round first fills
        // it with 0xFF (stale bytes the padding must overwrite).
        let pool = BufferPool::new(HEADER + 80, 1, 1, 1, 1, false);
        let flushed = |pool: &BufferPool| {
            pool.seal_all();
            let ready = pool.pop_ready().expect("the record's buffer is ready");
            let mut scratch = Vec::new();
            let out = pool
                .flushed(&ready, &[0; HEADER as usize], 0xAB, &mut scratch)
                .to_vec();
            pool.release(ready);
            out
        };
        for len in 0..80 {
            pool.record(0, 80).unwrap().put(&[0xFF; 80]);
            assert!(flushed(&pool)[HEADER as usize..].iter().all(|&b| b == 0xFF));
            let bytes: Vec<u8> = (0..len).map(|i| i as u8 + 1).collect();
            let room = {
                let mut rec = pool.record(0, 80).unwrap();
                store_bytes(&mut rec, &bytes);
                rec.room()
            };
            let mut want = bytes.clone();
            want.resize(align8(len), 0);
            assert_eq!(
                room,
                80 - want.len(),
                "{len} bytes: nothing stored past the padding"
            );
            let out = flushed(&pool);
            assert_eq!(&out[HEADER as usize..][..want.len()], want, "{len} bytes");
            assert!(
                out[HEADER as usize + want.len()..].iter().all(|&b| b == 0),
                "{len} bytes: the rest of the reservation is zeroed, not stale"
            );
        }
    }

    #[test]
    fn header_words_match_the_encoder() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..1000 {
            let d = EventDescriptor {
                id: next() as u16,
                version: next() as u8,
                channel: Channel(next() as u8),
                level: Level(next() as u8),
                opcode: Opcode(next() as u8),
                task: Task(next() as u16),
                keyword: Keyword(next()),
            };
            let provider = Guid::from_u128(u128::from(next()) << 64 | u128::from(next()));
            let activity = Guid::from_u128(u128::from(next()) << 64 | u128::from(next()));
            let h = EventHeader {
                size: next() as u16,
                header_type: 0x13,
                flags: next() as u16,
                event_property: 0,
                thread_id: next() as u32,
                process_id: next() as u32,
                timestamp: next() as i64,
                provider_id: provider,
                descriptor: d,
                kernel_time: 0,
                user_time: 0,
                activity_id: activity,
            };
            let mut bytes = [0u8; EVENT_HEADER_SIZE];
            encode_event_header(&h, &mut bytes);
            let words = header_words(
                h.size,
                h.flags,
                h.thread_id,
                h.process_id,
                h.timestamp,
                guid_words(&provider),
                &d,
                guid_words(&activity),
            );
            let from_words: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(from_words, bytes);
        }
    }
}
