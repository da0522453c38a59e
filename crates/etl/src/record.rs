//! Records inside a buffer: every kind real `.etl` files contain (format reference §4, §5).
//!
//! A record starts with a 32-bit marker. Byte 3 is `0xC0` for trace headers — then byte 2,
//! the `HeaderType`, selects the layout — or `0x90` for WPP trace messages:
//!
//! | HeaderType | layout | fixed size | where Size lives |
//! |---|---|---|---|
//! | 0x01 / 0x02 | `SYSTEM_TRACE_HEADER` 32/64 | 0x20 | bytes 4–5 (HookId 6–7) |
//! | 0x03 / 0x04 | compact system header 32/64 | 0x18 | bytes 4–5 |
//! | 0x10 / 0x11 | `PERFINFO_TRACE_HEADER` 32/64 | 0x10 | bytes 4–5 |
//! | 0x0A / 0x14 | `EVENT_TRACE_HEADER` (classic) 32/64 | 0x30 | bytes 0–1 |
//! | 0x0B / 0x15 | `EVENT_INSTANCE_GUID_HEADER` 32/64 | 0x48 | bytes 0–1 |
//! | 0x12 / 0x13 | `EVENT_HEADER` 32/64 | 0x50 | bytes 0–1 |
//! | (byte 3 = 0x90) | `MESSAGE_TRACE_HEADER` (WPP) | 8 + options | bytes 0–1 |
//!
//! `EVENT_HEADER` records decode to the shared [`EventRecord`]; every other kind decodes to a
//! [`Trace`] (the decoder, shared with the borrowed [`RecordView`](crate::RecordView),
//! is in `view.rs`). Each record starts 8-byte aligned; `Size` excludes the pad. The system
//! and perfinfo headers' Version word announces extra 8-byte words after the fixed header
//! (bit 0x8000: one, bits 0x0700: that many more) — they are kept apart from the payload in
//! [`Trace::extended_header`]. A marker of `0xFFFFFFFF` ends a buffer's records.
//!
//! [`Trace`] is one struct over its byte storage: [`TraceRecord`] (`Trace<Vec<u8>>`) owns
//! the extra words and payload, [`TraceView`] (`Trace<&[u8]>`) borrows them from the buffer
//! they were read from. Both are type aliases, so `TraceRecord { .. }` and `TraceView { .. }`
//! build them and their fields read the same; the accessors, the encoder and the
//! conversion to an [`EventRecord`] are written once, for any `B: AsRef<[u8]>`.

use crate::bytes::PutLe;
use crate::error::{Error, Result};
use crate::view::TraceView;
use etwsim_types::record::{
    EVENT_HEADER_SIZE, TRACE_HEADER_MARKER, TRACE_MESSAGE_MARKER, align8, encode_event_header,
    encode_items, header_flags, header_type, record_size,
};
use etwsim_types::{BufferContext, EventRecord, Guid};

/// The layout family of a record (format reference §4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// `EVENT_HEADER`: manifest, TraceLogging and EventSource events ([`EventRecord`]).
    Event,
    /// `SYSTEM_TRACE_HEADER`: kernel (MOF) events and the logfile header.
    System,
    /// The compact system header: a system header without KernelTime/UserTime.
    CompactSystem,
    /// `PERFINFO_TRACE_HEADER`: kernel performance events (no thread or process id).
    PerfInfo,
    /// `EVENT_TRACE_HEADER`: classic (MOF) provider events.
    Classic,
    /// `EVENT_INSTANCE_GUID_HEADER`: classic instance events.
    InstanceGuid,
    /// `MESSAGE_TRACE_HEADER`: WPP trace messages.
    Message,
}

impl RecordKind {
    /// The kind a `HeaderType` byte announces; `None` for types with no decoder (TIMED,
    /// ERROR, WNODE) and unknown values.
    pub fn from_header_type(t: u8) -> Option<RecordKind> {
        use header_type as h;
        Some(match t {
            h::SYSTEM32 | h::SYSTEM64 => RecordKind::System,
            h::COMPACT32 | h::COMPACT64 => RecordKind::CompactSystem,
            h::PERFINFO32 | h::PERFINFO64 => RecordKind::PerfInfo,
            h::FULL_HEADER32 | h::FULL_HEADER64 => RecordKind::Classic,
            h::INSTANCE32 | h::INSTANCE64 => RecordKind::InstanceGuid,
            h::EVENT_HEADER32 | h::EVENT_HEADER64 => RecordKind::Event,
            h::MESSAGE => RecordKind::Message,
            _ => return None,
        })
    }

