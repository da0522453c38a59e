//! `etwsim dump FILE.etl`: the file's header, then one line per record, as `tracerpt` shows
//! them — oldest first (the order ProcessTrace delivers, CON-04), timestamps converted to
//! FILETIME and printed in UTC (SES-65).
//!
//! Files whose header cannot convert timestamps (an unknown clock type, a zero PerfFreq)
//! are read with raw timestamps, printed as numbers. A damaged file prints every record
//! before the damage, then fails with the damage as its one error line.

use crate::fmt::{csv_field, ext_name, filetime_utc, io_reason, json_string, printable};
use crate::{Failure, Format};
use etwsim::etl::{self, LogFile, LogfileHeader, ReadOptions, Reader, Record, RecordKind};
use etwsim::{ClockType, Guid};
use std::io::Write;
use std::path::Path;

/// One record, flattened to the columns every format prints.
struct Row {
    /// FILETIME, or the raw clock value when the file cannot convert; `None` for a WPP
    /// message without a timestamp.
    timestamp: Option<i64>,
    kind: RecordKind,
    provider: Option<Guid>,
    id: Option<u16>,
    version: Option<u16>,
    level: Option<u8>,
    opcode: Option<u8>,
    task: Option<u16>,
    keyword: Option<u64>,
    /// `HookId` of a non-EVENT_HEADER record.
    hook: Option<u16>,
    pid: Option<u32>,
    tid: Option<u32>,
    cpu: u16,
    payload_len: usize,
    /// (type, data bytes) of each extended item.
    ext: Vec<(u16, usize)>,
}

impl Row {
    fn new(record: &Record) -> Row {
        let cpu = record.buffer_context().processor_index;
        match record {
            Record::Event(e) => {
                let h = &e.header;
                let d = &h.descriptor;
                Row {
                    timestamp: Some(h.timestamp),
                    kind: RecordKind::Event,
                    provider: Some(h.provider_id),
                    id: Some(d.id),
                    version: Some(u16::from(d.version)),
                    level: Some(d.level.0),
                    opcode: Some(d.opcode.0),
                    task: Some(d.task.0),
                    keyword: Some(d.keyword.0),
                    hook: None,
                    pid: Some(h.process_id),
                    tid: Some(h.thread_id),
                    cpu,
                    payload_len: e.user_data.len(),
                    ext: e
                        .extended_data
                        .iter()
                        .map(|i| (i.ext_type, i.data.len()))
                        .collect(),
                }
            }
            Record::Trace(t) => {
                let classic = matches!(
                    t.kind(),
                    Some(RecordKind::Classic | RecordKind::InstanceGuid)
                );
                Row {
                    timestamp: t.timestamp,
                    kind: t.kind().unwrap_or(RecordKind::System),
                    provider: t.guid,
                    id: None,
                    version: Some(t.version),
                    level: classic.then_some(t.level),
                    opcode: classic.then(|| t.event_type()),
                    task: None,
                    keyword: None,
                    hook: Some(t.hook_id),
                    pid: t.process_id,
                    tid: t.thread_id,
                    cpu,
                    payload_len: t.payload_len(),
                    ext: Vec::new(),
                }
            }
        }
    }
}

/// How the file's timestamps are shown.
#[derive(Copy, Clone)]
enum Clock {
    /// Converted to FILETIME: shown as UTC dates.
    FileTime,
    /// The header cannot convert: raw values.
    Raw,
}

impl Clock {
    fn show(self, ts: Option<i64>) -> String {
        match (self, ts) {
            (_, None) => "-".into(),
            (Clock::FileTime, Some(t)) => filetime_utc(t),
            (Clock::Raw, Some(t)) => format!("raw {t}"),
        }
    }
}

pub(crate) fn run(path: &Path, format: Format, out: &mut dyn Write) -> Result<(), Failure> {
    let name = path.display();
    if path.is_dir() {
        return Err(Failure::failed(format!(
            "cannot read {name}: it is a folder, not an .etl file"
        )));
    }
    let file = LogFile::open(path).map_err(|e| open_failure(path, &e))?;
    let header = file.header().clone();
    let clock = if header.to_filetime(header.start_raw).is_some() {
        Clock::FileTime
    } else {
        Clock::Raw
    };
    let options = ReadOptions {
        raw_timestamps: matches!(clock, Clock::Raw),
        header_records: false,
    };
    let reader = Reader::new(vec![file], options).map_err(|e| open_failure(path, &e))?;

    match format {
        Format::Text => text_header(out, path, &header, clock)?,
        Format::Csv => writeln!(
            out,
            "time,kind,provider,id,version,level,opcode,task,keyword,hook,pid,tid,cpu,payload_len,ext"
        )?,
        Format::Json => json_header(out, path, &header, clock)?,
    }
    let (mut events, mut others) = (0u64, 0u64);
    for item in reader {
        let record = match item {
            Ok(record) => record,
            Err(e) => {
                return Err(Failure::failed(format!(
                    "cannot read {name}: the file is damaged after {} records: {}",
                    events + others,
                    inner(&e)
                )));
            }
        };
        let row = Row::new(&record);
        if row.kind == RecordKind::Event {
            events += 1;
        } else {
            others += 1;
        }
        match format {
            Format::Text => text_row(out, &row, clock)?,
            Format::Csv => csv_row(out, &row, clock)?,
            Format::Json => json_row(out, &row, clock)?,
        }
    }
    if format == Format::Text {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        writeln!(
            out,
            "\n{}: {}, {}",
            plural(events + others, "record", "records"),
            plural(events, "EVENT_HEADER event", "EVENT_HEADER events"),
            plural(others, "other record", "other records"),
        )?;
    }
    Ok(())
}

