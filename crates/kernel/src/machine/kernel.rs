//! The kernel as a value: the silo state that holds the logger array, the GUID table and the
//! process table (`EtwpLoggerContext[]`, `EtwpGuidHashTable`, the client-ID table).
//!
//! # Locking
//!
//! Two locks, always taken in this order:
//!
//! 1. `control` — a re-entrant mutex that serialises control operations (StartTrace,
//!    ControlTrace, EnableTraceEx2, EventRegister/Unregister) *including the enable callbacks
//!    they cause*, so callbacks are delivered in the order of the operations that caused them
//!    and an operation returns only after its callbacks ran (PRV-18's synchronous enable). It
//!    is re-entrant because a callback may itself call a control API.
//! 2. `state` — a plain mutex over [`State`], held only while tables are read or changed,
//!    never while a callback runs.
//!
//! The event path takes neither: it reads each registration's cached enable word and its
//! route table, which are rebuilt under `state` (see `provider`).

use crate::control::provider::{GuidEntry, Pending};
use crate::control::session::LoggerContext;
use crate::journal::{Journal, JournalEntry, JournalEvent};
use crate::machine::clock::Clock;
use crate::machine::process::{Process, ProcessRecord, ProcessSpec, Token};
use crate::machine::thread::ThreadState;
use crate::{Error, Result};
use etwsim_types::Guid;
use etwsim_types::LogFileMode;
use parking_lot::{Mutex, ReentrantMutex};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest buffer cap: buffers are indexed in 16 bits in the per-CPU slots.
pub const MAX_BUFFERS_CAP: u32 = 65_534;

/// How the kernel runs: with real threads and clocks, or stepped and reproducible.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExecutionMode {
    /// Real monotonic clocks and one logger thread per session; random GUIDs.
    Threaded,
    /// Virtual clock, no threads, GUIDs from a generator seeded with `seed`: the same
    /// program gives the same results every run.
    Deterministic {
        /// Seed of the GUID generator.
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
    /// ([`KernelBuilder::single_threaded`]).
    pub single_threaded: bool,
}

/// Builds a [`Kernel`].
#[must_use]
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    pub(crate) config: KernelConfig,
}

impl KernelBuilder {
    /// `EtwMaxLoggers` (32..=256, default 64).
    pub fn max_loggers(mut self, n: u32) -> Self {
        self.config.max_loggers = n;
        self
    }
    /// Simulated CPUs (1..=256, default 4).
    pub fn cpus(mut self, n: u16) -> Self {
        self.config.cpus = n;
        self
    }
    /// Deterministic mode with this seed.
    pub fn deterministic(mut self, seed: u64) -> Self {
        self.config.mode = ExecutionMode::Deterministic { seed };
        self
    }
    /// Threaded mode (the default).
    pub fn threaded(mut self) -> Self {
        self.config.mode = ExecutionMode::Threaded;
        self
    }
    /// The BufferSize used for 0 (KB).
    pub fn default_buffer_size_kb(mut self, kb: u32) -> Self {
        self.config.default_buffer_size_kb = kb;
        self
    }
    /// The internal cap on a session's buffer count.
    pub fn max_buffers_cap(mut self, n: u32) -> Self {
        self.config.max_buffers_cap = n;
        self
    }
    /// Free space on the simulated disk.
    pub fn disk_free_bytes(mut self, bytes: u64) -> Self {
        self.config.disk_free_bytes = bytes;
        self
    }
    /// Where log files are written: [`Disk::Real`](crate::Disk::Real) or a
    /// [`VirtualDisk`](crate::VirtualDisk) (the default in deterministic mode).
    pub fn disk(mut self, disk: crate::machine::disk::Disk) -> Self {
        self.config.disk = Some(disk);
        self
    }
    /// The most buffer memory one session may have (SES-59/60's internal cap).
    pub fn max_session_buffer_bytes(mut self, bytes: u64) -> Self {
        self.config.max_session_buffer_bytes = bytes;
        self
    }
    /// The most buffer memory all running sessions together may have
    /// ([`KernelConfig::max_machine_buffer_bytes`]).
    pub fn max_machine_buffer_bytes(mut self, bytes: u64) -> Self {
        self.config.max_machine_buffer_bytes = Some(bytes);
        self
    }
    /// Virtual time per event write in deterministic mode (100-ns ticks).
    pub fn event_tick(mut self, ticks: u64) -> Self {
        self.config.event_tick = ticks;
        self
    }
    /// Real-time backing store per session, in buffers (BUF-12).
    pub fn realtime_backlog_buffers(mut self, n: u32) -> Self {
        self.config.realtime_backlog_buffers = n;
        self
    }
    /// Queue size of each real-time consumer, in buffers.
    pub fn consumer_queue_buffers(mut self, n: u32) -> Self {
        self.config.consumer_queue_buffers = n;
        self
    }
    /// Deterministic mode: the logger drains at most `bytes_per_second` of buffers per virtual
    /// second in [`Kernel::advance`].
    pub fn drain_bandwidth(mut self, bytes_per_second: u64) -> Self {
        self.config.drain_bandwidth = Some(bytes_per_second);
        self
    }

