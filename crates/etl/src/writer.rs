//! Writing `.etl` files in every log-file mode (SES-31…SES-36, SES-44, SES-61, SES-62,
//! SES-81, BUF-08, BUF-10, BUF-17; format reference §0, §2, §3).
//!
//! The kernel's logger hands [`Writer::write_buffer`] complete data buffers — exactly
//! `BufferSize` bytes with the `WMI_BUFFER_HEADER` filled in — one at a time. The writer
//! puts each where the mode says:
//!
//! | mode | at MaximumFileSize |
//! |---|---|
//! | FILE_MODE_NONE / SEQUENTIAL (also APPEND) | [`WriteOutcome::Full`]: the buffer is not written, the session should stop (SES-62) |
//! | CIRCULAR | the oldest data buffer is overwritten; buffer 0 stays (SES-33, BUF-10) |
//! | NEWFILE | the file is finished and the next numbered one started (SES-35) |
//!
//! `MaximumFileSize` is in MB, or KB with USE_KBYTES_FOR_SIZE (SES-44), and counts buffer
//! 0; 0 means no limit (SES-61). PREALLOCATE sets each file to that size when it is created
//! and trims it to the buffers used when it is finished (SES-36). APPEND continues an existing
//! file written with the same BufferSize, clock type and processor count, keeping its header
//! (SES-34) and continuing its buffers' sequence numbers; the appended buffers' timestamps
//! are read with the old file's anchor, which is why SES-34 asks for the system-time clock.
//! [`Writer::increment_file`] is ControlTrace(INCREMENT_FILE) (SES-81). Every file of a
//! NEWFILE set carries the session's start anchor, so all of them convert timestamps alike.
//!
//! COMPRESSED (`EVENT_TRACE_COMPRESSED_MODE`, SES-52; [`WriterOptions::compressed`], or a
//! mode that has the bit): the buffers handed in are the session's usual full buffers; each
//! goes into the file compressed ([`crate::lzxpress`]: `BufferSize` = 0x48 + the compressed
//! length, `BufferFlag` | 0x40, `Offset` unchanged) or, when that would not be shorter than
//! its used bytes, as it is but trimmed to them. Buffer 0 stays uncompressed, trimmed to its
//! used bytes rounded up to 512, and the header's `LogFileMode` keeps the COMPRESSED bit —
//! the layout of the compressed files Windows writes (the crate's docs say where that was
//! found). `MaximumFileSize` then counts bytes: a buffer is written while it fits. CIRCULAR
//! cannot be compressed (its slots are fixed); APPEND continues a compressed file.
//!
//! Behind the kernel's `Sink` the writer sits like this (the kernel crate owns the glue):
//!
//! ```text
//! fn write_buffer(&mut self, buffer: &[u8], _info: &BufferInfo) -> io::Result<()> {
//!     match self.writer.write_buffer(buffer)? {
//!         WriteOutcome::Full => { /* SES-62: count the buffer lost, stop the session */ }
//!         _ => {}
//!     }
//!     Ok(())
//! }
//! fn close(&mut self, stats: &SessionProperties) -> io::Result<()> {
//!     self.writer.close(&CloseStats { events_lost: stats.events_lost,
//!         buffers_lost: stats.log_buffers_lost, end_time: None })?;
//!     Ok(())
//! }
//! ```
//!
//! Every file starts with its own buffer 0 (the logfile header with the values the format
//! reference requires). The header's statistics — `BuffersWritten` (the buffers in the file,
//! buffer 0 included), `EndTime`, `EventsLost`, `BuffersLost`, `NumberOfProcessors` — are
//! rewritten only when a file is finished: at [`Writer::close`], or when NEWFILE moves on.
//! A buffer is counted only after it was written; an append that fails is cut off again,
//! and a circular overwrite first marks the slot empty, so a failed write never leaves
//! a half-written buffer where a reader would find records. Dropping a writer without
//! closing it leaves the header as it was when the file was created, like a logger that died.

use crate::error::{Error, Result};
use crate::header::{HeaderStats, PARTITION_INFO_SIZE};
use crate::header::{Layout, LogfileHeader, TimeZoneInformation, check_buffer_size};
use crate::lzxpress::Compressor;
use etwsim_types::record::{BUFFER_HEADER_SIZE, BufferHeader, buffer_flags};
use etwsim_types::{ClockType, LogFileMode};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// FILETIME of 2026-01-01T00:00:00Z: the default `StartTime` (the kernel's deterministic
/// boot instant).
pub const DEFAULT_START_FILETIME: i64 = etwsim_types::record::DETERMINISTIC_BOOT_FILETIME;

/// Storage under a writer: a real file, an in-memory file, or a test double that fails on
/// cue. [`Writer::create_with`] takes an [`Opener`] that hands these out.
#[allow(clippy::len_without_is_empty)] // a file's length, not a collection's
pub trait Backend: Send {
    /// Writes `bytes` at `offset`, growing the file as needed.
    ///
    /// # Errors
    /// An I/O error; the writer then counts the buffer lost.
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()>;
    /// Reads exactly `buf.len()` bytes at `offset`.
    ///
    /// # Errors
    /// An I/O error, or fewer bytes than asked.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Sets the length (PREALLOCATE, trimming).
    ///
    /// # Errors
    /// An I/O error.
    fn set_len(&mut self, len: u64) -> io::Result<()>;
    /// The current length.
    ///
    /// # Errors
    /// An I/O error.
    fn len(&mut self) -> io::Result<u64>;
}

impl Backend for File {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.seek(SeekFrom::Start(offset))?;
        self.write_all(bytes)
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.seek(SeekFrom::Start(offset))?;
        self.read_exact(buf)
    }
    fn set_len(&mut self, len: u64) -> io::Result<()> {
        File::set_len(self, len)
    }
    fn len(&mut self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

/// How a writer opens a file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Create, or truncate an existing file.
    Create,
    /// Open for reading and writing, creating it if absent, keeping its contents.
    Append,
}

/// Opens the files a writer writes (several for NEWFILE): the real file system by default.
pub type Opener = Box<dyn FnMut(&Path, OpenMode) -> io::Result<Box<dyn Backend>> + Send + 'static>;

