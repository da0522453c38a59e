//! Running a scenario: a deterministic kernel with the journal on, the processes and their
//! providers (each registered with a callback that records what it is told), then the
//! actions in file order — sessions' starts, the `[[enable]]`s, the steps — and, when the
//! steps end, a STOP of every session still running (unless `stop_at_end = false`). Then the
//! expectations are checked against what happened.
//!
//! Control calls target sessions by name as the session's caller process (or the process a
//! step names with `as`, SES-16, SEC-03), so a step on a session that is not running gets the
//! kernel's own answer (`ERROR_WMI_INSTANCE_NOT_FOUND`). After each named step the runner
//! keeps a [`Checkpoint`] — statistics, consumers' counts, the journal's length — for the
//! expectations checked `after` it.
//! A control step that fails without `expect_error` ends the steps there: the run is
//! *aborted* and says which step; the sessions are still stopped and the expectations still
//! checked, so the journal shows what led to it.
//!
//! `mod.rs` holds the [`Runner`] and its course (boot or build, setup, the actions, the end);
//! `steps` interprets each action, `outcome` has the public results, `boot` the booted
//! machine's scratch folder.

mod boot;
mod outcome;
mod steps;

pub use outcome::{
    CallbackRecord, Checkpoint, ExpectationResult, KEPT_PAYLOAD, KEPT_WRITES, KernelEvent, Outcome,
    OutputFile, ProviderSummary, SessionSummary, SlotSnapshot, StepFailure, WriteRecord,
};

use crate::scenario::{ProcRef, ProvKind, Scenario};
use boot::{make_scratch, portable_report};
use etwsim::decode::tracelogging::ProviderTraits;
use etwsim::{
    BootOptions, BootReport, ClassicProvider, ClosingFile, Consumer, FileHandle, Image,
    JournalEntry, Kernel, Machine, MemorySink, Process, Provider, Session, SessionProperties,
    Thread, TraceControl, Win32Error,
};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// How to run a scenario ([`Scenario::run_with`]).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// The folder in which a run booted from a registry makes its private scratch folder —
    /// the host folder that stands for the machine's drives, removed when the run ends;
    /// `None`: the system's temporary folder. A command passes a folder of its own, which it
    /// removes if it is stopped before the run ends.
    pub scratch: Option<PathBuf>,
}

impl RunOptions {
    /// The defaults: scratch folders in the system's temporary folder.
    pub fn new() -> RunOptions {
        RunOptions::default()
    }

    /// Scratch folders go in `dir` (created if missing).
    pub fn scratch(mut self, dir: impl Into<PathBuf>) -> RunOptions {
        self.scratch = Some(dir.into());
        self
    }
}

impl Scenario {
    /// Runs the scenario on a fresh deterministic kernel and checks its expectations. The
    /// same scenario gives the same outcome every time.
    pub fn run(&self) -> Outcome {
        self.run_with(&RunOptions::default())
    }

    /// [`run`](Self::run) with `options`. A machine booted from a registry gets a scratch
    /// folder of its own (no two runs share one, even at the same time), removed when the
    /// run ends; its files stay on the kernel's virtual disk. A scratch folder that cannot
    /// be made aborts the run at `machine.registry`, saying why.
    pub fn run_with(&self, options: &RunOptions) -> Outcome {
        Runner::new(self).run(options)
    }
}

type Callbacks = Arc<Mutex<Vec<CallbackRecord>>>;

/// One registration of a provider: EventRegister (TraceLoggingRegister), or RegisterTraceGuids.
pub(crate) enum Reg {
    Modern(Provider),
    /// The registration and its process's PID.
    Classic(ClassicProvider, u32),
}

impl Reg {
    fn pid(&self) -> u32 {
        match self {
            Reg::Modern(p) => p.pid(),
            Reg::Classic(_, pid) => *pid,
        }
    }
}