    /// Keep a [journal](crate::journal) of what the kernel does, bounded to the newest
    /// `capacity` entries ([`Kernel::journal`]).
    pub fn journal(mut self, capacity: usize) -> Self {
        self.config.journal = Some(capacity);
        self
    }

    /// A single-threaded deterministic kernel: it belongs to the OS thread that builds it,
    /// and its event writes take a path with no locked instruction (the single-threaded
    /// engine, docs/ARCHITECTURE.md). It writes the same bytes as any deterministic kernel.
    ///
    /// The contract, checked on every call that reaches a session's buffers: from any other
    /// OS thread, event writes (`Provider`'s, TraceEvent's), StartTrace, ControlTrace other
    /// than QUERY and EnableTraceEx2 fail with `ERROR_INVALID_THREAD_ID`
    /// ([`Error::WrongThread`]) and change nothing; [`Kernel::run_pending`] and
    /// [`Kernel::advance`] do nothing; the simulated OS's operations keep their tables but
    /// their kernel events are not recorded (they count as lost) and do not move the clock.
    /// Everything else — queries, registering providers, the OS's tables — works from any
    /// thread. The buffer pool checks the thread itself, so no path can reach the buffers from
    /// another thread (`crates/buffers/src/pool.rs`, "The single-threaded pool").
    ///
    /// ```
    /// use etwsim_kernel::{Error, Kernel};
    ///
    /// let k = Kernel::builder().deterministic(1).single_threaded().build()?;
    /// let elsewhere = std::thread::scope(|s| s.spawn(|| k.session("s").start().err()).join());
    /// assert_eq!(elsewhere.unwrap(), Some(Error::WrongThread));
    /// assert!(k.session("s").start().is_ok());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn single_threaded(mut self) -> Self {
        self.config.single_threaded = true;
        self
    }

    /// Boots the kernel: the System process (PID 4) exists, nothing else.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` if `max_loggers` is outside 32..=256, `cpus` outside
    /// 1..=256, the default buffer size outside 4..=16384 KB or the buffer cap is 0.
    pub fn build(self) -> Result<Kernel> {
        let c = &self.config;
        if !(32..=256).contains(&c.max_loggers) {
            return Err(Error::invalid(format!(
                "EtwMaxLoggers {} is outside 32..=256",
                c.max_loggers
            )));
        }
        if !(1..=256).contains(&c.cpus) {
            return Err(Error::invalid(format!(
                "{} CPUs: 1 to 256 are supported",
                c.cpus
            )));
        }
        if !(4..=16384).contains(&c.default_buffer_size_kb) {
            return Err(Error::invalid(
                "the default buffer size is outside 4..=16384 KB",
            ));
        }
        if !(1..=MAX_BUFFERS_CAP).contains(&c.max_buffers_cap) {
            return Err(Error::invalid(format!(
                "the buffer cap {} is outside 1..={MAX_BUFFERS_CAP}",
                c.max_buffers_cap
            )));
        }
        if c.realtime_backlog_buffers == 0 || c.consumer_queue_buffers == 0 {
            return Err(Error::invalid(
                "real-time backlog and consumer queues need at least one buffer",
            ));
        }
        if c.max_session_buffer_bytes < 8 * 1024 {
            return Err(Error::invalid(
                "a session needs room for at least two 4 KB buffers",
            ));
        }
        if c.max_machine_buffer_bytes.is_some_and(|b| b < 8 * 1024) {
            return Err(Error::invalid(
                "the machine needs room for at least two 4 KB buffers",
            ));
        }
        if c.drain_bandwidth == Some(0) {
            return Err(Error::invalid("a drain bandwidth of 0 would never drain"));
        }
        if c.single_threaded && c.mode == ExecutionMode::Threaded {
            return Err(Error::invalid(
                "a threaded kernel runs logger threads: only a deterministic one is single-threaded",
            ));
        }
        let seed = match c.mode {
            ExecutionMode::Deterministic { seed } => seed,
            ExecutionMode::Threaded => {
                use std::hash::{BuildHasher, Hasher};
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u128(
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_nanos())
                        .unwrap_or(0),
                );
                h.finish()
            }
        };
        let mut state = State {
            loggers: vec![None; c.max_loggers as usize + 2],
            live: Vec::new(),
            private_loggers: BTreeMap::new(),
            system_loggers: [None; crate::control::session::MAX_SYSTEM_LOGGERS],
            generation: 0,
            max_loggers: c.max_loggers,
            disk_free: c.disk_free_bytes,
            rng: SplitMix64(seed),
            processes: BTreeMap::new(),
            live_pids: HashMap::new(),
            next_client_id: 8,
            next_start_key: 1,
            guids: BTreeMap::new(),
            groups: BTreeMap::new(),
            next_reg_id: 1,
            enable_seq: 0,
            security: Default::default(),
        };
        let system = state.add_process(ProcessSpec::new("System", Token::local_system()).pid(4))?;
        let clock = match c.mode {
            ExecutionMode::Threaded => Clock::real(),
            ExecutionMode::Deterministic { .. } => Clock::virtual_clock(c.event_tick),
        };
        static KERNEL_IDS: AtomicU64 = AtomicU64::new(1);
        let disk = match (&c.disk, c.mode) {
            (Some(d), _) => d.clone(),
            (None, ExecutionMode::Deterministic { .. }) => {
                crate::machine::disk::Disk::virtual_disk()
            }
            (None, ExecutionMode::Threaded) => crate::machine::disk::Disk::Real,
        };
        let journal = c.journal.map(|n| Arc::new(Journal::new(n)));
        let owner = if c.single_threaded {
            match crate::machine::thread::os_thread() {
                0 => {
                    return Err(Error::invalid(
                        "a thread that is exiting cannot own a kernel",
                    ));
                }
                me => Some(me),
            }
        } else {
            None
        };
        let kernel = Kernel {
            inner: Arc::new(KernelInner {
                journal,
                manifests: Default::default(),
                config: self.config,
                control: ReentrantMutex::new(()),
                state: Mutex::new(state),
                system,
                id: KERNEL_IDS.fetch_add(1, Ordering::Relaxed),
                clock: Arc::new(clock),
                disk,
                activity_ids: AtomicU64::new(0),
                event_keys: AtomicU64::new(0),
                next_cpu: AtomicU64::new(0),
                sys: crate::system::SystemState::default(),
                owner,
            }),
        };
        // The System process's row of the OS tables (no session runs yet: no event).
        let spec = ProcessSpec::new("System", Token::local_system()).pid(system.1);
        kernel.os_process_started(system.0, &spec, system.1);
        Ok(kernel)
    }
}

