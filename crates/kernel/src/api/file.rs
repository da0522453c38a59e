//! Files as the simulated OS keeps them, as entry points: `NtCreateFile` and the I/O on an
//! open [`FileHandle`](crate::FileHandle) (read, write, set and query information, flush,
//! cleanup, close), each keeping the file table (`system::os`) and writing the FileIo, DiskIo
//! and Kernel-File events the running sessions select (KRN-10…KRN-30, KRN-42).

use crate::Result;
use crate::api::kernel::Kernel;
use crate::api::process::Process;
use crate::data::sys as emit;
use crate::data::sys::FILE_NAME_VERSION;
use crate::data::sys::KERNEL_FILE;
use crate::data::sys::Origin;
use crate::data::sys::SysLogger;
use crate::error::Error;
use crate::filter::flags::event_trace_flag as flag;
use crate::system::os::CreateFile;
use crate::system::os::Disposition;
use crate::system::os::FILE_DIRECTORY_INFORMATION;
use crate::system::os::FILE_DISPOSITION_INFORMATION;
use crate::system::os::FILE_EVENTS;
use crate::system::os::FILE_RENAME_INFORMATION;
use crate::system::os::FileData;
use crate::system::os::FileEvent;
use crate::system::os::FileNode;
use crate::system::os::HOOKS;
use crate::system::os::ObjectRow;
use crate::system::os::STATUS_OBJECT_NAME_COLLISION;
use crate::system::os::STATUS_OBJECT_NAME_NOT_FOUND;
use crate::system::os::STATUS_SUCCESS;
use crate::system::os::nt_path;
use crate::system::os::op_end_record;
use crate::system::os::rw_record;
use crate::system::os::schema;
use crate::system::os::table_key;
use crate::system::os::wildcard;
use etwsim_decode::fields::Value;
use etwsim_decode::mof::DISK_IO;
use etwsim_decode::mof::FILE_IO;
use std::sync::Arc;
use std::sync::atomic::Ordering;
impl Kernel {
    /// Writes an operation's FileIo events: each classic event to the system loggers whose
    /// flags select it (name events only to sessions that do not know the key's name yet, or,
    /// for FileDelete, that do), and the Kernel-File counterparts (KRN-42).
    pub(in crate::api) fn write_file_events(
        &self,
        events: &[FileEvent],
        o: &Origin,
        new_key: bool,
    ) {
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
                    crate::api::sysproviders::kernel_file(self, e.name, &payload, o);
                }
            }
        }
    }

    /// Cleanup (unless done) and Close of file object `object`, FileDelete at the key's last
    /// close; the file goes away if a delete was pending.
    pub(in crate::api) fn file_close(&self, owner: u64, pid: u32, object: u64, cleanup: bool) {
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

impl Process {
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
                code: etwsim_types::Win32Error::ERROR_FILE_NOT_FOUND,
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

/// An open file: one `FILE_OBJECT` (its address is the FileObject of the events) on one file
/// (whose FileKey all its opens share, KRN-26), owned by the process that opened it.
///
/// Dropping it does nothing: like a leaked handle it stays open until
/// [`close`](Self::close), [`cleanup`](Self::cleanup) or its process's exit.
#[derive(Debug)]
pub struct FileHandle {
    pub(in crate::api) process: Process,
    pub(in crate::api) object: u64,
    pub(in crate::api) key: u64,
    pub(in crate::api) path: String,
    pub(in crate::api) data: Arc<FileData>,
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
                crate::api::sysproviders::kernel_file(k, name, r.payload(), &o);
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
        crate::api::sysproviders::kernel_file(k, "OperationEnd", r.payload(), o);
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
