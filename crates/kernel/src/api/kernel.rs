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

use crate::control::provider::Pending;
use crate::control::state::State;
use crate::data::context::LoggerContext;
use crate::data::core::DataCore;
use crate::journal::{Journal, JournalEntry, JournalEvent};
use crate::machine::clock::Clock;
use crate::machine::config::ExecutionMode;
use crate::machine::config::KernelConfig;
use crate::machine::config::MAX_BUFFERS_CAP;
use crate::machine::process::ProcessSpec;
use crate::machine::process::Token;
use crate::machine::thread::ThreadState;
use crate::{Error, Result};
use etwsim_types::Guid;
use etwsim_types::LogFileMode;
use parking_lot::{Mutex, ReentrantMutex};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Deterministic mode: a virtual clock that moves only when asked (or by the fixed cost
    /// of each call), no logger threads — loggers run at [`Kernel::run_pending`] and
    /// [`Kernel::advance`] —, simulated threads on the CPUs they are given. The same calls
    /// give the same records, statistics, journal and files, byte for byte, on every run.
    ///
    /// `seed` chooses only what Windows picks at random and the calls do not decide: today,
    /// the GUID of a session started without one (StartTrace with a null `Wnode.Guid`).
    /// Timestamps, CPUs, thread ids, loss and the files' bytes follow from the calls alone,
    /// so two seeds give the same files (a session GUID is not written in them) and differ
    /// in [`Session::guid`](crate::Session::guid) and what reports it (QUERY, the
    /// journal). Use the seed to tell runs apart, not to vary their behaviour; vary the
    /// calls (for example the order of threads' writes) for that.
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
        let mut state = State::new(c.max_loggers, c.disk_free_bytes, seed);
        let system = state
            .processes
            .add_process(ProcessSpec::new("System", Token::local_system()).pid(4))?;
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
                core: DataCore {
                    id: KERNEL_IDS.fetch_add(1, Ordering::Relaxed),
                    clock: Arc::new(clock),
                    journal,
                    event_keys: AtomicU64::new(0),
                    owner,
                },
                manifests: Default::default(),
                config: self.config,
                control: ReentrantMutex::new(()),
                state: Mutex::new(state),
                system,
                disk,
                activity_ids: AtomicU64::new(0),
                next_cpu: AtomicU64::new(0),
                sys: crate::system::SystemState::default(),
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
    pub(in crate::api) config: KernelConfig,
    pub(in crate::api) control: ReentrantMutex<()>,
    pub(in crate::api) state: Mutex<State>,
    /// (start key, pid) of the System process.
    pub(in crate::api) system: (u64, u32),
    /// The data plane's part: identity, clock, journal, EVENT_KEY counter, owner thread.
    pub(in crate::api) core: DataCore,
    /// Where log files go.
    disk: crate::machine::disk::Disk,
    /// CREATE_ID counter (EVT-16).
    activity_ids: AtomicU64,
    /// Round-robin CPU assignment of implicit threads (threaded mode).
    next_cpu: AtomicU64,
    /// Installed instrumentation manifests (`wevtutil im`), by provider GUID: what
    /// TdhCreatePayloadFilter reads.
    pub(crate) manifests: std::sync::RwLock<crate::control::manifests::ManifestTable>,
    /// The system providers: OS tables, system loggers, kernel manifest providers.
    pub(in crate::api) sys: crate::system::SystemState,
}