/// A simulated machine's ETW: every test builds its own. Cheap to clone (an `Arc`).
#[derive(Clone)]
pub struct Kernel {
    pub(crate) inner: Arc<KernelInner>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

pub(crate) struct KernelInner {
    pub(crate) config: KernelConfig,
    pub(crate) control: ReentrantMutex<()>,
    pub(crate) state: Mutex<State>,
    /// (start key, pid) of the System process.
    system: (u64, u32),
    /// Distinguishes kernels on one OS thread (thread bindings); not observable otherwise.
    id: u64,
    pub(crate) clock: Arc<Clock>,
    /// Where log files go.
    disk: crate::machine::disk::Disk,
    /// CREATE_ID counter (EVT-16).
    activity_ids: AtomicU64,
    /// EVENT_KEY counter (FLT-11).
    pub(crate) event_keys: AtomicU64,
    /// Round-robin CPU assignment of implicit threads (threaded mode).
    next_cpu: AtomicU64,
    /// The journal, when the builder asked for one.
    pub(crate) journal: Option<Arc<Journal>>,
    /// Installed instrumentation manifests (`wevtutil im`), by provider GUID: what
    /// TdhCreatePayloadFilter reads.
    pub(crate) manifests: std::sync::RwLock<crate::control::manifests::ManifestTable>,
    /// The system providers: OS tables, system loggers, kernel manifest providers.
    pub(crate) sys: crate::system::SystemState,
    /// A single-threaded kernel's OS thread ([`crate::machine::thread::os_thread`]); `None`
    /// for others.
    pub(crate) owner: Option<u64>,
}

/// SplitMix64: a tiny, well-known generator; seeded, it makes GUIDs reproducible.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A random RFC 4122 version-4 GUID.
    pub(crate) fn next_guid(&mut self) -> Guid {
        let v = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
        let v = (v & !(0xF << 76)) | (0x4 << 76); // version 4
        let v = (v & !(0x3 << 62)) | (0x2 << 62); // RFC 4122 variant
        Guid::from_u128(v)
    }
}

