//! What a consumer sees: `EVENT_RECORD`, `EVENT_HEADER`, extended data items — and their
//! layout inside a buffer, exactly as `.etl` files and the third-party parsers expect it
//! (EVT-18…EVT-23, BUF-15, the format reference's sections 5–7).
//!
//! A record in a buffer is an 80-byte `EVENT_HEADER` (HeaderType 0x13, marker 0xC0), the
//! extended items when `Flags & EXTENDED_INFO` (each `u16 ItemSize | u16 ExtType | u16 Linkage |
//! u16 DataSize | data`, padded to 8, Linkage 1 on all but the last), then the user data.
//! `Size` counts all three; the record is padded with zeros to a multiple of 8.

use crate::{Channel, EventDescriptor, Guid, Keyword, Level, Opcode, Task};

/// `sizeof(EVENT_HEADER)`.
pub const EVENT_HEADER_SIZE: usize = 0x50;
/// `sizeof(WMI_BUFFER_HEADER)`.
pub const BUFFER_HEADER_SIZE: usize = 0x48;
/// Records start on 8-byte boundaries (`DEFAULT_TRACE_ALIGNMENT`).
pub const RECORD_ALIGNMENT: usize = 8;
/// `MAX_ETW_EVENT_SIZE`: the whole stored event (EVT-05).
pub const MAX_EVENT_SIZE: usize = 0xFFFF;
/// `MAX_EVENT_DATA_DESCRIPTORS` (EVT-11).
pub const MAX_EVENT_DATA_DESCRIPTORS: usize = 128;
/// Frames kept in a stack-trace item (FLT-12).
pub const MAX_STACK_FRAMES: usize = 192;

/// `EVENT_HEADER_FLAG_*` (EVT-19).
pub mod header_flags {
    /// `EVENT_HEADER_FLAG_EXTENDED_INFO`.
    pub const EXTENDED_INFO: u16 = 0x0001;
    /// `EVENT_HEADER_FLAG_PRIVATE_SESSION`.
    pub const PRIVATE_SESSION: u16 = 0x0002;
    /// `EVENT_HEADER_FLAG_STRING_ONLY`.
    pub const STRING_ONLY: u16 = 0x0004;
    /// `EVENT_HEADER_FLAG_TRACE_MESSAGE`.
    pub const TRACE_MESSAGE: u16 = 0x0008;
    /// `EVENT_HEADER_FLAG_NO_CPUTIME`.
    pub const NO_CPUTIME: u16 = 0x0010;
    /// `EVENT_HEADER_FLAG_32_BIT_HEADER`.
    pub const HEADER_32_BIT: u16 = 0x0020;
    /// `EVENT_HEADER_FLAG_64_BIT_HEADER`.
    pub const HEADER_64_BIT: u16 = 0x0040;
    /// `EVENT_HEADER_FLAG_DECODE_GUID`.
    pub const DECODE_GUID: u16 = 0x0080;
    /// `EVENT_HEADER_FLAG_CLASSIC_HEADER`.
    pub const CLASSIC_HEADER: u16 = 0x0100;
    /// `EVENT_HEADER_FLAG_PROCESSOR_INDEX`.
    pub const PROCESSOR_INDEX: u16 = 0x0200;
    /// The flags written into buffers; consumers derive the others (format reference §5).
    pub const ON_DISK: u16 =
        EXTENDED_INFO | PRIVATE_SESSION | STRING_ONLY | TRACE_MESSAGE | NO_CPUTIME;
}

