//! TDH (`tdh.h`): the event-decoding functions, on etwsim's decoders.
//!
//! Schemas come from three sources, tried in this order for an `EVENT_RECORD`:
//!
//! | source | `DecodingSource` | where etwsim finds it |
//! |---|---|---|
//! | the event's `EVENT_SCHEMA_TL` extended item (and `PROV_TRAITS` for the provider name) | `DecodingSourceTlg` (3) | the record itself |
//! | an instrumentation manifest | `DecodingSourceXMLFile` (0) | manifests loaded with [`TdhLoadManifest`] / [`TdhLoadManifestFromMemory`], then those installed on the machine (`Kernel::install_manifest`) |
//! | the kernel MOF class table (classic kernel events: class GUID, event type, version) | `DecodingSourceWbem` (1) | `etwsim::decode::mof` |
//!
//! Buffers follow TDH's two-call protocol: the size needed is written back and
//! `ERROR_INSUFFICIENT_BUFFER` (122) returned when the buffer is NULL or too small. An event
//! with no schema is `ERROR_NOT_FOUND` (1168); a payload that does not match its schema
//! `ERROR_EVT_INVALID_EVENT_DATA` (15005); NULL pointers, a property index or name that does
//! not exist, a map name the manifest does not define: `ERROR_INVALID_PARAMETER` (87) or
//! `ERROR_NOT_FOUND` as each function's page says.
//!
//! The layout of the structures is the SDK's (`tdh.h`, 64-bit); a union is one field here,
//! named after its first member, with the other names in its doc comment.
//!
//! TraceLogging variable-count arrays: etwsim reads their u16 count from the payload, and
//! reports `PropertyParamCount` with `countPropertyIndex` the property's own index (the
//! project's reading; TDH does not document it). `TdhGetProperty` on the whole array returns
//! the elements without the count.

#![allow(non_upper_case_globals, non_snake_case, non_camel_case_types)]

mod format;
mod schema;

use crate::abi::{EVENT_DESCRIPTOR, EVENT_RECORD, GUID};
use crate::ffi_guard;
use crate::machine::machine;
use etwsim::Win32Error;
use etwsim::decode::manifest::{MapKind, Provider, load_manifest};
use parking_lot::Mutex;
use schema::{Loc, Schema};
use std::collections::HashMap;
use std::ffi::c_void;
use std::mem::{offset_of, size_of};
use std::sync::Arc;

pub use format::TdhFormatProperty;

/// `DECODING_SOURCE`.
pub type DECODING_SOURCE = i32;
/// `DecodingSourceXMLFile` (0): an instrumentation manifest.
pub const DecodingSourceXMLFile: DECODING_SOURCE = 0;
/// `DecodingSourceWbem` (1): a MOF class (classic and kernel events).
pub const DecodingSourceWbem: DECODING_SOURCE = 1;
/// `DecodingSourceWPP` (2).
pub const DecodingSourceWPP: DECODING_SOURCE = 2;
/// `DecodingSourceTlg` (3): TraceLogging metadata.
pub const DecodingSourceTlg: DECODING_SOURCE = 3;
/// `DecodingSourceMax` (4).
pub const DecodingSourceMax: DECODING_SOURCE = 4;

/// `TDH_CONTEXT_TYPE`.
pub type TDH_CONTEXT_TYPE = i32;
/// `TDH_CONTEXT_WPP_TMFFILE` (0).
pub const TDH_CONTEXT_WPP_TMFFILE: TDH_CONTEXT_TYPE = 0;
/// `TDH_CONTEXT_WPP_TMFSEARCHPATH` (1).
pub const TDH_CONTEXT_WPP_TMFSEARCHPATH: TDH_CONTEXT_TYPE = 1;
/// `TDH_CONTEXT_WPP_GMT` (2).
pub const TDH_CONTEXT_WPP_GMT: TDH_CONTEXT_TYPE = 2;
/// `TDH_CONTEXT_POINTERSIZE` (3).
pub const TDH_CONTEXT_POINTERSIZE: TDH_CONTEXT_TYPE = 3;
/// `TDH_CONTEXT_PDB_PATH` (4).
pub const TDH_CONTEXT_PDB_PATH: TDH_CONTEXT_TYPE = 4;
/// `TDH_CONTEXT_MAXIMUM` (5).
pub const TDH_CONTEXT_MAXIMUM: TDH_CONTEXT_TYPE = 5;

/// `EVENT_FIELD_TYPE`.
pub type EVENT_FIELD_TYPE = i32;
/// `EventKeywordInformation` (0).
pub const EventKeywordInformation: EVENT_FIELD_TYPE = 0;
/// `EventLevelInformation` (1).
pub const EventLevelInformation: EVENT_FIELD_TYPE = 1;
/// `EventChannelInformation` (2).
pub const EventChannelInformation: EVENT_FIELD_TYPE = 2;
/// `EventTaskInformation` (3).
pub const EventTaskInformation: EVENT_FIELD_TYPE = 3;
/// `EventOpcodeInformation` (4).
pub const EventOpcodeInformation: EVENT_FIELD_TYPE = 4;

/// `MAP_FLAGS`: `EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP` (1).
pub const EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP: i32 = 1;
/// `EVENTMAP_INFO_FLAG_MANIFEST_BITMAP` (2).
pub const EVENTMAP_INFO_FLAG_MANIFEST_BITMAP: i32 = 2;
/// `EVENTMAP_ENTRY_VALUETYPE_ULONG` (0).
pub const EVENTMAP_ENTRY_VALUETYPE_ULONG: i32 = 0;

/// `TDH_HANDLE`: a decoding handle of [`TdhOpenDecodingHandle`].
pub type TDH_HANDLE = isize;

/// `TDH_CONTEXT`: a decoding parameter.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TDH_CONTEXT {
    /// `ParameterValue`: the value, or the address of a string.
    pub ParameterValue: u64,
    /// `ParameterType`: `TDH_CONTEXT_*`.
    pub ParameterType: TDH_CONTEXT_TYPE,
    /// `ParameterSize`.
    pub ParameterSize: u32,
}

/// `PROPERTY_DATA_DESCRIPTOR`: which property TdhGetProperty / TdhGetPropertySize read.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PROPERTY_DATA_DESCRIPTOR {
    /// `PropertyName`: the address of the property's UTF-16 name.
    pub PropertyName: u64,
    /// `ArrayIndex`: an element, or `ULONG_MAX` for the whole property.
    pub ArrayIndex: u32,
    /// `Reserved`.
    pub Reserved: u32,
}

