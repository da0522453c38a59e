//! A session's settings and statistics as QUERY returns them ([`SessionProperties`]).

use crate::machine::ids::TraceHandle;
use etwsim_types::{ClockType, Guid, LogFileMode};

/// A session's settings and statistics, as QUERY and every successful control call return
/// them (SES-76).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionProperties {
    /// Session name.
    pub name: String,
    /// Session GUID (`Wnode.Guid`).
    pub guid: Guid,
    /// Session handle (`Wnode.HistoricalContext`).
    pub handle: TraceHandle,
    /// Logger id.
    pub logger_id: u16,
    /// Clock type.
    pub clock: ClockType,
    /// Current `LogFileMode`.
    pub log_file_mode: LogFileMode,
    /// Current log file.
    pub log_file: Option<String>,
    /// Effective `BufferSize` in KB.
    pub buffer_size_kb: u32,
    /// Effective `MinimumBuffers`.
    pub minimum_buffers: u32,
    /// Effective `MaximumBuffers`.
    pub maximum_buffers: u32,
    /// `MaximumFileSize`.
    pub maximum_file_size: u32,
    /// `FlushTimer` as set.
    pub flush_timer: u32,
    /// The flush period in use: 1 s for a real-time session with FlushTimer 0 (SES-63).
    pub effective_flush_timer: u32,
    /// `EnableFlags`.
    pub enable_flags: u32,
    /// `NumberOfBuffers`: buffers in the pool.
    pub number_of_buffers: u32,
    /// `FreeBuffers`: allocated but unused.
    pub free_buffers: u32,
    /// `EventsLost`.
    pub events_lost: u32,
    /// `BuffersWritten`.
    pub buffers_written: u32,
    /// `LogBuffersLost`.
    pub log_buffers_lost: u32,
    /// `RealTimeBuffersLost`.
    pub real_time_buffers_lost: u32,
    /// `LoggerThreadId`.
    pub logger_thread_id: u32,
    /// Started with PRIVATE_LOGGER_MODE.
    pub is_private: bool,
    /// A system logger (SES-13).
    pub is_system_logger: bool,
    /// The NEWFILE counter (SES-35; first file is 1).
    pub file_counter: u32,
}
