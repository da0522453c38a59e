//! Shared by the P5–P10 benches (write_enabled, fan_out, scaling, deterministic): the
//! floors (a bump-pointer copy of an 80-byte header + payload, with and without an atomic
//! `fetch_add` reservation and an `Instant`-based timestamp), a sink that discards buffers,
//! and the kernel set-up. Not a bench target itself (cargo only discovers `benches/*.rs` and
//! `benches/*/main.rs`).
#![allow(dead_code, unreachable_pub)]

use etwsim::{
    BufferInfo, EnableParams, EnableProperty, EventDescriptor, Guid, Kernel, Keyword, Level,
    Process, Provider, Session, Sink, Token,
};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
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
        let kernel = if threaded {
            b.threaded().build()
        } else {
            b.deterministic(7).build()
        }
        .expect("a kernel");
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

/// EventsLost of a session so far.
pub fn lost(s: &Session) -> u32 {
    s.query().expect("query").events_lost
}
