//! Opening an `.etl` file for `dump` and `export`, and saying plainly what is wrong with one
//! that cannot be read whole: empty, too short, truncated (and where the file ends), or
//! damaged (and where).
//!
//! Records are read through [`Input::next`], which also moves the progress bar: one step
//! per buffer read, out of the buffers the file holds.

use crate::Failure;
use crate::fmt::{filetime_utc, io_reason};
use crate::progress::Progress;
use etwsim::etl::{self, LogFile, LogfileHeader, ReadOptions, Reader, Record};
use etwsim::record::BUFFER_HEADER_SIZE;
use std::io::Read;
use std::path::Path;

/// How the file's timestamps are shown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Clock {
    /// Converted to FILETIME: shown as UTC dates.
    FileTime,
    /// The header cannot convert: raw values.
    Raw,
}

impl Clock {
    /// A record's time for people: a UTC date, `raw N`, or `-` for none.
    pub(crate) fn show(self, ts: Option<i64>) -> String {
        match (self, ts) {
            (_, None) => "-".into(),
            (Clock::FileTime, Some(t)) => filetime_utc(t),
            (Clock::Raw, Some(t)) => format!("raw {t}"),
        }
    }
}

/// An open file, read oldest first.
pub(crate) struct Input {
    /// The logfile header (buffer 0).
    pub(crate) header: LogfileHeader,
    /// How timestamps come out of the reader.
    pub(crate) clock: Clock,
    /// The file's size in bytes.
    pub(crate) len: u64,
    reader: Reader,
    progress: Progress,
    /// Records handed out so far.
    pub(crate) records: u64,
}

/// Where reading stopped early, for the error line and the in-band error record.
#[derive(Clone, Debug)]
pub(crate) struct Damage {
    /// The sentence, without the file's name: "the file is truncated: …".
    pub(crate) message: String,
    /// The file offset the damage is at (for a truncated file, its end).
    pub(crate) offset: Option<u64>,
    /// Records read before it.
    pub(crate) records: u64,
}

impl Damage {
    /// The one error line for `path`, saying what became of the records before the damage
    /// (`done`: "printed", "exported").
    pub(crate) fn failure(&self, path: &Path, done: &str) -> Failure {
        let before = match self.records {
            0 => "no record could be read before it".to_string(),
            1 => format!("the 1 record before it was {done}"),
            n => format!("the {n} records before it were {done}"),
        };
        Failure::failed(format!(
            "cannot read {}: {}; {before}",
            path.display(),
            self.message
        ))
    }
}

/// `n` with its hex form: `17384 (0x43e8)`.
fn at(n: u64) -> String {
    format!("{n} ({n:#x})")
}

/// The most bytes read from something that is not a regular file (a pipe, a device): such
/// a stream has no size to check first, so it is read into memory, up to this.
pub(crate) const MAX_STREAM_BYTES: u64 = 1 << 30;