    /// Bytes of the fixed header (for messages: without the optional fields).
    pub fn fixed_size(self) -> usize {
        match self {
            RecordKind::Event => EVENT_HEADER_SIZE,
            RecordKind::System => 0x20,
            RecordKind::CompactSystem => 0x18,
            RecordKind::PerfInfo => 0x10,
            RecordKind::Classic => 0x30,
            RecordKind::InstanceGuid => 0x48,
            RecordKind::Message => 0x08,
        }
    }

    /// The Windows name of the header structure.
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Event => "EVENT_HEADER",
            RecordKind::System => "SYSTEM_TRACE_HEADER",
            RecordKind::CompactSystem => "compact SYSTEM_TRACE_HEADER",
            RecordKind::PerfInfo => "PERFINFO_TRACE_HEADER",
            RecordKind::Classic => "EVENT_TRACE_HEADER",
            RecordKind::InstanceGuid => "EVENT_INSTANCE_GUID_HEADER",
            RecordKind::Message => "MESSAGE_TRACE_HEADER",
        }
    }
}

/// `TRACE_MESSAGE_*` option flags of a WPP message (format reference §4).
pub mod message_flags {
    /// `TRACE_MESSAGE_SEQUENCE`: a u32 sequence number follows.
    pub const SEQUENCE: u16 = 0x0001;
    /// `TRACE_MESSAGE_GUID`: a 16-byte GUID follows.
    pub const GUID: u16 = 0x0002;
    /// `TRACE_MESSAGE_COMPONENTID`: a u32 component id instead of the GUID.
    pub const COMPONENT_ID: u16 = 0x0004;
    /// `TRACE_MESSAGE_TIMESTAMP`: an i64 timestamp follows.
    pub const TIMESTAMP: u16 = 0x0008;
    /// `TRACE_MESSAGE_PERFORMANCE_TIMESTAMP`: the timestamp is a performance-counter value.
    pub const PERFORMANCE_TIMESTAMP: u16 = 0x0010;
    /// `TRACE_MESSAGE_SYSTEMINFO`: u32 thread id and u32 process id follow.
    pub const SYSTEMINFO: u16 = 0x0020;
    /// `TRACE_MESSAGE_POINTER32`: arguments come from a 32-bit process.
    pub const POINTER32: u16 = 0x0040;
    /// `TRACE_MESSAGE_POINTER64`: arguments come from a 64-bit process.
    pub const POINTER64: u16 = 0x0080;
}

/// The instance fields of an `EVENT_INSTANCE_GUID_HEADER`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct InstanceInfo {
    /// `InstanceId`.
    pub instance_id: u32,
    /// `ParentInstanceId`.
    pub parent_instance_id: u32,
    /// `ParentGuid`.
    pub parent_guid: Guid,
}

/// The WPP-specific fields of a `MESSAGE_TRACE_HEADER`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct MessageInfo {
    /// `OptionFlags` ([`message_flags`]): which optional fields are present.
    pub option_flags: u16,
    /// The sequence number (`SEQUENCE`).
    pub sequence: Option<u32>,
    /// The component id (`COMPONENT_ID`).
    pub component_id: Option<u32>,
}

