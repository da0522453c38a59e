//! Typed views of the AutoLogger and Global Logger keys, as the boot code reads them
//! (ALG-01 … ALG-09, REG-14 … REG-25).
//!
//! [`autologger_sessions`] and [`global_logger`] are pure functions of a [`Registry`]: for each
//! documented value they give a [`Setting`] — the value as written (any type, `None` when
//! absent) and the value *in force* once the documented default, the type rules of REG-15 and
//! ETW's overrides (ALG-02: "values ETW cannot support are overridden") are applied — plus a
//! list of [`Diagnostic`]s saying, with the rule, what was converted, overridden or ignored.
//! The kernel's StartTrace rules (SES-57 … SES-64: buffer sizes, processor counts, flush
//! timers) are not applied here; `0` for BufferSize, MinimumBuffers and MaximumBuffers means
//! "ETW computes it", as in `EVENT_TRACE_PROPERTIES`.
//!
//! | value | type | default | override / note | rule |
//! |---|---|---|---|---|
//! | `Start` | DWORD | 0 | the session starts when 1 (and, for an AutoLogger, `Guid` is valid) | ALG-02, ALG-08 |
//! | `Guid` | SZ | required | with or without braces | ALG-03, REG-16 |
//! | `BufferSize` | DWORD | 0 (computed) | | ALG-03 |
//! | `ClockType` | DWORD | 1 | 0 reads as 1; other values → 1 | ALG-03, SES-64 |
//! | `DisableRealtimePersistence` | DWORD | 0 | | ALG-03 |
//! | `FileCounter` | DWORD | 0 (none yet) | AutoLogger: 0 or above FileMax → 1; Global Logger: above FileMax → 0 | ALG-03, ALG-09 |
//! | `FileName` | SZ / EXPAND_SZ | `%SystemRoot%\System32\LogFiles\WMI\<name>.etl` | no file in BUFFERING mode or real-time-only mode; longer than 1,024 → invalid | ALG-03, REG-19 |
//! | `FileMax` | DWORD | 0 | AutoLogger: at most 16 | ALG-03, ALG-04 |
//! | `FlushTimer` | DWORD | 0 | | ALG-03 |
//! | `LogFileMode` | DWORD | SEQUENTIAL | AutoLogger: NEWFILE removed; Global Logger: REAL_TIME and BUFFERING removed | ALG-03, REG-21 |
//! | `MaxFileSize` | DWORD | 100 (AutoLogger) / 0 (Global Logger) | | REG-19 |
//! | `MaximumBuffers`, `MinimumBuffers` | DWORD | 0 (computed) | | ALG-03 |
//! | `Status` | DWORD | — | written by ETW | REG-18 |
//! | `Boot` | DWORD | 0 | | ALG-03, REG-23 |
//! | `EnableKernelFlags` (Global Logger) | BINARY | none | 4–32 bytes, little-endian words; all zero → ignored | ALG-09, REG-21 |
//!
//! Provider subkeys `{GUID}` of an AutoLogger (ALG-05): `Enabled` (0; only 1 enables),
//! `EnableFlags` (0), `EnableLevel` (0; above 255 → the low byte), `EnableProperty` (0),
//! `MatchAnyKeyword` (QWORD; absent → EnableFlags, REG-17), `MatchAllKeyword` (QWORD; 0 in
//! force when MatchAnyKeyword is 0). Global Logger provider subkeys carry `Flags` and `Level`
//! for the provider itself (REG-22).
//!
//! Type rules (REG-15, a simulator choice): a QWORD where a DWORD is expected is truncated,
//! a DWORD where a QWORD is expected is zero-extended, REG_EXPAND_SZ is accepted for REG_SZ,
//! any other type is treated as absent; unknown names are ignored — each with a diagnostic.
//! The PowerShell / CIM names (`MaximumFileSize`, `LocalFilePath`, `InitStatus`, `Level`,
//! `Property`) are not registry names and are ignored with a diagnostic naming the real one
//! (REG-14); filter-like provider values (`Filter…`) and a provider's `Filters` subkey are
//! ignored, each with a diagnostic (REG-25).

use std::fmt;

use etwsim_types::{ClockType, EnableProperty, Guid, Keyword, Level, LogFileMode};

use crate::key::{Key, Registry, fold};
use crate::value::{Value, ValueType};

/// `HKLM\SYSTEM\CurrentControlSet\Control\WMI\Autologger`: one subkey per AutoLogger session
/// (ALG-01).
pub const AUTOLOGGER_PATH: &str =
    r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Autologger";
