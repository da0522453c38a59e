//! Threaded stress test of the event path: two writer OS threads, a million events each, into
//! deliberately small buffers of three sessions at once — a real-time session drained by a
//! consumer while the writers run, a file session writing to a `MemorySink`, and an
//! INDEPENDENT_SESSION_MODE file session whose sink is held shut at first so it must lose
//! events. After stop every event is accounted for exactly, per session:
//! written = delivered + EventsLost; no record is torn, none is delivered twice.
//!
//! What "written" is: each event is written through two providers — one enabled only on the
//! real-time session, one enabled on the MemorySink session and the independent one. So every
//! write has exactly one non-independent target, whose outcome the write returns (EVT-09):
//! `Ok` means that session recorded it, `Err(NoFreeBuffer)` that it lost it (EVT-07). Per
//! session the writes that reached it are known exactly: both writers' `EVENTS`, of which the
//! returned `Ok`s must be delivered and the `Err`s counted in EventsLost. The independent
//! session's outcome is not reported (EVT-10): only its total is checked.
//!
//! Each payload is (TID, sequence number, a check word of both), so a torn or mixed-up record
//! is caught. Order: within one buffer a thread's records are always in write order; across
//! buffers order is not guaranteed in general (BUF-11 — the loom model in
//! `crates/kernel/src/buffer.rs` shows the interleavings), but it is for a thread alone on its
//! CPU in a session with no flusher other than the writers themselves: there a thread's
//! sequence numbers must be strictly increasing in delivery order. Everywhere, a thread's
//! timestamps never go down as its sequence numbers go up, so a consumer's re-sort by
//! timestamp (CON-04) gives back each thread's order.
//!
//! No sleeps: the writers open the held sink through a condition variable once each wrote
//! `GATE_AFTER` events, and the consumer waits on delivery notifications.
use crate::common;
use common::*;
use etwsim::record::decode_buffer;
use etwsim::{
    BufferHeader, BufferInfo, ConsumerOptions, EnableParams, Error, EventDescriptor, EventRecord,
    Guid, Kernel, Keyword, Level, LogFileMode, MemorySink, Provider, SessionProperties, Sink,
    Thread, Token,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Events each writer thread writes (through each of the two providers).
const EVENTS: u32 = 1_000_000;
/// Events each writer writes before the independent session's sink starts taking buffers.
const GATE_AFTER: u32 = 20_000;
/// MaximumBuffers of every session in the lossy runs (MinimumBuffers is 4: 2 × 2 CPUs).
const FEW_BUFFERS: u32 = 6;
/// MaximumBuffers in the run where the logger mostly keeps up.
const MANY_BUFFERS: u32 = 128;
/// 80-byte header + 16-byte payload.
const RECORD_SIZE: usize = 96;
/// Records in one 4 KB buffer: (4096 − 0x48) / 96.
const RECORDS_PER_BUFFER: u64 = (4096 - 0x48) / RECORD_SIZE as u64;

fn payload(tid: u32, seq: u32) -> [u8; 16] {
    let mut p = [0u8; 16];
    p[..4].copy_from_slice(&tid.to_le_bytes());
    p[4..8].copy_from_slice(&seq.to_le_bytes());
    p[8..].copy_from_slice(&check_word(tid, seq).to_le_bytes());
    p
}

fn check_word(tid: u32, seq: u32) -> u64 {
    ((u64::from(tid) << 32) | u64::from(seq)) ^ 0x9E37_79B9_7F4A_7C15
}

/// Holds a sink's buffers back until `writers` writers have arrived.
#[derive(Default)]
struct Gate {
    arrived: Mutex<u32>,
    cv: Condvar,
}

impl Gate {
    fn arrive(&self) {
        *self.arrived.lock().unwrap() += 1;
        self.cv.notify_all();
    }

    fn wait_for(&self, writers: u32) {
        let mut n = self.arrived.lock().unwrap();
        while *n < writers {
            n = self.cv.wait(n).unwrap();
        }
    }
}

/// A writer's arrival at the gate: at `GATE_AFTER` events, or when the writer ends early.
struct Arrival<'a>(Option<&'a Gate>);

