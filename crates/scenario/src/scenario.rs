//! Loading a scenario: the file is parsed ([`crate::file`]), then every name is resolved and
//! every value checked, so that a scenario that loads can run. Each error names its line,
//! column and key.

use crate::error::{Error, Source};
use crate::file::{
    EnableDef, ExpectBoot, ExpectCallbacks, ExpectFile, ExpectJournal, ExpectKernel, ExpectSession,
    ExpectTotal, FilterDef, NameFilterDef, ProcessDef, ProviderDef, ScenarioFile, SessionDef,
    StepDef,
};
use crate::files::{read_capped, size_text};
use crate::values::{
    FlagsValue, KeywordPart, KeywordValue, LevelValue, NameOrNumber, PidValue, resolve_flags,
};
use etwsim::registry::{ImportOptions, Registry};
use etwsim::{
    Channel, ClockType, Disposition, EnableProperty, EventDescriptor, EventFilter, Guid,
    KernelBuilder, Keyword, Level, LogFileMode, NameFilter, Opcode, ProcessSpec, SessionUpdate,
    Task, Token, event_trace_flag as flag,
};
use etwsim_decode::fileio::Policy;
use etwsim_decode::manifest::{self, Manifest};
use etwsim_decode::mof::{self, KernelClass};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// The most events one scenario may write, all write steps together.
pub const MAX_WRITES: u64 = 1_000_000;
/// The most virtual time one scenario may move through, all steps together.
pub const MAX_VIRTUAL_TIME: Duration = Duration::from_secs(10 * 366 * 24 * 3600);
/// The largest `payload_size`.
pub const MAX_PAYLOAD: u32 = 1 << 20;
/// The journal's default bound (`[machine] journal_capacity`).
pub const DEFAULT_JOURNAL_CAPACITY: u32 = 200_000;
/// The largest `[machine] journal_capacity`.
pub const MAX_JOURNAL_CAPACITY: u32 = 10_000_000;
/// The largest `[machine] max_session_buffer_bytes`: a scenario's sessions allocate their
/// MinimumBuffers when they start, and this keeps one file from asking for all the memory.
pub const MAX_SESSION_BUFFER_BYTES: u64 = 1 << 30;
/// The default and the largest `[machine] max_machine_buffer_bytes`: all of a scenario's
/// running sessions together hold at most this much buffer memory, so no file can make a run
/// allocate more, however many sessions it starts. A session whose MinimumBuffers do not fit
/// in what is left fails to start with `ERROR_NO_SYSTEM_RESOURCES` (1450), as StartTrace does
/// when the nonpaged pool runs out.
pub const MAX_MACHINE_BUFFER_BYTES: u64 = 4 << 30;
/// The most `[[step]]` tables in one scenario (use a write's `count` for many events).
pub const MAX_STEPS: usize = 100_000;
/// The most `[[process]]` tables in one scenario.
pub const MAX_PROCESSES: usize = 1_024;
/// The most named `threads` of one process.
pub const MAX_THREADS: usize = 64;
/// The most `[[provider]]` tables in one scenario.
pub const MAX_PROVIDERS: usize = 1_024;
/// The most `[[session]]` tables in one scenario (more than any machine runs at once:
/// `max_loggers` is at most 256, so a scenario can show the start that fails).
pub const MAX_SESSIONS: usize = 1_024;
/// The most `[[enable]]` tables in one scenario.
pub const MAX_ENABLES: usize = 10_000;
/// The most `[[expect.…]]` tables in one scenario, all kinds together. Checking a journal
/// expectation reads the whole journal, so this and [`MAX_JOURNAL_CAPACITY`] bound that work.
pub const MAX_EXPECTATIONS: usize = 1_000;
/// The largest scenario file (`Scenario::load`, and the text `Scenario::parse` takes).
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;
/// The largest `.reg` file a scenario names (`[machine] registry`).
pub const MAX_REGISTRY_BYTES: u64 = 16 << 20;
/// The largest instrumentation manifest a scenario or a report reads.
pub const MAX_MANIFEST_BYTES: u64 = 32 << 20;
/// The name that stands for the kernel's System process wherever a process is named.
pub const SYSTEM_PROCESS: &str = "System";

/// A process of the scenario: `None` is the System process, `Some(i)` the i-th `[[process]]`.
pub(crate) type ProcRef = Option<usize>;

/// A loaded, checked scenario, ready to [`run`](Scenario::run).
#[derive(Debug)]
pub struct Scenario {
    pub(crate) source: Source,
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) stop_at_end: bool,
    pub(crate) builder: KernelBuilder,
    pub(crate) cpus: u16,
    pub(crate) registry: Option<Registry>,
    pub(crate) processes: Vec<ProcSpec>,
    pub(crate) providers: Vec<ProvSpec>,
    pub(crate) sessions: Vec<SessSpec>,
    pub(crate) actions: Vec<Action>,
    pub(crate) expectations: Vec<Expectation>,
    /// The files the scenario read besides itself: its registry, its manifests.
    pub(crate) inputs: Vec<PathBuf>,
    /// The scenario's own file, when it was loaded from one.
    pub(crate) path: Option<PathBuf>,
}

#[derive(Debug)]
pub(crate) struct ProcSpec {
    pub line: usize,
    pub name: String,
    pub spec: ProcessSpec,
    pub threads: Vec<(String, u16)>,
    /// Spawned at the start (and again after each reboot); `false`: by a `spawn` step.
    pub autostart: bool,
    /// The parent process (an earlier `[[process]]`), given to the spawn.
    pub parent: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct ProvSpec {
    pub line: usize,
    pub name: String,
    pub guid: Guid,
    pub manifest: Option<manifest::Provider>,
    pub regs: Vec<ProcRef>,
}

#[derive(Debug)]
pub(crate) struct SessSpec {
    pub name: String,
    pub guid: Option<Guid>,
    pub log_file: Option<String>,
    pub mode: Option<LogFileMode>,
    pub real_time: bool,
    pub buffering: bool,
    pub buffer_size_kb: Option<u32>,
    pub minimum_buffers: Option<u32>,
    pub maximum_buffers: Option<u32>,
    pub maximum_file_size: Option<u32>,
    pub flush_timer: Option<u32>,
    pub clock: Option<ClockType>,
    pub enable_flags: Option<u32>,
    pub caller: ProcRef,
    pub memory_sink: bool,
}

impl SessSpec {
    /// Whether the session takes events on its own when others cannot (SES-53, EVT-10).
    pub(crate) fn independent(&self) -> bool {
        self.mode
            .is_some_and(|m| m.contains(LogFileMode::INDEPENDENT_SESSION))
    }
}

/// One thing the run does, in order: sessions' starts, the `[[enable]]`s, then the steps.
#[derive(Debug)]
pub(crate) struct Action {
    pub line: usize,
    pub key: String,
    pub kind: ActionKind,
    pub expect_error: Option<ErrorMatch>,
}

#[derive(Debug)]
pub(crate) enum ActionKind {
    Start(usize),
    Enable(EnableSpec),
    Disable {
        session: usize,
        provider: usize,
    },
    Write(WriteSpec),
    Advance(Duration),
    RunLogger,
    Flush(usize),
    Update(usize, SessionUpdate),
    Stop(usize),
    Consume(usize),
    Exit(usize, Option<i32>),
    Reboot,
    Spawn(usize),
    ThreadExit {
        process: usize,
        thread: usize,
    },
    OpenFile {
        process: ProcRef,
        thread: Option<usize>,
        path: String,
        create: Option<Disposition>,
        handle: usize,
    },
    FileIo {
        op: FileOp,
        thread: Option<usize>,
        handle: usize,
        offset: u64,
        size: u32,
    },
    LoadImage {
        process: ProcRef,
        path: String,
        size: u64,
        image: usize,
    },
    UnloadImage(usize),
}

/// What an OS step does with an open file handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileOp {
    Read,
    Write,
    Cleanup,
    PagingWrite,
    Close,
}

/// The `enable_flags` names: etwsim's `event_trace_flag` constants (EVENT_TRACE_FLAG_*).
pub(crate) fn enable_flag_names() -> Vec<(&'static str, u32)> {
    vec![
        ("PROCESS", flag::PROCESS),
        ("THREAD", flag::THREAD),
        ("IMAGE_LOAD", flag::IMAGE_LOAD),
        ("PROCESS_COUNTERS", flag::PROCESS_COUNTERS),
        ("CSWITCH", flag::CSWITCH),
        ("DPC", flag::DPC),
        ("INTERRUPT", flag::INTERRUPT),
        ("SYSTEMCALL", flag::SYSTEMCALL),
        ("DISK_IO", flag::DISK_IO),
        ("DISK_FILE_IO", flag::DISK_FILE_IO),
        ("DISK_IO_INIT", flag::DISK_IO_INIT),
        ("DISPATCHER", flag::DISPATCHER),
        ("MEMORY_PAGE_FAULTS", flag::MEMORY_PAGE_FAULTS),
        ("MEMORY_HARD_FAULTS", flag::MEMORY_HARD_FAULTS),
        ("VIRTUAL_ALLOC", flag::VIRTUAL_ALLOC),
        ("VAMAP", flag::VAMAP),
        ("NETWORK_TCPIP", flag::NETWORK_TCPIP),
        ("REGISTRY", flag::REGISTRY),
        ("DBGPRINT", flag::DBGPRINT),
        ("JOB", flag::JOB),
        ("ALPC", flag::ALPC),
        ("SPLIT_IO", flag::SPLIT_IO),
        ("DEBUG_EVENTS", flag::DEBUG_EVENTS),
        ("DRIVER", flag::DRIVER),
        ("PROFILE", flag::PROFILE),
        ("FILE_IO", flag::FILE_IO),
        ("FILE_IO_INIT", flag::FILE_IO_INIT),
        ("NO_SYSCONFIG", flag::NO_SYSCONFIG),
        ("ENABLE_RESERVE", flag::ENABLE_RESERVE),
        ("FORWARD_WMI", flag::FORWARD_WMI),
        ("EXTENSION", flag::EXTENSION),
    ]
}

/// A Win32 error a control step expects.
#[derive(Debug, Clone)]
pub(crate) enum ErrorMatch {
    Code(u32),
    Name(String),
}

impl ErrorMatch {
    pub(crate) fn matches(&self, e: etwsim::Win32Error) -> bool {
        match self {
            ErrorMatch::Code(c) => e.0 == *c,
            ErrorMatch::Name(n) => e.name().is_some_and(|x| x.eq_ignore_ascii_case(n)),
        }
    }
}

impl std::fmt::Display for ErrorMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ErrorMatch::Code(c) => write!(f, "error {c}"),
            ErrorMatch::Name(n) => f.write_str(n),
        }
    }
}

#[derive(Debug)]
pub(crate) struct EnableSpec {
    pub session: usize,
    pub provider: usize,
    pub level: u8,
    pub any: u64,
    pub all: u64,
    pub properties: EnableProperty,
    pub source_id: Guid,
    pub filters: Vec<FilterSpec>,
}

#[derive(Debug)]
pub(crate) enum FilterSpec {
    Ready(EventFilter),
    /// A PID filter naming processes: their PIDs are known once they run.
    Pids(Vec<PidRef>),
}

