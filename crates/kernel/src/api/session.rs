//! The session entry points: [`SessionBuilder`](crate::SessionBuilder) and the controller's
//! handle [`Session`](crate::Session), and StartTrace, ControlTrace and QueryAllTraces on the
//! kernel. Each checks and orders the work and calls into the session table
//! (`control::session`).

use crate::Result;
use crate::api::kernel::Kernel;
use crate::api::process::Process;
use crate::control::access::check_control_access;
use crate::control::notify::SessionNotification;
use crate::control::session::SessionConfig;
use crate::control::session::SessionEnv;
use crate::control::session::SessionUpdate;
use crate::control::session::Target;
use crate::control::session::validate;
use crate::control::state::State;
use crate::data::consumer::Consumer;
use crate::data::consumer::ConsumerOptions;
use crate::data::context::LoggerContext;
use crate::data::context::LoggerThread;
use crate::data::properties::SessionProperties;
use crate::data::sink::Sink;
use crate::error::Error;
use crate::journal::FlushReason;
use crate::machine::ids::TraceHandle;
use etwsim_types::ClockType;
use etwsim_types::Guid;
use etwsim_types::LogFileMode;
use etwsim_types::TraceControl;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
/// Builds and starts a session: the Rust face of StartTrace.
///
/// The setters may come in any order: each adds its part, and [`SessionBuilder::start`]
/// computes the final `LogFileMode` from all of them —
///
/// * [`mode`](SessionBuilder::mode) adds its bits (calling it twice adds both);
/// * [`log_file`](SessionBuilder::log_file) names the file, and adds SEQUENTIAL when no file
///   layout (SEQUENTIAL, CIRCULAR, NEWFILE) was chosen (the mode-0 file of SES-31 is made
///   with a [`SessionConfig`] and [`Kernel::start_trace`]);
/// * [`real_time`](SessionBuilder::real_time) adds REAL_TIME, [`buffering`](SessionBuilder::buffering)
///   BUFFERING;
/// * with none of these, the session is REAL_TIME.
///
/// Combinations StartTrace refuses are refused by `start()` with its code (SES-23: for
/// example `buffering()` with `log_file(..)` or `real_time()` is ERROR_INVALID_PARAMETER).
///
/// Buffer settings are adjusted as StartTrace adjusts them (SES-57…SES-60): BufferSize 0
/// becomes 64 KB, MinimumBuffers is raised to 2 per CPU, MaximumBuffers to at least
/// MinimumBuffers (+20 when it is 0) — `maximum_buffers(2)` on a 4-CPU kernel becomes 8 —
/// and [`Session::query`] shows the values in force, not the ones asked for.
#[must_use = "a SessionBuilder does nothing until start() is called"]
pub struct SessionBuilder {
    pub(in crate::api) kernel: Kernel,
    pub(in crate::api) caller: Option<Process>,
    pub(in crate::api) config: SessionConfig,
    pub(in crate::api) sink: Option<Box<dyn Sink>>,
    /// The bits `mode(..)` added, if it was called.
    pub(in crate::api) mode: Option<LogFileMode>,
    pub(in crate::api) real_time: bool,
    pub(in crate::api) buffering: bool,
}

impl std::fmt::Debug for SessionBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionBuilder")
            .field("caller", &self.caller)
            .field("config", &self.config())
            .field("sink", &self.sink.is_some())
            .finish_non_exhaustive()
    }
}

