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
use crate::controller::guid_arg;
use crate::ffi_guard;
use crate::machine::{Machine, machine};
use etwsim::{Guid, Target, TraceHandle, Win32Error};
use std::ffi::c_void;

const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();
const NOT_SUPPORTED: u32 = Win32Error::ERROR_NOT_SUPPORTED.code();
/// One past the last `TRACE_QUERY_INFO_CLASS` value (`MaxTraceSetInfoClass`).
const MAX_TRACE_INFO_CLASS: i32 = 28;

/// What EnumerateTraceGuidsEx returns for `class`, or the code that refuses it.
fn enumerate(
    m: &Machine,
    class: TRACE_QUERY_INFO_CLASS,
    input: Option<Guid>,
) -> Result<Vec<u8>, u32> {
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
        let input = if tracequeryinfoclass == TraceGuidQueryInfo {
            if inbuffersize as usize != size_of::<GUID>() {
                return INVALID_PARAMETER;
            }
            // SAFETY: NULL or 16 readable bytes (contract).
            match unsafe { guid_arg(inbuffer.cast()) } {
                Some(g) => Some(g),
                None => return INVALID_PARAMETER,
            }
        } else {
            None
        };
        match enumerate(m, tracequeryinfoclass, input) {
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
        match informationclass {
            TraceSystemTraceEnableFlagsInfo => {
                if traceinformation.is_null() {
                    return INVALID_PARAMETER;
                }
                if !(4..=32).contains(&informationlength) || informationlength % 4 != 0 {
                    return Win32Error::ERROR_BAD_LENGTH.code();
                }
                // SAFETY: `informationlength` (4 to 32) readable bytes (contract).
                let mask = unsafe {
                    std::slice::from_raw_parts(
                        traceinformation.cast::<u8>(),
                        informationlength as usize,
                    )
                };
                // KRN-06: the PERFINFO_GROUPMASK (word 0 = EnableFlags, missing words 0).
                match m.kernel.set_system_trace_enable_flags(
                    &m.process,
                    Target::Handle(TraceHandle(sessionhandle.Value)),
                    mask,
                ) {
                    Ok(()) => 0,
                    Err(e) => e.win32_code().code(),
                }
            }
            c if (0..MAX_TRACE_INFO_CLASS).contains(&c) => NOT_SUPPORTED,
            _ => INVALID_PARAMETER,
        }
    })
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
        let value = match informationclass {
            TraceMaxLoggersQuery => Ok(m.kernel.config().max_loggers),
            TraceSystemTraceEnableFlagsInfo => {
                // KRN-06: the whole group mask, as many words as the buffer holds (up to 8).
                let mask = match m.kernel.query_system_trace_enable_flags(
                    &m.process,
                    Target::Handle(TraceHandle(sessionhandle.Value)),
                ) {
                    Ok(mask) => mask.to_bytes(),
                    Err(e) => return e.win32_code().code(),
                };
                if !returnlength.is_null() {
                    // SAFETY: writable (contract).
                    unsafe { returnlength.write_unaligned(32) };
                }
                if traceinformation.is_null() {
                    return INVALID_PARAMETER;
                }
                if informationlength < 4 {
                    return Win32Error::ERROR_BAD_LENGTH.code();
                }
                let n = (informationlength as usize).min(32) / 4 * 4;
                // SAFETY: `informationlength` ≥ n writable bytes (contract).
                unsafe {
                    std::ptr::copy_nonoverlapping(mask.as_ptr(), traceinformation.cast::<u8>(), n)
                };
                return 0;
            }
            c if (0..MAX_TRACE_INFO_CLASS).contains(&c) => return NOT_SUPPORTED,
            _ => return INVALID_PARAMETER,
        };
        let value = match value {
            Ok(v) => v,
            Err(e) => return e,
        };
        if !returnlength.is_null() {
            // SAFETY: writable (contract).
            unsafe { returnlength.write_unaligned(4) };
        }
        if traceinformation.is_null() {
            return INVALID_PARAMETER;
        }
        if informationlength < 4 {
            return Win32Error::ERROR_BAD_LENGTH.code();
        }
        // SAFETY: at least 4 writable bytes (contract).
        unsafe { traceinformation.cast::<u32>().write_unaligned(value) };
        0
    })
}
