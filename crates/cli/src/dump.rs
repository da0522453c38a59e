//! `etwsim dump FILE.etl`: the file's header, then every record oldest first (the order
//! ProcessTrace delivers, CON-04) with timestamps converted to FILETIME and printed in UTC
//! (SES-65), and what each record means ([`crate::decoded`]): provider and event names,
//! fields, a manifest event's message or an `EventWriteString` event's text (as its
//! `message`, EVT-13) — or, for a record nothing describes, its payload in hex and why it
//! was not decoded.
//!
//! Three formats: aligned text for people, CSV (one row per record, RFC 4180 through the
//! `csv` crate) and JSON Lines (serde_json: a `header` object, one object per record).
//! GUIDs are lowercase in braces in all three. Files whose header cannot convert timestamps
//! (an unknown clock type, a zero PerfFreq) are read with raw timestamps, printed as numbers.
//!
//! A damaged or truncated file prints every record before the damage, then (CSV and JSON) an
//! in-band error record, then fails with one line on stderr saying where the file ends or
//! what is damaged.

use crate::decoded::{Decoded, Decoder, FileNames, fields_json, fields_text};
use crate::fmt::{ext_name, filetime_utc, printable};
use crate::input::{Clock, Damage, Input};
use crate::{Failure, Format};
use etwsim::etl::{LogfileHeader, Record, RecordKind};
use etwsim::{ClockType, Guid};
use serde::ser::{SerializeMap as _, Serializer as _};
use serde_json::{Value as Json, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `dump` was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Options {
    /// The output format.
    pub(crate) format: Format,
    /// Manifests to decode events with (DEC-16).
    pub(crate) manifests: Vec<PathBuf>,
    /// TMF files and folders to decode WPP messages with.
    pub(crate) tmf: Vec<PathBuf>,
    /// MOF files to decode classic events with.
    pub(crate) mof: Vec<PathBuf>,
    /// Also show buffer 0's records (the EventTrace header first).
    pub(crate) header_records: bool,
}

/// Payload bytes the text format shows of an undecoded event before it elides the rest.
const TEXT_PAYLOAD_BYTES: usize = 32;

/// The CSV columns.
const CSV_HEADER: [&str; 22] = [
    "time",
    "kind",
    "provider",
    "id",
    "version",
    "level",
    "opcode",
    "task",
    "keyword",
    "hook",
    "pid",
    "tid",
    "cpu",
    "payload_len",
    "ext",
    "activity_id",
    "provider_name",
    "event_name",
    "fields",
    "message",
    "payload",
    "error",
];

/// One record, flattened to the columns every format prints.
pub(crate) struct Row {
    /// FILETIME, or the raw clock value when the file cannot convert; `None` for a WPP
    /// message without a timestamp.
    pub(crate) timestamp: Option<i64>,
    pub(crate) kind: RecordKind,
    pub(crate) provider: Option<Guid>,
    pub(crate) id: Option<u16>,
    pub(crate) version: Option<u16>,
    pub(crate) level: Option<u8>,
    pub(crate) opcode: Option<u8>,
    pub(crate) task: Option<u16>,
    pub(crate) keyword: Option<u64>,
    /// `HookId` of a non-EVENT_HEADER record.
    pub(crate) hook: Option<u16>,
    pub(crate) pid: Option<u32>,
    pub(crate) tid: Option<u32>,
    pub(crate) cpu: u16,
    /// The `ActivityId` of an EVENT_HEADER event, when not zero.
    pub(crate) activity_id: Option<Guid>,
    pub(crate) payload_len: usize,
    /// (type, data bytes) of each extended item.
    pub(crate) ext: Vec<(u16, usize)>,
}

impl Row {
    pub(crate) fn new(record: &Record) -> Row {
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
                    activity_id: (h.activity_id != Guid::NULL).then_some(h.activity_id),
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
                    activity_id: None,
                    payload_len: t.payload_len(),
                    ext: Vec::new(),
                }
            }
        }
    }
}

/// A record's payload bytes.
pub(crate) fn payload(record: &Record) -> &[u8] {
    match record {
        Record::Event(e) => &e.user_data,
        Record::Trace(t) => &t.payload,
    }
}

/// `0x` and the bytes in upper-case hex, as TDH shows binary (DEC-28).
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut s = String::with_capacity(2 + 2 * bytes.len());
    s.push_str("0x");
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xF)]));
    }
    s
}