impl SessionBuilder {
    /// The GUID (`Wnode.Guid`).
    pub fn guid(mut self, guid: Guid) -> Self {
        self.config.guid = guid;
        self
    }
    /// Adds `LogFileMode` bits (see the type's docs for how the final mode is made).
    pub fn mode(mut self, mode: LogFileMode) -> Self {
        self.mode = Some(self.mode.unwrap_or_else(LogFileMode::empty) | mode);
        self
    }
    /// A log file (SEQUENTIAL unless a file layout is chosen).
    pub fn log_file(mut self, path: &str) -> Self {
        self.config.log_file = Some(path.into());
        self
    }
    /// Adds REAL_TIME.
    pub fn real_time(mut self) -> Self {
        self.real_time = true;
        self
    }
    /// Adds BUFFERING (an in-memory ring; StartTrace refuses it with a file or real time).
    pub fn buffering(mut self) -> Self {
        self.buffering = true;
        self
    }
    /// `BufferSize` in KB.
    pub fn buffer_size_kb(mut self, kb: u32) -> Self {
        self.config.buffer_size_kb = kb;
        self
    }
    /// `MinimumBuffers`.
    pub fn minimum_buffers(mut self, n: u32) -> Self {
        self.config.minimum_buffers = n;
        self
    }
    /// `MaximumBuffers`.
    pub fn maximum_buffers(mut self, n: u32) -> Self {
        self.config.maximum_buffers = n;
        self
    }
    /// `MaximumFileSize`.
    pub fn maximum_file_size(mut self, n: u32) -> Self {
        self.config.maximum_file_size = n;
        self
    }
    /// `FlushTimer` in seconds.
    pub fn flush_timer(mut self, seconds: u32) -> Self {
        self.config.flush_timer = seconds;
        self
    }
    /// The clock type.
    pub fn clock(mut self, clock: ClockType) -> Self {
        self.config.clock = clock.raw();
        self
    }
    /// `EnableFlags` (system loggers).
    pub fn enable_flags(mut self, flags: u32) -> Self {
        self.config.enable_flags = flags;
        self
    }
    /// Start it as `process` instead of the kernel's System process.
    pub fn caller(mut self, process: &Process) -> Self {
        self.caller = Some(process.clone());
        self
    }
    /// The configuration StartTrace will get: the settings so far, with the `LogFileMode`
    /// their parts make (before StartTrace's own adjustments).
    pub fn config(&self) -> SessionConfig {
        let mut mode = self.mode.unwrap_or_else(LogFileMode::empty);
        if self.real_time {
            mode |= LogFileMode::REAL_TIME;
        }
        if self.buffering {
            mode |= LogFileMode::BUFFERING;
        }
        if self.config.log_file.is_some() && !mode.intersects(LogFileMode::FILE_LAYOUT) {
            mode |= LogFileMode::SEQUENTIAL;
        }
        if self.mode.is_none()
            && !self.real_time
            && !self.buffering
            && self.config.log_file.is_none()
        {
            mode = LogFileMode::REAL_TIME; // nothing chosen: a real-time session
        }
        SessionConfig {
            mode,
            ..self.config.clone()
        }
    }
    /// StartTrace with the configuration [`SessionBuilder::config`] shows.
    ///
    /// # Errors
    /// As [`Kernel::start_trace`]; a combination of setters StartTrace refuses gets its code
    /// (SES-23). Nothing changes when an error is returned.
    pub fn start(self) -> Result<Session> {
        let config = self.config();
        let caller = self.caller.unwrap_or_else(|| self.kernel.system_process());
        self.kernel
            .start_trace_with_sink(&caller, &config, self.sink)
    }

    /// Writes flushed buffers to `sink` (for example a [`crate::MemorySink`] a test inspects)
    /// instead of the session's log file.
    pub fn sink(mut self, sink: impl Sink + 'static) -> Self {
        self.sink = Some(Box::new(sink));
        self
    }
}

/// A controller's handle to a running session. Control calls run as the process that
/// started it. Dropping the handle leaves the session running (SES-16).
#[derive(Clone, Debug)]
pub struct Session {
    pub(in crate::api) kernel: Kernel,
    pub(crate) ctx: Arc<LoggerContext>,
    pub(crate) caller: Process,
}

impl Session {
    /// The session handle.
    pub fn handle(&self) -> TraceHandle {
        self.ctx.handle
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.ctx.cfg.name
    }
    /// The session GUID.
    pub fn guid(&self) -> Guid {
        self.ctx.cfg.guid
    }
    /// The logger id.
    pub fn logger_id(&self) -> u16 {
        self.ctx.logger_id()
    }
    /// `true` until it stops.
    pub fn is_running(&self) -> bool {
        self.ctx.is_running()
    }
    /// The kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }
    /// Full buffers waiting for the logger (deterministic mode: until the next step).
    pub fn pending_buffers(&self) -> usize {
        self.ctx.pool.ready_count()
    }

    /// Bytes of events still in the session's buffers, not yet written out (the in-use
    /// buffers' records, and whole buffers waiting for the logger). 0 after a STOP: the final
    /// flush leaves nothing behind, even with writers racing it.
    pub fn unflushed_bytes(&self) -> u64 {
        self.ctx.pool.unflushed_bytes()
    }

