//! Consumers: OpenTraceW/A, ProcessTrace, CloseTrace (CON-01…CON-07).
//!
//! OpenTrace hands the face closures that call the C callbacks: EventRecordCallback gets an
//! `EVENT_RECORD` whose header, extended items and payload are copies owned by the handle
//! (valid until the callback returns, as on Windows); without
//! `PROCESS_TRACE_MODE_EVENT_RECORD` the legacy EventCallback gets an `EVENT_TRACE` built
//! from the same record (Class.Type = Opcode, MofData = the payload). BufferCallback gets a
//! copy of the caller's `EVENT_TRACE_LOGFILE` with BuffersRead, BufferSize and Filled set
//! (CON-06); returning FALSE ends ProcessTrace with `ERROR_CANCELLED`.

use crate::abi::*;
use crate::ffi_guard;
use crate::machine::{machine, set_last_error};
use crate::parse::{self, CallerMemory};
use crate::strings::{self, Encoding};
use etwsim::win32::{BufferStats, EventTraceLogfile};
use etwsim::{EventRecord, Win32Error};

const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();

/// The W and A logfile structures share one layout; the A forms are handled as W.
const _: () = {
    assert!(size_of::<EVENT_TRACE_LOGFILEA>() == size_of::<EVENT_TRACE_LOGFILEW>());
    assert!(
        std::mem::offset_of!(EVENT_TRACE_LOGFILEA, Context)
            == std::mem::offset_of!(EVENT_TRACE_LOGFILEW, Context)
    );
    assert!(
        std::mem::offset_of!(EVENT_TRACE_LOGFILEA, BufferCallback)
            == std::mem::offset_of!(EVENT_TRACE_LOGFILEW, BufferCallback)
    );
};

fn header(r: &EventRecord) -> EVENT_HEADER {
    let h = &r.header;
    EVENT_HEADER {
        Size: h.size,
        HeaderType: h.header_type,
        Flags: h.flags,
        EventProperty: h.event_property,
        ThreadId: h.thread_id,
        ProcessId: h.process_id,
        TimeStamp: h.timestamp,
        ProviderId: h.provider_id.into(),
        EventDescriptor: (&h.descriptor).into(),
        Anonymous: EVENT_HEADER_0 {
            Anonymous: EVENT_HEADER_0_0 {
                KernelTime: h.kernel_time,
                UserTime: h.user_time,
            },
        },
        ActivityId: h.activity_id.into(),
    }
}

fn buffer_context(r: &EventRecord) -> ETW_BUFFER_CONTEXT {
    ETW_BUFFER_CONTEXT {
        Anonymous: ETW_BUFFER_CONTEXT_0 {
            ProcessorIndex: r.buffer_context.processor_index,
        },
        LoggerId: r.buffer_context.logger_id,
    }
}

/// Calls a C EventRecordCallback; the buffers are reused from event to event.
struct RecordSink {
    callback: unsafe extern "system" fn(*mut EVENT_RECORD),
    /// `Context`, as an address (never dereferenced here).
    context: usize,
    user_data: Vec<u8>,
    item_data: Vec<u8>,
    items: Vec<EVENT_HEADER_EXTENDED_DATA_ITEM>,
}

impl RecordSink {
    fn deliver(&mut self, r: &EventRecord) {
        self.user_data.clear();
        self.user_data.extend_from_slice(&r.user_data);
        self.item_data.clear();
        for item in &r.extended_data {
            self.item_data.extend_from_slice(&item.data);
        }
        // Pointers are taken only once every item's bytes are in place (no reallocation).
        let base = self.item_data.as_mut_ptr();
        let count = r.extended_data.len();
        self.items.clear();
        let mut offset = 0usize;
        for (i, item) in r.extended_data.iter().enumerate() {
            self.items.push(EVENT_HEADER_EXTENDED_DATA_ITEM {
                Reserved1: 0,
                ExtType: item.ext_type,
                // Linkage: another item follows (EVT-22).
                Anonymous: EVENT_HEADER_EXTENDED_DATA_ITEM_0 {
                    _bitfield: u16::from(i + 1 < count),
                },
                DataSize: u16::try_from(item.data.len()).unwrap_or(u16::MAX),
                DataPtr: base.wrapping_add(offset).expose_provenance() as u64,
            });
            offset += item.data.len();
        }
        let mut record = EVENT_RECORD {
            EventHeader: header(r),
            BufferContext: buffer_context(r),
            ExtendedDataCount: u16::try_from(count).unwrap_or(u16::MAX),
            UserDataLength: u16::try_from(self.user_data.len()).unwrap_or(u16::MAX),
            ExtendedData: if count == 0 {
                std::ptr::null_mut()
            } else {
                self.items.as_mut_ptr()
            },
            UserData: non_empty_ptr(&mut self.user_data).cast(),
            UserContext: std::ptr::with_exposed_provenance_mut(self.context),
        };
        // SAFETY: the caller's EventRecordCallback, called with a valid EVENT_RECORD whose
        // pointers stay valid until it returns.
        unsafe { (self.callback)(&mut record) };
    }
}

