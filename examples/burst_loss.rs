//! Why ETW loses events: a burst into a deliberately small session.
//!
//! What it teaches: a session owns a small pool of buffers. Writers fill the in-use buffer of
//! their CPU; a full buffer is handed to the logger and replaced by a free one; when no buffer
//! is free the pool grows, up to MaximumBuffers; beyond that every event is discarded until
//! the logger has written a buffer out and freed it. The writer is told
//! (`ERROR_NOT_ENOUGH_MEMORY`), the session counts it (`EventsLost`), and nothing else breaks.
//! Then the same burst runs four more times, changing one thing at a time — how fast the
//! logger drains, and how many buffers the session may have — so you can see what actually
//! changes the loss.
//!
//! Rules it shows:
//! * BUF-01 — MinimumBuffers are allocated at start (`NumberOfBuffers`, `FreeBuffers`);
//! * BUF-02, BUF-03 — one in-use buffer per CPU, switched when the next event does not fit;
//! * BUF-04 — growth up to MaximumBuffers, then discarding;
//! * EVT-07 — the discarded write returns `ERROR_NOT_ENOUGH_MEMORY` (8), `EventsLost` + 1;
//! * BUF-05, BUF-07 — the logger writes full buffers out (`BuffersWritten`) and frees them;
//!   the first buffer written after a loss carries the `EVENTS_LOST` buffer flag (BUF-15);
//! * BUF-19 — "disk too slow for a file session" is a cause of loss.
//!
//! Everything runs on a deterministic kernel: virtual time moves only with
//! `Kernel::advance`, the logger works only in `Kernel::run_pending` / `advance` (limited by
//! `KernelBuilder::drain_bandwidth` when set), so every number below is the same on every run
//! and every machine.
//!
//! Run it with `cargo run --example burst_loss`.

use etwsim::{
    EnableParams, EventDescriptor, Guid, Kernel, Keyword, Level, MemorySink, SessionProperties,
    Token, Win32Error,
};
use etwsim_types::record::{BufferHeader, buffer_flags};
use std::time::Duration;

/// Payload bytes of every event: with the 80-byte EVENT_HEADER a record is 200 bytes, so a
/// 4 KB buffer (4096 − 72 bytes of buffer header = 4024 bytes) holds exactly 20 records.
const PAYLOAD: usize = 120;
/// Records per buffer, for the explanations.
const PER_BUFFER: u32 = 20;
/// Events in the burst.
const BURST: u32 = 300;
/// The pace of the burst when the logger runs alongside it: one event every 50 µs, so the
/// writer fills one 4 KB buffer per millisecond (≈ 4 MB/s).
const PACE: Duration = Duration::from_micros(50);

/// One run of the burst.
struct Scenario {
    title: &'static str,
    /// `MaximumBuffers` of the session.
    maximum_buffers: u32,
    /// The logger's drain bandwidth (bytes per virtual second), and the writer paces its
    /// events with `Kernel::advance(PACE)` so the logger gets time to work; `None`: the whole
    /// burst is written at once and the logger only runs afterwards.
    drain_bandwidth: Option<u64>,
}

/// What a run produced.
struct Outcome {
    /// Writes that returned success.
    recorded: u32,
    /// The first failing write: its number (1-based) and error.
    first_loss: Option<(u32, Win32Error)>,
    /// The session's largest NumberOfBuffers during the burst.
    peak_buffers: u32,
    /// Final statistics (ControlTrace STOP).
    stats: SessionProperties,
    /// Records that reached the sink.
    in_sink: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("== a burst of {BURST} events, {PER_BUFFER} per 4 KB buffer, into a session with");
    println!("   MinimumBuffers 4 and MaximumBuffers 6 — and no logger running during the burst\n");
    let first = run(
        &Scenario {
            title: "burst, logger idle, MaximumBuffers 6",
            maximum_buffers: 6,
            drain_bandwidth: None,
        },
        true,
    )?;

    let scenarios = [
        Scenario {
            title: "paced burst, logger drains 2 MB/s (half the write rate)",
            maximum_buffers: 6,
            drain_bandwidth: Some(2_048_000),
        },
        Scenario {
            title: "paced burst, logger drains 4 MB/s (the write rate)",
            maximum_buffers: 6,
            drain_bandwidth: Some(4_096_000),
        },
        Scenario {
            title: "burst, logger idle, MaximumBuffers 16",
            maximum_buffers: 16,
            drain_bandwidth: None,
        },
        Scenario {
            title: "paced burst, logger drains 2 MB/s, MaximumBuffers 12",
            maximum_buffers: 12,
            drain_bandwidth: Some(2_048_000),
        },
    ];
    let mut results = vec![("burst, logger idle, MaximumBuffers 6", first)];
    for s in &scenarios {
        results.push((s.title, run(s, false)?));
    }

