//! Booting a simulated machine from its registry: the AutoLoggers and the Global Logger
//! (ALG-01 … ALG-10, REG-18 … REG-24).
//!
//! A [`Machine`] is a [`Registry`], a disk and, while it runs, a [`Kernel`].
//! [`Machine::boot`] builds the kernel and starts every AutoLogger with `Start` = 1 and the
//! Global Logger, as the registry's typed views ([`etwsim_registry::autologger_sessions`],
//! [`etwsim_registry::global_logger`]) read them; [`Machine::reboot`] shuts the machine down
//! (every session stopped, so its file is complete), keeps the registry and the disk, loses
//! memory, and boots again. What ETW did is a [`BootReport`] (text with `Display`, JSON Lines
//! with [`BootReport::write_json_lines`]).
//!
//! # What boot does with each value
//!
//! The registry crate applies the defaults and the overrides it can decide alone (NEWFILE
//! removed, FileMax at most 16, ClockType outside 1–3 → 1, …; each reported as a
//! [`Diagnostic`](etwsim_registry::Diagnostic) with its rule). Boot adds:
//!
//! | value | what boot does | rule |
//! |---|---|---|
//! | `Start`, `Guid` | the session starts when Start = 1 and Guid is valid; a missing Guid → Status `ERROR_INVALID_PARAMETER` (simulator choice) | ALG-02, REG-18, REG-23 |
//! | `FileName` | `%SystemRoot%` (and `%windir%`, `%SystemDrive%`) expanded whether REG_SZ or REG_EXPAND_SZ, then mapped to the host (below) | ALG-03, REG-19 |
//! | `FileMax` > 0 | the file name gets `.NNNN` (4 digits), `.0001` at the first boot; after FileMax the counter starts again at 1 and overwrites; `FileCounter` is written back | ALG-04, REG-18 |
//! | `FileCounter` | the serial of the last file; a value outside 1..=FileMax is treated as "none yet" (the next file is `.0001`) | ALG-03 |
//! | `BufferSize` | above 1,024 KB → 1,024 KB (the page says "keep it under 1 MB"; StartTrace would refuse) | ALG-02, ALG-03 |
//! | `MaximumBuffers` < `MinimumBuffers` | raised to MinimumBuffers (StartTrace's own rule, SES-60) | ALG-03 |
//! | `FlushTimer` 0 on a real-time session | 1 s in force (the kernel's SES-63) | ALG-03 |
//! | `Status` | written after each start attempt: the Win32 code StartTrace returned | REG-18 |
//! | `DisableRealtimePersistence` = 0 | real-time buffers no consumer took survive a reboot and reach the next consumer | ALG-03 |
//! | provider `{GUID}` subkeys | enabled with EnableTraceEx semantics (level, MatchAny, MatchAll, EnableProperty; no filters) as the System process: providers get enable callbacks, later registrations are pre-enabled | ALG-05, ALG-06, REG-23, REG-25 |
//! | Global Logger | named `GlobalLogger` (logger id 1) or, with `EnableKernelFlags`, `NT Kernel Logger` with those flags; always a file; enables no provider (its `{GUID}` subkeys are for the providers to read) | ALG-09, ALG-10, REG-21, REG-22 |
//!
//! EVENT_TRACE_NONSTOPPABLE_MODE, which only AutoLoggers may use (SES-37), is allowed here
//! (StartTrace refuses it elsewhere); ControlTrace STOP of such a session is refused with
//! `ERROR_ACCESS_DENIED` (the code is a choice) and shutdown stops it. Not modelled:
//! AutoLoggers get no kernel events either way (REG-24: the kernel
//! writes none yet); a lost real-time backing file (RTLostFile, ALG-07).
//!
//! # Windows paths on the host
//!
//! A [`BootOptions`] names a host folder, the machine's root. A Windows path `X:\a\b.etl` is
//! the host path `<root>/X/a/b.etl` (the drive letter upper-cased, `\` and `/` both
//! separators, `.` and `..` components dropped so nothing leaves the root); a UNC path
//! `\\server\share\f` is `<root>/UNC/server/share/f`; a relative path is under `<root>`. Each
//! boot creates `%SystemRoot%\System32\LogFiles\WMI` under the root (it exists on every
//! Windows machine); any other folder must exist already, as ETW creates none (SES-28): a
//! FileName in a missing folder gives Status `ERROR_PATH_NOT_FOUND`.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use etwsim_registry::autologger::{GLOBAL_LOGGER_PATH, MAX_FILE_NAME};
use etwsim_registry::security::{WMI_SECURITY_PATH, store_descriptor};
use etwsim_registry::{
    AutoLoggerSession, GlobalLoggerSession, Registry, Value, autologger_sessions,
    expand_environment, global_logger,
};
use etwsim_types::{ControlCode, Guid, LogFileMode, Win32Error};