/// Calls a C legacy EventCallback with an `EVENT_TRACE`.
struct TraceSink {
    callback: unsafe extern "system" fn(*mut EVENT_TRACE),
    user_data: Vec<u8>,
}

impl TraceSink {
    fn deliver(&mut self, r: &EventRecord) {
        self.user_data.clear();
        self.user_data.extend_from_slice(&r.user_data);
        let h = &r.header;
        let size = std::mem::size_of::<EVENT_TRACE_HEADER>() + self.user_data.len();
        let mut event = EVENT_TRACE {
            Header: EVENT_TRACE_HEADER {
                Size: u16::try_from(size).unwrap_or(u16::MAX),
                Anonymous1: EVENT_TRACE_HEADER_0 { FieldTypeFlags: 0 },
                Anonymous2: EVENT_TRACE_HEADER_1 {
                    Class: EVENT_TRACE_HEADER_1_0 {
                        Type: h.descriptor.opcode.0,
                        Level: h.descriptor.level.0,
                        Version: u16::from(h.descriptor.version),
                    },
                },
                ThreadId: h.thread_id,
                ProcessId: h.process_id,
                TimeStamp: h.timestamp,
                Anonymous3: EVENT_TRACE_HEADER_2 {
                    Guid: h.provider_id.into(),
                },
                Anonymous4: EVENT_TRACE_HEADER_3 {
                    Anonymous1: EVENT_TRACE_HEADER_3_0 {
                        KernelTime: h.kernel_time,
                        UserTime: h.user_time,
                    },
                },
            },
            InstanceId: 0,
            ParentInstanceId: 0,
            ParentGuid: GUID::default(),
            MofData: non_empty_ptr(&mut self.user_data).cast(),
            MofLength: u32::try_from(self.user_data.len()).unwrap_or(u32::MAX),
            Anonymous: EVENT_TRACE_0 {
                BufferContext: buffer_context(r),
            },
        };
        // SAFETY: the caller's EventCallback, called with a valid EVENT_TRACE whose MofData
        // stays valid until it returns.
        unsafe { (self.callback)(&mut event) };
    }
}

/// The C BufferCallback in either encoding.
#[derive(Copy, Clone)]
enum BufferFn {
    W(unsafe extern "system" fn(*mut EVENT_TRACE_LOGFILEW) -> u32),
    A(unsafe extern "system" fn(*mut EVENT_TRACE_LOGFILEA) -> u32),
}

/// Calls a C BufferCallback with a copy of the caller's logfile structure.
struct BufferSink {
    callback: BufferFn,
    /// The copy; its name pointers point into `names`.
    logfile: Box<EVENT_TRACE_LOGFILEW>,
    /// LogFileName and LoggerName as UTF-16 (the W form's copy points here).
    names: [Vec<u16>; 2],
    /// The same as Latin-1 (the A form's copy points here).
    ansi_names: [Vec<u8>; 2],
}

// SAFETY: the raw pointers inside `logfile` point into `names` / `ansi_names`, which the
// sink owns and moves with it (heap buffers do not move), or are the caller's Context, which
// is only handed back to the caller's callbacks, as ETW does on ProcessTrace's thread.
unsafe impl Send for BufferSink {}

