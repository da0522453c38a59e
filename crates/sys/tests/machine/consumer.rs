//! OpenTrace, ProcessTrace and CloseTrace through their C signatures: the documented
//! refusals, and what the callbacks receive (EVENT_RECORD, EVENT_TRACE, the logfile copy).
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw

use crate::common;
use common::*;
use etwsim_sys::abi::*;
use etwsim_sys::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn open(lf: &mut EVENT_TRACE_LOGFILEW) -> u64 {
    // SAFETY: a valid logfile structure whose names are NULL or NUL-terminated.
    unsafe { OpenTraceW(lf) }.Value
}

#[test]
fn open_trace_refusals_set_last_error() {
    let _g = setup();
    let before = snapshot();
    // rule: CON-01
    SetLastError(0);
    assert_eq!(
        // SAFETY: NULL.
        unsafe { OpenTraceW(null_mut()) }.Value,
        INVALID_PROCESSTRACE_HANDLE
    );
    assert_eq!(GetLastError(), INVALID_PARAMETER);
    let mut lf = EVENT_TRACE_LOGFILEW::default();
    assert_eq!(open(&mut lf), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(GetLastError(), BAD_PATHNAME, "neither a file nor a session");
    let name = wide("sys-no-session");
    let file = wide("/nonexistent/sys.etl");
    lf.LoggerName = name.as_ptr().cast_mut();
    lf.LogFileName = file.as_ptr().cast_mut();
    lf.Anonymous1.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME;
    assert_eq!(open(&mut lf), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(GetLastError(), INVALID_PARAMETER, "both");
    lf.LoggerName = null_mut();
    lf.Anonymous1.ProcessTraceMode = 0;
    assert_eq!(open(&mut lf), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(GetLastError(), BAD_PATHNAME, "a file that does not exist");
    lf.LogFileName = null_mut();
    lf.LoggerName = name.as_ptr().cast_mut();
    lf.Anonymous1.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME;
    assert_eq!(open(&mut lf), INVALID_PROCESSTRACE_HANDLE);
    assert_eq!(GetLastError(), WMI_INSTANCE_NOT_FOUND, "no such session");
    assert_eq!(snapshot(), before);
}

#[test]
fn process_trace_and_close_trace_refusals() {
    let _g = setup();
    let handles = [PROCESSTRACE_HANDLE { Value: 0x1234 }; 65];
    let (t0, t1) = (
        FILETIME {
            dwLowDateTime: 10,
            dwHighDateTime: 0,
        },
        FILETIME::default(),
    );
    // rule: CON-03
    // SAFETY: NULL or valid pointers; `handles` holds 65 handles.
    unsafe {
        assert_eq!(ProcessTrace(null(), 1, null(), null()), INVALID_PARAMETER);
        assert_eq!(
            ProcessTrace(handles.as_ptr(), 0, null(), null()),
            BAD_LENGTH
        );
        assert_eq!(
            ProcessTrace(handles.as_ptr(), 65, null(), null()),
            BAD_LENGTH
        );
        assert_eq!(
            ProcessTrace(handles.as_ptr(), 1, null(), null()),
            INVALID_HANDLE
        );
        assert_eq!(ProcessTrace(handles.as_ptr(), 1, &t0, &t1), INVALID_TIME);
    }
    // rule: CON-07
    for h in [0, INVALID_PROCESSTRACE_HANDLE, 0x1234] {
        assert_eq!(CloseTrace(PROCESSTRACE_HANDLE { Value: h }), INVALID_HANDLE);
    }
}

/// What the record callback copied out of each EVENT_RECORD.
/// EventTraceGuid: the class of a log file's header records.
const EVENT_TRACE_GUID: GUID = GUID::from_u128(0x68fdd900_4a3e_11d1_84f4_0000f80464e3);

#[derive(Debug, Default)]
struct Seen {
    records: Vec<(u16, u8, u32, Vec<u8>, Vec<(u16, u16, Vec<u8>)>, GUID, usize)>,
    buffers: Vec<(u32, u32)>,
    stop_after_first_buffer: bool,
}

unsafe extern "system" fn on_record(r: *mut EVENT_RECORD) {
    // SAFETY: ETW passes a valid record whose pointers cover their lengths.
    let r = unsafe { &*r };
    // SAFETY: UserContext is the `Seen` the test put in Context.
    let seen = unsafe { &mut *r.UserContext.cast::<Seen>() };
    let user = if r.UserDataLength == 0 {
        Vec::new()
    } else {
        // SAFETY: UserData covers UserDataLength bytes.
        unsafe { std::slice::from_raw_parts(r.UserData.cast::<u8>(), r.UserDataLength.into()) }
            .to_vec()
    };
    let items = (0..usize::from(r.ExtendedDataCount))
        .map(|i| {
            // SAFETY: ExtendedData holds ExtendedDataCount items, each DataPtr covering DataSize.
            unsafe {
                let item = *r.ExtendedData.add(i);
                let data =
                    std::slice::from_raw_parts(item.DataPtr as *const u8, item.DataSize.into());
                (item.ExtType, item.Anonymous._bitfield & 1, data.to_vec())
            }
        })
        .collect();
    let h = &r.EventHeader;
    seen.records.push((
        h.EventDescriptor.Id,
        h.EventDescriptor.Level,
        h.ProcessId,
        user,
        items,
        h.ActivityId,
        r.UserContext as usize,
    ));
}

unsafe extern "system" fn on_buffer(lf: *mut EVENT_TRACE_LOGFILEW) -> u32 {
    // SAFETY: ETW passes a valid logfile copy; its Context is the test's `Seen`.
    let (lf, seen) = unsafe { (&*lf, &mut *(*lf).Context.cast::<Seen>()) };
    seen.buffers.push((lf.BuffersRead, lf.BufferSize));
    u32::from(!seen.stop_after_first_buffer)
}

fn temp_etl(name: &str) -> (String, Vec<u16>) {
    let path = std::env::temp_dir()
        .join(format!("etwsim-sys-{}-{name}.etl", std::process::id()))
        .to_string_lossy()
        .into_owned();
    let w = wide(&path);
    (path, w)
}

/// A file session with three events; the path.
fn write_file(name: &str, provider: &GUID) -> (String, Vec<u16>) {
    let (path, wpath) = temp_etl(name);
    let _ = std::fs::remove_file(&path);
    let mut p = PropsBuf::new(1025, Some(&path));
    p.props_mut().LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    let mut h = CONTROLTRACE_HANDLE::default();
    let sname = wide(name);
    // SAFETY: valid pointers and block.
    assert_eq!(unsafe { StartTraceW(&mut h, sname.as_ptr(), p.ptr()) }, OK);
    let reg = register(provider);
    assert_eq!(enable(h.Value, provider, 5, 0), OK);
    let payload = *b"abcd";
    let data = EVENT_DATA_DESCRIPTOR {
        Ptr: payload.as_ptr() as u64,
        Size: 4,
        ..Default::default()
    };
    let activity = guid(0xA1);
    let related = guid(0xA2);
    for id in 1..=3u16 {
        let d = EVENT_DESCRIPTOR {
            Id: id,
            Level: 4,
            ..Default::default()
        };
        // SAFETY: valid pointers.
        let code = unsafe {
            if id == 2 {
                EventWriteTransfer(reg, &d, &activity, &related, 1, &data)
            } else {
                EventWrite(reg, &d, 1, &data)
            }
        };
        assert_eq!(code, OK);
    }
    assert_eq!(EventUnregister(reg), OK);
    assert_eq!(stop(h.Value), OK);
    (path, wpath)
}

#[test]
fn a_log_file_is_read_back_as_event_records() {
    let _g = setup();
    let provider = guid(0xC01);
    let (path, wpath) = write_file("sys-consume-file", &provider);
    let mut seen = Seen::default();
    let mut lf = EVENT_TRACE_LOGFILEW {
        LogFileName: wpath.as_ptr().cast_mut(),
        BufferCallback: Some(on_buffer),
        Context: (&mut seen as *mut Seen).cast::<c_void>(),
        ..Default::default()
    };
    lf.Anonymous1.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    lf.Anonymous2.EventRecordCallback = Some(on_record);
    let h = open(&mut lf);
    assert_ne!(h, INVALID_PROCESSTRACE_HANDLE);
    // rule: CON-01
    assert_eq!(lf.LogfileHeader.BufferSize, 64 * 1024);
    assert_eq!(
        // SAFETY: every bit pattern is a valid u32 quadruple.
        unsafe { lf.LogfileHeader.Anonymous2.Anonymous.PointerSize },
        8
    );
    // SAFETY: OpenTrace pointed LoggerName at a NUL-terminated string it keeps until CloseTrace.
    let logger = unsafe {
        let p = lf.LogfileHeader.LoggerName;
        let len = (0..).take_while(|&i| *p.add(i) != 0).count();
        String::from_utf16_lossy(std::slice::from_raw_parts(p, len))
    };
    assert_eq!(logger, "sys-consume-file");
    let handles = [PROCESSTRACE_HANDLE { Value: h }];
    // rule: CON-04
    // rule: CON-06
    assert_eq!(
        // SAFETY: one valid handle.
        unsafe { ProcessTrace(handles.as_ptr(), 1, null(), null()) },
        OK
    );
    assert_eq!(CloseTrace(handles[0]), OK);
    // rule: CON-02
    // The file's header event (EventTraceGuid) and buffer 0's other EventTrace record come
    // first (BUF-17), then the events.
    let header = seen
        .records
        .iter()
        .take_while(|r| (r.0, r.1) == (0, 0)) // classic EventTrace records: Id 0, Level 0
        .count();
    assert_eq!(header, 2, "buffer 0's records first");
    seen.records.drain(..header);
    let ids: Vec<u16> = seen.records.iter().map(|r| r.0).collect();
    assert_eq!(ids, [1, 2, 3]);
    let pid = etwsim_process_id();
    let context = &mut seen as *mut Seen as usize;
    for r in &seen.records {
        assert_eq!(
            (r.1, r.2, r.3.as_slice(), r.6),
            (4, pid, &b"abcd"[..], context)
        );
    }
    // rule: EVT-17
    // rule: EVT-22
    let related_item: Vec<_> = seen.records[1].4.iter().filter(|i| i.0 == 1).collect();
    assert_eq!(related_item.len(), 1);
    assert_eq!(related_item[0].2, guid_bytes(&guid(0xA2)));
    let last = seen.records[1].4.last().expect("items");
    assert_eq!(last.1, 0, "Linkage is clear on the last item");
    assert!(
        seen.records[1].4[..seen.records[1].4.len() - 1]
            .iter()
            .all(|i| i.1 == 1)
    );
    assert_eq!(seen.records[1].5, guid(0xA1), "ActivityId");
    assert!(seen.records[0].4.is_empty() || seen.records[0].4.iter().all(|i| i.0 != 1));
    assert!(!seen.buffers.is_empty(), "BufferCallback ran");
    assert_eq!(seen.buffers[0].1, 64 * 1024);
    let _ = std::fs::remove_file(path);
}

fn guid_bytes(g: &GUID) -> Vec<u8> {
    let mut v = g.data1.to_le_bytes().to_vec();
    v.extend_from_slice(&g.data2.to_le_bytes());
    v.extend_from_slice(&g.data3.to_le_bytes());
    v.extend_from_slice(&g.data4);
    v
}

#[test]
fn buffer_callback_returning_false_cancels() {
    let _g = setup();
    let provider = guid(0xC02);
    let (path, wpath) = write_file("sys-consume-cancel", &provider);
    let mut seen = Seen {
        stop_after_first_buffer: true,
        ..Seen::default()
    };
    let mut lf = EVENT_TRACE_LOGFILEW {
        LogFileName: wpath.as_ptr().cast_mut(),
        BufferCallback: Some(on_buffer),
        Context: (&mut seen as *mut Seen).cast::<c_void>(),
        ..Default::default()
    };
    lf.Anonymous1.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    lf.Anonymous2.EventRecordCallback = Some(on_record);
    let h = PROCESSTRACE_HANDLE {
        Value: open(&mut lf),
    };
    // rule: CON-06
    // SAFETY: one valid handle.
    assert_eq!(unsafe { ProcessTrace(&h, 1, null(), null()) }, CANCELLED);
    assert_eq!(CloseTrace(h), OK);
    assert_eq!(CloseTrace(h), INVALID_HANDLE, "closed twice (CON-07)");
    let _ = std::fs::remove_file(path);
}

static LEGACY: std::sync::Mutex<Vec<(u8, u8, u16, u32, GUID)>> = std::sync::Mutex::new(Vec::new());

unsafe extern "system" fn on_legacy(e: *mut EVENT_TRACE) {
    // SAFETY: ETW passes a valid EVENT_TRACE.
    let e = unsafe { &*e };
    // SAFETY: every bit pattern is valid for these unions of integers.
    let (class, g, size) = unsafe {
        (
            e.Header.Anonymous2.Class,
            e.Header.Anonymous3.Guid,
            e.Header.Size,
        )
    };
    LEGACY.lock().unwrap_or_else(|e| e.into_inner()).push((
        class.Type,
        class.Level,
        size,
        e.MofLength,
        g,
    ));
}

#[test]
fn without_event_record_mode_the_legacy_callback_gets_event_trace() {
    let _g = setup();
    let provider = guid(0xC03);
    let (path, wpath) = write_file("sys-consume-legacy", &provider);
    let mut lf = EVENT_TRACE_LOGFILEW {
        LogFileName: wpath.as_ptr().cast_mut(),
        ..Default::default()
    };
    lf.Anonymous2.EventCallback = Some(on_legacy);
    let h = PROCESSTRACE_HANDLE {
        Value: open(&mut lf),
    };
    // rule: CON-02
    // SAFETY: one valid handle.
    assert_eq!(unsafe { ProcessTrace(&h, 1, null(), null()) }, OK);
    assert_eq!(CloseTrace(h), OK);
    let mut legacy = std::mem::take(&mut *LEGACY.lock().unwrap_or_else(|e| e.into_inner()));
    // The header event and buffer 0's other EventTrace record come first (BUF-17).
    assert!(legacy.len() > 2 && legacy[..2].iter().all(|l| l.4 == EVENT_TRACE_GUID));
    legacy.drain(..2);
    assert_eq!(legacy.len(), 3);
    for (ty, level, size, len, g) in legacy {
        assert_eq!((ty, level, size, len, g), (0, 4, 48 + 4, 4, provider));
    }
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_real_time_session_is_consumed_until_it_stops() {
    let _g = setup();
    let provider = guid(0xC04);
    let (s, _) = start_realtime("sys-consume-rt");
    let reg = register(&provider);
    assert_eq!(enable(s, &provider, 4, 0), OK);
    let mut seen = Seen::default();
    let name = wide("sys-consume-rt");
    let mut lf = EVENT_TRACE_LOGFILEW {
        LoggerName: name.as_ptr().cast_mut(),
        Context: (&mut seen as *mut Seen).cast::<c_void>(),
        ..Default::default()
    };
    lf.Anonymous1.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
    lf.Anonymous2.EventRecordCallback = Some(on_record);
    let h = PROCESSTRACE_HANDLE {
        Value: open(&mut lf),
    };
    assert_ne!(h.Value, INVALID_PROCESSTRACE_HANDLE);
    let text = wide("rt");
    // SAFETY: a valid string.
    assert_eq!(unsafe { EventWriteString(reg, 4, 0, text.as_ptr()) }, OK);
    assert_eq!(stop(s), OK);
    // Deterministic machine: ProcessTrace delivers what was queued, then returns (CON-05).
    // SAFETY: one valid handle.
    assert_eq!(unsafe { ProcessTrace(&h, 1, null(), null()) }, OK);
    assert_eq!(CloseTrace(h), OK);
    assert_eq!(seen.records.len(), 1);
    assert_eq!(
        seen.records[0].3,
        [b'r', 0, b't', 0, 0, 0],
        "the string and its NUL (EVT-13)"
    );
    assert_eq!(EventUnregister(reg), OK);
}
