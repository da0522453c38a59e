//! The `[[step]]` tables: which action each step does and which keys it takes, the OS
//! steps' file handles and images (tracked in step order, so a step on a closed handle is an
//! error at its line), and the budget of writes and virtual time all steps share.

use super::{
    Action, EnableSpec, Loader, MAX_VIRTUAL_TIME, MAX_WRITES, Names, ProcRef, R, WriteSpec, span_of,
};
use crate::file::{EnableDef, StepDef};
use etwsim::{Disposition, SessionUpdate};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::time::Duration;
use toml::Spanned;

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
    Query(usize),
    /// A session, and which of its consumers (`None`: the default one).
    Consume(usize, Option<String>),
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

impl Loader {
    pub(super) fn step(
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
                "activity_id",
                "related_activity_id",
                "event_name",
            ],
            "enable" => &[
                "provider",
                "group",
                "code",
                "level",
                "any",
                "all",
                "properties",
                "source_id",
                "filter",
                "expect_error",
                "as",
            ],
            "disable" => &["provider", "expect_error", "as"],
            "update" => &[
                "flush_timer",
                "maximum_buffers",
                "log_file",
                "real_time",
                "enable_flags",
                "expect_error",
                "as",
            ],
            "flush" | "stop" | "start" | "query" => &["expect_error", "as"],
            "consume" => &["consumer", "expect_error", "as"],
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
            "query" => ActionKind::Query(ctx.session(self, target, &akey)?),
            "start" => ActionKind::Start(ctx.session(self, target, &akey)?),
            "consume" => {
                let consumer = match &d.consumer {
                    Some(c) if c.get_ref().trim().is_empty() => {
                        return Err(self.err(
                            &c.span(),
                            format!("{key}.consumer"),
                            "a consumer's name cannot be empty",
                        ));
                    }
                    Some(c) => Some(c.get_ref().trim().to_string()),
                    None => None,
                };
                ActionKind::Consume(ctx.session(self, target, &akey)?, consumer)
            }
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
                let session = target;
                if action == "disable" {
                    let Some(provider) = &d.provider else {
                        return Err(self.err(
                            &span,
                            format!("{key}.provider"),
                            "a `disable` step needs `provider`",
                        ));
                    };
                    ActionKind::Disable {
                        session: ctx.session(self, session, &akey)?,
                        provider: ctx.provider(self, provider, &format!("{key}.provider"))?,
                    }
                } else {
                    if d.provider.is_none() && d.group.is_none() {
                        return Err(self.err(
                            &span,
                            format!("{key}.provider"),
                            "an `enable` step needs `provider` (or `group`, a provider group's GUID)",
                        ));
                    }
                    let def = EnableDef {
                        session: session.clone(),
                        provider: d.provider.clone(),
                        group: d.group.clone(),
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
                            spec.provider.map(|p| &ctx.providers[p]),
                            ctx,
                        )?;
                    }
                    if let Some(c) = &d.code {
                        spec.code = self.enable_code(c, &format!("{key}.code"))?;
                    }
                    ActionKind::Enable(spec)
                }
            }
            other => return Err(self.err(&span, key, format!("unknown action {other}"))),
        };
        let name = match &d.name {
            Some(n) if n.get_ref().trim().is_empty() => {
                return Err(self.err(
                    &n.span(),
                    format!("{key}.name"),
                    "a step's name cannot be empty",
                ));
            }
            Some(n) => Some(n.get_ref().trim().to_string()),
            None => None,
        };
        let as_process = d
            .as_process
            .as_ref()
            .map(|p| self.proc_ref(p, &format!("{key}.as"), ctx.processes))
            .transpose()?;
        Ok(Action {
            line,
            key: akey,
            kind,
            expect_error: self.error_match(
                d.expect_error.as_ref(),
                true,
                &format!("{key}.expect_error"),
            )?,
            name,
            as_process,
        })
    }

    /// An `enable` step's `code`: EnableTraceEx2's ControlCode.
    fn enable_code(&self, c: &Spanned<String>, key: &str) -> R<etwsim::ControlCode> {
        match c
            .get_ref()
            .trim()
            .to_ascii_lowercase()
            .trim_start_matches("event_control_code_")
        {
            "enable_provider" | "enable" => Ok(etwsim::ControlCode::EnableProvider),
            "capture_state" => Ok(etwsim::ControlCode::CaptureState),
            other => Err(self.err(
                &c.span(),
                key,
                format!(
                    "unknown code {other:?}: use \"enable_provider\" (the default) or \"capture_state\" (a `disable` step disables)"
                ),
            )),
        }
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
}

/// The handles the OS steps open, in step order, for the checks of the steps that use them.
/// Names are found through maps and a reboot closes only what is open, so each OS step
/// costs the same however many came before it.
#[derive(Default)]
pub(super) struct OsState {
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
    /// No handle open yet; `registry`: whether the machine boots from a registry.
    pub(super) fn new(registry: bool) -> OsState {
        OsState {
            registry,
            ..OsState::default()
        }
    }

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
pub(super) struct Budget {
    writes: u64,
    time: Duration,
}

impl Budget {
    pub(super) fn writes(&mut self, n: u64) -> Result<(), String> {
        self.writes = self
            .writes
            .checked_add(n)
            .filter(|w| *w <= MAX_WRITES)
            .ok_or_else(|| format!("the scenario writes more than {MAX_WRITES} events in all"))?;
        Ok(())
    }

    pub(super) fn time(&mut self, d: Duration, times: u64) -> Result<(), String> {
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
    pub(crate) const ACTIONS: [&'static str; 24] = [
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
        "query",
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
            (self.query.is_some(), self.query.as_ref()),
        ];
        Self::ACTIONS
            .iter()
            .zip(set)
            .filter_map(|(n, (s, v))| s.then_some((*n, v)))
            .collect()
    }

    /// The non-action keys that are set.
    fn options(&self) -> Vec<&'static str> {
        let set: [(&'static str, bool); 43] = [
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
            ("activity_id", self.activity_id.is_some()),
            ("related_activity_id", self.related_activity_id.is_some()),
            ("event_name", self.event_name.is_some()),
            ("group", self.group.is_some()),
            ("code", self.code.is_some()),
            ("consumer", self.consumer.is_some()),
            ("as", self.as_process.is_some()),
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
