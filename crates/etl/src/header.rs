//! Buffer 0: the logfile header (format reference §3, §8; BUF-17, SES-64, SES-65).
//!
//! Buffer 0 of every file holds only header records: first the `EventTrace/Header` record —
//! a `SYSTEM_TRACE_HEADER` (marker `02 00 02 C0`, HookId 0x0000) whose `SystemTime` is the
//! raw clock at `StartTime`, then the 0x118-byte 64-bit `TRACE_LOGFILE_HEADER` (4 padding
//! bytes at 0xF4 before `BootTime`), then the logger and log-file names as NUL-terminated
//! UTF-16 — and optionally the PartitionInfoExtension record (HookId 0x0050, 48 bytes).
//! A 32-bit header (HeaderType 0x01) has 4-byte name slots, so everything from `TimeZone`
//! on sits 8 bytes earlier; it is read, never written.
//!
//! Timestamps convert to FILETIME by anchoring the header record's raw `SystemTime` to
//! `StartTime` and scaling by the clock (SES-65):
//! `FILETIME = StartTime + (raw − anchor) × 10⁷ / PerfFreq` for QPC,
//! `raw` itself for system time, `StartTime + (raw − anchor) × 10 / CpuSpeedInMHz` for CPU
//! cycles.

use crate::bytes::{Bytes, PutLe, patch_i64, patch_u32, utf16z};
use crate::error::{Error, Result};
use crate::view::{RecordView, frame};
use etwsim_types::record::{
    BUFFER_HEADER_SIZE, BufferHeader, CPU_SPEED_MHZ, QPC_FREQUENCY, TRACE_HEADER_MARKER, align8,
    buffer_flags, buffer_type, header_type,
};
use etwsim_types::{BufferContext, ClockType, LogFileMode};

/// `sizeof(TRACE_LOGFILE_HEADER)` in 64-bit files.
pub const LOGFILE_HEADER_SIZE: usize = 0x118;
/// `sizeof(SYSTEM_TRACE_HEADER)`.
pub const SYSTEM_TRACE_HEADER_SIZE: usize = 0x20;
/// File offset of the `TRACE_LOGFILE_HEADER` in buffer 0.
pub const LOGFILE_HEADER_OFFSET: usize = BUFFER_HEADER_SIZE + SYSTEM_TRACE_HEADER_SIZE;
/// HookId of the `EventTrace/Header` record.
pub const HOOK_HEADER: u16 = 0x0000;
/// HookId of the PartitionInfoExtension record.
pub const HOOK_PARTITION_INFO: u16 = 0x0050;
/// Bytes of data in the PartitionInfoExtension record.
pub const PARTITION_INFO_SIZE: usize = 48;
/// `TRACE_LOGFILE_HEADER.Version` of Windows 10 files: bytes `0A 00 01 05`.
pub const WINDOWS_10_VERSION: u32 = 0x0501_000A;
/// The smallest `BufferSize` this crate reads or writes.
pub const MIN_BUFFER_SIZE: u32 = 1024;
/// The largest `BufferSize` this crate reads or writes (16 MiB, the kernel's maximum).
pub const MAX_BUFFER_SIZE: u32 = 16 * 1024 * 1024;
const TIME_ZONE_SIZE: usize = 172;

/// `TIME_ZONE_INFORMATION` as stored in the logfile header: 172 bytes (`i32 Bias`,
/// `WCHAR StandardName[32]`, `SYSTEMTIME StandardDate`, `i32 StandardBias`,
/// `WCHAR DaylightName[32]`, `SYSTEMTIME DaylightDate`, `i32 DaylightBias`).
#[doc(alias = "TIME_ZONE_INFORMATION")]
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct TimeZoneInformation(pub [u8; TIME_ZONE_SIZE]);

impl TimeZoneInformation {
    /// All zeros: UTC, no names.
    pub const UTC: TimeZoneInformation = TimeZoneInformation([0; TIME_ZONE_SIZE]);

    /// `Bias` in minutes (UTC = local time + bias).
    pub fn bias(&self) -> i32 {
        i32::from_le_bytes([self.0[0], self.0[1], self.0[2], self.0[3]])
    }

