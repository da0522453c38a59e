//! Classic kernel (MOF) events: one table of the kernel classes, their event types and their
//! payload layouts, used both to **decode** kernel records and to **encode** them.
//!
//! # The table
//!
//! | item | Windows name | what it is |
//! |---|---|---|
//! | [`MofClass`] | an event class (`FileIo`, `Process`) under `MSNT_SystemTrace` | class GUID, HookId group, event types (KRN-11, KRN-12) |
//! | [`EventType`] | `EventType` / `EventTypeName` qualifiers | event type (opcode) → name and the layouts by version |
//! | [`Layout`] | a payload class (`FileIo_ReadWrite`) | the ordered fields of one version |
//! | [`MofField`], [`MofType`] | MOF properties | a field's name and wire type (`ptr`, `UTF-16z`, the kernel SID block…) |
//! | [`Schema`] | | one (class, event type, version, layout): decode, encode, HookId |
//! | [`MofEvent`] | a decoded `EVENT_RECORD` with `DecodingSourceWbem` | the schema and the named values |
//!
//! The classes are the statics of KRN-12 — [`EVENT_TRACE`], [`DISK_IO`], [`PAGE_FAULT`],
//! [`PROCESS`], [`FILE_IO`], [`THREAD`], [`TCP_IP`], [`UDP_IP`], [`REGISTRY`],
//! [`SYSTEM_CONFIG`], [`PERF_INFO`], [`IMAGE`], [`STACK_WALK`], [`ALPC`], [`SPLIT_IO`],
//! [`LOST_EVENT`] — and the two classes KernelTraceControl adds when it merges a trace
//! ([`IMAGE_ID`], [`SYS_CONFIG`]); [`classes`] lists them all. Each event type carries the
//! layouts of every version real traces carry (v0/v1 where the MOF has them, v2 with the
//! Windows 7 names, v3+ with the Windows 8+ ones); the table's module docs name the sources
//! and the choices where they differ.
//!
//! # Choosing a layout (KRN-14, DEC-01)
//!
//! A decoder picks the layout by (class GUID, event type, header version) — [`schema`] — or,
//! from a raw system/perfinfo record, by (HookId, version) — [`schema_for_hook`]. Pointer-sized
//! fields are 4 or 8 bytes by the record's 32/64-bit header type. Bytes beyond the layout are
//! ignored (counted in [`MofEvent::trailing`]); optional trailing fields (Thread's ThreadName,
//! ReadWrite's ExtraFlags, DiskIo's IssuingThreadId) are read only when bytes remain. A class,
//! event type or version the table does not describe is [`Error::NoSchema`], so a caller
//! can show the payload as hex.
//!
//! `UTF-16z` and `ANSIz` fields end at their NUL; the last string of a layout may also run to
//! the end of the payload without one. A short payload or an unreadable string is an error
//! naming the field and its offset, never a panic.
//!
//! # Encoding (for the kernel's system providers)
//!
//! ```
//! use etwsim_decode::fields::Value;
//! use etwsim_decode::mof::{self, FILE_IO};
//!
//! # fn main() -> Result<(), etwsim_decode::Error> {
//! let read = FILE_IO.schema("Read", 3).expect("FileIo Read v3");
//! assert_eq!(read.hook_id(), 0x0443);
//! let payload = read.encode(
//!     &[
//!         Value::U64(4096),                 // Offset
//!         Value::Pointer(0xFFFF_C001_0000_1000), // IrpPtr
//!         Value::Pointer(0xFFFF_C001_0000_2000), // FileObject
//!         Value::Pointer(0xFFFF_C001_0000_3000), // FileKey
//!         Value::U32(4242),                 // TTID
//!         Value::U32(512),                  // IoSize
//!         Value::U32(0),                    // IoFlags
//!     ],
//!     8,
//! )?;
//! assert_eq!(payload.len(), 44); // ExtraFlags, optional, left out
//! let event = mof::decode_system(0x0443, 3, 8, &payload)?;
//! assert_eq!(event.schema.event.name, "Read");
//! assert_eq!(event.get("IoSize"), Some(&Value::U32(512)));
//! # Ok(()) }
//! ```
//!
//! Rules: KRN-11, KRN-12, KRN-14, KRN-16…KRN-30 (layouts), DEC-01. Sources are the ones those
//! rules cite (Learn's MOF class pages, ntwmi.h, TraceEvent's KernelTraceEventParser).