fn open_file(path: &Path, mode: OpenMode) -> io::Result<Box<dyn Backend>> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true);
    if mode == OpenMode::Create {
        o.truncate(true);
    }
    Ok(Box::new(o.open(path)?))
}

/// How to write a session's log file: `EVENT_TRACE_PROPERTIES`' file settings plus the
/// values that go into the logfile header.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    path: PathBuf,
    mode: LogFileMode,
    maximum_file_size: u32,
    header: LogfileHeader,
    boot_time: Option<i64>,
}

impl WriterOptions {
    /// A sequential file at `path` (for NEWFILE: a name with a `%d` counter), no size
    /// limit, 64 KiB buffers, QPC clock, one processor, starting at raw 0 =
    /// [`DEFAULT_START_FILETIME`].
    pub fn new(path: impl Into<PathBuf>) -> WriterOptions {
        WriterOptions {
            path: path.into(),
            mode: LogFileMode::SEQUENTIAL,
            maximum_file_size: 0,
            header: LogfileHeader {
                start_time: DEFAULT_START_FILETIME,
                end_time: DEFAULT_START_FILETIME,
                ..LogfileHeader::default()
            },
            boot_time: None,
        }
    }

    /// `LogFileMode`: the file layout bits (SEQUENTIAL, CIRCULAR, NEWFILE, APPEND, or none),
    /// PREALLOCATE and USE_KBYTES_FOR_SIZE matter here; all bits go into the header.
    pub fn mode(mut self, mode: LogFileMode) -> WriterOptions {
        self.mode = mode;
        self
    }

    /// Compressed data buffers (`EVENT_TRACE_COMPRESSED_MODE`, SES-52): sets or clears the
    /// COMPRESSED bit of the `LogFileMode` (so call it after [`mode`](Self::mode), which
    /// replaces all bits; a mode that has the bit compresses too). The module docs say how
    /// such files are laid out.
    pub fn compressed(mut self, on: bool) -> WriterOptions {
        self.mode.set(LogFileMode::COMPRESSED, on);
        self
    }

    /// `true` when the data buffers are compressed (the mode has COMPRESSED).
    pub fn is_compressed(&self) -> bool {
        self.mode.contains(LogFileMode::COMPRESSED)
    }

    /// `MaximumFileSize`, in MB (KB with USE_KBYTES_FOR_SIZE); 0 = no limit.
    pub fn maximum_file_size(mut self, size: u32) -> WriterOptions {
        self.maximum_file_size = size;
        self
    }

    /// `BufferSize` in bytes (a multiple of 8 in 1 KiB..=16 MiB).
    pub fn buffer_size(mut self, bytes: u32) -> WriterOptions {
        self.header.buffer_size = bytes;
        self
    }

    /// The session's clock type, written to `ReservedFlags` (SES-64).
    pub fn clock(mut self, clock: ClockType) -> WriterOptions {
        self.header.reserved_flags = clock.raw();
        self
    }

    /// The session start: raw clock value `raw` is the instant `filetime`. This is the
    /// anchor every reader converts timestamps with (`StartTime` and the header record's
    /// `SystemTime`, format reference §8).
    pub fn start(mut self, raw: i64, filetime: i64) -> WriterOptions {
        self.header.start_raw = raw;
        self.header.start_time = filetime;
        self.header.end_time = filetime;
        self
    }

    /// `BootTime` (FILETIME). Default: the instant of raw 0 (QPC and cycle clocks count from
    /// boot), or `StartTime` for the system-time clock.
    pub fn boot_time(mut self, filetime: i64) -> WriterOptions {
        self.boot_time = Some(filetime);
        self
    }

    /// `NumberOfProcessors`; raised at close if a buffer came from a higher CPU.
    pub fn processors(mut self, n: u32) -> WriterOptions {
        self.header.number_of_processors = n.max(1);
        self
    }

    /// `LoggerName`: the session's name.
    pub fn logger_name(mut self, name: impl Into<String>) -> WriterOptions {
        self.header.logger_name = name.into();
        self
    }

    /// `ClientContext.LoggerId` of buffer 0.
    pub fn logger_id(mut self, id: u16) -> WriterOptions {
        self.header.logger_id = id;
        self
    }

    /// The writer's process and thread, stamped on the header record.
    pub fn writer_ids(mut self, process_id: u32, thread_id: u32) -> WriterOptions {
        self.header.process_id = process_id;
        self.header.thread_id = thread_id;
        self
    }

    /// `ProviderVersion`: the OS build number (default 19041).
    pub fn provider_version(mut self, build: u32) -> WriterOptions {
        self.header.provider_version = build;
        self
    }

    /// `TimeZone` (default UTC).
    pub fn time_zone(mut self, tz: TimeZoneInformation) -> WriterOptions {
        self.header.time_zone = tz;
        self
    }

    /// Whether buffer 0 carries the PartitionInfoExtension record (default yes, as in
    /// Windows 10 files).
    pub fn partition_info(mut self, on: bool) -> WriterOptions {
        self.header.partition_info = on.then(|| vec![0; PARTITION_INFO_SIZE]);
        self
    }

    /// The file-size limit in bytes (SES-44, SES-61); `None` for no limit.
    pub fn limit_bytes(&self) -> Option<u64> {
        (self.maximum_file_size != 0).then(|| {
            let unit = if self.mode.contains(LogFileMode::USE_KBYTES_FOR_SIZE) {
                1024
            } else {
                1024 * 1024
            };
            u64::from(self.maximum_file_size) * unit
        })
    }

    fn validate(&self) -> Result<()> {
        check_buffer_size(self.header.buffer_size)?;
        let m = self.mode;
        if let Some(what) = m.conflict() {
            return Err(Error::InvalidOption(format!(
                "LogFileMode {:#x}: {what} (SES-23)",
                m.bits()
            )));
        }
        if m.contains(LogFileMode::COMPRESSED | LogFileMode::CIRCULAR) {
            return Err(Error::InvalidOption(
                "COMPRESSED with CIRCULAR: compressed buffers differ in length, and a circular \
                 file overwrites fixed slots"
                    .into(),
            ));
        }
        let needs_limit = LogFileMode::CIRCULAR | LogFileMode::NEWFILE | LogFileMode::PREALLOCATE;
        if m.intersects(needs_limit) && self.maximum_file_size == 0 {
            return Err(Error::InvalidOption(
                "CIRCULAR, NEWFILE and PREALLOCATE need a MaximumFileSize (SES-61)".into(),
            ));
        }
        if let Some(limit) = self.limit_bytes() {
            let need = 2 * u64::from(self.header.buffer_size);
            if limit < need {
                return Err(Error::InvalidOption(format!(
                    "MaximumFileSize ({limit} bytes) cannot hold the header buffer and one \
                     {}-byte data buffer",
                    self.header.buffer_size
                )));
            }
        }
        if m.contains(LogFileMode::NEWFILE) {
            expand_pattern(&self.path, 1)?;
        }
        if self.header.clock_type().is_none() {
            return Err(Error::InvalidOption(format!(
                "clock type {}",
                self.header.reserved_flags
            )));
        }
        Ok(())
    }
}