    println!("\n== what changes the loss: the same {BURST} events, one knob at a time");
    println!(
        "  \"paced\": the writer spreads the burst over 15 ms (one event every 50 µs, moved on with"
    );
    println!(
        "  Kernel::advance) and the logger writes buffers out meanwhile, at the drain bandwidth"
    );
    println!(
        "  set with KernelBuilder::drain_bandwidth — a model of how fast the disk takes them.\n"
    );
    println!(
        "  {:<55} {:>8} {:>6} {:>10} {:>8} {:>12}",
        "scenario", "recorded", "lost", "first loss", "peak buf", "written"
    );
    for (title, o) in &results {
        println!(
            "  {:<55} {:>8} {:>6} {:>10} {:>8} {:>12}",
            title,
            o.recorded,
            o.stats.events_lost,
            o.first_loss
                .map_or_else(|| "-".to_string(), |(n, _)| format!("#{n}")),
            o.peak_buffers,
            o.stats.buffers_written
        );
    }
    println!();
    println!(
        "  * With the logger idle, the session holds MaximumBuffers × {PER_BUFFER} events; the rest"
    );
    println!("    of the burst is lost however fast the disk is later (BUF-04).");
    println!("  * A logger slower than the writer only delays the loss: the backlog grows by the");
    println!("    difference until the pool is exhausted.");
    println!(
        "  * A logger that keeps up (or a pool large enough for the whole burst) loses nothing."
    );

    // Every claim above is checked: a run that disagrees ends the example with an error.
    for (title, o) in &results {
        if o.recorded + o.stats.events_lost != BURST {
            return Err(format!("{title}: recorded + lost != {BURST}").into());
        }
        if o.in_sink != o.recorded as usize {
            return Err(format!("{title}: {} records in the sink", o.in_sink).into());
        }
        if o.first_loss
            .is_some_and(|(_, e)| e != Win32Error::ERROR_NOT_ENOUGH_MEMORY)
        {
            return Err(format!("{title}: unexpected error {:?}", o.first_loss).into());
        }
    }
    let lost: Vec<u32> = results.iter().map(|(_, o)| o.stats.events_lost).collect();
    if lost[0] != BURST - 6 * PER_BUFFER || lost[1] == 0 || lost[1] >= lost[0] {
        return Err(format!("unexpected loss figures {lost:?}").into());
    }
    if lost[2] != 0 || lost[3] != 0 || lost[4] != 0 {
        return Err(format!("unexpected loss figures {lost:?}").into());
    }
    Ok(())
}

