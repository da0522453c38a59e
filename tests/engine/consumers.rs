//! Real-time consumers (CON-01 … CON-08, SES-65, SEC-05): `Kernel::open_realtime` finds a
//! running real-time session by name, checks the caller, and delivers every flushed buffer's
//! events oldest first, with timestamps in FILETIME unless raw ones are asked for.
//!
//! Deterministic kernels throughout: events are delivered when the session flushes
//! (`Session::flush`, `Session::stop`, `Kernel::run_pending` for full buffers).
use crate::common;
use common::*;
use etwsim::clock::DETERMINISTIC_BOOT_FILETIME;
use etwsim::{
    ClockType, ConsumerOptions, EnableParams, EventDescriptor, Groups, Kernel, Keyword, Level,
    MemorySink, Process, Provider, Session, Token, Win32Error,
};
use etwsim_types::EventRecord;
use std::time::Duration;

const RAW: ConsumerOptions = ConsumerOptions {
    raw_timestamps: true,
};
const FILETIME: ConsumerOptions = ConsumerOptions {
    raw_timestamps: false,
};

fn ev(id: u16) -> EventDescriptor {
    EventDescriptor::new(id, Level::INFORMATION, Keyword(1))
}

fn write(p: &Provider, id: u16) {
    p.write(&ev(id), &[&id.to_le_bytes()]).unwrap();
}

fn ids(recs: &[EventRecord]) -> Vec<u16> {
    recs.iter().map(|r| r.header.descriptor.id).collect()
}

/// A real-time session `name` (4 KB buffers) enabling a provider of `app.exe`.
fn rt_session(k: &Kernel, name: &str) -> (Session, Process, Provider) {
    let g = guid(9);
    let s = k.session(name).buffer_size_kb(4).start().unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(k, "app.exe");
    let p = app.register_provider(g).unwrap();
    (s, app, p)
}

/// The virtual time now, in 100-ns ticks since boot.
fn ticks(k: &Kernel) -> i64 {
    (k.now().as_nanos() / 100) as i64
}

// ---------------------------------------------------------------------------------------
// CON-01 / CON-03 / SEC-05: opening
// ---------------------------------------------------------------------------------------

// rule: CON-01
#[test]
fn open_realtime_finds_a_running_real_time_session_by_name_case_insensitively() {
    let k = kernel();
    let (s, _app, p) = rt_session(&k, "MySession");
    let mut c = k
        .open_realtime(&k.system_process(), "mYsESSION", FILETIME)
        .unwrap();
    assert_eq!(c.session_name(), "MySession");
    assert!(c.is_session_running());
    assert_eq!(s.consumer_count(), 1);
    write(&p, 5);
    s.flush().unwrap();
    assert_eq!(ids(&c.drain()), vec![5]);
}

// rule: CON-01
// rule: CON-03
#[test]
fn a_missing_stopped_or_non_real_time_session_is_instance_not_found() {
    let k = kernel();
    let sys = k.system_process();
    assert_rejected(&k, Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND, || {
        k.open_realtime(&sys, "nobody", FILETIME)
    });
    let stopped = k.session("gone").start().unwrap();
    stopped.stop().unwrap();
    assert_rejected(&k, Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND, || {
        k.open_realtime(&sys, "gone", FILETIME)
    });
    let file = k
        .session("file")
        .log_file("f.etl")
        .sink(MemorySink::new())
        .start()
        .unwrap();
    assert_rejected(&k, Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND, || {
        k.open_realtime(&sys, "file", FILETIME)
    });
    assert_eq!(file.consumer_count(), 0);
    let ring = k.session("ring").buffering().start().unwrap();
    assert_rejected(&k, Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND, || {
        k.open_realtime(&sys, "ring", FILETIME)
    });
    assert_eq!(ring.consumer_count(), 0);
    // Real-time mode is what counts, not how the session started (SES-81).
    file.convert_to_realtime().unwrap();
    let c = k.open_realtime(&sys, "FILE", FILETIME).unwrap();
    assert_eq!(file.consumer_count(), 1);
    drop(c);
}

