//! The schema of one event as TDH reports it, from the three sources etwsim decodes: a
//! manifest (loaded with TdhLoadManifest or installed on the machine), the event's own
//! TraceLogging metadata, and the kernel MOF class table; and where each property's bytes lie
//! in a payload (the walk TdhGetProperty and TdhGetPropertySize do).

use super::{DecodingSourceTlg, DecodingSourceWbem, DecodingSourceXMLFile};
use etwsim::Guid;
use etwsim::decode::manifest::{DataDef, Item, MapDef, Param, Provider};
use etwsim::decode::mof::{self, MofType};
use etwsim::decode::property::PropertyFlags;
use etwsim::decode::tracelogging::{Arity, EventSchema, FieldDef, InType as TlgIn, ProviderTraits};
use std::sync::Arc;

/// `TDH_INTYPE_*` numbers used here: those the decoder defines come from it; the TDH-only
/// ones (300 and up) are written here.
pub(crate) mod intype {
    use etwsim::decode::manifest::InType as In;
    use etwsim::decode::tracelogging::InType as TlgIn;

    pub(crate) const NULL: u16 = TlgIn::NULL.0 as u16;
    pub(crate) const UNICODESTRING: u16 = In::UNICODE_STRING.0;
    pub(crate) const ANSISTRING: u16 = In::ANSI_STRING.0;
    pub(crate) const INT8: u16 = In::INT8.0;
    pub(crate) const UINT8: u16 = In::UINT8.0;
    pub(crate) const INT16: u16 = In::INT16.0;
    pub(crate) const UINT16: u16 = In::UINT16.0;
    pub(crate) const INT32: u16 = In::INT32.0;
    pub(crate) const UINT32: u16 = In::UINT32.0;
    pub(crate) const INT64: u16 = In::INT64.0;
    pub(crate) const UINT64: u16 = In::UINT64.0;
    pub(crate) const FLOAT: u16 = In::FLOAT.0;
    pub(crate) const DOUBLE: u16 = In::DOUBLE.0;
    pub(crate) const BOOLEAN: u16 = In::BOOLEAN.0;
    pub(crate) const BINARY: u16 = In::BINARY.0;
    pub(crate) const GUID: u16 = In::GUID.0;
    pub(crate) const POINTER: u16 = In::POINTER.0;
    pub(crate) const FILETIME: u16 = In::FILETIME.0;
    pub(crate) const SYSTEMTIME: u16 = In::SYSTEMTIME.0;
    pub(crate) const SID: u16 = In::SID.0;
    pub(crate) const HEXINT32: u16 = In::HEX_INT32.0;
    pub(crate) const HEXINT64: u16 = In::HEX_INT64.0;
    pub(crate) const MANIFEST_COUNTEDSTRING: u16 = In::COUNTED_UNICODE_STRING.0;
    pub(crate) const MANIFEST_COUNTEDANSISTRING: u16 = In::COUNTED_ANSI_STRING.0;
    pub(crate) const MANIFEST_COUNTEDBINARY: u16 = In::COUNTED_BINARY.0;
    pub(crate) const COUNTEDSTRING: u16 = 300;
    pub(crate) const COUNTEDANSISTRING: u16 = 301;
    pub(crate) const SIZET: u16 = 308;
    pub(crate) const WBEMSID: u16 = 310;
}

/// `TDH_OUTTYPE_*` numbers used here, as the decoder defines them.
pub(crate) mod outtype {
    use etwsim::decode::manifest::OutType as Out;

