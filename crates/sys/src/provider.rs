//! Providers: EventRegister, EventUnregister, EventEnabled, EventProviderEnabled, the
//! EventWrite family, EventSetInformation, EventActivityIdControl; and the classic
//! RegisterTraceGuids, UnregisterTraceGuids, TraceEvent, GetTraceLoggerHandle,
//! GetTraceEnableLevel, GetTraceEnableFlags.

use crate::abi::*;
use crate::controller::guid_arg;
use crate::ffi_guard;
use crate::machine::{machine, set_last_error};
use crate::parse::{self, CallerMemory};
use crate::state::EnableContext;
use crate::strings::{self, Encoding};
use etwsim::win32::{EventDataDescriptor, EventFilterDescriptor};
use etwsim::{ClassicNotification, Guid, TraceHandle, Win32Error};
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::Ordering;

const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();
const INVALID_HANDLE: u32 = Win32Error::ERROR_INVALID_HANDLE.code();
/// High bits of a RegisterTraceGuids registration handle, so small integers never match.
const CLASSIC_TAG: u64 = 0x7C1A_0000_0000_0000;

/// The C enable callback's function type.
pub(crate) type EnableFn = unsafe extern "system" fn(
    *const GUID,
    ENABLECALLBACK_ENABLED_STATE,
    u8,
    u64,
    u64,
    *const EVENT_FILTER_DESCRIPTOR,
    *mut c_void,
);

/// The face's enable callback: finds the C callback in its boxed context and calls it with
/// C arguments. The FilterData descriptor and its bytes live until the C callback returns.
fn enable_trampoline(
    source_id: &Guid,
    is_enabled: u32,
    level: u8,
    match_any_keyword: u64,
    match_all_keyword: u64,
    filter_data: Option<&EventFilterDescriptor>,
    context: usize,
) {
    let ctx = std::ptr::with_exposed_provenance::<EnableContext>(context);
    // SAFETY: `context` is the address of a boxed EnableContext that EventRegister made and
    // `Extra::enable_contexts` keeps for the process's life; it is copied out before the C
    // callback runs.
    let EnableContext { callback, context } = unsafe { ctx.read() };
    let source = GUID::from(*source_id);
    let desc = filter_data.map(|f| EVENT_FILTER_DESCRIPTOR {
        Ptr: f
            .ptr
            .as_ref()
            .map_or(0, |d| d.as_ptr().expose_provenance() as u64),
        Size: f.size,
        Type: f.filter_type,
    });
    let desc_ptr = desc
        .as_ref()
        .map_or(std::ptr::null(), |d| d as *const EVENT_FILTER_DESCRIPTOR);
    // SAFETY: `callback` is the caller's PENABLECALLBACK, called with the documented
    // arguments; every pointer is valid for the duration of the call.
    unsafe {
        callback(
            &source,
            is_enabled,
            level,
            match_any_keyword,
            match_all_keyword,
            desc_ptr,
            std::ptr::with_exposed_provenance_mut(context),
        );
    }
}

/// `EventRegister(ProviderId, EnableCallback, CallbackContext, RegHandle)` (PRV-01…PRV-03):
/// `ERROR_INVALID_PARAMETER` for a NULL ProviderId or RegHandle; on failure `*RegHandle` is
/// 0. The enable callback runs before this returns when a session already enables the GUID
/// (PRV-07).
///
/// # Safety
/// `ProviderId` NULL or readable, `RegHandle` NULL or writable; `EnableCallback` callable
/// with `CallbackContext` until the registration is unregistered.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EventRegister(
    providerid: *const GUID,
    enablecallback: PENABLECALLBACK,
    callbackcontext: *const c_void,
    reghandle: *mut REGHANDLE,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        // SAFETY: forwarded contract.
        let guid = unsafe { guid_arg(providerid) };
        let boxed = enablecallback.map(|callback| {
            Box::new(EnableContext {
                callback,
                context: callbackcontext.expose_provenance(),
            })
        });
        let context = boxed
            .as_ref()
            .map_or(0, |b| (&**b as *const EnableContext).expose_provenance());
        let trampoline: Option<etwsim::win32::PEnableCallback> = boxed
            .as_ref()
            .map(|_| enable_trampoline as etwsim::win32::PEnableCallback);
        let mut handle = 0u64;
        let code = m.win32.event_register(
            guid.as_ref(),
            trampoline,
            context,
            (!reghandle.is_null()).then_some(&mut handle),
        );
        if !reghandle.is_null() {
            // SAFETY: writable (contract); the face set `handle` to 0 on failure (PRV-03).
            unsafe { reghandle.write_unaligned(handle as REGHANDLE) };
        }
        if code == 0 {
            if let Some(b) = boxed {
                m.extra.enable_contexts.lock().push(b);
            }
        }
        code
    })
}