/// The output in one of the three formats.
trait Sink {
    fn header(&mut self, path: &Path, h: &LogfileHeader, clock: Clock) -> Result<(), Failure>;
    fn record(&mut self, row: &Row, decoded: &Decoded, payload: &[u8]) -> Result<(), Failure>;
    /// The end of a whole file: `events` EVENT_HEADER events among `records`.
    fn end(&mut self, records: u64, events: u64) -> Result<(), Failure>;
    /// The end of a file read up to damage: the in-band error record.
    fn damaged(&mut self, damage: &Damage) -> Result<(), Failure>;
}

pub(crate) fn run(path: &Path, options: &Options, out: &mut dyn Write) -> Result<(), Failure> {
    let mut input = Input::open(path, options.header_records, true)?;
    let decoder = Decoder::new(&options.manifests, input.header.pointer_size)?.with_classic(
        &options.tmf,
        &options.mof,
        input.clock == Clock::FileTime,
    )?;
    let clock = input.clock;
    let mut sink: Box<dyn Sink + '_> = match options.format {
        Format::Text => Box::new(Text { out, clock }),
        Format::Csv => Box::new(Csv {
            out: csv::Writer::from_writer(out),
            clock,
        }),
        Format::Json => Box::new(JsonLines {
            out,
            clock,
            buf: Vec::new(),
        }),
    };
    sink.header(path, &input.header, clock)?;
    let names = kernel_file_names(path, &input.header, &decoder);
    let mut events = 0u64;
    while let Some(item) = input.next() {
        let record = match item {
            Ok(record) => record,
            Err(damage) => {
                sink.damaged(&damage)?;
                return Err(damage.failure(path, "printed"));
            }
        };
        let row = Row::new(&record);
        if row.kind == RecordKind::Event {
            events += 1;
        }
        sink.record(
            &row,
            &decoder.decode_with_names(&record, names.as_ref()),
            payload(&record),
        )?;
    }
    input.finish();
    sink.end(input.records, events)
}

/// For a kernel session's file (the NT Kernel Logger, or a system logger): the file names its
/// FileIo events refer to, learnt in a first pass over the file. Damage ends the first pass
/// quietly: the second reports it.
fn kernel_file_names(path: &Path, h: &LogfileHeader, decoder: &Decoder) -> Option<FileNames> {
    let kernel = h
        .logger_name
        .eq_ignore_ascii_case(etwsim::KERNEL_LOGGER_NAME)
        || h.log_file_mode.contains(etwsim::LogFileMode::SYSTEM_LOGGER);
    if !kernel {
        return None;
    }
    let mut input = Input::open(path, false, false).ok()?;
    let mut traces = Vec::new();
    while let Some(Ok(record)) = input.next() {
        if let Record::Trace(t) = record {
            traces.push(t);
        }
    }
    Some(FileNames::learn(traces.iter(), decoder.pointer_size()))
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

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

/// `Provider/Event`, with `?` for a part that is not known; `None` when neither is.
fn who(d: &Decoded) -> Option<String> {
    match (&d.provider_name, &d.event_name) {
        (None, None) => None,
        (p, e) => Some(format!(
            "{}/{}",
            printable(p.as_deref().unwrap_or("?")),
            printable(e.as_deref().unwrap_or("?"))
        )),
    }
}

/// The text format: aligned columns, and under each record what it means.
struct Text<'a> {
    out: &'a mut dyn Write,
    clock: Clock,
}