/// A record that is not an `EVENT_HEADER` record — kernel system and perfinfo events, classic
/// (MOF) events, instance events and WPP messages — over its byte storage `B`.
///
/// One definition for both shapes a record takes: [`TraceRecord`] (`Trace<Vec<u8>>`) owns
/// its extra words and payload; [`TraceView`] (`Trace<&[u8]>`) borrows them from the buffer
/// it was read from. The header fields are the same values either way, and every method
/// works on both (`B: AsRef<[u8]>`): [`to_trace_record`](Self::to_trace_record) copies
/// either out, [`as_view`](Self::as_view) borrows either.
///
/// Fields a layout lacks are `None` or 0; [`kind`](Self::kind) says which layout it was.
#[doc(alias = "SYSTEM_TRACE_HEADER")]
#[doc(alias = "EVENT_TRACE_HEADER")]
#[doc(alias = "PERFINFO_TRACE_HEADER")]
#[doc(alias = "MESSAGE_TRACE_HEADER")]
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Trace<B = Vec<u8>> {
    /// The `HeaderType` byte ([`header_type`]); `header_type::MESSAGE` for WPP messages.
    pub header_type: u8,
    /// System/perfinfo: the `Version` word; classic/instance: `Class.Version`; WPP: 0.
    pub version: u16,
    /// System/perfinfo: `HookId` (group in the high byte, event type in the low byte);
    /// classic/instance: `Class.Type`; WPP: `MessageNumber`.
    pub hook_id: u16,
    /// Classic/instance: `Class.Level`; otherwise 0.
    pub level: u8,
    /// Classic/instance: the event GUID; WPP: the message GUID when present.
    pub guid: Option<Guid>,
    /// `ThreadId`, when the layout has one.
    pub thread_id: Option<u32>,
    /// `ProcessId`, when the layout has one.
    pub process_id: Option<u32>,
    /// `SystemTime` / `TimeStamp`: raw clock, or FILETIME after conversion (SES-65; views
    /// are always raw).
    pub timestamp: Option<i64>,
    /// `KernelTime` (system and classic layouts).
    pub kernel_time: u32,
    /// `UserTime` (system and classic layouts).
    pub user_time: u32,
    /// Instance fields of an `EVENT_INSTANCE_GUID_HEADER`.
    pub instance: Option<InstanceInfo>,
    /// WPP fields of a `MESSAGE_TRACE_HEADER`.
    pub message: Option<MessageInfo>,
    /// System/perfinfo: the extra 8-byte words the Version word announces (PMC counters and
    /// similar), between the fixed header and the payload.
    pub extended_header: B,
    /// The buffer the record came from.
    pub buffer_context: BufferContext,
    /// The payload (MOF data, message arguments…).
    pub payload: B,
}

/// A [`Trace`] record that owns its bytes: what [`LogFile::records`](crate::LogFile::records)
/// and the [`Reader`](crate::Reader) yield, and what writers encode.
pub type TraceRecord = Trace<Vec<u8>>;

impl<B: AsRef<[u8]>> Trace<B> {
    /// The record as ProcessTrace presents a non-`EVENT_HEADER` record in EVENT_RECORD mode
    /// (CON-02, KRN-13):
    ///
    /// * system, compact and perfinfo (kernel) records: `ProviderId` = the class GUID of the
    ///   `HookId` group ([`etwsim_types::KernelClass`], KRN-12; SystemTraceControlGuid for a
    ///   group the table does not name), `Opcode` = the event type, `Version` = the header's
    ///   version byte, `Id`, `Level`, `Keyword`, `Channel` 0; perfinfo records, which carry no
    ///   process or thread, get 0xFFFFFFFF for both (KRN-15). The log file's header record is
    ///   one of these (EventTraceGuid, type 0: BUF-17);
    /// * classic and instance records: `ProviderId` = the event GUID, `Opcode` = `Class.Type`,
    ///   `Version` = `Class.Version`, `Level` = `Class.Level`; an instance record also carries
    ///   an `INSTANCE_INFO` extended item ({InstanceId, ParentInstanceId, ParentGuid});
    /// * WPP messages: `ProviderId` = the message GUID, `Id` = the message number, the
    ///   TRACE_MESSAGE flag.
    ///
    /// Every one but the WPP message has `EVENT_HEADER_FLAG_CLASSIC_HEADER`, and all carry
    /// the 32- or 64-bit header flag of their writer.
    pub fn to_event_record(&self) -> EventRecord {
        use etwsim_types::{EventDescriptor, ExtendedItem, KernelClass, Keyword, Level, Opcode};
        let kind = self.kind();
        let system_like = matches!(
            kind,
            Some(RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo)
        );
        let mut flags = match self.pointer_size() {
            Some(4) => header_flags::HEADER_32_BIT,
            Some(_) => header_flags::HEADER_64_BIT,
            None => 0,
        };
        let mut descriptor = EventDescriptor::new(0, Level(0), Keyword(0));
        let mut extended_data = Vec::new();
        let provider_id = if kind == Some(RecordKind::Message) {
            flags |= header_flags::TRACE_MESSAGE;
            descriptor.id = self.hook_id;
            self.guid.unwrap_or(Guid::NULL)
        } else {
            flags |= header_flags::CLASSIC_HEADER;
            descriptor.opcode = Opcode(self.event_type());
            descriptor.version = self.version as u8;
            if system_like {
                KernelClass::by_group(self.group()).map_or(Guid::SYSTEM_TRACE_CONTROL, |c| c.guid)
            } else {
                descriptor.level = Level(self.level);
                if let Some(i) = self.instance {
                    let mut data = Vec::with_capacity(24);
                    data.extend_from_slice(&i.instance_id.to_le_bytes());
                    data.extend_from_slice(&i.parent_instance_id.to_le_bytes());
                    data.extend_from_slice(&i.parent_guid.to_bytes_le());
                    extended_data.push(ExtendedItem {
                        ext_type: etwsim_types::record::ext_type::INSTANCE_INFO,
                        data,
                    });
                    flags |= header_flags::EXTENDED_INFO;
                }
                self.guid.unwrap_or(Guid::NULL)
            }
        };
        let unknown = u32::MAX; // KRN-15: perfinfo records have no thread or process
        EventRecord {
            header: etwsim_types::EventHeader {
                size: (EVENT_HEADER_SIZE + self.payload_len()).min(usize::from(u16::MAX)) as u16,
                header_type: u16::from(self.header_type),
                flags,
                event_property: 0,
                thread_id: self.thread_id.unwrap_or(unknown),
                process_id: self.process_id.unwrap_or(unknown),
                timestamp: self.timestamp.unwrap_or(0),
                provider_id,
                descriptor,
                kernel_time: self.kernel_time,
                user_time: self.user_time,
                activity_id: Guid::NULL,
            },
            buffer_context: self.buffer_context,
            extended_data,
            user_data: self.payload.as_ref().to_vec(),
        }
    }

