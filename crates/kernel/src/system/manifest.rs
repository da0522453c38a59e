//! The kernel's manifest providers, which ordinary sessions enable by keyword (KRN-35, KRN-41
//! …KRN-43): Microsoft-Windows-Kernel-File, Microsoft-Windows-Kernel-Process and
//! Microsoft-Windows-Kernel-Rundown.
//!
//! They are registrations of the System process, made when a session first enables one of
//! their GUIDs (so a kernel nobody asks for them from lists no such provider in
//! EnumerateTraceGuidsEx — a deviation: Windows registers them at boot). Their enable
//! callbacks keep the summary word's provider bits up to date, so an OS operation still tests
//! one word (P15).
//!
//! Events written, and only those whose payload the rules source:
//!
//! * Kernel-File (KRN-42): NameCreate 10 / NameDelete 11 (v0, keyword FILENAME 0x10) for
//!   FileCreate / FileDelete; Create 12 … DirNotify 25 (v1, the classic v3 field order, so the
//!   payload is the classic v3 payload) for FileIo 64…77; OperationEnd 24 (v0, OP_END 0x40).
//!   Level 4; task = event id, opcode 0 (choice: the manifest's task and opcode values are not
//!   in the rules).
//! * Kernel-Process (KRN-43): ProcessStart 1 (v2, keyword PROCESS 0x10, opcode win:Start) and
//!   ImageLoad 5 (v0, keyword IMAGE 0x40), with the templates the rules give.
//! * Kernel-Rundown (KRN-35): enabled with keyword 0x10 (ETW_FILENAME_RUNDOWN), the session
//!   gets a FileIo FileRundown (36) event (class GUID FileIo, FileIo_Name payload) for each
//!   file open at that moment — and again on each CAPTURE_STATE.

use crate::control::provider::{EnableNotification, RegEntry, RegKind};
use crate::machine::kernel::{Kernel, KernelInner, State};
use crate::system::emit::{self, KERNEL_FILE, KERNEL_PROCESS, Origin};
use crate::system::os::ImageRow;
use etwsim_decode::fields::Value;
use etwsim_types::{ControlCode, EventDescriptor, Guid, Keyword, Level, Opcode, Task};
use std::sync::{Arc, OnceLock, Weak};

/// Microsoft-Windows-Kernel-File {edd08927-9cc4-4e65-b970-c2560fb5c289} (KRN-41).
pub const KERNEL_FILE_PROVIDER: Guid = Guid::from_fields(
    0xedd0_8927,
    0x9cc4,
    0x4e65,
    [0xb9, 0x70, 0xc2, 0x56, 0x0f, 0xb5, 0xc2, 0x89],
);
/// Microsoft-Windows-Kernel-Process {22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716} (KRN-43).
pub const KERNEL_PROCESS_PROVIDER: Guid = Guid::from_fields(
    0x22fb_2cd6,
    0x0e7b,
    0x422b,
    [0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16],
);
/// Microsoft-Windows-Kernel-Rundown {3b9c9951-3480-4220-9377-9c8e5184f5cd} (KRN-35).
pub const KERNEL_RUNDOWN_PROVIDER: Guid = Guid::from_fields(
    0x3b9c_9951,
    0x3480,
    0x4220,
    [0x93, 0x77, 0x9c, 0x8e, 0x51, 0x84, 0xf5, 0xcd],
);
/// Kernel-Rundown's `ETW_FILENAME_RUNDOWN` keyword (KRN-35).
pub const KERNEL_RUNDOWN_FILENAME_KEYWORD: u64 = 0x10;

/// The three registrations, made on first enable. Only the registrations are kept: a
/// [`Provider`] holds its kernel, and a kernel holding its own providers would never be freed
/// (they are never unregistered: they live as long as the kernel).
#[derive(Default)]
pub(crate) struct KernelProviders {
    pub(crate) file: OnceLock<Arc<RegEntry>>,
    pub(crate) process: OnceLock<Arc<RegEntry>>,
    pub(crate) rundown: OnceLock<Arc<RegEntry>>,
}

/// Registers the kernel provider `guid` (if it is one and is not registered yet) as a
/// registration of the System process: called by EnableTraceEx2 before it enables `guid`,
/// with the state lock held, so the enable that follows finds the registration.
pub(crate) fn ensure_registered(s: &mut State, inner: &Arc<KernelInner>, guid: Guid) {
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
            _ => crate::system::rundown::rundown_provider_notified(&kernel, n),
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
pub(crate) fn kernel_file(k: &Kernel, name: &str, payload: &[u8], o: &Origin) {
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
pub(crate) fn process_start(k: &Kernel, values: &[Value], o: &Origin) {
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
pub(crate) fn image_load(k: &Kernel, pid: u32, base: u64, i: &ImageRow, o: &Origin) {
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