/// `EventUnregister(RegHandle)`: `ERROR_INVALID_HANDLE` for 0 or an unknown handle (PRV-03).
#[unsafe(no_mangle)]
pub extern "system" fn EventUnregister(reghandle: REGHANDLE) -> u32 {
    ffi_guard(INVALID_HANDLE, || match machine() {
        Ok(m) => m.win32.event_unregister(reghandle as u64),
        Err(e) => e,
    })
}

/// `EventEnabled(RegHandle, EventDescriptor)`: FALSE for a NULL or unknown handle or a
/// NULL descriptor (PRV-30).
///
/// # Safety
/// `EventDescriptor` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EventEnabled(
    reghandle: REGHANDLE,
    eventdescriptor: *const EVENT_DESCRIPTOR,
) -> bool {
    ffi_guard(false, || {
        if eventdescriptor.is_null() {
            return false;
        }
        // SAFETY: readable (contract).
        let d = unsafe { eventdescriptor.read_unaligned() };
        machine().is_ok_and(|m| m.win32.event_enabled(reghandle as u64, &(&d).into()))
    })
}

/// `EventProviderEnabled(RegHandle, Level, Keyword)` (PRV-30).
#[unsafe(no_mangle)]
pub extern "system" fn EventProviderEnabled(reghandle: REGHANDLE, level: u8, keyword: u64) -> bool {
    ffi_guard(false, || {
        machine().is_ok_and(|m| {
            m.win32
                .event_provider_enabled(reghandle as u64, level, keyword)
        })
    })
}

/// Runs `f` with the caller's data descriptors as the face's
/// ([`parse::with_data_descriptors`]).
///
/// # Safety
/// `data` is NULL or points at `count` descriptors whose blocks are readable.
unsafe fn with_data(
    count: u32,
    data: *const EVENT_DATA_DESCRIPTOR,
    f: impl FnOnce(Option<&[EventDataDescriptor<'_>]>) -> u32,
) -> u32 {
    // SAFETY: the array holds `count` descriptors whose blocks are readable, unchanged for
    // this call (contract).
    let mem = unsafe { CallerMemory::new() };
    parse::with_data_descriptors(count, data.expose_provenance() as u64, &mem, f)
        .unwrap_or_else(|code| code)
}

/// The descriptor argument of the EventWrite family.
///
/// # Safety
/// `p` NULL or readable.
unsafe fn descriptor(p: *const EVENT_DESCRIPTOR) -> Option<etwsim::EventDescriptor> {
    // SAFETY: readable when not NULL (contract).
    (!p.is_null()).then(|| (&unsafe { p.read_unaligned() }).into())
}

/// `EventWrite(RegHandle, EventDescriptor, UserDataCount, UserData)` (EVT-01…EVT-03,
/// EVT-11).
///
/// # Safety
/// Microsoft's contract: `EventDescriptor` readable, `UserData` NULL (with a count of 0) or
/// `UserDataCount` descriptors whose blocks are readable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EventWrite(
    reghandle: REGHANDLE,
    eventdescriptor: *const EVENT_DESCRIPTOR,
    userdatacount: u32,
    userdata: *const EVENT_DATA_DESCRIPTOR,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        // SAFETY: forwarded contract.
        let desc = unsafe { descriptor(eventdescriptor) };
        // SAFETY: forwarded contract.
        unsafe {
            with_data(userdatacount, userdata, |data| {
                m.win32
                    .event_write(reghandle as u64, desc.as_ref(), userdatacount, data)
            })
        }
    })
}

