//! The simulated operating system's activity: processes (image, command line, parent,
//! session, user SID, exit status), threads, loaded images, and a file system with file
//! objects, file keys and the I/O on them (optionally down to the disk). Nothing touches real
//! files: a path is a row of a table.
//!
//! Every operation keeps the machine's tables, then asks the kernel-event path whether any
//! session wants its events — one load of the summary word (P15) — and only then builds them.
//!
//! | Windows | etwsim |
//! |---|---|
//! | `EPROCESS` (image, command line, parent, session, token) | [`ProcessSpec`](crate::ProcessSpec) + a row of the OS table; `UniqueProcessKey` = a simulated EPROCESS address |
//! | `ETHREAD` (stacks, TEB, start address) | [`Thread`](crate::Thread) + a row of the OS table |
//! | a mapped image (`LDR_DATA_TABLE_ENTRY`) | [`Image`] |
//! | `FILE_OBJECT` (one per open) / the file's `FCB` (FileKey) | [`FileHandle`] / a row of the file table |
//! | `NtCreateFile`, `NtReadFile`, `NtWriteFile`, `NtSetInformationFile`, `NtQueryDirectoryFile`, `NtFlushBuffersFile`, `CloseHandle` | [`Process::create_file`](crate::Process::create_file), [`FileHandle`]'s methods |
//!
//! Addresses (EPROCESS, FileObject, FileKey, IRP, stacks, image bases) come from counters, so
//! a deterministic kernel writes the same events on every run.

use crate::machine::kernel::Kernel;
use crate::machine::process::Process;
use crate::system::emit::{
    self, FILE_NAME_VERSION, Hook, KERNEL_FILE, KERNEL_PROCESS, Origin, SysLogger, SysRecord,
};
use crate::system::flags::event_trace_flag as flag;
use crate::system::manifest;
use crate::{Error, Result};
use etwsim_decode::fields::{Sid, TokenUser, Value};
use etwsim_decode::mof::{DISK_IO, FILE_IO, IMAGE, PROCESS, Schema, THREAD};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};

/// `STATUS_SUCCESS`.
const STATUS_SUCCESS: u32 = 0;
/// `STATUS_OBJECT_NAME_NOT_FOUND`: an open of a file that does not exist.
const STATUS_OBJECT_NAME_NOT_FOUND: u32 = 0xC000_0034;
/// `STATUS_OBJECT_NAME_COLLISION`: FILE_CREATE of a file that exists.
const STATUS_OBJECT_NAME_COLLISION: u32 = 0xC000_0035;
/// `STILL_ACTIVE`: the ExitStatus written for live processes (KRN-27's plausible value).
pub(crate) const STILL_ACTIVE: i32 = 259;
/// `FILE_RENAME_INFORMATION`'s class.
const FILE_RENAME_INFORMATION: u32 = 10;
/// `FILE_DISPOSITION_INFORMATION`'s class.
const FILE_DISPOSITION_INFORMATION: u32 = 13;
/// `FileDirectoryInformation`.
const FILE_DIRECTORY_INFORMATION: u32 = 1;
/// `FILE_DIRECTORY_FILE` create option.
const FILE_DIRECTORY_FILE: u32 = 0x1;
/// `FILE_SYNCHRONOUS_IO_NONALERT | FILE_NON_DIRECTORY_FILE`: what CreateFileW passes.
const FILE_DEFAULT_OPTIONS: u32 = 0x20 | 0x40;
/// `FILE_ATTRIBUTE_NORMAL`.
const FILE_ATTRIBUTE_NORMAL: u32 = 0x80;
/// `FILE_SHARE_READ | FILE_SHARE_WRITE`.
const SHARE_READ_WRITE: u32 = 0x3;

/// `CreateDisposition` of NtCreateFile: what to do when the file exists or not (the high byte
/// of FileIo_Create's CreateOptions, KRN-19).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Disposition {
    /// `FILE_SUPERSEDE` (0): replace or create.
    Supersede = 0,
    /// `FILE_OPEN` (1): open an existing file, else fail.
    Open = 1,
    /// `FILE_CREATE` (2): create a new file, fail if it exists.
    Create = 2,
    /// `FILE_OPEN_IF` (3): open, or create.
    OpenIf = 3,
    /// `FILE_OVERWRITE` (4): truncate an existing file, else fail.
    Overwrite = 4,
    /// `FILE_OVERWRITE_IF` (5): truncate or create.
    OverwriteIf = 5,
}

/// What an NtCreateFile call asks for besides the path (FileIo_Create's fields, KRN-19).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CreateFile {
    /// The disposition.
    pub disposition: Disposition,
    /// `CreateOptions` (low 24 bits).
    pub options: u32,
    /// `FileAttributes`.
    pub attributes: u32,
    /// `ShareAccess`.
    pub share_access: u32,
}

impl CreateFile {
    /// A regular file with `disposition`, as CreateFileW opens it (synchronous, not a
    /// directory, normal attributes, shared for reading and writing).
    pub fn new(disposition: Disposition) -> CreateFile {
        CreateFile {
            disposition,
            options: FILE_DEFAULT_OPTIONS,
            attributes: FILE_ATTRIBUTE_NORMAL,
            share_access: SHARE_READ_WRITE,
        }
    }

    /// A directory, opened for enumeration (`FILE_DIRECTORY_FILE`, FILE_OPEN_IF).
    pub fn directory() -> CreateFile {
        CreateFile {
            disposition: Disposition::OpenIf,
            options: FILE_DIRECTORY_FILE | 0x20,
            attributes: 0x10,
            share_access: SHARE_READ_WRITE,
        }
    }
}

/// One file of the simulated file system: its FileKey and name.
#[derive(Clone, Debug)]
pub(crate) struct FileNode {
    pub(crate) key: u64,
    /// The NT path, as first created.
    pub(crate) path: String,
    /// Size and delete disposition, shared with the handles so I/O on an open file touches
    /// no table (P15).
    pub(crate) data: Arc<FileData>,
    /// File objects open on it.
    pub(crate) opens: u32,
}

/// What the handles of a file share with its row.
#[derive(Debug, Default)]
pub(crate) struct FileData {
    pub(crate) size: AtomicU64,
    pub(crate) delete_pending: AtomicBool,
}

/// One open file object.
#[derive(Clone, Debug)]
pub(crate) struct ObjectRow {
    pub(crate) key: u64,
    /// The path as this open named it (lower-case table key of the node).
    pub(crate) node: String,
    pub(crate) owner: u64,
}

/// One process's OS-side row.
#[derive(Clone, Debug)]
pub(crate) struct OsProcess {
    pub(crate) pid: u32,
    pub(crate) parent: u32,
    pub(crate) session: u32,
    pub(crate) sid: String,
    pub(crate) image: String,
    pub(crate) command_line: String,
    pub(crate) package: String,
    pub(crate) app_id: String,
    pub(crate) threads: BTreeMap<u32, u16>,
    /// Loaded images by base address, in base order: bases only grow within a process, so
    /// a load appends (P15: a `BTreeMap` allocated and freed its node whenever a process's
    /// only image came and went).
    pub(crate) images: Vec<(u64, ImageRow)>,
    next_image: u64,
}

/// One loaded image.
#[derive(Clone, Debug)]
pub(crate) struct ImageRow {
    pub(crate) size: u64,
    /// Shared with the [`Image`] handle: a load copies the path once.
    pub(crate) path: Arc<str>,
    pub(crate) checksum: u32,
    pub(crate) time_date_stamp: u32,
}

