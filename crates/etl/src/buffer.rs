//! Data buffers: checking and walking a `WMI_BUFFER_HEADER` and its records, and building
//! buffers (format reference §2, §7; BUF-15, BUF-16).
//!
//! A buffer is exactly `BufferSize` bytes: the 0x48-byte header, records each starting
//! 8-byte aligned, and an unused tail. The used length (header + records, pads included)
//! is in `SavedOffset` (0x04, what etl-parser reads), `CurrentOffset` (0x08) and `Offset`
//! (0x30, what dissect.etl and Windows' `FilledBytes` read); this crate reads `Offset`.
//! [`BufferBuilder`] makes buffers the way the kernel's logger does — for tests, examples
//! and tools that produce `.etl` files without running a session.
//!
//! Compressed buffers (`BufferFlag` 0x40) are checked and decompressed here too; the
//! layout of compressed files, and where it was found, is in the crate's docs.

use crate::bytes::Bytes;
use crate::error::{Error, Result};
use crate::header::{MAX_BUFFER_SIZE, check_buffer_size};
use crate::record::Record;
use crate::view::{Frame, frame};
use etwsim_types::BufferContext;
use etwsim_types::record::{BUFFER_HEADER_SIZE, BufferHeader, align8, buffer_flags, buffer_type};

/// How a file lays out its buffers: what [`check_header`] holds each buffer to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileLayout {
    /// The session's `BufferSize` (`TRACE_LOGFILE_HEADER.BufferSize`).
    pub(crate) buffer_size: u32,
    /// `LogFileMode` has `EVENT_TRACE_COMPRESSED_MODE`: buffers are packed one after the
    /// other, each as long as its own `BufferSize` (compressed buffers, and uncompressed
    /// ones trimmed to their used bytes, buffer 0 included). Otherwise every uncompressed
    /// buffer is exactly the session's `BufferSize`.
    pub(crate) packed: bool,
}

impl FileLayout {
    /// A layout where every buffer is `buffer_size` bytes (compressed buffers aside).
    pub(crate) fn fixed(buffer_size: u32) -> FileLayout {
        FileLayout {
            buffer_size,
            packed: false,
        }
    }
}

/// Checks the header of the buffer at the start of `b` (`b.base` = its file offset) and
/// returns it; its `BufferSize` is the buffer's length in the file (its stride), its
/// `used` the bytes of header and records once decompressed.
///
/// Every buffer: `Offset` (bytes used) in 0x48..=the session's `BufferSize`. A compressed
/// buffer (`BufferFlag` 0x40): `BufferSize` in 0x48..=the session's. An uncompressed one:
/// `BufferSize` = the session's, or in a packed layout anywhere from `Offset` up to it.
pub(crate) fn check_header(b: Bytes<'_>, layout: FileLayout) -> Result<BufferHeader> {
    let raw = b.slice(0, BUFFER_HEADER_SIZE, "WMI_BUFFER_HEADER")?;
    let h = BufferHeader::decode(raw).ok_or_else(|| {
        Error::truncated(
            "WMI_BUFFER_HEADER",
            b.offset(0),
            BUFFER_HEADER_SIZE as u64,
            b.len() as u64,
        )
    })?;
    let session = layout.buffer_size;
    let corrupt = |problem: String| Error::corrupt("WMI_BUFFER_HEADER", b.offset(0), problem);
    let compressed = h.flags & buffer_flags::COMPRESSED != 0;
    if !compressed && !layout.packed && h.buffer_size != session {
        return Err(corrupt(format!(
            "BufferSize {:#x} differs from the file's {session:#x}",
            h.buffer_size
        )));
    }
    if (h.used as usize) < BUFFER_HEADER_SIZE || h.used > session {
        return Err(corrupt(format!(
            "Offset (bytes used) {:#x} outside 0x48..={session:#x}",
            h.used
        )));
    }
    if compressed && ((h.buffer_size as usize) < BUFFER_HEADER_SIZE || h.buffer_size > session) {
        return Err(corrupt(format!(
            "BufferSize {:#x} of a compressed buffer is outside 0x48..={session:#x}",
            h.buffer_size
        )));
    }
    if !compressed && (h.buffer_size < h.used || h.buffer_size > session) {
        return Err(corrupt(format!(
            "BufferSize {:#x} outside Offset {:#x}..={session:#x}",
            h.buffer_size, h.used
        )));
    }
    Ok(h)
}

/// `true` for a compressed buffer.
pub(crate) fn is_compressed(h: &BufferHeader) -> bool {
    h.flags & buffer_flags::COMPRESSED != 0
}

