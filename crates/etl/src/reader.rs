//! Reading `.etl` files: one file in file order ([`LogFile`]), or one or more files merged
//! oldest first ([`Reader`]) as ProcessTrace delivers them (CON-02…CON-04, SES-65; format
//! reference §2, §8, §9).
//!
//! Opening a file reads buffer 0 (the logfile header, format reference §3) and then checks
//! every buffer once — its `WMI_BUFFER_HEADER` and the chain of records in its used bytes
//! (§2, §4, §7) — remembering, per buffer, its CPU, sequence number, how many records are
//! sound and where the last of them ends. That scan only *frames* each record (marker,
//! `Size`, extended-item chain, extra words, message options: everything that decides
//! damage); it decodes no field and allocates nothing per record. The first damage found
//! (a truncated last buffer, a bad buffer header, an undecodable record, fewer buffers than
//! the header's `BuffersWritten`) ends the file: every record stored before it is
//! delivered, then the damage as an error. A buffer whose header is all zeros ends the
//! file quietly — that is the unused tail of a preallocated file (SES-36) — unless
//! `BuffersWritten` counts more. A file with more buffers than `BuffersWritten` is read
//! whole: its writer never closed it.
//!
//! Reading then loads buffers — consecutive ones together, up to 1 MiB per read, each only
//! up to its last sound record — into memory that is allocated once and reused, and
//! decodes their records one by one straight from it: borrowed
//! ([`LogFile::for_each_record`], a [`RecordView`](crate::RecordView) per record, no
//! allocation) or owned ([`LogFile::records`], [`Reader`]: the same view copied out).
//! Memory stays at 1 MiB (or one buffer, if larger) per file, and one buffer per CPU stream
//! when merging, whatever the file's size.
//!
//! Compressed buffers (`BufferFlag` 0x40, in files whose `LogFileMode` has COMPRESSED; the
//! layout is in the crate's docs) are decompressed into one more reused buffer, once by the
//! scan (to frame their records) and again when their records are read; their records are
//! then read exactly like those of an uncompressed buffer. Each buffer's stride is its own
//! `BufferSize` there, so a file may mix compressed buffers, uncompressed ones and a
//! trimmed buffer 0.
//!
//! The merge: each CPU's buffers form one stream, ordered by `SequenceNumber` (which also
//! puts a wrapped circular file back in time order, BUF-10), and the streams of all files
//! are merged by timestamp with a heap. Ties keep file order: earlier file, then earlier
//! buffer in the file, then earlier record in the buffer. Timestamps are compared as
//! FILETIME whenever every file's header can convert them, so files of different sessions
//! interleave correctly; a record without a timestamp (a WPP message without the TIMESTAMP
//! option) sorts with the record before it.

use crate::buffer::{
    FileLayout, check_header, context, in_decompressed, inflate, is_compressed, walk,
};
use crate::bytes::Bytes;
use crate::error::{Error, Result};
use crate::header::{LOGFILE_HEADER_OFFSET, LogfileHeader, MAX_BUFFER_SIZE, check_buffer_size};
use crate::record::Record;
use crate::view::{Frame, RecordView, frame};
use etwsim_types::record::{BUFFER_HEADER_SIZE, header_flags, header_type};
use etwsim_types::{BufferContext, LogFileMode};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::convert::Infallible;
use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// The most files one [`Reader`] takes, as ProcessTrace (CON-03).
pub const MAX_FILES: usize = 64;

/// Where a file's bytes come from.
enum Source {
    File(File),
    Memory(Vec<u8>),
}

impl Source {
    /// Fills `buf` with the bytes at `offset`.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Source::File(f) => read_exact_at(f, offset, buf),
            Source::Memory(m) => {
                let src = usize::try_from(offset)
                    .ok()
                    .and_then(|o| m.get(o..o.checked_add(buf.len())?))
                    .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
                buf.copy_from_slice(src);
                Ok(())
            }
        }
    }

    /// Reads `len` bytes at `offset` into `scratch`, which grows to the largest read and is
    /// never shrunk or cleared (no allocation or zeroing per buffer), and returns them.
    fn read_into<'s>(
        &mut self,
        offset: u64,
        len: usize,
        scratch: &'s mut Vec<u8>,
    ) -> io::Result<&'s [u8]> {
        if scratch.len() < len {
            scratch.resize(len, 0);
        }
        let buf = &mut scratch[..len];
        self.read_at(offset, buf)?;
        Ok(buf)
    }
}

