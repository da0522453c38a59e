//! The event metadata blob both ways: [`EventSchema`] ⇄ bytes (DEC-05…DEC-10).

use crate::error::{Error, Result};
use std::fmt;

/// A TraceLogging field's input type, `TlgIn*` (DEC-09): how its value is laid out in the
/// payload. Bits 0–4 of the metadata's InType byte; the array kind lives in [`Arity`].
#[doc(alias = "TlgIn_t")]
#[doc(alias = "_TlgIn_t")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct InType(pub u8);

impl InType {
    /// 0, `TlgInNULL`: invalid in metadata.
    pub const NULL: InType = InType(0);
    /// 1, `TlgInUNICODESTRING`: UTF-16LE, NUL-terminated.
    pub const UNICODE_STRING: InType = InType(1);
    /// 2, `TlgInANSISTRING`: 8-bit, NUL-terminated (DEC-12).
    pub const ANSI_STRING: InType = InType(2);
    /// 3, `TlgInINT8`.
    pub const INT8: InType = InType(3);
    /// 4, `TlgInUINT8`.
    pub const UINT8: InType = InType(4);
    /// 5, `TlgInINT16`.
    pub const INT16: InType = InType(5);
    /// 6, `TlgInUINT16`.
    pub const UINT16: InType = InType(6);
    /// 7, `TlgInINT32`.
    pub const INT32: InType = InType(7);
    /// 8, `TlgInUINT32`.
    pub const UINT32: InType = InType(8);
    /// 9, `TlgInINT64`.
    pub const INT64: InType = InType(9);
    /// 10, `TlgInUINT64`.
    pub const UINT64: InType = InType(10);
    /// 11, `TlgInFLOAT`.
    pub const FLOAT: InType = InType(11);
    /// 12, `TlgInDOUBLE`.
    pub const DOUBLE: InType = InType(12);
    /// 13, `TlgInBOOL32`: 4 bytes.
    pub const BOOL32: InType = InType(13);
    /// 14, `TlgInBINARY`: u16 byte count + bytes; never an array (DEC-13).
    pub const BINARY: InType = InType(14);
    /// 15, `TlgInGUID`: 16 bytes in Windows byte order.
    pub const GUID: InType = InType(15);
    /// 16, `TDH_INTYPE_POINTER`: TraceLogging does not define it (providers write
    /// INT64/UINT64/HEXINT64 by architecture); decoded at the record's pointer size.
    pub const POINTER: InType = InType(16);
    /// 17, `TlgInFILETIME`: 8 bytes.
    pub const FILETIME: InType = InType(17);
    /// 18, `TlgInSYSTEMTIME`: 16 bytes.
    pub const SYSTEMTIME: InType = InType(18);
    /// 19, `TlgInSID`: 8 + 4 × SubAuthorityCount bytes.
    pub const SID: InType = InType(19);
    /// 20, `TlgInHEXINT32`.
    pub const HEXINT32: InType = InType(20);
    /// 21, `TlgInHEXINT64`.
    pub const HEXINT64: InType = InType(21);
    /// 22, `TlgInCOUNTEDSTRING`: u16 *byte* count + UTF-16LE, no NUL.
    pub const COUNTED_STRING: InType = InType(22);
    /// 23, `TlgInCOUNTEDANSISTRING`: u16 byte count + 8-bit bytes.
    pub const COUNTED_ANSI_STRING: InType = InType(23);
    /// 24, `_TlgInSTRUCT`: a pseudo-type grouping the following fields (DEC-08).
    pub const STRUCT: InType = InType(24);
    /// 25, `TlgInCOUNTEDBINARY`: u16 byte count + bytes; arrays allowed.
    pub const COUNTED_BINARY: InType = InType(25);

