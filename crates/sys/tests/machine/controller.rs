//! StartTrace, ControlTrace and its shorthands, QueryAllTraces and the EnableTrace family,
//! called through their C signatures with raw pointers. Every rejected call leaves the
//! machine's tables and the caller's block as they were.
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw

use crate::common;
use common::*;
use etwsim_sys::abi::*;
use etwsim_sys::*;
use std::ptr::{null, null_mut};

/// StartTraceW with these arguments; (code, handle written, snapshot unchanged).
fn start_w(name: Option<&str>, p: Option<&mut PropsBuf>, with_handle: bool) -> (u32, u64) {
    let n = name.map(wide);
    let mut h = CONTROLTRACE_HANDLE { Value: 0xAAAA };
    let hp: *mut CONTROLTRACE_HANDLE = if with_handle { &mut h } else { null_mut() };
    let pp = p.map_or(null_mut(), |p| p.ptr());
    // SAFETY: each pointer NULL or valid; the block is Wnode.BufferSize bytes long (or more).
    let code = unsafe { StartTraceW(hp, n.as_ref().map_or(null(), |n| n.as_ptr()), pp) };
    (code, h.Value)
}

#[test]
fn start_trace_rejects_bad_arguments_and_changes_nothing() {
    let _g = setup();
    let before = snapshot();
    // rule: SES-17
    let mut p = PropsBuf::realtime();
    let block = p.bytes();
    assert_eq!(
        start_w(Some("sys-bad-1"), None, true),
        (INVALID_PARAMETER, 0xAAAA)
    );
    assert_eq!(
        start_w(Some("sys-bad-1"), Some(&mut p), false).0,
        INVALID_PARAMETER
    );
    assert_eq!(start_w(None, Some(&mut p), true).0, INVALID_PARAMETER);
    assert_eq!(p.bytes(), block, "the block is untouched");

    // rule: SES-18
    let mut short = PropsBuf::realtime();
    short.props_mut().Wnode.BufferSize = 0;
    assert_eq!(
        start_w(Some("sys-bad-2"), Some(&mut short), true),
        (BAD_LENGTH, 0xAAAA)
    );
    short.props_mut().Wnode.BufferSize = PROPS_SIZE as u32 - 1;
    assert_eq!(
        start_w(Some("sys-bad-2"), Some(&mut short), true).0,
        BAD_LENGTH
    );

    // rule: SES-20
    let mut bad_offset = PropsBuf::realtime();
    bad_offset.props_mut().LoggerNameOffset = 1;
    assert_eq!(
        start_w(Some("sys-bad-3"), Some(&mut bad_offset), true).0,
        INVALID_PARAMETER
    );
    let mut out_of_range = PropsBuf::realtime();
    let size = out_of_range.props().Wnode.BufferSize;
    out_of_range.props_mut().LoggerNameOffset = size;
    assert_eq!(
        start_w(Some("sys-bad-3"), Some(&mut out_of_range), true).0,
        INVALID_PARAMETER
    );

    // rule: SES-19
    let mut small = PropsBuf::new(5, None); // room for "wine" and its NUL
    let block = small.bytes();
    assert_eq!(
        start_w(Some("this name is too long"), Some(&mut small), true).0,
        BAD_LENGTH
    );
    assert_eq!(small.bytes(), block);

    // rule: SES-22
    let mut no_flag = PropsBuf::realtime();
    no_flag.props_mut().Wnode.Flags = 0;
    assert_eq!(
        start_w(Some("sys-bad-4"), Some(&mut no_flag), true).0,
        INVALID_PARAMETER
    );

    // rule: SES-23
    let mut combo = PropsBuf::new(1025, Some("sys-combo.etl"));
    combo.props_mut().LogFileMode =
        EVENT_TRACE_FILE_MODE_SEQUENTIAL | EVENT_TRACE_FILE_MODE_CIRCULAR;
    combo.props_mut().MaximumFileSize = 1;
    assert_eq!(
        start_w(Some("sys-bad-5"), Some(&mut combo), true).0,
        INVALID_PARAMETER
    );

    // rule: SES-24
    let mut nowhere = PropsBuf::realtime();
    nowhere.props_mut().LogFileMode = 0;
    assert_eq!(
        start_w(Some("sys-bad-6"), Some(&mut nowhere), true).0,
        BAD_PATHNAME
    );

    // A log file name not terminated within Wnode.BufferSize.
    let mut unterminated = PropsBuf::new(1025, Some("sys-unterminated.etl"));
    unterminated.props_mut().Wnode.BufferSize -= 2;
    assert_eq!(
        start_w(Some("sys-bad-7"), Some(&mut unterminated), true).0,
        BAD_LENGTH
    );

    assert_eq!(
        snapshot(),
        before,
        "no rejected StartTrace changed the machine"
    );
}