    /// `StandardName`.
    pub fn standard_name(&self) -> String {
        utf16z(&self.0[4..68]).0
    }

    /// `DaylightName`.
    pub fn daylight_name(&self) -> String {
        utf16z(&self.0[88..152]).0
    }
}

impl Default for TimeZoneInformation {
    fn default() -> Self {
        TimeZoneInformation::UTC
    }
}

impl std::fmt::Debug for TimeZoneInformation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimeZoneInformation")
            .field("bias", &self.bias())
            .field("standard_name", &self.standard_name())
            .field("daylight_name", &self.daylight_name())
            .finish()
    }
}

/// `TRACE_LOGFILE_HEADER` plus what buffer 0 carries around it (BUF-17).
///
/// Field names follow the Windows structure; the last block comes from the
/// `EventTrace/Header` record's `SYSTEM_TRACE_HEADER` and from buffer 0's own header.
#[doc(alias = "TRACE_LOGFILE_HEADER")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogfileHeader {
    /// `BufferSize` in bytes: the stride of every buffer in the file.
    pub buffer_size: u32,
    /// `Version`: major, minor, sub-version, sub-minor bytes ([`WINDOWS_10_VERSION`]).
    pub version: u32,
    /// `ProviderVersion`: the OS build number.
    pub provider_version: u32,
    /// `NumberOfProcessors`: ≥ 1 + the highest ProcessorIndex in the file.
    pub number_of_processors: u32,
    /// `EndTime` (FILETIME), rewritten when the session stops.
    pub end_time: i64,
    /// `TimerResolution` in 100-ns units.
    pub timer_resolution: u32,
    /// `MaximumFileSize` as the session gave it (MB, or KB with USE_KBYTES_FOR_SIZE).
    pub maximum_file_size: u32,
    /// `LogFileMode`.
    pub log_file_mode: LogFileMode,
    /// `BuffersWritten`: buffers in the file including buffer 0.
    pub buffers_written: u32,
    /// `StartBuffers`.
    pub start_buffers: u32,
    /// `PointerSize`: 8 (4 in files from 32-bit systems).
    pub pointer_size: u32,
    /// `EventsLost`.
    pub events_lost: u32,
    /// `CpuSpeedInMHz`.
    pub cpu_speed_mhz: u32,
    /// `TimeZone`.
    pub time_zone: TimeZoneInformation,
    /// `BootTime` (FILETIME).
    pub boot_time: i64,
    /// `PerfFreq`: QPC ticks per second.
    pub perf_freq: i64,
    /// `StartTime` (FILETIME): the instant of [`start_raw`](Self::start_raw).
    pub start_time: i64,
    /// `ReservedFlags`: the clock type (1 QPC, 2 system time, 3 CPU cycles).
    pub reserved_flags: u32,
    /// `BuffersLost`.
    pub buffers_lost: u32,
    /// `LoggerName`: the session's name.
    pub logger_name: String,
    /// `LogFileName`: the file's name as the session gave it.
    pub log_file_name: String,
    /// The header record's `SystemTime`: the raw clock value at `StartTime`.
    pub start_raw: i64,
    /// The header record's `ThreadId` (the writer's thread).
    pub thread_id: u32,
    /// The header record's `ProcessId` (the writer's process).
    pub process_id: u32,
    /// Buffer 0's `ClientContext.LoggerId`.
    pub logger_id: u16,
    /// The PartitionInfoExtension record's data, when buffer 0 has one.
    pub partition_info: Option<Vec<u8>>,
}

impl Default for LogfileHeader {
    /// The values the format reference marks required, for a 64 KiB-buffer QPC session
    /// that starts at raw 0 and FILETIME 0.
    fn default() -> Self {
        LogfileHeader {
            buffer_size: 64 * 1024,
            version: WINDOWS_10_VERSION,
            provider_version: 19041,
            number_of_processors: 1,
            end_time: 0,
            timer_resolution: 156_250,
            maximum_file_size: 0,
            log_file_mode: LogFileMode::SEQUENTIAL,
            buffers_written: 1,
            start_buffers: 1,
            pointer_size: 8,
            events_lost: 0,
            cpu_speed_mhz: CPU_SPEED_MHZ as u32,
            time_zone: TimeZoneInformation::UTC,
            boot_time: 0,
            perf_freq: QPC_FREQUENCY as i64,
            start_time: 0,
            reserved_flags: ClockType::Qpc.raw(),
            buffers_lost: 0,
            logger_name: String::new(),
            log_file_name: String::new(),
            start_raw: 0,
            thread_id: 0,
            process_id: 0,
            logger_id: 0,
            partition_info: Some(vec![0; PARTITION_INFO_SIZE]),
        }
    }
}

