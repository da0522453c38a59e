//! EventRegister … EventWriteEx, EventSetInformation, EventActivityIdControl and the
//! classic provider functions, called through their C signatures.
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw

mod common;
use common::*;
use etwsim_sys::abi::*;
use etwsim_sys::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

/// What the C enable callback saw: (IsEnabled, Level, Any, All, SourceId, context).
static SEEN: Mutex<Vec<(u32, u8, u64, u64, GUID, usize)>> = Mutex::new(Vec::new());

unsafe extern "system" fn on_enable(
    source: *const GUID,
    is_enabled: u32,
    level: u8,
    any: u64,
    all: u64,
    _filter: *const EVENT_FILTER_DESCRIPTOR,
    context: *mut c_void,
) {
    // SAFETY: ETW passes a valid SourceId.
    let source = unsafe { *source };
    SEEN.lock().unwrap_or_else(|e| e.into_inner()).push((
        is_enabled,
        level,
        any,
        all,
        source,
        context as usize,
    ));
}

fn seen() -> Vec<(u32, u8, u64, u64, GUID, usize)> {
    std::mem::take(&mut *SEEN.lock().unwrap_or_else(|e| e.into_inner()))
}

#[test]
fn event_register_rejects_null_arguments_and_zeroes_the_handle() {
    let _g = setup();
    let before = snapshot();
    let g = guid(0x100);
    let mut h: REGHANDLE = 0x1234;
    // rule: PRV-02
    // rule: PRV-03
    // SAFETY: NULL or valid pointers.
    unsafe {
        assert_eq!(
            EventRegister(null(), None, null(), &mut h),
            INVALID_PARAMETER
        );
        assert_eq!(h, 0, "RegHandle is 0 after a failure");
        assert_eq!(
            EventRegister(&g, None, null(), null_mut()),
            INVALID_PARAMETER
        );
        let null_guid = GUID::default();
        h = 0x1234;
        assert_eq!(
            EventRegister(&null_guid, None, null(), &mut h),
            INVALID_PARAMETER
        );
        assert_eq!(h, 0);
    }
    assert_eq!(snapshot(), before);
}

#[test]
fn a_zero_or_stale_handle_is_invalid_handle_everywhere() {
    let _g = setup();
    let g = guid(0x101);
    let reg = register(&g);
    assert_eq!(EventUnregister(reg), OK);
    let d = EVENT_DESCRIPTOR::default();
    let text = wide("x");
    // rule: PRV-03
    for h in [0, reg, reg + 1000] {
        assert_eq!(EventUnregister(h), INVALID_HANDLE);
        // SAFETY: valid descriptor and string.
        unsafe {
            assert_eq!(EventWrite(h, &d, 0, null()), INVALID_HANDLE);
            assert_eq!(
                EventWriteTransfer(h, &d, null(), null(), 0, null()),
                INVALID_HANDLE
            );
            assert_eq!(
                EventWriteEx(h, &d, 0, 0, null(), null(), 0, null()),
                INVALID_HANDLE
            );
            assert_eq!(EventWriteString(h, 0, 0, text.as_ptr()), INVALID_HANDLE);
            // rule: PRV-30
            assert!(!EventEnabled(h, &d));
        }
        assert!(!EventProviderEnabled(h, 0, 0));
    }
}