    pub(crate) const NULL: u16 = Out::NULL.0;
    pub(crate) const STRING: u16 = Out::STRING.0;
    pub(crate) const DATETIME: u16 = Out::DATE_TIME.0;
    pub(crate) const BYTE: u16 = Out::BYTE.0;
    pub(crate) const UNSIGNEDBYTE: u16 = Out::UNSIGNED_BYTE.0;
    pub(crate) const SHORT: u16 = Out::SHORT.0;
    pub(crate) const UNSIGNEDSHORT: u16 = Out::UNSIGNED_SHORT.0;
    pub(crate) const INT: u16 = Out::INT.0;
    pub(crate) const UNSIGNEDINT: u16 = Out::UNSIGNED_INT.0;
    pub(crate) const LONG: u16 = Out::LONG.0;
    pub(crate) const UNSIGNEDLONG: u16 = Out::UNSIGNED_LONG.0;
    pub(crate) const FLOAT: u16 = Out::FLOAT.0;
    pub(crate) const DOUBLE: u16 = Out::DOUBLE.0;
    pub(crate) const BOOLEAN: u16 = Out::BOOLEAN.0;
    pub(crate) const GUID: u16 = Out::GUID.0;
    pub(crate) const HEXBINARY: u16 = Out::HEX_BINARY.0;
    pub(crate) const HEXINT8: u16 = Out::HEX_INT8.0;
    pub(crate) const HEXINT16: u16 = Out::HEX_INT16.0;
    pub(crate) const HEXINT32: u16 = Out::HEX_INT32.0;
    pub(crate) const HEXINT64: u16 = Out::HEX_INT64.0;
    pub(crate) const PORT: u16 = Out::PORT.0;
    pub(crate) const IPV4: u16 = Out::IPV4.0;
    pub(crate) const IPV6: u16 = Out::IPV6.0;
    pub(crate) const WIN32ERROR: u16 = Out::WIN32_ERROR.0;
    pub(crate) const NTSTATUS: u16 = Out::NTSTATUS.0;
    pub(crate) const HRESULT: u16 = Out::HRESULT.0;
}

/// The out type TDH reports for a manifest `data` element without `outType`: the in type's
/// default (the manifest schema's InputType table on Microsoft Learn).
pub(crate) fn default_out_type(in_type: u16) -> u16 {
    use intype as i;
    use outtype as o;
    match in_type {
        i::UNICODESTRING
        | i::ANSISTRING
        | i::MANIFEST_COUNTEDSTRING
        | i::MANIFEST_COUNTEDANSISTRING
        | i::SID => o::STRING,
        i::INT8 => o::BYTE,
        i::UINT8 => o::UNSIGNEDBYTE,
        i::INT16 => o::SHORT,
        i::UINT16 => o::UNSIGNEDSHORT,
        i::INT32 => o::INT,
        i::UINT32 => o::UNSIGNEDINT,
        i::INT64 => o::LONG,
        i::UINT64 => o::UNSIGNEDLONG,
        i::FLOAT => o::FLOAT,
        i::DOUBLE => o::DOUBLE,
        i::BOOLEAN => o::BOOLEAN,
        i::BINARY | i::MANIFEST_COUNTEDBINARY => o::HEXBINARY,
        i::GUID => o::GUID,
        i::POINTER | i::HEXINT64 => o::HEXINT64,
        i::FILETIME | i::SYSTEMTIME => o::DATETIME,
        i::HEXINT32 => o::HEXINT32,
        _ => o::NULL,
    }
}

/// One `EVENT_PROPERTY_INFO`, before it is laid out.
#[derive(Clone, Debug, Default)]
pub(crate) struct Prop {
    pub(crate) name: String,
    pub(crate) flags: u32,
    pub(crate) in_type: u16,
    pub(crate) out_type: u16,
    pub(crate) map: Option<String>,
    /// `count` or `countPropertyIndex` (1 for a scalar).
    pub(crate) count: u16,
    /// `length` or `lengthPropertyIndex`.
    pub(crate) length: u16,
    /// Struct: first member index and member count.
    pub(crate) struct_start: u16,
    pub(crate) members: u16,
    /// `Tags` (28 bits).
    pub(crate) tags: u32,
    /// A TraceLogging variable-count array: a u16 count precedes the elements.
    pub(crate) inline_count: bool,
    /// A kernel field that may be absent at the end of the payload.
    pub(crate) optional: bool,
    /// A kernel stack: pointers to the end of the payload.
    pub(crate) rest: bool,
}

impl Prop {
    fn is(&self, f: PropertyFlags) -> bool {
        self.flags & f.0 != 0
    }
}

/// What TdhGetEventInformation reports about one event.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schema {
    pub(crate) provider: Guid,
    pub(crate) event_guid: Guid,
    pub(crate) source: i32,
    pub(crate) provider_name: Option<String>,
    pub(crate) level_name: Option<String>,
    pub(crate) channel_name: Option<String>,
    /// Keyword names (KeywordsNameOffset's list).
    pub(crate) keyword_names: Vec<String>,
    pub(crate) task_name: Option<String>,
    pub(crate) opcode_name: Option<String>,
    pub(crate) event_message: Option<String>,
    pub(crate) provider_message: Option<String>,
    pub(crate) event_name: Option<String>,
    pub(crate) props: Vec<Prop>,
    pub(crate) top_level: usize,
    /// The manifest provider, for its maps.
    pub(crate) manifest: Option<Arc<Provider>>,
}

