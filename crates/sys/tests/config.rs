//! The `etwsim_*` configuration functions: they work before the first ETW call and are
//! refused after it; the token chosen decides access (SES-29). One test: the machine is
//! process-wide, and the order of the calls is the point.
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw

use etwsim_sys::abi::*;
use etwsim_sys::*;
use std::ptr::null;

#[test]
fn configuration_applies_before_the_first_call_and_is_refused_after() {
    // Refused values change nothing and leave configuration open.
    assert_eq!(etwsim_set_cpu_count(0), 87);
    assert_eq!(etwsim_set_cpu_count(257), 87);
    assert_eq!(etwsim_set_process_token(99), 87);
    // SAFETY: NULL, then NUL-terminated strings.
    unsafe {
        assert_eq!(etwsim_set_image_name(null()), 87);
        assert_eq!(etwsim_set_image_name(c"".as_ptr().cast()), 87);
        assert_eq!(etwsim_set_image_name(c"service.exe".as_ptr().cast()), 0);
    }
    assert_eq!(etwsim_set_cpu_count(2), 0);
    assert_eq!(etwsim_set_process_token(ETWSIM_TOKEN_USER), 0);
    assert_eq!(etwsim_set_deterministic(42), 0);

    // The first ETW call boots the machine as configured.
    let name: Vec<u16> = "sys-config".encode_utf16().chain([0]).collect();
    let mut buf = vec![0u64; (120 + 2 * 64) / 8];
    let p = buf.as_mut_ptr().cast::<EVENT_TRACE_PROPERTIES>();
    // SAFETY: an 8-aligned, zeroed block of 248 bytes.
    unsafe {
        (*p).Wnode.BufferSize = 248;
        (*p).Wnode.Flags = WNODE_FLAG_TRACED_GUID;
        (*p).LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
        (*p).LoggerNameOffset = 120;
    }
    let mut h = CONTROLTRACE_HANDLE::default();
    // rule: SES-29
    assert_eq!(
        // SAFETY: valid pointers and block.
        unsafe { StartTraceW(&mut h, name.as_ptr(), p) },
        5,
        "a standard user may not"
    );
    let kernel = etwsim_sys::kernel();
    assert!(kernel.is_deterministic());
    assert_eq!(kernel.cpu_count(), 2);
    let process = etwsim_sys::try_process().expect("booted");
    assert_eq!(process.image_name(), "service.exe");
    assert_eq!(process.pid(), etwsim_process_id());
    assert!(!process.token().may_control_sessions());

    // A standard user still provides events (SEC-03's choice) and the deterministic
    // machine's logger work runs on request.
    let g = GUID::from_u128(0xC0F1_0000_0000_4000_8000_0000_0000_0001);
    let mut reg: REGHANDLE = 0;
    // SAFETY: valid pointers.
    assert_eq!(unsafe { EventRegister(&g, None, null(), &mut reg) }, 0);
    assert_eq!(etwsim_run_pending(), 0);
    assert_eq!(etwsim_advance_ms(1500), 0);
    assert_eq!(EventUnregister(reg), 0);

    // Configuration is closed now.
    assert_eq!(etwsim_set_deterministic(1), ERROR_ALREADY_INITIALIZED);
    assert_eq!(etwsim_set_cpu_count(4), ERROR_ALREADY_INITIALIZED);
    assert_eq!(
        etwsim_set_process_token(ETWSIM_TOKEN_ADMINISTRATOR),
        ERROR_ALREADY_INITIALIZED
    );
    assert_eq!(
        // SAFETY: a NUL-terminated string.
        unsafe { etwsim_set_image_name(c"other.exe".as_ptr().cast()) },
        ERROR_ALREADY_INITIALIZED
    );
    assert_eq!(etwsim_sys::kernel().cpu_count(), 2, "unchanged");
}
