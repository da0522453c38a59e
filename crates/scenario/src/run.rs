//! Running a scenario: a deterministic kernel with the journal on, the processes and their
//! providers (each registered with a callback that records what it is told), then the
//! actions in file order — sessions' starts, the `[[enable]]`s, the steps — and, when the
//! steps end, a STOP of every session still running (unless `stop_at_end = false`). Then the
//! expectations are checked against what happened.
//!
//! Control calls target sessions by name as the session's caller process, so a step on a
//! session that is not running gets the kernel's own answer (`ERROR_WMI_INSTANCE_NOT_FOUND`).
//! A control step that fails without `expect_error` ends the steps there: the run is
//! *aborted* and says which step; the sessions are still stopped and the expectations still
//! checked, so the journal shows what led to it.

use crate::Error;
use crate::expect;
use crate::scenario::{
    ActionKind, EnableSpec, FileOp, FilterSpec, Payload, PidRef, ProcRef, Scenario, ThreadSel,
    WriteSpec,
};
use etwsim::{
    BootOptions, BootReport, ClosingFile, Consumer, ConsumerOptions, CreateFile, EnableInfo,
    EnableParams, EventDescriptor, EventFilter, FileHandle, Guid, Image, JournalEntry,
    JournalEvent, Kernel, Keyword, Level, LossCounter, Machine, MemorySink, Process, Provider,
    SessionProperties, Target, Thread, TraceControl, Win32Error,
};
use etwsim_decode::mof::{self, MofEvent};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Payload bytes of each write kept in [`WriteRecord::payload`] (for decoding in the report).
pub const KEPT_PAYLOAD: usize = 4096;
/// Writes described one by one in [`Outcome::writes`]; later ones are only counted.
pub const KEPT_WRITES: usize = 100_000;

/// What a scenario run did and how its expectations came out.
#[derive(Debug)]
pub struct Outcome {
    /// The scenario's name.
    pub scenario: String,
    /// The scenario file's name.
    pub file: String,
    /// Every journal entry of the run, oldest first (at most the journal capacity; see
    /// [`journal_dropped`](Self::journal_dropped)).
    pub journal: Vec<JournalEntry>,
    /// Journal entries let go because the run made more than the capacity.
    pub journal_dropped: u64,
    /// Each expectation's result, in file order.
    pub expectations: Vec<ExpectationResult>,
    /// The files the sessions wrote (on the kernel's virtual disk), in name order.
    pub files: Vec<OutputFile>,
    /// Each session of the scenario, in declaration order, then the sessions the machine's
    /// boots started (AutoLoggers, the Global Logger), by name, in the order first seen.
    pub sessions: Vec<SessionSummary>,
    /// The providers, in declaration order.
    pub providers: Vec<ProviderSummary>,
    /// The first [`KEPT_WRITES`] writes, one by one.
    pub writes: Vec<WriteRecord>,
    /// Every write the steps made.
    pub writes_total: u64,
    /// Writes that returned an error, by error.
    pub write_errors: Vec<(Win32Error, u64)>,
    /// The enable slots of every provider at the last moment some session was running.
    pub slots: SlotSnapshot,
    /// Simulated CPUs.
    pub cpus: u16,
    /// The kernel's time when the run ended (100 ns units since boot).
    pub end_time: u64,
    /// The step that failed and ended the run early, if one did.
    pub aborted: Option<StepFailure>,
    /// What each boot did, for a machine booted from a registry (`[machine] registry`): the
    /// first boot, then one per `reboot` step. Empty otherwise.
    pub boots: Vec<BootReport>,
    /// The files the run read: the scenario's own (when it was loaded from a file), its
    /// registry and its manifests. [`write_files`](Self::write_files) writes over none of
    /// them.
    pub inputs: Vec<PathBuf>,
}

/// One kernel (MOF) event a session recorded or delivered, decoded.
#[derive(Clone, Debug)]
pub struct KernelEvent {
    /// Its timestamp (the file's or the consumer's clock; the same for every event of a
    /// session).
    pub time: i64,
    /// Its process id.
    pub pid: u32,
    /// The CPU of the buffer that held it.
    pub cpu: u16,
    /// The decoded event (`etwsim_decode::mof`).
    pub event: MofEvent,
}