#[derive(Debug)]
pub(crate) enum PidRef {
    Pid(u32),
    Process(ProcRef),
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum ThreadSel {
    Main,
    Cpu(u16),
    Named(usize),
}

#[derive(Debug)]
pub(crate) enum Payload {
    Size(u32),
    Bytes(Vec<u8>),
}

#[derive(Debug)]
pub(crate) struct WriteSpec {
    pub provider: usize,
    pub reg: usize,
    pub process: ProcRef,
    pub thread: ThreadSel,
    pub descriptor: EventDescriptor,
    pub count: u64,
    pub every: Option<Duration>,
    pub payload: Payload,
    pub string: Option<String>,
    pub inprivate: bool,
    pub filter_mask: u64,
}

/// One expectation, checked after the run.
#[derive(Debug)]
pub(crate) struct Expectation {
    pub line: usize,
    pub what: String,
    pub check: Check,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionField {
    Events,
    EventsLost,
    BuffersWritten,
    LogBuffersLost,
    RealTimeBuffersLost,
    Delivered,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TotalField {
    Events,
    EventsLost,
    Writes,
    WritesFailed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallbackField {
    IsEnabled,
    Level,
    Any,
    All,
    SourceId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileField {
    Exists,
    Records,
    EventsLost,
}

/// Which journal entries an `[[expect.journal]]` counts.
#[derive(Debug, Clone)]
pub(crate) struct JournalMatch {
    pub kind: &'static str,
    pub session: Option<String>,
    pub provider: Option<Guid>,
    pub rule: Option<String>,
    pub recorded: Option<bool>,
    pub counter: Option<String>,
    pub call: Option<String>,
    pub result: Option<String>,
    pub contains: Option<String>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Bound {
    Exactly(u64),
    AtLeast(u64),
    AtMost(u64),
}

#[derive(Debug)]
pub(crate) enum Check {
    Session {
        session: usize,
        field: SessionField,
        expected: u64,
    },
    Total {
        field: TotalField,
        expected: u64,
    },
    CallbackCount {
        provider: usize,
        reg: usize,
        expected: u64,
    },
    CallbackValue {
        provider: usize,
        reg: usize,
        index: Option<u64>,
        field: CallbackField,
        expected: u128,
    },
    File {
        path: String,
        field: FileField,
        expected: u64,
    },
    Journal {
        matcher: JournalMatch,
        bound: Bound,
    },
    Kernel {
        session: usize,
        matcher: KernelMatch,
        bound: Bound,
    },
    Boot {
        boot: Option<u32>,
        session: String,
        field: BootField,
    },
}

/// Which kernel events an `[[expect.kernel]]` counts.
#[derive(Debug, Clone)]
pub(crate) struct KernelMatch {
    pub class: &'static KernelClass,
    pub opcode: Option<u8>,
    pub policy: Option<Policy>,
    pub file_name: Option<String>,
    pub fields: Vec<(String, String)>,
}

impl BootField {
    /// What it checks, in words.
    fn describe(&self) -> String {
        match self {
            BootField::Started(_) => "started".into(),
            BootField::Status(_) => "Status".into(),
            BootField::LogFile(_) => "log file".into(),
            BootField::FileCounter(_) => "FileCounter".into(),
            BootField::Note(n) => format!("a note containing {n:?}"),
            BootField::ModeHas(m) => format!("LogFileMode has {m:#x}"),
            BootField::ModeLacks(m) => format!("LogFileMode lacks {m:#x}"),
            BootField::ProviderEnabled(g, _) => format!("provider {g} enabled"),
            BootField::ProviderLevel(g, _) => format!("provider {g} level"),
            BootField::ProviderAny(g, _) => format!("provider {g} MatchAnyKeyword"),
        }
    }
}

/// One value an `[[expect.boot]]` checks.
#[derive(Debug, Clone)]
pub(crate) enum BootField {
    Started(bool),
    Status(ErrorMatch),
    LogFile(String),
    FileCounter(u32),
    Note(String),
    ModeHas(u32),
    ModeLacks(u32),
    ProviderEnabled(Guid, bool),
    ProviderLevel(Guid, u8),
    ProviderAny(Guid, u64),
}

/// The journal entry kinds, as `kind` names them.
pub(crate) const JOURNAL_KINDS: [&str; 6] = [
    "Control",
    "Callback",
    "Write",
    "BufferSwitch",
    "Flush",
    "Loss",
];

/// The names `mode = [...]` accepts (etwsim's constant names).
fn mode_names() -> Vec<(&'static str, u32)> {
    LogFileMode::all()
        .iter_names()
        .map(|(n, f)| (n, f.bits()))
        .collect()
}

fn property_names() -> Vec<(&'static str, u32)> {
    EnableProperty::all()
        .iter_names()
        .map(|(n, f)| (n, f.bits()))
        .collect()
}

fn span_of<T>(s: &Spanned<T>) -> Range<usize> {
    s.span()
}

impl Scenario {
    /// Reads and checks a scenario file; manifests it names are read relative to its folder.
    /// The file is read up to [`MAX_SCENARIO_BYTES`], the files it names up to their own caps
    /// ([`MAX_REGISTRY_BYTES`], [`MAX_MANIFEST_BYTES`]).
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read or is larger than [`MAX_SCENARIO_BYTES`];
    /// [`Error::Scenario`] naming the line, column and key of the first problem.
    pub fn load(path: impl AsRef<Path>) -> Result<Scenario, Error> {
        let path = path.as_ref();
        let bytes = read_capped(path, MAX_SCENARIO_BYTES).map_err(|source| Error::Io {
            what: "cannot read",
            path: path.to_path_buf(),
            source,
        })?;
        let name = path.display().to_string();
        let text = String::from_utf8(bytes).map_err(|e| {
            let source = Source::new(
                name.clone(),
                String::from_utf8_lossy(e.as_bytes()).into_owned(),
            );
            source.error(
                &(e.utf8_error().valid_up_to()..e.utf8_error().valid_up_to()),
                "(file)",
                "the file is not UTF-8 text",
            )
        })?;
        let base = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        let mut sc = Scenario::parse(&text, &name, &base)?;
        sc.path = Some(path.to_path_buf());
        Ok(sc)
    }

    /// Parses and checks scenario text; `name` names it in errors, `base_dir` is where
    /// relative manifest paths start.
    ///
    /// A scenario must do something: one with no session that starts, no `[[enable]]`, no
    /// `[[step]]`, no registry to boot and no `[[expect.…]]` is an error ("nothing to do"),
    /// not a run that passes having checked nothing.
    ///
    /// # Errors
    /// [`Error::Scenario`] naming the line, column and key of the first problem (a manifest
    /// that cannot be read is reported at its `manifest` key); at line 1 for text longer than
    /// [`MAX_SCENARIO_BYTES`] or a scenario with nothing to do.
    pub fn parse(text: &str, name: &str, base_dir: &Path) -> Result<Scenario, Error> {
        if text.len() as u64 > MAX_SCENARIO_BYTES {
            return Err(Error::Scenario(Box::new(crate::Located {
                file: name.to_string(),
                line: 1,
                column: 1,
                key: None,
                message: format!(
                    "the scenario is larger than {}, the most a scenario may be",
                    size_text(MAX_SCENARIO_BYTES)
                ),
            })));
        }
        let source = Source::new(name.to_string(), text.to_string());
        let file: ScenarioFile = toml::from_str(text).map_err(|e| source.toml_error(&e))?;
        let default_name = Path::new(name).file_stem().map_or_else(
            || "scenario".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        Loader {
            source,
            base_dir: base_dir.to_path_buf(),
        }
        .load(file, default_name)
    }

    /// The scenario's name (`[scenario] name`, else the file's stem).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The scenario's description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The file name it was loaded under.
    pub fn file_name(&self) -> &str {
        &self.source.name
    }

    /// How many events its steps write, all `count`s added up.
    pub fn writes(&self) -> u64 {
        self.actions
            .iter()
            .map(|a| match &a.kind {
                ActionKind::Write(w) => w.count,
                _ => 0,
            })
            .sum()
    }

    /// How many `[[step]]`s it has.
    pub fn step_count(&self) -> usize {
        self.actions
            .iter()
            .filter(|a| a.key.starts_with("step["))
            .count()
    }

    /// How many expectations it checks.
    pub fn expectation_count(&self) -> usize {
        self.expectations.len()
    }

    /// Whether the machine boots from a registry (`[machine] registry` or `registry_text`):
    /// such a run needs a scratch folder ([`RunOptions::scratch`](crate::RunOptions)).
    pub fn boots_from_registry(&self) -> bool {
        self.registry.is_some()
    }

    /// The files the scenario read besides itself — its `[machine] registry` and its
    /// providers' manifests — as their paths were joined to its folder: what an output
    /// must not overwrite.
    pub fn input_files(&self) -> &[PathBuf] {
        &self.inputs
    }
}

struct Loader {
    source: Source,
    base_dir: PathBuf,
}

type R<T> = Result<T, Error>;

impl Loader {
    /// An error at `span` about `key`. A span that is a whole table's `[[…]]` header is
    /// narrowed to the key's own line when the key is written there.
    fn err(&self, span: &Range<usize>, key: impl Into<String>, msg: impl Into<String>) -> Error {
        let key = key.into();
        let on_header = self
            .source
            .text
            .get(span.clone())
            .is_some_and(|t| t.starts_with('['));
        let last = key.rsplit('.').next().unwrap_or_default();
        let span = if on_header && !last.contains('[') && !last.is_empty() {
            self.key_span(span, last)
        } else {
            span.clone()
        };
        self.source.error(&span, key, msg)
    }

    fn load(self, f: ScenarioFile, default_name: String) -> R<Scenario> {
        let (builder, cpus) = self.machine(&f)?;
        let registry = self.registry(&f)?;
        let processes = f
            .process
            .iter()
            .enumerate()
            .map(|(i, p)| self.process(i, p, cpus, &f.process[..i]))
            .collect::<R<Vec<_>>>()?;
        let mut providers = Vec::new();
        for (i, p) in f.provider.iter().enumerate() {
            let spec = self.provider(i, p, &processes, &providers)?;
            providers.push(spec);
        }
        let mut sessions = Vec::new();
        let mut actions = Vec::new();
        for (i, s) in f.session.iter().enumerate() {
            let (spec, autostart) = self.session(i, s, &processes, &sessions)?;
            if autostart {
                actions.push(Action {
                    line: self.source.line(&s.span()),
                    key: format!("session[{}]", i + 1),
                    kind: ActionKind::Start(sessions.len()),
                    expect_error: None,
                });
            }
            sessions.push(spec);
        }
        let ctx = Names {
            processes: &processes,
            providers: &providers,
            sessions: &sessions,
        };
        for (i, e) in f.enable.iter().enumerate() {
            let key = format!("enable[{}]", i + 1);
            let spec = self.enable(&key, e.get_ref(), &ctx)?;
            actions.push(Action {
                line: self.source.line(&e.span()),
                key,
                kind: ActionKind::Enable(spec),
                expect_error: self.error_match(e.get_ref().expect_error.as_ref()),
            });
        }
        let mut budget = Budget::default();
        let mut os = OsState {
            registry: registry.is_some(),
            ..OsState::default()
        };
        for (i, s) in f.step.iter().enumerate() {
            actions.push(self.step(i, s, &ctx, cpus, &mut budget, &mut os)?);
        }
        let expectations = self.expectations(&f, &ctx)?;
        if actions.is_empty() && expectations.is_empty() && registry.is_none() {
            return Err(self.source.error(
                &(0..0),
                String::new(),
                "nothing to do: no [[session]] starts, and there is no [[enable]], no [[step]], \
                 no registry to boot and no [[expect.…]]: a run would check nothing \
                 (docs/scenarios.md)",
            ));
        }
        let inputs = f
            .machine
            .registry
            .iter()
            .map(|r| self.base_dir.join(r.get_ref()))
            .chain(
                f.provider
                    .iter()
                    .filter_map(|p| p.get_ref().manifest.as_ref())
                    .map(|m| self.base_dir.join(m.get_ref())),
            )
            .collect();
        Ok(Scenario {
            inputs,
            path: None,
            source: self.source,
            name: f.scenario.name.unwrap_or(default_name),
            description: f.scenario.description,
            stop_at_end: f.scenario.stop_at_end.unwrap_or(true),
            builder,
            cpus,
            registry,
            processes,
            providers,
            sessions,
            actions,
            expectations,
        })
    }

    /// `[machine] registry` (a `.reg` file beside the scenario) or `registry_text`, imported
    /// strictly: any line not imported as written is an error.
    fn registry(&self, f: &ScenarioFile) -> R<Option<Registry>> {
        let m = &f.machine;
        let (bytes, span, key, shown) = match (&m.registry, &m.registry_text) {
            (None, None) => return Ok(None),
            (Some(_), Some(t)) => {
                return Err(self.err(
                    &t.span(),
                    "machine.registry_text",
                    "give `registry` (a .reg file) or `registry_text`, not both",
                ));
            }
            (Some(path), None) => {
                let full = self.base_dir.join(path.get_ref());
                let bytes = read_capped(&full, MAX_REGISTRY_BYTES).map_err(|e| {
                    self.err(
                        &path.span(),
                        "machine.registry",
                        format!("cannot read registry file {}: {e}", full.display()),
                    )
                })?;
                (
                    bytes,
                    path.span(),
                    "machine.registry",
                    full.display().to_string(),
                )
            }
            (None, Some(t)) => (
                t.get_ref().as_bytes().to_vec(),
                t.span(),
                "machine.registry_text",
                "registry_text".to_string(),
            ),
        };
        let mut registry = Registry::new();
        match registry.import_reg_with(&bytes, &ImportOptions::strict()) {
            Ok(report) if !report.imported() => Err(self.err(
                &span,
                key,
                format!("{shown}: its header says nothing is to be imported (REG-04)"),
            )),
            Ok(_) => Ok(Some(registry)),
            Err(e) => Err(self.err(&span, key, format!("{shown}: {e}"))),
        }
    }

    fn machine(&self, f: &ScenarioFile) -> R<(KernelBuilder, u16)> {
        let m = &f.machine;
        let seed = m.seed.map_or(1, |n| n.0);
        let cpus = m.cpus.as_ref().map_or(4, |c| *c.get_ref());
        let mut b = etwsim::Kernel::builder().deterministic(seed).cpus(cpus);
        if let Some(n) = m.max_loggers {
            b = b.max_loggers(n);
        }
        if let Some(n) = m.default_buffer_size_kb {
            b = b.default_buffer_size_kb(n);
        }
        if let Some(n) = m.max_buffers_cap {
            b = b.max_buffers_cap(n);
        }
        if let Some(n) = m.disk_free_bytes {
            b = b.disk_free_bytes(n.0);
        }
        if let Some(n) = m.max_session_buffer_bytes {
            if n.0 > MAX_SESSION_BUFFER_BYTES {
                let at = self.section_span("machine").unwrap_or(0..0);
                return Err(self.err(
                    &at,
                    "machine.max_session_buffer_bytes",
                    format!("at most {MAX_SESSION_BUFFER_BYTES} bytes (1 GiB) in a scenario"),
                ));
            }
            b = b.max_session_buffer_bytes(n.0);
        }
        let machine_bytes = m
            .max_machine_buffer_bytes
            .map_or(MAX_MACHINE_BUFFER_BYTES, |n| n.0);
        if machine_bytes > MAX_MACHINE_BUFFER_BYTES {
            let at = self.section_span("machine").unwrap_or(0..0);
            return Err(self.err(
                &at,
                "machine.max_machine_buffer_bytes",
                format!(
                    "at most {MAX_MACHINE_BUFFER_BYTES} bytes ({}) in a scenario",
                    size_text(MAX_MACHINE_BUFFER_BYTES)
                ),
            ));
        }
        b = b.max_machine_buffer_bytes(machine_bytes);
        if let Some(d) = m.event_tick {
            b = b.event_tick((d.0.as_nanos() / 100) as u64);
        }
        if let Some(n) = m.realtime_backlog_buffers {
            b = b.realtime_backlog_buffers(n);
        }
        if let Some(n) = m.consumer_queue_buffers {
            b = b.consumer_queue_buffers(n);
        }
        if let Some(n) = m.drain_bandwidth {
            b = b.drain_bandwidth(n.0);
        }
        if let Some(n) = m.disk_capacity {
            b = b.disk(etwsim::Disk::Virtual(etwsim::VirtualDisk::with_capacity(
                n.0,
            )));
        }
        let cap = m.journal_capacity.unwrap_or(DEFAULT_JOURNAL_CAPACITY);
        if cap > MAX_JOURNAL_CAPACITY {
            let at = self.section_span("machine").unwrap_or(0..0);
            return Err(self.err(
                &at,
                "machine.journal_capacity",
                format!("at most {MAX_JOURNAL_CAPACITY} entries"),
            ));
        }
        b = b.journal(cap as usize);
        // KernelBuilder::build is the one judge of the machine's values.
        if let Err(e) = b.clone().build() {
            let span = m.cpus.as_ref().map_or(0..0, span_of);
            let at = self.section_span("machine").unwrap_or(span);
            return Err(self.err(
                &at,
                "machine",
                format!("the kernel refuses this machine: {e}"),
            ));
        }
        Ok((b, cpus))
    }

    /// The span of `key = …` inside a table's span, for errors about a key whose value kept
    /// no span of its own; the table's span if the key is not found on a line of its own.
    fn key_span(&self, table: &Range<usize>, key: &str) -> Range<usize> {
        // An array-of-tables element's span is its `[[…]]` header: its keys follow, up to
        // the next header.
        let text = &self.source.text;
        let start = table.start.min(text.len());
        let Some(rest) = text.get(start..) else {
            return table.clone();
        };
        let mut at = start;
        for (i, line) in rest.split_inclusive('\n').enumerate() {
            let t = line.trim_start();
            if i > 0 && t.starts_with('[') {
                break;
            }
            if let Some(rest) = t.strip_prefix(key) {
                if rest.trim_start().starts_with('=') {
                    let col = line.len() - t.len();
                    return at + col..at + col + key.len();
                }
            }
            at += line.len();
        }
        table.clone()
    }

    /// The span of a `[name]` header, for errors about a whole table.
    fn section_span(&self, name: &str) -> Option<Range<usize>> {
        let header = format!("[{name}]");
        let mut at = 0;
        for line in self.source.text.split_inclusive('\n') {
            if line.trim() == header {
                return Some(at..at + line.len());
            }
            at += line.len();
        }
        None
    }

    fn process(
        &self,
        i: usize,
        p: &Spanned<ProcessDef>,
        cpus: u16,
        before: &[Spanned<ProcessDef>],
    ) -> R<ProcSpec> {
        let key = format!("process[{}]", i + 1);
        let d = p.get_ref();
        let name = d.name.get_ref().trim().to_string();
        if name.is_empty() || name.eq_ignore_ascii_case(SYSTEM_PROCESS) {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a process needs a name other than {SYSTEM_PROCESS:?} (which names the kernel's System process)"),
            ));
        }
        if before
            .iter()
            .any(|b| b.get_ref().name.get_ref().trim() == name)
        {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a second process named {name:?}"),
            ));
        }
        let account = d.account.clone().unwrap_or_else(|| name.clone());
        let token_name = d
            .token
            .as_ref()
            .map_or("user".to_string(), |t| t.get_ref().to_ascii_lowercase());
        let mut token = match token_name.as_str() {
            "user" => Token::user(&account),
            "admin" | "administrator" => Token::administrator(&account),
            "system" | "local_system" => Token::local_system(),
            "local_service" => Token::local_service(),
            "network_service" => Token::network_service(),
            other => {
                let span = d.token.as_ref().map_or(p.span(), span_of);
                return Err(self.err(
                    &span,
                    format!("{key}.token"),
                    format!("unknown token {other:?}: use user, admin, system, local_service or network_service"),
                ));
            }
        };
        if d.elevated == Some(false) {
            token = token.unelevated();
        }
        let image = d.image.clone().unwrap_or_else(|| name.clone());
        let mut spec = ProcessSpec::new(&image, token);
        if let Some(pid) = d.pid {
            spec = spec.pid(pid);
        }
        match (&d.package_id, &d.package_app_id) {
            (None, None) => {}
            (id, app) => {
                spec = spec.package(
                    id.as_deref().unwrap_or_default(),
                    app.as_deref().unwrap_or_default(),
                );
            }
        }
        if d.inprivate {
            spec = spec.inprivate();
        }
        if let Some(cl) = &d.command_line {
            spec = spec.command_line(cl);
        }
        let autostart = d.autostart.unwrap_or(true);
        let parent = match &d.parent {
            None => None,
            Some(p) => {
                let n = p.get_ref().trim();
                let Some(at) = before
                    .iter()
                    .position(|b| b.get_ref().name.get_ref().trim() == n)
                else {
                    return Err(self.err(
                        &p.span(),
                        format!("{key}.parent"),
                        format!("no earlier process named {n:?}: a parent is declared before its children"),
                    ));
                };
                if autostart && before[at].get_ref().autostart == Some(false) {
                    return Err(self.err(
                        &p.span(),
                        format!("{key}.parent"),
                        format!("{n:?} is spawned by a step, so a process spawned at the start cannot be its child: give this one `autostart = false` and a `spawn` step"),
                    ));
                }
                Some(at)
            }
        };
        let mut threads: Vec<(String, u16)> = Vec::new();
        for (j, t) in d.threads.iter().enumerate() {
            let td = t.get_ref();
            let tkey = format!("{key}.threads[{}]", j + 1);
            if *td.cpu.get_ref() >= cpus {
                return Err(self.err(
                    &td.cpu.span(),
                    format!("{tkey}.cpu"),
                    format!(
                        "CPU {} does not exist: the machine has {cpus} (0 to {})",
                        td.cpu.get_ref(),
                        cpus - 1
                    ),
                ));
            }
            if threads.iter().any(|(n, _)| *n == td.name) {
                return Err(self.err(
                    &t.span(),
                    tkey,
                    format!("a second thread named {:?}", td.name),
                ));
            }
            threads.push((td.name.clone(), *td.cpu.get_ref()));
        }
        Ok(ProcSpec {
            line: self.source.line(&p.span()),
            name,
            spec,
            threads,
            autostart,
            parent,
        })
    }

    fn proc_ref(&self, name: &Spanned<String>, key: &str, processes: &[ProcSpec]) -> R<ProcRef> {
        let n = name.get_ref().trim();
        if n.eq_ignore_ascii_case(SYSTEM_PROCESS) {
            return Ok(None);
        }
        processes
            .iter()
            .position(|p| p.name == n)
            .map(Some)
            .ok_or_else(|| {
                self.err(
                    &name.span(),
                    key,
                    format!("no process named {n:?} (declare it in a [[process]] table, or use {SYSTEM_PROCESS:?})"),
                )
            })
    }

    fn provider(
        &self,
        i: usize,
        p: &Spanned<ProviderDef>,
        processes: &[ProcSpec],
        before: &[ProvSpec],
    ) -> R<ProvSpec> {
        let key = format!("provider[{}]", i + 1);
        let d = p.get_ref();
        let name = d.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                "a provider needs a name",
            ));
        }
        if before.iter().any(|b| b.name == name) {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a second provider named {name:?}"),
            ));
        }
        let manifest = match &d.manifest {
            None => {
                if let Some(mp) = &d.manifest_provider {
                    return Err(self.err(
                        &mp.span(),
                        format!("{key}.manifest_provider"),
                        "manifest_provider needs a manifest",
                    ));
                }
                None
            }
            Some(path) => {
                Some(self.manifest_provider(&key, path, d.manifest_provider.as_ref(), &name)?)
            }
        };
        let guid = match (d.guid, &manifest) {
            (Some(g), Some(m)) if g.0 != m.guid => {
                return Err(self.err(
                    &p.span(),
                    format!("{key}.guid"),
                    format!(
                        "guid {} differs from the manifest's {} for {:?}",
                        g.0, m.guid, m.name
                    ),
                ));
            }
            (Some(g), _) => g.0,
            (None, Some(m)) => m.guid,
            (None, None) => Guid::from_provider_name(&name),
        };
        if guid == Guid::NULL {
            return Err(self.err(
                &p.span(),
                format!("{key}.guid"),
                "GUID_NULL cannot be registered",
            ));
        }
        if before.iter().any(|b| b.guid == guid) {
            return Err(self.err(
                &p.span(),
                format!("{key}.guid"),
                format!("provider {name:?} has the GUID {guid} of an earlier provider"),
            ));
        }
        let regs = match (&d.process, &d.processes) {
            (Some(one), None) => vec![self.proc_ref(one, &format!("{key}.process"), processes)?],
            (None, Some(list)) => {
                let mut regs = Vec::new();
                for n in list.get_ref() {
                    let s = Spanned::new(list.span(), n.clone());
                    let r = self.proc_ref(&s, &format!("{key}.processes"), processes)?;
                    if regs.contains(&r) {
                        return Err(self.err(
                            &list.span(),
                            format!("{key}.processes"),
                            format!("process {n:?} is listed twice"),
                        ));
                    }
                    regs.push(r);
                }
                if regs.is_empty() {
                    return Err(self.err(
                        &list.span(),
                        format!("{key}.processes"),
                        "an empty list",
                    ));
                }
                regs
            }
            (Some(one), Some(_)) => {
                return Err(self.err(
                    &one.span(),
                    format!("{key}.process"),
                    "give `process` or `processes`, not both",
                ));
            }
            (None, None) => {
                return Err(self.err(
                    &d.name.span(),
                    key,
                    "a provider needs the process that registers it: `process = \"app\"` (or `processes = [...]`)",
                ));
            }
        };
        Ok(ProvSpec {
            line: self.source.line(&p.span()),
            name,
            guid,
            manifest,
            regs,
        })
    }

    fn manifest_provider(
        &self,
        key: &str,
        path: &Spanned<String>,
        which: Option<&Spanned<String>>,
        name: &str,
    ) -> R<manifest::Provider> {
        let full = self.base_dir.join(path.get_ref());
        let bytes = read_capped(&full, MAX_MANIFEST_BYTES).map_err(|e| {
            self.err(
                &path.span(),
                format!("{key}.manifest"),
                format!("cannot read manifest {}: {e}", full.display()),
            )
        })?;
        let m: Manifest = manifest::load_manifest(&bytes).map_err(|e| {
            self.err(
                &path.span(),
                format!("{key}.manifest"),
                format!("manifest {}: {e}", full.display()),
            )
        })?;
        let found = match which {
            Some(w) => {
                let wanted = w.get_ref().trim();
                let by_guid = wanted.parse::<Guid>().ok();
                m.providers
                    .iter()
                    .find(|p| p.name == wanted || Some(p.guid) == by_guid)
                    .ok_or_else(|| {
                        self.err(
                            &w.span(),
                            format!("{key}.manifest_provider"),
                            format!("the manifest has no provider {wanted:?}"),
                        )
                    })?
            }
            None => match m.provider_named(name) {
                Some(p) => p,
                None if m.providers.len() == 1 => &m.providers[0],
                None => {
                    return Err(self.err(
                        &path.span(),
                        format!("{key}.manifest"),
                        format!(
                            "the manifest has {} providers and none named {name:?}: say which with manifest_provider",
                            m.providers.len()
                        ),
                    ));
                }
            },
        };
        Ok(found.clone())
    }

    fn session(
        &self,
        i: usize,
        s: &Spanned<SessionDef>,
        processes: &[ProcSpec],
        before: &[SessSpec],
    ) -> R<(SessSpec, bool)> {
        let key = format!("session[{}]", i + 1);
        let d = s.get_ref();
        let name = d.name.get_ref().clone();
        if before.iter().any(|b| b.name.eq_ignore_ascii_case(&name)) {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a second session named {name:?} (session names are case-insensitive)"),
            ));
        }
        let mode = match &d.mode {
            None => None,
            Some(m) => Some(LogFileMode::from_bits_retain(
                resolve_flags(
                    m.get_ref(),
                    &mode_names(),
                    &["EVENT_TRACE_FILE_MODE_", "EVENT_TRACE_"],
                    &["_MODE"],
                )
                .map_err(|msg| self.err(&m.span(), format!("{key}.mode"), msg))?,
            )),
        };
        let clock = match &d.clock {
            None => None,
            Some(c) => Some(match c.get_ref() {
                NameOrNumber::Number(n) => u32::try_from(*n)
                    .ok()
                    .and_then(ClockType::from_raw)
                    .ok_or_else(|| {
                        self.err(
                            &c.span(),
                            format!("{key}.clock"),
                            format!(
                                "clock type {n}: use 1 (QPC), 2 (system time) or 3 (CPU cycle)"
                            ),
                        )
                    })?,
                NameOrNumber::Name(n) => {
                    match n.to_ascii_lowercase().replace(['-', ' '], "_").as_str() {
                        "qpc" => ClockType::Qpc,
                        "system_time" | "systemtime" => ClockType::SystemTime,
                        "cpu_cycle" | "cpucycle" => ClockType::CpuCycle,
                        other => {
                            return Err(self.err(
                                &c.span(),
                                format!("{key}.clock"),
                                format!(
                                    "unknown clock {other:?}: use qpc, system_time or cpu_cycle"
                                ),
                            ));
                        }
                    }
                }
            }),
        };
        let caller = match &d.caller {
            None => None,
            Some(c) => self.proc_ref(c, &format!("{key}.caller"), processes)?,
        };
        let log_file = d.log_file.as_ref().map(|f| f.get_ref().clone());
        let spec = SessSpec {
            memory_sink: d
                .memory_sink
                .unwrap_or(log_file.is_none() && d.buffering && !d.real_time),
            name,
            guid: d.guid.map(|g| g.0),
            log_file,
            mode,
            real_time: d.real_time,
            buffering: d.buffering,
            buffer_size_kb: d.buffer_size_kb,
            minimum_buffers: d.minimum_buffers,
            maximum_buffers: d.maximum_buffers,
            maximum_file_size: d.maximum_file_size,
            flush_timer: d.flush_timer,
            clock,
            enable_flags: d
                .enable_flags
                .as_ref()
                .map(|f| self.enable_flags(f, &format!("{key}.enable_flags")))
                .transpose()?,
            caller,
        };
        Ok((spec, d.autostart.unwrap_or(true)))
    }

    /// `enable_flags`: EVENT_TRACE_FLAG_* names (`"FILE_IO"`, `"EVENT_TRACE_FLAG_PROCESS"`) or
    /// numbers.
    fn enable_flags(&self, f: &Spanned<FlagsValue>, key: &str) -> R<u32> {
        resolve_flags(
            f.get_ref(),
            &enable_flag_names(),
            &["EVENT_TRACE_FLAG_"],
            &[],
        )
        .map_err(|m| self.err(&f.span(), key, m))
    }

    fn error_match(&self, e: Option<&Spanned<NameOrNumber>>) -> Option<ErrorMatch> {
        e.map(|e| match e.get_ref() {
            NameOrNumber::Number(n) => ErrorMatch::Code(u32::try_from(*n).unwrap_or(u32::MAX)),
            NameOrNumber::Name(n) => ErrorMatch::Name(n.clone()),
        })
    }

    fn keyword(
        &self,
        kv: &KeywordValue,
        span: &Range<usize>,
        key: &str,
        provider: &ProvSpec,
    ) -> R<u64> {
        let mut mask = 0u64;
        for part in &kv.0 {
            match part {
                KeywordPart::Mask(m) => mask |= m,
                KeywordPart::Name(n) => {
                    let Some(m) = &provider.manifest else {
                        return Err(self.err(
                            span,
                            key,
                            format!(
                                "keyword name {n:?}: names come from a manifest, and provider {:?} has none (give a number)",
                                provider.name
                            ),
                        ));
                    };
                    mask |= m.keyword(n).ok_or_else(|| {
                        let known: Vec<&str> = m.keywords.iter().map(|k| k.name.as_str()).collect();
                        self.err(
                            span,
                            key,
                            format!(
                                "the manifest of {:?} has no keyword {n:?} (it has: {})",
                                provider.name,
                                known.join(", ")
                            ),
                        )
                    })?;
                }
            }
        }
        Ok(mask)
    }

    fn enable(&self, key: &str, e: &EnableDef, ctx: &Names<'_>) -> R<EnableSpec> {
        let session = ctx.session(self, &e.session, &format!("{key}.session"))?;
        let provider = ctx.provider(self, &e.provider, &format!("{key}.provider"))?;
        let p = &ctx.providers[provider];
        let any = match &e.any {
            Some(a) => self.keyword(a.get_ref(), &a.span(), &format!("{key}.any"), p)?,
            None => 0,
        };
        let all = match &e.all {
            Some(a) => self.keyword(a.get_ref(), &a.span(), &format!("{key}.all"), p)?,
            None => 0,
        };
        let properties = match &e.properties {
            Some(f) => EnableProperty::from_bits_retain(
                resolve_flags(
                    f.get_ref(),
                    &property_names(),
                    &["EVENT_ENABLE_PROPERTY_"],
                    &[],
                )
                .map_err(|m| self.err(&f.span(), format!("{key}.properties"), m))?,
            ),
            None => EnableProperty::empty(),
        };
        let filters = match &e.filter {
            Some(f) => self.filters(f.get_ref(), &f.span(), &format!("{key}.filter"), p, ctx)?,
            None => Vec::new(),
        };
        Ok(EnableSpec {
            session,
            provider,
            level: e.level.map_or(0, |l| l.0),
            any,
            all,
            properties,
            source_id: e.source_id.map_or(Guid::NULL, |g| g.0),
            filters,
        })
    }

    fn name_filter(
        &self,
        n: &NameFilterDef,
        span: &Range<usize>,
        key: &str,
        p: &ProvSpec,
    ) -> R<NameFilter> {
        Ok(NameFilter {
            match_any: Keyword(match &n.any {
                Some(a) => self.keyword(a, span, &format!("{key}.any"), p)?,
                None => 0,
            }),
            match_all: Keyword(match &n.all {
                Some(a) => self.keyword(a, span, &format!("{key}.all"), p)?,
                None => 0,
            }),
            level: Level(n.level.map_or(0, |l| l.0)),
            filter_in: n.filter_in,
            names: n.names.clone(),
        })
    }

    fn hex(&self, text: &str, span: &Range<usize>, key: &str) -> R<Vec<u8>> {
        let digits: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ':' && *c != '-')
            .collect();
        let digits = digits.strip_prefix("0x").unwrap_or(&digits).to_string();
        if digits.len() % 2 != 0 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(self.err(
                span,
                key,
                "hex bytes are pairs of hex digits (\"01 02 ff\"), spaces allowed",
            ));
        }
        Ok((0..digits.len())
            .step_by(2)
            .filter_map(|i| u8::from_str_radix(&digits[i..i + 2], 16).ok())
            .collect())
    }

    fn filters(
        &self,
        f: &FilterDef,
        span: &Range<usize>,
        key: &str,
        p: &ProvSpec,
        ctx: &Names<'_>,
    ) -> R<Vec<FilterSpec>> {
        let mut out = Vec::new();
        if let Some(pids) = &f.pids {
            let mut refs = Vec::new();
            for v in pids {
                refs.push(match v {
                    PidValue::Pid(n) => PidRef::Pid(*n),
                    PidValue::Process(name) => PidRef::Process(self.proc_ref(
                        &Spanned::new(span.clone(), name.clone()),
                        &format!("{key}.pids"),
                        ctx.processes,
                    )?),
                });
            }
            out.push(FilterSpec::Pids(refs));
        }
        let ready = |f: EventFilter| FilterSpec::Ready(f);
        if let Some(s) = &f.executable {
            out.push(ready(EventFilter::ExecutableName(s.clone())));
        }
        if let Some(s) = &f.package_id {
            out.push(ready(EventFilter::PackageId(s.clone())));
        }
        if let Some(s) = &f.package_app_id {
            out.push(ready(EventFilter::PackageAppId(s.clone())));
        }
        if let Some(ids) = &f.event_ids {
            out.push(ready(EventFilter::EventId {
                filter_in: true,
                ids: ids.clone(),
            }));
        }
        if let Some(ids) = &f.exclude_event_ids {
            out.push(ready(EventFilter::EventId {
                filter_in: false,
                ids: ids.clone(),
            }));
        }
        if let Some(n) = &f.event_names {
            out.push(ready(EventFilter::EventName(self.name_filter(
                n,
                span,
                &format!("{key}.event_names"),
                p,
            )?)));
        }
        if let Some(ids) = &f.stackwalk_ids {
            out.push(ready(EventFilter::Stackwalk {
                filter_in: true,
                ids: ids.clone(),
            }));
        }
        if let Some(ids) = &f.exclude_stackwalk_ids {
            out.push(ready(EventFilter::Stackwalk {
                filter_in: false,
                ids: ids.clone(),
            }));
        }
        if let Some(n) = &f.stackwalk_names {
            out.push(ready(EventFilter::StackwalkName(self.name_filter(
                n,
                span,
                &format!("{key}.stackwalk_names"),
                p,
            )?)));
        }
        if let Some(l) = &f.stackwalk_level_kw {
            let k = format!("{key}.stackwalk_level_kw");
            out.push(ready(EventFilter::StackwalkLevelKw {
                match_any: Keyword(match &l.any {
                    Some(a) => self.keyword(a, span, &format!("{k}.any"), p)?,
                    None => 0,
                }),
                match_all: Keyword(match &l.all {
                    Some(a) => self.keyword(a, span, &format!("{k}.all"), p)?,
                    None => 0,
                }),
                level: Level(l.level.map_or(0, |v| v.0)),
                filter_in: l.filter_in,
            }));
        }
        if let Some(h) = &f.payload {
            out.push(ready(EventFilter::Payload(self.hex(
                h,
                span,
                &format!("{key}.payload"),
            )?)));
        }
        if let Some(h) = &f.schematized {
            out.push(ready(EventFilter::Schematized(self.hex(
                h,
                span,
                &format!("{key}.schematized"),
            )?)));
        }
        if let Some(h) = f.trace_handle {
            out.push(ready(EventFilter::TraceHandle(h.0)));
        }
        Ok(out)
    }

    fn step(
        &self,
        i: usize,
        s: &Spanned<StepDef>,
        ctx: &Names<'_>,
        cpus: u16,
        budget: &mut Budget,
        os: &mut OsState,
    ) -> R<Action> {
        let key = format!("step[{}]", i + 1);
        let d = s.get_ref();
        let span = s.span();
        let line = self.source.line(&span);
        let actions = d.actions();
        let (action, target) = match actions.as_slice() {
            [one] => *one,
            [] => {
                return Err(self.err(
                    &span,
                    key,
                    format!(
                        "a step needs one action key: {}",
                        StepDef::ACTIONS.join(", ")
                    ),
                ));
            }
            [(a, _), (b, _), ..] => {
                return Err(self.err(
                    &span,
                    key,
                    format!("a step does one thing; this one has `{a}` and `{b}`: split it into two [[step]]s"),
                ));
            }
        };
        let allowed: &[&str] = match action {
            "write" => &[
                "process",
                "cpu",
                "thread",
                "id",
                "version",
                "channel",
                "level",
                "opcode",
                "task",
                "keyword",
                "count",
                "every",
                "payload_size",
                "payload_text",
                "payload_utf16",
                "payload_hex",
                "string",
                "inprivate",
                "filter_mask",
            ],
            "enable" => &[
                "provider",
                "level",
                "any",
                "all",
                "properties",
                "source_id",
                "filter",
                "expect_error",
            ],
            "disable" => &["provider", "expect_error"],
            "update" => &[
                "flush_timer",
                "maximum_buffers",
                "log_file",
                "real_time",
                "enable_flags",
                "expect_error",
            ],
            "flush" | "stop" | "start" | "consume" => &["expect_error"],
            "open_file" => &["process", "thread", "handle"],
            "create_file" => &["process", "thread", "handle", "disposition"],
            "file_read" | "file_write" | "paging_write" => &["offset", "size", "thread"],
            "cleanup" | "close" => &["thread"],
            "exit" => &["exit_code"],
            "thread_exit" => &["process"],
            "load_image" => &["process", "handle", "size"],
            _ => &[],
        };
        if let Some(extra) = d.options().into_iter().find(|k| !allowed.contains(k)) {
            let takes = if allowed.is_empty() {
                "no other key".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(self.err(
                &self.key_span(&span, extra),
                format!("{key}.{extra}"),
                format!("`{extra}` does not apply to a `{action}` step (it takes: {takes})"),
            ));
        }
        let akey = format!("{key}.{action}");
        // Set for every action that names something (`actions` says which).
        let target = target
            .cloned()
            .unwrap_or_else(|| Spanned::new(span.clone(), String::new()));
        let target = &target;
        let kind = match action {
            "write" => ActionKind::Write(self.write(&key, &span, target, d, ctx, cpus, budget)?),
            "advance" => {
                let dur = d.advance.map(|a| a.0).unwrap_or_default();
                budget.time(dur, 1).map_err(|m| self.err(&span, &akey, m))?;
                ActionKind::Advance(dur)
            }
            "run_logger" => {
                if d.run_logger != Some(true) {
                    return Err(self.err(&span, akey, "write `run_logger = true`"));
                }
                ActionKind::RunLogger
            }
            "reboot" => {
                let at = d.reboot.as_ref().map_or(span.clone(), span_of);
                if d.reboot.as_ref().map(|r| *r.get_ref()) != Some(true) {
                    return Err(self.err(&at, akey, "write `reboot = true`"));
                }
                if !os.registry {
                    return Err(self.err(
                        &at,
                        akey,
                        "`reboot` needs a machine booted from a registry: give `[machine] registry = \"FILE.reg\"` (or `registry_text`)",
                    ));
                }
                os.reboot(line);
                ActionKind::Reboot
            }
            "spawn" => match self.proc_ref(target, &akey, ctx.processes)? {
                Some(p) if !ctx.processes[p].autostart => ActionKind::Spawn(p),
                Some(p) => {
                    return Err(self.err(
                        &target.span(),
                        akey,
                        format!(
                            "process {:?} is spawned at the start (and after each reboot); give it `autostart = false` to spawn it with a step",
                            ctx.processes[p].name
                        ),
                    ));
                }
                None => return Err(self.err(&span, akey, "the System process is always there")),
            },
            "thread_exit" => {
                let Some(pname) = &d.process else {
                    return Err(self.err(
                        &span,
                        format!("{key}.process"),
                        "a `thread_exit` step needs `process` (the thread's)",
                    ));
                };
                let Some(process) =
                    self.proc_ref(pname, &format!("{key}.process"), ctx.processes)?
                else {
                    return Err(self.err(
                        &pname.span(),
                        format!("{key}.process"),
                        "the System process has no named threads",
                    ));
                };
                let thread = self.named_thread(target, &akey, process, ctx)?;
                ActionKind::ThreadExit { process, thread }
            }
            "open_file" | "create_file" => {
                let Some(pname) = &d.process else {
                    return Err(self.err(
                        &span,
                        format!("{key}.process"),
                        format!("an `{action}` step needs `process` (who opens the file)"),
                    ));
                };
                let process = self.proc_ref(pname, &format!("{key}.process"), ctx.processes)?;
                let thread = self.step_thread(d, &key, process, ctx)?;
                let create = (action == "create_file")
                    .then(|| self.disposition(d, &key))
                    .transpose()?;
                let handle = self.new_handle(d, &key, &span, os, line)?;
                let handle = os.open_file(handle, process);
                ActionKind::OpenFile {
                    process,
                    thread,
                    path: target.get_ref().clone(),
                    create,
                    handle,
                }
            }
            "file_read" | "file_write" | "paging_write" | "cleanup" | "close" => {
                let op = match action {
                    "file_read" => FileOp::Read,
                    "file_write" => FileOp::Write,
                    "paging_write" => FileOp::PagingWrite,
                    "cleanup" => FileOp::Cleanup,
                    _ => FileOp::Close,
                };
                let n = target.get_ref();
                let Some(handle) = os.file_named(n) else {
                    return Err(self.err(
                        &target.span(),
                        akey,
                        format!("no file handle named {n:?} (an `open_file` or `create_file` step names it with `handle`)"),
                    ));
                };
                let f = &os.files[handle];
                let wanted: &[HandleState] = match op {
                    FileOp::Read | FileOp::Write | FileOp::Cleanup => &[HandleState::Open],
                    FileOp::PagingWrite => &[HandleState::Closing],
                    FileOp::Close => &[HandleState::Open, HandleState::Closing],
                };
                if !wanted.contains(&f.state) {
                    let now = match f.state {
                        HandleState::Open => {
                            "it is open (a lazy-writer write comes after `cleanup`)".to_string()
                        }
                        HandleState::Closing => "it was cleaned up".to_string(),
                        HandleState::Closed => f.why.clone(),
                    };
                    return Err(self.err(
                        &target.span(),
                        akey,
                        format!("handle {n:?} cannot take `{action}`: {now}"),
                    ));
                }
                let process = f.process;
                let thread = self.step_thread(d, &key, process, ctx)?;
                match op {
                    FileOp::Cleanup => os.files[handle].state = HandleState::Closing,
                    FileOp::Close => os.close_file(handle, format!("it was closed at line {line}")),
                    _ => {}
                }
                let size = u32::try_from(d.size.unwrap_or(0)).map_err(|_| {
                    self.err(&span, format!("{key}.size"), "at most 4294967295 bytes")
                })?;
                ActionKind::FileIo {
                    op,
                    thread,
                    handle,
                    offset: d.offset.unwrap_or(0),
                    size,
                }
            }
            "load_image" => {
                let Some(pname) = &d.process else {
                    return Err(self.err(
                        &span,
                        format!("{key}.process"),
                        "a `load_image` step needs `process`",
                    ));
                };
                let process = self.proc_ref(pname, &format!("{key}.process"), ctx.processes)?;
                let name = self.new_handle(d, &key, &span, os, line)?;
                let image = os.load_image(name);
                ActionKind::LoadImage {
                    process,
                    path: target.get_ref().clone(),
                    size: d.size.unwrap_or(0x1000),
                    image,
                }
            }
            "unload_image" => {
                let n = target.get_ref();
                match os.image_named(n) {
                    Some(i) if os.images[i].1 => {
                        os.unload_image(i);
                        ActionKind::UnloadImage(i)
                    }
                    Some(_) => {
                        return Err(self.err(
                            &target.span(),
                            akey,
                            format!("image {n:?} is not loaded any more"),
                        ));
                    }
                    None => {
                        return Err(self.err(
                            &target.span(),
                            akey,
                            format!(
                                "no image named {n:?} (a `load_image` step names it with `handle`)"
                            ),
                        ));
                    }
                }
            }
            "flush" => ActionKind::Flush(ctx.session(self, target, &akey)?),
            "stop" => ActionKind::Stop(ctx.session(self, target, &akey)?),
            "start" => ActionKind::Start(ctx.session(self, target, &akey)?),
            "consume" => ActionKind::Consume(ctx.session(self, target, &akey)?),
            "exit" => match self.proc_ref(target, &akey, ctx.processes)? {
                Some(p) => ActionKind::Exit(p, d.exit_code),
                None => return Err(self.err(&span, akey, "the System process never exits")),
            },
            "update" => {
                let session = ctx.session(self, target, &akey)?;
                ActionKind::Update(
                    session,
                    SessionUpdate {
                        flush_timer: d.flush_timer.unwrap_or(0),
                        maximum_buffers: d.maximum_buffers.unwrap_or(0),
                        log_file: d.log_file.clone(),
                        real_time: d.real_time,
                        enable_flags: d
                            .enable_flags
                            .as_ref()
                            .map(|f| self.enable_flags(f, &format!("{key}.enable_flags")))
                            .transpose()?,
                    },
                )
            }
            "enable" | "disable" => {
                let Some(provider) = &d.provider else {
                    return Err(self.err(
                        &span,
                        format!("{key}.provider"),
                        format!("an `{action}` step needs `provider`"),
                    ));
                };
                let session = target;
                if action == "disable" {
                    ActionKind::Disable {
                        session: ctx.session(self, session, &akey)?,
                        provider: ctx.provider(self, provider, &format!("{key}.provider"))?,
                    }
                } else {
                    let def = EnableDef {
                        session: session.clone(),
                        provider: provider.clone(),
                        level: d.level,
                        any: d.any.clone(),
                        all: d.all.clone(),
                        properties: d.properties.clone(),
                        source_id: d.source_id,
                        filter: None,
                        expect_error: None,
                    };
                    let mut spec = self.enable(&key, &def, ctx)?;
                    if let Some(f) = &d.filter {
                        spec.filters = self.filters(
                            f.get_ref(),
                            &f.span(),
                            &format!("{key}.filter"),
                            &ctx.providers[spec.provider],
                            ctx,
                        )?;
                    }
                    ActionKind::Enable(spec)
                }
            }
            other => return Err(self.err(&span, key, format!("unknown action {other}"))),
        };
        Ok(Action {
            line,
            key: akey,
            kind,
            expect_error: self.error_match(d.expect_error.as_ref()),
        })
    }

    /// A named thread of `process` (its `threads`).
    fn named_thread(
        &self,
        name: &Spanned<String>,
        key: &str,
        process: usize,
        ctx: &Names<'_>,
    ) -> R<usize> {
        let p = &ctx.processes[process];
        p.threads
            .iter()
            .position(|(t, _)| t == name.get_ref())
            .ok_or_else(|| {
                self.err(
                    &name.span(),
                    key,
                    format!(
                        "process {:?} has no thread named {:?} (its `threads`)",
                        p.name,
                        name.get_ref()
                    ),
                )
            })
    }

    /// An OS step's `thread`: a named thread of the process that does it.
    fn step_thread(
        &self,
        d: &StepDef,
        key: &str,
        process: ProcRef,
        ctx: &Names<'_>,
    ) -> R<Option<usize>> {
        let Some(t) = &d.thread else {
            return Ok(None);
        };
        let Some(p) = process else {
            return Err(self.err(
                &t.span(),
                format!("{key}.thread"),
                "the System process has no named threads",
            ));
        };
        self.named_thread(t, &format!("{key}.thread"), p, ctx)
            .map(Some)
    }

    /// `handle`: the name a file or image step gives what it opens; unique among those open.
    fn new_handle(
        &self,
        d: &StepDef,
        key: &str,
        span: &Range<usize>,
        os: &OsState,
        line: usize,
    ) -> R<String> {
        let Some(h) = &d.handle else {
            return Err(self.err(
                span,
                format!("{key}.handle"),
                format!(
                    "give it a name with `handle = \"…\"`, for the steps that use it (line {line})"
                ),
            ));
        };
        let n = h.get_ref().trim().to_string();
        if n.is_empty() || os.in_use(&n) {
            return Err(self.err(
                &h.span(),
                format!("{key}.handle"),
                format!("handle {n:?} is empty or still in use: names of open files and loaded images are unique"),
            ));
        }
        Ok(n)
    }

    /// `disposition` of a `create_file` step (NtCreateFile's CreateDisposition).
    fn disposition(&self, d: &StepDef, key: &str) -> R<Disposition> {
        let Some(v) = &d.disposition else {
            return Ok(Disposition::OverwriteIf);
        };
        let n = v
            .get_ref()
            .trim()
            .to_ascii_lowercase()
            .replace(['-', ' '], "_");
        Ok(match n.trim_start_matches("file_") {
            "supersede" => Disposition::Supersede,
            "open" => Disposition::Open,
            "create" => Disposition::Create,
            "open_if" | "openif" => Disposition::OpenIf,
            "overwrite" => Disposition::Overwrite,
            "overwrite_if" | "overwriteif" => Disposition::OverwriteIf,
            _ => {
                return Err(self.err(
                    &v.span(),
                    format!("{key}.disposition"),
                    format!("unknown disposition {:?}: use supersede, open, create, open_if, overwrite or overwrite_if", v.get_ref()),
                ));
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        key: &str,
        table: &Range<usize>,
        pname: &Spanned<String>,
        d: &StepDef,
        ctx: &Names<'_>,
        cpus: u16,
        budget: &mut Budget,
    ) -> R<WriteSpec> {
        let provider = ctx.provider(self, pname, &format!("{key}.write"))?;
        let p = &ctx.providers[provider];
        let (reg, process) = match &d.process {
            Some(name) => {
                let r = self.proc_ref(name, &format!("{key}.process"), ctx.processes)?;
                let reg = p.regs.iter().position(|x| *x == r).ok_or_else(|| {
                    self.err(
                        &name.span(),
                        format!("{key}.process"),
                        format!(
                            "provider {:?} is not registered in process {:?}",
                            p.name,
                            name.get_ref()
                        ),
                    )
                })?;
                (reg, r)
            }
            None if p.regs.len() == 1 => (0, p.regs[0]),
            None => {
                return Err(self.err(
                    &pname.span(),
                    format!("{key}.process"),
                    format!("provider {:?} is registered in {} processes: say which writes with `process`", p.name, p.regs.len()),
                ));
            }
        };
        let thread = match (&d.cpu, &d.thread) {
            (Some(c), None) => {
                if *c.get_ref() >= cpus {
                    return Err(self.err(
                        &c.span(),
                        format!("{key}.cpu"),
                        format!(
                            "CPU {} does not exist: the machine has {cpus} (0 to {})",
                            c.get_ref(),
                            cpus - 1
                        ),
                    ));
                }
                ThreadSel::Cpu(*c.get_ref())
            }
            (None, Some(t)) => {
                let threads = process.map_or(&[][..], |i| &ctx.processes[i].threads[..]);
                let idx = threads.iter().position(|(n, _)| n == t.get_ref()).ok_or_else(|| {
                    self.err(
                        &t.span(),
                        format!("{key}.thread"),
                        format!("the writing process has no thread named {:?} (declare it in its `threads`)", t.get_ref()),
                    )
                })?;
                ThreadSel::Named(idx)
            }
            (None, None) => ThreadSel::Main,
            (Some(c), Some(_)) => {
                return Err(self.err(
                    &c.span(),
                    format!("{key}.cpu"),
                    "give `cpu` or `thread`, not both",
                ));
            }
        };
        let id = d.id.unwrap_or(0);
        let version = d.version.unwrap_or(0);
        let from_manifest = p.manifest.as_ref().and_then(|m| m.event(id, version));
        let keyword = match &d.keyword {
            Some(k) => self.keyword(k.get_ref(), &k.span(), &format!("{key}.keyword"), p)?,
            None => from_manifest.map_or(0, |e| e.keywords),
        };
        let descriptor = EventDescriptor {
            id,
            version,
            channel: Channel(d.channel.or(from_manifest.map(|e| e.channel)).unwrap_or(0)),
            level: Level(
                d.level
                    .map(|l: LevelValue| l.0)
                    .or(from_manifest.map(|e| e.level))
                    .unwrap_or(Level::INFORMATION.0),
            ),
            opcode: Opcode(d.opcode.or(from_manifest.map(|e| e.opcode)).unwrap_or(0)),
            task: Task(d.task.or(from_manifest.map(|e| e.task)).unwrap_or(0)),
            keyword: Keyword(keyword),
        };
        let payloads = [
            d.payload_size.is_some(),
            d.payload_text.is_some(),
            d.payload_utf16.is_some(),
            d.payload_hex.is_some(),
            d.string.is_some(),
        ];
        if payloads.iter().filter(|x| **x).count() > 1 {
            return Err(self.err(
                &pname.span(),
                key,
                "give one of payload_size, payload_text, payload_utf16, payload_hex and string",
            ));
        }
        let payload = if let Some(n) = d.payload_size {
            if n > MAX_PAYLOAD {
                return Err(self.err(
                    table,
                    format!("{key}.payload_size"),
                    format!("at most {MAX_PAYLOAD} bytes"),
                ));
            }
            Payload::Size(n)
        } else if let Some(t) = &d.payload_text {
            Payload::Bytes(t.as_bytes().to_vec())
        } else if let Some(t) = &d.payload_utf16 {
            Payload::Bytes(
                t.encode_utf16()
                    .chain(std::iter::once(0))
                    .flat_map(u16::to_le_bytes)
                    .collect(),
            )
        } else if let Some(h) = &d.payload_hex {
            Payload::Bytes(self.hex(h.get_ref(), &h.span(), &format!("{key}.payload_hex"))?)
        } else {
            Payload::Bytes(Vec::new())
        };
        if d.string.is_some()
            && (d.id.is_some() || d.inprivate.is_some() || d.filter_mask.is_some())
        {
            return Err(self.err(
                &pname.span(),
                key,
                "a `string` write is EventWriteString: id 0, and no inprivate or filter_mask",
            ));
        }
        let count = d.count.unwrap_or(1);
        if count == 0 {
            return Err(self.err(table, format!("{key}.count"), "count must be at least 1"));
        }
        budget
            .writes(count)
            .map_err(|m| self.err(table, format!("{key}.count"), m))?;
        let every = d.every.map(|e| e.0);
        if let Some(e) = every {
            budget
                .time(e, count)
                .map_err(|m| self.err(table, format!("{key}.every"), m))?;
        }
        Ok(WriteSpec {
            provider,
            reg,
            process,
            thread,
            descriptor,
            count,
            every,
            payload,
            string: d.string.clone(),
            inprivate: d.inprivate.unwrap_or(false),
            filter_mask: d.filter_mask.map_or(0, |n| n.0),
        })
    }

    fn expectations(&self, f: &ScenarioFile, ctx: &Names<'_>) -> R<Vec<Expectation>> {
        let mut out = Vec::new();
        for (i, e) in f.expect.session.iter().enumerate() {
            self.expect_session(i, e, ctx, &mut out)?;
        }
        for (i, e) in f.expect.total.iter().enumerate() {
            self.expect_total(i, e, &mut out)?;
        }
        for (i, e) in f.expect.callbacks.iter().enumerate() {
            self.expect_callbacks(i, e, ctx, &mut out)?;
        }
        for (i, e) in f.expect.file.iter().enumerate() {
            self.expect_file(i, e, &mut out)?;
        }
        for (i, e) in f.expect.journal.iter().enumerate() {
            self.expect_journal(i, e, ctx, &mut out)?;
        }
        for (i, e) in f.expect.kernel.iter().enumerate() {
            self.expect_kernel(i, e, ctx, &mut out)?;
        }
        let e = &f.expect;
        let tables = e.session.len()
            + e.total.len()
            + e.callbacks.len()
            + e.file.len()
            + e.journal.len()
            + e.kernel.len()
            + e.boot.len();
        if tables > MAX_EXPECTATIONS {
            return Err(self.source.error(
                &(0..0),
                "expect",
                format!(
                    "{} [[expect.…]] tables: at most {} in a scenario, all kinds together (docs/scenarios.md, Limits)",
                    crate::file::thousands(tables),
                    crate::file::thousands(MAX_EXPECTATIONS)
                ),
            ));
        }
        for (i, e) in f.expect.boot.iter().enumerate() {
            self.expect_boot(
                i,
                e,
                f.machine.registry.is_some() || f.machine.registry_text.is_some(),
                &mut out,
            )?;
        }
        out.sort_by_key(|e| e.line);
        Ok(out)
    }

    fn expect_session(
        &self,
        i: usize,
        e: &Spanned<ExpectSession>,
        ctx: &Names<'_>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.session[{}]", i + 1);
        let d = e.get_ref();
        let session = ctx.session(self, &d.name, &format!("{key}.name"))?;
        let name = &ctx.sessions[session].name;
        let line = self.source.line(&e.span());
        let fields = [
            (SessionField::Events, d.events, "events recorded"),
            (SessionField::EventsLost, d.events_lost, "EventsLost"),
            (
                SessionField::BuffersWritten,
                d.buffers_written,
                "BuffersWritten",
            ),
            (
                SessionField::LogBuffersLost,
                d.log_buffers_lost,
                "LogBuffersLost",
            ),
            (
                SessionField::RealTimeBuffersLost,
                d.real_time_buffers_lost,
                "RealTimeBuffersLost",
            ),
            (
                SessionField::Delivered,
                d.delivered,
                "events delivered to its consumer",
            ),
        ];
        let before = out.len();
        for (field, value, what) in fields {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("session {name}: {what}"),
                    check: Check::Session {
                        session,
                        field,
                        expected,
                    },
                });
            }
        }
        if out.len() == before {
            return Err(self.err(&e.span(), key, "an expectation with nothing to check: give events, events_lost, buffers_written, log_buffers_lost, real_time_buffers_lost or delivered"));
        }
        Ok(())
    }

    fn expect_total(
        &self,
        i: usize,
        e: &Spanned<ExpectTotal>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let d = e.get_ref();
        let line = self.source.line(&e.span());
        let before = out.len();
        for (field, value, what) in [
            (
                TotalField::Events,
                d.events,
                "events recorded, all sessions",
            ),
            (
                TotalField::EventsLost,
                d.events_lost,
                "EventsLost, all sessions",
            ),
            (TotalField::Writes, d.writes, "writes"),
            (
                TotalField::WritesFailed,
                d.writes_failed,
                "writes that returned an error",
            ),
        ] {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("total: {what}"),
                    check: Check::Total { field, expected },
                });
            }
        }
        if out.len() == before {
            return Err(self.err(&e.span(), format!("expect.total[{}]", i + 1), "an expectation with nothing to check: give events, events_lost, writes or writes_failed"));
        }
        Ok(())
    }

    fn expect_callbacks(
        &self,
        i: usize,
        e: &Spanned<ExpectCallbacks>,
        ctx: &Names<'_>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.callbacks[{}]", i + 1);
        let d = e.get_ref();
        let provider = ctx.provider(self, &d.provider, &format!("{key}.provider"))?;
        let p = &ctx.providers[provider];
        let reg = match &d.process {
            Some(n) => {
                let r = self.proc_ref(n, &format!("{key}.process"), ctx.processes)?;
                p.regs.iter().position(|x| *x == r).ok_or_else(|| {
                    self.err(
                        &n.span(),
                        format!("{key}.process"),
                        format!(
                            "provider {:?} is not registered in {:?}",
                            p.name,
                            n.get_ref()
                        ),
                    )
                })?
            }
            None if p.regs.len() == 1 => 0,
            None => {
                return Err(self.err(&d.provider.span(), format!("{key}.process"), format!("provider {:?} is registered in several processes: say which with `process`", p.name)));
            }
        };
        let line = self.source.line(&e.span());
        let index = d.index.as_ref().map(|x| *x.get_ref());
        if index == Some(0) {
            return Err(self.err(&e.span(), format!("{key}.index"), "index counts from 1"));
        }
        let which = index.map_or_else(
            || "the last callback".to_string(),
            |n| format!("callback #{n}"),
        );
        let before = out.len();
        if let Some(expected) = d.count {
            out.push(Expectation {
                line,
                what: format!("provider {}: enable callbacks", p.name),
                check: Check::CallbackCount {
                    provider,
                    reg,
                    expected,
                },
            });
        }
        for (field, value, what) in [
            (
                CallbackField::IsEnabled,
                d.is_enabled.map(u128::from),
                "IsEnabled",
            ),
            (
                CallbackField::Level,
                d.level.map(|l| u128::from(l.0)),
                "Level",
            ),
            (
                CallbackField::Any,
                d.any.map(|n| u128::from(n.0)),
                "MatchAnyKeyword",
            ),
            (
                CallbackField::All,
                d.all.map(|n| u128::from(n.0)),
                "MatchAllKeyword",
            ),
            (
                CallbackField::SourceId,
                d.source_id.map(|g| g.0.as_u128()),
                "SourceId",
            ),
        ] {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("provider {}: {which}'s {what}", p.name),
                    check: Check::CallbackValue {
                        provider,
                        reg,
                        index,
                        field,
                        expected,
                    },
                });
            }
        }
        if out.len() == before {
            return Err(self.err(&e.span(), key, "an expectation with nothing to check: give count, is_enabled, level, any, all or source_id"));
        }
        Ok(())
    }

    fn expect_file(&self, i: usize, e: &Spanned<ExpectFile>, out: &mut Vec<Expectation>) -> R<()> {
        let d = e.get_ref();
        let path = d.path.get_ref().clone();
        let line = self.source.line(&e.span());
        let before = out.len();
        for (field, value, what) in [
            (FileField::Exists, d.exists.map(u64::from), "exists"),
            (FileField::Records, d.records, "records"),
            (
                FileField::EventsLost,
                d.events_lost,
                "EventsLost in its header",
            ),
        ] {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("file {path}: {what}"),
                    check: Check::File {
                        path: path.clone(),
                        field,
                        expected,
                    },
                });
            }
        }
        if out.len() == before {
            return Err(self.err(
                &e.span(),
                format!("expect.file[{}]", i + 1),
                "an expectation with nothing to check: give exists, records or events_lost",
            ));
        }
        Ok(())
    }

    /// `count` / `at_least` / `at_most` (one of them; at least 1 when none).
    fn bound(
        &self,
        span: &Range<usize>,
        key: &str,
        count: Option<u64>,
        at_least: Option<u64>,
        at_most: Option<u64>,
    ) -> R<Bound> {
        let given: Vec<Bound> = [
            count.map(Bound::Exactly),
            at_least.map(Bound::AtLeast),
            at_most.map(Bound::AtMost),
        ]
        .into_iter()
        .flatten()
        .collect();
        match given.as_slice() {
            [] => Ok(Bound::AtLeast(1)),
            [b] => Ok(*b),
            _ => Err(self.err(span, key, "give one of count, at_least and at_most")),
        }
    }

    fn expect_kernel(
        &self,
        i: usize,
        e: &Spanned<ExpectKernel>,
        ctx: &Names<'_>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.kernel[{}]", i + 1);
        let d = e.get_ref();
        let session = ctx.session(self, &d.session, &format!("{key}.session"))?;
        let text = d.event.get_ref().trim();
        let (class_name, event_name) = match text.split_once('/') {
            Some((c, ev)) => (c.trim(), Some(ev.trim())),
            None => (text, None),
        };
        let bad_event = |msg: String| self.err(&d.event.span(), format!("{key}.event"), msg);
        let class = mof::class_by_name(class_name).ok_or_else(|| {
            let known: Vec<&str> = mof::classes().iter().map(|c| c.name).collect();
            bad_event(format!(
                "no kernel class {class_name:?} (known: {})",
                known.join(", ")
            ))
        })?;
        let opcode = match event_name {
            None => None,
            Some(n) => Some(match n.parse::<u8>() {
                Ok(op) => op,
                Err(_) => {
                    class
                        .event_named(n)
                        .ok_or_else(|| {
                            bad_event(format!("class {} has no event {n:?}", class.name))
                        })?
                        .opcode
                }
            }),
        };
        let policy = match &d.names {
            None => None,
            Some(p) => Some(
                match p
                    .get_ref()
                    .trim()
                    .to_ascii_lowercase()
                    .replace(['-', ' '], "_")
                    .as_str()
                {
                    "file" => Policy::File,
                    "cleanup" | "evict_at_cleanup" | "real_time" => Policy::EvictAtCleanup,
                    "close" | "evict_at_close" => Policy::EvictAtClose,
                    other => {
                        return Err(self.err(
                            &p.span(),
                            format!("{key}.names"),
                            format!("unknown name policy {other:?}: use file, cleanup or close"),
                        ));
                    }
                },
            ),
        };
        let bound = self.bound(&e.span(), &key, d.count, d.at_least, d.at_most)?;
        let mut what = format!(
            "kernel events {} in {}",
            match event_name {
                Some(ev) => format!("{}/{ev}", class.name),
                None => class.name.to_string(),
            },
            ctx.sessions[session].name
        );
        if let Some(n) = &d.file_name {
            what.push_str(&format!(" with file name \"{n}\""));
        }
        match policy {
            Some(Policy::File) => what.push_str(" (names of the whole file)"),
            Some(Policy::EvictAtCleanup) => what.push_str(" (names forgotten at Cleanup)"),
            Some(Policy::EvictAtClose) => what.push_str(" (names forgotten at Close)"),
            _ => {}
        }
        for (k, v) in &d.fields {
            what.push_str(&format!(" {k} = \"{v}\""));
        }
        out.push(Expectation {
            line: self.source.line(&e.span()),
            what,
            check: Check::Kernel {
                session,
                matcher: KernelMatch {
                    class,
                    opcode,
                    policy,
                    file_name: d.file_name.clone(),
                    fields: d
                        .fields
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                },
                bound,
            },
        });
        Ok(())
    }

    fn expect_boot(
        &self,
        i: usize,
        e: &Spanned<ExpectBoot>,
        booted: bool,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.boot[{}]", i + 1);
        let d = e.get_ref();
        if !booted {
            return Err(self.err(
                &e.span(),
                key,
                "an `[[expect.boot]]` needs a machine booted from a registry: give `[machine] registry` (or `registry_text`)",
            ));
        }
        let boot = match &d.boot {
            Some(b) if *b.get_ref() == 0 => {
                return Err(self.err(&b.span(), format!("{key}.boot"), "boots count from 1"));
            }
            b => b.as_ref().map(|b| *b.get_ref()),
        };
        let session = d.session.get_ref().trim().to_string();
        let flags = |f: &Spanned<FlagsValue>, k: &str| {
            resolve_flags(
                f.get_ref(),
                &mode_names(),
                &["EVENT_TRACE_FILE_MODE_", "EVENT_TRACE_"],
                &["_MODE"],
            )
            .map_err(|m| self.err(&f.span(), format!("{key}.{k}"), m))
        };
        let provider = d.provider.map(|g| g.0);
        let needs_provider =
            d.provider_enabled.is_some() || d.provider_level.is_some() || d.provider_any.is_some();
        if needs_provider && provider.is_none() {
            return Err(self.err(
                &e.span(),
                format!("{key}.provider"),
                "provider_enabled, provider_level and provider_any need `provider` (the GUID of a provider subkey)",
            ));
        }
        let g = provider.unwrap_or(Guid::NULL);
        let mut fields = Vec::new();
        if let Some(v) = d.started {
            fields.push(BootField::Started(v));
        }
        if let Some(v) = d.status.as_ref() {
            fields.push(BootField::Status(
                self.error_match(Some(v)).unwrap_or(ErrorMatch::Code(0)),
            ));
        }
        if let Some(v) = &d.log_file {
            fields.push(BootField::LogFile(v.clone()));
        }
        if let Some(v) = d.file_counter {
            fields.push(BootField::FileCounter(v));
        }
        if let Some(v) = &d.note {
            fields.push(BootField::Note(v.clone()));
        }
        if let Some(f) = &d.mode_has {
            fields.push(BootField::ModeHas(flags(f, "mode_has")?));
        }
        if let Some(f) = &d.mode_lacks {
            fields.push(BootField::ModeLacks(flags(f, "mode_lacks")?));
        }
        if let Some(v) = d.provider_enabled {
            fields.push(BootField::ProviderEnabled(g, v));
        }
        if let Some(v) = d.provider_level {
            fields.push(BootField::ProviderLevel(g, v.0));
        }
        if let Some(v) = d.provider_any {
            fields.push(BootField::ProviderAny(g, v.0));
        }
        if fields.is_empty() {
            return Err(self.err(
                &e.span(),
                key,
                "an expectation with nothing to check: give started, status, log_file, file_counter, note, mode_has, mode_lacks, provider_enabled, provider_level or provider_any",
            ));
        }
        let line = self.source.line(&e.span());
        for field in fields {
            let which = boot.map_or("the last boot".to_string(), |b| format!("boot {b}"));
            let what = format!("{which}: {session}: {}", field.describe());
            out.push(Expectation {
                line,
                what,
                check: Check::Boot {
                    boot,
                    session: session.clone(),
                    field,
                },
            });
        }
        Ok(())
    }

    fn expect_journal(
        &self,
        i: usize,
        e: &Spanned<ExpectJournal>,
        ctx: &Names<'_>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.journal[{}]", i + 1);
        let d = e.get_ref();
        let kind = JOURNAL_KINDS
            .iter()
            .find(|k| k.eq_ignore_ascii_case(d.kind.get_ref().trim()))
            .ok_or_else(|| {
                self.err(
                    &d.kind.span(),
                    format!("{key}.kind"),
                    format!(
                        "unknown journal entry kind {:?}: use {}",
                        d.kind.get_ref(),
                        JOURNAL_KINDS.join(", ")
                    ),
                )
            })?;
        let provider = match &d.provider {
            Some(p) => Some(ctx.providers[ctx.provider(self, p, &format!("{key}.provider"))?].guid),
            None => None,
        };
        if d.recorded.is_some() && *kind != "Write" {
            return Err(self.err(
                &e.span(),
                format!("{key}.recorded"),
                "`recorded` selects a Write entry's verdicts: it needs kind = \"Write\"",
            ));
        }
        let bound = self.bound(&e.span(), &key, d.count, d.at_least, d.at_most)?;
        let matcher = JournalMatch {
            kind,
            session: d.session.clone(),
            provider,
            rule: d.rule.clone(),
            recorded: d.recorded,
            counter: d.counter.clone(),
            call: d.call.clone(),
            result: d.result.clone(),
            contains: d.contains.clone(),
        };
        let mut what = format!("journal: {kind} entries");
        for (k, v) in [
            ("session", &d.session),
            (
                "provider",
                &d.provider.as_ref().map(|p| p.get_ref().clone()),
            ),
            ("rule", &d.rule),
            ("recorded", &d.recorded.map(|r| r.to_string())),
            ("counter", &d.counter),
            ("call", &d.call),
            ("result", &d.result),
            ("containing", &d.contains),
        ] {
            if let Some(v) = v {
                what.push_str(&format!(" {k} {v:?}"));
            }
        }
        out.push(Expectation {
            line: self.source.line(&e.span()),
            what,
            check: Check::Journal { matcher, bound },
        });
        Ok(())
    }
}