/// `EventWriteTransfer(RegHandle, EventDescriptor, ActivityId, RelatedActivityId,
/// UserDataCount, UserData)` (EVT-14, EVT-17).
///
/// # Safety
/// As [`EventWrite`], the GUIDs NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EventWriteTransfer(
    reghandle: REGHANDLE,
    eventdescriptor: *const EVENT_DESCRIPTOR,
    activityid: *const GUID,
    relatedactivityid: *const GUID,
    userdatacount: u32,
    userdata: *const EVENT_DATA_DESCRIPTOR,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        // SAFETY: forwarded contract.
        let (desc, activity, related) = unsafe {
            (
                descriptor(eventdescriptor),
                guid_arg(activityid),
                guid_arg(relatedactivityid),
            )
        };
        // SAFETY: forwarded contract.
        unsafe {
            with_data(userdatacount, userdata, |data| {
                m.win32.event_write_transfer(
                    reghandle as u64,
                    desc.as_ref(),
                    activity.as_ref(),
                    related.as_ref(),
                    userdatacount,
                    data,
                )
            })
        }
    })
}

/// `EventWriteEx(RegHandle, EventDescriptor, Filter, Flags, ActivityId, RelatedActivityId,
/// UserDataCount, UserData)` (EVT-04).
///
/// # Safety
/// As [`EventWriteTransfer`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn EventWriteEx(
    reghandle: REGHANDLE,
    eventdescriptor: *const EVENT_DESCRIPTOR,
    filter: u64,
    flags: u32,
    activityid: *const GUID,
    relatedactivityid: *const GUID,
    userdatacount: u32,
    userdata: *const EVENT_DATA_DESCRIPTOR,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        // SAFETY: forwarded contract.
        let (desc, activity, related) = unsafe {
            (
                descriptor(eventdescriptor),
                guid_arg(activityid),
                guid_arg(relatedactivityid),
            )
        };
        // SAFETY: forwarded contract.
        unsafe {
            with_data(userdatacount, userdata, |data| {
                m.win32.event_write_ex(
                    reghandle as u64,
                    desc.as_ref(),
                    filter,
                    flags,
                    activity.as_ref(),
                    related.as_ref(),
                    userdatacount,
                    data,
                )
            })
        }
    })
}

/// `EventWriteString(RegHandle, Level, Keyword, String)` (EVT-13): a NULL String is
/// `ERROR_INVALID_PARAMETER`. Unpaired surrogates are replaced with U+FFFD.
///
/// # Safety
/// `String` NULL or a NUL-terminated UTF-16 string.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EventWriteString(
    reghandle: REGHANDLE,
    level: u8,
    keyword: u64,
    string: PCWSTR,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        let text = if string.is_null() {
            None
        } else {
            // SAFETY: a NUL-terminated UTF-16 string (contract).
            match strings::wide_units(unsafe { strings::raw(string.cast(), Encoding::Wide) }) {
                Some(units) => Some(String::from_utf16_lossy(&units)),
                None => return INVALID_PARAMETER, // longer than any string ETW takes
            }
        };
        m.win32
            .event_write_string(reghandle as u64, level, keyword, text.as_deref())
    })
}

/// `EventSetInformation(RegHandle, InformationClass, EventInformation, InformationLength)`
/// (PRV-34, PRV-35): `ERROR_INVALID_HANDLE` for an unknown or unregistered handle,
/// `ERROR_INVALID_PARAMETER` for an unknown class, bad data, or NULL data with a length.
///
/// # Safety
/// `EventInformation` NULL or `InformationLength` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EventSetInformation(
    reghandle: REGHANDLE,
    informationclass: EVENT_INFO_CLASS,
    eventinformation: *const c_void,
    informationlength: u32,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        let data: &[u8] = if informationlength == 0 {
            &[]
        } else if eventinformation.is_null() {
            return INVALID_PARAMETER;
        } else {
            // SAFETY: `InformationLength` readable bytes (contract); u8 has no alignment.
            unsafe {
                std::slice::from_raw_parts(
                    eventinformation.cast::<u8>(),
                    informationlength as usize,
                )
            }
        };
        // A negative class is no recognised value either: ERROR_NOT_SUPPORTED from the face.
        let class = informationclass as u32;
        // The face returns what EventSetInformation documents: ERROR_INVALID_PARAMETER for a
        // handle that is not a registered REGHANDLE, ERROR_NOT_SUPPORTED for an unknown class.
        m.win32
            .event_set_information(reghandle as u64, class, Some(data), informationlength)
    })
}

