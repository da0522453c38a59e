//! Where log files go: the host's file system, or a virtual disk in memory.
//!
//! A deterministic kernel writes to a [`VirtualDisk`] by default: its files are the same
//! bytes on every OS and no test ever touches the real file system or collides with another
//! test over a file name. A threaded kernel writes real files by default. Either can be chosen
//! with [`crate::KernelBuilder::disk`]. On both, a log file's folder must exist on the host
//! (SES-28: ETW creates no folders).

use etwsim_etl::{Backend, OpenMode, Opener};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file system log files are written to.
#[derive(Clone, Debug, Default)]
pub enum Disk {
    /// The host's file system; relative names resolve against the current directory.
    #[default]
    Real,
    /// Files in memory, readable with [`VirtualDisk::read`].
    Virtual(VirtualDisk),
}

/// Two disks are equal when they are the real one, or the same virtual disk.
impl PartialEq for Disk {
    fn eq(&self, other: &Disk) -> bool {
        match (self, other) {
            (Disk::Real, Disk::Real) => true,
            (Disk::Virtual(a), Disk::Virtual(b)) => Arc::ptr_eq(&a.files, &b.files),
            _ => false,
        }
    }
}

impl Eq for Disk {}

impl Disk {
    /// A new, empty virtual disk.
    pub fn virtual_disk() -> Disk {
        Disk::Virtual(VirtualDisk::default())
    }

    /// What the `.etl` writer opens files with.
    pub(crate) fn opener(&self) -> Opener {
        match self {
            Disk::Real => Box::new(|path: &Path, mode: OpenMode| {
                let mut o = std::fs::OpenOptions::new();
                o.read(true).write(true).create(true);
                if mode == OpenMode::Create {
                    o.truncate(true);
                }
                Ok(Box::new(o.open(path)?) as Box<dyn Backend>)
            }),
            Disk::Virtual(v) => {
                let v = v.clone();
                Box::new(move |path: &Path, mode: OpenMode| {
                    let mut files = v.files.lock();
                    let file = files.entry(path.to_path_buf()).or_default().clone();
                    if mode == OpenMode::Create {
                        *file.lock() = VFile::default();
                    }
                    Ok(Box::new(MemFile {
                        file,
                        disk: v.clone(),
                    }) as Box<dyn Backend>)
                })
            }
        }
    }

    /// Opens a log file for reading (`.etl` reader), from this disk.
    ///
    /// # Errors
    /// The reader's error: a missing file, or one that is not an `.etl` file.
    pub fn open_log_file(&self, path: impl AsRef<Path>) -> etwsim_etl::Result<etwsim_etl::LogFile> {
        let path = path.as_ref();
        match self {
            Disk::Real => etwsim_etl::LogFile::open(path),
            Disk::Virtual(v) => match v.read(path) {
                Some(bytes) => etwsim_etl::LogFile::from_bytes(path, bytes),
                None => etwsim_etl::LogFile::open(path), // not virtual: report it as the host would
            },
        }
    }

    /// The bytes of a log file.
    ///
    /// # Errors
    /// The I/O error of reading a real file, or `NotFound` on a virtual disk.
    pub fn read(&self, path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
        match self {
            Disk::Real => std::fs::read(path),
            Disk::Virtual(v) => v.read(path.as_ref()).ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "no such file on the virtual disk")
            }),
        }
    }
}

/// One virtual file: the bytes written so far and its length, which may be larger (a
/// PREALLOCATE'd file is sparse: its unwritten tail reads as zeros and takes no memory).
#[derive(Default)]
struct VFile {
    data: Vec<u8>,
    len: u64,
}

impl VFile {
    fn bytes(&self) -> Vec<u8> {
        let mut b = self.data.clone();
        b.resize(self.len as usize, 0);
        b
    }
}

/// One file, shared by its writer and readers.
type FileBytes = Arc<Mutex<VFile>>;