impl Arrival<'_> {
    fn arrive(&mut self) {
        if let Some(g) = self.0.take() {
            g.arrive();
        }
    }
}

impl Drop for Arrival<'_> {
    fn drop(&mut self) {
        self.arrive();
    }
}

/// A `MemorySink` whose first buffer waits at the gate: the session's logger is stuck, its
/// buffers fill up, and the writers must lose events — however the OS schedules the threads.
struct GatedSink {
    inner: MemorySink,
    gate: Arc<Gate>,
    writers: u32,
}

impl Sink for GatedSink {
    fn write_buffer(&mut self, buffer: &[u8], info: &BufferInfo) -> std::io::Result<()> {
        self.gate.wait_for(self.writers);
        self.inner.write_buffer(buffer, info)
    }

    fn close(&mut self, stats: &SessionProperties) -> std::io::Result<()> {
        self.inner.close(stats)
    }
}

/// The outcome of one writer's writes through one provider.
#[derive(Copy, Clone, Debug, Default)]
struct Outcome {
    ok: u64,
    lost: u64,
}

/// What one session delivered, checked record by record as it arrives.
struct Tally {
    session: &'static str,
    provider: Guid,
    pid: u32,
    tids: [u32; 2],
    cpus: [u16; 2],
    /// Whether each thread's sequence numbers must be strictly increasing across buffers.
    strict_across_buffers: bool,
    seen: [Vec<bool>; 2],
    timestamps: [Vec<i64>; 2],
    last_seq: [Option<u32>; 2],
    delivered: u64,
    buffers: u64,
    lost_markers: u64,
    reordered_across_buffers: u64,
    /// Explicit FLUSHes done while the writers ran (real-time session).
    flushes: u64,
}

impl Tally {
    fn new(
        session: &'static str,
        provider: Guid,
        pid: u32,
        threads: &[Thread; 2],
        strict_across_buffers: bool,
    ) -> Tally {
        Tally {
            session,
            provider,
            pid,
            tids: [threads[0].tid(), threads[1].tid()],
            cpus: [threads[0].cpu(), threads[1].cpu()],
            strict_across_buffers,
            seen: [vec![false; EVENTS as usize], vec![false; EVENTS as usize]],
            timestamps: [vec![0; EVENTS as usize], vec![0; EVENTS as usize]],
            last_seq: [None, None],
            delivered: 0,
            buffers: 0,
            lost_markers: 0,
            reordered_across_buffers: 0,
            flushes: 0,
        }
    }

    /// One delivered buffer's records, in buffer order; `used` is its header's used bytes,
    /// which its records must fill exactly (a torn record would end the decoding early).
    fn buffer(&mut self, records: &[EventRecord], used: u32) {
        let s = self.session;
        self.buffers += 1;
        let events = records
            .iter()
            .filter(|r| r.header.provider_id != Guid::RT_LOST_EVENT)
            .count();
        assert_eq!(
            0x48 + events * RECORD_SIZE,
            used as usize,
            "{s}: {events} records do not fill the buffer's {used} used bytes"
        );
        let mut last_in_buffer: [Option<u32>; 2] = [None, None];
        for r in records {
            if r.header.provider_id == Guid::RT_LOST_EVENT {
                self.lost_markers += 1; // RTLostEvent: the session lost events (BUF-14)
                continue;
            }
            assert_eq!(r.header.provider_id, self.provider, "{s}: provider");
            assert_eq!(r.header.process_id, self.pid, "{s}: process id");
            assert_eq!(usize::from(r.header.size), RECORD_SIZE, "{s}: record size");
            assert!(r.extended_data.is_empty(), "{s}: extended items");
            assert_eq!(r.user_data.len(), 16, "{s}: payload length");
            let tid = u32::from_le_bytes(r.user_data[..4].try_into().unwrap());
            let seq = u32::from_le_bytes(r.user_data[4..8].try_into().unwrap());
            let check = u64::from_le_bytes(r.user_data[8..].try_into().unwrap());
            assert_eq!(check, check_word(tid, seq), "{s}: torn payload {tid} {seq}");
            assert_eq!(
                r.header.thread_id, tid,
                "{s}: header and payload TID differ"
            );
            let t = self
                .tids
                .iter()
                .position(|&x| x == tid)
                .unwrap_or_else(|| panic!("{s}: unknown TID {tid}"));
            assert_eq!(
                r.buffer_context.processor_index, self.cpus[t],
                "{s}: the record of a thread on CPU {} is in another CPU's buffer",
                self.cpus[t]
            );
            assert!(seq < EVENTS, "{s}: sequence {seq} out of range");
            assert!(
                !std::mem::replace(&mut self.seen[t][seq as usize], true),
                "{s}: TID {tid} sequence {seq} delivered twice"
            );
            self.timestamps[t][seq as usize] = r.header.timestamp;
            if let Some(prev) = last_in_buffer[t] {
                assert!(
                    seq > prev,
                    "{s}: TID {tid}: sequence {seq} after {prev} in one buffer"
                );
            }
            last_in_buffer[t] = Some(seq);
            if let Some(prev) = self.last_seq[t] {
                if seq < prev {
                    assert!(
                        !self.strict_across_buffers,
                        "{s}: TID {tid} alone on CPU {}: sequence {seq} delivered after {prev}",
                        self.cpus[t]
                    );
                    self.reordered_across_buffers += 1;
                }
            }
            self.last_seq[t] = Some(seq);
            self.delivered += 1;
        }
    }