impl BufferSink {
    fn deliver(&mut self, stats: &BufferStats) -> bool {
        let lf = &mut *self.logfile;
        lf.BuffersRead = stats.buffers_read;
        lf.BufferSize = stats.buffer_size;
        lf.Filled = stats.filled;
        lf.EventsLost = 0; // CON-06: not used
        let keep_going = match self.callback {
            // SAFETY: the caller's BufferCallback, called with a valid logfile structure.
            BufferFn::W(cb) => unsafe { cb(lf) },
            // SAFETY: as above; EVENT_TRACE_LOGFILEA has EVENT_TRACE_LOGFILEW's layout
            // (asserted above) and its name pointers point at `ansi_names`.
            BufferFn::A(cb) => unsafe { cb((lf as *mut EVENT_TRACE_LOGFILEW).cast()) },
        };
        keep_going != 0
    }
}

/// A pointer to `v`'s first element, or NULL when it is empty.
fn non_empty_ptr<T>(v: &mut [T]) -> *mut T {
    if v.is_empty() {
        std::ptr::null_mut()
    } else {
        v.as_mut_ptr()
    }
}

/// `TIME_ZONE_INFORMATION` from its 172 stored bytes.
fn time_zone(tz: &etwsim::etl::TimeZoneInformation) -> TIME_ZONE_INFORMATION {
    let b = &tz.0;
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let i32_at = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let name = |o: usize| std::array::from_fn(|i| u16_at(o + 2 * i));
    let date = |o: usize| SYSTEMTIME {
        wYear: u16_at(o),
        wMonth: u16_at(o + 2),
        wDayOfWeek: u16_at(o + 4),
        wDay: u16_at(o + 6),
        wHour: u16_at(o + 8),
        wMinute: u16_at(o + 10),
        wSecond: u16_at(o + 12),
        wMilliseconds: u16_at(o + 14),
    };
    TIME_ZONE_INFORMATION {
        Bias: i32_at(0),
        StandardName: name(4),
        StandardDate: date(68),
        StandardBias: i32_at(84),
        DaylightName: name(88),
        DaylightDate: date(152),
        DaylightBias: i32_at(168),
    }
}

/// `TRACE_LOGFILE_HEADER` from the file's header; the names point at `names`.
fn logfile_header(
    h: &etwsim::etl::LogfileHeader,
    names: &mut [Vec<u16>; 2],
) -> TRACE_LOGFILE_HEADER {
    TRACE_LOGFILE_HEADER {
        BufferSize: h.buffer_size,
        Anonymous1: TRACE_LOGFILE_HEADER_0 { Version: h.version },
        ProviderVersion: h.provider_version,
        NumberOfProcessors: h.number_of_processors,
        EndTime: h.end_time,
        TimerResolution: h.timer_resolution,
        MaximumFileSize: h.maximum_file_size,
        LogFileMode: h.log_file_mode.bits(),
        BuffersWritten: h.buffers_written,
        Anonymous2: TRACE_LOGFILE_HEADER_1 {
            Anonymous: TRACE_LOGFILE_HEADER_1_0 {
                StartBuffers: h.start_buffers,
                PointerSize: h.pointer_size,
                EventsLost: h.events_lost,
                CpuSpeedInMHz: h.cpu_speed_mhz,
            },
        },
        LoggerName: names[0].as_mut_ptr(),
        LogFileName: names[1].as_mut_ptr(),
        TimeZone: time_zone(&h.time_zone),
        BootTime: h.boot_time,
        PerfFreq: h.perf_freq,
        StartTime: h.start_time,
        ReservedFlags: h.reserved_flags,
        BuffersLost: h.buffers_lost,
    }
}

