//! Where sessions meet the kernel-event path: a system logger joins the table at start and
//! gets the DCStart rundown, changes its selection with UPDATE, TraceSetInformation or the
//! System Providers, gets a rundown on CAPTURE_STATE, and leaves with the DCEnd and
//! FileRundown events (SES-70, KRN-31…KRN-35).
//!
//! Rundown events carry the moment they are written; process, thread and image events carry
//! the described process (and thread) in their header, FileRundown the System process.

use crate::control::provider::{EnableNotification, EnableParams, Pending};
use crate::control::session::{LoggerContext, Target};
use crate::machine::kernel::{Kernel, State};
use crate::machine::process::Process;
use crate::system::emit::{self, FILE_NAME_VERSION, Origin, SysLogger};
use crate::system::flags::{GroupMask, SystemProvider, event_trace_flag as flag};
use crate::system::manifest::{self, KERNEL_RUNDOWN_FILENAME_KEYWORD};
use crate::system::os::{self, STILL_ACTIVE};
use crate::{Error, Result};
use etwsim_decode::fields::Value;
use etwsim_decode::mof::{FILE_IO, IMAGE, PROCESS, THREAD};
use etwsim_types::{ControlCode, Guid};
use std::sync::Arc;

/// Which rundown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Rundown {
    /// At start: DCStart (3).
    Start,
    /// At stop: DCEnd (4) and FileRundown (36).
    End,
    /// CAPTURE_STATE: DCStart and FileRundown (KRN-34's choice).
    Capture,
}

/// Writes the rundown `kind` of what `l` selects into its session.
fn rundown(k: &Kernel, l: &SysLogger, kind: Rundown) {
    let at_stop = kind == Rundown::End;
    let event = if kind == Rundown::End {
        "DCEnd"
    } else {
        "DCStart"
    };
    let (procs, keys) = {
        let os = k.inner.sys.os.lock();
        (os.processes.clone(), os.open_keys())
    };
    let write = |schema: &etwsim_decode::mof::Schema, values: &[Value], o: &Origin| {
        if let Some(p) = emit::payload(schema, values) {
            if let Some(mut rec) = emit::system_record(schema, p, o) {
                emit::store(&l.ctx, &mut rec, o, at_stop);
            }
        }
    };
    let at = |pid: u32, tid: u32| Origin {
        pid,
        tid,
        cpu: 0,
        ticks: k.inner.clock.event_now(),
    };
    if l.wants(flag::PROCESS) {
        let s = PROCESS.schema(event, 4).expect("Process v4");
        for (key, p) in &procs {
            write(
                &s,
                &os::process_values(*key, p, STILL_ACTIVE),
                &at(p.pid, 0),
            );
        }
    }
    if l.wants(flag::THREAD) {
        let s = THREAD.schema(event, 3).expect("Thread v3");
        for p in procs.values() {
            for tid in p.threads.keys() {
                write(
                    &s,
                    &os::thread_values(p.pid, *tid, k.cpu_count()),
                    &at(p.pid, *tid),
                );
            }
        }
    }
    if l.wants(flag::IMAGE_LOAD) {
        let s = IMAGE.schema(event, 3).expect("Image v3");
        for p in procs.values() {
            for (base, i) in &p.images {
                write(&s, &os::image_values(p.pid, *base, i), &at(p.pid, 0));
            }
        }
    }
    if kind != Rundown::Start && l.wants(flag::DISK_FILE_IO) {
        file_rundown(k, &l.ctx, &keys, at_stop);
        l.named.lock().extend(keys.keys().copied());
    }
}