use crate::api::kernel::{Kernel, KernelBuilder};
use crate::api::session::Session;
use crate::control::provider::EnableParams;
use crate::control::session::{MAX_BUFFER_SIZE_KB, SessionConfig, Target};
use crate::data::realtime::Delivered;
use crate::error::{Error, Result};
use crate::machine::disk::Disk;

/// The largest BufferSize an AutoLogger or the Global Logger gets, in KB (ALG-03: "keep it
/// under 1 MB").
pub const BOOT_MAX_BUFFER_SIZE_KB: u32 = 1024;

/// Where a machine's Windows paths live on the host, and its `%SystemRoot%`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootOptions {
    /// The host folder that stands for the machine's drives (see the module docs).
    pub root: PathBuf,
    /// `%SystemRoot%` (and `%windir%`): `C:\Windows` by default.
    pub system_root: String,
    /// Create the folder of each session's log file under `root` before StartTrace (off by
    /// default). ETW itself creates no folders (SES-28): a FileName in a folder that does
    /// not exist fails with `ERROR_PATH_NOT_FOUND`, as on Windows. This stands for the
    /// folders a real machine already has.
    pub create_folders: bool,
}

impl BootOptions {
    /// Windows paths under `root`, `%SystemRoot%` = `C:\Windows`.
    pub fn new(root: impl Into<PathBuf>) -> BootOptions {
        BootOptions {
            root: root.into(),
            system_root: r"C:\Windows".to_owned(),
            create_folders: false,
        }
    }

    /// The same options, creating the log files' folders ([`BootOptions::create_folders`]).
    pub fn creating_folders(mut self, yes: bool) -> BootOptions {
        self.create_folders = yes;
        self
    }

    /// The host path of the Windows path `windows` (module docs: "Windows paths on the host").
    pub fn host_path(&self, windows: &str) -> PathBuf {
        let mut out = self.root.clone();
        let s = windows.trim();
        let b = s.as_bytes();
        let rest = if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
            out.push(s[..1].to_ascii_uppercase());
            &s[2..]
        } else if s.starts_with(r"\\") || s.starts_with("//") {
            out.push("UNC");
            &s[2..]
        } else {
            s
        };
        for part in rest.split(['\\', '/']) {
            if !part.is_empty() && part != "." && part != ".." {
                out.push(part);
            }
        }
        out
    }

    /// `%SystemRoot%`, `%windir%` and `%SystemDrive%` expanded in `text` (REG-19).
    pub fn expand(&self, text: &str) -> String {
        let drive: String = self.system_root.chars().take(2).collect();
        expand_environment(text, |name| {
            if name.eq_ignore_ascii_case("SystemRoot") || name.eq_ignore_ascii_case("windir") {
                Some(self.system_root.clone())
            } else if name.eq_ignore_ascii_case("SystemDrive") {
                Some(drive.clone())
            } else {
                None
            }
        })
    }

    /// `%SystemRoot%\System32\LogFiles\WMI` on the host: the folder of the default FileNames.
    pub fn wmi_log_folder(&self) -> PathBuf {
        self.host_path(&format!(r"{}\System32\LogFiles\WMI", self.system_root))
    }
}

/// Which kind of boot session a [`SessionReport`] is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BootSessionKind {
    /// `…\WMI\Autologger\<name>`.
    AutoLogger,
    /// `…\WMI\GlobalLogger`.
    GlobalLogger,
}

