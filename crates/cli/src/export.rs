//! `etwsim export --format chrome FILE.etl [-o OUT]`: Chrome trace-event JSON, the format
//! Perfetto (ui.perfetto.dev) and chrome://tracing load ("Trace Event Format", the JSON
//! object form: `{"traceEvents": [...], "displayTimeUnit": ..., "otherData": {...}}`).
//!
//! * **Tracks**: one per process (`pid`) and thread (`tid`), each named by a metadata event
//!   (`ph: "M"`, `process_name` / `thread_name`): the image name when the file has a kernel
//!   `Process` event for it, else `pid N` / `tid N`. Records without a process or thread
//!   (perfinfo records) get 0xFFFFFFFF, as ProcessTrace gives them (KRN-15).
//! * **Slices**: an event with opcode 1 (`win:Start`) opens one, the next event with opcode 2
//!   (`win:Stop`) of the same activity closes it — matched by `ActivityId` when the start
//!   has one, else by provider, process, thread and task. A pair becomes one complete event
//!   (`ph: "X"`, `dur`) on the start's track, named after the start event, with the start's
//!   fields as `args` and the stop's under `args.stop`. A start never stopped stays open
//!   (`ph: "B"` without an end: "did not end"); a stop without its start is an instant.
//! * **Instants**: every other event (`ph: "i"`, thread scope), named `Provider/Event`, with
//!   its decoded fields (or its payload in hex and why it was not decoded) as `args`, and
//!   its message — a manifest event's, or an `EventWriteString` event's text (EVT-13) — as
//!   `args.message`.
//! * **Lost events**: `RT_LostEvent` records (BUF-14) and the header's `EventsLost` /
//!   `BuffersLost` counts are global instants in category `lost`, coloured `terrible`.
//! * **Times**: microseconds since the first record (`ts`, `dur`), from the file's FILETIME
//!   timestamps (100 ns, so one decimal).
//!
//! A damaged file exports the records before the damage, then a global instant in category
//! `error` and `otherData.error` naming the damage, and the command fails with one line.

use crate::decoded::{Decoded, Decoder, fields_json};
use crate::dump::{Row, hex, payload};
use crate::fmt::io_reason;
use crate::input::{Clock, Damage, Input};
use crate::{ExportFormat, Failure};
use etwsim::Guid;
use etwsim::etl::Record;
use serde_json::{Map, Value as Json, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What `export` was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Options {
    /// The output format (Chrome trace-event JSON is the one there is).
    pub(crate) format: ExportFormat,
    /// The file to write; standard output when `None`.
    pub(crate) output: Option<PathBuf>,
    /// Manifests to decode events with (DEC-16).
    pub(crate) manifests: Vec<PathBuf>,
    /// TMF files and folders to decode WPP messages with.
    pub(crate) tmf: Vec<PathBuf>,
    /// MOF files to decode classic events with.
    pub(crate) mof: Vec<PathBuf>,
}

/// `ProcessId` / `ThreadId` of a record that has none (KRN-15).
const NO_ID: u32 = u32::MAX;

pub(crate) fn run(path: &Path, options: &Options, stdout: &mut dyn Write) -> Result<(), Failure> {
    let ExportFormat::Chrome = options.format;
    if let Some(out) = &options.output {
        // Nothing is written over an input (issue 33): the .etl file, a manifest, a TMF or
        // MOF file named by the command.
        let inputs: Vec<&Path> = std::iter::once(path)
            .chain(options.manifests.iter().map(PathBuf::as_path))
            .chain(options.tmf.iter().map(PathBuf::as_path))
            .chain(options.mof.iter().map(PathBuf::as_path))
            .collect();
        etwsim_scenario::files::refuse_overwrite(out, &inputs)
            .map_err(|e| Failure::failed(e.to_string()))?;
    }
    let mut input = Input::open(path, false, options.output.is_none())?;
    let decoder = Decoder::new(&options.manifests, input.header.pointer_size)?.with_classic(
        &options.tmf,
        &options.mof,
        input.clock == Clock::FileTime,
    )?;
    let damage = match &options.output {
        None => chrome(path, &mut input, &decoder, stdout)?,
        Some(out) => {
            let failed = |e: &io::Error| {
                Failure::failed(format!("cannot write {}: {}", out.display(), io_reason(e)))
            };
            // Written whole or not at all: a temporary file beside OUT, renamed into place
            // (a damaged input's export is whole too: it ends with the damage's marker).
            let file = etwsim_scenario::files::AtomicFile::create(out).map_err(|e| failed(&e))?;
            let mut w = io::BufWriter::new(file);
            let damage = chrome(path, &mut input, &decoder, &mut w).map_err(|e| failed(&e))?;
            let file = w.into_inner().map_err(|e| failed(e.error()))?;
            file.commit().map_err(|e| failed(&e))?;
            damage
        }
    };
    match damage {
        Some(d) => Err(d.failure(path, "exported")),
        None => Ok(()),
    }
}

/// A start waiting for its stop.
struct Open {
    ts: f64,
    pid: u32,
    tid: u32,
    name: String,
    cat: String,
    args: Map<String, Json>,
}

/// What pairs a start with its stop.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum PairKey {
    Activity(Guid),
    Thread {
        provider: Guid,
        pid: u32,
        tid: u32,
        task: u16,
    },
}

