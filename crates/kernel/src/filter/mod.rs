//! Filters: what one session accepts from one provider.
//!
//! A session's filtering of a modern provider's event happens in two tiers (FLT-26):
//!
//! * **Scope filters** (PID, executable name, package — FLT-16, FLT-17) decide, per
//!   registration, whether the provider is enabled for the session *at all*. They are applied
//!   when the enable state is rebuilt, so an event from an out-of-scope process never gets
//!   past the provider's cached enable word.
//! * **Event filters** — level and keywords (FLT-01…FLT-07), the EventWriteEx filter mask
//!   (EVT-04), EXCLUDE_INPRIVATE (FLT-11), event-ID (FLT-19) and event-name (FLT-22) — are
//!   checked per event by [`session_accepts`], the one predicate the event path calls for each
//!   enabled session (the rules' Appendix A).
//!
//! [`EventFilter`] is the typed form of an `EVENT_FILTER_DESCRIPTOR`; [`EventFilter::parse`]
//! reads the documented wire layouts and [`EventFilter::to_bytes`] writes them, and both the
//! Rust API and the `win32` face go through the same limit checks ([`FilterSet::new`]).
//! Every limit violation is `ERROR_INVALID_PARAMETER` (FLT-25, the project's choice).

pub(crate) mod flags;
pub(in crate::filter) mod reason;
pub(crate) mod verdict;

use crate::filter::reason::Reason;
use crate::{Error, Result};
use etwsim_decode::manifest::filter::AggregateFilter;
use etwsim_types::{EnableProperty, EventDescriptor, FilterType, Keyword, Level};
use std::sync::Arc;

/// `MAX_EVENT_FILTERS_COUNT`: descriptors per EnableTraceEx2 call (FLT-13).
pub const MAX_EVENT_FILTERS_COUNT: usize = 13;
/// `MAX_EVENT_FILTER_DATA_SIZE`: bytes of a scope or schematized filter (FLT-15…FLT-17).
pub const MAX_EVENT_FILTER_DATA_SIZE: usize = 1024;
/// `MAX_EVENT_FILTER_PID_COUNT` (FLT-16).
pub const MAX_EVENT_FILTER_PID_COUNT: usize = 8;
/// `MAX_EVENT_FILTER_EVENT_ID_COUNT` (FLT-19, FLT-21).
pub const MAX_EVENT_FILTER_EVENT_ID_COUNT: usize = 64;
/// `MAX_EVENT_FILTER_PAYLOAD_SIZE` (FLT-18).
pub const MAX_EVENT_FILTER_PAYLOAD_SIZE: usize = 4096;
/// `MAX_EVENT_FILTER_EVENT_NAME_SIZE` (FLT-22).
pub const MAX_EVENT_FILTER_EVENT_NAME_SIZE: usize = 4096;
/// `sizeof(EVENT_FILTER_HEADER)`: the head of a schematized filter (FLT-15).
pub const EVENT_FILTER_HEADER_SIZE: usize = 24;

/// One filter of an EnableTraceEx2 call, typed (`EVENT_FILTER_DESCRIPTOR` + its data).
#[doc(alias = "EVENT_FILTER_DESCRIPTOR")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventFilter {
    /// `EVENT_FILTER_TYPE_SCHEMATIZED`: data for the provider's callback, starting with an
    /// `EVENT_FILTER_HEADER` (FLT-15, PRV-15).
    Schematized(Vec<u8>),
    /// `EVENT_FILTER_TYPE_PID`: enable only in these processes (FLT-16).
    Pid(Vec<u32>),
    /// `EVENT_FILTER_TYPE_EXECUTABLE_NAME`: `;`-separated file names (FLT-17).
    ExecutableName(String),
    /// `EVENT_FILTER_TYPE_PACKAGE_ID`: `;`-separated package full names (FLT-17).
    PackageId(String),
    /// `EVENT_FILTER_TYPE_PACKAGE_APP_ID`: `;`-separated package-relative app ids (FLT-17).
    PackageAppId(String),
    /// `EVENT_FILTER_TYPE_PAYLOAD`: an aggregated TDH payload filter in its wire form
    /// ([`AggregateFilter::to_bytes`], made by [`EventFilter::payload`]), evaluated against
    /// the decoded fields of manifest events after they are written (FLT-18).
    Payload(Vec<u8>),
    /// `EVENT_FILTER_TYPE_EVENT_ID`: record only (`filter_in`) or all but the listed ids (FLT-19).
    EventId {
        /// `TRUE`: only these ids; `FALSE`: all but these.
        filter_in: bool,
        /// The ids, at most 64.
        ids: Vec<u16>,
    },
    /// `EVENT_FILTER_TYPE_EVENT_NAME`: TraceLogging events by name (FLT-22).
    EventName(NameFilter),
    /// `EVENT_FILTER_TYPE_STACKWALK`: which event ids get a stack (FLT-21).
    Stackwalk {
        /// `TRUE`: only these ids; `FALSE`: all but these.
        filter_in: bool,
        /// The ids, at most 64.
        ids: Vec<u16>,
    },
    /// `EVENT_FILTER_TYPE_STACKWALK_NAME`: which TraceLogging events get a stack (FLT-23).
    StackwalkName(NameFilter),
    /// `EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW`: which events get a stack, by level and
    /// keywords (FLT-23).
    StackwalkLevelKw {
        /// `MatchAnyKeyword`.
        match_any: Keyword,
        /// `MatchAllKeyword`.
        match_all: Keyword,
        /// `Level`.
        level: Level,
        /// `TRUE`: matching events get stacks; `FALSE`: they do not.
        filter_in: bool,
    },
    /// `EVENT_FILTER_TYPE_TRACEHANDLE`: the session to run a rundown for; only with
    /// CAPTURE_STATE on SystemTraceControlGuid (FLT-24).
    TraceHandle(u64),
}