/// One provider subkey of a boot session, and what ETW did with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderReport {
    /// The provider GUID (the subkey's name).
    pub guid: Guid,
    /// Enabled in the session (EnableTraceEx succeeded).
    pub enabled: bool,
    /// The level in force.
    pub level: u8,
    /// MatchAnyKeyword in force (EnableFlags when absent, REG-17).
    pub match_any: u64,
    /// MatchAllKeyword in force.
    pub match_all: u64,
    /// EnableProperty in force.
    pub enable_property: u32,
    /// Why the provider is not enabled, when it is not.
    pub why: Option<String>,
}

/// One boot session and what ETW did with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionReport {
    /// AutoLogger or Global Logger.
    pub kind: BootSessionKind,
    /// The key's name (`GlobalLogger` for the Global Logger).
    pub key_name: String,
    /// The running session's name (`NT Kernel Logger` for a Global Logger with kernel flags).
    pub name: String,
    /// A start was attempted (Start = 1).
    pub attempted: bool,
    /// The Win32 code of the start, written to `Status`; `None` when no start was attempted.
    pub status: Option<Win32Error>,
    /// Why the session did not start (or was not attempted).
    pub why: Option<String>,
    /// The log file as a Windows path, suffix included.
    pub log_file: Option<String>,
    /// The log file on the host.
    pub host_file: Option<PathBuf>,
    /// The FileMax serial used this boot (`FileCounter` written back).
    pub file_counter: Option<u32>,
    /// What boot passed to StartTrace (after its overrides).
    pub requested: Option<SessionConfig>,
    /// The values in force once running (ControlTrace QUERY after the start).
    pub in_force: Option<crate::SessionProperties>,
    /// Real-time buffers from the previous boot handed to this session (ALG-03).
    pub restored_buffers: usize,
    /// Every default override, conversion or ignored value, with its rule.
    pub overrides: Vec<String>,
    /// The provider subkeys.
    pub providers: Vec<ProviderReport>,
}

impl SessionReport {
    /// A session not (yet) started, with the registry view's diagnostics as its notes.
    fn new(
        kind: BootSessionKind,
        key_name: &str,
        name: &str,
        diagnostics: &[etwsim_registry::Diagnostic],
    ) -> SessionReport {
        SessionReport {
            kind,
            key_name: key_name.to_owned(),
            name: name.to_owned(),
            attempted: false,
            status: None,
            why: None,
            log_file: None,
            host_file: None,
            file_counter: None,
            requested: None,
            in_force: None,
            restored_buffers: 0,
            overrides: diagnostics.iter().map(ToString::to_string).collect(),
            providers: Vec::new(),
        }
    }

    /// `true` when the session is running after boot.
    pub fn started(&self) -> bool {
        self.status == Some(Win32Error::ERROR_SUCCESS)
    }
}

/// What one boot did.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BootReport {
    /// 1 for the first boot of a [`Machine`], 2 after one reboot, …
    pub boot: u32,
    /// The Global Logger first (it starts earlier), then the AutoLoggers in start order
    /// (REG-23).
    pub sessions: Vec<SessionReport>,
    /// What boot noticed outside the sessions: `WMI\Security` values it could not use.
    pub notes: Vec<String>,
}

