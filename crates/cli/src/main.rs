//! `etwsim`: the command-line face of the simulator.
//!
//! * `etwsim demo [--out DIR]` builds a small simulated machine, runs three sessions over a
//!   scripted event stream and a burst, and explains what each session recorded, what was
//!   lost and which counter moved; it writes `demo.etl`, `burst.etl` and the manifest of the
//!   demo's providers, `demo.man`, into DIR.
//! * `etwsim dump FILE.etl [--format text|csv|json] [--manifest FILE]...` prints a log
//!   file's header and every record, decoded: provider and event names, fields, messages.
//! * `etwsim export --format chrome FILE.etl [-o OUT]` writes the Chrome trace-event JSON
//!   that Perfetto and chrome://tracing load.
//! * `etwsim boot FILE.reg [--boots N] [--out DIR] [--format text|json]` boots a simulated
//!   machine from a `.reg` file N times and prints what ETW did at each boot.
//! * `etwsim guid NAME...` prints the GUID EventSource / TraceLogging derive from each
//!   provider name (GID-01), one per line.
//! * `etwsim run FILE.toml [--format text|json] [--out DIR]` runs a scenario
//!   (`docs/scenarios.md`) and checks its expectations; `etwsim report INPUT -o FILE.html`
//!   writes the HTML report of a scenario or an `.etl` file. Both are `etwsim-scenario`'s.
//!
//! The command line is clap's (derive). This is the only place in the workspace where errors
//! are turned into text for people (STYLE.md, convention 2): every failure becomes one line
//! on stderr, `etwsim: …`, and an exit code — 2 for a command-line mistake, 1 for a failure
//! — never a panic or a backtrace. A reader that goes away (`etwsim dump x.etl | head`)
//! ends the command quietly.
#![forbid(unsafe_code)]

mod boot;
mod decoded;
mod demo;
mod dump;
mod export;
mod fmt;
mod input;
mod progress;
mod scenario;
mod scratch;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// A simulator of the kernel side of Event Tracing for Windows (ETW).
#[derive(Debug, Parser)]
#[command(
    name = "etwsim",
    version,
    about = "etwsim — a simulator of the kernel side of Event Tracing for Windows (ETW)",
    after_help = "Exit status: 0 success; 1 failure (an unreadable or damaged file: the records\n\
                  before the damage are printed first); 2 a mistake in the command line."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a small simulated machine and explain what each session recorded
    ///
    /// Builds a machine (4 CPUs, 3 processes, 3 providers) with three sessions — a log file,
    /// a real-time session with a consumer, and a deliberately small one that a burst
    /// overflows — and explains which session recorded which event and why, where events
    /// were lost and which counter moved. Writes demo.etl, burst.etl and demo.man (the
    /// manifest of the demo's providers) into DIR. The same output every run.
    #[command(verbatim_doc_comment)]
    Demo(DemoArgs),
    /// Print an .etl file, decoded
    ///
    /// Prints the file's header (logger, buffer size, buffers, events lost, clock, start and
    /// end time, processors), then every record oldest first, timestamps in UTC, with what
    /// it means: the provider and event names, the fields, and a manifest event's message.
    /// TraceLogging events and kernel (MOF) events decode by themselves; manifest events
    /// need their manifest (--manifest). A record nothing describes shows its payload in hex
    /// and why it was not decoded. Reads files written by etwsim and by Windows.
    #[command(verbatim_doc_comment)]
    Dump(DumpArgs),
    /// Convert an .etl file for a trace viewer
    ///
    /// Writes Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
    /// load: one track per process and thread; start/stop event pairs (opcode 1 and 2, matched
    /// by activity ID, else by provider, thread and task) as slices; every other event as an
    /// instant with its decoded fields; lost events as marked instants. Times are
    /// microseconds from the first event.
    #[command(verbatim_doc_comment)]
    Export(ExportArgs),
    /// Print the provider GUID derived from each provider NAME
    ///
    /// The GUID EventSource and TraceLogging derive from a provider name (GID-01), one per
    /// line, lowercase and in braces. The name is upper-cased first, so case does not
    /// matter. Manifest providers have fixed GUIDs instead.
    #[command(verbatim_doc_comment)]
    Guid(GuidArgs),
    /// Boot a simulated machine from a .reg file and print what ETW did
    ///
    /// Boots N times (--boots) and prints, for each boot, every AutoLogger and the Global
    /// Logger: started or not (with the Status code written back and why), the values in
    /// force after ETW's overrides, each provider enabled, each log file (FileMax rotation
    /// across boots). Windows paths map into DIR (--out): C:\x\y.etl is DIR/C/x/y.etl;
    /// without --out the files stay in memory.
    #[command(verbatim_doc_comment)]
    Boot(BootArgs),
    /// Run a scenario file and check its expectations
    ///
    /// Loads a scenario (a TOML file: machine, processes, providers, sessions, enables,
    /// steps, expectations — docs/scenarios.md), runs it on a deterministic kernel with the
    /// journal on, prints the journal, the sessions' counters and each expectation's result,
    /// and writes the files the sessions wrote into DIR. Exits 1 naming the first failed
    /// expectation (or the step that failed); a mistake in the file names its line and key.
    #[command(verbatim_doc_comment)]
    Run(RunArgs),
    /// Write an HTML report of a scenario or an .etl file
    ///
    /// One self-contained page (no network): a timeline per session and CPU (events, buffer
    /// switches, flushes, losses), each provider's enable slots, the counters, and each
    /// event's detail with its decoded fields on hover or click. INPUT is a scenario (.toml,
    /// run first) or an .etl file.
    #[command(verbatim_doc_comment)]
    Report(ReportArgs),
}

