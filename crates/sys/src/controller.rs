//! Controllers: StartTrace, ControlTrace (and its Stop/Flush/Query/Update shorthands),
//! QueryAllTraces, EnableTraceEx2, EnableTraceEx, EnableTrace.
//!
//! `EVENT_TRACE_PROPERTIES` blocks are copied into the `win32` face's mirror
//! ([`EventTraceProperties`]) — the fixed 120 bytes and the `Wnode.BufferSize - 120` bytes of
//! string space after them — and copied back only when the call succeeded (or returned the
//! informational `ERROR_MORE_DATA`), so a rejected call leaves the caller's block as it was.
//! The `A` forms widen each byte of the string space to one UTF-16 unit and double the
//! offsets, so every size check the face makes counts the same characters the caller
//! allocated; on the way back each unit is narrowed again.

use crate::abi::*;
use crate::machine::machine;
use crate::strings::{self, Encoding};
use etwsim::Win32Error;
use etwsim::win32::{
    EVENT_TRACE_PROPERTIES_SIZE, EnableTraceParameters, EventFilterDescriptor,
    EventTraceProperties, WnodeHeader,
};
use std::ffi::c_void;

const FIXED: usize = EVENT_TRACE_PROPERTIES_SIZE as usize;
const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();

/// The largest filter a descriptor may point at (bytes). Every documented filter is far
/// smaller (the largest, payload and event-name filters, are 4 KB); a larger `Size` is
/// refused before anything is read from `Ptr`.
pub(crate) const MAX_FILTER_BYTES: u32 = 64 * 1024;

/// A caller's properties block, loaded into the face's mirror.
pub(crate) struct PropsBlock {
    pub(crate) mirror: EventTraceProperties,
    enc: Encoding,
    size: u32,
    logger_name_offset: u32,
    log_file_name_offset: u32,
    tail_bytes: usize,
}

/// An `A` form's byte offset as an offset into the widened string space.
fn widen_offset(off: u32) -> u32 {
    if off < EVENT_TRACE_PROPERTIES_SIZE {
        return off; // inside the structure: stays invalid
    }
    let wide =
        u64::from(EVENT_TRACE_PROPERTIES_SIZE) + 2 * u64::from(off - EVENT_TRACE_PROPERTIES_SIZE);
    u32::try_from(wide).unwrap_or(u32::MAX)
}