/// The message of an error inside a file, without the file's name (the caller says it).
fn inner(e: &etl::Error) -> String {
    match e {
        etl::Error::InFile { error, .. } => inner(error),
        etl::Error::Io { error, .. } => io_reason(error),
        e => e.to_string(),
    }
}

/// Why a file could not be opened, as one phrase.
fn open_failure(path: &Path, e: &etl::Error) -> Failure {
    let name = path.display();
    match e {
        etl::Error::Io { error, .. } => {
            Failure::failed(format!("cannot read {name}: {}", io_reason(error)))
        }
        // Buffer 0 or its logfile header is unusable (damage further on does not fail the
        // open): whatever the file is, it is not a readable .etl file.
        etl::Error::InFile { .. } => Failure::failed(format!(
            "cannot read {name}: not a valid .etl file ({})",
            inner(e)
        )),
        e => Failure::failed(format!("cannot read {name}: {}", inner(e))),
    }
}

fn clock_name(h: &LogfileHeader) -> String {
    match h.clock_type() {
        Some(ClockType::Qpc) => format!("QPC, {} ticks per second", h.perf_freq),
        Some(ClockType::SystemTime) => "system time (FILETIME)".into(),
        Some(ClockType::CpuCycle) => format!("CPU cycle counter, {} MHz", h.cpu_speed_mhz),
        None => format!(
            "unknown clock type {} (timestamps shown raw)",
            h.reserved_flags
        ),
    }
}

fn mode_names(h: &LogfileHeader) -> String {
    let names: Vec<&str> = h.log_file_mode.iter_names().map(|(n, _)| n).collect();
    if names.is_empty() {
        format!("{:#x}", h.log_file_mode.bits())
    } else {
        format!("{} ({:#x})", names.join(" | "), h.log_file_mode.bits())
    }
}

/// A header time: 0 means the writer never recorded it (EndTime of a file not closed).
fn header_time(ft: i64) -> String {
    if ft == 0 {
        "- (not recorded)".into()
    } else {
        filetime_utc(ft)
    }
}

fn text_header(
    out: &mut dyn Write,
    path: &Path,
    h: &LogfileHeader,
    clock: Clock,
) -> Result<(), Failure> {
    let kb = if h.buffer_size % 1024 == 0 {
        format!("{} KB", h.buffer_size / 1024)
    } else {
        format!("{} bytes", h.buffer_size)
    };
    writeln!(out, "file         {}", path.display())?;
    writeln!(
        out,
        "logger       {} (logger id {})",
        printable(&h.logger_name),
        h.logger_id
    )?;
    writeln!(out, "log file     {}", printable(&h.log_file_name))?;
    writeln!(out, "mode         {}", mode_names(h))?;
    writeln!(out, "buffer size  {kb}")?;
    writeln!(
        out,
        "buffers      {} written (BuffersWritten, the header buffer included), {} lost (BuffersLost)",
        h.buffers_written, h.buffers_lost
    )?;
    writeln!(out, "events lost  {} (EventsLost)", h.events_lost)?;
    writeln!(out, "clock        {}", clock_name(h))?;
    writeln!(out, "start        {}", header_time(h.start_time))?;
    writeln!(out, "end          {}", header_time(h.end_time))?;
    writeln!(out, "processors   {}", h.number_of_processors)?;
    writeln!(out)?;
    let time = match clock {
        Clock::FileTime => "TIME (UTC)",
        Clock::Raw => "TIME (raw clock)",
    };
    writeln!(
        out,
        "{time:<28}  {:<38} {:>5} {:>3} {:>3} {:>3} {:>5} {:<18} {:>6} {:>6} {:>3} {:>5}  EXTENDED ITEMS / RECORD KIND",
        "PROVIDER", "ID", "VER", "LVL", "OPC", "TASK", "KEYWORD", "PID", "TID", "CPU", "LEN"
    )?;
    Ok(())
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

fn text_row(out: &mut dyn Write, r: &Row, clock: Clock) -> Result<(), Failure> {
    let last = match r.hook {
        None if r.ext.is_empty() => "-".to_string(),
        None => r
            .ext
            .iter()
            .map(|&(t, _)| ext_name(t))
            .collect::<Vec<_>>()
            .join(","),
        Some(hook) => format!("{} hook {hook:#06x}", r.kind.name()),
    };
    writeln!(
        out,
        "{:<28}  {:<38} {:>5} {:>3} {:>3} {:>3} {:>5} {:<18} {:>6} {:>6} {:>3} {:>5}  {last}",
        clock.show(r.timestamp),
        opt(r.provider),
        opt(r.id),
        opt(r.version),
        opt(r.level),
        opt(r.opcode),
        opt(r.task),
        r.keyword.map_or_else(|| "-".into(), |k| format!("{k:#x}")),
        opt(r.pid),
        opt(r.tid),
        r.cpu,
        r.payload_len,
    )?;
    Ok(())
}

fn csv_row(out: &mut dyn Write, r: &Row, clock: Clock) -> Result<(), Failure> {
    let o = |v: Option<String>| v.unwrap_or_default();
    let time = match (clock, r.timestamp) {
        (_, None) => String::new(),
        (Clock::FileTime, Some(t)) => filetime_utc(t),
        (Clock::Raw, Some(t)) => t.to_string(),
    };
    let fields = [
        time,
        r.kind.name().to_string(),
        o(r.provider.map(|g| g.to_string())),
        o(r.id.map(|v| v.to_string())),
        o(r.version.map(|v| v.to_string())),
        o(r.level.map(|v| v.to_string())),
        o(r.opcode.map(|v| v.to_string())),
        o(r.task.map(|v| v.to_string())),
        o(r.keyword.map(|k| format!("{k:#x}"))),
        o(r.hook.map(|h| format!("{h:#06x}"))),
        o(r.pid.map(|v| v.to_string())),
        o(r.tid.map(|v| v.to_string())),
        r.cpu.to_string(),
        r.payload_len.to_string(),
        r.ext
            .iter()
            .map(|&(t, _)| ext_name(t))
            .collect::<Vec<_>>()
            .join(";"),
    ];
    let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
    writeln!(out, "{}", line.join(","))?;
    Ok(())
}

/// A JSON number or `null`.
fn jnum<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "null".into(), |v| v.to_string())
}

