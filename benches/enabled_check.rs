//! P1, P2: the provider-side enabled checks, against their floors and the `tracing` / `log`
//! peers, all in the same criterion run.
//!
//! One iteration runs `CHECKS` checks in a loop (the provider reference, level and keyword
//! pass through `black_box` each time, so every check reloads the atomics); the time per check
//! is the iteration time / `CHECKS` (criterion's throughput line, in elements/s, says the same).
//!
//! Configurations:
//!
//! * `floor/atomic_load` — a relaxed `AtomicU64` load + branch: the floor of P1.
//! * `floor/level_keyword` — the level + keyword expression against three atomics (word,
//!   MatchAnyKeyword, MatchAllKeyword), the event rejected by level: the floor of P2.
//! * `floor/level_keyword_kw` — the same expression, the event rejected by keyword.
//! * `etwsim/is_enabled/no_session`, `etwsim/is_enabled_for/no_session` — P1.
//! * `etwsim/is_enabled_for/level_filtered` — a session at level 4, the event at level 5 (P2).
//! * `etwsim/is_enabled_for/keyword_filtered` — MatchAnyKeyword 0x1, the event keyword 0x2.
//! * `etwsim/is_enabled_for/keyword0_ignored` — IGNORE_KEYWORD_0, the event keyword 0.
//! * `log/trace_max_info` — `log::trace!` with `log::set_max_level(Info)` (peer, disabled).
//! * `tracing/no_subscriber` — `tracing::trace!` before any subscriber is set.
//! * `tracing/level_filtered` — a global subscriber whose `max_level_hint` is DEBUG, a TRACE
//!   event.
//! * `tracing/dynamic_reject` — the same subscriber: `register_callsite` says
//!   `Interest::sometimes()` and `enabled()` rejects the DEBUG event each time.
//!
//! Commands and results: docs/PERFORMANCE.md.

use criterion::{Criterion, Throughput};
use etwsim::{EnableParams, EnableProperty, Guid, Kernel, Keyword, Level, Provider, Token};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

/// Checks per criterion iteration.
const CHECKS: u64 = 1_000;

const P_NONE: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0001_0001);
const P_LEVEL: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0001_0002);
const P_KW: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0001_0003);
const P_KW0: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0001_0004);

/// The floor of P2: an enable word (mask in the low byte, level in the next, a keyword-0 bit)
/// and the two composite keywords, as atomics, and the same expression the check needs.
struct Floor {
    word: AtomicU64,
    any: AtomicU64,
    all: AtomicU64,
}

const KW0_BIT: u64 = 1 << 16;

impl Floor {
    #[inline]
    fn accepts(&self, level: u8, keyword: u64) -> bool {
        let w = self.word.load(Ordering::Relaxed);
        if w == 0 || level > (w >> 8) as u8 {
            return false;
        }
        if keyword == 0 {
            return w & KW0_BIT != 0;
        }
        let any = self.any.load(Ordering::Relaxed);
        let all = self.all.load(Ordering::Relaxed);
        keyword & any != 0 && keyword & all == all
    }
}

/// Runs `check` `CHECKS` times; the count of `true`s is kept alive.
#[inline(always)]
fn run(check: impl Fn() -> bool) {
    let mut hits = 0u64;
    for _ in 0..CHECKS {
        if check() {
            hits += 1;
        }
    }
    black_box(hits);
}

mod peer {
    use tracing::level_filters::LevelFilter;
    use tracing::span::{Attributes, Id, Record};
    use tracing::subscriber::Interest;
    use tracing::{Event, Metadata, Subscriber};

    /// A subscriber that takes nothing: its level hint is DEBUG (TRACE events are filtered by
    /// level before any callsite is asked) and every callsite is `sometimes`, so DEBUG events
    /// reach `enabled()`, which rejects them.
    pub(super) struct Rejecting;