/// The OS tables.
#[derive(Default)]
pub(crate) struct OsState {
    /// By process start key; exited processes are removed.
    pub(crate) processes: BTreeMap<u64, OsProcess>,
    /// By lower-case NT path.
    pub(crate) files: HashMap<String, FileNode>,
    /// Open file objects by FileObject address.
    pub(crate) objects: BTreeMap<u64, ObjectRow>,
    next_key: u64,
    next_object: u64,
}

/// The IRP counter: beside the OS tables, not behind their lock, so that I/O on an open
/// handle takes no lock (P15).
#[derive(Default)]
pub(crate) struct Irps(AtomicU64);

impl Irps {
    /// The next IRP address (0x10_0000 of them, reused in turn).
    fn next(&self) -> u64 {
        let n = self.0.fetch_add(1, Ordering::Relaxed).wrapping_add(1) % 0x10_0000;
        0xFFFF_9E00_0000_0000 + n * 0x100
    }
}

impl OsState {
    /// FileKeys of files open now, with their names: what a FileRundown lists (KRN-32).
    pub(crate) fn open_keys(&self) -> BTreeMap<u64, String> {
        self.objects
            .values()
            .filter_map(|o| Some((o.key, self.files.get(&o.node)?.path.clone())))
            .collect()
    }
}

/// A simulated `EPROCESS` address.
pub(crate) fn eprocess(key: u64) -> u64 {
    0xFFFF_C080_0000_0000 + key * 0x1000
}

/// A deterministic 32-bit digest of a path: the simulated image's checksum and link time (a
/// real image's come from its PE header, which the simulation has not got).
///
/// Eight bytes a step, each step one multiply, so a path of n bytes is a chain of about n / 8
/// dependent multiplies (P15: a byte-at-a-time FNV-1a, a chain of n, was 46 ns of the 163 ns
/// an unrecorded image load and unload took).
fn digest(s: &str) -> u32 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let b = s.as_bytes();
    let mut h = K ^ b.len() as u64;
    let words = b.chunks_exact(8);
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    for w in words.map(|w| <[u8; 8]>::try_from(w).unwrap_or_default()) {
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K).rotate_left(23);
    }
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    (h ^ (h >> 32)) as u32
}

/// `C:\dir\f.txt` → `\Device\HarddiskVolume3\dir\f.txt` (C: is volume 3, D: 4…); an NT
/// path (`\Device\…`, `\??\…`) is kept; any other path is taken as relative to C:.
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` for an empty path, a NUL, or more than 32,767 characters.
pub fn nt_path(path: &str) -> Result<String> {
    let mut nt = String::new();
    nt_path_into(path, &mut nt)?;
    Ok(nt)
}

/// [`nt_path`] as the shared string an image row and its [`Image`] keep: built in this OS
/// thread's scratch string, then copied once into the `Arc` (P15: building a `String` and
/// converting it allocated twice).
fn nt_path_shared(path: &str) -> Result<Arc<str>> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let in_scratch = SCRATCH.try_with(|scratch| {
        let mut nt = scratch.try_borrow_mut().ok()?;
        nt.clear();
        let shared = nt_path_into(path, &mut nt).map(|()| Arc::from(nt.as_str()));
        if nt.capacity() > 4096 {
            *nt = String::new(); // a long path's capacity is not kept
        }
        Some(shared)
    });
    match in_scratch {
        Ok(Some(shared)) => shared,
        // This thread's locals are being destroyed, or the scratch is in use.
        _ => nt_path(path).map(Arc::from),
    }
}

/// Whether any byte of `b` is 0, and whether any is `/`: eight bytes a step, each tested
/// with the zero-byte test `(w - 0x01…) & !w & 0x80…` (exact as to whether some byte is 0),
/// on the word and on the word XOR `////////` (P15: a byte-at-a-time fold took ≈ 4
/// instructions a byte).
fn nul_and_slash(b: &[u8]) -> (bool, bool) {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    const SLASHES: u64 = u64::from_le_bytes([b'/'; 8]);
    let zero_byte = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    if b.len() < 8 {
        return b
            .iter()
            .fold((false, false), |(n, s), &c| (n | (c == 0), s | (c == b'/')));
    }
    // The words, then the last eight bytes (overlapping the last word when the length is
    // not a multiple of 8).
    let last = b.len() - 8;
    let words = b.chunks_exact(8).chain([&b[last..]]);
    let (mut nul, mut slash) = (0u64, 0u64);
    for w in words {
        let w = u64::from_le_bytes(w.try_into().unwrap_or([1; 8]));
        nul |= zero_byte(w);
        slash |= zero_byte(w ^ SLASHES);
    }
    (nul != 0, slash != 0)
}

/// [`nt_path`] appended to `nt`; nothing appended on an error.
fn nt_path_into(path: &str, nt: &mut String) -> Result<()> {
    // One pass over the bytes for the NUL and the `/`, instead of a `memchr` then a `split`.
    let (nul, slash) = nul_and_slash(path.as_bytes());
    // UTF-8 never takes fewer bytes than UTF-16 takes units, so only a long path is counted.
    if path.is_empty() || nul || (path.len() > 32_767 && path.encode_utf16().count() > 32_767) {
        return Err(Error::invalid(format!("{path:?} is not a usable path")));
    }
    let b = path.as_bytes();
    let (volume, rest) = if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
        let volume = u32::from(b[0].to_ascii_uppercase() - b'A') + 1;
        (volume, path[2..].trim_start_matches(['\\', '/']))
    } else if path.starts_with('\\') {
        nt.push_str(path);
        return Ok(());
    } else {
        (3, path)
    };
    // The prefix, then the rest with `/` turned into `\`.
    nt.reserve(27 + rest.len());
    nt.push_str("\\Device\\HarddiskVolume");
    push_decimal(nt, volume);
    nt.push('\\');
    if slash {
        for (i, part) in rest.split('/').enumerate() {
            if i > 0 {
                nt.push('\\');
            }
            nt.push_str(part);
        }
    } else {
        nt.push_str(rest);
    }
    Ok(())
}

/// Appends `n` in decimal, without `fmt`.
fn push_decimal(s: &mut String, n: u32) {
    if n >= 10 {
        push_decimal(s, n / 10);
    }
    s.push(char::from(b'0' + (n % 10) as u8));
}

fn table_key(nt: &str) -> String {
    nt.to_lowercase()
}

fn schema(class: &'static etwsim_decode::mof::KernelClass, name: &str, version: u8) -> Schema {
    class
        .schema(name, version)
        .expect("the class table describes every event the OS layer writes")
}

/// The hooks of the events the recorded fast path builds in place (P15), resolved once from
/// the class table.
struct Hooks {
    read: Hook,
    write: Hook,
    op_end: Hook,
    image_load: Hook,
    image_unload: Hook,
    thread_start: Hook,
    thread_end: Hook,
}

static HOOKS: LazyLock<Hooks> = LazyLock::new(|| Hooks {
    read: Hook::of(&schema(&FILE_IO, "Read", 3)),
    write: Hook::of(&schema(&FILE_IO, "Write", 3)),
    op_end: Hook::of(&schema(&FILE_IO, "OperationEnd", 3)),
    image_load: Hook::of(&schema(&IMAGE, "Load", 3)),
    image_unload: Hook::of(&schema(&IMAGE, "Unload", 3)),
    thread_start: Hook::of(&schema(&THREAD, "Start", 3)),
    thread_end: Hook::of(&schema(&THREAD, "End", 3)),
});

