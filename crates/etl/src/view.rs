//! Borrowed records ([`RecordView`]) and the crate's one record decoder (format reference
//! §4, §5).
//!
//! Decoding a record is two steps, and every reading path goes through both or the first:
//!
//! 1. **Framing** (`frame`): the marker, `Size`, and the variable-length layout — an
//!    `EVENT_HEADER`'s chain of extended items, the extra 8-byte words a system or perfinfo
//!    header's Version announces, a WPP message's optional fields — checked against `Size`
//!    and the bytes the buffer uses. This is everything that decides whether a record is
//!    sound; it reads a few header words and allocates nothing. The open-time scan of
//!    [`LogFile`](crate::LogFile) runs only this step.
//! 2. **Viewing** (`Frame::view`): the fixed header fields read from the framed bytes, which
//!    cannot fail any more; the extended items, extra words and payload stay borrowed.
//!
//! An owned [`Record`] is a view copied out ([`RecordView::to_record`]): `records()`, the
//! merging [`Reader`](crate::Reader) and [`decode_buffer`](crate::decode_buffer) all build
//! on the same two steps.
//!
//! A borrowed trace record is not a copy of the owned type's definition but the same
//! struct: [`TraceView`] is [`Trace`] over `&[u8]`, [`TraceRecord`](crate::TraceRecord) is
//! [`Trace`] over `Vec<u8>`. [`EventView`] stays a separate struct from [`EventRecord`]:
//! the owned event is etwsim-types' (the kernel and every consumer share it), and its
//! extended items are a `Vec` of owned [`ExtendedItem`]s, while a view keeps the checked
//! item chain as one slice and walks it lazily ([`EventView::extended_data`]), so the two
//! do not have the same fields.

use crate::bytes::Bytes;
use crate::error::{Error, Result};
use crate::record::{InstanceInfo, MessageInfo, Record, RecordKind, Trace, message_flags};
use etwsim_types::record::{
    EVENT_HEADER_SIZE, TRACE_HEADER_MARKER, TRACE_MESSAGE_MARKER, align8, header_flags, header_type,
};
use etwsim_types::{
    BufferContext, Channel, EventDescriptor, EventHeader, EventRecord, ExtendedItem, Guid, Keyword,
    Level, Opcode, Task,
};

/// A record borrowed from the buffer it was read from: an [`EventView`] or a [`TraceView`].
///
/// The borrowing twin of [`Record`]: header fields are decoded, while an event's extended
/// items and user data, and a trace record's extra words and payload, are slices of the
/// buffer. Nothing is allocated; [`to_record`](Self::to_record) (or `Record::from`) copies
/// it out when it must outlive the buffer. Views come from
/// [`LogFile::for_each_record`](crate::LogFile::for_each_record).
///
/// ```
/// use etwsim_etl::{BufferBuilder, CloseStats, LogFile, Record, RecordKind, RecordView};
/// use etwsim_etl::{Writer, WriterOptions};
/// use etwsim_types::{EventDescriptor, EventHeader, EventRecord, ExtendedItem, Keyword, Level};
///
/// # fn main() -> Result<(), etwsim_etl::Error> {
/// # let dir = std::env::temp_dir().join(format!("etwsim-etl-doc-view-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).expect("temp dir");
/// # let path = dir.join("view.etl");
/// let mut writer = Writer::create(WriterOptions::new(&path).buffer_size(4096))?;
/// let mut cpu0 = BufferBuilder::new(4096, 0)?;
/// cpu0.push(&Record::Event(EventRecord {
///     header: EventHeader {
///         timestamp: 5,
///         descriptor: EventDescriptor::new(42, Level::INFORMATION, Keyword(1)),
///         ..EventHeader::default()
///     },
///     extended_data: vec![ExtendedItem::u64_item(0x0A, 7)],
///     user_data: b"payload".to_vec(),
///     ..EventRecord::default()
/// }))?;
/// writer.write_buffer(&cpu0.finish(1, 5, 0))?;
/// writer.close(&CloseStats::default())?;
///
/// let mut file = LogFile::open(&path)?;
/// let mut owned = Vec::new();
/// file.for_each_record(|view: RecordView<'_>| {
///     assert_eq!(view.kind(), Some(RecordKind::Event));
///     assert_eq!(view.payload(), b"payload"); // borrowed from the reader's buffer
///     let event = view.as_event().unwrap();
///     assert_eq!(event.header.descriptor.id, 42);
///     let key = event.extended_data().next().unwrap();
///     assert_eq!((key.ext_type, key.data), (0x0A, &7u64.to_le_bytes()[..]));
///     owned.push(view.to_record()); // an owned copy, when one is needed
/// })?;
/// // The owned path decodes the same bytes the same way.
/// let records = file.records().collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(owned, records);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordView<'a> {
    /// An `EVENT_HEADER` record.
    Event(EventView<'a>),
    /// Any other kind.
    Trace(TraceView<'a>),
}

/// An `EVENT_HEADER` record borrowed from its buffer: the twin of [`EventRecord`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventView<'a> {
    /// `EventHeader`, decoded (on-disk flags, as [`LogFile::records`](crate::LogFile::records)
    /// delivers them).
    pub header: EventHeader,
    /// `BufferContext`.
    pub buffer_context: BufferContext,
    /// `UserData`.
    pub user_data: &'a [u8],
    /// The extended items, already checked: `item_count` of them exactly.
    items: &'a [u8],
    item_count: u16,
}

