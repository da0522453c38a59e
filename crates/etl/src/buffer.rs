//! Data buffers: checking and walking a `WMI_BUFFER_HEADER` and its records, and building
//! buffers (format reference §2, §7; BUF-15, BUF-16).
//!
//! A buffer is exactly `BufferSize` bytes: the 0x48-byte header, records each starting
//! 8-byte aligned, and an unused tail. The used length (header + records, pads included)
//! is in `SavedOffset` (0x04, what etl-parser reads), `CurrentOffset` (0x08) and `Offset`
//! (0x30, what dissect.etl and Windows' `FilledBytes` read); this crate reads `Offset`.
//! [`BufferBuilder`] makes buffers the way the kernel's logger does — for tests, examples
//! and tools that produce `.etl` files without running a session.

use crate::bytes::Bytes;
use crate::error::{Error, Result};
use crate::header::check_buffer_size;
use crate::record::Record;
use crate::view::{Frame, frame};
use etwsim_types::BufferContext;
use etwsim_types::record::{BUFFER_HEADER_SIZE, BufferHeader, align8, buffer_flags, buffer_type};

/// Checks the header of the buffer at the start of `b` (`b.base` = its file offset) and
/// returns it. `expected_size` is the file's `BufferSize`.
pub(crate) fn check_header(b: Bytes<'_>, expected_size: u32) -> Result<BufferHeader> {
    let raw = b.slice(0, BUFFER_HEADER_SIZE, "WMI_BUFFER_HEADER")?;
    let h = BufferHeader::decode(raw).ok_or_else(|| {
        Error::truncated(
            "WMI_BUFFER_HEADER",
            b.offset(0),
            BUFFER_HEADER_SIZE as u64,
            b.len() as u64,
        )
    })?;
    if h.buffer_size != expected_size {
        return Err(Error::corrupt(
            "WMI_BUFFER_HEADER",
            b.offset(0),
            format!(
                "BufferSize {:#x} differs from the file's {expected_size:#x}",
                h.buffer_size
            ),
        ));
    }
    if (h.used as usize) < BUFFER_HEADER_SIZE || h.used > h.buffer_size {
        return Err(Error::corrupt(
            "WMI_BUFFER_HEADER",
            b.offset(0),
            format!(
                "Offset (bytes used) {:#x} outside 0x48..={:#x}",
                h.used, h.buffer_size
            ),
        ));
    }
    if h.flags & buffer_flags::COMPRESSED != 0 {
        return Err(Error::corrupt(
            "WMI_BUFFER_HEADER",
            b.offset(0),
            "the buffer is compressed (BufferFlag 0x40), which this reader does not decode",
        ));
    }
    Ok(h)
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

/// Decodes one whole buffer; `file_offset` is where it starts in its file (0 if unknown),
/// used in error messages. Never panics.
///
/// # Errors
/// [`Error::Truncated`] / [`Error::Corrupt`] when the buffer header itself is unusable
/// (shorter than 0x48 bytes, a used length outside the buffer, compressed). Damage among
/// the records is returned in [`DecodedBuffer::damage`] with the records before it.
pub fn decode_buffer(buffer: &[u8], file_offset: u64) -> Result<DecodedBuffer> {
    let b = Bytes::new(buffer, file_offset);
    let size = b.u32(0, "WMI_BUFFER_HEADER BufferSize")?;
    let header = check_header(b, size)?;
    let ctx = context(&header);
    let mut records = Vec::new();
    let damage = walk(b, &header, |_, f| records.push(f.view(ctx).to_record()));
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
