//! The page of an `.etl` file: the file read as a stream, each record's detail rows (decoded
//! by TraceLogging, a manifest or the kernel's MOF classes), each buffer's flush time and
//! flags from its header, and where a damaged file stops.

use super::html::render;
use super::{
    Counters, MAX_MARKED_EVENTS, Mark, MarkKind, Page, SessionLanes, descriptor_rows, hex_preview,
    level_text, manifest_rows,
};
use crate::error::Error;
use etwsim::etl::{self, LogFile, LogfileHeader, Record};
use etwsim::record::{buffer_flags, filetime_utc};
use etwsim_decode::manifest::Manifest;
use std::fmt::Write as _;
use std::path::Path;

/// Where an `.etl` file stops being readable, judged as `etwsim dump` judges it: the
/// `.etl` reader's first damage (a truncated file, a bad buffer header, an undecodable
/// record, fewer buffers than the header's `BuffersWritten`), after the records before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtlDamage {
    /// What is wrong, as a sentence: `the file is truncated: it ends at byte 5000 (0x1388),
    /// …` or `the file is damaged: …`.
    pub message: String,
    /// The file offset of the damage (for a truncated file, its end), when known.
    pub offset: Option<u64>,
    /// Records read (and shown) before it.
    pub records: u64,
}

impl std::fmt::Display for EtlDamage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match self.records {
            0 => f.write_str("; no record could be read before it"),
            1 => f.write_str("; the 1 record before it is shown"),
            n => write!(f, "; the {n} records before it are shown"),
        }
    }
}

/// Buffers whose flush, first record and EVENTS_LOST flag an `.etl` page marks one by one;
/// a larger file's later buffers are only counted.
pub const MAX_MARKED_BUFFERS: usize = 20_000;

/// The page of an `.etl` file (see the module docs); `manifests` decode the events of the
/// providers they describe. The file is read as a stream — the `.etl` reader's memory, one
/// buffer per CPU — and at most [`MAX_MARKED_EVENTS`] events and [`MAX_MARKED_BUFFERS`]
/// buffers are kept for the page, which says how many more there were. A damaged or
/// truncated file's page shows what was read and marks where it stops ([`write_report`]
/// also returns the [`EtlDamage`]).
///
/// [`write_report`]: super::write_report
///
/// # Errors
/// [`Error::Io`] / [`Error::Etl`] if the file cannot be opened as an `.etl` file at all.
pub fn etl_html(path: &Path, manifests: &[Manifest]) -> Result<String, Error> {
    let (page, _) = etl_file_page(path, manifests)?;
    Ok(render(&page))
}

/// [`etl_html`] for a file's bytes; `label` names it.
///
/// # Errors
/// [`Error::Etl`] if the bytes are not an `.etl` file.
pub fn etl_bytes_html(
    label: &Path,
    bytes: Vec<u8>,
    manifests: &[Manifest],
) -> Result<String, Error> {
    let (page, _) = etl_bytes_page(label, bytes, manifests)?;
    Ok(render(&page))
}

/// Where the page reads buffer headers from (for each buffer's flush time and flags).
enum BufferHeaders {
    /// The file, one positioned read of a header per buffer.
    File(std::fs::File),
    /// The headers of an in-memory file's whole buffers, by index.
    Table(Vec<Option<etwsim::record::BufferHeader>>),
    /// A file whose buffers are not at fixed strides (compressed mode): none.
    None,
}

impl BufferHeaders {
    /// The header of buffer `index`, if it is where a fixed-stride file keeps it and looks
    /// like the buffer of `cpu` the reader read.
    fn get(&mut self, index: u32, stride: u32, cpu: u16) -> Option<etwsim::record::BufferHeader> {
        let h = match self {
            BufferHeaders::File(f) => {
                let mut raw = [0u8; etwsim::record::BUFFER_HEADER_SIZE];
                read_at(f, u64::from(index) * u64::from(stride), &mut raw).ok()?;
                etwsim::record::BufferHeader::decode(&raw)?
            }
            BufferHeaders::Table(t) => (*t.get(index as usize)?)?,
            BufferHeaders::None => return None,
        };
        (h.buffer_size == stride && h.processor == cpu).then_some(h)
    }
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(not(unix))]
fn read_at(mut f: &std::fs::File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

pub(super) fn etl_file_page(
    path: &Path,
    manifests: &[Manifest],
) -> Result<(Page, Option<EtlDamage>), Error> {
    let err = |source| Error::Etl {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        return Err(Error::Io {
            what: "cannot read",
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "it is a folder, not an .etl file",
            ),
        });
    }
    let file = LogFile::open(path).map_err(err)?;
    let headers = match std::fs::File::open(path) {
        Ok(f) => BufferHeaders::File(f),
        Err(_) => BufferHeaders::None,
    };
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    etl_page(path, file, len, headers, manifests)
}