/// The last statistics of a session, written into the header at close (BUF-07, BUF-17).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CloseStats {
    /// `EventsLost`.
    pub events_lost: u32,
    /// `LogBuffersLost`, written as `BuffersLost`.
    pub buffers_lost: u32,
    /// `EndTime` (FILETIME); `None` = the newest buffer timestamp written, converted.
    pub end_time: Option<i64>,
}

/// What [`Writer::close`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CloseSummary {
    /// Every file the writer finished, in order (one, or the NEWFILE set).
    pub files: Vec<PathBuf>,
    /// Data buffers written over the writer's life (overwritten ones included).
    pub data_buffers_written: u64,
    /// `BuffersWritten` of the last file: its buffers, buffer 0 included.
    pub buffers_in_last_file: u32,
}

/// What became of one buffer handed to [`Writer::write_buffer`].
#[non_exhaustive]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    /// Appended to the current file.
    Written,
    /// CIRCULAR: written over the oldest data buffer (BUF-10).
    Overwrote,
    /// NEWFILE: the current file was full; this buffer starts file number `counter` (SES-35).
    NewFile {
        /// The NEWFILE counter of the new file (the first file is 1).
        counter: u32,
    },
    /// SEQUENTIAL / FILE_MODE_NONE / APPEND: the file is at MaximumFileSize; the buffer was
    /// not written and logging should stop (SES-62).
    Full,
    /// The buffer holds no records and was not written (third-party readers reject empty
    /// data buffers, format reference §0).
    Empty,
}

impl WriteOutcome {
    /// `true` when the buffer is now in a file.
    pub fn is_written(self) -> bool {
        matches!(
            self,
            WriteOutcome::Written | WriteOutcome::Overwrote | WriteOutcome::NewFile { .. }
        )
    }
}

/// The file being written.
struct Current {
    path: PathBuf,
    backend: Box<dyn Backend>,
    /// Buffer 0 as in the file; its statistics are patched when the file is finished.
    buf0: Vec<u8>,
    layout: Layout,
    header: LogfileHeader,
    /// Buffers in the file, buffer 0 included.
    buffers: u64,
    /// Bytes in the file: where the next buffer is appended (`buffers` × BufferSize, except
    /// in a compressed file, whose buffers each take their own length).
    len: u64,
    /// CIRCULAR: the slot the next overwrite goes to (1 … capacity − 1).
    next_overwrite: u64,
    preallocated: bool,
    /// Newest buffer timestamp written to this file.
    newest_raw: Option<i64>,
    highest_cpu: Option<u16>,
}

/// Writes a session's buffers to `.etl` files in its log-file mode.
///
/// ```
/// use etwsim_etl::{BufferBuilder, CloseStats, Record, TraceRecord, WriteOutcome, Writer, WriterOptions};
/// use etwsim_types::record::header_type;
/// use etwsim_types::LogFileMode;
///
/// # fn main() -> Result<(), etwsim_etl::Error> {
/// # let dir = std::env::temp_dir().join(format!("etwsim-etl-doc-writer-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let mut w = Writer::create(
///     WriterOptions::new(dir.join("ring.etl"))
///         .mode(LogFileMode::CIRCULAR | LogFileMode::USE_KBYTES_FOR_SIZE)
///         .maximum_file_size(16) // KB: buffer 0 and three 4 KiB data buffers
///         .buffer_size(4096),
/// )?;
/// let mut cpu0 = BufferBuilder::new(4096, 0)?;
/// for seq in 1..=5 {
///     cpu0.push(&Record::Trace(TraceRecord {
///         header_type: header_type::PERFINFO64,
///         version: 2,
///         hook_id: 0x0F2E,
///         timestamp: Some(seq),
///         ..TraceRecord::default()
///     }))?;
///     let outcome = w.write_buffer(&cpu0.finish(seq, seq, 0))?;
///     assert_eq!(outcome == WriteOutcome::Overwrote, seq > 3);
/// }
/// let summary = w.close(&CloseStats::default())?;
/// assert_eq!(summary.buffers_in_last_file, 4);
/// # Ok(()) }
/// ```
pub struct Writer {
    options: WriterOptions,
    open: Opener,
    current: Option<Current>,
    /// Buffers a file may hold, buffer 0 included; `None` = no limit.
    capacity: Option<u64>,
    counter: u32,
    events_lost: u32,
    buffers_lost: u32,
    data_buffers_written: u64,
    finished: Vec<PathBuf>,
    /// APPEND: the highest `SequenceNumber` already in the file, added to each appended
    /// buffer's, so that sequence order stays write order for readers (SES-34).
    sequence_base: i64,
    /// COMPRESSED: the compressor, and the buffer as it goes into the file.
    compressor: Option<Compressor>,
    packed: Vec<u8>,
    body: Vec<u8>,
    /// COMPRESSED: the last buffer was refused as [`WriteOutcome::Full`].
    refused: bool,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("path", &self.current.as_ref().map(|c| &c.path))
            .field("mode", &self.options.mode)
            .field("buffers", &self.current.as_ref().map(|c| c.buffers))
            .finish_non_exhaustive()
    }
}

impl Writer {
    /// Creates (or, with APPEND, opens) the first file and writes its buffer 0.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for contradictory or out-of-range options (SES-23, SES-61);
    /// [`Error::BadPattern`] for a NEWFILE name without one `%d` (SES-35);
    /// [`Error::AppendMismatch`] / [`Error::InFile`] when APPEND finds a different or damaged
    /// file (SES-34); [`Error::Io`] when the file cannot be created or written.
    pub fn create(options: WriterOptions) -> Result<Writer> {
        Writer::create_with(options, Box::new(open_file))
    }

