//! How cost grows (docs/PERFORMANCE.md, "How cost grows"), and P13: the control plane as the
//! number of registrations grows.
//!
//! Groups (criterion ids `growth_*/<parameter>`; `scripts/plot_growth.py` turns the medians into
//! the tables and `docs/growth.svg`):
//!
//! * `growth_payload/<bytes>` — one enabled write into one session (a deterministic kernel
//!   whose logger is stepped every 16 writes inside the timing, so each write carries its share
//!   of the logger's copy-out; a sink that discards, 128 KB buffers), payload 0 B … 65,000 B
//!   (the largest that fits the 64 KB event limit with its header). `Throughput::Bytes` per
//!   write. A threaded kernel here measured the lost-event path at 16 KB and up whenever the
//!   logger thread waited for a CPU; the session must lose nothing (asserted at the end).
//! * `growth_sessions/<n>` — the same 16-byte write into 1 … 8 sessions.
//! * `growth_filters/<n>` — one session with `n` filter descriptors the event passes: 0; an
//!   EVENT_ID filter-in list; + a PID filter; + an executable-name filter; + a STACKWALK
//!   id filter (one descriptor of each type a manifest write meets on its way).
//! * `growth_ids/<n>` — one EVENT_ID filter-in list of `n` ids (1 … 64, FLT-19's limit), the
//!   written id last in the list.
//! * P13, `control_enable/<n>`, `control_register/<n>`, `control_update/<n>` — with `n`
//!   registrations (1 … 10,000) of one GUID spread over processes (1,024 per process,
//!   PRV-04): EnableTraceEx2 alternating two levels (each call updates every registration's
//!   enable word and runs no callback), EventRegister + EventUnregister of one more
//!   registration, and ControlTrace(UPDATE) of the enabling session's FlushTimer.
//!   `control_enable_guids/10000` enables one GUID among 10,000 registered GUIDs.
//!   µs per registration = the time / n.

#[path = "p5_p10/support.rs"]
mod support;

use criterion::{BenchmarkId, Criterion, Throughput};
use etwsim::{
    EnableParams, EnableProperty, EventFilter, Guid, Kernel, Level, Process, Provider,
    SessionUpdate, Token,
};
use std::hint::black_box;
use support::{Discard, Failures, Machine, PROVIDER, descriptor};

fn payload_growth(c: &mut Criterion) {
    let m = Machine::new(false, 2);
    let _t = m.threads[0].enter();
    let s = m
        .kernel
        .session("growth_payload")
        .log_file("growth_payload.etl")
        .sink(Discard)
        .buffer_size_kb(128)
        .maximum_buffers(64)
        .start()
        .expect("session");
    s.enable(PROVIDER, &EnableParams::new()).expect("enable");
    let desc = descriptor();
    let mut g = c.benchmark_group("growth_payload");
    for size in [0usize, 16, 256, 1024, 4096, 16384, 65_000] {
        let payload = vec![0x5au8; size];
        g.throughput(Throughput::Bytes(size.max(1) as u64));
        let mut n = 0u64;
        let mut failures = Failures::default();
        g.bench_with_input(BenchmarkId::from_parameter(size), &payload, |b, p| {
            b.iter(|| {
                failures.check(m.provider.write(&desc, &[black_box(p)]));
                n += 1;
                if n % 16 == 0 {
                    m.kernel.run_pending();
                }
            })
        });
        failures.report(&format!("growth_payload/{size}"));
    }
    g.finish();
    let lost = s.stop().expect("stop").events_lost;
    assert_eq!(lost, 0, "growth_payload lost {lost} events");
}

fn session_growth(c: &mut Criterion) {
    let m = Machine::new(true, 2);
    let _t = m.threads[0].enter();
    let desc = descriptor();
    let payload = [0x5au8; 16];
    let mut g = c.benchmark_group("growth_sessions");
    g.throughput(Throughput::Elements(1));
    let mut sessions = Vec::new();
    for n in 1..=8usize {
        sessions.push(m.session(&format!("growth_s{n}"), EnableProperty::empty(), 256));
        let mut failures = Failures::default();
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| failures.check(m.provider.write(&desc, &[black_box(&payload)])))
        });
        failures.report(&format!("growth_sessions/{n}"));
    }
    g.finish();
    for s in sessions {
        s.stop().expect("stop");
    }
}

