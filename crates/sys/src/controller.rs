//! Controllers: StartTrace, ControlTrace (and its Stop/Flush/Query/Update shorthands),
//! QueryAllTraces, EnableTraceEx2, EnableTraceEx, EnableTrace.
//!
//! `EVENT_TRACE_PROPERTIES` blocks are copied into the `win32` face's mirror
//! ([`EventTraceProperties`]) — the fixed 120 bytes and the `Wnode.BufferSize - 120` bytes of
//! string space after them, read by [`PropsBlock::parse`] — and copied back only when the call
//! succeeded (or returned the informational `ERROR_MORE_DATA`), so a rejected call leaves the
//! caller's block as it was. The `A` forms widen each byte of the string space to one UTF-16
//! unit and double the offsets, so every size check the face makes counts the same characters
//! the caller allocated; on the way back each unit is narrowed again.
//! `ENABLE_TRACE_PARAMETERS` and its filters are read by [`parse::enable_parameters`].

use crate::abi::*;
use crate::machine::machine;
use crate::parse::{self, CallerMemory, PROPS_FIXED, PropsBlock};
use crate::strings::{self, Encoding};
use etwsim::Win32Error;
use etwsim::win32::{EnableTraceParameters, EventFilterDescriptor, EventTraceProperties};
use std::ffi::c_void;

const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();

/// Copies the caller's block at `p` ([`PropsBlock::parse`]): the structure and the
/// `Wnode.BufferSize - 120` bytes after it.
///
/// # Safety
/// `p` points at a readable `EVENT_TRACE_PROPERTIES` followed by `Wnode.BufferSize` bytes in
/// all (when that is more than 120), as the API documents.
pub(crate) unsafe fn load(p: *const EVENT_TRACE_PROPERTIES, enc: Encoding) -> PropsBlock {
    // SAFETY: `p` points at a readable structure (the caller's contract), which has no
    // padding; [u8; 120] has no alignment.
    let fixed = unsafe { &*p.cast::<[u8; PROPS_FIXED]>() };
    let tail_bytes = PropsBlock::declared_tail(fixed);
    // SAFETY: the block is `BufferSize` bytes long (the caller's contract), so the
    // `tail_bytes` after the structure are readable; u8 has no alignment.
    let tail = unsafe { std::slice::from_raw_parts(p.cast::<u8>().add(PROPS_FIXED), tail_bytes) };
    PropsBlock::parse(fixed, tail, enc)
}

/// Writes `b` back over the caller's block at `p` ([`PropsBlock::encode`]).
///
/// # Safety
/// As [`load`], the block being writable too, and `b` loaded from it.
pub(crate) unsafe fn store(b: &PropsBlock, p: *mut EVENT_TRACE_PROPERTIES) {
    // SAFETY: `p` is writable for the structure and the `tail_bytes` after it that `b` was
    // loaded from (contract), and nothing else refers to those bytes during the call; u8
    // has no alignment.
    let block =
        unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), PROPS_FIXED + b.tail_bytes()) };
    let (fixed, tail) = block.split_at_mut(PROPS_FIXED);
    b.encode(fixed.try_into().expect("120 bytes"), tail);
}

/// Loads `p` unless it is NULL.
///
/// # Safety
/// As [`PropsBlock::load`] when `p` is not NULL.
unsafe fn load_opt(p: *const EVENT_TRACE_PROPERTIES, enc: Encoding) -> Option<PropsBlock> {
    // SAFETY: forwarded contract.
    (!p.is_null()).then(|| unsafe { load(p, enc) })
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
                store(b, properties);
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
            unsafe { store(b, properties) };
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
        .map(|&p| unsafe { load(p, enc) })
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
            unsafe { store(b, p) };
        }
        // SAFETY: non-NULL (the face refused NULL) and writable (contract).
        unsafe { logger_count.write_unaligned(n) };
    }
    code
}

/// One `EVENT_FILTER_DESCRIPTOR` ([`parse::filter_descriptor`]).
///
/// # Safety
/// `d` points at a readable descriptor whose `Ptr` is NULL or covers its `Size`.
unsafe fn read_filter_descriptor(
    d: *const EVENT_FILTER_DESCRIPTOR,
) -> Result<EventFilterDescriptor, u32> {
    // SAFETY: a readable descriptor (contract), which has no padding; [u8; 16] has no
    // alignment.
    let bytes = unsafe { &*d.cast::<[u8; parse::FILTER_DESCRIPTOR_SIZE]>() };
    // SAFETY: its `Ptr` covers its `Size` (contract), unchanged for the call.
    parse::filter_descriptor(bytes, &unsafe { CallerMemory::new() })
}

/// `ENABLE_TRACE_PARAMETERS` ([`parse::enable_parameters`]).
///
/// # Safety
/// `p` points at a readable structure whose `EnableFilterDesc` is NULL or points at the
/// descriptors it announces (one for version 1, `FilterDescCount` for version 2), each `Ptr`
/// covering its `Size`.
unsafe fn read_enable_parameters(
    p: *const ENABLE_TRACE_PARAMETERS,
) -> Result<EnableTraceParameters, u32> {
    // SAFETY: a readable structure (contract); its padding (bytes 28..32, 44..48) is never
    // read; [u8; 48] has no alignment.
    let bytes = unsafe { &*p.cast::<[u8; parse::ENABLE_PARAMETERS_SIZE]>() };
    // SAFETY: the descriptors and filters it points at are readable (contract), unchanged
    // for the call.
    parse::enable_parameters(bytes, &unsafe { CallerMemory::new() })
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
        match unsafe { read_filter_descriptor(enable_filter_desc) } {
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