    /// The layout family; `None` for a `header_type` no layout has.
    #[inline]
    pub fn kind(&self) -> Option<RecordKind> {
        RecordKind::from_header_type(self.header_type).filter(|k| *k != RecordKind::Event)
    }

    /// The group (high byte of the HookId) of a system or perfinfo record.
    #[inline]
    pub fn group(&self) -> u8 {
        (self.hook_id >> 8) as u8
    }

    /// The event type / opcode: the HookId's low byte for system and perfinfo records,
    /// `Class.Type` for classic ones.
    #[inline]
    pub fn event_type(&self) -> u8 {
        self.hook_id as u8
    }

    /// Bytes of payload.
    #[inline]
    pub fn payload_len(&self) -> usize {
        self.payload.as_ref().len()
    }

    /// Pointer size of the writer: from the header type, or from a message's POINTER flags.
    #[inline]
    pub fn pointer_size(&self) -> Option<u8> {
        use header_type as h;
        match self.header_type {
            h::SYSTEM32 | h::COMPACT32 | h::PERFINFO32 | h::FULL_HEADER32 | h::INSTANCE32 => {
                Some(4)
            }
            h::SYSTEM64 | h::COMPACT64 | h::PERFINFO64 | h::FULL_HEADER64 | h::INSTANCE64 => {
                Some(8)
            }
            _ => {
                let f = self.message.map_or(0, |m| m.option_flags);
                if f & message_flags::POINTER64 != 0 {
                    Some(8)
                } else if f & message_flags::POINTER32 != 0 {
                    Some(4)
                } else {
                    None
                }
            }
        }
    }

    /// Bytes the encoded record takes, unpadded (its `Size`).
    pub fn encoded_len(&self) -> usize {
        let Some(kind) = self.kind() else { return 0 };
        let options = match (kind, self.message) {
            (RecordKind::Message, Some(m)) => message_options_len(m.option_flags),
            _ => 0,
        };
        kind.fixed_size() + options + self.extended_header.as_ref().len() + self.payload_len()
    }

