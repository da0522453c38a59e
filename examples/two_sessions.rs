//! One provider, two sessions, one event stream: who gets what, and why.
//!
//! What it teaches: filtering is decided per session (FLT-20). The provider writes each event
//! once; ETW checks every session that enables the provider against that session's own level,
//! keywords, EnableProperty flags and filter descriptors, and writes the event into each
//! session that accepts it. Two sessions watching the same provider therefore see different
//! subsets of the same stream. Here:
//!
//! * `Errors` — level WARNING, MatchAnyKeyword 0 (every keyword), an EXECUTABLE_NAME filter
//!   for `shop.exe`;
//! * `Network` — level VERBOSE, MatchAnyKeyword 0x2 (the "network" keyword),
//!   IGNORE_KEYWORD_0 and EXCLUDE_INPRIVATE, and an EVENT_ID filter that excludes the
//!   heartbeat event (id 9).
//!
//! The same provider GUID is registered in `shop.exe` and in `updater.exe`. Eight events are
//! written; for each, the example prints which session should record it and the rule that
//! decides, then reads both sessions' buffers back and checks that they hold exactly that.
//!
//! Rules it shows: FLT-01 (level; level 0 always passes), FLT-04 (keywords; keyword 0 passes),
//! FLT-05 (MatchAnyKeyword 0 = all), FLT-07 (IGNORE_KEYWORD_0), FLT-11 and EVT-04
//! (EXCLUDE_INPRIVATE drops EventWriteEx's INPRIVATE writes), FLT-17 (executable-name scope
//! filter: the provider is not even enabled for that session in other processes), FLT-19
//! (EVENT_ID filter, FilterIn = FALSE), FLT-20 (routing per session), EVT-02 (an event no
//! session takes is not an error).
//!
//! Run it with `cargo run --example two_sessions`.

use etwsim::{
    EVENT_WRITE_FLAG_INPRIVATE, EnableParams, EnableProperty, EventDescriptor, EventFilter, Guid,
    Kernel, Keyword, Level, MemorySink, Provider, Token,
};

/// Keyword bits of the provider.
const STORAGE: u64 = 0x1;
const NETWORK: u64 = 0x2;

/// Who writes an event.
#[derive(Copy, Clone, PartialEq, Eq)]
enum From {
    Shop,
    ShopInPrivate,
    Updater,
}

