//! What a controller's calls do to the kernel's tables: StartTrace's admission and the logger
//! slot, ControlTrace's UPDATE, FLUSH and STOP, and resolving which session a call names —
//! under the state lock, on the session table (`control::session`), the process table and the
//! GUID table.

use crate::Result;
use crate::control::session::CKCL_NAME;
use crate::control::session::GLOBAL_LOGGER_NAME;
use crate::control::session::MAX_NAME_CHARS;
use crate::control::session::MAX_PRIVATE_IN_PROC_SESSIONS;
use crate::control::session::MAX_PRIVATE_SESSIONS;
use crate::control::session::MAX_SYSTEM_LOGGERS;
use crate::control::session::SessionEnv;
use crate::control::session::SessionUpdate;
use crate::control::session::Target;
use crate::control::session::UNLIMITED_FILE_RESERVE;
use crate::control::session::WMI_GLOBAL_LOGGER_ID;
use crate::control::session::file_limit_bytes;
use crate::control::state::State;
use crate::data::context::Effective;
use crate::data::context::LoggerContext;
use crate::data::context::NewContext;
use crate::data::file_sink::EtlFileSink;
use crate::data::file_sink::FileStart;
use crate::data::properties::SessionProperties;
use crate::data::sink::Sink;
use crate::error::Error;
use crate::journal::FlushReason;
use crate::machine::ids::TraceHandle;
use crate::machine::ids::eq_ignore_case;
use crate::machine::ids::name_key;
use crate::machine::process::ProcessRecord;
use etwsim_types::LogFileMode;
use etwsim_types::TraceControl;
use std::sync::Arc;
use std::sync::atomic::Ordering;
impl State {
    pub(crate) fn running_loggers(&self) -> impl Iterator<Item = &Arc<LoggerContext>> {
        self.sessions
            .live
            .iter()
            .filter_map(|&id| self.sessions.loggers[usize::from(id)].as_ref())
            .chain(self.sessions.private_loggers.values())
    }

    /// The buffer memory the running sessions may grow to (each one's MaximumBuffers ×
    /// BufferSize), leaving out `except`: what a machine-wide limit is measured against.
    fn buffer_bytes_reserved(&self, except: Option<&Arc<LoggerContext>>) -> u64 {
        self.running_loggers()
            .filter(|l| except.is_none_or(|e| !Arc::ptr_eq(e, l)))
            .map(|l| {
                u64::from(l.live.lock().maximum_buffers) * u64::from(l.cfg.buffer_size_kb) * 1024
            })
            .sum()
    }

    /// Puts `ctx` in its logger slot `id` (kept in `live`, ascending).
    fn occupy(&mut self, id: u16, ctx: Arc<LoggerContext>) {
        self.sessions.loggers[usize::from(id)] = Some(ctx);
        if let Err(at) = self.sessions.live.binary_search(&id) {
            self.sessions.live.insert(at, id);
        }
    }

    /// Empties logger slot `id`.
    fn vacate(&mut self, id: u16) {
        self.sessions.loggers[usize::from(id)] = None;
        if let Ok(at) = self.sessions.live.binary_search(&id) {
            self.sessions.live.remove(at);
        }
    }

    fn find_by_name(&self, caller: u64, name: &str) -> Option<Arc<LoggerContext>> {
        let key = name_key(name);
        self.sessions
            .loggers
            .iter()
            .flatten()
            .find(|l| l.name_key == key)
            .or_else(|| {
                self.sessions
                    .private_loggers
                    .values()
                    .find(|l| l.name_key == key && l.private_owner == Some(caller))
            })
            .cloned()
    }

    /// Resolves a ControlTrace / EnableTraceEx2 target (SES-73, SES-74).
    pub(crate) fn resolve(&self, caller: u64, target: Target<'_>) -> Result<Arc<LoggerContext>> {
        match target {
            Target::Name(name) => self.find_by_name(caller, name).ok_or_else(|| {
                Error::SessionNotFound(format!("no running session is named {name:?}"))
            }),
            Target::Handle(h) => {
                if h.0 == 0 {
                    return Err(Error::invalid(
                        "the session handle is 0 and no name is given",
                    ));
                }
                let found = self
                    .running_loggers()
                    .find(|l| l.handle == h)
                    .filter(|l| l.private_owner.is_none_or(|o| o == caller));
                if let Some(l) = found {
                    return Ok(l.clone());
                }
                if h.generation() >= 1 && h.generation() <= self.sessions.generation {
                    Err(Error::SessionNotFound(format!(
                        "session handle {h} belongs to a stopped session"
                    )))
                } else {
                    Err(Error::invalid(format!("{h} is not a session handle")))
                }
            }
        }
    }
}

