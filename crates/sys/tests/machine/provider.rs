//! EventRegister … EventWriteEx, EventSetInformation, EventActivityIdControl and the
//! classic provider functions, called through their C signatures.
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw

use crate::common;
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

/// RegisterTraceGuidsW with `on_request` and `context`, which must succeed: the registration
/// handle.
fn register_classic(g: &GUID, reg: &mut [TRACE_GUID_REGISTRATION], context: *const c_void) -> u64 {
    let mut handle = 0u64;
    // SAFETY: valid pointers; `reg` holds `reg.len()` entries.
    let code = unsafe {
        RegisterTraceGuidsW(
            Some(on_request),
            context,
            g,
            reg.len() as u32,
            reg.as_mut_ptr(),
            null(),
            null(),
            &mut handle,
        )
    };
    assert_eq!(code, OK);
    handle
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
    // Another test's classic provider may have left its notifications (tests run in any order).
    CLASSIC.lock().unwrap_or_else(|e| e.into_inner()).clear();
    let handle = register_classic(&g, &mut reg, context);
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

/// A classic event as a C caller lays it out: the header, then `Size - 48` bytes (inline
/// data or a `MOF_FIELD` array), in one 8-aligned block.
struct TraceBuf(Vec<u64>);

impl TraceBuf {
    fn new(header: EVENT_TRACE_HEADER, after: &[u8]) -> TraceBuf {
        let mut bytes = vec![0u8; 48 + after.len()];
        // SAFETY: EVENT_TRACE_HEADER is 48 plain bytes.
        let h = unsafe {
            std::slice::from_raw_parts((&header as *const EVENT_TRACE_HEADER).cast::<u8>(), 48)
        };
        bytes[..48].copy_from_slice(h);
        bytes[48..].copy_from_slice(after);
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        for (w, c) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            *w = u64::from_le_bytes(b);
        }
        TraceBuf(words)
    }

    fn ptr(&self) -> *const EVENT_TRACE_HEADER {
        self.0.as_ptr().cast()
    }
}

/// A classic header: `Size` 48 + `extra`, WNODE_FLAG_TRACED_GUID and `flags`, class
/// `guid(0x9C)`.
fn classic_header(extra: usize, flags: u32, class_type: u8, level: u8) -> EVENT_TRACE_HEADER {
    let mut h = EVENT_TRACE_HEADER {
        Size: (48 + extra) as u16,
        ..Default::default()
    };
    h.Anonymous2.Class = EVENT_TRACE_HEADER_1_0 {
        Type: class_type,
        Level: level,
        Version: 3,
    };
    h.Anonymous3.Guid = guid(0x9C);
    h.Anonymous4.Anonymous2.Flags = WNODE_FLAG_TRACED_GUID | flags;
    h
}

/// One MOF_FIELD per block (DataPtr 0 for an empty one), as the bytes after a header.
fn mof_fields(blocks: &[&[u8]]) -> Vec<u8> {
    blocks
        .iter()
        .flat_map(|b| {
            let f = MOF_FIELD {
                DataPtr: if b.is_empty() { 0 } else { b.as_ptr() as u64 },
                Length: b.len() as u32,
                DataType: 0,
            };
            let mut v = f.DataPtr.to_le_bytes().to_vec();
            v.extend_from_slice(&f.Length.to_le_bytes());
            v.extend_from_slice(&f.DataType.to_le_bytes());
            v
        })
        .collect()
}

#[test]
fn trace_event_checks_its_arguments_and_changes_nothing() {
    let _g = setup();
    let (s, _) = start_realtime("sys-trace-event");
    let before = snapshot();
    let data = *b"abcd";
    let lost = || {
        let mut q = PropsBuf::realtime();
        // SAFETY: a valid properties block, no name.
        let code = unsafe {
            ControlTraceW(
                CONTROLTRACE_HANDLE { Value: s },
                null(),
                q.ptr(),
                EVENT_TRACE_CONTROL_QUERY,
            )
        };
        assert_eq!(code, OK);
        q.props().EventsLost
    };
    // rule: EVT-29
    // SAFETY: NULL, or headers followed by `Size - 48` readable bytes whose MOF_FIELDs
    // point at readable blocks (or are NULL, which TraceEvent refuses before reading).
    unsafe {
        let mut h = classic_header(0, 0, 1, 4);
        h.Anonymous4.Anonymous2.Flags = 0;
        assert_eq!(TraceEvent(0, &h), INVALID_PARAMETER);
        assert_eq!(TraceEvent(s, null()), INVALID_PARAMETER);
        assert_eq!(TraceEvent(s, &h), INVALID_FLAG_NUMBER);
        h.Anonymous4.Anonymous2.Flags = WNODE_FLAG_TRACED_GUID;
        h.Size = 40;
        assert_eq!(
            TraceEvent(s, &h),
            INVALID_PARAMETER,
            "Size below the header"
        );
        let mut h = classic_header(0, WNODE_FLAG_USE_GUID_PTR, 1, 4);
        h.Anonymous3.GuidPtr = 0;
        assert_eq!(TraceEvent(s, &h), INVALID_PARAMETER, "a NULL GuidPtr");
        let odd = TraceBuf::new(classic_header(8, WNODE_FLAG_USE_MOF_PTR, 1, 4), &[0; 8]);
        assert_eq!(
            TraceEvent(s, odd.ptr()),
            INVALID_PARAMETER,
            "half a MOF_FIELD"
        );
        let blocks: Vec<&[u8]> = vec![&data; 17];
        let many = mof_fields(&blocks);
        let seventeen = TraceBuf::new(
            classic_header(many.len(), WNODE_FLAG_USE_MOF_PTR, 1, 4),
            &many,
        );
        assert_eq!(
            TraceEvent(s, seventeen.ptr()),
            INVALID_PARAMETER,
            "more than MAX_MOF_FIELDS"
        );
        let mut null_data = mof_fields(&[&data]);
        null_data[..8].fill(0);
        let null_data = TraceBuf::new(classic_header(16, WNODE_FLAG_USE_MOF_PTR, 1, 4), &null_data);
        assert_eq!(
            TraceEvent(s, null_data.ptr()),
            INVALID_PARAMETER,
            "a NULL DataPtr with a Length"
        );
        let ok = TraceBuf::new(classic_header(4, 0, 1, 4), &data);
        assert_eq!(TraceEvent(s + 0x7_0000, ok.ptr()), INVALID_HANDLE);
        assert_eq!(snapshot(), before);
        assert_eq!(lost(), 0);
        // Sixteen fields are allowed.
        let sixteen = mof_fields(&blocks[..16]);
        let sixteen = TraceBuf::new(
            classic_header(sixteen.len(), WNODE_FLAG_USE_MOF_PTR, 1, 4),
            &sixteen,
        );
        assert_eq!(TraceEvent(s, sixteen.ptr()), OK);
        assert_eq!(TraceEvent(s, ok.ptr()), OK);
    }
    assert_eq!(stop(s), OK);
    // SAFETY: a valid header.
    let stale = unsafe { TraceEvent(s, TraceBuf::new(classic_header(0, 0, 1, 4), &[]).ptr()) };
    assert_eq!(stale, INVALID_HANDLE, "the session stopped");
}