/// One expectation's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectationResult {
    /// The line of its `[[expect.…]]` table.
    pub line: usize,
    /// What it checks, in words.
    pub what: String,
    /// The expected value.
    pub expected: String,
    /// The value the run produced.
    pub actual: String,
    /// Whether they agree.
    pub passed: bool,
}

/// A file a session wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    /// Its name on the kernel's (virtual) disk: the `log_file` of the session.
    pub path: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// One session at the end of the run.
#[derive(Clone, Debug)]
pub struct SessionSummary {
    /// Its name.
    pub name: String,
    /// Its final statistics: STOP's answer, else the last ones seen while it ran; `None` if
    /// it never started.
    pub stats: Option<SessionProperties>,
    /// Events recorded in its output (log files, memory sink, or its consumer), `None` when
    /// it has no output the run can count.
    pub events: Option<u64>,
    /// Events its real-time consumer received, if a `consume` step attached one.
    pub delivered: Option<u64>,
    /// Whether it has INDEPENDENT_SESSION_MODE.
    pub independent: bool,
    /// The kernel (MOF) events in its output, decoded, oldest first: from its log files when
    /// it wrote any, else what its real-time consumer received.
    pub kernel_events: Vec<KernelEvent>,
}

/// A provider of the scenario.
#[derive(Clone, Debug)]
pub struct ProviderSummary {
    /// Its scenario name.
    pub name: String,
    /// Its GUID.
    pub guid: Guid,
    /// The enable callbacks each registration received, in registration order (one list per
    /// process it is registered in).
    pub callbacks: Vec<Vec<CallbackRecord>>,
}

/// What one enable callback was told (PRV-09…PRV-15).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallbackRecord {
    /// IsEnabled: 0 disable, 1 enable, 2 capture state.
    pub is_enabled: u32,
    /// The composite level.
    pub level: u8,
    /// The composite MatchAnyKeyword.
    pub any: u64,
    /// The composite MatchAllKeyword.
    pub all: u64,
    /// The SourceId.
    pub source_id: Guid,
}

/// One write of a `write` step.
#[derive(Clone, Debug)]
pub struct WriteRecord {
    /// The sequence number of its `Write` journal entry (none when no session enabled the
    /// provider).
    pub seq: Option<u64>,
    /// The kernel's time (100 ns units since boot).
    pub time: u64,
    /// The writer's CPU.
    pub cpu: u16,
    /// The writer's thread id.
    pub tid: u32,
    /// The writer's process id.
    pub pid: u32,
    /// The provider (index into [`Outcome::providers`]).
    pub provider: usize,
    /// The event descriptor.
    pub descriptor: EventDescriptor,
    /// What the write returned.
    pub result: Result<(), Win32Error>,
    /// The sessions that stored it (indices into [`Outcome::sessions`]).
    pub stored: Vec<usize>,
    /// The sessions that wanted it but lost it.
    pub lost: Vec<usize>,
    /// The first [`KEPT_PAYLOAD`] bytes of its payload.
    pub payload: Vec<u8>,
}

/// The enable slots of the providers at one moment.
#[derive(Clone, Debug, Default)]
pub struct SlotSnapshot {
    /// The kernel's time of the snapshot.
    pub time: u64,
    /// The line of the action after which it was taken.
    pub line: Option<usize>,
    /// Per provider (index into [`Outcome::providers`]): the slots in use, as
    /// (slot number, session name, TRACE_ENABLE_INFO).
    pub providers: Vec<Vec<(u8, String, EnableInfo)>>,
}

/// A step that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepFailure {
    /// Its line.
    pub line: usize,
    /// Its key (`step[3].flush`).
    pub key: String,
    /// What happened.
    pub message: String,
}

impl StepFailure {
    /// The number of the `[[step]]` that failed (`step[3].stop` → 3); `None` when what
    /// failed is not a step (a session's start, an `[[enable]]`, the machine).
    pub fn step(&self) -> Option<usize> {
        self.key
            .strip_prefix("step[")?
            .split(']')
            .next()?
            .parse()
            .ok()
    }

    /// Where the run stopped, for people: `step 3 (line 12)`, else its key and line
    /// (`` `enable[2]` (line 30) ``).
    pub fn place(&self) -> String {
        match self.step() {
            Some(n) => format!("step {n} (line {})", self.line),
            None => format!("`{}` (line {})", self.key, self.line),
        }
    }
}