    /// The `TlgIn` name without the prefix, for the defined values.
    pub fn name(self) -> Option<&'static str> {
        const NAMES: [&str; 26] = [
            "NULL",
            "UNICODESTRING",
            "ANSISTRING",
            "INT8",
            "UINT8",
            "INT16",
            "UINT16",
            "INT32",
            "UINT32",
            "INT64",
            "UINT64",
            "FLOAT",
            "DOUBLE",
            "BOOL32",
            "BINARY",
            "GUID",
            "POINTER",
            "FILETIME",
            "SYSTEMTIME",
            "SID",
            "HEXINT32",
            "HEXINT64",
            "COUNTEDSTRING",
            "COUNTEDANSISTRING",
            "STRUCT",
            "COUNTEDBINARY",
        ];
        NAMES.get(usize::from(self.0)).copied()
    }

    /// The payload size of one value of a fixed-size type; `None` for strings, binary, SID,
    /// structs and POINTER (whose size depends on the writer).
    pub fn fixed_size(self) -> Option<usize> {
        Some(match self {
            InType::INT8 | InType::UINT8 => 1,
            InType::INT16 | InType::UINT16 => 2,
            InType::INT32 | InType::UINT32 | InType::FLOAT | InType::BOOL32 | InType::HEXINT32 => 4,
            InType::INT64
            | InType::UINT64
            | InType::DOUBLE
            | InType::FILETIME
            | InType::HEXINT64 => 8,
            InType::GUID | InType::SYSTEMTIME => 16,
            _ => return None,
        })
    }
}

impl fmt::Debug for InType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "InType({}:{n})", self.0),
            None => write!(f, "InType({})", self.0),
        }
    }
}

/// A TraceLogging field's output type, `TlgOut*` (DEC-10): a formatting hint. For a STRUCT
/// field the same byte carries the member count instead. TraceLogging numbers 1–32
/// differently from TDH; these are the TraceLogging numbers.
#[doc(alias = "TlgOut_t")]
#[doc(alias = "_TlgOut_t")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Debug)]
pub struct OutType(pub u8);

impl OutType {
    /// 0, `TlgOutNULL`: the default for the InType.
    pub const DEFAULT: OutType = OutType(0);
    /// 1, `TlgOutNOPRINT`.
    pub const NOPRINT: OutType = OutType(1);
    /// 2, `TlgOutSTRING`: a character (INT8, UINT8, UINT16).
    pub const STRING: OutType = OutType(2);
    /// 3, `TlgOutBOOLEAN` (UINT8).
    pub const BOOLEAN: OutType = OutType(3);
    /// 4, `TlgOutHEX`.
    pub const HEX: OutType = OutType(4);
    /// 5, `TlgOutPID`.
    pub const PID: OutType = OutType(5);
    /// 6, `TlgOutTID`.
    pub const TID: OutType = OutType(6);
    /// 7, `TlgOutPORT`: a big-endian UINT16.
    pub const PORT: OutType = OutType(7);
    /// 8, `TlgOutIPV4` (UINT32).
    pub const IPV4: OutType = OutType(8);
    /// 9, `TlgOutIPV6` (BINARY, COUNTEDBINARY).
    pub const IPV6: OutType = OutType(9);
    /// 10, `TlgOutSOCKETADDRESS` (BINARY, COUNTEDBINARY).
    pub const SOCKET_ADDRESS: OutType = OutType(10);
    /// 11, `TlgOutXML`.
    pub const XML: OutType = OutType(11);
    /// 12, `TlgOutJSON`.
    pub const JSON: OutType = OutType(12);
    /// 13, `TlgOutWIN32ERROR` (UINT32).
    pub const WIN32_ERROR: OutType = OutType(13);
    /// 14, `TlgOutNTSTATUS`.
    pub const NTSTATUS: OutType = OutType(14);
    /// 15, `TlgOutHRESULT` (INT32).
    pub const HRESULT: OutType = OutType(15);
    /// 16, `TlgOutFILETIME` (INT64).
    pub const FILETIME: OutType = OutType(16);
    /// 17, `TlgOutSIGNED`.
    pub const SIGNED: OutType = OutType(17);
    /// 18, `TlgOutUNSIGNED`.
    pub const UNSIGNED: OutType = OutType(18);
    /// 33, `TlgOutDATETIME_CULTURE_INSENSITIVE`.
    pub const DATETIME_CULTURE_INSENSITIVE: OutType = OutType(33);
    /// 35, `TlgOutUTF8`: an 8-bit string in UTF-8.
    pub const UTF8: OutType = OutType(35);
    /// 36, `TlgOutPKCS7_WITH_TYPE_INFO`.
    pub const PKCS7_WITH_TYPE_INFO: OutType = OutType(36);
    /// 37, `TlgOutCODE_POINTER`.
    pub const CODE_POINTER: OutType = OutType(37);
    /// 38, `TlgOutDATETIME_UTC`.
    pub const DATETIME_UTC: OutType = OutType(38);