/// One extended data item borrowed from its record: the twin of [`ExtendedItem`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ExtendedItemView<'a> {
    /// `ExtType`.
    pub ext_type: u16,
    /// The item's data (`DataSize` bytes).
    pub data: &'a [u8],
}

/// The extended items of an [`EventView`], in record order ([`EventView::extended_data`]).
#[derive(Clone, Debug)]
pub struct ExtendedItems<'a> {
    rest: &'a [u8],
    left: u16,
}

/// A record that is not an `EVENT_HEADER` record, borrowed from its buffer: a [`Trace`]
/// whose extra words and payload are slices of the buffer.
///
/// Not a twin of [`TraceRecord`](crate::TraceRecord) but the same struct over other bytes
/// (`Trace<&[u8]>` against `Trace<Vec<u8>>`): fields and methods are defined once, on
/// [`Trace`], and [`Trace::to_trace_record`] (or `TraceRecord::from(&view)`) copies a view
/// out.
pub type TraceView<'a> = Trace<&'a [u8]>;

impl<'a> RecordView<'a> {
    /// The record's layout family.
    #[inline]
    pub fn kind(&self) -> Option<RecordKind> {
        match self {
            RecordView::Event(_) => Some(RecordKind::Event),
            RecordView::Trace(t) => t.kind(),
        }
    }

    /// The raw timestamp, if the record has one (WPP messages may not).
    #[inline]
    pub fn timestamp(&self) -> Option<i64> {
        match self {
            RecordView::Event(e) => Some(e.header.timestamp),
            RecordView::Trace(t) => t.timestamp,
        }
    }

    /// The buffer the record came from.
    #[inline]
    pub fn buffer_context(&self) -> BufferContext {
        match self {
            RecordView::Event(e) => e.buffer_context,
            RecordView::Trace(t) => t.buffer_context,
        }
    }

    /// Process id, when the layout has one.
    #[inline]
    pub fn process_id(&self) -> Option<u32> {
        match self {
            RecordView::Event(e) => Some(e.header.process_id),
            RecordView::Trace(t) => t.process_id,
        }
    }

    /// Thread id, when the layout has one.
    #[inline]
    pub fn thread_id(&self) -> Option<u32> {
        match self {
            RecordView::Event(e) => Some(e.header.thread_id),
            RecordView::Trace(t) => t.thread_id,
        }
    }

    /// The payload: an event's user data (without its extended items), a trace record's
    /// payload (without its extra words).
    #[inline]
    pub fn payload(&self) -> &'a [u8] {
        match self {
            RecordView::Event(e) => e.user_data,
            RecordView::Trace(t) => t.payload,
        }
    }

    /// Bytes of payload, as [`Record::payload_len`].
    #[inline]
    pub fn payload_len(&self) -> usize {
        self.payload().len()
    }

    /// The event, if this is an `EVENT_HEADER` record.
    #[inline]
    pub fn as_event(&self) -> Option<&EventView<'a>> {
        match self {
            RecordView::Event(e) => Some(e),
            RecordView::Trace(_) => None,
        }
    }

    /// The trace record, if this is not an `EVENT_HEADER` record.
    #[inline]
    pub fn as_trace(&self) -> Option<&TraceView<'a>> {
        match self {
            RecordView::Event(_) => None,
            RecordView::Trace(t) => Some(t),
        }
    }

    /// An owned copy: what [`LogFile::records`](crate::LogFile::records) yields for the
    /// same bytes.
    pub fn to_record(&self) -> Record {
        match self {
            RecordView::Event(e) => Record::Event(e.to_event_record()),
            RecordView::Trace(t) => Record::Trace(t.to_trace_record()),
        }
    }
}