    /// As [`Writer::create`], with files opened by `open` (for example an in-memory disk).
    ///
    /// # Errors
    /// As [`Writer::create`].
    pub fn create_with(mut options: WriterOptions, open: Opener) -> Result<Writer> {
        options.validate()?;
        let h = &mut options.header;
        h.log_file_mode = options.mode;
        h.maximum_file_size = options.maximum_file_size;
        h.boot_time = options.boot_time.unwrap_or_else(|| match h.clock_type() {
            Some(ClockType::Qpc | ClockType::CpuCycle) => h.to_filetime(0).unwrap_or(h.start_time),
            _ => h.start_time,
        });
        let capacity = options
            .limit_bytes()
            .map(|l| l / u64::from(options.header.buffer_size));
        let mut w = Writer {
            options,
            open,
            current: None,
            capacity,
            counter: 0,
            events_lost: 0,
            buffers_lost: 0,
            data_buffers_written: 0,
            finished: Vec::new(),
            sequence_base: 0,
            compressor: None,
            packed: Vec::new(),
            body: Vec::new(),
            refused: false,
        };
        if w.options.is_compressed() {
            w.compressor = Some(Compressor::new());
        }
        let first = if w.options.mode.contains(LogFileMode::NEWFILE) {
            w.counter = 1;
            w.numbered_path(1)?
        } else {
            w.options.path.clone()
        };
        let current = if w.options.mode.contains(LogFileMode::APPEND) {
            w.append_to(first)?
        } else {
            w.start_file(first)?
        };
        w.current = Some(current);
        Ok(w)
    }

    fn numbered_path(&self, n: u32) -> Result<PathBuf> {
        expand_pattern(&self.options.path, n)
    }

    fn preallocate(&self) -> bool {
        self.options.mode.contains(LogFileMode::PREALLOCATE)
    }

    /// Creates `path` and writes its buffer 0.
    fn start_file(&mut self, path: PathBuf) -> Result<Current> {
        let mut backend =
            (self.open)(&path, OpenMode::Create).map_err(|e| Error::io("creating", &path, e))?;
        let mut header = self.options.header.clone();
        header.log_file_name = path.to_string_lossy().into_owned();
        header.buffers_written = 1;
        let mut buf0 = header.encode_buffer()?;
        if self.options.is_compressed() {
            trim_header_buffer(&mut buf0);
        }
        let preallocated = self.preallocate();
        if preallocated {
            if let Some(limit) = self.options.limit_bytes() {
                backend
                    .set_len(limit)
                    .map_err(|e| Error::io("preallocating", &path, e))?;
            }
        }
        backend
            .write_at(0, &buf0)
            .map_err(|e| Error::io("writing buffer 0 of", &path, e))?;
        Ok(Current {
            path,
            backend,
            layout: LogfileHeader::layout_of(&buf0),
            len: buf0.len() as u64,
            buf0,
            header,
            buffers: 1,
            next_overwrite: 1,
            preallocated,
            newest_raw: None,
            highest_cpu: None,
        })
    }

    /// APPEND: opens `path`, checks it against the session and keeps its header (SES-34).
    fn append_to(&mut self, path: PathBuf) -> Result<Current> {
        let mut backend =
            (self.open)(&path, OpenMode::Append).map_err(|e| Error::io("opening", &path, e))?;
        let len = backend
            .len()
            .map_err(|e| Error::io("reading the size of", &path, e))?;
        if len == 0 {
            drop(backend);
            return self.start_file(path);
        }
        let want = self.options.header.buffer_size;
        let compressed = self.options.is_compressed();
        let mut size = [0u8; 4];
        backend
            .read_at(0, &mut size)
            .map_err(|e| Error::io("reading buffer 0 of", &path, e))?;
        let size = u32::from_le_bytes(size);
        let mismatch = |field, existing: u64, requested: u64| Error::AppendMismatch {
            path: path.clone(),
            field,
            existing,
            requested,
        };
        let read_buf0 = |backend: &mut Box<dyn Backend>| -> Result<(Vec<u8>, LogfileHeader)> {
            let mut buf0 = vec![0u8; size as usize];
            backend
                .read_at(0, &mut buf0)
                .map_err(|e| Error::io("reading buffer 0 of", &path, e))?;
            let header = LogfileHeader::decode_buffer(&buf0, 0).map_err(|e| e.in_file(&path))?;
            Ok((buf0, header))
        };
        // A compressed file's buffer 0 is shorter than its BufferSize.
        let plausible =
            (BUFFER_HEADER_SIZE as u32..=want).contains(&size) && u64::from(size) <= len;
        let was_compressed = |h: &LogfileHeader| h.log_file_mode.contains(LogFileMode::COMPRESSED);
        let (buf0, header) = if compressed {
            if !plausible {
                return Err(mismatch("BufferSize", size.into(), want.into()));
            }
            read_buf0(&mut backend)?
        } else {
            if size != want {
                if plausible {
                    if let Ok((_, h)) = read_buf0(&mut backend) {
                        if was_compressed(&h) {
                            return Err(mismatch("LogFileMode COMPRESSED", 1, 0));
                        }
                    }
                }
                return Err(mismatch("BufferSize", size.into(), want.into()));
            }
            if len < u64::from(size) || len % u64::from(size) != 0 {
                return Err(Error::corrupt(
                    "file",
                    0,
                    format!("length {len} is not a whole number of {size}-byte buffers"),
                )
                .in_file(&path));
            }
            read_buf0(&mut backend)?
        };
        if header.buffer_size != want {
            return Err(mismatch(
                "BufferSize",
                header.buffer_size.into(),
                want.into(),
            ));
        }
        if was_compressed(&header) != compressed {
            return Err(mismatch(
                "LogFileMode COMPRESSED",
                u64::from(was_compressed(&header)),
                u64::from(compressed),
            ));
        }
        let ours = &self.options.header;
        if header.clock_type() != ours.clock_type() {
            return Err(mismatch(
                "clock type",
                header.reserved_flags.into(),
                ours.reserved_flags.into(),
            ));
        }
        if header.number_of_processors != ours.number_of_processors {
            return Err(mismatch(
                "NumberOfProcessors",
                header.number_of_processors.into(),
                ours.number_of_processors.into(),
            ));
        }
        // The appended buffers' sequence numbers continue after the file's (the new run's
        // logger counts from 1 again). Each buffer's BufferSize leads to the next: in a
        // compressed file they differ.
        let mut head = [0u8; 0x20];
        let mut at = u64::from(size);
        let mut buffers = 1u64;
        while at < len {
            if len - at < head.len() as u64 {
                return Err(Error::truncated("a buffer header", at, 0x20, len - at).in_file(&path));
            }
            backend
                .read_at(at, &mut head)
                .map_err(|e| Error::io("reading a buffer header of", &path, e))?;
            let stride = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            if compressed && head.iter().all(|&b| b == 0) {
                break; // preallocated space never written (SES-36): append here
            }
            let seq = i64::from_le_bytes([
                head[0x18], head[0x19], head[0x1A], head[0x1B], head[0x1C], head[0x1D], head[0x1E],
                head[0x1F],
            ]);
            self.sequence_base = self.sequence_base.max(seq);
            if !compressed {
                at += u64::from(size);
            } else if (BUFFER_HEADER_SIZE as u32..=want).contains(&stride)
                && at + u64::from(stride) <= len
            {
                at += u64::from(stride);
            } else {
                return Err(Error::corrupt(
                    "WMI_BUFFER_HEADER",
                    at,
                    format!("BufferSize {stride:#x}: not a buffer of this file"),
                )
                .in_file(&path));
            }
            buffers += 1;
        }
        let preallocated = self.preallocate();
        if preallocated {
            if let Some(limit) = self.options.limit_bytes().filter(|&l| l > len) {
                backend
                    .set_len(limit)
                    .map_err(|e| Error::io("preallocating", &path, e))?;
            }
        }
        Ok(Current {
            path,
            backend,
            layout: LogfileHeader::layout_of(&buf0),
            buf0,
            header,
            buffers,
            len: at,
            next_overwrite: 1,
            preallocated,
            newest_raw: None,
            highest_cpu: None,
        })
    }