#[test]
fn the_write_functions_check_their_pointers() {
    let _g = setup();
    let (s, _) = start_realtime("sys-write-args");
    let g = guid(0x102);
    let reg = register(&g);
    assert_eq!(enable(s, &g, 4, 0), OK);
    let d = EVENT_DESCRIPTOR {
        Id: 1,
        Level: 4,
        ..Default::default()
    };
    let payload = 7u32;
    let mut data = EVENT_DATA_DESCRIPTOR {
        Ptr: &payload as *const u32 as u64,
        Size: 4,
        ..Default::default()
    };
    // SAFETY: NULL or valid pointers; data descriptors cover their blocks.
    unsafe {
        // rule: EVT-03
        assert_eq!(EventWrite(reg, null(), 0, null()), INVALID_PARAMETER);
        assert_eq!(EventWrite(reg, &d, 1, null()), INVALID_PARAMETER);
        assert_eq!(EventWrite(reg, &d, 1, &data), OK);
        // rule: EVT-11
        assert_eq!(
            EventWrite(reg, &d, 0, null()),
            OK,
            "UserData may be NULL with count 0"
        );
        // rule: EVT-12
        data.Anonymous.Reserved = 1;
        assert_eq!(
            EventWrite(reg, &d, 1, &data),
            OK,
            "the Type byte is ignored until the provider opts in"
        );
        data.Anonymous.Reserved = 0x100;
        assert_eq!(
            EventWrite(reg, &d, 1, &data),
            INVALID_PARAMETER,
            "Reserved1 and Reserved2 must be 0"
        );
        data.Anonymous.Reserved = 0;
        let many = [data; 129];
        assert_eq!(EventWrite(reg, &d, 129, many.as_ptr()), INVALID_PARAMETER);
        assert_eq!(EventWrite(reg, &d, 128, many.as_ptr()), OK);
        // rule: EVT-02
        let verbose = EVENT_DESCRIPTOR { Level: 5, ..d };
        assert_eq!(
            EventWrite(reg, &verbose, 1, null()),
            OK,
            "not enabled: nothing is read"
        );
        // rule: EVT-13
        assert_eq!(EventWriteString(reg, 4, 0, null()), INVALID_PARAMETER);
        let text = wide("hello");
        assert_eq!(EventWriteString(reg, 4, 0, text.as_ptr()), OK);
    }
    assert_eq!(EventUnregister(reg), OK);
    assert_eq!(stop(s), OK);
}

#[test]
fn the_enable_callback_gets_c_arguments_and_its_context() {
    let _g = setup();
    seen();
    let g = guid(0x103);
    let (s, _) = start_realtime("sys-callback");
    // Pre-enable: the callback runs inside EventRegister (PRV-06, PRV-07).
    assert_eq!(enable(s, &g, 3, 0xF0), OK);
    let mut reg: REGHANDLE = 0;
    let context = 0xC0FFEE_usize as *const c_void;
    assert_eq!(
        // SAFETY: valid GUID, callback and out pointer.
        unsafe { EventRegister(&g, Some(on_enable), context, &mut reg) },
        OK
    );
    // rule: PRV-07
    let got = seen();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].0, got[0].1, got[0].2, got[0].5),
        (EVENT_CONTROL_CODE_ENABLE_PROVIDER, 3, 0xF0, 0xC0FFEE)
    );
    // rule: PRV-14
    assert_eq!(
        got[0].4,
        GUID::default(),
        "SourceId is GUID_NULL for a pre-enable"
    );
    // rule: PRV-09
    // rule: SES-80
    assert_eq!(stop(s), OK);
    let got = seen();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].0, got[0].4),
        (EVENT_CONTROL_CODE_DISABLE_PROVIDER, GUID::default())
    );
    assert_eq!(EventUnregister(reg), OK);
}