/// The output formats of `run`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunFormat {
    /// The journal, the counters and the expectations as text
    Text,
    /// JSON Lines: one object per journal entry (seq, time, kind, fields), per expectation,
    /// and a summary
    Json,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The scenario to run
    #[arg(value_name = "FILE.toml")]
    file: PathBuf,
    /// The output format
    #[arg(short, long, value_enum, default_value_t = RunFormat::Text)]
    format: RunFormat,
    /// Folder to write the sessions' log files into (created if missing)
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ReportArgs {
    /// A scenario (.toml) or an .etl file
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    /// The HTML file to write
    #[arg(short, long, value_name = "FILE.html")]
    output: PathBuf,
    /// An instrumentation manifest (.man) to decode an .etl file's events with; repeatable
    #[arg(short, long, value_name = "FILE")]
    manifest: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct BootArgs {
    /// The .reg file (REGEDIT4 or Windows Registry Editor Version 5.00)
    #[arg(value_name = "FILE.reg")]
    file: PathBuf,
    /// How many times to boot (the registry and the disk persist between boots)
    #[arg(short, long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(boot::MAX_BOOTS)))]
    boots: u32,
    /// Folder the machine's drives map into (created if missing)
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Create the folders the .reg's log files name under DIR before each session starts
    /// (ETW itself creates none: a missing folder fails as StartTrace does)
    #[arg(long, requires = "out")]
    create_folders: bool,
    /// text: the report, then the files written; json: JSON Lines, one object per session
    /// per boot
    #[arg(short, long, value_enum, default_value_t = BootFormat::Text)]
    format: BootFormat,
}

/// The output formats of `boot`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum BootFormat {
    /// The report, then the files written
    Text,
    /// JSON Lines: one object per session per boot
    Json,
}

#[derive(Debug, Args)]
struct DemoArgs {
    /// Folder to write the files into (created if missing) [default: the current folder]
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// The output formats of `dump`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Aligned columns with a header summary, each record's meaning under it
    Text,
    /// One row per record after a header row
    Csv,
    /// JSON Lines: a "header" object, then one object per record
    Json,
}

#[derive(Debug, Args)]
struct DumpArgs {
    /// The .etl file to read
    #[arg(value_name = "FILE.etl")]
    file: PathBuf,
    /// The output format
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// An instrumentation manifest (.man) to decode its providers' events with; repeatable
    #[arg(short, long, value_name = "FILE")]
    manifest: Vec<PathBuf>,
    /// A TMF file, or a folder of .tmf files, to decode WPP messages with; repeatable
    #[arg(long, value_name = "PATH")]
    tmf: Vec<PathBuf>,
    /// A MOF file of classic providers' event classes to decode their events with; repeatable
    #[arg(long, value_name = "FILE")]
    mof: Vec<PathBuf>,
    /// Also print the header buffer's records (the EventTrace header first), as ProcessTrace
    /// delivers them
    #[arg(long, verbatim_doc_comment)]
    header_records: bool,
}

/// The formats of `export`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportFormat {
    /// Chrome trace-event JSON (Perfetto, chrome://tracing)
    Chrome,
}