#[test]
fn start_trace_fills_the_handle_the_name_and_the_effective_settings() {
    let _g = setup();
    // rule: SES-30
    let mut p = PropsBuf::realtime();
    p.props_mut().BufferSize = 8;
    p.props_mut().MinimumBuffers = 1;
    let (code, h) = start_w(Some("sys-start-ok"), Some(&mut p), true);
    assert_eq!(code, OK);
    assert_ne!(h, 0);
    // rule: SES-15
    assert_eq!(p.handle(), h, "Wnode.HistoricalContext holds the handle");
    // rule: SES-21
    assert_eq!(p.string_at(p.props().LoggerNameOffset), "sys-start-ok");
    assert!(
        p.props().MinimumBuffers >= 2,
        "MinimumBuffers raised (SES-59)"
    );
    assert_eq!(p.props().BufferSize, 8);
    assert_ne!(
        p.props().Wnode.Guid,
        GUID::default(),
        "a session GUID was generated"
    );

    // rule: SES-08
    let mut again = PropsBuf::realtime();
    assert_eq!(start_w(Some("SYS-START-OK"), Some(&mut again), true).0, 183);

    // QUERY by name fills a fresh block (SES-76).
    let mut q = PropsBuf::realtime();
    let name = wide("sys-start-ok");
    // SAFETY: a valid name and block.
    let code = unsafe { QueryTraceW(CONTROLTRACE_HANDLE::default(), name.as_ptr(), q.ptr()) };
    assert_eq!(code, OK);
    assert_eq!(q.handle(), h);
    assert_eq!(q.string_at(q.props().LoggerNameOffset), "sys-start-ok");
    assert_eq!(q.props().BufferSize, 8);
    assert_eq!(stop(h), OK);
}

#[test]
fn control_trace_rejects_bad_arguments() {
    let _g = setup();
    let (h, _) = start_realtime("sys-control-bad");
    let before = snapshot();
    let mut p = PropsBuf::realtime();
    let call = |h: u64, name: Option<&[u16]>, p: *mut EVENT_TRACE_PROPERTIES, code: u32| {
        // SAFETY: each pointer NULL or valid.
        unsafe {
            ControlTraceW(
                CONTROLTRACE_HANDLE { Value: h },
                name.map_or(null(), |n| n.as_ptr()),
                p,
                code,
            )
        }
    };
    // rule: SES-73
    assert_eq!(
        call(h, None, null_mut(), EVENT_TRACE_CONTROL_QUERY),
        INVALID_PARAMETER
    );
    assert_eq!(
        call(0, None, p.ptr(), EVENT_TRACE_CONTROL_QUERY),
        INVALID_PARAMETER
    );
    // A later start generation than any session had (a handle never issued): added, not
    // XORed in, so it does not depend on how many sessions the process started before (the
    // machine is shared by every test of the binary; XOR named a stopped session's handle
    // whenever bit 2 of the generation was set: ERROR_WMI_INSTANCE_NOT_FOUND).
    assert_eq!(
        call(h + 0x5_0000, None, p.ptr(), EVENT_TRACE_CONTROL_QUERY),
        INVALID_PARAMETER
    );
    // rule: SES-72
    assert_eq!(call(h, None, p.ptr(), 99), INVALID_PARAMETER);
    // rule: SES-74
    let missing = wide("sys-no-such-session");
    assert_eq!(
        call(0, Some(&missing), p.ptr(), EVENT_TRACE_CONTROL_QUERY),
        WMI_INSTANCE_NOT_FOUND
    );
    // rule: SES-75
    p.props_mut().Wnode.BufferSize = 10;
    assert_eq!(
        call(h, None, p.ptr(), EVENT_TRACE_CONTROL_QUERY),
        BAD_LENGTH
    );
    assert_eq!(snapshot(), before);

    // A QUERY whose block has no room for the name still succeeds with the informational
    // ERROR_MORE_DATA and the statistics (SES-75).
    let mut tiny = PropsBuf::new(2, None);
    assert_eq!(
        call(h, None, tiny.ptr(), EVENT_TRACE_CONTROL_QUERY),
        MORE_DATA
    );
    assert_eq!(tiny.handle(), h);

    // The shorthands are ControlTrace with their code: FLUSH, UPDATE, then STOP; a second
    // STOP finds nothing.
    let mut f = PropsBuf::realtime();
    // SAFETY: valid block, no name.
    unsafe {
        assert_eq!(
            FlushTraceW(CONTROLTRACE_HANDLE { Value: h }, null(), f.ptr()),
            OK
        );
        f.props_mut().LogFileNameOffset = 0;
        f.props_mut().FlushTimer = 3;
        assert_eq!(
            UpdateTraceW(CONTROLTRACE_HANDLE { Value: h }, null(), f.ptr()),
            OK
        );
        assert_eq!(f.props().FlushTimer, 3);
        assert_eq!(
            StopTraceW(CONTROLTRACE_HANDLE { Value: h }, null(), f.ptr()),
            OK
        );
        let code = StopTraceW(CONTROLTRACE_HANDLE { Value: h }, null(), f.ptr());
        assert!(
            code == WMI_INSTANCE_NOT_FOUND || code == INVALID_PARAMETER,
            "{code}"
        );
    }
}

