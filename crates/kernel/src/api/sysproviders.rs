//! Where sessions meet the kernel-event path: a system logger joins the table at start and
//! gets the DCStart rundown, changes its selection with UPDATE, TraceSetInformation or the
//! System Providers, gets a rundown on CAPTURE_STATE, and leaves with the DCEnd and
//! FileRundown events (SES-70, KRN-31…KRN-35).
//!
//! Rundown events carry the moment they are written; process, thread and image events carry
//! the described process (and thread) in their header, FileRundown the System process.

use crate::api::kernel::Kernel;
use crate::api::kernel::KernelInner;
use crate::control::provider::{EnableParams, Pending};
use crate::control::state::State;
use crate::data::context::LoggerContext;
use crate::data::route::EnableNotification;
use crate::data::route::RegKind;
use crate::data::sys::KERNEL_FILE;
use crate::data::sys::KERNEL_PROCESS;
use crate::data::sys::{self as emit, FILE_NAME_VERSION, Origin, SysLogger};
use crate::filter::flags::{SystemProvider, event_trace_flag as flag};
use crate::system::manifest::KERNEL_FILE_PROVIDER;
use crate::system::manifest::KERNEL_PROCESS_PROVIDER;
use crate::system::manifest::KERNEL_RUNDOWN_FILENAME_KEYWORD;
use crate::system::manifest::KERNEL_RUNDOWN_PROVIDER;
use crate::system::os::ImageRow;
use crate::system::os::{self, STILL_ACTIVE};
use crate::{Error, Result};
use etwsim_decode::fields::Value;
use etwsim_decode::mof::{FILE_IO, IMAGE, PROCESS, THREAD};
use etwsim_types::EventDescriptor;
use etwsim_types::Keyword;
use etwsim_types::Level;
use etwsim_types::Opcode;
use etwsim_types::Task;
use etwsim_types::{ControlCode, Guid};
use std::sync::Arc;
use std::sync::Weak;

/// Which rundown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::api) enum Rundown {
    /// At start: DCStart (3).
    Start,
    /// At stop: DCEnd (4) and FileRundown (36).
    End,
    /// CAPTURE_STATE: DCStart and FileRundown (KRN-34's choice).
    Capture,
}

/// Writes the rundown `kind` of what `l` selects into its session.
pub(in crate::api) fn rundown(k: &Kernel, l: &SysLogger, kind: Rundown) {
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

/// EnableTraceEx2's hook, called with the state lock held after the arguments were checked:
/// registers the kernel's manifest providers on their first enable; takes the System
/// Providers (KRN-03, PRV-28) into system loggers' masks and refuses them elsewhere; runs the
/// CAPTURE_STATE rundown of SystemTraceControlGuid with a TRACEHANDLE filter (KRN-34,
/// PRV-27). `Some` ends EnableTraceEx2 with that result.
pub(in crate::api) fn enable_hook(
    kernel: &Kernel,
    s: &mut State,
    ctx: &Arc<LoggerContext>,
    guid: Guid,
    code: ControlCode,
    p: &EnableParams,
    trace_handle: Option<u64>,
) -> Option<Result<Vec<Pending>>> {
    if code == ControlCode::EnableProvider {
        ensure_registered(s, &kernel.inner, guid);
    }
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
                ControlCode::CaptureState => rundown(kernel, &l, Rundown::Capture),
            }
        }
        return Some(Ok(Vec::new()));
    }
    if let (Some(h), ControlCode::CaptureState, true) =
        (trace_handle, code, guid == Guid::SYSTEM_TRACE_CONTROL)
    {
        let target = s.running_loggers().find(|l| l.handle.0 == h).cloned();
        if let Some(l) = target.and_then(|t| kernel.inner.sys.loggers.find(&t)) {
            rundown(kernel, &l, Rundown::Capture);
        }
    }
    None
}