// rule: SEC-05
// rule: CON-01
#[test]
fn only_privileged_callers_may_consume_in_real_time() {
    let k = kernel();
    let (s, _app, _p) = rt_session(&k, "rt");
    for token in [Token::user("bob"), Token::administrator("eve").unelevated()] {
        let who = k.spawn("consumer.exe", token).unwrap();
        assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
            k.open_realtime(&who, "rt", FILETIME)
        });
    }
    assert_eq!(s.consumer_count(), 0, "a refused open attaches nothing");
    for token in [
        Token::user("carol").with_groups(Groups::PERFORMANCE_LOG_USERS),
        Token::administrator("admin"),
        Token::local_service(),
        Token::network_service(),
        Token::local_system(),
    ] {
        let who = k.spawn("consumer.exe", token).unwrap();
        let c = k.open_realtime(&who, "rt", FILETIME).unwrap();
        c.close();
    }
    assert_eq!(s.consumer_count(), 0);
}

// ---------------------------------------------------------------------------------------
// CON-02 / SES-65: timestamps
// ---------------------------------------------------------------------------------------

// rule: CON-02
// rule: SES-65
#[test]
fn timestamps_are_filetime_unless_raw_timestamps_are_asked_for() {
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let g = guid(4);
    let p = app.register_provider(g).unwrap();
    for (name, clock) in [
        ("qpc", ClockType::Qpc),
        ("systime", ClockType::SystemTime),
        ("cycles", ClockType::CpuCycle),
    ] {
        let sink = MemorySink::new();
        let s = k
            .session(name)
            .clock(clock)
            .buffer_size_kb(4)
            .sink(sink.clone())
            .start()
            .unwrap();
        s.enable(g, &EnableParams::new()).unwrap();
        let mut raw = k.open_realtime(&k.system_process(), name, RAW).unwrap();
        let mut ft = k
            .open_realtime(&k.system_process(), name, FILETIME)
            .unwrap();
        k.advance(Duration::from_millis(1234));
        write(&p, 1);
        let t = ticks(&k);
        s.stop().unwrap();
        let want_raw = match clock {
            ClockType::Qpc => t, // 10 MHz: one tick = 100 ns
            ClockType::SystemTime => DETERMINISTIC_BOOT_FILETIME + t, // already FILETIME
            ClockType::CpuCycle => t * 300, // 3000 MHz: 300 cycles / 100 ns
        };
        let r = raw.drain();
        let f = ft.drain();
        assert_eq!((r.len(), f.len()), (1, 1), "{name}");
        assert_eq!(r[0].header.timestamp, want_raw, "{name}: raw clock value");
        assert_eq!(
            sink.records()[0].header.timestamp,
            want_raw,
            "{name}: buffers hold the raw value"
        );
        assert_eq!(
            f[0].header.timestamp,
            DETERMINISTIC_BOOT_FILETIME + t,
            "{name}: converted to FILETIME"
        );
    }
}

// ---------------------------------------------------------------------------------------
// CON-04: oldest first across CPU buffers
// ---------------------------------------------------------------------------------------