/// `EVENT_FILTER_EVENT_NAME`: a level/keyword gate and a list of event names (FLT-22, FLT-23).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameFilter {
    /// `MatchAnyKeyword` of the gate.
    pub match_any: Keyword,
    /// `MatchAllKeyword` of the gate.
    pub match_all: Keyword,
    /// `Level` of the gate.
    pub level: Level,
    /// `TRUE`: the names are included; `FALSE`: excluded.
    pub filter_in: bool,
    /// The names (UTF-8 on the wire, NUL-terminated each).
    pub names: Vec<String>,
}

impl NameFilter {
    /// Whether an event passes the filter's own level/keyword gate, which decides whether the
    /// name list applies to it at all (FLT-22).
    pub(in crate::filter) fn gate(&self, desc: &EventDescriptor) -> bool {
        level_keyword_accepts(desc, self.level, self.match_any, self.match_all, true)
    }

    pub(in crate::filter) fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    fn encode(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(20 + self.names.iter().map(|n| n.len() + 1).sum::<usize>());
        out.extend_from_slice(&self.match_any.0.to_le_bytes());
        out.extend_from_slice(&self.match_all.0.to_le_bytes());
        out.push(self.level.0);
        out.push(u8::from(self.filter_in));
        out.extend_from_slice(&(self.names.len() as u16).to_le_bytes());
        for n in &self.names {
            out.extend_from_slice(n.as_bytes());
            out.push(0);
        }
        out
    }

    fn decode(data: &[u8]) -> Result<NameFilter> {
        if data.len() < 20 {
            return Err(Error::invalid(format!(
                "EVENT_FILTER_EVENT_NAME needs at least 20 bytes, got {}",
                data.len()
            )));
        }
        let count = usize::from(u16::from_le_bytes([data[18], data[19]]));
        let mut names = Vec::with_capacity(count.min(256));
        let mut rest = &data[20..];
        for i in 0..count {
            let end = rest.iter().position(|&b| b == 0).ok_or_else(|| {
                Error::invalid(format!("event name {i} of {count} is not NUL-terminated"))
            })?;
            let name = std::str::from_utf8(&rest[..end])
                .map_err(|_| Error::invalid(format!("event name {i} is not UTF-8")))?;
            names.push(name.to_owned());
            rest = &rest[end + 1..];
        }
        Ok(NameFilter {
            match_any: Keyword(le_u64(&data[0..8])),
            match_all: Keyword(le_u64(&data[8..16])),
            level: Level(data[16]),
            filter_in: data[17] != 0,
            names,
        })
    }
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain(std::iter::once(0))
        .flat_map(u16::to_le_bytes)
        .collect()
}

fn from_utf16z(data: &[u8], what: &str) -> Result<String> {
    if data.len() % 2 != 0 {
        return Err(Error::invalid(format!(
            "{what}: odd byte count {}",
            data.len()
        )));
    }
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16(&units).map_err(|_| Error::invalid(format!("{what}: not UTF-16")))
}

fn encode_ids(filter_in: bool, ids: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 2 * ids.len());
    out.push(u8::from(filter_in));
    out.push(0);
    out.extend_from_slice(&(ids.len() as u16).to_le_bytes());
    for id in ids {
        out.extend_from_slice(&id.to_le_bytes());
    }
    out
}

fn decode_ids(data: &[u8], what: &str) -> Result<(bool, Vec<u16>)> {
    if data.len() < 4 {
        return Err(Error::invalid(format!("{what}: needs at least 4 bytes")));
    }
    let count = usize::from(u16::from_le_bytes([data[2], data[3]]));
    if data.len() < 4 + 2 * count {
        return Err(Error::invalid(format!(
            "{what}: Count {count} needs {} bytes, the descriptor has {}",
            4 + 2 * count,
            data.len()
        )));
    }
    let ids = data[4..4 + 2 * count]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok((data[0] != 0, ids))
}