impl PropsBlock {
    /// Copies the block at `p` (the structure and `Wnode.BufferSize - 120` bytes after it).
    ///
    /// # Safety
    /// `p` points at a readable `EVENT_TRACE_PROPERTIES` followed by `Wnode.BufferSize`
    /// bytes in all (when that is more than 120), as the API documents.
    pub(crate) unsafe fn load(p: *const EVENT_TRACE_PROPERTIES, enc: Encoding) -> PropsBlock {
        // SAFETY: `p` points at a readable structure (the caller's contract); unaligned
        // reads accept any address.
        let f = unsafe { p.read_unaligned() };
        let size = f.Wnode.BufferSize;
        let tail_bytes = (size as usize).saturating_sub(FIXED);
        // SAFETY: the block is `BufferSize` bytes long (the caller's contract), so the
        // `tail_bytes` after the structure are readable; u8 has no alignment.
        let tail = unsafe { std::slice::from_raw_parts(p.cast::<u8>().add(FIXED), tail_bytes) };
        let (units, mirror_size, logger_off, file_off) = match enc {
            Encoding::Wide => (
                tail.chunks(2)
                    .map(|c| u16::from_le_bytes([c[0], c.get(1).copied().unwrap_or(0)]))
                    .collect(),
                size,
                f.LoggerNameOffset,
                f.LogFileNameOffset,
            ),
            Encoding::Ansi => (
                tail.iter().map(|&b| u16::from(b)).collect(),
                if size >= EVENT_TRACE_PROPERTIES_SIZE {
                    widen_offset(size)
                } else {
                    size
                },
                widen_offset(f.LoggerNameOffset),
                widen_offset(f.LogFileNameOffset),
            ),
        };
        // SAFETY: every bit pattern is a valid u64 / i64 / i32, so reading any member of
        // these plain-integer unions is sound.
        let (historical, timestamp, age_limit) = unsafe {
            (
                f.Wnode.Anonymous1.HistoricalContext,
                f.Wnode.Anonymous2.TimeStamp,
                f.Anonymous.AgeLimit,
            )
        };
        let mirror = EventTraceProperties {
            wnode: WnodeHeader {
                buffer_size: mirror_size,
                provider_id: f.Wnode.ProviderId,
                historical_context: historical,
                time_stamp: timestamp,
                guid: f.Wnode.Guid.into(),
                client_context: f.Wnode.ClientContext,
                flags: f.Wnode.Flags,
            },
            buffer_size: f.BufferSize,
            minimum_buffers: f.MinimumBuffers,
            maximum_buffers: f.MaximumBuffers,
            maximum_file_size: f.MaximumFileSize,
            log_file_mode: f.LogFileMode,
            flush_timer: f.FlushTimer,
            enable_flags: f.EnableFlags,
            age_limit,
            number_of_buffers: f.NumberOfBuffers,
            free_buffers: f.FreeBuffers,
            events_lost: f.EventsLost,
            buffers_written: f.BuffersWritten,
            log_buffers_lost: f.LogBuffersLost,
            real_time_buffers_lost: f.RealTimeBuffersLost,
            logger_thread_id: f.LoggerThreadId.addr() as u64,
            log_file_name_offset: file_off,
            logger_name_offset: logger_off,
            tail: units,
        };
        PropsBlock {
            mirror,
            enc,
            size,
            logger_name_offset: f.LoggerNameOffset,
            log_file_name_offset: f.LogFileNameOffset,
            tail_bytes,
        }
    }

    /// Writes the mirror back over the caller's block: every field of the structure (the
    /// size and offsets as the caller gave them) and the string space.
    ///
    /// # Safety
    /// As [`PropsBlock::load`], the block being writable too.
    pub(crate) unsafe fn store(&self, p: *mut EVENT_TRACE_PROPERTIES) {
        let m = &self.mirror;
        // SAFETY: `p` points at a readable structure (the caller's contract).
        let mut f = unsafe { p.read_unaligned() };
        f.Wnode.BufferSize = self.size;
        f.Wnode.ProviderId = m.wnode.provider_id;
        f.Wnode.Anonymous1.HistoricalContext = m.wnode.historical_context;
        f.Wnode.Anonymous2.TimeStamp = m.wnode.time_stamp;
        f.Wnode.Guid = m.wnode.guid.into();
        f.Wnode.ClientContext = m.wnode.client_context;
        f.Wnode.Flags = m.wnode.flags;
        f.BufferSize = m.buffer_size;
        f.MinimumBuffers = m.minimum_buffers;
        f.MaximumBuffers = m.maximum_buffers;
        f.MaximumFileSize = m.maximum_file_size;
        f.LogFileMode = m.log_file_mode;
        f.FlushTimer = m.flush_timer;
        f.EnableFlags = m.enable_flags;
        f.Anonymous.AgeLimit = m.age_limit;
        f.NumberOfBuffers = m.number_of_buffers;
        f.FreeBuffers = m.free_buffers;
        f.EventsLost = m.events_lost;
        f.BuffersWritten = m.buffers_written;
        f.LogBuffersLost = m.log_buffers_lost;
        f.RealTimeBuffersLost = m.real_time_buffers_lost;
        f.LoggerThreadId = std::ptr::without_provenance_mut(m.logger_thread_id as usize);
        f.LogFileNameOffset = self.log_file_name_offset;
        f.LoggerNameOffset = self.logger_name_offset;
        let tail: Vec<u8> = match self.enc {
            Encoding::Wide => m.tail.iter().flat_map(|u| u.to_le_bytes()).collect(),
            Encoding::Ansi => m
                .tail
                .iter()
                .map(|&u| u8::try_from(u).unwrap_or(b'?'))
                .collect(),
        };
        let n = self.tail_bytes.min(tail.len());
        // SAFETY: `p` is writable for the structure and `tail_bytes` bytes after it (the
        // caller's contract); `n` ≤ `tail_bytes`; unaligned writes accept any address.
        unsafe {
            p.write_unaligned(f);
            std::ptr::copy_nonoverlapping(tail.as_ptr(), p.cast::<u8>().add(FIXED), n);
        }
    }
}