mod table;

pub use table::{
    ALPC, DISK_IO, EVENT_TRACE, FILE_IO, IMAGE, IMAGE_ID, LOST_EVENT, PAGE_FAULT, PERF_INFO,
    PROCESS, REGISTRY, SPLIT_IO, STACK_WALK, SYS_CONFIG, SYSTEM_CONFIG, TCP_IP, THREAD, UDP_IP,
    classes,
};

use crate::Error;
use crate::fields::{Field, TokenUser, Value};
use crate::wire::Cursor;
use etwsim_types::{Guid, KernelClass};

/// The wire type of one kernel payload field (the spec's `u8`…`u64`, `ptr`, `UTF-16z`,
/// `ANSIz`, the SID block, and the MOF's `char16[n]`, IP address, port and stack types).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MofType {
    /// 1 byte.
    U8,
    /// 2 bytes, little-endian.
    U16,
    /// 4 bytes, little-endian.
    U32,
    /// 8 bytes, little-endian.
    U64,
    /// 4 bytes, signed.
    I32,
    /// 8 bytes, signed.
    I64,
    /// `ptr`: 4 or 8 bytes by the writer's pointer size.
    Pointer,
    /// The kernel SID block (KRN-27): a u32 0 when absent, else `TOKEN_USER` (two pointer
    /// widths) followed by the SID (`8 + 4 × SubAuthorityCount`).
    TokenUserSid,
    /// `UTF-16z`: UTF-16LE up to a NUL code unit.
    Utf16z,
    /// `ANSIz`: 8-bit text up to a NUL byte.
    Ansiz,
    /// A GUID, Windows byte order.
    Guid,
    /// A fixed-size block of bytes.
    Binary(usize),
    /// MOF `sint8`: 1 byte, signed.
    I8,
    /// MOF `sint16`: 2 bytes, signed.
    I16,
    /// A `FILETIME` (8 bytes, 100-ns intervals since 1601): [`Value::FileTime`].
    FileTime,
    /// MOF `char16 Name[n]`: `n` UTF-16 code units in place, the text ending at the first
    /// NUL (the rest is padding): [`Value::String`]. Encoding pads with NULs to `n` units.
    Utf16Chars(usize),
    /// MOF `object … extension("IPAddrV4")`: 4 bytes in network order, shown as dotted text
    /// ([`Value::String`] `"192.0.2.1"`); encoding takes the same text.
    IpV4,
    /// MOF `object … extension("IPAddrV6")`: 16 bytes in network order, shown in the RFC 5952
    /// text form ([`Value::String`]); encoding takes any text form.
    IpV6,
    /// MOF `object … extension("Port")`: a u16 in network byte order, read as the port
    /// number ([`Value::U16`] in host order, as TraceEvent shows it).
    Port,
    /// Pointers to the end of the payload (a stack walk's frames, MOF `Stack1…StackN`):
    /// [`Value::Array`] of [`Value::Pointer`]. Always the last field; a partial pointer at the
    /// end is left as trailing bytes.
    PointerArray,
}

impl MofType {
    /// The size on the wire when it does not depend on the value.
    pub fn fixed_size(self, pointer_size: u8) -> Option<usize> {
        Some(match self {
            MofType::U8 => 1,
            MofType::U16 => 2,
            MofType::U32 | MofType::I32 => 4,
            MofType::U64 | MofType::I64 => 8,
            MofType::Pointer => usize::from(pointer_size),
            MofType::Guid | MofType::IpV6 => 16,
            MofType::Binary(n) => n,
            MofType::I8 => 1,
            MofType::I16 | MofType::Port => 2,
            MofType::IpV4 => 4,
            MofType::FileTime => 8,
            MofType::Utf16Chars(n) => n.checked_mul(2)?,
            MofType::TokenUserSid | MofType::Utf16z | MofType::Ansiz | MofType::PointerArray => {
                return None;
            }
        })
    }
}

/// One field of a [`Layout`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MofField {
    /// The property name (Learn's MOF name unless the rule names another).
    pub name: &'static str,
    /// Its wire type.
    pub ty: MofType,
    /// Read only when bytes remain, and may be left out when encoding (always a trailing
    /// field).
    pub optional: bool,
}

