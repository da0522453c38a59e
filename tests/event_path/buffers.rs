//! Buffers and loss (BUF-01 … BUF-19, target M1 of PERF.md): the pool a session allocates,
//! per-CPU in-use buffers, switching, growth and loss, flushing, the statistics counters,
//! BUFFERING's ring, the real-time backing store, loss markers and the buffer header.
//!
//! Every scenario runs on a deterministic kernel and uses 4 KB buffers: 4096 − 0x48 = 4024
//! bytes of records. Most events are exactly [`REC`] = 1000 bytes (80-byte header + 920 bytes
//! of payload, already a multiple of 8), so a buffer takes exactly 4 of them (4000 bytes, used
//! = 0x48 + 4000 = 4072) and the fifth switches buffers: every number below is exact.
use crate::common;
use common::*;
use etwsim::{
    ConsumerOptions, EnableParams, EventDescriptor, Kernel, Keyword, Level, LogFileMode,
    MemorySink, Process, Provider, RT_LOST_BUFFER, RT_LOST_EVENT, Session, SessionProperties,
    Win32Error,
};
use etwsim_types::record::{buffer_flags, decode_buffer};
use etwsim_types::{BufferHeader, EventRecord, Guid, Opcode};
use std::time::Duration;

/// Bytes of one standard record: 80-byte header + [`PAYLOAD`].
const REC: usize = 1000;
/// Payload of a standard record.
const PAYLOAD: usize = REC - 80;
/// Bytes of a 4 KB buffer.
const BUF: usize = 4096;
/// The buffer header.
const HDR: usize = 0x48;
/// `used` of a buffer holding four standard records.
const FULL: u32 = (HDR + 4 * REC) as u32;

fn ev(id: u16) -> EventDescriptor {
    EventDescriptor::new(id, Level::INFORMATION, Keyword(1))
}

/// A payload of `len` bytes starting with the event id.
fn payload(id: u16, len: usize) -> Vec<u8> {
    let mut p = vec![0xAB; len];
    p[..2].copy_from_slice(&id.to_le_bytes());
    p
}

/// Writes one standard (1000-byte) event.
fn put(p: &Provider, id: u16) -> etwsim::Result<()> {
    p.write(&ev(id), &[&payload(id, PAYLOAD)])
}

/// Writes standard events `ids`, each of which must succeed.
fn put_all(p: &Provider, ids: std::ops::Range<u16>) {
    for id in ids {
        put(p, id).unwrap_or_else(|e| panic!("event {id}: {e}"));
    }
}

fn ids(recs: &[EventRecord]) -> Vec<u16> {
    recs.iter().map(|r| r.header.descriptor.id).collect()
}

fn headers(sink: &MemorySink) -> Vec<BufferHeader> {
    sink.buffers()
        .iter()
        .map(|b| BufferHeader::decode(b).expect("a whole buffer header"))
        .collect()
}

fn q(s: &Session) -> SessionProperties {
    s.query().expect("query")
}

/// A kernel with one CPU: every write lands in the same in-use buffer.
fn kernel1() -> Kernel {
    Kernel::builder().cpus(1).deterministic(42).build().unwrap()
}

/// A file session with 4 KB buffers writing into `sink`, and a provider of `app.exe` it enables.
fn file_session(
    k: &Kernel,
    sink: &MemorySink,
    tune: impl FnOnce(etwsim::SessionBuilder) -> etwsim::SessionBuilder,
) -> (Session, Process, Provider) {
    let g = guid(1);
    let b = k
        .session("buf")
        .log_file("buf.etl")
        .buffer_size_kb(4)
        .sink(sink.clone());
    let s = tune(b).start().expect("start");
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(k, "app.exe");
    let p = app.register_provider(g).unwrap();
    (s, app, p)
}

/// A real-time session (no file) with 4 KB buffers, and a provider of `app.exe` it enables.
fn rt_session(
    k: &Kernel,
    name: &str,
    tune: impl FnOnce(etwsim::SessionBuilder) -> etwsim::SessionBuilder,
) -> (Session, Process, Provider) {
    let g = guid(2);
    let s = tune(k.session(name).buffer_size_kb(4))
        .start()
        .expect("start");
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(k, "app.exe");
    let p = app.register_provider(g).unwrap();
    (s, app, p)
}

/// One CPU, and real-time consumers whose queue holds 2 buffers.
fn small_queue_kernel() -> Kernel {
    Kernel::builder()
        .cpus(1)
        .deterministic(42)
        .consumer_queue_buffers(2)
        .build()
        .unwrap()
}

fn is_marker(r: &EventRecord, kind: u8) -> bool {
    r.header.provider_id == Guid::RT_LOST_EVENT && r.header.descriptor.opcode == Opcode(kind)
}

// ---------------------------------------------------------------------------------------
// BUF-01: the initial pool
// ---------------------------------------------------------------------------------------

// rule: BUF-01
#[test]
fn minimum_buffers_are_allocated_at_start_and_all_free() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.minimum_buffers(12).maximum_buffers(30));
    let st = q(&s);
    assert_eq!(
        (st.minimum_buffers, st.number_of_buffers, st.free_buffers),
        (12, 12, 12)
    );
    put(&p, 0).unwrap();
    let st = q(&s);
    assert_eq!(
        (st.number_of_buffers, st.free_buffers),
        (12, 11),
        "the first event takes one free buffer as CPU 0's in-use buffer"
    );

    // The adjusted minimum (SES-59): 2 per CPU by default, 2 without per-CPU buffers.
    let per_cpu = k.session("default").start().unwrap();
    let st = q(&per_cpu);
    assert_eq!(
        (st.minimum_buffers, st.number_of_buffers, st.free_buffers),
        (8, 8, 8)
    );
    let shared = k
        .session("shared")
        .mode(LogFileMode::REAL_TIME | LogFileMode::NO_PER_PROCESSOR_BUFFERING)
        .start()
        .unwrap();
    let st = q(&shared);
    assert_eq!(
        (st.minimum_buffers, st.number_of_buffers, st.free_buffers),
        (2, 2, 2)
    );
}