impl<'a> EventView<'a> {
    /// The extended items (`ExtendedData`), in record order.
    #[inline]
    pub fn extended_data(&self) -> ExtendedItems<'a> {
        ExtendedItems {
            rest: self.items,
            left: self.item_count,
        }
    }

    /// `ExtendedDataCount`.
    #[inline]
    pub fn extended_data_count(&self) -> usize {
        usize::from(self.item_count)
    }

    /// The first extended item of type `ext`.
    #[inline]
    pub fn extended(&self, ext: u16) -> Option<ExtendedItemView<'a>> {
        self.extended_data().find(|i| i.ext_type == ext)
    }

    /// `true` for the RT_LostEvent markers ETW inserts into real-time streams (BUF-14).
    #[inline]
    pub fn is_lost_event_marker(&self) -> bool {
        self.header.provider_id == Guid::RT_LOST_EVENT
    }

    /// An owned copy.
    pub fn to_event_record(&self) -> EventRecord {
        EventRecord {
            header: self.header.clone(),
            buffer_context: self.buffer_context,
            extended_data: self.extended_data().map(|i| i.to_extended_item()).collect(),
            user_data: self.user_data.to_vec(),
        }
    }
}

impl ExtendedItemView<'_> {
    /// An owned copy.
    pub fn to_extended_item(&self) -> ExtendedItem {
        ExtendedItem {
            ext_type: self.ext_type,
            data: self.data.to_vec(),
        }
    }
}

impl<'a> Iterator for ExtendedItems<'a> {
    type Item = ExtendedItemView<'a>;

    #[inline]
    fn next(&mut self) -> Option<ExtendedItemView<'a>> {
        if self.left == 0 {
            return None;
        }
        // The chain was checked when the record was framed; a miss here ends the items.
        let item = item_header(self.rest, 0).and_then(|h| {
            let data = self.rest.get(8..8 + h.data_size)?;
            Some((h, data))
        });
        let Some((h, data)) = item else {
            self.left = 0;
            return None;
        };
        self.rest = self.rest.get(h.item_size..).unwrap_or(&[]);
        self.left -= 1;
        Some(ExtendedItemView {
            ext_type: h.ext_type,
            data,
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::from(self.left), Some(usize::from(self.left)))
    }
}

impl ExactSizeIterator for ExtendedItems<'_> {}

impl std::iter::FusedIterator for ExtendedItems<'_> {}

impl From<RecordView<'_>> for Record {
    fn from(v: RecordView<'_>) -> Record {
        v.to_record()
    }
}

impl From<&RecordView<'_>> for Record {
    fn from(v: &RecordView<'_>) -> Record {
        v.to_record()
    }
}

impl From<&EventView<'_>> for EventRecord {
    fn from(v: &EventView<'_>) -> EventRecord {
        v.to_event_record()
    }
}

impl From<ExtendedItemView<'_>> for ExtendedItem {
    fn from(v: ExtendedItemView<'_>) -> ExtendedItem {
        v.to_extended_item()
    }
}

/// A record whose extent and variable layout have been checked ([`frame`]).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Frame<'a> {
    kind: RecordKind,
    /// Byte 2 of the marker.
    header_type: u8,
    /// Exactly the record's `Size` bytes.
    bytes: &'a [u8],
    /// Where the payload starts: after the fixed header and the items / extra words /
    /// message options.
    body: usize,
    /// Extended items of an event.
    items: u16,
    /// Bytes the record occupies with its pad (at least 8): where the next record starts.
    pub(crate) used: usize,
}