/// `HKLM\SYSTEM\CurrentControlSet\Control\WMI\GlobalLogger` (ALG-08).
pub const GLOBAL_LOGGER_PATH: &str =
    r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\GlobalLogger";

/// `GLOBAL_LOGGER_NAME`.
pub const GLOBAL_LOGGER_NAME: &str = "GlobalLogger";
/// `KERNEL_LOGGER_NAME`: what the Global Logger calls itself with EnableKernelFlags (ALG-09).
pub const KERNEL_LOGGER_NAME: &str = "NT Kernel Logger";
/// The most file generations an AutoLogger keeps (ALG-03).
pub const MAX_FILE_MAX: u32 = 16;
/// The longest FileName (ALG-03, ALG-09).
pub const MAX_FILE_NAME: usize = 1024;
/// The AutoLogger's default MaxFileSize, in MB (REG-19).
pub const AUTOLOGGER_DEFAULT_MAX_FILE_SIZE: u32 = 100;

/// One documented value: as written, and in force.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Setting<T> {
    /// The registry value as found (any type); `None` when absent.
    pub written: Option<Value>,
    /// What the session runs with: the written value after the type rules and overrides, or
    /// the documented default.
    pub in_force: T,
}

/// What a [`Diagnostic`] reports.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A value name ETW does not read: ignored (REG-15).
    UnknownValue,
    /// A PowerShell / CIM property name, not a registry value name: ignored (REG-14).
    NotARegistryName {
        /// The registry value that means this.
        registry_name: &'static str,
    },
    /// A type ETW cannot use here: treated as absent (REG-15).
    WrongType {
        /// The type found.
        found: ValueType,
        /// The type expected.
        expected: ValueType,
    },
    /// A type converted to the expected one: QWORD truncated or DWORD zero-extended (REG-15).
    Converted {
        /// The type found.
        found: ValueType,
        /// The type expected.
        expected: ValueType,
    },
    /// The right type with unusable data (a 2-byte DWORD, text that is no GUID): treated as
    /// absent.
    BadData {
        /// What the data should have been.
        expected: &'static str,
    },
    /// A value ETW cannot support, replaced by the value in force (ALG-02).
    Overridden {
        /// Why.
        why: &'static str,
    },
    /// A value kept as written that the start will refuse.
    Invalid {
        /// Why.
        why: &'static str,
    },
    /// A value read but without effect.
    Ignored {
        /// Why.
        why: &'static str,
    },
    /// A required value is missing: the session will not start (ALG-02).
    MissingRequired,
    /// A subkey whose name is not a braced GUID: not a provider key (REG-16).
    NotAProviderKey,
}

/// A note on one value or subkey of an AutoLogger or Global Logger key.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// The full path of the key.
    pub key: String,
    /// The value concerned (`None` for the key itself).
    pub value: Option<String>,
    /// The rule that says what happens.
    pub rule: &'static str,
    /// What happened.
    pub kind: DiagnosticKind,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.key)?;
        if let Some(v) = &self.value {
            write!(f, " {v}")?;
        }
        f.write_str(": ")?;
        match &self.kind {
            DiagnosticKind::UnknownValue => f.write_str("not a value ETW reads; ignored"),
            DiagnosticKind::NotARegistryName { registry_name } => write!(
                f,
                "a PowerShell/CIM property name, not a registry value; the registry value is {registry_name}; ignored"
            ),
            DiagnosticKind::WrongType { found, expected } => {
                write!(f, "is {found}, expected {expected}; treated as absent")
            }
            DiagnosticKind::Converted { found, expected } => {
                write!(f, "is {found}, expected {expected}; converted")
            }
            DiagnosticKind::BadData { expected } => {
                write!(f, "expected {expected}; treated as absent")
            }
            DiagnosticKind::Overridden { why } => write!(f, "overridden: {why}"),
            DiagnosticKind::Invalid { why } => write!(f, "invalid: {why}"),
            DiagnosticKind::Ignored { why } => write!(f, "ignored: {why}"),
            DiagnosticKind::MissingRequired => f.write_str("required; the session will not start"),
            DiagnosticKind::NotAProviderKey => {
                f.write_str("not a braced provider GUID; not a provider key")
            }
        }?;
        write!(f, " ({})", self.rule)
    }
}