#[test]
fn the_ansi_forms_take_latin1_names_in_byte_offsets() {
    let _g = setup();
    // An A block: the structure, 16 bytes of name room.
    let mut buf = vec![0u64; (PROPS_SIZE + 16).div_ceil(8)];
    let p = buf.as_mut_ptr().cast::<EVENT_TRACE_PROPERTIES>();
    // SAFETY: `p` points at an 8-aligned, zeroed block of PROPS_SIZE + 16 bytes.
    unsafe {
        (*p).Wnode.BufferSize = (PROPS_SIZE + 16) as u32;
        (*p).Wnode.Flags = WNODE_FLAG_TRACED_GUID;
        (*p).LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
        (*p).LoggerNameOffset = PROPS_SIZE as u32 + 1; // odd offsets are fine for char strings
    }
    let name = b"sys-a-caf\xe9\0"; // "sys-a-café" in Latin-1: 10 characters + NUL fit in 15 bytes
    let mut h = CONTROLTRACE_HANDLE::default();
    // SAFETY: valid pointers; the block is Wnode.BufferSize bytes.
    assert_eq!(unsafe { StartTraceA(&mut h, name.as_ptr(), p) }, OK);
    let bytes: Vec<u8> = buf.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(
        &bytes[PROPS_SIZE + 1..PROPS_SIZE + 12],
        name,
        "the name copied as bytes"
    );
    assert!(
        etwsim_sys::kernel()
            .sessions()
            .iter()
            .any(|s| s.name == "sys-a-café"),
        "the session is named in Latin-1"
    );
    // SES-19 in bytes: 15 bytes of room do not hold 15 characters and a NUL.
    let mut h2 = CONTROLTRACE_HANDLE::default();
    // SAFETY: as above.
    let code = unsafe { StartTraceA(&mut h2, c"0123456789abcde".as_ptr().cast(), p) };
    assert_eq!(code, BAD_LENGTH);
    // SAFETY: as above.
    assert_eq!(unsafe { StopTraceA(h, null(), p) }, OK);
}