impl Schema {
    /// The value map named `name` of the event's manifest.
    pub(crate) fn map(&self, name: &str) -> Option<&MapDef> {
        self.manifest.as_ref()?.map(name)
    }
}

fn param(p: Option<&Param>, names: &[String]) -> u16 {
    match p {
        None => 0,
        Some(Param::Fixed(n)) => u16::try_from(*n).unwrap_or(u16::MAX),
        Some(Param::Field(f)) => names
            .iter()
            .position(|n| n == f)
            .map_or(u16::MAX, |i| i as u16),
    }
}

fn data_prop(d: &DataDef, names: &[String]) -> Prop {
    let in_type = d.in_type.0;
    Prop {
        name: d.name.clone(),
        flags: d.property_flags().0,
        in_type,
        out_type: d
            .out_type
            .map_or_else(|| default_out_type(in_type), |o| o.0),
        map: d.map.clone(),
        count: if d.count.is_some() {
            param(d.count.as_ref(), names)
        } else {
            1
        },
        length: param(d.length.as_ref(), names),
        ..Prop::default()
    }
}

/// The schema of manifest event (`id`, `version`) of `p`.
pub(crate) fn from_manifest(p: &Arc<Provider>, id: u16, version: u8) -> Option<Schema> {
    let e = p.event(id, version)?;
    let mut props = Vec::new();
    let mut top_level = 0;
    if let Some(t) = p.template_of(e) {
        top_level = t.items.len();
        let names: Vec<String> = t.items.iter().map(|i| i.name().to_owned()).collect();
        let mut members = Vec::new();
        for item in &t.items {
            match item {
                Item::Data(d) => props.push(data_prop(d, &names)),
                Item::Struct(s) => {
                    let start = top_level + members.len();
                    let mnames: Vec<String> = s.members.iter().map(|m| m.name.clone()).collect();
                    members.extend(s.members.iter().map(|m| data_prop(m, &mnames)));
                    props.push(Prop {
                        name: s.name.clone(),
                        flags: item.property_flags().0,
                        count: if s.count.is_some() {
                            param(s.count.as_ref(), &names)
                        } else {
                            1
                        },
                        struct_start: start as u16,
                        members: s.members.len() as u16,
                        ..Prop::default()
                    });
                }
            }
        }
        // Member count/length indexes are relative to their struct: make them absolute.
        for prop in &props[..top_level] {
            if prop.is(PropertyFlags::STRUCT) {
                let base = prop.struct_start - top_level as u16;
                for m in &mut members[usize::from(base)..usize::from(base + prop.members)] {
                    if m.is(PropertyFlags::PARAM_COUNT) && m.count != u16::MAX {
                        m.count += prop.struct_start;
                    }
                    if m.is(PropertyFlags::PARAM_LENGTH) && m.length != u16::MAX {
                        m.length += prop.struct_start;
                    }
                }
            }
        }
        props.extend(members);
    }
    let task = p.tasks.iter().find(|t| t.value == e.task);
    Some(Schema {
        provider: p.guid,
        event_guid: task.and_then(|t| t.event_guid).unwrap_or_default(),
        source: DecodingSourceXMLFile,
        provider_name: Some(p.name.clone()),
        level_name: p.level_name(e.level),
        channel_name: (e.channel != 0)
            .then(|| p.channel_name(e.channel))
            .flatten(),
        keyword_names: p.keyword_names(e.keywords),
        task_name: (e.task != 0).then(|| p.task_name(e.task)).flatten(),
        opcode_name: p.opcode_name(e.task, e.opcode),
        event_message: e.message.clone(),
        provider_message: p.message.clone(),
        event_name: None,
        props,
        top_level,
        manifest: Some(Arc::clone(p)),
    })
}

/// The TDH in type of a TraceLogging field (TraceLogging's numbers are TDH's, DEC-09).
fn tlg_prop(f: &FieldDef) -> Prop {
    let in_type = u16::from(f.in_type.0);
    let out = f.out_type.to_tdh(f.in_type).0;
    Prop {
        name: f.name.clone(),
        flags: f.property_flags().0 & !PropertyFlags::PARAM_LENGTH.0,
        in_type: if f.is_struct() { 0 } else { in_type },
        out_type: if out == 0 {
            default_out_type(in_type)
        } else {
            out
        },
        count: match f.arity {
            Arity::Fixed(n) => n,
            _ => 1,
        },
        tags: f.tag,
        inline_count: f.arity == Arity::Variable,
        ..Prop::default()
    }
}

