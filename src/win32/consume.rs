//! `OpenTrace`, `ProcessTrace`, `CloseTrace` for real-time sessions (CON-01…CON-07).
//! Reading `.etl` files through these functions arrives with the file reader.

use super::{ERROR_SUCCESS, Win32};
use etwsim_kernel::{Consumer, ConsumerOptions};
use etwsim_types::{EventRecord, Win32Error};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// `PROCESS_TRACE_MODE_REAL_TIME` (CON-02).
pub const PROCESS_TRACE_MODE_REAL_TIME: u32 = 0x0000_0100;
/// `PROCESS_TRACE_MODE_RAW_TIMESTAMP` (CON-02).
pub const PROCESS_TRACE_MODE_RAW_TIMESTAMP: u32 = 0x0000_1000;
/// `PROCESS_TRACE_MODE_EVENT_RECORD` (CON-02).
pub const PROCESS_TRACE_MODE_EVENT_RECORD: u32 = 0x1000_0000;
/// `INVALID_PROCESSTRACE_HANDLE` (64-bit callers).
pub const INVALID_PROCESSTRACE_HANDLE: u64 = u64::MAX;
/// ProcessTrace takes at most this many handles (CON-03).
pub const MAX_PROCESS_TRACE_HANDLES: usize = 64;

/// Per-buffer statistics BufferCallback receives (the fields of `EVENT_TRACE_LOGFILE` it
/// documents, CON-06).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BufferStats {
    /// `BuffersRead` so far.
    pub buffers_read: u32,
    /// `BufferSize` in bytes.
    pub buffer_size: u32,
    /// `Filled`: bytes used in this buffer.
    pub filled: u32,
}

/// `EventRecordCallback`.
pub type EventRecordCallback = Box<dyn FnMut(&EventRecord) + Send>;
/// `BufferCallback`: return `false` to end ProcessTrace (CON-06).
pub type BufferCallback = Box<dyn FnMut(&BufferStats) -> bool + Send>;

/// `EVENT_TRACE_LOGFILE`: what to consume and the callbacks (CON-01, CON-02).
#[doc(alias = "EVENT_TRACE_LOGFILE")]
#[derive(Default)]
pub struct EventTraceLogfile {
    /// `LogFileName`.
    pub log_file_name: Option<String>,
    /// `LoggerName`: a real-time session.
    pub logger_name: Option<String>,
    /// `ProcessTraceMode`.
    pub process_trace_mode: u32,
    /// `EventRecordCallback` (with PROCESS_TRACE_MODE_EVENT_RECORD).
    pub event_record_callback: Option<EventRecordCallback>,
    /// `BufferCallback`.
    pub buffer_callback: Option<BufferCallback>,
}

impl std::fmt::Debug for EventTraceLogfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventTraceLogfile")
            .field("log_file_name", &self.log_file_name)
            .field("logger_name", &self.logger_name)
            .field("process_trace_mode", &self.process_trace_mode)
            .finish_non_exhaustive()
    }
}

/// One open trace handle.
pub(super) struct TraceEntry {
    consumer: parking_lot::Mutex<Option<(Consumer, EventTraceLogfile)>>,
    processing: AtomicBool,
    closed: AtomicBool,
}

/// The process's table of processing handles.
#[derive(Default)]
pub(super) struct Traces {
    map: parking_lot::Mutex<HashMap<u64, Arc<TraceEntry>>>,
    next: std::sync::atomic::AtomicU64,
}

impl Win32 {
    fn fail_open(&self, e: Win32Error) -> u64 {
        self.last_error.store(e.code(), Ordering::Relaxed);
        INVALID_PROCESSTRACE_HANDLE
    }

    /// The code the last failing call that reports through GetLastError left (OpenTrace).
    pub fn last_error(&self) -> u32 {
        self.last_error.load(Ordering::Relaxed)
    }

    /// `OpenTraceW(Logfile)`: a processing handle, or `INVALID_PROCESSTRACE_HANDLE` with
    /// [`Win32::last_error`] set (CON-01). The structure's callbacks move into the handle.
    pub fn open_trace(&self, logfile: Option<&mut EventTraceLogfile>) -> u64 {
        let Some(lf) = logfile else {
            return self.fail_open(Win32Error::ERROR_INVALID_PARAMETER);
        };
        let name = match (&lf.logger_name, &lf.log_file_name) {
            (Some(n), None) if lf.process_trace_mode & PROCESS_TRACE_MODE_REAL_TIME != 0 => {
                n.clone()
            }
            (Some(_), None) | (Some(_), Some(_)) => {
                return self.fail_open(Win32Error::ERROR_INVALID_PARAMETER);
            }
            (None, Some(_)) => {
                // Files are read by the .etl reader; until it is wired in, say so plainly.
                return self.fail_open(Win32Error::ERROR_NOT_SUPPORTED);
            }
            (None, None) => return self.fail_open(Win32Error::ERROR_BAD_PATHNAME),
        };
        let options = ConsumerOptions {
            raw_timestamps: lf.process_trace_mode & PROCESS_TRACE_MODE_RAW_TIMESTAMP != 0,
        };
        let consumer = match self
            .process
            .kernel()
            .open_realtime(&self.process, &name, options)
        {
            Ok(c) => c,
            Err(e) => return self.fail_open(e.win32_code()),
        };
        let handle = 0x1_0000 + self.traces.next.fetch_add(1, Ordering::Relaxed);
        let moved = std::mem::take(lf);
        lf.logger_name = moved.logger_name.clone();
        lf.process_trace_mode = moved.process_trace_mode;
        self.traces.map.lock().insert(
            handle,
            Arc::new(TraceEntry {
                consumer: parking_lot::Mutex::new(Some((consumer, moved))),
                processing: AtomicBool::new(false),
                closed: AtomicBool::new(false),
            }),
        );
        handle
    }