#[test]
fn query_all_traces_checks_its_array_and_reports_more_data() {
    let _g = setup();
    let (a, _) = start_realtime("sys-all-a");
    let (b, _) = start_realtime("sys-all-b");
    let mut count = 0u32;
    let mut one = PropsBuf::realtime();
    let mut array = [one.ptr()];
    let before = snapshot();
    // rule: SES-82
    // SAFETY: NULL or valid pointers; `array` holds one block pointer.
    unsafe {
        assert_eq!(
            QueryAllTracesW(null_mut(), 1, &mut count),
            INVALID_PARAMETER
        );
        assert_eq!(
            QueryAllTracesW(array.as_mut_ptr(), 0, &mut count),
            INVALID_PARAMETER
        );
        assert_eq!(
            QueryAllTracesW(array.as_mut_ptr(), 65, &mut count),
            INVALID_PARAMETER
        );
        assert_eq!(
            QueryAllTracesW(array.as_mut_ptr(), 1, null_mut()),
            INVALID_PARAMETER
        );
        let mut with_null = [null_mut::<EVENT_TRACE_PROPERTIES>()];
        assert_eq!(
            QueryAllTracesW(with_null.as_mut_ptr(), 1, &mut count),
            INVALID_PARAMETER
        );
        assert_eq!(snapshot(), before);
        assert_eq!(
            QueryAllTracesW(array.as_mut_ptr(), 1, &mut count),
            MORE_DATA
        );
    }
    let running = etwsim_sys::kernel().sessions().len() as u32;
    assert!(running >= 2);
    assert_eq!(count, running);
    assert!(
        etwsim_sys::kernel()
            .sessions()
            .iter()
            .any(|s| s.handle.0 == one.handle())
    );
    let mut blocks: Vec<PropsBuf> = (0..4).map(|_| PropsBuf::realtime()).collect();
    let mut ptrs: Vec<_> = blocks.iter_mut().map(|b| b.ptr()).collect();
    assert_eq!(
        // SAFETY: four valid block pointers.
        unsafe { QueryAllTracesW(ptrs.as_mut_ptr(), 4, &mut count) },
        OK
    );
    assert_eq!(count, running);
    let names: Vec<String> = blocks[..running as usize]
        .iter()
        .map(|b| b.string_at(b.props().LoggerNameOffset))
        .collect();
    assert!(names.iter().any(|n| n == "sys-all-a") && names.iter().any(|n| n == "sys-all-b"));
    assert_eq!((stop(a), stop(b)), (OK, OK));
}

#[test]
fn enable_trace_ex2_rejects_bad_arguments_before_reading_filters() {
    let _g = setup();
    let (h, _) = start_realtime("sys-enable-bad");
    let g = guid(0xE1);
    let before = snapshot();
    let handle = CONTROLTRACE_HANDLE { Value: h };
    let call = |h: CONTROLTRACE_HANDLE, g: *const GUID, p: *const ENABLE_TRACE_PARAMETERS| {
        // SAFETY: NULL or valid pointers; descriptors as the parameters announce.
        unsafe { EnableTraceEx2(h, g, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0, 0, 0, p) }
    };
    // rule: PRV-19
    assert_eq!(call(handle, null(), null()), INVALID_PARAMETER);
    assert_eq!(
        call(CONTROLTRACE_HANDLE::default(), &g, null()),
        INVALID_PARAMETER
    );
    // rule: FLT-13
    let mut params = ENABLE_TRACE_PARAMETERS {
        Version: 3,
        ..Default::default()
    };
    assert_eq!(call(handle, &g, &params), INVALID_PARAMETER);
    params.Version = ENABLE_TRACE_PARAMETERS_VERSION_2;
    params.ControlFlags = 1;
    assert_eq!(call(handle, &g, &params), INVALID_PARAMETER);
    params.ControlFlags = 0;
    // A count with NULL descriptors; more descriptors than MAX_EVENT_FILTERS_COUNT; a Size
    // no filter can have: refused without reading the (bogus) pointers.
    params.FilterDescCount = 1;
    assert_eq!(call(handle, &g, &params), INVALID_PARAMETER);
    let mut descs = [EVENT_FILTER_DESCRIPTOR {
        Ptr: 0x10, // never read
        Size: 0x100_0000,
        Type: EVENT_FILTER_TYPE_PID,
    }; 14];
    params.EnableFilterDesc = descs.as_mut_ptr();
    assert_eq!(call(handle, &g, &params), INVALID_PARAMETER);
    params.FilterDescCount = 14;
    assert_eq!(call(handle, &g, &params), INVALID_PARAMETER);
    // An unknown control code.
    assert_eq!(
        // SAFETY: valid GUID, no parameters.
        unsafe { EnableTraceEx2(handle, &g, 7, 4, 0, 0, 0, null()) },
        INVALID_PARAMETER
    );
    assert_eq!(snapshot(), before, "nothing enabled, nothing changed");
    assert_eq!(stop(h), OK);
}