/// The JSON array's writer: events separated by commas, one per line.
struct Events<'a> {
    out: &'a mut dyn Write,
    count: u64,
}

impl Events<'_> {
    fn push(&mut self, event: &Json) -> io::Result<()> {
        self.out
            .write_all(if self.count == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *self.out, event)?;
        self.count += 1;
        Ok(())
    }
}

/// Writes the whole trace; returns the damage that ended the file early, if any.
fn chrome(
    path: &Path,
    input: &mut Input,
    decoder: &Decoder,
    out: &mut dyn Write,
) -> io::Result<Option<Damage>> {
    out.write_all(b"{\"traceEvents\":[")?;
    let mut events = Events { out, count: 0 };
    // Timestamp units per microsecond: FILETIME counts 100 ns; a raw clock is shown in its
    // ticks. (Dividing keeps whole microseconds exact.)
    let per_us = match input.clock {
        Clock::FileTime => 10.0,
        Clock::Raw => 1.0,
    };
    let mut first: Option<i64> = None;
    let mut last_ts = 0.0f64;
    let mut open: HashMap<PairKey, Vec<Open>> = HashMap::new();
    let mut tracks: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let mut process_names: BTreeMap<u32, String> = BTreeMap::new();
    let mut damage = None;

    while let Some(item) = input.next() {
        let record = match item {
            Ok(r) => r,
            Err(d) => {
                damage = Some(d);
                break;
            }
        };
        let row = Row::new(&record);
        let decoded = decoder.decode(&record);
        let ts = match row.timestamp {
            Some(t) => {
                let t0 = *first.get_or_insert(t);
                (t - t0) as f64 / per_us
            }
            None => last_ts,
        };
        last_ts = last_ts.max(ts);
        let pid = row.pid.unwrap_or(NO_ID);
        let tid = row.tid.unwrap_or(NO_ID);
        tracks.entry(pid).or_default().insert(tid);
        if let Some((p, image)) = process_name(&decoded) {
            process_names.insert(p, image);
        }
        let cat = category(&row, &decoded);
        let name = event_name(&row, &decoded);
        let mut args = event_args(&decoded, payload(&record));

        if decoded.is_lost() {
            let name = format!("events lost ({name})");
            events.push(&instant(name, "lost", ts, (pid, tid), args, true))?;
            continue;
        }
        let (opcode, task) = match &record {
            Record::Event(e) => (e.header.descriptor.opcode.0, e.header.descriptor.task.0),
            Record::Trace(_) => (0, 0),
        };
        let key = match (row.activity_id, row.provider) {
            (Some(a), _) => Some(PairKey::Activity(a)),
            (None, Some(provider)) => Some(PairKey::Thread {
                provider,
                pid,
                tid,
                task,
            }),
            (None, None) => None,
        };
        match (opcode, key) {
            (1, Some(key)) => {
                if let PairKey::Activity(a) = &key {
                    args.insert("activity_id".into(), json!(a.to_string()));
                }
                open.entry(key).or_default().push(Open {
                    ts,
                    pid,
                    tid,
                    name,
                    cat,
                    args,
                });
            }
            (2, Some(key)) => match open.get_mut(&key).and_then(Vec::pop) {
                Some(start) => {
                    let mut slice_args = start.args;
                    if !args.is_empty() {
                        slice_args.insert("stop".into(), Json::Object(args));
                    }
                    events.push(&json!({
                        "name": start.name,
                        "cat": start.cat,
                        "ph": "X",
                        "ts": start.ts,
                        "dur": ts - start.ts,
                        "pid": start.pid,
                        "tid": start.tid,
                        "args": slice_args,
                    }))?;
                }
                None => {
                    let name = format!("{name} (stop without a start)");
                    events.push(&instant(name, &cat, ts, (pid, tid), args, false))?;
                }
            },
            _ => events.push(&instant(name, &cat, ts, (pid, tid), args, false))?,
        }
    }
    input.finish();

    // Starts never stopped: open slices, in the order they started.
    let mut unfinished: Vec<Open> = open.into_values().flatten().collect();
    unfinished.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    for start in unfinished {
        events.push(&json!({
            "name": start.name,
            "cat": start.cat,
            "ph": "B",
            "ts": start.ts,
            "pid": start.pid,
            "tid": start.tid,
            "args": start.args,
        }))?;
    }
    let h = &input.header;
    for (count, what) in [
        (h.events_lost, "EventsLost"),
        (h.buffers_lost, "BuffersLost"),
    ] {
        if count > 0 {
            let name = format!("{what} {count} (the file header's count)");
            let args = Map::from_iter([(what.to_string(), json!(count))]);
            events.push(&instant(name, "lost", last_ts, (0, 0), args, true))?;
        }
    }
    if let Some(d) = &damage {
        let args = Map::from_iter([
            ("offset".to_string(), json!(d.offset)),
            ("records_before".to_string(), json!(d.records)),
        ]);
        let name = d.message.clone();
        events.push(&instant(name, "error", last_ts, (0, 0), args, true))?;
    }
    for (pid, tids) in &tracks {
        let name = process_names
            .get(pid)
            .cloned()
            .unwrap_or_else(|| format!("pid {pid}"));
        events.push(&json!({
            "name": "process_name", "ph": "M", "pid": pid, "tid": 0,
            "args": { "name": name },
        }))?;
        for tid in tids {
            events.push(&json!({
                "name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                "args": { "name": format!("tid {tid}") },
            }))?;
        }
    }
    let other = json!({
        "source": "etwsim export",
        "file": path.to_string_lossy(),
        "logger": h.logger_name,
        "timestamps": match input.clock {
            Clock::FileTime => "microseconds since the first record",
            Clock::Raw => "raw clock ticks since the first record",
        },
        "events_lost": h.events_lost,
        "buffers_lost": h.buffers_lost,
        "error": damage.as_ref().map(|d| d.message.clone()),
    });
    write!(
        events.out,
        "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{other}}}\n"
    )?;
    Ok(damage)
}