/// The values the AutoLogger and the Global Logger share (ALG-03, ALG-09).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SessionSettings {
    /// `Start`: 1 starts the session at boot.
    pub start: Setting<u32>,
    /// `BufferSize` in KB; 0 = computed by ETW.
    pub buffer_size: Setting<u32>,
    /// `ClockType`.
    pub clock_type: Setting<ClockType>,
    /// `FileCounter` (maintained by ETW); 0 = no file written yet.
    pub file_counter: Setting<u32>,
    /// `FileMax`: file generations kept; 0 = no rotation.
    pub file_max: Setting<u32>,
    /// `FileName`, unexpanded (see [`expand_environment`]); `None` when the session writes no
    /// file.
    pub file_name: Setting<Option<String>>,
    /// `FlushTimer` in seconds; 0 = flush only full buffers (real-time sessions: 1 s, SES-63).
    pub flush_timer: Setting<u32>,
    /// `LogFileMode`.
    pub log_file_mode: Setting<LogFileMode>,
    /// `MaximumBuffers`; 0 = computed by ETW.
    pub maximum_buffers: Setting<u32>,
    /// `MaxFileSize` in MB (KB with USE_KBYTES_FOR_SIZE); 0 = no limit.
    pub max_file_size: Setting<u32>,
    /// `MinimumBuffers`; 0 = computed by ETW.
    pub minimum_buffers: Setting<u32>,
    /// `Status`: the Win32 error of the last start, written by ETW (REG-18).
    pub status: Setting<Option<u32>>,
}

/// An AutoLogger session key `…\WMI\Autologger\<name>` (ALG-01 … ALG-05).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AutoLoggerSession {
    /// The session name: the subkey's name.
    pub name: String,
    /// The key's full path.
    pub path: String,
    /// The values shared with the Global Logger.
    pub settings: SessionSettings,
    /// `Guid`: the session GUID (required).
    pub guid: Setting<Option<Guid>>,
    /// `Boot`: 1 starts the session earlier (REG-23 orders these first).
    pub boot: Setting<u32>,
    /// `DisableRealtimePersistence`.
    pub disable_realtime_persistence: Setting<u32>,
    /// The provider subkeys, in name order.
    pub providers: Vec<AutoLoggerProvider>,
    /// Everything converted, overridden or ignored, in the session key and its subkeys.
    pub diagnostics: Vec<Diagnostic>,
}

impl AutoLoggerSession {
    /// `true` when the session starts at boot: Start = 1 and a valid Guid (ALG-02, REG-23).
    pub fn will_start(&self) -> bool {
        self.settings.start.in_force == 1 && self.guid.in_force.is_some()
    }
}

/// A provider subkey `{GUID}` of an AutoLogger session (ALG-05).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AutoLoggerProvider {
    /// The provider GUID, from the subkey's name.
    pub guid: Guid,
    /// `Enabled`: only 1 enables.
    pub enabled: Setting<bool>,
    /// `EnableFlags`: legacy flags.
    pub enable_flags: Setting<u32>,
    /// `EnableLevel`.
    pub enable_level: Setting<Level>,
    /// `EnableProperty`.
    pub enable_property: Setting<EnableProperty>,
    /// `MatchAnyKeyword`; in force, EnableFlags when absent (REG-17).
    pub match_any_keyword: Setting<Keyword>,
    /// `MatchAllKeyword`; 0 in force when MatchAnyKeyword is 0 (ALG-05).
    pub match_all_keyword: Setting<Keyword>,
}

/// The Global Logger's `EnableKernelFlags`: the kernel EnableFlags and, past the first word,
/// group-mask words (REG-21).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct KernelFlags {
    words: Vec<u32>,
}

impl KernelFlags {
    /// The first word: the EnableFlags DWORD.
    pub fn enable_flags(&self) -> u32 {
        self.words.first().copied().unwrap_or(0)
    }

    /// Every word (1 to 8), the first being the EnableFlags.
    pub fn words(&self) -> &[u32] {
        &self.words
    }
}

/// The Global Logger key (ALG-08, ALG-09, REG-21, REG-22).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GlobalLoggerSession {
    /// The key's full path.
    pub path: String,
    /// Its values.
    pub settings: SessionSettings,
    /// `EnableKernelFlags`; `None` in force when absent, unusable or all zero.
    pub enable_kernel_flags: Setting<Option<KernelFlags>>,
    /// The provider subkeys `{GUID}`, in name order (REG-22).
    pub providers: Vec<GlobalLoggerProvider>,
    /// Everything converted, overridden or ignored.
    pub diagnostics: Vec<Diagnostic>,
}