/// Log files kept in memory. Clones share the files.
#[derive(Clone, Default)]
pub struct VirtualDisk {
    files: Arc<Mutex<BTreeMap<PathBuf, FileBytes>>>,
    /// Total bytes the disk holds before writes fail with `StorageFull` (a disk-full
    /// fault for tests); `u64::MAX` when unset.
    capacity: Arc<std::sync::atomic::AtomicU64>,
}

impl std::fmt::Debug for VirtualDisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtualDisk")
            .field("files", &self.paths())
            .finish()
    }
}

impl VirtualDisk {
    /// A virtual disk that holds at most `bytes` in all its files: a write past that fails
    /// like a full disk (`ERROR_DISK_FULL`), leaving what was written intact.
    pub fn with_capacity(bytes: u64) -> VirtualDisk {
        let d = VirtualDisk::default();
        d.set_capacity(bytes);
        d
    }

    /// Changes the capacity (see [`VirtualDisk::with_capacity`]).
    pub fn set_capacity(&self, bytes: u64) {
        self.capacity
            .store(bytes.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// Bytes used by all files.
    pub fn used(&self) -> u64 {
        self.files.lock().values().map(|f| f.lock().len).sum()
    }

    /// The bytes of a file, if it exists.
    pub fn read(&self, path: &Path) -> Option<Vec<u8>> {
        self.files.lock().get(path).map(|f| f.lock().bytes())
    }

    /// Every file, in name order.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.lock().keys().cloned().collect()
    }

    /// Puts a file on the disk (for example an existing log to APPEND to).
    pub fn write(&self, path: impl Into<PathBuf>, bytes: Vec<u8>) {
        let len = bytes.len() as u64;
        let file = VFile { data: bytes, len };
        self.files
            .lock()
            .insert(path.into(), Arc::new(Mutex::new(file)));
    }

    /// Copies a file to the host's file system.
    ///
    /// # Errors
    /// `NotFound` if the file is not on the virtual disk, or the error of writing `dest`.
    pub fn export(&self, path: &Path, dest: &Path) -> io::Result<()> {
        let bytes = self.read(path).ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, "no such file on the virtual disk")
        })?;
        std::fs::write(dest, bytes)
    }
}

/// One virtual file.
struct MemFile {
    file: FileBytes,
    disk: VirtualDisk,
}

impl MemFile {
    /// Fails like a full disk if growing this file to `end` bytes exceeds the capacity.
    fn check_room(&self, current: usize, end: usize) -> io::Result<()> {
        let cap = self
            .disk
            .capacity
            .load(std::sync::atomic::Ordering::Relaxed);
        if cap == 0 || end <= current {
            return Ok(()); // 0 = unset (never configured)
        }
        let others: u64 = self
            .disk
            .files
            .lock()
            .values()
            .filter(|f| !Arc::ptr_eq(f, &self.file))
            .map(|f| f.lock().len)
            .sum();
        if others + end as u64 > cap {
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "the virtual disk is full",
            ));
        }
        Ok(())
    }
}

impl Backend for MemFile {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let end = offset as usize + bytes.len();
        let current = self.file.lock().len as usize;
        self.check_room(current, end)?;
        let mut f = self.file.lock();
        if f.data.len() < end {
            f.data.resize(end, 0);
        }
        f.data[offset as usize..end].copy_from_slice(bytes);
        f.len = f.len.max(end as u64);
        Ok(())
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let f = self.file.lock();
        if offset + buf.len() as u64 > f.len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "read past the end",
            ));
        }
        for (i, b) in buf.iter_mut().enumerate() {
            *b = f.data.get(offset as usize + i).copied().unwrap_or(0);
        }
        Ok(())
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        let current = self.file.lock().len as usize;
        self.check_room(current, len as usize)?;
        let mut f = self.file.lock();
        if (f.data.len() as u64) > len {
            f.data.truncate(len as usize);
        }
        f.len = len;
        Ok(())
    }

    fn len(&mut self) -> io::Result<u64> {
        Ok(self.file.lock().len)
    }
}