/// Loads `p` unless it is NULL.
///
/// # Safety
/// As [`PropsBlock::load`] when `p` is not NULL.
unsafe fn load_opt(p: *const EVENT_TRACE_PROPERTIES, enc: Encoding) -> Option<PropsBlock> {
    // SAFETY: forwarded contract.
    (!p.is_null()).then(|| unsafe { PropsBlock::load(p, enc) })
}

/// The instance-name argument: `Ok(None)` for NULL, `Err` for a string that cannot be read.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string of the encoding.
unsafe fn instance_name(p: *const c_void, enc: Encoding) -> Result<Option<String>, u32> {
    // SAFETY: forwarded contract.
    match unsafe { strings::name(p, enc) } {
        None => Ok(None),
        Some(Ok(s)) => Ok(Some(s)),
        Some(Err(())) => Err(INVALID_PARAMETER),
    }
}

/// StartTrace in either encoding.
///
/// # Safety
/// Microsoft's contract for StartTraceW/A: each pointer NULL or valid, `properties` a block
/// of `Wnode.BufferSize` bytes.
pub(crate) unsafe fn start_trace(
    trace_handle: *mut CONTROLTRACE_HANDLE,
    instance_name_ptr: *const c_void,
    properties: *mut EVENT_TRACE_PROPERTIES,
    enc: Encoding,
) -> u32 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let name = match unsafe { instance_name(instance_name_ptr, enc) } {
        Ok(n) => n,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let mut block = unsafe { load_opt(properties, enc) };
    let mut handle = 0u64;
    let code = m.win32.start_trace(
        (!trace_handle.is_null()).then_some(&mut handle),
        name.as_deref(),
        block.as_mut().map(|b| &mut b.mirror),
    );
    if code == 0 {
        if let Some(b) = &block {
            // SAFETY: `properties` was loaded from, so it is a valid block (contract), and
            // `trace_handle` is a valid out pointer since the face needed it.
            unsafe {
                b.store(properties);
                trace_handle.write_unaligned(CONTROLTRACE_HANDLE { Value: handle });
            }
        }
    }
    code
}

/// ControlTrace in either encoding.
///
/// # Safety
/// Microsoft's contract for ControlTraceW/A.
pub(crate) unsafe fn control_trace(
    trace_handle: u64,
    instance_name_ptr: *const c_void,
    properties: *mut EVENT_TRACE_PROPERTIES,
    control_code: u32,
    enc: Encoding,
) -> u32 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let name = match unsafe { instance_name(instance_name_ptr, enc) } {
        Ok(n) => n,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let mut block = unsafe { load_opt(properties, enc) };
    let code = m.win32.control_trace(
        trace_handle,
        name.as_deref(),
        block.as_mut().map(|b| &mut b.mirror),
        control_code,
    );
    if code == 0 || code == Win32Error::ERROR_MORE_DATA.code() {
        if let Some(b) = &block {
            // SAFETY: loaded from `properties` above, so it is a valid block.
            unsafe { b.store(properties) };
        }
    }
    code
}