/// One event of the stream, with what each session should do with it and why.
struct Step {
    id: u16,
    level: Level,
    keyword: u64,
    from: From,
    what: &'static str,
    errors: (bool, &'static str),
    network: (bool, &'static str),
}

const STREAM: [Step; 8] = [
    Step {
        id: 1,
        level: Level::ERROR,
        keyword: STORAGE,
        from: From::Shop,
        what: "disk write failed",
        errors: (
            true,
            "Error (2) ≤ Warning (3); MatchAny 0 takes every keyword (FLT-05)",
        ),
        network: (
            false,
            "keyword 0x1 shares no bit with MatchAny 0x2 (FLT-04)",
        ),
    },
    Step {
        id: 2,
        level: Level::INFORMATION,
        keyword: NETWORK,
        from: From::Shop,
        what: "request served",
        errors: (
            false,
            "Information (4) is less severe than Warning (3) (FLT-01)",
        ),
        network: (true, "Information ≤ Verbose, keyword 0x2 matches"),
    },
    Step {
        id: 3,
        level: Level::WARNING,
        keyword: 0,
        from: From::Shop,
        what: "cache is cold",
        errors: (true, "keyword 0 passes the keyword test (FLT-04)"),
        network: (false, "IGNORE_KEYWORD_0 drops keyword-0 events (FLT-07)"),
    },
    Step {
        id: 9,
        level: Level::VERBOSE,
        keyword: NETWORK,
        from: From::Shop,
        what: "heartbeat",
        errors: (false, "Verbose (5) is less severe than Warning (FLT-01)"),
        network: (false, "the EVENT_ID filter excludes id 9 (FLT-19)"),
    },
    Step {
        id: 4,
        level: Level::CRITICAL,
        keyword: NETWORK,
        from: From::Shop,
        what: "payment backend down",
        errors: (true, "Critical passes level Warning"),
        network: (true, "Critical ≤ Verbose, keyword 0x2 matches"),
    },
    Step {
        id: 5,
        level: Level::ERROR,
        keyword: NETWORK,
        from: From::ShopInPrivate,
        what: "private-window checkout failed",
        errors: (true, "Errors does not set EXCLUDE_INPRIVATE"),
        network: (
            false,
            "EXCLUDE_INPRIVATE drops INPRIVATE writes (FLT-11, EVT-04)",
        ),
    },
    Step {
        id: 6,
        level: Level::ERROR,
        keyword: NETWORK,
        from: From::Updater,
        what: "update download failed",
        errors: (
            false,
            "EXECUTABLE_NAME shop.exe: not enabled in updater.exe (FLT-17)",
        ),
        network: (
            true,
            "no scope filter; Error ≤ Verbose, keyword 0x2 matches",
        ),
    },
    Step {
        id: 7,
        level: Level::LOG_ALWAYS,
        keyword: NETWORK,
        from: From::Shop,
        what: "shutting down",
        errors: (
            true,
            "level 0 (LOG_ALWAYS) bypasses the level test (FLT-01)",
        ),
        network: (true, "level 0 passes, keyword 0x2 matches"),
    },
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let kernel = Kernel::builder().cpus(2).deterministic(3).build()?;
    let shop = kernel.spawn("shop.exe", Token::user("alice"))?;
    let updater = kernel.spawn("updater.exe", Token::local_service())?;
    let guid: Guid = "{5eed0003-1234-4567-89ab-cdef00000003}".parse()?;
    let p_shop = shop.register_provider(guid)?;
    let p_updater = updater.register_provider(guid)?;

    let errors_sink = MemorySink::new();
    let errors = kernel
        .session("Errors")
        .log_file("errors.etl")
        .sink(errors_sink.clone())
        .start()?;
    errors.enable(
        guid,
        &EnableParams::new()
            .level(Level::WARNING)
            .filter(EventFilter::ExecutableName("shop.exe".into())),
    )?;

    let network_sink = MemorySink::new();
    let network = kernel
        .session("Network")
        .log_file("network.etl")
        .sink(network_sink.clone())
        .start()?;
    network.enable(
        guid,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(NETWORK)
            .property(EnableProperty::IGNORE_KEYWORD_0 | EnableProperty::EXCLUDE_INPRIVATE)
            .filter(EventFilter::EventId {
                filter_in: false,
                ids: vec![9],
            }),
    )?;

    println!("== two sessions enable the same provider");
    println!("  Errors : level Warning, all keywords, EXECUTABLE_NAME \"shop.exe\"");
    println!("  Network: level Verbose, MatchAny 0x2, IGNORE_KEYWORD_0 | EXCLUDE_INPRIVATE,");
    println!("           EVENT_ID filter excluding id 9");
    println!("\n== each registration's cached enable mask (bit 0: Errors' slot, bit 1: Network's)");
    for (name, p) in [("shop.exe", &p_shop), ("updater.exe", &p_updater)] {
        let mask = p.enable_state().mask;
        let who = match mask {
            0b11 => "enabled for both sessions",
            0b10 => "enabled for Network only: the EXECUTABLE_NAME filter left Errors out",
            _ => "?",
        };
        println!("  {name:<12} mask {mask:02b}  {who}");
    }

    println!("\n== the event stream, and each session's decision");
    for s in &STREAM {
        let provider: &Provider = if s.from == From::Updater {
            &p_updater
        } else {
            &p_shop
        };
        let d = EventDescriptor::new(s.id, s.level, Keyword(s.keyword));
        let payload = s.what.as_bytes();
        // Every write succeeds, even the heartbeat no session takes (EVT-02).
        if s.from == From::ShopInPrivate {
            provider.write_ex(&d, 0, EVENT_WRITE_FLAG_INPRIVATE, None, None, &[payload])?;
        } else {
            provider.write(&d, &[payload])?;
        }
        let from = match s.from {
            From::Shop => "shop.exe",
            From::ShopInPrivate => "shop.exe, INPRIVATE flag",
            From::Updater => "updater.exe",
        };
        println!(
            "\n  id {} \"{}\" — level {}, keyword {:#x}, from {from}",
            s.id, s.what, s.level.0, s.keyword
        );
        println!("    Errors : {:<3} {}", yes_no(s.errors.0), s.errors.1);
        println!("    Network: {:<3} {}", yes_no(s.network.0), s.network.1);
    }

    let e = errors.stop()?;
    let n = network.stop()?;
    let got_errors: Vec<u16> = errors_sink
        .records()
        .iter()
        .map(|r| r.header.descriptor.id)
        .collect();
    let got_network: Vec<u16> = network_sink
        .records()
        .iter()
        .map(|r| r.header.descriptor.id)
        .collect();
    println!("\n== what the sessions' buffers hold (read back after STOP)");
    println!(
        "  Errors : ids {got_errors:?}  (EventsLost {}, BuffersWritten {})",
        e.events_lost, e.buffers_written
    );
    println!(
        "  Network: ids {got_network:?}  (EventsLost {}, BuffersWritten {})",
        n.events_lost, n.buffers_written
    );

    let want = |pick: fn(&Step) -> bool| -> Vec<u16> {
        STREAM.iter().filter(|s| pick(s)).map(|s| s.id).collect()
    };
    let (want_errors, want_network) = (want(|s| s.errors.0), want(|s| s.network.0));
    if got_errors != want_errors || got_network != want_network {
        return Err(format!(
            "the engine disagrees with the example: expected Errors {want_errors:?}, Network {want_network:?}"
        )
        .into());
    }
    println!("  both match the decisions above.");
    Ok(())
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
