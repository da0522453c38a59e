//! Real-time consumers: OpenTrace on a session name, events oldest first, loss markers
//! (CON-01…CON-08, BUF-12…BUF-14, SES-65).

use crate::data::context::LoggerContext;
use crate::data::realtime::{ConsumerQueue, RtItem};
use crate::data::sink::buffer_events;
use etwsim_types::record::header_flags;
use etwsim_types::{EventDescriptor, EventHeader, EventRecord, Guid, Level, Opcode};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// `RTLostEvent`: one or more events were lost (BUF-14).
pub const RT_LOST_EVENT: u8 = 32;
/// `RTLostBuffer`: one or more buffers were lost (BUF-14).
pub const RT_LOST_BUFFER: u8 = 33;
/// `RTLostFile`: the AutoLogger's backing file was lost (BUF-14).
pub const RT_LOST_FILE: u8 = 34;

/// How a consumer wants its events (`EVENT_TRACE_LOGFILE.ProcessTraceMode`, CON-02).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsumerOptions {
    /// `PROCESS_TRACE_MODE_RAW_TIMESTAMP`: keep the session's raw clock values instead of
    /// converting to FILETIME (SES-65).
    pub raw_timestamps: bool,
}

/// A real-time consumer of one session (`OpenTrace` with `LoggerName`).
pub struct Consumer {
    pub(crate) ctx: Arc<LoggerContext>,
    pub(crate) queue: Arc<ConsumerQueue>,
    pub(crate) options: ConsumerOptions,
    pub(crate) boot_filetime: i64,
    pub(crate) ready: VecDeque<EventRecord>,
}

impl std::fmt::Debug for Consumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consumer")
            .field("session", &self.ctx.cfg.name)
            .field("ready", &self.ready.len())
            .finish_non_exhaustive()
    }
}

fn marker(kind: u8, ctx: &LoggerContext, timestamp: i64) -> EventRecord {
    EventRecord {
        header: EventHeader {
            size: 0x50,
            header_type: 0x13,
            flags: header_flags::HEADER_64_BIT,
            timestamp,
            provider_id: Guid::RT_LOST_EVENT,
            descriptor: EventDescriptor::new(0, Level(0), etwsim_types::Keyword(0))
                .with_opcode(Opcode(kind)),
            ..EventHeader::default()
        },
        buffer_context: etwsim_types::BufferContext {
            processor_index: 0,
            logger_id: ctx.logger_id(),
        },
        extended_data: Vec::new(),
        user_data: Vec::new(),
    }
}

impl Consumer {
    /// The session consumed.
    pub fn session_name(&self) -> &str {
        &self.ctx.cfg.name
    }

    /// `true` while the session runs: once it stopped and everything was taken, nothing more
    /// will come (CON-05).
    pub fn is_session_running(&self) -> bool {
        !self.ctx.is_finished()
    }

    /// Moves every delivered buffer into the ready list: records of one batch are merged
    /// oldest first by timestamp across CPUs (CON-04), each RTLostEvent / RTLostBuffer marker
    /// placed before the events of the buffer it concerns (BUF-14).
    fn collect(&mut self) {
        // Asked before taking the items: once finished, every item is in the queue.
        let finished = self.ctx.is_finished();
        let items: Vec<RtItem> = self.queue.items.lock().drain(..).collect();
        if items.is_empty() {
            return;
        }
        let mut batch: Vec<(i64, usize, EventRecord)> = Vec::new();
        let mut pending_markers: Vec<u8> = Vec::new();
        let clock = self.ctx.cfg.clock;
        for item in items {
            match item {
                RtItem::Lost(kind) => pending_markers.push(kind),
                RtItem::Buffer(d) => {
                    let records = buffer_events(&d.bytes);
                    let first_ts = records.first().map_or(0, |r| r.header.timestamp);
                    for kind in pending_markers.drain(..) {
                        let n = batch.len();
                        batch.push((first_ts, n, marker(kind, &self.ctx, first_ts)));
                    }
                    for mut r in records {
                        r.header.flags |= header_flags::HEADER_64_BIT;
                        let n = batch.len();
                        batch.push((r.header.timestamp, n, r));
                    }
                }
            }
        }
        if !pending_markers.is_empty() {
            if finished {
                // BUF-14 (choice): a loss after the last buffer is told at the end, stamped
                // with the session's clock now.
                let now = self.ctx.clock.raw(self.ctx.clock.peek(), clock);
                let last = batch.iter().map(|(ts, _, _)| *ts).max().unwrap_or(now);
                for kind in pending_markers.drain(..) {
                    let n = batch.len();
                    batch.push((last.max(now), n, marker(kind, &self.ctx, last.max(now))));
                }
            } else {
                // They concern the next buffer, which has not arrived yet.
                self.requeue_markers(std::mem::take(&mut pending_markers));
            }
        }
        batch.sort_by_key(|(ts, n, _)| (*ts, *n));
        for (_, _, mut r) in batch {
            if !self.options.raw_timestamps {
                r.header.timestamp = crate::machine::clock::raw_to_filetime(
                    r.header.timestamp,
                    clock,
                    self.boot_filetime,
                );
            }
            self.ready.push_back(r);
        }
    }

