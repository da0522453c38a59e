//! `OpenTrace`, `ProcessTrace`, `CloseTrace` for real-time sessions and log files
//! (CON-01…CON-07).

use super::{ERROR_SUCCESS, Win32};
use etwsim_kernel::{Consumer, ConsumerOptions};
use etwsim_types::{EventRecord, Win32Error};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use etwsim_types::win32_consts::{
    PROCESS_TRACE_MODE_EVENT_RECORD, PROCESS_TRACE_MODE_RAW_TIMESTAMP, PROCESS_TRACE_MODE_REAL_TIME,
};
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
    /// `LogfileHeader`, filled in by OpenTrace for a log file (CON-01).
    pub logfile_header: Option<etwsim_etl::LogfileHeader>,
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

/// What a processing handle reads.
enum Source {
    RealTime(Consumer),
    /// A log file, opened again by each ProcessTrace.
    File(String),
}

/// One open trace handle.
pub(super) struct TraceEntry {
    source: parking_lot::Mutex<Option<(Source, EventTraceLogfile)>>,
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
    /// [`Win32::last_error`] set (CON-01). The structure's callbacks move into the handle; for
    /// a log file, `logfile_header` is filled in. Log files are read from the kernel's disk.
    pub fn open_trace(&self, logfile: Option<&mut EventTraceLogfile>) -> u64 {
        let Some(lf) = logfile else {
            return self.fail_open(Win32Error::ERROR_INVALID_PARAMETER);
        };
        let real_time = lf.process_trace_mode & PROCESS_TRACE_MODE_REAL_TIME != 0;
        match (lf.logger_name.clone(), lf.log_file_name.clone()) {
            (Some(name), None) if real_time => {
                let options = ConsumerOptions {
                    raw_timestamps: lf.process_trace_mode & PROCESS_TRACE_MODE_RAW_TIMESTAMP != 0,
                };
                match self
                    .process
                    .kernel()
                    .open_realtime(&self.process, &name, options)
                {
                    Ok(c) => self.add_trace(Source::RealTime(c), lf),
                    Err(e) => self.fail_open(e.win32_code()),
                }
            }
            (None, Some(path)) if !real_time => {
                // CON-01: a file that cannot be read as a log file is ERROR_BAD_PATHNAME.
                match self.process.kernel().disk().open_log_file(&path) {
                    Ok(file) => {
                        lf.logfile_header = Some(file.header().clone());
                        self.add_trace(Source::File(path), lf)
                    }
                    Err(_) => self.fail_open(Win32Error::ERROR_BAD_PATHNAME),
                }
            }
            (None, None) => self.fail_open(Win32Error::ERROR_BAD_PATHNAME),
            _ => self.fail_open(Win32Error::ERROR_INVALID_PARAMETER),
        }
    }

    /// Registers a processing handle: the callbacks move into it, the names and the header
    /// stay in the caller's structure.
    fn add_trace(&self, source: Source, lf: &mut EventTraceLogfile) -> u64 {
        let handle = 0x1_0000 + self.traces.next.fetch_add(1, Ordering::Relaxed);
        let moved = EventTraceLogfile {
            log_file_name: lf.log_file_name.clone(),
            logger_name: lf.logger_name.clone(),
            process_trace_mode: lf.process_trace_mode,
            event_record_callback: lf.event_record_callback.take(),
            buffer_callback: lf.buffer_callback.take(),
            logfile_header: lf.logfile_header.clone(),
        };
        self.traces.map.lock().insert(
            handle,
            Arc::new(TraceEntry {
                source: parking_lot::Mutex::new(Some((source, moved))),
                processing: AtomicBool::new(false),
                closed: AtomicBool::new(false),
            }),
        );
        handle
    }