#[test]
fn trace_event_writes_classic_records_into_the_enabling_session() {
    let _g = setup();
    let g = guid(0x106);
    let path = std::env::temp_dir()
        .join(format!("etwsim-sys-{}-classic.etl", std::process::id()))
        .to_string_lossy()
        .into_owned();
    let mut p = PropsBuf::new(1025, Some(&path));
    p.props_mut().LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    let mut session = CONTROLTRACE_HANDLE::default();
    let name = wide("sys-classic-file");
    // SAFETY: valid pointers and block.
    let code = unsafe { StartTraceW(&mut session, name.as_ptr(), p.ptr()) };
    assert_eq!(code, OK);
    let s = session.Value;
    let mut reg = [TRACE_GUID_REGISTRATION {
        Guid: &g,
        RegHandle: null_mut(),
    }];
    CLASSIC.lock().unwrap_or_else(|e| e.into_inner()).clear();
    let handle = register_classic(&g, &mut reg, null());
    // rule: PRV-23
    // SAFETY: a valid GUID.
    assert_eq!(unsafe { EnableTrace(1, 0x10, 2, &g, session) }, OK);
    let logger = CLASSIC.lock().unwrap_or_else(|e| e.into_inner())[0].1;
    assert_eq!(logger, s, "GetTraceLoggerHandle gives the session");

    // rule: EVT-29
    // rule: FLT-27
    let inline = TraceBuf::new(classic_header(6, 0, 1, 5), b"inline");
    let class = guid(0x9D);
    let mut by_ptr = classic_header(3, WNODE_FLAG_USE_GUID_PTR, 2, 1);
    by_ptr.Anonymous3.GuidPtr = &class as *const GUID as u64;
    let by_ptr = TraceBuf::new(by_ptr, b"ptr");
    let (a, b) = (7u32.to_le_bytes(), *b"MOF!");
    let fields = mof_fields(&[&a, &[], &b]);
    let mof = TraceBuf::new(
        classic_header(fields.len(), WNODE_FLAG_USE_MOF_PTR, 3, 4),
        &fields,
    );
    let header_bytes = mof.0.clone();
    // SAFETY: headers followed by their data; MOF_FIELDs point at live blocks.
    unsafe {
        for t in [&inline, &by_ptr, &mof] {
            assert_eq!(TraceEvent(logger, t.ptr()), OK);
        }
    }
    assert_eq!(
        mof.0, header_bytes,
        "TraceEvent leaves the caller's header alone"
    );
    // rule: EVT-06
    // A 65,535-byte record does not fit the 64 KB buffer (65,464 bytes of records).
    let huge = TraceBuf::new(classic_header(0xFFFF - 48, 0, 4, 4), &vec![1; 0xFFFF - 48]);
    // SAFETY: a header followed by its data.
    assert_eq!(unsafe { TraceEvent(logger, huge.ptr()) }, MORE_DATA);
    assert_eq!(stop(s), OK);
    assert_eq!(UnregisterTraceGuids(handle), OK);

    let mut f = etwsim::etl::LogFile::open(&path).unwrap();
    let records = f.records().collect::<Result<Vec<_>, _>>().unwrap();
    let classic: Vec<_> = records
        .iter()
        .filter_map(etwsim::etl::Record::as_trace)
        .filter(|t| t.kind() == Some(etwsim::etl::RecordKind::Classic))
        .map(|t| {
            (
                t.event_type(),
                t.level,
                t.version,
                t.guid,
                t.payload.clone(),
                t.process_id,
            )
        })
        .collect();
    let pid = Some(etwsim_process_id());
    assert_eq!(
        classic,
        [
            (1, 5, 3, Some(guid(0x9C).into()), b"inline".to_vec(), pid),
            (2, 1, 3, Some(class.into()), b"ptr".to_vec(), pid),
            (
                3,
                4,
                3,
                Some(guid(0x9C).into()),
                b"\x07\x00\x00\x00MOF!".to_vec(),
                pid
            ),
        ]
    );
    assert_eq!(
        f.header().events_lost,
        1,
        "the refused event counts as lost"
    );
    let _ = std::fs::remove_file(&path);
}