impl std::ops::Deref for KernelInner {
    type Target = DataCore;
    fn deref(&self) -> &DataCore {
        &self.core
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

    pub(in crate::api) fn exit_process(&self, key: u64, exit_status: i32) {
        if key == self.inner.system.0 {
            return; // the System process never exits
        }
        let live = self.with_state(|s| s.processes.get(&key).is_some_and(|p| !p.exited));
        if live {
            // Its files close, threads end, images unload, then Process End (KRN-09).
            self.os_process_exited(key, exit_status);
        }
        let _ = self.control(|s: &mut State| {
            if s.processes.mark_exited(key).is_none() {
                return Ok(((), Vec::new()));
            }
            s.drop_process_registrations(key);
            s.end_private_sessions(key);
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
    pub(in crate::api) fn system_key(&self) -> u64 {
        self.inner.system.0
    }

    pub(in crate::api) fn id(&self) -> u64 {
        self.inner.id
    }

    /// A new locally unique activity id (EVT-16). The high bits tell kernels apart: the
    /// process-wide kernel number in threaded mode, the seed in deterministic mode (the kernel
    /// number depends on how many kernels were built before, so it would make the ids differ
    /// from run to run).
    pub(in crate::api) fn new_local_activity_id(&self) -> Guid {
        let n = self.inner.activity_ids.fetch_add(1, Ordering::Relaxed) + 1;
        let tag = match self.inner.config.mode {
            ExecutionMode::Deterministic { seed } => seed,
            ExecutionMode::Threaded => self.inner.id,
        };
        crate::data::local::local_activity_id(n, tag)
    }

    /// The simulated thread a write runs on when none is entered (see `thread`).
    pub(in crate::api) fn implicit_thread(&self, process_key: u64) -> Arc<ThreadState> {
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
            let tid = s.processes.next_client_id();
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
    pub(in crate::api) fn stop_full_session(&self, ctx: &Arc<LoggerContext>) {
        if ctx.is_running() {
            let _ = self.stop_trace(
                &self.system_process(),
                crate::control::session::Target::Handle(ctx.handle),
            );
        }
    }

    /// Stops every session whose log file filled up during logger work.
    pub(in crate::api) fn reap_full_sessions(&self) {
        for ctx in self.running_sessions_where(|c| c.stop_requested()) {
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
                    ctx.drain_with_credit(earned);
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
    pub(in crate::api) fn note(&self, event: impl FnOnce() -> JournalEvent) {
        if let Some(j) = &self.inner.journal {
            j.push(self.inner.clock.peek(), event());
        }
    }

    /// Records a control call and its result, if a journal is kept.
    pub(in crate::api) fn note_control<T>(
        &self,
        call: impl FnOnce() -> String,
        target: impl FnOnce() -> String,
        session: Option<String>,
        result: &Result<T>,
    ) {
        self.note(|| JournalEvent::Control {
            call: call(),
            target: target(),
            session,
            result: result.as_ref().map(|_| ()).map_err(Error::win32_code),
        });
    }

    pub(crate) fn with_state<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.inner.state.lock())
    }

    pub(in crate::api) fn with_state_mut<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.inner.state.lock())
    }

    /// Runs one control operation: `f` changes the tables under the state lock and returns
    /// the callbacks it caused, which then run in order with only the control lock held.
    pub(in crate::api) fn control<R>(
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
            let guids: Vec<Guid> = s.providers.guids().copied().collect();
            (
                sessions,
                s.sessions.generation(),
                {
                    let (reg, seq) = s.providers.counters();
                    (s.rng.0, reg, seq)
                },
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
                    s.providers.get(&g).map_or_else(Vec::new, |e| {
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

impl crate::data::core::Host for Kernel {
    #[inline(always)]
    fn core(&self) -> &DataCore {
        &self.inner.core
    }

    fn explain(
        &self,
        reg: &Arc<crate::data::route::RegEntry>,
        event: &crate::filter::EventView<'_>,
    ) -> crate::filter::verdict::Explanation {
        self.explain_reg(reg, event)
    }

    fn may_log_to_secure(&self, process_key: u64, session: Guid) -> bool {
        self.with_state(|s| s.may_log_to_secure(process_key, session))
    }
}

impl crate::data::local::ThreadSource for Kernel {
    #[inline(always)]
    fn id(&self) -> u64 {
        Kernel::id(self)
    }

    #[inline(always)]
    fn is_deterministic(&self) -> bool {
        Kernel::is_deterministic(self)
    }

    fn implicit_thread(&self, process_key: u64) -> Arc<ThreadState> {
        Kernel::implicit_thread(self, process_key)
    }
}

impl crate::data::context::SessionOwner for KernelInner {
    fn stop_full_session(self: Arc<Self>, ctx: &Arc<LoggerContext>) {
        // `Kernel` is a reference to its `KernelInner`: this is the kernel itself.
        Kernel { inner: self }.stop_full_session(ctx);
    }
}
