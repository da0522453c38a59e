//! Shared by the P5–P10 benches (write_enabled, fan_out, scaling, deterministic) and by
//! growth and system_ops: the floors (a bump-pointer copy of an 80-byte header + payload,
//! with and without an atomic `fetch_add` reservation and an `Instant`-based timestamp), a
//! sink that discards buffers, the check of every timed write's result ([`Failures`]), and
//! the kernel set-up. Not a bench target itself (cargo only discovers `benches/*.rs` and
//! `benches/*/main.rs`).
#![allow(dead_code, unreachable_pub)]

use etwsim::{
    BufferInfo, EnableParams, EnableProperty, EventDescriptor, Guid, Kernel, Keyword, Level,
    Process, Provider, Session, Sink, Token,
};
use std::hint::black_box;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// The provider every P5–P10 bench writes with.
pub const PROVIDER: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0000_0510);
/// The size of an `EVENT_HEADER`.
pub const HEADER: usize = 80;
/// The extended items of the `*_ext` configurations.
pub const EXT: EnableProperty = EnableProperty::SID
    .union(EnableProperty::TS_ID)
    .union(EnableProperty::EVENT_KEY);

/// The event every bench writes.
pub fn descriptor() -> EventDescriptor {
    EventDescriptor::new(7, Level::INFORMATION, Keyword(1))
}

/// A sink that drops every buffer: the logger's cost is the hand-back of the buffer only.
pub struct Discard;

impl Sink for Discard {
    fn write_buffer(&mut self, buffer: &[u8], _info: &BufferInfo) -> std::io::Result<()> {
        black_box(buffer.len());
        Ok(())
    }
}

/// The floors: copies of an 80-byte header + payload into a 1 MiB buffer, wrapping.
pub struct Floor {
    buf: Vec<u8>,
    off: usize,
    reserve: AtomicUsize,
    origin: Instant,
    header: [u8; HEADER],
}

impl Default for Floor {
    fn default() -> Self {
        Floor::new()
    }
}

impl Floor {
    const CAP: usize = 1 << 20;

    pub fn new() -> Floor {
        let mut header = [0u8; HEADER];
        for (i, b) in header.iter_mut().enumerate() {
            *b = i as u8;
        }
        Floor {
            buf: vec![0u8; Self::CAP],
            off: 0,
            reserve: AtomicUsize::new(0),
            origin: Instant::now(),
            header,
        }
    }

    #[inline(always)]
    fn copy_at(&mut self, off: usize, payload: &[u8], timestamp: u64) {
        let len = HEADER + payload.len();
        let dst = &mut self.buf[off..off + len];
        dst[..HEADER].copy_from_slice(&self.header);
        dst[0..2].copy_from_slice(&(len as u16).to_le_bytes());
        dst[16..24].copy_from_slice(&timestamp.to_le_bytes());
        dst[HEADER..].copy_from_slice(payload);
    }

    /// Bump pointer, no atomics, no timestamp.
    #[inline(never)]
    pub fn bump(&mut self, payload: &[u8]) {
        let len = HEADER + payload.len();
        let mut off = self.off;
        if off + len > Self::CAP {
            off = 0;
        }
        self.off = off + len;
        self.copy_at(off, payload, 0);
    }

    /// The same with a lock-free `fetch_add` reservation.
    #[inline(never)]
    pub fn atomic(&mut self, payload: &[u8]) {
        let off = self.reserve_atomic(HEADER + payload.len());
        self.copy_at(off, payload, 0);
    }

    /// The same with a timestamp from `Instant::now()`, as the threaded clock takes it: the
    /// P5/P6 floor.
    #[inline(never)]
    pub fn atomic_ts(&mut self, payload: &[u8]) {
        let off = self.reserve_atomic(HEADER + payload.len());
        let ts = self.origin.elapsed().as_nanos() as u64;
        self.copy_at(off, payload, ts);
    }

    #[inline(always)]
    fn reserve_atomic(&self, len: usize) -> usize {
        let off = self.reserve.fetch_add(len, Ordering::Relaxed);
        if off + len > Self::CAP {
            self.reserve.store(len, Ordering::Relaxed);
            0
        } else {
            off
        }
    }
}