    /// Buffers in the real-time backing store, waiting for a consumer (BUF-12).
    pub fn realtime_backlog(&self) -> usize {
        self.ctx.rt.backlog_len()
    }

    /// Real-time consumers attached (CON-08).
    pub fn consumer_count(&self) -> usize {
        self.ctx.rt.consumer_count()
    }

    /// The session's settings and statistics as they are now — or, once it has stopped (by
    /// a STOP from anyone, a full SEQUENTIAL file (SES-62), a shutdown), as they were at the
    /// end: the final BuffersWritten, EventsLost, LogBuffersLost and RealTimeBuffersLost
    /// (BUF-07, SES-76). Not a Windows call (there, the final statistics reach only the
    /// caller that stopped the session, and the log file's header); no access check, no
    /// journal entry.
    pub fn statistics(&self) -> SessionProperties {
        self.ctx.properties()
    }

    /// ControlTrace(QUERY).
    ///
    /// # Errors
    /// `ERROR_WMI_INSTANCE_NOT_FOUND` once the session has stopped.
    pub fn query(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Query,
            None,
        )
    }
    /// ControlTrace(UPDATE).
    ///
    /// # Errors
    /// As [`Kernel::control_trace`].
    pub fn update(&self, update: &SessionUpdate) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Update,
            Some(update),
        )
    }
    /// ControlTrace(FLUSH).
    ///
    /// # Errors
    /// As [`Kernel::control_trace`].
    pub fn flush(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Flush,
            None,
        )
    }
    /// ControlTrace(STOP): disables every provider it enabled (with callbacks, SES-80),
    /// flushes, and returns the final statistics.
    ///
    /// # Errors
    /// `ERROR_ACTIVE_CONNECTIONS` if a stop is already under way, `ERROR_WMI_INSTANCE_NOT_FOUND`
    /// once stopped.
    pub fn stop(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::Stop,
            None,
        )
    }
    /// ControlTrace(INCREMENT_FILE).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` unless the session is NEWFILE.
    pub fn increment_file(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::IncrementFile,
            None,
        )
    }
    /// ControlTrace(CONVERT_TO_REALTIME).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` unless the session writes a file and is not real-time yet.
    pub fn convert_to_realtime(&self) -> Result<SessionProperties> {
        self.kernel.control_trace(
            &self.caller,
            Target::Handle(self.handle()),
            TraceControl::ConvertToRealtime,
            None,
        )
    }
}

impl Kernel {
    /// A [`SessionBuilder`] for a real-time session named `name`, started as the System
    /// process unless [`SessionBuilder::caller`] says otherwise.
    pub fn session(&self, name: &str) -> SessionBuilder {
        SessionBuilder {
            kernel: self.clone(),
            caller: None,
            config: SessionConfig::new(name),
            sink: None,
            mode: None,
            real_time: false,
            buffering: false,
        }
    }

    /// StartTrace: validates `config`, checks access and limits, and starts the session.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER`, `ERROR_BAD_PATHNAME`, `ERROR_ALREADY_EXISTS`,
    /// `ERROR_NO_SYSTEM_RESOURCES`, `ERROR_ACCESS_DENIED`, `ERROR_DISK_FULL`, as the rules of
    /// SES 1.1–1.6 say. Nothing changes when an error is returned.
    pub fn start_trace(&self, caller: &Process, config: &SessionConfig) -> Result<Session> {
        self.start_trace_with_sink(caller, config, None)
    }

    /// StartTrace with the flushed buffers going to `sink` instead of the log file.
    ///
    /// # Errors
    /// As [`Kernel::start_trace`].
    pub fn start_trace_with_sink(
        &self,
        caller: &Process,
        config: &SessionConfig,
        sink: Option<Box<dyn Sink>>,
    ) -> Result<Session> {
        let r = self.start_trace_unjournaled(caller, config, sink, false);
        self.note_control(
            || "StartTrace".to_string(),
            || format!("{:?}", config.name),
            self.is_journaling().then(|| config.name.clone()),
            &r,
        );
        r
    }