/// A payload class: the ordered fields of the versions it covers (`FileIo_ReadWrite` v3).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The payload class name (`FileIo_V3_ReadWrite` style names are not used: the version is
    /// in [`versions`](Self::versions)).
    pub name: &'static str,
    /// The header versions this layout describes.
    pub versions: &'static [u8],
    /// The fields in payload order.
    pub fields: &'static [MofField],
}

impl Layout {
    /// Number of fields that must be present.
    pub fn required_fields(&self) -> usize {
        self.fields.iter().take_while(|f| !f.optional).count()
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static MofField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The payload offset of field `name` for `pointer_size`-byte pointers, when every field
    /// before it has a fixed size (`None` after a string or SID block, or for an unknown
    /// name).
    pub fn fixed_offset(&self, name: &str, pointer_size: u8) -> Option<usize> {
        let mut offset = 0;
        for f in self.fields {
            if f.name == name {
                return Some(offset);
            }
            offset += f.ty.fixed_size(pointer_size)?;
        }
        None
    }

    /// The payload size when every field has a fixed size, with or without the optional
    /// ones.
    pub fn fixed_len(&self, pointer_size: u8, with_optional: bool) -> Option<usize> {
        self.fields
            .iter()
            .filter(|f| with_optional || !f.optional)
            .map(|f| f.ty.fixed_size(pointer_size))
            .sum()
    }
}

/// One event type of a class: its opcode, its name and its layouts by version.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct EventType {
    /// The event type (EVENT_TRACE_HEADER `Class.Type`, the HookId's low byte, the consumer's
    /// `Opcode`, KRN-13).
    pub opcode: u8,
    /// The event type name (`Read`, `FileRundown`, `DCStart`).
    pub name: &'static str,
    /// The layouts, one per version range; empty when the payload has no published layout.
    pub layouts: &'static [&'static Layout],
}

impl EventType {
    /// The layout of header version `version`.
    pub fn layout(&self, version: u8) -> Option<&'static Layout> {
        self.layouts
            .iter()
            .copied()
            .find(|l| l.versions.contains(&version))
    }

    /// The newest version the table describes: the one a Windows 10/11 kernel writes
    /// (FileIo 3, Process 4, Thread 3, Image 3, DiskIo 3, EventTrace header 2).
    pub fn current_version(&self) -> Option<u8> {
        self.layouts
            .iter()
            .flat_map(|l| l.versions.iter().copied())
            .max()
    }
}

/// A MOF event class and its layouts: the GUID a consumer sees as `ProviderId` (KRN-13), its
/// HookId group (KRN-11), its event types.
///
/// A class with a group takes its name's GUID and group from the one table of kernel class
/// identities, [`etwsim_types::KernelClass`] ([`MofClass::kernel_class`]); `Lost_Event` and
/// the classes merging adds have no group and are not in it.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MofClass {
    /// The class name (`FileIo`).
    pub name: &'static str,
    /// The class GUID.
    pub guid: Guid,
    /// The HookId group (high byte), `None` for classes never written with a system header.
    pub group: Option<u8>,
    /// The event types the table knows.
    pub events: &'static [EventType],
}

impl MofClass {
    /// The class identity in [`etwsim_types::KernelClass`]'s table; `None` for a class
    /// without a HookId group.
    pub fn kernel_class(&self) -> Option<&'static KernelClass> {
        self.group.and_then(KernelClass::by_group)
    }

    /// The event type `opcode`.
    pub fn event(&self, opcode: u8) -> Option<&'static EventType> {
        self.events.iter().find(|e| e.opcode == opcode)
    }

    /// The event type named `name` (`"FileRundown"`).
    pub fn event_named(&self, name: &str) -> Option<&'static EventType> {
        self.events.iter().find(|e| e.name == name)
    }

    /// The schema of event `name` at `version`, for encoding: `FILE_IO.schema("Read", 3)`.
    pub fn schema(&'static self, name: &str, version: u8) -> Option<Schema> {
        let event = self.event_named(name)?;
        Some(Schema {
            class: self,
            event,
            version,
            layout: event.layout(version)?,
        })
    }

    /// The schema of event `name` at its [current version](EventType::current_version).
    pub fn current_schema(&'static self, name: &str) -> Option<Schema> {
        let version = self.event_named(name)?.current_version()?;
        self.schema(name, version)
    }
}