/// QueryAllTraces in either encoding.
///
/// # Safety
/// Microsoft's contract for QueryAllTracesW/A: `property_array` NULL or `count` pointers to
/// properties blocks, `logger_count` NULL or writable.
pub(crate) unsafe fn query_all_traces(
    property_array: *mut *mut EVENT_TRACE_PROPERTIES,
    count: u32,
    logger_count: *mut u32,
    enc: Encoding,
) -> u32 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SES-82: the face refuses a count outside 1..=max; it is checked here first so that no
    // more pointers are read than there may be.
    let max = m.kernel.config().max_loggers.max(64);
    if property_array.is_null() || count == 0 || count > max {
        return INVALID_PARAMETER;
    }
    let mut pointers = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        // SAFETY: the array holds `count` pointers (contract).
        let p = unsafe { property_array.add(i).read_unaligned() };
        if p.is_null() {
            return INVALID_PARAMETER;
        }
        pointers.push(p);
    }
    let mut blocks: Vec<PropsBlock> = pointers
        .iter()
        // SAFETY: each pointer is a properties block (contract).
        .map(|&p| unsafe { PropsBlock::load(p, enc) })
        .collect();
    let mut mirrors: Vec<EventTraceProperties> = blocks
        .iter_mut()
        .map(|b| std::mem::take(&mut b.mirror))
        .collect();
    let mut n = 0u32;
    let code = m.win32.query_all_traces(
        Some(&mut mirrors),
        (!logger_count.is_null()).then_some(&mut n),
    );
    if code == 0 || code == Win32Error::ERROR_MORE_DATA.code() {
        for ((b, mirror), &p) in blocks.iter_mut().zip(mirrors).zip(&pointers) {
            b.mirror = mirror;
            // SAFETY: loaded from `p` above.
            unsafe { b.store(p) };
        }
        // SAFETY: non-NULL (the face refused NULL) and writable (contract).
        unsafe { logger_count.write_unaligned(n) };
    }
    code
}

/// One `EVENT_FILTER_DESCRIPTOR` as the face's mirror, its bytes copied.
///
/// # Safety
/// `d.Ptr` is 0 or points at `d.Size` readable bytes.
pub(crate) unsafe fn filter_descriptor(
    d: &EVENT_FILTER_DESCRIPTOR,
) -> Result<EventFilterDescriptor, u32> {
    if d.Size > MAX_FILTER_BYTES {
        return Err(INVALID_PARAMETER);
    }
    let ptr = (d.Ptr != 0).then(|| {
        let p = std::ptr::with_exposed_provenance::<u8>(d.Ptr as usize);
        // SAFETY: `Ptr` points at `Size` readable bytes (contract); u8 has no alignment.
        unsafe { std::slice::from_raw_parts(p, d.Size as usize) }.to_vec()
    });
    Ok(EventFilterDescriptor {
        ptr,
        size: d.Size,
        filter_type: d.Type,
    })
}

/// `ENABLE_TRACE_PARAMETERS` as the face's mirror.
///
/// # Safety
/// `p` points at a readable structure whose `EnableFilterDesc` is NULL or points at the
/// descriptors it announces (one for version 1, `FilterDescCount` for version 2).
unsafe fn read_enable_parameters(
    p: *const ENABLE_TRACE_PARAMETERS,
) -> Result<EnableTraceParameters, u32> {
    // SAFETY: readable (contract).
    let e = unsafe { p.read_unaligned() };
    let count = if e.Version == ENABLE_TRACE_PARAMETERS_VERSION {
        u32::from(!e.EnableFilterDesc.is_null())
    } else {
        e.FilterDescCount
    };
    // FLT-13: more than MAX_EVENT_FILTERS_COUNT descriptors is refused by the engine; it
    // is refused here before reading them.
    if count > MAX_EVENT_FILTERS_COUNT {
        return Err(INVALID_PARAMETER);
    }
    let descs = if e.EnableFilterDesc.is_null() || count == 0 {
        None
    } else {
        let mut v = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            // SAFETY: the array holds `count` descriptors (contract).
            let d = unsafe { e.EnableFilterDesc.add(i).read_unaligned() };
            // SAFETY: each descriptor's Ptr covers its Size (contract).
            v.push(unsafe { filter_descriptor(&d) }?);
        }
        Some(v)
    };
    Ok(EnableTraceParameters {
        version: e.Version,
        enable_property: e.EnableProperty,
        control_flags: e.ControlFlags,
        source_id: e.SourceId.into(),
        enable_filter_desc: descs,
        filter_desc_count: e.FilterDescCount,
    })
}