    /// StartTrace of an AutoLogger session at boot: as [`Kernel::start_trace`], and
    /// EVENT_TRACE_NONSTOPPABLE_MODE is allowed (SES-37: AutoLoggers only).
    pub(crate) fn start_autologger(
        &self,
        caller: &Process,
        config: &SessionConfig,
    ) -> Result<Session> {
        let r = self.start_trace_unjournaled(caller, config, None, true);
        self.note_control(
            || "StartTrace (AutoLogger)".to_string(),
            || format!("{:?}", config.name),
            self.is_journaling().then(|| config.name.clone()),
            &r,
        );
        r
    }

    fn start_trace_unjournaled(
        &self,
        caller: &Process,
        config: &SessionConfig,
        sink: Option<Box<dyn Sink>>,
        autologger: bool,
    ) -> Result<Session> {
        self.check_thread()?;
        let eff = validate(config, self.cpu_count(), self.config(), autologger)?;
        let kernel = self.clone();
        let ctx = self.control(move |s: &mut State| {
            let rec = s.live_process(caller.start_key)?.clone();
            s.admit_session(&rec, eff, &kernel.session_env(), sink)
                .map(|ctx| (ctx, Vec::new()))
        })?;
        // A system logger joins the kernel-event table and gets its DCStart rundown (SES-70).
        self.system_session_started(&ctx);
        if !self.is_deterministic() {
            let parker = crossbeam::sync::Parker::new();
            let unparker = parker.unparker().clone();
            match LoggerThread::spawn(ctx.clone(), parker) {
                Ok(t) => {
                    ctx.pool.set_waker(Box::new(move || unparker.unpark()));
                    *ctx.logger.lock() = Some(t);
                }
                Err(e) => {
                    let _ = self.stop_trace_as(caller, Target::Handle(ctx.handle), true);
                    return Err(Error::Other {
                        code: etwsim_types::Win32Error::ERROR_NO_SYSTEM_RESOURCES,
                        context: format!("the logger thread could not start: {e}"),
                    });
                }
            }
        }
        self.notify_session(SessionNotification::SessionStarted, &ctx.properties(), 0);
        Ok(Session {
            kernel: self.clone(),
            ctx,
            caller: caller.clone(),
        })
    }

    /// ControlTrace: QUERY, UPDATE (with `update`), FLUSH, STOP, INCREMENT_FILE or
    /// CONVERT_TO_REALTIME on the session `target` names, as `caller`.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for a zero or unknown handle, `ERROR_WMI_INSTANCE_NOT_FOUND`
    /// for a name that is not running or a stopped session's handle, `ERROR_ACCESS_DENIED`,
    /// `ERROR_ACTIVE_CONNECTIONS` for a second STOP, `ERROR_BAD_PATHNAME` for an UPDATE to a
    /// file in use.
    pub fn control_trace(
        &self,
        caller: &Process,
        target: Target<'_>,
        code: TraceControl,
        update: Option<&SessionUpdate>,
    ) -> Result<SessionProperties> {
        let session = self.journal_session(caller, target);
        let r = self.control_trace_unjournaled(caller, target, code, update);
        self.note_control(
            || format!("ControlTrace({})", code.name()),
            || target.to_string(),
            session,
            &r,
        );
        r
    }

