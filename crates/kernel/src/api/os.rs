//! The simulated operating system's entry points: processes and threads starting and
//! exiting, images, files and the I/O on them, and the system sessions' rundowns. Each keeps
//! the OS tables (`system::os`) and writes the kernel events the running system loggers and
//! kernel providers select (`data::sys`, `api::sysproviders`).

use crate::Result;
use crate::api::kernel::Kernel;
use crate::api::process::Process;
use crate::api::sysproviders::Rundown;
use crate::api::sysproviders::rundown;
use crate::control::session::Target;
use crate::data::context::LoggerContext;
use crate::data::sys as emit;
use crate::data::sys::KERNEL_PROCESS;
use crate::data::sys::Origin;
use crate::data::sys::SysRecord;
use crate::error::Error;
use crate::filter::flags::GroupMask;
use crate::filter::flags::event_trace_flag as flag;
use crate::system::os::HOOKS;
use crate::system::os::ImageRecord;
use crate::system::os::ImageRow;
use crate::system::os::OsProcess;
use crate::system::os::SHORT_IMAGE_PATH;
use crate::system::os::STILL_ACTIVE;
use crate::system::os::ShortImageRecord;
use crate::system::os::digest;
use crate::system::os::image_record;
use crate::system::os::image_values;
use crate::system::os::nt_path_shared;
use crate::system::os::process_values;
use crate::system::os::schema;
use crate::system::os::thread_record;
use etwsim_decode::fields::Value;
use etwsim_decode::mof::IMAGE;
use etwsim_decode::mof::PROCESS;
use etwsim_decode::mof::Schema;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
impl Kernel {
    /// The header's process and thread for an event caused by process `key` (`pid`): its
    /// current simulated thread (entered, or the implicit one), that thread's CPU, and the
    /// clock now. Call without holding the OS lock (the implicit thread may take the state
    /// lock).
    pub(in crate::api) fn origin_of(&self, key: u64, pid: u32) -> Origin {
        let (tid, cpu) = crate::data::local::with_current(self, key, |t| {
            (t.tid, t.cpu.load(Ordering::Relaxed) as usize)
        });
        Origin {
            pid,
            tid,
            cpu,
            ticks: self.event_ticks(),
        }
    }

    /// The clock for a kernel event: moved by one event tick, except on another OS thread
    /// than a single-threaded kernel's, whose events are refused anyway (the clock is that
    /// thread's).
    fn event_ticks(&self) -> u64 {
        if self.on_owner_thread() {
            self.inner.clock.event_now()
        } else {
            self.inner.clock.peek()
        }
    }

    /// An origin in the System process on no particular thread (rundowns).
    pub(in crate::api) fn system_origin(&self) -> Origin {
        Origin {
            pid: self.system_process().pid(),
            tid: 0,
            cpu: 0,
            ticks: self.event_ticks(),
        }
    }
}

impl Kernel {
    /// Records a started process in the OS table and writes Process Start (KRN-09) and the
    /// Kernel-Process ProcessStart event (KRN-43).
    pub(in crate::api) fn os_process_started(&self, key: u64, spec: &crate::ProcessSpec, pid: u32) {
        let token = &spec.token;
        let parent = spec.parent.unwrap_or(0);
        let row = OsProcess {
            pid,
            parent,
            session: token.terminal_session,
            sid: token.sid.clone(),
            image: spec.image_name.clone(),
            command_line: spec
                .command_line
                .clone()
                .unwrap_or_else(|| spec.image_name.clone()),
            package: spec.package_id.clone().unwrap_or_default(),
            app_id: spec.package_app_id.clone().unwrap_or_default(),
            threads: BTreeMap::new(),
            images: Vec::new(),
            next_image: 0,
        };
        let sys = &self.inner.sys;
        let wanted = sys.loggers.wants(u64::from(flag::PROCESS) | KERNEL_PROCESS);
        let values: Option<Vec<Value>> = wanted.then(|| process_values(key, &row, STILL_ACTIVE));
        sys.os.lock().processes.insert(key, row);
        let Some(values) = values else { return };
        // Written in the creating process's context (its current thread), else the System
        // process's.
        let creator = self.with_state(|s| s.processes.live_key(parent));
        let o = match creator {
            Some(ck) if parent != 0 => self.origin_of(ck, parent),
            _ => self.system_origin(),
        };
        if sys.loggers.wants(u64::from(flag::PROCESS)) {
            emit_classic(
                self,
                flag::PROCESS,
                &schema(&PROCESS, "Start", 4),
                &values,
                &o,
            );
        }
        if sys.loggers.wants(KERNEL_PROCESS) {
            crate::api::sysproviders::process_start(self, &values, &o);
        }
    }