fn etl_bytes_page(
    label: &Path,
    bytes: Vec<u8>,
    manifests: &[Manifest],
) -> Result<(Page, Option<EtlDamage>), Error> {
    let len = bytes.len() as u64;
    let stride = bytes
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let table = if stride >= etwsim::record::BUFFER_HEADER_SIZE {
        bytes
            .chunks_exact(stride)
            .map(etwsim::record::BufferHeader::decode)
            .collect()
    } else {
        Vec::new()
    };
    let file = LogFile::from_bytes(label, bytes).map_err(|source| Error::Etl {
        path: label.to_path_buf(),
        source,
    })?;
    etl_page(label, file, len, BufferHeaders::Table(table), manifests)
}

/// The innermost `.etl` error: without the file's name (the page names it).
fn inner_etl_error(e: &etl::Error) -> &etl::Error {
    match e {
        etl::Error::InFile { error, .. } => inner_etl_error(error),
        e => e,
    }
}

/// What a reader error means for a file of `len` bytes, `records` records in: the same
/// judgement and the same words as `etwsim dump`'s.
fn etl_damage(e: &etl::Error, h: &LogfileHeader, len: u64, records: u64) -> EtlDamage {
    let stride = u64::from(h.buffer_size).max(1);
    let at = |n: u64| format!("{n} ({n:#x})");
    match inner_etl_error(e) {
        etl::Error::Truncated {
            what,
            offset,
            needed,
            available,
        } if offset.saturating_add(*needed) > len => EtlDamage {
            message: if *what == "the buffers BuffersWritten counts" {
                format!(
                    "the file is truncated: it ends at byte {} after {} whole buffers of {stride} \
                     bytes, but its header counts {} written (BuffersWritten)",
                    at(len),
                    len / stride,
                    h.buffers_written
                )
            } else {
                format!(
                    "the file is truncated: it ends at byte {}, {available} bytes into buffer {} \
                     (buffers are {stride} bytes; this one starts at {offset:#x})",
                    at(len),
                    offset / stride,
                )
            },
            offset: Some(len),
            records,
        },
        inner => EtlDamage {
            message: format!("the file is damaged: {inner}"),
            offset: e.offset(),
            records,
        },
    }
}