/// The declared names a reference may use.
struct Names<'a> {
    processes: &'a [ProcSpec],
    providers: &'a [ProvSpec],
    sessions: &'a [SessSpec],
}

impl Names<'_> {
    fn session(&self, l: &Loader, name: &Spanned<String>, key: &str) -> R<usize> {
        let n = name.get_ref();
        self.sessions
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(n))
            .ok_or_else(|| {
                let known: Vec<&str> = self.sessions.iter().map(|s| s.name.as_str()).collect();
                l.err(
                    &name.span(),
                    key,
                    format!(
                        "no session named {n:?} (declared: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                )
            })
    }

    fn provider(&self, l: &Loader, name: &Spanned<String>, key: &str) -> R<usize> {
        let n = name.get_ref();
        self.providers
            .iter()
            .position(|p| p.name == *n)
            .ok_or_else(|| {
                let known: Vec<&str> = self.providers.iter().map(|p| p.name.as_str()).collect();
                l.err(
                    &name.span(),
                    key,
                    format!(
                        "no provider named {n:?} (declared: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                )
            })
    }
}

/// The handles the OS steps open, in step order, for the checks of the steps that use them.
/// Names are found through maps and a reboot closes only what is open, so each OS step
/// costs the same however many came before it.
#[derive(Default)]
struct OsState {
    files: Vec<FileState>,
    /// The latest file handle of each name: only it can still be open (a name is reused
    /// only once its handle is closed).
    file_names: HashMap<String, usize>,
    /// The file handles not closed yet.
    open_files: HashSet<usize>,
    /// Images by name, and whether loaded.
    images: Vec<(String, bool)>,
    /// The latest image of each name.
    image_names: HashMap<String, usize>,
    /// The images loaded now.
    loaded_images: HashSet<usize>,
    /// Whether the machine boots from a registry (so `reboot` can run).
    registry: bool,
}

impl OsState {
    /// A new open file handle named `name`; its index.
    fn open_file(&mut self, name: String, process: ProcRef) -> usize {
        let i = self.files.len();
        self.file_names.insert(name, i);
        self.open_files.insert(i);
        self.files.push(FileState {
            state: HandleState::Open,
            process,
            why: String::new(),
        });
        i
    }

    /// The latest file handle named `name`.
    fn file_named(&self, name: &str) -> Option<usize> {
        self.file_names.get(name).copied()
    }

    fn close_file(&mut self, i: usize, why: String) {
        let f = &mut self.files[i];
        f.state = HandleState::Closed;
        f.why = why;
        self.open_files.remove(&i);
    }

    /// A newly loaded image named `name`; its index.
    fn load_image(&mut self, name: String) -> usize {
        let i = self.images.len();
        self.image_names.insert(name.clone(), i);
        self.loaded_images.insert(i);
        self.images.push((name, true));
        i
    }

    /// The latest image named `name`.
    fn image_named(&self, name: &str) -> Option<usize> {
        self.image_names.get(name).copied()
    }

    fn unload_image(&mut self, i: usize) {
        self.images[i].1 = false;
        self.loaded_images.remove(&i);
    }

    /// Whether `name` names an open file or a loaded image.
    fn in_use(&self, name: &str) -> bool {
        self.file_named(name)
            .is_some_and(|i| self.files[i].state != HandleState::Closed)
            || self.image_named(name).is_some_and(|i| self.images[i].1)
    }

    /// Every handle and image dies with the kernel.
    fn reboot(&mut self, line: usize) {
        for i in std::mem::take(&mut self.open_files) {
            let f = &mut self.files[i];
            f.state = HandleState::Closed;
            f.why = format!("it was lost at the reboot of line {line}");
        }
        for i in std::mem::take(&mut self.loaded_images) {
            self.images[i].1 = false;
        }
    }
}

struct FileState {
    state: HandleState,
    process: ProcRef,
    /// Why it is closed.
    why: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum HandleState {
    Open,
    Closing,
    Closed,
}

/// What the steps add up to, against [`MAX_WRITES`] and [`MAX_VIRTUAL_TIME`].
#[derive(Default)]
struct Budget {
    writes: u64,
    time: Duration,
}

impl Budget {
    fn writes(&mut self, n: u64) -> Result<(), String> {
        self.writes = self
            .writes
            .checked_add(n)
            .filter(|w| *w <= MAX_WRITES)
            .ok_or_else(|| format!("the scenario writes more than {MAX_WRITES} events in all"))?;
        Ok(())
    }

    fn time(&mut self, d: Duration, times: u64) -> Result<(), String> {
        let add = u32::try_from(times)
            .ok()
            .and_then(|t| d.checked_mul(t))
            .and_then(|x| self.time.checked_add(x))
            .filter(|t| *t <= MAX_VIRTUAL_TIME)
            .ok_or_else(|| {
                "the scenario moves through more than ten years of virtual time".to_string()
            })?;
        self.time = add;
        Ok(())
    }
}

impl StepDef {
    /// Every action key, in the order the docs list them.
    pub(crate) const ACTIONS: [&'static str; 23] = [
        "write",
        "advance",
        "run_logger",
        "flush",
        "update",
        "stop",
        "start",
        "enable",
        "disable",
        "consume",
        "exit",
        "reboot",
        "spawn",
        "thread_exit",
        "open_file",
        "create_file",
        "file_read",
        "file_write",
        "cleanup",
        "paging_write",
        "close",
        "load_image",
        "unload_image",
    ];

    /// The action keys that are set, with the name they give (a provider, session or
    /// process) where they give one.
    fn actions(&self) -> Vec<(&'static str, Option<&Spanned<String>>)> {
        let set = [
            (self.write.is_some(), self.write.as_ref()),
            (self.advance.is_some(), None),
            (self.run_logger.is_some(), None),
            (self.flush.is_some(), self.flush.as_ref()),
            (self.update.is_some(), self.update.as_ref()),
            (self.stop.is_some(), self.stop.as_ref()),
            (self.start.is_some(), self.start.as_ref()),
            (self.enable.is_some(), self.enable.as_ref()),
            (self.disable.is_some(), self.disable.as_ref()),
            (self.consume.is_some(), self.consume.as_ref()),
            (self.exit.is_some(), self.exit.as_ref()),
            (self.reboot.is_some(), None),
            (self.spawn.is_some(), self.spawn.as_ref()),
            (self.thread_exit.is_some(), self.thread_exit.as_ref()),
            (self.open_file.is_some(), self.open_file.as_ref()),
            (self.create_file.is_some(), self.create_file.as_ref()),
            (self.file_read.is_some(), self.file_read.as_ref()),
            (self.file_write.is_some(), self.file_write.as_ref()),
            (self.cleanup.is_some(), self.cleanup.as_ref()),
            (self.paging_write.is_some(), self.paging_write.as_ref()),
            (self.close.is_some(), self.close.as_ref()),
            (self.load_image.is_some(), self.load_image.as_ref()),
            (self.unload_image.is_some(), self.unload_image.as_ref()),
        ];
        Self::ACTIONS
            .iter()
            .zip(set)
            .filter_map(|(n, (s, v))| s.then_some((*n, v)))
            .collect()
    }

    /// The non-action keys that are set.
    fn options(&self) -> Vec<&'static str> {
        let set: [(&'static str, bool); 36] = [
            ("process", self.process.is_some()),
            ("cpu", self.cpu.is_some()),
            ("thread", self.thread.is_some()),
            ("id", self.id.is_some()),
            ("version", self.version.is_some()),
            ("channel", self.channel.is_some()),
            ("level", self.level.is_some()),
            ("opcode", self.opcode.is_some()),
            ("task", self.task.is_some()),
            ("keyword", self.keyword.is_some()),
            ("count", self.count.is_some()),
            ("every", self.every.is_some()),
            ("payload_size", self.payload_size.is_some()),
            ("payload_text", self.payload_text.is_some()),
            ("payload_utf16", self.payload_utf16.is_some()),
            ("payload_hex", self.payload_hex.is_some()),
            ("string", self.string.is_some()),
            ("inprivate", self.inprivate.is_some()),
            ("filter_mask", self.filter_mask.is_some()),
            ("provider", self.provider.is_some()),
            ("any", self.any.is_some()),
            ("all", self.all.is_some()),
            ("properties", self.properties.is_some()),
            ("source_id", self.source_id.is_some()),
            ("filter", self.filter.is_some()),
            ("flush_timer", self.flush_timer.is_some()),
            ("maximum_buffers", self.maximum_buffers.is_some()),
            ("log_file", self.log_file.is_some()),
            ("real_time", self.real_time.is_some()),
            ("enable_flags", self.enable_flags.is_some()),
            ("handle", self.handle.is_some()),
            ("offset", self.offset.is_some()),
            ("size", self.size.is_some()),
            ("disposition", self.disposition.is_some()),
            ("exit_code", self.exit_code.is_some()),
            ("expect_error", self.expect_error.is_some()),
        ];
        set.into_iter()
            .filter_map(|(n, s)| s.then_some(n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_buffer_limit_reaches_the_kernel_with_its_default() {
        let load = |machine: &str| {
            let text = format!("[machine]\n{machine}\n[[step]]\nadvance = \"1ms\"\n");
            let sc = Scenario::parse(&text, "t.toml", Path::new(".")).unwrap();
            let k = sc.builder.clone().build().unwrap();
            k.config().max_machine_buffer_bytes
        };
        assert_eq!(load(""), Some(MAX_MACHINE_BUFFER_BYTES));
        assert_eq!(load("max_machine_buffer_bytes = 65536"), Some(65536));
    }
}