impl std::fmt::Display for StepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: `{}`: {}", self.line, self.key, self.message)
    }
}

impl Outcome {
    /// `true` when no step failed and every expectation held.
    pub fn passed(&self) -> bool {
        self.aborted.is_none() && self.expectations.iter().all(|e| e.passed)
    }

    /// The expectations that did not hold.
    pub fn failures(&self) -> impl Iterator<Item = &ExpectationResult> {
        self.expectations.iter().filter(|e| !e.passed)
    }

    /// Writes the files the sessions wrote into `dir` (created if missing), each under its
    /// log-file name; folders in the name are kept below `dir`, and a root, a drive or `..`
    /// is dropped, so nothing lands outside `dir`. Each file is written whole or not at all
    /// ([`files::AtomicFile`](crate::files::AtomicFile)): a failure leaves no half-written
    /// file. Returns the paths written.
    ///
    /// # Errors
    /// [`Error::OutputIsInput`] (before anything is written) when a file would land on one
    /// of [`inputs`](Self::inputs); [`Error::Io`] naming the file or folder that could not be
    /// written.
    pub fn write_files(&self, dir: &Path) -> Result<Vec<PathBuf>, Error> {
        let io = |what, path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { what, path, source }
        };
        // Every destination first, each checked against the inputs, so nothing is written
        // when one of them would overwrite an input.
        let mut plan = Vec::new();
        for f in &self.files {
            let rel: PathBuf = f
                .path
                .split(['/', '\\'])
                .filter(|c| !c.is_empty() && *c != "." && *c != ".." && !c.ends_with(':'))
                .collect();
            if rel.as_os_str().is_empty() {
                continue;
            }
            let dest = dir.join(rel);
            let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
            crate::files::refuse_overwrite(&dest, &inputs)?;
            plan.push((dest, f));
        }
        std::fs::create_dir_all(dir).map_err(io("cannot create folder", dir))?;
        let mut written = Vec::new();
        for (dest, f) in plan {
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(io("cannot create folder", parent))?;
            }
            crate::files::write_atomic(&dest, &f.bytes).map_err(io("cannot write", &dest))?;
            written.push(dest);
        }
        Ok(written)
    }
}

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

pub(crate) struct Runner<'a> {
    pub sc: &'a Scenario,
    pub kernel: Option<Kernel>,
    processes: Vec<Option<Process>>,
    /// (process, CPU) → a thread on that CPU; CPU 0 is the process's main writer thread.
    threads: HashMap<(ProcRef, u16), Thread>,
    named: Vec<Vec<Thread>>,
    regs: Vec<Vec<Option<Arc<Provider>>>>,
    pub callbacks: Vec<Vec<Callbacks>>,
    sinks: Vec<Option<MemorySink>>,
    consumers: Vec<Option<Consumer>>,
    pub delivered: Vec<Option<u64>>,
    pub stats: Vec<Option<SessionProperties>>,
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

/// Makes the host folder that stands for a booted machine's drives (`BootOptions::root`):
/// boot creates `C\Windows\System32\LogFiles\WMI` in it (a log file's folder must exist on
/// the host, SES-28); the files themselves stay on the virtual disk. A new folder for every
/// run, in `parent` (else the system's temporary folder), so runs at the same time never
/// share one; it is removed when the run ends.
fn make_scratch(parent: Option<&Path>) -> std::io::Result<tempfile::TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix("etwsim-scenario-");
    match parent {
        Some(p) => {
            std::fs::create_dir_all(p)?;
            b.tempdir_in(p)
        }
        None => b.tempdir(),
    }
}

/// A boot's report with the run's scratch folder taken out of it, so it reads the same in
/// every run: host files relative to the machine's root (the folder is gone once the run
/// ends: the files are on the virtual disk), and the folder's name in messages replaced by
/// `<machine root>`.
fn portable_report(report: &mut BootReport, root: &Path) {
    let shown = root.display().to_string();
    let text = |t: &mut String| {
        if t.contains(&shown) {
            *t = t.replace(&shown, "<machine root>");
        }
    };
    report.notes.iter_mut().for_each(text);
    for s in &mut report.sessions {
        if let Some(h) = &mut s.host_file {
            if let Ok(rel) = h.strip_prefix(root) {
                *h = rel.to_path_buf();
            }
        }
        if let Some(why) = &mut s.why {
            text(why);
        }
        s.overrides.iter_mut().for_each(text);
        if let Some(f) = s.in_force.as_mut().and_then(|p| p.log_file.as_mut()) {
            text(f);
        }
    }
}