fn etl_page(
    label: &Path,
    file: LogFile,
    len: u64,
    mut headers: BufferHeaders,
    manifests: &[Manifest],
) -> Result<(Page, Option<EtlDamage>), Error> {
    let h: LogfileHeader = file.header().clone();
    let stride = h.buffer_size;
    if h.log_file_mode.contains(etwsim::LogFileMode::COMPRESSED) {
        headers = BufferHeaders::None;
    }
    let ptr = if h.pointer_size == 4 { 4 } else { 8 };
    let mut page = Page {
        title: format!("etwsim .etl report: {}", label.display()),
        subtitle: format!(
            "logger {:?}, {} buffers of {} bytes, {} processors",
            h.logger_name,
            file.buffer_count(),
            h.buffer_size,
            h.number_of_processors
        ),
        sessions: vec![SessionLanes {
            name: if h.logger_name.is_empty() {
                "(unnamed logger)".into()
            } else {
                h.logger_name.clone()
            },
            cpus: Vec::new(),
        }],
        ..Page::default()
    };
    // Timestamps as 100 ns units: FILETIME when the header converts, else the raw clock.
    let conv = |raw: i64| -> i64 { h.to_filetime(raw).unwrap_or(raw) };
    let options = etl::ReadOptions {
        raw_timestamps: true,
        header_records: false,
    };
    let mut reader = etl::Reader::new(vec![file], options).map_err(|source| Error::Etl {
        path: label.to_path_buf(),
        source,
    })?;
    let mut raw_marks: Vec<(Option<u16>, i64, MarkKind, String)> = Vec::new();
    let (mut events, mut records, mut buffers) = (0u64, 0u64, 0u64);
    let mut cpus: Vec<u16> = Vec::new();
    // Per CPU: the buffer its last record came from (each CPU's buffers come in order).
    let mut current: Vec<(u16, u32)> = Vec::new();
    let mut last_time: Option<i64> = None;
    let mut damage = None;
    while let Some(next) = reader.next_positioned() {
        let (pos, r) = match next {
            Ok(x) => x,
            Err(e) => {
                damage = Some(etl_damage(&e, &h, len, records));
                break;
            }
        };
        records += 1;
        if matches!(r, Record::Event(_)) {
            events += 1;
        }
        let cpu = r.buffer_context().processor_index;
        if !cpus.contains(&cpu) {
            cpus.push(cpu);
        }
        let ts = r.timestamp().map(conv);
        let new_buffer = match current.iter_mut().find(|(c, _)| *c == cpu) {
            Some((_, b)) if *b == pos.buffer => false,
            Some((_, b)) => {
                *b = pos.buffer;
                true
            }
            None => {
                current.push((cpu, pos.buffer));
                true
            }
        };
        let bh = new_buffer
            .then(|| headers.get(pos.buffer, stride, cpu))
            .flatten();
        if new_buffer {
            buffers += 1;
        }
        if new_buffer && (buffers as usize) <= MAX_MARKED_BUFFERS {
            let i = pos.buffer;
            if let Some(bh) = bh {
                raw_marks.push((
                    Some(cpu),
                    conv(bh.timestamp),
                    MarkKind::Flush,
                    format!(
                        "buffer {i} (sequence {}), CPU {cpu}: {} of {} bytes used, flags {:#x}",
                        bh.sequence, bh.used, bh.buffer_size, bh.flags
                    ),
                ));
                if bh.flags & buffer_flags::EVENTS_LOST != 0 {
                    raw_marks.push((
                        Some(cpu),
                        conv(bh.timestamp),
                        MarkKind::Loss,
                        format!("buffer {i} has the EVENTS_LOST flag: the session lost events before it (BUF-15)"),
                    ));
                }
            }
            if let Some(t) = ts {
                raw_marks.push((Some(cpu), t, MarkKind::Switch, format!("buffer {i} begins")));
            }
        }
        let flush_time = bh.map(|b| conv(b.timestamp));
        if let Some(t) = ts.or(flush_time) {
            last_time = Some(last_time.map_or(t, |l| l.max(t)));
        }
        if page.details.len() >= MAX_MARKED_EVENTS {
            continue;
        }
        let (ts, rows, lost) = record_rows(&r, ptr, manifests, &conv);
        let detail = page.details.len();
        page.details.push(rows);
        let kind = if lost {
            MarkKind::LostEvent(detail)
        } else {
            MarkKind::Event(detail)
        };
        let time = ts.or(flush_time).or(last_time).unwrap_or(0);
        raw_marks.push((Some(cpu), time, kind, String::new()));
    }
    if records as usize > page.details.len() {
        page.notes.push(format!(
            "the timeline shows the first {} of {records} records; {} are left out",
            page.details.len(),
            records - page.details.len() as u64
        ));
    }
    if buffers as usize > MAX_MARKED_BUFFERS {
        page.notes.push(format!(
            "the timeline marks the first {MAX_MARKED_BUFFERS} of {buffers} buffers"
        ));
    }
    if let Some(d) = &damage {
        page.damage = Some(format!("{}: {d}", label.display()));
        let where_ = d
            .offset
            .map_or_else(String::new, |o| format!(" at offset {o} ({o:#x})"));
        raw_marks.push((
            None,
            last_time.unwrap_or(0),
            MarkKind::Loss,
            format!(
                "the file stops here{where_}, after {} records: {}",
                d.records, d.message
            ),
        ));
    }
    cpus.sort_unstable();
    page.sessions[0].cpus = cpus;
    let first = raw_marks.iter().map(|m| m.1).min().unwrap_or(0);
    let last = raw_marks.iter().map(|m| m.1).max().unwrap_or(first);
    page.start = 0;
    page.end = u64::try_from(last.saturating_sub(first))
        .unwrap_or(0)
        .max(1);
    if h.to_filetime(h.start_raw).is_some() {
        let _ = write!(
            page.subtitle,
            "; the timeline starts at {}",
            filetime_utc(first)
        );
    } else {
        page.subtitle
            .push_str("; the header cannot convert timestamps: the timeline is in raw clock units");
    }
    page.marks = raw_marks
        .into_iter()
        .map(|(cpu, t, kind, title)| Mark {
            session: 0,
            cpu,
            time: u64::try_from(t.saturating_sub(first)).unwrap_or(0),
            kind,
            title,
        })
        .collect();
    page.counters = vec![Counters {
        session: page.sessions[0].name.clone(),
        events: Some(events),
        events_lost: Some(u64::from(h.events_lost)),
        buffers_written: Some(u64::from(h.buffers_written)),
        log_buffers_lost: Some(u64::from(h.buffers_lost)),
        real_time_buffers_lost: None,
    }];
    page.slots_note = "An .etl file does not record which sessions enabled which providers: the enable slots are known only to the kernel that ran (a scenario report shows them).".into();
    Ok((page, damage))
}