/// P10's documented-work model: what the event path must do for one event of one session
/// that takes it, in straight-line code with the engine's atomics and nothing else — the
/// provider's enable, level and keyword test, the session's, the virtual clock's tick, the
/// in-flight mark and the running check (STOP's handshake), the reservation's CAS, ten header
/// words and the payload, the commit, and the logger's hand-over of every full 64 KB buffer
/// (its header written in place, the unused tail filled, the buffer lent to a sink that
/// discards it: what the engine's logger does).
/// No route table, no thread look-up, no refusal checks, no loss accounting. Not a target's
/// floor: it measures how far an implementation doing only the documented work could go.
pub struct DocumentedWork {
    enable: AtomicU64,
    any: AtomicU64,
    session_level: u8,
    session_any: u64,
    clock: AtomicU64,
    running: AtomicU32,
    active: AtomicU32,
    /// The buffer's state: the byte offset in the low 25 bits, writers in flight above.
    state: AtomicU64,
    buf: Vec<u8>,
    tid_pid: u64,
    guid: [u64; 2],
    activity: [u64; 2],
}

impl Default for DocumentedWork {
    fn default() -> Self {
        DocumentedWork::new()
    }
}

impl DocumentedWork {
    const SIZE: usize = 64 * 1024;
    const HEADER_BYTES: u64 = 72;
    const WRITER_ONE: u64 = 1 << 25;
    const OFFSET: u64 = (1 << 25) - 1;

    pub fn new() -> DocumentedWork {
        DocumentedWork {
            enable: AtomicU64::new(1 | u64::from(Level::VERBOSE.0) << 8),
            any: AtomicU64::new(u64::MAX),
            session_level: Level::VERBOSE.0,
            session_any: u64::MAX,
            clock: AtomicU64::new(0),
            running: AtomicU32::new(1),
            active: AtomicU32::new(0),
            state: AtomicU64::new(Self::HEADER_BYTES),
            buf: vec![0u8; Self::SIZE],
            tid_pid: 0x1234 | 0x5678 << 32,
            guid: [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210],
            activity: [0, 0],
        }
    }

    /// One event, with the engine's locked instructions (`LOCKED`) or with plain loads and
    /// stores in their place (what a single-threaded engine would do).
    #[inline(never)]
    pub fn write<const LOCKED: bool>(&mut self, d: &EventDescriptor, payload: &[u8]) {
        // The provider's enable word, level and keywords.
        let w = self.enable.load(Ordering::Relaxed);
        if w == 0 || d.level.0 > (w >> 8) as u8 {
            return;
        }
        if d.keyword.0 != 0 && d.keyword.0 & self.any.load(Ordering::Relaxed) == 0 {
            return;
        }
        // The session's level and keywords.
        if d.level.0 > self.session_level
            || (d.keyword.0 != 0 && d.keyword.0 & self.session_any == 0)
        {
            return;
        }
        let ticks = if LOCKED {
            self.clock.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            let t = self.clock.load(Ordering::Relaxed) + 1;
            self.clock.store(t, Ordering::Relaxed);
            t
        };
        if LOCKED {
            self.active.fetch_add(1, Ordering::SeqCst);
        } else {
            let a = self.active.load(Ordering::Relaxed);
            self.active.store(a + 1, Ordering::Relaxed);
        }
        if self.running.load(Ordering::SeqCst) == 1 {
            let size = HEADER + payload.len();
            let len = ((size + 7) & !7) as u64;
            let mut st = self.state.load(Ordering::Acquire);
            if (st & Self::OFFSET) + len > Self::SIZE as u64 {
                // The logger: the full buffer's header and fill written in place, the buffer
                // lent to the sink, then handed back empty.
                let used = (st & Self::OFFSET) as usize;
                self.buf[..Self::HEADER_BYTES as usize].fill(0x5A);
                self.buf[used..].fill(0xFF);
                black_box(&self.buf[..]);
                self.state.store(Self::HEADER_BYTES, Ordering::Release);
                st = Self::HEADER_BYTES;
            }
            let reserved = if LOCKED {
                self.state
                    .compare_exchange(
                        st,
                        st + len + Self::WRITER_ONE,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    )
                    .is_ok()
            } else {
                self.state
                    .store(st + len + Self::WRITER_ONE, Ordering::Relaxed);
                true
            };
            if reserved {
                let at = (st & Self::OFFSET) as usize;
                let head = [
                    size as u64 | 0x13 << 16 | 0xC0 << 24,
                    self.tid_pid,
                    ticks,
                    self.guid[0],
                    self.guid[1],
                    u64::from(d.id) | u64::from(d.level.0) << 32,
                    d.keyword.0,
                    0,
                    self.activity[0],
                    self.activity[1],
                ];
                let rec = &mut self.buf[at..at + len as usize];
                for (k, w) in head.iter().enumerate() {
                    rec[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
                }
                rec[HEADER..size].copy_from_slice(payload);
                rec[size..].fill(0);
                if LOCKED {
                    self.state.fetch_sub(Self::WRITER_ONE, Ordering::AcqRel);
                } else {
                    let st = self.state.load(Ordering::Relaxed);
                    self.state.store(st - Self::WRITER_ONE, Ordering::Release);
                }
            }
        }
        if LOCKED {
            self.active.fetch_sub(1, Ordering::Release);
        } else {
            let a = self.active.load(Ordering::Relaxed);
            self.active.store(a - 1, Ordering::Release);
        }
    }
}

/// A kernel, a user process with one provider, and one simulated thread per CPU.
pub struct Machine {
    pub kernel: Kernel,
    pub app: Process,
    pub provider: Provider,
    pub threads: Vec<etwsim::Thread>,
}

impl Machine {
    pub fn new(threaded: bool, cpus: u16) -> Machine {
        let b = Kernel::builder().cpus(cpus);
        let b = if threaded {
            b.threaded()
        } else {
            b.deterministic(7)
        };
        Machine::with(b, cpus)
    }

