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

use crate::data::sys::{FILE_NAME_VERSION, Hook, KERNEL_FILE, Origin, SysRecord};
use crate::filter::flags::event_trace_flag as flag;
use crate::{Error, Result};
use etwsim_decode::fields::{Sid, TokenUser, Value};
use etwsim_decode::mof::{FILE_IO, IMAGE, Schema, THREAD};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};

/// `STATUS_SUCCESS`.
pub(crate) const STATUS_SUCCESS: u32 = 0;
/// `STATUS_OBJECT_NAME_NOT_FOUND`: an open of a file that does not exist.
pub(crate) const STATUS_OBJECT_NAME_NOT_FOUND: u32 = 0xC000_0034;
/// `STATUS_OBJECT_NAME_COLLISION`: FILE_CREATE of a file that exists.
pub(crate) const STATUS_OBJECT_NAME_COLLISION: u32 = 0xC000_0035;
/// `STILL_ACTIVE`: the ExitStatus written for live processes (KRN-27's plausible value).
pub(crate) const STILL_ACTIVE: i32 = 259;
/// `FILE_RENAME_INFORMATION`'s class.
pub(crate) const FILE_RENAME_INFORMATION: u32 = 10;
/// `FILE_DISPOSITION_INFORMATION`'s class.
pub(crate) const FILE_DISPOSITION_INFORMATION: u32 = 13;
/// `FileDirectoryInformation`.
pub(crate) const FILE_DIRECTORY_INFORMATION: u32 = 1;
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
    pub(crate) sid: Sid,
    pub(crate) image: String,
    pub(crate) command_line: String,
    pub(crate) package: String,
    pub(crate) app_id: String,
    pub(crate) threads: BTreeMap<u32, u16>,
    /// Loaded images by base address, in base order: bases only grow within a process, so
    /// a load appends (P15: a `BTreeMap` allocated and freed its node whenever a process's
    /// only image came and went).
    pub(crate) images: Vec<(u64, ImageRow)>,
    pub(crate) next_image: u64,
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
    pub(crate) next_key: u64,
    pub(crate) next_object: u64,
}

/// The IRP counter: beside the OS tables, not behind their lock, so that I/O on an open
/// handle takes no lock (P15).
#[derive(Default)]
pub(crate) struct Irps(AtomicU64);

impl Irps {
    /// The next IRP address (0x10_0000 of them, reused in turn).
    pub(crate) fn next(&self) -> u64 {
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
pub(in crate::system) fn eprocess(key: u64) -> u64 {
    0xFFFF_C080_0000_0000 + key * 0x1000
}

/// A deterministic 32-bit digest of a path: the simulated image's checksum and link time (a
/// real image's come from its PE header, which the simulation has not got).
///
/// Eight bytes a step, each step one multiply, so a path of n bytes is a chain of about n / 8
/// dependent multiplies (P15: a byte-at-a-time FNV-1a, a chain of n, was 46 ns of the 163 ns
/// an unrecorded image load and unload took).
pub(crate) fn digest(s: &str) -> u32 {
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
pub(crate) fn nt_path_shared(path: &str) -> Result<Arc<str>> {
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

pub(crate) fn table_key(nt: &str) -> String {
    nt.to_lowercase()
}

pub(crate) fn schema(
    class: &'static etwsim_decode::mof::MofClass,
    name: &str,
    version: u8,
) -> Schema {
    class
        .schema(name, version)
        .expect("the class table describes every event the OS layer writes")
}

/// The hooks of the events the recorded fast path builds in place (P15), resolved once from
/// the class table.
pub(crate) struct Hooks {
    pub(crate) read: Hook,
    pub(crate) write: Hook,
    pub(in crate::system) op_end: Hook,
    pub(crate) image_load: Hook,
    pub(crate) image_unload: Hook,
    pub(crate) thread_start: Hook,
    pub(crate) thread_end: Hook,
}

pub(crate) static HOOKS: LazyLock<Hooks> = LazyLock::new(|| Hooks {
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
pub(crate) fn rw_record(
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
pub(crate) fn op_end_record(o: &Origin, irp: u64, info: u64, status: u32) -> SysRecord<56> {
    let mut r = SysRecord::new(HOOKS.op_end, o);
    r.u64(irp).u64(info).u32(status);
    r
}

/// The stack record of an Image event: paths up to 147 UTF-16 units.
pub(crate) type ImageRecord = SysRecord<384>;

/// The stack record of an Image event with a path of at most [`SHORT_IMAGE_PATH`] bytes
/// (P15: zeroing 256 bytes is sixteen stores in line, 384 a call to `memset`).
pub(crate) type ShortImageRecord = SysRecord<256>;

/// The longest path, in UTF-8 bytes, that [`ShortImageRecord`] takes: 32 + 56 bytes before
/// the name, and a UTF-16 unit per byte at most, with the NUL.
pub(crate) const SHORT_IMAGE_PATH: usize = (256 - 32 - 56 - 2) / 2;

/// Image Load or Unload (v3) into `r` (a header only) — [`image_values`]'s bytes; false if
/// the path does not fit the stack record (the caller then takes the generic encoder).
/// Inlined into a fresh record, so the fixed fields' offsets are known and need no checks.
#[inline(always)]
pub(crate) fn image_record<const N: usize>(
    r: &mut SysRecord<N>,
    pid: u32,
    base: u64,
    i: &ImageRow,
) -> bool {
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
pub(crate) fn thread_record(
    hook: Hook,
    o: &Origin,
    pid: u32,
    tid: u32,
    cpus: u16,
) -> SysRecord<104> {
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

// ---------------------------------------------------------------------------------------
// Processes, threads, images.

/// The Process_TypeGroup1 v4 values of `p` (KRN-27).
pub(crate) fn process_values(key: u64, p: &OsProcess, exit_status: i32) -> Vec<Value> {
    let sid = Value::TokenUser(TokenUser::new(p.sid.clone()));
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

/// Every flag and provider bit a file operation can produce events for.
pub(crate) const FILE_EVENTS: u64 =
    (flag::FILE_IO_INIT | flag::FILE_IO | flag::DISK_FILE_IO | flag::DISK_IO | flag::DISK_IO_INIT)
        as u64
        | KERNEL_FILE;

/// One FileIo event of an operation, before it is written.
pub(crate) struct FileEvent {
    pub(crate) name: &'static str,
    pub(crate) values: Vec<Value>,
}

impl FileEvent {
    pub(crate) fn new(name: &'static str, values: Vec<Value>) -> FileEvent {
        FileEvent { name, values }
    }

    pub(crate) fn name(name: &'static str, key: u64, path: &str) -> FileEvent {
        FileEvent::new(
            name,
            vec![Value::Pointer(key), Value::String(path.to_string())],
        )
    }

    pub(crate) fn op_end(irp: u64, info: u64, status: u32) -> FileEvent {
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
    pub(crate) fn classic(&self) -> (Schema, u32) {
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

/// The FileIo Read / Write values, for the generic encoder ([`rw_record`]'s reference).
#[cfg(test)]
pub(in crate::system) fn rw_values(
    offset: u64,
    irp: u64,
    object: u64,
    key: u64,
    tid: u32,
    len: u32,
) -> Vec<Value> {
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

/// `*` and `?` matching, case-insensitive (FsRtlIsNameInExpression's everyday subset).
pub(crate) fn wildcard(pattern: &str, name: &str) -> bool {
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
    use crate::data::sys as emit;

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
        class: &'static etwsim_decode::mof::MofClass,
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