    /// The TDH out type a TDH-like decoder reports for this hint on a field of `in_type`
    /// (DEC-11; no Microsoft table exists, so the mapping is by name — the project's
    /// choice): NOPRINT → NOPRINT (301), STRING → STRING (1), BOOLEAN → BOOLEAN (13), HEX →
    /// HEXINT8…HEXINT64 by the InType's size (HEXBINARY for other types), PID → 20, TID → 21,
    /// PORT → 22, IPV4 → 23, IPV6 → 24, SOCKETADDRESS → 25, XML → 28, JSON → 34,
    /// WIN32ERROR → 30, NTSTATUS → 31, HRESULT → 32, FILETIME → DATETIME (2), SIGNED /
    /// UNSIGNED → BYTE…UNSIGNEDLONG by the InType's size (unchanged for other sizes), 33 and
    /// above unchanged. DEFAULT stays 0 (TDH_OUTTYPE_NULL: the InType's default); numbers
    /// TraceLogging does not define are passed through.
    pub fn to_tdh(self, in_type: InType) -> crate::manifest::OutType {
        use crate::manifest::OutType as Tdh;
        let size = in_type.fixed_size();
        let sized = |one, two, four, eight| match size {
            Some(1) => Some(Tdh(one)),
            Some(2) => Some(Tdh(two)),
            Some(4) => Some(Tdh(four)),
            Some(8) => Some(Tdh(eight)),
            _ => None,
        };
        let same = Tdh(u16::from(self.0));
        match self {
            OutType::NOPRINT => Tdh::NOPRINT,
            OutType::STRING => Tdh::STRING,
            OutType::BOOLEAN => Tdh::BOOLEAN,
            OutType::HEX => sized(16, 17, 18, 19).unwrap_or(Tdh::HEX_BINARY),
            OutType::PID => Tdh::PID,
            OutType::TID => Tdh::TID,
            OutType::PORT => Tdh::PORT,
            OutType::IPV4 => Tdh::IPV4,
            OutType::IPV6 => Tdh::IPV6,
            OutType::SOCKET_ADDRESS => Tdh::SOCKET_ADDRESS,
            OutType::XML => Tdh::XML,
            OutType::JSON => Tdh::JSON,
            OutType::WIN32_ERROR => Tdh::WIN32_ERROR,
            OutType::NTSTATUS => Tdh::NTSTATUS,
            OutType::HRESULT => Tdh::HRESULT,
            OutType::FILETIME => Tdh::DATE_TIME,
            OutType::SIGNED => sized(3, 5, 7, 9).unwrap_or(same),
            OutType::UNSIGNED => sized(4, 6, 8, 10).unwrap_or(same),
            _ => same,
        }
    }
}

/// Whether a field is one value or an array, and how the array is counted (DEC-07, DEC-13).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Arity {
    /// One value.
    #[default]
    Scalar,
    /// `CCOUNT` (0x20): exactly this many values; the count is in the metadata.
    Fixed(u16),
    /// `VCOUNT` (0x40): a u16 count in the payload, then the values.
    Variable,
    /// `CUSTOM` (0x60): a field with its own schema information (the bytes here). etwsim
    /// reads its payload as a u16 byte count and the bytes, as `TraceLoggingCustom` writes
    /// it (TraceLoggingProvider.h; not in the rules).
    Custom(Vec<u8>),
}

/// Array kind bits of the InType byte.
const ARRAY_MASK: u8 = 0x60;
const CCOUNT: u8 = 0x20;
const VCOUNT: u8 = 0x40;
const CUSTOM: u8 = 0x60;
/// "Another byte follows" (InType → OutType, OutType → tag, extension and tag bytes).
const CHAIN: u8 = 0x80;

/// The largest field tag and event tag: 28 bits.
pub const MAX_TAG: u32 = 0x0FFF_FFFF;
/// The largest member count a STRUCT's OutType byte can carry.
pub const MAX_STRUCT_MEMBERS: usize = 127;
/// How deep structs may nest before a decoder gives up: etwsim's guard against metadata
/// built to exhaust the stack (no rule sets a limit).
pub const MAX_STRUCT_DEPTH: usize = 32;