/// Lays out `fields` (one struct level) at `out[at..]`, their members after `*next`.
fn tlg_level(fields: &[FieldDef], at: usize, out: &mut Vec<Prop>) {
    // BINARY fields are preceded by a synthesised UINT16 `<Name>.Length` (DEC-14).
    let mut level: Vec<(Prop, Option<&FieldDef>)> = Vec::new();
    for f in fields {
        if f.in_type == TlgIn::BINARY {
            level.push((
                Prop {
                    name: format!("{}.Length", f.name),
                    in_type: intype::UINT16,
                    out_type: outtype::UNSIGNEDSHORT,
                    count: 1,
                    ..Prop::default()
                },
                None,
            ));
            let mut p = tlg_prop(f);
            p.flags |= PropertyFlags::PARAM_LENGTH.0;
            p.length = (at + level.len() - 1) as u16;
            level.push((p, None));
        } else {
            level.push((tlg_prop(f), f.is_struct().then_some(f)));
        }
    }
    if out.len() < at + level.len() {
        out.resize(at + level.len(), Prop::default());
    }
    for (i, (p, _)) in level.iter().enumerate() {
        out[at + i] = p.clone();
        if p.inline_count {
            out[at + i].count = (at + i) as u16;
        }
    }
    for (i, (_, s)) in level.iter().enumerate() {
        if let Some(s) = s {
            let start = out.len();
            out[at + i].struct_start = start as u16;
            out[at + i].members = s.members.len() as u16;
            // Reserve the members' slots, then their own members after.
            let n = s
                .members
                .iter()
                .filter(|m| m.in_type == TlgIn::BINARY)
                .count();
            out[at + i].members += n as u16;
            tlg_level(&s.members, start, out);
        }
    }
}

/// The schema of a TraceLogging event from its `EVENT_SCHEMA_TL` and `PROV_TRAITS` items.
pub(crate) fn from_tracelogging(
    provider: Guid,
    metadata: &[u8],
    traits: Option<&[u8]>,
) -> Option<Schema> {
    let s = EventSchema::parse(metadata).ok()?;
    let mut props = Vec::new();
    tlg_level(&s.fields, 0, &mut props);
    let top_level = s.fields.len()
        + s.fields
            .iter()
            .filter(|f| f.in_type == TlgIn::BINARY)
            .count();
    Some(Schema {
        provider,
        source: DecodingSourceTlg,
        provider_name: traits
            .and_then(|t| ProviderTraits::parse(t).ok())
            .map(|t| t.name),
        event_name: Some(s.name),
        props,
        top_level,
        ..Schema::default()
    })
}

fn mof_prop(name: &str, ty: MofType, optional: bool) -> Prop {
    use intype as i;
    use outtype as o;
    let (in_type, out_type, length, rest) = match ty {
        MofType::U8 => (i::UINT8, o::UNSIGNEDBYTE, 0, false),
        MofType::U16 => (i::UINT16, o::UNSIGNEDSHORT, 0, false),
        MofType::U32 => (i::UINT32, o::UNSIGNEDINT, 0, false),
        MofType::U64 => (i::UINT64, o::UNSIGNEDLONG, 0, false),
        MofType::I32 => (i::INT32, o::INT, 0, false),
        MofType::I64 => (i::INT64, o::LONG, 0, false),
        MofType::I8 => (i::INT8, o::BYTE, 0, false),
        MofType::I16 => (i::INT16, o::SHORT, 0, false),
        MofType::Pointer => (i::POINTER, o::HEXINT64, 0, false),
        MofType::TokenUserSid => (i::WBEMSID, o::STRING, 0, false),
        MofType::Utf16z => (i::UNICODESTRING, o::STRING, 0, false),
        MofType::Ansiz => (i::ANSISTRING, o::STRING, 0, false),
        MofType::Guid => (i::GUID, o::GUID, 0, false),
        MofType::Binary(n) => (i::BINARY, o::HEXBINARY, n, false),
        MofType::FileTime => (i::FILETIME, o::DATETIME, 0, false),
        MofType::Utf16Chars(n) => (i::UNICODESTRING, o::STRING, n, false),
        MofType::IpV4 => (i::UINT32, o::IPV4, 0, false),
        MofType::IpV6 => (i::BINARY, o::IPV6, 16, false),
        MofType::Port => (i::UINT16, o::PORT, 0, false),
        _ => (i::POINTER, o::HEXINT64, 0, true),
    };
    Prop {
        name: name.to_owned(),
        flags: if length > 0 {
            PropertyFlags::PARAM_FIXED_LENGTH.0
        } else {
            0
        },
        in_type,
        out_type,
        count: 1,
        length: u16::try_from(length).unwrap_or(u16::MAX),
        optional,
        rest,
        ..Prop::default()
    }
}