/// The kernel's tables. See the module docs for who may hold the lock and when.
pub(crate) struct State {
    /// Non-private sessions by logger id; index 0 unused, 1 is the Global Logger's.
    pub(crate) loggers: Vec<Option<Arc<LoggerContext>>>,
    /// The ids of the occupied `loggers` slots, ascending: walking the running sessions (every
    /// logger step does) visits those, not every slot.
    pub(crate) live: Vec<u16>,
    /// Private sessions by logger id.
    pub(crate) private_loggers: BTreeMap<u16, Arc<LoggerContext>>,
    /// `EtwpSystemLogger[8]`: logger ids of the system loggers (SES-06, SES-07).
    pub(crate) system_loggers: [Option<u16>; crate::control::session::MAX_SYSTEM_LOGGERS],
    /// Sessions started so far; the high bits of every session handle.
    pub(crate) generation: u64,
    pub(crate) max_loggers: u32,
    pub(crate) disk_free: u64,
    pub(crate) rng: SplitMix64,
    /// Every process ever started, by start key.
    pub(crate) processes: BTreeMap<u64, ProcessRecord>,
    /// PID → start key of the live process with that PID.
    pub(crate) live_pids: HashMap<u32, u64>,
    next_client_id: u32,
    next_start_key: u64,
    /// `ETW_GUID_ENTRY` table.
    pub(crate) guids: BTreeMap<Guid, GuidEntry>,
    /// Provider groups (PRV-36): a group GUID's 8 enable slots and its member registrations
    /// (those whose traits name the group), by group GUID.
    pub(crate) groups: BTreeMap<Guid, GuidEntry>,
    pub(crate) next_reg_id: u64,
    /// Counts EnableTraceEx2 calls; orders "last one wins" for classic providers (PRV-22).
    pub(crate) enable_seq: u64,
    /// GUID security descriptors (`…\WMI\Security`, SEC-08).
    pub(crate) security: crate::control::security::SecurityTable,
}

impl State {
    /// The id [`State::next_client_id`] will hand out next, without taking it.
    pub(crate) fn peek_client_id(&self) -> u32 {
        let mut id = self.next_client_id;
        while self.live_pids.contains_key(&id) {
            id = id.wrapping_add(4).max(8);
        }
        id
    }

    /// The next free process or thread id (multiples of 4).
    pub(crate) fn next_client_id(&mut self) -> u32 {
        loop {
            let id = self.next_client_id;
            self.next_client_id = self.next_client_id.wrapping_add(4).max(8);
            if !self.live_pids.contains_key(&id) {
                return id;
            }
        }
    }