/// One positioned read (`pread`): no seek, one system call.
#[cfg(unix)]
fn read_exact_at(f: &mut File, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(not(unix))]
fn read_exact_at(f: &mut File, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// What the scan learned about one readable buffer.
#[derive(Copy, Clone, Debug)]
struct BufferMeta {
    /// Position in the file (buffer 0 is the header buffer).
    index: u32,
    /// File offset of its header.
    offset: u64,
    /// Its length in the file (its `BufferSize`): where the next buffer starts.
    stride: u32,
    /// Bytes a reader loads from `offset`: up to the end of its last sound record, or, for
    /// a compressed buffer, all its `stride` bytes.
    load: u32,
    compressed: bool,
    processor: u16,
    sequence: i64,
    /// `TimeStamp` of the buffer: stands in for a first record without one.
    flush_timestamp: i64,
    /// Sound records at the start of the buffer.
    records: u32,
}

/// The most a file's compressed buffers may hold once decompressed, in all, as a multiple
/// of the file's length (plus one largest buffer): a decompression bomb is damage. Traces
/// compress 4–10 times; a buffer of identical records a few hundred times.
const MAX_RATIO: u64 = 256;

/// Bytes one read takes at most when several buffers follow each other in the file (the
/// scan, file-order reads): one system call per MiB rather than per buffer.
const READ_CHUNK: u64 = 1 << 20;

/// How many of `buffers` (from the first) one read loads: buffers that follow each other
/// in the file, within [`READ_CHUNK`] (at least one).
fn run_len(buffers: &[BufferMeta]) -> usize {
    let Some(first) = buffers.first() else {
        return 0;
    };
    let mut n = 1;
    let mut next = first.offset + u64::from(first.stride);
    for m in &buffers[1..] {
        if m.offset != next || m.offset + u64::from(m.load) - first.offset > READ_CHUNK {
            break;
        }
        n += 1;
        next = m.offset + u64::from(m.stride);
    }
    n
}

/// Reads the buffers of `run` (consecutive in the file; the last only up to what it
/// loads) with one read into `scratch`; returns the bytes read.
fn read_run(
    source: &mut Source,
    path: &Path,
    run: &[BufferMeta],
    scratch: &mut Vec<u8>,
) -> Result<usize> {
    let (Some(first), Some(last)) = (run.first(), run.last()) else {
        return Ok(0);
    };
    let at = first.offset;
    let len = last.offset + u64::from(last.load) - at;
    source
        .read_into(at, len as usize, scratch)
        .map_err(|e| {
            let what = if run.len() == 1 {
                format!("reading buffer {} at offset {at:#x} of", first.index)
            } else {
                format!(
                    "reading buffers {}..={} at offset {at:#x} of",
                    first.index, last.index
                )
            };
            Error::io(what, path, e)
        })
        .map(<[u8]>::len)
}

/// A position among the sound records of one loaded buffer.
#[derive(Copy, Clone, Debug, Default)]
struct Cursor {
    /// Where the buffer starts in the bytes handed to [`next`](Self::next).
    start: usize,
    /// Offset the records' errors are told from: the buffer's file offset, or 0 in the
    /// decompressed bytes of a compressed buffer.
    base: u64,
    /// Bytes of the buffer that hold records: its used bytes, at most what was read.
    used: usize,
    /// Offset of the next record in the buffer.
    at: usize,
    /// Sound records still to come, as the scan counted them.
    left: u32,
    ctx: BufferContext,
    /// A compressed buffer's index and file offset: its records are walked in the
    /// decompressed bytes, and damage there is told as the buffer's.
    compressed: Option<(u32, u64)>,
}

impl Cursor {
    /// Checks buffer `meta` again and points at its first record. `raw` holds its bytes
    /// from its header on, `raw_start` is where they start in what will be handed to
    /// [`next`](Self::next). A compressed buffer is decompressed into `inflated`, which is
    /// then what `next` must be handed (`start` 0): see [`is_inflated`](Self::is_inflated).
    fn start(
        raw: &[u8],
        raw_start: usize,
        meta: &BufferMeta,
        layout: FileLayout,
        inflated: &mut Vec<u8>,
        path: &Path,
    ) -> Result<Cursor> {
        let base = meta.offset;
        let h = check_header(Bytes::new(raw, base), layout).map_err(|e| e.in_file(path))?;
        let ctx = context(&h);
        if meta.compressed != is_compressed(&h) {
            return Err(Error::corrupt(
                "buffer",
                base,
                "compressed or not, unlike when the file was opened",
            )
            .in_file(path));
        }
        if meta.compressed {
            inflate(raw, &h, base, Some(meta.index), inflated).map_err(|e| e.in_file(path))?;
            return Ok(Cursor {
                start: 0,
                base: 0,
                used: inflated.len(),
                at: BUFFER_HEADER_SIZE,
                left: meta.records,
                ctx,
                compressed: Some((meta.index, base)),
            });
        }
        Ok(Cursor {
            start: raw_start,
            base,
            used: (h.used as usize).min(raw.len()),
            at: BUFFER_HEADER_SIZE,
            left: meta.records,
            ctx,
            compressed: None,
        })
    }

    /// `true` when the records are in the decompressed bytes ([`Cursor::start`]'s
    /// `inflated`).
    fn is_inflated(&self) -> bool {
        self.compressed.is_some()
    }

    /// Frames the next record of the buffer in `loaded` (what [`read_run`] read, or the
    /// decompressed bytes); `None` after the last sound record. An error (the file changed
    /// since it was checked) ends it.
    #[inline]
    fn next<'a>(&mut self, loaded: &'a [u8]) -> Option<Result<Frame<'a>>> {
        if self.left == 0 {
            return None;
        }
        let bytes = loaded
            .get(self.start..self.start + self.used)
            .unwrap_or_default();
        let region = Bytes::new(bytes, self.base);
        let tell = |e: Error| match self.compressed {
            Some((index, at)) => in_decompressed(&e, Some(index), at),
            None => e,
        };
        if self.at < region.len() {
            match frame(region.tail(self.at)) {
                Ok(Some(f)) => {
                    self.at += f.used;
                    self.left -= 1;
                    return Some(Ok(f));
                }
                Ok(None) => {}
                Err(e) => {
                    self.left = 0;
                    return Some(Err(tell(e)));
                }
            }
        }
        self.left = 0;
        let at = self.compressed.map_or(self.base, |(_, at)| at);
        Some(Err(Error::corrupt(
            "buffer",
            at,
            "fewer records than when the file was opened",
        )))
    }
}