/// One FileRundown (36) per open FileKey into `ctx` (KRN-32).
fn file_rundown(
    k: &Kernel,
    ctx: &LoggerContext,
    keys: &std::collections::BTreeMap<u64, String>,
    at_stop: bool,
) {
    let s = FILE_IO
        .schema("FileRundown", FILE_NAME_VERSION)
        .expect("FileIo_Name");
    let system = k.system_process().pid();
    for (key, name) in keys {
        let o = Origin {
            pid: system,
            tid: 0,
            cpu: 0,
            ticks: k.inner.clock.event_now(),
        };
        let values = [Value::Pointer(*key), Value::String(name.clone())];
        if let Some(p) = emit::payload(&s, &values) {
            if let Some(mut rec) = emit::system_record(&s, p, &o) {
                emit::store(ctx, &mut rec, &o, at_stop);
            }
        }
    }
}

impl Kernel {
    /// StartTrace's hook: a system logger joins the kernel-event table with its EnableFlags
    /// and gets the DCStart rundown (SES-70, KRN-31).
    pub(crate) fn system_session_started(&self, ctx: &Arc<LoggerContext>) {
        if !ctx.cfg.system_logger {
            return;
        }
        let flags = ctx.live.lock().enable_flags;
        let l = self
            .inner
            .sys
            .loggers
            .add(ctx, GroupMask::from_enable_flags(flags));
        rundown(self, &l, Rundown::Start);
    }

    /// ControlTrace(UPDATE)'s hook: the new EnableFlags replace the whole group mask (SES-77;
    /// the later words are cleared — choice).
    pub(crate) fn system_flags_updated(&self, ctx: &Arc<LoggerContext>) {
        let loggers = &self.inner.sys.loggers;
        if let Some(l) = loggers.find(ctx) {
            let flags = ctx.live.lock().enable_flags;
            loggers.update(&l, |m| m.base = GroupMask::from_enable_flags(flags));
        }
    }

    /// STOP's hook, after the session is marked stopping and before its final flush: DCEnd
    /// and FileRundown into it (KRN-31, KRN-32, KRN-37), then it leaves the table.
    pub(crate) fn system_session_stopping(&self, ctx: &Arc<LoggerContext>) {
        let sys = &self.inner.sys;
        sys.rundown_sessions.lock().remove(&ctx.handle.0);
        if let Some(l) = sys.loggers.find(ctx) {
            rundown(self, &l, Rundown::End);
            sys.loggers.remove(ctx);
        }
    }

    /// TraceSetInformation(TraceSystemTraceEnableFlagsInfo) on a system logger (KRN-06): the
    /// group mask (4 to 32 bytes of ULONGs; word 0 becomes its EnableFlags).
    ///
    /// # Errors
    /// `ERROR_BAD_LENGTH` for another length; `ERROR_INVALID_PARAMETER` if the session is not
    /// a system logger (undocumented: choice); the errors of ControlTrace's session lookup
    /// and access check.
    pub fn set_system_trace_enable_flags(
        &self,
        caller: &Process,
        target: Target<'_>,
        mask: &[u8],
    ) -> Result<()> {
        let mask = GroupMask::from_bytes(mask)?;
        let ctx = self.system_logger_for(caller, target)?;
        ctx.live.lock().enable_flags = mask.0[0];
        let loggers = &self.inner.sys.loggers;
        if let Some(l) = loggers.find(&ctx) {
            loggers.update(&l, |m| m.base = mask);
        }
        Ok(())
    }

    /// TraceQueryInformation(TraceSystemTraceEnableFlagsInfo): the system logger's group mask
    /// as set by EnableFlags, UPDATE or TraceSetInformation, 8 ULONGs (KRN-06).
    ///
    /// # Errors
    /// As [`Kernel::set_system_trace_enable_flags`].
    pub fn query_system_trace_enable_flags(
        &self,
        caller: &Process,
        target: Target<'_>,
    ) -> Result<GroupMask> {
        let ctx = self.system_logger_for(caller, target)?;
        Ok(self
            .inner
            .sys
            .loggers
            .find(&ctx)
            .map_or_else(GroupMask::default, |l| l.masks.lock().base))
    }