    pub(crate) fn add_process(&mut self, spec: ProcessSpec) -> Result<(u64, u32)> {
        if spec.image_name.is_empty() {
            return Err(Error::invalid("a process needs an image name"));
        }
        let pid = match spec.pid {
            Some(p) if p == 0 || p % 4 != 0 => {
                return Err(Error::invalid(format!(
                    "PID {p}: PIDs are non-zero multiples of 4"
                )));
            }
            Some(p) if self.live_pids.contains_key(&p) => {
                return Err(Error::invalid(format!("PID {p} belongs to a live process")));
            }
            Some(p) => p,
            None => self.next_client_id(),
        };
        let key = self.next_start_key;
        self.next_start_key += 1;
        self.processes.insert(
            key,
            ProcessRecord {
                pid,
                start_key: key,
                image_name: spec.image_name,
                token: spec.token,
                package_id: spec.package_id,
                package_app_id: spec.package_app_id,
                inprivate: spec.inprivate,
                exited: false,
                registrations: 0,
                private_sessions: 0,
                private_in_proc_sessions: 0,
                main_thread: None,
            },
        );
        self.live_pids.insert(pid, key);
        Ok((key, pid))
    }
}

impl Kernel {
    /// A builder with the defaults: 64 loggers, 4 CPUs, threaded.
    pub fn builder() -> KernelBuilder {
        KernelBuilder {
            config: KernelConfig {
                max_loggers: 64,
                cpus: 4,
                mode: ExecutionMode::Threaded,
                default_buffer_size_kb: 64,
                max_buffers_cap: 1024,
                disk_free_bytes: u64::MAX,
                max_session_buffer_bytes: 256 * 1024 * 1024,
                max_machine_buffer_bytes: None,
                event_tick: crate::machine::clock::DEFAULT_EVENT_TICK,
                realtime_backlog_buffers: 64,
                consumer_queue_buffers: 256,
                drain_bandwidth: None,
                journal: None,
                disk: None,
                single_threaded: false,
            },
        }
    }

    /// The boot configuration.
    pub fn config(&self) -> &KernelConfig {
        &self.inner.config
    }

    /// Simulated CPUs.
    pub fn cpu_count(&self) -> u16 {
        self.inner.config.cpus
    }

    /// `true` in deterministic mode.
    pub fn is_deterministic(&self) -> bool {
        matches!(self.inner.config.mode, ExecutionMode::Deterministic { .. })
    }

    /// `true` for a [single-threaded](KernelBuilder::single_threaded) kernel.
    pub fn is_single_threaded(&self) -> bool {
        self.inner.owner.is_some()
    }

    /// `true` when the calling OS thread may write to this kernel's sessions and control them:
    /// always, unless the kernel is single-threaded and belongs to another thread.
    #[inline]
    pub fn on_owner_thread(&self) -> bool {
        self.inner
            .owner
            .is_none_or(|o| o == crate::machine::thread::os_thread())
    }

    /// `Err(WrongThread)` unless [`Kernel::on_owner_thread`].
    #[inline]
    pub(crate) fn check_thread(&self) -> Result<()> {
        if self.on_owner_thread() {
            Ok(())
        } else {
            Err(Error::WrongThread)
        }
    }

    /// The System process (PID 4, LocalSystem): the default caller of control operations.
    pub fn system_process(&self) -> Process {
        Process {
            kernel: self.clone(),
            start_key: self.inner.system.0,
            pid: self.inner.system.1,
        }
    }

    /// Starts a simulated process.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for an empty image name or a PID that is not a free
    /// non-zero multiple of 4.
    pub fn spawn_process(&self, spec: ProcessSpec) -> Result<Process> {
        if spec
            .command_line
            .as_deref()
            .is_some_and(|c| c.contains('\0'))
            || spec.image_name.contains('\0')
        {
            return Err(Error::invalid("an image name or command line holds a NUL"));
        }
        let (start_key, pid) = self.with_state_mut(|s| s.add_process(spec.clone()))?;
        // KRN-09: Process Start, in the OS tables and to the sessions that want it.
        self.os_process_started(start_key, &spec, pid);
        Ok(Process {
            kernel: self.clone(),
            start_key,
            pid,
        })
    }

    /// Shorthand: a process running `image_name` as `token`.
    ///
    /// # Errors
    /// As [`Kernel::spawn_process`].
    pub fn spawn(&self, image_name: &str, token: Token) -> Result<Process> {
        self.spawn_process(ProcessSpec::new(image_name, token))
    }