/// FileIo Read or Write (v3, FileIo_ReadWrite): Offset, IrpPtr, FileObject, FileKey,
/// IssuingThreadId, IoSize, IoFlags — [`rw_values`]'s bytes.
#[allow(clippy::too_many_arguments)]
fn rw_record(
    hook: Hook,
    o: &Origin,
    offset: u64,
    irp: u64,
    object: u64,
    key: u64,
    len: u32,
    io_flags: u32,
) -> SysRecord<80> {
    let mut r = SysRecord::new(hook, o);
    r.u64(offset)
        .u64(irp)
        .u64(object)
        .u64(key)
        .u32(o.tid)
        .u32(len)
        .u32(io_flags);
    r
}

/// FileIo OperationEnd (v3): IrpPtr, ExtraInfo, NtStatus — [`FileEvent::op_end`]'s bytes.
fn op_end_record(o: &Origin, irp: u64, info: u64, status: u32) -> SysRecord<56> {
    let mut r = SysRecord::new(HOOKS.op_end, o);
    r.u64(irp).u64(info).u32(status);
    r
}

/// The stack record of an Image event: paths up to 147 UTF-16 units.
type ImageRecord = SysRecord<384>;

/// The stack record of an Image event with a path of at most [`SHORT_IMAGE_PATH`] bytes
/// (P15: zeroing 256 bytes is sixteen stores in line, 384 a call to `memset`).
type ShortImageRecord = SysRecord<256>;

/// The longest path, in UTF-8 bytes, that [`ShortImageRecord`] takes: 32 + 56 bytes before
/// the name, and a UTF-16 unit per byte at most, with the NUL.
const SHORT_IMAGE_PATH: usize = (256 - 32 - 56 - 2) / 2;

/// Image Load or Unload (v3) into `r` (a header only) — [`image_values`]'s bytes; false if
/// the path does not fit the stack record (the caller then takes the generic encoder).
/// Inlined into a fresh record, so the fixed fields' offsets are known and need no checks.
#[inline(always)]
fn image_record<const N: usize>(r: &mut SysRecord<N>, pid: u32, base: u64, i: &ImageRow) -> bool {
    r.u64(base)
        .u64(i.size)
        .u32(pid)
        .u32(i.checksum)
        .u32(i.time_date_stamp)
        .u32(0) // SignatureLevel, SignatureType (u8 each), Reserved0 (u16)
        .u64(base)
        .u32(0)
        .u32(0)
        .u32(0)
        .u32(0);
    r.utf16z(&i.path)
}

/// Thread Start or End (v3, Thread_TypeGroup1) — [`thread_values`]'s bytes.
fn thread_record(hook: Hook, o: &Origin, pid: u32, tid: u32, cpus: u16) -> SysRecord<104> {
    let t = u64::from(tid);
    let kstack = 0xFFFF_F800_0000_0000 + t * 0x1_0000;
    let ustack = 0x0000_00F0_0000_0000 + t * 0x10_0000;
    let mut r = SysRecord::new(hook, o);
    r.u32(pid)
        .u32(tid)
        .u64(kstack)
        .u64(kstack - 0x6000)
        .u64(ustack)
        .u64(ustack - 0x1_0000)
        .u64(affinity(cpus))
        .u64(0x0000_7FF6_0000_1000 + t * 0x10)
        .u64(0x0000_00E0_0000_0000 + t * 0x2000)
        .u32(0);
    r.bytes(&[8, 5, 2, 0]); // BasePriority, PagePriority, IoPriority, ThreadFlags
    r
}

/// A thread's affinity: every CPU of the machine.
fn affinity(cpus: u16) -> u64 {
    if cpus >= 64 {
        u64::MAX
    } else {
        (1u64 << cpus) - 1
    }
}