/// Kernel-Rundown's enable callback (KRN-35): each session that newly enables it with the
/// file-name keyword (or any session, on CAPTURE_STATE) gets a FileRundown of the open files.
pub(in crate::api) fn rundown_provider_notified(k: &Kernel, n: &EnableNotification) {
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

/// Registers the kernel provider `guid` (if it is one and is not registered yet) as a
/// registration of the System process: called by EnableTraceEx2 before it enables `guid`,
/// with the state lock held, so the enable that follows finds the registration.
pub(in crate::api) fn ensure_registered(s: &mut State, inner: &Arc<KernelInner>, guid: Guid) {
    let providers = &inner.sys.providers;
    let slot = match guid {
        g if g == KERNEL_FILE_PROVIDER => &providers.file,
        g if g == KERNEL_PROCESS_PROVIDER => &providers.process,
        g if g == KERNEL_RUNDOWN_PROVIDER => &providers.rundown,
        _ => return,
    };
    if slot.get().is_some() {
        return;
    }
    let weak: Weak<KernelInner> = Arc::downgrade(inner);
    let callback = move |n: &EnableNotification| {
        let Some(inner) = weak.upgrade() else { return };
        let kernel = Kernel { inner };
        let on = n.is_enabled == ControlCode::EnableProvider;
        let loggers = &kernel.inner.sys.loggers;
        match guid {
            g if g == KERNEL_FILE_PROVIDER => loggers.set_provider_bit(KERNEL_FILE, on),
            g if g == KERNEL_PROCESS_PROVIDER => loggers.set_provider_bit(KERNEL_PROCESS, on),
            _ => crate::api::sysproviders::rundown_provider_notified(&kernel, n),
        }
    };
    let system_key = Kernel {
        inner: inner.clone(),
    }
    .system_key();
    if let Ok((reg, _pending)) =
        s.register(system_key, guid, RegKind::Modern(Some(Arc::new(callback))))
    {
        // Nothing enables the GUID yet (this runs before the enable): no callback is due.
        let _ = slot.set(reg);
    }
}

/// Kernel-File's counterpart of a classic FileIo event (KRN-42): id, version, keywords.
fn kernel_file_event(name: &str) -> Option<(u16, u8, u64)> {
    const FILEIO: u64 = 0x20;
    Some(match name {
        "FileCreate" => (10, 0, 0x10),
        "FileDelete" => (11, 0, 0x10),
        "Create" => (12, 1, FILEIO | 0x80),
        "Cleanup" => (13, 1, FILEIO),
        "Close" => (14, 1, FILEIO),
        "Read" => (15, 1, FILEIO | 0x100),
        "Write" => (16, 1, FILEIO | 0x200),
        "SetInfo" => (17, 1, FILEIO),
        "Delete" => (18, 1, FILEIO),
        "Rename" => (19, 1, FILEIO),
        "DirEnum" => (20, 1, FILEIO),
        "Flush" => (21, 1, FILEIO),
        "QueryInfo" => (22, 1, FILEIO),
        "FSControl" => (23, 1, FILEIO),
        "OperationEnd" => (24, 0, 0x40),
        "DirNotify" => (25, 1, FILEIO),
        _ => return None,
    })
}

/// Writes the Kernel-File event of classic FileIo event `name` whose payload is `payload`.
pub(in crate::api) fn kernel_file(k: &Kernel, name: &str, payload: &[u8], o: &Origin) {
    let (Some(p), Some((id, version, kw))) =
        (k.inner.sys.providers.file.get(), kernel_file_event(name))
    else {
        return;
    };
    let desc = EventDescriptor::new(id, Level::INFORMATION, Keyword(kw))
        .with_version(version)
        .with_task(Task(id));
    emit::manifest(p, &desc, payload, o);
}

fn utf16z(out: &mut Vec<u8>, s: &str) {
    out.extend(s.encode_utf16().chain([0]).flat_map(u16::to_le_bytes));
}

/// Kernel-Process ProcessStart (1, v2), from the classic Process values (KRN-43).
pub(in crate::api) fn process_start(k: &Kernel, values: &[Value], o: &Origin) {
    let Some(p) = k.inner.sys.providers.process.get() else {
        return;
    };
    let u32_at = |i: usize| match values.get(i) {
        Some(Value::U32(v)) => *v,
        _ => 0,
    };
    let image = match values.get(8) {
        Some(Value::Ansi(b)) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    };
    let text_at = |i: usize| match values.get(i) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let image_path = crate::system::os::nt_path(&image).unwrap_or_default();
    let digest = image_path.bytes().fold(0x811C_9DC5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let create_time = k.inner.clock.boot_filetime() + o.ticks as i64;
    let mut out = Vec::with_capacity(96);
    out.extend_from_slice(&u32_at(1).to_le_bytes()); // ProcessID
    out.extend_from_slice(&create_time.to_le_bytes()); // CreateTime
    out.extend_from_slice(&u32_at(2).to_le_bytes()); // ParentProcessID
    out.extend_from_slice(&u32_at(3).to_le_bytes()); // SessionID
    out.extend_from_slice(&u32_at(6).to_le_bytes()); // Flags
    utf16z(&mut out, &image_path); // ImageName
    out.extend_from_slice(&digest.to_le_bytes()); // ImageChecksum
    out.extend_from_slice(&(digest.rotate_left(7) & 0x7FFF_FFFF).to_le_bytes()); // TimeDateStamp
    utf16z(&mut out, &text_at(10)); // PackageFullName
    utf16z(&mut out, &text_at(11)); // PackageRelativeAppId
    let desc = EventDescriptor::new(1, Level::INFORMATION, Keyword(0x10))
        .with_version(2)
        .with_opcode(Opcode(1))
        .with_task(Task(1));
    emit::manifest(p, &desc, &out, o);
}

/// Kernel-Process ImageLoad (5) (KRN-43).
pub(in crate::api) fn image_load(k: &Kernel, pid: u32, base: u64, i: &ImageRow, o: &Origin) {
    let Some(p) = k.inner.sys.providers.process.get() else {
        return;
    };
    let mut out = Vec::with_capacity(64 + 2 * i.path.len());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&i.size.to_le_bytes());
    out.extend_from_slice(&pid.to_le_bytes());
    out.extend_from_slice(&i.checksum.to_le_bytes());
    out.extend_from_slice(&i.time_date_stamp.to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes()); // DefaultBase
    utf16z(&mut out, &i.path);
    let desc = EventDescriptor::new(5, Level::INFORMATION, Keyword(0x40)).with_task(Task(5));
    emit::manifest(p, &desc, &out, o);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EnableParams, MemorySink, ProcessSpec, Token};

    /// A kernel whose own providers were registered (a session enabled Kernel-File,
    /// Kernel-Process and Kernel-Rundown, and the OS wrote through them) is freed when its
    /// last handle goes: the registrations it keeps do not hold it.
    #[test]
    fn a_kernel_with_its_own_providers_registered_is_freed() {
        let k = Kernel::builder()
            .deterministic(3)
            .build()
            .expect("a kernel");
        let alive = Arc::downgrade(&k.inner);
        let s = k
            .session("own")
            .log_file("own.etl")
            .sink(MemorySink::new())
            .start()
            .expect("a session");
        for guid in [
            KERNEL_FILE_PROVIDER,
            KERNEL_PROCESS_PROVIDER,
            KERNEL_RUNDOWN_PROVIDER,
        ] {
            s.enable(guid, &EnableParams::new()).expect("enable");
        }
        let app = k
            .spawn_process(ProcessSpec::new("app.exe", Token::user("u")))
            .expect("a process");
        app.load_image(r"C:\lib.dll", 0x3000)
            .expect("an image")
            .unload();
        app.open_file(r"C:\f.txt").expect("a file").close();
        assert!(k.inner.sys.providers.file.get().is_some());
        assert!(k.inner.sys.providers.process.get().is_some());
        assert!(k.inner.sys.providers.rundown.get().is_some());
        s.stop().expect("stop");
        drop((s, app, k));
        assert!(
            alive.upgrade().is_none(),
            "the kernel outlived its last handle"
        );
    }
}
