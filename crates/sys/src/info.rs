//! EnumerateTraceGuidsEx, TraceSetInformation and TraceQueryInformation: the information
//! classes the engine models, and the documented error for the others.
//!
//! | class | EnumerateTraceGuidsEx | TraceQueryInformation | TraceSetInformation |
//! |---|---|---|---|
//! | TraceGuidQueryList (0) | every registered or pre-enabled GUID | — | — |
//! | TraceGuidQueryInfo (1) | `TRACE_GUID_INFO` + instances + enable infos (PRV-29) | — | — |
//! | TraceGuidQueryProcess (2) | the GUIDs this process registered | — | — |
//! | TraceSystemTraceEnableFlagsInfo (4) | — | a system logger's group mask (up to 8 ULONGs, KRN-06) | a system logger's group mask: 4 to 32 bytes in whole ULONGs (KRN-06) |
//! | TraceMaxLoggersQuery (19) | — | `EtwMaxLoggers` | — |
//! | any other known class | `ERROR_NOT_SUPPORTED` | `ERROR_NOT_SUPPORTED` | `ERROR_NOT_SUPPORTED` |
//! | an unknown class | `ERROR_INVALID_PARAMETER` | `ERROR_INVALID_PARAMETER` | `ERROR_INVALID_PARAMETER` |

#![allow(non_upper_case_globals)] // the Windows names of the information classes

use crate::abi::*;
use crate::ffi_guard;
use crate::machine::{Machine, machine};
use crate::parse;
use etwsim::{Target, TraceHandle, Win32Error};
use std::ffi::c_void;

const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();
const NOT_SUPPORTED: u32 = Win32Error::ERROR_NOT_SUPPORTED.code();
/// One past the last `TRACE_QUERY_INFO_CLASS` value (`MaxTraceSetInfoClass`).
const MAX_TRACE_INFO_CLASS: i32 = 28;

/// What EnumerateTraceGuidsEx returns for `class` given the `InBufferSize` bytes at
/// `InBuffer` (`None` for NULL), or the code that refuses it.
pub(crate) fn enumerate(
    m: &Machine,
    class: TRACE_QUERY_INFO_CLASS,
    in_buffer: Option<&[u8]>,
) -> Result<Vec<u8>, u32> {
    let input = parse::enumerate_input(class, in_buffer)?;
    match class {
        // The face encodes the GUID list and TRACE_GUID_INFO (PRV-29) as EnumerateTraceGuidsEx
        // documents them.
        TraceGuidQueryList | TraceGuidQueryInfo | TraceGuidQueryProcess => {
            let guid = input.map(|g| g.to_bytes_le());
            m.win32
                .trace_guids(class as u32, guid.as_ref().map(|g| &g[..]))
        }
        c if (0..MAX_TRACE_INFO_CLASS).contains(&c) => Err(NOT_SUPPORTED),
        _ => Err(INVALID_PARAMETER),
    }
}

/// Copies `data` to the caller's buffer, EnumerateTraceGuidsEx's way: the size needed in
/// `*ReturnLength`, `ERROR_INSUFFICIENT_BUFFER` when it does not fit.
///
/// # Safety
/// `out` NULL or `out_size` writable bytes; `return_length` writable.
unsafe fn copy_out(data: &[u8], out: *mut c_void, out_size: u32, return_length: *mut u32) -> u32 {
    let needed = u32::try_from(data.len()).unwrap_or(u32::MAX);
    // SAFETY: writable (contract).
    unsafe { return_length.write_unaligned(needed) };
    if needed > out_size || (out.is_null() && needed > 0) {
        return Win32Error::ERROR_INSUFFICIENT_BUFFER.code();
    }
    // SAFETY: `out` holds `out_size` ≥ `needed` writable bytes (contract).
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), out.cast::<u8>(), data.len()) };
    0
}

/// `EnumerateTraceGuidsEx(TraceQueryInfoClass, InBuffer, InBufferSize, OutBuffer,
/// OutBufferSize, ReturnLength)` (PRV-06, PRV-29): `ERROR_INVALID_PARAMETER` for a NULL
/// ReturnLength, a NULL OutBuffer with a size, or TraceGuidQueryInfo without a 16-byte GUID;
/// `ERROR_WMI_GUID_NOT_FOUND` for a GUID neither registered nor enabled (the project's
/// choice); `ERROR_INSUFFICIENT_BUFFER` with the size needed in `*ReturnLength`.
///
/// # Safety
/// `InBuffer` NULL or `InBufferSize` readable bytes; `OutBuffer` NULL or `OutBufferSize`
/// writable bytes; `ReturnLength` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EnumerateTraceGuidsEx(
    tracequeryinfoclass: TRACE_QUERY_INFO_CLASS,
    inbuffer: *const c_void,
    inbuffersize: u32,
    outbuffer: *mut c_void,
    outbuffersize: u32,
    returnlength: *mut u32,
) -> WIN32_ERROR {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        if returnlength.is_null() || (outbuffer.is_null() && outbuffersize != 0) {
            return INVALID_PARAMETER;
        }
        // SAFETY: NULL or `InBufferSize` readable bytes (contract); u8 has no alignment.
        let data = (!inbuffer.is_null()).then(|| unsafe {
            std::slice::from_raw_parts(inbuffer.cast::<u8>(), inbuffersize as usize)
        });
        match enumerate(m, tracequeryinfoclass, data) {
            // SAFETY: forwarded contract.
            Ok(data) => unsafe { copy_out(&data, outbuffer, outbuffersize, returnlength) },
            Err(e) => e,
        }
    })
}