// rule: CON-04
#[test]
fn events_of_all_cpu_buffers_are_delivered_oldest_first() {
    let k = kernel();
    let sink = MemorySink::new();
    let g = guid(5);
    let s = k
        .session("rt")
        .buffer_size_kb(4)
        .sink(sink.clone())
        .start()
        .unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let mut c = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    let threads: Vec<_> = (0..4).map(|cpu| app.spawn_thread(cpu).unwrap()).collect();
    for id in 0..40u16 {
        let cpu = usize::from((id * 7 + id / 3) % 4);
        let _g = threads[cpu].enter();
        write(&p, id);
    }
    s.flush().unwrap();
    let in_buffers = ids(&sink.records());
    assert_ne!(
        in_buffers,
        (0..40).collect::<Vec<_>>(),
        "buffers hold the events grouped by CPU"
    );
    let seen = c.drain();
    assert_eq!(
        ids(&seen),
        (0..40).collect::<Vec<_>>(),
        "delivered in write order"
    );
    assert!(
        seen.windows(2)
            .all(|w| w[0].header.timestamp < w[1].header.timestamp)
    );
    let cpus: Vec<u16> = seen
        .iter()
        .map(|r| r.buffer_context.processor_index)
        .collect();
    for (id, cpu) in cpus.iter().enumerate() {
        assert_eq!(usize::from(*cpu), (id * 7 + id / 3) % 4, "event {id}");
    }
}

// ---------------------------------------------------------------------------------------
// CON-05: the end of a session
// ---------------------------------------------------------------------------------------

// rule: CON-05
// rule: SES-79
#[test]
fn after_stop_a_consumer_gets_the_remaining_events_then_nothing() {
    let k = kernel();
    let (s, app, p) = rt_session(&k, "rt");
    let mut c = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    let t = app.spawn_thread(2).unwrap();
    write(&p, 0);
    {
        let _g = t.enter();
        write(&p, 1);
    }
    write(&p, 2);
    assert!(c.next_event().is_none(), "nothing flushed yet");
    let st = s.stop().unwrap();
    assert_eq!(st.buffers_written, 2);
    assert!(!c.is_session_running());
    assert_eq!(
        ids(&c.drain()),
        vec![0, 1, 2],
        "stop flushed both CPU buffers"
    );
    // The stop disabled the provider: later writes go nowhere.
    write(&p, 3);
    assert!(c.next_event().is_none());
    assert!(c.drain().is_empty());
    assert!(
        c.wait_event(Duration::from_secs(30)).is_none(),
        "a stopped session ends the wait at once"
    );
    assert_rejected(&k, Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND, || {
        k.open_realtime(&k.system_process(), "rt", FILETIME)
    });
}

// rule: CON-05
#[test]
fn next_event_hands_out_the_delivered_events_one_by_one() {
    let k = kernel();
    let (s, _app, p) = rt_session(&k, "rt");
    let mut c = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    for id in 0..3 {
        write(&p, id);
    }
    s.flush().unwrap();
    let got: Vec<u16> = std::iter::from_fn(|| c.next_event())
        .map(|r| r.header.descriptor.id)
        .collect();
    assert_eq!(got, vec![0, 1, 2]);
    assert!(c.is_session_running());
    assert!(
        c.wait_event(Duration::ZERO).is_none(),
        "everything was taken"
    );
}

// ---------------------------------------------------------------------------------------
// CON-07 (the Rust face of CloseTrace) and CON-08 (several consumers)
// ---------------------------------------------------------------------------------------

// rule: CON-07
// rule: BUF-12
#[test]
fn close_detaches_and_later_buffers_wait_for_the_next_consumer() {
    let k = kernel1();
    let (s, _app, p) = rt_session(&k, "rt");
    let mut a = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    let b = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    assert_eq!(s.consumer_count(), 2);
    b.close();
    assert_eq!(s.consumer_count(), 1);
    write(&p, 0);
    s.flush().unwrap();
    assert_eq!(ids(&a.drain()), vec![0]);
    assert_eq!(q_lost(&s), 0, "a closed consumer is not a slow one");
    drop(a); // dropping a consumer closes it too
    assert_eq!(s.consumer_count(), 0);
    write(&p, 1);
    s.flush().unwrap();
    assert_eq!(
        s.realtime_backlog(),
        1,
        "no consumer left: the backing store keeps it"
    );
    let mut c = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    assert_eq!(ids(&c.drain()), vec![1]);
}