/// An instant event (`ph: "i"`) on a thread's track; `marked` makes it global and coloured
/// `terrible` (loss, damage).
fn instant(
    name: String,
    cat: &str,
    ts: f64,
    (pid, tid): (u32, u32),
    args: Map<String, Json>,
    marked: bool,
) -> Json {
    let mut e = json!({
        "name": name,
        "cat": cat,
        "ph": "i",
        "s": "t",
        "ts": ts,
        "pid": pid,
        "tid": tid,
        "args": args,
    });
    if marked {
        e["s"] = json!("g");
        e["cname"] = json!("terrible");
    }
    e
}

/// The category: the provider's name, else its GUID.
fn category(row: &Row, d: &Decoded) -> String {
    match (&d.provider_name, row.provider, row.hook) {
        (Some(name), _, _) => name.clone(),
        (None, Some(g), _) => g.to_string(),
        (None, None, Some(hook)) => format!("hook {hook:#06x}"),
        (None, None, None) => "unknown".into(),
    }
}

/// An event's name on the timeline: the decoded event name, else its id.
fn event_name(row: &Row, d: &Decoded) -> String {
    match (&d.event_name, row.id, row.hook) {
        (Some(name), _, _) => name.clone(),
        (None, Some(id), _) => format!("event {id}"),
        (None, None, Some(hook)) => format!("hook {hook:#06x}"),
        (None, None, None) => "record".into(),
    }
}

/// An event's `args`: its fields and message, or its payload and why it was not decoded.
fn event_args(d: &Decoded, payload: &[u8]) -> Map<String, Json> {
    let mut args = match &d.fields {
        Some(fields) => fields_json(fields),
        None => {
            let mut m = Map::new();
            m.insert("payload".into(), json!(hex(payload)));
            if let Some(e) = &d.error {
                m.insert("decode_error".into(), json!(e));
            }
            m
        }
    };
    if let Some(message) = &d.message {
        args.insert("message".into(), json!(message));
    }
    args
}

/// (pid, image name) from a kernel `Process` event (KRN-16…): `ProcessId`, `ImageFileName`.
fn process_name(d: &Decoded) -> Option<(u32, String)> {
    use crate::decoded::Shown;
    if d.provider_name.as_deref() != Some("Process") {
        return None;
    }
    let pid = match d.field("ProcessId")? {
        Shown::Num(n) => u32::try_from(n.as_u64()?).ok()?,
        _ => return None,
    };
    match d.field("ImageFileName")? {
        Shown::Str(s) if !s.is_empty() => Some((pid, s.clone())),
        _ => None,
    }
}