/// A `*const GUID` argument.
///
/// # Safety
/// `p` is NULL or readable.
pub(crate) unsafe fn guid_arg(p: *const GUID) -> Option<etwsim::Guid> {
    // SAFETY: readable when not NULL (contract).
    (!p.is_null()).then(|| unsafe { p.read_unaligned() }.into())
}

/// EnableTraceEx2.
///
/// # Safety
/// Microsoft's contract for EnableTraceEx2.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn enable_trace_ex2(
    trace_handle: u64,
    provider_id: *const GUID,
    control_code: u32,
    level: u8,
    match_any_keyword: u64,
    match_all_keyword: u64,
    timeout: u32,
    enable_parameters: *const ENABLE_TRACE_PARAMETERS,
) -> u32 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let guid = unsafe { guid_arg(provider_id) };
    let params = if enable_parameters.is_null() {
        None
    } else {
        // SAFETY: forwarded contract.
        match unsafe { read_enable_parameters(enable_parameters) } {
            Ok(p) => Some(p),
            Err(e) => return e,
        }
    };
    m.win32.enable_trace_ex2(
        trace_handle,
        guid.as_ref(),
        control_code,
        level,
        match_any_keyword,
        match_all_keyword,
        timeout,
        params.as_ref(),
    )
}

/// EnableTraceEx.
///
/// # Safety
/// Microsoft's contract for EnableTraceEx.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn enable_trace_ex(
    provider_id: *const GUID,
    source_id: *const GUID,
    trace_handle: u64,
    is_enabled: u32,
    level: u8,
    match_any_keyword: u64,
    match_all_keyword: u64,
    enable_property: u32,
    enable_filter_desc: *const EVENT_FILTER_DESCRIPTOR,
) -> u32 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let (guid, source) = unsafe { (guid_arg(provider_id), guid_arg(source_id)) };
    let filter = if enable_filter_desc.is_null() {
        None
    } else {
        // SAFETY: readable, and its Ptr covers its Size (contract).
        match unsafe { filter_descriptor(&enable_filter_desc.read_unaligned()) } {
            Ok(f) => Some(f),
            Err(e) => return e,
        }
    };
    m.win32.enable_trace_ex(
        guid.as_ref(),
        source.as_ref(),
        trace_handle,
        is_enabled,
        level,
        match_any_keyword,
        match_all_keyword,
        enable_property,
        filter.as_ref(),
    )
}

/// EnableTrace.
///
/// # Safety
/// `control_guid` NULL or readable.
pub(crate) unsafe fn enable_trace(
    enable: u32,
    enable_flag: u32,
    enable_level: u32,
    control_guid: *const GUID,
    trace_handle: u64,
) -> u32 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let guid = unsafe { guid_arg(control_guid) };
    m.win32.enable_trace(
        enable,
        enable_flag,
        enable_level,
        guid.as_ref(),
        trace_handle,
    )
}