#[test]
fn enable_trace_ex2_with_a_filter_descriptor_reaches_the_provider() {
    let _g = setup();
    let (h, _) = start_realtime("sys-enable-filter");
    let g = guid(0xE2);
    let reg = register(&g);
    // An EVENT_ID filter (filter in, event 5): EVENT_FILTER_EVENT_ID {FilterIn, Reserved,
    // Count, Events[]}.
    let mut filter = vec![1u8, 0, 1, 0];
    filter.extend_from_slice(&5u16.to_le_bytes());
    let mut desc = EVENT_FILTER_DESCRIPTOR {
        Ptr: filter.as_ptr() as u64,
        Size: filter.len() as u32,
        Type: EVENT_FILTER_TYPE_EVENT_ID,
    };
    let params = ENABLE_TRACE_PARAMETERS {
        Version: ENABLE_TRACE_PARAMETERS_VERSION_2,
        EnableFilterDesc: &mut desc,
        FilterDescCount: 1,
        ..Default::default()
    };
    // rule: FLT-19
    // SAFETY: valid GUID and parameters; the descriptor's Ptr covers its Size.
    let code = unsafe {
        EnableTraceEx2(
            CONTROLTRACE_HANDLE { Value: h },
            &g,
            EVENT_CONTROL_CODE_ENABLE_PROVIDER,
            4,
            0,
            0,
            0,
            &params,
        )
    };
    assert_eq!(code, OK);
    let slots = etwsim_sys::kernel().enable_slots(g.into());
    let (session, info) = slots.iter().flatten().next().expect("one slot");
    assert_eq!(session.0, h);
    assert_eq!(info.level, etwsim::Level(4));
    // Events 5 and 6 written through the C API: only 5 reaches the session.
    let process = etwsim_sys::try_process().expect("the machine");
    let mut consumer = etwsim_sys::kernel()
        .open_realtime(
            process,
            "sys-enable-filter",
            etwsim::ConsumerOptions::default(),
        )
        .expect("a real-time consumer");
    for id in [5u16, 6, 5] {
        let d = EVENT_DESCRIPTOR {
            Id: id,
            Level: 4,
            ..Default::default()
        };
        // SAFETY: a registered handle and a valid descriptor, no payload.
        assert_eq!(unsafe { EventWrite(reg, &d, 0, null()) }, OK);
    }
    let mut f = PropsBuf::realtime();
    assert_eq!(
        // SAFETY: a valid block.
        unsafe { FlushTraceW(CONTROLTRACE_HANDLE { Value: h }, null(), f.ptr()) },
        OK
    );
    let ids: Vec<u16> = consumer
        .drain()
        .iter()
        .map(|r| r.header.descriptor.id)
        .collect();
    assert_eq!(ids, [5, 5]);
    consumer.close();
    assert_eq!(EventUnregister(reg), OK);
    assert_eq!(stop(h), OK);
}

#[test]
fn enable_trace_and_enable_trace_ex_are_enable_trace_ex2() {
    let _g = setup();
    let (h, _) = start_realtime("sys-enable-legacy");
    let g = guid(0xE3);
    let reg = register(&g);
    let handle = CONTROLTRACE_HANDLE { Value: h };
    // rule: PRV-26
    // SAFETY: valid GUIDs, no filter.
    unsafe {
        assert_eq!(EnableTrace(1, 0x10, 3, &g, handle), OK);
        assert!(EventProviderEnabled(reg, 3, 0x10));
        assert!(!EventProviderEnabled(reg, 4, 0x10));
        assert_eq!(EnableTrace(0, 0, 0, &g, handle), OK);
        assert!(!EventProviderEnabled(reg, 1, 0x10));
        assert_eq!(EnableTrace(1, 0, 3, null(), handle), INVALID_PARAMETER);
        let source = guid(0x50);
        assert_eq!(
            EnableTraceEx(&g, &source, handle, 1, 5, 0x2, 0, 0, null()),
            OK
        );
        assert!(EventProviderEnabled(reg, 5, 0x2));
        let bad = EVENT_FILTER_DESCRIPTOR {
            Ptr: 0x10,
            Size: u32::MAX,
            Type: EVENT_FILTER_TYPE_SCHEMATIZED,
        };
        assert_eq!(
            EnableTraceEx(&g, null(), handle, 1, 5, 0, 0, 0, &bad),
            INVALID_PARAMETER
        );
    }
    let slots = etwsim_sys::kernel().enable_slots(g.into());
    let (_, info) = slots.iter().flatten().next().expect("one slot");
    assert_eq!(
        info.source_id,
        guid(0x50).into(),
        "EnableTraceEx's SourceId (PRV-14)"
    );
    assert_eq!(EventUnregister(reg), OK);
    assert_eq!(stop(h), OK);
}
