//! Deterministic mode is reproducible: a fixed lossy scenario — three providers in two
//! processes, threads on four CPUs, two sessions writing to `MemorySink`s, a burst that loses
//! events, FlushTimers driven by `Kernel::advance`, a limited drain bandwidth, STOP — gives
//! byte-identical buffers, identical statistics and the same enable callbacks every time it
//! runs, and the same bytes on every OS (a committed golden hash).
//!
//! The scenario uses no OS threads and no real clock: the kernel is deterministic, writes run
//! on simulated threads entered on the test's own thread, and time moves only with `advance`.
use crate::common;
use common::*;

use etwsim::{
    ActivityControl, EnableNotification, EnableParams, EnableProperty, EventDescriptor, Guid,
    Kernel, Keyword, Level, MemorySink, Opcode, Provider, SessionProperties, Thread, Token,
};
use etwsim_types::EventRecord;
use etwsim_types::record::{BufferHeader, decode_buffer};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// 64-bit FNV-1a of every buffer of both sinks, in order (session "Lossy" first, then "Wide").
///
/// To regenerate after an intended change of the event path's output, run
/// `ETWSIM_PRINT_GOLDEN=1 cargo test --test engine determinism:: -- --nocapture`, check the
/// change is the one you meant, and paste the printed value here.
const GOLDEN_FNV1A: u64 = 0x8ffb_66a7_f4b6_65a6;

/// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Everything observable the scenario produces.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    /// Every buffer the sessions wrote, in order.
    lossy_buffers: Vec<Vec<u8>>,
    wide_buffers: Vec<Vec<u8>>,
    /// QUERY results at checkpoints, the STOP results, and what the sinks were closed with.
    stats: Vec<SessionProperties>,
    /// Every enable callback, labelled with its registration, in delivery order.
    callbacks: Vec<(&'static str, EnableNotification)>,
    /// (event id, Win32 code) of every write.
    writes: Vec<(u16, u32)>,
    /// Buffers in (Lossy, Wide)'s sinks just before and just after the 2.1-second step.
    timer_window: [(usize, usize); 2],
    /// (TID, CPU) of the four writing threads.
    threads: Vec<(u32, u16)>,
}

type CallbackLog = Arc<Mutex<Vec<(&'static str, EnableNotification)>>>;

fn logging(
    log: &CallbackLog,
    label: &'static str,
) -> impl Fn(&EnableNotification) + Send + Sync + 'static {
    let log = log.clone();
    move |n: &EnableNotification| log.lock().unwrap().push((label, n.clone()))
}

fn write_on(
    writes: &mut Vec<(u16, u32)>,
    thread: &Thread,
    provider: &Provider,
    desc: &EventDescriptor,
    payload: &[u8],
) {
    let _on = thread.enter();
    let code = provider
        .write(desc, &[payload])
        .map_or_else(|e| e.win32_code().code(), |()| 0);
    writes.push((desc.id, code));
}

/// The fixed scenario. Every number in it is arbitrary but fixed.
fn scenario() -> Outcome {
    scenario_on(false)
}