/// One opened `.etl` file: its logfile header, and its records in file order — owned
/// ([`records`](Self::records)) or borrowed ([`for_each_record`](Self::for_each_record)).
///
/// ```
/// # fn main() -> Result<(), etwsim_etl::Error> {
/// # let dir = std::env::temp_dir().join(format!("etwsim-etl-doc-logfile-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// # let path = dir.join("t.etl");
/// # let mut w = etwsim_etl::Writer::create(etwsim_etl::WriterOptions::new(&path))?;
/// # w.close(&etwsim_etl::CloseStats::default())?;
/// let mut file = etwsim_etl::LogFile::open(&path)?;
/// println!("{} buffers of {} bytes", file.buffer_count(), file.header().buffer_size);
/// for record in file.records() {
///     let record = record?;
///     println!("{:?} at {:?}", record.kind(), record.timestamp());
/// }
/// # Ok(()) }
/// ```
pub struct LogFile {
    path: PathBuf,
    source: Source,
    header: LogfileHeader,
    layout: FileLayout,
    /// Buffer 0's length in the file (shorter than the session's `BufferSize` in a
    /// compressed file).
    header_stride: u32,
    header_records: u32,
    header_end: u32,
    buffers: Vec<BufferMeta>,
    damage: Option<Error>,
    /// The one buffer file-order reads load into.
    scratch: Vec<u8>,
    /// The decompressed bytes of the compressed buffer being read.
    inflated: Vec<u8>,
}

impl std::fmt::Debug for LogFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogFile")
            .field("path", &self.path)
            .field("buffers", &self.buffer_count())
            .field("damage", &self.damage)
            .finish_non_exhaustive()
    }
}

/// Counts the sound records of a checked buffer; returns them, where the last ends, and
/// the damage after them.
fn count(b: Bytes<'_>, h: &etwsim_types::BufferHeader) -> (u32, u32, Option<Error>) {
    let mut n = 0u32;
    let mut end = BUFFER_HEADER_SIZE;
    let damage = walk(b, h, |at, f| {
        n += 1;
        end = at + f.used;
    });
    // Within one buffer (at most 16 MiB): the end fits.
    (n, end as u32, damage)
}

impl LogFile {
    /// Opens and checks a file.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::InFile`] wrapping the problem
    /// when buffer 0 or its logfile header is unusable. Damage further on does not fail the
    /// open: see [`damage`](Self::damage).
    pub fn open(path: impl AsRef<Path>) -> Result<LogFile> {
        let path = path.as_ref();
        let f = File::open(path).map_err(|e| Error::io("opening", path, e))?;
        let len = f
            .metadata()
            .map_err(|e| Error::io("reading the size of", path, e))?
            .len();
        LogFile::scan(path.to_path_buf(), Source::File(f), len)
    }