/// A booted session's file as Windows writes it: its header's LogFileName is the Windows
/// path (`C:\Windows\…`), not the host folder that stood for the drive — which is a new
/// folder for every run, so the bytes would otherwise differ from run to run. Only a header
/// that decodes and encodes back to the very same bytes is rewritten.
fn windows_header(bytes: &mut [u8], windows_name: &str) {
    let Ok(header) = etwsim::etl::LogfileHeader::decode_buffer(bytes, 0) else {
        return;
    };
    let size = header.buffer_size as usize;
    if header.log_file_name == windows_name || bytes.len() < size {
        return;
    }
    if header.encode_buffer().ok().as_deref() != Some(&bytes[..size]) {
        return;
    }
    let mut renamed = header;
    renamed.log_file_name = windows_name.to_string();
    if let Ok(buf0) = renamed.encode_buffer() {
        if buf0.len() == size {
            bytes[..size].copy_from_slice(&buf0);
        }
    }
}

/// A virtual-disk path under the boot root as the Windows path it stands for
/// (`<root>/C/Windows/x.etl` → `C:\Windows\x.etl`); other paths as they are.
fn windows_path(root: Option<&Path>, path: &Path) -> String {
    let Some(rel) = root.and_then(|r| path.strip_prefix(r).ok()) else {
        return path.to_string_lossy().into_owned();
    };
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.split_first() {
        Some((first, rest)) if first == "UNC" => format!(r"\\{}", rest.join("\\")),
        Some((first, rest)) if first.len() == 1 => format!(r"{first}:\{}", rest.join("\\")),
        _ => parts.join("\\"),
    }
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
                let registered = self.process(kernel, *r).map(|p| {
                    p.register_provider_with_callback(prov.guid, move |n| {
                        if let Ok(mut v) = sink.lock() {
                            v.push(CallbackRecord {
                                is_enabled: n.is_enabled as u32,
                                level: n.level.0,
                                any: n.match_any_keyword.0,
                                all: n.match_all_keyword.0,
                                source_id: n.source_id,
                            });
                        }
                    })
                });
                match registered {
                    Some(Ok(p)) => self.regs[pi][ri] = Some(Arc::new(p)),
                    Some(Err(e)) => self.fail(
                        prov.line,
                        "provider",
                        format!("EventRegister {:?}: {e}", prov.name),
                    ),
                    None => {}
                }
            }
        }
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

    /// A named thread of a process that runs, for an OS step.
    fn named_thread(&self, process: ProcRef, thread: Option<usize>) -> Option<Thread> {
        let (p, t) = (process?, thread?);
        self.named.get(p)?.get(t).cloned()
    }

    fn not_running(what: &str) -> etwsim::Error {
        etwsim::Error::InvalidParameter(format!("{what} is not running"))
    }

    /// An OS step: a file, image, process or thread operation.
    fn os(&mut self, kernel: &Kernel, kind: &ActionKind) -> Result<(), etwsim::Error> {
        match kind {
            ActionKind::Spawn(p) => self.spawn(kernel, *p)?,
            ActionKind::ThreadExit { process, thread } => {
                self.named_thread(Some(*process), Some(*thread))
                    .ok_or_else(|| Self::not_running("the thread's process"))?
                    .exit();
            }
            ActionKind::OpenFile {
                process,
                thread,
                path,
                create,
                handle,
            } => {
                let proc_ = self
                    .process(kernel, *process)
                    .filter(|p| !p.has_exited())
                    .ok_or_else(|| Self::not_running("the process"))?;
                let t = self.named_thread(*process, *thread);
                let _on = t.as_ref().map(Thread::enter);
                let h = match create {
                    None => proc_.open_file(path)?,
                    Some(d) => proc_.create_file(path, CreateFile::new(*d))?,
                };
                self.files.insert(*handle, FileSlot::Open(h));
            }
            ActionKind::FileIo {
                op,
                thread,
                handle,
                offset,
                size,
            } => {
                let slot = self
                    .files
                    .remove(handle)
                    .ok_or_else(|| Self::not_running("the file handle (its open failed)"))?;
                let process = match &slot {
                    FileSlot::Open(h) => h.process().clone(),
                    FileSlot::Closing(_) => kernel.system_process(),
                };
                let t = thread.and_then(|t| {
                    let i = self
                        .processes
                        .iter()
                        .position(|p| p.as_ref().is_some_and(|p| p.pid() == process.pid()))?;
                    self.named.get(i)?.get(t).cloned()
                });
                let _on = t.as_ref().map(Thread::enter);
                let next = match (slot, op) {
                    (FileSlot::Open(h), FileOp::Read) => {
                        h.read(*offset, *size);
                        Some(FileSlot::Open(h))
                    }
                    (FileSlot::Open(h), FileOp::Write) => {
                        h.write(*offset, *size);
                        Some(FileSlot::Open(h))
                    }
                    (FileSlot::Open(h), FileOp::Cleanup) => Some(FileSlot::Closing(h.cleanup())),
                    (FileSlot::Open(h), FileOp::Close) => {
                        h.close();
                        None
                    }
                    (FileSlot::Closing(c), FileOp::PagingWrite) => {
                        c.paging_write(*offset, *size);
                        Some(FileSlot::Closing(c))
                    }
                    (FileSlot::Closing(c), FileOp::Close) => {
                        c.close();
                        None
                    }
                    // The loader lets no other pair through.
                    (slot, _) => Some(slot),
                };
                if let Some(next) = next {
                    self.files.insert(*handle, next);
                }
            }
            ActionKind::LoadImage {
                process,
                path,
                size,
                image,
            } => {
                let proc_ = self
                    .process(kernel, *process)
                    .filter(|p| !p.has_exited())
                    .ok_or_else(|| Self::not_running("the process"))?;
                let img = proc_.load_image(path, *size)?;
                self.images.insert(*image, img);
            }
            ActionKind::UnloadImage(i) => {
                if let Some(img) = self.images.remove(i) {
                    img.unload();
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The caller of control calls on session `s`.
    fn caller(&self, kernel: &Kernel, s: usize) -> Process {
        self.process(kernel, self.sc.sessions[s].caller)
            .unwrap_or_else(|| kernel.system_process())
    }

    fn act(&mut self, kernel: &Kernel, index: usize) {
        let sc = self.sc;
        let action = &sc.actions[index];
        let result: Result<(), etwsim::Error> = match &action.kind {
            ActionKind::Start(s) => self.start(kernel, *s),
            ActionKind::Enable(e) => self.enable(kernel, e),
            ActionKind::Disable { session, provider } => kernel.enable_trace_ex2(
                &self.caller(kernel, *session),
                Target::Name(&self.sc.sessions[*session].name),
                self.sc.providers[*provider].guid,
                etwsim::ControlCode::DisableProvider,
                &EnableParams::default(),
            ),
            ActionKind::Write(w) => {
                self.write(kernel, w);
                Ok(())
            }
            ActionKind::Advance(d) => {
                kernel.advance(*d);
                Ok(())
            }
            ActionKind::RunLogger => {
                kernel.run_pending();
                Ok(())
            }
            ActionKind::Flush(s) => self.control(kernel, *s, TraceControl::Flush, None),
            ActionKind::Update(s, u) => self.control(kernel, *s, TraceControl::Update, Some(u)),
            ActionKind::Stop(s) => self.control(kernel, *s, TraceControl::Stop, None),
            ActionKind::Consume(s) => self.consume(kernel, *s),
            ActionKind::Exit(p, code) => {
                if let Some(p) = self.processes.get(*p).cloned().flatten() {
                    match code {
                        Some(c) => p.exit_with(*c),
                        None => p.exit(),
                    }
                }
                Ok(())
            }
            ActionKind::Reboot => self.reboot(kernel),
            other => self.os(kernel, other),
        };
        let (line, key) = (action.line, action.key.clone());
        match (result, &action.expect_error) {
            (Ok(()), None) => {}
            (Ok(()), Some(want)) => {
                self.fail(line, &key, format!("expected {want}, but it succeeded"));
            }
            (Err(e), Some(want)) if want.matches(e.win32_code()) => {}
            (Err(e), Some(want)) => {
                let code = e.win32_code();
                self.fail(
                    line,
                    &key,
                    format!(
                        "expected {want}, got {} ({}): {}",
                        code.name().unwrap_or("an error"),
                        code.0,
                        e.reason()
                    ),
                );
            }
            (Err(e), None) => {
                let code = e.win32_code();
                self.fail(
                    line,
                    &key,
                    format!(
                        "{} ({}): {}",
                        code.name().unwrap_or("error"),
                        code.0,
                        e.reason()
                    ),
                );
            }
        }
    }

    fn start(&mut self, kernel: &Kernel, s: usize) -> Result<(), etwsim::Error> {
        let spec = &self.sc.sessions[s];
        let mut b = kernel.session(&spec.name).caller(&self.caller(kernel, s));
        if let Some(g) = spec.guid {
            b = b.guid(g);
        }
        if let Some(f) = &spec.log_file {
            b = b.log_file(f);
        }
        if let Some(m) = spec.mode {
            b = b.mode(m);
        }
        if spec.real_time {
            b = b.real_time();
        }
        if spec.buffering {
            b = b.buffering();
        }
        if let Some(n) = spec.buffer_size_kb {
            b = b.buffer_size_kb(n);
        }
        if let Some(n) = spec.minimum_buffers {
            b = b.minimum_buffers(n);
        }
        if let Some(n) = spec.maximum_buffers {
            b = b.maximum_buffers(n);
        }
        if let Some(n) = spec.maximum_file_size {
            b = b.maximum_file_size(n);
        }
        if let Some(n) = spec.flush_timer {
            b = b.flush_timer(n);
        }
        if let Some(c) = spec.clock {
            b = b.clock(c);
        }
        if let Some(f) = spec.enable_flags {
            b = b.enable_flags(f);
        }
        let sink = spec.memory_sink.then(MemorySink::new);
        if let Some(sink) = &sink {
            b = b.sink(sink.clone());
        }
        // Dropping the handle leaves the session running (SES-16); later calls name it.
        drop(b.start()?);
        if sink.is_some() {
            self.sinks[s] = sink;
        }
        Ok(())
    }

    fn enable(&mut self, kernel: &Kernel, e: &EnableSpec) -> Result<(), etwsim::Error> {
        let mut params = EnableParams::new()
            .level(Level(e.level))
            .any(e.any)
            .all(e.all)
            .property(e.properties)
            .source_id(e.source_id);
        for f in &e.filters {
            params = params.filter(match f {
                FilterSpec::Ready(f) => f.clone(),
                FilterSpec::Pids(refs) => EventFilter::Pid(
                    refs.iter()
                        .map(|r| match r {
                            PidRef::Pid(p) => *p,
                            PidRef::Process(p) => self.process(kernel, *p).map_or(0, |p| p.pid()),
                        })
                        .collect(),
                ),
            });
        }
        kernel.enable_trace_ex2(
            &self.caller(kernel, e.session),
            Target::Name(&self.sc.sessions[e.session].name),
            self.sc.providers[e.provider].guid,
            etwsim::ControlCode::EnableProvider,
            &params,
        )
    }

    fn control(
        &mut self,
        kernel: &Kernel,
        s: usize,
        code: TraceControl,
        update: Option<&etwsim::SessionUpdate>,
    ) -> Result<(), etwsim::Error> {
        let caller = self.caller(kernel, s);
        let props = kernel.control_trace(
            &caller,
            Target::Name(&self.sc.sessions[s].name),
            code,
            update,
        )?;
        self.stats[s] = Some(props);
        Ok(())
    }

    fn consume(&mut self, kernel: &Kernel, s: usize) -> Result<(), etwsim::Error> {
        if self.consumers[s].is_none() {
            let caller = self.caller(kernel, s);
            let c = kernel.open_realtime(
                &caller,
                &self.sc.sessions[s].name,
                ConsumerOptions::default(),
            )?;
            self.consumers[s] = Some(c);
        }
        self.drain(s);
        Ok(())
    }

    fn drain(&mut self, s: usize) {
        if let Some(c) = &mut self.consumers[s] {
            let records = c.drain();
            let n = records.iter().filter(|r| !r.is_lost_event_marker()).count() as u64;
            *self.delivered[s].get_or_insert(0) += n;
            self.rt_events[s].extend(records.iter().filter_map(|r| {
                Some(KernelEvent {
                    time: r.header.timestamp,
                    pid: r.header.process_id,
                    cpu: r.buffer_context.processor_index,
                    event: mof::decode_event_record(r).ok()?,
                })
            }));
        }
    }

    fn thread(&mut self, kernel: &Kernel, w: &WriteSpec) -> Option<Thread> {
        let cpu = match w.thread {
            ThreadSel::Named(i) => {
                return w.process.and_then(|p| self.named.get(p)?.get(i).cloned());
            }
            ThreadSel::Main => 0,
            ThreadSel::Cpu(c) => c,
        };
        if let Some(t) = self.threads.get(&(w.process, cpu)) {
            return Some(t.clone());
        }
        let t = self.process(kernel, w.process)?.spawn_thread(cpu).ok()?;
        self.threads.insert((w.process, cpu), t.clone());
        Some(t)
    }

    fn write(&mut self, kernel: &Kernel, w: &WriteSpec) {
        let Some(provider) = self.regs[w.provider].get(w.reg).cloned().flatten() else {
            return;
        };
        let thread = self.thread(kernel, w);
        let pid = provider.pid();
        let mut payload = match &w.payload {
            Payload::Size(n) => vec![0u8; *n as usize],
            Payload::Bytes(b) => b.clone(),
        };
        for n in 1..=w.count {
            if let Payload::Size(size) = w.payload {
                let k = (size as usize).min(4);
                payload[..k].copy_from_slice(&(n as u32).to_le_bytes()[..k]);
            }
            let result = {
                let _on = thread.as_ref().map(Thread::enter);
                if let Some(text) = &w.string {
                    provider.write_string(w.descriptor.level, w.descriptor.keyword, text)
                } else if w.inprivate || w.filter_mask != 0 {
                    let flags = if w.inprivate {
                        etwsim::EVENT_WRITE_FLAG_INPRIVATE
                    } else {
                        0
                    };
                    provider.write_ex(&w.descriptor, w.filter_mask, flags, None, None, &[&payload])
                } else {
                    provider.write(&w.descriptor, &[&payload])
                }
            };
            let result = result.map_err(|e| e.win32_code());
            self.writes_total += 1;
            if let Err(code) = result {
                match self.write_errors.iter_mut().find(|(c, _)| *c == code) {
                    Some((_, n)) => *n += 1,
                    None => self.write_errors.push((code, 1)),
                }
            }
            let new = self.collect(kernel);
            if self.writes.len() < KEPT_WRITES {
                let record = self.write_record(kernel, w, &thread, pid, result, new, &payload);
                self.writes.push(record);
            }
            if let Some(every) = w.every {
                kernel.advance(every);
                self.collect(kernel);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_record(
        &self,
        kernel: &Kernel,
        w: &WriteSpec,
        thread: &Option<Thread>,
        pid: u32,
        result: Result<(), Win32Error>,
        new: usize,
        payload: &[u8],
    ) -> WriteRecord {
        let entries = self.journal.range(self.journal.len() - new..);
        let write = entries
            .clone()
            .rev()
            .find(|e| matches!(e.event, JournalEvent::Write { .. }));
        let lost_in: Vec<usize> = entries
            .filter_map(|e| match &e.event {
                JournalEvent::Loss {
                    session,
                    counter: LossCounter::EventsLost,
                    ..
                } => self.session_index(session),
                _ => None,
            })
            .collect();
        let mut stored = Vec::new();
        let mut lost = Vec::new();
        if let Some(JournalEntry {
            event: JournalEvent::Write { verdicts, .. },
            ..
        }) = write
        {
            for v in verdicts.iter().filter(|v| v.recorded) {
                let Some(s) = self.session_index(&v.session_name) else {
                    continue;
                };
                let independent = self.sc.sessions.get(s).is_some_and(|x| x.independent());
                if lost_in.contains(&s) {
                    lost.push(s);
                } else if result.is_ok() || independent {
                    stored.push(s);
                }
            }
        }
        let descriptor = match &w.string {
            Some(_) => EventDescriptor::new(0, w.descriptor.level, Keyword(w.descriptor.keyword.0)),
            None => w.descriptor,
        };
        let payload = match &w.string {
            Some(text) => text
                .encode_utf16()
                .chain(std::iter::once(0))
                .flat_map(u16::to_le_bytes)
                .take(KEPT_PAYLOAD)
                .collect(),
            None => payload[..payload.len().min(KEPT_PAYLOAD)].to_vec(),
        };
        WriteRecord {
            seq: write.map(|e| e.seq),
            time: write.map_or_else(|| kernel.now().as_nanos() as u64 / 100, |e| e.time),
            cpu: thread.as_ref().map_or(0, Thread::cpu),
            tid: thread.as_ref().map_or(0, Thread::tid),
            pid,
            provider: w.provider,
            descriptor,
            result,
            stored,
            lost,
            payload,
        }
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
                m.shutdown();
            }
        }
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

    fn outcome(self) -> Outcome {
        let kernel = self.kernel.clone();
        let files: Vec<OutputFile> = kernel
            .as_ref()
            .and_then(|k| k.virtual_disk())
            .map(|d| {
                d.paths()
                    .into_iter()
                    .filter_map(|p| {
                        let path = windows_path(self.boot_root.as_deref(), &p);
                        d.read(&p).map(|mut bytes| {
                            if self.boot_root.as_deref().is_some_and(|r| p.starts_with(r)) {
                                windows_header(&mut bytes, &path);
                            }
                            OutputFile { path, bytes }
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let file_counts = expect::file_counts(&files);
        let counted = |name: &str| -> Option<u64> {
            file_counts
                .iter()
                .filter(|c| c.logger.eq_ignore_ascii_case(name))
                .map(|c| c.records)
                .reduce(|a, b| a + b)
        };
        let mut sessions: Vec<SessionSummary> = self
            .sc
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let from_files = counted(&s.name);
                let from_sink = self.sinks[i].as_ref().map(|m| {
                    m.records()
                        .iter()
                        .filter(|r| !r.is_lost_event_marker())
                        .count() as u64
                });
                let kernel_events = if from_files.is_some() {
                    expect::kernel_events(&files, &file_counts, &s.name)
                } else {
                    self.rt_events[i].clone()
                };
                SessionSummary {
                    name: s.name.clone(),
                    stats: self.stats[i].clone(),
                    events: from_files.or(from_sink).or(self.delivered[i]),
                    delivered: self.delivered[i],
                    independent: s.independent(),
                    kernel_events,
                }
            })
            .collect();
        sessions.extend(self.boot_sessions.iter().map(|(name, stats)| {
            let events = counted(name);
            SessionSummary {
                name: name.clone(),
                stats: stats.clone(),
                events,
                delivered: None,
                independent: false,
                kernel_events: if events.is_some() {
                    expect::kernel_events(&files, &file_counts, name)
                } else {
                    Vec::new()
                },
            }
        }));
        let providers = self
            .sc
            .providers
            .iter()
            .enumerate()
            .map(|(i, p)| ProviderSummary {
                name: p.name.clone(),
                guid: p.guid,
                // A machine that never came up registered nothing: no callbacks.
                callbacks: match self.callbacks.get(i) {
                    Some(cbs) => cbs
                        .iter()
                        .map(|c| c.lock().map(|v| v.clone()).unwrap_or_default())
                        .collect(),
                    None => vec![Vec::new(); p.regs.len()],
                },
            })
            .collect();
        let mut outcome = Outcome {
            scenario: self.sc.name.clone(),
            file: self.sc.source.name.clone(),
            journal: Vec::from(self.journal),
            journal_dropped: self.journal_dropped,
            expectations: Vec::new(),
            files,
            sessions,
            providers,
            writes: self.writes,
            writes_total: self.writes_total,
            write_errors: self.write_errors,
            slots: self.slots,
            cpus: self.sc.cpus,
            end_time: kernel.map_or(0, |k| k.now().as_nanos() as u64 / 100),
            aborted: self.aborted,
            boots: self.boots,
            inputs: self
                .sc
                .path
                .iter()
                .chain(&self.sc.inputs)
                .cloned()
                .collect(),
        };
        outcome.expectations = expect::check(self.sc, &outcome, &file_counts);
        outcome
    }
}
