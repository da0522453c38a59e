//! The single-threaded engine: the event path of a single-threaded deterministic kernel
//! ([`KernelBuilder::single_threaded`](crate::KernelBuilder::single_threaded)), P10.
//!
//! Such a kernel belongs to one OS thread, and every path that reaches its sessions' buffers
//! refuses the others (the buffer pool's "single-threaded pool"). So a write needs none of
//! the shared path's locked instructions: no CAS to reserve, no writers count to commit, no
//! in-flight mark for STOP's handshake, no atomic add on the virtual clock. It also need not
//! find its route table, its simulated thread and its buffer again on every call: this OS
//! thread's *lane* keeps what the last write of a registration found, and the next write of
//! the same registration checks that it still holds:
//!
//! | kept | still valid while |
//! |---|---|
//! | the one session of the registration's route table (`Routes::single`: level and keywords only) and its level and keyword test, which is the provider-side test too | the registration's route-table version is unchanged |
//! | the writer's TID, CPU and activity ID; the registration's traits (none); the session running, and whether it is real-time | nothing ended the [`lane_epoch`]: a simulated thread entered, left, moved or given an activity ID, traits set, a session stopping or switching real time |
//! | the writer's CPU's in-use buffer and its state word | the state word is what the lane's last write left: nothing reserved in the buffer, sealed or recycled it since |
//!
//! So a write the lane takes makes the checks of the table's right-hand column, the
//! session's level and keyword test (the provider's own, which it stands in for), the
//! record's size and a real-time session's backlog, then writes the header and payload with
//! plain stores and moves the buffer's offset and the clock with one store each.
//!
//! Anything else — a miss, a record that does not fit, a refusal to report — goes to the
//! shared path, which writes the event and refills the lane. The lane writes the record the
//! shared path's single-session branch writes (the same [`HeaderTemplate`], the same clock
//! tick, the same buffer and offset), so the two give the same bytes:
//! `tests/event_path/single_threaded.rs` writes one workload both ways and compares the files, and the
//! golden scenario of `tests/engine/determinism.rs` gives its golden hash on a single-threaded
//! kernel too.
//!
//! The lane lives in a thread-local, so it is this thread's alone; what it holds keeps the
//! session's buffers alive ([`OwnerHandle`]) until the next fill replaces it.

use crate::data::cache::Versioned;
use crate::data::context::LoggerContext;
use crate::data::core::Host;
use crate::data::route::RegEntry;
use crate::data::route::Routes;
use crate::data::store::Refusal;
use crate::data::write::EventPath;
use crate::data::write::HeaderTemplate;
use crate::filter::LevelKeywordGate;
use crate::machine::clock::Clock;
use crate::machine::thread::lane_epoch;
use etwsim_buffers::{Cursor, OwnerHandle};
use etwsim_types::EventDescriptor;
use etwsim_types::record::{EVENT_HEADER_SIZE, MAX_EVENT_SIZE, align8, header_flags};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What the last write of one registration on this OS thread found (see the module docs).
pub(in crate::data) struct Lane {
    /// The registration (its address: compared, never followed); 0 for an empty lane.
    reg: usize,
    /// Its route-table version when the lane was filled.
    version: u64,
    /// [`lane_epoch`] before the writer was read.
    epoch: u64,
    /// The one session of that route table (running: a stop ends the epoch), and its level
    /// and keyword test, which is the registration's own (`Routes::single_gate_is`): the
    /// lane's write makes it in place of the provider-side check.
    ctx: Option<Arc<LoggerContext>>,
    gate: LevelKeywordGate,
    /// The kernel's clock.
    clock: Option<Arc<Clock>>,
    /// This thread's hold on the session's buffers, and the writer's CPU's in-use buffer as
    /// the lane's last write left it.
    buffers: Option<OwnerHandle>,
    cursor: Cursor,
    /// Whether that session delivers in real time (a change ends the epoch).
    realtime: bool,
    /// The header words the writer's events into that session share.
    head: HeaderTemplate,
    /// The session's timestamp of `t` ticks is `ts_add + t × ts_mul` (its clock type's
    /// `Clock::raw`, which is affine in `t`).
    ts_add: i64,
    ts_mul: i64,
}

impl Lane {
    const EMPTY: Lane = Lane {
        reg: 0,
        version: 0,
        epoch: 0,
        ctx: None,
        gate: LevelKeywordGate::NONE,
        clock: None,
        buffers: None,
        cursor: Cursor::NONE,
        realtime: false,
        head: HeaderTemplate::EMPTY,
        ts_add: 0,
        ts_mul: 0,
    };