fn json_header(
    out: &mut dyn Write,
    path: &Path,
    h: &LogfileHeader,
    clock: Clock,
) -> Result<(), Failure> {
    let clock_type = match h.clock_type() {
        Some(ClockType::Qpc) => json_string("QPC"),
        Some(ClockType::SystemTime) => json_string("SystemTime"),
        Some(ClockType::CpuCycle) => json_string("CpuCycle"),
        None => "null".into(),
    };
    let time = |ft: i64| {
        if ft == 0 {
            "null".into()
        } else {
            json_string(&filetime_utc(ft))
        }
    };
    writeln!(
        out,
        "{{\"type\":\"header\",\"file\":{},\"logger\":{},\"logger_id\":{},\"log_file\":{},\
         \"log_file_mode\":{},\"buffer_size\":{},\"buffers_written\":{},\"buffers_lost\":{},\
         \"events_lost\":{},\"clock\":{clock_type},\"clock_raw\":{},\"perf_freq\":{},\
         \"timestamps\":{},\"start_time\":{},\"end_time\":{},\"processors\":{}}}",
        json_string(&path.to_string_lossy()),
        json_string(&h.logger_name),
        h.logger_id,
        json_string(&h.log_file_name),
        h.log_file_mode.bits(),
        h.buffer_size,
        h.buffers_written,
        h.buffers_lost,
        h.events_lost,
        h.reserved_flags,
        h.perf_freq,
        json_string(match clock {
            Clock::FileTime => "filetime",
            Clock::Raw => "raw",
        }),
        time(h.start_time),
        time(h.end_time),
        h.number_of_processors,
    )?;
    Ok(())
}

fn json_row(out: &mut dyn Write, r: &Row, clock: Clock) -> Result<(), Failure> {
    let time = match (clock, r.timestamp) {
        (Clock::FileTime, Some(t)) => json_string(&filetime_utc(t)),
        _ => "null".into(),
    };
    let ext: Vec<String> = r
        .ext
        .iter()
        .map(|&(t, len)| {
            format!(
                "{{\"type\":{t},\"name\":{},\"size\":{len}}}",
                json_string(&ext_name(t))
            )
        })
        .collect();
    let provider = r.provider.map_or_else(
        || "null".into(),
        |g| json_string(g.to_string().trim_matches(['{', '}'])),
    );
    writeln!(
        out,
        "{{\"type\":{},\"kind\":{},\"time\":{time},\"timestamp\":{},\"provider\":{provider},\
         \"id\":{},\"version\":{},\"level\":{},\"opcode\":{},\"task\":{},\"keyword\":{},\
         \"hook\":{},\"pid\":{},\"tid\":{},\"cpu\":{},\"payload_len\":{},\"ext\":[{}]}}",
        json_string(if r.kind == RecordKind::Event {
            "event"
        } else {
            "trace"
        }),
        json_string(r.kind.name()),
        jnum(r.timestamp),
        jnum(r.id),
        jnum(r.version),
        jnum(r.level),
        jnum(r.opcode),
        jnum(r.task),
        jnum(r.keyword),
        jnum(r.hook),
        jnum(r.pid),
        jnum(r.tid),
        r.cpu,
        r.payload_len,
        ext.join(","),
    )?;
    Ok(())
}