/// The class with GUID `guid`.
pub fn class_by_guid(guid: Guid) -> Option<&'static MofClass> {
    classes().iter().copied().find(|c| c.guid == guid)
}

/// The class of HookId group `group` (KRN-11): the group's identity from
/// [`KernelClass::by_group`], then its layouts.
pub fn class_by_group(group: u8) -> Option<&'static MofClass> {
    KernelClass::by_group(group).and_then(|k| class_by_guid(k.guid))
}

/// The class named `name` (`"Process"`).
pub fn class_by_name(name: &str) -> Option<&'static MofClass> {
    classes().iter().copied().find(|c| c.name == name)
}

/// One (class, event type, version) with its layout: everything needed to decode or encode
/// one kernel event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// The class.
    pub class: &'static MofClass,
    /// The event type.
    pub event: &'static EventType,
    /// The header version.
    pub version: u8,
    /// The layout of that version.
    pub layout: &'static Layout,
}

/// The layout for (class GUID, event type, version) (KRN-14).
///
/// # Errors
/// [`Error::NoSchema`] when the table has no layout for it.
pub fn schema(class: Guid, opcode: u8, version: u8) -> Result<Schema, Error> {
    let no = || Error::NoSchema {
        class,
        opcode,
        version,
    };
    let class = class_by_guid(class).ok_or_else(no)?;
    let event = class.event(opcode).ok_or_else(no)?;
    let layout = event.layout(version).ok_or_else(no)?;
    Ok(Schema {
        class,
        event,
        version,
        layout,
    })
}

/// The class and event type a raw system/perfinfo HookId stands for (KRN-11): group (high
/// byte) → class, low byte → event type.
///
/// Besides the group table, image loads written under the PROCESS group (HookId `0x030A`,
/// ntwmi's `WMI_LOG_TYPE_PROCESS_LOAD_IMAGE`, as seen by third-party parsers of real files)
/// map to `Image` / `Load`.
pub fn class_for_hook(hook_id: u16) -> Option<(&'static MofClass, u8)> {
    let (group, opcode) = ((hook_id >> 8) as u8, hook_id as u8);
    if hook_id == 0x030A {
        return Some((&IMAGE, opcode));
    }
    class_by_group(group).map(|c| (c, opcode))
}

/// The layout for a raw record's (HookId, header version).
///
/// # Errors
/// [`Error::NoSchema`] (with [`Guid::NULL`] as the class for an unknown group).
pub fn schema_for_hook(hook_id: u16, version: u8) -> Result<Schema, Error> {
    match class_for_hook(hook_id) {
        Some((class, opcode)) => schema(class.guid, opcode, version),
        None => Err(Error::NoSchema {
            class: Guid::NULL,
            opcode: hook_id as u8,
            version,
        }),
    }
}

/// Decodes a classic kernel payload by (class GUID, event type, version) — what a consumer
/// has from an `EVENT_RECORD` (KRN-13).
///
/// # Errors
/// [`Error::NoSchema`], [`Error::PointerSize`], or the payload errors of
/// [`Schema::decode`].
pub fn decode_mof(
    class: Guid,
    opcode: u8,
    version: u8,
    pointer_size: u8,
    payload: &[u8],
) -> Result<MofEvent, Error> {
    schema(class, opcode, version)?.decode(payload, pointer_size)
}

/// Decodes a kernel event as a consumer receives it (KRN-13): the class GUID in `ProviderId`,
/// the event type in `Opcode`, the header's version, the pointer size of its 32/64-bit
/// header flag (8 when neither is set), the payload in `UserData`.
///
/// # Errors
/// As [`decode_mof`].
pub fn decode_event_record(r: &etwsim_types::EventRecord) -> Result<MofEvent, Error> {
    use etwsim_types::record::header_flags;
    let pointer_size = if r.header.flags & header_flags::HEADER_32_BIT != 0 {
        4
    } else {
        8
    };
    decode_mof(
        r.header.provider_id,
        r.header.descriptor.opcode.0,
        r.header.descriptor.version,
        pointer_size,
        &r.user_data,
    )
}

/// Decodes the payload of a raw system/perfinfo record by its HookId and `Version` word
/// (only the low byte is the event version; `etl-format.md` §4).
///
/// # Errors
/// As [`decode_mof`].
pub fn decode_system(
    hook_id: u16,
    version: u16,
    pointer_size: u8,
    payload: &[u8],
) -> Result<MofEvent, Error> {
    schema_for_hook(hook_id, version as u8)?.decode(payload, pointer_size)
}