/// `EVENT_PROPERTY_INFO` (24 bytes).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EVENT_PROPERTY_INFO {
    /// `Flags`: `PROPERTY_FLAGS`.
    pub Flags: i32,
    /// `NameOffset`.
    pub NameOffset: u32,
    /// `nonStructType.InType` / `structType.StructStartIndex` / `customSchemaType.InType`.
    pub InType: u16,
    /// `nonStructType.OutType` / `structType.NumOfStructMembers` / `customSchemaType.OutType`.
    pub OutType: u16,
    /// `nonStructType.MapNameOffset` / `structType.padding` /
    /// `customSchemaType.CustomSchemaOffset`.
    pub MapNameOffset: u32,
    /// `count` / `countPropertyIndex`.
    pub count: u16,
    /// `length` / `lengthPropertyIndex`.
    pub length: u16,
    /// `Reserved` / `Tags:28`.
    pub Reserved: u32,
}

/// `TRACE_EVENT_INFO`: an event's schema, followed by its strings.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TRACE_EVENT_INFO {
    /// `ProviderGuid`.
    pub ProviderGuid: GUID,
    /// `EventGuid`.
    pub EventGuid: GUID,
    /// `EventDescriptor`.
    pub EventDescriptor: EVENT_DESCRIPTOR,
    /// `DecodingSource`.
    pub DecodingSource: DECODING_SOURCE,
    /// `ProviderNameOffset`.
    pub ProviderNameOffset: u32,
    /// `LevelNameOffset`.
    pub LevelNameOffset: u32,
    /// `ChannelNameOffset`.
    pub ChannelNameOffset: u32,
    /// `KeywordsNameOffset`: a list of strings ended by an empty one.
    pub KeywordsNameOffset: u32,
    /// `TaskNameOffset`.
    pub TaskNameOffset: u32,
    /// `OpcodeNameOffset`.
    pub OpcodeNameOffset: u32,
    /// `EventMessageOffset`.
    pub EventMessageOffset: u32,
    /// `ProviderMessageOffset`.
    pub ProviderMessageOffset: u32,
    /// `BinaryXMLOffset`.
    pub BinaryXMLOffset: u32,
    /// `BinaryXMLSize`.
    pub BinaryXMLSize: u32,
    /// `EventNameOffset` / `ActivityIDNameOffset`.
    pub EventNameOffset: u32,
    /// `EventAttributesOffset` / `RelatedActivityIDNameOffset`.
    pub EventAttributesOffset: u32,
    /// `PropertyCount`.
    pub PropertyCount: u32,
    /// `TopLevelPropertyCount`.
    pub TopLevelPropertyCount: u32,
    /// `Flags` (`TEMPLATE_FLAGS`) / `Reserved:4, Tags:28`.
    pub Flags: i32,
    /// `EventPropertyInfoArray[ANYSIZE_ARRAY]`.
    pub EventPropertyInfoArray: [EVENT_PROPERTY_INFO; 1],
}

/// `EVENT_MAP_ENTRY`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EVENT_MAP_ENTRY {
    /// `OutputOffset`.
    pub OutputOffset: u32,
    /// `Value` / `InputOffset`.
    pub Value: u32,
}

/// `EVENT_MAP_INFO`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EVENT_MAP_INFO {
    /// `NameOffset`.
    pub NameOffset: u32,
    /// `Flag`: `MAP_FLAGS`.
    pub Flag: i32,
    /// `EntryCount`.
    pub EntryCount: u32,
    /// `MapEntryValueType` / `FormatStringOffset`.
    pub MapEntryValueType: i32,
    /// `MapEntryArray[ANYSIZE_ARRAY]`.
    pub MapEntryArray: [EVENT_MAP_ENTRY; 1],
}

/// `TRACE_PROVIDER_INFO`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TRACE_PROVIDER_INFO {
    /// `ProviderGuid`.
    pub ProviderGuid: GUID,
    /// `SchemaSource`: 0 manifest, 1 MOF.
    pub SchemaSource: u32,
    /// `ProviderNameOffset`.
    pub ProviderNameOffset: u32,
}

/// `PROVIDER_ENUMERATION_INFO`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PROVIDER_ENUMERATION_INFO {
    /// `NumberOfProviders`.
    pub NumberOfProviders: u32,
    /// `Reserved`.
    pub Reserved: u32,
    /// `TraceProviderInfoArray[ANYSIZE_ARRAY]`.
    pub TraceProviderInfoArray: [TRACE_PROVIDER_INFO; 1],
}

/// `PROVIDER_FIELD_INFO`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PROVIDER_FIELD_INFO {
    /// `NameOffset`.
    pub NameOffset: u32,
    /// `DescriptionOffset`.
    pub DescriptionOffset: u32,
    /// `Value`.
    pub Value: u64,
}

/// `PROVIDER_FIELD_INFOARRAY`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PROVIDER_FIELD_INFOARRAY {
    /// `NumberOfElements`.
    pub NumberOfElements: u32,
    /// `FieldType`.
    pub FieldType: EVENT_FIELD_TYPE,
    /// `FieldInfoArray[ANYSIZE_ARRAY]`.
    pub FieldInfoArray: [PROVIDER_FIELD_INFO; 1],
}

/// `PROVIDER_EVENT_INFO`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PROVIDER_EVENT_INFO {
    /// `NumberOfEvents`.
    pub NumberOfEvents: u32,
    /// `Reserved`.
    pub Reserved: u32,
    /// `EventDescriptorsArray[ANYSIZE_ARRAY]`.
    pub EventDescriptorsArray: [EVENT_DESCRIPTOR; 1],
}

/// `PAYLOAD_FILTER_PREDICATE`.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct PAYLOAD_FILTER_PREDICATE {
    /// `FieldName`.
    pub FieldName: *mut u16,
    /// `CompareOp`: `PAYLOADFIELD_*`.
    pub CompareOp: u16,
    /// `Value`.
    pub Value: *mut u16,
}

const _: () = {
    assert!(size_of::<TRACE_EVENT_INFO>() == 136);
    assert!(offset_of!(TRACE_EVENT_INFO, EventPropertyInfoArray) == 112);
    assert!(size_of::<EVENT_PROPERTY_INFO>() == 24);
    assert!(size_of::<EVENT_MAP_INFO>() == 24);
    assert!(offset_of!(EVENT_MAP_INFO, MapEntryArray) == 16);
    assert!(size_of::<PROPERTY_DATA_DESCRIPTOR>() == 16);
    assert!(size_of::<TDH_CONTEXT>() == 16);
    assert!(size_of::<TRACE_PROVIDER_INFO>() == 24);
    assert!(size_of::<PROVIDER_ENUMERATION_INFO>() == 32);
    assert!(size_of::<PROVIDER_FIELD_INFOARRAY>() == 24);
    assert!(size_of::<PROVIDER_EVENT_INFO>() == 24);
    assert!(size_of::<PAYLOAD_FILTER_PREDICATE>() == 24);
};