/// The StartTrace/ControlTrace family in one encoding: `$w` is the name type's pointer.
macro_rules! controller_exports {
    ($enc:expr, $name:ty, $start:ident, $control:ident, $stop:ident, $flush:ident,
     $query:ident, $update:ident, $query_all:ident, $doc:literal) => {
        #[doc = concat!("`", stringify!($start), "(TraceHandle, InstanceName, Properties)`",
            $doc, " (SES-17…SES-30): on success writes the handle and the effective settings ",
            "and names into Properties; on failure nothing is written.")]
        ///
        /// # Safety
        /// Microsoft's contract: `TraceHandle` NULL or writable, `InstanceName` NULL or
        /// NUL-terminated, `Properties` NULL or a block of `Wnode.BufferSize` bytes.
        #[unsafe(no_mangle)]
        pub unsafe extern "system" fn $start(
            tracehandle: *mut CONTROLTRACE_HANDLE,
            instancename: $name,
            properties: *mut EVENT_TRACE_PROPERTIES,
        ) -> WIN32_ERROR {
            crate::ffi_guard(INVALID_PARAMETER, || {
                // SAFETY: forwarded contract.
                unsafe { start_trace(tracehandle, instancename.cast(), properties, $enc) }
            })
        }

        #[doc = concat!("`", stringify!($control), "(TraceHandle, InstanceName, Properties, ",
            "ControlCode)`", $doc, " (SES-72…SES-81): QUERY, STOP, UPDATE, FLUSH, ",
            "INCREMENT_FILE or CONVERT_TO_REALTIME; Properties receives the settings and ",
            "statistics on success (and with the informational ERROR_MORE_DATA).")]
        ///
        /// # Safety
        /// As the StartTrace of this encoding, without the out handle.
        #[unsafe(no_mangle)]
        pub unsafe extern "system" fn $control(
            tracehandle: CONTROLTRACE_HANDLE,
            instancename: $name,
            properties: *mut EVENT_TRACE_PROPERTIES,
            controlcode: EVENT_TRACE_CONTROL,
        ) -> WIN32_ERROR {
            crate::ffi_guard(INVALID_PARAMETER, || {
                // SAFETY: forwarded contract.
                unsafe {
                    control_trace(tracehandle.Value, instancename.cast(), properties, controlcode, $enc)
                }
            })
        }

        controller_exports!(@short $stop, $control, $name, EVENT_TRACE_CONTROL_STOP);
        controller_exports!(@short $flush, $control, $name, EVENT_TRACE_CONTROL_FLUSH);
        controller_exports!(@short $query, $control, $name, EVENT_TRACE_CONTROL_QUERY);
        controller_exports!(@short $update, $control, $name, EVENT_TRACE_CONTROL_UPDATE);

        #[doc = concat!("`", stringify!($query_all), "(PropertyArray, PropertyArrayCount, ",
            "LoggerCount)`", $doc, " (SES-82): fills the first PropertyArrayCount blocks, ",
            "`*LoggerCount` = the sessions the caller may see; ERROR_MORE_DATA if more.")]
        ///
        /// # Safety
        /// `PropertyArray` NULL or `PropertyArrayCount` pointers to properties blocks;
        /// `LoggerCount` NULL or writable.
        #[unsafe(no_mangle)]
        pub unsafe extern "system" fn $query_all(
            propertyarray: *mut *mut EVENT_TRACE_PROPERTIES,
            propertyarraycount: u32,
            loggercount: *mut u32,
        ) -> WIN32_ERROR {
            crate::ffi_guard(INVALID_PARAMETER, || {
                // SAFETY: forwarded contract.
                unsafe { query_all_traces(propertyarray, propertyarraycount, loggercount, $enc) }
            })
        }
    };
    (@short $fn:ident, $control:ident, $name:ty, $code:ident) => {
        #[doc = concat!("`", stringify!($fn), "(TraceHandle, InstanceName, Properties)` ≡ `",
            stringify!($control), "(…, ", stringify!($code), ")`.")]
        ///
        /// # Safety
        /// As the ControlTrace of this encoding.
        #[unsafe(no_mangle)]
        pub unsafe extern "system" fn $fn(
            tracehandle: CONTROLTRACE_HANDLE,
            instancename: $name,
            properties: *mut EVENT_TRACE_PROPERTIES,
        ) -> WIN32_ERROR {
            // SAFETY: forwarded contract.
            unsafe { $control(tracehandle, instancename, properties, $code) }
        }
    };
}

