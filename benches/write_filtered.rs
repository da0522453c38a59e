//! P4: the provider is enabled, but a session's filter rejects the event — against the floor
//! "atomic reservation + copy" (an 80-byte header and a 16-byte payload copied into a bump
//! buffer at an offset reserved with `fetch_add`), measured in the same criterion run.
//!
//! One iteration runs `CALLS` writes in a loop; the time per call is the iteration time /
//! `CALLS`.
//!
//! Configurations:
//!
//! * `floor/reserve_copy_96` — the floor: `fetch_add` reservation in a 64 KiB buffer (wrapping
//!   to the start when full) + copying a header template, a timestamp and the payload.
//! * `provider_write/event_id_filtered` — one session with `EVENT_FILTER_TYPE_EVENT_ID`
//!   (filter in: id 99 only); the event has id 7. The provider is enabled for the event's
//!   level and keyword, so `write` goes past the enabled check, loads the routes and
//!   `session_accepts` says no.
//! * `provider_write/pid_filtered` — a session with `EVENT_FILTER_TYPE_PID` naming another
//!   process. PID (and executable-name) filters are *scope* filters: they are applied when the
//!   enable state is rebuilt, so the registration is simply not enabled and this is the
//!   disabled path (P1/P3), one relaxed load. Measured to show it.
//! * `provider_write/exe_filtered` — the same with `EVENT_FILTER_TYPE_EXECUTABLE_NAME`
//!   (`other.exe`): also excluded at rebuild time.
//!
//! P12, rejections beyond the single filter-in list (every one of them rejects the event in
//! every session; the target is the same floor):
//!
//! * `provider_write/event_id_out_3_sessions` — three sessions, each with a filter-*out*
//!   EVENT_ID list naming the event's id (and others).
//! * `provider_write/event_id_in_3_sessions` — three sessions, each with its own filter-in
//!   list, none naming the id.
//! * `provider_write/event_id_mixed_2_sessions` — one filter-in list without the id, one
//!   filter-out list with it.
//! * `provider_write/event_name_filtered` — a TraceLogging event (`write_with_options` with an
//!   event name) whose name one session's EVENT_NAME filter-in list does not hold.
//! * `provider_write/pid_3_sessions` — three sessions whose PID filters each name another
//!   process (a scope filter: the registration is not enabled).
//!
//! Commands and results: docs/PERFORMANCE.md.

use criterion::{Criterion, Throughput};
use etwsim::{
    EnableParams, EventDescriptor, EventFilter, Guid, Kernel, Keyword, Level, NameFilter, Token,
    WriteOptions,
};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls per criterion iteration.
const CALLS: u64 = 1_000;
const HEADER: usize = 80;
const PAYLOAD: usize = 16;
const RECORD: usize = HEADER + PAYLOAD;
const P_ID: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0004_0001);
const P_PID: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0004_0002);
const P_EXE: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0004_0003);
const P_OUT3: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0012_0001);
const P_IN3: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0012_0002);
const P_MIXED: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0012_0003);
const P_NAME: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0012_0004);
const P_PID3: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0012_0005);

/// The floor: a bump buffer whose offset is reserved atomically.
struct Bump {
    buf: Vec<u8>,
    pos: AtomicUsize,
    template: [u8; HEADER],
    ticks: u64,
}

impl Bump {
    fn new() -> Bump {
        let mut template = [0u8; HEADER];
        template[..2].copy_from_slice(&(RECORD as u16).to_le_bytes());
        Bump {
            buf: vec![0; 64 * 1024],
            pos: AtomicUsize::new(0),
            template,
            ticks: 0,
        }
    }