// ---------------------------------------------------------------------------------------
// BUF-02: one in-use buffer per CPU
// ---------------------------------------------------------------------------------------

/// Four threads of `app` on CPUs 0..3 write two events each, interleaved: ids 0..8, event
/// `i` on CPU `i % 4`. Returns the thread ids by CPU.
fn write_on_four_cpus(app: &Process, p: &Provider) -> Vec<u32> {
    let threads: Vec<_> = (0..4).map(|c| app.spawn_thread(c).unwrap()).collect();
    for id in 0..8u16 {
        let _g = threads[usize::from(id % 4)].enter();
        p.write(&ev(id), &[&payload(id, 16)]).unwrap();
    }
    threads.iter().map(|t| t.tid()).collect()
}

// rule: BUF-02
#[test]
fn each_cpu_writes_into_its_own_in_use_buffer() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, app, p) = file_session(&k, &sink, |b| b);
    let tids = write_on_four_cpus(&app, &p);
    let st = q(&s);
    assert_eq!(
        (st.number_of_buffers, st.free_buffers),
        (8, 4),
        "one in-use buffer per CPU that wrote"
    );
    s.flush().unwrap();
    let hs = headers(&sink);
    assert_eq!(hs.len(), 4);
    for (cpu, (h, bytes)) in hs.iter().zip(sink.buffers()).enumerate() {
        assert_eq!(
            h.processor as usize, cpu,
            "buffers of CPUs 0..3, in slot order"
        );
        let (recs, err) = decode_buffer(&bytes);
        assert!(err.is_none());
        assert_eq!(
            ids(&recs),
            vec![cpu as u16, cpu as u16 + 4],
            "CPU {cpu}'s buffer holds exactly the events written on CPU {cpu}"
        );
        for r in &recs {
            assert_eq!(r.buffer_context.processor_index as usize, cpu);
            assert_eq!(r.header.thread_id, tids[cpu]);
            assert_eq!(r.header.process_id, app.pid());
        }
    }
}

// rule: BUF-02
#[test]
fn no_per_processor_buffering_shares_one_buffer_and_records_processor_0() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, app, p) = file_session(&k, &sink, |b| {
        b.mode(LogFileMode::SEQUENTIAL | LogFileMode::NO_PER_PROCESSOR_BUFFERING)
    });
    let st = q(&s);
    assert_eq!((st.number_of_buffers, st.free_buffers), (2, 2));
    let tids = write_on_four_cpus(&app, &p);
    let st = q(&s);
    assert_eq!(
        (st.number_of_buffers, st.free_buffers),
        (2, 1),
        "the four CPUs share one in-use buffer"
    );
    s.flush().unwrap();
    let hs = headers(&sink);
    assert_eq!(hs.len(), 1);
    assert_eq!(hs[0].processor, 0);
    let recs = sink.records();
    assert_eq!(ids(&recs), (0..8).collect::<Vec<_>>(), "in write order");
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.header.thread_id, tids[i % 4]);
        assert_eq!(r.buffer_context.processor_index, 0);
    }
}

// ---------------------------------------------------------------------------------------
// BUF-03: switching when full
// ---------------------------------------------------------------------------------------

// rule: BUF-03
// rule: EVT-06
#[test]
fn a_full_buffer_is_switched_and_no_record_is_split() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b);
    put_all(&p, 0..4);
    assert_eq!(
        s.pending_buffers(),
        0,
        "4 records fit (24 bytes stay free): no switch yet"
    );
    assert_eq!(q(&s).free_buffers, 7);
    put_all(&p, 4..5);
    assert_eq!(
        s.pending_buffers(),
        1,
        "the fifth does not fit: the buffer goes to the logger"
    );
    assert_eq!(
        q(&s).free_buffers,
        6,
        "and a free buffer became CPU 0's in-use buffer"
    );
    put_all(&p, 5..8);
    assert_eq!(
        s.pending_buffers(),
        1,
        "the second buffer is full, not yet switched"
    );
    put_all(&p, 8..10);
    assert_eq!(s.pending_buffers(), 2);
    k.run_pending();
    assert_eq!(s.pending_buffers(), 0);
    assert_eq!(sink.buffers().len(), 2);
    assert_eq!(
        q(&s).free_buffers,
        7,
        "written buffers went back to the free list"
    );
    s.stop().unwrap();
    let hs = headers(&sink);
    assert_eq!(
        hs.iter().map(|h| h.used).collect::<Vec<_>>(),
        vec![FULL, FULL, (HDR + 2 * REC) as u32]
    );
    let per_buffer: Vec<Vec<u16>> = sink
        .buffers()
        .iter()
        .map(|b| {
            let (r, err) = decode_buffer(b);
            assert!(err.is_none(), "every buffer decodes completely: {err:?}");
            ids(&r)
        })
        .collect();
    assert_eq!(
        per_buffer,
        vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]],
        "records in write order, each wholly in one buffer"
    );
}

// rule: BUF-03
#[test]
fn a_record_that_exactly_fills_a_buffer_leaves_it_full() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b);
    // 80 + 3944 = 4024 bytes: exactly the room of a 4 KB buffer.
    p.write(&ev(0), &[&payload(0, 3944)]).unwrap();
    p.write(&ev(1), &[&payload(1, 8)]).unwrap();
    s.stop().unwrap();
    let hs = headers(&sink);
    assert_eq!(
        hs.iter().map(|h| h.used).collect::<Vec<_>>(),
        vec![BUF as u32, (HDR + 88) as u32]
    );
    assert_eq!(ids(&sink.records()), vec![0, 1]);
}

// ---------------------------------------------------------------------------------------
// BUF-04: growth up to MaximumBuffers, then loss
// ---------------------------------------------------------------------------------------