/// [`scenario`] on a plain deterministic kernel, or on a single-threaded one
/// (`KernelBuilder::single_threaded`, its own engine).
fn scenario_on(single_threaded: bool) -> Outcome {
    let b = Kernel::builder()
        .cpus(4)
        .deterministic(0x00E7_5EED)
        .drain_bandwidth(2_000_000);
    let k = if single_threaded {
        b.single_threaded()
    } else {
        b
    }
    .build()
    .unwrap();
    let log: CallbackLog = Arc::default();
    let mut writes = Vec::new();
    let mut stats = Vec::new();

    let alpha = k.spawn("alpha.exe", Token::user("alice")).unwrap();
    let beta = k.spawn("beta.exe", Token::administrator("admin")).unwrap();
    let (g1, g2, g3) = (guid(1), guid(2), guid(3));

    // Registered before any session: the callbacks come with the enables (PRV-06).
    let p1 = alpha
        .register_provider_with_callback(g1, logging(&log, "alpha/g1"))
        .unwrap();
    let p2 = alpha
        .register_provider_with_callback(g2, logging(&log, "alpha/g2"))
        .unwrap();

    let lossy_sink = MemorySink::new();
    let lossy = k
        .session("Lossy")
        .log_file("lossy.etl")
        .sink(lossy_sink.clone())
        .buffer_size_kb(4)
        .minimum_buffers(8)
        .maximum_buffers(10)
        .flush_timer(1)
        .start()
        .unwrap();
    let wide_sink = MemorySink::new();
    let wide = k
        .session("Wide")
        .log_file("wide.etl")
        .sink(wide_sink.clone())
        .buffer_size_kb(8)
        .minimum_buffers(8)
        .maximum_buffers(40)
        .flush_timer(2)
        .start()
        .unwrap();

    lossy
        .enable(g1, &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    lossy
        .enable(g2, &EnableParams::new().level(Level::WARNING).any(0x1))
        .unwrap();
    lossy
        .enable(
            g3,
            &EnableParams::new()
                .level(Level::INFORMATION)
                .property(EnableProperty::EVENT_KEY | EnableProperty::SID),
        )
        .unwrap();
    wide.enable(
        g1,
        &EnableParams::new()
            .level(Level::INFORMATION)
            .property(EnableProperty::STACK_TRACE | EnableProperty::PROCESS_START_KEY),
    )
    .unwrap();
    wide.enable(
        g3,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(0x6)
            .property(EnableProperty::EVENT_KEY | EnableProperty::TS_ID),
    )
    .unwrap();

    // Registered after the enables: the callback runs inside the registration (PRV-07).
    let p3 = beta
        .register_provider_with_callback(g3, logging(&log, "beta/g3"))
        .unwrap();

    let t0 = alpha.spawn_thread(0).unwrap();
    let t1 = alpha.spawn_thread(1).unwrap();
    let t2 = beta.spawn_thread(2).unwrap();
    let t3 = beta.spawn_thread(3).unwrap();
    t1.set_stack(&[0x7ff6_0000_1000, 0x7ff6_0000_2000]);
    let mut created = Guid::NULL;
    t2.activity_id_control(ActivityControl::CreateSetId, &mut created);

    // Phase 1: paced traffic from every thread, the loggers draining at 2 MB/s.
    for i in 0..160u16 {
        let payload = vec![i as u8; 24 + usize::from(i % 7) * 16];
        match i % 4 {
            0 => write_on(
                &mut writes,
                &t0,
                &p1,
                &EventDescriptor::new(100 + i % 5, Level(1 + (i % 5) as u8), Keyword(0x1)),
                &payload,
            ),
            1 => write_on(
                &mut writes,
                &t1,
                &p2,
                &EventDescriptor::new(200 + i % 3, Level::ERROR, Keyword(1 + u64::from(i / 4 % 2)))
                    .with_opcode(Opcode(1)),
                &payload,
            ),
            2 => write_on(
                &mut writes,
                &t2,
                &p3,
                &EventDescriptor::new(300, Level::INFORMATION, Keyword(0x2)),
                &payload,
            ),
            _ => write_on(
                &mut writes,
                &t3,
                &p3,
                &EventDescriptor::new(301, Level::VERBOSE, Keyword(0x4)),
                &payload,
            ),
        }
        k.advance(Duration::from_micros(250));
    }
    stats.push(lossy.query().unwrap());
    stats.push(wide.query().unwrap());

    // Phase 2: a burst on CPU 0 with no time for the loggers: Lossy runs out of buffers
    // (BUF-04, EVT-07) and, as both sessions are dependent, Wide drops those events too
    // (EVT-09).
    for i in 0..500u16 {
        write_on(
            &mut writes,
            &t0,
            &p1,
            &EventDescriptor::new(400, Level::WARNING, Keyword(0x1)),
            &[i as u8; 100],
        );
    }
    stats.push(lossy.query().unwrap());
    stats.push(wide.query().unwrap());

    // Phase 3: time passes in steps: the limited bandwidth drains the backlog a little at a
    // time, then the FlushTimers (1 s and 2 s) seal the partial buffers (SES-63).
    for step in 0..30u16 {
        write_on(
            &mut writes,
            &t1,
            &p1,
            &EventDescriptor::new(500 + step, Level::ERROR, Keyword(0x8)),
            &step.to_le_bytes(),
        );
        k.advance(Duration::from_millis(1));
    }
    stats.push(lossy.query().unwrap());
    let before_timer = (lossy_sink.buffers().len(), wide_sink.buffers().len());
    k.advance(Duration::from_millis(2_100));
    let after_timer = (lossy_sink.buffers().len(), wide_sink.buffers().len());
    stats.push(lossy.query().unwrap());
    stats.push(wide.query().unwrap());

    // Phase 4: a little more traffic, then STOP (disable callbacks, final flush).
    for i in 0..20u16 {
        write_on(
            &mut writes,
            if i % 2 == 0 { &t2 } else { &t3 },
            &p3,
            &EventDescriptor::new(600, Level::INFORMATION, Keyword(0x2)),
            &[0xA5; 40],
        );
    }
    stats.push(lossy.stop().unwrap());
    stats.push(wide.stop().unwrap());
    stats.push(lossy_sink.closed().expect("Lossy's sink was closed"));
    stats.push(wide_sink.closed().expect("Wide's sink was closed"));

    let callbacks = log.lock().unwrap().clone();
    Outcome {
        lossy_buffers: lossy_sink.buffers(),
        wide_buffers: wide_sink.buffers(),
        stats,
        callbacks,
        writes,
        timer_window: [before_timer, after_timer],
        threads: [&t0, &t1, &t2, &t3]
            .iter()
            .map(|t| (t.tid(), t.cpu()))
            .collect(),
    }
}

fn golden_hash(o: &Outcome) -> u64 {
    o.lossy_buffers
        .iter()
        .chain(&o.wide_buffers)
        .fold(FNV_OFFSET, |h, b| fnv1a(h, b))
}

/// Indices into [`Outcome::stats`].
mod at {
    pub(crate) const LOSSY_PACED: usize = 0;
    pub(crate) const WIDE_PACED: usize = 1;
    pub(crate) const LOSSY_BURST: usize = 2;
    pub(crate) const WIDE_BURST: usize = 3;
    pub(crate) const LOSSY_STEPS: usize = 4;
    pub(crate) const LOSSY_STOP: usize = 7;
    pub(crate) const WIDE_STOP: usize = 8;
    pub(crate) const LOSSY_CLOSED: usize = 9;
    pub(crate) const WIDE_CLOSED: usize = 10;
}

fn records(buffers: &[Vec<u8>]) -> Vec<EventRecord> {
    buffers.iter().flat_map(|b| decode_buffer(b).0).collect()
}

fn count_id(records: &[EventRecord], id: u16) -> usize {
    records
        .iter()
        .filter(|r| r.header.descriptor.id == id)
        .count()
}

// The scenario is what it claims to be: it loses events, all or none, and its timers flush.
// rule: BUF-02
// rule: BUF-04
// rule: EVT-07
// rule: EVT-09
// rule: SES-63
#[test]
fn the_scenario_loses_events_all_or_none_and_flushes_on_timers() {
    let o = scenario();
    let s = &o.stats;
    let (lossy, wide) = (records(&o.lossy_buffers), records(&o.wide_buffers));

    // BUF-04: paced, nothing is lost; the burst grows Lossy to MaximumBuffers (10), never
    // beyond, and then events are lost.
    assert_eq!(
        (
            s[at::LOSSY_PACED].events_lost,
            s[at::WIDE_PACED].events_lost
        ),
        (0, 0)
    );
    assert_eq!(s[at::LOSSY_BURST].number_of_buffers, 10);
    assert!(
        s.iter()
            .filter(|p| p.name == "Lossy")
            .all(|p| p.number_of_buffers <= 10)
    );
    assert!(s[at::LOSSY_BURST].events_lost > 0);

    // EVT-07: every lost event was reported to its writer as ERROR_NOT_ENOUGH_MEMORY (8), and
    // EventsLost counts exactly those; no other error occurred.
    assert!(
        o.writes.iter().all(|&(_, c)| c == 0 || c == 8),
        "{:?}",
        o.writes
    );
    let failed = o.writes.iter().filter(|&&(_, c)| c == 8).count();
    assert_eq!(failed, s[at::LOSSY_STOP].events_lost as usize);
    assert_eq!(
        s[at::LOSSY_STOP].events_lost,
        s[at::LOSSY_CLOSED].events_lost
    );

    // EVT-09: Wide had room, yet it holds exactly the burst events Lossy holds (all or
    // none); the choice: only the session that had no room counts the loss.
    let burst_ok = o
        .writes
        .iter()
        .filter(|&&(id, c)| id == 400 && c == 0)
        .count();
    assert!(burst_ok < 500);
    assert_eq!(count_id(&lossy, 400), burst_ok);
    assert_eq!(count_id(&wide, 400), burst_ok);
    for id in 500..530 {
        let ok = o.writes.contains(&(id, 0));
        assert_eq!(count_id(&lossy, id), usize::from(ok), "id {id} in Lossy");
        assert_eq!(count_id(&wide, id), usize::from(ok), "id {id} in Wide");
    }
    assert_eq!(
        (s[at::WIDE_BURST].events_lost, s[at::WIDE_STOP].events_lost),
        (0, 0)
    );
    assert_eq!(s[at::WIDE_STOP], s[at::WIDE_CLOSED]);

    // SES-63: nothing was written during the 2.1-second step, yet both sessions wrote
    // buffers in it, among them partly filled ones (more free space than any record of the
    // scenario needs: no event sealed them, the FlushTimer did); after it, every step event
    // the sessions took is written out, the last one (id 529) by the timer flush.
    let [(l0, w0), (l1, w1)] = o.timer_window;
    assert!(l1 > l0 && w1 > w0, "{:?}", o.timer_window);
    assert!(s[at::LOSSY_STEPS].buffers_written < s[at::LOSSY_STEPS + 1].buffers_written);
    let step_ok: Vec<u16> = (500..530)
        .filter(|&id| o.writes.contains(&(id, 0)))
        .collect();
    assert!(step_ok.contains(&529), "{:?}", o.writes);
    for (name, buffers, window) in [
        ("Lossy", &o.lossy_buffers, l0..l1),
        ("Wide", &o.wide_buffers, w0..w1),
    ] {
        let partial = buffers[window.clone()]
            .iter()
            .filter(|b| {
                let h = BufferHeader::decode(b).unwrap();
                h.buffer_size - h.used >= 512
            })
            .count();
        assert!(partial >= 2, "{name}: {partial} partial buffers");
        let by_then: Vec<u16> = records(&buffers[..window.end])
            .iter()
            .map(|r| r.header.descriptor.id)
            .collect();
        assert!(
            step_ok.iter().all(|id| by_then.contains(id)),
            "{name}: {by_then:?}"
        );
        assert_eq!(count_id(&records(&buffers[window]), 529), 1, "{name}");
    }

    // BUF-02: each buffer belongs to one CPU, and holds only events of threads on that CPU.
    for b in o.lossy_buffers.iter().chain(&o.wide_buffers) {
        let h = BufferHeader::decode(b).unwrap();
        for r in decode_buffer(b).0 {
            let cpu = o
                .threads
                .iter()
                .find(|t| t.0 == r.header.thread_id)
                .map(|t| t.1);
            assert_eq!(
                cpu,
                Some(h.processor),
                "event {} in a CPU {} buffer",
                r.header.descriptor.id,
                h.processor
            );
        }
    }
}

// Deterministic mode's promise: the same program gives the same results every run — the
// same bytes in every buffer, the same statistics, the same callbacks, on every OS.
#[test]
fn a_lossy_scenario_replays_byte_for_byte_and_matches_the_golden_hash() {
    let first = scenario();
    let second = scenario();

    assert_eq!(first.lossy_buffers.len(), second.lossy_buffers.len());
    for (i, (a, b)) in first
        .lossy_buffers
        .iter()
        .zip(&second.lossy_buffers)
        .enumerate()
    {
        assert!(a == b, "Lossy buffer {i} differs between runs");
    }
    assert_eq!(first.wide_buffers.len(), second.wide_buffers.len());
    for (i, (a, b)) in first
        .wide_buffers
        .iter()
        .zip(&second.wide_buffers)
        .enumerate()
    {
        assert!(a == b, "Wide buffer {i} differs between runs");
    }
    assert_eq!(first.stats, second.stats);
    assert_eq!(first.callbacks, second.callbacks);
    assert_eq!(first.writes, second.writes);
    assert_eq!(first, second);

    let hash = golden_hash(&first);
    if std::env::var_os("ETWSIM_PRINT_GOLDEN").is_some() {
        println!("GOLDEN_FNV1A = {hash:#018x}");
    }
    assert_eq!(
        hash, GOLDEN_FNV1A,
        "the scenario's buffers changed: if intended, regenerate GOLDEN_FNV1A (see its comment)"
    );
}

// The single-threaded engine writes what the shared path writes: the same scenario on a
// single-threaded kernel gives the same outcome and the golden hash (its lane serves the
// registrations with one session: g2 into Lossy).
#[test]
fn the_scenario_on_a_single_threaded_kernel_matches_the_golden_hash() {
    let single = scenario_on(true);
    assert_eq!(golden_hash(&single), GOLDEN_FNV1A);
    assert_eq!(single, scenario());
}

// The hash above is the standard FNV-1a: the published test vectors.
#[test]
fn fnv1a_gives_the_reference_values() {
    assert_eq!(fnv1a(FNV_OFFSET, b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(FNV_OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(FNV_OFFSET, b"foobar"), 0x8594_4171_f739_67e8);
}

/// The write path has a lean branch for the common record (`Provider::write` of one data
/// block into a single session, no option, no journal). It must write exactly what the general
/// path writes: the same workload through `write` and through `write_with_options` with the
/// thread's own activity ID as an option (an option: the general path) gives byte-identical
/// buffers, the
/// same results and the same statistics — odd payload lengths, the thread's activity ID, a
/// level/keyword gate that drops some events, and a burst that runs out of buffers (EVT-07).
// rule: EVT-07
// rule: EVT-11
// rule: EVT-14
#[test]
fn the_plain_write_path_writes_what_the_general_path_writes() {
    fn run(general: bool) -> (Vec<Vec<u8>>, Vec<u32>, SessionProperties) {
        let k = Kernel::builder().deterministic(7).build().unwrap();
        let app = k.spawn("app.exe", Token::user("u")).unwrap();
        let p = app.register_provider(guid(0x77)).unwrap();
        let t = app.spawn_thread(0).unwrap();
        let activity = Guid::from_u128(0x0123_4567_89ab_cdef_0011_2233_4455_6677);
        t.set_activity_id(activity);
        let _on = t.enter();
        let sink = MemorySink::new();
        let s = k
            .session("Plain")
            .log_file("plain.etl")
            .sink(sink.clone())
            .buffer_size_kb(4)
            .minimum_buffers(2)
            .maximum_buffers(3)
            .start()
            .unwrap();
        s.enable(
            guid(0x77),
            &EnableParams::new().level(Level::INFORMATION).any(0x3),
        )
        .unwrap();
        let options = etwsim::WriteOptions {
            activity_id: Some(&activity),
            ..etwsim::WriteOptions::default()
        };
        let mut codes = Vec::new();
        let data: Vec<u8> = (0..=255u8).collect();
        for i in 0..1200u16 {
            let level = Level([2, 4, 5][usize::from(i % 3)]);
            let desc = EventDescriptor {
                id: i,
                version: (i % 5) as u8,
                opcode: Opcode((i % 7) as u8),
                ..EventDescriptor::new(i, level, Keyword(u64::from(i % 4)))
            };
            let payload = &data[..usize::from(i % 71)];
            let r = if general {
                p.write_with_options(&desc, &options, &[payload])
            } else {
                p.write(&desc, &[payload])
            };
            codes.push(r.map_or_else(|e| e.win32_code().code(), |()| 0));
            if i % 600 == 599 {
                k.run_pending();
            }
        }
        let stats = s.stop().unwrap();
        (sink.buffers(), codes, stats)
    }
    let (plain, general) = (run(false), run(true));
    assert!(
        plain.1.iter().any(|&c| c != 0),
        "the burst is meant to run out of buffers"
    );
    assert!(plain.2.events_lost > 0);
    assert_eq!(plain, general);
}

/// The lean branch also serves a writer that entered no simulated thread, once the threaded
/// kernel has given its OS thread an implicit one: the records written through it carry the
/// same thread as the general path's (EVT-14's activity ID included), and nothing is lost.
#[test]
fn writes_with_no_thread_entered_keep_their_implicit_thread() {
    let k = Kernel::builder().threaded().cpus(2).build().unwrap();
    let app = k.spawn("app.exe", Token::user("u")).unwrap();
    let p = app.register_provider(guid(0x78)).unwrap();
    let sink = MemorySink::new();
    let s = k
        .session("Implicit")
        .log_file("implicit.etl")
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(guid(0x78), &EnableParams::new()).unwrap();
    let desc = EventDescriptor::new(1, Level::INFORMATION, Keyword(0));
    // The implicit thread's activity ID (none set: zeros), as an option: the general path.
    let zero = Guid::from_u128(0);
    let options = etwsim::WriteOptions {
        activity_id: Some(&zero),
        ..etwsim::WriteOptions::default()
    };
    // The first write finds no thread listed (the general path makes and lists one), the
    // next ones take the lean branch, the last the general path again.
    for k in 0..4u8 {
        if k == 3 {
            p.write_with_options(&desc, &options, &[&[k]]).unwrap();
        } else {
            p.write(&desc, &[&[k]]).unwrap();
        }
    }
    assert_eq!(s.stop().unwrap().events_lost, 0);
    let records = sink.records();
    assert_eq!(records.len(), 4);
    let first = &records[0].header;
    for r in &records {
        assert_eq!(r.header.thread_id, first.thread_id);
        assert_eq!(r.header.process_id, app.pid());
        assert_eq!(r.header.activity_id, first.activity_id);
    }
}

/// What the seed changes, as `KernelBuilder::deterministic` documents it: the GUIDs of
/// sessions started without one, and nothing the calls decide (timestamps, CPUs, loss, the
/// files' bytes).
#[test]
fn the_seed_changes_session_guids_and_nothing_the_calls_decide() {
    fn run(seed: u64) -> (Guid, Vec<Vec<u8>>, SessionProperties) {
        let k = Kernel::builder().deterministic(seed).build().unwrap();
        let app = k.spawn("app.exe", Token::user("u")).unwrap();
        let p = app.register_provider(guid(0x78)).unwrap();
        let sink = MemorySink::new();
        let s = k
            .session("Seeded")
            .log_file("seeded.etl")
            .sink(sink.clone())
            .start()
            .unwrap();
        s.enable(guid(0x78), &EnableParams::new()).unwrap();
        for i in 0..50u32 {
            k.advance(Duration::from_micros(u64::from(i)));
            p.write(
                &EventDescriptor::new(i as u16, Level::ERROR, Keyword(0)),
                &[&i.to_le_bytes()],
            )
            .unwrap();
        }
        let guid = s.guid();
        let stats = s.stop().unwrap();
        (guid, sink.buffers(), stats)
    }
    let (g42, files42, stats42) = run(42);
    let (g43, files43, stats43) = run(43);
    assert_ne!(g42, g43, "the seed picks the session GUID");
    assert_eq!(run(42).0, g42, "the same seed, the same GUID");
    assert_eq!(files42, files43, "the files follow from the calls alone");
    assert_eq!(stats42.buffers_written, stats43.buffers_written);
}