impl State {
    pub(crate) fn live_process(&self, key: u64) -> Result<&ProcessRecord> {
        match self.processes.get(&key) {
            Some(r) if !r.exited => Ok(r),
            Some(r) => Err(Error::invalid(format!("process {} has exited", r.pid))),
            None => Err(Error::invalid("unknown process")),
        }
    }

    /// Everything of StartTrace that depends on what is already running: access, names,
    /// GUIDs, limits, files, disk — then the logger slot.
    pub(crate) fn admit_session(
        &mut self,
        rec: &ProcessRecord,
        mut eff: Effective,
        kernel: &SessionEnv<'_>,
        sink: Option<Box<dyn Sink>>,
    ) -> Result<Arc<LoggerContext>> {
        if !eff.private {
            if eff.kernel_logger && !rec.token.may_control_kernel_logger() {
                return Err(Error::AccessDenied(format!(
                    "{} may not start the NT Kernel Logger (administrators and LocalSystem only)",
                    rec.token.user
                )));
            }
            if !rec.token.may_control_sessions() && self.descriptor_for(eff.guid).is_none() {
                return Err(Error::AccessDenied(format!(
                    "{} may not start sessions: not an administrator, a Performance Log User or a service account",
                    rec.token.user
                )));
            }
            self.check_start_rights(&rec.token, eff.guid, eff.mode, eff.log_file.is_some())?;
        }
        let key = name_key(&eff.name);
        let same_scope = |l: &&Arc<LoggerContext>| match (eff.private, l.private_owner) {
            (false, None) => true,
            (true, Some(o)) => o == rec.start_key,
            _ => false,
        };
        if self
            .running_loggers()
            .filter(same_scope)
            .any(|l| l.name_key == key)
        {
            return Err(Error::SessionNameInUse { name: eff.name });
        }
        if !eff.guid.is_null() {
            if let Some(l) = self
                .running_loggers()
                .filter(same_scope)
                .find(|l| l.cfg.guid == eff.guid)
            {
                return Err(Error::SessionGuidInUse {
                    guid: eff.guid,
                    name: l.cfg.name.clone(),
                });
            }
        }
        let in_proc = eff.mode.contains(LogFileMode::PRIVATE_IN_PROC);
        if in_proc {
            // SES-47: only the process that registered a provider GUID may start an
            // in-process logger with that GUID.
            let regs = self.providers.guids.get(&eff.guid).map(|e| &e.regs);
            if regs
                .is_some_and(|r| !r.is_empty() && !r.iter().any(|r| r.process_key == rec.start_key))
            {
                return Err(Error::AccessDenied(format!(
                    "{} is registered by another process; only that process may start a PRIVATE_IN_PROC logger with it",
                    eff.guid
                )));
            }
        }
        if eff.private {
            let (count, limit) = if in_proc {
                (rec.private_in_proc_sessions, MAX_PRIVATE_IN_PROC_SESSIONS)
            } else {
                (rec.private_sessions, MAX_PRIVATE_SESSIONS)
            };
            if count >= limit {
                return Err(Error::LimitReached {
                    what: if in_proc {
                        "PRIVATE_IN_PROC sessions per process"
                    } else {
                        "private sessions per process"
                    },
                    limit,
                });
            }
        } else if self.sessions.live.len() >= self.sessions.max_loggers as usize {
            return Err(Error::LimitReached {
                what: "running sessions (EtwMaxLoggers)",
                limit: self.sessions.max_loggers,
            });
        }
        if let Some(limit) = kernel.config.max_machine_buffer_bytes {
            // The machine's buffer memory is finite: what is left after the running sessions'
            // MaximumBuffers bounds this one's, and its MinimumBuffers must fit.
            let size = u64::from(eff.buffer_size_kb) * 1024;
            let left = limit.saturating_sub(self.buffer_bytes_reserved(None));
            let fits = u32::try_from(left / size).unwrap_or(u32::MAX);
            if fits < eff.minimum_buffers {
                return Err(Error::Other {
                    code: etwsim_types::Win32Error::ERROR_NO_SYSTEM_RESOURCES,
                    context: format!(
                        "{} buffers of {} KB do not fit in the machine's buffer memory: {left} of {limit} bytes are left",
                        eff.minimum_buffers, eff.buffer_size_kb
                    ),
                });
            }
            eff.maximum_buffers = eff.maximum_buffers.min(fits);
        }
        let system_slot = if eff.system_logger {
            let slot = if eff.kernel_logger {
                Some(0)
            } else if eq_ignore_case(&eff.name, CKCL_NAME) {
                Some(1)
            } else {
                (2..MAX_SYSTEM_LOGGERS).find(|i| self.sessions.system_loggers[*i].is_none())
            };
            match slot {
                Some(i) if self.sessions.system_loggers[i].is_none() => Some(i),
                _ => {
                    return Err(Error::LimitReached {
                        what: "system loggers (slots 0 and 1 are reserved for the NT Kernel Logger and the CKCL)",
                        limit: MAX_SYSTEM_LOGGERS as u32,
                    });
                }
            }
        } else {
            None
        };
        if let (true, Some(path)) = (eff.private, &eff.log_file) {
            // SES-71: the first process writes the given name, each later one `<name>_<pid>`.
            let pk = name_key(path);
            if self
                .sessions
                .private_loggers
                .values()
                .any(|l| l.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()))
            {
                eff.log_file = Some(format!("{path}_{}", rec.pid));
            }
        }
        if let Some(path) = &eff.log_file {
            let pk = name_key(path);
            if let Some(l) = self
                .running_loggers()
                .find(|l| l.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()))
            {
                return Err(Error::BadPathname(format!(
                    "log file {path:?} is already used by session {:?}",
                    l.cfg.name
                )));
            }
            // SES-28: ETW creates no folders and expands no environment variables.
            let parent = std::path::Path::new(path)
                .parent()
                .filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent {
                if !dir.is_dir() {
                    return Err(Error::Other {
                        code: etwsim_types::Win32Error::ERROR_PATH_NOT_FOUND,
                        context: format!(
                            "the folder {} of log file {path:?} does not exist",
                            dir.display()
                        ),
                    });
                }
            }
            let needed =
                file_limit_bytes(eff.mode, eff.maximum_file_size).unwrap_or(UNLIMITED_FILE_RESERVE);
            if needed > self.sessions.disk_free {
                return Err(Error::DiskFull {
                    needed,
                    available: self.sessions.disk_free,
                });
            }
        }
        // The id, handle and logger thread this session will get; nothing is changed yet.
        let id = if eff.private {
            (0x200u16..=0xfffe)
                .find(|id| !self.sessions.private_loggers.contains_key(id))
                .expect("at most 8 private sessions per process fit in 65,000 ids")
        } else if eq_ignore_case(&eff.name, GLOBAL_LOGGER_NAME)
            && self.sessions.loggers[1].is_none()
        {
            WMI_GLOBAL_LOGGER_ID
        } else {
            (2..self.sessions.loggers.len())
                .find(|i| self.sessions.loggers[*i].is_none())
                .expect("the cap check leaves a free slot") as u16
        };
        let generation = self.sessions.generation + 1;
        let handle = TraceHandle((generation << 16) | u64::from(id));
        let logger_thread_id = self.processes.peek_client_id();
        // StartTrace creates the log file: a path that cannot be written, or an APPEND to a file
        // of another shape, refuses the start with nothing changed (SES-28, SES-34).
        let clock = &kernel.core.clock;
        let writes_file = sink.is_none() && eff.log_file.is_some();
        let sink: Option<Box<dyn Sink>> = match (sink, &eff.log_file) {
            (Some(s), _) => Some(s),
            (None, Some(path)) => {
                let start_raw = clock.raw(clock.peek(), eff.clock);
                let start = FileStart {
                    path: path.clone(),
                    logger_id: id,
                    logger_thread_id,
                    cpus: kernel.config.cpus,
                    start_raw,
                    start_filetime: crate::machine::clock::raw_to_filetime(
                        start_raw,
                        eff.clock,
                        clock.boot_filetime(),
                    ),
                    boot_filetime: clock.boot_filetime(),
                };
                Some(Box::new(EtlFileSink::create(&eff, &start, kernel.disk)?))
            }
            (None, None) => None,
        };
        // All checks passed: from here on nothing can fail.
        if eff.guid.is_null() {
            loop {
                let g = self.rng.next_guid();
                if !self.running_loggers().any(|l| l.cfg.guid == g) {
                    eff.guid = g;
                    break;
                }
            }
        }
        self.sessions.generation = generation;
        let tid = self.processes.next_client_id();
        debug_assert_eq!(tid, logger_thread_id);
        let private_owner = eff.private.then_some(rec.start_key);
        let ctx = Arc::new(LoggerContext::new(NewContext {
            handle,
            cfg: eff,
            name_key: key,
            private_owner,
            in_proc,
            system_slot,
            logger_thread_id,
            clock: &kernel.core.clock,
            journal: kernel.core.journal.as_ref(),
            owner_thread: kernel.core.owner,
            cpus: kernel.config.cpus,
            realtime_backlog: kernel.config.realtime_backlog_buffers as usize,
            sink,
            writes_file,
            owner: kernel.owner.clone(),
        }));
        if let Some(i) = system_slot {
            self.sessions.system_loggers[i] = Some(id);
        }
        if ctx.private_owner.is_some() {
            self.sessions.private_loggers.insert(id, ctx.clone());
            let p = self
                .processes
                .get_mut(&rec.start_key)
                .expect("caller checked above");
            if in_proc {
                p.private_in_proc_sessions += 1;
            } else {
                p.private_sessions += 1;
            }
        } else {
            self.occupy(id, ctx.clone());
        }
        Ok(ctx)
    }

    pub(crate) fn update_session(
        &mut self,
        ctx: &Arc<LoggerContext>,
        u: SessionUpdate,
        kernel: &SessionEnv<'_>,
    ) -> Result<()> {
        let private = ctx.private_owner.is_some();
        if let Some(path) = &u.log_file {
            if path.is_empty()
                || path.contains('\0')
                || path.encode_utf16().count() > MAX_NAME_CHARS
            {
                return Err(Error::BadPathname(format!(
                    "{path:?} is not a usable log file name"
                )));
            }
            // SES-28 holds for the file an UPDATE switches to as for StartTrace's.
            let parent = std::path::Path::new(path)
                .parent()
                .filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent.filter(|d| !d.is_dir()) {
                return Err(Error::Other {
                    code: etwsim_types::Win32Error::ERROR_PATH_NOT_FOUND,
                    context: format!(
                        "the folder {} of log file {path:?} does not exist",
                        dir.display()
                    ),
                });
            }
            let pk = name_key(path);
            if ctx.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()) {
                return Err(Error::invalid(format!(
                    "{path:?} is already this session's log file"
                )));
            }
            if let Some(l) = self
                .running_loggers()
                .filter(|l| !Arc::ptr_eq(l, ctx))
                .find(|l| l.live.lock().log_file.as_deref().map(name_key) == Some(pk.clone()))
            {
                return Err(Error::BadPathname(format!(
                    "log file {path:?} is already used by session {:?}",
                    l.cfg.name
                )));
            }
        }
        if let Some(path) = &u.log_file {
            self.switch_log_file(ctx, path, kernel)?;
        }
        // A machine-wide buffer limit leaves this session what the others do not reserve.
        let machine_cap = kernel.config.max_machine_buffer_bytes.map(|limit| {
            let left = limit.saturating_sub(self.buffer_bytes_reserved(Some(ctx)));
            let fits = left / (u64::from(ctx.cfg.buffer_size_kb) * 1024);
            u32::try_from(fits).unwrap_or(u32::MAX)
        });
        let mut live = ctx.live.lock();
        if u.flush_timer != 0 {
            live.flush_timer = u.flush_timer;
        }
        if let Some(path) = u.log_file {
            live.log_file = Some(path);
            if !live.mode.intersects(LogFileMode::FILE_LAYOUT)
                && !live.mode.contains(LogFileMode::BUFFERING)
            {
                live.mode |= LogFileMode::SEQUENTIAL;
            }
        }
        if private {
            return Ok(()); // SES-77: only the file and FlushTimer change for private sessions
        }
        if u.maximum_buffers != 0 && !live.mode.contains(LogFileMode::BUFFERING) {
            let cap = machine_cap.map_or(ctx.cfg.buffer_cap, |m| m.min(ctx.cfg.buffer_cap));
            live.maximum_buffers = u.maximum_buffers.min(cap).max(ctx.cfg.minimum_buffers);
            ctx.pool.set_max(live.maximum_buffers);
        }
        match u.real_time {
            Some(true) if !live.mode.contains(LogFileMode::BUFFERING) => {
                live.mode |= LogFileMode::REAL_TIME
            }
            Some(false) if live.log_file.is_some() => live.mode -= LogFileMode::REAL_TIME,
            _ => {}
        }
        if let (Some(flags), true) = (u.enable_flags, ctx.cfg.system_logger) {
            live.enable_flags = flags;
        }
        ctx.set_realtime(live.mode.contains(LogFileMode::REAL_TIME));
        crate::machine::thread::invalidate_lanes(); // lanes keep `realtime`
        Ok(())
    }

    /// UPDATE to a new log file (SES-77): the new file is created first (a failure changes
    /// nothing); what is buffered goes to the old file, which is then finished; a BUFFERING
    /// session's ring is written to the new file. A session whose buffers go to a sink the
    /// caller gave keeps that sink: only the name changes.
    fn switch_log_file(
        &self,
        ctx: &Arc<LoggerContext>,
        path: &str,
        kernel: &SessionEnv<'_>,
    ) -> Result<()> {
        let had_sink = ctx.sink.lock().is_some();
        if had_sink && !ctx.writes_file.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut eff = ctx.cfg.clone();
        eff.mode = ctx.live.lock().mode;
        if !eff.mode.intersects(LogFileMode::FILE_LAYOUT)
            && !eff.mode.contains(LogFileMode::BUFFERING)
        {
            eff.mode |= LogFileMode::SEQUENTIAL;
        }
        let clock = &kernel.core.clock;
        let start_raw = clock.raw(clock.peek(), eff.clock);
        let start = FileStart {
            path: path.to_owned(),
            logger_id: ctx.logger_id(),
            logger_thread_id: ctx.logger_thread_id,
            cpus: kernel.config.cpus,
            start_raw,
            start_filetime: crate::machine::clock::raw_to_filetime(
                start_raw,
                eff.clock,
                clock.boot_filetime(),
            ),
            boot_filetime: clock.boot_filetime(),
        };
        let new: Box<dyn Sink> = Box::new(EtlFileSink::create(&eff, &start, kernel.disk)?);
        let buffering = eff.mode.contains(LogFileMode::BUFFERING);
        if !buffering {
            ctx.flush_now(FlushReason::Control(TraceControl::Update));
        }
        let old = ctx.sink.lock().replace(new);
        ctx.writes_file.store(true, Ordering::Release);
        if let Some(mut old) = old {
            let _ = old.close(&ctx.properties());
        }
        if buffering {
            ctx.flush_now(FlushReason::Control(TraceControl::Update));
        }
        Ok(())
    }

    pub(crate) fn remove_session(&mut self, ctx: &Arc<LoggerContext>) -> SessionProperties {
        ctx.mark_stopped();
        let id = ctx.logger_id();
        if let Some(owner) = ctx.private_owner {
            self.sessions.private_loggers.remove(&id);
            if let Some(p) = self.processes.get_mut(&owner) {
                if ctx.in_proc {
                    p.private_in_proc_sessions -= 1;
                } else {
                    p.private_sessions -= 1;
                }
            }
        } else {
            self.vacate(id);
        }
        if let Some(i) = ctx.system_slot {
            self.sessions.system_loggers[i] = None;
        }
        ctx.properties()
    }
}

impl State {
    /// A process's private sessions end with it (SES-42): disabled everywhere, removed from
    /// the table, finished.
    pub(crate) fn end_private_sessions(&mut self, owner: u64) {
        let private: Vec<_> = self
            .sessions
            .private_loggers
            .values()
            .filter(|l| l.private_owner == Some(owner))
            .cloned()
            .collect();
        for ctx in private {
            let _ = self.disable_everywhere(&ctx);
            self.sessions.private_loggers.remove(&ctx.logger_id());
            ctx.mark_stopped();
        }
    }
}