    /// The live process with this PID, if any.
    pub fn process(&self, pid: u32) -> Option<Process> {
        let key = self.with_state(|s| s.live_pids.get(&pid).copied())?;
        Some(Process {
            kernel: self.clone(),
            start_key: key,
            pid,
        })
    }

    pub(crate) fn exit_process(&self, key: u64, exit_status: i32) {
        if key == self.inner.system.0 {
            return; // the System process never exits
        }
        let live = self.with_state(|s| s.processes.get(&key).is_some_and(|p| !p.exited));
        if live {
            // Its files close, threads end, images unload, then Process End (KRN-09).
            self.os_process_exited(key, exit_status);
        }
        let _ = self.control(|s: &mut State| {
            let pid = match s.processes.get_mut(&key) {
                Some(p) if !p.exited => {
                    p.exited = true;
                    p.pid
                }
                _ => return Ok(((), Vec::new())),
            };
            s.live_pids.remove(&pid);
            s.drop_process_registrations(key);
            let private: Vec<_> = s
                .private_loggers
                .values()
                .filter(|l| l.private_owner == Some(key))
                .cloned()
                .collect();
            for ctx in private {
                let _ = s.disable_everywhere(&ctx);
                s.private_loggers.remove(&ctx.logger_id());
                ctx.state.store(2, std::sync::atomic::Ordering::Release);
            }
            Ok(((), Vec::new()))
        });
    }

    /// Where this kernel writes log files.
    pub fn disk(&self) -> &crate::machine::disk::Disk {
        &self.inner.disk
    }

    /// The virtual disk, if log files go to one.
    pub fn virtual_disk(&self) -> Option<&crate::machine::disk::VirtualDisk> {
        match &self.inner.disk {
            crate::machine::disk::Disk::Virtual(v) => Some(v),
            crate::machine::disk::Disk::Real => None,
        }
    }

    /// The System process's start key.
    pub(crate) fn system_key(&self) -> u64 {
        self.inner.system.0
    }

    pub(crate) fn id(&self) -> u64 {
        self.inner.id
    }

    /// A new locally unique activity id (EVT-16). The high bits tell kernels apart: the
    /// process-wide kernel number in threaded mode, the seed in deterministic mode (the kernel
    /// number depends on how many kernels were built before, so it would make the ids differ
    /// from run to run).
    pub(crate) fn new_local_activity_id(&self) -> Guid {
        let n = self.inner.activity_ids.fetch_add(1, Ordering::Relaxed) + 1;
        let tag = match self.inner.config.mode {
            ExecutionMode::Deterministic { seed } => seed,
            ExecutionMode::Threaded => self.inner.id,
        };
        crate::machine::thread::local_activity_id(n, tag)
    }

    /// The simulated thread a write runs on when none is entered (see `thread`).
    pub(crate) fn implicit_thread(&self, process_key: u64) -> Arc<ThreadState> {
        let deterministic = self.is_deterministic();
        let cpus = u64::from(self.cpu_count());
        let kid = self.inner.id;
        let cpu = if deterministic {
            0
        } else {
            (self.inner.next_cpu.fetch_add(1, Ordering::Relaxed) % cpus) as u16
        };
        self.with_state_mut(|s| {
            if deterministic {
                if let Some(t) = s
                    .processes
                    .get(&process_key)
                    .and_then(|p| p.main_thread.clone())
                {
                    return t;
                }
            }
            let tid = s.next_client_id();
            let t = Arc::new(ThreadState::new(kid, process_key, tid, cpu));
            if deterministic {
                if let Some(p) = s.processes.get_mut(&process_key) {
                    p.main_thread = Some(t.clone());
                }
            }
            t
        })
    }

    fn running_sessions(&self) -> Vec<Arc<LoggerContext>> {
        self.running_sessions_where(|_| true)
    }

    /// The running sessions `wanted` picks. Picking none — a step with nothing to do, the
    /// common case — allocates nothing and touches no reference count.
    fn running_sessions_where(
        &self,
        wanted: impl Fn(&LoggerContext) -> bool,
    ) -> Vec<Arc<LoggerContext>> {
        self.with_state(|s| s.running_loggers().filter(|c| wanted(c)).cloned().collect())
    }