/// The name of a buffer in messages: "buffer 7" when its index in the file is known.
fn name(index: Option<u32>) -> String {
    match index {
        Some(i) => format!("buffer {i}"),
        None => "the buffer".to_owned(),
    }
}

/// An error of the LZXpress stream or of the decompressed records, told relative to `place`.
fn told(e: &Error, place: &str) -> String {
    match e {
        Error::Truncated {
            what,
            offset,
            needed,
            available,
        } => format!(
            "{what} at offset {offset:#x} of {place}: needs {needed} bytes, only {available} left"
        ),
        Error::Corrupt {
            what,
            offset,
            problem,
        } => format!("{what} at offset {offset:#x} of {place}: {problem}"),
        e => e.to_string(),
    }
}

/// Record damage found in the decompressed bytes of compressed buffer `index` at file
/// offset `base`: one error naming the buffer, at the buffer's offset, that tells where in
/// the decompressed bytes (header included) the damage is.
pub(crate) fn in_decompressed(e: &Error, index: Option<u32>, base: u64) -> Error {
    Error::corrupt(
        "compressed buffer",
        base,
        format!(
            "{} at offset {base:#x}: {}",
            name(index),
            told(e, "its decompressed bytes")
        ),
    )
}

/// Decompresses the checked compressed buffer `raw` (at least its `BufferSize` bytes, at
/// file offset `base`; `index` names it in errors) into `out`: its header, then its records,
/// exactly `Offset` bytes in all.
///
/// # Errors
/// [`Error::Corrupt`] "compressed buffer" when the stream is damaged — at the file offset
/// of the symbol at fault — or decompresses to another length than `Offset` says.
pub(crate) fn inflate(
    raw: &[u8],
    h: &BufferHeader,
    base: u64,
    index: Option<u32>,
    out: &mut Vec<u8>,
) -> Result<()> {
    let stride = h.buffer_size as usize;
    let payload = raw.get(BUFFER_HEADER_SIZE..stride).ok_or_else(|| {
        Error::truncated("compressed buffer", base, stride as u64, raw.len() as u64)
    })?;
    out.clear();
    out.extend_from_slice(&raw[..BUFFER_HEADER_SIZE]);
    let want = h.used as usize - BUFFER_HEADER_SIZE;
    if let Err(e) = crate::lzxpress::decompress_append(payload, want, out) {
        let at = base + BUFFER_HEADER_SIZE as u64 + e.offset().unwrap_or(0);
        return Err(Error::corrupt(
            "compressed buffer",
            at,
            format!(
                "{} at offset {base:#x} does not decompress: {}",
                name(index),
                told(&e, "its compressed bytes")
            ),
        ));
    }
    let got = out.len() - BUFFER_HEADER_SIZE;
    if got != want {
        return Err(Error::corrupt(
            "compressed buffer",
            base,
            format!(
                "{} at offset {base:#x} decompresses to {got:#x} bytes of records; its \
                 Offset says {want:#x}",
                name(index)
            ),
        ));
    }
    Ok(())
}

/// The context every record of a buffer gets from its header (EVT-23).
pub(crate) fn context(h: &BufferHeader) -> BufferContext {
    BufferContext {
        processor_index: h.processor,
        logger_id: h.logger_id,
    }
}

/// Frames the records of a checked buffer in buffer order, stopping at the end marker, the
/// end of its used bytes or the first damage. Each sound record is handed to `each` with
/// its offset in the buffer; returns the damage, if any. Reads only the record headers and
/// allocates nothing unless there is damage to report.
pub(crate) fn walk<'a>(
    b: Bytes<'a>,
    h: &BufferHeader,
    mut each: impl FnMut(usize, Frame<'a>),
) -> Option<Error> {
    let used = h.used as usize;
    if b.len() < used {
        return Some(Error::truncated(
            "buffer records",
            b.offset(0),
            used as u64,
            b.len() as u64,
        ));
    }
    let region = b.head(used);
    let mut at = BUFFER_HEADER_SIZE;
    while at < used {
        match frame(region.tail(at)) {
            Ok(Some(f)) => {
                each(at, f);
                at += f.used;
            }
            Ok(None) => break,
            Err(e) => return Some(e),
        }
    }
    None
}

/// One decoded buffer.
#[derive(Debug)]
pub struct DecodedBuffer {
    /// Its `WMI_BUFFER_HEADER`.
    pub header: BufferHeader,
    /// Its records in buffer order, up to the damage if there is any.
    pub records: Vec<Record>,
    /// What stopped the walk early, if anything did.
    pub damage: Option<Error>,
}