const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();
const INSUFFICIENT_BUFFER: u32 = Win32Error::ERROR_INSUFFICIENT_BUFFER.code();
const NOT_FOUND: u32 = Win32Error::ERROR_NOT_FOUND.code();
/// `ERROR_EVT_INVALID_EVENT_DATA` (15005).
const INVALID_EVENT_DATA: u32 = 15005;
const FILE_NOT_FOUND: u32 = Win32Error::ERROR_FILE_NOT_FOUND.code();
const NOT_SUPPORTED: u32 = Win32Error::ERROR_NOT_SUPPORTED.code();
/// `ERROR_XML_PARSE_ERROR` (1465).
const XML_PARSE_ERROR: u32 = 1465;
/// The most `TDH_CONTEXT`s or `PROPERTY_DATA_DESCRIPTOR`s read from a caller.
const MAX_ARGS: u32 = 256;

/// Manifests this process loaded (TdhLoadManifest), by the path or bytes they came from.
/// A loaded manifest: the key it was loaded under (path or bytes) and its providers.
type Loaded = (Vec<u8>, Vec<Arc<Provider>>);
static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());

/// The manifest provider `guid`: loaded by this process first, then installed on the machine.
fn manifest_provider(guid: etwsim::Guid) -> Option<Arc<Provider>> {
    let loaded = LOADED
        .lock()
        .iter()
        .rev()
        .flat_map(|(_, ps)| ps.iter())
        .find(|p| p.guid == guid)
        .cloned();
    loaded.or_else(|| machine().ok()?.kernel.installed_provider(guid))
}

/// Every manifest provider this process can see, loaded ones first.
fn manifest_providers() -> Vec<Arc<Provider>> {
    let mut out: Vec<Arc<Provider>> = Vec::new();
    for (_, ps) in LOADED.lock().iter().rev() {
        for p in ps {
            if !out.iter().any(|q| q.guid == p.guid) {
                out.push(Arc::clone(p));
            }
        }
    }
    if let Ok(m) = machine() {
        for g in m.kernel.installed_providers() {
            if !out.iter().any(|q| q.guid == g) {
                out.extend(m.kernel.installed_provider(g));
            }
        }
    }
    out
}

/// What the functions read of an `EVENT_RECORD`.
struct Record<'a> {
    provider: etwsim::Guid,
    desc: EVENT_DESCRIPTOR,
    flags: u16,
    data: &'a [u8],
    schema_tl: Option<&'a [u8]>,
    traits: Option<&'a [u8]>,
}

/// `EVENT_HEADER_FLAG_32_BIT_HEADER`.
const HEADER_32_BIT: u16 = etwsim::record::header_flags::HEADER_32_BIT;

/// The record at `r`.
///
/// # Safety
/// `r` points at a readable `EVENT_RECORD` whose `UserData` holds `UserDataLength` bytes and
/// whose `ExtendedData` holds `ExtendedDataCount` items, each `DataPtr` `DataSize` bytes.
unsafe fn record<'a>(r: *const EVENT_RECORD) -> Record<'a> {
    // SAFETY: readable (contract).
    let r = unsafe { &*r };
    let h = &r.EventHeader;
    let data = if r.UserData.is_null() || r.UserDataLength == 0 {
        &[][..]
    } else {
        // SAFETY: UserDataLength bytes (contract).
        unsafe {
            std::slice::from_raw_parts(r.UserData.cast::<u8>(), usize::from(r.UserDataLength))
        }
    };
    let mut schema_tl = None;
    let mut traits = None;
    if !r.ExtendedData.is_null() {
        for i in 0..usize::from(r.ExtendedDataCount) {
            // SAFETY: ExtendedDataCount items (contract).
            let item = unsafe { &*r.ExtendedData.add(i) };
            if item.DataPtr == 0 {
                continue;
            }
            // SAFETY: DataSize bytes at DataPtr (contract).
            let bytes = unsafe {
                std::slice::from_raw_parts(item.DataPtr as *const u8, usize::from(item.DataSize))
            };
            match item.ExtType {
                0x000B => schema_tl = Some(bytes),
                0x000C => traits = Some(bytes),
                _ => {}
            }
        }
    }
    Record {
        provider: h.ProviderId.into(),
        desc: h.EventDescriptor,
        flags: h.Flags,
        data,
        schema_tl,
        traits,
    }
}

/// The schema of `r`, from its own metadata, a manifest or the kernel class table.
fn find_schema(r: &Record<'_>) -> Option<Arc<Schema>> {
    if let Some(meta) = r.schema_tl {
        return schema::from_tracelogging(r.provider, meta, r.traits).map(Arc::new);
    }
    if let Some(p) = manifest_provider(r.provider)
        && let Some(s) = manifest_schema(&p, r.desc.Id, r.desc.Version)
    {
        return Some(s);
    }
    schema::from_kernel_class(r.provider, r.desc.Opcode, r.desc.Version).map(Arc::new)
}

/// Manifest schemas already built, by (provider allocation, id, version): the cache holds
/// the provider, so its address is not reused while the entry lives (P23).
type SchemaCache = HashMap<(usize, u16, u8), (Arc<Provider>, Arc<Schema>)>;
static SCHEMAS: Mutex<Option<SchemaCache>> = Mutex::new(None);

/// The schema of manifest event (`id`, `version`) of `p`, built once.
fn manifest_schema(p: &Arc<Provider>, id: u16, version: u8) -> Option<Arc<Schema>> {
    thread_local! {
        /// This thread's last manifest schema (the cache entry it came from).
        static LAST: std::cell::RefCell<Option<LastSchema>> =
            const { std::cell::RefCell::new(None) };
    }
    let hit = LAST.with_borrow(|l| match l {
        Some((lp, li, lv, s)) if Arc::ptr_eq(lp, p) && *li == id && *lv == version => {
            Some(Arc::clone(s))
        }
        _ => None,
    });
    if hit.is_some() {
        return hit;
    }
    let s = manifest_schema_shared(p, id, version)?;
    LAST.set(Some((Arc::clone(p), id, version, Arc::clone(&s))));
    Some(s)
}

/// [`manifest_schema`] through the process-wide cache.
fn manifest_schema_shared(p: &Arc<Provider>, id: u16, version: u8) -> Option<Arc<Schema>> {
    let key = (Arc::as_ptr(p) as usize, id, version);
    if let Some((_, s)) = SCHEMAS.lock().as_ref().and_then(|c| c.get(&key)) {
        return Some(Arc::clone(s));
    }
    let s = Arc::new(schema::from_manifest(p, id, version)?);
    let mut cache = SCHEMAS.lock();
    let cache = cache.get_or_insert_with(HashMap::new);
    if cache.len() >= 4096 {
        cache.clear();
    }
    cache.insert(key, (Arc::clone(p), Arc::clone(&s)));
    Some(s)
}

/// The pointer size of `r`'s writer, or TDH_CONTEXT_POINTERSIZE's.
fn pointer_size(r: &Record<'_>, ctx: &[TDH_CONTEXT]) -> Result<usize, u32> {
    match ctx
        .iter()
        .find(|c| c.ParameterType == TDH_CONTEXT_POINTERSIZE)
    {
        Some(c) if c.ParameterValue == 4 || c.ParameterValue == 8 => Ok(c.ParameterValue as usize),
        Some(_) => Err(INVALID_PARAMETER),
        None => Ok(if r.flags & HEADER_32_BIT != 0 { 4 } else { 8 }),
    }
}