    /// Each thread's timestamps, in sequence order, never go down (CON-04's re-sort works).
    fn check_timestamps(&self) {
        for t in 0..2 {
            let mut prev = i64::MIN;
            for seq in 0..EVENTS as usize {
                if self.seen[t][seq] {
                    let ts = self.timestamps[t][seq];
                    assert!(
                        ts >= prev,
                        "{}: TID {} sequence {seq} is timestamped before an earlier event",
                        self.session,
                        self.tids[t]
                    );
                    prev = ts;
                }
            }
        }
    }
}

/// The decoded records of every buffer a MemorySink holds, into `tally`.
fn tally_sink(sink: &MemorySink, tally: &mut Tally) {
    for b in sink.buffers() {
        let (records, err) = decode_buffer(&b);
        assert!(
            err.is_none(),
            "{}: undecodable buffer: {err:?}",
            tally.session
        );
        let used = BufferHeader::decode(&b).expect("a buffer header").used;
        tally.buffer(&records, used);
    }
}

/// One writer thread: `EVENTS` events through each provider, as `thread`.
fn writer(
    thread: &Thread,
    rt: &Provider,
    file: &Provider,
    gate: &Gate,
) -> (Outcome, Outcome, Vec<Error>) {
    let _current = thread.enter();
    // Arrives at the gate on drop too, so a panicking writer cannot leave a logger stuck.
    let mut arrival = Arrival(Some(gate));
    let tid = thread.tid();
    let desc = EventDescriptor::new(7, Level::INFORMATION, Keyword(1));
    let (mut to_rt, mut to_file) = (Outcome::default(), Outcome::default());
    let mut unexpected = Vec::new();
    for seq in 0..EVENTS {
        let p = payload(tid, seq);
        for (provider, outcome) in [(rt, &mut to_rt), (file, &mut to_file)] {
            match provider.write(&desc, &[&p]) {
                Ok(()) => outcome.ok += 1,
                Err(Error::NoFreeBuffer) => outcome.lost += 1,
                Err(e) => unexpected.push(e),
            }
        }
        if seq + 1 == GATE_AFTER {
            arrival.arrive();
        }
    }
    (to_rt, to_file, unexpected)
}