    /// Reads a file's bytes from memory; `label` names it in errors.
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn from_bytes(label: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<LogFile> {
        let len = bytes.len() as u64;
        LogFile::scan(label.into(), Source::Memory(bytes), len)
    }

    fn scan(path: PathBuf, source: Source, len: u64) -> Result<LogFile> {
        let in_file = |e: Error| e.in_file(&path);
        if len < BUFFER_HEADER_SIZE as u64 {
            return Err(in_file(Error::truncated(
                "buffer 0 (WMI_BUFFER_HEADER)",
                0,
                BUFFER_HEADER_SIZE as u64,
                len,
            )));
        }
        let mut file = LogFile {
            path: path.clone(),
            source,
            header: LogfileHeader::default(),
            layout: FileLayout::fixed(0),
            header_stride: 0,
            header_records: 0,
            header_end: BUFFER_HEADER_SIZE as u32,
            buffers: Vec::new(),
            damage: None,
            scratch: Vec::new(),
            inflated: Vec::new(),
        };
        let read = |source: &mut Source, at: u64, buf: &mut [u8], what: &str| {
            source
                .read_at(at, buf)
                .map_err(|e| Error::io(format!("reading {what} at offset {at:#x} of"), &path, e))
        };
        let mut head = [0u8; BUFFER_HEADER_SIZE];
        read(&mut file.source, 0, &mut head, "buffer 0")?;
        let size = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        // Buffer 0 is the session's BufferSize, or (compressed files) its used bytes
        // rounded up: at least its header, never more than the largest buffer.
        if check_buffer_size(size).is_err()
            && !(BUFFER_HEADER_SIZE as u32..=MAX_BUFFER_SIZE).contains(&size)
        {
            return Err(in_file(Error::corrupt(
                "buffer 0 (WMI_BUFFER_HEADER)",
                0,
                format!("BufferSize {size:#x} is not a multiple of 8 in 0x400..=0x1000000"),
            )));
        }
        // Never more than the file holds: a lying BufferSize cannot make us allocate.
        // This one buffer serves the whole scan and, kept, every file-order read after it.
        let mut buf = vec![0u8; u64::from(size).min(len) as usize];
        read(&mut file.source, 0, &mut buf, "buffer 0")?;
        file.header = LogfileHeader::decode_buffer(&buf, 0).map_err(in_file)?;
        file.layout = FileLayout {
            buffer_size: file.header.buffer_size,
            packed: file.header.log_file_mode.contains(LogFileMode::COMPRESSED),
        };
        file.header_stride = size;
        file.scratch = buf;
        file.scan_buffers(len)?;
        Ok(file)
    }

    /// The scan proper, from buffer 0's records on (buffer 0 is in `scratch`); damage goes
    /// to `self.damage`, only I/O errors and an unusable buffer 0 header are returned.
    fn scan_buffers(&mut self, len: u64) -> Result<()> {
        let layout = self.layout;
        let stride0 = u64::from(self.header_stride);
        if len < stride0 {
            self.damage = Some(Error::truncated("buffer 0", 0, stride0, len));
            return Ok(());
        }
        let buf0 = Bytes::new(&self.scratch, 0);
        let h0 = check_header(buf0, layout).map_err(|e| e.in_file(&self.path))?;
        if is_compressed(&h0) {
            return Err(Error::corrupt(
                "buffer 0 (WMI_BUFFER_HEADER)",
                0,
                "the logfile header buffer is compressed",
            )
            .in_file(&self.path));
        }
        let (n, end, damage) = count(buf0, &h0);
        self.header_records = n;
        self.header_end = end;
        if damage.is_some() {
            self.damage = damage;
            return Ok(());
        }
        // The smallest read that holds any buffer whole, unless the file ends first.
        let chunk = READ_CHUNK.max(u64::from(layout.buffer_size));
        let mut at = stride0;
        let mut index = 1u32;
        // Decompression is bounded by the input: a file's compressed buffers hold at most
        // MAX_RATIO times its length (plus one buffer), so no file makes the reader work
        // for long on little input.
        let inflate_budget = len.saturating_mul(MAX_RATIO) + u64::from(MAX_BUFFER_SIZE);
        let mut inflated_total = 0u64;
        'file: while at < len {
            let want = (len - at).min(chunk);
            let bytes = self
                .source
                .read_into(at, want as usize, &mut self.scratch)
                .map_err(|e| {
                    Error::io(
                        format!("reading a buffer at offset {at:#x} of"),
                        &self.path,
                        e,
                    )
                })?;
            let at_end = at + want == len;
            let mut off = 0usize;
            while off < bytes.len() {
                let here = at + off as u64;
                let rest = &bytes[off..];
                // A fixed layout's buffers are whole or truncated; a packed one's are at
                // least a header.
                let whole = if layout.packed {
                    BUFFER_HEADER_SIZE
                } else {
                    layout.buffer_size as usize
                };
                if rest.len() < whole.max(BUFFER_HEADER_SIZE) {
                    if at_end {
                        self.damage = Some(Error::truncated(
                            "the last buffer",
                            here,
                            whole as u64,
                            rest.len() as u64,
                        ));
                        return Ok(());
                    }
                    break; // the next read starts with this buffer
                }
                if rest[..BUFFER_HEADER_SIZE].iter().all(|&b| b == 0) {
                    at = here; // preallocated space never written (SES-36)
                    break 'file;
                }
                let b = Bytes::new(rest, here);
                let h = match check_header(b, layout) {
                    Ok(h) => h,
                    Err(e) => {
                        self.damage = Some(e);
                        return Ok(());
                    }
                };
                let stride = h.buffer_size as usize;
                if rest.len() < stride {
                    if at_end {
                        self.damage = Some(Error::truncated(
                            "the last buffer",
                            here,
                            stride as u64,
                            rest.len() as u64,
                        ));
                        return Ok(());
                    }
                    break;
                }
                let compressed = is_compressed(&h);
                if compressed {
                    inflated_total += u64::from(h.used);
                    if inflated_total > inflate_budget {
                        self.damage = Some(Error::corrupt(
                            "compressed buffer",
                            here,
                            format!(
                                "buffer {index} at offset {here:#x} would make the compressed \
                                 buffers hold more than {MAX_RATIO} times the file's {len} bytes \
                                 once decompressed"
                            ),
                        ));
                        return Ok(());
                    }
                }
                let (n, end, damage) = if compressed {
                    match inflate(rest, &h, here, Some(index), &mut self.inflated) {
                        Ok(()) => {
                            let (n, end, damage) = count(Bytes::new(&self.inflated, 0), &h);
                            (
                                n,
                                end,
                                damage.map(|e| in_decompressed(&e, Some(index), here)),
                            )
                        }
                        Err(e) => (0, 0, Some(e)),
                    }
                } else {
                    count(b.head(stride), &h)
                };
                if n > 0 {
                    self.buffers.push(BufferMeta {
                        index,
                        offset: here,
                        stride: h.buffer_size,
                        load: if compressed { h.buffer_size } else { end },
                        compressed,
                        processor: h.processor,
                        sequence: h.sequence,
                        flush_timestamp: h.timestamp,
                        records: n,
                    });
                }
                if damage.is_some() {
                    self.damage = damage;
                    return Ok(());
                }
                off += stride;
                index = index.saturating_add(1);
            }
            if off == 0 {
                // Cannot happen (a read holds any whole buffer); never loop on it.
                self.damage = Some(Error::truncated(
                    "the last buffer",
                    at,
                    u64::from(layout.buffer_size),
                    len - at,
                ));
                return Ok(());
            }
            at += off as u64;
        }
        // Whole buffers, but fewer than the header (rewritten at close) counts.
        let written = u64::from(self.header.buffers_written);
        if u64::from(index) < written {
            self.damage = Some(if layout.packed {
                Error::corrupt(
                    "the buffers BuffersWritten counts",
                    at,
                    format!(
                        "BuffersWritten is {written}, the file holds {index} buffers \
                         ({len} bytes)"
                    ),
                )
            } else {
                Error::truncated(
                    "the buffers BuffersWritten counts",
                    at,
                    (written - u64::from(index)) * u64::from(layout.buffer_size),
                    len - at,
                )
            });
        }
        Ok(())
    }