    /// Writes one data buffer: exactly `BufferSize` bytes with its `WMI_BUFFER_HEADER`
    /// filled in (`SavedOffset` = `Offset`, a multiple of 8).
    ///
    /// # Errors
    /// [`Error::InvalidBuffer`] for bytes that are not such a buffer (nothing is written);
    /// [`Error::Io`] when the file system fails — the buffer is then not in the file and
    /// nothing written before is harmed; [`Error::Closed`] after [`close`](Self::close).
    pub fn write_buffer(&mut self, buffer: &[u8]) -> Result<WriteOutcome> {
        let size = self.options.header.buffer_size;
        let h = check_incoming(buffer, size)?;
        if self.current.is_none() {
            return Err(Error::Closed);
        }
        if h.used as usize == BUFFER_HEADER_SIZE {
            return Ok(WriteOutcome::Empty);
        }
        let renumbered;
        let buffer = if self.sequence_base == 0 {
            buffer
        } else {
            let mut b = buffer.to_vec();
            let seq = h.sequence.saturating_add(self.sequence_base);
            b[0x18..0x20].copy_from_slice(&seq.to_le_bytes());
            renumbered = b;
            &renumbered[..]
        };
        // COMPRESSED: the buffer as it goes into the file, compressed or trimmed (in
        // `packed`, taken out of `self` meanwhile and put back whatever happens).
        let mut packed = std::mem::take(&mut self.packed);
        let on_disk = match self.compressor.as_mut() {
            Some(compressor) => {
                pack(compressor, buffer, &h, &mut self.body, &mut packed);
                &packed[..]
            }
            None => buffer,
        };
        let result = self.put(on_disk, &h);
        self.packed = packed;
        result
    }

    /// Puts a buffer as it goes into the file where the mode says.
    fn put(&mut self, on_disk: &[u8], h: &BufferHeader) -> Result<WriteOutcome> {
        let mode = self.options.mode;
        let full = {
            let c = self.current.as_ref().ok_or(Error::Closed)?;
            match self.compressor {
                Some(_) => self
                    .options
                    .limit_bytes()
                    .is_some_and(|limit| c.len + on_disk.len() as u64 > limit),
                None => self.capacity.is_some_and(|cap| c.buffers >= cap),
            }
        };
        let mut outcome = WriteOutcome::Written;
        if full {
            if mode.contains(LogFileMode::CIRCULAR) {
                outcome = WriteOutcome::Overwrote;
            } else if mode.contains(LogFileMode::NEWFILE) {
                self.switch_file()?;
                outcome = WriteOutcome::NewFile {
                    counter: self.counter,
                };
            } else {
                self.refused = true;
                return Ok(WriteOutcome::Full);
            }
        }
        let stride = u64::from(self.options.header.buffer_size);
        let capacity = self.capacity;
        let c = self.current.as_mut().ok_or(Error::Closed)?;
        if outcome == WriteOutcome::Overwrote {
            let slot = c.next_overwrite;
            overwrite(c, slot * stride, on_disk)?;
            let data_slots = capacity.unwrap_or(2).saturating_sub(1).max(1);
            c.next_overwrite = slot % data_slots + 1;
        } else {
            append(c, c.len, on_disk)?;
            c.buffers += 1;
            c.len += on_disk.len() as u64;
        }
        self.refused = false;
        c.newest_raw = Some(c.newest_raw.map_or(h.timestamp, |t| t.max(h.timestamp)));
        c.highest_cpu = Some(c.highest_cpu.map_or(h.processor, |p| p.max(h.processor)));
        self.data_buffers_written += 1;
        Ok(outcome)
    }

    /// ControlTrace(INCREMENT_FILE) for a NEWFILE writer: finishes the current file and
    /// starts the next numbered one now (SES-81). Returns the new file's path.
    ///
    /// # Errors
    /// [`Error::WrongMode`] without NEWFILE; [`Error::Io`] when finishing or creating a file
    /// fails (the writer then stays on the current file).
    pub fn increment_file(&mut self) -> Result<PathBuf> {
        if !self.options.mode.contains(LogFileMode::NEWFILE) {
            return Err(Error::WrongMode {
                operation: "INCREMENT_FILE",
                needs: "EVENT_TRACE_FILE_MODE_NEWFILE",
                mode: self.options.mode.bits(),
            });
        }
        self.switch_file()?;
        Ok(self
            .current_path()
            .map(Path::to_path_buf)
            .unwrap_or_default())
    }