#[test]
fn event_set_information_sets_traits_once() {
    let _g = setup();
    let g = guid(0x104);
    let reg = register(&g);
    // Provider traits: {UINT16 size, "Sys\0"}.
    let blob = [6u8, 0, b'S', b'y', b's', 0];
    // rule: PRV-34
    // rule: PRV-35
    // SAFETY: NULL or `len` readable bytes.
    unsafe {
        let p = blob.as_ptr().cast::<c_void>();
        // EventSetInformation documents ERROR_INVALID_PARAMETER for a bad handle and
        // ERROR_NOT_SUPPORTED for a class it does not recognise.
        assert_eq!(
            EventSetInformation(0, EventProviderSetTraits, p, 6),
            INVALID_PARAMETER
        );
        assert_eq!(EventSetInformation(reg, 99, p, 6), NOT_SUPPORTED);
        assert_eq!(EventSetInformation(reg, -1, p, 6), NOT_SUPPORTED);
        assert_eq!(
            EventSetInformation(reg, EventProviderSetTraits, null(), 6),
            INVALID_PARAMETER
        );
        assert_eq!(
            EventSetInformation(reg, EventProviderSetTraits, p, 3),
            INVALID_PARAMETER
        );
        assert_eq!(EventSetInformation(reg, EventProviderSetTraits, p, 6), OK);
        assert_eq!(
            EventSetInformation(reg, EventProviderSetTraits, p, 6),
            INVALID_PARAMETER
        );
        let yes = [1u8];
        let yes = yes.as_ptr().cast::<c_void>();
        assert_eq!(
            EventSetInformation(reg, EventProviderUseDescriptorType, yes, 1),
            OK
        );
        assert_eq!(
            EventSetInformation(reg, EventProviderUseDescriptorType, yes, 2),
            INVALID_PARAMETER
        );
    }
    assert_eq!(EventUnregister(reg), OK);
}

#[test]
fn event_activity_id_control_gets_sets_and_creates() {
    let _g = setup();
    // rule: EVT-15
    let mut id = guid(0xAC7);
    // SAFETY: NULL or a valid GUID.
    unsafe {
        assert_eq!(
            EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, null_mut()),
            INVALID_PARAMETER
        );
        assert_eq!(EventActivityIdControl(99, &mut id), INVALID_PARAMETER);
        assert_eq!(id, guid(0xAC7), "unchanged after a refusal");
        assert_eq!(
            EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &mut id),
            OK
        );
        let mut got = GUID::default();
        assert_eq!(
            EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &mut got),
            OK
        );
        assert_eq!(got, guid(0xAC7));
        let mut created = GUID::default();
        assert_eq!(
            EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &mut created),
            OK
        );
        assert_ne!(created, GUID::default());
        // rule: EVT-16
        let mut again = GUID::default();
        assert_eq!(
            EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &mut again),
            OK
        );
        assert_ne!(again, created, "created ids never repeat");
        let mut cleared = GUID::default();
        assert_eq!(
            EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &mut cleared),
            OK
        );
    }
}

/// What the classic control callback saw: (request, logger handle, level, flags, context).
static CLASSIC: Mutex<Vec<(i32, u64, u8, u32, usize)>> = Mutex::new(Vec::new());

unsafe extern "system" fn on_request(
    code: WMIDPREQUESTCODE,
    context: *const c_void,
    size: *mut u32,
    buffer: *mut c_void,
) -> u32 {
    // SAFETY: ETW passes a valid size and WNODE_HEADER.
    let size = unsafe { *size };
    assert_eq!(size as usize, std::mem::size_of::<WNODE_HEADER>());
    // SAFETY: as above.
    let logger = unsafe { GetTraceLoggerHandle(buffer) };
    let level = GetTraceEnableLevel(logger);
    let flags = GetTraceEnableFlags(logger);
    CLASSIC.lock().unwrap_or_else(|e| e.into_inner()).push((
        code,
        logger,
        level,
        flags,
        context as usize,
    ));
    0
}