    /// Encodes the record (`Size` = [`encoded_len`](Self::encoded_len), not padded).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a header type no layout has, an extended header on a
    /// layout without one or not a whole number of 8-byte words, a record above 65,535 bytes.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let kind = self.kind().ok_or_else(|| {
            Error::InvalidOption(format!(
                "header type {:#04x} has no TraceRecord layout",
                self.header_type
            ))
        })?;
        let size = self.encoded_len();
        let size16 = u16::try_from(size).map_err(|_| Error::RecordTooLarge {
            size,
            max: usize::from(u16::MAX),
        })?;
        let ext = self.extended_header.as_ref();
        let system_like = matches!(
            kind,
            RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo
        );
        if !ext.is_empty() && (!system_like || ext.len() % 8 != 0 || ext.len() / 8 > 8) {
            return Err(Error::InvalidOption(format!(
                "an extended header of {} bytes on a {} (whole 8-byte words, at most 8, \
                 system and perfinfo layouts only)",
                ext.len(),
                kind.name()
            )));
        }
        let mut o = Vec::with_capacity(align8(size));
        let tid = self.thread_id.unwrap_or(0);
        let pid = self.process_id.unwrap_or(0);
        let ts = self.timestamp.unwrap_or(0);
        match kind {
            RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo => {
                // The Version word carries the extra-word count (0x8000 = one, 0x0700 = more).
                let words = (ext.len() / 8) as u16;
                let version = (self.version & !0x8700)
                    | match words {
                        0 => 0,
                        n => 0x8000 | ((n - 1) << 8),
                    };
                o.put_u16(version);
                o.push(self.header_type);
                o.push(TRACE_HEADER_MARKER);
                o.put_u16(size16);
                o.put_u16(self.hook_id);
                if kind != RecordKind::PerfInfo {
                    o.put_u32(tid);
                    o.put_u32(pid);
                }
                o.put_i64(ts);
                if kind == RecordKind::System {
                    o.put_u32(self.kernel_time);
                    o.put_u32(self.user_time);
                }
                o.extend_from_slice(ext);
            }
            RecordKind::Classic | RecordKind::InstanceGuid => {
                o.put_u16(size16);
                o.push(self.header_type);
                o.push(TRACE_HEADER_MARKER);
                o.push(self.hook_id as u8);
                o.push(self.level);
                o.put_u16(self.version);
                o.put_u32(tid);
                o.put_u32(pid);
                o.put_i64(ts);
                o.extend_from_slice(&self.guid.unwrap_or_default().to_bytes_le());
                o.put_u32(self.kernel_time);
                o.put_u32(self.user_time);
                if kind == RecordKind::InstanceGuid {
                    let i = self.instance.unwrap_or_default();
                    o.put_u32(i.instance_id);
                    o.put_u32(i.parent_instance_id);
                    o.extend_from_slice(&i.parent_guid.to_bytes_le());
                }
            }
            RecordKind::Message => {
                let m = self.message.unwrap_or_default();
                let f = m.option_flags;
                o.put_u16(size16);
                o.push(0);
                o.push(TRACE_MESSAGE_MARKER);
                o.put_u16(self.hook_id);
                o.put_u16(f);
                if f & message_flags::SEQUENCE != 0 {
                    o.put_u32(m.sequence.unwrap_or(0));
                }
                if f & message_flags::COMPONENT_ID != 0 {
                    o.put_u32(m.component_id.unwrap_or(0));
                } else if f & message_flags::GUID != 0 {
                    o.extend_from_slice(&self.guid.unwrap_or_default().to_bytes_le());
                }
                if f & message_flags::TIMESTAMP != 0 {
                    o.put_i64(ts);
                }
                if f & message_flags::SYSTEMINFO != 0 {
                    o.put_u32(tid);
                    o.put_u32(pid);
                }
            }
            // `kind()` never returns Event: EVENT_HEADER records are `EventRecord`s.
            RecordKind::Event => {}
        }
        o.extend_from_slice(self.payload.as_ref());
        debug_assert_eq!(o.len(), size);
        Ok(o)
    }

    /// An owned copy: the same fields, the extra words and payload copied out (for a
    /// [`TraceRecord`], a clone). `TraceRecord::from(&view)` says the same.
    pub fn to_trace_record(&self) -> TraceRecord {
        self.with_bytes(
            self.extended_header.as_ref().to_vec(),
            self.payload.as_ref().to_vec(),
        )
    }

    /// The record borrowed as a [`TraceView`]: the same fields, the extra words and payload
    /// as slices of this record's (so code written for views takes owned records too).
    #[inline]
    pub fn as_view(&self) -> TraceView<'_> {
        self.with_bytes(self.extended_header.as_ref(), self.payload.as_ref())
    }

    /// The header fields over other byte storage: the one place a conversion lists them.
    #[inline]
    fn with_bytes<C>(&self, extended_header: C, payload: C) -> Trace<C> {
        Trace {
            header_type: self.header_type,
            version: self.version,
            hook_id: self.hook_id,
            level: self.level,
            guid: self.guid,
            thread_id: self.thread_id,
            process_id: self.process_id,
            timestamp: self.timestamp,
            kernel_time: self.kernel_time,
            user_time: self.user_time,
            instance: self.instance,
            message: self.message,
            extended_header,
            buffer_context: self.buffer_context,
            payload,
        }
    }
}