// rule: BUF-04
// rule: BUF-07
// rule: EVT-07
// rule: BUF-03
#[test]
fn the_pool_grows_to_maximum_buffers_then_events_are_lost() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.minimum_buffers(8).maximum_buffers(10));
    put_all(&p, 0..32); // 8 buffers × 4 records: the initial pool, all filled
    let st = q(&s);
    assert_eq!((st.number_of_buffers, st.free_buffers), (8, 0));
    assert_eq!(s.pending_buffers(), 7);
    put_all(&p, 32..33);
    assert_eq!(q(&s).number_of_buffers, 9, "grown by one");
    put_all(&p, 33..36);
    assert_eq!(q(&s).number_of_buffers, 9);
    put_all(&p, 36..37);
    assert_eq!(q(&s).number_of_buffers, 10, "grown to MaximumBuffers");
    put_all(&p, 37..40);
    for (n, id) in (40..45u16).enumerate() {
        let e = put(&p, id).expect_err("no free buffer and the pool is at its maximum");
        assert_eq!(e.win32_code(), Win32Error::ERROR_NOT_ENOUGH_MEMORY);
        let st = q(&s);
        assert_eq!(st.events_lost, n as u32 + 1, "each lost event counts once");
        assert_eq!(st.number_of_buffers, 10, "never beyond MaximumBuffers");
        assert_eq!(
            (
                st.buffers_written,
                st.log_buffers_lost,
                st.real_time_buffers_lost
            ),
            (0, 0, 0)
        );
    }
    // Stepping the logger writes the full buffers out and frees them: writes succeed again.
    k.run_pending();
    assert_eq!(s.pending_buffers(), 0);
    let st = q(&s);
    assert_eq!(
        (st.buffers_written, st.free_buffers, st.number_of_buffers),
        (10, 10, 10),
        "all 10 full buffers written: the refused event handed the full in-use one over (BUF-03)"
    );
    put_all(&p, 45..46);
    assert_eq!(q(&s).events_lost, 5, "a successful write loses nothing");
    let st = s.stop().unwrap();
    assert_eq!(st.events_lost, 5);
    assert_eq!(st.buffers_written, 11);
    assert_eq!(st.number_of_buffers, 10);
    let mut want: Vec<u16> = (0..40).collect();
    want.push(45);
    assert_eq!(
        ids(&sink.records()),
        want,
        "exactly events 40..44 are missing"
    );
}

// ---------------------------------------------------------------------------------------
// BUF-05 / BUF-08: when buffers are flushed
// ---------------------------------------------------------------------------------------

// rule: BUF-05
// rule: BUF-08
// rule: SES-63
#[test]
fn the_flush_timer_writes_partly_filled_buffers_whole() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.flush_timer(2));
    p.write(&ev(7), &[&payload(7, 16)]).unwrap();
    k.advance(Duration::from_secs(1));
    assert!(
        sink.buffers().is_empty(),
        "the 2-second timer is not due yet"
    );
    assert_eq!(q(&s).free_buffers, 7);
    k.advance(Duration::from_secs(1));
    let bufs = sink.buffers();
    assert_eq!(bufs.len(), 1, "the timer flushed the partly filled buffer");
    assert_eq!(bufs[0].len(), BUF, "written as a whole 4 KB buffer");
    let h = BufferHeader::decode(&bufs[0]).unwrap();
    assert_eq!(h.used as usize, HDR + 96);
    assert!(
        bufs[0][HDR + 96..].iter().all(|&b| b == 0xFF),
        "the unused 3,904 bytes are written too"
    );
    let st = q(&s);
    assert_eq!(
        (st.free_buffers, st.buffers_written),
        (8, 1),
        "the buffer is free again"
    );
    // Nothing new: the next period writes nothing (empty in-use buffers are not flushed).
    k.advance(Duration::from_secs(2));
    assert_eq!(sink.buffers().len(), 1);
}

// rule: BUF-05
// rule: SES-63
#[test]
fn a_file_session_with_flush_timer_0_never_flushes_on_time() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b);
    put_all(&p, 0..3);
    k.advance(Duration::from_secs(3600));
    assert!(sink.buffers().is_empty());
    assert_eq!(q(&s).free_buffers, 7);
    s.stop().unwrap();
    assert_eq!(ids(&sink.records()), vec![0, 1, 2], "stop flushes them");
}

// rule: BUF-08
// rule: SES-39
#[test]
fn a_real_time_session_with_a_file_flushes_every_second() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.real_time());
    assert_eq!(q(&s).effective_flush_timer, 1);
    p.write(&ev(1), &[&payload(1, 16)]).unwrap();
    k.advance(Duration::from_millis(999));
    assert!(sink.buffers().is_empty());
    k.advance(Duration::from_millis(1));
    let hs = headers(&sink);
    assert_eq!(hs.len(), 1, "flushed after one second");
    assert_eq!(
        (hs[0].buffer_size, hs[0].used),
        (BUF as u32, (HDR + 96) as u32),
        "a partly filled buffer written whole"
    );
    p.write(&ev(2), &[&payload(2, 16)]).unwrap();
    k.advance(Duration::from_secs(1));
    assert_eq!(
        sink.buffers().len(),
        2,
        "one buffer per second of 1 event/s"
    );
}

// rule: BUF-05
// rule: SES-78
#[test]
fn controltrace_flush_writes_every_non_empty_buffer_and_frees_it() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, app, p) = file_session(&k, &sink, |b| b);
    let _tids = write_on_four_cpus(&app, &p);
    // The main thread runs on CPU 0 too: its buffer holds 2 × 96 bytes, so 3 of these
    // 1000-byte events fit and the fourth switches it.
    put_all(&p, 8..13);
    assert_eq!(s.pending_buffers(), 1);
    let st = s.flush().unwrap();
    assert_eq!(
        (st.free_buffers, st.number_of_buffers, st.buffers_written),
        (8, 8, 5),
        "CPU 0's switched buffer + the in-use buffers of CPUs 0..3, all free again"
    );
    assert_eq!(s.pending_buffers(), 0);
    assert_eq!(sink.records().len(), 13);
    let again = s.flush().unwrap();
    assert_eq!(
        again.buffers_written, 5,
        "nothing to write: no empty buffer is written"
    );
    assert_eq!(sink.buffers().len(), 5);
}

