//! Reading `.etl` files: one file in file order ([`LogFile`]), or one or more files merged
//! oldest first ([`Reader`]) as ProcessTrace delivers them (CON-02…CON-04, SES-65; format
//! reference §2, §8, §9).
//!
//! Opening a file reads buffer 0 (the logfile header, format reference §3) and then checks
//! every buffer once — its `WMI_BUFFER_HEADER` and the chain of records in its used bytes
//! (§2, §4, §7) — remembering, per buffer, its CPU, sequence number and how many records
//! are sound. Reading then decodes one buffer at a time, so memory stays at one buffer per
//! CPU stream whatever the file's size. The first damage found (a truncated last buffer, a
//! bad buffer header, an undecodable record, fewer buffers than the header's
//! `BuffersWritten`) ends the file: every record stored before it is delivered, then the
//! damage as an error. A buffer whose header is all zeros ends the file quietly — that is
//! the unused tail of a preallocated file (SES-36) — unless `BuffersWritten` counts more.
//! A file with more buffers than `BuffersWritten` is read whole: its writer never closed it.
//!
//! The merge: each CPU's buffers form one stream, ordered by `SequenceNumber` (which also
//! puts a wrapped circular file back in time order, BUF-10), and the streams of all files
//! are merged by timestamp with a heap. Ties keep file order: earlier file, then earlier
//! buffer in the file, then earlier record in the buffer. Timestamps are compared as
//! FILETIME whenever every file's header can convert them, so files of different sessions
//! interleave correctly; a record without a timestamp (a WPP message without the TIMESTAMP
//! option) sorts with the record before it.

use crate::buffer::{check_header, walk};
use crate::bytes::Bytes;
use crate::error::{Error, Result};
use crate::header::{LOGFILE_HEADER_OFFSET, LogfileHeader};
use crate::record::Record;
use etwsim_types::record::{BUFFER_HEADER_SIZE, header_flags, header_type};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The most files one [`Reader`] takes, as ProcessTrace (CON-03).
pub const MAX_FILES: usize = 64;

trait Source: Send {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
}

impl Source for File {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.seek(SeekFrom::Start(offset))?;
        self.read_exact(buf)
    }
}

struct Memory(Vec<u8>);

impl Source for Memory {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let src = usize::try_from(offset)
            .ok()
            .and_then(|o| self.0.get(o..o.checked_add(buf.len())?))
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

/// What the scan learned about one readable data buffer.
#[derive(Copy, Clone, Debug)]
struct BufferMeta {
    /// Position in the file (buffer 0 is the header buffer).
    index: u32,
    processor: u16,
    sequence: i64,
    /// `TimeStamp` of the buffer: stands in for a first record without one.
    flush_timestamp: i64,
    /// Sound records at the start of the buffer.
    records: u32,
}

/// One opened `.etl` file: its logfile header, and its records in file order.
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
    source: Box<dyn Source>,
    header: LogfileHeader,
    header_records: u32,
    buffers: Vec<BufferMeta>,
    damage: Option<Error>,
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

impl LogFile {
    /// Opens and checks a file.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::InFile`] wrapping the problem
    /// when buffer 0 or its logfile header is unusable. Damage further on does not fail the
    /// open: see [`damage`](Self::damage).
    pub fn open(path: impl AsRef<Path>) -> Result<LogFile> {
        let path = path.as_ref();
        let mut f = File::open(path).map_err(|e| Error::io("opening", path, e))?;
        let len = f
            .metadata()
            .map_err(|e| Error::io("reading the size of", path, e))?
            .len();
        let _ = f.rewind();
        LogFile::scan(path.to_path_buf(), Box::new(f), len)
    }