    /// The write of `desc` and `payload` by `p` if the lane holds what it needs: `None` on a
    /// miss, with nothing changed.
    #[inline(always)]
    fn write(
        &mut self,
        reg: &RegEntry,
        desc: &EventDescriptor,
        payload: &[u8],
    ) -> Option<Result<(), Refusal>> {
        if self.reg != std::ptr::from_ref(reg) as usize
            || self.version != reg.routes_version()
            || self.epoch != lane_epoch()
        {
            return None;
        }
        let buffers = self.buffers.as_ref()?;
        if !self.gate.passes(desc) {
            return Some(Ok(())); // EVT-02: as the provider-side check returns
        }
        let size = EVENT_HEADER_SIZE + payload.len();
        if size > MAX_EVENT_SIZE || (self.realtime && self.backlog_full()) {
            return None; // a refusal: the shared path reports and counts it
        }
        let (now, ticks) = self.clock.as_deref()?.next_event()?;
        let at = buffers.open(self.cursor, align8(size) as u64)?;
        let timestamp = self
            .ts_add
            .wrapping_add((ticks as i64).wrapping_mul(self.ts_mul));
        let head = self.head.words(size as u16, timestamp, desc);
        self.cursor = at.write(&head, payload)?;
        now.store(ticks, Ordering::Relaxed);
        #[cfg(test)]
        tests::HITS.with(|h| h.set(h.get() + 1));
        Some(Ok(()))
    }
}

impl Lane {
    /// A real-time session's backing store is full (EVT-08).
    #[cold]
    fn backlog_full(&self) -> bool {
        self.ctx
            .as_deref()
            .is_none_or(|ctx| ctx.rt.full.load(Ordering::Acquire))
    }
}

thread_local! {
    static LANE: RefCell<Lane> = const { RefCell::new(Lane::EMPTY) };
}