impl EventFilter {
    /// The PAYLOAD filter of `filter`: what `TdhAggregatePayloadFilters` puts in an
    /// `EVENT_FILTER_DESCRIPTOR` (FLT-18).
    pub fn payload(filter: &AggregateFilter) -> EventFilter {
        EventFilter::Payload(filter.to_bytes())
    }

    /// The descriptor `Type`.
    pub fn filter_type(&self) -> FilterType {
        match self {
            EventFilter::Schematized(_) => FilterType::SCHEMATIZED,
            EventFilter::Pid(_) => FilterType::PID,
            EventFilter::ExecutableName(_) => FilterType::EXECUTABLE_NAME,
            EventFilter::PackageId(_) => FilterType::PACKAGE_ID,
            EventFilter::PackageAppId(_) => FilterType::PACKAGE_APP_ID,
            EventFilter::Payload(_) => FilterType::PAYLOAD,
            EventFilter::EventId { .. } => FilterType::EVENT_ID,
            EventFilter::EventName(_) => FilterType::EVENT_NAME,
            EventFilter::Stackwalk { .. } => FilterType::STACKWALK,
            EventFilter::StackwalkName(_) => FilterType::STACKWALK_NAME,
            EventFilter::StackwalkLevelKw { .. } => FilterType::STACKWALK_LEVEL_KW,
            EventFilter::TraceHandle(_) => FilterType::TRACEHANDLE,
        }
    }