#[derive(Debug, Args)]
struct ExportArgs {
    /// The format to write
    #[arg(short, long, value_enum, default_value_t = ExportFormat::Chrome)]
    format: ExportFormat,
    /// The .etl file to read
    #[arg(value_name = "FILE.etl")]
    file: PathBuf,
    /// Where to write (default: standard output)
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// An instrumentation manifest (.man) to decode its providers' events with; repeatable
    #[arg(short, long, value_name = "FILE")]
    manifest: Vec<PathBuf>,
    /// A TMF file, or a folder of .tmf files, to decode WPP messages with; repeatable
    #[arg(long, value_name = "PATH")]
    tmf: Vec<PathBuf>,
    /// A MOF file of classic providers' event classes to decode their events with; repeatable
    #[arg(long, value_name = "FILE")]
    mof: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct GuidArgs {
    /// Provider names (a name may start with '-')
    #[arg(value_name = "NAME", required = true, allow_hyphen_values = true)]
    names: Vec<String>,
}

/// Why the command stopped early, before it is flattened into one line for people.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A mistake in the command line (exit 2).
    Usage(String),
    /// The work could not be done (exit 1).
    Failed(String),
    /// Standard output cannot be written (exit 1): said once, and nothing more is written.
    Output(String),
    /// Whoever reads our output went away (`etwsim dump x.etl | head`): stop quietly.
    BrokenPipe,
}

impl Failure {
    pub(crate) fn failed(message: impl Into<String>) -> Failure {
        Failure::Failed(message.into())
    }
}

/// Errors writing to standard output: the only `io::Error`s that may use `?` into a
/// [`Failure`]. Reading and writing files map their errors explicitly, with the file's name.
impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Output(format!(
                "cannot write to standard output: {}",
                fmt::io_reason(&e)
            ))
        }
    }
}

/// The CSV writer's errors are standard output's.
impl From<csv::Error> for Failure {
    fn from(e: csv::Error) -> Failure {
        match e.into_kind() {
            csv::ErrorKind::Io(e) => Failure::from(e),
            other => Failure::failed(format!("cannot write CSV: {other:?}")),
        }
    }
}

fn main() -> ExitCode {
    // A panic is a bug in etwsim; even then the user gets one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("etwsim: internal error (a bug in etwsim, please report it): {what}{at}");
    }));

    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = parse(std::env::args_os())
        .and_then(|command| execute(command, &mut out))
        .and_then(|()| out.flush().map_err(Failure::from));
    let _ = scratch::cleanup();
    let failure = match result {
        Ok(()) => return ExitCode::SUCCESS,
        Err(failure) => failure,
    };
    // What was printed before the failure (a damaged file's records) comes first; if that
    // cannot be written either, the output failure is the one to tell.
    let failure = match failure {
        Failure::Usage(_) | Failure::Failed(_) => match out.flush() {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Failure::from(e),
            _ => failure,
        },
        other => other,
    };
    match failure {
        Failure::BrokenPipe => {
            // Nothing more reaches the reader: drop what is buffered without retrying.
            let _ = out.into_parts();
            ExitCode::SUCCESS
        }
        Failure::Usage(message) => {
            eprintln!("etwsim: {message}");
            ExitCode::from(2)
        }
        Failure::Failed(message) => {
            eprintln!("etwsim: {message}");
            ExitCode::from(1)
        }
        Failure::Output(message) => {
            let _ = out.into_parts();
            eprintln!("etwsim: {message}");
            ExitCode::from(1)
        }
    }
}

/// What to do.
#[derive(Debug)]
enum Action {
    /// Print clap's help or version text (to standard output).
    Print(String),
    Run(Command),
}

/// Parses the whole command line (program name first); help and version requests become
/// text to print, mistakes one line naming the command's `--help`.
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Action, Failure> {
    let args: Vec<OsString> = args.into_iter().collect();
    match Cli::try_parse_from(&args) {
        Ok(Cli {
            command: Some(command),
        }) => Ok(Action::Run(command)),
        Ok(Cli { command: None }) => Err(Failure::Usage(
            "no command given: try 'etwsim demo', or 'etwsim dump FILE.etl'; see 'etwsim --help'"
                .into(),
        )),
        Err(e) => match e.kind() {
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                Ok(Action::Print(e.render().to_string()))
            }
            _ => Err(Failure::Usage(usage_line(&e, &args))),
        },
    }
}