// rule: BUF-05
// rule: SES-79
#[test]
fn stop_writes_the_switched_and_the_in_use_buffers() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b);
    put_all(&p, 0..10);
    assert_eq!(s.pending_buffers(), 2);
    assert!(sink.buffers().is_empty(), "the logger has not run");
    let st = s.stop().unwrap();
    assert_eq!(ids(&sink.records()), (0..10).collect::<Vec<_>>());
    assert_eq!((st.buffers_written, st.free_buffers), (3, 8));
    assert_eq!(
        sink.closed().as_ref(),
        Some(&st),
        "the sink is closed with the final statistics"
    );
}

// ---------------------------------------------------------------------------------------
// BUF-06 / BUF-07: the logger thread and the statistics
// ---------------------------------------------------------------------------------------

// rule: BUF-06
#[test]
fn each_session_reports_its_own_logger_thread_id() {
    let k = kernel();
    let a = k.session("a").start().unwrap();
    let b = k.session("b").start().unwrap();
    let app = user_process(&k, "app.exe");
    let t = app.spawn_thread(0).unwrap();
    let (ta, tb) = (q(&a).logger_thread_id, q(&b).logger_thread_id);
    assert_ne!(ta, 0);
    assert_ne!(tb, 0);
    assert_ne!(ta, tb, "one logger thread per session");
    assert_eq!(ta % 4, 0, "a thread id (multiple of 4)");
    for other in [app.pid(), t.tid(), 4] {
        assert_ne!(ta, other, "ids come from the one client-id table");
        assert_ne!(tb, other);
    }
    assert_eq!(
        a.stop().unwrap().logger_thread_id,
        ta,
        "final statistics keep it"
    );
}

/// A sink that hands each buffer it is given to the test.
struct Tell(std::sync::mpsc::Sender<Vec<u8>>);

impl etwsim::Sink for Tell {
    fn write_buffer(&mut self, buffer: &[u8], _: &etwsim::BufferInfo) -> std::io::Result<()> {
        let _ = self.0.send(buffer.to_vec());
        Ok(())
    }
}

// rule: BUF-06 (the wake-up policy is ours: data/doorbell.rs), BUF-05
#[test]
fn a_threaded_logger_writes_every_full_buffer_without_a_flush() {
    // MaximumBuffers 256: writers wake a busy logger only per batch of 16 ready buffers, and
    // the logger polls by itself. Fewer than a batch, then several batches, must all reach the
    // sink with no FLUSH and no FlushTimer, each with its header written over the buffer's
    // first bytes and its records intact (the sink reads the pool's buffer itself).
    let k = Kernel::builder().threaded().cpus(1).build().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let g = guid(7);
    let s = k
        .session("doorbell")
        .log_file("doorbell.etl")
        .buffer_size_kb(4)
        .maximum_buffers(256)
        .flush_timer(0)
        .sink(Tell(tx))
        .start()
        .unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let mut next = 0u16;
    let mut seen = Vec::new();
    // Four records fill a buffer; the next record makes it ready. The first round leaves one
    // record in the in-use buffer, which the second completes.
    for (buffers, extra) in [(3u16, 1u16), (40, 0)] {
        let end = next + 4 * buffers + extra;
        put_all(&p, next..end);
        for _ in 0..buffers {
            let b = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("a full buffer reaches the sink without a flush");
            assert_eq!(b.len(), BUF);
            let h = BufferHeader::decode(&b).expect("the header is written");
            assert_eq!(h.used, FULL);
            assert!(b[FULL as usize..].iter().all(|&x| x == 0xFF), "the fill");
            let (records, error) = decode_buffer(&b);
            assert!(error.is_none(), "the records decode: {error:?}");
            seen.extend(ids(&records));
        }
        next = end;
    }
    assert_eq!(seen, (0..next - 1).collect::<Vec<_>>());
    let st = s.stop().unwrap();
    assert_eq!((st.events_lost, st.buffers_written), (0, 44));
    let last = rx.recv().expect("stop writes the partly filled buffer");
    assert_eq!(ids(&decode_buffer(&last).0), vec![next - 1]);
}

// rule: BUF-07
#[test]
fn buffers_written_counts_each_written_buffer_and_nothing_else_moves() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b);
    put_all(&p, 0..9);
    let st = q(&s);
    assert_eq!(
        st.buffers_written, 0,
        "nothing written before the logger runs"
    );
    k.run_pending();
    assert_eq!(q(&s).buffers_written, 2);
    let st = s.stop().unwrap();
    assert_eq!(
        (
            st.buffers_written,
            st.events_lost,
            st.log_buffers_lost,
            st.real_time_buffers_lost
        ),
        (3, 0, 0, 0)
    );
    assert_eq!(sink.buffers().len(), 3);
}

// rule: BUF-07
// rule: BUF-19
#[test]
fn a_full_disk_counts_log_buffers_lost_and_not_events_lost() {
    let k = kernel();
    let sink = MemorySink::with_capacity(2);
    let (s, _app, p) = file_session(&k, &sink, |b| b);
    put_all(&p, 0..12); // 3 buffers
    k.run_pending();
    let st = q(&s);
    assert_eq!((st.buffers_written, st.log_buffers_lost), (2, 0));
    put_all(&p, 12..16); // switches buffer 3 and fills buffer 4
    k.run_pending();
    let st = q(&s);
    assert_eq!(
        (st.buffers_written, st.log_buffers_lost),
        (2, 1),
        "the third buffer could not be written"
    );
    let st = s.stop().unwrap();
    assert_eq!(
        (
            st.buffers_written,
            st.log_buffers_lost,
            st.events_lost,
            st.real_time_buffers_lost
        ),
        (2, 2, 0, 0),
        "writes never failed: only whole buffers were lost, at the disk"
    );
    assert_eq!(ids(&sink.records()), (0..8).collect::<Vec<_>>());
    assert_eq!(st.free_buffers, 8, "lost buffers are freed too");
}