/// Decodes one whole buffer — `BufferSize` bytes as in a file, compressed
/// (`BufferFlag` 0x40, decompressed here) or not; `file_offset` is where it starts in its
/// file (0 if unknown), used in error messages. Never panics.
///
/// # Errors
/// [`Error::Truncated`] / [`Error::Corrupt`] when the buffer header itself is unusable
/// (shorter than 0x48 bytes, a used length outside the buffer) or a compressed buffer does
/// not decompress. Damage among the records is returned in [`DecodedBuffer::damage`] with
/// the records before it.
pub fn decode_buffer(buffer: &[u8], file_offset: u64) -> Result<DecodedBuffer> {
    let b = Bytes::new(buffer, file_offset);
    let size = b.u32(0, "WMI_BUFFER_HEADER BufferSize")?;
    let flags = b.u16(0x34, "WMI_BUFFER_HEADER BufferFlag")?;
    let layout = if flags & buffer_flags::COMPRESSED != 0 {
        // The uncompressed size is only bounded by the largest buffer there is.
        FileLayout {
            buffer_size: MAX_BUFFER_SIZE,
            packed: true,
        }
    } else {
        FileLayout::fixed(size)
    };
    let header = check_header(b, layout)?;
    let ctx = context(&header);
    let mut records = Vec::new();
    let damage = if is_compressed(&header) {
        let mut inflated = Vec::new();
        inflate(buffer, &header, file_offset, None, &mut inflated)?;
        walk(Bytes::new(&inflated, 0), &header, |_, f| {
            records.push(f.view(ctx).to_record());
        })
        .map(|e| in_decompressed(&e, None, file_offset))
    } else {
        walk(b, &header, |_, f| records.push(f.view(ctx).to_record()))
    };
    Ok(DecodedBuffer {
        header,
        records,
        damage,
    })
}

/// Builds one data buffer record by record, as a session's per-CPU buffer fills.
///
/// ```
/// use etwsim_etl::{BufferBuilder, Record, decode_buffer};
/// use etwsim_types::{EventDescriptor, EventHeader, EventRecord, Guid, Keyword, Level};
///
/// let mut b = BufferBuilder::new(8192, 1).unwrap();
/// let event = EventRecord {
///     header: EventHeader {
///         timestamp: 100,
///         provider_id: Guid::RT_LOST_EVENT,
///         descriptor: EventDescriptor::new(1, Level::INFORMATION, Keyword(0)),
///         ..EventHeader::default()
///     },
///     user_data: b"hi".to_vec(),
///     ..EventRecord::default()
/// };
/// assert!(b.push(&Record::Event(event)).unwrap());
/// let bytes = b.finish(1, 100, 0);
/// assert_eq!(bytes.len(), 8192);
/// let back = decode_buffer(&bytes, 0).unwrap();
/// assert_eq!(back.records.len(), 1);
/// assert_eq!(back.header.processor, 1);
/// ```
#[derive(Clone, Debug)]
pub struct BufferBuilder {
    size: u32,
    processor: u16,
    logger_id: u16,
    data: Vec<u8>,
    records: usize,
}

impl BufferBuilder {
    /// An empty buffer of `buffer_size` bytes for CPU `processor`.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a size outside 1 KiB..=16 MiB or not a multiple of 8.
    pub fn new(buffer_size: u32, processor: u16) -> Result<BufferBuilder> {
        check_buffer_size(buffer_size)?;
        Ok(BufferBuilder {
            size: buffer_size,
            processor,
            logger_id: 0,
            data: Vec::new(),
            records: 0,
        })
    }

    /// Sets `ClientContext.LoggerId`.
    pub fn with_logger_id(mut self, logger_id: u16) -> BufferBuilder {
        self.logger_id = logger_id;
        self
    }

    /// The CPU this buffer belongs to.
    pub fn processor(&self) -> u16 {
        self.processor
    }

    /// Records added since the last [`finish`](Self::finish).
    pub fn record_count(&self) -> usize {
        self.records
    }

    /// `true` when no record was added since the last [`finish`](Self::finish).
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Bytes still free for records (pads included).
    pub fn remaining(&self) -> usize {
        self.size as usize - BUFFER_HEADER_SIZE - self.data.len()
    }

    /// Encodes and adds a record. `Ok(false)`: it does not fit in what is left — finish
    /// this buffer and add it to the next one.
    ///
    /// # Errors
    /// The record's encoding errors, and [`Error::RecordTooLarge`] when it could not fit even
    /// in an empty buffer.
    pub fn push(&mut self, record: &Record) -> Result<bool> {
        let bytes = record.encode()?;
        self.push_encoded(&bytes)
    }