/// One field definition in the metadata (DEC-07); a STRUCT carries its members.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FieldDef {
    /// The field name (UTF-8 in the metadata).
    pub name: String,
    /// The value layout.
    pub in_type: InType,
    /// The formatting hint; ignored for STRUCT, whose OutType byte is its member count.
    pub out_type: OutType,
    /// The 28-bit field tag, 0 for none.
    pub tag: u32,
    /// Scalar or array.
    pub arity: Arity,
    /// A STRUCT's members, in order (nested structs with their own members).
    pub members: Vec<FieldDef>,
}

impl FieldDef {
    /// A scalar field with the default OutType and no tag.
    pub fn new(name: impl Into<String>, in_type: InType) -> FieldDef {
        FieldDef {
            name: name.into(),
            in_type,
            out_type: OutType::DEFAULT,
            tag: 0,
            arity: Arity::Scalar,
            members: Vec::new(),
        }
    }

    /// A STRUCT field with these members.
    pub fn structure(name: impl Into<String>, members: Vec<FieldDef>) -> FieldDef {
        FieldDef {
            members,
            ..FieldDef::new(name, InType::STRUCT)
        }
    }

    /// With this OutType.
    pub fn with_out_type(mut self, out_type: OutType) -> FieldDef {
        self.out_type = out_type;
        self
    }

    /// With this field tag.
    pub fn with_tag(mut self, tag: u32) -> FieldDef {
        self.tag = tag;
        self
    }

    /// With this arity.
    pub fn with_arity(mut self, arity: Arity) -> FieldDef {
        self.arity = arity;
        self
    }

    /// `true` for STRUCT fields.
    pub fn is_struct(&self) -> bool {
        self.in_type == InType::STRUCT
    }

    /// Checks that the definition can be encoded and decoded: a known InType, no BINARY
    /// array (DEC-13), no STRUCT custom field, at most 127 members, tags in 28 bits, no NUL
    /// in the name.
    ///
    /// # Errors
    /// [`Error::Build`] naming the field.
    pub fn check(&self) -> Result<()> {
        self.check_at(&self.name, 0)
    }

    fn check_at(&self, path: &str, depth: usize) -> Result<()> {
        let fail = |problem: String| {
            Err(Error::Build {
                field: path.to_owned(),
                problem,
            })
        };
        if self.name.contains('\0') {
            return fail("the name contains a NUL".into());
        }
        if self.tag > MAX_TAG {
            return fail(format!("tag {:#x} does not fit in 28 bits", self.tag));
        }
        if self.in_type.name().is_none() || self.in_type == InType::NULL {
            return fail(format!(
                "InType {} is not a TraceLogging type",
                self.in_type.0
            ));
        }
        if self.in_type == InType::BINARY && matches!(self.arity, Arity::Fixed(_) | Arity::Variable)
        {
            return fail("BINARY cannot be an array (use COUNTEDBINARY)".into());
        }
        if self.is_struct() {
            if matches!(self.arity, Arity::Custom(_)) {
                return fail("a STRUCT cannot be a custom field".into());
            }
            if self.out_type != OutType::DEFAULT {
                return fail(
                    "a STRUCT's OutType byte is its member count: leave out_type at DEFAULT".into(),
                );
            }
            if self.members.len() > MAX_STRUCT_MEMBERS {
                return fail(format!(
                    "{} members, a STRUCT holds at most 127",
                    self.members.len()
                ));
            }
            if depth >= MAX_STRUCT_DEPTH {
                return fail(format!("structs nest deeper than {MAX_STRUCT_DEPTH}"));
            }
            for m in &self.members {
                m.check_at(&format!("{path}.{}", m.name), depth + 1)?;
            }
        } else if !self.members.is_empty() {
            return fail("only a STRUCT has members".into());
        }
        if let Arity::Custom(info) = &self.arity {
            if info.len() > usize::from(u16::MAX) {
                return fail("custom type information longer than 65,535 bytes".into());
            }
        }
        Ok(())
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.name.as_bytes());
        out.push(0);
        let array = match self.arity {
            Arity::Scalar => 0,
            Arity::Fixed(_) => CCOUNT,
            Arity::Variable => VCOUNT,
            Arity::Custom(_) => CUSTOM,
        };
        let in_type = self.in_type.0 | array;
        let out_type = if self.is_struct() {
            self.members.len() as u8
        } else {
            self.out_type.0 & 0x7F
        };
        // As tracelogging_dynamic writes it: the OutType byte only when needed, a field
        // tag always in its 4-byte form (DEC-06 lets decoders accept every form).
        if self.tag != 0 {
            out.extend_from_slice(&[in_type | CHAIN, out_type | CHAIN]);
            out.extend_from_slice(&encode_tag_long(self.tag));
        } else if out_type != 0 {
            out.extend_from_slice(&[in_type | CHAIN, out_type]);
        } else {
            out.push(in_type);
        }
        match &self.arity {
            Arity::Fixed(n) => out.extend_from_slice(&n.to_le_bytes()),
            Arity::Custom(info) => {
                out.extend_from_slice(&(info.len() as u16).to_le_bytes());
                out.extend_from_slice(info);
            }
            Arity::Scalar | Arity::Variable => {}
        }
        for m in &self.members {
            m.write(out);
        }
    }
}