    /// The file's name (or the label given to [`from_bytes`](Self::from_bytes)).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The logfile header.
    pub fn header(&self) -> &LogfileHeader {
        &self.header
    }

    /// Buffers that hold sound records, buffer 0 included.
    pub fn buffer_count(&self) -> usize {
        1 + self.buffers.len()
    }

    /// Data buffers stored compressed (`BufferFlag` COMPRESSED) among those that hold sound
    /// records.
    pub fn compressed_buffer_count(&self) -> usize {
        self.buffers.iter().filter(|m| m.compressed).count()
    }

    /// The first damage the open-time check found, if any: reading stops there.
    pub fn damage(&self) -> Option<&Error> {
        self.damage.as_ref()
    }

    /// The records of buffer 0: the `EventTrace/Header` record and whatever follows it
    /// (PartitionInfoExtension), raw timestamps.
    ///
    /// # Errors
    /// [`Error::Io`] when the file can no longer be read.
    pub fn header_records(&mut self) -> Result<Vec<Record>> {
        if self.header_records == 0 {
            return Ok(Vec::new());
        }
        let meta = self.header_meta();
        let LogFile {
            path,
            source,
            layout,
            scratch,
            inflated,
            ..
        } = self;
        let loaded = read_run(source, path, &[meta], scratch)?;
        let loaded = &scratch[..loaded];
        let mut cursor = Cursor::start(loaded, 0, &meta, *layout, inflated, path)?;
        let mut out = Vec::with_capacity(meta.records as usize);
        while let Some(f) = cursor.next(loaded) {
            let f = f.map_err(|e| e.in_file(&*path))?;
            out.push(f.view(cursor.ctx).to_record());
        }
        Ok(out)
    }