    /// Stops a session whose log file is full (SES-62), as the System process: providers are
    /// disabled with callbacks, the final statistics are kept; later control calls on it get
    /// ERROR_WMI_INSTANCE_NOT_FOUND.
    pub(crate) fn stop_full_session(&self, ctx: &Arc<LoggerContext>) {
        if ctx.is_running() {
            let _ = self.stop_trace(
                &self.system_process(),
                crate::control::session::Target::Handle(ctx.handle),
            );
        }
    }

    /// Stops every session whose log file filled up during logger work.
    pub(crate) fn reap_full_sessions(&self) {
        for ctx in self.running_sessions_where(|c| c.stop_requested.load(Ordering::Acquire)) {
            self.notify_session(
                crate::control::notify::SessionNotification::LogfileError,
                &ctx.properties(),
                etwsim_types::Win32Error::ERROR_LOG_FILE_FULL.code(),
            );
            self.stop_full_session(&ctx);
        }
    }

    /// Logger work for every session, now: each writes out every buffer that is ready
    /// (deterministic mode's step; in threaded mode the logger threads do this on their own,
    /// and calling it just helps them). BUFFERING sessions keep their ring (SES-41). On
    /// another OS thread than a [single-threaded](KernelBuilder::single_threaded) kernel's,
    /// nothing.
    pub fn run_pending(&self) {
        if !self.on_owner_thread() {
            return; // a single-threaded kernel's loggers run on its own thread only
        }
        // Only sessions with a ready buffer have logger work: a drain of none writes nothing.
        let busy = |c: &LoggerContext| {
            !c.cfg.mode.contains(LogFileMode::BUFFERING) && c.pool.ready_count() > 0
        };
        for ctx in self.running_sessions_where(busy) {
            ctx.drain(None);
        }
        self.reap_full_sessions();
    }

    /// Moves deterministic time forward by `d`: FlushTimers that come due seal their sessions'
    /// in-use buffers (SES-63), then each logger writes out ready buffers — all of them, or
    /// with [`KernelBuilder::drain_bandwidth`], at most that many bytes per second of `d`
    /// (unused bandwidth is not banked beyond one buffer). In threaded mode time is real: this
    /// only runs the timers and logger work that are due. On another OS thread than a
    /// [single-threaded](KernelBuilder::single_threaded) kernel's, nothing moves.
    pub fn advance(&self, d: std::time::Duration) {
        if !self.on_owner_thread() {
            return; // as in `run_pending`: nothing moves
        }
        let now = self.inner.clock.advance(d);
        let bandwidth = self.inner.config.drain_bandwidth;
        for ctx in self.running_sessions() {
            ctx.run_timer(now);
            if ctx.cfg.mode.contains(LogFileMode::BUFFERING) {
                continue;
            }
            match bandwidth {
                None => {
                    ctx.drain(None);
                }
                Some(bw) => {
                    let earned = (u128::from(bw) * d.as_nanos() / 1_000_000_000) as u64;
                    let credit = ctx
                        .drain_credit
                        .load(Ordering::Relaxed)
                        .saturating_add(earned);
                    let used = ctx.drain(Some(credit));
                    let left = (credit - used).min(ctx.pool.buffer_size());
                    ctx.drain_credit.store(left, Ordering::Relaxed);
                }
            }
        }
        self.reap_full_sessions();
    }