/// A clap error as one line: its first paragraph, then where to read more.
fn usage_line(e: &clap::Error, args: &[OsString]) -> String {
    let text = e.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    let first: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let command = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find(|a| ["demo", "dump", "export", "guid", "run", "report"].contains(a));
    let help = match command {
        Some(c) => format!("etwsim {c} --help"),
        None => "etwsim --help".into(),
    };
    format!("{}; see '{help}'", first.join(" "))
}

fn execute(action: Action, out: &mut dyn Write) -> Result<(), Failure> {
    let command = match action {
        Action::Print(text) => return Ok(out.write_all(text.as_bytes())?),
        Action::Run(command) => command,
    };
    match command {
        Command::Demo(a) => demo::run(a.out.as_deref(), out),
        Command::Dump(a) => dump::run(
            &a.file,
            &dump::Options {
                format: a.format,
                manifests: a.manifest,
                tmf: a.tmf,
                mof: a.mof,
                header_records: a.header_records,
            },
            out,
        ),
        Command::Export(a) => export::run(
            &a.file,
            &export::Options {
                format: a.format,
                output: a.output,
                manifests: a.manifest,
                tmf: a.tmf,
                mof: a.mof,
            },
            out,
        ),
        Command::Boot(a) => boot::run(
            &a.file,
            &boot::Options {
                boots: a.boots,
                dir: a.out.as_deref(),
                format: match a.format {
                    BootFormat::Text => Format::Text,
                    BootFormat::Json => Format::Json,
                },
                create_folders: a.create_folders,
            },
            out,
        ),
        Command::Guid(a) => {
            for name in a.names {
                writeln!(out, "{}", etwsim::Guid::from_provider_name(&name))?;
            }
            Ok(())
        }
        Command::Run(a) => scenario::run(&a.file, a.format, a.out.as_deref(), out),
        Command::Report(a) => scenario::report(&a.input, &a.output, &a.manifest, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Action, Failure> {
        parse(
            std::iter::once("etwsim")
                .chain(list.iter().copied())
                .map(OsString::from),
        )
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn options_take_a_separate_or_inline_value() {
        let dump = |list: &[&str]| match args(list) {
            Ok(Action::Run(Command::Dump(d))) => (d.file, d.format, d.manifest),
            other => panic!("{list:?}: {other:?}"),
        };
        let want = (PathBuf::from("a.etl"), Format::Csv, vec![]);
        assert_eq!(dump(&["dump", "a.etl", "--format", "csv"]), want);
        assert_eq!(dump(&["dump", "--format=csv", "a.etl"]), want);
        assert_eq!(dump(&["dump", "-f", "csv", "a.etl"]), want);
        assert_eq!(
            dump(&["dump", "--", "-odd.etl"]),
            (PathBuf::from("-odd.etl"), Format::Text, vec![])
        );
        assert_eq!(
            dump(&["dump", "a.etl", "-m", "x.man", "--manifest=y.man"]).2,
            [PathBuf::from("x.man"), PathBuf::from("y.man")]
        );
        match args(&["demo", "--out=x"]) {
            Ok(Action::Run(Command::Demo(d))) => assert_eq!(d.out, Some("x".into())),
            other => panic!("{other:?}"),
        }
        match args(&["guid", "-dash", "b"]) {
            Ok(Action::Run(Command::Guid(g))) => assert_eq!(g.names, ["-dash", "b"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn mistakes_are_usage_failures_of_one_line() {
        for bad in [
            &[][..],
            &["frobnicate"],
            &["--frobnicate"],
            &["demo", "--bogus"],
            &["demo", "extra"],
            &["demo", "--out"],
            &["dump"],
            &["dump", "a.etl", "b.etl"],
            &["dump", "a.etl", "--format", "xml"],
            &["dump", "a.etl", "--format"],
            &["export", "a.etl", "--format", "svg"],
            &["guid"],
            &["help", "nothing"],
        ] {
            match args(bad) {
                Err(Failure::Usage(line)) => {
                    assert!(!line.contains('\n'), "{bad:?}: {line:?}");
                    assert!(line.contains("--help'"), "{bad:?}: {line:?}");
                }
                other => panic!("{bad:?} should be a usage failure, got {other:?}"),
            }
        }
    }

    use clap::CommandFactory;
}
