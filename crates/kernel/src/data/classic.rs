//! Classic `TraceEvent` (EVT-29, FLT-27): a RegisterTraceGuids provider's event, written as an
//! `EVENT_TRACE_HEADER` record into the one session its logger handle names.
//!
//! A classic event is not routed: the provider got a session handle from its control callback
//! (`GetTraceLoggerHandle`) and writes into that session, whatever the session's level and
//! keywords (ETW filters nothing for classic providers, FLT-27). The path is otherwise the
//! event path's: the size checks (the record must fit the session's buffer, EVT-06; a full
//! real-time backing store refuses it, EVT-08), a reservation in the writer's CPU buffer
//! (no buffer free → `ERROR_NOT_ENOUGH_MEMORY` and one more EventsLost, EVT-07), the same
//! in-flight bracket STOP waits for. The record itself is built by the `.etl` crate's
//! [`TraceRecord`] encoder, the one that also reads it back: the kernel fills
//! `ThreadId`, `ProcessId` and `TimeStamp` (the session's clock), `KernelTime` and
//! `UserTime` stay 0 as in every record the simulator writes.

use crate::data::context::LoggerContext;
use crate::data::core::DataCore;
use crate::data::store::{Refusal, refusal, store_bytes};
use crate::filter::verdict::{Reason, Verdict};
use crate::journal::JournalEvent;
use crate::{Error, Result};
use etwsim_buffers::ReserveError;
use etwsim_etl::TraceRecord;
use etwsim_types::Guid;
use etwsim_types::record::{align8, header_type};
use std::sync::atomic::Ordering;

/// Bytes of the `EVENT_TRACE_HEADER` a classic record starts with (64-bit layout).
pub const EVENT_TRACE_HEADER_SIZE: usize = 0x30;

/// The largest classic record: its `Size` field is 16 bits ("slightly less than 64K" of event
/// data, TraceEvent's documentation says).
const MAX_CLASSIC_SIZE: usize = u16::MAX as usize;

/// A classic event as `TraceEvent` takes it: the caller's `EVENT_TRACE_HEADER` fields that
/// reach the record, and its data — the bytes after the header, or the blocks its `MOF_FIELD`
/// array points at (WNODE_FLAG_USE_MOF_PTR), concatenated in order.
#[doc(alias = "EVENT_TRACE_HEADER")]
#[derive(Copy, Clone, Debug, Default)]
pub struct ClassicEvent<'a> {
    /// `Class.Type`: the event type (`EVENT_TRACE_TYPE_INFO`, `_START`, … or the provider's).
    pub class_type: u8,
    /// `Class.Level`: recorded as given; ETW does not filter on it (FLT-27).
    pub class_level: u8,
    /// `Class.Version`.
    pub class_version: u16,
    /// `Guid` (or what `GuidPtr` points at, WNODE_FLAG_USE_GUID_PTR): the event class GUID.
    pub guid: Guid,
    /// The event data blocks.
    pub data: &'a [&'a [u8]],
}

impl ClassicEvent<'_> {
    /// Bytes of the record: the 48-byte header and the data.
    pub fn record_size(&self) -> usize {
        EVENT_TRACE_HEADER_SIZE + self.data.iter().map(|d| d.len()).sum::<usize>()
    }
}

/// Who writes a classic event: the process's PID and the simulated thread (TID, CPU), and the
/// kernel time of the write.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ClassicWriter {
    pub(crate) pid: u32,
    pub(crate) tid: u32,
    pub(crate) cpu: usize,
    pub(crate) ticks: u64,
}