    fn switch_file(&mut self) -> Result<()> {
        let stats = CloseStats {
            events_lost: self.events_lost,
            buffers_lost: self.buffers_lost,
            end_time: None,
        };
        let c = self.current.as_mut().ok_or(Error::Closed)?;
        finish(c, &stats)?;
        let next = self.counter.checked_add(1).ok_or_else(|| {
            Error::InvalidOption("the NEWFILE counter ran out of 32-bit values".into())
        })?;
        let path = self.numbered_path(next)?;
        let new = self.start_file(path)?;
        if let Some(old) = self.current.replace(new) {
            self.finished.push(old.path);
        }
        self.counter = next;
        Ok(())
    }

    /// The session's loss counters so far, written into any file finished before
    /// [`close`](Self::close) (NEWFILE).
    pub fn set_lost_counts(&mut self, events_lost: u32, buffers_lost: u32) {
        self.events_lost = events_lost;
        self.buffers_lost = buffers_lost;
    }

    /// The file being written; `None` after close.
    pub fn current_path(&self) -> Option<&Path> {
        self.current.as_ref().map(|c| c.path.as_path())
    }

    /// The NEWFILE counter of the current file (1 for the first); 0 for other modes.
    pub fn file_counter(&self) -> u32 {
        self.counter
    }

    /// Data buffers written so far (overwritten ones included).
    pub fn data_buffers_written(&self) -> u64 {
        self.data_buffers_written
    }

    /// Buffers in the current file, buffer 0 included.
    pub fn buffers_in_file(&self) -> u64 {
        self.current.as_ref().map_or(0, |c| c.buffers)
    }

    /// `true` when a SEQUENTIAL / FILE_MODE_NONE / APPEND file is at its maximum size: the
    /// next buffer would be refused with [`WriteOutcome::Full`] (SES-62).
    ///
    /// A compressed file's buffers differ in length: it is full once a buffer was refused
    /// (until a shorter one fits again).
    pub fn is_full(&self) -> bool {
        let rolls = LogFileMode::CIRCULAR | LogFileMode::NEWFILE;
        if self.options.mode.intersects(rolls) {
            return false;
        }
        if self.compressor.is_some() {
            return self.refused && self.current.is_some();
        }
        self.current
            .as_ref()
            .zip(self.capacity)
            .is_some_and(|(c, cap)| c.buffers >= cap)
    }

    /// Finishes the current file: rewrites its header statistics (BuffersWritten, EndTime,
    /// EventsLost, BuffersLost, NumberOfProcessors) and trims a preallocated file to the
    /// buffers used. Later calls return [`Error::Closed`].
    ///
    /// # Errors
    /// [`Error::Io`] when the header cannot be rewritten or the file trimmed;
    /// [`Error::Closed`] when already closed.
    pub fn close(&mut self, stats: &CloseStats) -> Result<CloseSummary> {
        let mut c = self.current.take().ok_or(Error::Closed)?;
        self.events_lost = stats.events_lost;
        self.buffers_lost = stats.buffers_lost;
        finish(&mut c, stats)?;
        let buffers_in_last_file = u32::try_from(c.buffers).unwrap_or(u32::MAX);
        let mut files = std::mem::take(&mut self.finished);
        files.push(c.path);
        Ok(CloseSummary {
            files,
            data_buffers_written: self.data_buffers_written,
            buffers_in_last_file,
        })
    }
}

/// COMPRESSED: the buffer `buffer` (its header `h`) as it goes into a compressed file, in
/// `out`: its records compressed (`BufferSize` = 0x48 + the compressed length,
/// `BufferFlag` | COMPRESSED) when that is shorter than its used bytes, else its used bytes
/// as they are (`BufferSize` = `Offset`). dissect.etl reads `min(BufferSize, Offset)` − 0x48
/// bytes after the header, so a compressed buffer must never be longer than its `Offset`.
fn pack(
    compressor: &mut Compressor,
    buffer: &[u8],
    h: &BufferHeader,
    body: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    let used = h.used as usize;
    let records = &buffer[BUFFER_HEADER_SIZE..used];
    compressor.compress_into(records, body);
    out.clear();
    out.extend_from_slice(&buffer[..BUFFER_HEADER_SIZE]);
    if BUFFER_HEADER_SIZE + body.len() < used {
        out.extend_from_slice(body);
        // Shorter than `used`, itself at most the BufferSize (a u32).
        let size = out.len() as u32;
        out[0..4].copy_from_slice(&size.to_le_bytes());
        let flags = h.flags | buffer_flags::COMPRESSED;
        out[0x34..0x36].copy_from_slice(&flags.to_le_bytes());
    } else {
        out.extend_from_slice(records);
        out[0..4].copy_from_slice(&h.used.to_le_bytes());
    }
}

/// COMPRESSED: buffer 0 trimmed to its used bytes rounded up to 512, as in compressed
/// files written by Windows (its `BufferSize` says so; the logfile header's `BufferSize`
/// stays the session's).
fn trim_header_buffer(buf0: &mut Vec<u8>) {
    let used = u32::from_le_bytes([buf0[0x30], buf0[0x31], buf0[0x32], buf0[0x33]]) as usize;
    let trimmed = used.div_ceil(512).saturating_mul(512).min(buf0.len());
    buf0.truncate(trimmed);
    buf0[0..4].copy_from_slice(&(trimmed as u32).to_le_bytes());
}