/// `EventActivityIdControl(ControlCode, ActivityId)` (EVT-15, EVT-16) on the calling
/// thread: `ERROR_INVALID_PARAMETER` for an unknown code or a NULL ActivityId.
///
/// # Safety
/// `ActivityId` NULL or readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn EventActivityIdControl(
    controlcode: u32,
    activityid: *mut GUID,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        // SAFETY: forwarded contract.
        let mut id = unsafe { guid_arg(activityid) };
        let code = m.win32.event_activity_id_control(controlcode, id.as_mut());
        if let (0, Some(id)) = (code, id) {
            // SAFETY: non-NULL (it was read) and writable (contract).
            unsafe { activityid.write_unaligned(id.into()) };
        }
        code
    })
}

thread_local! {
    /// The classic notification being delivered on this thread: what GetTraceEnableLevel
    /// and GetTraceEnableFlags answer for its logger handle while the callback runs.
    static CURRENT_CLASSIC: Cell<Option<(u64, u8, u32)>> = const { Cell::new(None) };
}

/// The C WMIDPREQUEST callback's function type.
type RequestFn =
    unsafe extern "system" fn(WMIDPREQUESTCODE, *const c_void, *mut u32, *mut c_void) -> u32;

/// RegisterTraceGuids in either encoding (PRV-22, PRV-23).
///
/// # Safety
/// Microsoft's contract for RegisterTraceGuidsW/A.
#[allow(clippy::too_many_arguments)]
unsafe fn register_trace_guids(
    requestaddress: WMIDPREQUEST,
    requestcontext: *const c_void,
    controlguid: *const GUID,
    guidcount: u32,
    traceguidreg: *const TRACE_GUID_REGISTRATION,
    registrationhandle: *mut u64,
) -> u32 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let guid = unsafe { guid_arg(controlguid) };
    let (Some(callback), Some(guid)) = (requestaddress, guid) else {
        return INVALID_PARAMETER;
    };
    if registrationhandle.is_null() || (guidcount != 0 && traceguidreg.is_null()) {
        return INVALID_PARAMETER;
    }
    let callback: RequestFn = callback;
    let context = requestcontext.expose_provenance();
    let control = GUID::from(guid);
    let notify = move |n: &ClassicNotification| {
        let mut wnode = WNODE_HEADER {
            BufferSize: std::mem::size_of::<WNODE_HEADER>() as u32,
            Guid: control,
            Flags: WNODE_FLAG_TRACED_GUID,
            ..WNODE_HEADER::default()
        };
        wnode.Anonymous1.HistoricalContext = n.logger_handle.0;
        let mut size = wnode.BufferSize;
        let previous = CURRENT_CLASSIC
            .with(|c| c.replace(Some((n.logger_handle.0, n.enable_level.0, n.enable_flags))));
        // SAFETY: `callback` is the caller's WMIDPREQUEST, called with the documented
        // arguments; the WNODE_HEADER and size live until it returns.
        unsafe {
            callback(
                n.request_code as WMIDPREQUESTCODE,
                std::ptr::with_exposed_provenance(context),
                &mut size,
                (&mut wnode as *mut WNODE_HEADER).cast(),
            );
        }
        CURRENT_CLASSIC.with(|c| c.set(previous));
    };
    match m.process.register_trace_guids(guid, notify) {
        Ok(p) => {
            let handle = CLASSIC_TAG | (m.extra.next_classic.fetch_add(1, Ordering::Relaxed) + 1);
            if guidcount != 0 {
                let len = guidcount as usize * size_of::<TRACE_GUID_REGISTRATION>();
                // SAFETY: `TraceGuidReg` holds `GuidCount` writable entries (contract), which
                // nothing else refers to during the call; u8 has no alignment.
                let entries = unsafe {
                    std::slice::from_raw_parts_mut(traceguidreg.cast_mut().cast::<u8>(), len)
                };
                parse::set_reg_handles(entries, handle);
            }
            m.extra.classic.lock().insert(handle, p);
            // SAFETY: writable (contract, checked non-NULL).
            unsafe { registrationhandle.write_unaligned(handle) };
            0
        }
        Err(e) => e.win32_code().code(),
    }
}

