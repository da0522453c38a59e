//! `etwsim`: the command-line face of the simulator.
//!
//! * `etwsim demo [--out DIR]` builds a small simulated machine, runs three sessions over a
//!   scripted event stream and a burst, and explains what each session recorded, what was
//!   lost and which counter moved; it writes `demo.etl` (and `burst.etl`) into DIR.
//! * `etwsim dump FILE.etl [--format text|csv|json]` prints a log file's header and one
//!   line per record, as `tracerpt` does.
//! * `etwsim boot FILE.reg [--boots N] [--out DIR] [--format text|json]` boots a simulated
//!   machine from a `.reg` file N times and prints what ETW did at each boot.
//! * `etwsim guid NAME...` prints the GUID EventSource / TraceLogging derive from each
//!   provider name (GID-01), one per line.
//!
//! This is the only place in the workspace where errors are turned into text for people
//! (STYLE.md, convention 2): every failure becomes one line on stderr, `etwsim: …`, and an
//! exit code — 2 for a command-line mistake, 1 for a failure — never a panic or a backtrace.
#![forbid(unsafe_code)]

mod boot;
mod demo;
mod dump;
mod fmt;

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const VERSION: &str = env!("CARGO_PKG_VERSION");

const HELP: &str = "\
etwsim — a simulator of the kernel side of Event Tracing for Windows (ETW)

USAGE:
    etwsim demo [--out DIR]
    etwsim dump FILE.etl [--format text|csv|json]
    etwsim boot FILE.reg [--boots N] [--out DIR] [--format text|json]
    etwsim guid NAME...
    etwsim help | --help | -h
    etwsim --version | -V

COMMANDS:
    demo    Build a small simulated machine (4 CPUs, 3 processes, 3 providers) with three
            sessions — a log file, a real-time session with a consumer, and a deliberately
            small one that a burst overflows — and explain which session recorded which
            event and why, where events were lost and which counter moved. Writes
            demo.etl and burst.etl into DIR (default: the current directory; created if
            missing). The same output every run.
    dump    Print an .etl file: its header (logger, buffer size, buffers, events lost,
            clock, start and end time, processors), then one line per record, oldest
            first, timestamps in UTC. Reads files written by etwsim and by Windows.
              --format text   aligned columns with a header summary (the default)
              --format csv    one row per record after a header row
              --format json   JSON Lines: a \"header\" object, then one object per record
    boot    Boot a simulated machine from a .reg file N times (--boots, default 1) and print
            what ETW did at each boot: every AutoLogger and the Global Logger, started or
            not (with the Status code written back and why), the values in force after
            ETW's overrides, each provider enabled, each log file (FileMax rotation across
            boots). Windows paths map into DIR (--out): C:\\x\\y.etl is DIR/C/x/y.etl; without
            --out the files stay in memory.
              --format text   the report, then the files written (the default)
              --format json   JSON Lines: one object per session per boot
    guid    Print the provider GUID EventSource and TraceLogging derive from each NAME,
            one per line, lowercase and in braces (the name is upper-cased first, so
            case does not matter). Manifest providers have fixed GUIDs instead.

EXIT STATUS:
    0 success, 1 failure (unreadable or damaged file: the records before the damage are
    printed first), 2 a mistake in the command line.
";

/// Why the command stopped early, before it is flattened into one line for people.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A mistake in the command line (exit 2).
    Usage(String),
    /// The work could not be done (exit 1).
    Failed(String),
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
            Failure::Failed(format!(
                "cannot write to standard output: {}",
                fmt::io_reason(&e)
            ))
        }
    }
}

/// The output formats of `dump`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Text,
    Csv,
    Json,
}