    /// Every record of the data buffers (1, 2, …) in file order, exactly as stored (raw
    /// timestamps, on-disk flags); then the [`damage`](Self::damage), if any, as the last
    /// item. This is the order the third-party parsers report.
    ///
    /// Each record is decoded straight from the file's one reused buffer into the owned
    /// [`Record`] handed out; [`for_each_record`](Self::for_each_record) lends the same
    /// records without copying them.
    pub fn records(&mut self) -> FileRecords<'_> {
        FileRecords {
            file: self,
            next: 0,
            run_end: 0,
            run_first: 0,
            loaded: 0,
            cursor: Cursor::default(),
            done: false,
        }
    }

    /// Calls `f` with every record of the data buffers in file order, borrowed from the
    /// file's one reused buffer: the same records as [`records`](Self::records), decoded
    /// the same way, with no allocation per record. The view lives for the call; copy out
    /// what must outlive it ([`RecordView::to_record`]).
    ///
    /// ```
    /// # fn main() -> Result<(), etwsim_etl::Error> {
    /// # let dir = std::env::temp_dir().join(format!("etwsim-etl-doc-each-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("t.etl");
    /// # let mut w = etwsim_etl::Writer::create(etwsim_etl::WriterOptions::new(&path))?;
    /// # w.close(&etwsim_etl::CloseStats::default())?;
    /// let mut file = etwsim_etl::LogFile::open(&path)?;
    /// let (mut records, mut payload_bytes) = (0, 0);
    /// file.for_each_record(|view| {
    ///     records += 1;
    ///     payload_bytes += view.payload_len();
    /// })?;
    /// println!("{records} records, {payload_bytes} bytes of payload");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// After `f` has seen every record stored before it, the file's
    /// [`damage`](Self::damage); [`Error::Io`] when the file can no longer be read, or
    /// [`Error::InFile`] when it changed since it was opened (after the records before
    /// the change).
    pub fn for_each_record(&mut self, mut f: impl FnMut(RecordView<'_>)) -> Result<()> {
        let flow = self.try_for_each_record(|view| {
            f(view);
            ControlFlow::<Infallible>::Continue(())
        })?;
        match flow {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(never) => match never {},
        }
    }

    /// As [`for_each_record`](Self::for_each_record), stopping early when `f` returns
    /// [`ControlFlow::Break`]: then `Ok(Break(value))`, and nothing after that record is
    /// read (no damage is reported).
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// # fn main() -> Result<(), etwsim_etl::Error> {
    /// # let dir = std::env::temp_dir().join(format!("etwsim-etl-doc-try-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("t.etl");
    /// # let mut w = etwsim_etl::Writer::create(etwsim_etl::WriterOptions::new(&path))?;
    /// # w.close(&etwsim_etl::CloseStats::default())?;
    /// let mut file = etwsim_etl::LogFile::open(&path)?;
    /// // The first record bigger than 1 KiB, owned.
    /// let big = file.try_for_each_record(|view| match view.payload_len() > 1024 {
    ///     true => ControlFlow::Break(view.to_record()),
    ///     false => ControlFlow::Continue(()),
    /// })?;
    /// assert!(big.is_continue(), "this file has no record that big");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`for_each_record`](Self::for_each_record).
    pub fn try_for_each_record<B>(
        &mut self,
        mut f: impl FnMut(RecordView<'_>) -> ControlFlow<B>,
    ) -> Result<ControlFlow<B>> {
        let LogFile {
            path,
            source,
            layout,
            buffers,
            scratch,
            inflated,
            ..
        } = self;
        let mut rest = &buffers[..];
        while !rest.is_empty() {
            let (run, after) = rest.split_at(run_len(rest));
            rest = after;
            let loaded = read_run(source, path, run, scratch)?;
            let loaded = &scratch[..loaded];
            for meta in run {
                let start = (meta.offset - run[0].offset) as usize;
                let raw = loaded.get(start..).unwrap_or_default();
                let mut cursor = Cursor::start(raw, start, meta, *layout, inflated, path)?;
                let bytes: &[u8] = if cursor.is_inflated() {
                    inflated
                } else {
                    loaded
                };
                while let Some(frame) = cursor.next(bytes) {
                    let frame = frame.map_err(|e| e.in_file(&*path))?;
                    if let ControlFlow::Break(b) = f(frame.view(cursor.ctx)) {
                        return Ok(ControlFlow::Break(b));
                    }
                }
            }
        }
        match self.damage_error() {
            Some(e) => Err(e),
            None => Ok(ControlFlow::Continue(())),
        }
    }

    /// Buffer 0 as a reader loads it.
    fn header_meta(&self) -> BufferMeta {
        BufferMeta {
            index: 0,
            offset: 0,
            stride: self.header_stride,
            load: self.header_end,
            compressed: false,
            processor: 0,
            sequence: 0,
            flush_timestamp: self.header.start_raw,
            records: self.header_records,
        }
    }

    fn damage_error(&self) -> Option<Error> {
        self.damage
            .as_ref()
            .map(|d| d.duplicate().in_file(&self.path))
    }
}

/// Records of one file in file order ([`LogFile::records`]).
pub struct FileRecords<'a> {
    file: &'a mut LogFile,
    /// The next buffer to start (an index into the file's `buffers`).
    next: usize,
    /// The loaded run: the end of its buffers in `buffers`, its first buffer's file
    /// offset, the bytes read.
    run_end: usize,
    run_first: u64,
    loaded: usize,
    cursor: Cursor,
    done: bool,
}

impl std::fmt::Debug for FileRecords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileRecords")
            .field("next_buffer", &self.next)
            .finish_non_exhaustive()
    }
}

impl FileRecords<'_> {
    /// Points the cursor at the next buffer, reading the next run of buffers when the
    /// loaded one is used up; `None` after the last buffer.
    fn advance(&mut self) -> Option<Result<()>> {
        let file = &mut *self.file;
        if self.next == self.run_end {
            let rest = file.buffers.get(self.next..).unwrap_or_default();
            let run = &rest[..run_len(rest)];
            let first = run.first()?.offset;
            match read_run(&mut file.source, &file.path, run, &mut file.scratch) {
                Ok(n) => self.loaded = n,
                Err(e) => return Some(Err(e)),
            }
            self.run_first = first;
            self.run_end = self.next + run.len();
        }
        let meta = file.buffers.get(self.next)?;
        self.next += 1;
        let start = (meta.offset - self.run_first) as usize;
        let raw = file.scratch[..self.loaded].get(start..).unwrap_or_default();
        Some(
            Cursor::start(
                raw,
                start,
                meta,
                file.layout,
                &mut file.inflated,
                &file.path,
            )
            .map(|c| self.cursor = c),
        )
    }
}

impl Iterator for FileRecords<'_> {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Result<Record>> {
        loop {
            let file = &*self.file;
            let bytes = if self.cursor.is_inflated() {
                &file.inflated[..]
            } else {
                &file.scratch[..self.loaded]
            };
            if let Some(frame) = self.cursor.next(bytes) {
                return Some(match frame {
                    Ok(frame) => Ok(frame.view(self.cursor.ctx).to_record()),
                    Err(e) => {
                        self.done = true;
                        Err(e.in_file(&file.path))
                    }
                });
            }
            if self.done {
                return None;
            }
            match self.advance() {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                None => {
                    self.done = true;
                    return self.file.damage_error().map(Err);
                }
            }
        }
    }
}

/// How a [`Reader`] presents records (`ProcessTraceMode`, CON-02).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// `PROCESS_TRACE_MODE_RAW_TIMESTAMP`: keep each file's raw clock values instead of
    /// converting them to FILETIME (SES-65).
    pub raw_timestamps: bool,
    /// Also deliver each file's buffer-0 records — the `EventTrace/Header` record first, as
    /// ProcessTrace does — merged by their timestamp (the session start).
    pub header_records: bool,
}

/// (merge time, file, buffer index in the file, record index in the buffer).
type Key = (i64, usize, u32, u32);