/// The schema of a classic kernel event: its class GUID, event type (opcode) and version.
pub(crate) fn from_kernel_class(class: Guid, opcode: u8, version: u8) -> Option<Schema> {
    let s = mof::schema(class, opcode, version).ok()?;
    let props: Vec<Prop> = s
        .layout
        .fields
        .iter()
        .map(|f| mof_prop(f.name, f.ty, f.optional))
        .collect();
    Some(Schema {
        provider: class,
        event_guid: class,
        source: DecodingSourceWbem,
        provider_name: Some("MSNT_SystemTrace".to_owned()),
        task_name: Some(s.class.name.to_owned()),
        opcode_name: Some(s.event.name.to_owned()),
        top_level: props.len(),
        props,
        ..Schema::default()
    })
}

/// Where a property lies in a payload.
#[derive(Clone, Debug, Default)]
pub(crate) struct Loc {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) elems: Vec<Elem>,
}

/// One element of a property (the only one for a scalar).
#[derive(Clone, Debug, Default)]
pub(crate) struct Elem {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// A struct's members, by their index in the schema.
    pub(crate) members: Vec<(usize, Loc)>,
}

/// The payload does not match the schema (`ERROR_EVT_INVALID_EVENT_DATA`).
#[derive(Debug)]
pub(crate) struct Mismatch;

struct Walk<'a> {
    props: &'a [Prop],
    data: &'a [u8],
    ptr: usize,
    pos: usize,
    /// The last integer value of each property, for counts and lengths.
    values: Vec<Option<u64>>,
    /// Elements left to make: the walk makes no more than the payload pays for.
    budget: usize,
}

fn read_uint(b: &[u8]) -> Option<u64> {
    Some(match b.len() {
        1 => u64::from(b[0]),
        2 => u64::from(u16::from_le_bytes(b.try_into().ok()?)),
        4 => u64::from(u32::from_le_bytes(b.try_into().ok()?)),
        8 => u64::from_le_bytes(b.try_into().ok()?),
        _ => return None,
    })
}