/// A decoded kernel event: its schema and its fields in layout order.
#[derive(Clone, Debug, PartialEq)]
pub struct MofEvent {
    /// What decoded it.
    pub schema: Schema,
    /// The fields present, in layout order (optional fields only when the payload had them).
    pub fields: Vec<Field>,
    /// Payload bytes after the last field (ignored, KRN-14).
    pub trailing: usize,
}

impl MofEvent {
    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        crate::fields::find(&self.fields, name)
    }
}

fn check_pointer_size(pointer_size: u8) -> Result<(), Error> {
    match pointer_size {
        4 | 8 => Ok(()),
        n => Err(Error::PointerSize(n)),
    }
}

impl Schema {
    /// The HookId a system/perfinfo header carries for this event: group << 8 | event type
    /// (KRN-11). 0 for a class without a group.
    pub fn hook_id(&self) -> u16 {
        self.class
            .group
            .map_or(0, |g| u16::from(g) << 8 | u16::from(self.event.opcode))
    }

    /// Decodes `payload` written with `pointer_size`-byte pointers (4 or 8).
    ///
    /// # Errors
    /// [`Error::PointerSize`]; [`Error::Truncated`] when a required field does
    /// not fit; [`Error::BadValue`] for an unterminated or odd-length string, or a SID
    /// whose count does not fit. Each names the field and its payload offset.
    pub fn decode(&self, payload: &[u8], pointer_size: u8) -> Result<MofEvent, Error> {
        let mut reader = Cursor::new(payload, pointer_size)?;
        let fields = self.layout.fields;
        let mut out = Vec::with_capacity(fields.len());
        for (i, f) in fields.iter().enumerate() {
            let left = reader.left();
            if f.optional {
                let fits = match f.ty.fixed_size(pointer_size) {
                    Some(n) => left >= n,
                    None => left > 0,
                };
                if !fits {
                    break;
                }
            }
            let last = fields[i + 1..].is_empty();
            let value = read_field(&mut reader, f, last)?;
            out.push(Field::new(f.name, value));
        }
        Ok(MofEvent {
            schema: *self,
            fields: out,
            trailing: reader.left(),
        })
    }

    /// Encodes `values` (in layout order; trailing optional fields may be left out) with
    /// `pointer_size`-byte pointers.
    ///
    /// Accepted values per type: the matching integer variant (`U32` for `u32`…),
    /// [`Value::Pointer`] for `ptr`, [`Value::String`] for `UTF-16z`, [`Value::Ansi`] (or an
    /// ASCII [`Value::String`]) for `ANSIz`, [`Value::Null`] / [`Value::TokenUser`] /
    /// [`Value::Sid`] for the SID block, [`Value::Guid`], [`Value::Binary`] of the exact size,
    /// [`Value::FileTime`], [`Value::String`] for `char16[n]` (at most `n` units) and for IP
    /// addresses (their text), [`Value::U16`] for a port (host order), [`Value::Array`] of
    /// [`Value::Pointer`] for a pointer array.
    ///
    /// # Errors
    /// [`Error::PointerSize`]; [`Error::Encode`] naming the field for a missing
    /// or extra value, a value of the wrong kind, a pointer above 32 bits for a 32-bit
    /// writer, a string holding a NUL, a SID block whose pointer has zero low 32 bits.
    pub fn encode(&self, values: &[Value], pointer_size: u8) -> Result<Vec<u8>, Error> {
        check_pointer_size(pointer_size)?;
        let layout = self.layout;
        if values.len() < layout.required_fields() || values.len() > layout.fields.len() {
            return Err(Error::Encode {
                layout: layout.name,
                field: "<count>".into(),
                reason: format!(
                    "{} values for {} fields ({} required)",
                    values.len(),
                    layout.fields.len(),
                    layout.required_fields()
                ),
            });
        }
        let mut out = Vec::with_capacity(64);
        for (f, v) in layout.fields.iter().zip(values) {
            write_value(&mut out, layout.name, f, v, pointer_size)?;
        }
        Ok(out)
    }