/// The schema one TraceLogging event carries: the decoded `EVENT_SCHEMA_TL` blob (DEC-05).
///
/// A TraceLogging event is identified by this schema, not by its descriptor's Id, which is
/// normally 0 (DEC-02, EVT-26).
#[doc(alias = "EVENT_SCHEMA_TL")]
#[doc(alias = "EventMetadata")]
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct EventSchema {
    /// The event name.
    pub name: String,
    /// The 28-bit event tag, 0 for none.
    pub tag: u32,
    /// The top-level field definitions.
    pub fields: Vec<FieldDef>,
}

/// A reader over the metadata blob that knows its offset.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn error(&self, field: Option<&str>, offset: usize, problem: impl Into<String>) -> Error {
        Error::Metadata {
            field: field.map(str::to_owned),
            offset,
            problem: problem.into(),
        }
    }

    fn u8(&mut self, field: Option<&str>, what: &str) -> Result<u8> {
        let b = *self.bytes.get(self.at).ok_or_else(|| {
            self.error(
                field,
                self.at,
                format!("the metadata ends before the {what}"),
            )
        })?;
        self.at += 1;
        Ok(b)
    }

    fn u16(&mut self, field: Option<&str>, what: &str) -> Result<u16> {
        match self.bytes.get(self.at..self.at + 2) {
            Some(&[lo, hi]) => {
                self.at += 2;
                Ok(u16::from_le_bytes([lo, hi]))
            }
            _ => Err(self.error(
                field,
                self.at,
                format!("the metadata ends before the {what}"),
            )),
        }
    }

    fn take(&mut self, n: usize, field: Option<&str>, what: &str) -> Result<&'a [u8]> {
        let start = self.at;
        let end = start
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                self.error(
                    field,
                    start,
                    format!(
                        "the {what} needs {n} bytes, only {} left",
                        self.bytes.len() - start
                    ),
                )
            })?;
        self.at = end;
        Ok(&self.bytes[start..end])
    }

    /// A NUL-terminated UTF-8 string (lossy: names are labels, not structure).
    fn cstr(&mut self, field: Option<&str>, what: &str) -> Result<String> {
        let start = self.at;
        let rest = &self.bytes[start.min(self.bytes.len())..];
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.error(field, start, format!("the {what} has no NUL terminator")))?;
        self.at = start + nul + 1;
        Ok(String::from_utf8_lossy(&rest[..nul]).into_owned())
    }

    /// A 7-bits-per-byte tag (DEC-05, DEC-06): bytes while bit 7 is set; the first four
    /// carry bits 27–21, 20–14, 13–7, 6–0; further bytes are skipped.
    fn tag(&mut self, field: Option<&str>, what: &str) -> Result<u32> {
        let mut tag = 0u32;
        let mut i = 0;
        loop {
            let b = self.u8(field, what)?;
            if i < 4 {
                tag |= u32::from(b & 0x7F) << (21 - 7 * i);
            }
            i += 1;
            if b & CHAIN == 0 {
                return Ok(tag);
            }
        }
    }
}

/// The shortest tag form (DEC-06): 1, 2 or 4 bytes.
fn encode_tag_short(tag: u32, out: &mut Vec<u8>) {
    if tag & 0x0FE0_0000 == tag {
        out.push((tag >> 21) as u8);
    } else if tag & 0x0FFF_C000 == tag {
        out.extend_from_slice(&[(tag >> 21) as u8 | CHAIN, (tag >> 14) as u8 & 0x7F]);
    } else {
        out.extend_from_slice(&encode_tag_long(tag));
    }
}