    /// `ProcessTrace(HandleArray, HandleCount, StartTime, EndTime)` for one real-time handle:
    /// delivers events to the callbacks buffer by buffer until the session stops, CloseTrace
    /// is called, or BufferCallback returns `false` (CON-03…CON-06). Start and end times are
    /// FILETIMEs (raw values with PROCESS_TRACE_MODE_RAW_TIMESTAMP); events outside are not
    /// delivered.
    ///
    /// In deterministic mode nothing runs concurrently, so ProcessTrace cannot wait for more
    /// events: it delivers what is queued and returns `ERROR_SUCCESS`.
    pub fn process_trace(
        &self,
        handle_array: Option<&[u64]>,
        start_time: Option<i64>,
        end_time: Option<i64>,
    ) -> u32 {
        let Some(handles) = handle_array else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        if handles.is_empty() || handles.len() > MAX_PROCESS_TRACE_HANDLES {
            return Win32Error::ERROR_BAD_LENGTH.code();
        }
        if let (Some(s), Some(e)) = (start_time, end_time) {
            if e < s {
                return Win32Error::ERROR_INVALID_TIME.code();
            }
        }
        let entries: Vec<Arc<TraceEntry>> = {
            let map = self.traces.map.lock();
            match handles
                .iter()
                .map(|h| map.get(h).cloned())
                .collect::<Option<Vec<_>>>()
            {
                Some(e) => e,
                None => return Win32Error::ERROR_INVALID_HANDLE.code(),
            }
        };
        if entries.len() > 1 {
            return Win32Error::ERROR_INVALID_PARAMETER.code(); // one real-time handle at most
        }
        let entry = &entries[0];
        if entry.processing.swap(true, Ordering::AcqRel) {
            return Win32Error::ERROR_BUSY.code();
        }
        let Some((mut consumer, mut lf)) = entry.consumer.lock().take() else {
            entry.processing.store(false, Ordering::Release);
            return Win32Error::ERROR_INVALID_HANDLE.code();
        };
        let deterministic = self.process.kernel().is_deterministic();
        let in_range = |r: &EventRecord| {
            start_time.is_none_or(|s| r.header.timestamp >= s)
                && end_time.is_none_or(|e| r.header.timestamp <= e)
        };
        let mut buffers_read = 0u32;
        let mut code = ERROR_SUCCESS;
        if !consumer.is_session_running() && !consumer.has_pending() {
            code = Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND.code(); // CON-03
        }
        while code == ERROR_SUCCESS && !entry.closed.load(Ordering::Acquire) {
            let Some((records, size, filled)) = consumer.next_buffer() else {
                if deterministic || !consumer.is_session_running() {
                    break;
                }
                consumer.wait_delivery(std::time::Duration::from_millis(100));
                continue;
            };
            buffers_read += 1;
            let delivered = std::panic::catch_unwind(AssertUnwindSafe(|| {
                if let Some(cb) = lf.event_record_callback.as_mut() {
                    for r in records.iter().filter(|r| in_range(r)) {
                        cb(r);
                    }
                }
                lf.buffer_callback.as_mut().is_none_or(|cb| {
                    cb(&BufferStats {
                        buffers_read,
                        buffer_size: size,
                        filled,
                    })
                })
            }));
            match delivered {
                Ok(true) => {}
                Ok(false) => code = Win32Error::ERROR_CANCELLED.code(), // CON-03/06
                Err(_) => code = Win32Error::ERROR_NOACCESS.code(),     // a callback raised
            }
        }
        if !entry.closed.load(Ordering::Acquire) {
            *entry.consumer.lock() = Some((consumer, lf));
        }
        entry.processing.store(false, Ordering::Release);
        code
    }

    /// `CloseTrace(TraceHandle)`: `ERROR_INVALID_HANDLE` for 0, INVALID_PROCESSTRACE_HANDLE
    /// or unknown handles; `ERROR_CTX_CLOSE_PENDING` (a success) while ProcessTrace is still
    /// running on it (CON-07).
    pub fn close_trace(&self, trace_handle: u64) -> u32 {
        let Some(entry) = self.traces.map.lock().remove(&trace_handle) else {
            return Win32Error::ERROR_INVALID_HANDLE.code();
        };
        entry.closed.store(true, Ordering::Release);
        if entry.processing.load(Ordering::Acquire) {
            return Win32Error::ERROR_CTX_CLOSE_PENDING.code();
        }
        if let Some((c, _)) = entry.consumer.lock().take() {
            c.close();
        }
        ERROR_SUCCESS
    }
}