impl Walk<'_> {
    fn take(&mut self, n: usize) -> Result<(usize, usize), Mismatch> {
        let start = self.pos;
        let end = start.checked_add(n).ok_or(Mismatch)?;
        if end > self.data.len() {
            return Err(Mismatch);
        }
        self.pos = end;
        Ok((start, end))
    }

    fn u16_at(&self, at: usize) -> Result<usize, Mismatch> {
        let b = self.data.get(at..at + 2).ok_or(Mismatch)?;
        Ok(usize::from(u16::from_le_bytes([b[0], b[1]])))
    }

    fn param(
        &self,
        flags: u32,
        fixed_flag: PropertyFlags,
        var_flag: PropertyFlags,
        v: u16,
    ) -> Result<Option<usize>, Mismatch> {
        if flags & fixed_flag.0 != 0 {
            Ok(Some(usize::from(v)))
        } else if flags & var_flag.0 != 0 {
            let n = self
                .values
                .get(usize::from(v))
                .copied()
                .flatten()
                .ok_or(Mismatch)?;
            usize::try_from(n).map(Some).map_err(|_| Mismatch)
        } else {
            Ok(None)
        }
    }

    /// The bytes of one element of property `idx`.
    fn element(&mut self, idx: usize, length: Option<usize>) -> Result<Elem, Mismatch> {
        use intype as i;
        let p = &self.props[idx];
        if self.budget == 0 {
            return Err(Mismatch);
        }
        self.budget -= 1;
        if p.is(PropertyFlags::STRUCT) {
            let start = self.pos;
            let first = usize::from(p.struct_start);
            let n = usize::from(p.members);
            let mut members = Vec::with_capacity(n);
            for m in first..first + n {
                if m >= self.props.len() {
                    return Err(Mismatch);
                }
                members.push((m, self.prop(m)?));
            }
            return Ok(Elem {
                start,
                end: self.pos,
                members,
            });
        }
        let rest = self.data.len() - self.pos;
        let n = match p.in_type {
            i::NULL => 0,
            i::INT8 | i::UINT8 => 1,
            i::INT16 | i::UINT16 => 2,
            i::INT32 | i::UINT32 | i::HEXINT32 | i::FLOAT | i::BOOLEAN => 4,
            i::INT64 | i::UINT64 | i::HEXINT64 | i::DOUBLE | i::FILETIME => 8,
            i::GUID | i::SYSTEMTIME => 16,
            i::POINTER | i::SIZET => self.ptr,
            i::UNICODESTRING => match length {
                Some(l) => l.checked_mul(2).ok_or(Mismatch)?,
                None => {
                    let d = &self.data[self.pos..];
                    let nul = d
                        .chunks_exact(2)
                        .position(|c| c == [0, 0])
                        .ok_or(Mismatch)?;
                    2 * nul + 2
                }
            },
            i::ANSISTRING => match length {
                Some(l) => l,
                None => {
                    self.data[self.pos..]
                        .iter()
                        .position(|&b| b == 0)
                        .ok_or(Mismatch)?
                        + 1
                }
            },
            i::BINARY => length.unwrap_or(rest),
            i::MANIFEST_COUNTEDSTRING
            | i::MANIFEST_COUNTEDANSISTRING
            | i::MANIFEST_COUNTEDBINARY
            | i::COUNTEDSTRING
            | i::COUNTEDANSISTRING => 2 + self.u16_at(self.pos)?,
            i::SID => {
                let k = *self.data.get(self.pos + 1).ok_or(Mismatch)?;
                8 + 4 * usize::from(k)
            }
            i::WBEMSID => {
                let b = self.data.get(self.pos..self.pos + 4).ok_or(Mismatch)?;
                if b == [0, 0, 0, 0] {
                    4
                } else {
                    let sid = self.pos + 2 * self.ptr;
                    let k = *self.data.get(sid + 1).ok_or(Mismatch)?;
                    2 * self.ptr + 8 + 4 * usize::from(k)
                }
            }
            _ => return Err(Mismatch),
        };
        let (start, end) = self.take(n)?;
        if let Some(v) = read_uint(&self.data[start..end]).filter(|_| {
            matches!(
                p.in_type,
                i::INT8
                    | i::UINT8
                    | i::INT16
                    | i::UINT16
                    | i::INT32
                    | i::UINT32
                    | i::INT64
                    | i::UINT64
                    | i::HEXINT32
                    | i::HEXINT64
            )
        }) {
            self.values[idx] = Some(v);
        }
        Ok(Elem {
            start,
            end,
            members: Vec::new(),
        })
    }

    /// Property `idx` at the walk's position.
    fn prop(&mut self, idx: usize) -> Result<Loc, Mismatch> {
        let p = &self.props[idx];
        let (flags, count_v, length_v) = (p.flags, p.count, p.length);
        if (p.optional || p.rest) && self.pos == self.data.len() {
            return Ok(Loc {
                start: self.pos,
                end: self.pos,
                elems: Vec::new(),
            });
        }
        let count = if p.inline_count {
            let (s, _) = self.take(2)?;
            Some(self.u16_at(s)?)
        } else if p.rest {
            Some((self.data.len() - self.pos) / self.ptr)
        } else {
            self.param(
                flags,
                PropertyFlags::PARAM_FIXED_COUNT,
                PropertyFlags::PARAM_COUNT,
                count_v,
            )?
        };
        let length = self.param(
            flags,
            PropertyFlags::PARAM_FIXED_LENGTH,
            PropertyFlags::PARAM_LENGTH,
            length_v,
        )?;
        let start = self.pos;
        let k = count.unwrap_or(1);
        if k > self.budget {
            return Err(Mismatch);
        }
        let mut elems = Vec::with_capacity(k.min(64));
        for _ in 0..k {
            elems.push(self.element(idx, length)?);
        }
        Ok(Loc {
            start,
            end: self.pos,
            elems,
        })
    }
}

/// Where each top-level property of `s` lies in `data`, with `ptr`-byte pointers.
pub(crate) fn locate(s: &Schema, data: &[u8], ptr: usize) -> Result<Vec<Loc>, Mismatch> {
    let mut w = Walk {
        props: &s.props,
        data,
        ptr,
        pos: 0,
        values: vec![None; s.props.len()],
        budget: data.len() + s.props.len() + 1,
    };
    (0..s.top_level.min(s.props.len()))
        .map(|i| w.prop(i))
        .collect()
}