/// `count` items at `p` (NULL with a count is `None`).
///
/// # Safety
/// `p` NULL or `count` readable items.
unsafe fn items<'a, T>(p: *const T, count: u32) -> Option<&'a [T]> {
    if count == 0 {
        return Some(&[]);
    }
    if p.is_null() || count > MAX_ARGS {
        return None;
    }
    // SAFETY: `count` readable items (contract).
    Some(unsafe { std::slice::from_raw_parts(p, count as usize) })
}

/// Strings after a fixed part: each UTF-16 with its NUL, at a 2-aligned offset.
struct Blob {
    bytes: Vec<u8>,
}

impl Blob {
    fn new(fixed: usize) -> Blob {
        Blob {
            bytes: vec![0; fixed],
        }
    }
    fn put_u32(&mut self, at: usize, v: u32) {
        self.bytes[at..at + 4].copy_from_slice(&v.to_ne_bytes());
    }
    fn put_u16(&mut self, at: usize, v: u16) {
        self.bytes[at..at + 2].copy_from_slice(&v.to_ne_bytes());
    }
    fn put(&mut self, at: usize, b: &[u8]) {
        self.bytes[at..at + b.len()].copy_from_slice(b);
    }
    /// Appends `s` (with its NUL) and returns its offset.
    fn string(&mut self, s: &str) -> u32 {
        let at = self.bytes.len() as u32;
        for u in s.encode_utf16().chain([0]) {
            self.bytes.extend_from_slice(&u.to_ne_bytes());
        }
        at
    }
    fn opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(0, |s| self.string(s))
    }
}

fn guid_bytes(g: etwsim::Guid) -> [u8; 16] {
    g.to_bytes_le()
}

fn descriptor_bytes(d: &EVENT_DESCRIPTOR) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0..2].copy_from_slice(&d.Id.to_ne_bytes());
    b[2] = d.Version;
    b[3] = d.Channel;
    b[4] = d.Level;
    b[5] = d.Opcode;
    b[6..8].copy_from_slice(&d.Task.to_ne_bytes());
    b[8..16].copy_from_slice(&d.Keyword.to_ne_bytes());
    b
}

/// The `TRACE_EVENT_INFO` of `s` for an event with descriptor `desc`.
fn event_info(s: &Schema, desc: &EVENT_DESCRIPTOR) -> Vec<u8> {
    type T = TRACE_EVENT_INFO;
    let array = offset_of!(T, EventPropertyInfoArray);
    let psize = size_of::<EVENT_PROPERTY_INFO>();
    let fixed = (array + psize * s.props.len()).max(size_of::<T>());
    let mut b = Blob::new(fixed);
    b.put(offset_of!(T, ProviderGuid), &guid_bytes(s.provider));
    b.put(offset_of!(T, EventGuid), &guid_bytes(s.event_guid));
    b.put(offset_of!(T, EventDescriptor), &descriptor_bytes(desc));
    b.put_u32(offset_of!(T, DecodingSource), s.source as u32);
    b.put_u32(offset_of!(T, PropertyCount), s.props.len() as u32);
    b.put_u32(offset_of!(T, TopLevelPropertyCount), s.top_level as u32);
    let strings = [
        (
            offset_of!(T, ProviderNameOffset),
            s.provider_name.as_deref(),
        ),
        (offset_of!(T, LevelNameOffset), s.level_name.as_deref()),
        (offset_of!(T, ChannelNameOffset), s.channel_name.as_deref()),
        (offset_of!(T, TaskNameOffset), s.task_name.as_deref()),
        (offset_of!(T, OpcodeNameOffset), s.opcode_name.as_deref()),
        (
            offset_of!(T, EventMessageOffset),
            s.event_message.as_deref(),
        ),
        (
            offset_of!(T, ProviderMessageOffset),
            s.provider_message.as_deref(),
        ),
        (offset_of!(T, EventNameOffset), s.event_name.as_deref()),
    ];
    for (at, v) in strings {
        let off = b.opt(v);
        b.put_u32(at, off);
    }
    if !s.keyword_names.is_empty() {
        let off = b.bytes.len() as u32;
        for k in &s.keyword_names {
            b.string(k);
        }
        b.string("");
        b.put_u32(offset_of!(T, KeywordsNameOffset), off);
    }
    type P = EVENT_PROPERTY_INFO;
    for (i, p) in s.props.iter().enumerate() {
        let at = array + i * psize;
        b.put_u32(at + offset_of!(P, Flags), p.flags);
        let name = b.string(&p.name);
        b.put_u32(at + offset_of!(P, NameOffset), name);
        if p.flags & 1 != 0 {
            b.put_u16(at + offset_of!(P, InType), p.struct_start);
            b.put_u16(at + offset_of!(P, OutType), p.members);
        } else {
            b.put_u16(at + offset_of!(P, InType), p.in_type);
            b.put_u16(at + offset_of!(P, OutType), p.out_type);
            let map = b.opt(p.map.as_deref());
            b.put_u32(at + offset_of!(P, MapNameOffset), map);
        }
        b.put_u16(at + offset_of!(P, count), p.count);
        b.put_u16(at + offset_of!(P, length), p.length);
        b.put_u32(at + offset_of!(P, Reserved), p.tags & 0x0FFF_FFFF);
    }
    b.bytes
}

/// Copies `data` to `buffer` (of `*size` bytes), TDH's way: the size needed written back,
/// `ERROR_INSUFFICIENT_BUFFER` when it does not fit.
///
/// # Safety
/// `size` writable; `buffer` NULL or `*size` writable bytes.
unsafe fn copy_out(data: &[u8], buffer: *mut u8, size: *mut u32) -> u32 {
    // SAFETY: readable and writable (contract).
    let have = unsafe { size.read_unaligned() };
    let need = u32::try_from(data.len()).unwrap_or(u32::MAX);
    // SAFETY: as above.
    unsafe { size.write_unaligned(need) };
    if buffer.is_null() || have < need {
        return INSUFFICIENT_BUFFER;
    }
    // SAFETY: `have` ≥ `need` writable bytes (contract).
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buffer, data.len()) };
    0
}