/// Where the fields a writer rewrites at close sit in buffer 0, per pointer size.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Layout {
    ptr: usize,
}

impl Layout {
    pub(crate) const X64: Layout = Layout { ptr: 8 };
    const X86: Layout = Layout { ptr: 4 };

    fn time_zone(self) -> usize {
        0x38 + 2 * self.ptr
    }
    fn boot_time(self) -> usize {
        align8(self.time_zone() + TIME_ZONE_SIZE)
    }
    fn size(self) -> usize {
        self.boot_time() + 0x20
    }
    /// Absolute offsets in buffer 0 of NumberOfProcessors, EndTime, BuffersWritten,
    /// EventsLost and BuffersLost.
    pub(crate) fn patch(self, buf0: &mut [u8], s: &HeaderStats) {
        let at = LOGFILE_HEADER_OFFSET;
        patch_u32(buf0, at + 0x0C, s.number_of_processors);
        patch_i64(buf0, at + 0x10, s.end_time);
        patch_u32(buf0, at + 0x24, s.buffers_written);
        patch_u32(buf0, at + 0x30, s.events_lost);
        patch_u32(buf0, at + self.boot_time() + 0x1C, s.buffers_lost);
    }
}

/// The header fields a writer rewrites when a file is finished.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderStats {
    pub(crate) number_of_processors: u32,
    pub(crate) end_time: i64,
    pub(crate) buffers_written: u32,
    pub(crate) events_lost: u32,
    pub(crate) buffers_lost: u32,
}

impl LogfileHeader {
    /// The clock type `ReservedFlags` names (0 is read as QPC, SES-64); `None` for values
    /// that name no clock.
    pub fn clock_type(&self) -> Option<ClockType> {
        ClockType::from_raw(self.reserved_flags)
    }