controller_exports!(
    Encoding::Wide,
    PCWSTR,
    StartTraceW,
    ControlTraceW,
    StopTraceW,
    FlushTraceW,
    QueryTraceW,
    UpdateTraceW,
    QueryAllTracesW,
    ""
);
controller_exports!(
    Encoding::Ansi,
    PCSTR,
    StartTraceA,
    ControlTraceA,
    StopTraceA,
    FlushTraceA,
    QueryTraceA,
    UpdateTraceA,
    QueryAllTracesA,
    " with Latin-1 names"
);

/// `EnableTraceEx2(TraceHandle, ProviderId, ControlCode, Level, MatchAnyKeyword,
/// MatchAllKeyword, Timeout, EnableParameters)` (PRV-17…PRV-29, FLT-13…FLT-25). Callbacks
/// have run when it returns, whatever Timeout says (PRV-18). A filter descriptor whose Size
/// is over 64 KB, or more than MAX_EVENT_FILTERS_COUNT descriptors, is
/// `ERROR_INVALID_PARAMETER` before any filter byte is read.
///
/// # Safety
/// `ProviderId` NULL or readable; `EnableParameters` NULL or readable, its
/// `EnableFilterDesc` NULL or holding the descriptors it announces, each `Ptr` covering its
/// `Size`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn EnableTraceEx2(
    tracehandle: CONTROLTRACE_HANDLE,
    providerid: *const GUID,
    controlcode: u32,
    level: u8,
    matchanykeyword: u64,
    matchallkeyword: u64,
    timeout: u32,
    enableparameters: *const ENABLE_TRACE_PARAMETERS,
) -> WIN32_ERROR {
    crate::ffi_guard(INVALID_PARAMETER, || {
        // SAFETY: forwarded contract.
        unsafe {
            enable_trace_ex2(
                tracehandle.Value,
                providerid,
                controlcode,
                level,
                matchanykeyword,
                matchallkeyword,
                timeout,
                enableparameters,
            )
        }
    })
}

/// `EnableTraceEx(ProviderId, SourceId, TraceHandle, IsEnabled, Level, MatchAnyKeyword,
/// MatchAllKeyword, EnableProperty, EnableFilterDesc)` ≡ EnableTraceEx2 with at most one
/// filter (PRV-26).
///
/// # Safety
/// The GUIDs NULL or readable; `EnableFilterDesc` NULL or a readable descriptor whose `Ptr`
/// covers its `Size`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn EnableTraceEx(
    providerid: *const GUID,
    sourceid: *const GUID,
    tracehandle: CONTROLTRACE_HANDLE,
    isenabled: u32,
    level: u8,
    matchanykeyword: u64,
    matchallkeyword: u64,
    enableproperty: u32,
    enablefilterdesc: *const EVENT_FILTER_DESCRIPTOR,
) -> WIN32_ERROR {
    crate::ffi_guard(INVALID_PARAMETER, || {
        // SAFETY: forwarded contract.
        unsafe {
            enable_trace_ex(
                providerid,
                sourceid,
                tracehandle.Value,
                isenabled,
                level,
                matchanykeyword,
                matchallkeyword,
                enableproperty,
                enablefilterdesc,
            )
        }
    })
}

/// `EnableTrace(Enable, EnableFlag, EnableLevel, ControlGuid, TraceHandle)` ≡
/// EnableTraceEx2(handle, guid, Enable ? ENABLE : DISABLE, level, EnableFlag, 0, 0, NULL)
/// (PRV-26).
///
/// # Safety
/// `ControlGuid` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EnableTrace(
    enable: u32,
    enableflag: u32,
    enablelevel: u32,
    controlguid: *const GUID,
    tracehandle: CONTROLTRACE_HANDLE,
) -> WIN32_ERROR {
    crate::ffi_guard(INVALID_PARAMETER, || {
        // SAFETY: forwarded contract.
        unsafe {
            enable_trace(
                enable,
                enableflag,
                enablelevel,
                controlguid,
                tracehandle.Value,
            )
        }
    })
}