pub(crate) struct Runner<'a> {
    pub sc: &'a Scenario,
    pub kernel: Option<Kernel>,
    processes: Vec<Option<Process>>,
    /// (process, CPU) → a thread on that CPU; CPU 0 is the process's main writer thread.
    threads: HashMap<(ProcRef, u16), Thread>,
    named: Vec<Vec<Thread>>,
    regs: Vec<Vec<Option<Arc<Reg>>>>,
    pub callbacks: Vec<Vec<Callbacks>>,
    sinks: Vec<Option<MemorySink>>,
    consumers: Vec<Option<Consumer>>,
    pub delivered: Vec<Option<u64>>,
    /// Each session's named consumers (`consume` with `consumer`), in the order attached,
    /// with what each received.
    named_consumers: Vec<Vec<(String, Option<Consumer>, u64)>>,
    /// The process a control step makes its call as (`as`), while it runs.
    acting: Option<Process>,
    /// The state after each named step, for `after` expectations.
    pub checkpoints: Vec<Checkpoint>,
    pub stats: Vec<Option<SessionProperties>>,
    /// The handle of each scenario session's latest start: its statistics stay readable after
    /// it stops, however it stopped (a full SEQUENTIAL file stops it during a write, SES-62).
    held: Vec<Option<Session>>,
    /// The run's journal: a ring of at most the journal capacity, the oldest entries let go
    /// from the front (each write costs the same however full it is).
    pub journal: VecDeque<JournalEntry>,
    pub journal_dropped: u64,
    pub writes: Vec<WriteRecord>,
    pub writes_total: u64,
    pub write_errors: Vec<(Win32Error, u64)>,
    pub slots: SlotSnapshot,
    pub aborted: Option<StepFailure>,
    machine: Option<Machine>,
    /// The host folder that stands for a booted machine's drives: private to this run,
    /// removed with the runner.
    scratch: Option<tempfile::TempDir>,
    boot_root: Option<PathBuf>,
    pub boots: Vec<BootReport>,
    /// Open file handles and files between Cleanup and Close, by the loader's handle index.
    files: HashMap<usize, FileSlot>,
    images: HashMap<usize, Image>,
    /// Kernel events each session's consumer received.
    rt_events: Vec<Vec<KernelEvent>>,
    /// The sessions boots started, by name (after the scenario's in the outcome), and the
    /// last statistics seen of each.
    boot_sessions: Vec<(String, Option<SessionProperties>)>,
}

enum FileSlot {
    Open(FileHandle),
    Closing(ClosingFile),
}