impl Sink for Text<'_> {
    fn header(&mut self, path: &Path, h: &LogfileHeader, clock: Clock) -> Result<(), Failure> {
        let out = &mut self.out;
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
        writeln!(
            out,
            "    PROVIDER NAME/EVENT NAME  FIELDS (or why the payload was not decoded)"
        )?;
        Ok(())
    }

    fn record(&mut self, r: &Row, d: &Decoded, payload: &[u8]) -> Result<(), Failure> {
        let dash = |s: String| if s.is_empty() { "-".to_string() } else { s };
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
            self.out,
            "{:<28}  {:<38} {:>5} {:>3} {:>3} {:>3} {:>5} {:<18} {:>6} {:>6} {:>3} {:>5}  {last}",
            self.clock.show(r.timestamp),
            dash(opt(r.provider)),
            dash(opt(r.id)),
            dash(opt(r.version)),
            dash(opt(r.level)),
            dash(opt(r.opcode)),
            dash(opt(r.task)),
            r.keyword.map_or_else(|| "-".into(), |k| format!("{k:#x}")),
            dash(opt(r.pid)),
            dash(opt(r.tid)),
            r.cpu,
            r.payload_len,
        )?;
        let who = who(d).unwrap_or_else(|| "-".into());
        match &d.fields {
            Some(fields) => {
                let fields = fields_text(fields);
                let sep = if fields.is_empty() { "" } else { "  " };
                writeln!(self.out, "    {who}{sep}{fields}")?;
            }
            None => {
                let why = d.error.as_deref().unwrap_or("no decoder");
                writeln!(self.out, "    {who}  not decoded: {}", printable(why))?;
                let shown = &payload[..payload.len().min(TEXT_PAYLOAD_BYTES)];
                let more = if payload.len() > shown.len() {
                    format!("… ({} bytes)", payload.len())
                } else {
                    String::new()
                };
                writeln!(self.out, "    payload {}{more}", hex(shown))?;
            }
        }
        if let Some(message) = &d.message {
            writeln!(self.out, "    message: {}", printable(message))?;
        }
        Ok(())
    }

    fn end(&mut self, records: u64, events: u64) -> Result<(), Failure> {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        writeln!(
            self.out,
            "\n{}: {}, {}",
            plural(records, "record", "records"),
            plural(events, "EVENT_HEADER event", "EVENT_HEADER events"),
            plural(records - events, "other record", "other records"),
        )?;
        Ok(())
    }

    fn damaged(&mut self, damage: &Damage) -> Result<(), Failure> {
        writeln!(
            self.out,
            "\n{} records, then {}",
            damage.records,
            printable(&damage.message)
        )?;
        Ok(())
    }
}

/// The CSV format: a header row, one row per record, an `ERROR` row for damage.
struct Csv<'a> {
    out: csv::Writer<&'a mut dyn Write>,
    clock: Clock,
}

impl Csv<'_> {
    fn row(&mut self, fields: &[String]) -> Result<(), Failure> {
        self.out.write_record(fields)?;
        Ok(())
    }
}

impl Sink for Csv<'_> {
    fn header(&mut self, _: &Path, _: &LogfileHeader, _: Clock) -> Result<(), Failure> {
        self.out.write_record(CSV_HEADER)?;
        Ok(())
    }

    fn record(&mut self, r: &Row, d: &Decoded, payload: &[u8]) -> Result<(), Failure> {
        let time = match (self.clock, r.timestamp) {
            (_, None) => String::new(),
            (Clock::FileTime, Some(t)) => filetime_utc(t),
            (Clock::Raw, Some(t)) => t.to_string(),
        };
        let fields = d
            .fields
            .as_ref()
            .map_or_else(String::new, |f| Json::Object(fields_json(f)).to_string());
        let row = [
            time,
            r.kind.name().to_string(),
            opt(r.provider),
            opt(r.id),
            opt(r.version),
            opt(r.level),
            opt(r.opcode),
            opt(r.task),
            opt(r.keyword.map(|k| format!("{k:#x}"))),
            opt(r.hook.map(|h| format!("{h:#06x}"))),
            opt(r.pid),
            opt(r.tid),
            r.cpu.to_string(),
            r.payload_len.to_string(),
            r.ext
                .iter()
                .map(|&(t, _)| ext_name(t))
                .collect::<Vec<_>>()
                .join(";"),
            opt(r.activity_id),
            opt(d.provider_name.as_ref()),
            opt(d.event_name.as_ref()),
            fields,
            opt(d.message.as_ref()),
            if d.fields.is_none() {
                hex(payload)
            } else {
                String::new()
            },
            opt(d.error.as_ref()),
        ];
        self.row(&row)
    }

    fn end(&mut self, _: u64, _: u64) -> Result<(), Failure> {
        self.out.flush()?;
        Ok(())
    }

    fn damaged(&mut self, damage: &Damage) -> Result<(), Failure> {
        let mut row = vec![String::new(); CSV_HEADER.len()];
        row[1] = "ERROR".into();
        row[CSV_HEADER.len() - 1] = damage.message.clone();
        self.row(&row)?;
        self.out.flush()?;
        Ok(())
    }
}

/// JSON Lines: a `header` object, one object per record, an `error` object for damage.
struct JsonLines<'a> {
    out: &'a mut dyn Write,
    clock: Clock,
    /// A record's line, serialised here and written out whole (serde_json writes in many
    /// small pieces; through `dyn Write` each is a call).
    buf: Vec<u8>,
}

impl JsonLines<'_> {
    fn line(&mut self, value: &Json) -> Result<(), Failure> {
        serde_json::to_writer(&mut *self.out, value).map_err(std::io::Error::from)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }
}