/// The 4-byte tag form.
fn encode_tag_long(tag: u32) -> [u8; 4] {
    [
        (tag >> 21) as u8 | CHAIN,
        (tag >> 14) as u8 | CHAIN,
        (tag >> 7) as u8 | CHAIN,
        tag as u8 & 0x7F,
    ]
}

impl EventSchema {
    /// A schema with no tag and no fields.
    pub fn new(name: impl Into<String>) -> EventSchema {
        EventSchema {
            name: name.into(),
            tag: 0,
            fields: Vec::new(),
        }
    }

    /// The event name alone, borrowed from a metadata blob: what an EVENT_NAME filter
    /// (FLT-22) compares, without parsing the field definitions. `None` when the blob has
    /// no well-formed name (too short, no NUL within `Size`, not UTF-8).
    pub fn name_of(metadata: &[u8]) -> Option<&str> {
        let size = usize::from(u16::from_le_bytes([*metadata.first()?, *metadata.get(1)?]));
        let mut rest = metadata.get(2..size)?;
        loop {
            let (&ext, tail) = rest.split_first()?;
            rest = tail;
            if ext & CHAIN == 0 {
                break;
            }
        }
        let end = rest.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&rest[..end]).ok()
    }

    /// Parses an event metadata blob (DEC-05…DEC-09).
    ///
    /// `Size` must not exceed the blob (bytes after `Size` are ignored, as an extended
    /// item's padding would be). Names that are not UTF-8 are read lossily.
    ///
    /// # Errors
    /// [`Error::Metadata`] with the byte offset (and the field, once inside a field
    /// definition): a blob or `Size` too short, a missing NUL, an unknown or NULL InType,
    /// a BINARY array, a STRUCT with more members than follow, structs nested deeper
    /// than [`MAX_STRUCT_DEPTH`].
    pub fn parse(metadata: &[u8]) -> Result<EventSchema> {
        let size_err = |problem: String| Error::Metadata {
            field: None,
            offset: 0,
            problem,
        };
        let size = match metadata {
            [lo, hi, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
            _ => {
                return Err(size_err(format!(
                    "{} bytes, the Size field alone needs 2",
                    metadata.len()
                )));
            }
        };
        if size > metadata.len() {
            return Err(size_err(format!(
                "Size {size} but only {} bytes were given",
                metadata.len()
            )));
        }
        if size < 4 {
            return Err(size_err(format!(
                "Size {size} is too small for Size, an extension byte and a name"
            )));
        }
        let mut c = Cursor {
            bytes: &metadata[..size],
            at: 2,
        };
        let tag = c.tag(None, "extension")?;
        let name = c.cstr(None, "event name")?;
        let mut fields = Vec::new();
        while !c.done() {
            fields.push(parse_field(&mut c, 0)?);
        }
        Ok(EventSchema { name, tag, fields })
    }

    /// Encodes the metadata blob: `Size`, the event tag in its shortest form (DEC-06), the
    /// NUL-terminated name and every field definition.
    ///
    /// # Errors
    /// [`Error::Build`] for a definition [`FieldDef::check`] refuses or a name with a NUL;
    /// [`Error::TooLarge`] when the blob exceeds 65,535 bytes (DEC-15: tracelogging_dynamic
    /// refuses such an event with ERROR_ARITHMETIC_OVERFLOW).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        if self.name.contains('\0') {
            return Err(Error::Build {
                field: String::new(),
                problem: format!("the event name {:?} contains a NUL", self.name),
            });
        }
        if self.tag > MAX_TAG {
            return Err(Error::Build {
                field: String::new(),
                problem: format!("event tag {:#x} does not fit in 28 bits", self.tag),
            });
        }
        let mut out = vec![0, 0];
        encode_tag_short(self.tag, &mut out);
        out.extend_from_slice(self.name.as_bytes());
        out.push(0);
        for f in &self.fields {
            f.check()?;
            f.write(&mut out);
        }
        let size = u16::try_from(out.len()).map_err(|_| Error::TooLarge {
            what: "the event metadata",
            size: out.len(),
            limit: usize::from(u16::MAX),
        })?;
        out[..2].copy_from_slice(&size.to_le_bytes());
        Ok(out)
    }
}

