//! A real-time session and its consumers: the backlog, delivery order, and what a slow
//! consumer loses.
//!
//! What it teaches:
//! 1. A real-time session delivers buffers when they are flushed — here by its FlushTimer
//!    (1 second for a real-time session with FlushTimer 0). With no consumer attached the
//!    flushed buffers wait in a bounded backing store.
//! 2. A consumer that attaches (OpenTrace on the session name) receives that backlog first,
//!    then new events; events written on two CPUs sit in two different buffers, and the
//!    consumer still gets them oldest first by timestamp, converted to FILETIME.
//! 3. A consumer that does not keep up has a bounded queue: buffers that do not fit are lost
//!    *for it* — the session counts them in RealTimeBuffersLost — and the consumer later finds
//!    an RTLostBuffer marker (RT_LostEvent class, type 33) in its stream, just before the
//!    events of the next buffer it does receive.
//!
//! Rules it shows: SES-63 (FlushTimer 0 = 1 s for real-time), BUF-05 (timer flush), BUF-12
//! (backing store, backlog delivered first), CON-04 (oldest first across CPUs), SES-65
//! (timestamps converted to FILETIME, or raw with PROCESS_TRACE_MODE_RAW_TIMESTAMP), CON-08
//! (several consumers, each gets every buffer), BUF-07 (RealTimeBuffersLost), BUF-14 (the
//! RTLostBuffer marker).
//!
//! Everything runs on a deterministic kernel (virtual clock starting 2026-01-01T00:00:00Z, one
//! microsecond per event, moved by `Kernel::advance`), so the output is the same every run.
//!
//! Run it with `cargo run --example realtime_consumer`.

use etwsim::{
    ConsumerOptions, EnableParams, EventDescriptor, Guid, Kernel, Keyword, Level, RT_LOST_BUFFER,
    RT_LOST_EVENT, Token,
};
use etwsim_types::EventRecord;
use std::time::Duration;