    /// The data an `EVENT_FILTER_DESCRIPTOR.Ptr` points at, in the documented layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            EventFilter::Schematized(b) | EventFilter::Payload(b) => b.clone(),
            EventFilter::Pid(pids) => pids.iter().flat_map(|p| p.to_le_bytes()).collect(),
            EventFilter::ExecutableName(s)
            | EventFilter::PackageId(s)
            | EventFilter::PackageAppId(s) => utf16z(s),
            EventFilter::EventId { filter_in, ids } | EventFilter::Stackwalk { filter_in, ids } => {
                encode_ids(*filter_in, ids)
            }
            EventFilter::EventName(n) | EventFilter::StackwalkName(n) => n.encode(),
            EventFilter::StackwalkLevelKw {
                match_any,
                match_all,
                level,
                filter_in,
            } => {
                // EVENT_FILTER_LEVEL_KW: two ULONGLONGs, UCHAR, BOOLEAN, padded to 24.
                let mut out = Vec::with_capacity(24);
                out.extend_from_slice(&match_any.0.to_le_bytes());
                out.extend_from_slice(&match_all.0.to_le_bytes());
                out.push(level.0);
                out.push(u8::from(*filter_in));
                out.resize(24, 0);
                out
            }
            EventFilter::TraceHandle(h) => h.to_le_bytes().to_vec(),
        }
    }

    /// Reads a filter from its descriptor `Type` and data.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for an unknown or internal type (NONE, SYSTEM_FLAGS), data
    /// that does not have the type's layout, or data (the descriptor's `Size`) over the type's
    /// byte limit — even when the layout inside ends earlier. Count limits are checked by
    /// [`FilterSet::new`].
    pub fn parse(ty: FilterType, data: &[u8]) -> Result<EventFilter> {
        let byte_limit = match ty {
            FilterType::SCHEMATIZED
            | FilterType::PID
            | FilterType::EXECUTABLE_NAME
            | FilterType::PACKAGE_ID
            | FilterType::PACKAGE_APP_ID => Some(MAX_EVENT_FILTER_DATA_SIZE),
            FilterType::PAYLOAD => Some(MAX_EVENT_FILTER_PAYLOAD_SIZE),
            FilterType::EVENT_NAME | FilterType::STACKWALK_NAME => {
                Some(MAX_EVENT_FILTER_EVENT_NAME_SIZE)
            }
            _ => None,
        };
        if let Some(limit) = byte_limit.filter(|&l| data.len() > l) {
            return Err(Error::invalid(format!(
                "filter type {:#x}: Size {} is over the limit of {limit} bytes",
                ty.0,
                data.len()
            )));
        }
        Ok(match ty {
            FilterType::SCHEMATIZED => EventFilter::Schematized(data.to_vec()),
            FilterType::PID => {
                if data.is_empty() || data.len() % 4 != 0 {
                    return Err(Error::invalid(format!(
                        "PID filter data must be a non-empty array of 4-byte PIDs, got {} bytes",
                        data.len()
                    )));
                }
                EventFilter::Pid(
                    data.chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                )
            }
            FilterType::EXECUTABLE_NAME => {
                EventFilter::ExecutableName(from_utf16z(data, "EXECUTABLE_NAME filter")?)
            }
            FilterType::PACKAGE_ID => {
                EventFilter::PackageId(from_utf16z(data, "PACKAGE_ID filter")?)
            }
            FilterType::PACKAGE_APP_ID => {
                EventFilter::PackageAppId(from_utf16z(data, "PACKAGE_APP_ID filter")?)
            }
            FilterType::PAYLOAD => EventFilter::Payload(data.to_vec()),
            FilterType::EVENT_ID => {
                let (filter_in, ids) = decode_ids(data, "EVENT_ID filter")?;
                EventFilter::EventId { filter_in, ids }
            }
            FilterType::STACKWALK => {
                let (filter_in, ids) = decode_ids(data, "STACKWALK filter")?;
                EventFilter::Stackwalk { filter_in, ids }
            }
            FilterType::EVENT_NAME => EventFilter::EventName(NameFilter::decode(data)?),
            FilterType::STACKWALK_NAME => EventFilter::StackwalkName(NameFilter::decode(data)?),
            FilterType::STACKWALK_LEVEL_KW => {
                if data.len() < 18 {
                    return Err(Error::invalid(
                        "EVENT_FILTER_LEVEL_KW needs at least 18 bytes",
                    ));
                }
                EventFilter::StackwalkLevelKw {
                    match_any: Keyword(le_u64(&data[0..8])),
                    match_all: Keyword(le_u64(&data[8..16])),
                    level: Level(data[16]),
                    filter_in: data[17] != 0,
                }
            }
            FilterType::TRACEHANDLE => {
                if data.len() != 8 {
                    return Err(Error::invalid("TRACEHANDLE filter data must be 8 bytes"));
                }
                EventFilter::TraceHandle(le_u64(data))
            }
            other => {
                return Err(Error::invalid(format!(
                    "filter type {:#x} cannot be passed to EnableTraceEx2",
                    other.0
                )));
            }
        })
    }

    /// The limit checks of one filter (FLT-15…FLT-23), on its wire size.
    fn check_limits(&self) -> Result<()> {
        let size = self.to_bytes().len();
        let too_big = |limit: usize| -> Result<()> {
            if size > limit {
                Err(Error::invalid(format!(
                    "{:?} filter data is {size} bytes, the limit is {limit}",
                    self.filter_type()
                )))
            } else {
                Ok(())
            }
        };
        match self {
            EventFilter::Schematized(b) => {
                if b.len() < EVENT_FILTER_HEADER_SIZE {
                    return Err(Error::invalid(
                        "a schematized filter starts with a 24-byte EVENT_FILTER_HEADER",
                    ));
                }
                too_big(MAX_EVENT_FILTER_DATA_SIZE)
            }
            EventFilter::Pid(p) => {
                if p.is_empty() || p.len() > MAX_EVENT_FILTER_PID_COUNT {
                    return Err(Error::invalid(format!(
                        "a PID filter holds 1 to {MAX_EVENT_FILTER_PID_COUNT} PIDs, got {}",
                        p.len()
                    )));
                }
                too_big(MAX_EVENT_FILTER_DATA_SIZE)
            }
            EventFilter::ExecutableName(s)
            | EventFilter::PackageId(s)
            | EventFilter::PackageAppId(s) => {
                if s.split(';').all(|n| n.trim().is_empty()) {
                    return Err(Error::invalid("a name filter needs at least one name"));
                }
                too_big(MAX_EVENT_FILTER_DATA_SIZE)
            }
            EventFilter::Payload(b) => {
                if b.is_empty() {
                    return Err(Error::invalid("an empty payload filter"));
                }
                too_big(MAX_EVENT_FILTER_PAYLOAD_SIZE)
            }
            EventFilter::EventId { ids, .. } | EventFilter::Stackwalk { ids, .. } => {
                if ids.is_empty() || ids.len() > MAX_EVENT_FILTER_EVENT_ID_COUNT {
                    return Err(Error::invalid(format!(
                        "an event-ID filter holds 1 to {MAX_EVENT_FILTER_EVENT_ID_COUNT} ids, got {}",
                        ids.len()
                    )));
                }
                Ok(())
            }
            EventFilter::EventName(n) | EventFilter::StackwalkName(n) => {
                if n.names.is_empty() {
                    return Err(Error::invalid(
                        "an event-name filter needs at least one name",
                    ));
                }
                too_big(MAX_EVENT_FILTER_EVENT_NAME_SIZE)
            }
            EventFilter::StackwalkLevelKw { .. } | EventFilter::TraceHandle(_) => Ok(()),
        }
    }
}

/// An event-ID list with its include/exclude sense.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IdFilter {
    pub(crate) filter_in: bool,
    /// Sorted, for binary search.
    pub(crate) ids: Vec<u16>,
}

impl IdFilter {
    fn new(filter_in: bool, ids: &[u16]) -> IdFilter {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        IdFilter { filter_in, ids }
    }

    pub(in crate::filter) fn passes(&self, id: u16) -> bool {
        self.ids.binary_search(&id).is_ok() == self.filter_in
    }
}