fn q_lost(s: &Session) -> u32 {
    s.query().unwrap().real_time_buffers_lost
}

fn kernel1() -> Kernel {
    Kernel::builder().cpus(1).deterministic(42).build().unwrap()
}

// rule: CON-08
#[test]
fn several_consumers_each_receive_every_buffer() {
    let k = kernel();
    let (s, app, p) = rt_session(&k, "rt");
    let perf = k
        .spawn(
            "perfmon.exe",
            Token::user("pat").with_groups(Groups::PERFORMANCE_LOG_USERS),
        )
        .unwrap();
    let admin = admin_process(&k, "wpr.exe");
    let mut cs = [
        k.open_realtime(&k.system_process(), "rt", FILETIME)
            .unwrap(),
        k.open_realtime(&perf, "rt", FILETIME).unwrap(),
        k.open_realtime(&admin, "rt", RAW).unwrap(),
    ];
    assert_eq!(s.consumer_count(), 3);
    let t = app.spawn_thread(1).unwrap();
    for id in 0..10u16 {
        if id % 2 == 1 {
            let _g = t.enter();
            write(&p, id);
        } else {
            write(&p, id);
        }
    }
    let st = s.flush().unwrap();
    assert_eq!(
        st.buffers_written, 2,
        "a buffer counts once, however many consumers"
    );
    assert_eq!(st.real_time_buffers_lost, 0);
    let all: Vec<Vec<EventRecord>> = cs.iter_mut().map(|c| c.drain()).collect();
    for got in &all {
        assert_eq!(ids(got), (0..10).collect::<Vec<_>>());
    }
    assert_eq!(all[0], all[1], "the same records");
    assert_eq!(
        all[2][3].header.timestamp + DETERMINISTIC_BOOT_FILETIME,
        all[0][3].header.timestamp,
        "each consumer with its own timestamp mode"
    );
}

// rule: CON-08
// rule: BUF-07
#[test]
fn a_slow_consumer_loses_buffers_without_affecting_the_others() {
    let k = Kernel::builder()
        .cpus(1)
        .deterministic(42)
        .consumer_queue_buffers(1)
        .build()
        .unwrap();
    let (s, _app, p) = rt_session(&k, "rt");
    let mut fast = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    let mut slow = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    let mut fast_seen = Vec::new();
    for id in 0..3u16 {
        write(&p, id);
        s.flush().unwrap();
        fast_seen.extend(ids(&fast.drain()));
    }
    assert_eq!(fast_seen, vec![0, 1, 2]);
    let st = s.query().unwrap();
    assert_eq!(
        (
            st.buffers_written,
            st.real_time_buffers_lost,
            st.events_lost
        ),
        (3, 2, 0),
        "the slow consumer's queue of 1 missed 2 buffers"
    );
    let got = slow.drain();
    assert_eq!(ids(&got), vec![0]);
    write(&p, 3);
    s.flush().unwrap();
    let got = slow.drain();
    assert_eq!(got.len(), 2);
    assert!(got[0].is_lost_event_marker(), "RTLostBuffer first");
    assert_eq!(got[1].header.descriptor.id, 3);
    let fast_got = fast.drain();
    assert_eq!(
        ids(&fast_got),
        vec![3],
        "no marker for the consumer that lost nothing"
    );
}

// rule: CON-08
#[test]
fn a_consumer_that_attaches_late_gets_only_later_buffers() {
    let k = kernel1();
    let (s, _app, p) = rt_session(&k, "rt");
    let mut early = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    write(&p, 0);
    s.flush().unwrap();
    let mut late = k
        .open_realtime(&k.system_process(), "rt", FILETIME)
        .unwrap();
    write(&p, 1);
    s.flush().unwrap();
    assert_eq!(ids(&early.drain()), vec![0, 1]);
    assert_eq!(
        ids(&late.drain()),
        vec![1],
        "buffers delivered before it attached are not replayed"
    );
}