/// Checks that `b` is a complete buffer of `size` bytes a reader will accept.
fn check_incoming(b: &[u8], size: u32) -> Result<BufferHeader> {
    if b.len() != size as usize {
        return Err(Error::InvalidBuffer(format!(
            "{} bytes, the file's BufferSize is {size}",
            b.len()
        )));
    }
    let h = BufferHeader::decode(b)
        .ok_or_else(|| Error::InvalidBuffer("shorter than its 0x48-byte header".into()))?;
    let saved = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    if h.buffer_size != size {
        return Err(Error::InvalidBuffer(format!(
            "its header says BufferSize {}, the file's is {size}",
            h.buffer_size
        )));
    }
    if (h.used as usize) < BUFFER_HEADER_SIZE || h.used > size || h.used % 8 != 0 {
        return Err(Error::InvalidBuffer(format!(
            "Offset {:#x} is not a multiple of 8 in 0x48..={size:#x}",
            h.used
        )));
    }
    if saved != h.used {
        return Err(Error::InvalidBuffer(format!(
            "SavedOffset {saved:#x} differs from Offset {:#x} (etl-parser reads one, dissect.etl \
             the other)",
            h.used
        )));
    }
    if h.flags & buffer_flags::COMPRESSED != 0 {
        return Err(Error::InvalidBuffer(
            "compressed buffers are not written".into(),
        ));
    }
    Ok(h)
}

/// Appends at the end of the used part; on failure cuts the file back (or, preallocated,
/// clears the slot's header) so no partial buffer remains.
fn append(c: &mut Current, at: u64, buffer: &[u8]) -> Result<()> {
    if let Err(e) = c.backend.write_at(at, buffer) {
        let _ = if c.preallocated {
            c.backend.write_at(at, &[0u8; BUFFER_HEADER_SIZE])
        } else {
            c.backend.set_len(at)
        };
        return Err(Error::io(
            format!("writing a data buffer at offset {at:#x} of"),
            &c.path,
            e,
        ));
    }
    Ok(())
}

/// CIRCULAR: replaces the data buffer at `at`. The slot is first marked empty (its header
/// with no records), then the body is written, then the real header — so a failure at any
/// step leaves an empty buffer, never records mixed from two buffers.
fn overwrite(c: &mut Current, at: u64, buffer: &[u8]) -> Result<()> {
    let mut empty = [0u8; BUFFER_HEADER_SIZE];
    empty.copy_from_slice(&buffer[..BUFFER_HEADER_SIZE]);
    let used = (BUFFER_HEADER_SIZE as u32).to_le_bytes();
    for off in [0x04, 0x08, 0x30] {
        empty[off..off + 4].copy_from_slice(&used);
    }
    let err = |e| {
        Error::io(
            format!("overwriting the data buffer at offset {at:#x} of"),
            &c.path,
            e,
        )
    };
    c.backend.write_at(at, &empty).map_err(err)?;
    c.backend
        .write_at(
            at + BUFFER_HEADER_SIZE as u64,
            &buffer[BUFFER_HEADER_SIZE..],
        )
        .map_err(err)?;
    c.backend
        .write_at(at, &buffer[..BUFFER_HEADER_SIZE])
        .map_err(err)
}

/// Rewrites the file's header statistics and trims a preallocated file (BUF-17, SES-36).
fn finish(c: &mut Current, stats: &CloseStats) -> Result<()> {
    let h = &c.header;
    let end_time = stats
        .end_time
        .or_else(|| c.newest_raw.and_then(|raw| h.to_filetime(raw)))
        .map_or(h.end_time, |t| t.max(h.end_time));
    let cpus = c.highest_cpu.map_or(0, |p| u32::from(p) + 1);
    let s = HeaderStats {
        number_of_processors: h.number_of_processors.max(cpus),
        end_time,
        buffers_written: u32::try_from(c.buffers).unwrap_or(u32::MAX),
        events_lost: h.events_lost.saturating_add(stats.events_lost),
        buffers_lost: h.buffers_lost.saturating_add(stats.buffers_lost),
    };
    let mut buf0 = c.buf0.clone();
    c.layout.patch(&mut buf0, &s);
    c.backend
        .write_at(0, &buf0)
        .map_err(|e| Error::io("rewriting buffer 0 of", &c.path, e))?;
    c.buf0 = buf0;
    if c.preallocated {
        c.backend
            .set_len(c.len)
            .map_err(|e| Error::io("trimming", &c.path, e))?;
    }
    Ok(())
}