// rule: BUF-07
// rule: BUF-19
#[test]
fn a_slow_consumer_counts_real_time_buffers_lost() {
    let k = small_queue_kernel();
    let (s, _app, p) = rt_session(&k, "rt", |b| b);
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    put_all(&p, 0..20); // 5 buffers (the fifth in use)
    k.run_pending();
    let st = q(&s);
    assert_eq!(
        (st.buffers_written, st.real_time_buffers_lost),
        (2, 2),
        "the consumer's queue takes 2 buffers; the other 2 are lost for it"
    );
    assert_eq!((st.events_lost, st.log_buffers_lost), (0, 0));
    assert_eq!(ids(&c.drain()), (0..8).collect::<Vec<_>>());
    let st = s.stop().unwrap();
    assert_eq!(
        (
            st.buffers_written,
            st.real_time_buffers_lost,
            st.events_lost
        ),
        (3, 2, 0)
    );
}

// ---------------------------------------------------------------------------------------
// BUF-09: BUFFERING mode
// ---------------------------------------------------------------------------------------

// rule: BUF-09
// rule: BUF-04
// rule: SES-41
#[test]
fn buffering_mode_keeps_a_ring_that_evicts_the_oldest_buffer() {
    let k = kernel1();
    let sink = MemorySink::new();
    let g = guid(3);
    let s = k
        .session("ring")
        .buffering()
        .buffer_size_kb(4)
        .minimum_buffers(3)
        .maximum_buffers(50)
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let st = q(&s);
    assert_eq!(
        (st.maximum_buffers, st.number_of_buffers),
        (3, 3),
        "the pool is exactly MinimumBuffers"
    );
    put_all(&p, 0..20); // 5 buffers' worth into a ring of 3: never fails
    k.run_pending();
    k.advance(Duration::from_secs(60));
    assert!(sink.buffers().is_empty(), "nothing is written until FLUSH");
    let st = q(&s);
    assert_eq!(st.number_of_buffers, 3, "BUFFERING never grows");
    assert_eq!(st.events_lost, 0, "eviction is not loss (choice)");
    s.flush().unwrap();
    assert_eq!(
        ids(&sink.records()),
        (8..20).collect::<Vec<_>>(),
        "the two oldest buffers (events 0..7) were evicted, whole"
    );
    assert_eq!(
        headers(&sink).iter().map(|h| h.used).collect::<Vec<_>>(),
        vec![FULL, FULL, FULL]
    );
    let st = q(&s);
    assert_eq!(
        (st.events_lost, st.free_buffers, st.buffers_written),
        (0, 3, 3)
    );
    // Stop writes nothing more: only FLUSH writes a BUFFERING session's ring.
    put_all(&p, 20..22);
    let st = s.stop().unwrap();
    assert_eq!(sink.buffers().len(), 3);
    assert_eq!((st.events_lost, st.buffers_written), (0, 3));
}

// ---------------------------------------------------------------------------------------
// BUF-11: order across buffers
// ---------------------------------------------------------------------------------------

// rule: BUF-11
// rule: CON-04
#[test]
fn a_migrating_thread_can_be_flushed_out_of_order_and_consumers_resort() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, app, p) = file_session(&k, &sink, |b| b.real_time());
    let mut c = k
        .open_realtime(&k.system_process(), "buf", ConsumerOptions::default())
        .unwrap();
    let mut t = app.spawn_thread(0).unwrap();
    {
        let _g = t.enter();
        put_all(&p, 0..1); // event 0 in CPU 0's buffer
    }
    t.migrate(1).unwrap();
    {
        let _g = t.enter();
        put_all(&p, 1..5); // events 1..4 fill CPU 1's buffer
        put_all(&p, 5..6); // event 5 switches it: CPU 1's buffer goes first
    }
    k.run_pending();
    s.stop().unwrap();
    let in_file = sink.records();
    assert_eq!(
        ids(&in_file),
        vec![1, 2, 3, 4, 0, 5],
        "the later events of CPU 1 were flushed before the earlier event of CPU 0"
    );
    assert!(in_file[4].header.timestamp < in_file[0].header.timestamp);
    assert_eq!(
        in_file
            .iter()
            .map(|r| r.header.thread_id)
            .collect::<Vec<_>>(),
        vec![t.tid(); 6]
    );
    let seen = c.drain();
    assert_eq!(
        ids(&seen),
        (0..6).collect::<Vec<_>>(),
        "the consumer re-sorts by timestamp"
    );
    assert!(
        seen.windows(2)
            .all(|w| w[0].header.timestamp < w[1].header.timestamp)
    );
}

// ---------------------------------------------------------------------------------------
// BUF-12 / BUF-14: real-time backing store and loss markers
// ---------------------------------------------------------------------------------------

// rule: BUF-12
// rule: EVT-08
#[test]
fn without_a_consumer_buffers_wait_in_a_bounded_backing_store() {
    let k = Kernel::builder()
        .cpus(1)
        .deterministic(42)
        .realtime_backlog_buffers(3)
        .build()
        .unwrap();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.real_time());
    put_all(&p, 0..12);
    s.flush().unwrap();
    assert_eq!(s.realtime_backlog(), 3, "3 buffers wait for a consumer");
    assert_eq!(sink.buffers().len(), 3, "and the file has them");
    let st = q(&s);
    assert_eq!((st.buffers_written, st.events_lost), (3, 0));
    // The store is full: new events are not logged at all.
    let e = put(&p, 12).expect_err("backing store full");
    assert_eq!(e.win32_code(), Win32Error::ERROR_LOG_FILE_FULL);
    let e = put(&p, 13).expect_err("still full");
    assert_eq!(e.win32_code(), Win32Error::ERROR_LOG_FILE_FULL);
    let st = q(&s);
    assert_eq!(st.events_lost, 2);
    assert_eq!(st.real_time_buffers_lost, 0);
    s.flush().unwrap();
    assert_eq!(
        sink.buffers().len(),
        3,
        "the refused events reached neither file nor store"
    );

    // A consumer attaches: the backlog first, then new events.
    let mut c = k
        .open_realtime(&k.system_process(), "buf", ConsumerOptions::default())
        .unwrap();
    assert_eq!(s.realtime_backlog(), 0);
    put_all(&p, 14..16);
    s.flush().unwrap();
    let seen = c.drain();
    let real: Vec<u16> = seen
        .iter()
        .filter(|r| !r.is_lost_event_marker())
        .map(|r| r.header.descriptor.id)
        .collect();
    let mut want: Vec<u16> = (0..12).collect();
    want.extend([14, 15]);
    assert_eq!(real, want);
    assert_eq!(q(&s).events_lost, 2);
}