fn filter_growth(c: &mut Criterion) {
    let m = Machine::new(true, 2);
    let _t = m.threads[0].enter();
    let desc = descriptor();
    let payload = [0x5au8; 16];
    let pid = m.app.pid();
    let filters = |n: usize| {
        let all = [
            EventFilter::EventId {
                filter_in: true,
                ids: vec![desc.id],
            },
            EventFilter::Pid(vec![pid]),
            EventFilter::ExecutableName("bench.exe".into()),
            EventFilter::Stackwalk {
                filter_in: true,
                ids: vec![desc.id + 1],
            },
        ];
        all.into_iter().take(n).collect::<Vec<_>>()
    };
    let mut g = c.benchmark_group("growth_filters");
    g.throughput(Throughput::Elements(1));
    for n in 0..=4usize {
        let s = m
            .kernel
            .session(&format!("growth_f{n}"))
            .log_file(&format!("growth_f{n}.etl"))
            .sink(Discard)
            .buffer_size_kb(64)
            .maximum_buffers(256)
            .start()
            .expect("session");
        let mut params = EnableParams::new();
        for f in filters(n) {
            params = params.filter(f);
        }
        s.enable(PROVIDER, &params).expect("enable");
        let mut failures = Failures::default();
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| failures.check(m.provider.write(&desc, &[black_box(&payload)])))
        });
        failures.report(&format!("growth_filters/{n}"));
        s.stop().expect("stop");
    }
    g.finish();

    let mut g = c.benchmark_group("growth_ids");
    g.throughput(Throughput::Elements(1));
    for n in [1usize, 4, 16, 64] {
        let s = m
            .kernel
            .session(&format!("growth_ids{n}"))
            .log_file(&format!("growth_ids{n}.etl"))
            .sink(Discard)
            .buffer_size_kb(64)
            .maximum_buffers(256)
            .start()
            .expect("session");
        // The written id last: a list searched in order pays for every id before it.
        let mut ids: Vec<u16> = (1000..).take(n - 1).collect();
        ids.push(desc.id);
        s.enable(
            PROVIDER,
            &EnableParams::new().filter(EventFilter::EventId {
                filter_in: true,
                ids,
            }),
        )
        .expect("enable");
        let mut failures = Failures::default();
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| failures.check(m.provider.write(&desc, &[black_box(&payload)])))
        });
        failures.report(&format!("growth_ids/{n}"));
        s.stop().expect("stop");
    }
    g.finish();
}

/// `n` registrations of `guid`, spread over processes of at most 1,024 each (PRV-04).
fn registrations(kernel: &Kernel, guid: Guid, n: usize) -> (Vec<Process>, Vec<Provider>) {
    let mut processes = Vec::new();
    let mut providers = Vec::with_capacity(n);
    for i in 0..n {
        if i % 1024 == 0 {
            processes.push(
                kernel
                    .spawn(&format!("p{}.exe", i / 1024), Token::user("bench"))
                    .expect("process"),
            );
        }
        let p = processes.last().expect("a process");
        providers.push(p.register_provider(guid).expect("register"));
    }
    (processes, providers)
}

fn control_growth(c: &mut Criterion) {
    const GUID: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0013_0001);
    let sizes = [1usize, 10, 100, 1_000, 10_000];
    let mut g = c.benchmark_group("control_enable");
    for &n in &sizes {
        let k = Kernel::builder().deterministic(13).build().expect("kernel");
        let (_procs, providers) = registrations(&k, GUID, n);
        let s = k.session("p13").start().expect("session");
        let (a, b) = (
            EnableParams::new().level(Level::INFORMATION),
            EnableParams::new().level(Level::VERBOSE),
        );
        let mut flip = false;
        let mut calls = 0u64;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |bch| {
            bch.iter(|| {
                flip = !flip;
                calls += 1;
                s.enable(GUID, if flip { &a } else { &b })
            })
        });
        // (A filter on the command line may skip the group: then nothing was enabled.)
        assert!(calls == 0 || providers[n - 1].is_enabled());
        s.stop().expect("stop");
    }
    g.finish();

    let mut g = c.benchmark_group("control_register");
    for &n in &sizes {
        let k = Kernel::builder().deterministic(13).build().expect("kernel");
        let (_procs, _providers) = registrations(&k, GUID, n);
        let s = k.session("p13").start().expect("session");
        s.enable(GUID, &EnableParams::new()).expect("enable");
        let extra = k.spawn("extra.exe", Token::user("bench")).expect("process");
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                let p = extra.register_provider(GUID).expect("register");
                black_box(p.is_enabled());
                p.unregister()
            })
        });
        s.stop().expect("stop");
    }
    g.finish();

    let mut g = c.benchmark_group("control_update");
    for &n in &sizes {
        let k = Kernel::builder().deterministic(13).build().expect("kernel");
        let (_procs, _providers) = registrations(&k, GUID, n);
        let s = k.session("p13").start().expect("session");
        s.enable(GUID, &EnableParams::new()).expect("enable");
        let mut t = 0u32;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                t = t % 5 + 1;
                s.update(&SessionUpdate {
                    flush_timer: t,
                    ..SessionUpdate::default()
                })
            })
        });
        s.stop().expect("stop");
    }
    g.finish();

    let mut g = c.benchmark_group("control_enable_guids");
    {
        let n = 10_000usize;
        let k = Kernel::builder().deterministic(13).build().expect("kernel");
        let mut procs = Vec::new();
        let mut providers = Vec::with_capacity(n);
        for i in 0..n {
            if i % 1024 == 0 {
                procs.push(k.spawn("g.exe", Token::user("bench")).expect("process"));
            }
            let guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0001_0000_0000 + i as u128);
            providers.push(
                procs
                    .last()
                    .expect("a process")
                    .register_provider(guid)
                    .expect("register"),
            );
        }
        let target = providers[n / 2].guid();
        let s = k.session("p13g").start().expect("session");
        let (a, b) = (
            EnableParams::new().level(Level::INFORMATION),
            EnableParams::new().level(Level::VERBOSE),
        );
        let mut flip = false;
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(n), |bch| {
            bch.iter(|| {
                flip = !flip;
                s.enable(target, if flip { &a } else { &b })
            })
        });
        s.stop().expect("stop");
    }
    g.finish();
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    payload_growth(&mut c);
    session_growth(&mut c);
    filter_growth(&mut c);
    control_growth(&mut c);
    c.final_summary();
}