/// A PAYLOAD filter as EnableTraceEx2 read it: its bytes (what the session was given) and
/// the filter they hold, shared by every route of the session's slot.
#[derive(Clone, Debug)]
pub(crate) struct CompiledPayload {
    bytes: Vec<u8>,
    pub(crate) filter: Arc<AggregateFilter>,
}

impl CompiledPayload {
    fn parse(bytes: &[u8]) -> Result<CompiledPayload> {
        let filter = AggregateFilter::parse(bytes).map_err(|e| Error::invalid(e.to_string()))?;
        Ok(CompiledPayload {
            bytes: bytes.to_vec(),
            filter: Arc::new(filter),
        })
    }
}

impl PartialEq for CompiledPayload {
    /// The same bytes: the filter is what they hold.
    fn eq(&self, other: &CompiledPayload) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for CompiledPayload {}

/// The validated filters of one (session, provider) pair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterSet {
    pub(in crate::filter) schematized: Option<Vec<u8>>,
    pub(crate) pids: Option<Vec<u32>>,
    /// Upper-cased file names.
    pub(crate) executable_names: Option<Vec<String>>,
    pub(crate) package_ids: Option<Vec<String>>,
    pub(crate) package_app_ids: Option<Vec<String>>,
    pub(crate) payload: Option<CompiledPayload>,
    pub(crate) event_ids: Option<IdFilter>,
    pub(crate) event_names: Option<NameFilter>,
    pub(in crate::filter) stackwalk_ids: Option<IdFilter>,
    pub(in crate::filter) stackwalk_names: Option<NameFilter>,
    pub(in crate::filter) stackwalk_level_kw: Option<(Level, Keyword, Keyword, bool)>,
    pub(crate) trace_handle: Option<u64>,
    /// The filters as given, for enumeration and learners.
    pub(in crate::filter) given: Vec<EventFilter>,
}

fn split_names(s: &str) -> Vec<String> {
    s.split(';')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| {
            // Match on the file-name component, case-insensitively (FLT-17 choice).
            crate::machine::ids::name_key(n.rsplit(['\\', '/']).next().unwrap_or(n))
        })
        .collect()
}

impl FilterSet {
    /// Validates the filters of one EnableTraceEx2 call: at most 13 (FLT-13), each type at
    /// most once (FLT-13), each within its limits (FLT-15…FLT-23); a PAYLOAD filter must be
    /// an aggregated payload filter's wire form (FLT-18).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for any violation (FLT-25).
    pub fn new(filters: &[EventFilter]) -> Result<FilterSet> {
        if filters.len() > MAX_EVENT_FILTERS_COUNT {
            return Err(Error::invalid(format!(
                "{} filter descriptors, at most {MAX_EVENT_FILTERS_COUNT} are allowed",
                filters.len()
            )));
        }
        let mut set = FilterSet {
            given: filters.to_vec(),
            ..FilterSet::default()
        };
        for (i, f) in filters.iter().enumerate() {
            if filters[..i]
                .iter()
                .any(|g| g.filter_type() == f.filter_type())
            {
                return Err(Error::invalid(format!(
                    "filter type {:#x} appears twice",
                    f.filter_type().0
                )));
            }
            f.check_limits()?;
            match f {
                EventFilter::Schematized(b) => {
                    // ETW owns InstanceId and NextOffset; it sets them when it builds the
                    // callback's chain (PRV-15), whatever the controller left there.
                    let mut b = b.clone();
                    b[8..16].fill(0);
                    b[20..24].fill(0);
                    let len = b.len() as u32;
                    b[16..20].copy_from_slice(&len.to_le_bytes());
                    set.schematized = Some(b);
                }
                EventFilter::Pid(p) => set.pids = Some(p.clone()),
                EventFilter::ExecutableName(s) => set.executable_names = Some(split_names(s)),
                EventFilter::PackageId(s) => set.package_ids = Some(split_names(s)),
                EventFilter::PackageAppId(s) => set.package_app_ids = Some(split_names(s)),
                EventFilter::Payload(b) => set.payload = Some(CompiledPayload::parse(b)?),
                EventFilter::EventId { filter_in, ids } => {
                    set.event_ids = Some(IdFilter::new(*filter_in, ids));
                }
                EventFilter::EventName(n) => set.event_names = Some(n.clone()),
                EventFilter::Stackwalk { filter_in, ids } => {
                    set.stackwalk_ids = Some(IdFilter::new(*filter_in, ids));
                }
                EventFilter::StackwalkName(n) => set.stackwalk_names = Some(n.clone()),
                EventFilter::StackwalkLevelKw {
                    match_any,
                    match_all,
                    level,
                    filter_in,
                } => set.stackwalk_level_kw = Some((*level, *match_any, *match_all, *filter_in)),
                EventFilter::TraceHandle(h) => set.trace_handle = Some(*h),
            }
        }
        Ok(set)
    }

    /// The filters as they were given.
    pub fn filters(&self) -> &[EventFilter] {
        &self.given
    }