// rule: BUF-12
#[test]
fn while_the_store_has_room_writes_succeed_and_attach_delivers_in_order() {
    let k = kernel1();
    let (s, _app, p) = rt_session(&k, "rt", |b| b);
    put_all(&p, 0..9);
    s.flush().unwrap();
    assert_eq!(s.realtime_backlog(), 3);
    assert_eq!(
        q(&s).buffers_written,
        3,
        "kept in the store counts as written"
    );
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    assert_eq!(ids(&c.drain()), (0..9).collect::<Vec<_>>());
    put_all(&p, 9..10);
    assert!(
        c.drain().is_empty(),
        "delivery happens at flush time, not at write"
    );
    s.flush().unwrap();
    assert_eq!(ids(&c.drain()), vec![9]);
}

// rule: BUF-14
// rule: BUF-07
#[test]
fn a_consumer_is_told_about_lost_events_before_the_next_buffer() {
    let k = kernel1();
    let (s, _app, p) = rt_session(&k, "rt", |b| b.minimum_buffers(2).maximum_buffers(2));
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    put_all(&p, 0..4);
    s.flush().unwrap();
    assert_eq!(ids(&c.drain()), vec![0, 1, 2, 3], "no loss, no marker");
    put_all(&p, 4..12); // 2 buffers, both full
    let e = put(&p, 12).expect_err("pool exhausted");
    assert_eq!(e.win32_code(), Win32Error::ERROR_NOT_ENOUGH_MEMORY);
    assert_eq!(q(&s).events_lost, 1);
    s.flush().unwrap();
    let seen = c.drain();
    assert_eq!(seen.len(), 9, "one marker and 8 events");
    assert!(is_marker(&seen[0], RT_LOST_EVENT), "{:?}", seen[0].header);
    assert_eq!(seen[0].header.descriptor.opcode, Opcode(32));
    assert!(seen[0].user_data.is_empty());
    assert_eq!(
        seen[0].header.timestamp, seen[1].header.timestamp,
        "placed at the start of the buffer it concerns"
    );
    assert_eq!(ids(&seen[1..]), (4..12).collect::<Vec<_>>());
    assert!(seen[1..].iter().all(|r| !r.is_lost_event_marker()));
    // No new loss: no new marker.
    put_all(&p, 13..14);
    s.flush().unwrap();
    let seen = c.drain();
    assert_eq!(ids(&seen), vec![13]);
    assert!(!seen[0].is_lost_event_marker());
}

// rule: BUF-14
#[test]
fn a_consumer_that_missed_buffers_gets_rt_lost_buffer_before_the_next() {
    let k = small_queue_kernel();
    let (s, _app, p) = rt_session(&k, "rt", |b| b);
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    put_all(&p, 0..16);
    s.flush().unwrap(); // 4 buffers: the consumer keeps 2, misses 2
    assert_eq!(q(&s).real_time_buffers_lost, 2);
    let first = c.drain();
    assert_eq!(ids(&first), (0..8).collect::<Vec<_>>());
    assert!(first.iter().all(|r| !r.is_lost_event_marker()));
    put_all(&p, 16..17);
    s.flush().unwrap();
    let seen = c.drain();
    assert_eq!(seen.len(), 2);
    assert!(is_marker(&seen[0], RT_LOST_BUFFER), "{:?}", seen[0].header);
    assert_eq!(seen[0].header.descriptor.opcode, Opcode(33));
    assert_eq!(seen[1].header.descriptor.id, 16);
    assert_eq!(
        q(&s).events_lost,
        0,
        "no event was lost at write time: no RTLostEvent"
    );
    assert_eq!(seen[0].buffer_context.logger_id, s.logger_id());
}

// rule: BUF-14
#[test]
fn a_loss_after_the_last_buffer_is_told_at_the_end_of_the_stream() {
    // BUF-14's markers come before the buffer they concern; a loss just before STOP has no
    // buffer after it. The choice (docs/conformance.md): the consumer is told at the end.
    let k = small_queue_kernel();
    let (s, _app, p) = rt_session(&k, "rt", |b| b);
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    put_all(&p, 0..16);
    let st = s.stop().unwrap(); // 4 buffers: the consumer keeps 2, misses 2
    assert_eq!(st.real_time_buffers_lost, 2);
    let seen = c.drain();
    assert_eq!(seen.len(), 9, "8 events, then the marker");
    assert_eq!(ids(&seen[..8]), (0..8).collect::<Vec<_>>());
    assert!(is_marker(&seen[8], RT_LOST_BUFFER), "{:?}", seen[8].header);
    assert!(seen[8].header.timestamp >= seen[7].header.timestamp);
    assert!(!c.is_session_running());
    assert!(c.drain().is_empty(), "told once");

    // The same through next_buffer (ProcessTrace's BufferCallback view): the markers come
    // alone, as an empty buffer, after the last one.
    let (s, _app2, p) = rt_session(&k, "rt2", |b| b);
    let mut c = k
        .open_realtime(&k.system_process(), "rt2", ConsumerOptions::default())
        .unwrap();
    put_all(&p, 0..16);
    s.stop().unwrap();
    let mut batches = Vec::new();
    while let Some((records, size, _used)) = c.next_buffer() {
        batches.push((records, size));
    }
    let (last, size) = batches.last().expect("a batch");
    assert_eq!(*size, 0);
    assert!(is_marker(&last[0], RT_LOST_BUFFER));
}

// ---------------------------------------------------------------------------------------
// BUF-15 / BUF-16: the buffer header
// ---------------------------------------------------------------------------------------

