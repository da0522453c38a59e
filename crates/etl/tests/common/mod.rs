//! Helpers shared by the integration tests: scratch folders, records, and a small model of a
//! session's per-CPU buffers feeding a writer.
#![allow(dead_code, unreachable_pub)]

pub mod lzxpress_fuzz;

use etwsim_etl::{
    BufferBuilder, CloseStats, CloseSummary, Record, TraceRecord, WriteOutcome, Writer,
};
use etwsim_types::record::header_type;
use etwsim_types::{EventDescriptor, EventHeader, EventRecord, Guid, Keyword, Level};
use std::path::{Path, PathBuf};

pub const PROVIDER: Guid = Guid::from_str_const("12345678-9abc-4def-8011-223344556677");

/// An empty scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// An EVENT_HEADER record with event id `id` at raw time `ts`; the payload starts with an
/// odd number (never mistaken for an extended item by dissect.etl).
pub fn event(id: u16, ts: i64) -> Record {
    let mut payload = (u32::from(id) * 2 + 1).to_le_bytes().to_vec();
    payload.extend_from_slice(b"test payload");
    Record::Event(EventRecord {
        header: EventHeader {
            thread_id: 100 + u32::from(id),
            process_id: 7,
            timestamp: ts,
            provider_id: PROVIDER,
            descriptor: EventDescriptor::new(id, Level::INFORMATION, Keyword(1)),
            ..EventHeader::default()
        },
        user_data: payload,
        ..EventRecord::default()
    })
}

/// A perfinfo record (16-byte header) with hook `hook` at raw time `ts`.
pub fn perfinfo(hook: u16, ts: i64) -> Record {
    Record::Trace(TraceRecord {
        header_type: header_type::PERFINFO64,
        version: 2,
        hook_id: hook,
        timestamp: Some(ts),
        payload: vec![0xAB; 8],
        ..TraceRecord::default()
    })
}

/// The event id of an event record, or the hook id of another record.
pub fn id_of(r: &Record) -> u16 {
    match r {
        Record::Event(e) => e.header.descriptor.id,
        Record::Trace(t) => t.hook_id,
    }
}

/// Per-CPU buffers in front of a writer, as a session's logger drives it.
pub struct Feed {
    pub writer: Writer,
    pub cpus: Vec<BufferBuilder>,
    pub sequence: i64,
    pub outcomes: Vec<WriteOutcome>,
    last_ts: i64,
}

impl Feed {
    pub fn new(writer: Writer, buffer_size: u32, cpus: u16) -> Feed {
        Feed {
            writer,
            cpus: (0..cpus)
                .map(|c| BufferBuilder::new(buffer_size, c).unwrap())
                .collect(),
            sequence: 0,
            outcomes: Vec::new(),
            last_ts: 0,
        }
    }

    /// Adds a record to `cpu`'s buffer, flushing it first when full.
    pub fn push(&mut self, cpu: usize, r: Record) {
        self.last_ts = self.last_ts.max(r.timestamp().unwrap_or(0));
        if !self.cpus[cpu].push(&r).unwrap() {
            self.flush(cpu);
            assert!(self.cpus[cpu].push(&r).unwrap());
        }
    }

    /// Flushes `cpu`'s buffer to the writer.
    pub fn flush(&mut self, cpu: usize) -> Option<WriteOutcome> {
        if self.cpus[cpu].is_empty() {
            return None;
        }
        self.sequence += 1;
        let b = self.cpus[cpu].finish(self.sequence, self.last_ts + 1, 0);
        let o = self.writer.write_buffer(&b).unwrap();
        self.outcomes.push(o);
        Some(o)
    }

    pub fn flush_all(&mut self) {
        for c in 0..self.cpus.len() {
            self.flush(c);
        }
    }

    pub fn close(mut self, stats: &CloseStats) -> CloseSummary {
        self.flush_all();
        self.writer.close(stats).unwrap()
    }
}

/// The shared `.etl` fixtures (`../shared/fixtures/etl/*.etl`, sorted), or `None` with a note
/// when `../shared` is absent, so the tests that read them skip.
pub fn shared_fixtures() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/etl");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("note: {} is absent; fixture tests skipped", dir.display());
        return None;
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "etl"))
        .collect();
    v.sort();
    Some(v)
}