    /// Reads a file's bytes from memory; `label` names it in errors.
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn from_bytes(label: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<LogFile> {
        let len = bytes.len() as u64;
        LogFile::scan(label.into(), Box::new(Memory(bytes)), len)
    }

    fn scan(path: PathBuf, mut source: Box<dyn Source>, len: u64) -> Result<LogFile> {
        let in_file = |e: Error| e.in_file(&path);
        let read = |source: &mut Box<dyn Source>, at: u64, buf: &mut [u8], what: &str| {
            source
                .read_at(at, buf)
                .map_err(|e| Error::io(format!("reading {what} at offset {at:#x} of"), &path, e))
        };
        if len < BUFFER_HEADER_SIZE as u64 {
            return Err(in_file(Error::truncated(
                "buffer 0 (WMI_BUFFER_HEADER)",
                0,
                BUFFER_HEADER_SIZE as u64,
                len,
            )));
        }
        let mut head = [0u8; BUFFER_HEADER_SIZE];
        read(&mut source, 0, &mut head, "buffer 0")?;
        let size = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        crate::header::check_buffer_size(size).map_err(|_| {
            in_file(Error::corrupt(
                "buffer 0 (WMI_BUFFER_HEADER)",
                0,
                format!("BufferSize {size:#x} is not a multiple of 8 in 0x400..=0x1000000"),
            ))
        })?;
        let stride = u64::from(size);
        // Never more than the file holds: a lying BufferSize cannot make us allocate.
        let mut buf = vec![0u8; stride.min(len) as usize];
        read(&mut source, 0, &mut buf, "buffer 0")?;
        let header = LogfileHeader::decode_buffer(&buf, 0).map_err(in_file)?;
        let mut file = LogFile {
            path: path.clone(),
            source,
            header,
            header_records: 0,
            buffers: Vec::new(),
            damage: None,
        };
        if len < stride {
            file.damage = Some(Error::truncated("buffer 0", 0, stride, len));
            return Ok(file);
        }
        let h0 = check_header(Bytes::new(&buf, 0), size).map_err(in_file)?;
        let mut n = 0u32;
        if let Some(e) = walk(Bytes::new(&buf, 0), &h0, |_| n += 1) {
            file.header_records = n;
            file.damage = Some(e);
            return Ok(file);
        }
        file.header_records = n;
        let count = len / stride;
        let mut stop = count;
        for index in 1..count {
            let at = index * stride;
            read(&mut file.source, at, &mut buf, "a buffer")?;
            if buf[..BUFFER_HEADER_SIZE].iter().all(|&b| b == 0) {
                stop = index; // preallocated space never written (SES-36)
                break;
            }
            let b = Bytes::new(&buf, at);
            let h = match check_header(b, size) {
                Ok(h) => h,
                Err(e) => {
                    file.damage = Some(e);
                    return Ok(file);
                }
            };
            let mut n = 0u32;
            let damage = walk(b, &h, |_| n += 1);
            if n > 0 {
                file.buffers.push(BufferMeta {
                    index: index as u32,
                    processor: h.processor,
                    sequence: h.sequence,
                    flush_timestamp: h.timestamp,
                    records: n,
                });
            }
            if damage.is_some() {
                file.damage = damage;
                return Ok(file);
            }
        }
        let tail = len % stride;
        if tail != 0 && stop == count {
            let at = count * stride;
            file.damage = Some(Error::truncated("the last buffer", at, stride, len - at));
        } else if stop < u64::from(file.header.buffers_written) {
            // Whole buffers, but fewer than the header (rewritten at close) counts.
            let at = stop * stride;
            file.damage = Some(Error::truncated(
                "the buffers BuffersWritten counts",
                at,
                (u64::from(file.header.buffers_written) - stop) * stride,
                len - at,
            ));
        }
        Ok(file)
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
        let meta = BufferMeta {
            index: 0,
            processor: 0,
            sequence: 0,
            flush_timestamp: 0,
            records: self.header_records,
        };
        self.load(&meta)
    }

    /// Every record of the data buffers (1, 2, …) in file order, exactly as stored (raw
    /// timestamps, on-disk flags); then the [`damage`](Self::damage), if any, as the last
    /// item. This is the order the third-party parsers report.
    pub fn records(&mut self) -> FileRecords<'_> {
        FileRecords {
            file: self,
            next: 0,
            pending: VecDeque::new(),
            done: false,
        }
    }

    fn load(&mut self, meta: &BufferMeta) -> Result<Vec<Record>> {
        let size = self.header.buffer_size;
        let at = u64::from(meta.index) * u64::from(size);
        let mut buf = vec![0u8; size as usize];
        self.source.read_at(at, &mut buf).map_err(|e| {
            Error::io(
                format!("reading buffer {} at offset {at:#x} of", meta.index),
                &self.path,
                e,
            )
        })?;
        let b = Bytes::new(&buf, at);
        let h = check_header(b, size).map_err(|e| e.in_file(&self.path))?;
        let mut out = Vec::with_capacity(meta.records as usize);
        let limit = meta.records as usize;
        let damage = walk(b, &h, |r| {
            if out.len() < limit {
                out.push(r);
            }
        });
        if out.len() < limit {
            // The file changed since it was checked.
            return Err(damage
                .unwrap_or_else(|| {
                    Error::corrupt("buffer", at, "fewer records than when the file was opened")
                })
                .in_file(&self.path));
        }
        Ok(out)
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
    next: usize,
    pending: VecDeque<Record>,
    done: bool,
}

impl std::fmt::Debug for FileRecords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileRecords")
            .field("next_buffer", &self.next)
            .finish_non_exhaustive()
    }
}

