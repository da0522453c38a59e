//! Loading a scenario: the file is parsed ([`crate::file`]), then every name is resolved and
//! every value checked, so that a scenario that loads can run. Each error names its line,
//! column and key.
//!
//! `mod.rs` holds the [`Scenario`] type, the public limits and the loader's entry point
//! (`Loader::load`, which resolves the tables in order); each table's checks are in its own
//! file: `machine`, `processes`, `providers`, `sessions`, `enables` (with their filters),
//! `steps` (with the OS steps' handles), `writes` and `expectations`.

mod enables;
mod expectations;
mod machine;
mod processes;
mod providers;
mod sessions;
mod steps;
mod writes;

pub(crate) use enables::{EnableSpec, FilterSpec, PidRef};
pub(crate) use expectations::{
    BootField, Bound, CallbackField, Check, Expectation, FileField, JournalMatch, KernelMatch,
    SessionField, TotalField,
};
pub(crate) use processes::ProcSpec;
pub(crate) use providers::{ProvKind, ProvSpec};
pub(crate) use sessions::SessSpec;
pub(crate) use steps::{ActionKind, FileOp};
pub(crate) use writes::{Payload, ThreadSel, WriteSpec};

use crate::error::{Error, Source};
use crate::file::ScenarioFile;
use crate::files::{read_capped, size_text};
use crate::values::NameOrNumber;
use etwsim::KernelBuilder;
use etwsim::registry::Registry;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use steps::{Budget, OsState};
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

/// One thing the run does, in order: sessions' starts, the `[[enable]]`s, then the steps.
#[derive(Debug)]
pub(crate) struct Action {
    pub line: usize,
    pub key: String,
    pub kind: ActionKind,
    pub expect_error: Option<ErrorMatch>,
    /// The step's `name`, for expectations checked `after` it.
    pub name: Option<String>,
    /// `as`: the process that makes the control call instead of the session's caller.
    pub as_process: Option<ProcRef>,
}

/// A Win32 error a control step expects.
#[derive(Debug, Clone)]
pub(crate) enum ErrorMatch {
    Code(u32),
    Name(String),
    /// `"any"`: the call must fail, with any error.
    Any,
    /// `"ok_or_any"`: the call may succeed or fail; either is the step's success.
    OkOrAny,
}

/// The spellings of [`ErrorMatch::Any`] and [`ErrorMatch::OkOrAny`].
pub(crate) const ANY_ERROR: &str = "any";
pub(crate) const OK_OR_ANY_ERROR: &str = "ok_or_any";

/// The code of a Win32 error name etwsim knows (`ERROR_ACCESS_DENIED`), case-insensitively.
fn error_code_of(name: &str) -> Option<u32> {
    (0..=0xFFFF).find(|c| {
        etwsim::Win32Error(*c)
            .name()
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    })
}

impl ErrorMatch {
    pub(crate) fn matches(&self, e: etwsim::Win32Error) -> bool {
        match self {
            ErrorMatch::Code(c) => e.0 == *c,
            ErrorMatch::Name(n) => e.name().is_some_and(|x| x.eq_ignore_ascii_case(n)),
            ErrorMatch::Any | ErrorMatch::OkOrAny => true,
        }
    }

    /// Whether success is the step's success too.
    pub(crate) fn allows_success(&self) -> bool {
        matches!(self, ErrorMatch::OkOrAny)
    }
}

impl std::fmt::Display for ErrorMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ErrorMatch::Code(c) => write!(f, "error {c}"),
            ErrorMatch::Name(n) => f.write_str(n),
            ErrorMatch::Any => f.write_str("an error (any)"),
            ErrorMatch::OkOrAny => f.write_str("success or any error"),
        }
    }
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
                    name: None,
                    as_process: None,
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
                key: key.clone(),
                kind: ActionKind::Enable(spec),
                expect_error: self.error_match(
                    e.get_ref().expect_error.as_ref(),
                    true,
                    &format!("{key}.expect_error"),
                )?,
                name: None,
                as_process: None,
            });
        }
        let mut budget = Budget::default();
        let mut os = OsState::new(registry.is_some());
        for (i, s) in f.step.iter().enumerate() {
            let action = self.step(i, s, &ctx, cpus, &mut budget, &mut os)?;
            if let (Some(n), Some(spanned)) = (&action.name, &s.get_ref().name) {
                if actions
                    .iter()
                    .any(|a: &Action| a.name.as_deref() == Some(n.as_str()))
                {
                    return Err(self.err(
                        &spanned.span(),
                        format!("step[{}].name", i + 1),
                        format!("a second step named {n:?}: step names are unique"),
                    ));
                }
            }
            actions.push(action);
        }
        let step_names: Vec<&str> = actions.iter().filter_map(|a| a.name.as_deref()).collect();
        let expectations = self.expectations(&f, &ctx, &step_names)?;
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

    /// An `expect_error` (or `status`) value: a Win32 error name etwsim knows or a number —
    /// and, where `any` is true, `"any"` or `"ok_or_any"`.
    fn error_match(
        &self,
        e: Option<&Spanned<NameOrNumber>>,
        any: bool,
        key: &str,
    ) -> R<Option<ErrorMatch>> {
        let Some(e) = e else {
            return Ok(None);
        };
        Ok(Some(match e.get_ref() {
            NameOrNumber::Number(n) => ErrorMatch::Code(u32::try_from(*n).unwrap_or(u32::MAX)),
            NameOrNumber::Name(n) if any && n.eq_ignore_ascii_case(ANY_ERROR) => ErrorMatch::Any,
            NameOrNumber::Name(n) if any && n.eq_ignore_ascii_case(OK_OR_ANY_ERROR) => {
                ErrorMatch::OkOrAny
            }
            NameOrNumber::Name(n) => {
                if error_code_of(n).is_none() {
                    let also = if any {
                        format!(
                            ", {ANY_ERROR:?} (any failure) or {OK_OR_ANY_ERROR:?} (success or any failure)"
                        )
                    } else {
                        String::new()
                    };
                    return Err(self.err(
                        &e.span(),
                        key,
                        format!(
                            "unknown error {n:?}: give a Win32 error name (\"ERROR_ACCESS_DENIED\"), a number{also}"
                        ),
                    ));
                }
                ErrorMatch::Name(n.clone())
            }
        }))
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
