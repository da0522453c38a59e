//! Where a session's flushed buffers go: the [`Sink`] trait the `.etl` file writer plugs
//! into, [`BufferInfo`], and the in-memory [`MemorySink`].

use crate::data::properties::SessionProperties;
use etwsim_etl::Record;
use etwsim_types::EventRecord;
use parking_lot::Mutex;
use std::sync::Arc;

/// Where one flushed buffer came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BufferInfo {
    /// The session's logger id.
    pub logger_id: u16,
    /// The CPU whose buffer it was.
    pub processor: u16,
    /// The session's buffer sequence number (1, 2, 3…).
    pub sequence: u64,
    /// The session's raw clock at flush.
    pub timestamp: i64,
    /// Bytes used, header included.
    pub used: u32,
}

/// Where a session's flushed buffers are written: the `.etl` file writer plugs in here, and
/// so does [`MemorySink`]. Called from the logger only, one buffer at a time.
pub trait Sink: Send {
    /// Writes one buffer (exactly BufferSize bytes, header filled in).
    ///
    /// # Errors
    /// An I/O error: the buffer counts in LogBuffersLost (BUF-07).
    fn write_buffer(&mut self, buffer: &[u8], info: &BufferInfo) -> std::io::Result<()>;

    /// The session stopped; `stats` are its final statistics.
    ///
    /// # Errors
    /// An I/O error finishing the output.
    fn close(&mut self, stats: &SessionProperties) -> std::io::Result<()> {
        let _ = stats;
        Ok(())
    }

    /// `true` once the output reached its size limit and takes no more buffers: a SEQUENTIAL
    /// log file at MaximumFileSize. The session then stops (SES-62).
    fn is_full(&self) -> bool {
        false
    }

    /// ControlTrace(INCREMENT_FILE): continue in the next numbered file now (SES-81).
    /// Returns the new file counter.
    ///
    /// # Errors
    /// `Unsupported` for outputs that are not NEWFILE log files.
    fn increment_file(&mut self) -> std::io::Result<u32> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "not a NEWFILE log file",
        ))
    }

    /// The NEWFILE counter of the file being written (SES-35), `None` for outputs that are
    /// not NEWFILE log files. QUERY reports it, also after the output moved on by itself.
    fn file_counter(&self) -> Option<u32> {
        None
    }
}

#[derive(Default)]
struct MemoryInner {
    buffers: Vec<Vec<u8>>,
    capacity: Option<usize>,
    closed: Option<SessionProperties>,
}

/// A sink that keeps every buffer in memory; clones share the storage, so a test keeps one
/// and gives the other to the session. [`MemorySink::with_capacity`] makes it fail like a full
/// disk once it holds that many buffers.
#[derive(Clone, Default)]
pub struct MemorySink {
    inner: Arc<Mutex<MemoryInner>>,
}

impl std::fmt::Debug for MemorySink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemorySink")
            .field("buffers", &self.inner.lock().buffers.len())
            .finish()
    }
}

impl MemorySink {
    /// An unbounded in-memory sink.
    pub fn new() -> MemorySink {
        MemorySink::default()
    }

    /// A sink that fails (`ERROR_DISK_FULL`-style) once it holds `buffers` buffers.
    pub fn with_capacity(buffers: usize) -> MemorySink {
        let s = MemorySink::default();
        s.inner.lock().capacity = Some(buffers);
        s
    }

    /// The buffers written so far, in order.
    pub fn buffers(&self) -> Vec<Vec<u8>> {
        self.inner.lock().buffers.clone()
    }

    /// Every record of every buffer, in buffer order, as ProcessTrace presents it (a classic
    /// record as an EVENT_RECORD with EVENT_HEADER_FLAG_CLASSIC_HEADER, CON-02).
    pub fn records(&self) -> Vec<EventRecord> {
        self.inner
            .lock()
            .buffers
            .iter()
            .flat_map(|b| buffer_events(b))
            .collect()
    }

    /// The final statistics, once the session stopped.
    pub fn closed(&self) -> Option<SessionProperties> {
        self.inner.lock().closed.clone()
    }
}

impl Sink for MemorySink {
    fn write_buffer(&mut self, buffer: &[u8], _info: &BufferInfo) -> std::io::Result<()> {
        let mut i = self.inner.lock();
        if i.capacity.is_some_and(|c| i.buffers.len() >= c) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "the simulated disk is full",
            ));
        }
        i.buffers.push(buffer.to_vec());
        Ok(())
    }

    fn close(&mut self, stats: &SessionProperties) -> std::io::Result<()> {
        self.inner.lock().closed = Some(stats.clone());
        Ok(())
    }
}

/// Every record of a flushed buffer as ProcessTrace hands it to an EventRecordCallback:
/// `EVENT_HEADER` records as they are, classic ones (and every other layout) through
/// [`TraceRecord::to_event_record`] (CON-02) — what real-time consumers and
/// [`MemorySink::records`](crate::MemorySink::records) deliver. Records after damage are
/// dropped.
pub(in crate::data) fn buffer_events(buffer: &[u8]) -> Vec<EventRecord> {
    etwsim_etl::decode_buffer(buffer, 0).map_or_else(
        |_| Vec::new(),
        |b| {
            b.records
                .into_iter()
                .map(Record::into_event_record)
                .collect()
        },
    )
}