/// `TraceSetInformation(SessionHandle, InformationClass, TraceInformation,
/// InformationLength)`: TraceSystemTraceEnableFlagsInfo sets a system logger's group mask
/// (4 to 32 bytes in whole ULONGs, word 0 the EnableFlags, missing words 0: KRN-06);
/// `ERROR_BAD_LENGTH` for another length, `ERROR_INVALID_PARAMETER` for NULL data or a
/// session that is not a system logger; other known classes `ERROR_NOT_SUPPORTED`.
///
/// # Safety
/// `TraceInformation` NULL or `InformationLength` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TraceSetInformation(
    sessionhandle: CONTROLTRACE_HANDLE,
    informationclass: TRACE_QUERY_INFO_CLASS,
    traceinformation: *const c_void,
    informationlength: u32,
) -> WIN32_ERROR {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        // SAFETY: NULL or `InformationLength` readable bytes (contract); u8 has no alignment.
        let data = (!traceinformation.is_null()).then(|| unsafe {
            std::slice::from_raw_parts(traceinformation.cast::<u8>(), informationlength as usize)
        });
        set_information(m, sessionhandle.Value, informationclass, data)
    })
}

/// TraceSetInformation's body: `data` is the `InformationLength` bytes at
/// `TraceInformation`, `None` for NULL.
pub(crate) fn set_information(
    m: &Machine,
    session: u64,
    class: TRACE_QUERY_INFO_CLASS,
    data: Option<&[u8]>,
) -> u32 {
    match class {
        TraceSystemTraceEnableFlagsInfo => {
            let mask = match parse::system_trace_enable_flags(data) {
                Ok(mask) => mask,
                Err(e) => return e,
            };
            // KRN-06: the PERFINFO_GROUPMASK (word 0 = EnableFlags, missing words 0).
            match m.kernel.set_system_trace_enable_flags(
                &m.process,
                Target::Handle(TraceHandle(session)),
                mask,
            ) {
                Ok(()) => 0,
                Err(e) => e.win32_code().code(),
            }
        }
        c if (0..MAX_TRACE_INFO_CLASS).contains(&c) => NOT_SUPPORTED,
        _ => INVALID_PARAMETER,
    }
}

/// `TraceQueryInformation(SessionHandle, InformationClass, TraceInformation,
/// InformationLength, ReturnLength)`: TraceMaxLoggersQuery (a ULONG, the session handle
/// ignored) and TraceSystemTraceEnableFlagsInfo (the session's EnableFlags as a ULONG);
/// `ERROR_BAD_LENGTH` when InformationLength is below the size (written to `*ReturnLength`
/// if given), `ERROR_INVALID_PARAMETER` for NULL data; other known classes
/// `ERROR_NOT_SUPPORTED`.
///
/// # Safety
/// `TraceInformation` NULL or `InformationLength` writable bytes; `ReturnLength` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TraceQueryInformation(
    sessionhandle: CONTROLTRACE_HANDLE,
    informationclass: TRACE_QUERY_INFO_CLASS,
    traceinformation: *mut c_void,
    informationlength: u32,
    returnlength: *mut u32,
) -> WIN32_ERROR {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        let answer = query_information(
            m,
            sessionhandle.Value,
            informationclass,
            (!traceinformation.is_null()).then_some(informationlength),
        );
        if let (Some(n), false) = (answer.return_length, returnlength.is_null()) {
            // SAFETY: writable (contract).
            unsafe { returnlength.write_unaligned(n) };
        }
        if answer.code != 0 {
            return answer.code;
        }
        // SAFETY: `InformationLength` ≥ `data.len()` writable bytes (contract; the length
        // was checked); u8 has no alignment.
        unsafe {
            std::ptr::copy_nonoverlapping(
                answer.data.as_ptr(),
                traceinformation.cast::<u8>(),
                answer.data.len(),
            )
        };
        0
    })
}

/// What TraceQueryInformation answers.
pub(crate) struct QueryAnswer {
    /// The code.
    pub(crate) code: u32,
    /// What `*ReturnLength` receives, if anything.
    pub(crate) return_length: Option<u32>,
    /// The bytes for `TraceInformation` (at most `InformationLength`) when `code` is 0.
    pub(crate) data: Vec<u8>,
}

/// TraceQueryInformation's body for a buffer of `length` bytes (`None`: `TraceInformation`
/// is NULL): `ERROR_INVALID_PARAMETER` for NULL, then `ERROR_BAD_LENGTH` for fewer than 4
/// bytes, with the size in `*ReturnLength` either way.
pub(crate) fn query_information(
    m: &Machine,
    session: u64,
    class: TRACE_QUERY_INFO_CLASS,
    length: Option<u32>,
) -> QueryAnswer {
    let refuse = |code| QueryAnswer {
        code,
        return_length: None,
        data: Vec::new(),
    };
    let (size, data) = match class {
        TraceMaxLoggersQuery => (4, m.kernel.config().max_loggers.to_ne_bytes().to_vec()),
        TraceSystemTraceEnableFlagsInfo => {
            // KRN-06: the whole group mask, as many words as the buffer holds (up to 8).
            match m
                .kernel
                .query_system_trace_enable_flags(&m.process, Target::Handle(TraceHandle(session)))
            {
                Ok(mask) => {
                    let bytes = mask.to_bytes();
                    let n = (length.unwrap_or(0) as usize).min(bytes.len()) / 4 * 4;
                    (32, bytes[..n].to_vec())
                }
                Err(e) => return refuse(e.win32_code().code()),
            }
        }
        c if (0..MAX_TRACE_INFO_CLASS).contains(&c) => return refuse(NOT_SUPPORTED),
        _ => return refuse(INVALID_PARAMETER),
    };
    QueryAnswer {
        code: match length {
            None => INVALID_PARAMETER,
            Some(0..4) => Win32Error::ERROR_BAD_LENGTH.code(),
            Some(_) => 0,
        },
        return_length: Some(size),
        data,
    }
}