/// `EVENT_HEADER_EXT_TYPE_*` (EVT-22).
pub mod ext_type {
    /// `EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID`.
    pub const RELATED_ACTIVITYID: u16 = 0x0001;
    /// `EVENT_HEADER_EXT_TYPE_SID`.
    pub const SID: u16 = 0x0002;
    /// `EVENT_HEADER_EXT_TYPE_TS_ID`.
    pub const TS_ID: u16 = 0x0003;
    /// `EVENT_HEADER_EXT_TYPE_INSTANCE_INFO`.
    pub const INSTANCE_INFO: u16 = 0x0004;
    /// `EVENT_HEADER_EXT_TYPE_STACK_TRACE32`.
    pub const STACK_TRACE32: u16 = 0x0005;
    /// `EVENT_HEADER_EXT_TYPE_STACK_TRACE64`.
    pub const STACK_TRACE64: u16 = 0x0006;
    /// `EVENT_HEADER_EXT_TYPE_PEBS_INDEX`.
    pub const PEBS_INDEX: u16 = 0x0007;
    /// `EVENT_HEADER_EXT_TYPE_PMC_COUNTERS`.
    pub const PMC_COUNTERS: u16 = 0x0008;
    /// `EVENT_HEADER_EXT_TYPE_PSM_KEY`.
    pub const PSM_KEY: u16 = 0x0009;
    /// `EVENT_HEADER_EXT_TYPE_EVENT_KEY`.
    pub const EVENT_KEY: u16 = 0x000A;
    /// `EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL`.
    pub const EVENT_SCHEMA_TL: u16 = 0x000B;
    /// `EVENT_HEADER_EXT_TYPE_PROV_TRAITS`.
    pub const PROV_TRAITS: u16 = 0x000C;
    /// `EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY`.
    pub const PROCESS_START_KEY: u16 = 0x000D;
    /// `EVENT_HEADER_EXT_TYPE_CONTROL_GUID`.
    pub const CONTROL_GUID: u16 = 0x000E;
    /// `EVENT_HEADER_EXT_TYPE_QPC_DELTA`.
    pub const QPC_DELTA: u16 = 0x000F;
    /// `EVENT_HEADER_EXT_TYPE_CONTAINER_ID`.
    pub const CONTAINER_ID: u16 = 0x0010;
    /// `EVENT_HEADER_EXT_TYPE_STACK_KEY32`.
    pub const STACK_KEY32: u16 = 0x0011;
    /// `EVENT_HEADER_EXT_TYPE_STACK_KEY64`.
    pub const STACK_KEY64: u16 = 0x0012;
}

/// `EVENT_HEADER` (EVT-18).
#[doc(alias = "EVENT_HEADER")]
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EventHeader {
    /// `Size`: header + extended items + user data, without the pad to 8.
    pub size: u16,
    /// `HeaderType` byte (0x13 for 64-bit EVENT_HEADER records in buffers).
    pub header_type: u16,
    /// `Flags` (`header_flags`).
    pub flags: u16,
    /// `EventProperty` (EVT-21).
    pub event_property: u16,
    /// `ThreadId` of the writer.
    pub thread_id: u32,
    /// `ProcessId` of the writer.
    pub process_id: u32,
    /// `TimeStamp`, in the session's clock (raw) or FILETIME after conversion (SES-65).
    pub timestamp: i64,
    /// `ProviderId`.
    pub provider_id: Guid,
    /// `EventDescriptor`.
    pub descriptor: EventDescriptor,
    /// `KernelTime` and `UserTime` (or the two halves of `ProcessorTime`).
    pub kernel_time: u32,
    /// `UserTime`.
    pub user_time: u32,
    /// `ActivityId`.
    pub activity_id: Guid,
}

/// One extended data item: its type and data (`EVENT_HEADER_EXTENDED_DATA_ITEM`, EVT-22).
#[doc(alias = "EVENT_HEADER_EXTENDED_DATA_ITEM")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtendedItem {
    /// `ExtType`.
    pub ext_type: u16,
    /// The item's data.
    pub data: Vec<u8>,
}

impl ExtendedItem {
    /// A RELATED_ACTIVITYID item.
    pub fn related_activity_id(id: Guid) -> ExtendedItem {
        ExtendedItem {
            ext_type: ext_type::RELATED_ACTIVITYID,
            data: id.to_bytes_le().to_vec(),
        }
    }

    /// A u64-valued item (EVENT_KEY, PROCESS_START_KEY, PSM_KEY…).
    pub fn u64_item(ext: u16, value: u64) -> ExtendedItem {
        ExtendedItem {
            ext_type: ext,
            data: value.to_le_bytes().to_vec(),
        }
    }