impl<'a> Runner<'a> {
    fn new(sc: &'a Scenario) -> Runner<'a> {
        let n = sc.sessions.len();
        Runner {
            sc,
            kernel: None,
            processes: Vec::new(),
            threads: HashMap::new(),
            named: Vec::new(),
            regs: Vec::new(),
            callbacks: Vec::new(),
            sinks: vec![None; n],
            consumers: (0..n).map(|_| None).collect(),
            named_consumers: (0..n).map(|_| Vec::new()).collect(),
            acting: None,
            checkpoints: Vec::new(),
            held: (0..n).map(|_| None).collect(),
            delivered: vec![None; n],
            stats: vec![None; n],
            journal: VecDeque::new(),
            journal_dropped: 0,
            writes: Vec::new(),
            writes_total: 0,
            write_errors: Vec::new(),
            slots: SlotSnapshot::default(),
            aborted: None,
            machine: None,
            scratch: None,
            boot_root: None,
            boots: Vec::new(),
            files: HashMap::new(),
            images: HashMap::new(),
            rt_events: vec![Vec::new(); n],
            boot_sessions: Vec::new(),
        }
    }

    /// Notes the sessions a boot started, for the outcome's sessions.
    fn booted(&mut self, report: &BootReport) {
        let mut report = report.clone();
        if let Some(root) = &self.boot_root {
            portable_report(&mut report, root);
        }
        self.boots.push(report.clone());
        for s in report.sessions.iter().filter(|s| s.started()) {
            if self.session_index(&s.name).is_none() {
                self.boot_sessions.push((s.name.clone(), None));
            }
        }
    }

    fn fail(&mut self, line: usize, key: &str, message: String) {
        if self.aborted.is_none() {
            self.aborted = Some(StepFailure {
                line,
                key: key.to_string(),
                message,
            });
        }
    }

    fn run(mut self, options: &RunOptions) -> Outcome {
        match &self.sc.registry {
            None => match self.sc.builder.clone().build() {
                Ok(k) => self.kernel = Some(k),
                Err(e) => self.fail(
                    1,
                    "machine",
                    format!("the kernel refuses this machine: {e}"),
                ),
            },
            Some(registry) => {
                let booted = make_scratch(options.scratch.as_deref())
                    .map_err(|e| {
                        let parent = options.scratch.clone().unwrap_or_else(std::env::temp_dir);
                        format!("cannot make a scratch folder in {}: {e}", parent.display())
                    })
                    .and_then(|dir| {
                        let root = dir.path().to_path_buf();
                        self.scratch = Some(dir);
                        Machine::boot(
                            self.sc.builder.clone(),
                            registry.clone(),
                            BootOptions::new(&root),
                        )
                        .map(|m| (m, root))
                        .map_err(|e| e.to_string())
                    });
                match booted {
                    Ok((m, root)) => {
                        self.kernel = Some(m.kernel().clone());
                        self.boot_root = Some(root);
                        self.booted(m.report());
                        self.machine = Some(m);
                    }
                    Err(e) => {
                        let e = match &self.scratch {
                            Some(d) => e.replace(&d.path().display().to_string(), "<machine root>"),
                            None => e,
                        };
                        self.fail(1, "machine.registry", format!("boot failed: {e}"));
                    }
                }
            }
        }
        if let Some(kernel) = self.kernel.clone() {
            self.setup(&kernel);
            if self.aborted.is_none() {
                for (i, action) in self.sc.actions.iter().enumerate() {
                    let Some(kernel) = self.kernel.clone() else {
                        break;
                    };
                    self.act(&kernel, i);
                    // A reboot replaces the kernel.
                    let kernel = self.kernel.clone().unwrap_or(kernel);
                    self.collect(&kernel);
                    self.observe(&kernel, action.line);
                    if let Some(name) = &action.name {
                        self.checkpoint(name, action.line);
                    }
                    if self.aborted.is_some() {
                        break;
                    }
                }
            }
            let kernel = self.kernel.clone().unwrap_or(kernel);
            self.finish(&kernel);
        }
        self.outcome()
    }

    /// Moves the kernel's new journal entries into the run's journal, within the bound;
    /// returns how many of them it holds (the last ones of the journal). The journal is a
    /// ring: what passes the bound is let go from the front, one entry at a time.
    fn collect(&mut self, kernel: &Kernel) -> usize {
        let cap = kernel.config().journal.unwrap_or(0);
        let mut new = 0;
        for entry in kernel.take_journal() {
            if cap == 0 {
                self.journal_dropped += 1;
                continue;
            }
            if self.journal.len() >= cap {
                self.journal.pop_front();
                self.journal_dropped += 1;
            }
            self.journal.push_back(entry);
            new = (new + 1).min(cap);
        }
        new
    }

    /// The state right after the named step `name`: every session's last statistics, what
    /// its consumers received so far, and how far the journal went.
    fn checkpoint(&mut self, name: &str, line: usize) {
        self.checkpoints.push(Checkpoint {
            name: name.to_string(),
            line,
            stats: self
                .stats
                .iter()
                .cloned()
                .chain(self.boot_sessions.iter().map(|(_, s)| s.clone()))
                .collect(),
            delivered: self.delivered.clone(),
            consumers: self
                .named_consumers
                .iter()
                .map(|c| c.iter().map(|(n, _, k)| (n.clone(), *k)).collect())
                .collect(),
            journal_len: self.journal_dropped + self.journal.len() as u64,
        });
    }

    /// After each action: the running sessions' statistics, and — while some session runs —
    /// the providers' enable slots.
    fn observe(&mut self, kernel: &Kernel, line: usize) {
        let running = kernel.sessions();
        for p in &running {
            match self.session_index(&p.name) {
                Some(i) if i < self.stats.len() => self.stats[i] = Some(p.clone()),
                Some(i) => {
                    if let Some(b) = self.boot_sessions.get_mut(i - self.stats.len()) {
                        b.1 = Some(p.clone());
                    }
                }
                None => {}
            }
        }
        self.refresh_stats(None);
        if running.is_empty() {
            return;
        }
        let providers = self
            .sc
            .providers
            .iter()
            .map(|p| {
                kernel
                    .enable_slots(p.guid)
                    .iter()
                    .enumerate()
                    .filter_map(|(slot, s)| {
                        s.map(|(h, info)| {
                            let name = running
                                .iter()
                                .find(|r| r.handle == h)
                                .map_or_else(|| h.to_string(), |r| r.name.clone());
                            (slot as u8, name, info)
                        })
                    })
                    .collect()
            })
            .collect();
        self.slots = SlotSnapshot {
            time: kernel.now().as_nanos() as u64 / 100,
            line: Some(line),
            providers,
        };
    }

    /// Every session's statistics as they are now — for one that stopped, its final ones
    /// (BUF-07, SES-76): the scenario's sessions from their handles, the boot sessions from
    /// the machine's (or from `boot`, the handles kept across its shutdown).
    fn refresh_stats(&mut self, boot: Option<&[(usize, Session)]>) {
        for (stats, held) in self.stats.iter_mut().zip(&self.held) {
            if let Some(h) = held {
                *stats = Some(h.statistics());
            }
        }
        match boot {
            Some(handles) => {
                for (i, h) in handles {
                    if let Some(b) = self.boot_sessions.get_mut(*i) {
                        b.1 = Some(h.statistics());
                    }
                }
            }
            None => {
                if let Some(m) = &self.machine {
                    for (name, stats) in &mut self.boot_sessions {
                        if let Some(h) = m.session(name) {
                            *stats = Some(h.statistics());
                        }
                    }
                }
            }
        }
    }

    /// A session's index in the outcome: the scenario's sessions, then the boot sessions.
    fn session_index(&self, name: &str) -> Option<usize> {
        self.sc
            .sessions
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
            .or_else(|| {
                self.boot_sessions
                    .iter()
                    .position(|(b, _)| b.eq_ignore_ascii_case(name))
                    .map(|i| i + self.sc.sessions.len())
            })
    }

    fn process(&self, kernel: &Kernel, p: ProcRef) -> Option<Process> {
        match p {
            None => Some(kernel.system_process()),
            Some(i) => self.processes.get(i).cloned().flatten(),
        }
    }

    /// The processes spawned at the start (every `autostart` one) and the providers they
    /// register; again after each reboot, with the callbacks appended to the same logs.
    fn setup(&mut self, kernel: &Kernel) {
        let n = self.sc.processes.len();
        self.processes = vec![None; n];
        self.named = vec![Vec::new(); n];
        self.threads.clear();
        self.regs = self
            .sc
            .providers
            .iter()
            .map(|p| vec![None; p.regs.len()])
            .collect();
        if self.callbacks.is_empty() {
            self.callbacks = self
                .sc
                .providers
                .iter()
                .map(|p| p.regs.iter().map(|_| Callbacks::default()).collect())
                .collect();
        }
        for i in 0..n {
            if self.sc.processes[i].autostart {
                if let Err(e) = self.spawn(kernel, i) {
                    let p = &self.sc.processes[i];
                    self.fail(p.line, "process", format!("process {:?}: {e}", p.name));
                    return;
                }
            }
        }
        self.register(kernel, None);
        self.collect(kernel);
    }

    /// Spawns process `i` (with its parent, if running, and its named threads) and registers
    /// the providers it registers.
    fn spawn(&mut self, kernel: &Kernel, i: usize) -> Result<(), etwsim::Error> {
        let p = &self.sc.processes[i];
        let mut spec = p.spec.clone();
        if let Some(parent) = p.parent.and_then(|j| self.processes[j].clone()) {
            spec = spec.parent(&parent);
        }
        let proc_ = kernel.spawn_process(spec)?;
        let mut named = Vec::new();
        for (_, cpu) in &p.threads {
            named.push(proc_.spawn_thread(*cpu)?);
        }
        self.named[i] = named;
        self.threads.retain(|(q, _), _| *q != Some(i));
        self.processes[i] = Some(proc_);
        self.register(kernel, Some(Some(i)));
        Ok(())
    }

    /// Registers the providers of process `only` (every process when `None`) that are not
    /// registered yet.
    fn register(&mut self, kernel: &Kernel, only: Option<ProcRef>) {
        for (pi, prov) in self.sc.providers.iter().enumerate() {
            for (ri, r) in prov.regs.iter().enumerate() {
                if only.is_some_and(|o| o != *r) || self.regs[pi][ri].is_some() {
                    continue;
                }
                let sink = self.callbacks[pi][ri].clone();
                let registered = self
                    .process(kernel, *r)
                    .map(|p| Self::register_one(&p, prov, sink));
                match registered {
                    Some(Ok(p)) => self.regs[pi][ri] = Some(Arc::new(p)),
                    Some(Err(e)) => self.fail(
                        prov.line,
                        "provider",
                        format!("registering {:?}: {e}", prov.name),
                    ),
                    None => {}
                }
            }
        }
    }

    /// One registration of `prov` in process `p`, its callbacks recorded in `sink`: EventRegister
    /// with a callback, then — for a TraceLogging provider or one in a group — its traits
    /// (EventSetInformation, as TraceLoggingRegister does; a group's sessions enable it then,
    /// PRV-36); or RegisterTraceGuids for a classic provider, whose control callback is
    /// recorded as an enable callback: WMI_ENABLE_EVENTS is 1, WMI_DISABLE_EVENTS 0,
    /// WMI_CAPTURE_STATE 2, the level GetTraceEnableLevel's, MatchAnyKeyword the enable flags.
    fn register_one(
        p: &Process,
        prov: &crate::scenario::ProvSpec,
        sink: Callbacks,
    ) -> Result<Reg, etwsim::Error> {
        if prov.kind == ProvKind::Classic {
            let c = p.register_trace_guids(prov.guid, move |n| {
                if let Ok(mut v) = sink.lock() {
                    v.push(CallbackRecord {
                        is_enabled: match n.request_code {
                            4 => 1,
                            5 => 0,
                            10 => 2,
                            other => other,
                        },
                        level: n.enable_level.0,
                        any: u64::from(n.enable_flags),
                        all: 0,
                        source_id: etwsim::Guid::NULL,
                        filter_data: None,
                    });
                }
            })?;
            return Ok(Reg::Classic(c, p.pid()));
        }
        let provider = p.register_provider_with_callback(prov.guid, move |n| {
            if let Ok(mut v) = sink.lock() {
                v.push(CallbackRecord {
                    is_enabled: n.is_enabled as u32,
                    level: n.level.0,
                    any: n.match_any_keyword.0,
                    all: n.match_all_keyword.0,
                    source_id: n.source_id,
                    filter_data: n.filter_data.clone(),
                });
            }
        })?;
        if prov.kind == ProvKind::TraceLogging || prov.group.is_some() {
            let mut traits = ProviderTraits::new(prov.name.clone());
            if let Some(g) = prov.group {
                traits = traits.with_group(g);
            }
            // TraceLoggingRegister undoes the registration when the traits are refused (PRV-33).
            if let Err(e) = provider.set_traits(&traits) {
                let _ = provider.unregister();
                return Err(e);
            }
        }
        Ok(Reg::Modern(provider))
    }

    /// The `reboot` step: the scenario's sessions stop (as at the end of the steps) and
    /// their consumers are drained; then `Machine::reboot` (boot sessions stopped, registry
    /// and disk kept) and the start processes and their providers come again on the new
    /// kernel. Open handles, images, consumers and named threads are gone.
    fn reboot(&mut self, kernel: &Kernel) -> Result<(), etwsim::Error> {
        self.stop_all(kernel);
        for s in 0..self.sc.sessions.len() {
            self.drain(s);
            self.consumers[s] = None;
            for c in &mut self.named_consumers[s] {
                c.1 = None;
            }
        }
        self.collect(kernel);
        self.files.clear();
        self.images.clear();
        let Some(m) = self.machine.as_mut() else {
            return Err(etwsim::Error::InvalidParameter(
                "the machine did not boot from a registry".into(),
            ));
        };
        let report = m.reboot()?.clone();
        let next = m.kernel().clone();
        self.booted(&report);
        self.kernel = Some(next.clone());
        self.setup(&next);
        Ok(())
    }

    /// The end of the steps: sessions still running are stopped (unless the scenario says
    /// otherwise) and consumers drained one last time.
    fn finish(&mut self, kernel: &Kernel) {
        if self.sc.stop_at_end {
            self.stop_all(kernel);
        } else {
            self.observe(kernel, 0);
        }
        for s in 0..self.sc.sessions.len() {
            self.drain(s);
        }
        // A booted machine shuts down: its boot sessions stop, so their files are complete.
        if self.sc.stop_at_end {
            if let Some(m) = self.machine.as_mut() {
                let handles: Vec<(usize, Session)> = self
                    .boot_sessions
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (name, _))| m.session(name).cloned().map(|h| (i, h)))
                    .collect();
                m.shutdown();
                self.refresh_stats(Some(&handles));
            }
        }
        self.refresh_stats(None);
        self.collect(kernel);
    }

    /// STOP of every scenario session still running.
    fn stop_all(&mut self, kernel: &Kernel) {
        for (s, spec) in self.sc.sessions.iter().enumerate() {
            if kernel
                .sessions()
                .iter()
                .any(|p| p.name.eq_ignore_ascii_case(&spec.name))
            {
                // A stop that fails leaves the last statistics seen.
                let _ = self.control(kernel, s, TraceControl::Stop, None);
            }
        }
    }
}