impl fmt::Display for BootReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "boot {}", self.boot)?;
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        for s in &self.sessions {
            let kind = match s.kind {
                BootSessionKind::AutoLogger => "AutoLogger",
                BootSessionKind::GlobalLogger => "Global Logger",
            };
            let label = if s.name == s.key_name {
                s.name.clone()
            } else {
                format!("{} (running as {:?})", s.key_name, s.name)
            };
            match (&s.status, s.started()) {
                (_, true) => writeln!(f, "  {kind} {label}: started, Status 0")?,
                (Some(code), false) => writeln!(
                    f,
                    "  {kind} {label}: not started, Status {code}: {}",
                    s.why.as_deref().unwrap_or("")
                )?,
                (None, _) => writeln!(
                    f,
                    "  {kind} {label}: not started ({})",
                    s.why.as_deref().unwrap_or("")
                )?,
            }
            for o in &s.overrides {
                writeln!(f, "    note: {o}")?;
            }
            if let Some(p) = &s.in_force {
                writeln!(
                    f,
                    "    mode {:#x}, BufferSize {} KB, buffers {}..{}, FlushTimer {} s, clock {}, MaxFileSize {}",
                    p.log_file_mode.bits(),
                    p.buffer_size_kb,
                    p.minimum_buffers,
                    p.maximum_buffers,
                    p.effective_flush_timer,
                    p.clock.raw(),
                    p.maximum_file_size
                )?;
            }
            if let Some(file) = &s.log_file {
                let verb = if s.started() { "writes" } else { "would write" };
                writeln!(f, "    {verb} {file}")?;
            }
            if s.restored_buffers > 0 {
                writeln!(
                    f,
                    "    {} real-time buffers kept from the last boot",
                    s.restored_buffers
                )?;
            }
            for p in &s.providers {
                if p.enabled {
                    writeln!(
                        f,
                        "    provider {}: enabled, level {}, any {:#x}, all {:#x}, property {:#x}",
                        p.guid, p.level, p.match_any, p.match_all, p.enable_property
                    )?;
                } else {
                    writeln!(
                        f,
                        "    provider {}: not enabled ({})",
                        p.guid,
                        p.why.as_deref().unwrap_or("")
                    )?;
                }
            }
        }
        Ok(())
    }
}

impl BootReport {
    /// One JSON object per session, as a `serde_json::Value`: the values in force after ETW's
    /// adjustments, and the registry's requests under `"requested"`.
    pub fn json_values(&self) -> Vec<serde_json::Value> {
        use serde_json::json;
        self.sessions
            .iter()
            .map(|s| {
                let p = s.in_force.as_ref();
                let r = s.requested.as_ref();
                let providers: Vec<serde_json::Value> = s
                    .providers
                    .iter()
                    .map(|p| {
                        json!({
                            "guid": p.guid.to_string(),
                            "enabled": p.enabled,
                            "level": p.level,
                            "match_any": p.match_any,
                            "match_all": p.match_all,
                            "enable_property": p.enable_property,
                            "why": p.why,
                        })
                    })
                    .collect();
                json!({
                    "boot": self.boot,
                    "kind": match s.kind {
                        BootSessionKind::AutoLogger => "autologger",
                        BootSessionKind::GlobalLogger => "global_logger",
                    },
                    "key": s.key_name,
                    "name": s.name,
                    "started": s.started(),
                    "status": s.status.map(|c| c.code()),
                    "status_name": s.status.and_then(|c| c.name()),
                    "why": s.why,
                    "log_file": s.log_file,
                    "host_file": s.host_file.as_ref().map(|h| h.display().to_string()),
                    "file_counter": s.file_counter,
                    "log_file_mode": p.map(|p| p.log_file_mode.bits()),
                    "buffer_size_kb": p.map(|p| p.buffer_size_kb),
                    "minimum_buffers": p.map(|p| p.minimum_buffers),
                    "maximum_buffers": p.map(|p| p.maximum_buffers),
                    "flush_timer": p.map(|p| p.effective_flush_timer),
                    "clock_type": p.map(|p| p.clock.raw()),
                    "maximum_file_size": p.map(|p| p.maximum_file_size),
                    "enable_flags": p.map(|p| p.enable_flags),
                    "restored_buffers": s.restored_buffers,
                    "requested": r.map(|r| json!({
                        "log_file_mode": r.mode.bits(),
                        "buffer_size_kb": r.buffer_size_kb,
                        "minimum_buffers": r.minimum_buffers,
                        "maximum_buffers": r.maximum_buffers,
                        "flush_timer": r.flush_timer,
                        "clock_type": r.clock,
                        "maximum_file_size": r.maximum_file_size,
                    })),
                    "overrides": s.overrides,
                    "providers": providers,
                })
            })
            .collect()
    }

    /// Writes [`BootReport::json_values`] as JSON Lines: one object per session.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_json_lines(&self, w: &mut dyn io::Write) -> io::Result<()> {
        for v in self.json_values() {
            writeln!(w, "{v}")?;
        }
        Ok(())
    }
}

/// A `WMI\Security` value name: a GUID with or without braces.
fn parse_guid_name(name: &str) -> Option<Guid> {
    name.parse()
        .ok()
        .or_else(|| format!("{{{name}}}").parse().ok())
}