impl GlobalLoggerSession {
    /// `true` when Start = 1.
    pub fn will_start(&self) -> bool {
        self.settings.start.in_force == 1
    }

    /// The name the running session has: `NT Kernel Logger` with kernel flags, else
    /// `GlobalLogger` (ALG-09, REG-21).
    pub fn session_name(&self) -> &'static str {
        if self.enable_kernel_flags.in_force.is_some() {
            KERNEL_LOGGER_NAME
        } else {
            GLOBAL_LOGGER_NAME
        }
    }
}

/// A provider subkey of the Global Logger: values its provider reads itself (REG-22).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GlobalLoggerProvider {
    /// The provider GUID, from the subkey's name.
    pub guid: Guid,
    /// `Flags` (provider-defined).
    pub flags: Setting<Option<u32>>,
    /// `Level` (provider-defined).
    pub level: Setting<Option<u32>>,
}

/// Replaces each `%NAME%` for which `lookup` has a value (REG-19: applied to FileName whether
/// REG_SZ or REG_EXPAND_SZ); unknown names and a lone `%` stay as they are, as
/// `ExpandEnvironmentStrings` leaves them.
pub fn expand_environment(text: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('%') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('%') {
            Some(end) => match lookup(&after[..end]) {
                Some(v) => {
                    out.push_str(&v);
                    rest = &after[end + 1..];
                }
                None => {
                    out.push('%');
                    out.push_str(&after[..end]);
                    rest = &after[end..];
                }
            },
            None => {
                out.push('%');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

const AUTOLOGGER_VALUES: [&str; 15] = [
    "Start",
    "Guid",
    "BufferSize",
    "ClockType",
    "DisableRealtimePersistence",
    "FileCounter",
    "FileName",
    "FileMax",
    "FlushTimer",
    "LogFileMode",
    "MaxFileSize",
    "MaximumBuffers",
    "MinimumBuffers",
    "Status",
    "Boot",
];
const GLOBAL_LOGGER_VALUES: [&str; 13] = [
    "Start",
    "BufferSize",
    "ClockType",
    "EnableKernelFlags",
    "FileCounter",
    "FileMax",
    "FileName",
    "FlushTimer",
    "LogFileMode",
    "MaximumBuffers",
    "MaxFileSize",
    "MinimumBuffers",
    "Status",
];
const PROVIDER_VALUES: [&str; 6] = [
    "Enabled",
    "EnableFlags",
    "EnableLevel",
    "EnableProperty",
    "MatchAnyKeyword",
    "MatchAllKeyword",
];
/// CIM / PowerShell names and the registry names they stand for (REG-14).
const SESSION_CIM_NAMES: [(&str, &str); 3] = [
    ("MaximumFileSize", "MaxFileSize"),
    ("LocalFilePath", "FileName"),
    ("InitStatus", "Status"),
];
const PROVIDER_CIM_NAMES: [(&str, &str); 2] =
    [("Level", "EnableLevel"), ("Property", "EnableProperty")];

/// Reads the values of one key under the REG-15 type rules, noting what it did.
struct Reader<'a> {
    key: &'a Key,
    path: String,
    diagnostics: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    fn note(&mut self, value: &str, rule: &'static str, kind: DiagnosticKind) {
        self.diagnostics.push(Diagnostic {
            key: self.path.clone(),
            value: Some(value.to_owned()),
            rule,
            kind,
        });
    }

    /// Subkeys of a provider key are not applied, each with a diagnostic: a `Filters` subkey
    /// (found on real AutoLoggers) because AutoLoggers enable through EnableTraceEx and no
    /// documented registry form of filters exists (REG-25, ALG-06); any other because ETW
    /// reads no subkey of a provider key.
    fn subkeys_ignored(&mut self) {
        for sub in self.key.subkeys() {
            let why = if sub.name().eq_ignore_ascii_case("Filters") {
                "AutoLoggers enable their providers through EnableTraceEx (ALG-06) and no \
                 registry form of filters is documented: the Filters subkey and its values are \
                 not applied"
            } else {
                "ETW reads no subkey of a provider key: not applied"
            };
            self.diagnostics.push(Diagnostic {
                key: format!(r"{}\{}", self.path, sub.name()),
                value: None,
                rule: "REG-25",
                kind: DiagnosticKind::Ignored { why },
            });
        }
    }

    fn raw(&self, name: &str) -> Option<Value> {
        self.key.value(name).cloned()
    }

    /// A DWORD (a QWORD truncated).
    fn dword(&mut self, name: &str) -> (Option<Value>, Option<u32>) {
        let raw = self.raw(name);
        let n = match &raw {
            None => None,
            Some(v) if v.ty() == ValueType::DWORD => {
                self.sized(name, v.to_dword(), "4 bytes, as every REG_DWORD")
            }
            Some(v) if v.ty() == ValueType::QWORD => {
                let q = self.sized(
                    name,
                    v.to_qword(),
                    "8 bytes, as every REG_QWORD (one would be truncated to the REG_DWORD this value is)",
                );
                if q.is_some() {
                    self.converted(name, v.ty(), ValueType::DWORD);
                }
                // Truncation keeps the low 32 bits (REG-15).
                q.map(|q| (q & 0xFFFF_FFFF) as u32)
            }
            Some(v) => self.wrong(name, v.ty(), ValueType::DWORD),
        };
        (raw, n)
    }

    /// A QWORD (a DWORD zero-extended).
    fn qword(&mut self, name: &str) -> (Option<Value>, Option<u64>) {
        let raw = self.raw(name);
        let n = match &raw {
            None => None,
            Some(v) if v.ty() == ValueType::QWORD => {
                self.sized(name, v.to_qword(), "8 bytes, as every REG_QWORD")
            }
            Some(v) if v.ty() == ValueType::DWORD => {
                let d = self.sized(
                    name,
                    v.to_dword(),
                    "4 bytes, as every REG_DWORD (one would be zero-extended to the REG_QWORD this value is)",
                );
                if d.is_some() {
                    self.converted(name, v.ty(), ValueType::QWORD);
                }
                d.map(u64::from)
            }
            Some(v) => self.wrong(name, v.ty(), ValueType::QWORD),
        };
        (raw, n)
    }

    /// A REG_SZ or REG_EXPAND_SZ.
    fn string(&mut self, name: &str) -> (Option<Value>, Option<String>) {
        let raw = self.raw(name);
        let s = match &raw {
            None => None,
            Some(v) if v.ty() == ValueType::SZ || v.ty() == ValueType::EXPAND_SZ => self.sized(
                name,
                v.to_string_lossy(),
                "UTF-16 text (an even number of bytes)",
            ),
            Some(v) => self.wrong(name, v.ty(), ValueType::SZ),
        };
        (raw, s)
    }

    fn sized<T>(&mut self, name: &str, v: Option<T>, expected: &'static str) -> Option<T> {
        if v.is_none() {
            self.note(name, "REG-15", DiagnosticKind::BadData { expected });
        }
        v
    }

    fn converted(&mut self, name: &str, found: ValueType, expected: ValueType) {
        self.note(
            name,
            "REG-15",
            DiagnosticKind::Converted { found, expected },
        );
    }

    fn wrong<T>(&mut self, name: &str, found: ValueType, expected: ValueType) -> Option<T> {
        self.note(
            name,
            "REG-15",
            DiagnosticKind::WrongType { found, expected },
        );
        None
    }

    /// A DWORD with a default.
    fn dword_or(&mut self, name: &str, default: u32) -> Setting<u32> {
        let (written, n) = self.dword(name);
        Setting {
            written,
            in_force: n.unwrap_or(default),
        }
    }

    /// Notes every value that is not in `known`.
    fn unknown_values(&mut self, known: &[&str], cim: &[(&str, &'static str)], filters: bool) {
        let known: Vec<String> = known.iter().map(|k| fold(k)).collect();
        let names: Vec<String> = self.key.values().map(|(n, _)| n.to_owned()).collect();
        for name in names {
            let folded = fold(&name);
            if known.contains(&folded) {
                continue;
            }
            if let Some((_, registry_name)) = cim.iter().find(|(c, _)| fold(c) == folded) {
                let kind = DiagnosticKind::NotARegistryName { registry_name };
                self.note(&name, "REG-14", kind);
            } else if filters && folded.starts_with("FILTER") {
                let why = "AutoLoggers take no filters";
                self.note(&name, "REG-25", DiagnosticKind::Ignored { why });
            } else {
                self.note(&name, "REG-15", DiagnosticKind::UnknownValue);
            }
        }
    }
}

/// Which of the two kinds of boot session is being read.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    AutoLogger,
    GlobalLogger,
}

fn settings(r: &mut Reader<'_>, kind: Kind, default_file: String) -> SessionSettings {
    let start = r.dword_or("Start", 0);
    let buffer_size = r.dword_or("BufferSize", 0);

    let (written, n) = r.dword("ClockType");
    let clock = match n.map(|n| (n, ClockType::from_raw(n))) {
        None => ClockType::Qpc,
        Some((_, Some(c))) => c,
        Some((_, None)) => {
            let why = "ClockType is 1 (QPC), 2 (system time) or 3 (CPU cycles); 1 in force";
            r.note("ClockType", "ALG-03", DiagnosticKind::Overridden { why });
            ClockType::Qpc
        }
    };
    let clock_type = Setting {
        written,
        in_force: clock,
    };

    let (written, n) = r.dword("FileMax");
    let mut max = n.unwrap_or(0);
    if kind == Kind::AutoLogger && max > MAX_FILE_MAX {
        let why = "FileMax is at most 16";
        r.note("FileMax", "ALG-03", DiagnosticKind::Overridden { why });
        max = MAX_FILE_MAX;
    }
    let file_max = Setting {
        written,
        in_force: max,
    };

    let (written, n) = r.dword("FileCounter");
    let counter = match (n, kind) {
        (None, _) => 0,
        (Some(c), Kind::AutoLogger) if max > 0 && (c == 0 || c > max) => {
            let why = "FileCounter outside 1..=FileMax is treated as 1";
            r.note("FileCounter", "ALG-03", DiagnosticKind::Overridden { why });
            1
        }
        (Some(c), Kind::GlobalLogger) if max > 0 && c > max => {
            let why = "FileCounter above FileMax is reset to 0";
            r.note("FileCounter", "ALG-09", DiagnosticKind::Overridden { why });
            0
        }
        (Some(c), _) => c,
    };
    let file_counter = Setting {
        written,
        in_force: counter,
    };

    let (written, n) = r.dword("LogFileMode");
    let mut mode = n.map_or(LogFileMode::SEQUENTIAL, LogFileMode::from_bits_retain);
    match kind {
        Kind::AutoLogger if mode.contains(LogFileMode::NEWFILE) => {
            let why = "an AutoLogger does not support NEWFILE; removed";
            r.note("LogFileMode", "ALG-03", DiagnosticKind::Overridden { why });
            mode.remove(LogFileMode::NEWFILE);
        }
        Kind::GlobalLogger if mode.intersects(LogFileMode::REAL_TIME | LogFileMode::BUFFERING) => {
            let why = "the Global Logger always logs to a file; REAL_TIME and BUFFERING removed";
            r.note("LogFileMode", "REG-21", DiagnosticKind::Overridden { why });
            mode.remove(LogFileMode::REAL_TIME | LogFileMode::BUFFERING);
        }
        _ => {}
    }
    if kind == Kind::AutoLogger
        && mode.contains(LogFileMode::APPEND)
        && r.key.value("BufferSize").is_none()
    {
        let why = "APPEND needs BufferSize, matching the file";
        r.note("LogFileMode", "ALG-03", DiagnosticKind::Invalid { why });
    }
    let log_file_mode = Setting {
        written,
        in_force: mode,
    };

    let (written, text) = r.string("FileName");
    let no_file = mode.contains(LogFileMode::BUFFERING)
        || (mode.contains(LogFileMode::REAL_TIME)
            && !mode.intersects(LogFileMode::FILE_LAYOUT)
            && text.is_none());
    let name = if no_file {
        if text.is_some() {
            let why = "a BUFFERING session writes no file";
            r.note("FileName", "ALG-03", DiagnosticKind::Ignored { why });
        }
        None
    } else {
        let name = text.unwrap_or(default_file);
        if name.chars().count() > MAX_FILE_NAME {
            let why = "FileName is at most 1,024 characters";
            r.note("FileName", "ALG-03", DiagnosticKind::Invalid { why });
        }
        Some(name)
    };
    let file_name = Setting {
        written,
        in_force: name,
    };

    let flush_timer = r.dword_or("FlushTimer", 0);
    let maximum_buffers = r.dword_or("MaximumBuffers", 0);
    let default_size = match kind {
        Kind::AutoLogger => AUTOLOGGER_DEFAULT_MAX_FILE_SIZE,
        Kind::GlobalLogger => 0,
    };
    let max_file_size = r.dword_or("MaxFileSize", default_size);
    let minimum_buffers = r.dword_or("MinimumBuffers", 0);
    let (written, n) = r.dword("Status");
    let status = Setting {
        written,
        in_force: n,
    };
    SessionSettings {
        start,
        buffer_size,
        clock_type,
        file_counter,
        file_max,
        file_name,
        flush_timer,
        log_file_mode,
        maximum_buffers,
        max_file_size,
        minimum_buffers,
        status,
    }
}

/// The GUID of a provider subkey name `{…}` (REG-16: braces required).
fn braced_guid(name: &str) -> Option<Guid> {
    if !(name.starts_with('{') && name.ends_with('}')) {
        return None;
    }
    name.parse().ok()
}

fn autologger_provider(
    key: &Key,
    path: String,
    guid: Guid,
    diagnostics: &mut Vec<Diagnostic>,
) -> AutoLoggerProvider {
    let mut r = Reader {
        key,
        path,
        diagnostics,
    };
    let (written, n) = r.dword("Enabled");
    let enabled = match n {
        None | Some(0) => false,
        Some(1) => true,
        Some(_) => {
            let why = "Enabled is 1 (enable) or 0; other values do not enable";
            r.note("Enabled", "ALG-05", DiagnosticKind::Overridden { why });
            false
        }
    };
    let enabled = Setting {
        written,
        in_force: enabled,
    };
    let enable_flags = r.dword_or("EnableFlags", 0);
    let (written, n) = r.dword("EnableLevel");
    let level = n.unwrap_or(0);
    let low = (level & 0xFF) as u8;
    if level > 0xFF {
        let why = "a level is one byte; the low byte is in force";
        r.note("EnableLevel", "ALG-05", DiagnosticKind::Overridden { why });
    }
    let enable_level = Setting {
        written,
        in_force: Level(low),
    };
    let (written, n) = r.dword("EnableProperty");
    let enable_property = Setting {
        written,
        in_force: EnableProperty::from_bits_retain(n.unwrap_or(0)),
    };
    let (written, any) = r.qword("MatchAnyKeyword");
    // REG-17: MatchAnyKeyword when present, else EnableFlags zero-extended.
    let any = any.unwrap_or(u64::from(enable_flags.in_force));
    let match_any_keyword = Setting {
        written,
        in_force: Keyword(any),
    };
    let (written, all) = r.qword("MatchAllKeyword");
    let mut all = all.unwrap_or(0);
    if any == 0 && all != 0 {
        let why = "MatchAllKeyword is ignored when MatchAnyKeyword is 0";
        r.note("MatchAllKeyword", "ALG-05", DiagnosticKind::Ignored { why });
        all = 0;
    }
    let match_all_keyword = Setting {
        written,
        in_force: Keyword(all),
    };
    r.unknown_values(&PROVIDER_VALUES, &PROVIDER_CIM_NAMES, true);
    r.subkeys_ignored();
    AutoLoggerProvider {
        guid,
        enabled,
        enable_flags,
        enable_level,
        enable_property,
        match_any_keyword,
        match_all_keyword,
    }
}

/// The session key `key` at `path`, named `name`.
fn autologger_session(key: &Key, path: String) -> AutoLoggerSession {
    let name = key.name().to_owned();
    let mut diagnostics = Vec::new();
    let mut r = Reader {
        key,
        path: path.clone(),
        diagnostics: &mut diagnostics,
    };
    let default_file = format!(r"%SystemRoot%\System32\LogFiles\WMI\{name}.etl");
    let settings = settings(&mut r, Kind::AutoLogger, default_file);
    let (written, text) = r.string("Guid");
    let guid = match &text {
        Some(t) => t.trim().parse::<Guid>().ok(),
        None => None,
    };
    if text.is_some() && guid.is_none() {
        let expected = "a GUID {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}, braces optional";
        r.note("Guid", "REG-16", DiagnosticKind::BadData { expected });
    }
    if guid.is_none() && settings.start.in_force == 1 {
        r.note("Guid", "ALG-02", DiagnosticKind::MissingRequired);
    }
    let guid = Setting {
        written,
        in_force: guid,
    };
    let boot = r.dword_or("Boot", 0);
    let disable_realtime_persistence = r.dword_or("DisableRealtimePersistence", 0);
    r.unknown_values(&AUTOLOGGER_VALUES, &SESSION_CIM_NAMES, false);
    let mut providers = Vec::new();
    for sub in key.subkeys() {
        let sub_path = format!(r"{path}\{}", sub.name());
        match braced_guid(sub.name()) {
            Some(g) => providers.push(autologger_provider(sub, sub_path, g, &mut diagnostics)),
            None => diagnostics.push(Diagnostic {
                key: sub_path,
                value: None,
                rule: "REG-16",
                kind: DiagnosticKind::NotAProviderKey,
            }),
        }
    }
    AutoLoggerSession {
        name,
        path,
        settings,
        guid,
        boot,
        disable_realtime_persistence,
        providers,
        diagnostics,
    }
}

/// Every AutoLogger session key, in the order they start at boot: `Boot` = 1 first, then by
/// name without case (REG-23). Sessions that will not start are included
/// ([`AutoLoggerSession::will_start`]).
pub fn autologger_sessions(reg: &Registry) -> Vec<AutoLoggerSession> {
    let Some(root) = reg.key(AUTOLOGGER_PATH) else {
        return Vec::new();
    };
    // Subkeys come in upper-cased name order already; the sort is stable.
    let mut sessions: Vec<AutoLoggerSession> = root
        .subkeys()
        .map(|k| autologger_session(k, format!(r"{AUTOLOGGER_PATH}\{}", k.name())))
        .collect();
    sessions.sort_by_key(|s| s.boot.in_force != 1);
    sessions
}

/// The AutoLogger session key of this name (any case), if there is one.
pub fn autologger_session_named(reg: &Registry, name: &str) -> Option<AutoLoggerSession> {
    let key = reg.key(AUTOLOGGER_PATH)?.subkey(name)?;
    Some(autologger_session(
        key,
        format!(r"{AUTOLOGGER_PATH}\{}", key.name()),
    ))
}

/// The Global Logger key, if there is one (ALG-08).
pub fn global_logger(reg: &Registry) -> Option<GlobalLoggerSession> {
    let key = reg.key(GLOBAL_LOGGER_PATH)?;
    let path = GLOBAL_LOGGER_PATH.to_owned();
    let mut diagnostics = Vec::new();
    let mut r = Reader {
        key,
        path: path.clone(),
        diagnostics: &mut diagnostics,
    };
    let default_file = r"%SystemRoot%\System32\LogFiles\WMI\GlobalLogger.etl".to_owned();
    let settings = settings(&mut r, Kind::GlobalLogger, default_file);
    let written = r.raw("EnableKernelFlags");
    let flags = match &written {
        None => None,
        Some(v) if v.ty() != ValueType::BINARY => {
            r.wrong::<()>("EnableKernelFlags", v.ty(), ValueType::BINARY);
            None
        }
        Some(v) => {
            let d = v.data();
            if d.len() < 4 || d.len() > 32 || d.len() % 4 != 0 {
                let expected = "4 to 32 bytes, a multiple of 4";
                r.note(
                    "EnableKernelFlags",
                    "REG-21",
                    DiagnosticKind::BadData { expected },
                );
                None
            } else {
                let words: Vec<u32> = d
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                if words.iter().all(|w| *w == 0) {
                    let why = "all zero: no kernel flags";
                    r.note(
                        "EnableKernelFlags",
                        "REG-21",
                        DiagnosticKind::Ignored { why },
                    );
                    None
                } else {
                    Some(KernelFlags { words })
                }
            }
        }
    };
    let enable_kernel_flags = Setting {
        written,
        in_force: flags,
    };
    r.unknown_values(&GLOBAL_LOGGER_VALUES, &SESSION_CIM_NAMES, false);
    let mut providers = Vec::new();
    for sub in key.subkeys() {
        let sub_path = format!(r"{path}\{}", sub.name());
        let Some(guid) = braced_guid(sub.name()) else {
            diagnostics.push(Diagnostic {
                key: sub_path,
                value: None,
                rule: "REG-16",
                kind: DiagnosticKind::NotAProviderKey,
            });
            continue;
        };
        let mut r = Reader {
            key: sub,
            path: sub_path,
            diagnostics: &mut diagnostics,
        };
        let (written, n) = r.dword("Flags");
        let flags = Setting {
            written,
            in_force: n,
        };
        let (written, n) = r.dword("Level");
        let level = Setting {
            written,
            in_force: n,
        };
        providers.push(GlobalLoggerProvider { guid, flags, level });
    }
    Some(GlobalLoggerSession {
        path,
        settings,
        enable_kernel_flags,
        providers,
        diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_replaces_known_names_only() {
        let env = |n: &str| (n.eq_ignore_ascii_case("SystemRoot")).then(|| r"C:\Windows".into());
        assert_eq!(
            expand_environment(r"%SystemRoot%\x\%NOPE%\%systemroot%%", env),
            r"C:\Windows\x\%NOPE%\C:\Windows%"
        );
        assert_eq!(expand_environment("50% off", env), "50% off");
    }
}