/// `TdhGetEventInformation(Event, TdhContextCount, TdhContext, Buffer, BufferSize)`: the
/// event's `TRACE_EVENT_INFO`. `ERROR_INVALID_PARAMETER` for a NULL event or size, a NULL
/// context array with a count, a bad pointer size; `ERROR_NOT_FOUND` when no schema is
/// known; `ERROR_INSUFFICIENT_BUFFER` with the size needed in `*BufferSize`.
///
/// # Safety
/// Microsoft's contract: a valid `EVENT_RECORD`, `TdhContextCount` contexts, `*BufferSize`
/// writable bytes at `Buffer` (or NULL).
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhGetEventInformation(
    event: *const EVENT_RECORD,
    tdhcontextcount: u32,
    tdhcontext: *const TDH_CONTEXT,
    buffer: *mut TRACE_EVENT_INFO,
    buffersize: *mut u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if event.is_null() || buffersize.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: contract.
        let Some(ctx) = (unsafe { items(tdhcontext, tdhcontextcount) }) else {
            return INVALID_PARAMETER;
        };
        // SAFETY: contract.
        let r = unsafe { record(event) };
        if let Err(e) = pointer_size(&r, ctx) {
            return e;
        }
        let Some(s) = find_schema(&r) else {
            return NOT_FOUND;
        };
        // SAFETY: contract.
        event_info_cached(&s, &r.desc, |b| unsafe {
            copy_out(b, buffer.cast(), buffersize)
        })
    })
}

/// `TdhGetManifestEventInformation(ProviderGuid, EventDescriptor, Buffer, BufferSize)`: the
/// `TRACE_EVENT_INFO` of a manifest event (by Id and Version). `ERROR_NOT_FOUND` when no
/// loaded or installed manifest has it.
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhGetManifestEventInformation(
    providerguid: *const GUID,
    eventdescriptor: *const EVENT_DESCRIPTOR,
    buffer: *mut TRACE_EVENT_INFO,
    buffersize: *mut u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if providerguid.is_null() || eventdescriptor.is_null() || buffersize.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: readable (contract).
        let (g, d) = unsafe {
            (
                providerguid.read_unaligned(),
                eventdescriptor.read_unaligned(),
            )
        };
        let Some(p) = manifest_provider(g.into()) else {
            return NOT_FOUND;
        };
        let Some(s) = schema::from_manifest(&p, d.Id, d.Version) else {
            return NOT_FOUND;
        };
        let e = p.event(d.Id, d.Version).expect("schema found it");
        let desc = EVENT_DESCRIPTOR {
            Id: e.id,
            Version: e.version,
            Channel: e.channel,
            Level: e.level,
            Opcode: e.opcode,
            Task: e.task,
            Keyword: e.keywords,
        };
        // SAFETY: contract.
        unsafe { copy_out(&event_info(&s, &desc), buffer.cast(), buffersize) }
    })
}

/// The name at `p` (a `PropertyName` address).
///
/// # Safety
/// `p` 0 or a NUL-terminated UTF-16 string.
unsafe fn wide_name(p: u64) -> Option<String> {
    // SAFETY: contract.
    unsafe { crate::strings::name(p as *const c_void, crate::strings::Encoding::Wide) }?.ok()
}

/// A thread's last walk: schema, pointer size, payload, locations.
type LastWalk = (Arc<Schema>, usize, Vec<u8>, Vec<Loc>);
/// A thread's last TRACE_EVENT_INFO: schema, descriptor, bytes.
type LastInfo = (Arc<Schema>, [u8; 16], Vec<u8>);
/// A thread's last manifest schema: provider, id, version, schema.
type LastSchema = (Arc<Provider>, u16, u8, Arc<Schema>);

thread_local! {
    /// The last walk of this thread: (schema, pointer size, payload) and where its
    /// properties lie. A consumer asks for each property of one event in turn; the same
    /// schema over the same bytes lies the same way (P23).
    static LAST_WALK: std::cell::RefCell<Option<LastWalk>> =
        const { std::cell::RefCell::new(None) };
    /// The last TRACE_EVENT_INFO this thread built, by schema and descriptor.
    static LAST_INFO: std::cell::RefCell<Option<LastInfo>> =
        const { std::cell::RefCell::new(None) };
}

/// `f` of where the top-level properties of `s` lie in `data` (the thread's last walk when
/// it is the same schema over the same bytes).
fn with_located<R>(
    s: &Arc<Schema>,
    data: &[u8],
    ptr: usize,
    f: impl FnOnce(&[Loc]) -> Result<R, u32>,
) -> Result<R, u32> {
    let same = LAST_WALK.with_borrow(|last| {
        matches!(last, Some((ls, lp, ld, _)) if Arc::ptr_eq(ls, s) && *lp == ptr && ld == data)
    });
    if !same {
        let locs = schema::locate(s, data, ptr).map_err(|_| INVALID_EVENT_DATA)?;
        LAST_WALK.set(Some((Arc::clone(s), ptr, data.to_vec(), locs)));
    }
    LAST_WALK.with_borrow(|last| match last {
        Some((_, _, _, locs)) => f(locs),
        None => Err(INVALID_PARAMETER),
    })
}

/// [`event_info`], memoised per thread for the last (schema, descriptor).
fn event_info_cached(
    s: &Arc<Schema>,
    desc: &EVENT_DESCRIPTOR,
    f: impl FnOnce(&[u8]) -> u32,
) -> u32 {
    let d = descriptor_bytes(desc);
    let mut f = Some(f);
    let hit = LAST_INFO.with_borrow(|last| match last {
        Some((ls, ld, bytes)) if Arc::ptr_eq(ls, s) && *ld == d => f.take().map(|f| f(bytes)),
        _ => None,
    });
    if let Some(code) = hit {
        return code;
    }
    let Some(f) = f else { return INVALID_PARAMETER };
    let bytes = event_info(s, desc);
    let code = f(&bytes);
    LAST_INFO.set(Some((Arc::clone(s), d, bytes)));
    code
}

/// The byte range of the property `descs` names.
fn property_range(s: &Schema, locs: &[Loc], descs: &[(&[u8], u32)]) -> Result<(usize, usize), u32> {
    // A UTF-16 name (bytes through its NUL) against a schema name, without making a String.
    let is = |i: usize, name: &[u8]| {
        let want = s.props[i].name.as_bytes();
        if want.is_ascii() {
            // One unit per byte, then the NUL: lengths first, then the bytes.
            return name.len() == 2 * want.len() + 2
                && want
                    .iter()
                    .zip(name.chunks_exact(2))
                    .all(|(&b, c)| u16::from(b) == u16::from_ne_bytes([c[0], c[1]]));
        }
        let units = name
            .chunks_exact(2)
            .map(|c| u16::from_ne_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0);
        s.props[i].name.encode_utf16().eq(units)
    };
    // The candidates at this level: top-level properties (index = schema index), then a
    // struct element's members.
    let mut members: Option<&[(usize, Loc)]> = None;
    for (k, (name, index)) in descs.iter().enumerate() {
        let loc = match members {
            None => locs
                .iter()
                .enumerate()
                .find(|(i, _)| is(*i, name))
                .map(|(_, l)| l),
            Some(m) => m.iter().find(|(i, _)| is(*i, name)).map(|(_, l)| l),
        }
        .ok_or(NOT_FOUND)?;
        let elem = if *index == u32::MAX {
            None
        } else {
            Some(loc.elems.get(*index as usize).ok_or(INVALID_PARAMETER)?)
        };
        if k + 1 == descs.len() {
            return Ok(match elem {
                Some(e) => (e.start, e.end),
                None => match (loc.elems.first(), loc.elems.last()) {
                    (Some(f), Some(l)) => (f.start, l.end),
                    _ => (loc.start, loc.end),
                },
            });
        }
        let e = match elem {
            Some(e) => e,
            None if loc.elems.len() == 1 => &loc.elems[0],
            None => return Err(INVALID_PARAMETER),
        };
        members = Some(&e.members);
    }
    Err(INVALID_PARAMETER)
}