impl Kernel {
    /// The header's process and thread for an event caused by process `key` (`pid`): its
    /// current simulated thread (entered, or the implicit one), that thread's CPU, and the
    /// clock now. Call without holding the OS lock (the implicit thread may take the state
    /// lock).
    pub(crate) fn origin_of(&self, key: u64, pid: u32) -> Origin {
        let (tid, cpu) = crate::machine::thread::with_current(self, key, |t| {
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
    pub(crate) fn system_origin(&self) -> Origin {
        Origin {
            pid: self.system_process().pid(),
            tid: 0,
            cpu: 0,
            ticks: self.event_ticks(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Processes, threads, images.

/// The Process_TypeGroup1 v4 values of `p` (KRN-27).
pub(crate) fn process_values(key: u64, p: &OsProcess, exit_status: i32) -> Vec<Value> {
    let sid = match p.sid.parse::<Sid>() {
        Ok(s) => Value::TokenUser(TokenUser::new(s)),
        Err(_) => Value::Null,
    };
    let file_name = p.image.rsplit(['\\', '/']).next().unwrap_or(&p.image);
    let ansi: Vec<u8> = file_name
        .chars()
        .map(|c| if c.is_ascii() { c as u8 } else { b'?' })
        .collect();
    vec![
        Value::Pointer(eprocess(key)),
        Value::U32(p.pid),
        Value::U32(p.parent),
        Value::U32(p.session),
        Value::I32(exit_status),
        Value::Pointer(0x1_0000_0000 + key * 0x1000),
        Value::U32(0),
        sid,
        Value::Ansi(ansi),
        Value::String(p.command_line.clone()),
        Value::String(p.package.clone()),
        Value::String(p.app_id.clone()),
    ]
}

/// The Thread_TypeGroup1 v3 values (KRN-28).
pub(crate) fn thread_values(pid: u32, tid: u32, cpus: u16) -> Vec<Value> {
    let t = u64::from(tid);
    let kstack = 0xFFFF_F800_0000_0000 + t * 0x1_0000;
    let ustack = 0x0000_00F0_0000_0000 + t * 0x10_0000;
    vec![
        Value::U32(pid),
        Value::U32(tid),
        Value::Pointer(kstack),
        Value::Pointer(kstack - 0x6000),
        Value::Pointer(ustack),
        Value::Pointer(ustack - 0x1_0000),
        Value::Pointer(affinity(cpus)),
        Value::Pointer(0x0000_7FF6_0000_1000 + t * 0x10),
        Value::Pointer(0x0000_00E0_0000_0000 + t * 0x2000),
        Value::U32(0),
        Value::U8(8),
        Value::U8(5),
        Value::U8(2),
        Value::U8(0),
    ]
}

/// The Image_Load values (KRN-29).
pub(crate) fn image_values(pid: u32, base: u64, i: &ImageRow) -> Vec<Value> {
    vec![
        Value::Pointer(base),
        Value::Pointer(i.size),
        Value::U32(pid),
        Value::U32(i.checksum),
        Value::U32(i.time_date_stamp),
        Value::U8(0),
        Value::U8(0),
        Value::U16(0),
        Value::Pointer(base),
        Value::U32(0),
        Value::U32(0),
        Value::U32(0),
        Value::U32(0),
        Value::String(i.path.to_string()),
    ]
}

/// Writes one Process / Thread / Image event to the system loggers with `flag`.
pub(crate) fn emit_classic(k: &Kernel, flag: u32, schema: &Schema, values: &[Value], o: &Origin) {
    if let Some(p) = emit::payload(schema, values) {
        emit::classic(&k.inner.sys.loggers.current(), flag, schema, &p, o);
    }
}

impl Kernel {
    /// Records a started process in the OS table and writes Process Start (KRN-09) and the
    /// Kernel-Process ProcessStart event (KRN-43).
    pub(crate) fn os_process_started(&self, key: u64, spec: &crate::ProcessSpec, pid: u32) {
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
        let creator = self.with_state(|s| s.live_pids.get(&parent).copied());
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
            manifest::process_start(self, &values, &o);
        }
    }

    /// Ends a process on the OS side: its open files are closed, its threads end, its images
    /// unload, then Process End with `exit_status`.
    pub(crate) fn os_process_exited(&self, key: u64, exit_status: i32) {
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
    pub(crate) fn os_thread_started(&self, key: u64, tid: u32, cpu: u16) {
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
    pub(crate) fn os_thread_exited(&self, key: u64, tid: u32) {
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

    fn os_image_unloaded(&self, key: u64, base: u64) {
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

/// An image mapped into a process (`LoadLibrary`): unload it with [`Image::unload`].
#[derive(Clone, Debug)]
pub struct Image {
    process: Process,
    base: u64,
    size: u64,
    path: Arc<str>,
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
                manifest::image_load(k, self.pid, base, &row, &o);
            }
        }
        Ok(Image {
            process: self.clone(),
            base,
            size,
            path: row.path,
        })
    }

    /// NtCreateFile as this process: opens or creates `path` (`C:\…` or an NT path) as
    /// `how` says, and returns the new file object's handle. Writes FileIo Create (64),
    /// FileCreate (32) when a session has no name for the file yet, OperationEnd (76), and
    /// the Kernel-File events (KRN-19, KRN-33, KRN-42). A failed open writes Create and an
    /// OperationEnd with the failure status, as the kernel does.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for an unusable path or an exited process;
    /// `ERROR_FILE_NOT_FOUND` (2) for FILE_OPEN / FILE_OVERWRITE of a missing file;
    /// `ERROR_FILE_EXISTS` (80) for FILE_CREATE of an existing one.
    pub fn create_file(&self, path: &str, how: CreateFile) -> Result<FileHandle> {
        let nt = nt_path(path)?;
        let k = &self.kernel;
        let sys = &k.inner.sys;
        let tk = table_key(&nt);
        let wanted = sys.loggers.wants(FILE_EVENTS);
        let origin = wanted.then(|| k.origin_of(self.start_key, self.pid));
        let (result, irp, new_key) = {
            let mut os = sys.os.lock();
            if !os.processes.contains_key(&self.start_key) {
                return Err(Error::invalid(format!("process {} has exited", self.pid)));
            }
            let irp = sys.irps.next();
            let exists = os
                .files
                .get(&tk)
                .is_some_and(|n| !n.data.delete_pending.load(Ordering::Relaxed));
            let status = match (how.disposition, exists) {
                (Disposition::Open | Disposition::Overwrite, false) => {
                    Err(STATUS_OBJECT_NAME_NOT_FOUND)
                }
                (Disposition::Create, true) => Err(STATUS_OBJECT_NAME_COLLISION),
                _ => Ok(()),
            };
            match status {
                Err(s) => (Err(s), irp, false),
                Ok(()) => {
                    os.next_object += 1;
                    let object = 0xFFFF_A00C_0000_0000 + os.next_object * 0x150;
                    let mut new_key = false;
                    if !exists {
                        os.next_key += 1;
                        let key = 0xFFFF_B00D_0000_0000 + os.next_key * 0x1000;
                        os.files.insert(
                            tk.clone(),
                            FileNode {
                                key,
                                path: nt.clone(),
                                data: Arc::default(),
                                opens: 0,
                            },
                        );
                        new_key = true;
                    }
                    let node = os.files.get_mut(&tk).expect("inserted above");
                    if matches!(
                        how.disposition,
                        Disposition::Supersede | Disposition::Overwrite | Disposition::OverwriteIf
                    ) {
                        node.data.size.store(0, Ordering::Relaxed);
                    }
                    node.opens += 1;
                    let key = node.key;
                    let data = node.data.clone();
                    os.objects.insert(
                        object,
                        ObjectRow {
                            key,
                            node: tk.clone(),
                            owner: self.start_key,
                        },
                    );
                    (Ok((object, key, data)), irp, new_key)
                }
            }
        };
        // FILE_CREATED (2) or FILE_OPENED (1) in IoStatus.Information.
        let info = if new_key { 2 } else { 1 };
        if let Some(o) = origin {
            let (object, status) = match &result {
                Ok((object, _, _)) => (*object, STATUS_SUCCESS),
                Err(s) => (0, *s),
            };
            let create_options = (how.disposition as u32) << 24 | (how.options & 0x00FF_FFFF);
            let mut events = vec![FileEvent::new(
                "Create",
                vec![
                    Value::Pointer(irp),
                    Value::Pointer(object),
                    Value::U32(o.tid),
                    Value::U32(create_options),
                    Value::U32(how.attributes),
                    Value::U32(how.share_access),
                    Value::String(nt.clone()),
                ],
            )];
            if let Ok((_, key, _)) = &result {
                let key = *key;
                events.push(FileEvent::name("FileCreate", key, &nt));
            }
            events.push(FileEvent::op_end(
                irp,
                if status == 0 { info } else { 0 },
                status,
            ));
            k.write_file_events(&events, &o, new_key);
        }
        match result {
            Ok((object, key, data)) => Ok(FileHandle {
                process: self.clone(),
                object,
                key,
                path: nt,
                data,
            }),
            Err(STATUS_OBJECT_NAME_COLLISION) => Err(Error::Other {
                code: etwsim_types::Win32Error(80),
                context: format!("{path:?} exists (FILE_CREATE)"),
            }),
            Err(_) => Err(Error::Other {
                code: etwsim_types::Win32Error(2),
                context: format!("{path:?} does not exist"),
            }),
        }
    }

    /// [`create_file`](Self::create_file) with FILE_OPEN_IF and CreateFileW's defaults.
    ///
    /// # Errors
    /// As [`create_file`](Self::create_file).
    pub fn open_file(&self, path: &str) -> Result<FileHandle> {
        self.create_file(path, CreateFile::new(Disposition::OpenIf))
    }
}

/// Every flag and provider bit a file operation can produce events for.
const FILE_EVENTS: u64 =
    (flag::FILE_IO_INIT | flag::FILE_IO | flag::DISK_FILE_IO | flag::DISK_IO | flag::DISK_IO_INIT)
        as u64
        | KERNEL_FILE;

/// One FileIo event of an operation, before it is written.
pub(crate) struct FileEvent {
    pub(crate) name: &'static str,
    pub(crate) values: Vec<Value>,
}

impl FileEvent {
    fn new(name: &'static str, values: Vec<Value>) -> FileEvent {
        FileEvent { name, values }
    }

    pub(crate) fn name(name: &'static str, key: u64, path: &str) -> FileEvent {
        FileEvent::new(
            name,
            vec![Value::Pointer(key), Value::String(path.to_string())],
        )
    }

    fn op_end(irp: u64, info: u64, status: u32) -> FileEvent {
        FileEvent::new(
            "OperationEnd",
            vec![
                Value::Pointer(irp),
                Value::Pointer(info),
                Value::U32(status),
            ],
        )
    }

    /// Class, flag and header version of the classic event.
    fn classic(&self) -> (Schema, u32) {
        match self.name {
            "Name" | "FileCreate" | "FileDelete" | "FileRundown" => (
                schema(&FILE_IO, self.name, FILE_NAME_VERSION),
                flag::DISK_FILE_IO,
            ),
            "OperationEnd" => (schema(&FILE_IO, self.name, 3), flag::FILE_IO),
            _ => (schema(&FILE_IO, self.name, 3), flag::FILE_IO_INIT),
        }
    }
}

impl Kernel {
    /// Writes an operation's FileIo events: each classic event to the system loggers whose
    /// flags select it (name events only to sessions that do not know the key's name yet, or,
    /// for FileDelete, that do), and the Kernel-File counterparts (KRN-42).
    pub(crate) fn write_file_events(&self, events: &[FileEvent], o: &Origin, new_key: bool) {
        let sys = &self.inner.sys;
        let loggers = sys.loggers.current();
        for e in events {
            let (schema, flag) = e.classic();
            let Some(payload) = emit::payload(&schema, &e.values) else {
                continue;
            };
            let key = match e.values.first() {
                Some(Value::Pointer(k)) => *k,
                _ => 0,
            };
            match e.name {
                "FileCreate" | "Name" => {
                    for l in loggers.iter().filter(|l| l.wants(flag)) {
                        if l.named.lock().insert(key) {
                            if let Some(mut rec) = emit::system_record(&schema, payload.clone(), o)
                            {
                                emit::store(&l.ctx, &mut rec, o, false);
                            }
                        }
                    }
                }
                "FileDelete" => {
                    for l in loggers.iter().filter(|l| l.wants(flag)) {
                        l.named.lock().remove(&key);
                    }
                    emit::classic(&loggers, flag, &schema, &payload, o);
                }
                _ => emit::classic(&loggers, flag, &schema, &payload, o),
            }
            if sys.loggers.wants(KERNEL_FILE) {
                let name_new = e.name != "FileCreate" || new_key;
                if name_new {
                    manifest::kernel_file(self, e.name, &payload, o);
                }
            }
        }
    }

    /// Cleanup (unless done) and Close of file object `object`, FileDelete at the key's last
    /// close; the file goes away if a delete was pending.
    pub(crate) fn file_close(&self, owner: u64, pid: u32, object: u64, cleanup: bool) {
        let sys = &self.inner.sys;
        let wanted = sys.loggers.wants(FILE_EVENTS);
        let origin = wanted.then(|| self.origin_of(owner, pid));
        let (key, last, path, irps) = {
            let mut os = sys.os.lock();
            let Some(row) = os.objects.remove(&object) else {
                return;
            };
            let irps = (sys.irps.next(), sys.irps.next());
            let (last, path) = match os.files.get_mut(&row.node) {
                Some(n) => {
                    n.opens -= 1;
                    (n.opens == 0, n.path.clone())
                }
                None => (true, String::new()),
            };
            if last
                && os
                    .files
                    .get(&row.node)
                    .is_some_and(|n| n.data.delete_pending.load(Ordering::Relaxed))
            {
                os.files.remove(&row.node);
            }
            (row.key, last, path, irps)
        };
        let Some(o) = origin else { return };
        let simple = |name: &'static str, irp: u64| {
            FileEvent::new(
                name,
                vec![
                    Value::Pointer(irp),
                    Value::Pointer(object),
                    Value::Pointer(key),
                    Value::U32(o.tid),
                ],
            )
        };
        let mut events = Vec::new();
        if cleanup {
            events.push(simple("Cleanup", irps.0));
            events.push(FileEvent::op_end(irps.0, 0, STATUS_SUCCESS));
        }
        events.push(simple("Close", irps.1));
        events.push(FileEvent::op_end(irps.1, 0, STATUS_SUCCESS));
        if last {
            events.push(FileEvent::name("FileDelete", key, &path));
        }
        self.write_file_events(&events, &o, false);
    }
}

/// An open file: one `FILE_OBJECT` (its address is the FileObject of the events) on one file
/// (whose FileKey all its opens share, KRN-26), owned by the process that opened it.
///
/// Dropping it does nothing: like a leaked handle it stays open until
/// [`close`](Self::close), [`cleanup`](Self::cleanup) or its process's exit.
#[derive(Debug)]
pub struct FileHandle {
    process: Process,
    object: u64,
    key: u64,
    path: String,
    data: Arc<FileData>,
}

impl FileHandle {
    /// The FileObject address.
    pub fn file_object(&self) -> u64 {
        self.object
    }
    /// The FileKey: the same for every open of the file.
    pub fn file_key(&self) -> u64 {
        self.key
    }
    /// The NT path it was opened with.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// The owning process.
    pub fn process(&self) -> &Process {
        &self.process
    }

    #[inline(always)]
    fn op(&self, name: &'static str, values: impl FnOnce(u64, u32) -> Vec<Value>, info: u64) {
        op_on(&self.process, name, values, info);
    }

    /// NtReadFile from the cache: FileIo Read (67) and OperationEnd with the bytes read
    /// (KRN-21, KRN-24). Reading past the end reads what is there.
    #[inline]
    pub fn read(&self, offset: u64, len: u32) -> u32 {
        let size = self.size();
        let n = u32::try_from(size.saturating_sub(offset).min(u64::from(len))).unwrap_or(len);
        if self.recorded() {
            self.rw_recorded(false, offset, len, 0, u64::from(n));
        }
        n
    }

    /// NtWriteFile into the cache: FileIo Write (68) and OperationEnd; the file grows.
    #[inline]
    pub fn write(&self, offset: u64, len: u32) {
        self.grow(offset + u64::from(len));
        if self.recorded() {
            self.rw_recorded(true, offset, len, 0, u64::from(len));
        }
    }

    /// Whether some session may want file events: one load (P15: with [`read`](Self::read)
    /// and [`write`](Self::write) inlined, an operation nobody records is the file-size
    /// update and this load and branch).
    #[inline(always)]
    fn recorded(&self) -> bool {
        self.process.kernel.inner.sys.loggers.wants(FILE_EVENTS)
    }

    /// The events of a read or write (FileIo Read or Write with `io_flags`, then
    /// OperationEnd with `info`), once some session may want them: built in place on the
    /// stack, no lock (P15).
    #[cold]
    #[inline(never)]
    fn rw_recorded(&self, write: bool, offset: u64, len: u32, io_flags: u32, info: u64) {
        let p = &self.process;
        let k = &p.kernel;
        let sys = &k.inner.sys;
        let o = k.origin_of(p.start_key, p.pid);
        let irp = sys.irps.next();
        let (hook, name) = if write {
            (HOOKS.write, "Write")
        } else {
            (HOOKS.read, "Read")
        };
        let mut r = rw_record(hook, &o, offset, irp, self.object, self.key, len, io_flags);
        sys.loggers.with(|loggers| {
            emit::classic_record(loggers, flag::FILE_IO_INIT, &mut r, &o);
            if sys.loggers.wants(KERNEL_FILE) {
                manifest::kernel_file(k, name, r.payload(), &o);
            }
            op_end(k, loggers, irp, info, STATUS_SUCCESS, &o);
        });
    }

    /// A read that goes to the disk (a cache miss): FileIo Read, then DiskIo ReadInit (12)
    /// and Read (10) whose FileObject field is the FileKey (KRN-26, KRN-30) — preceded by a
    /// FileIo Name (0) in a session that has no name for the key yet (KRN-33's choice) —
    /// then OperationEnd.
    pub fn read_from_disk(&self, offset: u64, len: u32) -> u32 {
        let n = self.read(offset, len);
        self.disk_io("Read", offset, n);
        n
    }

    /// A write-through write: FileIo Write, then DiskIo WriteInit (13) and Write (11).
    pub fn write_through(&self, offset: u64, len: u32) {
        self.write(offset, len);
        self.disk_io("Write", offset, len);
    }

    fn disk_io(&self, name: &'static str, offset: u64, len: u32) {
        disk_io_on(&self.process, self.key, &self.path, name, offset, len);
    }

    /// NtSetInformationFile with class `info_class`: FileIo SetInfo (69) (KRN-22).
    pub fn set_information(&self, info_class: u32, extra: u64) {
        self.op(
            "SetInfo",
            |irp, tid| info_values(irp, self, extra, tid, info_class),
            0,
        );
    }

    /// NtQueryInformationFile: FileIo QueryInfo (74).
    pub fn query_information(&self, info_class: u32) {
        self.op(
            "QueryInfo",
            |irp, tid| info_values(irp, self, 0, tid, info_class),
            0,
        );
    }

    /// Marks the file for deletion (FileDispositionInformation): FileIo Delete (70); the file
    /// leaves the file system at its last close.
    pub fn delete(&self) {
        self.data.delete_pending.store(true, Ordering::Relaxed);
        self.op(
            "Delete",
            |irp, tid| info_values(irp, self, 1, tid, FILE_DISPOSITION_INFORMATION),
            0,
        );
    }

    /// Renames the file to `new_path`: FileIo Rename (71). Its key keeps its identity; name
    /// events from now on carry the new name.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for an unusable path; `ERROR_FILE_EXISTS` (80) if a file of
    /// that name exists.
    pub fn rename(&mut self, new_path: &str) -> Result<()> {
        let nt = nt_path(new_path)?;
        let tk = table_key(&nt);
        {
            let sys = &self.process.kernel.inner.sys;
            let mut os = sys.os.lock();
            if os.files.contains_key(&tk) {
                return Err(Error::Other {
                    code: etwsim_types::Win32Error(80),
                    context: format!("{new_path:?} exists"),
                });
            }
            let old = table_key(&self.path);
            if let Some(mut node) = os.files.remove(&old) {
                node.path = nt.clone();
                os.files.insert(tk.clone(), node);
                for o in os.objects.values_mut().filter(|o| o.node == old) {
                    o.node = tk.clone();
                }
            }
        }
        self.path = nt;
        self.op(
            "Rename",
            |irp, tid| info_values(irp, self, 0, tid, FILE_RENAME_INFORMATION),
            0,
        );
        Ok(())
    }

    /// NtQueryDirectoryFile with `pattern`: FileIo DirEnum (72) (KRN-23). Returns the names
    /// of the files directly in this directory that match (`*` and `?` wildcards).
    pub fn enumerate_directory(&self, pattern: &str) -> Vec<String> {
        let prefix = format!("{}\\", table_key(&self.path).trim_end_matches('\\'));
        let names: Vec<String> = {
            let os = self.process.kernel.inner.sys.os.lock();
            let mut v: Vec<String> = os
                .files
                .iter()
                .filter(|(k, n)| {
                    !n.data.delete_pending.load(Ordering::Relaxed) && k.starts_with(&prefix)
                })
                .filter_map(|(_, n)| {
                    let name = n.path.get(prefix.len()..)?.to_string();
                    (!name.contains('\\') && wildcard(pattern, &name)).then_some(name)
                })
                .collect();
            v.sort();
            v
        };
        let pattern = pattern.replace('\0', "");
        self.op(
            "DirEnum",
            |irp, tid| {
                vec![
                    Value::Pointer(irp),
                    Value::Pointer(self.object),
                    Value::Pointer(self.key),
                    Value::U32(tid),
                    Value::U32(0x1000),
                    Value::U32(FILE_DIRECTORY_INFORMATION),
                    Value::U32(0),
                    Value::String(pattern.clone()),
                ]
            },
            names.len() as u64,
        );
        names
    }

    /// NtFlushBuffersFile: FileIo Flush (73).
    pub fn flush(&self) {
        self.op(
            "Flush",
            |irp, tid| {
                vec![
                    Value::Pointer(irp),
                    Value::Pointer(self.object),
                    Value::Pointer(self.key),
                    Value::U32(tid),
                ]
            },
            0,
        );
    }

    /// CloseHandle on the last handle while the object lives on (the cache manager or the
    /// memory manager still holds it): FileIo Cleanup (65). The returned [`ClosingFile`]
    /// can still do paging I/O (the lazy writer's writes) until its Close.
    pub fn cleanup(self) -> ClosingFile {
        self.op(
            "Cleanup",
            |irp, tid| {
                vec![
                    Value::Pointer(irp),
                    Value::Pointer(self.object),
                    Value::Pointer(self.key),
                    Value::U32(tid),
                ]
            },
            0,
        );
        ClosingFile { file: self }
    }

    /// CloseHandle: Cleanup (65), then Close (66) as the object is freed, then FileDelete
    /// (35) if it was the file's last open (KRN-26, KRN-33).
    pub fn close(self) {
        let k = self.process.kernel.clone();
        k.file_close(self.process.start_key, self.process.pid, self.object, true);
    }

    #[inline]
    fn size(&self) -> u64 {
        self.data.size.load(Ordering::Relaxed)
    }

    #[inline]
    fn grow(&self, end: u64) {
        // A write inside the file costs a load; only growth takes the read-modify-write.
        if end > self.data.size.load(Ordering::Relaxed) {
            self.data.size.fetch_max(end, Ordering::Relaxed);
        }
    }
}

/// A file object whose handle was closed (after [`FileHandle::cleanup`]): paging I/O may
/// still run on it until [`close`](Self::close).
#[derive(Debug)]
pub struct ClosingFile {
    file: FileHandle,
}

impl ClosingFile {
    /// The lazy writer flushing cached data: a paging FileIo Write (68) with the same
    /// FileObject, after Cleanup — what real-time name resolution loses (KRN-39).
    pub fn paging_write(&self, offset: u64, len: u32) {
        self.file.grow(offset + u64::from(len));
        if self.file.recorded() {
            // IoFlags: IRP_PAGING_IO
            self.file
                .rw_recorded(true, offset, len, 0x2, u64::from(len));
        }
    }

    /// The FileObject address.
    pub fn file_object(&self) -> u64 {
        self.file.object
    }

    /// The object is freed: Close (66), and FileDelete (35) at the file's last close.
    pub fn close(self) {
        let f = self.file;
        let k = f.process.kernel.clone();
        k.file_close(f.process.start_key, f.process.pid, f.object, false);
    }
}

/// The FileIo Read / Write values, for the generic encoder ([`rw_record`]'s reference).
#[cfg(test)]
fn rw_values(offset: u64, irp: u64, object: u64, key: u64, tid: u32, len: u32) -> Vec<Value> {
    vec![
        Value::U64(offset),
        Value::Pointer(irp),
        Value::Pointer(object),
        Value::Pointer(key),
        Value::U32(tid),
        Value::U32(len),
        Value::U32(0),
    ]
}

fn info_values(irp: u64, f: &FileHandle, extra: u64, tid: u32, class: u32) -> Vec<Value> {
    vec![
        Value::Pointer(irp),
        Value::Pointer(f.object),
        Value::Pointer(f.key),
        Value::Pointer(extra),
        Value::U32(tid),
        Value::U32(class),
    ]
}

/// One FileIo operation and its OperationEnd on file object `object`.
#[inline(always)]
fn op_on(p: &Process, name: &'static str, values: impl FnOnce(u64, u32) -> Vec<Value>, info: u64) {
    if p.kernel.inner.sys.loggers.wants(FILE_EVENTS) {
        op_recorded(p, name, values, info);
    }
    // P15: otherwise one load and a branch, inlined into the caller, when nobody listens
}

/// [`op_on`] once some session may want the events: out of line, so that the check stays a
/// load and a branch in the caller.
#[cold]
#[inline(never)]
fn op_recorded(
    p: &Process,
    name: &'static str,
    values: impl FnOnce(u64, u32) -> Vec<Value>,
    info: u64,
) {
    let k = &p.kernel;
    let sys = &k.inner.sys;
    let o = k.origin_of(p.start_key, p.pid);
    let irp = sys.irps.next();
    k.write_file_events(&[FileEvent::new(name, values(irp, o.tid))], &o, false);
    sys.loggers
        .with(|l| op_end(k, l, irp, info, STATUS_SUCCESS, &o));
}

/// FileIo OperationEnd (76) of IRP `irp`, built in place, to the system loggers taking
/// FILE_IO and to Kernel-File (KRN-24).
fn op_end(k: &Kernel, loggers: &[Arc<SysLogger>], irp: u64, info: u64, status: u32, o: &Origin) {
    let mut r = op_end_record(o, irp, info, status);
    emit::classic_record(loggers, flag::FILE_IO, &mut r, o);
    if k.inner.sys.loggers.wants(KERNEL_FILE) {
        manifest::kernel_file(k, "OperationEnd", r.payload(), o);
    }
}

/// DiskIo events of one transfer on the file with key `key` (KRN-30), with the Name (0)
/// event first for sessions that have no name for the key (KRN-33's choice).
fn disk_io_on(p: &Process, key: u64, path: &str, name: &'static str, offset: u64, len: u32) {
    let k = &p.kernel;
    let sys = &k.inner.sys;
    let bits = (flag::DISK_IO | flag::DISK_IO_INIT | flag::DISK_FILE_IO) as u64;
    if !sys.loggers.wants(bits) {
        return;
    }
    let o = k.origin_of(p.start_key, p.pid);
    let irp = sys.irps.next();
    let loggers = sys.loggers.current();
    // Name (0) for sessions that take DiskIo and file names but have no name for this key.
    let name_schema = schema(&FILE_IO, "Name", FILE_NAME_VERSION);
    if let Some(payload) = emit::payload(
        &name_schema,
        &[Value::Pointer(key), Value::String(path.to_string())],
    ) {
        for l in loggers
            .iter()
            .filter(|l| l.wants(flag::DISK_FILE_IO) && l.wants(flag::DISK_IO))
        {
            if l.named.lock().insert(key) {
                if let Some(mut rec) = emit::system_record(&name_schema, payload.clone(), &o) {
                    emit::store(&l.ctx, &mut rec, &o, false);
                }
            }
        }
    }
    let init = schema(&DISK_IO, &format!("{name}Init"), 3);
    if let Some(payload) = emit::payload(&init, &[Value::Pointer(irp), Value::U32(o.tid)]) {
        emit::classic(&loggers, flag::DISK_IO_INIT, &init, &payload, &o);
    }
    let done = schema(&DISK_IO, name, 3);
    if let Some(payload) = emit::payload(
        &done,
        &[
            Value::U32(0),
            Value::U32(0x43),
            Value::U32(len),
            Value::U32(0),
            Value::I64(offset as i64),
            Value::Pointer(key),
            Value::Pointer(irp),
            Value::U64(1_000),
            Value::U32(o.tid),
        ],
    ) {
        emit::classic(&loggers, flag::DISK_IO, &done, &payload, &o);
    }
}

/// `*` and `?` matching, case-insensitive (FsRtlIsNameInExpression's everyday subset).
fn wildcard(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some('*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some('?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) => a.eq_ignore_ascii_case(b) && go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.to_lowercase().chars().collect();
    let p: Vec<char> = p.iter().flat_map(|c| c.to_lowercase()).collect();
    go(&p, &n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time scan against a byte loop: a 0 or a `/` at every place of every
    /// length up to five words, among bytes that differ from them in one bit or in the
    /// high bit (which the zero-byte test must not take for a match).
    #[test]
    fn nul_and_slash_finds_each_at_every_place() {
        let near = [
            1u8,
            0x80,
            0xFF,
            b'/' - 1,
            b'/' + 1,
            b'/' | 0x80,
            b'/' ^ 1,
            b'.',
        ];
        for len in 0..=40 {
            for fill in near {
                let mut b = vec![fill; len];
                assert_eq!(nul_and_slash(&b), (false, false), "{len} × {fill:#x}");
                for at in 0..len {
                    for (c, want) in [(0u8, (true, false)), (b'/', (false, true))] {
                        b[at] = c;
                        assert_eq!(nul_and_slash(&b), want, "{len} × {fill:#x}, {c:#x} at {at}");
                        b[at] = fill;
                    }
                }
            }
        }
    }

    /// The conversion every path-taking OS call makes, against the plain `format!` it
    /// replaced: C: is volume 3, letters map in order, `/` becomes `\`, a leading separator
    /// after the drive is dropped, an NT path is kept, anything else is relative to C:.
    #[test]
    fn nt_path_builds_the_device_path() {
        fn reference(path: &str) -> String {
            let b = path.as_bytes();
            if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
                let volume = u32::from(b[0].to_ascii_uppercase() - b'A') + 1;
                let rest = path[2..].trim_start_matches(['\\', '/']);
                return format!(
                    "\\Device\\HarddiskVolume{volume}\\{}",
                    rest.replace('/', "\\")
                );
            }
            if path.starts_with('\\') {
                return path.to_string();
            }
            format!("\\Device\\HarddiskVolume3\\{}", path.replace('/', "\\"))
        }
        for p in [
            "C:\\Windows\\System32\\ntdll.dll",
            "c:/a/b//c.txt",
            "D:x",
            "z:\\\\deep\\",
            "J:\\",
            "\\Device\\HarddiskVolume9\\x",
            "\\??\\C:\\y",
            "relative/dir\\f.log",
            "1:\\not-a-drive",
            "é/ü.txt",
        ] {
            assert_eq!(nt_path(p).expect("a usable path"), reference(p), "{p}");
            assert_eq!(
                &*nt_path_shared(p).expect("a usable path"),
                reference(p),
                "{p}"
            );
        }
        // The shared form rejects what `nt_path` rejects, and a long path after a short one
        // is whole (the scratch string is reused).
        assert!(nt_path_shared("").is_err());
        assert!(nt_path_shared("C:\\a\0b").is_err());
        let long = format!("C:\\{}", "d/".repeat(3000));
        assert_eq!(&*nt_path_shared(&long).expect("long"), reference(&long));
        assert_eq!(
            &*nt_path_shared("C:\\a").expect("short"),
            reference("C:\\a")
        );
        assert_eq!(
            nt_path("Z:\\a").expect("Z:"),
            "\\Device\\HarddiskVolume26\\a"
        );
        assert!(nt_path("").is_err());
        assert!(nt_path("C:\\a\0b").is_err());
        // A NUL past the first blocks of bytes, and after a `/`.
        assert!(nt_path(&format!("C:\\{}\0", "d/".repeat(40))).is_err());
        assert!(nt_path(&"x".repeat(32_768)).is_err());
        assert!(nt_path(&"x".repeat(32_767)).is_ok());
        // 16,384 two-byte characters: 32,768 bytes but 16,384 UTF-16 units.
        assert!(nt_path(&"é".repeat(16_384)).is_ok());
    }

    /// The generic encoder's record of `class`/`name` v`version` with `values`: the reference
    /// the records built in place must equal byte for byte (P15).
    fn generic(
        class: &'static etwsim_decode::mof::KernelClass,
        name: &str,
        version: u8,
        values: &[Value],
        o: &Origin,
    ) -> Vec<u8> {
        let s = schema(class, name, version);
        let payload = emit::payload(&s, values).expect("the values fit the layout");
        emit::system_record(&s, payload, o).expect("a record")
    }

    fn origins() -> [Origin; 3] {
        [
            Origin {
                pid: 4,
                tid: 0,
                cpu: 0,
                ticks: 0,
            },
            Origin {
                pid: 1234,
                tid: 5678,
                cpu: 1,
                ticks: 99,
            },
            Origin {
                pid: u32::MAX,
                tid: 0x07FF_FFFF, // the largest whose stacks fit the address space
                cpu: 3,
                ticks: u64::MAX,
            },
        ]
    }

    #[test]
    fn file_io_records_built_in_place_are_the_generic_encoders_bytes() {
        // rule: KRN-21
        // rule: KRN-24
        for o in &origins() {
            for (offset, irp, object, key, len) in [
                (0, 0, 0, 0, 0),
                (
                    512,
                    0xFFFF_9E00_0000_0100,
                    0xFFFF_A00C_0000_0150,
                    0xFFFF_B00D_0000_1000,
                    512,
                ),
                (u64::MAX, u64::MAX, u64::MAX - 1, 1, u32::MAX),
            ] {
                for (write, name) in [(false, "Read"), (true, "Write")] {
                    let hook = if write { HOOKS.write } else { HOOKS.read };
                    for io_flags in [0, 2] {
                        let r = rw_record(hook, o, offset, irp, object, key, len, io_flags);
                        let mut values = rw_values(offset, irp, object, key, o.tid, len);
                        values[6] = Value::U32(io_flags);
                        assert_eq!(r.record(), generic(&FILE_IO, name, 3, &values, o));
                    }
                }
                for (info, status) in [(0, 0), (u64::from(len), STATUS_OBJECT_NAME_NOT_FOUND)] {
                    let r = op_end_record(o, irp, info, status);
                    let end = FileEvent::op_end(irp, info, status);
                    assert_eq!(
                        r.record(),
                        generic(&FILE_IO, "OperationEnd", 3, &end.values, o)
                    );
                }
            }
        }
    }

    #[test]
    fn image_and_thread_records_built_in_place_are_the_generic_encoders_bytes() {
        // rule: KRN-28
        // rule: KRN-29
        for o in &origins() {
            // Every ASCII length of a whole path (the widening's sixteen-character steps
            // and every remainder); characters beyond ASCII, alone and after ASCII steps
            // (the widened steps are undone); lengths whose last step reaches past the
            // string close to the record's end.
            let full = r"\Device\HarddiskVolume3\Windows\System32\version.dll";
            let mixed = [15, 16, 17, 31, 32, 47].map(|n| format!("{}é{}", &full[..n], &full[n..]));
            let long = [82, 83, 84, 129, 140, 144, 145, 146].map(|n| "x".repeat(n));
            let paths = (0..=full.len())
                .map(|n| full[..n].to_string())
                .chain(["é€𝄞".to_string(), "abcdé".to_string()])
                .chain(mixed)
                .chain(long);
            for path in paths {
                let path = path.as_str();
                let row = ImageRow {
                    size: 0x1_2000,
                    path: path.into(),
                    checksum: digest(path),
                    time_date_stamp: 0x7FFF_FFFF,
                };
                for (hook, name) in [(HOOKS.image_load, "Load"), (HOOKS.image_unload, "Unload")] {
                    let base = 0x0000_7FF6_0100_0000;
                    let values = image_values(o.pid, base, &row);
                    let expected = generic(&IMAGE, name, 3, &values, o);
                    let mut r = ImageRecord::new(hook, o);
                    assert!(image_record(&mut r, o.pid, base, &row));
                    assert_eq!(r.record(), expected, "{path}");
                    assert!(r.buf_tail_is_zero(), "{path}");
                    if path.len() <= SHORT_IMAGE_PATH {
                        let mut r = ShortImageRecord::new(hook, o);
                        assert!(image_record(&mut r, o.pid, base, &row));
                        assert_eq!(r.record(), expected, "{path}");
                        assert!(r.buf_tail_is_zero(), "{path}");
                    }
                }
            }
            for cpus in [1, 4, 63, 64, 640] {
                for (hook, name) in [(HOOKS.thread_start, "Start"), (HOOKS.thread_end, "End")] {
                    let r = thread_record(hook, o, o.pid, o.tid, cpus);
                    let values = thread_values(o.pid, o.tid, cpus);
                    assert_eq!(r.record(), generic(&THREAD, name, 3, &values, o));
                }
            }
        }
    }

    /// An image row of `path` with made-up size, checksum and link time.
    fn row(path: String) -> ImageRow {
        ImageRow {
            size: 0x1000,
            path: path.into(),
            checksum: 1,
            time_date_stamp: 2,
        }
    }

    #[test]
    fn the_short_image_record_takes_every_path_of_its_length_and_no_longer_one() {
        let o = origins()[0];
        for (path, fits) in [
            ("x".repeat(SHORT_IMAGE_PATH), true),
            ("x".repeat(SHORT_IMAGE_PATH + 1), false),
            (format!("{}é", "x".repeat(SHORT_IMAGE_PATH - 2)), true),
        ] {
            let row = row(path);
            let mut r = ShortImageRecord::new(HOOKS.image_load, &o);
            assert_eq!(image_record(&mut r, 1, 0x1000, &row), fits, "{}", row.path);
        }
    }

    #[test]
    fn image_digests_tell_paths_apart() {
        // Every prefix of a path (each length's tail of 0–7 bytes), and paths that differ
        // only in their case or their last byte.
        let full = r"\Device\HarddiskVolume3\Windows\System32\version.dll";
        let mut paths: Vec<String> = (0..=full.len()).map(|n| full[..n].to_string()).collect();
        paths.extend([full.to_uppercase(), format!("{}x", &full[..full.len() - 1])]);
        let digests: std::collections::BTreeSet<u32> = paths.iter().map(|p| digest(p)).collect();
        assert_eq!(digests.len(), paths.len());
    }

    #[test]
    fn an_image_path_too_long_for_the_stack_record_takes_the_generic_encoder() {
        let o = origins()[1];
        // 32 + 56 bytes before the name: 147 UTF-16 units and the NUL fill 384 bytes.
        for (path, fits) in [
            ("x".repeat(147), true),
            ("x".repeat(148), false),
            ("é".repeat(147), true),
            ("é".repeat(148), false),
            (format!("{}𝄞", "x".repeat(145)), true),
            (format!("{}𝄞", "x".repeat(146)), false),
        ] {
            let row = row(path);
            let mut r = ImageRecord::new(HOOKS.image_load, &o);
            assert_eq!(image_record(&mut r, 1, 0x1000, &row), fits, "{}", row.path);
            if fits {
                let values = image_values(1, 0x1000, &row);
                assert_eq!(r.record(), generic(&IMAGE, "Load", 3, &values, &o));
            } else {
                // Nothing of the name was kept: the fixed fields, padding 0.
                assert_eq!(r.record().len(), 32 + 56);
                assert!(r.buf_tail_is_zero());
            }
        }
    }
}