impl<B: AsRef<[u8]>> From<&Trace<B>> for TraceRecord {
    fn from(t: &Trace<B>) -> TraceRecord {
        t.to_trace_record()
    }
}

fn message_options_len(f: u16) -> usize {
    let mut n = 0;
    if f & message_flags::SEQUENCE != 0 {
        n += 4;
    }
    if f & message_flags::COMPONENT_ID != 0 {
        n += 4;
    } else if f & message_flags::GUID != 0 {
        n += 16;
    }
    if f & message_flags::TIMESTAMP != 0 {
        n += 8;
    }
    if f & message_flags::SYSTEMINFO != 0 {
        n += 8;
    }
    n
}

/// One record of any kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// An `EVENT_HEADER` record.
    Event(EventRecord),
    /// Any other kind.
    Trace(TraceRecord),
}

impl Record {
    /// The record as ProcessTrace hands it to an `EventRecordCallback` (CON-02, KRN-13): an
    /// `EVENT_HEADER` record as it is; every other layout through
    /// [`TraceRecord::to_event_record`].
    pub fn into_event_record(self) -> EventRecord {
        match self {
            Record::Event(e) => e,
            Record::Trace(t) => t.to_event_record(),
        }
    }

    /// The record's layout family.
    pub fn kind(&self) -> Option<RecordKind> {
        match self {
            Record::Event(_) => Some(RecordKind::Event),
            Record::Trace(t) => t.kind(),
        }
    }

    /// The timestamp, if the record has one (WPP messages may not).
    pub fn timestamp(&self) -> Option<i64> {
        match self {
            Record::Event(e) => Some(e.header.timestamp),
            Record::Trace(t) => t.timestamp,
        }
    }

    pub(crate) fn set_timestamp(&mut self, ts: i64) {
        match self {
            Record::Event(e) => e.header.timestamp = ts,
            Record::Trace(t) => {
                if t.timestamp.is_some() {
                    t.timestamp = Some(ts);
                }
            }
        }
    }

    /// The buffer the record came from.
    pub fn buffer_context(&self) -> BufferContext {
        match self {
            Record::Event(e) => e.buffer_context,
            Record::Trace(t) => t.buffer_context,
        }
    }

    /// Process id, when the layout has one.
    pub fn process_id(&self) -> Option<u32> {
        match self {
            Record::Event(e) => Some(e.header.process_id),
            Record::Trace(t) => t.process_id,
        }
    }

    /// Thread id, when the layout has one.
    pub fn thread_id(&self) -> Option<u32> {
        match self {
            Record::Event(e) => Some(e.header.thread_id),
            Record::Trace(t) => t.thread_id,
        }
    }

    /// Bytes of payload (user data; an event's extended items are not counted).
    pub fn payload_len(&self) -> usize {
        match self {
            Record::Event(e) => e.user_data.len(),
            Record::Trace(t) => t.payload.len(),
        }
    }

    /// The event, if this is an `EVENT_HEADER` record.
    pub fn as_event(&self) -> Option<&EventRecord> {
        match self {
            Record::Event(e) => Some(e),
            Record::Trace(_) => None,
        }
    }

    /// The trace record, if this is not an `EVENT_HEADER` record.
    pub fn as_trace(&self) -> Option<&TraceRecord> {
        match self {
            Record::Event(_) => None,
            Record::Trace(t) => Some(t),
        }
    }

    /// Encodes the record (`Size` bytes, not padded).
    ///
    /// # Errors
    /// As [`encode_event`] and [`TraceRecord::encode`].
    pub fn encode(&self) -> Result<Vec<u8>> {
        match self {
            Record::Event(e) => encode_event(e),
            Record::Trace(t) => t.encode(),
        }
    }
}

impl From<EventRecord> for Record {
    fn from(e: EventRecord) -> Record {
        Record::Event(e)
    }
}

impl From<TraceRecord> for Record {
    fn from(t: TraceRecord) -> Record {
        Record::Trace(t)
    }
}