// rule: BUF-15
// rule: BUF-16
#[test]
fn buffer_headers_carry_size_offsets_sequence_processor_and_logger() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, app, p) = file_session(&k, &sink, |b| b);
    // Odd payload sizes: records of 85, 81, 87 bytes are padded to 88.
    for (id, len) in [(0u16, 5usize), (1, 1), (2, 7)] {
        p.write(&ev(id), &[&payload(id, len.max(2))[..len]])
            .unwrap();
    }
    let t = app.spawn_thread(2).unwrap();
    {
        let _g = t.enter();
        put_all(&p, 3..4);
    }
    k.advance(Duration::from_millis(5));
    let flush_time = (k.now().as_nanos() / 100) as i64;
    s.flush().unwrap();
    put_all(&p, 4..5);
    s.stop().unwrap();
    let bufs = sink.buffers();
    assert_eq!(bufs.len(), 3);
    let hs = headers(&sink);
    assert_eq!(
        hs.iter().map(|h| h.sequence).collect::<Vec<_>>(),
        vec![1, 2, 3],
        "sequence numbers 1, 2, 3 per session"
    );
    assert_eq!(
        hs.iter().map(|h| h.processor).collect::<Vec<_>>(),
        vec![0, 2, 0]
    );
    assert_eq!(
        hs.iter().map(|h| h.used).collect::<Vec<_>>(),
        vec![
            (HDR + 3 * 88) as u32,
            FULL - 3 * REC as u32,
            FULL - 3 * REC as u32
        ]
    );
    for (b, h) in bufs.iter().zip(&hs) {
        assert_eq!(b.len(), BUF);
        assert_eq!(h.buffer_size, BUF as u32);
        assert_eq!(h.logger_id, s.logger_id());
        assert_eq!(
            h.flags,
            buffer_flags::PROC_INDEX,
            "no loss: PROC_INDEX alone"
        );
        assert_eq!(h.buffer_type, 0, "GENERIC");
        let u = h.used;
        let le32 = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        assert_eq!(
            (le32(0x04), le32(0x08), le32(0x30)),
            (u, u, u),
            "SavedOffset, CurrentOffset and Offset are the used bytes"
        );
        assert_eq!(le32(0x2C), 3, "State");
        assert_eq!(u % 8, 0);
        assert!(b[u as usize..].iter().all(|&x| x == 0xFF), "tail is 0xFF");
    }
    // Records start 8-aligned and their pad is zero.
    let b = &bufs[0];
    let mut off = HDR;
    for want in [85usize, 81, 87] {
        let size = u16::from_le_bytes([b[off], b[off + 1]]) as usize;
        assert_eq!(size, want);
        assert_eq!(off % 8, 0);
        assert!(b[off + size..off + 88].iter().all(|&x| x == 0));
        off += 88;
    }
    assert_eq!(off, hs[0].used as usize);
    // TimeStamp: the raw (QPC) clock at flush, not before the last record.
    assert_eq!(hs[0].timestamp, flush_time);
    assert_eq!(hs[1].timestamp, flush_time);
    let recs = sink.records();
    assert!(recs[..4].iter().all(|r| r.header.timestamp < flush_time));
    assert!(hs[2].timestamp >= recs[4].header.timestamp);
}

// rule: BUF-15
// rule: BUF-07
#[test]
fn the_first_buffer_flushed_after_a_loss_has_the_events_lost_flag() {
    let k = kernel1();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.minimum_buffers(2).maximum_buffers(2));
    put_all(&p, 0..8);
    assert!(put(&p, 8).is_err());
    assert!(put(&p, 9).is_err());
    assert_eq!(q(&s).events_lost, 2);
    k.run_pending(); // the switched buffer
    s.flush().unwrap(); // the full in-use buffer
    put_all(&p, 10..11);
    s.stop().unwrap();
    let flags: Vec<u16> = headers(&sink).iter().map(|h| h.flags).collect();
    assert_eq!(
        flags,
        vec![
            buffer_flags::PROC_INDEX | buffer_flags::EVENTS_LOST,
            buffer_flags::PROC_INDEX,
            buffer_flags::PROC_INDEX
        ]
    );
}

// ---------------------------------------------------------------------------------------
// BUF-19: every loss cause, reproduced and counted
// ---------------------------------------------------------------------------------------

// rule: BUF-19
// rule: EVT-05
// rule: EVT-06
#[test]
fn oversized_events_are_lost_and_counted() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.buffer_size_kb(128));
    // 80 + 65,456 = 65,536 bytes: one more than an event may take.
    let e = p.write(&ev(1), &[&vec![0u8; 65_456]]).unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_ARITHMETIC_OVERFLOW);
    assert_eq!(q(&s).events_lost, 1);
    p.write(&ev(2), &[&vec![0u8; 65_455]]).unwrap();
    assert_eq!(q(&s).events_lost, 1, "65,535 bytes is allowed");
    s.stop().unwrap();
    assert_eq!(ids(&sink.records()), vec![2]);

    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b);
    // 80 + 3,945 = 4,025 bytes (4,032 padded) > the 4,024 a 4 KB buffer holds.
    let e = p.write(&ev(3), &[&vec![0u8; 3945]]).unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_MORE_DATA);
    assert_eq!(q(&s).events_lost, 1);
    p.write(&ev(4), &[&vec![0u8; 3944]]).unwrap();
    let st = s.stop().unwrap();
    assert_eq!((st.events_lost, st.buffers_written), (1, 1));
    assert_eq!(ids(&sink.records()), vec![4]);
}

// rule: BUF-19
// rule: BUF-04
#[test]
fn a_disk_too_slow_for_the_event_rate_loses_exactly_the_overflow() {
    // The logger writes 4096 bytes (one buffer) per virtual second.
    let k = Kernel::builder()
        .cpus(4)
        .deterministic(42)
        .drain_bandwidth(4096)
        .build()
        .unwrap();
    let sink = MemorySink::new();
    let (s, _app, p) = file_session(&k, &sink, |b| b.minimum_buffers(8).maximum_buffers(8));
    let mut lost = 0;
    for id in 0..40u16 {
        if put(&p, id).is_err() {
            lost += 1;
        }
    }
    assert_eq!(lost, 8, "8 buffers × 4 events fit, the rest is lost");
    let mut id = 40u16;
    for second in 0..10 {
        k.advance(Duration::from_secs(1));
        let mut ok = 0;
        for _ in 0..8 {
            match put(&p, id) {
                Ok(()) => ok += 1,
                Err(e) => {
                    assert_eq!(e.win32_code(), Win32Error::ERROR_NOT_ENOUGH_MEMORY);
                    lost += 1;
                }
            }
            id += 1;
        }
        assert_eq!(
            ok, 4,
            "second {second}: one buffer drained = room for 4 events"
        );
    }
    assert_eq!(q(&s).events_lost, 48);
    assert_eq!(q(&s).buffers_written, 10);
    let st = s.stop().unwrap();
    assert_eq!(st.events_lost, lost);
    assert_eq!(sink.records().len(), 32 + 40);
}