impl Sink for JsonLines<'_> {
    fn header(&mut self, path: &Path, h: &LogfileHeader, clock: Clock) -> Result<(), Failure> {
        let clock_type = match h.clock_type() {
            Some(ClockType::Qpc) => json!("QPC"),
            Some(ClockType::SystemTime) => json!("SystemTime"),
            Some(ClockType::CpuCycle) => json!("CpuCycle"),
            None => Json::Null,
        };
        let time = |ft: i64| {
            if ft == 0 {
                Json::Null
            } else {
                json!(filetime_utc(ft))
            }
        };
        let header = json!({
            "type": "header",
            "file": path.to_string_lossy(),
            "logger": h.logger_name,
            "logger_id": h.logger_id,
            "log_file": h.log_file_name,
            "log_file_mode": h.log_file_mode.bits(),
            "buffer_size": h.buffer_size,
            "buffers_written": h.buffers_written,
            "buffers_lost": h.buffers_lost,
            "events_lost": h.events_lost,
            "clock": clock_type,
            "clock_raw": h.reserved_flags,
            "perf_freq": h.perf_freq,
            "timestamps": match clock {
                Clock::FileTime => "filetime",
                Clock::Raw => "raw",
            },
            "start_time": time(h.start_time),
            "end_time": time(h.end_time),
            "processors": h.number_of_processors,
            "pointer_size": h.pointer_size,
        });
        self.line(&header)
    }

    fn record(&mut self, r: &Row, d: &Decoded, payload: &[u8]) -> Result<(), Failure> {
        // Written field by field as it is serialised (the same object, in the same key order,
        // as building it as a `Json` map first, without the map: P16).
        let time = match (self.clock, r.timestamp) {
            (Clock::FileTime, Some(t)) => Some(filetime_utc(t)),
            _ => None,
        };
        let ext: Vec<Json> = r
            .ext
            .iter()
            .map(|&(t, len)| json!({"type": t, "name": ext_name(t), "size": len}))
            .collect();
        let guid = |g: Option<Guid>| g.map(|g| g.to_string());
        self.buf.clear();
        let mut ser = serde_json::Serializer::new(&mut self.buf);
        let mut m = ser.serialize_map(Some(24)).map_err(std::io::Error::from)?;
        let mut entries = || -> Result<(), serde_json::Error> {
            m.serialize_entry(
                "type",
                if r.kind == RecordKind::Event {
                    "event"
                } else {
                    "trace"
                },
            )?;
            m.serialize_entry("kind", r.kind.name())?;
            m.serialize_entry("time", &time)?;
            m.serialize_entry("timestamp", &r.timestamp)?;
            m.serialize_entry("provider", &guid(r.provider))?;
            m.serialize_entry("id", &r.id)?;
            m.serialize_entry("version", &r.version)?;
            m.serialize_entry("level", &r.level)?;
            m.serialize_entry("opcode", &r.opcode)?;
            m.serialize_entry("task", &r.task)?;
            m.serialize_entry("keyword", &r.keyword)?;
            m.serialize_entry("hook", &r.hook)?;
            m.serialize_entry("pid", &r.pid)?;
            m.serialize_entry("tid", &r.tid)?;
            m.serialize_entry("cpu", &r.cpu)?;
            m.serialize_entry("activity_id", &guid(r.activity_id))?;
            m.serialize_entry("payload_len", &r.payload_len)?;
            m.serialize_entry("ext", &ext)?;
            m.serialize_entry("provider_name", &d.provider_name)?;
            m.serialize_entry("event_name", &d.event_name)?;
            m.serialize_entry(
                "fields",
                &d.fields.as_ref().map(|f| Json::Object(fields_json(f))),
            )?;
            m.serialize_entry("message", &d.message)?;
            m.serialize_entry("payload", &d.fields.is_none().then(|| hex(payload)))?;
            m.serialize_entry("decode_error", &d.error)
        };
        entries().map_err(std::io::Error::from)?;
        m.end().map_err(std::io::Error::from)?;
        self.buf.push(b'\n');
        self.out.write_all(&self.buf)?;
        Ok(())
    }

    fn end(&mut self, _: u64, _: u64) -> Result<(), Failure> {
        Ok(())
    }

    fn damaged(&mut self, damage: &Damage) -> Result<(), Failure> {
        self.line(&json!({
            "type": "error",
            "error": damage.message,
            "offset": damage.offset,
            "records": damage.records,
        }))
    }
}