/// A record's timestamp (100 ns units), detail rows, and whether it is a lost-event record.
fn record_rows(
    r: &Record,
    ptr: u8,
    manifests: &[Manifest],
    conv: &dyn Fn(i64) -> i64,
) -> (Option<i64>, Vec<(String, String)>, bool) {
    let mut rows = Vec::new();
    match r {
        Record::Event(e) => {
            let h = &e.header;
            let ts = conv(h.timestamp);
            rows.push(("provider".into(), h.provider_id.to_string()));
            descriptor_rows(&h.descriptor, &mut rows);
            rows.push(("pid".into(), h.process_id.to_string()));
            rows.push(("tid".into(), h.thread_id.to_string()));
            rows.push(("cpu".into(), e.buffer_context.processor_index.to_string()));
            rows.push(("time".into(), filetime_utc(ts)));
            rows.push((
                "payload".into(),
                format!("{} bytes: {}", e.user_data.len(), hex_preview(&e.user_data)),
            ));
            let lost = e.is_lost_event_marker();
            if lost {
                rows.push((
                    "lost".into(),
                    "an RT_LostEvent record: events or buffers were lost here (BUF-14)".into(),
                ));
            }
            let mut decoded = false;
            if h.flags & etwsim::record::header_flags::STRING_ONLY != 0 {
                // An EventWriteString event is its text (EVT-13), before any schema.
                decoded = true;
                rows.push((
                    "message".into(),
                    etwsim_decode::fields::string_only_text(&e.user_data),
                ));
            } else if let Some(result) = etwsim_decode::tracelogging::decode_record(e) {
                decoded = true;
                match result {
                    Ok(d) => {
                        rows.push(("event".into(), d.name.clone()));
                        if let Some(p) = &d.provider_name {
                            rows.push(("provider name".into(), p.clone()));
                        }
                        for f in &d.fields {
                            rows.push(("field".into(), f.to_string()));
                        }
                    }
                    Err(err) => rows.push(("decode".into(), format!("TraceLogging: {err}"))),
                }
            }
            if !decoded {
                if let Some(p) = manifests.iter().find_map(|m| m.provider(h.provider_id)) {
                    manifest_rows(p, &h.descriptor, &e.user_data, ptr, &mut rows);
                }
            }
            (Some(ts), rows, lost)
        }
        Record::Trace(t) => {
            let ts = t.timestamp.map(conv);
            rows.push((
                "record".into(),
                t.kind().map_or("trace", |k| k.name()).to_string(),
            ));
            if let Some(g) = t.guid {
                rows.push(("guid".into(), g.to_string()));
            }
            rows.push(("hook".into(), format!("{:#06x}", t.hook_id)));
            rows.push(("version".into(), t.version.to_string()));
            rows.push(("level".into(), level_text(t.level)));
            if let Some(p) = t.process_id {
                rows.push(("pid".into(), p.to_string()));
            }
            if let Some(p) = t.thread_id {
                rows.push(("tid".into(), p.to_string()));
            }
            rows.push(("cpu".into(), t.buffer_context.processor_index.to_string()));
            if let Some(ts) = ts {
                rows.push(("time".into(), filetime_utc(ts)));
            }
            rows.push((
                "payload".into(),
                format!("{} bytes: {}", t.payload.len(), hex_preview(&t.payload)),
            ));
            if let Ok(m) = etwsim_decode::mof::decode_system(t.hook_id, t.version, ptr, &t.payload)
            {
                for f in &m.fields {
                    rows.push((format!("field {}", f.name), f.value.to_string()));
                }
            }
            (ts, rows, false)
        }
    }
}