    fn control_trace_unjournaled(
        &self,
        caller: &Process,
        target: Target<'_>,
        code: TraceControl,
        update: Option<&SessionUpdate>,
    ) -> Result<SessionProperties> {
        if code != TraceControl::Query {
            self.check_thread()?; // a single-threaded kernel's buffers are its thread's
        }
        if code == TraceControl::Stop {
            return self.stop_trace(caller, target);
        }
        let props = self.control(|s: &mut State| {
            let rec = s.live_process(caller.start_key)?.clone();
            let ctx = s.resolve(caller.start_key, target)?;
            check_control_access(s, &rec, &ctx, code)?;
            if !ctx.is_running() && code != TraceControl::Query {
                return Err(Error::StopInProgress { name: ctx.cfg.name.clone() });
            }
            match code {
                TraceControl::Query => {}
                TraceControl::Flush => ctx.flush_now(FlushReason::Control(code)), // a full file is reaped below (SES-62)
                TraceControl::Update => {
                    s.update_session(&ctx, update.cloned().unwrap_or_default(), &self.session_env())?;
                    self.system_flags_updated(&ctx); // SES-77: new EnableFlags take effect
                }
                TraceControl::IncrementFile => {
                    if !ctx.live.lock().mode.contains(LogFileMode::NEWFILE) {
                        return Err(Error::invalid("INCREMENT_FILE needs a NEWFILE session"));
                    }
                    // SES-81: what is buffered goes to the current file, then the next begins.
                    ctx.flush_now(FlushReason::Control(code));
                    let counter = match ctx.sink.lock().as_mut() {
                        Some(sink) if ctx.writes_file.load(Ordering::Acquire) => {
                            sink.increment_file().map_err(|e| Error::Other {
                                code: etwsim_types::Win32Error::ERROR_DISK_FULL,
                                context: format!("the next log file could not be started: {e}"),
                            })?
                        }
                        _ => ctx.live.lock().file_counter + 1,
                    };
                    ctx.live.lock().file_counter = counter;
                }
                TraceControl::ConvertToRealtime => {
                    let mut live = ctx.live.lock();
                    if live.log_file.is_none()
                        || live.mode.intersects(LogFileMode::REAL_TIME | LogFileMode::BUFFERING)
                        || ctx.private_owner.is_some()
                    {
                        return Err(Error::invalid(
                            "CONVERT_TO_REALTIME needs a non-private file session that is not real-time",
                        ));
                    }
                    live.mode = (live.mode - LogFileMode::FILE_LAYOUT - LogFileMode::PREALLOCATE)
                        | LogFileMode::REAL_TIME;
                    live.log_file = None;
                    drop(live);
                    // SES-81: ETL writing off, real-time delivery on, from the next buffer.
                    ctx.flush_now(FlushReason::Control(code));
                    ctx.set_realtime(true);
                    crate::machine::thread::invalidate_lanes(); // lanes keep `realtime`
                    if let Some(mut sink) = ctx.sink.lock().take() {
                        let _ = sink.close(&ctx.properties());
                    }
                }
                TraceControl::Stop => unreachable!("handled above"),
            }
            Ok((ctx.properties(), Vec::new()))
        })?;
        // Logger work a control call did may have filled a SEQUENTIAL file (SES-62).
        self.reap_full_sessions();
        let new_file = code == TraceControl::IncrementFile
            || (code == TraceControl::Update && update.is_some_and(|u| u.log_file.is_some()));
        if new_file {
            self.notify_session(SessionNotification::MediaChanged, &props, 0);
        }
        Ok(props)
    }

    /// ControlTrace(STOP) in two phases: mark the session stopping and disable its providers
    /// (the callbacks run with the session still listed, so a second STOP from a callback
    /// sees `ERROR_ACTIVE_CONNECTIONS`), then remove it and return the final statistics.
    pub(in crate::api) fn stop_trace(
        &self,
        caller: &Process,
        target: Target<'_>,
    ) -> Result<SessionProperties> {
        self.stop_trace_as(caller, target, false)
    }

    /// ControlTrace(STOP); `shutdown`: the machine is shutting down, which stops even a
    /// NONSTOPPABLE AutoLogger session (SES-37).
    pub(crate) fn stop_trace_as(
        &self,
        caller: &Process,
        target: Target<'_>,
        shutdown: bool,
    ) -> Result<SessionProperties> {
        let ctx = self.control(|s: &mut State| {
            let rec = s.live_process(caller.start_key)?.clone();
            let ctx = s.resolve(caller.start_key, target)?;
            check_control_access(s, &rec, &ctx, TraceControl::Stop)?;
            if !shutdown && ctx.cfg.mode.contains(LogFileMode::NONSTOPPABLE) {
                // SES-37 says only that the session cannot be stopped; the code is a choice.
                return Err(Error::AccessDenied(format!(
                    "{} is an AutoLogger session in EVENT_TRACE_NONSTOPPABLE_MODE: it stops \
                     only when the machine shuts down",
                    ctx.cfg.name
                )));
            }
            if !ctx.begin_stop() {
                return Err(Error::StopInProgress {
                    name: ctx.cfg.name.clone(),
                });
            }
            // The single-threaded engine's lanes write only into running sessions.
            crate::machine::thread::invalidate_lanes();
            let pending = s.disable_everywhere(&ctx);
            Ok((ctx, pending))
        })?;
        // SES-70, KRN-32: a system logger's DCEnd and FileRundown events, before the flush.
        self.system_session_stopping(&ctx);
        // SES-79: the remaining buffered events are flushed as part of stopping — after every
        // write that saw the session running has finished (see `BufferPool::enter`).
        ctx.pool.wait_writers();
        if let Some(t) = ctx.logger.lock().take() {
            t.stop(); // returns at once when called from the logger thread itself (SES-62)
        }
        if !ctx.cfg.mode.contains(LogFileMode::BUFFERING) {
            ctx.flush_now(FlushReason::Stop);
        }
        let props = self.control(|s: &mut State| Ok((s.remove_session(&ctx), Vec::new())))?;
        if let Some(mut sink) = ctx.sink.lock().take() {
            // The statistics are final either way; a failure to finish the file shows in
            // the file itself (issue 4's writer reports it).
            let _ = sink.close(&props);
        }
        ctx.rt.notify();
        self.notify_session(SessionNotification::SessionTerminated, &props, 0);
        Ok(props)
    }

