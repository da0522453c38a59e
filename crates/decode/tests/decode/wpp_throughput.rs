//! P19 (`docs/PERF.md`): WPP decode throughput with TMF descriptions, and its cost per event
//! against a TraceLogging decode of an event of the same size — an ignored test that
//! measures once and prints the figures (there is no other WPP decoder on this machine to
//! compare with):
//!
//! ```text
//! cargo test --release -p etwsim-decode --test decode wpp_throughput:: -- --ignored --nocapture
//! ```
//!
//! The event: three arguments, 12 payload bytes — a 32-bit integer, a counted 8-bit string
//! ("Hi") and an NTSTATUS, as a driver's messages carry them. The WPP side looks the message up by
//! (GUID, number), reads the arguments and formats the text ("Hello, 7 Hi: 0xc0000034(
//! STATUS_OBJECT_NAME_NOT_FOUND)"); the TraceLogging side parses the event's metadata and
//! decodes the same three values (UINT32, COUNTEDANSISTRING, INT32 with OutType NTSTATUS), then
//! renders them as text (`DecodedEvent`'s `Display`), the closest TraceLogging has to a
//! formatted message. Each is timed over the same number of events, best of five rounds.

use etwsim_decode::tracelogging::{EventBuilder, decode_event};
use etwsim_decode::wpp::{TmfSet, WppMessage};
use etwsim_types::Guid;
use std::hint::black_box;
use std::time::{Duration, Instant};

const GUID: &str = "{1606d1a7-1682-57d1-65f7-36693800e096}";

const TMF: &str = r#"1606d1a7-1682-57d1-65f7-36693800e096 tracedrv // SRC=tracedrv.c MJ= MN=
#typev tracedrv_c271 11 "%0Hello, %10!d! %11!s!: %12!s!" // LEVEL=TRACE_LEVEL_ERROR FLAGS=FLAG_ONE FUNC=TracedrvDispatchDeviceControl
{
i, ItemLong -- 10
"Hi", ItemPString -- 11
status, ItemNTSTATUS -- 12
}
"#;

const EVENTS: usize = 200_000;

fn best_of<F: FnMut() -> usize>(mut f: F) -> Duration {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
#[ignore = "measures P19 once; run by hand (command in the file's docs)"]
fn p19_wpp_decode_throughput_against_tracelogging() {
    let set = TmfSet::from_text(TMF.as_bytes(), "tracedrv.tmf");
    let guid: Guid = GUID.parse().unwrap();
    let args = [
        &7i32.to_le_bytes()[..],
        &[2, 0, b'H', b'i'],
        &0xC000_0034u32.to_le_bytes(),
    ]
    .concat();
    assert_eq!(args.len(), 12);
    let message = WppMessage {
        guid: Some(guid),
        number: 11,
        sequence: Some(1),
        thread_id: Some(0xE40),
        process_id: Some(0x338),
        ..WppMessage::new(&args)
    };
    assert_eq!(
        set.decode(&message).unwrap().text,
        "Hello, 7 Hi: 0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)"
    );

    let tl = EventBuilder::new("Hello")
        .value("i", 7u32)
        .str8("Hi", b"Hi")
        .ntstatus("status", 0xC000_0034u32 as i32)
        .build()
        .unwrap();
    assert_eq!(tl.payload.len(), args.len(), "the same payload size");
    let decoded = decode_event(&tl.metadata, &tl.payload).unwrap();
    assert_eq!(decoded.fields.len(), 3);

    let wpp = best_of(|| {
        let mut n = 0;
        for _ in 0..EVENTS {
            let d = set.decode(black_box(&message)).unwrap();
            n += d.text.len();
        }
        n
    });
    let tl_decode = best_of(|| {
        let mut n = 0;
        for _ in 0..EVENTS {
            let d = decode_event(black_box(&tl.metadata), black_box(&tl.payload)).unwrap();
            n += d.fields.len();
        }
        n
    });
    let tl_text = best_of(|| {
        let mut n = 0;
        for _ in 0..EVENTS {
            let d = decode_event(black_box(&tl.metadata), black_box(&tl.payload)).unwrap();
            n += d.to_string().len();
        }
        n
    });
    let per = |d: Duration| d.as_secs_f64() * 1e9 / EVENTS as f64;
    let rate = |d: Duration| EVENTS as f64 / d.as_secs_f64();
    println!("P19, {EVENTS} events of 12 payload bytes, best of 5:");
    println!(
        "  WPP decode + TraceFmt text:          {:>8.1} ns/event  {:>12.0} events/s",
        per(wpp),
        rate(wpp)
    );
    println!(
        "  TraceLogging decode + Display text:  {:>8.1} ns/event  {:>12.0} events/s  (WPP / TL = {:.2})",
        per(tl_text),
        rate(tl_text),
        per(wpp) / per(tl_text)
    );
    println!(
        "  TraceLogging decode (no text):       {:>8.1} ns/event  {:>12.0} events/s  (WPP / TL = {:.2})",
        per(tl_decode),
        rate(tl_decode),
        per(wpp) / per(tl_decode)
    );
}