impl<H: Host> EventPath<'_, H> {
    /// The single-threaded engine's write: `Some` when this OS thread's lane took it (see the
    /// module docs), `None` for the shared path to write it. Only for a single-threaded
    /// kernel, for a one-block write with no journal.
    #[inline(never)]
    pub(in crate::data) fn write_lane(
        self,
        desc: &EventDescriptor,
        payload: &[u8],
    ) -> Option<Result<(), Refusal>> {
        LANE.try_with(|l| l.try_borrow_mut().ok()?.write(self.reg, desc, payload))
            .ok()
            .flatten()
    }

    /// Fills this OS thread's lane after the shared path's single-session branch wrote a
    /// record through `routes` for the writer `tid` on `cpu` with `activity`, all read after
    /// `epoch` was. Empties it instead unless the session's pool belongs to this thread and
    /// its level and keyword test is the registration's own.
    #[cold]
    #[inline(never)]
    pub(in crate::data) fn fill_lane(
        self,
        routes: &Routes,
        epoch: u64,
        (tid, cpu, activity): (u32, usize, [u64; 2]),
    ) {
        let ctx = &routes[0].logger;
        let lane = match ctx.pool.cursor(cpu) {
            Some((buffers, cursor))
                if ctx.is_running()
                    && routes.single_gate_is(self.reg)
                    && self.reg.routes_version() == routes.version() =>
            {
                let raw0 = ctx.clock.raw(0, ctx.cfg.clock);
                let flags = if ctx.private_owner.is_some() {
                    header_flags::PRIVATE_SESSION
                } else {
                    0
                };
                Lane {
                    reg: std::ptr::from_ref(&**self.reg) as usize,
                    version: routes.version(),
                    epoch,
                    ctx: Some(ctx.clone()),
                    clock: Some(ctx.clock.clone()),
                    buffers: Some(buffers),
                    cursor,
                    gate: routes.single_gate(),
                    realtime: ctx.realtime.load(Ordering::Relaxed),
                    head: HeaderTemplate::new(
                        flags,
                        tid,
                        self.reg.pid,
                        self.reg.guid_words,
                        activity,
                    ),
                    ts_add: raw0,
                    ts_mul: ctx.clock.raw(1, ctx.cfg.clock).wrapping_sub(raw0),
                }
            }
            _ => Lane::EMPTY,
        };
        let _ = LANE.try_with(|l| {
            if let Ok(mut l) = l.try_borrow_mut() {
                *l = lane;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{EnableParams, Kernel, MemorySink, Token};
    use etwsim_types::{EventDescriptor, Guid, Keyword, Level};
    use std::cell::Cell;

    thread_local! {
        /// Records this thread's lane wrote.
        pub(super) static HITS: Cell<u64> = const { Cell::new(0) };
    }

    fn hits() -> u64 {
        HITS.with(Cell::get)
    }

    const G: Guid = Guid::from_u128(0x1a9e_0000_0000_4000_8000_0000_0000_0001);

    /// `n` writes; how many the lane took.
    fn taken(p: &crate::Provider, n: u64, level: Level) -> u64 {
        let before = hits();
        for i in 0..n {
            let d = EventDescriptor::new(i as u16, level, Keyword(1));
            p.write(&d, &[&i.to_le_bytes()]).unwrap();
        }
        hits() - before
    }

    /// A two-CPU deterministic kernel, single-threaded or not, with a process registering G.
    fn machine(single_threaded: bool) -> (Kernel, crate::Process, crate::Provider) {
        let b = Kernel::builder().cpus(2).deterministic(1);
        let b = if single_threaded {
            b.single_threaded()
        } else {
            b
        };
        let k = b.build().unwrap();
        let app = k.spawn("app.exe", Token::user("u")).unwrap();
        let p = app.register_provider(G).unwrap();
        (k, app, p)
    }

    #[test]
    fn the_lane_takes_repeated_writes_and_lets_every_change_through_once() {
        let (k, app, p) = machine(true);
        let sink = MemorySink::new();
        let s = k
            .session("s")
            .log_file("s.etl")
            .sink(sink.clone())
            .start()
            .unwrap();
        s.enable(G, &EnableParams::new().level(Level::INFORMATION))
            .unwrap();
        // The first write caches the route table (the general path), the second fills the
        // lane, the rest take it; a level the session does not take is answered by the lane
        // too (and writes nothing).
        assert_eq!(taken(&p, 10, Level::INFORMATION), 8);
        assert_eq!(taken(&p, 5, Level::VERBOSE), 0);
        assert_eq!(taken(&p, 2, Level::INFORMATION), 2);
        // Each change is one miss, then the lane again.
        let mut t = app.spawn_thread(1).unwrap();
        let on = t.enter();
        assert_eq!(
            taken(&p, 3, Level::INFORMATION),
            2,
            "another thread entered"
        );
        t.migrate(0).unwrap();
        assert_eq!(taken(&p, 3, Level::INFORMATION), 2, "moved to CPU 0");
        t.set_activity_id(Guid::from_u128(7));
        assert_eq!(taken(&p, 3, Level::INFORMATION), 2, "a new activity ID");
        s.flush().unwrap();
        assert_eq!(taken(&p, 3, Level::INFORMATION), 2, "the buffer was sealed");
        s.enable(G, &EnableParams::new().level(Level::VERBOSE))
            .unwrap();
        assert_eq!(
            taken(&p, 3, Level::VERBOSE),
            1,
            "a new route table: cached, then filled"
        );
        drop(on);
        assert_eq!(taken(&p, 3, Level::INFORMATION), 2, "the thread left");
        // A stopped session: nothing more is written, by the lane or otherwise.
        let written = s.stop().unwrap().events_lost;
        assert_eq!(written, 0);
        let records = sink.records().len();
        assert_eq!(taken(&p, 3, Level::INFORMATION), 0);
        assert_eq!(sink.records().len(), records);
        assert_eq!(records, 10 + 2 + 5 * 3 + 3);
    }

    #[test]
    fn a_lane_serves_only_a_single_threaded_kernel_and_one_session() {
        let (k, _app, p) = machine(false);
        let s = k.session("s").log_file("s.etl").start().unwrap();
        s.enable(G, &EnableParams::new()).unwrap();
        assert_eq!(taken(&p, 5, Level::INFORMATION), 0, "a shared kernel");

        let (k, _app, p) = machine(true);
        let a = k.session("a").log_file("a.etl").start().unwrap();
        let b = k.session("b").log_file("b.etl").start().unwrap();
        a.enable(G, &EnableParams::new()).unwrap();
        b.enable(G, &EnableParams::new()).unwrap();
        assert_eq!(taken(&p, 5, Level::INFORMATION), 0, "two sessions");
        b.disable(G).unwrap();
        assert_eq!(
            taken(&p, 5, Level::INFORMATION),
            3,
            "one again (cached, filled)"
        );
    }
}