    /// The next delivered buffer's events, in buffer order, with any RTLostEvent /
    /// RTLostBuffer markers first, and the buffer's size and used bytes — what ProcessTrace
    /// hands to EventRecordCallback and then BufferCallback (CON-06). `None` if nothing is
    /// queued. Events already taken with [`Consumer::next_event`] are not returned again.
    pub fn next_buffer(&mut self) -> Option<(Vec<EventRecord>, u32, u32)> {
        let mut markers = Vec::new();
        let finished = self.ctx.is_finished();
        let buffer = loop {
            let Some(item) = self.queue.items.lock().pop_front() else {
                return self.markers_without_buffer(markers, finished);
            };
            match item {
                RtItem::Lost(kind) => markers.push(kind),
                RtItem::Buffer(d) => break d,
            }
        };
        let records = buffer_events(&buffer.bytes);
        let first_ts = records.first().map_or(0, |r| r.header.timestamp);
        let mut out: Vec<EventRecord> = markers
            .into_iter()
            .map(|k| marker(k, &self.ctx, first_ts))
            .chain(records.into_iter().map(|mut r| {
                r.header.flags |= header_flags::HEADER_64_BIT;
                r
            }))
            .collect();
        self.convert_timestamps(&mut out);
        let used = etwsim_types::BufferHeader::decode(&buffer.bytes).map_or(0, |h| h.used);
        Some((out, buffer.bytes.len() as u32, used))
    }

    /// Puts loss markers back at the front of the queue, in order: they concern the next
    /// buffer, which has not arrived yet.
    fn requeue_markers(&self, markers: Vec<u8>) {
        let mut q = self.queue.items.lock();
        for kind in markers.into_iter().rev() {
            q.push_front(RtItem::Lost(kind));
        }
    }

    /// The session's raw timestamps as FILETIME, unless the consumer asked for raw ones
    /// (SES-65).
    fn convert_timestamps(&self, records: &mut [EventRecord]) {
        if self.options.raw_timestamps {
            return;
        }
        let clock = self.ctx.cfg.clock;
        for r in records {
            r.header.timestamp = crate::machine::clock::raw_to_filetime(
                r.header.timestamp,
                clock,
                self.boot_filetime,
            );
        }
    }

    /// Loss markers with no buffer after them: at the end of a finished session's stream,
    /// delivered alone (as a buffer of 0 bytes, BUF-14's choice); otherwise put back, to
    /// precede the next buffer.
    fn markers_without_buffer(
        &mut self,
        markers: Vec<u8>,
        finished: bool,
    ) -> Option<(Vec<EventRecord>, u32, u32)> {
        if markers.is_empty() {
            return None;
        }
        let clock = self.ctx.cfg.clock;
        if !finished {
            self.requeue_markers(markers);
            return None;
        }
        let now = self.ctx.clock.raw(self.ctx.clock.peek(), clock);
        let mut out: Vec<EventRecord> = markers
            .into_iter()
            .map(|k| marker(k, &self.ctx, now))
            .collect();
        self.convert_timestamps(&mut out);
        Some((out, 0, 0))
    }

    /// `true` when delivered events are waiting to be taken.
    pub fn has_pending(&self) -> bool {
        !self.ready.is_empty() || !self.queue.items.lock().is_empty()
    }

    /// The next delivered event, if any, without waiting.
    pub fn next_event(&mut self) -> Option<EventRecord> {
        if self.ready.is_empty() {
            self.collect();
        }
        self.ready.pop_front()
    }

    /// Every event delivered so far, oldest first.
    pub fn drain(&mut self) -> Vec<EventRecord> {
        self.collect();
        self.ready.drain(..).collect()
    }

    /// Waits up to `timeout` for the next event (threaded mode); returns `None` on time-out
    /// or when the session has stopped and everything was taken.
    pub fn wait_event(&mut self, timeout: Duration) -> Option<EventRecord> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(r) = self.next_event() {
                return Some(r);
            }
            if self.ctx.is_finished() && !self.has_pending() {
                return None;
            }
            let mut g = self.ctx.rt.signal_lock.lock();
            if !self.queue.items.lock().is_empty() {
                continue;
            }
            if self.ctx.rt.signal.wait_until(&mut g, deadline).timed_out() {
                drop(g);
                return self.next_event();
            }
        }
    }

    /// Waits up to `timeout` until something is queued or the session stops (threaded mode).
    pub fn wait_delivery(&self, timeout: Duration) {
        let deadline = std::time::Instant::now() + timeout;
        let mut g = self.ctx.rt.signal_lock.lock();
        while self.queue.items.lock().is_empty() && !self.ctx.is_finished() {
            if self.ctx.rt.signal.wait_until(&mut g, deadline).timed_out() {
                return;
            }
        }
    }

    /// CloseTrace: detaches from the session; buffers not yet taken are dropped.
    pub fn close(self) {
        self.queue.closed.store(true, Ordering::Release);
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        self.queue.closed.store(true, Ordering::Release);
    }
}