/// OpenTrace in either encoding.
///
/// # Safety
/// `logfile` NULL or a readable and writable `EVENT_TRACE_LOGFILE` of the encoding whose
/// names are NULL or NUL-terminated and whose callbacks are callable with `Context` until
/// CloseTrace.
pub(crate) unsafe fn open_trace(logfile: *mut EVENT_TRACE_LOGFILEW, enc: Encoding) -> u64 {
    let m = match machine() {
        Ok(m) => m,
        Err(e) => {
            set_last_error(e);
            return INVALID_PROCESSTRACE_HANDLE;
        }
    };
    if logfile.is_null() {
        let h = m.win32.open_trace(None);
        set_last_error(m.win32.last_error());
        return h;
    }
    // SAFETY: readable (contract).
    let mut lf = unsafe { logfile.read_unaligned() };
    // SAFETY: a readable structure (contract), whose padding is never read; [u8; 448] has no
    // alignment.
    let bytes = unsafe { &*logfile.cast::<[u8; parse::LOGFILE_SIZE]>() };
    // SAFETY: the names are NULL or NUL-terminated in the encoding (contract).
    let args = match parse::logfile(bytes, enc, &unsafe { CallerMemory::new() }) {
        Ok(a) => a,
        Err(e) => {
            set_last_error(e);
            return INVALID_PROCESSTRACE_HANDLE;
        }
    };
    let (file, logger, mode) = (
        args.log_file_name,
        args.logger_name,
        args.process_trace_mode,
    );
    let context = lf.Context.expose_provenance();
    let event_callback: Option<etwsim::win32::EventRecordCallback> = if mode
        & PROCESS_TRACE_MODE_EVENT_RECORD
        != 0
    {
        // SAFETY: the union holds an optional function pointer either way.
        unsafe { lf.Anonymous2.EventRecordCallback }.map(|callback| {
            let mut sink = RecordSink {
                callback,
                context,
                user_data: Vec::new(),
                item_data: Vec::new(),
                items: Vec::new(),
            };
            Box::new(move |r: &EventRecord| sink.deliver(r)) as etwsim::win32::EventRecordCallback
        })
    } else {
        // SAFETY: as above.
        unsafe { lf.Anonymous2.EventCallback }.map(|callback| {
            let mut sink = TraceSink {
                callback,
                user_data: Vec::new(),
            };
            Box::new(move |r: &EventRecord| sink.deliver(r)) as etwsim::win32::EventRecordCallback
        })
    };
    let buffer_fn = match enc {
        Encoding::Wide => lf.BufferCallback.map(BufferFn::W),
        Encoding::Ansi => {
            // SAFETY: `logfile` is an EVENT_TRACE_LOGFILEA for the A form (contract).
            let a = unsafe { logfile.cast::<EVENT_TRACE_LOGFILEA>().read_unaligned() };
            a.BufferCallback.map(BufferFn::A)
        }
    };
    let buffer_callback: Option<etwsim::win32::BufferCallback> = buffer_fn.map(|callback| {
        let mut sink = BufferSink {
            callback,
            logfile: Box::new(lf),
            names: [
                file.as_deref().map(strings::to_wide).unwrap_or_default(),
                logger.as_deref().map(strings::to_wide).unwrap_or_default(),
            ],
            ansi_names: [
                file.as_deref().map(strings::to_ansi).unwrap_or_default(),
                logger.as_deref().map(strings::to_ansi).unwrap_or_default(),
            ],
        };
        let l = &mut *sink.logfile;
        match enc {
            Encoding::Wide => {
                l.LogFileName = non_empty_ptr(&mut sink.names[0]);
                l.LoggerName = non_empty_ptr(&mut sink.names[1]);
            }
            Encoding::Ansi => {
                // The A structure's PSTR fields, in the W structure's PWSTR slots.
                l.LogFileName = non_empty_ptr(&mut sink.ansi_names[0]).cast();
                l.LoggerName = non_empty_ptr(&mut sink.ansi_names[1]).cast();
            }
        }
        Box::new(move |s: &BufferStats| sink.deliver(s)) as etwsim::win32::BufferCallback
    });
    let mut face = EventTraceLogfile {
        log_file_name: file,
        logger_name: logger,
        process_trace_mode: mode,
        event_record_callback: event_callback,
        buffer_callback,
        logfile_header: None,
    };
    let handle = m.win32.open_trace(Some(&mut face));
    if handle == INVALID_PROCESSTRACE_HANDLE {
        set_last_error(m.win32.last_error());
        return handle;
    }
    if let Some(h) = &face.logfile_header {
        let mut names = [
            strings::to_wide(&h.logger_name),
            strings::to_wide(&h.log_file_name),
        ];
        lf.LogfileHeader = logfile_header(h, &mut names);
        lf.BuffersRead = 0;
        lf.CurrentTime = h.start_time;
        // SAFETY: writable (contract); the names the header points at are kept in
        // `lent_strings` until CloseTrace.
        unsafe { logfile.write_unaligned(lf) };
        m.extra.lent_strings.lock().insert(handle, names.into());
    }
    set_last_error(0);
    handle
}

