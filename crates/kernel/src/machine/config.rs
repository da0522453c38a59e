//! The machine's fixed parameters ([`KernelConfig`], the "boot configuration") and how the
//! kernel runs ([`ExecutionMode`]).

/// The largest buffer cap: buffers are indexed in 16 bits in the per-CPU slots.
pub const MAX_BUFFERS_CAP: u32 = 65_534;

/// How the kernel runs: with real threads and clocks, or stepped and reproducible.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExecutionMode {
    /// Real monotonic clocks and one logger thread per session; random GUIDs.
    Threaded,
    /// Virtual clock, no threads, session GUIDs from a generator seeded with `seed`: the same
    /// program gives the same results every run (see
    /// [`KernelBuilder::deterministic`](crate::KernelBuilder::deterministic) for what the
    /// seed changes: only the GUIDs of sessions started without one).
    Deterministic {
        /// Seed of the session-GUID generator.
        seed: u64,
    },
}

/// The kernel's fixed parameters (the "boot configuration").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelConfig {
    /// `EtwMaxLoggers`: running non-private sessions at once, 32..=256 (SES-01).
    pub max_loggers: u32,
    /// Simulated logical processors.
    pub cpus: u16,
    /// Threaded or deterministic.
    pub mode: ExecutionMode,
    /// BufferSize used when a session passes 0 (SES-58): 64 KB.
    pub default_buffer_size_kb: u32,
    /// The internal cap on Minimum/MaximumBuffers (SES-59, SES-60): 1024.
    pub max_buffers_cap: u32,
    /// Free bytes on the simulated disk, for StartTrace's ERROR_DISK_FULL check (SES-27).
    pub disk_free_bytes: u64,
    /// The most buffer memory one session may have, in bytes (SES-59/60's internal cap;
    /// default 256 MiB): Minimum/MaximumBuffers are lowered to fit.
    pub max_session_buffer_bytes: u64,
    /// The most buffer memory all running sessions together may have, in bytes; `None`
    /// (the default): no machine-wide limit beyond each session's. A real machine's ETW
    /// buffers come from its nonpaged pool, which is finite: with a limit, StartTrace lowers
    /// a new session's MaximumBuffers to what is left (SES-59/60's internal cap) and fails
    /// with `ERROR_NO_SYSTEM_RESOURCES` when not even its MinimumBuffers fit; UPDATE raises
    /// MaximumBuffers only as far as what is left.
    pub max_machine_buffer_bytes: Option<u64>,
    /// Virtual time one event write takes in deterministic mode, in 100-ns ticks (default 10).
    pub event_tick: u64,
    /// Real-time backing store per session, in buffers, while no consumer is attached
    /// (BUF-12; default 64).
    pub realtime_backlog_buffers: u32,
    /// Queue of each real-time consumer, in buffers (default 256).
    pub consumer_queue_buffers: u32,
    /// Deterministic mode: the logger's drain bandwidth in bytes per virtual second for
    /// `Kernel::advance`; `None` drains everything at each step.
    pub drain_bandwidth: Option<u64>,
    /// Where log files are written; `None` = a virtual disk in deterministic mode, the real
    /// file system in threaded mode.
    pub disk: Option<crate::machine::disk::Disk>,
    /// Keep a [journal](crate::journal) of at most this many entries; `None` (the default):
    /// no journal.
    pub journal: Option<usize>,
    /// Deterministic mode only: the kernel belongs to the OS thread that builds it
    /// ([`KernelBuilder::single_threaded`](crate::KernelBuilder::single_threaded)).
    pub single_threaded: bool,
}