/// Substitutes `n` for the one printf counter (`%d`, `%u` or `%i`, optionally with a width
/// and a `0` flag; `%%` is a percent sign) in a NEWFILE name (SES-35).
pub(crate) fn expand_pattern(pattern: &Path, n: u32) -> Result<PathBuf> {
    let text = pattern.to_str().ok_or_else(|| Error::BadPattern {
        pattern: pattern.to_string_lossy().into_owned(),
        problem: "is not valid Unicode",
    })?;
    let bad = |problem| Error::BadPattern {
        pattern: text.to_owned(),
        problem,
    };
    let mut out = String::with_capacity(text.len() + 8);
    let mut counters = 0;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let zero = chars.peek() == Some(&'0');
        if zero {
            chars.next();
        }
        let mut width = 0usize;
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            chars.next();
            width = width * 10 + d as usize;
            if width > 32 {
                return Err(bad("a counter width above 32"));
            }
        }
        match chars.next() {
            Some('d' | 'u' | 'i') => {
                counters += 1;
                if zero {
                    out.push_str(&format!("{n:0width$}"));
                } else {
                    out.push_str(&format!("{n:width$}"));
                }
            }
            _ => return Err(bad("a % that is not %d, %u, %i (with a width) or %%")),
        }
    }
    match counters {
        1 => Ok(PathBuf::from(out)),
        0 => Err(bad("NEWFILE needs a counter such as %d in the file name")),
        _ => Err(bad("more than one counter")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::BufferBuilder;
    use crate::reader::LogFile;
    use crate::record::{Record, TraceRecord};
    use etwsim_types::record::header_type;
    use std::sync::{Arc, Mutex};

    #[test]
    fn writers_and_readers_move_between_threads() {
        fn send<T: Send>() {}
        send::<Writer>();
        send::<LogFile>();
        send::<crate::Reader>();
    }

    #[test]
    fn patterns_expand_one_counter() {
        // rule: SES-35
        let p = |s: &str, n| expand_pattern(Path::new(s), n).map(|p| p.display().to_string());
        assert_eq!(p("trace_%d.etl", 1).unwrap(), "trace_1.etl");
        assert_eq!(p("t%03d.etl", 7).unwrap(), "t007.etl");
        assert_eq!(p("t%3u.etl", 7).unwrap(), "t  7.etl");
        assert_eq!(p("100%%_%i.etl", 12).unwrap(), "100%_12.etl");
        for bad in ["x.etl", "x%s.etl", "%d_%d.etl", "x%", "100%%.etl", "%99d"] {
            assert!(p(bad, 1).is_err(), "{bad}");
        }
    }

    /// A file in memory whose writes fail on cue.
    #[derive(Clone, Default)]
    struct Disk {
        bytes: Arc<Mutex<Vec<u8>>>,
        /// Writes left before they start failing; `None` never fails.
        writes_left: Arc<Mutex<Option<u32>>>,
        /// Bytes a failing write still puts down before it fails.
        partial: usize,
    }

    impl Backend for Disk {
        fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
            let mut left = self.writes_left.lock().unwrap();
            let fail = match *left {
                Some(0) => true,
                Some(ref mut n) => {
                    *n -= 1;
                    false
                }
                None => false,
            };
            let n = if fail {
                self.partial.min(bytes.len())
            } else {
                bytes.len()
            };
            let mut v = self.bytes.lock().unwrap();
            let at = offset as usize;
            if v.len() < at + n {
                v.resize(at + n, 0);
            }
            v[at..at + n].copy_from_slice(&bytes[..n]);
            if fail {
                Err(io::Error::other("simulated write failure"))
            } else {
                Ok(())
            }
        }
        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            let v = self.bytes.lock().unwrap();
            let at = offset as usize;
            buf.copy_from_slice(
                v.get(at..at + buf.len())
                    .ok_or(io::ErrorKind::UnexpectedEof)?,
            );
            Ok(())
        }
        fn set_len(&mut self, len: u64) -> io::Result<()> {
            self.bytes.lock().unwrap().resize(len as usize, 0);
            Ok(())
        }
        fn len(&mut self) -> io::Result<u64> {
            Ok(self.bytes.lock().unwrap().len() as u64)
        }
    }

    fn buffer(seq: i64) -> Vec<u8> {
        let mut b = BufferBuilder::new(1024, 0).unwrap();
        b.push(&Record::Trace(TraceRecord {
            header_type: header_type::PERFINFO64,
            version: 2,
            hook_id: 0x0F2E,
            timestamp: Some(seq),
            payload: vec![seq as u8; 40],
            ..TraceRecord::default()
        }))
        .unwrap();
        b.finish(seq, seq, 0)
    }

    fn writer_on(disk: &Disk, options: WriterOptions) -> Writer {
        let d = disk.clone();
        Writer::create_with(
            options.buffer_size(1024),
            Box::new(move |_, _| Ok(Box::new(d.clone()) as Box<dyn Backend>)),
        )
        .unwrap()
    }

    fn records_in(disk: &Disk) -> (usize, bool) {
        let bytes = disk.bytes.lock().unwrap().clone();
        let mut f = LogFile::from_bytes("mem.etl", bytes).unwrap();
        let mut n = 0;
        let mut damaged = false;
        for r in f.records() {
            match r {
                Ok(_) => n += 1,
                Err(_) => damaged = true,
            }
        }
        (n, damaged)
    }

    #[test]
    fn a_failed_append_leaves_the_file_as_it_was() {
        for partial in [0, 100, 1023] {
            let disk = Disk {
                partial,
                ..Disk::default()
            };
            let mut w = writer_on(&disk, WriterOptions::new("mem.etl"));
            for seq in 1..=3 {
                assert_eq!(w.write_buffer(&buffer(seq)).unwrap(), WriteOutcome::Written);
            }
            *disk.writes_left.lock().unwrap() = Some(0);
            assert!(matches!(w.write_buffer(&buffer(4)), Err(Error::Io { .. })));
            assert_eq!(w.buffers_in_file(), 4, "the failed buffer is not counted");
            assert_eq!(disk.bytes.lock().unwrap().len(), 4 * 1024);
            assert_eq!(records_in(&disk), (3, false));
            *disk.writes_left.lock().unwrap() = None;
            assert_eq!(w.write_buffer(&buffer(5)).unwrap(), WriteOutcome::Written);
            let s = w.close(&CloseStats::default()).unwrap();
            assert_eq!(s.buffers_in_last_file, 5);
            assert_eq!(records_in(&disk), (4, false));
        }
    }

    #[test]
    fn a_failed_overwrite_leaves_an_empty_buffer_not_a_mixed_one() {
        // rule: SES-33
        for (writes_ok, partial) in [(0, 10), (1, 0), (1, 500), (2, 20)] {
            let disk = Disk {
                partial,
                ..Disk::default()
            };
            let mut w = writer_on(
                &disk,
                WriterOptions::new("mem.etl")
                    .mode(LogFileMode::CIRCULAR | LogFileMode::USE_KBYTES_FOR_SIZE)
                    .maximum_file_size(4),
            );
            for seq in 1..=3 {
                assert_eq!(w.write_buffer(&buffer(seq)).unwrap(), WriteOutcome::Written);
            }
            *disk.writes_left.lock().unwrap() = Some(writes_ok);
            assert!(w.write_buffer(&buffer(4)).is_err());
            let (n, damaged) = records_in(&disk);
            assert!(!damaged, "{writes_ok}/{partial}");
            assert!(n == 2 || n == 3, "{n}");
            *disk.writes_left.lock().unwrap() = None;
            w.close(&CloseStats::default()).unwrap();
        }
    }

    #[test]
    fn buffers_that_readers_would_reject_are_refused() {
        let disk = Disk::default();
        let mut w = writer_on(&disk, WriterOptions::new("mem.etl"));
        let good = buffer(1);
        assert!(matches!(
            w.write_buffer(&good[..512]),
            Err(Error::InvalidBuffer(_))
        ));
        let mut unaligned = good.clone();
        unaligned[0x30] += 4;
        unaligned[0x04] += 4;
        assert!(w.write_buffer(&unaligned).is_err());
        let mut split = good.clone();
        split[0x04] += 8;
        assert!(w.write_buffer(&split).is_err());
        let empty = BufferBuilder::new(1024, 0).unwrap().finish(1, 1, 0);
        assert_eq!(w.write_buffer(&empty).unwrap(), WriteOutcome::Empty);
        assert_eq!(w.buffers_in_file(), 1);
        w.close(&CloseStats::default()).unwrap();
        assert!(matches!(w.write_buffer(&good), Err(Error::Closed)));
        assert!(matches!(
            w.close(&CloseStats::default()),
            Err(Error::Closed)
        ));
    }
}