/// Payload bytes per event: a 200-byte record, 20 per 4 KB buffer.
const PAYLOAD: usize = 120;

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    // Each consumer's queue holds 2 buffers: a consumer that falls 3 buffers behind loses one.
    let kernel = Kernel::builder()
        .cpus(2)
        .deterministic(11)
        .consumer_queue_buffers(2)
        .build()?;
    let app = kernel.spawn("sensor.exe", Token::user("alice"))?;
    let guid: Guid = "{5eed0002-1234-4567-89ab-cdef00000002}".parse()?;
    let provider = app.register_provider(guid)?;
    let cpu0 = app.spawn_thread(0)?;
    let cpu1 = app.spawn_thread(1)?;

    let session = kernel
        .session("Live")
        .real_time()
        .buffer_size_kb(4)
        .start()?;
    session.enable(guid, &EnableParams::new().level(Level::VERBOSE))?;
    let q = session.query()?;
    println!(
        "== session Live: real-time, 4 KB buffers, FlushTimer {} → effective {} s (SES-63)",
        q.flush_timer, q.effective_flush_timer
    );

    let write = |id: u16| provider.write(&event(id), &[&payload(id)]);

    println!("\n== 1. 45 events are written before anyone listens (on CPU 0)");
    {
        let _on = cpu0.enter();
        for id in 1..=45 {
            write(id)?;
        }
    }
    println!(
        "  full buffers waiting for the logger: {}; CPU 0's third buffer is partly filled",
        session.pending_buffers()
    );
    kernel.advance(Duration::from_secs(1));
    let q = session.query()?;
    println!(
        "  advance(1 s): the FlushTimer flushes the partial buffer too; with no consumer the {} buffers",
        session.realtime_backlog()
    );
    println!(
        "  go to the backing store (BUF-12). BuffersWritten {}, EventsLost {}",
        q.buffers_written, q.events_lost
    );
    expect(
        session.realtime_backlog() == 3,
        "three buffers in the backlog",
    )?;

    println!("\n== 2. a consumer attaches: OpenTrace(\"Live\")");
    let mut consumer =
        kernel.open_realtime(&kernel.system_process(), "Live", ConsumerOptions::default())?;
    let backlog = consumer.drain();
    println!(
        "  it receives the backlog first: {} events, ids {}..{}; backing store now {}",
        backlog.len(),
        backlog.first().map_or(0, |r| r.header.descriptor.id),
        backlog.last().map_or(0, |r| r.header.descriptor.id),
        session.realtime_backlog()
    );
    expect(
        ids(&backlog) == (1..=45).collect::<Vec<_>>(),
        "the backlog arrives complete and in order",
    )?;
    show(&backlog[..2]);
    println!("  …");

    // A second consumer that asks for raw timestamps (PROCESS_TRACE_MODE_RAW_TIMESTAMP).
    let mut raw = kernel.open_realtime(
        &kernel.system_process(),
        "Live",
        ConsumerOptions {
            raw_timestamps: true,
        },
    )?;
    println!(
        "  a second consumer attaches with raw timestamps; consumers now: {} (CON-08)",
        session.consumer_count()
    );

    println!("\n  six new events, alternating between a thread on CPU 0 and one on CPU 1:");
    for id in 100..106 {
        let thread = if id % 2 == 0 { &cpu0 } else { &cpu1 };
        let _on = thread.enter();
        write(id)?;
    }
    kernel.advance(Duration::from_secs(1));
    let fresh = consumer.drain();
    let fresh_raw = raw.drain();
    println!("  they sat in two buffers (one per CPU), yet arrive oldest first (CON-04):");
    show(&fresh);
    expect(
        ids(&fresh) == (100..106).collect::<Vec<_>>(),
        "new events arrive oldest first",
    )?;
    if let (Some(a), Some(b)) = (fresh.first(), fresh_raw.first()) {
        println!(
            "  the raw consumer got the same {} events; event {} has raw QPC {} = FILETIME {} (SES-65)",
            fresh_raw.len(),
            b.header.descriptor.id,
            b.header.timestamp,
            a.header.timestamp
        );
    }
    expect(
        ids(&fresh_raw) == ids(&fresh),
        "each consumer gets every buffer",
    )?;
    raw.close();

    println!("\n== 3. the consumer stops reading while a burst of 100 events (5 buffers) arrives");
    {
        let _on = cpu0.enter();
        for id in 200..300 {
            write(id)?;
        }
    }
    kernel.advance(Duration::from_secs(1));
    let q = session.query()?;
    println!(
        "  advance(1 s): 5 buffers flushed; its queue holds 2, the other 3 are lost for it: RealTimeBuffersLost = {}",
        q.real_time_buffers_lost
    );
    println!(
        "  (EventsLost = {}: the session recorded every event; this consumer just missed buffers)",
        q.events_lost
    );
    let got = consumer.drain();
    println!(
        "  the consumer now reads {} events, ids {}..{}",
        got.len(),
        got.first().map_or(0, |r| r.header.descriptor.id),
        got.last().map_or(0, |r| r.header.descriptor.id)
    );
    expect(
        ids(&got) == (200..240).collect::<Vec<_>>(),
        "only the two queued buffers arrive",
    )?;
    expect(q.real_time_buffers_lost == 3, "three buffers lost")?;

    println!("\n  it keeps up again; three more events, then the FlushTimer:");
    {
        let _on = cpu0.enter();
        for id in 300..303 {
            write(id)?;
        }
    }
    kernel.advance(Duration::from_secs(1));
    let after = consumer.drain();
    show(&after);
    expect(
        after.first().is_some_and(|r| {
            r.is_lost_event_marker() && r.header.descriptor.opcode.0 == RT_LOST_BUFFER
        }),
        "an RTLostBuffer marker comes first",
    )?;
    expect(
        ids(&after[1..]) == vec![300, 301, 302],
        "then the next buffer's events",
    )?;
    println!(
        "  the marker says \"buffers were lost here\": events 240..299 never reached this consumer."
    );

    let stats = session.stop()?;
    println!(
        "\n== STOP: BuffersWritten {}, RealTimeBuffersLost {}, EventsLost {}; the consumer sees the end: running = {}",
        stats.buffers_written,
        stats.real_time_buffers_lost,
        stats.events_lost,
        consumer.is_session_running()
    );
    Ok(())
}

fn event(id: u16) -> EventDescriptor {
    EventDescriptor::new(id, Level::INFORMATION, Keyword(0x1))
}

fn payload(id: u16) -> [u8; PAYLOAD] {
    let mut p = [0u8; PAYLOAD];
    p[..2].copy_from_slice(&id.to_le_bytes());
    p
}

fn ids(records: &[EventRecord]) -> Vec<u16> {
    records.iter().map(|r| r.header.descriptor.id).collect()
}

/// Prints records as a consumer would show them.
fn show(records: &[EventRecord]) {
    for r in records {
        if r.is_lost_event_marker() {
            let kind = match r.header.descriptor.opcode.0 {
                RT_LOST_BUFFER => "RTLostBuffer (33): one or more buffers were lost (BUF-14)",
                RT_LOST_EVENT => "RTLostEvent (32): one or more events were lost (BUF-14)",
                _ => "RT_LostEvent",
            };
            println!("    [marker] RT_LostEvent class, type {kind}");
            continue;
        }
        println!(
            "    id {:>3}  CPU {}  TID {:>3}  FILETIME {}  = {}",
            r.header.descriptor.id,
            r.buffer_context.processor_index,
            r.header.thread_id,
            r.header.timestamp,
            etwsim::record::filetime_utc(r.header.timestamp)
        );
    }
}

/// Checks a claim the example makes; a run that disagrees ends with an error, not a panic.
fn expect(ok: bool, claim: &str) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(format!("the engine disagrees with the example: {claim}").into())
    }
}