    /// Bytes this item takes in a record: 8 + data, padded to 8.
    pub fn encoded_len(&self) -> usize {
        8 + self.data.len().div_ceil(8) * 8
    }

    /// The data as a GUID, if it is 16 bytes.
    pub fn as_guid(&self) -> Option<Guid> {
        Some(Guid::from_bytes_le(self.data.get(..16)?.try_into().ok()?))
    }

    /// The data as a little-endian u64, if it is 8 bytes.
    pub fn as_u64(&self) -> Option<u64> {
        Some(u64::from_le_bytes(self.data.get(..8)?.try_into().ok()?))
    }

    /// The data as a little-endian u32, if it is at least 4 bytes.
    pub fn as_u32(&self) -> Option<u32> {
        Some(u32::from_le_bytes(self.data.get(..4)?.try_into().ok()?))
    }
}

/// `ETW_BUFFER_CONTEXT`: where the record came from (EVT-23).
#[doc(alias = "ETW_BUFFER_CONTEXT")]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct BufferContext {
    /// `ProcessorIndex`.
    pub processor_index: u16,
    /// `LoggerId`.
    pub logger_id: u16,
}

/// `EVENT_RECORD`: one event as a consumer receives it (EVT-23).
#[doc(alias = "EVENT_RECORD")]
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EventRecord {
    /// `EventHeader`.
    pub header: EventHeader,
    /// `BufferContext`.
    pub buffer_context: BufferContext,
    /// `ExtendedData` (`ExtendedDataCount` items).
    pub extended_data: Vec<ExtendedItem>,
    /// `UserData` (`UserDataLength` bytes).
    pub user_data: Vec<u8>,
}

impl EventRecord {
    /// The first extended item of type `ext`.
    pub fn extended(&self, ext: u16) -> Option<&ExtendedItem> {
        self.extended_data.iter().find(|i| i.ext_type == ext)
    }

    /// `true` for the RT_LostEvent markers ETW inserts into real-time streams (BUF-14).
    pub fn is_lost_event_marker(&self) -> bool {
        self.header.provider_id == Guid::RT_LOST_EVENT
    }
}

/// Bytes a record with these extended items and this much user data takes, unpadded.
pub fn record_size(items: &[ExtendedItem], user_data_len: usize) -> usize {
    EVENT_HEADER_SIZE + items.iter().map(ExtendedItem::encoded_len).sum::<usize>() + user_data_len
}

/// Rounds up to the record alignment.
pub const fn align8(n: usize) -> usize {
    (n + 7) & !7
}

/// Encodes the fixed 80-byte `EVENT_HEADER` of a record of `size` bytes.
pub fn encode_event_header(h: &EventHeader, out: &mut [u8; EVENT_HEADER_SIZE]) {
    out[0..2].copy_from_slice(&h.size.to_le_bytes());
    out[2] = 0x13; // EVENT_HEADER64
    out[3] = 0xC0; // TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE
    out[4..6].copy_from_slice(&h.flags.to_le_bytes());
    out[6..8].copy_from_slice(&h.event_property.to_le_bytes());
    out[8..12].copy_from_slice(&h.thread_id.to_le_bytes());
    out[12..16].copy_from_slice(&h.process_id.to_le_bytes());
    out[16..24].copy_from_slice(&h.timestamp.to_le_bytes());
    out[24..40].copy_from_slice(&h.provider_id.to_bytes_le());
    let d = &h.descriptor;
    out[40..42].copy_from_slice(&d.id.to_le_bytes());
    out[42] = d.version;
    out[43] = d.channel.0;
    out[44] = d.level.0;
    out[45] = d.opcode.0;
    out[46..48].copy_from_slice(&d.task.0.to_le_bytes());
    out[48..56].copy_from_slice(&d.keyword.0.to_le_bytes());
    out[56..60].copy_from_slice(&h.kernel_time.to_le_bytes());
    out[60..64].copy_from_slice(&h.user_time.to_le_bytes());
    out[64..80].copy_from_slice(&h.activity_id.to_bytes_le());
}