    /// The virtual (deterministic) or real time since boot.
    pub fn now(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.inner.clock.peek() * 100)
    }

    /// The journal's entries, oldest first (empty without
    /// [`KernelBuilder::journal`]).
    pub fn journal(&self) -> Vec<JournalEntry> {
        self.inner
            .journal
            .as_ref()
            .map_or_else(Vec::new, |j| j.entries())
    }

    /// Removes and returns the journal's entries, oldest first; numbering goes on.
    pub fn take_journal(&self) -> Vec<JournalEntry> {
        self.inner
            .journal
            .as_ref()
            .map_or_else(Vec::new, |j| j.take())
    }

    /// Entries the journal's bound let go.
    pub fn journal_dropped(&self) -> u64 {
        self.inner.journal.as_ref().map_or(0, |j| j.dropped())
    }

    /// Whether this kernel keeps a journal.
    pub fn is_journaling(&self) -> bool {
        self.inner.journal.is_some()
    }

    /// Records what `event` builds, if a journal is kept (nothing is built otherwise).
    pub(crate) fn note(&self, event: impl FnOnce() -> JournalEvent) {
        if let Some(j) = &self.inner.journal {
            j.push(self.inner.clock.peek(), event());
        }
    }

    /// Records a control call and its result, if a journal is kept.
    pub(crate) fn note_control<T>(
        &self,
        call: impl FnOnce() -> String,
        target: impl FnOnce() -> String,
        result: &Result<T>,
    ) {
        self.note(|| JournalEvent::Control {
            call: call(),
            target: target(),
            result: result.as_ref().map(|_| ()).map_err(Error::win32_code),
        });
    }

    pub(crate) fn with_state<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.inner.state.lock())
    }

    pub(crate) fn with_state_mut<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.inner.state.lock())
    }

    /// Runs one control operation: `f` changes the tables under the state lock and returns
    /// the callbacks it caused, which then run in order with only the control lock held.
    pub(crate) fn control<R>(
        &self,
        f: impl FnOnce(&mut State) -> Result<(R, Vec<Pending>)>,
    ) -> Result<R> {
        let _serial = self.inner.control.lock();
        let (r, pending) = {
            let mut s = self.inner.state.lock();
            f(&mut s)?
        };
        for p in pending {
            if let (Some(j), Some(e)) = (&self.inner.journal, p.journal_event()) {
                j.push(self.inner.clock.peek(), e);
            }
            p.deliver();
        }
        Ok(r)
    }
}

/// Everything observable about a kernel's tables, comparable with `==`: what a test checks is
/// unchanged after a rejected call. It covers the sessions (settings and counters), every
/// GUID entry's slots and registrations with their cached enable words, the processes, and
/// the counters that would make a later call behave differently (handle generation, GUID
/// generator state, registration ids).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSnapshot {
    /// Running sessions, private ones included, by logger id.
    pub sessions: Vec<crate::SessionProperties>,
    /// GUID entries: GUID, its 8 slots, and (reg handle, pid, enable state) per registration.
    pub guids: Vec<GuidSnapshot>,
    /// (pid, start key, exited, registrations) of every process.
    pub processes: Vec<(u32, u64, bool, u32)>,
    /// Sessions started so far.
    pub generation: u64,
    /// Internal generator and id counters.
    pub counters: (u64, u64, u64),
    /// The GUID security descriptors (SEC-08).
    pub security: Vec<(Guid, etwsim_registry::SecurityDescriptor)>,
}

/// One GUID entry in a [`KernelSnapshot`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuidSnapshot {
    /// The provider GUID.
    pub guid: Guid,
    /// The 8 enable slots.
    pub slots: Vec<Option<(crate::TraceHandle, etwsim_types::EnableInfo)>>,
    /// The registrations.
    pub regs: Vec<(u64, u32, crate::EnableState)>,
}

impl Kernel {
    /// A comparable picture of the kernel's tables (see [`KernelSnapshot`]).
    pub fn snapshot(&self) -> KernelSnapshot {
        let (sessions, generation, counters, processes, guids) = self.with_state(|s| {
            let mut sessions: Vec<_> = s.running_loggers().map(|l| l.properties()).collect();
            sessions.sort_by_key(|p| p.logger_id);
            let processes = s
                .processes
                .values()
                .map(|p| (p.pid, p.start_key, p.exited, p.registrations))
                .collect();
            let guids: Vec<Guid> = s.guids.keys().copied().collect();
            (
                sessions,
                s.generation,
                (s.rng.0, s.next_reg_id, s.enable_seq),
                processes,
                guids,
            )
        });
        let guids = guids
            .into_iter()
            .map(|g| GuidSnapshot {
                guid: g,
                slots: self.enable_slots(g).to_vec(),
                regs: self.with_state(|s| {
                    s.guids.get(&g).map_or_else(Vec::new, |e| {
                        e.regs
                            .iter()
                            .map(|r| (r.id, r.pid, r.enable_state()))
                            .collect()
                    })
                }),
            })
            .collect();
        let security =
            self.with_state(|s| s.security.iter().map(|(g, sd)| (*g, sd.clone())).collect());
        KernelSnapshot {
            sessions,
            guids,
            processes,
            generation,
            counters,
            security,
        }
    }
}
