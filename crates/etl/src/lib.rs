//! The `.etl` file format of etwsim: buffers and records in both directions, a writer for
//! every log-file mode, and a reader that merges files oldest first — checked against the
//! two third-party parsers the format reference (`shared/spec/etl-format.md`) was written
//! for, etl-parser and dissect.etl.
//!
//! # Map
//!
//! | type | Windows name | what it is |
//! |---|---|---|
//! | [`Writer`], [`WriterOptions`] | the logger's file I/O, `EVENT_TRACE_PROPERTIES` file fields | writes flushed buffers to files: SEQUENTIAL, CIRCULAR, NEWFILE, APPEND, PREALLOCATE |
//! | [`WriteOutcome`], [`CloseStats`], [`CloseSummary`] | | what became of a buffer; the statistics written at close |
//! | [`Reader`], [`ReadOptions`] | `OpenTrace` + `ProcessTrace` on files | one or more files, records oldest first, FILETIME or raw timestamps |
//! | [`LogFile`] | one `.etl` file | its header, its records in file order (owned, or borrowed through [`LogFile::for_each_record`]), its damage |
//! | [`LogfileHeader`], [`TimeZoneInformation`] | `TRACE_LOGFILE_HEADER`, `TIME_ZONE_INFORMATION` | buffer 0, both ways |
//! | [`Record`] | a record in a buffer | an [`EventRecord`] or a [`TraceRecord`] |
//! | [`RecordView`], [`EventView`], [`TraceView`], [`ExtendedItemView`] | | a record borrowed from the buffer it was read from; `to_record()` copies it out |
//! | [`Trace`], [`TraceRecord`], [`RecordKind`] | `SYSTEM_TRACE_HEADER`, `PERFINFO_TRACE_HEADER`, `EVENT_TRACE_HEADER`, `EVENT_INSTANCE_GUID_HEADER`, `MESSAGE_TRACE_HEADER` | every non-`EVENT_HEADER` record, one struct over its bytes: [`TraceRecord`] = `Trace<Vec<u8>>` owns them, [`TraceView`] = `Trace<&[u8]>` borrows them |
//! | [`BufferBuilder`], [`decode_buffer`] | `WMI_BUFFER_HEADER` + records | one data buffer, both ways |
//! | [`lzxpress`] | `COMPRESSION_FORMAT_XPRESS` | the plain LZ77 LZXpress codec of compressed buffers |
//! | [`Error`] | | what failed, and at which file offset |
//!
//! The shared pieces — [`EventRecord`], `EventHeader`, `ExtendedItem`, `BufferHeader`, the
//! `EVENT_HEADER` encoder and decoder and the format constants — live in
//! [`etwsim_types::record`]; this crate builds on them.
//!
//! # API themes
//!
//! Names are the Windows names in Rust casing, without the `etl`/`trace` stutter; the
//! Windows spelling is in each item's first doc line and in `#[doc(alias)]`. Decoding never
//! panics and never allocates more than the input holds: functions that read bytes return
//! [`Error::Truncated`] or [`Error::Corrupt`] naming the structure and its file offset.
//! Where a file is damaged, readers hand out every record before the damage and then the
//! error.
//!
//! # Compressed files (`EVENT_TRACE_COMPRESSED_MODE`, SES-52; `BufferFlag` 0x40, BUF-15)
//!
//! Sessions with `EVENT_TRACE_COMPRESSED_MODE` (0x04000000, ntwmi.h: "Compress relogged
//! file") write their data buffers compressed with LZXpress in its plain LZ77 form
//! ([`lzxpress`]). The layout, and where it was found:
//!
//! * dissect.etl 3.14 (`etl.py`, class `Buffer`): the next buffer is at this one's offset
//!   plus its `BufferSize`; it reads `min(BufferSize, Offset@0x30) − 0x48` bytes after the
//!   header, decompresses them (dissect.util's plain LZXpress) when `BufferFlag` has 0x40,
//!   and walks the records from offset 0 of the result. etl-parser 1.0.1 cannot read
//!   compressed buffers.
//! * Real compressed files: the traces PerfView merged for TraceEvent's tests
//!   (microsoft/perfview `src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip`,
//!   `net.4.5.2.x86.etl.zip`, `Regression/SelfDescribingSingleEvent.etl`; `LogFileMode`
//!   0x04010001 = COMPRESSED | RELOG | SEQUENTIAL — the header keeps the COMPRESSED bit):
//!   - the buffers lie back to back, each as long as its own `BufferSize`, and the file ends
//!     exactly at the last one; `BuffersWritten` counts them all, buffer 0 included;
//!   - buffer 0 is not compressed, and its `BufferSize` is its used bytes rounded up to 512
//!     (0x1B8 → 0x200, 0x208 → 0x400), while `TRACE_LOGFILE_HEADER.BufferSize` stays the
//!     session's (0x10000);
//!   - a data buffer's `BufferFlag` is 0x60 (0x61 for a CPU's last: PROC_INDEX | COMPRESSED
//!     [| FLUSH_MARKER]), its `BufferSize` 0x48 + the compressed length (not a multiple of
//!     8), its `SavedOffset` = `Offset` = header + records once decompressed; the
//!     compressed bytes decompress to exactly `Offset` − 0x48 bytes, the records, which then
//!     start at 0x48 as in any buffer (`CurrentOffset` holds larger values: unused).
//!
//!   Every data buffer of those files is compressed. jtmoon79/super-speedy-syslog-searcher's
//!   ETL reader says the same of `BufferSize` and `FilledBytes`. This crate reads all three
//!   files as dissect.etl does (same records, same raw timestamps:
//!   `tests/etl/compressed.rs`, `ETWSIM_REAL_COMPRESSED_ETL`).
//!
//! What no source says, and what this crate does:
//!
//! * A buffer that compression does not make shorter than its `Offset` is stored as it is,
//!   trimmed to its used bytes (`BufferSize` = `Offset`, no 0x40): dissect.etl reads
//!   `min(BufferSize, Offset)` bytes, so a compressed buffer longer than that would be cut.
//!   Files therefore mix compressed and uncompressed buffers, and the reader takes both.
//! * The reader lets buffers be shorter than the session's `BufferSize` (buffer 0, and
//!   uncompressed data buffers down to their used bytes) only when `LogFileMode` has
//!   COMPRESSED; other files keep every uncompressed buffer at exactly `BufferSize`. A
//!   compressed buffer is read wherever it is, as long as its `BufferSize`.
//! * Buffer 0 keeps the flags etwsim writes in every file (0x21, type HEADER).
//! * The writer counts `MaximumFileSize` in bytes (buffers differ in length), refuses
//!   COMPRESSED with CIRCULAR (fixed slots to overwrite), and APPENDs to a compressed file
//!   by walking its buffers.
//! * Damage: a buffer that does not decompress is a [`Error::Corrupt`] "compressed buffer"
//!   naming the buffer's index and offset, at the file offset of the symbol at fault; a
//!   record damaged in the decompressed bytes is told at the buffer's offset, with its
//!   offset in the decompressed bytes (header included). The records before it are kept.
//!   Compressed buffers that would hold more than 256 times the file's length once
//!   decompressed (a decompression bomb; traces compress 4–10 times) are damage too.
//!
//! # Example
//!
//! A session with two CPUs writes a file; a consumer reads it back in time order.
//!
//! ```
//! use etwsim_etl::{BufferBuilder, CloseStats, Reader, Record, Writer, WriterOptions};
//! use etwsim_types::{EventDescriptor, EventHeader, EventRecord, Guid, Keyword, Level};
//!
//! # fn main() -> Result<(), etwsim_etl::Error> {
//! let dir = std::env::temp_dir().join(format!("etwsim-etl-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).expect("temp dir");
//! let path = dir.join("two-cpus.etl");
//!
//! // raw QPC tick 0 is 2026-01-01T00:00:00Z (FILETIME 134116992000000000)
//! let start = 134_116_992_000_000_000;
//! let mut writer = Writer::create(
//!     WriterOptions::new(&path).buffer_size(8192).processors(2).start(0, start),
//! )?;
//! let event = |id: u16, ts: i64| {
//!     Record::Event(EventRecord {
//!         header: EventHeader {
//!             timestamp: ts,
//!             provider_id: Guid::RT_LOST_EVENT,
//!             descriptor: EventDescriptor::new(id, Level::INFORMATION, Keyword(1)),
//!             ..EventHeader::default()
//!         },
//!         user_data: b"payload".to_vec(),
//!         ..EventRecord::default()
//!     })
//! };
//! let mut cpu0 = BufferBuilder::new(8192, 0)?;
//! let mut cpu1 = BufferBuilder::new(8192, 1)?;
//! cpu0.push(&event(1, 10))?;
//! cpu1.push(&event(2, 20))?;
//! cpu0.push(&event(3, 30))?;
//! // CPU 1's buffer is flushed first: file order is not time order.
//! writer.write_buffer(&cpu1.finish(1, 20, 0))?;
//! writer.write_buffer(&cpu0.finish(2, 30, 0))?;
//! writer.close(&CloseStats::default())?;
//!
//! let reader = Reader::open([&path])?;
//! assert_eq!(reader.headers().next().unwrap().buffers_written, 3);
//! let ids: Vec<u16> = reader
//!     .map(|r| r.map(|r| r.as_event().unwrap().header.descriptor.id))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(ids, [1, 2, 3]);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod buffer;
mod bytes;
mod error;
pub mod header;
pub mod lzxpress;
mod reader;
pub mod record;
mod view;
mod writer;

pub use buffer::{BufferBuilder, DecodedBuffer, decode_buffer};
pub use error::{Error, Result};
pub use header::{LogfileHeader, TimeZoneInformation};
pub use reader::{FileRecords, LogFile, MAX_FILES, ReadOptions, Reader, RecordPosition};
pub use record::{
    InstanceInfo, MessageInfo, Record, RecordKind, Trace, TraceRecord, encode_event, message_flags,
};
pub use view::{EventView, ExtendedItemView, ExtendedItems, RecordView, TraceView};
pub use writer::{
    Backend, CloseStats, CloseSummary, DEFAULT_START_FILETIME, OpenMode, Opener, WriteOutcome,
    Writer, WriterOptions,
};

#[doc(no_inline)]
pub use etwsim_types::EventRecord;