#[test]
fn a_classic_provider_gets_its_control_callback_and_the_legacy_getters() {
    let _g = setup();
    let g = guid(0x105);
    let class = guid(0x1051);
    let mut reg = [TRACE_GUID_REGISTRATION {
        Guid: &class,
        RegHandle: null_mut(),
    }];
    let mut handle = 0u64;
    let before = snapshot();
    // SAFETY: NULL or valid pointers; `reg` holds one entry.
    unsafe {
        assert_eq!(
            RegisterTraceGuidsW(
                None,
                null(),
                &g,
                1,
                reg.as_mut_ptr(),
                null(),
                null(),
                &mut handle
            ),
            INVALID_PARAMETER
        );
        assert_eq!(
            RegisterTraceGuidsW(
                Some(on_request),
                null(),
                null(),
                1,
                reg.as_mut_ptr(),
                null(),
                null(),
                &mut handle
            ),
            INVALID_PARAMETER
        );
        assert_eq!(
            RegisterTraceGuidsW(
                Some(on_request),
                null(),
                &g,
                1,
                null(),
                null(),
                null(),
                &mut handle
            ),
            INVALID_PARAMETER
        );
        assert_eq!(
            RegisterTraceGuidsW(
                Some(on_request),
                null(),
                &g,
                1,
                reg.as_mut_ptr(),
                null(),
                null(),
                null_mut()
            ),
            INVALID_PARAMETER
        );
    }
    assert_eq!(snapshot(), before);
    let context = 0xABC_usize as *const c_void;
    // SAFETY: valid pointers.
    let code = unsafe {
        RegisterTraceGuidsW(
            Some(on_request),
            context,
            &g,
            1,
            reg.as_mut_ptr(),
            null(),
            null(),
            &mut handle,
        )
    };
    assert_eq!(code, OK);
    assert_ne!(handle, 0);
    assert!(
        !reg[0].RegHandle.is_null(),
        "TraceGuidReg's RegHandle is filled in"
    );

    let (s, _) = start_realtime("sys-classic");
    // rule: PRV-23
    assert_eq!(enable(s, &g, 4, 0xABCD_0000_1234_5678), OK);
    let got = std::mem::take(&mut *CLASSIC.lock().unwrap_or_else(|e| e.into_inner()));
    assert_eq!(got, [(WMI_ENABLE_EVENTS, s, 4, 0x1234_5678, 0xABC)]);
    // Outside the callback the getters find the provider by its session.
    assert_eq!(
        (GetTraceEnableLevel(s), GetTraceEnableFlags(s)),
        (4, 0x1234_5678)
    );
    SetLastError(0);
    assert_eq!(GetTraceEnableLevel(0x7777), 0);
    assert_eq!(GetLastError(), INVALID_HANDLE);
    // SAFETY: NULL.
    assert_eq!(unsafe { GetTraceLoggerHandle(null()) }, u64::MAX);
    assert_eq!(GetLastError(), INVALID_PARAMETER);

    assert_eq!(stop(s), OK);
    let got = std::mem::take(&mut *CLASSIC.lock().unwrap_or_else(|e| e.into_inner()));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, WMI_DISABLE_EVENTS);
    assert_eq!(UnregisterTraceGuids(0), INVALID_PARAMETER);
    assert_eq!(UnregisterTraceGuids(handle), OK);
    assert_eq!(UnregisterTraceGuids(handle), INVALID_PARAMETER);
}

#[test]
fn trace_event_checks_its_arguments_then_says_not_supported() {
    let _g = setup();
    let (s, _) = start_realtime("sys-trace-event");
    let mut header = EVENT_TRACE_HEADER {
        Size: 48,
        ..Default::default()
    };
    // rule: EVT-29
    // SAFETY: NULL or a valid header.
    unsafe {
        assert_eq!(TraceEvent(0, &header), INVALID_PARAMETER);
        assert_eq!(TraceEvent(s, null()), INVALID_PARAMETER);
        assert_eq!(TraceEvent(s, &header), INVALID_FLAG_NUMBER);
        header.Anonymous4.Anonymous2.Flags = WNODE_FLAG_TRACED_GUID;
        header.Size = 40;
        assert_eq!(TraceEvent(s, &header), INVALID_PARAMETER);
        header.Size = 48;
        assert_eq!(TraceEvent(s + 0x7_0000, &header), INVALID_HANDLE);
        assert_eq!(TraceEvent(s, &header), NOT_SUPPORTED);
    }
    assert_eq!(stop(s), OK);
}