/// `TraceEvent`'s data-plane half, once the entry point (`api`) found the session its logger
/// handle names and the writing thread: the size checks, the record, the store. A refusal is
/// counted (EventsLost) and journaled as a loss. With a journal, the write is journaled too,
/// with the registration's GUID and slot that `registration` gives (asked only then).
pub(crate) fn write_classic(
    core: &DataCore,
    ctx: &LoggerContext,
    writer: ClassicWriter,
    event: &ClassicEvent<'_>,
    registration: impl FnOnce() -> Option<(Guid, u8)>,
) -> Result<()> {
    let size = event.record_size();
    if size > MAX_CLASSIC_SIZE {
        ctx.counters.events_lost.fetch_add(1, Ordering::Relaxed);
        let e = Error::MoreData(format!(
            "a classic event of {size} bytes: its Size field holds at most {MAX_CLASSIC_SIZE}"
        ));
        ctx.note_loss(
            crate::journal::LossCounter::EventsLost,
            1,
            &e.to_string(),
            "EVT-29",
        );
        return Err(e);
    }
    let result = match refusal(ctx, size) {
        Some(r) => Err(r),
        None => {
            let record = TraceRecord {
                header_type: header_type::FULL_HEADER64,
                version: event.class_version,
                hook_id: u16::from(event.class_type),
                level: event.class_level,
                guid: Some(event.guid),
                thread_id: Some(writer.tid),
                process_id: Some(writer.pid),
                timestamp: Some(ctx.clock.raw(writer.ticks, ctx.cfg.clock)),
                payload: event.data.concat(),
                ..TraceRecord::default()
            };
            store(ctx, writer.cpu, &record)
        }
    };
    let result = result.inspect_err(|r| {
        ctx.counters.events_lost.fetch_add(1, Ordering::Relaxed);
        r.journal(ctx);
    });
    if ctx.journal.is_some() {
        let (provider, slot) = registration().unwrap_or((event.guid, 0));
        journal_classic(core, provider, slot, writer.pid, ctx, event, result);
    }
    result.map_err(Refusal::error)
}

/// Journals a classic write as every other write is: one verdict, for the session its logger
/// handle names — recorded (FLT-27: unfiltered) or lost (EVT-06…08).
#[cold]
#[inline(never)]
fn journal_classic(
    core: &DataCore,
    provider: Guid,
    slot: u8,
    pid: u32,
    ctx: &LoggerContext,
    event: &ClassicEvent<'_>,
    result: std::result::Result<(), Refusal>,
) {
    let descriptor = etwsim_types::EventDescriptor {
        version: event.class_version as u8,
        level: etwsim_types::Level(event.class_level),
        opcode: etwsim_types::Opcode(event.class_type),
        ..etwsim_types::EventDescriptor::default()
    };
    let reason = match result {
        Ok(()) => Reason::Classic,
        Err(r) => Reason::Lost {
            error: r.error().win32_code(),
            rule: r.rule(),
        },
    };
    core.note(|| JournalEvent::Write {
        provider,
        pid,
        descriptor,
        result: result.map_err(|r| r.error().win32_code()),
        verdicts: vec![Verdict {
            session: ctx.handle,
            session_name: ctx.cfg.name.clone(),
            slot,
            recorded: result.is_ok(),
            reason,
        }],
    });
}

/// Stores the encoded record in `cpu`'s buffer of the session, inside the in-flight bracket
/// STOP waits for; a session whose stop began meanwhile takes nothing (as `Provider::write`).
fn store(
    ctx: &LoggerContext,
    cpu: usize,
    record: &TraceRecord,
) -> std::result::Result<(), Refusal> {
    // The size was checked (at most 65,535 bytes), and a classic layout always encodes.
    let bytes = record.encode().unwrap_or_default();
    let len = align8(bytes.len()) as u64;
    let pool = &ctx.pool;
    pool.enter(cpu);
    let result = if ctx.accepts_writes() {
        match pool.record(cpu, len) {
            Ok(mut rec) => {
                store_bytes(&mut rec, &bytes);
                Ok(())
            }
            Err(ReserveError::TooBig) => Err(Refusal::larger_than_buffer(
                bytes.len(),
                pool.capacity() as usize,
            )),
            Err(ReserveError::NoBuffer) => Err(Refusal::NO_BUFFER),
            Err(ReserveError::WrongThread) => Err(Refusal::WRONG_THREAD),
        }
    } else {
        Ok(())
    };
    pool.exit(cpu);
    result
}
