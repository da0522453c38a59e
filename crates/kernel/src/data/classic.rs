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
use crate::data::local::with_current;
use crate::data::store::{Refusal, refusal, store_bytes};
use crate::filter::verdict::{Reason, Verdict};
use crate::journal::JournalEvent;
use crate::{Error, Kernel, Result, TraceHandle};
use etwsim_buffers::ReserveError;
use etwsim_etl::TraceRecord;
use etwsim_types::record::{align8, header_type};
use etwsim_types::{Guid, Win32Error};
use std::sync::Arc;
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

/// `TraceEvent` as process `process_key` (PID `pid`): the body of [`Process::trace_event`]
/// and [`ClassicProvider::trace_event`](crate::ClassicProvider::trace_event).
pub(crate) fn trace_event(
    kernel: &Kernel,
    process_key: u64,
    pid: u32,
    logger: TraceHandle,
    event: &ClassicEvent<'_>,
) -> Result<()> {
    kernel.check_thread()?;
    let ctx = session_of(kernel, process_key, logger)?;
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
    with_current(kernel, process_key, |t| {
        let cpu = t.cpu.load(Ordering::Relaxed) as usize;
        let ticks = kernel.inner.clock.event_now();
        let result = match refusal(&ctx, size) {
            Some(r) => Err(r),
            None => {
                let record = TraceRecord {
                    header_type: header_type::FULL_HEADER64,
                    version: event.class_version,
                    hook_id: u16::from(event.class_type),
                    level: event.class_level,
                    guid: Some(event.guid),
                    thread_id: Some(t.tid),
                    process_id: Some(pid),
                    timestamp: Some(ctx.clock.raw(ticks, ctx.cfg.clock)),
                    payload: event.data.concat(),
                    ..TraceRecord::default()
                };
                store(&ctx, cpu, &record)
            }
        };
        let result = result.inspect_err(|r| {
            ctx.counters.events_lost.fetch_add(1, Ordering::Relaxed);
            r.journal(&ctx);
        });
        if ctx.journal.is_some() {
            journal_classic(kernel, process_key, pid, &ctx, event, result);
        }
        result.map_err(Refusal::error)
    })
}

/// Journals a classic write as every other write is: one verdict, for the session its logger
/// handle names — recorded (FLT-27: unfiltered) or lost (EVT-06…08).
#[cold]
#[inline(never)]
fn journal_classic(
    kernel: &Kernel,
    process_key: u64,
    pid: u32,
    ctx: &LoggerContext,
    event: &ClassicEvent<'_>,
    result: std::result::Result<(), Refusal>,
) {
    let (provider, slot) = kernel
        .with_state(|s| s.providers.classic_slot(process_key, ctx.handle))
        .unwrap_or((event.guid, 0));
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
    crate::data::core::Host::core(kernel).note(|| JournalEvent::Write {
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

/// The running session `logger` names, as process `process_key` sees it.
fn session_of(
    kernel: &Kernel,
    process_key: u64,
    logger: TraceHandle,
) -> Result<Arc<LoggerContext>> {
    if logger.0 == 0 {
        return Err(Error::invalid("TraceEvent's session handle is 0"));
    }
    kernel.with_state(|s| {
        s.live_process(process_key)?;
        s.running_loggers()
            .find(|l| {
                l.handle == logger
                    && l.is_running()
                    && l.private_owner.is_none_or(|o| o == process_key)
                    && !l.cfg.kernel_logger
            })
            .cloned()
            .ok_or_else(|| Error::Other {
                code: Win32Error::ERROR_INVALID_HANDLE,
                context: format!("{logger} names no running session a classic provider may log to"),
            })
    })
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