/// The descriptors of `WMI\Security` (SEC-08); values that are no GUID, not REG_BINARY or not
/// a valid descriptor are skipped with a note.
fn load_security(
    registry: &Registry,
    notes: &mut Vec<String>,
) -> std::collections::BTreeMap<Guid, etwsim_registry::SecurityDescriptor> {
    let mut table = std::collections::BTreeMap::new();
    let Some(key) = registry.key(WMI_SECURITY_PATH) else {
        return table;
    };
    for (name, _) in key.values() {
        let Some(guid) = parse_guid_name(name) else {
            notes.push(format!(
                "WMI\\Security value {name:?} is not named by a GUID; ignored (SEC-08)"
            ));
            continue;
        };
        match etwsim_registry::security::stored_descriptor(registry, guid) {
            Ok(Some(sd)) => {
                table.insert(guid, sd);
            }
            Ok(None) => {}
            Err(e) => notes.push(format!("WMI\\Security {name}: {e}; ignored (SEC-08)")),
        }
    }
    table
}

/// Real-time buffers saved at shutdown for a session with real-time persistence (ALG-03).
struct Persisted {
    session: String,
    buffers: Vec<Delivered>,
}

/// A simulated machine: its registry and disk, which survive reboots, and its running
/// kernel, which does not.
pub struct Machine {
    registry: Registry,
    builder: KernelBuilder,
    options: BootOptions,
    kernel: Kernel,
    sessions: Vec<(Session, bool)>,
    persisted: Vec<Persisted>,
    report: BootReport,
}

impl fmt::Debug for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Machine")
            .field("options", &self.options)
            .field("boot", &self.report.boot)
            .finish_non_exhaustive()
    }
}

impl Machine {
    /// Builds a kernel with `builder` and boots it from `registry`. The disk is the builder's,
    /// or a new virtual disk for a deterministic kernel (the real file system for a threaded
    /// one); it is the same disk after every reboot.
    ///
    /// # Errors
    /// The builder's errors, or an I/O error creating the WMI log folder under the root
    /// (`ERROR_PATH_NOT_FOUND`). A session that does not start is no error: its Status says
    /// why (see [`Machine::report`]).
    pub fn boot(
        builder: KernelBuilder,
        registry: Registry,
        options: BootOptions,
    ) -> Result<Machine> {
        let mut builder = builder;
        if builder.config.disk.is_none() {
            builder.config.disk = Some(match builder.config.mode {
                crate::ExecutionMode::Deterministic { .. } => Disk::virtual_disk(),
                crate::ExecutionMode::Threaded => Disk::Real,
            });
        }
        let kernel = builder.clone().build()?;
        let mut m = Machine {
            registry,
            builder,
            options,
            kernel,
            sessions: Vec::new(),
            persisted: Vec::new(),
            report: BootReport::default(),
        };
        m.start_boot_sessions(1)?;
        Ok(m)
    }

    /// The running kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The registry, with what ETW wrote back (`Status`, `FileCounter`).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The registry, to change before the next [`Machine::reboot`] (ALG-02: changes take
    /// effect at the next boot).
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// How Windows paths map to the host.
    pub fn options(&self) -> &BootOptions {
        &self.options
    }

    /// What the last boot did.
    pub fn report(&self) -> &BootReport {
        &self.report
    }

    /// The sessions the last boot started, by name.
    pub fn session(&self, name: &str) -> Option<&Session> {
        self.sessions
            .iter()
            .map(|(s, _)| s)
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }

    /// Shuts down and boots again: every running session is stopped (its buffers flushed,
    /// its file complete), the real-time buffers of sessions with real-time persistence are
    /// kept (ALG-03), processes and providers are gone, the registry and the disk stay.
    ///
    /// # Errors
    /// As [`Machine::boot`].
    pub fn reboot(&mut self) -> Result<&BootReport> {
        self.shutdown();
        self.kernel = self.builder.clone().build()?;
        let next = self.report.boot + 1;
        self.start_boot_sessions(next)?;
        Ok(&self.report)
    }