    /// Ends a process on the OS side: its open files are closed, its threads end, its images
    /// unload, then Process End with `exit_status`.
    pub(in crate::api) fn os_process_exited(&self, key: u64, exit_status: i32) {
        let sys = &self.inner.sys;
        let objects: Vec<u64> = sys
            .os
            .lock()
            .objects
            .iter()
            .filter(|(_, o)| o.owner == key)
            .map(|(a, _)| *a)
            .collect();
        let pid = sys.os.lock().processes.get(&key).map(|p| p.pid);
        let Some(pid) = pid else { return };
        for object in objects {
            self.file_close(key, pid, object, true);
        }
        let tids: Vec<u32> = sys
            .os
            .lock()
            .processes
            .get(&key)
            .map(|p| p.threads.keys().copied().collect())
            .unwrap_or_default();
        for tid in tids {
            self.os_thread_exited(key, tid);
        }
        let bases: Vec<u64> = sys
            .os
            .lock()
            .processes
            .get(&key)
            .map(|p| p.images.iter().map(|(base, _)| *base).collect())
            .unwrap_or_default();
        for base in bases {
            self.os_image_unloaded(key, base);
        }
        let row = sys.os.lock().processes.remove(&key);
        let Some(row) = row else { return };
        if sys.loggers.wants(u64::from(flag::PROCESS)) {
            let o = self.system_origin();
            let o = Origin { pid, ..o };
            emit_classic(
                self,
                flag::PROCESS,
                &schema(&PROCESS, "End", 4),
                &process_values(key, &row, exit_status),
                &o,
            );
        }
    }

    /// Records a started thread and writes Thread Start.
    pub(in crate::api) fn os_thread_started(&self, key: u64, tid: u32, cpu: u16) {
        let sys = &self.inner.sys;
        let pid = {
            let mut os = sys.os.lock();
            let Some(p) = os.processes.get_mut(&key) else {
                return;
            };
            p.threads.insert(tid, cpu);
            p.pid
        };
        self.thread_event(true, pid, tid, cpu);
    }

    /// Removes a thread and writes Thread End.
    pub(in crate::api) fn os_thread_exited(&self, key: u64, tid: u32) {
        let sys = &self.inner.sys;
        let (pid, cpu) = {
            let mut os = sys.os.lock();
            let Some(p) = os.processes.get_mut(&key) else {
                return;
            };
            let Some(cpu) = p.threads.remove(&tid) else {
                return;
            };
            (p.pid, cpu)
        };
        self.thread_event(false, pid, tid, cpu);
    }

    /// Thread Start or End, in the thread's own context.
    fn thread_event(&self, start: bool, pid: u32, tid: u32, cpu: u16) {
        if self.inner.sys.loggers.wants(u64::from(flag::THREAD)) {
            let o = Origin {
                pid,
                tid,
                cpu: usize::from(cpu),
                ticks: self.event_ticks(),
            };
            let hook = if start {
                HOOKS.thread_start
            } else {
                HOOKS.thread_end
            };
            let mut r = thread_record(hook, &o, pid, tid, self.cpu_count());
            self.inner
                .sys
                .loggers
                .with(|l| emit::classic_record(l, flag::THREAD, &mut r, &o));
        }
    }

    /// Image Load or Unload into the system loggers that take images: built in place, or by
    /// the generic encoder for a path too long for the stack record.
    fn image_event(&self, load: bool, pid: u32, base: u64, row: &ImageRow, o: &Origin) {
        if row.path.len() <= SHORT_IMAGE_PATH {
            self.image_event_in::<{ ShortImageRecord::SIZE }>(load, pid, base, row, o);
        } else {
            self.image_event_in::<{ ImageRecord::SIZE }>(load, pid, base, row, o);
        }
    }

    /// [`Kernel::image_event`] with a stack record of `N` bytes.
    #[inline(always)]
    fn image_event_in<const N: usize>(
        &self,
        load: bool,
        pid: u32,
        base: u64,
        row: &ImageRow,
        o: &Origin,
    ) {
        let (hook, name) = if load {
            (HOOKS.image_load, "Load")
        } else {
            (HOOKS.image_unload, "Unload")
        };
        let mut r = SysRecord::<N>::new(hook, o);
        if image_record(&mut r, pid, base, row) {
            self.inner
                .sys
                .loggers
                .with(|l| emit::classic_record(l, flag::IMAGE_LOAD, &mut r, o));
        } else {
            emit_classic(
                self,
                flag::IMAGE_LOAD,
                &schema(&IMAGE, name, 3),
                &image_values(pid, base, row),
                o,
            );
        }
    }