fn parse_field(c: &mut Cursor<'_>, depth: usize) -> Result<FieldDef> {
    let start = c.at;
    let name = c.cstr(None, "field name")?;
    let f = Some(name.as_str());
    let in_at = c.at;
    let in_byte = c.u8(f, "InType byte")?;
    let in_type = InType(in_byte & 0x1F);
    if in_type == InType::NULL || in_type.name().is_none() {
        return Err(c.error(
            f,
            in_at,
            format!("InType {} is not a TraceLogging type", in_type.0),
        ));
    }
    let (mut out_byte, mut tag) = (0u8, 0u32);
    if in_byte & CHAIN != 0 {
        out_byte = c.u8(f, "OutType byte")?;
        if out_byte & CHAIN != 0 {
            tag = c.tag(f, "field tag")?;
        }
    }
    let arity = match in_byte & ARRAY_MASK {
        0 => Arity::Scalar,
        CCOUNT => Arity::Fixed(c.u16(f, "ValueCount")?),
        VCOUNT => Arity::Variable,
        _ => {
            let len = c.u16(f, "TypeInfoSize")?;
            Arity::Custom(c.take(usize::from(len), f, "TypeInfo")?.to_vec())
        }
    };
    if in_type == InType::BINARY && matches!(arity, Arity::Fixed(_) | Arity::Variable) {
        return Err(c.error(f, in_at, "BINARY cannot be an array (DEC-13)"));
    }
    let mut def = FieldDef {
        name,
        in_type,
        out_type: OutType(out_byte & 0x7F),
        tag,
        arity,
        members: Vec::new(),
    };
    if def.is_struct() {
        if matches!(def.arity, Arity::Custom(_)) {
            return Err(c.error(Some(&def.name), in_at, "a STRUCT cannot be a custom field"));
        }
        if depth >= MAX_STRUCT_DEPTH {
            return Err(c.error(
                Some(&def.name),
                start,
                format!("structs nest deeper than {MAX_STRUCT_DEPTH}"),
            ));
        }
        let count = usize::from(def.out_type.0);
        def.out_type = OutType::DEFAULT;
        for i in 0..count {
            if c.done() {
                return Err(c.error(
                    Some(&def.name),
                    c.at,
                    format!("the STRUCT announces {count} members, the metadata ends after {i}"),
                ));
            }
            def.members.push(parse_field(c, depth + 1)?);
        }
    }
    Ok(def)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_alone_is_read_past_any_tag_form() {
        // rule: DEC-05
        for tag in [0, 0x0020_0000, 0x0000_4000, 0x0ABC_DEF1] {
            let mut schema = EventSchema::new("Named");
            schema.tag = tag;
            schema.fields.push(FieldDef::new("N", InType::UINT32));
            let blob = schema.to_bytes().unwrap();
            assert_eq!(EventSchema::name_of(&blob), Some("Named"), "tag {tag:#x}");
            // Cut anywhere (Size saying so): the name or nothing, never a panic.
            for cut in 0..blob.len() {
                let mut short = blob[..cut].to_vec();
                if short.len() >= 2 {
                    short[..2].copy_from_slice(&(cut as u16).to_le_bytes());
                }
                let name = EventSchema::name_of(&short);
                assert!(name.is_none() || name == Some("Named"), "cut {cut}");
            }
        }
        assert_eq!(EventSchema::name_of(&[5, 0, 0, 0xff, 0]), None); // not UTF-8
    }

    #[test]
    fn tags_use_the_shortest_form_and_decode_from_every_form() {
        // rule: DEC-06
        let short = |tag| {
            let mut v = Vec::new();
            encode_tag_short(tag, &mut v);
            v
        };
        assert_eq!(short(0x0020_0000), [0x01]);
        assert_eq!(short(0x0000_4000), [0x80, 0x01]);
        assert_eq!(short(0), [0x00]);
        assert_eq!(short(0x0FFF_FFFF).len(), 4);
        for tag in [0, 0x0020_0000, 0x0000_4000, 0x0FFF_FFFF, 0x0123_4567, 1] {
            for bytes in [short(tag), encode_tag_long(tag).to_vec()] {
                let mut c = Cursor {
                    bytes: &bytes,
                    at: 0,
                };
                assert_eq!(c.tag(None, "tag").unwrap(), tag, "{bytes:02x?}");
                assert!(c.done());
            }
        }
    }
}