    /// The schematized filter data, if any, as the callback will see it (FLT-15).
    pub fn schematized(&self) -> Option<&[u8]> {
        self.schematized.as_deref()
    }
}

/// What the per-event predicate needs to know about one event.
#[derive(Copy, Clone, Debug)]
pub struct EventView<'a> {
    /// The descriptor passed to the write.
    pub descriptor: &'a EventDescriptor,
    /// The TraceLogging event name; `Some` marks a TraceLogging event (FLT-19, FLT-22).
    pub name: Option<&'a str>,
    /// EventWriteEx's `Filter`: bit *i* excludes the session in enable slot *i* (EVT-04).
    pub filter_mask: u64,
    /// EVENT_WRITE_FLAG_INPRIVATE was passed, or the writer's process is InPrivate (FLT-11).
    pub inprivate: bool,
    /// The event's data blocks (EVT-11): what a PAYLOAD filter decodes (FLT-18).
    pub payload: &'a [&'a [u8]],
}

impl<'a> EventView<'a> {
    /// A plain manifest-style event: no name, no filter mask, not InPrivate, no payload.
    pub fn new(descriptor: &'a EventDescriptor) -> EventView<'a> {
        EventView {
            descriptor,
            name: None,
            filter_mask: 0,
            inprivate: false,
            payload: &[],
        }
    }

    /// With the event's data blocks, for PAYLOAD filters (FLT-18).
    pub fn with_payload(mut self, payload: &'a [&'a [u8]]) -> EventView<'a> {
        self.payload = payload;
        self
    }
}

/// `effective_level`: a session level of 0 means "no level filtering", i.e. 255 (FLT-02).
#[inline]
pub fn effective_level(level: Level) -> Level {
    if level.0 == 0 { Level::MAX } else { level }
}

/// `effective_any`: for modern providers MatchAnyKeyword 0 means all keywords (FLT-05); for
/// classic providers 0 stays 0.
#[inline]
pub fn effective_any(any: Keyword, modern: bool) -> Keyword {
    if any.0 == 0 && modern {
        Keyword::ALL
    } else {
        any
    }
}

/// `effective_all`: MatchAllKeyword is not used when MatchAnyKeyword is 0 (FLT-06, the
/// AutoLogger page's reading, which the project follows).
#[inline]
pub fn effective_all(any: Keyword, all: Keyword) -> Keyword {
    if any.0 == 0 { Keyword::NONE } else { all }
}

/// The level and keyword rules FLT-01…FLT-06 for one event against one (level, any, all).
/// Keyword-0 events pass here; IGNORE_KEYWORD_0 (FLT-07) is the caller's business.
#[inline]
pub fn level_keyword_accepts(
    desc: &EventDescriptor,
    level: Level,
    any: Keyword,
    all: Keyword,
    modern: bool,
) -> bool {
    if desc.level.0 != 0 && desc.level > effective_level(level) {
        return false;
    }
    let kw = desc.keyword;
    if kw.0 == 0 {
        return true;
    }
    kw.intersects(effective_any(any, modern)) && kw.contains(effective_all(any, all))
}

/// How one session enables one provider: the part of an enable slot the predicate reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotFilter {
    /// The session's level for this provider.
    pub level: Level,
    /// MatchAnyKeyword.
    pub match_any: Keyword,
    /// MatchAllKeyword.
    pub match_all: Keyword,
    /// EnableProperty.
    pub enable_property: EnableProperty,
    /// The filter descriptors.
    pub filters: FilterSet,
}

/// What the per-session predicate ([`decide`]) answers: `bool` on the event path, which
/// builds no [`Reason`], or `(bool, Reason)` for [`Provider::explain`](crate::Provider::explain)
/// and the journal. Each test of the predicate hands its reason as a closure that only the
/// explaining answer calls.
pub(in crate::filter) trait Outcome {
    /// Every test passed.
    fn accepted(why: impl FnOnce() -> Reason) -> Self;
    /// A test failed.
    fn rejected(why: impl FnOnce() -> Reason) -> Self;
}

impl Outcome for bool {
    #[inline(always)]
    fn accepted(_: impl FnOnce() -> Reason) -> bool {
        true
    }

    #[inline(always)]
    fn rejected(_: impl FnOnce() -> Reason) -> bool {
        false
    }
}

impl Outcome for (bool, Reason) {
    fn accepted(why: impl FnOnce() -> Reason) -> (bool, Reason) {
        (true, why())
    }

    fn rejected(why: impl FnOnce() -> Reason) -> (bool, Reason) {
        (false, why())
    }
}