    #[inline(always)]
    fn write(&mut self, payload: &[u8; PAYLOAD]) -> bool {
        let mut off = self.pos.fetch_add(RECORD, Ordering::Relaxed);
        if off + RECORD > self.buf.len() {
            self.pos.store(RECORD, Ordering::Relaxed);
            off = 0;
        }
        self.ticks += 1;
        let rec = &mut self.buf[off..off + RECORD];
        rec[..HEADER].copy_from_slice(&self.template);
        rec[16..24].copy_from_slice(&self.ticks.to_le_bytes());
        rec[HEADER..].copy_from_slice(payload);
        false
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let kernel = Kernel::builder()
        .deterministic(4)
        .build()
        .expect("a kernel");
    let app = kernel
        .spawn("bench.exe", Token::user("bench"))
        .expect("a process");
    let by_id = app.register_provider(P_ID).expect("a provider");
    let by_pid = app.register_provider(P_PID).expect("a provider");
    let by_exe = app.register_provider(P_EXE).expect("a provider");
    let session = kernel.session("p4").start().expect("a session");
    session
        .enable(
            P_ID,
            &EnableParams::new().filter(EventFilter::EventId {
                filter_in: true,
                ids: vec![99],
            }),
        )
        .expect("enable");
    session
        .enable(
            P_PID,
            &EnableParams::new().filter(EventFilter::Pid(vec![app.pid().wrapping_add(4)])),
        )
        .expect("enable");
    session
        .enable(
            P_EXE,
            &EnableParams::new().filter(EventFilter::ExecutableName("other.exe".into())),
        )
        .expect("enable");

    // P12's sessions.
    let by_out3 = app.register_provider(P_OUT3).expect("a provider");
    let by_in3 = app.register_provider(P_IN3).expect("a provider");
    let by_mixed = app.register_provider(P_MIXED).expect("a provider");
    let by_name = app.register_provider(P_NAME).expect("a provider");
    let by_pid3 = app.register_provider(P_PID3).expect("a provider");
    let p12: Vec<_> = (0..3)
        .map(|i| {
            kernel
                .session(&format!("p12_{i}"))
                .start()
                .expect("a session")
        })
        .collect();
    let ids = |filter_in, ids: &[u16]| {
        EnableParams::new().filter(EventFilter::EventId {
            filter_in,
            ids: ids.to_vec(),
        })
    };
    for (i, s) in p12.iter().enumerate() {
        let i = i as u16;
        s.enable(P_OUT3, &ids(false, &[3 + i, 7, 40 + i]))
            .expect("enable");
        s.enable(P_IN3, &ids(true, &[99 + i, 200 + i]))
            .expect("enable");
        s.enable(
            P_PID3,
            &EnableParams::new().filter(EventFilter::Pid(vec![app.pid() + 4 * (i as u32 + 1)])),
        )
        .expect("enable");
    }
    p12[0].enable(P_MIXED, &ids(true, &[99])).expect("enable");
    p12[1].enable(P_MIXED, &ids(false, &[7])).expect("enable");
    p12[0]
        .enable(
            P_NAME,
            &EnableParams::new().filter(EventFilter::EventName(NameFilter {
                match_any: Keyword(0),
                match_all: Keyword(0),
                level: Level(0),
                filter_in: true,
                names: vec!["Keep".into()],
            })),
        )
        .expect("enable");
    let skip = WriteOptions {
        event_name: Some("Skip"),
        ..WriteOptions::default()
    };

    let desc = EventDescriptor::new(7, Level::INFORMATION, Keyword(1));
    // The event-ID case passes the provider-side check: the rejection is the session's.
    assert!(by_id.is_enabled_for(desc.level, desc.keyword));
    // The scope filters leave the registration disabled: the disabled path.
    assert!(!by_pid.is_enabled());
    assert!(!by_exe.is_enabled());

    let payload = [0x5au8; PAYLOAD];
    // Built once and passed through `black_box`, as `write_disabled` does (see there: built per
    // call, the harness's own copy of the fat pointer stalled on store forwarding).
    let data: [&[u8]; 1] = [&payload];
    let mut bump = Bump::new();

    let mut g = c.benchmark_group("write_filtered");
    g.throughput(Throughput::Elements(CALLS));
    g.bench_function("floor/reserve_copy_96", |b| {
        b.iter(|| {
            let bump = black_box(&mut bump);
            let mut n = 0u64;
            for _ in 0..CALLS {
                if bump.write(black_box(&payload)) {
                    n += 1;
                }
            }
            black_box(n);
        })
    });
    for (name, p) in [
        ("provider_write/event_id_filtered", &by_id),
        ("provider_write/pid_filtered", &by_pid),
        ("provider_write/exe_filtered", &by_exe),
        ("provider_write/event_id_out_3_sessions", &by_out3),
        ("provider_write/event_id_in_3_sessions", &by_in3),
        ("provider_write/event_id_mixed_2_sessions", &by_mixed),
        ("provider_write/pid_3_sessions", &by_pid3),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0u64;
                for _ in 0..CALLS {
                    if black_box(p)
                        .write(black_box(&desc), black_box(&data))
                        .is_err()
                    {
                        n += 1;
                    }
                }
                black_box(n);
            })
        });
    }
    g.bench_function("provider_write/event_name_filtered", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for _ in 0..CALLS {
                if black_box(&by_name)
                    .write_with_options(black_box(&desc), black_box(&skip), black_box(&data))
                    .is_err()
                {
                    n += 1;
                }
            }
            black_box(n);
        })
    });
    g.finish();
    black_box(&bump.buf);

    // Every write was rejected: nothing lost, no buffer used.
    kernel.run_pending();
    let stats = session.query().expect("query");
    assert_eq!(stats.events_lost, 0);
    for s in &p12 {
        let q = s.stop().expect("stop");
        assert_eq!(q.events_lost, 0);
        assert_eq!(
            q.buffers_written,
            0,
            "{}: every P12 write is rejected",
            s.name()
        );
    }
    c.final_summary();
}