    pub(in crate::api) fn os_image_unloaded(&self, key: u64, base: u64) {
        let sys = &self.inner.sys;
        let (pid, row) = {
            let mut os = sys.os.lock();
            let Some(p) = os.processes.get_mut(&key) else {
                return;
            };
            let Ok(at) = p.images.binary_search_by_key(&base, |(b, _)| *b) else {
                return;
            };
            let (_, row) = p.images.remove(at);
            (p.pid, row)
        };
        if sys.loggers.wants(u64::from(flag::IMAGE_LOAD)) {
            let o = self.origin_of(key, pid);
            self.image_event(false, pid, base, &row, &o);
        }
    }
}

impl Process {
    /// Maps image `path` (`C:\…` or an NT path) of `size` bytes into the process and writes
    /// Image Load (KRN-09, KRN-29) and Kernel-Process ImageLoad (KRN-43).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for an unusable path, a size of 0, or an exited process.
    pub fn load_image(&self, path: &str, size: u64) -> Result<Image> {
        let nt = nt_path_shared(path)?;
        if size == 0 {
            return Err(Error::invalid("an image has a size"));
        }
        let k = &self.kernel;
        let sys = &k.inner.sys;
        let checksum = digest(&nt);
        let row = ImageRow {
            size,
            checksum,
            time_date_stamp: checksum.rotate_left(7) & 0x7FFF_FFFF,
            path: nt,
        };
        let base = {
            let mut os = sys.os.lock();
            let Some(p) = os.processes.get_mut(&self.start_key) else {
                return Err(Error::invalid(format!("process {} has exited", self.pid)));
            };
            let base = 0x0000_7FF6_0000_0000 + p.next_image * 0x100_0000;
            p.next_image += 1;
            debug_assert!(p.images.last().is_none_or(|(last, _)| *last < base));
            p.images.push((base, row.clone()));
            base
        };
        if sys
            .loggers
            .wants(u64::from(flag::IMAGE_LOAD) | KERNEL_PROCESS)
        {
            let o = k.origin_of(self.start_key, self.pid);
            if sys.loggers.wants(u64::from(flag::IMAGE_LOAD)) {
                k.image_event(true, self.pid, base, &row, &o);
            }
            if sys.loggers.wants(KERNEL_PROCESS) {
                crate::api::sysproviders::image_load(k, self.pid, base, &row, &o);
            }
        }
        Ok(Image {
            process: self.clone(),
            base,
            size,
            path: row.path,
        })
    }
}

impl Kernel {
    /// StartTrace's hook: a system logger joins the kernel-event table with its EnableFlags
    /// and gets the DCStart rundown (SES-70, KRN-31).
    pub(in crate::api) fn system_session_started(&self, ctx: &Arc<LoggerContext>) {
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
    pub(in crate::api) fn system_flags_updated(&self, ctx: &Arc<LoggerContext>) {
        let loggers = &self.inner.sys.loggers;
        if let Some(l) = loggers.find(ctx) {
            let flags = ctx.live.lock().enable_flags;
            loggers.update(&l, |m| m.base = GroupMask::from_enable_flags(flags));
        }
    }

    /// STOP's hook, after the session is marked stopping and before its final flush: DCEnd
    /// and FileRundown into it (KRN-31, KRN-32, KRN-37), then it leaves the table.
    pub(in crate::api) fn system_session_stopping(&self, ctx: &Arc<LoggerContext>) {
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

/// Writes one Process / Thread / Image event to the system loggers with `flag`.
pub(in crate::api) fn emit_classic(
    k: &Kernel,
    flag: u32,
    schema: &Schema,
    values: &[Value],
    o: &Origin,
) {
    if let Some(p) = emit::payload(schema, values) {
        emit::classic(&k.inner.sys.loggers.current(), flag, schema, &p, o);
    }
}

/// An image mapped into a process (`LoadLibrary`): unload it with [`Image::unload`].
#[derive(Clone, Debug)]
pub struct Image {
    pub(in crate::api) process: Process,
    pub(in crate::api) base: u64,
    pub(in crate::api) size: u64,
    pub(in crate::api) path: Arc<str>,
}

impl Image {
    /// The image base address.
    pub fn base(&self) -> u64 {
        self.base
    }
    /// The image size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// The NT path logged for it.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// `FreeLibrary`: unmaps it and writes Image Unload (KRN-09).
    pub fn unload(self) {
        self.process
            .kernel
            .os_image_unloaded(self.process.start_key, self.base);
    }
}
