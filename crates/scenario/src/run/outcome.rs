//! What a run did: the public [`Outcome`] and its parts (sessions' counters, providers'
//! callbacks, writes, enable slots, expectation results), and how the runner's state
//! becomes one.

use super::Runner;
use super::boot::{windows_header, windows_path};
use crate::{Error, expect};
use etwsim::{
    BootReport, EnableInfo, EventDescriptor, Guid, JournalEntry, SessionProperties, Win32Error,
};
use etwsim_decode::mof::MofEvent;
use std::path::{Path, PathBuf};

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
    /// The state after each named step the run reached, in step order.
    pub checkpoints: Vec<Checkpoint>,
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
    /// Events each named consumer (`consume` with `consumer`) received, in the order they
    /// were attached.
    pub consumers: Vec<(String, u64)>,
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
    /// FilterData: the chain of schematized filters (`EVENT_FILTER_HEADER`s), if a session
    /// gave one (PRV-15).
    pub filter_data: Option<Vec<u8>>,
}

/// The state right after a named step (`name`), which `after` expectations check.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The step's name.
    pub name: String,
    /// The step's line.
    pub line: usize,
    /// Each session's last statistics so far (as [`SessionSummary::stats`]), in the order of
    /// [`Outcome::sessions`]: the scenario's sessions, then the boot sessions started by then.
    pub stats: Vec<Option<SessionProperties>>,
    /// What each scenario session's consumer received so far (as
    /// [`SessionSummary::delivered`]).
    pub delivered: Vec<Option<u64>>,
    /// What each scenario session's named consumers received so far.
    pub consumers: Vec<Vec<(String, u64)>>,
    /// How many journal entries the run had made by then, those let go by the journal's
    /// bound included (sequence numbers start again at each boot, so they cannot say).
    pub journal_len: u64,
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

impl Runner<'_> {
    pub(super) fn outcome(self) -> Outcome {
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
                let consumers: Vec<(String, u64)> = self.named_consumers[i]
                    .iter()
                    .map(|(n, _, k)| (n.clone(), *k))
                    .collect();
                SessionSummary {
                    name: s.name.clone(),
                    stats: self.stats[i].clone(),
                    events: from_files
                        .or(from_sink)
                        .or(self.delivered[i])
                        .or(consumers.first().map(|c| c.1)),
                    delivered: self.delivered[i],
                    consumers,
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
                consumers: Vec::new(),
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
            checkpoints: self.checkpoints,
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