/// One session's level and keyword test (FLT-01…FLT-07) with its effective values worked out
/// once: the first steps of the per-session predicate ([`decide`] builds one on the fly), and
/// what a single-session route table keeps so the write only compares (`Routes::single_gate`,
/// the single-threaded engine's lane).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct LevelKeywordGate {
    /// The effective level (0 → 255, FLT-02).
    pub(crate) level: u8,
    /// Keyword-0 events pass (no IGNORE_KEYWORD_0, FLT-07).
    pub(crate) keyword_zero: bool,
    /// The effective MatchAnyKeyword (FLT-05).
    pub(crate) any: u64,
    /// The effective MatchAllKeyword (FLT-06).
    pub(crate) all: u64,
}

impl LevelKeywordGate {
    /// Takes nothing.
    pub(crate) const NONE: LevelKeywordGate = LevelKeywordGate {
        level: 0,
        keyword_zero: false,
        any: 0,
        all: u64::MAX,
    };

    #[inline(always)]
    pub(crate) fn new(f: &SlotFilter) -> LevelKeywordGate {
        LevelKeywordGate {
            level: effective_level(f.level).0,
            keyword_zero: !f.enable_property.contains(EnableProperty::IGNORE_KEYWORD_0),
            any: effective_any(f.match_any, true).0,
            all: effective_all(f.match_any, f.match_all).0,
        }
    }

    /// Whether `d` passes the gate.
    #[inline(always)]
    pub(crate) fn passes(&self, d: &EventDescriptor) -> bool {
        self.test::<bool>(d).is_none()
    }

    /// The gate's verdict on `d`: `None` when it passes, else the rejection. Level (FLT-01,
    /// FLT-02: a level-0 event is never above it), keyword 0 and IGNORE_KEYWORD_0 (FLT-04,
    /// FLT-07), MatchAnyKeyword (FLT-04, FLT-05), MatchAllKeyword (FLT-05, FLT-06).
    #[inline(always)]
    pub(in crate::filter) fn test<R: Outcome>(&self, d: &EventDescriptor) -> Option<R> {
        if d.level.0 > self.level {
            // Only a session level below 255 rejects, so it is the session's own (not 0).
            return Some(R::rejected(|| Reason::LevelAbove {
                level: d.level,
                session_level: Level(self.level),
            }));
        }
        let kw = d.keyword.0;
        if kw == 0 {
            if !self.keyword_zero {
                return Some(R::rejected(|| Reason::KeywordZeroIgnored));
            }
        } else if kw & self.any == 0 {
            return Some(R::rejected(|| Reason::NoAnyKeyword {
                keyword: d.keyword,
                match_any: Keyword(self.any),
            }));
        } else if kw & self.all != self.all {
            return Some(R::rejected(|| Reason::MissingAllKeyword {
                keyword: d.keyword,
                match_all: Keyword(self.all),
            }));
        }
        None
    }
}

/// `session_accepts(ev, s)` of the rules' Appendix A: does the session in enable slot `slot`
/// record this event of a modern provider? the one predicate (`decide`) answering `bool`.
#[inline]
pub fn session_accepts(ev: &EventView<'_>, slot: u8, s: &SlotFilter) -> bool {
    decide(ev, slot, s)
}

/// The per-session predicate, the one the event path ([`session_accepts`]),
/// [`Provider::explain`](crate::Provider::explain) and the journal (`verdict::judge`) run.
/// Scope filters are not checked here — they decide whether the slot is enabled for the
/// registration at all.
///
/// Order: level (FLT-01/02), keyword 0 and IGNORE_KEYWORD_0 (FLT-04, FLT-07), keywords
/// (FLT-04…06) — the [`LevelKeywordGate`] —, the EventWriteEx mask (EVT-04),
/// EXCLUDE_INPRIVATE (FLT-11), event ids for manifest events (FLT-19), event names for
/// TraceLogging events (FLT-22), and last the payload of manifest events (FLT-18), which is
/// decoded only for a session whose PAYLOAD filter is bound to the event.
#[inline(always)]
pub(in crate::filter) fn decide<R: Outcome>(ev: &EventView<'_>, slot: u8, s: &SlotFilter) -> R {
    let d = ev.descriptor;
    let gate = LevelKeywordGate::new(s);
    if let Some(r) = gate.test(d) {
        return r;
    }
    if slot < 64 && ev.filter_mask & (1u64 << slot) != 0 {
        return R::rejected(|| Reason::ExcludedByWriteFilter { slot });
    }
    if ev.inprivate
        && s.enable_property
            .contains(EnableProperty::EXCLUDE_INPRIVATE)
    {
        return R::rejected(|| Reason::InPrivateExcluded);
    }
    match ev.name {
        None => {
            if let Some(ids) = &s.filters.event_ids {
                if !ids.passes(d.id) {
                    return R::rejected(|| Reason::EventIdFiltered {
                        id: d.id,
                        filter_in: ids.filter_in,
                    });
                }
            }
        }
        Some(name) => {
            if let Some(nf) = &s.filters.event_names {
                if nf.gate(d) && nf.contains(name) != nf.filter_in {
                    return R::rejected(|| Reason::EventNameFiltered {
                        name: name.to_owned(),
                        filter_in: nf.filter_in,
                    });
                }
            }
        }
    }
    if !payload_passes(ev, s) {
        return R::rejected(|| Reason::PayloadFiltered {
            id: d.id,
            version: d.version,
        });
    }
    R::accepted(|| Reason::Accepted {
        level: d.level,
        session_level: Level(gate.level),
        keyword: d.keyword,
        match_any: Keyword(gate.any),
    })
}

