//! EnumerateTraceGuidsEx, TraceQueryInformation and TraceSetInformation through their C
//! signatures.
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw

use crate::common;
use common::*;
use etwsim_sys::abi::*;
use etwsim_sys::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn enumerate(class: i32, input: Option<&GUID>, out: &mut Vec<u8>, size: u32) -> (u32, u32) {
    let mut needed = 0u32;
    let (inp, inlen) = input.map_or((null(), 0), |g| ((g as *const GUID).cast::<c_void>(), 16));
    // SAFETY: NULL or valid buffers of the sizes given.
    let code = unsafe {
        EnumerateTraceGuidsEx(
            class,
            inp,
            inlen,
            if size == 0 {
                null_mut()
            } else {
                out.as_mut_ptr().cast()
            },
            size,
            &mut needed,
        )
    };
    (code, needed)
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

#[test]
fn enumerate_trace_guids_ex_lists_and_describes_providers() {
    let _g = setup();
    let g = guid(0x1F0);
    let pre = guid(0x1F1);
    let reg = register(&g);
    let (s, _) = start_realtime("sys-enumerate");
    assert_eq!(enable(s, &g, 3, 0x30), OK);
    assert_eq!(enable(s, &pre, 2, 0), OK);
    let before = snapshot();
    let mut out = vec![0u8; 4096];
    let mut needed = 0u32;
    // SAFETY: NULL or valid pointers.
    unsafe {
        assert_eq!(
            EnumerateTraceGuidsEx(
                TraceGuidQueryList,
                null(),
                0,
                out.as_mut_ptr().cast(),
                4096,
                null_mut()
            ),
            INVALID_PARAMETER
        );
        assert_eq!(
            EnumerateTraceGuidsEx(TraceGuidQueryList, null(), 0, null_mut(), 16, &mut needed),
            INVALID_PARAMETER
        );
        assert_eq!(
            EnumerateTraceGuidsEx(
                TraceGuidQueryInfo,
                (&g as *const GUID).cast(),
                15,
                out.as_mut_ptr().cast(),
                4096,
                &mut needed
            ),
            INVALID_PARAMETER
        );
    }
    assert_eq!(enumerate(999, None, &mut out, 4096).0, INVALID_PARAMETER);
    assert_eq!(
        enumerate(TraceGroupQueryList, None, &mut out, 4096).0,
        NOT_SUPPORTED
    );
    assert_eq!(
        enumerate(TraceGuidQueryInfo, Some(&guid(0x1FF)), &mut out, 4096).0,
        WMI_GUID_NOT_FOUND
    );

    // The list, with the size first (a size of 0 returns only the size).
    let (code, needed) = enumerate(TraceGuidQueryList, None, &mut out, 0);
    assert_eq!(code, INSUFFICIENT_BUFFER);
    assert_eq!(needed % 16, 0);
    let (code, used) = enumerate(TraceGuidQueryList, None, &mut out, needed);
    assert_eq!((code, used), (OK, needed));
    let listed: Vec<&[u8]> = out[..used as usize].chunks(16).collect();
    let bytes = |g: &GUID| {
        let mut v = g.data1.to_le_bytes().to_vec();
        v.extend_from_slice(&g.data2.to_le_bytes());
        v.extend_from_slice(&g.data3.to_le_bytes());
        v.extend_from_slice(&g.data4);
        v
    };
    assert!(listed.contains(&bytes(&g).as_slice()));
    // rule: PRV-06
    assert!(
        listed.contains(&bytes(&pre).as_slice()),
        "a pre-enabled GUID is listed"
    );

    // rule: PRV-29
    let (code, needed) = enumerate(TraceGuidQueryInfo, Some(&g), &mut out, 8);
    assert_eq!((code, needed), (INSUFFICIENT_BUFFER, 8 + 16 + 32));
    let (code, _) = enumerate(TraceGuidQueryInfo, Some(&g), &mut out, 4096);
    assert_eq!(code, OK);
    assert_eq!(
        (u32_at(&out, 0), u32_at(&out, 4)),
        (1, 0),
        "InstanceCount, Reserved"
    );
    let pid = etwsim_process_id();
    assert_eq!(
        (
            u32_at(&out, 8),
            u32_at(&out, 12),
            u32_at(&out, 16),
            u32_at(&out, 20)
        ),
        (0, 1, pid, 0),
        "NextOffset, EnableCount, Pid, Flags"
    );
    let e = &out[24..56];
    assert_eq!(u32_at(e, 0), 1, "IsEnabled");
    assert_eq!(e[4], 3, "Level");
    let logger_id = u16::from_le_bytes([e[6], e[7]]);
    assert_eq!(u64::from(logger_id), s & 0xFFFF, "LoggerId");
    assert_eq!(
        u64::from_le_bytes(e[16..24].try_into().unwrap_or_default()),
        0x30
    );

    let (code, _) = enumerate(TraceGuidQueryInfo, Some(&pre), &mut out, 4096);
    assert_eq!(code, OK);
    assert_eq!(
        (u32_at(&out, 16), u32_at(&out, 20)),
        (0, 2),
        "Pid 0, TRACE_PROVIDER_FLAG_PRE_ENABLE"
    );

    let (code, used) = enumerate(TraceGuidQueryProcess, None, &mut out, 4096);
    assert_eq!(code, OK);
    let mine: Vec<&[u8]> = out[..used as usize].chunks(16).collect();
    assert!(mine.contains(&bytes(&g).as_slice()));
    assert!(
        !mine.contains(&bytes(&pre).as_slice()),
        "not registered by this process"
    );
    assert_eq!(snapshot(), before, "enumeration changes nothing");
    assert_eq!(EventUnregister(reg), OK);
    assert_eq!(stop(s), OK);
}

#[test]
fn trace_query_and_set_information_model_max_loggers_and_enable_flags() {
    let _g = setup();
    let mut value = 0u32;
    let mut len = 0u32;
    let out = (&mut value as *mut u32).cast::<c_void>();
    let h = CONTROLTRACE_HANDLE::default();
    // SAFETY: NULL or valid pointers of the sizes given.
    unsafe {
        assert_eq!(
            TraceQueryInformation(h, TraceMaxLoggersQuery, out, 4, &mut len),
            OK
        );
        assert_eq!((value, len), (64, 4));
        assert_eq!(
            TraceQueryInformation(h, TraceMaxLoggersQuery, out, 3, &mut len),
            BAD_LENGTH
        );
        assert_eq!(
            TraceQueryInformation(h, TraceMaxLoggersQuery, null_mut(), 4, null_mut()),
            INVALID_PARAMETER
        );
        assert_eq!(
            TraceQueryInformation(h, TraceStackTracingInfo, out, 4, &mut len),
            NOT_SUPPORTED
        );
        assert_eq!(
            TraceQueryInformation(h, 1000, out, 4, &mut len),
            INVALID_PARAMETER
        );
        assert_eq!(
            TraceSetInformation(h, TraceSampledProfileIntervalInfo, out, 4),
            NOT_SUPPORTED
        );
        assert_eq!(TraceSetInformation(h, -3, out, 4), INVALID_PARAMETER);
    }
    // A system logger's EnableFlags, set and read back (SES-77's UPDATE of EnableFlags).
    let mut p = PropsBuf::realtime();
    p.props_mut().LogFileMode |= EVENT_TRACE_SYSTEM_LOGGER_MODE;
    p.props_mut().EnableFlags = EVENT_TRACE_FLAG_PROCESS;
    let mut sh = CONTROLTRACE_HANDLE::default();
    let name = wide("sys-info-system");
    // SAFETY: valid pointers.
    assert_eq!(unsafe { StartTraceW(&mut sh, name.as_ptr(), p.ptr()) }, OK);
    let flags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;
    // SAFETY: valid pointers of the sizes given.
    unsafe {
        let inp = (&flags as *const u32).cast::<c_void>();
        assert_eq!(
            TraceSetInformation(sh, TraceSystemTraceEnableFlagsInfo, inp, 2),
            BAD_LENGTH
        );
        assert_eq!(
            TraceSetInformation(sh, TraceSystemTraceEnableFlagsInfo, null(), 4),
            INVALID_PARAMETER
        );
        assert_eq!(
            TraceSetInformation(sh, TraceSystemTraceEnableFlagsInfo, inp, 4),
            OK
        );
        assert_eq!(
            TraceQueryInformation(sh, TraceSystemTraceEnableFlagsInfo, out, 4, &mut len),
            OK
        );
    }
    assert_eq!(value, flags);
    assert_eq!(stop(sh.Value), OK);
    // SAFETY: valid pointers; the session is gone.
    let code =
        unsafe { TraceQueryInformation(sh, TraceSystemTraceEnableFlagsInfo, out, 4, &mut len) };
    assert!(
        code == WMI_INSTANCE_NOT_FOUND || code == INVALID_PARAMETER,
        "{code}"
    );
}

#[test]
fn trace_set_information_sets_a_system_loggers_whole_group_mask() {
    // rule: KRN-06
    let _g = setup();
    let mut p = PropsBuf::realtime();
    p.props_mut().LogFileMode |= EVENT_TRACE_SYSTEM_LOGGER_MODE;
    p.props_mut().EnableFlags = EVENT_TRACE_FLAG_PROCESS;
    let mut sh = CONTROLTRACE_HANDLE::default();
    let name = wide("sys-info-groupmask");
    // SAFETY: valid pointers.
    assert_eq!(unsafe { StartTraceW(&mut sh, name.as_ptr(), p.ptr()) }, OK);
    // Word 0 the EnableFlags, word 1 a PERF_* group bit.
    let mut mask = [0u32; 8];
    mask[0] = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;
    mask[1] = 0x0000_0004;
    let mut back = [0xFFFF_FFFFu32; 8];
    let mut len = 0u32;
    // SAFETY: valid pointers of the sizes given.
    unsafe {
        let inp = mask.as_ptr().cast::<c_void>();
        assert_eq!(
            TraceSetInformation(sh, TraceSystemTraceEnableFlagsInfo, inp, 6),
            BAD_LENGTH
        );
        assert_eq!(
            TraceSetInformation(sh, TraceSystemTraceEnableFlagsInfo, inp, 36),
            BAD_LENGTH
        );
        assert_eq!(
            TraceSetInformation(sh, TraceSystemTraceEnableFlagsInfo, inp, 32),
            OK
        );
        let out = back.as_mut_ptr().cast::<c_void>();
        assert_eq!(
            TraceQueryInformation(sh, TraceSystemTraceEnableFlagsInfo, out, 32, &mut len),
            OK
        );
    }
    assert_eq!((back, len), (mask, 32));
    // Eight bytes (two words, as TraceEvent passes them): the missing words become 0.
    // SAFETY: valid pointers of the sizes given.
    unsafe {
        let inp = mask.as_ptr().cast::<c_void>();
        assert_eq!(
            TraceSetInformation(sh, TraceSystemTraceEnableFlagsInfo, inp, 8),
            OK
        );
        let out = back.as_mut_ptr().cast::<c_void>();
        assert_eq!(
            TraceQueryInformation(sh, TraceSystemTraceEnableFlagsInfo, out, 32, &mut len),
            OK
        );
    }
    assert_eq!(&back[..2], &mask[..2]);
    assert!(back[2..].iter().all(|&w| w == 0));
    assert_eq!(stop(sh.Value), OK);

    // An ordinary session has no group mask.
    let mut p = PropsBuf::realtime();
    let mut oh = CONTROLTRACE_HANDLE::default();
    let name = wide("sys-info-ordinary");
    // SAFETY: valid pointers.
    assert_eq!(unsafe { StartTraceW(&mut oh, name.as_ptr(), p.ptr()) }, OK);
    // SAFETY: valid pointers of the sizes given.
    let code = unsafe {
        TraceSetInformation(
            oh,
            TraceSystemTraceEnableFlagsInfo,
            mask.as_ptr().cast::<c_void>(),
            4,
        )
    };
    assert_eq!(code, INVALID_PARAMETER);
    assert_eq!(stop(oh.Value), OK);
}