    impl Subscriber for Rejecting {
        fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
            Interest::sometimes()
        }
        fn max_level_hint(&self) -> Option<LevelFilter> {
            Some(LevelFilter::DEBUG)
        }
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            std::hint::black_box(metadata.target()).is_empty()
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

/// One disabled `tracing` TRACE event (the macro does the enabled check itself).
#[inline(always)]
fn tracing_trace() -> bool {
    tracing::trace!(x = 1u32);
    false
}

fn bench(c: &mut Criterion) {
    let kernel = Kernel::builder()
        .deterministic(5)
        .build()
        .expect("a kernel");
    let app = kernel
        .spawn("bench.exe", Token::user("bench"))
        .expect("a process");
    let none = app.register_provider(P_NONE).expect("a provider");
    let by_level = app.register_provider(P_LEVEL).expect("a provider");
    let by_kw = app.register_provider(P_KW).expect("a provider");
    let by_kw0 = app.register_provider(P_KW0).expect("a provider");
    let session = kernel.session("p2").start().expect("a session");
    session
        .enable(P_LEVEL, &EnableParams::new().level(Level::INFORMATION))
        .expect("enable");
    session
        .enable(P_KW, &EnableParams::new().level(Level::VERBOSE).any(0x1))
        .expect("enable");
    session
        .enable(
            P_KW0,
            &EnableParams::new()
                .level(Level::VERBOSE)
                .any(0x1)
                .property(EnableProperty::IGNORE_KEYWORD_0),
        )
        .expect("enable");
    // Each configuration must be what it claims: enabled, yet this event filtered out.
    assert!(!none.is_enabled());
    for p in [&by_level, &by_kw, &by_kw0] {
        assert!(p.is_enabled());
    }
    assert!(!by_level.is_enabled_for(Level::VERBOSE, Keyword(1)));
    assert!(by_level.is_enabled_for(Level::INFORMATION, Keyword(1)));
    assert!(!by_kw.is_enabled_for(Level::INFORMATION, Keyword(2)));
    assert!(by_kw.is_enabled_for(Level::INFORMATION, Keyword(1)));
    assert!(!by_kw0.is_enabled_for(Level::INFORMATION, Keyword(0)));
    assert!(by_kw0.is_enabled_for(Level::INFORMATION, Keyword(1)));

    let zero = AtomicU64::new(0);
    let floor = Floor {
        word: AtomicU64::new(1 | (4 << 8) | KW0_BIT),
        any: AtomicU64::new(1),
        all: AtomicU64::new(0),
    };
    assert!(!floor.accepts(5, 1) && !floor.accepts(4, 2) && floor.accepts(4, 1));

    let mut g = c.benchmark_group("enabled_check");
    g.throughput(Throughput::Elements(CHECKS));

    g.bench_function("floor/atomic_load", |b| {
        b.iter(|| run(|| black_box(&zero).load(Ordering::Relaxed) != 0))
    });
    g.bench_function("floor/level_keyword", |b| {
        b.iter(|| run(|| black_box(&floor).accepts(black_box(5), black_box(1))))
    });
    g.bench_function("floor/level_keyword_kw", |b| {
        b.iter(|| run(|| black_box(&floor).accepts(black_box(4), black_box(2))))
    });

    let check = |p: &Provider, level: Level, kw: u64| {
        black_box(p).is_enabled_for(black_box(level), Keyword(black_box(kw)))
    };
    g.bench_function("etwsim/is_enabled/no_session", |b| {
        b.iter(|| run(|| black_box(&none).is_enabled()))
    });
    g.bench_function("etwsim/is_enabled_for/no_session", |b| {
        b.iter(|| run(|| check(&none, Level::INFORMATION, 1)))
    });
    g.bench_function("etwsim/is_enabled_for/level_filtered", |b| {
        b.iter(|| run(|| check(&by_level, Level::VERBOSE, 1)))
    });
    g.bench_function("etwsim/is_enabled_for/keyword_filtered", |b| {
        b.iter(|| run(|| check(&by_kw, Level::INFORMATION, 2)))
    });
    g.bench_function("etwsim/is_enabled_for/keyword0_ignored", |b| {
        b.iter(|| run(|| check(&by_kw0, Level::INFORMATION, 0)))
    });

    // log: no logger, max level Info; trace! is the peer's disabled path.
    log::set_max_level(log::LevelFilter::Info);
    g.bench_function("log/trace_max_info", |b| {
        b.iter(|| {
            run(|| {
                log::trace!("x = {}", 1u32);
                false
            })
        })
    });

    // tracing: first with no subscriber at all, then with the global rejecting subscriber.
    g.bench_function("tracing/no_subscriber", |b| b.iter(|| run(tracing_trace)));
    tracing::subscriber::set_global_default(peer::Rejecting).expect("the only global subscriber");
    g.bench_function("tracing/level_filtered", |b| b.iter(|| run(tracing_trace)));
    g.bench_function("tracing/dynamic_reject", |b| {
        b.iter(|| {
            run(|| {
                tracing::debug!(x = 1u32);
                false
            })
        })
    });
    g.finish();
    drop(session);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