/// FLT-18: whether a manifest event passes the session's PAYLOAD filter. TraceLogging events
/// (with a name) and events no filter of the aggregate is bound to pass without being
/// decoded; a bound event's data blocks are decoded with the filter's template (64-bit
/// pointers: the simulated writers are 64-bit processes) and judged.
pub(in crate::filter) fn payload_passes(ev: &EventView<'_>, s: &SlotFilter) -> bool {
    let Some(p) = &s.filters.payload else {
        return true;
    };
    let f = &p.filter;
    let d = ev.descriptor;
    if ev.name.is_some() || !f.applies_to(f.provider(), d.id, d.version) {
        return true;
    }
    let joined;
    let payload: &[u8] = match ev.payload {
        [] => &[],
        [one] => one,
        blocks => {
            joined = blocks.concat();
            &joined
        }
    };
    f.passes_payload(f.provider(), d.id, d.version, payload, 8)
}

/// The level and keyword steps of the predicate — level (FLT-01/02), keyword 0 and
/// IGNORE_KEYWORD_0 (FLT-04, FLT-07), keywords (FLT-04…06) — spelled out from the rules on the
/// raw slot values: the reference [`LevelKeywordGate`] is checked against
/// (`single_gate_matches_level_keyword_pass`). The event path runs the gate.
#[cfg(test)]
pub(crate) fn level_keyword_pass(d: &EventDescriptor, s: &SlotFilter) -> bool {
    if d.level.0 != 0 && d.level > effective_level(s.level) {
        return false;
    }
    if d.keyword.0 == 0 {
        !s.enable_property.contains(EnableProperty::IGNORE_KEYWORD_0)
    } else {
        d.keyword.intersects(effective_any(s.match_any, true))
            && d.keyword.contains(effective_all(s.match_any, s.match_all))
    }
}

/// Whether an event the session accepted gets a stack-trace extended item: only with
/// EVENT_ENABLE_PROPERTY_STACK_TRACE, narrowed by STACKWALK filters (FLT-12, FLT-21, FLT-23).
pub fn wants_stack(ev: &EventView<'_>, s: &SlotFilter) -> bool {
    if !s.enable_property.contains(EnableProperty::STACK_TRACE) {
        return false;
    }
    let f = &s.filters;
    let d = ev.descriptor;
    match ev.name {
        None => {
            if let Some(ids) = &f.stackwalk_ids {
                if !ids.passes(d.id) {
                    return false;
                }
            }
        }
        Some(name) => {
            if let Some(nf) = &f.stackwalk_names {
                if nf.gate(d) && nf.contains(name) != nf.filter_in {
                    return false;
                }
            }
        }
    }
    if let Some((level, any, all, filter_in)) = f.stackwalk_level_kw {
        if level_keyword_accepts(d, level, any, all, true) != filter_in {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_forms_round_trip() {
        let filters = [
            EventFilter::Pid(vec![4, 1000]),
            EventFilter::ExecutableName("a.exe;b.exe".into()),
            EventFilter::EventId {
                filter_in: true,
                ids: vec![1, 7, 9],
            },
            EventFilter::EventName(NameFilter {
                match_any: Keyword(3),
                match_all: Keyword(1),
                level: Level(4),
                filter_in: false,
                names: vec!["Start".into(), "Stop".into()],
            }),
            EventFilter::StackwalkLevelKw {
                match_any: Keyword(1),
                match_all: Keyword(0),
                level: Level(2),
                filter_in: true,
            },
            EventFilter::TraceHandle(0x1234_0002),
        ];
        for f in filters {
            let bytes = f.to_bytes();
            assert_eq!(EventFilter::parse(f.filter_type(), &bytes).unwrap(), f);
        }
    }

    #[test]
    fn truncated_wire_forms_are_rejected_not_panicking() {
        let full = EventFilter::EventName(NameFilter {
            match_any: Keyword(0),
            match_all: Keyword(0),
            level: Level(0),
            filter_in: true,
            names: vec!["abc".into()],
        })
        .to_bytes();
        for cut in 0..full.len() {
            assert!(EventFilter::parse(FilterType::EVENT_NAME, &full[..cut]).is_err());
        }
        for ty in [
            FilterType::EVENT_ID,
            FilterType::PID,
            FilterType::TRACEHANDLE,
            FilterType::STACKWALK_LEVEL_KW,
        ] {
            for len in 0..3 {
                assert!(EventFilter::parse(ty, &vec![0xff; len]).is_err());
            }
        }
    }
}