    /// Converts a raw timestamp of this file to FILETIME (SES-65), anchored on
    /// [`start_raw`](Self::start_raw) ↔ [`start_time`](Self::start_time). `None` when the
    /// header cannot convert: an unknown clock type, or a zero `PerfFreq` / `CpuSpeedInMHz`
    /// for the clock that needs it.
    pub fn to_filetime(&self, raw: i64) -> Option<i64> {
        let per_second = match self.clock_type()? {
            ClockType::SystemTime => return Some(raw),
            ClockType::Qpc => i128::from(self.perf_freq),
            ClockType::CpuCycle => i128::from(self.cpu_speed_mhz) * 1_000_000,
        };
        if per_second <= 0 {
            return None;
        }
        // In 64 bits when nothing overflows (every timestamp of a session shorter than
        // ~29 years at 10 MHz): the same value as the 128-bit path below, without a
        // software 128-bit division per record.
        if let (Ok(per_second), Some(delta)) =
            (i64::try_from(per_second), raw.checked_sub(self.start_raw))
        {
            let ticks = delta
                .checked_mul(10_000_000)
                .map(|d| d.div_euclid(per_second));
            if let Some(t) = ticks.and_then(|t| self.start_time.checked_add(t)) {
                return Some(t);
            }
        }
        let delta = i128::from(raw) - i128::from(self.start_raw);
        let ticks = (delta * 10_000_000).div_euclid(per_second);
        let t = i128::from(self.start_time) + ticks;
        Some(t.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
    }

    /// Encodes buffer 0: `buffer_size` bytes holding the header record, the
    /// PartitionInfoExtension record when [`partition_info`](Self::partition_info) is set,
    /// and a 0xFF-filled tail (format reference §3). Always the 64-bit layout.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when `buffer_size` is outside
    /// [`MIN_BUFFER_SIZE`]`..=`[`MAX_BUFFER_SIZE`] or not a multiple of 8, or the names or
    /// partition data do not fit in one record / the buffer.
    pub fn encode_buffer(&self) -> Result<Vec<u8>> {
        check_buffer_size(self.buffer_size)?;
        let mut rec = Vec::with_capacity(0x200);
        // SYSTEM_TRACE_HEADER: Version 2, SYSTEM64, 0xC0; Size patched below.
        rec.put_u16(2);
        rec.push(header_type::SYSTEM64);
        rec.push(TRACE_HEADER_MARKER);
        rec.put_u16(0);
        rec.put_u16(HOOK_HEADER);
        rec.put_u32(self.thread_id);
        rec.put_u32(self.process_id);
        rec.put_i64(self.start_raw);
        rec.put_u32(0);
        rec.put_u32(0);
        // TRACE_LOGFILE_HEADER, 64-bit.
        rec.put_u32(self.buffer_size);
        rec.put_u32(self.version);
        rec.put_u32(self.provider_version);
        rec.put_u32(self.number_of_processors);
        rec.put_i64(self.end_time);
        rec.put_u32(self.timer_resolution);
        rec.put_u32(self.maximum_file_size);
        rec.put_u32(self.log_file_mode.bits());
        rec.put_u32(self.buffers_written);
        rec.put_u32(self.start_buffers);
        rec.put_u32(self.pointer_size);
        rec.put_u32(self.events_lost);
        rec.put_u32(self.cpu_speed_mhz);
        rec.put_u64(0); // LoggerName slot: not a pointer in files
        rec.put_u64(0); // LogFileName slot
        rec.extend_from_slice(&self.time_zone.0);
        rec.put_u32(0); // alignment padding at 0xF4
        rec.put_i64(self.boot_time);
        rec.put_i64(self.perf_freq);
        rec.put_i64(self.start_time);
        rec.put_u32(self.reserved_flags);
        rec.put_u32(self.buffers_lost);
        debug_assert_eq!(rec.len(), SYSTEM_TRACE_HEADER_SIZE + LOGFILE_HEADER_SIZE);
        for name in [&self.logger_name, &self.log_file_name] {
            for u in name.encode_utf16().chain([0]) {
                rec.put_u16(u);
            }
        }
        let size = u16::try_from(rec.len()).map_err(|_| {
            Error::InvalidOption(format!(
                "the logger and log-file names make a {}-byte header record (at most 65,535)",
                rec.len()
            ))
        })?;
        rec[4..6].copy_from_slice(&size.to_le_bytes());
        rec.resize(align8(rec.len()), 0);
        if let Some(p) = &self.partition_info {
            let size = SYSTEM_TRACE_HEADER_SIZE + p.len();
            let size = u16::try_from(size).map_err(|_| {
                Error::InvalidOption(format!("{} bytes of partition info", p.len()))
            })?;
            rec.put_u16(2);
            rec.push(header_type::SYSTEM64);
            rec.push(TRACE_HEADER_MARKER);
            rec.put_u16(size);
            rec.put_u16(HOOK_PARTITION_INFO);
            rec.put_u32(self.thread_id);
            rec.put_u32(self.process_id);
            rec.put_i64(self.start_raw);
            rec.put_u64(0);
            rec.extend_from_slice(p);
            rec.resize(align8(rec.len()), 0);
        }
        let used = BUFFER_HEADER_SIZE + rec.len();
        if used > self.buffer_size as usize {
            return Err(Error::InvalidOption(format!(
                "the header records take {used} bytes, more than BufferSize {}",
                self.buffer_size
            )));
        }
        let head = BufferHeader {
            buffer_size: self.buffer_size,
            used: used as u32,
            timestamp: 0,
            sequence: 0,
            processor: 0,
            logger_id: self.logger_id,
            flags: buffer_flags::FLUSH_MARKER | buffer_flags::PROC_INDEX,
            buffer_type: buffer_type::HEADER,
        };
        let mut out = Vec::with_capacity(self.buffer_size as usize);
        out.extend_from_slice(&head.encode());
        out.extend_from_slice(&rec);
        out.resize(self.buffer_size as usize, 0xFF);
        Ok(out)
    }

    /// Decodes buffer 0 (at least its used bytes; `base` is its file offset, 0 for a file).
    /// Its `BufferSize` is the logfile header's, except in a compressed file
    /// (`LogFileMode` COMPRESSED), whose buffer 0 may be shorter; the decoded
    /// [`buffer_size`](Self::buffer_size) is the session's either way.
    ///
    /// Reads the 64-bit and the 32-bit layout. Names that are absent read as empty. Records
    /// after the header record are scanned for the PartitionInfoExtension record; the scan
    /// stops quietly at anything it cannot decode (the reader reports such damage itself).
    ///
    /// # Errors
    /// [`Error::Truncated`] / [`Error::Corrupt`] when buffer 0's header or the header record
    /// is missing or malformed, or `BufferSize` is out of range.
    pub fn decode_buffer(b: &[u8], base: u64) -> Result<LogfileHeader> {
        let b = Bytes::new(b, base);
        let buffer_size = b.u32(0, "buffer 0 BufferSize")?;
        let bad_size = |size: u32| {
            Error::corrupt(
                "buffer 0",
                base,
                format!(
                    "BufferSize {size:#x} is not a multiple of 8 in \
                     {MIN_BUFFER_SIZE:#x}..={MAX_BUFFER_SIZE:#x}"
                ),
            )
        };
        // A compressed file's buffer 0 is shorter than the session's BufferSize (checked
        // below, once the logfile header says which file this is).
        if !(BUFFER_HEADER_SIZE as u32..=MAX_BUFFER_SIZE).contains(&buffer_size) {
            return Err(bad_size(buffer_size));
        }
        let used = b.u32(0x30, "buffer 0 Offset")? as usize;
        if used < BUFFER_HEADER_SIZE || used > buffer_size as usize {
            return Err(Error::corrupt(
                "buffer 0",
                base,
                format!("Offset {used:#x} outside 0x48..={buffer_size:#x}"),
            ));
        }
        let logger_id = b.u16(0x2A, "buffer 0 LoggerId")?;
        let region = b.head(used);
        let r = region.tail(BUFFER_HEADER_SIZE);
        let what = "logfile header record";
        let htype = r.u8(2, what)?;
        let marker = r.u8(3, what)?;
        let layout = match (htype, marker) {
            (header_type::SYSTEM64, TRACE_HEADER_MARKER) => Layout::X64,
            (header_type::SYSTEM32, TRACE_HEADER_MARKER) => Layout::X86,
            _ => {
                return Err(Error::corrupt(
                    what,
                    r.offset(0),
                    format!(
                        "marker bytes {htype:02x} {marker:02x}: not a SYSTEM_TRACE_HEADER \
                         (expected 02 C0)"
                    ),
                ));
            }
        };
        let size = usize::from(r.u16(4, "logfile header record Size")?);
        let hook = r.u16(6, "logfile header record HookId")?;
        if hook != HOOK_HEADER {
            return Err(Error::corrupt(
                what,
                r.offset(0),
                format!("HookId {hook:#06x} is not EventTrace/Header (0x0000)"),
            ));
        }
        let body_len = layout.size();
        if size < SYSTEM_TRACE_HEADER_SIZE + body_len || size > r.len() {
            return Err(Error::corrupt(
                what,
                r.offset(0),
                format!(
                    "Size {size} does not hold the {}-byte TRACE_LOGFILE_HEADER within the \
                     buffer's {} used bytes",
                    body_len,
                    r.len()
                ),
            ));
        }
        let h = r.tail(SYSTEM_TRACE_HEADER_SIZE);
        let w = "TRACE_LOGFILE_HEADER";
        let boot = layout.boot_time();
        let mut tz = [0u8; TIME_ZONE_SIZE];
        tz.copy_from_slice(h.slice(layout.time_zone(), TIME_ZONE_SIZE, w)?);
        let names = h.slice(body_len, size - SYSTEM_TRACE_HEADER_SIZE - body_len, w)?;
        let (logger_name, n) = utf16z(names);
        let (log_file_name, _) = utf16z(&names[n..]);
        let file_buffer_size = h.u32(0, w)?;
        let log_file_mode = LogFileMode::from_bits_retain(h.u32(0x20, w)?);
        // Compressed files (EVENT_TRACE_COMPRESSED_MODE) trim buffer 0 to its used bytes
        // rounded up; every other file's buffer 0 is the session's BufferSize.
        let trimmed =
            log_file_mode.contains(LogFileMode::COMPRESSED) && buffer_size < file_buffer_size;
        if file_buffer_size != buffer_size && !trimmed {
            return Err(Error::corrupt(
                w,
                h.offset(0),
                format!(
                    "BufferSize {file_buffer_size:#x} differs from buffer 0's {buffer_size:#x}"
                ),
            ));
        }
        if check_buffer_size(file_buffer_size).is_err() {
            return Err(if trimmed {
                Error::corrupt(
                    w,
                    h.offset(0),
                    format!(
                        "BufferSize {file_buffer_size:#x} is not a multiple of 8 in \
                         {MIN_BUFFER_SIZE:#x}..={MAX_BUFFER_SIZE:#x}"
                    ),
                )
            } else {
                bad_size(buffer_size)
            });
        }
        let mut header = LogfileHeader {
            buffer_size: file_buffer_size,
            version: h.u32(0x04, w)?,
            provider_version: h.u32(0x08, w)?,
            number_of_processors: h.u32(0x0C, w)?,
            end_time: h.i64(0x10, w)?,
            timer_resolution: h.u32(0x18, w)?,
            maximum_file_size: h.u32(0x1C, w)?,
            log_file_mode,
            buffers_written: h.u32(0x24, w)?,
            start_buffers: h.u32(0x28, w)?,
            pointer_size: h.u32(0x2C, w)?,
            events_lost: h.u32(0x30, w)?,
            cpu_speed_mhz: h.u32(0x34, w)?,
            time_zone: TimeZoneInformation(tz),
            boot_time: h.i64(boot, w)?,
            perf_freq: h.i64(boot + 0x08, w)?,
            start_time: h.i64(boot + 0x10, w)?,
            reserved_flags: h.u32(boot + 0x18, w)?,
            buffers_lost: h.u32(boot + 0x1C, w)?,
            logger_name,
            log_file_name,
            start_raw: r.i64(0x10, "logfile header SystemTime")?,
            thread_id: r.u32(0x08, "logfile header ThreadId")?,
            process_id: r.u32(0x0C, "logfile header ProcessId")?,
            logger_id,
            partition_info: None,
        };
        let mut at = align8(size).min(r.len());
        while at < r.len() {
            match frame(r.tail(at)) {
                Ok(Some(f)) => {
                    if let RecordView::Trace(t) = f.view(BufferContext::default()) {
                        if t.hook_id == HOOK_PARTITION_INFO && t.group() == 0 {
                            header.partition_info = Some(t.payload.to_vec());
                            break;
                        }
                    }
                    at += f.used;
                }
                Ok(None) | Err(_) => break,
            }
        }
        Ok(header)
    }

    pub(crate) fn layout_of(buf0: &[u8]) -> Layout {
        match buf0.get(BUFFER_HEADER_SIZE + 2) {
            Some(&header_type::SYSTEM32) => Layout::X86,
            _ => Layout::X64,
        }
    }
}

pub(crate) fn check_buffer_size(size: u32) -> Result<()> {
    if !(MIN_BUFFER_SIZE..=MAX_BUFFER_SIZE).contains(&size) || size % 8 != 0 {
        return Err(Error::InvalidOption(format!(
            "BufferSize {size} is not a multiple of 8 in {MIN_BUFFER_SIZE}..={MAX_BUFFER_SIZE}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> LogfileHeader {
        LogfileHeader {
            buffer_size: 8192,
            number_of_processors: 4,
            end_time: 133_000_000_000_000_500,
            log_file_mode: LogFileMode::CIRCULAR | LogFileMode::USE_KBYTES_FOR_SIZE,
            maximum_file_size: 64,
            buffers_written: 3,
            events_lost: 2,
            boot_time: 132_999_000_000_000_000,
            start_time: 133_000_000_000_000_000,
            start_raw: 5_000,
            buffers_lost: 1,
            logger_name: "Session ü".into(),
            log_file_name: r"C:\logs\x.etl".into(),
            thread_id: 10,
            process_id: 20,
            logger_id: 0x20,
            ..LogfileHeader::default()
        }
    }

    #[test]
    fn header_buffer_round_trips_with_the_documented_offsets() {
        // rule: BUF-17
        let h = sample();
        let b = h.encode_buffer().unwrap();
        assert_eq!(b.len(), 8192);
        assert_eq!(&b[0x48..0x4C], &[0x02, 0x00, 0x02, 0xC0]);
        let body = &b[LOGFILE_HEADER_OFFSET..];
        assert_eq!(&body[0x04..0x08], &[0x0A, 0x00, 0x01, 0x05]);
        assert_eq!(&body[0xF4..0xF8], &[0, 0, 0, 0]);
        assert_eq!(
            i64::from_le_bytes(body[0x100..0x108].try_into().unwrap()),
            10_000_000
        );
        assert_eq!(
            u32::from_le_bytes(body[0x110..0x114].try_into().unwrap()),
            1
        );
        assert_eq!(
            u32::from_le_bytes(body[0x114..0x118].try_into().unwrap()),
            1
        );
        let used = u32::from_le_bytes(b[0x30..0x34].try_into().unwrap()) as usize;
        assert_eq!(used % 8, 0);
        assert_eq!(&b[4..8], &b[0x30..0x34]);
        assert!(b[used..].iter().all(|&x| x == 0xFF));
        assert_eq!(LogfileHeader::decode_buffer(&b, 0).unwrap(), h);
        let no_partition = LogfileHeader {
            partition_info: None,
            ..h
        };
        let b = no_partition.encode_buffer().unwrap();
        assert_eq!(LogfileHeader::decode_buffer(&b, 0).unwrap(), no_partition);
    }

    #[test]
    fn stats_patch_lands_on_the_fields() {
        let h = sample();
        let mut b = h.encode_buffer().unwrap();
        let s = HeaderStats {
            number_of_processors: 9,
            end_time: 7,
            buffers_written: 11,
            events_lost: 12,
            buffers_lost: 13,
        };
        LogfileHeader::layout_of(&b).patch(&mut b, &s);
        let d = LogfileHeader::decode_buffer(&b, 0).unwrap();
        assert_eq!(
            (
                d.number_of_processors,
                d.end_time,
                d.buffers_written,
                d.events_lost,
                d.buffers_lost
            ),
            (9, 7, 11, 12, 13)
        );
    }

    #[test]
    fn the_32_bit_layout_reads_with_its_shorter_name_slots() {
        // A 64-bit buffer rebuilt as a 32-bit logger writes it: 4-byte name slots, so
        // TimeZone at 0x40 and BootTime at 0xF0 (4 padding bytes after TimeZone).
        let h = LogfileHeader {
            partition_info: None,
            pointer_size: 4,
            ..sample()
        };
        let b64 = h.encode_buffer().unwrap();
        let size64 = usize::from(u16::from_le_bytes([b64[0x4C], b64[0x4D]]));
        let body = &b64[LOGFILE_HEADER_OFFSET..BUFFER_HEADER_SIZE + size64];
        let mut rec = b64[BUFFER_HEADER_SIZE..LOGFILE_HEADER_OFFSET].to_vec();
        rec[2] = header_type::SYSTEM32;
        rec.extend_from_slice(&body[..0x38]);
        rec.extend_from_slice(&[0; 8]);
        rec.extend_from_slice(&body[0x48..0xF4]);
        rec.extend_from_slice(&[0; 4]);
        rec.extend_from_slice(&body[0xF8..]);
        let size = rec.len() as u16;
        rec[4..6].copy_from_slice(&size.to_le_bytes());
        rec.resize(align8(rec.len()), 0);
        let mut b = BufferHeader {
            buffer_size: h.buffer_size,
            used: (BUFFER_HEADER_SIZE + rec.len()) as u32,
            logger_id: h.logger_id,
            ..BufferHeader::default()
        }
        .encode()
        .to_vec();
        b.extend_from_slice(&rec);
        b.resize(h.buffer_size as usize, 0xFF);
        assert_eq!(LogfileHeader::decode_buffer(&b, 0).unwrap(), h);
        let s = HeaderStats {
            number_of_processors: 2,
            end_time: 3,
            buffers_written: 4,
            events_lost: 5,
            buffers_lost: 6,
        };
        LogfileHeader::layout_of(&b).patch(&mut b, &s);
        let d = LogfileHeader::decode_buffer(&b, 0).unwrap();
        assert_eq!(
            (d.buffers_lost, d.buffers_written, d.start_time),
            (6, 4, h.start_time)
        );
    }

    #[test]
    fn timestamps_convert_per_clock_type() {
        // rule: SES-65
        let mut h = sample();
        assert_eq!(h.to_filetime(5_000), Some(h.start_time));
        assert_eq!(h.to_filetime(5_010), Some(h.start_time + 10));
        assert_eq!(h.to_filetime(4_990), Some(h.start_time - 10));
        h.perf_freq = 1_000_000; // 1 MHz: one tick is 10 FILETIME units
        assert_eq!(h.to_filetime(5_001), Some(h.start_time + 10));
        h.perf_freq = 0;
        assert_eq!(h.to_filetime(1), None);
        h.reserved_flags = 2;
        assert_eq!(h.to_filetime(42), Some(42));
        h.reserved_flags = 3; // 3000 cycles per µs: 300 cycles per 100 ns
        assert_eq!(h.to_filetime(5_000 + 3_000), Some(h.start_time + 10));
        h.reserved_flags = 9;
        assert_eq!(h.to_filetime(1), None);
    }

    #[test]
    fn the_64_bit_shortcut_converts_as_the_128_bit_formula() {
        // rule: SES-65 — FILETIME = StartTime + (raw − anchor) × 10⁷ / PerfFreq, rounded
        // down, clamped to i64; checked where 64 bits overflow and where they do not.
        let reference = |h: &LogfileHeader, raw: i64, per_second: i128| {
            let delta = i128::from(raw) - i128::from(h.start_raw);
            let t = i128::from(h.start_time) + (delta * 10_000_000).div_euclid(per_second);
            t.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
        };
        let mut h = sample();
        let raws = [
            i64::MIN,
            i64::MIN + 1,
            -7,
            0,
            1,
            4_999,
            5_000,
            5_001,
            922_337_203_685,
            922_337_203_686,
            i64::MAX / 10_000_000,
            i64::MAX / 10_000_000 + 1,
            i64::MAX - 1,
            i64::MAX,
        ];
        for (clock, per_second) in [(1u32, 10_000_000i64), (1, 3), (1, i64::MAX), (3, 0)] {
            h.reserved_flags = clock;
            h.perf_freq = per_second;
            h.cpu_speed_mhz = 3_000;
            let per_second = match clock {
                3 => 3_000_000_000,
                _ => i128::from(per_second),
            };
            for start_time in [h.start_time, i64::MAX - 5, i64::MIN + 5] {
                h.start_time = start_time;
                for &raw in &raws {
                    assert_eq!(
                        h.to_filetime(raw),
                        Some(reference(&h, raw, per_second)),
                        "clock {clock}, raw {raw}, start {start_time}"
                    );
                }
            }
        }
    }
    #[test]
    fn damaged_header_buffers_are_errors() {
        let b = sample().encode_buffer().unwrap();
        for cut in [0, 10, 0x47, 0x60, 0x100, 0x17F] {
            assert!(LogfileHeader::decode_buffer(&b[..cut], 0).is_err(), "{cut}");
        }
        let mut bad = b.clone();
        bad[0x48 + 6] = 1; // HookId
        let e = LogfileHeader::decode_buffer(&bad, 0).unwrap_err();
        assert!(e.to_string().contains("HookId"), "{e}");
        assert!(matches!(
            LogfileHeader {
                buffer_size: 1000,
                ..sample()
            }
            .encode_buffer(),
            Err(Error::InvalidOption(_))
        ));
    }
}