/// Frames the record at the start of `b` (the rest of a buffer's used region; `b.base` its
/// file offset): `Ok(None)` at the `0xFFFFFFFF` end marker. Never panics, never allocates
/// unless it reports damage; a framed record occupies at least 8 bytes.
#[inline]
pub(crate) fn frame(b: Bytes<'_>) -> Result<Option<Frame<'_>>> {
    // The common case, a sound EVENT_HEADER record, in a few loads and compares. Anything
    // else, damage included, takes the general path, which decides everything on its own:
    // this shortcut only ever returns what the general path would.
    if let Some(&[s0, s1, htype, TRACE_HEADER_MARKER, f0, f1, _, _]) = b.b.first_chunk::<8>() {
        let size = usize::from(u16::from_le_bytes([s0, s1]));
        if (htype == header_type::EVENT_HEADER64 || htype == header_type::EVENT_HEADER32)
            && size >= EVENT_HEADER_SIZE
        {
            if let Some(bytes) = b.b.get(..size) {
                let items = if u16::from_le_bytes([f0, f1]) & header_flags::EXTENDED_INFO == 0 {
                    Ok((EVENT_HEADER_SIZE, 0))
                } else {
                    event_items(bytes)
                };
                if let Ok((body, items)) = items {
                    return Ok(Some(Frame {
                        kind: RecordKind::Event,
                        header_type: htype,
                        bytes,
                        body,
                        items,
                        used: align8(size).min(b.len()),
                    }));
                }
            }
        }
    }
    frame_general(b)
}

/// [`frame`] for every kind of record, and every kind of damage.
fn frame_general(b: Bytes<'_>) -> Result<Option<Frame<'_>>> {
    let marker = b.u32(0, "record marker")?;
    if marker == u32::MAX {
        return Ok(None);
    }
    let [_, _, htype, flags] = marker.to_le_bytes();
    let kind = match flags {
        TRACE_HEADER_MARKER => match RecordKind::from_header_type(htype) {
            Some(k) if k != RecordKind::Message => k,
            _ => return Err(bad_header_type(b, marker, htype)),
        },
        TRACE_MESSAGE_MARKER => RecordKind::Message,
        _ => {
            return Err(Error::corrupt(
                "record marker",
                b.offset(0),
                format!(
                    "{marker:#010x}: flags byte {flags:#04x} is neither 0xC0 (trace header) \
                     nor 0x90 (trace message)"
                ),
            ));
        }
    };
    let size = usize::from(match kind {
        RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo => {
            b.u16(4, "record Size")?
        }
        _ => marker as u16,
    });
    let fixed = kind.fixed_size();
    if size < fixed {
        return Err(Error::corrupt(
            kind.name(),
            b.offset(0),
            format!("Size {size} is below the {fixed}-byte header"),
        ));
    }
    let Some(bytes) = b.b.get(..size) else {
        return Err(Error::corrupt(
            kind.name(),
            b.offset(0),
            format!(
                "Size {size} runs past the buffer's used bytes ({} left)",
                b.len()
            ),
        ));
    };
    let (body, items) = match kind {
        RecordKind::Event => event_items(bytes).map_err(|bad| {
            Error::corrupt("EVENT_HEADER record", b.offset(0), bad.describe(size))
        })?,
        RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo => {
            let version = le16(bytes, 0);
            let words = extra_words(version);
            let payload_at = fixed + 8 * words;
            if payload_at > size {
                return Err(Error::corrupt(
                    kind.name(),
                    b.offset(0),
                    format!(
                        "Version {version:#06x} announces {words} extra words, more than Size \
                         {size} holds"
                    ),
                ));
            }
            (payload_at, 0)
        }
        RecordKind::Classic | RecordKind::InstanceGuid => (fixed, 0),
        RecordKind::Message => match message_options(bytes, le16(bytes, 6)) {
            Ok((_, at)) => (at, 0),
            Err(Short { what, at, needed }) => {
                return Err(Error::truncated(
                    what,
                    b.offset(at),
                    needed as u64,
                    size.saturating_sub(at) as u64,
                ));
            }
        },
    };
    Ok(Some(Frame {
        kind,
        header_type: htype,
        bytes,
        body,
        items,
        used: align8(size).min(b.len()).max(8),
    }))
}

#[cold]
fn bad_header_type(b: Bytes<'_>, marker: u32, htype: u8) -> Error {
    let what = match htype {
        header_type::TIMED => "TIMED (0x0C), which has no decoder",
        header_type::ERROR => "ERROR (0x0D), which has no decoder",
        header_type::WNODE_HEADER => "WNODE_HEADER (0x0E), which has no decoder",
        _ => "unknown",
    };
    Error::corrupt(
        "record marker",
        b.offset(0),
        format!("{marker:#010x}: header type {htype:#04x} is {what}"),
    )
}

impl<'a> Frame<'a> {
    /// The record's fields, decoded from the framed bytes (which cannot fail).
    #[inline]
    pub(crate) fn view(&self, ctx: BufferContext) -> RecordView<'a> {
        let b = self.bytes;
        let payload = b.get(self.body..).unwrap_or(&[]);
        match self.kind {
            RecordKind::Event => {
                let h: &[u8; EVENT_HEADER_SIZE] =
                    b.first_chunk().unwrap_or(&[0; EVENT_HEADER_SIZE]);
                RecordView::Event(EventView {
                    header: event_header(h),
                    buffer_context: ctx,
                    user_data: payload,
                    items: b.get(EVENT_HEADER_SIZE..self.body).unwrap_or(&[]),
                    item_count: self.items,
                })
            }
            RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo => {
                let full = self.kind == RecordKind::System;
                let has_ids = self.kind != RecordKind::PerfInfo;
                let ts_at = if has_ids { 0x10 } else { 0x08 };
                let fixed = self.kind.fixed_size();
                RecordView::Trace(TraceView {
                    header_type: self.header_type,
                    version: le16(b, 0),
                    hook_id: le16(b, 6),
                    thread_id: has_ids.then(|| le32(b, 8)),
                    process_id: has_ids.then(|| le32(b, 12)),
                    timestamp: Some(le_i64(b, ts_at)),
                    kernel_time: if full { le32(b, 0x18) } else { 0 },
                    user_time: if full { le32(b, 0x1C) } else { 0 },
                    extended_header: b.get(fixed..self.body).unwrap_or(&[]),
                    buffer_context: ctx,
                    payload,
                    ..TraceView::default()
                })
            }
            RecordKind::Classic | RecordKind::InstanceGuid => {
                let instance = (self.kind == RecordKind::InstanceGuid).then(|| InstanceInfo {
                    instance_id: le32(b, 0x30),
                    parent_instance_id: le32(b, 0x34),
                    parent_guid: guid(b, 0x38),
                });
                RecordView::Trace(TraceView {
                    header_type: self.header_type,
                    hook_id: u16::from(b.get(4).copied().unwrap_or(0)),
                    level: b.get(5).copied().unwrap_or(0),
                    version: le16(b, 6),
                    thread_id: Some(le32(b, 8)),
                    process_id: Some(le32(b, 12)),
                    timestamp: Some(le_i64(b, 16)),
                    guid: Some(guid(b, 24)),
                    kernel_time: le32(b, 40),
                    user_time: le32(b, 44),
                    instance,
                    buffer_context: ctx,
                    payload,
                    ..TraceView::default()
                })
            }
            RecordKind::Message => {
                let flags = le16(b, 6);
                let (m, _) = message_options(b, flags).unwrap_or_default();
                RecordView::Trace(TraceView {
                    header_type: header_type::MESSAGE,
                    hook_id: le16(b, 4),
                    guid: m.guid,
                    thread_id: m.thread_id,
                    process_id: m.process_id,
                    timestamp: m.timestamp,
                    message: Some(MessageInfo {
                        option_flags: flags,
                        sequence: m.sequence,
                        component_id: m.component_id,
                    }),
                    buffer_context: ctx,
                    payload,
                    ..TraceView::default()
                })
            }
        }
    }
}

/// The 80-byte `EVENT_HEADER` (EVT-18; format reference §5).
#[inline]
fn event_header(h: &[u8; EVENT_HEADER_SIZE]) -> EventHeader {
    let u16_at = |o: usize| u16::from_le_bytes([h[o], h[o + 1]]);
    let u32_at = |o: usize| u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
    let u64_at = |o: usize| u64::from(u32_at(o)) | u64::from(u32_at(o + 4)) << 32;
    let guid_at = |o: usize| {
        let mut g = [0u8; 16];
        g.copy_from_slice(&h[o..o + 16]);
        Guid::from_bytes_le(g)
    };
    EventHeader {
        size: u16_at(0),
        header_type: u16::from(h[2]),
        flags: u16_at(4),
        event_property: u16_at(6),
        thread_id: u32_at(8),
        process_id: u32_at(12),
        timestamp: u64_at(16) as i64,
        provider_id: guid_at(24),
        descriptor: EventDescriptor {
            id: u16_at(40),
            version: h[42],
            channel: Channel(h[43]),
            level: Level(h[44]),
            opcode: Opcode(h[45]),
            task: Task(u16_at(46)),
            keyword: Keyword(u64_at(48)),
        },
        kernel_time: u32_at(56),
        user_time: u32_at(60),
        activity_id: guid_at(64),
    }
}

/// The header of one extended item (EVT-22): `ItemSize`, `ExtType`, `Linkage`, `DataSize`.
#[derive(Copy, Clone)]
struct ItemHeader {
    item_size: usize,
    ext_type: u16,
    linked: bool,
    data_size: usize,
}

#[inline]
fn item_header(b: &[u8], at: usize) -> Option<ItemHeader> {
    let h: &[u8; 8] = b.get(at..)?.first_chunk()?;
    Some(ItemHeader {
        item_size: usize::from(u16::from_le_bytes([h[0], h[1]])),
        ext_type: u16::from_le_bytes([h[2], h[3]]),
        linked: h[4] & 1 != 0,
        data_size: usize::from(u16::from_le_bytes([h[6], h[7]])),
    })
}

/// An extended item that does not fit its record.
#[derive(Copy, Clone)]
struct BadItem {
    /// Where it starts in the record.
    off: usize,
    /// Its ItemSize and DataSize; `None` when not even its 8-byte header fits.
    sizes: Option<(usize, usize)>,
}

impl BadItem {
    /// What is wrong, in the words of `etwsim_types::record::decode_event_record`.
    #[cold]
    fn describe(self, size: usize) -> String {
        let off = self.off;
        match self.sizes {
            None => format!("extended item at +{off} runs past Size {size}"),
            Some((item_size, data_size)) => format!(
                "extended item at +{off}: ItemSize {item_size}, DataSize {data_size}, record \
                 Size {size}"
            ),
        }
    }
}

/// Checks the extended-item chain of an `EVENT_HEADER` record of `bytes.len()` bytes when
/// its Flags say there is one; returns where the user data starts and how many items there
/// are.
#[inline]
fn event_items(bytes: &[u8]) -> std::result::Result<(usize, u16), BadItem> {
    let size = bytes.len();
    let mut off = EVENT_HEADER_SIZE;
    let mut n = 0u16;
    if le16(bytes, 4) & header_flags::EXTENDED_INFO == 0 {
        return Ok((off, 0));
    }
    loop {
        let Some(h) = item_header(bytes, off) else {
            return Err(BadItem { off, sizes: None });
        };
        if h.item_size < 8
            || h.item_size % 8 != 0
            || h.data_size > h.item_size - 8
            || off + h.item_size > size
        {
            return Err(BadItem {
                off,
                sizes: Some((h.item_size, h.data_size)),
            });
        }
        // At most Size / 8 items: no overflow.
        n += 1;
        off += h.item_size;
        if !h.linked {
            return Ok((off, n));
        }
    }
}

/// Extra 8-byte words a system or perfinfo Version word announces (0x8000: one, 0x0700:
/// that many more).
fn extra_words(version: u16) -> usize {
    usize::from(version & 0x8000 != 0) + usize::from((version & 0x0700) >> 8)
}

/// The optional fields of a WPP message (format reference §4).
#[derive(Copy, Clone, Default)]
struct MessageOptions {
    sequence: Option<u32>,
    component_id: Option<u32>,
    guid: Option<Guid>,
    timestamp: Option<i64>,
    thread_id: Option<u32>,
    process_id: Option<u32>,
}

/// The field a message's `Size` cannot hold: its name, its offset in the record, its size.
struct Short {
    what: &'static str,
    at: usize,
    needed: usize,
}

/// Reads the optional fields `flags` announces from a message record of `b.len()` bytes;
/// returns them and where the arguments start, or the first field that does not fit.
fn message_options(b: &[u8], flags: u16) -> std::result::Result<(MessageOptions, usize), Short> {
    use message_flags as f;
    let short = |what, at, needed| Short { what, at, needed };
    let u32_at = |at: usize, what| {
        rd::<4>(b, at)
            .map(u32::from_le_bytes)
            .ok_or(short(what, at, 4))
    };
    let mut at = 8;
    let mut m = MessageOptions::default();
    if flags & f::SEQUENCE != 0 {
        m.sequence = Some(u32_at(at, "message SequenceNumber")?);
        at += 4;
    }
    if flags & f::COMPONENT_ID != 0 {
        m.component_id = Some(u32_at(at, "message ComponentId")?);
        at += 4;
    } else if flags & f::GUID != 0 {
        let g = rd::<16>(b, at).ok_or(short("message GUID", at, 16))?;
        m.guid = Some(Guid::from_bytes_le(g));
        at += 16;
    }
    if flags & f::TIMESTAMP != 0 {
        let t = rd::<8>(b, at).ok_or(short("message TimeStamp", at, 8))?;
        m.timestamp = Some(i64::from_le_bytes(t));
        at += 8;
    }
    if flags & f::SYSTEMINFO != 0 {
        m.thread_id = Some(u32_at(at, "message ThreadId")?);
        m.process_id = Some(u32_at(at + 4, "message ProcessId")?);
        at += 8;
    }
    Ok((m, at))
}

/// `N` bytes at `at`, if there are.
#[inline]
fn rd<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..)?.first_chunk().copied()
}