fn run(cpus: [u16; 2], max_buffers: u32) {
    let k = Kernel::builder()
        .threaded()
        .cpus(2)
        // Large enough that the consumer never misses a buffer (RealTimeBuffersLost stays 0):
        // every buffer the session flushes reaches it, so only EventsLost can explain a gap.
        .consumer_queue_buffers(200_000)
        .build()
        .unwrap();
    let system = k.system_process();
    let (g_rt, g_file) = (guid(0x51), guid(0x52));
    let rt = k
        .session("stress-rt")
        .real_time()
        .buffer_size_kb(4)
        .maximum_buffers(max_buffers)
        .start()
        .unwrap();
    let mem_sink = MemorySink::new();
    let mem = k
        .session("stress-mem")
        .log_file("stress-mem.etl")
        .sink(mem_sink.clone())
        .buffer_size_kb(4)
        .maximum_buffers(max_buffers)
        .start()
        .unwrap();
    let gate = Arc::new(Gate::default());
    let ind_sink = MemorySink::new();
    let ind = k
        .session("stress-ind")
        .mode(LogFileMode::INDEPENDENT_SESSION)
        .log_file("stress-ind.etl")
        .sink(GatedSink {
            inner: ind_sink.clone(),
            gate: gate.clone(),
            writers: 2,
        })
        .buffer_size_kb(4)
        .maximum_buffers(max_buffers)
        .start()
        .unwrap();
    assert!(
        ind.query()
            .unwrap()
            .log_file_mode
            .contains(LogFileMode::INDEPENDENT_SESSION)
    );
    rt.enable(g_rt, &EnableParams::new()).unwrap();
    mem.enable(g_file, &EnableParams::new()).unwrap();
    ind.enable(g_file, &EnableParams::new()).unwrap();

    let app = user_process(&k, "stress.exe");
    let p_rt = app.register_provider(g_rt).unwrap();
    let p_file = app.register_provider(g_file).unwrap();
    let threads = [
        app.spawn_thread(cpus[0]).unwrap(),
        app.spawn_thread(cpus[1]).unwrap(),
    ];
    // A thread alone on its CPU in a session where only writers seal buffers (no flush
    // timer) has its records delivered in order; the real-time session's 1 s flush timer and
    // a shared CPU both allow reordering across buffers (BUF-11).
    let alone = cpus[0] != cpus[1];
    let mut consumer = k
        .open_realtime(&system, "stress-rt", ConsumerOptions::default())
        .unwrap();
    let mut rt_tally = Tally::new("stress-rt", g_rt, app.pid(), &threads, false);
    let writing = AtomicBool::new(true);
    let stopped = AtomicBool::new(false);

    let (outcomes, rt_stats, rt_tally) = std::thread::scope(|scope| {
        let (writing, stopped, rt_control) = (&writing, &stopped, rt.clone());
        let consuming = scope.spawn(move || {
            loop {
                if let Some((records, _, used)) = consumer.next_buffer() {
                    rt_tally.buffer(&records, used);
                    // Every 32 buffers, a ControlTrace FLUSH races the writers: it seals
                    // in-use buffers they may be writing into (BUF-05).
                    if rt_tally.buffers % 32 == 0 && writing.load(Ordering::Acquire) {
                        match rt_control.flush() {
                            Ok(_) => rt_tally.flushes += 1,
                            Err(e) => assert!(
                                !writing.load(Ordering::Acquire),
                                "FLUSH failed while the session ran: {e}"
                            ),
                        }
                    }
                    continue;
                }
                if stopped.load(Ordering::Acquire) {
                    // Stopped: everything the stop flushed is queued already.
                    while let Some((records, _, used)) = consumer.next_buffer() {
                        rt_tally.buffer(&records, used);
                    }
                    return rt_tally;
                }
                consumer.wait_delivery(Duration::from_millis(100));
            }
        });
        let writers: Vec<_> = threads
            .iter()
            .map(|t| {
                let (p_rt, p_file, gate) = (&p_rt, &p_file, &gate);
                scope.spawn(move || writer(t, p_rt, p_file, gate))
            })
            .collect();
        // Joined without unwrapping: a panicking writer must still let the consumer end,
        // or the scope would wait for it forever.
        let outcomes: Vec<_> = writers.into_iter().map(|w| w.join()).collect();
        writing.store(false, Ordering::Release);
        let rt_stats = rt.stop();
        stopped.store(true, Ordering::Release);
        let rt_tally = consuming.join().unwrap();
        let outcomes: Vec<_> = outcomes.into_iter().map(|o| o.unwrap()).collect();
        (outcomes, rt_stats.unwrap(), rt_tally)
    });
    let mem_stats = mem.stop().unwrap();
    let ind_stats = ind.stop().unwrap();

    for (_, _, unexpected) in &outcomes {
        assert!(
            unexpected.is_empty(),
            "unexpected write errors: {unexpected:?}"
        );
    }
    let sum = |f: fn(&(Outcome, Outcome, Vec<Error>)) -> Outcome| {
        outcomes
            .iter()
            .map(f)
            .fold(Outcome::default(), |a, o| Outcome {
                ok: a.ok + o.ok,
                lost: a.lost + o.lost,
            })
    };
    let to_rt = sum(|o| o.0);
    let to_file = sum(|o| o.1);
    let written = 2 * u64::from(EVENTS);
    assert_eq!(to_rt.ok + to_rt.lost, written);
    assert_eq!(to_file.ok + to_file.lost, written);

    // rule: EVT-07
    // rule: BUF-04
    // The real-time session: what the writes reported is exactly what happened.
    assert_eq!(
        rt_stats.real_time_buffers_lost, 0,
        "the consumer missed buffers"
    );

    assert_eq!(
        rt_tally.delivered, to_rt.ok,
        "stress-rt: delivered = writes that returned Ok"
    );
    assert_eq!(
        u64::from(rt_stats.events_lost),
        to_rt.lost,
        "stress-rt: EventsLost"
    );
    assert_eq!(
        rt_tally.delivered + u64::from(rt_stats.events_lost),
        written
    );
    rt_tally.check_timestamps();

    // The MemorySink session: the same.
    let mut mem_tally = Tally::new("stress-mem", g_file, app.pid(), &threads, alone);
    tally_sink(&mem_sink, &mut mem_tally);
    assert_eq!(mem_stats.log_buffers_lost, 0);
    assert_eq!(mem_stats.buffers_written as u64, mem_tally.buffers);
    assert_eq!(
        mem_tally.delivered, to_file.ok,
        "stress-mem: delivered = writes that returned Ok"
    );
    assert_eq!(
        u64::from(mem_stats.events_lost),
        to_file.lost,
        "stress-mem: EventsLost"
    );
    assert_eq!(
        mem_tally.delivered + u64::from(mem_stats.events_lost),
        written
    );
    mem_tally.check_timestamps();

    // rule: EVT-10
    // rule: SES-53
    // The independent session: its losses are its own, not reported to the writer, yet
    // counted — and its logger was held while 2 × GATE_AFTER events arrived, so it lost at
    // least all that its buffers could not hold.
    let mut ind_tally = Tally::new("stress-ind", g_file, app.pid(), &threads, alone);
    tally_sink(&ind_sink, &mut ind_tally);
    assert_eq!(ind_stats.log_buffers_lost, 0);
    assert_eq!(
        ind_tally.delivered + u64::from(ind_stats.events_lost),
        written
    );
    assert!(
        u64::from(ind_stats.events_lost)
            >= 2 * u64::from(GATE_AFTER) - u64::from(max_buffers) * RECORDS_PER_BUFFER,
        "stress-ind lost only {} events while its logger was held",
        ind_stats.events_lost
    );
    ind_tally.check_timestamps();

    eprintln!(
        "CPUs {cpus:?}, MaximumBuffers {max_buffers}: stress-rt delivered {} lost {} ({} buffers, {} RTLostEvent markers, \
         {} FLUSHes, {} reordered across buffers); stress-mem delivered {} lost {} ({} reordered); \
         stress-ind delivered {} lost {} ({} reordered)",
        rt_tally.delivered,
        rt_stats.events_lost,
        rt_tally.buffers,
        rt_tally.lost_markers,
        rt_tally.flushes,
        rt_tally.reordered_across_buffers,
        mem_tally.delivered,
        mem_stats.events_lost,
        mem_tally.reordered_across_buffers,
        ind_tally.delivered,
        ind_stats.events_lost,
        ind_tally.reordered_across_buffers,
    );
}