    /// Encodes named fields: as [`encode`](Self::encode), but the names must follow the
    /// layout order.
    ///
    /// # Errors
    /// As [`encode`](Self::encode), plus a field whose name is not the next in the layout.
    pub fn encode_fields(&self, fields: &[Field], pointer_size: u8) -> Result<Vec<u8>, Error> {
        for (f, def) in fields.iter().zip(self.layout.fields) {
            if f.name != def.name {
                return Err(Error::Encode {
                    layout: self.layout.name,
                    field: f.name.clone(),
                    reason: format!("expected field {} here", def.name),
                });
            }
        }
        let values: Vec<Value> = fields.iter().map(|f| f.value.clone()).collect();
        self.encode(&values, pointer_size)
    }
}

fn read_field(c: &mut Cursor<'_>, f: &MofField, last: bool) -> Result<Value, Error> {
    let name = f.name;
    Ok(match f.ty {
        MofType::U8 => Value::U8(c.array::<1>(name)?[0]),
        MofType::U16 => Value::U16(c.u16(name)?),
        MofType::U32 => Value::U32(c.u32(name)?),
        MofType::U64 => Value::U64(u64::from_le_bytes(c.array(name)?)),
        MofType::I32 => Value::I32(i32::from_le_bytes(c.array(name)?)),
        MofType::I64 => Value::I64(i64::from_le_bytes(c.array(name)?)),
        MofType::Pointer => Value::Pointer(c.pointer(name)?),
        MofType::Guid => Value::Guid(Guid::from_bytes_le(c.array(name)?)),
        MofType::Binary(n) => Value::Binary(c.take(name, n)?.to_vec()),
        MofType::TokenUserSid => token_user(c, name)?,
        MofType::Utf16z => Value::String(c.utf16z(name, last)?),
        MofType::Ansiz => Value::Ansi(c.ansiz(name, last)?),
        MofType::I8 => Value::I8(i8::from_le_bytes(c.array(name)?)),
        MofType::I16 => Value::I16(i16::from_le_bytes(c.array(name)?)),
        MofType::FileTime => Value::FileTime(i64::from_le_bytes(c.array(name)?)),
        MofType::Utf16Chars(n) => {
            let bytes = c.take(name, n.saturating_mul(2))?;
            let units = bytes.chunks_exact(2).take_while(|u| u != &[0, 0]).count();
            Value::String(crate::wire::utf16_lossy(&bytes[..units * 2]))
        }
        MofType::IpV4 => Value::String(std::net::Ipv4Addr::from(c.array::<4>(name)?).to_string()),
        MofType::IpV6 => Value::String(std::net::Ipv6Addr::from(c.array::<16>(name)?).to_string()),
        MofType::Port => Value::U16(u16::from_be_bytes(c.array(name)?)),
        MofType::PointerArray => {
            let n = c.left() / usize::from(c.pointer_size);
            let mut frames = Vec::with_capacity(n);
            for _ in 0..n {
                frames.push(Value::Pointer(c.pointer(name)?));
            }
            Value::Array(frames)
        }
    })
}

/// KRN-27: a u32 0 when absent, else TOKEN_USER (pointer + attributes, padded to two pointer
/// widths) then the SID.
fn token_user(c: &mut Cursor<'_>, name: &str) -> Result<Value, Error> {
    let start = c.offset;
    if c.u32(name)? == 0 {
        return Ok(Value::Null);
    }
    c.offset = start;
    let sid_pointer = c.pointer(name)?;
    let attributes = c.u32(name)?;
    if c.pointer_size == 8 {
        c.take(name, 4)?; // SID_AND_ATTRIBUTES padding
    }
    let sid = c.sid(name)?;
    Ok(Value::TokenUser(TokenUser {
        sid_pointer,
        attributes,
        sid,
    }))
}