    /// An orderly shutdown: every running session stopped; persistent real-time buffers
    /// saved. The kernel stays (stopped sessions can still be read); the next
    /// [`Machine::reboot`] replaces it. A second call does nothing.
    pub fn shutdown(&mut self) {
        for (s, persistent) in std::mem::take(&mut self.sessions) {
            if !s.is_running() {
                continue;
            }
            // A NONSTOPPABLE AutoLogger stops too: the machine is going down (SES-37).
            let _ = s
                .kernel()
                .stop_trace_as(&s.caller, Target::Handle(s.handle()), true);
            if persistent {
                let buffers = s.ctx.rt.take_backlog();
                if !buffers.is_empty() {
                    self.persisted.push(Persisted {
                        session: s.name().to_owned(),
                        buffers,
                    });
                }
            }
        }
        // SEC-07, SEC-08: descriptors changed with EventAccessControl / EventAccessRemove are
        // persisted in WMI\Security.
        let table = self.kernel.security_descriptors();
        let stored: Vec<String> = self
            .registry
            .key(WMI_SECURITY_PATH)
            .map(|k| k.values().map(|(n, _)| n.to_owned()).collect())
            .unwrap_or_default();
        for name in stored {
            if parse_guid_name(&name).is_some_and(|g| !table.contains_key(&g)) {
                self.registry.delete_value(WMI_SECURITY_PATH, &name);
            }
        }
        for (guid, sd) in &table {
            let _ = store_descriptor(&mut self.registry, *guid, sd);
        }
        let system = self.kernel.system_process();
        for p in self.kernel.sessions() {
            let _ = self.kernel.control_trace(
                &system,
                Target::Handle(p.handle),
                etwsim_types::TraceControl::Stop,
                None,
            );
        }
    }

    fn start_boot_sessions(&mut self, boot: u32) -> Result<()> {
        let wmi = self.options.wmi_log_folder();
        std::fs::create_dir_all(&wmi).map_err(|e| Error::Other {
            code: Win32Error::ERROR_PATH_NOT_FOUND,
            context: format!("cannot create {}: {e}", wmi.display()),
        })?;
        let mut report = BootReport {
            boot,
            sessions: Vec::new(),
            notes: Vec::new(),
        };
        // SEC-08: the GUID descriptors of WMI\Security, before any session starts.
        self.kernel
            .load_security(load_security(&self.registry, &mut report.notes));
        if let Some(g) = global_logger(&self.registry) {
            report.sessions.push(self.start_global_logger(&g));
        }
        for a in autologger_sessions(&self.registry) {
            report.sessions.push(self.start_autologger(&a));
        }
        self.persisted.clear();
        self.report = report;
        Ok(())
    }

    /// The file name, FileMax suffix and FileCounter of a session (ALG-04).
    fn file_for(
        &self,
        settings: &etwsim_registry::SessionSettings,
    ) -> Option<(String, PathBuf, Option<u32>)> {
        let name = settings.file_name.in_force.as_ref()?;
        let mut windows = self.options.expand(name);
        let max = settings.file_max.in_force;
        let counter = (max > 0).then(|| {
            let last = settings
                .file_counter
                .written
                .as_ref()
                .and_then(Value::to_dword)
                .filter(|c| (1..=max).contains(c));
            match last {
                Some(c) => c % max + 1,
                None => 1,
            }
        });
        if let Some(c) = counter {
            windows = format!("{windows}.{c:04}");
        }
        let host = self.options.host_path(&windows);
        Some((windows, host, counter))
    }

