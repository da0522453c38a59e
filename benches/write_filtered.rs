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
//! Commands and results: docs/PERFORMANCE.md.

use criterion::{Criterion, Throughput};
use etwsim::{EnableParams, EventDescriptor, EventFilter, Guid, Kernel, Keyword, Level, Token};
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

    let desc = EventDescriptor::new(7, Level::INFORMATION, Keyword(1));
    // The event-ID case passes the provider-side check: the rejection is the session's.
    assert!(by_id.is_enabled_for(desc.level, desc.keyword));
    // The scope filters leave the registration disabled: the disabled path.
    assert!(!by_pid.is_enabled());
    assert!(!by_exe.is_enabled());

    let payload = [0x5au8; PAYLOAD];
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
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0u64;
                for _ in 0..CALLS {
                    if black_box(p)
                        .write(black_box(&desc), &[black_box(&payload)])
                        .is_err()
                    {
                        n += 1;
                    }
                }
                black_box(n);
            })
        });
    }
    g.finish();
    black_box(&bump.buf);

    // Every write was rejected: nothing lost, no buffer used.
    kernel.run_pending();
    let stats = session.query().expect("query");
    assert_eq!(stats.events_lost, 0);
    c.final_summary();
}