// rule: BUF-19
#[test]
fn an_absent_consumer_and_a_slow_consumer_lose_in_their_own_counters() {
    let k = Kernel::builder()
        .cpus(1)
        .deterministic(42)
        .realtime_backlog_buffers(2)
        .consumer_queue_buffers(1)
        .build()
        .unwrap();
    let (s, _app, p) = rt_session(&k, "rt", |b| b);
    put_all(&p, 0..8);
    s.flush().unwrap();
    assert_eq!(
        put(&p, 8).unwrap_err().win32_code(),
        Win32Error::ERROR_LOG_FILE_FULL,
        "absent consumer: the store filled"
    );
    let st = q(&s);
    assert_eq!((st.events_lost, st.real_time_buffers_lost), (1, 0));
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    put_all(&p, 9..17);
    s.flush().unwrap(); // 2 buffers for a queue of 1 (already holding the backlog)
    let st = q(&s);
    assert_eq!(
        (st.events_lost, st.real_time_buffers_lost),
        (1, 2),
        "slow consumer: buffers lost, no event lost at write time"
    );
    let seen: Vec<u16> = c
        .drain()
        .iter()
        .filter(|r| !r.is_lost_event_marker())
        .map(|r| r.header.descriptor.id)
        .collect();
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------
// PERF.md M1: memory stays bounded under overload
// ---------------------------------------------------------------------------------------

// rule: BUF-04
#[test]
fn sustained_overload_never_allocates_beyond_maximum_buffers() {
    let k = kernel();
    let sink = MemorySink::new();
    let (s, app, p) = file_session(&k, &sink, |b| b.minimum_buffers(8).maximum_buffers(12));
    let threads: Vec<_> = (0..4).map(|c| app.spawn_thread(c).unwrap()).collect();
    let burst = |first: u32, n: u32| -> u32 {
        let mut ok = 0;
        for i in first..first + n {
            let _g = threads[(i % 4) as usize].enter();
            if put(&p, i as u16).is_ok() {
                ok += 1;
            }
            if i % 97 == 0 {
                assert!(q(&s).number_of_buffers <= 12, "during the burst, event {i}");
            }
        }
        ok
    };
    // 10,000 events with no stepping: 12 buffers × 4 records fit, the rest is lost.
    assert_eq!(burst(0, 10_000), 48);
    let st = q(&s);
    assert_eq!((st.number_of_buffers, st.events_lost), (12, 10_000 - 48));
    assert!(
        st.number_of_buffers as usize * BUF <= 12 * BUF,
        "memory ≤ MaximumBuffers × BufferSize"
    );
    k.run_pending();
    let st = q(&s);
    assert_eq!(
        (st.number_of_buffers, st.free_buffers),
        (12, 12),
        "stepping frees all 12 full buffers (the refused writes handed the in-use ones over, \
         BUF-03) and allocates nothing"
    );
    // A second burst: 12 free buffers × 4 records, then loss again; still 12 buffers.
    assert_eq!(burst(10_000, 10_000), 48);
    k.run_pending();
    let st = s.stop().unwrap();
    assert_eq!(st.number_of_buffers, 12);
    assert_eq!(st.events_lost, 20_000 - 96);
    assert_eq!(sink.records().len(), 96);
}

// rule: BUF-12
#[test]
fn sustained_real_time_overload_keeps_the_store_and_queues_bounded() {
    let k = Kernel::builder()
        .cpus(1)
        .deterministic(42)
        .realtime_backlog_buffers(4)
        .consumer_queue_buffers(3)
        .build()
        .unwrap();
    let (s, _app, p) = rt_session(&k, "rt", |b| b.maximum_buffers(10));
    for i in 0..5_000u32 {
        let _ = put(&p, i as u16);
        if i % 50 == 0 {
            k.run_pending();
            assert!(s.realtime_backlog() <= 4);
            assert!(q(&s).number_of_buffers <= 10);
        }
    }
    assert_eq!(s.realtime_backlog(), 4);
    let st = q(&s);
    // 10 buffers × 4 = 40 events kept; the drain filled the store of 4 and lost the other 6
    // buffers for want of room (the last full one handed over by a refused write, BUF-03);
    // every later write failed with ERROR_LOG_FILE_FULL.
    assert_eq!(
        (
            st.events_lost,
            st.buffers_written,
            st.real_time_buffers_lost
        ),
        (5_000 - 40, 4, 6)
    );
    let mut c = k
        .open_realtime(&k.system_process(), "rt", ConsumerOptions::default())
        .unwrap();
    for i in 0..5_000u32 {
        let _ = put(&p, i as u16);
        if i % 50 == 0 {
            k.run_pending();
            assert!(q(&s).number_of_buffers <= 10);
        }
    }
    s.flush().unwrap();
    let got = c
        .drain()
        .iter()
        .filter(|r| !r.is_lost_event_marker())
        .count();
    assert_eq!(
        got, 16,
        "the consumer holds the 4 backlog buffers it attached to, and nothing more"
    );
    let st = q(&s);
    let (lost2, rt_lost2) = (st.events_lost - 4_960, st.real_time_buffers_lost - 6);
    assert_eq!((lost2, rt_lost2), (1_000, 1_000));
    assert_eq!(
        5_000 - lost2,
        4 * rt_lost2,
        "every event kept in the second phase is in a buffer the full queue missed"
    );
    assert_eq!(st.buffers_written, 4, "missed buffers are not written");
    assert!(q(&s).number_of_buffers <= 10);
}