fn write_value(
    out: &mut Vec<u8>,
    layout: &'static str,
    f: &MofField,
    v: &Value,
    pointer_size: u8,
) -> Result<(), Error> {
    let err = |reason: String| Error::Encode {
        layout,
        field: f.name.into(),
        reason,
    };
    let mismatch = || err(format!("a {:?} field cannot hold {v:?}", f.ty));
    match (f.ty, v) {
        (MofType::U8, Value::U8(x)) => out.push(*x),
        (MofType::U16, Value::U16(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::U32, Value::U32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::U64, Value::U64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::I32, Value::I32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::I64, Value::I64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::Pointer, Value::Pointer(p)) => write_pointer(out, *p, pointer_size)
            .map_err(|()| err(format!("pointer {p:#x} does not fit in 32 bits")))?,
        (MofType::Guid, Value::Guid(g)) => out.extend_from_slice(&g.to_bytes_le()),
        (MofType::Binary(n), Value::Binary(b)) => {
            if b.len() != n {
                return Err(err(format!("{} bytes for a {n}-byte block", b.len())));
            }
            out.extend_from_slice(b);
        }
        (MofType::Utf16z, Value::String(s)) => {
            if s.contains('\0') {
                return Err(err("string holds a NUL".into()));
            }
            out.extend(s.encode_utf16().chain([0]).flat_map(u16::to_le_bytes));
        }
        (MofType::Ansiz, Value::Ansi(b)) => {
            if b.contains(&0) {
                return Err(err("string holds a NUL".into()));
            }
            out.extend_from_slice(b);
            out.push(0);
        }
        (MofType::Ansiz, Value::String(s)) => {
            if !s.is_ascii() || s.contains('\0') {
                return Err(err(
                    "an ANSIz string from text must be ASCII without NUL".into()
                ));
            }
            out.extend_from_slice(s.as_bytes());
            out.push(0);
        }
        (MofType::I8, Value::I8(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::I16, Value::I16(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::FileTime, Value::FileTime(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (MofType::Utf16Chars(n), Value::String(s)) => {
            if s.contains('\0') {
                return Err(err("string holds a NUL".into()));
            }
            let start = out.len();
            out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
            let units = (out.len() - start) / 2;
            if units > n {
                return Err(err(format!("{units} UTF-16 units for a {n}-unit field")));
            }
            out.resize(start + n * 2, 0);
        }
        (MofType::IpV4, Value::String(s)) => {
            let ip: std::net::Ipv4Addr = s
                .parse()
                .map_err(|_| err(format!("{s:?} is not an IPv4 address")))?;
            out.extend_from_slice(&ip.octets());
        }
        (MofType::IpV6, Value::String(s)) => {
            let ip: std::net::Ipv6Addr = s
                .parse()
                .map_err(|_| err(format!("{s:?} is not an IPv6 address")))?;
            out.extend_from_slice(&ip.octets());
        }
        (MofType::Port, Value::U16(x)) => out.extend_from_slice(&x.to_be_bytes()),
        (MofType::PointerArray, Value::Array(items)) => {
            for v in items {
                let Value::Pointer(p) = v else {
                    return Err(err(format!("a pointer array cannot hold {v:?}")));
                };
                write_pointer(out, *p, pointer_size)
                    .map_err(|()| err(format!("pointer {p:#x} does not fit in 32 bits")))?;
            }
        }
        (MofType::TokenUserSid, Value::Null) => out.extend_from_slice(&[0; 4]),
        (MofType::TokenUserSid, Value::Sid(b)) => {
            let sid = v
                .sid()
                .ok_or_else(|| err(format!("{} bytes are not a valid SID", b.len())))?;
            write_token_user(out, &TokenUser::new(sid), pointer_size).map_err(err)?;
        }
        (MofType::TokenUserSid, Value::TokenUser(t)) => {
            write_token_user(out, t, pointer_size).map_err(err)?;
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

fn write_pointer(out: &mut Vec<u8>, p: u64, pointer_size: u8) -> Result<(), ()> {
    if pointer_size == 4 {
        let p = u32::try_from(p).map_err(|_| ())?;
        out.extend_from_slice(&p.to_le_bytes());
    } else {
        out.extend_from_slice(&p.to_le_bytes());
    }
    Ok(())
}

fn write_token_user(out: &mut Vec<u8>, t: &TokenUser, pointer_size: u8) -> Result<(), String> {
    if t.sid_pointer as u32 == 0 {
        return Err("a TOKEN_USER pointer with zero low 32 bits reads back as \"absent\"".into());
    }
    if t.sid.sub_authorities().len() > crate::fields::Sid::MAX_SUB_AUTHORITIES {
        return Err("a SID has at most 15 sub-authorities".into());
    }
    write_pointer(out, t.sid_pointer, pointer_size)
        .map_err(|()| format!("pointer {:#x} does not fit in 32 bits", t.sid_pointer))?;
    out.extend_from_slice(&t.attributes.to_le_bytes());
    if pointer_size == 8 {
        out.extend_from_slice(&[0; 4]);
    }
    t.sid.write_to(out);
    Ok(())
}