// rule: BUF-02
// rule: BUF-03
// rule: BUF-07
#[test]
fn two_threads_on_two_cpus_account_for_every_event_in_three_sessions() {
    run([0, 1], FEW_BUFFERS);
}

// rule: BUF-02
// rule: BUF-03
// rule: BUF-11
#[test]
fn two_threads_on_one_cpu_account_for_every_event_in_three_sessions() {
    run([0, 0], FEW_BUFFERS);
}

// rule: BUF-04
// rule: BUF-05
#[test]
fn two_threads_with_room_to_spare_account_for_every_event_in_three_sessions() {
    run([0, 1], MANY_BUFFERS);
}

// rule: BUF-09
#[test]
fn a_buffering_session_keeps_its_ring_while_logger_threads_run() {
    // Threaded mode: the session's logger thread is woken at every full buffer, yet a
    // BUFFERING session writes nothing until FLUSH, then exactly its ring: the newest events.
    const N: u32 = 100_000;
    let k = Kernel::builder().threaded().cpus(1).build().unwrap();
    let sink = MemorySink::new();
    let s = k
        .session("ring")
        .buffering()
        .buffer_size_kb(4)
        .minimum_buffers(4)
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(guid(0x53), &EnableParams::new()).unwrap();
    let app = user_process(&k, "ring.exe");
    let p = app.register_provider(guid(0x53)).unwrap();
    let desc = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    for i in 0..N {
        p.write(&desc, &[&i.to_le_bytes()]).unwrap();
    }
    assert!(
        sink.buffers().is_empty(),
        "a BUFFERING session wrote buffers before any FLUSH"
    );
    s.flush().unwrap();
    // 88-byte records, 45 to a 4 KB buffer: the ring holds the three newest full buffers and
    // the in-use one.
    let per_buffer = (4096 - 0x48) / 88;
    let kept = 3 * per_buffer + (N - 1) % per_buffer + 1;
    let got: Vec<u32> = sink
        .records()
        .iter()
        .map(|r| u32::from_le_bytes(r.user_data[..4].try_into().unwrap()))
        .collect();
    let newest: Vec<u32> = (N - kept..N).collect();
    assert_eq!(got, newest);
    let st = s.stop().unwrap();
    assert_eq!(st.events_lost, 0, "eviction is not loss (BUF-09)");
}