/// Runs the burst once on a fresh machine; prints the buffer pool as it goes if `verbose`.
fn run(s: &Scenario, verbose: bool) -> Result<Outcome, Box<dyn std::error::Error>> {
    let mut builder = Kernel::builder().cpus(2).deterministic(7);
    if let Some(bw) = s.drain_bandwidth {
        builder = builder.drain_bandwidth(bw);
    }
    let kernel = builder.build()?;
    let app = kernel.spawn("burst.exe", Token::user("alice"))?;
    let guid: Guid = "{5eed0001-1234-4567-89ab-cdef00000001}".parse()?;
    let provider = app.register_provider(guid)?;

    // A file session; the MemorySink stands in for the disk and keeps what was written.
    let sink = MemorySink::new();
    let session = kernel
        .session("Burst")
        .log_file("burst.etl")
        .sink(sink.clone())
        .buffer_size_kb(4)
        .minimum_buffers(4)
        .maximum_buffers(s.maximum_buffers)
        .start()?;
    session.enable(guid, &EnableParams::new().level(Level::VERBOSE))?;

    let q = session.query()?;
    if verbose {
        println!(
            "  after StartTrace: BufferSize {} KB, MinimumBuffers {}, MaximumBuffers {}",
            q.buffer_size_kb, q.minimum_buffers, q.maximum_buffers
        );
        println!(
            "  NumberOfBuffers {} (allocated now, BUF-01), FreeBuffers {}\n",
            q.number_of_buffers, q.free_buffers
        );
        println!(
            "  {:>6} {:>8} {:>6} {:>6} {:>8} {:>8} {:>8}  what happened",
            "event", "NumBufs", "Free", "in use", "waiting", "Lost", "Written"
        );
    }

    let descriptor = EventDescriptor::new(1, Level::INFORMATION, Keyword(0x1));
    let mut recorded = 0;
    let mut first_loss = None;
    let mut peak_buffers = q.number_of_buffers;
    let mut last = (
        q.number_of_buffers,
        q.free_buffers,
        session.pending_buffers(),
    );
    for n in 1..=BURST {
        let mut payload = [0u8; PAYLOAD];
        payload[..4].copy_from_slice(&n.to_le_bytes());
        let result = provider.write(&descriptor, &[&payload]);
        match &result {
            Ok(()) => recorded += 1,
            Err(e) if first_loss.is_none() => first_loss = Some((n, e.win32_code())),
            Err(_) => {}
        }
        if s.drain_bandwidth.is_some() {
            kernel.advance(PACE); // the logger works while the writer keeps writing
        }
        let q = session.query()?;
        peak_buffers = peak_buffers.max(q.number_of_buffers);
        let now = (
            q.number_of_buffers,
            q.free_buffers,
            session.pending_buffers(),
        );
        if verbose {
            let note = match &result {
                Err(e) if first_loss.is_some_and(|(f, _)| f == n) => {
                    format!(
                        "LOSS STARTS: the buffer is full, none is free, the pool is at its maximum:\n  {:>57}the write returns {}, EventsLost + 1 (EVT-07)",
                        "",
                        e.win32_code()
                    )
                }
                Err(_) if n == BURST => "…and every later write is lost too".to_string(),
                Ok(()) if n == 1 => {
                    "first event: CPU 0 takes a free buffer as its in-use buffer".into()
                }
                Ok(()) if now.0 > last.0 => {
                    "buffer full → waits for the logger; no free one → the pool grows (BUF-04)"
                        .into()
                }
                Ok(()) if now != last => {
                    "buffer full → waits for the logger; a free one takes over (BUF-03)".into()
                }
                _ => String::new(),
            };
            if !note.is_empty() {
                // In use: CPU 0's current buffer (NumberOfBuffers − free − waiting).
                let in_use = q.number_of_buffers as usize - q.free_buffers as usize - now.2;
                println!(
                    "  {:>6} {:>8} {:>6} {:>6} {:>8} {:>8} {:>8}  {}",
                    n,
                    q.number_of_buffers,
                    q.free_buffers,
                    in_use,
                    now.2,
                    q.events_lost,
                    q.buffers_written,
                    note
                );
            }
        }
        last = now;
    }

    if verbose {
        let q = session.query()?;
        println!(
            "\n  after the burst: {} writes succeeded, EventsLost = {}, BuffersWritten = {}",
            recorded, q.events_lost, q.buffers_written
        );
        println!(
            "  (nothing is written yet: in deterministic mode the logger runs only when stepped)"
        );
        kernel.run_pending();
        let q = session.query()?;
        println!(
            "  Kernel::run_pending(): the logger writes the waiting buffers out and frees them:"
        );
        println!(
            "    BuffersWritten = {}, FreeBuffers = {}, EventsLost still {} (lost is lost)",
            q.buffers_written, q.free_buffers, q.events_lost
        );
        if let Some(h) = sink.buffers().first().and_then(|b| BufferHeader::decode(b)) {
            println!(
                "  the first buffer written has sequence {} and flags {:#x}{}",
                h.sequence,
                h.flags,
                if h.flags & buffer_flags::EVENTS_LOST != 0 {
                    " (PROC_INDEX | EVENTS_LOST: the session lost events since its last buffer)"
                } else {
                    ""
                }
            );
        }
        println!("  the first refused write also handed CPU 0's full in-use buffer to the logger");
        println!("  (BUF-03), so all 6 are written. From now on writes succeed again, until the");
        println!("  free buffers run out once more.");
    }

    // ControlTrace(STOP) flushes what is left and returns the final statistics.
    let stats = session.stop()?;
    let in_sink = sink
        .records()
        .iter()
        .filter(|r| r.user_data.len() == PAYLOAD)
        .count();
    Ok(Outcome {
        recorded,
        first_loss,
        peak_buffers,
        stats,
        in_sink,
    })
}