/// One CPU's buffers of one file, read in sequence order: one loaded buffer (its own,
/// reused) and the decoded record at its head.
struct Stream {
    file: usize,
    /// Indexes into the file's `buffers`, in delivery order; `None` = buffer 0.
    buffers: Vec<Option<usize>>,
    next: usize,
    /// The loaded buffer: `loaded` bytes of `bytes`.
    bytes: Vec<u8>,
    loaded: usize,
    cursor: Cursor,
    /// Index in the file and `TimeStamp` of the loaded buffer.
    index: u32,
    flush_timestamp: i64,
    /// Records of the loaded buffer taken so far.
    taken: u32,
    /// The stream's next record, decoded, and its merge key (also in the heap).
    head: Option<(Key, Record)>,
    last_raw: Option<i64>,
}

/// One or more `.etl` files merged oldest first (CON-03, CON-04), timestamps converted to
/// FILETIME unless [`ReadOptions::raw_timestamps`] (SES-65).
///
/// Yields `Ok(record)` for every record stored before each file's first damage, oldest
/// first, then one `Err` per damaged file (in the order the files were given), then ends.
/// Events come as the consumer API shows them: `EVENT_HEADER_FLAG_64_BIT_HEADER` (or
/// `32_BIT_HEADER`) is added to their flags.
pub struct Reader {
    files: Vec<LogFile>,
    options: ReadOptions,
    by_filetime: bool,
    streams: Vec<Stream>,
    heap: BinaryHeap<Reverse<(Key, usize)>>,
    errors: VecDeque<Error>,
    /// Where a compressed buffer is read before it is decompressed into its stream's
    /// buffer.
    raw: Vec<u8>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("files", &self.files)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Reader {
    /// Opens files for reading with default options (timestamps as FILETIME).
    ///
    /// # Errors
    /// As [`LogFile::open`] and [`Reader::new`].
    pub fn open<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Result<Reader> {
        Reader::open_with(paths, ReadOptions::default())
    }

    /// Opens files for reading with `options`.
    ///
    /// # Errors
    /// As [`LogFile::open`] and [`Reader::new`].
    pub fn open_with<P: AsRef<Path>>(
        paths: impl IntoIterator<Item = P>,
        options: ReadOptions,
    ) -> Result<Reader> {
        let files = paths
            .into_iter()
            .map(LogFile::open)
            .collect::<Result<Vec<_>>>()?;
        Reader::new(files, options)
    }

    /// Merges already opened files.
    ///
    /// # Errors
    /// [`Error::FileCount`] for no file or more than [`MAX_FILES`] (CON-03); with timestamp
    /// conversion on, [`Error::InFile`] for a file whose header cannot convert (unknown clock
    /// type, or a zero PerfFreq / CpuSpeedInMHz) — read it with raw timestamps instead.
    pub fn new(mut files: Vec<LogFile>, options: ReadOptions) -> Result<Reader> {
        if files.is_empty() || files.len() > MAX_FILES {
            return Err(Error::FileCount { count: files.len() });
        }
        let convertible = |f: &LogFile| f.header.to_filetime(f.header.start_raw).is_some();
        if !options.raw_timestamps {
            if let Some(f) = files.iter().find(|f| !convertible(f)) {
                let h = &f.header;
                return Err(Error::corrupt(
                    "TRACE_LOGFILE_HEADER",
                    LOGFILE_HEADER_OFFSET as u64,
                    format!(
                        "clock type {} with PerfFreq {} and CpuSpeedInMHz {} cannot convert \
                         timestamps; read with raw timestamps",
                        h.reserved_flags, h.perf_freq, h.cpu_speed_mhz
                    ),
                )
                .in_file(&f.path));
            }
        }
        let by_filetime = files.iter().all(convertible);
        let mut streams = Vec::new();
        let mut errors = VecDeque::new();
        for (fi, f) in files.iter_mut().enumerate() {
            // The file's buffer serves its first stream, which reads one buffer at a time.
            let mut scratch = std::mem::take(&mut f.scratch);
            scratch.truncate(f.header.buffer_size as usize);
            scratch.shrink_to_fit();
            let mut scratch = Some(scratch);
            let mut stream = |buffers| Stream::new(fi, buffers, scratch.take().unwrap_or_default());
            if options.header_records && f.header_records > 0 {
                streams.push(stream(vec![None]));
            }
            let mut by_cpu: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
            for (i, m) in f.buffers.iter().enumerate() {
                by_cpu.entry(m.processor).or_default().push(i);
            }
            for (_, mut list) in by_cpu {
                list.sort_by_key(|&i| (f.buffers[i].sequence, f.buffers[i].index));
                streams.push(stream(list.into_iter().map(Some).collect()));
            }
            errors.extend(f.damage_error());
        }
        let mut reader = Reader {
            files,
            options,
            by_filetime,
            streams,
            heap: BinaryHeap::new(),
            errors,
            raw: Vec::new(),
        };
        for s in 0..reader.streams.len() {
            reader.refill(s);
        }
        Ok(reader)
    }

    /// The files, in the order given.
    pub fn files(&self) -> &[LogFile] {
        &self.files
    }

    /// The files' logfile headers, in the order given.
    pub fn headers(&self) -> impl Iterator<Item = &LogfileHeader> {
        self.files.iter().map(LogFile::header)
    }

    /// Decodes the stream's next record — loading its next buffers as needed — straight
    /// from the stream's buffer, and puts its merge key in the heap; a stream with no
    /// record left stays out.
    fn refill(&mut self, s: usize) {
        let stream = &mut self.streams[s];
        let fi = stream.file;
        let file = &mut self.files[fi];
        loop {
            if let Some(frame) = stream.cursor.next(&stream.bytes[..stream.loaded]) {
                let frame = match frame {
                    Ok(f) => f,
                    Err(e) => {
                        self.errors.push_back(e.in_file(&file.path));
                        stream.buffers.clear();
                        return;
                    }
                };
                let mut r = frame.view(stream.cursor.ctx).to_record();
                let raw = r
                    .timestamp()
                    .or(stream.last_raw)
                    .unwrap_or(stream.flush_timestamp);
                stream.last_raw = Some(raw);
                let converted = match self.by_filetime || !self.options.raw_timestamps {
                    true => file.header.to_filetime(raw).unwrap_or(raw),
                    false => raw,
                };
                let merge = if self.by_filetime { converted } else { raw };
                if !self.options.raw_timestamps {
                    r.set_timestamp(converted);
                }
                if let Record::Event(e) = &mut r {
                    e.header.flags |=
                        if e.header.header_type == u16::from(header_type::EVENT_HEADER32) {
                            header_flags::HEADER_32_BIT
                        } else {
                            header_flags::HEADER_64_BIT
                        };
                }
                let key = (merge, fi, stream.index, stream.taken);
                stream.taken += 1;
                stream.head = Some((key, r));
                self.heap.push(Reverse((key, s)));
                return;
            }
            let Some(slot) = stream.buffers.get(stream.next).copied() else {
                return;
            };
            stream.next += 1;
            let meta = match slot {
                Some(i) => file.buffers[i],
                None => file.header_meta(),
            };
            // A compressed buffer is read into the reader's scratch and decompressed into
            // the stream's buffer; any other is read straight into the stream's buffer.
            let loaded = if meta.compressed {
                read_run(&mut file.source, &file.path, &[meta], &mut self.raw).and_then(|n| {
                    let raw = &self.raw[..n];
                    Cursor::start(raw, 0, &meta, file.layout, &mut stream.bytes, &file.path)
                        .map(|c| (c, c.used))
                })
            } else {
                read_run(&mut file.source, &file.path, &[meta], &mut stream.bytes).and_then(|n| {
                    let raw = &stream.bytes[..n];
                    Cursor::start(raw, 0, &meta, file.layout, &mut file.inflated, &file.path)
                        .map(|c| (c, n))
                })
            };
            match loaded {
                Ok((c, n)) => {
                    stream.loaded = n;
                    stream.cursor = c;
                    stream.index = meta.index;
                    stream.flush_timestamp = meta.flush_timestamp;
                    stream.taken = 0;
                }
                Err(e) => {
                    self.errors.push_back(e);
                    stream.buffers.clear();
                    return;
                }
            }
        }
    }
}

impl Stream {
    fn new(file: usize, buffers: Vec<Option<usize>>, bytes: Vec<u8>) -> Stream {
        Stream {
            file,
            buffers,
            next: 0,
            bytes,
            loaded: 0,
            cursor: Cursor::default(),
            index: 0,
            flush_timestamp: 0,
            taken: 0,
            head: None,
            last_raw: None,
        }
    }
}

/// Where a record came from, as [`Reader::next_positioned`] reports it: enough for
/// ProcessTrace to call each file's BufferCallback after the last event of each buffer
/// (CON-06).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecordPosition {
    /// The file's index, in the order the files were given.
    pub file: usize,
    /// The buffer's index in its file (0 is the header buffer).
    pub buffer: u32,
    /// Bytes of the buffer that hold records (`Filled`): the buffer header and every
    /// record up to the end of the last sound one.
    pub filled: u32,
    /// `true` when this record is the last one of its buffer: every event of the buffer
    /// has then been delivered.
    pub last_in_buffer: bool,
}

impl Reader {
    /// The next record with the index (in the order given) of the file it came from —
    /// what ProcessTrace needs to call each file's own callback.
    pub fn next_with_file(&mut self) -> Option<Result<(usize, Record)>> {
        self.next_positioned()
            .map(|r| r.map(|(pos, record)| (pos.file, record)))
    }

    /// The next record with its [`RecordPosition`]: its file, its buffer, and whether it is
    /// that buffer's last record.
    pub fn next_positioned(&mut self) -> Option<Result<(RecordPosition, Record)>> {
        let Some(Reverse((_, s))) = self.heap.pop() else {
            return self.errors.pop_front().map(Err);
        };
        let stream = &mut self.streams[s];
        let ((_, file, buffer, _), record) = stream.head.take()?;
        let filled = stream.loaded as u32;
        self.refill(s);
        let last_in_buffer = self.streams[s]
            .head
            .as_ref()
            .is_none_or(|((_, _, next, _), _)| *next != buffer);
        Some(Ok((
            RecordPosition {
                file,
                buffer,
                filled,
                last_in_buffer,
            },
            record,
        )))
    }
}

impl Iterator for Reader {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Result<Record>> {
        self.next_with_file().map(|r| r.map(|(_, record)| record))
    }
}