/// Encodes extended items (with Linkage and padding) into `out`, which must be exactly
/// the items' encoded length.
pub fn encode_items(items: &[ExtendedItem], out: &mut [u8]) {
    let mut off = 0;
    for (i, item) in items.iter().enumerate() {
        let len = item.encoded_len();
        let o = &mut out[off..off + len];
        o[0..2].copy_from_slice(&(len as u16).to_le_bytes());
        o[2..4].copy_from_slice(&item.ext_type.to_le_bytes());
        let linkage: u16 = if i + 1 < items.len() { 1 } else { 0 };
        o[4..6].copy_from_slice(&linkage.to_le_bytes());
        o[6..8].copy_from_slice(&(item.data.len() as u16).to_le_bytes());
        o[8..8 + item.data.len()].copy_from_slice(&item.data);
        o[8 + item.data.len()..].fill(0);
        off += len;
    }
}

/// Why a record could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad EVENT_HEADER record: {0}")]
pub struct RecordError(pub String);

fn le16(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn le32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// Decodes one EVENT_HEADER record from the start of `b`. Returns the record and the
/// bytes it occupies including its pad (so the next record starts there).
///
/// # Errors
/// A [`RecordError`] saying what was wrong and where; never panics on any input.
pub fn decode_event_record(
    b: &[u8],
    context: BufferContext,
) -> Result<(EventRecord, usize), RecordError> {
    if b.len() < EVENT_HEADER_SIZE {
        return Err(RecordError(format!(
            "{} bytes left, an EVENT_HEADER needs 80",
            b.len()
        )));
    }
    if b[2] != 0x13 && b[2] != 0x12 || b[3] != 0xC0 {
        return Err(RecordError(format!(
            "marker {:02x} {:02x} is not an EVENT_HEADER",
            b[2], b[3]
        )));
    }
    let size = usize::from(le16(b, 0));
    if size < EVENT_HEADER_SIZE || size > b.len() {
        return Err(RecordError(format!("Size {size} outside 80..={}", b.len())));
    }
    let flags = le16(b, 4);
    let guid = |o: usize| Guid::from_bytes_le(b[o..o + 16].try_into().expect("16 bytes"));
    let header = EventHeader {
        size: size as u16,
        header_type: u16::from(b[2]),
        flags,
        event_property: le16(b, 6),
        thread_id: le32(b, 8),
        process_id: le32(b, 12),
        timestamp: i64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
        provider_id: guid(24),
        descriptor: EventDescriptor {
            id: le16(b, 40),
            version: b[42],
            channel: Channel(b[43]),
            level: Level(b[44]),
            opcode: Opcode(b[45]),
            task: Task(le16(b, 46)),
            keyword: Keyword(u64::from_le_bytes(b[48..56].try_into().expect("8 bytes"))),
        },
        kernel_time: le32(b, 56),
        user_time: le32(b, 60),
        activity_id: guid(64),
    };
    let mut off = EVENT_HEADER_SIZE;
    let mut items = Vec::new();
    if flags & header_flags::EXTENDED_INFO != 0 {
        loop {
            if off + 8 > size {
                return Err(RecordError(format!(
                    "extended item at +{off} runs past Size {size}"
                )));
            }
            let item_size = usize::from(le16(b, off));
            let ext = le16(b, off + 2);
            let linkage = le16(b, off + 4) & 1;
            let data_size = usize::from(le16(b, off + 6));
            if item_size < 8
                || item_size % 8 != 0
                || data_size > item_size - 8
                || off + item_size > size
            {
                return Err(RecordError(format!(
                    "extended item at +{off}: ItemSize {item_size}, DataSize {data_size}, record Size {size}"
                )));
            }
            items.push(ExtendedItem {
                ext_type: ext,
                data: b[off + 8..off + 8 + data_size].to_vec(),
            });
            off += item_size;
            if linkage == 0 {
                break;
            }
        }
    }
    let record = EventRecord {
        header,
        buffer_context: context,
        extended_data: items,
        user_data: b[off..size].to_vec(),
    };
    Ok((record, align8(size).min(b.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips_through_bytes() {
        let items = vec![
            ExtendedItem::related_activity_id(Guid::RT_LOST_EVENT),
            ExtendedItem {
                ext_type: ext_type::TS_ID,
                data: 1u32.to_le_bytes().to_vec(),
            },
        ];
        let payload = b"hello etw";
        let size = record_size(&items, payload.len());
        let h = EventHeader {
            size: size as u16,
            flags: header_flags::EXTENDED_INFO,
            thread_id: 12,
            process_id: 8,
            timestamp: 1234,
            provider_id: Guid::SYSTEM_TRACE_CONTROL,
            descriptor: EventDescriptor::new(7, Level::ERROR, Keyword(0x10)),
            ..EventHeader::default()
        };
        let mut buf = vec![0u8; align8(size)];
        let mut head = [0u8; EVENT_HEADER_SIZE];
        encode_event_header(&h, &mut head);
        buf[..EVENT_HEADER_SIZE].copy_from_slice(&head);
        let ilen: usize = items.iter().map(ExtendedItem::encoded_len).sum();
        encode_items(
            &items,
            &mut buf[EVENT_HEADER_SIZE..EVENT_HEADER_SIZE + ilen],
        );
        buf[EVENT_HEADER_SIZE + ilen..size].copy_from_slice(payload);
        let (r, used) = decode_event_record(&buf, BufferContext::default()).unwrap();
        assert_eq!(used, align8(size));
        assert_eq!(r.header.descriptor, h.descriptor);
        assert_eq!(r.header.header_type, 0x13);
        assert_eq!(r.extended_data, items);
        assert_eq!(r.user_data, payload);
        for cut in 0..buf.len() {
            let _ = decode_event_record(&buf[..cut], BufferContext::default());
        }
    }
}

/// `WMI_BUFFER_HEADER` fields a writer fills (BUF-15, BUF-16; format reference §2.1).
#[doc(alias = "WMI_BUFFER_HEADER")]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct BufferHeader {
    /// `BufferSize` in bytes.
    pub buffer_size: u32,
    /// Bytes used, header included (`SavedOffset` = `CurrentOffset` = `Offset`).
    pub used: u32,
    /// `TimeStamp`: the session's raw clock at flush.
    pub timestamp: i64,
    /// `SequenceNumber`: 1, 2, 3… per session.
    pub sequence: i64,
    /// `ClientContext.ProcessorIndex`.
    pub processor: u16,
    /// `ClientContext.LoggerId`.
    pub logger_id: u16,
    /// `BufferFlag` (`buffer_flags`).
    pub flags: u16,
    /// `BufferType`: 0 GENERIC, 4 HEADER…
    pub buffer_type: u16,
}

/// `WMI_BUFFER_HEADER.BufferFlag` bits (BUF-15).
pub mod buffer_flags {
    /// `ETW_BUFFER_FLAG_FLUSH_MARKER`.
    pub const FLUSH_MARKER: u16 = 0x0001;
    /// `ETW_BUFFER_FLAG_EVENTS_LOST`.
    pub const EVENTS_LOST: u16 = 0x0002;
    /// `ETW_BUFFER_FLAG_BUFFER_LOST`.
    pub const BUFFER_LOST: u16 = 0x0004;
    /// `ETW_BUFFER_FLAG_RTBACKUP_CORRUPT`.
    pub const RTBACKUP_CORRUPT: u16 = 0x0008;
    /// `ETW_BUFFER_FLAG_RTBACKUP`.
    pub const RTBACKUP: u16 = 0x0010;
    /// `ETW_BUFFER_FLAG_PROC_INDEX`: ClientContext holds a 16-bit processor index.
    pub const PROC_INDEX: u16 = 0x0020;
    /// `ETW_BUFFER_FLAG_COMPRESSED` (never written by etwsim).
    pub const COMPRESSED: u16 = 0x0040;
}

impl BufferHeader {
    /// The 0x48 bytes of the header.
    pub fn encode(&self) -> [u8; BUFFER_HEADER_SIZE] {
        let mut o = [0u8; BUFFER_HEADER_SIZE];
        o[0x00..0x04].copy_from_slice(&self.buffer_size.to_le_bytes());
        o[0x04..0x08].copy_from_slice(&self.used.to_le_bytes());
        o[0x08..0x0C].copy_from_slice(&self.used.to_le_bytes());
        o[0x10..0x18].copy_from_slice(&self.timestamp.to_le_bytes());
        o[0x18..0x20].copy_from_slice(&self.sequence.to_le_bytes());
        o[0x28..0x2A].copy_from_slice(&self.processor.to_le_bytes());
        o[0x2A..0x2C].copy_from_slice(&self.logger_id.to_le_bytes());
        o[0x2C..0x30].copy_from_slice(&3u32.to_le_bytes());
        o[0x30..0x34].copy_from_slice(&self.used.to_le_bytes());
        o[0x34..0x36].copy_from_slice(&self.flags.to_le_bytes());
        o[0x36..0x38].copy_from_slice(&self.buffer_type.to_le_bytes());
        o
    }

    /// Reads a header; `None` if fewer than 0x48 bytes.
    pub fn decode(b: &[u8]) -> Option<BufferHeader> {
        if b.len() < BUFFER_HEADER_SIZE {
            return None;
        }
        Some(BufferHeader {
            buffer_size: le32(b, 0),
            used: le32(b, 0x30),
            timestamp: i64::from_le_bytes(b[0x10..0x18].try_into().ok()?),
            sequence: i64::from_le_bytes(b[0x18..0x20].try_into().ok()?),
            processor: le16(b, 0x28),
            logger_id: le16(b, 0x2A),
            flags: le16(b, 0x34),
            buffer_type: le16(b, 0x36),
        })
    }
}

/// Decodes every EVENT_HEADER record of one buffer (header included in `b`), in buffer
/// order. Stops at the first undecodable record and returns what came before with the error.
pub fn decode_buffer(b: &[u8]) -> (Vec<EventRecord>, Option<RecordError>) {
    let Some(h) = BufferHeader::decode(b) else {
        return (
            Vec::new(),
            Some(RecordError(
                "a buffer shorter than its 0x48-byte header".into(),
            )),
        );
    };
    let used = (h.used as usize).min(b.len());
    let ctx = BufferContext {
        processor_index: h.processor,
        logger_id: h.logger_id,
    };
    let mut out = Vec::new();
    let mut off = BUFFER_HEADER_SIZE;
    while off < used {
        match decode_event_record(&b[off..used], ctx) {
            Ok((r, n)) => {
                out.push(r);
                off += n;
            }
            Err(e) => {
                return (
                    out,
                    Some(RecordError(format!("at buffer offset {off:#x}: {}", e.0))),
                );
            }
        }
    }
    (out, None)
}

/// `TRACE_HEADER_TYPE_*`: byte 2 of a record's marker, which says how the record is laid
/// out (format reference §4; ntwmi.h).
pub mod header_type {
    /// `TRACE_HEADER_TYPE_SYSTEM32`: SYSTEM_TRACE_HEADER from a 32-bit logger.
    pub const SYSTEM32: u8 = 0x01;
    /// `TRACE_HEADER_TYPE_SYSTEM64`: SYSTEM_TRACE_HEADER, the logfile-header record's type.
    pub const SYSTEM64: u8 = 0x02;
    /// `TRACE_HEADER_TYPE_COMPACT32`: system header without KernelTime/UserTime.
    pub const COMPACT32: u8 = 0x03;
    /// `TRACE_HEADER_TYPE_COMPACT64`.
    pub const COMPACT64: u8 = 0x04;
    /// `TRACE_HEADER_TYPE_FULL_HEADER32`: classic `EVENT_TRACE_HEADER`.
    pub const FULL_HEADER32: u8 = 0x0A;
    /// `TRACE_HEADER_TYPE_INSTANCE32`: `EVENT_INSTANCE_GUID_HEADER`.
    pub const INSTANCE32: u8 = 0x0B;
    /// `TRACE_HEADER_TYPE_TIMED`.
    pub const TIMED: u8 = 0x0C;
    /// `TRACE_HEADER_TYPE_ERROR`.
    pub const ERROR: u8 = 0x0D;
    /// `TRACE_HEADER_TYPE_WNODE_HEADER`.
    pub const WNODE_HEADER: u8 = 0x0E;
    /// `TRACE_HEADER_TYPE_MESSAGE`: `MESSAGE_TRACE_HEADER` (WPP); on disk such records are
    /// recognised by marker byte 3 = 0x90, not by this value.
    pub const MESSAGE: u8 = 0x0F;
    /// `TRACE_HEADER_TYPE_PERFINFO32`: `PERFINFO_TRACE_HEADER`.
    pub const PERFINFO32: u8 = 0x10;
    /// `TRACE_HEADER_TYPE_PERFINFO64`.
    pub const PERFINFO64: u8 = 0x11;
    /// `TRACE_HEADER_TYPE_EVENT_HEADER32`: `EVENT_HEADER` from a 32-bit process.
    pub const EVENT_HEADER32: u8 = 0x12;
    /// `TRACE_HEADER_TYPE_EVENT_HEADER64`: `EVENT_HEADER`, what etwsim writes.
    pub const EVENT_HEADER64: u8 = 0x13;
    /// `TRACE_HEADER_TYPE_FULL_HEADER64`: classic `EVENT_TRACE_HEADER`.
    pub const FULL_HEADER64: u8 = 0x14;
    /// `TRACE_HEADER_TYPE_INSTANCE64`: `EVENT_INSTANCE_GUID_HEADER`.
    pub const INSTANCE64: u8 = 0x15;
}

/// Byte 3 of a trace header's marker: `TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE`.
pub const TRACE_HEADER_MARKER: u8 = 0xC0;
/// Byte 3 of a trace message's marker: `TRACE_HEADER_FLAG | TRACE_MESSAGE`.
pub const TRACE_MESSAGE_MARKER: u8 = 0x90;

/// `WMI_BUFFER_HEADER.BufferType` values (BUF-15).
pub mod buffer_type {
    /// `EtwBufferTypeGeneric`: a data buffer.
    pub const GENERIC: u16 = 0;
    /// `EtwBufferTypeRundown`.
    pub const RUNDOWN: u16 = 1;
    /// `EtwBufferTypeCtxSwap`.
    pub const CTX_SWAP: u16 = 2;
    /// `EtwBufferTypeRefTime`.
    pub const REFTIME: u16 = 3;
    /// `EtwBufferTypeHeader`: buffer 0 of a file, holding the logfile header.
    pub const HEADER: u16 = 4;
    /// `EtwBufferTypeBatched`.
    pub const BATCHED: u16 = 5;
    /// `EtwBufferTypeEmptyMarker`.
    pub const EMPTY_MARKER: u16 = 6;
    /// `EtwBufferTypeDbgInfo`.
    pub const DBG_INFO: u16 = 7;
}

/// FILETIME of 2026-01-01T00:00:00Z: where deterministic time starts, and the default
/// `StartTime` of a log file.
pub const DETERMINISTIC_BOOT_FILETIME: i64 = 134_116_992_000_000_000;

/// `PerfFreq` the simulator reports: QPC ticks per second (10 MHz, as on Windows 10+, so one
/// tick is 100 ns). Same value as the kernel clock's `QPC_FREQUENCY`.
pub const QPC_FREQUENCY: u64 = 10_000_000;
/// `CpuSpeedInMHz` the simulator reports. Same value as the kernel clock's `CPU_SPEED_MHZ`.
pub const CPU_SPEED_MHZ: u64 = 3000;

/// FILETIME of 1970-01-01T00:00:00Z.
const UNIX_EPOCH_AS_FILETIME: i128 = 116_444_736_000_000_000;

/// A FILETIME (100-ns intervals since 1601-01-01 UTC) as ISO 8601 text with all seven
/// fractional digits, `2026-01-01T00:00:00.0000010Z`. Total over `i64`: a nonsense value
/// gives a nonsense date, never a panic.
pub fn filetime_utc(ft: i64) -> String {
    let t = i128::from(ft) - UNIX_EPOCH_AS_FILETIME;
    let (secs, frac) = (t.div_euclid(10_000_000), t.rem_euclid(10_000_000));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's `civil_from_days`).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i128::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{frac:07}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