/// A parsed command line.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Version,
    Demo {
        out: Option<PathBuf>,
    },
    Dump {
        file: PathBuf,
        format: Format,
    },
    Guid {
        names: Vec<String>,
    },
    Boot {
        file: PathBuf,
        boots: u32,
        out: Option<PathBuf>,
        format: Format,
    },
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
    let result = parse(std::env::args_os().skip(1))
        .and_then(|command| execute(command, &mut out))
        .and_then(|()| out.flush().map_err(Failure::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // What was printed before the failure (a damaged file's records) comes first.
            let flushed = out.flush();
            match failure {
                Failure::BrokenPipe => ExitCode::SUCCESS,
                Failure::Usage(message) => {
                    eprintln!("etwsim: {message}; see 'etwsim --help'");
                    ExitCode::from(2)
                }
                Failure::Failed(message) => {
                    if let Err(e) = flushed {
                        if e.kind() != io::ErrorKind::BrokenPipe {
                            eprintln!(
                                "etwsim: cannot write to standard output: {}",
                                fmt::io_reason(&e)
                            );
                        }
                    }
                    eprintln!("etwsim: {message}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

fn execute(command: Command, out: &mut dyn Write) -> Result<(), Failure> {
    match command {
        Command::Help => Ok(out.write_all(HELP.as_bytes())?),
        Command::Version => Ok(writeln!(out, "etwsim {VERSION}")?),
        Command::Demo { out: dir } => demo::run(dir.as_deref(), out),
        Command::Dump { file, format } => dump::run(&file, format, out),
        Command::Boot {
            file,
            boots,
            out: dir,
            format,
        } => boot::run(&file, boots, dir.as_deref(), format, out),
        Command::Guid { names } => {
            for name in names {
                writeln!(out, "{}", etwsim::Guid::from_provider_name(&name))?;
            }
            Ok(())
        }
    }
}

/// Shows an argument in a message: quoted, lossy for non-Unicode bytes.
fn quoted(arg: &OsStr) -> String {
    format!("'{}'", arg.to_string_lossy())
}

/// Parses the arguments after the program name.
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, Failure> {
    let mut args = args.into_iter();
    let Some(first) = args.next() else {
        return Err(Failure::Usage(
            "no command given: try 'etwsim demo', or 'etwsim dump FILE.etl'".into(),
        ));
    };
    match first.to_str() {
        Some("demo") => parse_demo(args),
        Some("dump") => parse_dump(args),
        Some("guid") => parse_guid(args),
        Some("boot") => parse_boot(args),
        Some("help" | "--help" | "-h") => match args.next() {
            None => Ok(Command::Help),
            Some(topic) if matches!(topic.to_str(), Some("demo" | "dump" | "guid" | "boot")) => {
                Ok(Command::Help)
            }
            Some(topic) => Err(Failure::Usage(format!(
                "unknown command {}",
                quoted(&topic)
            ))),
        },
        Some("--version" | "-V") => Ok(Command::Version),
        _ if first.to_string_lossy().starts_with('-') => {
            Err(Failure::Usage(format!("unknown option {}", quoted(&first))))
        }
        _ => Err(Failure::Usage(format!(
            "unknown command {}: the commands are 'demo', 'dump', 'boot' and 'guid'",
            quoted(&first)
        ))),
    }
}

/// Splits `--name=value` into its two halves.
fn split_value(arg: &OsStr) -> Option<(&str, OsString)> {
    let s = arg.to_str()?;
    let (name, value) = s.split_once('=')?;
    name.starts_with("--")
        .then(|| (name, OsString::from(value)))
}

/// The value of option `name`: after `=`, or the next argument.
fn option_value(
    name: &str,
    inline: Option<OsString>,
    args: &mut dyn Iterator<Item = OsString>,
) -> Result<OsString, Failure> {
    match inline.or_else(|| args.next()) {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(Failure::Usage(format!("{name} needs a value"))),
    }
}

fn parse_demo(args: impl Iterator<Item = OsString>) -> Result<Command, Failure> {
    let mut args: Box<dyn Iterator<Item = OsString>> = Box::new(args);
    let mut out = None;
    while let Some(arg) = args.next() {
        let (name, inline) = match split_value(&arg) {
            Some((name, value)) => (name.to_string(), Some(value)),
            None => (arg.to_string_lossy().into_owned(), None),
        };
        match name.as_str() {
            "-h" | "--help" if inline.is_none() => return Ok(Command::Help),
            "--out" | "-o" => {
                out = Some(PathBuf::from(option_value("--out", inline, &mut args)?));
            }
            _ if name.starts_with('-') => {
                return Err(Failure::Usage(format!(
                    "unknown option {} for 'demo', which takes --out DIR",
                    quoted(&arg)
                )));
            }
            _ => {
                return Err(Failure::Usage(format!(
                    "unexpected argument {} for 'demo', which takes --out DIR (to read a file: 'etwsim dump FILE.etl')",
                    quoted(&arg)
                )));
            }
        }
    }
    Ok(Command::Demo { out })
}

/// `guid NAME...`: every argument is a name, taken as it is (a name may start with `-`).
fn parse_guid(args: impl Iterator<Item = OsString>) -> Result<Command, Failure> {
    let names = args
        .map(|arg| {
            arg.to_str().map(str::to_owned).ok_or_else(|| {
                Failure::Usage(format!("provider name {} is not Unicode", quoted(&arg)))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if names.is_empty() {
        return Err(Failure::Usage(
            "'guid' needs at least one provider NAME".into(),
        ));
    }
    Ok(Command::Guid { names })
}

fn parse_boot(args: impl Iterator<Item = OsString>) -> Result<Command, Failure> {
    let mut args: Box<dyn Iterator<Item = OsString>> = Box::new(args);
    let (mut file, mut boots, mut out, mut format) = (None, 1u32, None, Format::Text);
    while let Some(arg) = args.next() {
        let (name, inline) = match split_value(&arg) {
            Some((name, value)) => (name.to_string(), Some(value)),
            None => (arg.to_string_lossy().into_owned(), None),
        };
        match name.as_str() {
            "-h" | "--help" if inline.is_none() => return Ok(Command::Help),
            "--out" | "-o" => out = Some(PathBuf::from(option_value("--out", inline, &mut args)?)),
            "--boots" | "-n" => {
                let v = option_value("--boots", inline, &mut args)?;
                boots = match v.to_str().and_then(|s| s.parse::<u32>().ok()) {
                    Some(n) if (1..=1000).contains(&n) => n,
                    _ => {
                        return Err(Failure::Usage(format!(
                            "--boots takes a number from 1 to 1000, not {}",
                            quoted(&v)
                        )));
                    }
                };
            }
            "--format" | "-f" => {
                let v = option_value("--format", inline, &mut args)?;
                format = match v.to_str() {
                    Some("text") => Format::Text,
                    Some("json") => Format::Json,
                    _ => {
                        return Err(Failure::Usage(format!(
                            "unknown format {}: --format takes text or json",
                            quoted(&v)
                        )));
                    }
                };
            }
            _ if name.starts_with('-') => {
                return Err(Failure::Usage(format!(
                    "unknown option {} for 'boot', which takes --boots N, --out DIR and --format text|json",
                    quoted(&arg)
                )));
            }
            _ if file.is_some() => {
                return Err(Failure::Usage(format!(
                    "unexpected argument {}: 'boot' reads one .reg file",
                    quoted(&arg)
                )));
            }
            _ => file = Some(PathBuf::from(arg)),
        }
    }
    match file {
        Some(file) => Ok(Command::Boot {
            file,
            boots,
            out,
            format,
        }),
        None => Err(Failure::Usage("'boot' needs a FILE.reg to read".into())),
    }
}

fn parse_dump(args: impl Iterator<Item = OsString>) -> Result<Command, Failure> {
    let mut args: Box<dyn Iterator<Item = OsString>> = Box::new(args);
    let mut file: Option<PathBuf> = None;
    let mut format = Format::Text;
    let mut options_done = false;
    while let Some(arg) = args.next() {
        let is_option = !options_done && arg.to_string_lossy().starts_with('-') && arg != "-";
        if is_option {
            let (name, inline) = match split_value(&arg) {
                Some((name, value)) => (name.to_string(), Some(value)),
                None => (arg.to_string_lossy().into_owned(), None),
            };
            match name.as_str() {
                "--" if inline.is_none() => options_done = true,
                "-h" | "--help" if inline.is_none() => return Ok(Command::Help),
                "--format" | "-f" => {
                    let value = option_value("--format", inline, &mut args)?;
                    format = match value.to_str() {
                        Some("text") => Format::Text,
                        Some("csv") => Format::Csv,
                        Some("json") => Format::Json,
                        _ => {
                            return Err(Failure::Usage(format!(
                                "unknown format {}: --format takes text, csv or json",
                                quoted(&value)
                            )));
                        }
                    };
                }
                _ => {
                    return Err(Failure::Usage(format!(
                        "unknown option {} for 'dump', which takes --format text|csv|json",
                        quoted(&arg)
                    )));
                }
            }
        } else if file.is_some() {
            return Err(Failure::Usage(format!(
                "unexpected argument {}: 'dump' reads one file",
                quoted(&arg)
            )));
        } else {
            file = Some(PathBuf::from(arg));
        }
    }
    match file {
        Some(file) => Ok(Command::Dump { file, format }),
        None => Err(Failure::Usage("'dump' needs a FILE.etl to read".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Command, Failure> {
        parse(list.iter().map(OsString::from))
    }

    #[test]
    fn options_take_a_separate_or_inline_value() {
        let want = Command::Dump {
            file: "a.etl".into(),
            format: Format::Csv,
        };
        assert_eq!(args(&["dump", "a.etl", "--format", "csv"]).unwrap(), want);
        assert_eq!(args(&["dump", "--format=csv", "a.etl"]).unwrap(), want);
        assert_eq!(
            args(&["demo", "--out=x"]).unwrap(),
            Command::Demo {
                out: Some("x".into())
            }
        );
        assert_eq!(
            args(&["dump", "--", "-odd.etl"]).unwrap(),
            Command::Dump {
                file: "-odd.etl".into(),
                format: Format::Text
            }
        );
    }

    #[test]
    fn mistakes_are_usage_failures() {
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
            &["help", "nothing"],
            &["boot"],
            &["boot", "a.reg", "--boots", "0"],
            &["boot", "a.reg", "--format", "csv"],
            &["boot", "a.reg", "b.reg"],
        ] {
            assert!(
                matches!(args(bad), Err(Failure::Usage(_))),
                "{bad:?} should be a usage failure"
            );
        }
    }
}