impl Iterator for FileRecords<'_> {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Result<Record>> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                return Some(Ok(r));
            }
            if self.done {
                return None;
            }
            let Some(meta) = self.file.buffers.get(self.next).copied() else {
                self.done = true;
                return self.file.damage_error().map(Err);
            };
            self.next += 1;
            match self.file.load(&meta) {
                Ok(v) => self.pending.extend(v),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
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

struct Stream {
    file: usize,
    /// Indexes into the file's `buffers`, in delivery order; `None` = buffer 0.
    buffers: Vec<Option<usize>>,
    next: usize,
    pending: VecDeque<(Key, Record)>,
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
    pub fn new(files: Vec<LogFile>, options: ReadOptions) -> Result<Reader> {
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
        for (fi, f) in files.iter().enumerate() {
            if options.header_records && f.header_records > 0 {
                streams.push(Stream::new(fi, vec![None]));
            }
            let mut by_cpu: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
            for (i, m) in f.buffers.iter().enumerate() {
                by_cpu.entry(m.processor).or_default().push(i);
            }
            for (_, mut list) in by_cpu {
                list.sort_by_key(|&i| (f.buffers[i].sequence, f.buffers[i].index));
                streams.push(Stream::new(fi, list.into_iter().map(Some).collect()));
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

    /// Loads the stream's next buffers until it has a record, and puts its head in the heap.
    fn refill(&mut self, s: usize) {
        while self.streams[s].pending.is_empty() {
            let stream = &mut self.streams[s];
            let Some(slot) = stream.buffers.get(stream.next).copied() else {
                return;
            };
            stream.next += 1;
            let fi = stream.file;
            let file = &mut self.files[fi];
            let meta = match slot {
                Some(i) => file.buffers[i],
                None => BufferMeta {
                    index: 0,
                    processor: 0,
                    sequence: 0,
                    flush_timestamp: file.header.start_raw,
                    records: file.header_records,
                },
            };
            let records = match file.load(&meta) {
                Ok(v) => v,
                Err(e) => {
                    self.errors.push_back(e);
                    self.streams[s].buffers.clear();
                    return;
                }
            };
            let header = &file.header;
            let stream = &mut self.streams[s];
            for (ri, mut r) in records.into_iter().enumerate() {
                let raw = r
                    .timestamp()
                    .or(stream.last_raw)
                    .unwrap_or(meta.flush_timestamp);
                stream.last_raw = Some(raw);
                let filetime = header.to_filetime(raw);
                let merge = if self.by_filetime {
                    filetime.unwrap_or(raw)
                } else {
                    raw
                };
                if !self.options.raw_timestamps {
                    r.set_timestamp(filetime.unwrap_or(raw));
                }
                if let Record::Event(e) = &mut r {
                    e.header.flags |=
                        if e.header.header_type == u16::from(header_type::EVENT_HEADER32) {
                            header_flags::HEADER_32_BIT
                        } else {
                            header_flags::HEADER_64_BIT
                        };
                }
                stream
                    .pending
                    .push_back(((merge, fi, meta.index, ri as u32), r));
            }
        }
        if let Some((key, _)) = self.streams[s].pending.front() {
            self.heap.push(Reverse((*key, s)));
        }
    }
}

impl Stream {
    fn new(file: usize, buffers: Vec<Option<usize>>) -> Stream {
        Stream {
            file,
            buffers,
            next: 0,
            pending: VecDeque::new(),
            last_raw: None,
        }
    }
}

impl Reader {
    /// The next record with the index (in the order given) of the file it came from —
    /// what ProcessTrace needs to call each file's own callback.
    pub fn next_with_file(&mut self) -> Option<Result<(usize, Record)>> {
        let Some(Reverse((_, s))) = self.heap.pop() else {
            return self.errors.pop_front().map(Err);
        };
        let file = self.streams[s].file;
        let (_, record) = self.streams[s].pending.pop_front()?;
        self.refill(s);
        Some(Ok((file, record)))
    }
}

impl Iterator for Reader {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Result<Record>> {
        self.next_with_file().map(|r| r.map(|(_, record)| record))
    }
}