    /// QueryAllTraces as `caller`: the running non-private sessions the caller may query, in
    /// logger-id order (SES-82, SEC-10).
    pub fn query_all_traces(&self, caller: &Process) -> Vec<SessionProperties> {
        self.with_state(|s| {
            let Some(rec) = s.processes.get(&caller.start_key) else {
                return Vec::new();
            };
            // SES-82: only the sessions the caller may query (a Performance Log User, say,
            // does not see the NT Kernel Logger, which it may not control).
            s.sessions
                .shared()
                .filter(|l| check_control_access(s, rec, l, TraceControl::Query).is_ok())
                .map(|l| l.properties())
                .collect()
        })
    }

    /// The running sessions, as the System process sees them (`xperf -Loggers`).
    pub fn sessions(&self) -> Vec<SessionProperties> {
        self.query_all_traces(&self.system_process())
    }
}

impl Kernel {
    /// OpenTrace on the real-time session `name`, as `caller` (CON-01). The session's
    /// backlog, if any, is delivered first (BUF-12).
    ///
    /// # Errors
    /// `ERROR_ACCESS_DENIED` unless the caller may consume in real time (SEC-05);
    /// `ERROR_WMI_INSTANCE_NOT_FOUND` if no such session runs or it is not real-time (CON-03).
    pub fn open_realtime(
        &self,
        caller: &Process,
        name: &str,
        options: ConsumerOptions,
    ) -> Result<Consumer> {
        let ctx = self.with_state(|s| {
            let rec = s.live_process(caller.start_key)?;
            let ctx = s.resolve(caller.start_key, Target::Name(name))?;
            // SEC-02, SEC-05: TRACELOG_ACCESS_REALTIME on the session GUID.
            s.check_access(
                &rec.token,
                ctx.cfg.guid,
                etwsim_registry::TraceOperation::ConsumeRealTime,
                rec.token.may_control_sessions(),
            )?;
            Ok(ctx)
        })?;
        if !ctx.is_running() || !ctx.live.lock().mode.contains(LogFileMode::REAL_TIME) {
            return Err(Error::SessionNotFound(format!(
                "session {name:?} is not a running real-time session"
            )));
        }
        let queue = ctx.rt.attach(self.config().consumer_queue_buffers as usize);
        Ok(Consumer {
            boot_filetime: self.inner.clock.boot_filetime(),
            ctx,
            queue,
            options,
            ready: VecDeque::new(),
        })
    }
}

impl Kernel {
    /// The name of the session `target` names as `caller` sees it, for the journal: resolved
    /// before the call (a STOP removes it); the name as given when nothing runs by it.
    /// `None` without a journal (nothing is looked up then).
    pub(in crate::api) fn journal_session(
        &self,
        caller: &Process,
        target: crate::control::session::Target<'_>,
    ) -> Option<String> {
        if !self.is_journaling() {
            return None;
        }
        let found = self.with_state(|s| {
            s.resolve(caller.start_key, target)
                .ok()
                .map(|c| c.cfg.name.clone())
        });
        found.or_else(|| match target {
            crate::control::session::Target::Name(n) => Some(n.to_owned()),
            crate::control::session::Target::Handle(_) => None,
        })
    }

    /// What StartTrace and UPDATE need of this kernel (`control::session`).
    pub(in crate::api) fn session_env(&self) -> SessionEnv<'_> {
        let owner: Arc<dyn crate::data::context::SessionOwner> = self.inner.clone();
        SessionEnv {
            core: &self.inner.core,
            config: &self.inner.config,
            disk: self.disk(),
            owner: Arc::downgrade(&owner),
        }
    }
}