    /// The properties boot passes to StartTrace, with its overrides noted.
    fn config_for(
        &self,
        name: &str,
        settings: &etwsim_registry::SessionSettings,
        host: Option<&Path>,
        overrides: &mut Vec<String>,
    ) -> SessionConfig {
        let mut c = SessionConfig::new(name);
        c.mode = settings.log_file_mode.in_force;
        c.log_file = host.map(|h| h.display().to_string());
        c.clock = settings.clock_type.in_force.raw();
        c.buffer_size_kb = settings.buffer_size.in_force;
        if c.buffer_size_kb > BOOT_MAX_BUFFER_SIZE_KB {
            overrides.push(format!(
                "BufferSize {} KB: at most {BOOT_MAX_BUFFER_SIZE_KB} KB; {BOOT_MAX_BUFFER_SIZE_KB} in force (ALG-03)",
                c.buffer_size_kb
            ));
            c.buffer_size_kb = BOOT_MAX_BUFFER_SIZE_KB.min(MAX_BUFFER_SIZE_KB);
        }
        c.minimum_buffers = settings.minimum_buffers.in_force;
        c.maximum_buffers = settings.maximum_buffers.in_force;
        if c.maximum_buffers != 0 && c.maximum_buffers < c.minimum_buffers {
            overrides.push(format!(
                "MaximumBuffers {} is below MinimumBuffers {}; raised to it (ALG-03)",
                c.maximum_buffers, c.minimum_buffers
            ));
            c.maximum_buffers = c.minimum_buffers;
        }
        c.maximum_file_size = settings.max_file_size.in_force;
        c.flush_timer = settings.flush_timer.in_force;
        c
    }

    fn write_back(&mut self, path: &str, status: Win32Error, counter: Option<u32>) {
        // REG-18: Status after each start attempt, FileCounter when FileMax is used.
        let _ = self
            .registry
            .set_value(path, "Status", Value::dword(status.code()));
        if let Some(c) = counter {
            let _ = self
                .registry
                .set_value(path, "FileCounter", Value::dword(c));
        }
    }

    fn start_global_logger(&mut self, g: &GlobalLoggerSession) -> SessionReport {
        let name = g.session_name();
        let mut r = SessionReport::new(
            BootSessionKind::GlobalLogger,
            etwsim_registry::autologger::GLOBAL_LOGGER_NAME,
            name,
            &g.diagnostics,
        );
        r.providers = g
                .providers
                .iter()
                .map(|p| ProviderReport {
                    guid: p.guid,
                    enabled: false,
                    level: p.level.in_force.map_or(0, |l| (l & 0xFF) as u8),
                    match_any: p.flags.in_force.map_or(0, u64::from),
                    match_all: 0,
                    enable_property: 0,
                    why: Some(
                        "the Global Logger enables no provider; the provider reads Flags and Level itself (ALG-10, REG-22)"
                            .to_owned(),
                    ),
                })
                .collect();
        if !g.will_start() {
            r.why = Some(format!("Start = {}", g.settings.start.in_force));
            return r;
        }
        r.attempted = true;
        let file = self.file_for(&g.settings);
        let mut config = self.config_for(
            name,
            &g.settings,
            file.as_ref().map(|f| f.1.as_path()),
            &mut r.overrides,
        );
        if let Some(flags) = &g.enable_kernel_flags.in_force {
            config.enable_flags = flags.enable_flags();
        } else {
            config.guid = Guid::GLOBAL_LOGGER;
        }
        let counter = file.as_ref().and_then(|f| f.2);
        if let Some((w, h, c)) = file {
            r.log_file = Some(w);
            r.host_file = Some(h);
            r.file_counter = c;
        }
        let result = self.start(&config, &mut r);
        self.write_back(
            GLOBAL_LOGGER_PATH,
            result,
            counter.filter(|_| result.is_success()),
        );
        r
    }