    /// Adds an already encoded record (`Size` bytes; the pad is added here).
    ///
    /// # Errors
    /// [`Error::RecordTooLarge`] when it could not fit even in an empty buffer;
    /// [`Error::InvalidOption`] for fewer than 8 bytes.
    pub fn push_encoded(&mut self, bytes: &[u8]) -> Result<bool> {
        if bytes.len() < 8 {
            return Err(Error::InvalidOption(format!(
                "a {}-byte record (every record has an 8-byte marker)",
                bytes.len()
            )));
        }
        let padded = align8(bytes.len());
        let max = self.size as usize - BUFFER_HEADER_SIZE;
        if padded > max {
            return Err(Error::RecordTooLarge {
                size: bytes.len(),
                max,
            });
        }
        if padded > self.remaining() {
            return Ok(false);
        }
        self.data.extend_from_slice(bytes);
        self.data.resize(self.data.len() + padded - bytes.len(), 0);
        self.records += 1;
        Ok(true)
    }

    /// The finished buffer: the header filled in (`SequenceNumber` = `sequence`,
    /// `TimeStamp` = `flush_timestamp`, which should be ≥ its records' timestamps,
    /// `BufferFlag` = `flags | PROC_INDEX`, BufferType GENERIC), the tail set to 0xFF as
    /// Windows does. The builder is empty again afterwards.
    pub fn finish(&mut self, sequence: i64, flush_timestamp: i64, flags: u16) -> Vec<u8> {
        let used = BUFFER_HEADER_SIZE + self.data.len();
        let h = BufferHeader {
            buffer_size: self.size,
            used: used as u32,
            timestamp: flush_timestamp,
            sequence,
            processor: self.processor,
            logger_id: self.logger_id,
            flags: flags | buffer_flags::PROC_INDEX,
            buffer_type: buffer_type::GENERIC,
        };
        let mut out = Vec::with_capacity(self.size as usize);
        out.extend_from_slice(&h.encode());
        out.append(&mut self.data);
        out.resize(self.size as usize, 0xFF);
        self.records = 0;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::TraceRecord;
    use etwsim_types::record::header_type;

    #[test]
    fn builder_fills_until_full_and_keeps_alignment() {
        // rule: BUF-15
        let mut b = BufferBuilder::new(1024, 3).unwrap().with_logger_id(7);
        let rec = Record::Trace(TraceRecord {
            header_type: header_type::PERFINFO64,
            version: 2,
            hook_id: 0x0F2E,
            timestamp: Some(1),
            payload: vec![1, 2, 3],
            ..TraceRecord::default()
        });
        let mut n = 0;
        while b.push(&rec).unwrap() {
            n += 1;
        }
        assert_eq!(n, (1024 - 0x48) / 24);
        let bytes = b.finish(5, 9, buffer_flags::FLUSH_MARKER);
        assert!(b.is_empty());
        let d = decode_buffer(&bytes, 0x400).unwrap();
        assert!(d.damage.is_none());
        assert_eq!(d.records.len(), n);
        assert_eq!(d.header.used as usize % 8, 0);
        assert_eq!(&bytes[4..8], &bytes[0x30..0x34]);
        assert_eq!(
            d.header.flags,
            buffer_flags::FLUSH_MARKER | buffer_flags::PROC_INDEX
        );
        assert_eq!(d.records[0].buffer_context().logger_id, 7);
        assert!(matches!(
            b.push_encoded(&vec![0; 2000]),
            Err(Error::RecordTooLarge { .. })
        ));
    }

    #[test]
    fn damage_keeps_the_records_before_it() {
        let mut b = BufferBuilder::new(1024, 0).unwrap();
        let rec = Record::Trace(TraceRecord {
            header_type: header_type::PERFINFO64,
            version: 2,
            timestamp: Some(1),
            ..TraceRecord::default()
        });
        for _ in 0..3 {
            assert!(b.push(&rec).unwrap());
        }
        let mut bytes = b.finish(1, 1, 0);
        bytes[0x48 + 2 * 16 + 3] = 0x12; // third record's marker flags
        let d = decode_buffer(&bytes, 0x2000).unwrap();
        assert_eq!(d.records.len(), 2);
        assert_eq!(d.damage.unwrap().offset(), Some(0x2000 + 0x48 + 32));
        bytes[0x30] = 0x10; // Offset below the header
        assert!(decode_buffer(&bytes, 0).is_err());
        assert!(decode_buffer(&bytes[..20], 0).is_err());
    }
}