/// The shared part of TdhGetProperty and TdhGetPropertySize.
///
/// # Safety
/// Their contract.
unsafe fn get_property<'a>(
    event: *const EVENT_RECORD,
    ctx_count: u32,
    ctx: *const TDH_CONTEXT,
    count: u32,
    descs: *const PROPERTY_DATA_DESCRIPTOR,
) -> Result<&'a [u8], u32> {
    if event.is_null() || count == 0 {
        return Err(INVALID_PARAMETER);
    }
    // SAFETY: contract.
    let ctx = unsafe { items(ctx, ctx_count) }.ok_or(INVALID_PARAMETER)?;
    // SAFETY: contract.
    let descs = unsafe { items(descs, count) }.ok_or(INVALID_PARAMETER)?;
    let mut named: Vec<(&[u8], u32)> = Vec::with_capacity(descs.len());
    for d in descs {
        if d.PropertyName == 0 {
            return Err(INVALID_PARAMETER);
        }
        // SAFETY: a NUL-terminated UTF-16 name (contract).
        let raw = unsafe {
            crate::strings::raw(d.PropertyName as *const u8, crate::strings::Encoding::Wide)
        };
        if !raw.ends_with(&[0, 0]) {
            return Err(INVALID_PARAMETER); // no NUL within MAX_STRING_CHARS
        }
        named.push((raw, d.ArrayIndex));
    }
    // SAFETY: contract.
    let r = unsafe { record(event) };
    let ptr = pointer_size(&r, ctx)?;
    let s = find_schema(&r).ok_or(NOT_FOUND)?;
    let (start, end) = with_located(&s, r.data, ptr, |locs| property_range(&s, locs, &named))?;
    Ok(&r.data[start..end])
}

/// `TdhGetPropertySize(pEvent, TdhContextCount, pTdhContext, PropertyDataCount,
/// pPropertyData, pPropertySize)`: the size of a property's data. `ERROR_INVALID_PARAMETER`
/// for NULL pointers, a count of 0, an array index out of range; `ERROR_NOT_FOUND` for an
/// event with no schema or a property name it does not have; `ERROR_EVT_INVALID_EVENT_DATA`
/// when the payload does not match the schema.
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhGetPropertySize(
    pevent: *const EVENT_RECORD,
    tdhcontextcount: u32,
    ptdhcontext: *const TDH_CONTEXT,
    propertydatacount: u32,
    ppropertydata: *const PROPERTY_DATA_DESCRIPTOR,
    ppropertysize: *mut u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if ppropertysize.is_null() || ppropertydata.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: contract.
        match unsafe {
            get_property(
                pevent,
                tdhcontextcount,
                ptdhcontext,
                propertydatacount,
                ppropertydata,
            )
        } {
            Ok(b) => {
                // SAFETY: writable (contract).
                unsafe { ppropertysize.write_unaligned(b.len() as u32) };
                0
            }
            Err(e) => e,
        }
    })
}

/// `TdhGetProperty(pEvent, TdhContextCount, pTdhContext, PropertyDataCount, pPropertyData,
/// BufferSize, pBuffer)`: a property's data. Codes as [`TdhGetPropertySize`], and
/// `ERROR_INSUFFICIENT_BUFFER` when `BufferSize` is smaller than the data (TDH has no
/// size to write back here: TdhGetPropertySize gives it).
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhGetProperty(
    pevent: *const EVENT_RECORD,
    tdhcontextcount: u32,
    ptdhcontext: *const TDH_CONTEXT,
    propertydatacount: u32,
    ppropertydata: *const PROPERTY_DATA_DESCRIPTOR,
    buffersize: u32,
    pbuffer: *mut u8,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if pbuffer.is_null() || ppropertydata.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: contract.
        match unsafe {
            get_property(
                pevent,
                tdhcontextcount,
                ptdhcontext,
                propertydatacount,
                ppropertydata,
            )
        } {
            Ok(b) if b.len() > buffersize as usize => INSUFFICIENT_BUFFER,
            Ok(b) => {
                // SAFETY: `buffersize` ≥ len writable bytes (contract).
                unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), pbuffer, b.len()) };
                0
            }
            Err(e) => e,
        }
    })
}

/// The `EVENT_MAP_INFO` of map `name` of `s`'s manifest.
fn map_info(s: &Schema, name: &str) -> Option<Vec<u8>> {
    let m = s.map(name)?;
    type M = EVENT_MAP_INFO;
    let entries = offset_of!(M, MapEntryArray);
    let esize = size_of::<EVENT_MAP_ENTRY>();
    let fixed = (entries + esize * m.entries.len()).max(size_of::<M>());
    let mut b = Blob::new(fixed);
    let off = b.string(&m.name);
    b.put_u32(offset_of!(M, NameOffset), off);
    b.put_u32(
        offset_of!(M, Flag),
        match m.kind {
            MapKind::Value => EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP,
            MapKind::Bits => EVENTMAP_INFO_FLAG_MANIFEST_BITMAP,
        } as u32,
    );
    b.put_u32(offset_of!(M, EntryCount), m.entries.len() as u32);
    b.put_u32(
        offset_of!(M, MapEntryValueType),
        EVENTMAP_ENTRY_VALUETYPE_ULONG as u32,
    );
    for (i, (value, text)) in m.entries.iter().enumerate() {
        let at = entries + i * esize;
        let off = b.string(text);
        b.put_u32(at, off);
        b.put_u32(at + 4, *value as u32);
    }
    Some(b.bytes)
}

/// `TdhGetEventMapInformation(pEvent, pMapName, pBuffer, pBufferSize)`: a value or bit map of
/// the event's manifest. `ERROR_INVALID_PARAMETER` for NULL pointers; `ERROR_NOT_FOUND` for
/// an event without a manifest schema or a map name it does not define;
/// `ERROR_INSUFFICIENT_BUFFER` with the size needed.
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhGetEventMapInformation(
    pevent: *const EVENT_RECORD,
    pmapname: *const u16,
    pbuffer: *mut EVENT_MAP_INFO,
    pbuffersize: *mut u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if pevent.is_null() || pmapname.is_null() || pbuffersize.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: contract.
        let Some(name) = (unsafe { wide_name(pmapname as u64) }) else {
            return INVALID_PARAMETER;
        };
        // SAFETY: contract.
        let r = unsafe { record(pevent) };
        let Some(info) = find_schema(&r).and_then(|s| map_info(&s, &name)) else {
            return NOT_FOUND;
        };
        // SAFETY: contract.
        unsafe { copy_out(&info, pbuffer.cast(), pbuffersize) }
    })
}