    /// `ProcessTrace(HandleArray, HandleCount, StartTime, EndTime)`: up to 64 log-file
    /// handles merged oldest first, or one real-time handle, never a mix (CON-03, CON-04).
    /// Events outside [StartTime, EndTime] are not delivered; times are FILETIMEs (raw values
    /// with PROCESS_TRACE_MODE_RAW_TIMESTAMP). A real-time handle delivers buffer by buffer
    /// until the session stops, CloseTrace is called, or BufferCallback returns `false`
    /// (CON-05, CON-06); in deterministic mode nothing runs concurrently, so it delivers what
    /// is queued and returns `ERROR_SUCCESS`.
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
        if entries
            .iter()
            .any(|e| e.processing.swap(true, Ordering::AcqRel))
        {
            for e in &entries {
                e.processing.store(false, Ordering::Release);
            }
            return Win32Error::ERROR_BUSY.code();
        }
        let mut taken: Vec<(Source, EventTraceLogfile)> = Vec::with_capacity(entries.len());
        for e in &entries {
            match e.source.lock().take() {
                Some(t) => taken.push(t),
                None => {
                    self.put_back(&entries, taken);
                    return Win32Error::ERROR_INVALID_HANDLE.code();
                }
            }
        }
        let real_time = taken
            .iter()
            .filter(|(s, _)| matches!(s, Source::RealTime(_)))
            .count();
        let code = if real_time > 1 || (real_time == 1 && taken.len() > 1) {
            Win32Error::ERROR_INVALID_PARAMETER.code() // one real-time handle, never mixed
        } else if real_time == 1 {
            self.process_realtime(&entries[0], &mut taken[0], start_time, end_time)
        } else {
            self.process_files(&entries, &mut taken, start_time, end_time)
        };
        self.put_back(&entries, taken);
        code
    }

    fn put_back(&self, entries: &[Arc<TraceEntry>], taken: Vec<(Source, EventTraceLogfile)>) {
        for (e, t) in entries.iter().zip(taken) {
            if !e.closed.load(Ordering::Acquire) {
                *e.source.lock() = Some(t);
            }
        }
        for e in entries {
            e.processing.store(false, Ordering::Release);
        }
    }

    fn process_realtime(
        &self,
        entry: &TraceEntry,
        (source, lf): &mut (Source, EventTraceLogfile),
        start_time: Option<i64>,
        end_time: Option<i64>,
    ) -> u32 {
        let Source::RealTime(consumer) = source else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        if !consumer.is_session_running() && !consumer.has_pending() {
            return Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND.code(); // CON-03
        }
        let deterministic = self.process.kernel().is_deterministic();
        let mut buffers_read = 0u32;
        while !entry.closed.load(Ordering::Acquire) {
            let Some((records, size, filled)) = consumer.next_buffer() else {
                if deterministic || !consumer.is_session_running() {
                    break;
                }
                consumer.wait_delivery(std::time::Duration::from_millis(100));
                continue;
            };
            buffers_read += 1;
            let stats = BufferStats {
                buffers_read,
                buffer_size: size,
                filled,
            };
            if let Err(code) = deliver(lf, &records, Some(&stats), start_time, end_time) {
                return code;
            }
        }
        ERROR_SUCCESS
    }

    fn process_files(
        &self,
        entries: &[Arc<TraceEntry>],
        taken: &mut [(Source, EventTraceLogfile)],
        start_time: Option<i64>,
        end_time: Option<i64>,
    ) -> u32 {
        let disk = self.process.kernel().disk();
        let mut files = Vec::with_capacity(taken.len());
        for (source, _) in taken.iter() {
            let Source::File(path) = source else {
                return Win32Error::ERROR_INVALID_PARAMETER.code();
            };
            match disk.open_log_file(path) {
                Ok(f) => files.push(f),
                Err(_) => return Win32Error::ERROR_BAD_PATHNAME.code(),
            }
        }
        let raw = taken
            .iter()
            .all(|(_, lf)| lf.process_trace_mode & PROCESS_TRACE_MODE_RAW_TIMESTAMP != 0);
        // CON-02, BUF-17: every record of the file, the header event first, as EVENT_RECORDs.
        let options = etwsim_etl::ReadOptions {
            raw_timestamps: raw,
            header_records: true,
        };
        let mut reader = match etwsim_etl::Reader::new(files, options) {
            Ok(r) => r,
            Err(e) => return e.win32_code().code(),
        };
        let mut buffers_read = vec![0u32; taken.len()];
        let mut damaged = false;
        while let Some(next) = reader.next_positioned() {
            if entries.iter().any(|e| e.closed.load(Ordering::Acquire)) {
                break;
            }
            let (pos, record) = match next {
                Ok(r) => r,
                Err(_) => {
                    damaged = true;
                    continue;
                }
            };
            let lf = &mut taken[pos.file].1;
            // CON-06: BufferCallback after the last event of each buffer, with its statistics;
            // FALSE ends ProcessTrace at once.
            let stats = pos.last_in_buffer.then(|| {
                buffers_read[pos.file] += 1;
                BufferStats {
                    buffers_read: buffers_read[pos.file],
                    buffer_size: lf.logfile_header.as_ref().map_or(0, |h| h.buffer_size),
                    filled: pos.filled,
                }
            });
            let record = record.into_event_record();
            if let Err(code) = deliver(
                lf,
                std::slice::from_ref(&record),
                stats.as_ref(),
                start_time,
                end_time,
            ) {
                return code;
            }
        }
        if damaged {
            Win32Error::ERROR_BAD_PATHNAME.code() // the events before the damage were delivered
        } else {
            ERROR_SUCCESS
        }
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
        if let Some((Source::RealTime(c), _)) = entry.source.lock().take() {
            c.close();
        }
        ERROR_SUCCESS
    }
}

/// Hands records in the time window to EventRecordCallback, then `stats` to BufferCallback.
/// A callback that panics is `ERROR_NOACCESS`; BufferCallback returning `false` is
/// `ERROR_CANCELLED` (CON-03, CON-06).
fn deliver(
    lf: &mut EventTraceLogfile,
    records: &[EventRecord],
    stats: Option<&BufferStats>,
    start_time: Option<i64>,
    end_time: Option<i64>,
) -> Result<(), u32> {
    let in_range = |r: &EventRecord| {
        start_time.is_none_or(|s| r.header.timestamp >= s)
            && end_time.is_none_or(|e| r.header.timestamp <= e)
    };
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        if let Some(cb) = lf.event_record_callback.as_mut() {
            for r in records.iter().filter(|r| in_range(r)) {
                cb(r);
            }
        }
        match (stats, lf.buffer_callback.as_mut()) {
            (Some(st), Some(cb)) => cb(st),
            _ => true,
        }
    }));
    match outcome {
        Ok(true) => Ok(()),
        Ok(false) => Err(Win32Error::ERROR_CANCELLED.code()),
        Err(_) => Err(Win32Error::ERROR_NOACCESS.code()),
    }
}