/// `RegisterTraceGuidsW(RequestAddress, RequestContext, ControlGuid, GuidCount,
/// TraceGuidReg, MofImagePath, MofResourceName, RegistrationHandle)`: a classic provider.
/// `ERROR_INVALID_PARAMETER` for a NULL callback, control GUID or RegistrationHandle, or a
/// NULL TraceGuidReg with a count. The MOF arguments are ignored.
///
/// # Safety
/// Microsoft's contract: pointers NULL or valid, `TraceGuidReg` holding `GuidCount`
/// entries, the callback callable with `RequestContext` until UnregisterTraceGuids.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn RegisterTraceGuidsW(
    requestaddress: WMIDPREQUEST,
    requestcontext: *const c_void,
    controlguid: *const GUID,
    guidcount: u32,
    traceguidreg: *const TRACE_GUID_REGISTRATION,
    mofimagepath: PCWSTR,
    mofresourcename: PCWSTR,
    registrationhandle: *mut u64,
) -> u32 {
    let _ = (mofimagepath, mofresourcename);
    ffi_guard(INVALID_PARAMETER, || {
        // SAFETY: forwarded contract.
        unsafe {
            register_trace_guids(
                requestaddress,
                requestcontext,
                controlguid,
                guidcount,
                traceguidreg,
                registrationhandle,
            )
        }
    })
}

/// `RegisterTraceGuidsA`: as [`RegisterTraceGuidsW`].
///
/// # Safety
/// As [`RegisterTraceGuidsW`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn RegisterTraceGuidsA(
    requestaddress: WMIDPREQUEST,
    requestcontext: *const c_void,
    controlguid: *const GUID,
    guidcount: u32,
    traceguidreg: *const TRACE_GUID_REGISTRATION,
    mofimagepath: PCSTR,
    mofresourcename: PCSTR,
    registrationhandle: *mut u64,
) -> u32 {
    let _ = (mofimagepath, mofresourcename);
    ffi_guard(INVALID_PARAMETER, || {
        // SAFETY: forwarded contract.
        unsafe {
            register_trace_guids(
                requestaddress,
                requestcontext,
                controlguid,
                guidcount,
                traceguidreg,
                registrationhandle,
            )
        }
    })
}

/// `UnregisterTraceGuids(RegistrationHandle)`: `ERROR_INVALID_PARAMETER` for 0 or a handle
/// RegisterTraceGuids did not return (or already unregistered).
#[unsafe(no_mangle)]
pub extern "system" fn UnregisterTraceGuids(registrationhandle: u64) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        let removed = m.extra.classic.lock().remove(&registrationhandle);
        match removed {
            Some(p) => match p.unregister() {
                Ok(()) => 0,
                Err(e) => e.win32_code().code(),
            },
            None => INVALID_PARAMETER,
        }
    })
}

/// `GetTraceLoggerHandle(Buffer)`: the session handle in the `WNODE_HEADER` a classic
/// control callback received; `INVALID_HANDLE_VALUE` with last error
/// `ERROR_INVALID_PARAMETER` for NULL.
///
/// # Safety
/// `Buffer` NULL or the `WNODE_HEADER` passed to the control callback.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn GetTraceLoggerHandle(buffer: *const c_void) -> u64 {
    ffi_guard(u64::MAX, || {
        if buffer.is_null() {
            set_last_error(INVALID_PARAMETER);
            return u64::MAX;
        }
        // SAFETY: a readable WNODE_HEADER (contract); every bit pattern is a valid u64.
        unsafe {
            buffer
                .cast::<WNODE_HEADER>()
                .read_unaligned()
                .Anonymous1
                .HistoricalContext
        }
    })
}