/// Encodes an `EVENT_HEADER` record as a writer stores it (format reference §5, §6): `Size`
/// is computed, `Flags` gets EXTENDED_INFO exactly when there are items and loses the flags
/// consumers derive (`header_flags::ON_DISK`), HeaderType is 0x13.
///
/// # Errors
/// [`Error::RecordTooLarge`] above 65,535 bytes (EVT-05); [`Error::InvalidOption`] for an
/// extended item whose data exceeds 65,535 − 8 bytes.
pub fn encode_event(e: &EventRecord) -> Result<Vec<u8>> {
    let size = record_size(&e.extended_data, e.user_data.len());
    let size16 = u16::try_from(size).map_err(|_| Error::RecordTooLarge {
        size,
        max: usize::from(u16::MAX),
    })?;
    if let Some(i) = e.extended_data.iter().find(|i| i.encoded_len() > 0xFFFF) {
        return Err(Error::InvalidOption(format!(
            "extended item type {} has {} bytes of data",
            i.ext_type,
            i.data.len()
        )));
    }
    let mut h = e.header.clone();
    h.size = size16;
    h.flags &= header_flags::ON_DISK;
    if e.extended_data.is_empty() {
        h.flags &= !header_flags::EXTENDED_INFO;
    } else {
        h.flags |= header_flags::EXTENDED_INFO;
    }
    let mut out = vec![0u8; size];
    let mut head = [0u8; EVENT_HEADER_SIZE];
    encode_event_header(&h, &mut head);
    out[..EVENT_HEADER_SIZE].copy_from_slice(&head);
    let items_end = size - e.user_data.len();
    encode_items(&e.extended_data, &mut out[EVENT_HEADER_SIZE..items_end]);
    out[items_end..].copy_from_slice(&e.user_data);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Bytes;
    use crate::view::{RecordView, frame};
    use etwsim_types::{EventDescriptor, EventHeader, ExtendedItem, Keyword, Level};

    #[derive(Debug)]
    enum Decoded {
        Record(Record, usize),
        End,
    }

    /// The crate's decoder, framing then viewing, as the readers use it.
    fn decode_record(b: Bytes<'_>, ctx: BufferContext) -> Result<Decoded> {
        Ok(match frame(b)? {
            Some(f) => Decoded::Record(f.view(ctx).to_record(), f.used),
            None => Decoded::End,
        })
    }

    fn decode(bytes: &[u8]) -> Record {
        let mut v = bytes.to_vec();
        v.resize(align8(v.len()), 0);
        match decode_record(Bytes::new(&v, 0), BufferContext::default()).unwrap() {
            Decoded::Record(r, used) => {
                assert_eq!(used, align8(bytes.len()));
                r
            }
            Decoded::End => panic!("end marker"),
        }
    }

    fn samples() -> Vec<TraceRecord> {
        let base = TraceRecord {
            thread_id: Some(7),
            process_id: Some(9),
            timestamp: Some(123_456),
            payload: b"payload!!".to_vec(),
            ..TraceRecord::default()
        };
        vec![
            TraceRecord {
                header_type: header_type::SYSTEM64,
                version: 2,
                hook_id: 0x0524,
                kernel_time: 3,
                user_time: 4,
                ..base.clone()
            },
            TraceRecord {
                header_type: header_type::SYSTEM32,
                version: 0x8102, // two extra words
                hook_id: 0x0301,
                extended_header: vec![1; 16],
                ..base.clone()
            },
            TraceRecord {
                header_type: header_type::COMPACT64,
                version: 2,
                hook_id: 0x0524,
                ..base.clone()
            },
            TraceRecord {
                header_type: header_type::PERFINFO64,
                version: 0x8002, // one extra word
                hook_id: 0x0F2E,
                thread_id: None,
                process_id: None,
                extended_header: vec![2; 8],
                ..base.clone()
            },
            TraceRecord {
                header_type: header_type::FULL_HEADER64,
                version: 1,
                hook_id: 10,
                level: 4,
                guid: Some(Guid::EVENT_TRACE_CONFIG),
                kernel_time: 5,
                ..base.clone()
            },
            TraceRecord {
                header_type: header_type::INSTANCE32,
                hook_id: 11,
                guid: Some(Guid::GLOBAL_LOGGER),
                instance: Some(InstanceInfo {
                    instance_id: 1,
                    parent_instance_id: 2,
                    parent_guid: Guid::RT_LOST_EVENT,
                }),
                ..base.clone()
            },
            TraceRecord {
                header_type: header_type::MESSAGE,
                hook_id: 12,
                guid: Some(Guid::SYSTEM_TRACE_CONTROL),
                message: Some(MessageInfo {
                    option_flags: 0x2B,
                    sequence: Some(77),
                    component_id: None,
                }),
                ..base.clone()
            },
            TraceRecord {
                header_type: header_type::MESSAGE,
                hook_id: 13,
                thread_id: None,
                process_id: None,
                timestamp: None,
                message: Some(MessageInfo {
                    option_flags: message_flags::COMPONENT_ID,
                    sequence: None,
                    component_id: Some(5),
                }),
                ..base
            },
        ]
    }

    #[test]
    fn every_trace_kind_round_trips() {
        for t in samples() {
            let bytes = t.encode().unwrap();
            assert_eq!(bytes.len(), t.encoded_len());
            assert_eq!(decode(&bytes), Record::Trace(t.clone()), "{:?}", t.kind());
            for cut in 0..bytes.len() {
                let _ = decode_record(Bytes::new(&bytes[..cut], 0), BufferContext::default());
            }
        }
    }

    #[test]
    fn a_view_and_its_owned_copy_are_one_record() {
        // `TraceView` and `TraceRecord` are one struct: every method gives the same answer
        // on a view of the encoded bytes as on the record, and the conversions are inverse.
        for t in samples() {
            let bytes = t.encode().unwrap();
            let mut padded = bytes.clone();
            padded.resize(align8(bytes.len()), 0);
            let f = frame(Bytes::new(&padded, 0)).unwrap().unwrap();
            let RecordView::Trace(v) = f.view(BufferContext::default()) else {
                panic!("{:?} framed as an event", t.kind())
            };
            assert_eq!(v.to_trace_record(), t);
            assert_eq!(TraceRecord::from(&v), t);
            assert_eq!(t.as_view(), v);
            assert_eq!(t.to_trace_record(), t);
            assert_eq!(v.encode().unwrap(), bytes, "{:?}", t.kind());
            assert_eq!(v.encoded_len(), bytes.len());
            assert_eq!(v.to_event_record(), t.to_event_record());
            assert_eq!(
                (
                    v.kind(),
                    v.group(),
                    v.event_type(),
                    v.pointer_size(),
                    v.payload_len()
                ),
                (
                    t.kind(),
                    t.group(),
                    t.event_type(),
                    t.pointer_size(),
                    t.payload_len()
                )
            );
        }
    }

    #[test]
    fn events_round_trip_through_the_shared_encoder() {
        let e = EventRecord {
            header: EventHeader {
                flags: header_flags::HEADER_64_BIT | header_flags::STRING_ONLY,
                thread_id: 1,
                process_id: 2,
                timestamp: 3,
                provider_id: Guid::RT_LOST_EVENT,
                descriptor: EventDescriptor::new(5, Level::INFORMATION, Keyword(1)),
                ..EventHeader::default()
            },
            extended_data: vec![ExtendedItem::u64_item(13, 99)],
            user_data: b"abc".to_vec(),
            ..EventRecord::default()
        };
        let bytes = encode_event(&e).unwrap();
        let Record::Event(back) = decode(&bytes) else {
            panic!()
        };
        assert_eq!(
            back.header.flags,
            header_flags::STRING_ONLY | header_flags::EXTENDED_INFO
        );
        assert_eq!(
            back.header.header_type,
            u16::from(header_type::EVENT_HEADER64)
        );
        assert_eq!(back.extended_data, e.extended_data);
        assert_eq!(back.user_data, e.user_data);
    }

    #[test]
    fn bad_markers_and_sizes_say_what_and_where() {
        let mut b = vec![0u8; 16];
        b[3] = 0x80;
        let e = decode_record(Bytes::new(&b, 0x1048), BufferContext::default()).unwrap_err();
        assert!(e.to_string().contains("0x1048"), "{e}");
        b[3] = 0xC0;
        b[2] = 0x0C;
        let e = decode_record(Bytes::new(&b, 0), BufferContext::default()).unwrap_err();
        assert!(e.to_string().contains("TIMED"), "{e}");
        b[2] = 0x11; // perfinfo with Size 0
        let e = decode_record(Bytes::new(&b, 0), BufferContext::default()).unwrap_err();
        assert!(e.to_string().contains("below"), "{e}");
        let end = [0xFFu8; 8];
        assert!(matches!(
            decode_record(Bytes::new(&end, 0), BufferContext::default()),
            Ok(Decoded::End)
        ));
    }
}