/// `TdhEnumerateProviders(pBuffer, pBufferSize)`: the manifest providers this process can
/// see (loaded, then installed; `SchemaSource` 0) and the kernel MOF classes
/// (`SchemaSource` 1, named after the class).
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhEnumerateProviders(
    pbuffer: *mut PROVIDER_ENUMERATION_INFO,
    pbuffersize: *mut u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if pbuffersize.is_null() {
            return INVALID_PARAMETER;
        }
        let mut list: Vec<(etwsim::Guid, u32, String)> = manifest_providers()
            .iter()
            .map(|p| (p.guid, 0, p.name.clone()))
            .collect();
        for c in etwsim::decode::mof::classes() {
            if !list.iter().any(|(g, _, _)| *g == c.guid) {
                list.push((c.guid, 1, c.name.to_owned()));
            }
        }
        type E = PROVIDER_ENUMERATION_INFO;
        let arr = offset_of!(E, TraceProviderInfoArray);
        let isize_ = size_of::<TRACE_PROVIDER_INFO>();
        let mut b = Blob::new((arr + isize_ * list.len()).max(size_of::<E>()));
        b.put_u32(0, list.len() as u32);
        for (i, (g, src, name)) in list.iter().enumerate() {
            let at = arr + i * isize_;
            b.put(at, &guid_bytes(*g));
            b.put_u32(at + 16, *src);
            let off = b.string(name);
            b.put_u32(at + 20, off);
        }
        // SAFETY: contract.
        unsafe { copy_out(&b.bytes, pbuffer.cast(), pbuffersize) }
    })
}

/// `TdhEnumerateProviderFieldInformation(pGuid, EventFieldType, pBuffer, pBufferSize)`: a
/// manifest provider's keywords, levels, channels, tasks or opcodes, with their messages as
/// descriptions. `ERROR_INVALID_PARAMETER` for NULL pointers or an unknown field type;
/// `ERROR_NOT_FOUND` when no manifest has the provider or it defines no such field;
/// `ERROR_INSUFFICIENT_BUFFER` with the size needed.
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhEnumerateProviderFieldInformation(
    pguid: *const GUID,
    eventfieldtype: EVENT_FIELD_TYPE,
    pbuffer: *mut PROVIDER_FIELD_INFOARRAY,
    pbuffersize: *mut u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if pguid.is_null() || pbuffersize.is_null() || !(0..=4).contains(&eventfieldtype) {
            return INVALID_PARAMETER;
        }
        // SAFETY: readable (contract).
        let g = unsafe { pguid.read_unaligned() };
        let Some(p) = manifest_provider(g.into()) else {
            return NOT_FOUND;
        };
        let fields: Vec<(String, Option<String>, u64)> = match eventfieldtype {
            EventKeywordInformation => p
                .keywords
                .iter()
                .map(|k| (k.name.clone(), k.message.clone(), k.value))
                .collect(),
            EventLevelInformation => p
                .levels
                .iter()
                .map(|k| (k.name.clone(), k.message.clone(), u64::from(k.value)))
                .collect(),
            EventChannelInformation => p
                .channels
                .iter()
                .map(|c| (c.name.clone(), c.message.clone(), u64::from(c.value)))
                .collect(),
            EventTaskInformation => p
                .tasks
                .iter()
                .map(|t| (t.name.clone(), t.message.clone(), u64::from(t.value)))
                .collect(),
            _ => p
                .opcodes
                .iter()
                .chain(p.tasks.iter().flat_map(|t| t.opcodes.iter()))
                .map(|o| (o.name.clone(), o.message.clone(), u64::from(o.value)))
                .collect(),
        };
        if fields.is_empty() {
            return NOT_FOUND;
        }
        type A = PROVIDER_FIELD_INFOARRAY;
        let arr = offset_of!(A, FieldInfoArray);
        let fsize = size_of::<PROVIDER_FIELD_INFO>();
        let mut b = Blob::new((arr + fsize * fields.len()).max(size_of::<A>()));
        b.put_u32(0, fields.len() as u32);
        b.put_u32(4, eventfieldtype as u32);
        for (i, (name, desc, value)) in fields.iter().enumerate() {
            let at = arr + i * fsize;
            let n = b.string(name);
            b.put_u32(at, n);
            let d = b.opt(desc.as_deref());
            b.put_u32(at + 4, d);
            b.put(at + 8, &value.to_ne_bytes());
        }
        // SAFETY: contract.
        unsafe { copy_out(&b.bytes, pbuffer.cast(), pbuffersize) }
    })
}

/// `TdhEnumerateManifestProviderEvents(ProviderGuid, Buffer, BufferSize)`: the descriptors
/// of a manifest provider's events. `ERROR_NOT_FOUND` when no manifest has the provider;
/// `ERROR_EMPTY` (4306) when it defines no event.
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhEnumerateManifestProviderEvents(
    providerguid: *const GUID,
    buffer: *mut PROVIDER_EVENT_INFO,
    buffersize: *mut u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if providerguid.is_null() || buffersize.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: readable (contract).
        let g = unsafe { providerguid.read_unaligned() };
        let Some(p) = manifest_provider(g.into()) else {
            return NOT_FOUND;
        };
        if p.events.is_empty() {
            return 4306;
        }
        type E = PROVIDER_EVENT_INFO;
        let arr = offset_of!(E, EventDescriptorsArray);
        let dsize = size_of::<EVENT_DESCRIPTOR>();
        let mut b = Blob::new((arr + dsize * p.events.len()).max(size_of::<E>()));
        b.put_u32(0, p.events.len() as u32);
        for (i, e) in p.events.iter().enumerate() {
            let d = EVENT_DESCRIPTOR {
                Id: e.id,
                Version: e.version,
                Channel: e.channel,
                Level: e.level,
                Opcode: e.opcode,
                Task: e.task,
                Keyword: e.keywords,
            };
            b.put(arr + i * dsize, &descriptor_bytes(&d));
        }
        // SAFETY: contract.
        unsafe { copy_out(&b.bytes, buffer.cast(), buffersize) }
    })
}

/// Loads `bytes` as a manifest under `key`, replacing an earlier load of the same key.
fn load(key: Vec<u8>, bytes: &[u8]) -> u32 {
    let Ok(m) = load_manifest(bytes) else {
        return XML_PARSE_ERROR;
    };
    let providers = m.providers.into_iter().map(Arc::new).collect();
    let mut loaded = LOADED.lock();
    loaded.retain(|(k, _)| *k != key);
    loaded.push((key, providers));
    0
}

fn unload(key: &[u8]) -> u32 {
    let mut loaded = LOADED.lock();
    let before = loaded.len();
    loaded.retain(|(k, _)| k != key);
    if loaded.len() == before { NOT_FOUND } else { 0 }
}