/// Writers that keep writing while the controller stops the session: STOP waits for every
/// write that saw the session running, then flushes; a write that comes later stores nothing.
/// Either way nothing is left behind in the buffers once STOP returned — a write committed
/// after the final flush would be an event lost without being counted.
#[test]
fn writes_racing_stop_leave_nothing_behind() {
    // rule: SES-79
    // rule: BUF-05
    for round in 0..200u32 {
        let k = Kernel::builder().threaded().cpus(2).build().unwrap();
        let app = k.spawn("app.exe", Token::user("w")).unwrap();
        let g = Guid::from_fields(0x57_0b00, 1, 2, [round as u8, 0, 0, 0, 0, 0, 0, 1]);
        let p = Arc::new(app.register_provider(g).unwrap());
        let sink = MemorySink::new();
        let s = k
            .session("race")
            .sink(sink.clone())
            .log_file("race.etl")
            .buffer_size_kb(4)
            .maximum_buffers(64)
            .start()
            .unwrap();
        s.enable(g, &EnableParams::new()).unwrap();
        let started = Arc::new(std::sync::Barrier::new(3));
        let writers: Vec<_> = (0..2u16)
            .map(|cpu| {
                let (p, app, started) = (p.clone(), app.clone(), started.clone());
                std::thread::spawn(move || {
                    let t = app.spawn_thread(cpu).unwrap();
                    let _g = t.enter();
                    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
                    started.wait();
                    for i in 0..2_000u32 {
                        let _ = p.write(&d, &[&i.to_le_bytes()]);
                    }
                })
            })
            .collect();
        started.wait();
        let stats = s.stop().unwrap();
        for w in writers {
            w.join().unwrap();
        }
        assert_eq!(
            s.unflushed_bytes(),
            0,
            "round {round}: records left behind after STOP"
        );
        assert_eq!(
            stats.buffers_written as usize,
            sink.buffers().len(),
            "round {round}: every buffer counted as written reached the sink"
        );
    }
}