    fn start_autologger(&mut self, a: &AutoLoggerSession) -> SessionReport {
        let mut r = SessionReport::new(
            BootSessionKind::AutoLogger,
            &a.name,
            &a.name,
            &a.diagnostics,
        );
        r.providers = a
            .providers
            .iter()
            .map(|p| ProviderReport {
                guid: p.guid,
                enabled: false,
                level: p.enable_level.in_force.0,
                match_any: p.match_any_keyword.in_force.0,
                match_all: p.match_all_keyword.in_force.0,
                enable_property: p.enable_property.in_force.bits(),
                why: Some("the session did not start".to_owned()),
            })
            .collect();
        if a.settings.start.in_force != 1 {
            r.why = Some(format!("Start = {}", a.settings.start.in_force));
            return r;
        }
        r.attempted = true;
        let file = self.file_for(&a.settings);
        let counter = file.as_ref().and_then(|f| f.2);
        if let Some((w, h, c)) = &file {
            r.log_file = Some(w.clone());
            r.host_file = Some(h.clone());
            r.file_counter = *c;
        }
        let Some(guid) = a.guid.in_force else {
            // ALG-02: Guid is required. The code is a simulator choice (REG-18).
            r.status = Some(Win32Error::ERROR_INVALID_PARAMETER);
            r.why = Some("the required Guid value is missing or invalid (ALG-02)".to_owned());
            self.write_back(&a.path, Win32Error::ERROR_INVALID_PARAMETER, None);
            return r;
        };
        if let Some((w, _, _)) = &file {
            if w.chars().count() > MAX_FILE_NAME {
                r.status = Some(Win32Error::ERROR_BAD_PATHNAME);
                r.why = Some("FileName is longer than 1,024 characters (ALG-03)".to_owned());
                self.write_back(&a.path, Win32Error::ERROR_BAD_PATHNAME, None);
                return r;
            }
        }
        let mut config = self.config_for(
            &a.name,
            &a.settings,
            file.as_ref().map(|f| f.1.as_path()),
            &mut r.overrides,
        );
        config.guid = guid;
        let persistent = a.disable_realtime_persistence.in_force == 0
            && config.mode.contains(LogFileMode::REAL_TIME);
        let result = self.start(&config, &mut r);
        self.write_back(&a.path, result, counter.filter(|_| result.is_success()));
        if !result.is_success() {
            return r;
        }
        if let Some(last) = self.sessions.last_mut() {
            last.1 = persistent;
            if persistent {
                if let Some(i) = self
                    .persisted
                    .iter()
                    .position(|p| p.session.eq_ignore_ascii_case(&a.name))
                {
                    let kept = self.persisted.swap_remove(i);
                    r.restored_buffers = last.0.ctx.rt.restore_backlog(kept.buffers);
                }
            }
        }
        // ALG-06, REG-23: each Enabled = 1 subkey, with EnableTraceEx semantics (no filters,
        // REG-25), as the System process; enable callbacks as for any controller.
        let system = self.kernel.system_process();
        let handle = self.sessions.last().map(|(s, _)| s.handle());
        for (p, pr) in a.providers.iter().zip(r.providers.iter_mut()) {
            if !p.enabled.in_force {
                pr.why = Some("Enabled is not 1 (ALG-05)".to_owned());
                continue;
            }
            let params = EnableParams::new()
                .level(p.enable_level.in_force)
                .any(p.match_any_keyword.in_force.0)
                .all(p.match_all_keyword.in_force.0)
                .property(p.enable_property.in_force);
            let Some(h) = handle else { continue };
            match self.kernel.enable_trace_ex2(
                &system,
                Target::Handle(h),
                p.guid,
                ControlCode::EnableProvider,
                &params,
            ) {
                Ok(()) => {
                    pr.enabled = true;
                    pr.why = None;
                }
                Err(e) => {
                    pr.why = Some(format!(
                        "EnableTraceEx: {} ({})",
                        e.reason(),
                        e.win32_code()
                    ))
                }
            }
        }
        r
    }

    /// StartTrace as the System process; fills the report's status and values in force.
    fn start(&mut self, config: &SessionConfig, r: &mut SessionReport) -> Win32Error {
        r.requested = Some(config.clone());
        if let (true, Some(dir)) = (
            self.options.create_folders,
            r.host_file.as_deref().and_then(Path::parent),
        ) {
            // Best effort: a folder that cannot be made fails StartTrace's own check below.
            let _ = std::fs::create_dir_all(dir);
        }
        let system = self.kernel.system_process();
        match self.kernel.start_autologger(&system, config) {
            Ok(s) => {
                r.in_force = s.query().ok();
                r.status = Some(Win32Error::ERROR_SUCCESS);
                self.sessions.push((s, false));
                Win32Error::ERROR_SUCCESS
            }
            Err(e) => {
                let code = e.win32_code();
                r.status = Some(code);
                let mut why = e.reason();
                if code == Win32Error::ERROR_PATH_NOT_FOUND && !self.options.create_folders {
                    why.push_str(
                        "; ETW creates no folders (SES-28): create the log file's folder, or boot with BootOptions::create_folders (etwsim boot --create-folders)",
                    );
                }
                r.why = Some(why);
                code
            }
        }
    }
}