    /// A single-threaded deterministic kernel (`KernelBuilder::single_threaded`), owned by
    /// the calling thread.
    pub fn single_threaded(cpus: u16) -> Machine {
        let b = Kernel::builder()
            .cpus(cpus)
            .deterministic(7)
            .single_threaded();
        Machine::with(b, cpus)
    }

    fn with(builder: etwsim::KernelBuilder, cpus: u16) -> Machine {
        let kernel = builder.build().expect("a kernel");
        let app = kernel
            .spawn("bench.exe", Token::user("bench"))
            .expect("a process");
        let provider = app.register_provider(PROVIDER).expect("a provider");
        let threads = (0..cpus)
            .map(|c| app.spawn_thread(c).expect("a thread"))
            .collect();
        Machine {
            kernel,
            app,
            provider,
            threads,
        }
    }

    /// A session writing to [`Discard`], 64 KB buffers, MaximumBuffers `max`, the provider
    /// enabled with `props`.
    pub fn session(&self, name: &str, props: EnableProperty, max: u32) -> Session {
        let s = self
            .kernel
            .session(name)
            .log_file(&format!("{name}.etl"))
            .sink(Discard)
            .buffer_size_kb(64)
            .maximum_buffers(max)
            .start()
            .expect("the session starts");
        s.enable(PROVIDER, &EnableParams::new().property(props))
            .expect("enable");
        s
    }
}

/// The failed writes of a timed loop. Every timed write's result is checked where it is
/// made, as a caller checks it (`?`, `unwrap`), and [`Failures::report`] names any that
/// failed: a failed write (a lost event, EVT-07) is timed as if it were a cheap one, so a
/// configuration that reports failures did not time what it says.
///
/// A closure that returned the result instead, for criterion to `black_box`, would time the
/// harness: `black_box` puts the 40-byte `Result` in memory, written with 8-byte stores and
/// read back with 16-byte loads, which the CPU cannot forward from those stores (a
/// store-forwarding stall on every call). Earlier runs did; docs/PERFORMANCE.md ("The
/// harness") measures the difference, which `deterministic` keeps as a configuration.
#[derive(Debug, Default)]
pub struct Failures(u64);

impl Failures {
    /// Counts `r` if it failed.
    #[inline(always)]
    pub fn check(&mut self, r: etwsim::Result<()>) {
        if r.is_err() {
            self.0 += 1;
        }
    }

    /// Prints the failed writes of configuration `what` on standard error, if there were
    /// any (`scripts/bench_all.sh` shows these lines).
    pub fn report(&self, what: &str) {
        if self.0 > 0 {
            eprintln!("{what}: {} timed writes failed", self.0);
        }
    }
}

/// EventsLost of a session so far.
pub fn lost(s: &Session) -> u32 {
    s.query().expect("query").events_lost
}
