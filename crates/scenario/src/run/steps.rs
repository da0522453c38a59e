//! The action interpreter: each action of the scenario — control calls, writes, OS steps —
//! played on the kernel, its result checked against the action's `expect_error`.

use super::{FileSlot, KEPT_PAYLOAD, KEPT_WRITES, KernelEvent, Reg, Runner, WriteRecord};
use crate::scenario::{
    ActionKind, EnableSpec, FileOp, FilterSpec, Payload, PidRef, ProcRef, ThreadSel, WriteSpec,
};
use etwsim::{
    ClassicEvent, ConsumerOptions, CreateFile, EnableParams, EventDescriptor, EventFilter,
    JournalEntry, JournalEvent, Kernel, Keyword, Level, MemorySink, Process, Target, Thread,
    TraceControl, Win32Error,
};
use etwsim_decode::mof;

impl Runner<'_> {
    /// A named thread of a process that runs, for an OS step.
    fn named_thread(&self, process: ProcRef, thread: Option<usize>) -> Option<Thread> {
        let (p, t) = (process?, thread?);
        self.named.get(p)?.get(t).cloned()
    }

    fn not_running(what: &str) -> etwsim::Error {
        etwsim::Error::InvalidParameter(format!("{what} is not running"))
    }

    /// An OS step: a file, image, process or thread operation.
    fn os(&mut self, kernel: &Kernel, kind: &ActionKind) -> Result<(), etwsim::Error> {
        match kind {
            ActionKind::Spawn(p) => self.spawn(kernel, *p)?,
            ActionKind::ThreadExit { process, thread } => {
                self.named_thread(Some(*process), Some(*thread))
                    .ok_or_else(|| Self::not_running("the thread's process"))?
                    .exit();
            }
            ActionKind::OpenFile {
                process,
                thread,
                path,
                create,
                handle,
            } => {
                let proc_ = self
                    .process(kernel, *process)
                    .filter(|p| !p.has_exited())
                    .ok_or_else(|| Self::not_running("the process"))?;
                let t = self.named_thread(*process, *thread);
                let _on = t.as_ref().map(Thread::enter);
                let h = match create {
                    None => proc_.open_file(path)?,
                    Some(d) => proc_.create_file(path, CreateFile::new(*d))?,
                };
                self.files.insert(*handle, FileSlot::Open(h));
            }
            ActionKind::FileIo {
                op,
                thread,
                handle,
                offset,
                size,
            } => {
                let slot = self
                    .files
                    .remove(handle)
                    .ok_or_else(|| Self::not_running("the file handle (its open failed)"))?;
                let process = match &slot {
                    FileSlot::Open(h) => h.process().clone(),
                    FileSlot::Closing(_) => kernel.system_process(),
                };
                let t = thread.and_then(|t| {
                    let i = self
                        .processes
                        .iter()
                        .position(|p| p.as_ref().is_some_and(|p| p.pid() == process.pid()))?;
                    self.named.get(i)?.get(t).cloned()
                });
                let _on = t.as_ref().map(Thread::enter);
                let next = match (slot, op) {
                    (FileSlot::Open(h), FileOp::Read) => {
                        h.read(*offset, *size);
                        Some(FileSlot::Open(h))
                    }
                    (FileSlot::Open(h), FileOp::Write) => {
                        h.write(*offset, *size);
                        Some(FileSlot::Open(h))
                    }
                    (FileSlot::Open(h), FileOp::Cleanup) => Some(FileSlot::Closing(h.cleanup())),
                    (FileSlot::Open(h), FileOp::Close) => {
                        h.close();
                        None
                    }
                    (FileSlot::Closing(c), FileOp::PagingWrite) => {
                        c.paging_write(*offset, *size);
                        Some(FileSlot::Closing(c))
                    }
                    (FileSlot::Closing(c), FileOp::Close) => {
                        c.close();
                        None
                    }
                    // The loader lets no other pair through.
                    (slot, _) => Some(slot),
                };
                if let Some(next) = next {
                    self.files.insert(*handle, next);
                }
            }
            ActionKind::LoadImage {
                process,
                path,
                size,
                image,
            } => {
                let proc_ = self
                    .process(kernel, *process)
                    .filter(|p| !p.has_exited())
                    .ok_or_else(|| Self::not_running("the process"))?;
                let img = proc_.load_image(path, *size)?;
                self.images.insert(*image, img);
            }
            ActionKind::UnloadImage(i) => {
                if let Some(img) = self.images.remove(i) {
                    img.unload();
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The caller of control calls on session `s`: the step's `as` process, else the
    /// session's caller.
    fn caller(&self, kernel: &Kernel, s: usize) -> Process {
        if let Some(p) = &self.acting {
            return p.clone();
        }
        self.process(kernel, self.sc.sessions[s].caller)
            .unwrap_or_else(|| kernel.system_process())
    }

    /// Who makes a ControlTrace call on session `s`: the step's `as` process, else its
    /// caller, or — once that process has exited — LocalSystem. A session outlives the
    /// process that started it, and any caller with the rights may control it by name
    /// (SES-16).
    fn controller(&self, kernel: &Kernel, s: usize) -> Process {
        if let Some(p) = &self.acting {
            return p.clone();
        }
        match self.process(kernel, self.sc.sessions[s].caller) {
            Some(p) if !p.has_exited() => p,
            _ => kernel.system_process(),
        }
    }

    pub(super) fn act(&mut self, kernel: &Kernel, index: usize) {
        let sc = self.sc;
        let action = &sc.actions[index];
        self.acting = None;
        let result: Result<(), etwsim::Error> = match action.as_process {
            // `as`: a process that is not running cannot call.
            Some(p) => match self.process(kernel, p) {
                Some(proc_) => {
                    self.acting = Some(proc_);
                    Ok(())
                }
                None => Err(Self::not_running("the `as` process")),
            },
            None => Ok(()),
        };
        let result = result.and_then(|()| self.act_kind(kernel, &action.kind));
        self.acting = None;
        let (line, key) = (action.line, action.key.clone());
        match (result, &action.expect_error) {
            (Ok(()), None) => {}
            (Ok(()), Some(want)) if want.allows_success() => {}
            (Ok(()), Some(want)) => {
                self.fail(line, &key, format!("expected {want}, but it succeeded"));
            }
            (Err(e), Some(want)) if want.matches(e.win32_code()) => {}
            (Err(e), Some(want)) => {
                let code = e.win32_code();
                self.fail(
                    line,
                    &key,
                    format!(
                        "expected {want}, got {} ({}): {}",
                        code.name().unwrap_or("an error"),
                        code.0,
                        e.reason()
                    ),
                );
            }
            (Err(e), None) => {
                let code = e.win32_code();
                self.fail(
                    line,
                    &key,
                    format!(
                        "{} ({}): {}",
                        code.name().unwrap_or("error"),
                        code.0,
                        e.reason()
                    ),
                );
            }
        }
    }

    fn act_kind(&mut self, kernel: &Kernel, kind: &ActionKind) -> Result<(), etwsim::Error> {
        match kind {
            ActionKind::Start(s) => self.start(kernel, *s),
            ActionKind::Enable(e) => self.enable(kernel, e),
            ActionKind::Disable { session, provider } => kernel.enable_trace_ex2(
                &self.caller(kernel, *session),
                Target::Name(&self.sc.sessions[*session].name),
                self.sc.providers[*provider].guid,
                etwsim::ControlCode::DisableProvider,
                &EnableParams::default(),
            ),
            ActionKind::Write(w) => {
                self.write(kernel, w);
                Ok(())
            }
            ActionKind::Advance(d) => {
                kernel.advance(*d);
                Ok(())
            }
            ActionKind::RunLogger => {
                kernel.run_pending();
                Ok(())
            }
            ActionKind::Flush(s) => self.control(kernel, *s, TraceControl::Flush, None),
            ActionKind::Update(s, u) => self.control(kernel, *s, TraceControl::Update, Some(u)),
            ActionKind::Stop(s) => self.control(kernel, *s, TraceControl::Stop, None),
            ActionKind::Query(s) => self.control(kernel, *s, TraceControl::Query, None),
            ActionKind::Consume(s, name) => self.consume(kernel, *s, name.as_deref()),
            ActionKind::Exit(p, code) => {
                if let Some(p) = self.processes.get(*p).cloned().flatten() {
                    match code {
                        Some(c) => p.exit_with(*c),
                        None => p.exit(),
                    }
                }
                Ok(())
            }
            ActionKind::Reboot => self.reboot(kernel),
            other => self.os(kernel, other),
        }
    }

    fn start(&mut self, kernel: &Kernel, s: usize) -> Result<(), etwsim::Error> {
        let spec = &self.sc.sessions[s];
        let mut b = kernel.session(&spec.name).caller(&self.caller(kernel, s));
        if let Some(g) = spec.guid {
            b = b.guid(g);
        }
        if let Some(f) = &spec.log_file {
            b = b.log_file(f);
        }
        if let Some(m) = spec.mode {
            b = b.mode(m);
        }
        if spec.real_time {
            b = b.real_time();
        }
        if spec.buffering {
            b = b.buffering();
        }
        if let Some(n) = spec.buffer_size_kb {
            b = b.buffer_size_kb(n);
        }
        if let Some(n) = spec.minimum_buffers {
            b = b.minimum_buffers(n);
        }
        if let Some(n) = spec.maximum_buffers {
            b = b.maximum_buffers(n);
        }
        if let Some(n) = spec.maximum_file_size {
            b = b.maximum_file_size(n);
        }
        if let Some(n) = spec.flush_timer {
            b = b.flush_timer(n);
        }
        if let Some(c) = spec.clock {
            b = b.clock(c);
        }
        if let Some(f) = spec.enable_flags {
            b = b.enable_flags(f);
        }
        let sink = spec.memory_sink.then(MemorySink::new);
        if let Some(sink) = &sink {
            b = b.sink(sink.clone());
        }
        // Control calls name the session (SES-16); the handle is kept for its statistics.
        self.held[s] = Some(b.start()?);
        if sink.is_some() {
            self.sinks[s] = sink;
        }
        Ok(())
    }

    fn enable(&mut self, kernel: &Kernel, e: &EnableSpec) -> Result<(), etwsim::Error> {
        let mut params = EnableParams::new()
            .level(Level(e.level))
            .any(e.any)
            .all(e.all)
            .property(e.properties)
            .source_id(e.source_id);
        for f in &e.filters {
            params = params.filter(match f {
                FilterSpec::Ready(f) => f.clone(),
                FilterSpec::Pids(refs) => EventFilter::Pid(
                    refs.iter()
                        .map(|r| match r {
                            PidRef::Pid(p) => *p,
                            PidRef::Process(p) => self.process(kernel, *p).map_or(0, |p| p.pid()),
                        })
                        .collect(),
                ),
            });
        }
        kernel.enable_trace_ex2(
            &self.caller(kernel, e.session),
            Target::Name(&self.sc.sessions[e.session].name),
            e.guid,
            e.code,
            &params,
        )
    }

    pub(super) fn control(
        &mut self,
        kernel: &Kernel,
        s: usize,
        code: TraceControl,
        update: Option<&etwsim::SessionUpdate>,
    ) -> Result<(), etwsim::Error> {
        let caller = self.controller(kernel, s);
        let props = kernel.control_trace(
            &caller,
            Target::Name(&self.sc.sessions[s].name),
            code,
            update,
        )?;
        self.stats[s] = Some(props);
        Ok(())
    }

    fn consume(
        &mut self,
        kernel: &Kernel,
        s: usize,
        name: Option<&str>,
    ) -> Result<(), etwsim::Error> {
        let attached = match name {
            None => self.consumers[s].is_some(),
            Some(n) => self.named_consumers[s]
                .iter()
                .any(|(c, h, _)| c == n && h.is_some()),
        };
        if !attached {
            let caller = self.caller(kernel, s);
            let c = kernel.open_realtime(
                &caller,
                &self.sc.sessions[s].name,
                ConsumerOptions::default(),
            )?;
            match name {
                None => self.consumers[s] = Some(c),
                Some(n) => match self.named_consumers[s].iter_mut().find(|(x, _, _)| x == n) {
                    Some(slot) => slot.1 = Some(c),
                    None => self.named_consumers[s].push((n.to_string(), Some(c), 0)),
                },
            }
        }
        match name {
            None => self.drain_unnamed(s),
            Some(n) => self.drain_named(s, Some(n)),
        }
        Ok(())
    }

    /// Takes what session `s`'s consumers received so far: all of them.
    pub(super) fn drain(&mut self, s: usize) {
        self.drain_named(s, None);
        self.drain_unnamed(s);
    }

    /// Takes what the named consumer `only` (every named one when `None`) of session `s`
    /// received so far.
    fn drain_named(&mut self, s: usize, only: Option<&str>) {
        for (name, c, n) in &mut self.named_consumers[s] {
            if only.is_some_and(|o| o != name.as_str()) {
                continue;
            }
            if let Some(c) = c {
                *n += c
                    .drain()
                    .iter()
                    .filter(|r| !r.is_lost_event_marker())
                    .count() as u64;
            }
        }
    }

    /// Takes what session `s`'s unnamed consumer received so far.
    fn drain_unnamed(&mut self, s: usize) {
        if let Some(c) = &mut self.consumers[s] {
            let records = c.drain();
            let n = records.iter().filter(|r| !r.is_lost_event_marker()).count() as u64;
            *self.delivered[s].get_or_insert(0) += n;
            self.rt_events[s].extend(records.iter().filter_map(|r| {
                Some(KernelEvent {
                    time: r.header.timestamp,
                    pid: r.header.process_id,
                    cpu: r.buffer_context.processor_index,
                    event: mof::decode_event_record(r).ok()?,
                })
            }));
        }
    }

    fn thread(&mut self, kernel: &Kernel, w: &WriteSpec) -> Option<Thread> {
        let cpu = match w.thread {
            ThreadSel::Named(i) => {
                return w.process.and_then(|p| self.named.get(p)?.get(i).cloned());
            }
            ThreadSel::Main => 0,
            ThreadSel::Cpu(c) => c,
        };
        if let Some(t) = self.threads.get(&(w.process, cpu)) {
            return Some(t.clone());
        }
        let t = self.process(kernel, w.process)?.spawn_thread(cpu).ok()?;
        self.threads.insert((w.process, cpu), t.clone());
        Some(t)
    }

    fn write(&mut self, kernel: &Kernel, w: &WriteSpec) {
        let Some(reg) = self.regs[w.provider].get(w.reg).cloned().flatten() else {
            return;
        };
        let thread = self.thread(kernel, w);
        let pid = reg.pid();
        let mut payload = match &w.payload {
            Payload::Size(n) => vec![0u8; *n as usize],
            Payload::Bytes(b) => b.clone(),
        };
        for n in 1..=w.count {
            if let Payload::Size(size) = w.payload {
                let k = (size as usize).min(4);
                payload[..k].copy_from_slice(&(n as u32).to_le_bytes()[..k]);
            }
            // `None`: no call was made.
            let result = {
                let _on = thread.as_ref().map(Thread::enter);
                match &*reg {
                    Reg::Modern(provider) => Some(Self::write_modern(provider, w, &payload)),
                    Reg::Classic(c, _) => match c.logger_handle() {
                        // TraceEvent into the session that enabled it (GetTraceLoggerHandle).
                        Some(logger) => Some(c.trace_event(
                            logger,
                            &ClassicEvent {
                                class_type: w.descriptor.opcode.0,
                                class_level: w.descriptor.level.0,
                                class_version: u16::from(w.descriptor.version),
                                guid: self.sc.providers[w.provider].guid,
                                data: &[&payload],
                            },
                        )),
                        // Not enabled: a classic provider checks its TraceOn flag and
                        // makes no call.
                        None => None,
                    },
                }
            };
            if let Some(result) = result {
                let result = result.map_err(|e| e.win32_code());
                self.writes_total += 1;
                if let Err(code) = result {
                    match self.write_errors.iter_mut().find(|(c, _)| *c == code) {
                        Some((_, n)) => *n += 1,
                        None => self.write_errors.push((code, 1)),
                    }
                }
                let new = self.collect(kernel);
                if self.writes.len() < KEPT_WRITES {
                    let record = self.write_record(kernel, w, &thread, pid, result, new, &payload);
                    self.writes.push(record);
                }
            }
            if let Some(every) = w.every {
                kernel.advance(every);
                self.collect(kernel);
            }
        }
    }

    /// One EventWrite of `w`: EventWriteString, TraceLoggingWrite(Activity),
    /// EventWriteEx, EventWriteTransfer or EventWrite, as its keys say.
    fn write_modern(
        provider: &etwsim::Provider,
        w: &WriteSpec,
        payload: &[u8],
    ) -> Result<(), etwsim::Error> {
        let (activity, related) = (w.activity_id.as_ref(), w.related_activity_id.as_ref());
        if let Some(text) = &w.string {
            provider.write_string(w.descriptor.level, w.descriptor.keyword, text)
        } else if let Some(name) = &w.event_name {
            let bytes = (!payload.is_empty()).then_some(payload);
            provider.write_tracelogging_transfer(name, &w.descriptor, activity, related, |e| {
                if let Some(b) = bytes {
                    e.binary("Payload", b);
                }
            })
        } else if w.inprivate || w.filter_mask != 0 {
            let flags = if w.inprivate {
                etwsim::EVENT_WRITE_FLAG_INPRIVATE
            } else {
                0
            };
            provider.write_ex(
                &w.descriptor,
                w.filter_mask,
                flags,
                activity,
                related,
                &[payload],
            )
        } else if activity.is_some() || related.is_some() {
            provider.write_transfer(&w.descriptor, activity, related, &[payload])
        } else {
            provider.write(&w.descriptor, &[payload])
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_record(
        &self,
        kernel: &Kernel,
        w: &WriteSpec,
        thread: &Option<Thread>,
        pid: u32,
        result: Result<(), Win32Error>,
        new: usize,
        payload: &[u8],
    ) -> WriteRecord {
        let entries = self.journal.range(self.journal.len() - new..);
        let write = entries
            .rev()
            .find(|e| matches!(e.event, JournalEvent::Write { .. }));
        // The write's verdicts say which sessions stored it and which lost it (EVT-05…EVT-08;
        // one withheld by EVT-09 did neither).
        let mut stored = Vec::new();
        let mut lost = Vec::new();
        if let Some(JournalEntry {
            event: JournalEvent::Write { verdicts, .. },
            ..
        }) = write
        {
            for v in verdicts {
                let Some(s) = self.session_index(&v.session_name) else {
                    continue;
                };
                if v.recorded {
                    stored.push(s);
                } else if matches!(v.reason, etwsim::Reason::Lost { .. }) {
                    lost.push(s);
                }
            }
        }
        let descriptor = match &w.string {
            Some(_) => EventDescriptor::new(0, w.descriptor.level, Keyword(w.descriptor.keyword.0)),
            None => w.descriptor,
        };
        let payload = match &w.string {
            Some(text) => text
                .encode_utf16()
                .chain(std::iter::once(0))
                .flat_map(u16::to_le_bytes)
                .take(KEPT_PAYLOAD)
                .collect(),
            None => payload[..payload.len().min(KEPT_PAYLOAD)].to_vec(),
        };
        WriteRecord {
            seq: write.map(|e| e.seq),
            time: write.map_or_else(|| kernel.now().as_nanos() as u64 / 100, |e| e.time),
            cpu: thread.as_ref().map_or(0, Thread::cpu),
            tid: thread.as_ref().map_or(0, Thread::tid),
            pid,
            provider: w.provider,
            descriptor,
            result,
            stored,
            lost,
            payload,
        }
    }
}