/// What a classic provider enabled by session `handle` was given: the notification being
/// delivered on this thread, else the (first) registration that session owns.
fn classic_enable(handle: u64) -> Option<(u8, u32)> {
    if let Some((h, level, flags)) = CURRENT_CLASSIC.with(Cell::get) {
        if h == handle {
            return Some((level, flags));
        }
    }
    let m = machine().ok()?;
    let table = m.extra.classic.lock();
    table
        .values()
        .find(|p| p.logger_handle() == Some(TraceHandle(handle)))
        .map(|p| (p.enable_level().0, p.enable_flags()))
}

/// `GetTraceEnableLevel(TraceHandle)` (PRV-23): 0 with last error `ERROR_INVALID_HANDLE`
/// for a handle no classic provider of this process is enabled by.
#[unsafe(no_mangle)]
pub extern "system" fn GetTraceEnableLevel(tracehandle: u64) -> u8 {
    ffi_guard(0, || match classic_enable(tracehandle) {
        Some((level, _)) => level,
        None => {
            set_last_error(INVALID_HANDLE);
            0
        }
    })
}

/// `GetTraceEnableFlags(TraceHandle)` (PRV-23): the low 32 bits of the session's
/// MatchAnyKeyword; 0 with last error `ERROR_INVALID_HANDLE` as for GetTraceEnableLevel.
#[unsafe(no_mangle)]
pub extern "system" fn GetTraceEnableFlags(tracehandle: u64) -> u32 {
    ffi_guard(0, || match classic_enable(tracehandle) {
        Some((_, flags)) => flags,
        None => {
            set_last_error(INVALID_HANDLE);
            0
        }
    })
}

/// `TraceEvent(SessionHandle, EventTrace)` (EVT-29): writes a classic event into the
/// session the handle names (the one GetTraceLoggerHandle gave the control callback).
///
/// The `EVENT_TRACE_HEADER` gives `Class.Type`, `Class.Level`, `Class.Version` and the event
/// class GUID — `Guid`, or the GUID `GuidPtr` points at with WNODE_FLAG_USE_GUID_PTR — and
/// `Size`: the data is the `Size - 48` bytes after the header, or, with
/// WNODE_FLAG_USE_MOF_PTR, the blocks of the `(Size - 48) / 16` `MOF_FIELD`s that follow it
/// (at most `MAX_MOF_FIELDS`). The kernel fills in ThreadId, ProcessId and TimeStamp; the
/// caller's header is not changed. Codes: `ERROR_INVALID_PARAMETER` for a 0 handle, a NULL
/// header, a `Size` below 48, a NULL `GuidPtr`, a MOF array that is not whole `MOF_FIELD`s
/// or holds more than 16, or a NULL `DataPtr` with a length; `ERROR_INVALID_FLAG_NUMBER`
/// without WNODE_FLAG_TRACED_GUID; then the kernel's — `ERROR_INVALID_HANDLE`,
/// `ERROR_MORE_DATA`, `ERROR_NOT_ENOUGH_MEMORY` — as [`etwsim::Process::trace_event`] says.
///
/// # Safety
/// `EventTrace` NULL or `Size` readable bytes (a header and what follows it); with
/// WNODE_FLAG_USE_GUID_PTR a readable GUID at `GuidPtr` (if not NULL); with
/// WNODE_FLAG_USE_MOF_PTR each `MOF_FIELD`'s `Length` readable bytes at `DataPtr`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TraceEvent(
    tracehandle: u64,
    eventtrace: *const EVENT_TRACE_HEADER,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        if tracehandle == 0 || eventtrace.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: the header's `Size` bytes, the GUID at `GuidPtr` and each MOF_FIELD's block
        // are readable, unchanged for the call (contract).
        let mem = unsafe { CallerMemory::new() };
        let args = match parse::trace_event(eventtrace.expose_provenance() as u64, &mem) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let event = etwsim::ClassicEvent {
            class_type: args.class_type,
            class_level: args.class_level,
            class_version: args.class_version,
            guid: args.guid,
            data: &args.blocks,
        };
        match m.process.trace_event(TraceHandle(tracehandle), &event) {
            Ok(()) => 0,
            Err(e) => e.win32_code().code(),
        }
    })
}