/// `OpenTraceW(Logfile)` (CON-01): a processing handle, or `INVALID_PROCESSTRACE_HANDLE`
/// with GetLastError `ERROR_INVALID_PARAMETER` (NULL, or both or neither source with the
/// wrong mode), `ERROR_BAD_PATHNAME` (no source, or a file that is not a log file) or
/// `ERROR_ACCESS_DENIED` (SEC-05). For a log file, `LogfileHeader` is filled in.
///
/// # Safety
/// `Logfile` NULL or a valid `EVENT_TRACE_LOGFILEW` whose callbacks stay callable with its
/// `Context` until CloseTrace.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn OpenTraceW(
    logfile: *mut EVENT_TRACE_LOGFILEW,
) -> PROCESSTRACE_HANDLE {
    let value = ffi_guard(INVALID_PROCESSTRACE_HANDLE, || {
        // SAFETY: forwarded contract.
        unsafe { open_trace(logfile, Encoding::Wide) }
    });
    PROCESSTRACE_HANDLE { Value: value }
}

/// `OpenTraceA(Logfile)`: as [`OpenTraceW`] with Latin-1 names.
///
/// # Safety
/// As [`OpenTraceW`] for an `EVENT_TRACE_LOGFILEA`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn OpenTraceA(
    logfile: *mut EVENT_TRACE_LOGFILEA,
) -> PROCESSTRACE_HANDLE {
    let value = ffi_guard(INVALID_PROCESSTRACE_HANDLE, || {
        // SAFETY: forwarded contract; the A structure has the W structure's layout.
        unsafe { open_trace(logfile.cast(), Encoding::Ansi) }
    });
    PROCESSTRACE_HANDLE { Value: value }
}

/// `ProcessTrace(HandleArray, HandleCount, StartTime, EndTime)` (CON-03…CON-06): up to 64
/// log-file handles merged oldest first, or one real-time handle.
///
/// # Safety
/// `HandleArray` NULL or `HandleCount` handles; the times NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn ProcessTrace(
    handlearray: *const PROCESSTRACE_HANDLE,
    handlecount: u32,
    starttime: *const FILETIME,
    endtime: *const FILETIME,
) -> WIN32_ERROR {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        // CON-03: a count outside 1..=64 is ERROR_BAD_LENGTH; checked before any handle is
        // read, so that no more are read than ProcessTrace takes.
        // SAFETY: the array holds `HandleCount` handles (contract).
        let mem = unsafe { CallerMemory::new() };
        let handles = match parse::process_trace_handles(
            handlearray.expose_provenance() as u64,
            handlecount,
            &mem,
        ) {
            Ok(h) => h,
            Err(e) => return e,
        };
        // SAFETY: NULL or readable (contract).
        let time =
            |p: *const FILETIME| (!p.is_null()).then(|| unsafe { p.read_unaligned() }.to_i64());
        m.win32
            .process_trace(handles.as_deref(), time(starttime), time(endtime))
    })
}

/// `CloseTrace(TraceHandle)` (CON-07): `ERROR_INVALID_HANDLE` for 0,
/// `INVALID_PROCESSTRACE_HANDLE` or an unknown handle; `ERROR_CTX_CLOSE_PENDING` (a
/// success) while ProcessTrace is still running on it.
#[unsafe(no_mangle)]
pub extern "system" fn CloseTrace(tracehandle: PROCESSTRACE_HANDLE) -> WIN32_ERROR {
    ffi_guard(Win32Error::ERROR_INVALID_HANDLE.code(), || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        let code = m.win32.close_trace(tracehandle.Value);
        if code == 0 || code == Win32Error::ERROR_CTX_CLOSE_PENDING.code() {
            m.extra.lent_strings.lock().remove(&tracehandle.Value);
        }
        code
    })
}