/// `TdhLoadManifest(Manifest)`: loads an instrumentation manifest file for this process's
/// decoding. `ERROR_INVALID_PARAMETER` for NULL; `ERROR_FILE_NOT_FOUND` for a file that
/// cannot be read; `ERROR_XML_PARSE_ERROR` (1465) for one that is not a manifest.
///
/// # Safety
/// `Manifest` NULL or a NUL-terminated UTF-16 path.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhLoadManifest(manifest: *const u16) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        // SAFETY: contract.
        let Some(path) = (unsafe { wide_name(manifest as u64) }) else {
            return INVALID_PARAMETER;
        };
        match etwsim::decode::manifest::read_manifest_file(std::path::Path::new(&path)) {
            Ok(bytes) => load(path.into_bytes(), &bytes),
            Err(_) => FILE_NOT_FOUND,
        }
    })
}

/// `TdhUnloadManifest(Manifest)`: forgets a manifest [`TdhLoadManifest`] loaded from the same
/// path. `ERROR_NOT_FOUND` when none was (the project's reading).
///
/// # Safety
/// As [`TdhLoadManifest`].
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhUnloadManifest(manifest: *const u16) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        // SAFETY: contract.
        let Some(path) = (unsafe { wide_name(manifest as u64) }) else {
            return INVALID_PARAMETER;
        };
        unload(path.as_bytes())
    })
}

/// `TdhLoadManifestFromMemory(pData, cbData)`: loads a manifest from memory.
///
/// # Safety
/// `pData` NULL or `cbData` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhLoadManifestFromMemory(pdata: *const c_void, cbdata: u32) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if pdata.is_null() || cbdata == 0 {
            return INVALID_PARAMETER;
        }
        // SAFETY: `cbData` readable bytes (contract).
        let bytes = unsafe { std::slice::from_raw_parts(pdata.cast::<u8>(), cbdata as usize) };
        let mut key = b"\0memory:".to_vec();
        key.extend_from_slice(bytes);
        load(key, bytes)
    })
}

/// `TdhUnloadManifestFromMemory(pData, cbData)`: forgets a manifest loaded from the same
/// bytes.
///
/// # Safety
/// As [`TdhLoadManifestFromMemory`].
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhUnloadManifestFromMemory(
    pdata: *const c_void,
    cbdata: u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if pdata.is_null() || cbdata == 0 {
            return INVALID_PARAMETER;
        }
        // SAFETY: `cbData` readable bytes (contract).
        let bytes = unsafe { std::slice::from_raw_parts(pdata.cast::<u8>(), cbdata as usize) };
        let mut key = b"\0memory:".to_vec();
        key.extend_from_slice(bytes);
        unload(&key)
    })
}

/// `TdhLoadManifestFromBinary(BinaryPath)`: `ERROR_NOT_SUPPORTED` — etwsim reads no PE
/// resources (`WEVT_TEMPLATE`); `ERROR_INVALID_PARAMETER` for NULL.
///
/// # Safety
/// None needed: the path is not read.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhLoadManifestFromBinary(binarypath: *const u16) -> u32 {
    if binarypath.is_null() {
        INVALID_PARAMETER
    } else {
        NOT_SUPPORTED
    }
}

/// Decoding handles and their parameters.
/// The last handle number and the open handles with their parameters.
type Handles = (isize, Option<HashMap<isize, Vec<TDH_CONTEXT>>>);
static HANDLES: Mutex<Handles> = Mutex::new((0, None));

/// `TdhOpenDecodingHandle(Handle)`: a new decoding handle. `ERROR_INVALID_PARAMETER` for
/// NULL.
///
/// # Safety
/// `Handle` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhOpenDecodingHandle(handle: *mut TDH_HANDLE) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if handle.is_null() {
            return INVALID_PARAMETER;
        }
        let mut g = HANDLES.lock();
        g.0 += 1;
        let h = 0x7E00_0000 + g.0 * 0x10;
        g.1.get_or_insert_with(HashMap::new).insert(h, Vec::new());
        // SAFETY: writable (contract).
        unsafe { handle.write_unaligned(h) };
        0
    })
}

/// `TdhCloseDecodingHandle(Handle)`: `ERROR_INVALID_PARAMETER` for a handle not open.
#[unsafe(no_mangle)]
pub extern "system" fn TdhCloseDecodingHandle(handle: TDH_HANDLE) -> u32 {
    let mut g = HANDLES.lock();
    match g.1.as_mut().and_then(|m| m.remove(&handle)) {
        Some(_) => 0,
        None => INVALID_PARAMETER,
    }
}

/// `TdhSetDecodingParameter(Handle, TdhContext)`: stores a parameter on the handle (the
/// WPP ones are kept for `TdhGetDecodingParameter`; etwsim exports no WPP decoding through
/// TDH yet). `ERROR_INVALID_PARAMETER` for a handle not open, NULL, or an unknown type.
///
/// # Safety
/// `TdhContext` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhSetDecodingParameter(
    handle: TDH_HANDLE,
    tdhcontext: *const TDH_CONTEXT,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if tdhcontext.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: readable (contract).
        let c = unsafe { tdhcontext.read_unaligned() };
        if !(0..TDH_CONTEXT_MAXIMUM).contains(&c.ParameterType) {
            return INVALID_PARAMETER;
        }
        let mut g = HANDLES.lock();
        let Some(params) = g.1.as_mut().and_then(|m| m.get_mut(&handle)) else {
            return INVALID_PARAMETER;
        };
        params.retain(|p| p.ParameterType != c.ParameterType);
        params.push(c);
        0
    })
}

/// `TdhGetDecodingParameter(Handle, TdhContext)`: the value [`TdhSetDecodingParameter`] set
/// for `TdhContext->ParameterType`. `ERROR_NOT_FOUND` when none was set.
///
/// # Safety
/// `TdhContext` NULL or readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhGetDecodingParameter(
    handle: TDH_HANDLE,
    tdhcontext: *mut TDH_CONTEXT,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if tdhcontext.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: readable (contract).
        let mut c = unsafe { tdhcontext.read_unaligned() };
        let g = HANDLES.lock();
        let Some(params) = g.1.as_ref().and_then(|m| m.get(&handle)) else {
            return INVALID_PARAMETER;
        };
        match params.iter().find(|p| p.ParameterType == c.ParameterType) {
            Some(p) => {
                c.ParameterValue = p.ParameterValue;
                c.ParameterSize = p.ParameterSize;
                // SAFETY: writable (contract).
                unsafe { tdhcontext.write_unaligned(c) };
                0
            }
            None => NOT_FOUND,
        }
    })
}

mod filter;
pub use filter::{
    TdhAggregatePayloadFilters, TdhCleanupPayloadEventFilterDescriptor, TdhCreatePayloadFilter,
    TdhDeletePayloadFilter,
};