/// Reads a pipe or device that should hold an `.etl` file: its first buffer header must
/// give a BufferSize the format allows before anything more is read (so `/dev/zero` is
/// refused after 4 bytes), and at most [`MAX_STREAM_BYTES`] are read.
fn read_stream(path: &Path) -> Result<Vec<u8>, Failure> {
    let name = path.display();
    let fail =
        |e: std::io::Error| Failure::failed(format!("cannot read {name}: {}", io_reason(&e)));
    let mut f = std::fs::File::open(path).map_err(fail)?;
    let mut bytes = Vec::new();
    (&mut f).take(4).read_to_end(&mut bytes).map_err(fail)?;
    if bytes.is_empty() {
        return Err(Failure::failed(format!(
            "cannot read {name}: it is not a regular file, and nothing could be read from it"
        )));
    }
    let size = bytes.len() == 4
        && plausible_buffer_size(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
    if !size {
        return Err(Failure::failed(format!(
            "cannot read {name}: not an .etl file: it is not a regular file, and its first \
             bytes are no buffer size (an .etl file starts with one, a multiple of 8 from 1 KB \
             to 16 MB)"
        )));
    }
    f.take(MAX_STREAM_BYTES - 4)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() as u64 >= MAX_STREAM_BYTES {
        return Err(Failure::failed(format!(
            "cannot read {name}: it is not a regular file and holds more than the {} MiB read \
             from a pipe or device; save it to a file first",
            MAX_STREAM_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// Whether `size` is a BufferSize the format allows (a multiple of 8 in 1 KB..=16 MB).
fn plausible_buffer_size(size: u32) -> bool {
    size % 8 == 0 && (0x400..=0x100_0000).contains(&size)
}

impl Input {
    /// Opens `path`; `header_records` also delivers buffer 0's records (the EventTrace
    /// header first, as ProcessTrace does); `to_stdout`: the command writes its output to
    /// standard output (for the progress bar).
    pub(crate) fn open(
        path: &Path,
        header_records: bool,
        to_stdout: bool,
    ) -> Result<Input, Failure> {
        let name = path.display();
        if path.is_dir() {
            return Err(Failure::failed(format!(
                "cannot read {name}: it is a folder, not an .etl file"
            )));
        }
        let meta = std::fs::metadata(path)
            .map_err(|e| Failure::failed(format!("cannot read {name}: {}", io_reason(&e))))?;
        let (len, file) = if meta.is_file() {
            let len = meta.len();
            if len == 0 {
                return Err(Failure::failed(format!(
                    "cannot read {name}: the file is empty (0 bytes)"
                )));
            }
            (
                len,
                LogFile::open(path).map_err(|e| open_failure(path, len, &e))?,
            )
        } else {
            let bytes = read_stream(path)?;
            let len = bytes.len() as u64;
            let file = LogFile::from_bytes(path, bytes).map_err(|e| open_failure(path, len, &e))?;
            (len, file)
        };
        let header = file.header().clone();
        let clock = if header.to_filetime(header.start_raw).is_some() {
            Clock::FileTime
        } else {
            Clock::Raw
        };
        let total = file.buffer_count() as u64;
        let options = ReadOptions {
            raw_timestamps: clock == Clock::Raw,
            header_records,
        };
        let reader = Reader::new(vec![file], options).map_err(|e| open_failure(path, len, &e))?;
        Ok(Input {
            header,
            clock,
            len,
            reader,
            progress: Progress::new(total, to_stdout),
            records: 0,
        })
    }

    /// The next record, the damage that ends the file early, or `None` at its end.
    pub(crate) fn next(&mut self) -> Option<Result<Record, Damage>> {
        match self.reader.next_positioned()? {
            Ok((position, record)) => {
                self.records += 1;
                if position.last_in_buffer {
                    self.progress.step();
                }
                Some(Ok(record))
            }
            Err(e) => {
                self.progress.finish();
                Some(Err(self.damage(&e)))
            }
        }
    }

    /// Clears the progress bar (before the command prints its last lines).
    pub(crate) fn finish(&self) {
        self.progress.finish();
    }

    /// What a reader error means for this file.
    fn damage(&self, e: &etl::Error) -> Damage {
        let stride = u64::from(self.header.buffer_size);
        let records = self.records;
        match inner_error(e) {
            etl::Error::Truncated {
                what,
                offset,
                needed,
                available,
            } if offset.saturating_add(*needed) > self.len => {
                let message = if *what == "the buffers BuffersWritten counts" {
                    format!(
                        "the file is truncated: it ends at byte {} after {} whole buffers of {} \
                         bytes, but its header counts {} written (BuffersWritten)",
                        at(self.len),
                        self.len / stride.max(1),
                        stride,
                        self.header.buffers_written
                    )
                } else {
                    format!(
                        "the file is truncated: it ends at byte {}, {available} bytes into buffer \
                         {} (buffers are {stride} bytes; this one starts at {offset:#x})",
                        at(self.len),
                        offset / stride.max(1),
                    )
                };
                Damage {
                    message,
                    offset: Some(self.len),
                    records,
                }
            }
            inner => Damage {
                message: format!("the file is damaged: {}", reason(inner)),
                offset: e.offset(),
                records,
            },
        }
    }
}

/// The innermost error: without the file's name (the caller says it).
fn inner_error(e: &etl::Error) -> &etl::Error {
    match e {
        etl::Error::InFile { error, .. } => inner_error(error),
        e => e,
    }
}

/// An error as a phrase, I/O errors without their "(os error N)" tail.
fn reason(e: &etl::Error) -> String {
    match inner_error(e) {
        etl::Error::Io { error, .. } => io_reason(error),
        e => e.to_string(),
    }
}

/// Why a file could not be opened, as one line.
fn open_failure(path: &Path, len: u64, e: &etl::Error) -> Failure {
    let name = path.display();
    if let etl::Error::Io { error, .. } = e {
        return Failure::failed(format!("cannot read {name}: {}", io_reason(error)));
    }
    // A file shorter than its first buffer: truncated if what is there starts like an .etl
    // file (a plausible BufferSize), else not one at all.
    let buffer_size = std::fs::File::open(path)
        .and_then(|mut f| {
            let mut size = [0u8; 4];
            f.read_exact(&mut size).map(|()| u32::from_le_bytes(size))
        })
        .ok()
        .filter(|&s| plausible_buffer_size(s));
    match buffer_size {
        Some(size) if len < u64::from(size) => Failure::failed(format!(
            "cannot read {name}: the file is truncated: it ends at byte {}, inside its first \
             buffer (the header buffer, {size} bytes)",
            at(len)
        )),
        _ if len < BUFFER_HEADER_SIZE as u64 => Failure::failed(format!(
            "cannot read {name}: not an .etl file: {len} bytes, fewer than the \
             {BUFFER_HEADER_SIZE} of a buffer header"
        )),
        _ => Failure::failed(format!(
            "cannot read {name}: not a valid .etl file ({})",
            reason(e)
        )),
    }
}