// Field reads of framed records: the frame guarantees the bytes; 0 stands in otherwise.
#[inline]
fn le16(b: &[u8], at: usize) -> u16 {
    rd(b, at).map_or(0, u16::from_le_bytes)
}
#[inline]
fn le32(b: &[u8], at: usize) -> u32 {
    rd(b, at).map_or(0, u32::from_le_bytes)
}
#[inline]
fn le_i64(b: &[u8], at: usize) -> i64 {
    rd(b, at).map_or(0, i64::from_le_bytes)
}
fn guid(b: &[u8], at: usize) -> Guid {
    rd(b, at).map_or(Guid::default(), Guid::from_bytes_le)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::encode_event;
    use etwsim_types::EventDescriptor;

    fn event(items: usize, payload: usize) -> Vec<u8> {
        let e = EventRecord {
            header: EventHeader {
                timestamp: 77,
                descriptor: EventDescriptor::new(3, Level::INFORMATION, Keyword(1)),
                ..EventHeader::default()
            },
            extended_data: (0..items)
                .map(|i| ExtendedItem {
                    ext_type: i as u16 + 1,
                    data: vec![i as u8; 3 + 8 * i],
                })
                .collect(),
            user_data: vec![0xAB; payload],
            ..EventRecord::default()
        };
        let mut b = encode_event(&e).unwrap();
        b.resize(align8(b.len()), 0);
        b
    }

    #[test]
    fn the_event_shortcut_frames_exactly_as_the_general_path() {
        // The shortcut in `frame` must never decide differently from `frame_general`:
        // sound events, and every field the shortcut reads, broken.
        let mut cases = Vec::new();
        for (items, payload) in [(0, 0), (0, 5), (1, 0), (1, 9), (3, 17)] {
            let b = event(items, payload);
            cases.push(b.clone());
            for (at, values) in [
                (0usize, &[0u16, 8, 79, 80, 81, 0x1000][..]), // Size
                (2, &[0xC012, 0xC013, 0xC014, 0x9013]),       // HeaderType + marker flags
                (4, &[0, 1, 0x41]),                           // Flags (EXTENDED_INFO)
                (80, &[0, 7, 8, 16, 24, 0x400]),              // first ItemSize
                (84, &[0, 1, 3]),                             // first Linkage
                (86, &[0, 8, 16, 0xFFFF]),                    // first DataSize
            ] {
                for &v in values {
                    let mut m = b.clone();
                    if at + 2 <= m.len() {
                        m[at..at + 2].copy_from_slice(&v.to_le_bytes());
                        cases.push(m);
                    }
                }
            }
        }
        let mut general_errors = 0;
        for case in &cases {
            for len in [case.len(), case.len().saturating_sub(8), 7, 4] {
                let b = Bytes::new(&case[..len.min(case.len())], 0x1000);
                let fast = format!("{:?}", frame(b));
                let general = format!("{:?}", frame_general(b));
                assert_eq!(fast, general, "{case:02x?} cut to {len}");
                general_errors += usize::from(general.starts_with("Err"));
            }
        }
        assert!(
            general_errors > cases.len(),
            "the cases reach the damage paths"
        );
    }
}