    fn system_logger_for(
        &self,
        caller: &Process,
        target: Target<'_>,
    ) -> Result<Arc<LoggerContext>> {
        // QUERY resolves the session and checks the caller's access.
        let props = self.control_trace(caller, target, etwsim_types::TraceControl::Query, None)?;
        let ctx = self.with_state(|s| {
            s.running_loggers()
                .find(|l| l.handle == props.handle)
                .cloned()
        });
        match ctx {
            Some(c) if c.cfg.system_logger => Ok(c),
            Some(c) => Err(Error::invalid(format!(
                "session {:?} is not a system logger",
                c.cfg.name
            ))),
            None => Err(Error::SessionNotFound(props.name)),
        }
    }
}

/// EnableTraceEx2's hook, called with the state lock held after the arguments were checked:
/// registers the kernel's manifest providers on their first enable; takes the System
/// Providers (KRN-03, PRV-28) into system loggers' masks and refuses them elsewhere; runs the
/// CAPTURE_STATE rundown of SystemTraceControlGuid with a TRACEHANDLE filter (KRN-34,
/// PRV-27). `Some` ends EnableTraceEx2 with that result.
pub(crate) fn enable_hook(
    s: &mut State,
    ctx: &Arc<LoggerContext>,
    guid: Guid,
    code: ControlCode,
    p: &EnableParams,
    trace_handle: Option<u64>,
) -> Option<Result<Vec<Pending>>> {
    let inner = ctx.kernel.upgrade()?;
    if code == ControlCode::EnableProvider {
        manifest::ensure_registered(s, &inner, guid);
    }
    let kernel = Kernel { inner };
    if let Some(sp) = SystemProvider::by_guid(guid) {
        if !ctx.cfg.system_logger {
            return Some(Err(Error::invalid(format!(
                "{} can be enabled only into a session with EVENT_TRACE_SYSTEM_LOGGER_MODE",
                sp.name
            ))));
        }
        let loggers = &kernel.inner.sys.loggers;
        if let Some(l) = loggers.find(ctx) {
            match code {
                ControlCode::EnableProvider => loggers.update(&l, |m| {
                    m.providers.insert(guid, p.match_any.0);
                }),
                ControlCode::DisableProvider => loggers.update(&l, |m| {
                    m.providers.remove(&guid);
                }),
                ControlCode::CaptureState => rundown(&kernel, &l, Rundown::Capture),
            }
        }
        return Some(Ok(Vec::new()));
    }
    if let (Some(h), ControlCode::CaptureState, true) =
        (trace_handle, code, guid == Guid::SYSTEM_TRACE_CONTROL)
    {
        let target = s.running_loggers().find(|l| l.handle.0 == h).cloned();
        if let Some(l) = target.and_then(|t| kernel.inner.sys.loggers.find(&t)) {
            rundown(&kernel, &l, Rundown::Capture);
        }
    }
    None
}

/// Kernel-Rundown's enable callback (KRN-35): each session that newly enables it with the
/// file-name keyword (or any session, on CAPTURE_STATE) gets a FileRundown of the open files.
pub(crate) fn rundown_provider_notified(k: &Kernel, n: &EnableNotification) {
    let sys = &k.inner.sys;
    let Some(p) = sys.providers.rundown.get() else {
        return;
    };
    let capture = n.is_enabled == ControlCode::CaptureState;
    let mut routed = Vec::new();
    p.with_routes(|routes| {
        for r in routes.iter() {
            let any = r.filter.match_any.0;
            if r.logger.is_running() && (any == 0 || any & KERNEL_RUNDOWN_FILENAME_KEYWORD != 0) {
                routed.push(r.logger.clone());
            }
        }
    });
    let targets: Vec<Arc<LoggerContext>> = {
        let mut done = sys.rundown_sessions.lock();
        done.retain(|h| routed.iter().any(|c| c.handle.0 == *h));
        routed
            .into_iter()
            .filter(|c| done.insert(c.handle.0) || capture)
            .collect()
    };
    if targets.is_empty() {
        return;
    }
    let keys = sys.os.lock().open_keys();
    for ctx in targets {
        file_rundown(k, &ctx, &keys, false);
    }
}
