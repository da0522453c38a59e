//! `etwsim dump` as people use it: each format on the demo's files (with and without their
//! manifest), on generated files and on the shared fixtures; decoding TraceLogging, manifest
//! and kernel events; and every error a person can cause — missing, empty, foreign,
//! truncated and damaged files, and standard output that cannot be written.

use crate::common;

use common::*;
use etwsim::etl::{BufferBuilder, CloseStats, MessageInfo, Record, TraceRecord, Writer};
use etwsim::etl::{WriterOptions, message_flags};
use etwsim::record::header_type;
use etwsim::{EventDescriptor, EventHeader, EventRecord, Guid, Keyword, Level};
use etwsim_decode::tracelogging::{EventBuilder, ProviderTraits};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The demo's Contoso-Shop, as every format prints it.
const SHOP: &str = "{5eed0101-2026-4e75-8000-73686f703031}";

#[test]
fn dump_formats_agree_on_the_demo_file() {
    let (dir, _) = demo("dump_formats");
    let text = ok(&dir, &["dump", "demo.etl"]);
    let csv = ok(&dir, &["dump", "demo.etl", "--format", "csv"]);
    let json = ok(&dir, &["dump", "--format=json", "demo.etl"]);
    let (rows, _) = text_records(&text);
    assert_eq!(rows, 5);
    for needle in [
        "logger       DemoFile",
        "buffer size  8 KB",
        "clock        QPC",
        "start        2026-01-01T00:00:00.0000000Z",
        "processors   4",
        "2026-01-01T00:00:00.0000010Z  {5eed0101-2026-4e75-8000-73686f703031}     1   0   4",
        "PROCESS_START_KEY",
        // Without the manifest nothing describes the events: hex and the reason.
        "    payload 0x6F7264657220706C61636564",
        "not decoded: no TraceLogging metadata, no manifest given for this provider (--manifest FILE)",
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }

    let (header, rows) = csv_rows(&csv);
    assert_eq!(
        header.join(","),
        "time,kind,provider,id,version,level,opcode,task,keyword,hook,pid,tid,cpu,payload_len,\
         ext,activity_id,provider_name,event_name,fields,message,payload,error"
    );
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r.len() == header.len()));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r[col("id")].as_str()).collect();
    assert_eq!(ids, ["1", "2", "21", "22", "4"], "oldest first");
    assert_eq!(rows[0][col("pid")], "1200");
    assert_eq!(rows[0][col("payload")], "0x6F7264657220706C61636564");
    assert!(rows[0][col("error")].contains("--manifest"));

    let lines = json_lines(&json);
    assert_eq!(lines.len(), 6);
    let h = &lines[0];
    assert_eq!(h["type"], "header");
    assert_eq!(h["logger"], "DemoFile");
    assert_eq!(h["buffer_size"], 8192);
    assert_eq!(h["processors"], 4);
    assert_eq!(h["start_time"], "2026-01-01T00:00:00.0000000Z");
    let ids: Vec<&Json> = lines[1..].iter().map(|e| &e["id"]).collect();
    assert_eq!(ids, [1, 2, 21, 22, 4]);
    let first = &lines[1];
    assert_eq!(first["kind"], "EVENT_HEADER");
    assert_eq!(first["time"], "2026-01-01T00:00:00.0000010Z");
    assert_eq!(first["cpu"], 0);
    assert_eq!(first["ext"][0]["name"], "PROCESS_START_KEY");
    assert_eq!(first["ext"][0]["size"], 8);
    assert_eq!(first["fields"], Json::Null);
    assert_eq!(first["payload"], "0x6F7264657220706C61636564");

    // One GUID form in the three formats: lowercase, in braces.
    assert_eq!(first["provider"], SHOP);
    assert_eq!(rows[0][col("provider")], SHOP);
    assert!(text_record_lines(&text)[0].contains(SHOP));
}

#[test]
fn dump_decodes_the_demo_events_with_their_manifest_in_every_format() {
    // rule: DEC-16
    // rule: DEC-26
    let (dir, _) = demo("dump_manifest");
    let text = ok(&dir, &["dump", "demo.etl", "--manifest", "demo.man"]);
    for needle in [
        "    Contoso-Shop/OrderPlaced  What=\"order placed\"\n    message: The shop reports: order placed\n",
        "    Contoso-Updater/DownloadFailed  What=\"download failed\"\n",
        "    message: The shop reports: payment backend down; orders cannot be paid\n",
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }
    assert!(!text.contains("  not decoded:"), "{text}");

    let (header, rows) = csv_rows(&ok(
        &dir,
        &["dump", "demo.etl", "-m", "demo.man", "-f", "csv"],
    ));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let row = &rows[0];
    assert_eq!(row[col("provider_name")], "Contoso-Shop");
    assert_eq!(row[col("event_name")], "OrderPlaced");
    assert_eq!(row[col("fields")], r#"{"What":"order placed"}"#);
    assert_eq!(row[col("message")], "The shop reports: order placed");
    assert_eq!((&*row[col("payload")], &*row[col("error")]), ("", ""));

    let lines = json_lines(&ok(
        &dir,
        &["dump", "demo.etl", "--manifest=demo.man", "--format=json"],
    ));
    let names: Vec<(&str, &str)> = lines[1..]
        .iter()
        .map(|e| {
            (
                e["provider_name"].as_str().unwrap(),
                e["event_name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("Contoso-Shop", "OrderPlaced"),
            ("Contoso-Shop", "RequestServed"),
            ("Contoso-Updater", "DownloadFailed"),
            ("Contoso-Updater", "RetryScheduled"),
            ("Contoso-Shop", "PaymentBackendDown"),
        ]
    );
    assert_eq!(
        lines[1]["fields"],
        serde_json::json!({"What": "order placed"})
    );
    assert_eq!(lines[1]["message"], "The shop reports: order placed");
    assert_eq!(lines[1]["payload"], Json::Null);
    assert_eq!(lines[1]["decode_error"], Json::Null);

    // The burst's events: a number, then 116 bytes of padding.
    let burst = json_lines(&ok(
        &dir,
        &["dump", "burst.etl", "-m", "demo.man", "-f", "json"],
    ));
    let items: Vec<&Json> = burst[1..4].iter().map(|e| &e["fields"]["Item"]).collect();
    assert_eq!(items, [3, 5, 7]);
    assert_eq!(burst[1]["message"], "The indexer indexed item 3");
}

#[test]
fn a_bad_manifest_is_one_line_naming_it() {
    let (dir, _) = demo("bad_manifest");
    std::fs::write(dir.join("bad.man"), "<instrumentationManifest><oops>").unwrap();
    let (out, _) = fails(
        &dir,
        &["dump", "demo.etl", "--manifest", "bad.man"],
        1,
        "cannot use manifest bad.man: manifest XML, line 1",
    );
    assert_eq!(out, "");
    fails(
        &dir,
        &["dump", "demo.etl", "--manifest", "gone.man"],
        1,
        "cannot read manifest gone.man: no such file",
    );
}

#[test]
fn a_manifest_read_one_way_is_used_and_its_diagnostics_are_warnings() {
    // rule: DEC-24
    // rule: DEC-23
    let (dir, _) = demo("manifest_warnings");
    let text = std::fs::read_to_string(dir.join("demo.man")).unwrap();
    let line = 1 + text
        .lines()
        .position(|l| l.contains("<data name=\"Item\""))
        .unwrap();
    let warned = text
        .replace(
            "<data name=\"Item\" inType=\"win:UInt32\"/>",
            "<data name=\"Item\" inType=\"win:UInt32\" map=\"Nowhere\"/>",
        )
        .replace("keywords=\"Indexing\"", "keywords=\"Indexing Elsewhere\"");
    std::fs::write(dir.join("warn.man"), warned).unwrap();
    for command in ["dump", "export"] {
        let mut args = vec![command, "burst.etl", "-m", "warn.man", "-m", "warn.man"];
        if command == "export" {
            args.extend(["-o", "warn.json"]);
        }
        let o = etwsim(&dir, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{command}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{command}: each diagnostic once: {err}");
        assert!(
            lines[0].starts_with(&format!(
                "etwsim: warning: warn.man:{line}: <data>: map \"Nowhere\""
            )),
            "{command}: {err}"
        );
        assert!(
            lines[1].contains("warning: warn.man:")
                && lines[1].contains("<event>: keyword \"Elsewhere\""),
            "{command}: {err}"
        );
    }
    // The events still decode with the manifest: the mapped field as its number.
    let text = stdout(&etwsim(
        &dir,
        &["dump", "burst.etl", "--manifest", "warn.man"],
    ));
    assert!(text.contains("Item=3"), "{text}");
}

#[cfg(unix)]
#[test]
fn an_endless_manifest_is_refused_at_its_size_cap() {
    // rule: DEC-16
    let (dir, _) = demo("endless_manifest");
    let (out, _) = fails(
        &dir,
        &["dump", "demo.etl", "--manifest", "/dev/zero"],
        1,
        "etwsim: /dev/zero is larger than the 64 MiB a manifest may be",
    );
    assert_eq!(out, "");
}

#[test]
fn dump_reads_every_fixture_in_every_format() {
    let Some(files) = fixtures() else { return };
    assert!(!files.is_empty(), "no fixtures found");
    let dir = scratch("fixtures");
    for path in files {
        let name = path.display().to_string();
        let expected =
            json_lines(&std::fs::read_to_string(path.with_extension("expected.jsonl")).unwrap());
        let n = expected.len();

        let (rows, total) = text_records(&ok(&dir, &["dump", &name]));
        assert_eq!((rows, total), (n, n as u64), "{name}: text");
        let (_, csv) = csv_rows(&ok(&dir, &["dump", &name, "--format", "csv"]));
        assert_eq!(csv.len(), n, "{name}: csv");
        let lines = json_lines(&ok(&dir, &["dump", &name, "--format", "json"]));
        assert_eq!(lines.len(), n + 1, "{name}: json");

        // The same records as the expected lines (which are in file order; dump prints
        // oldest first): compare them as sorted lists of their fields.
        let key = |j: &Json| {
            let e = j["ext"].as_array().map_or(0, Vec::len);
            [
                "id",
                "version",
                "level",
                "opcode",
                "task",
                "keyword",
                "pid",
                "tid",
                "payload_len",
            ]
            .map(|k| j[k].as_u64())
            .into_iter()
            .chain([Some(e as u64)])
            .collect::<Vec<_>>()
        };
        let mut got: Vec<_> = lines[1..].iter().map(key).collect();
        let mut want: Vec<_> = expected.iter().map(key).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{name}");
        let providers = |v: &[Json], braced: bool| {
            let mut p: Vec<String> = v
                .iter()
                .filter_map(|j| j["provider"].as_str())
                .map(|g| {
                    if braced {
                        assert!(g.starts_with('{') && g.ends_with('}'), "{g}");
                        g.trim_matches(['{', '}']).to_string()
                    } else {
                        g.to_string()
                    }
                })
                .collect();
            p.sort();
            p
        };
        assert_eq!(
            providers(&lines[1..], true),
            providers(&expected, false),
            "{name}"
        );
    }
}

/// `value`, as etwsim's JSON holds it, equals `shown`, as etl_check.py prints the value the
/// parser decoded: numbers and booleans as Python prints them, GUIDs without braces. Two
/// forms differ by design and are accepted as equal, each documented: an array of 16-bit
/// characters (OutType STRING, AMSI's "Raw Script") is text in etwsim (TDH shows it as a
/// string) and a list of code units in etl-parser; and etl-parser reads a COUNTEDANSISTRING's
/// u16 length as one byte, so its value starts with the length's high byte (a NUL).
fn same_value(value: &Json, shown: &str) -> bool {
    match value {
        Json::Bool(b) => shown == if *b { "True" } else { "False" },
        Json::Number(n) => match (n.as_f64(), shown.parse::<f64>()) {
            _ if n.to_string() == shown => true,
            (Some(a), Ok(b)) => a == b,
            _ => false,
        },
        Json::Array(items) => {
            let inner: Vec<String> = items.iter().map(|i| i.to_string()).collect();
            shown == format!("[{}]", inner.join(", "))
        }
        Json::String(s) => {
            let units: Vec<String> = s.encode_utf16().map(|u| u.to_string()).collect();
            s == shown
                || s.trim_matches(['{', '}']) == shown && s.starts_with('{')
                || format!("[{}]", units.join(", ")) == shown
                || format!("\0{s}") == shown
        }
        _ => false,
    }
}

#[test]
fn dump_decodes_the_fixtures_tracelogging_events_as_etl_parser_does() {
    // rule: DEC-02
    // rule: DEC-04
    let Some(files) = fixtures() else { return };
    let dir = scratch("fixtures_tl");
    let mut compared = 0;
    for path in files {
        let name = path.display().to_string();
        let expected =
            json_lines(&std::fs::read_to_string(path.with_extension("expected.jsonl")).unwrap());
        let lines = json_lines(&ok(&dir, &["dump", &name, "--format", "json"]));
        for want in &expected {
            let Some(tl_name) = want["decoded"]["name"]
                .as_str()
                .and_then(|n| n.strip_prefix("TraceLogging "))
            else {
                continue;
            };
            let fields = want["decoded"]["fields"].as_object().unwrap();
            let found = lines[1..].iter().any(|got| {
                got["pid"] == want["pid"]
                    && got["tid"] == want["tid"]
                    && got["payload_len"] == want["payload_len"]
                    && got["event_name"] == tl_name
                    && got["provider_name"].is_string()
                    && got["fields"].as_object().is_some_and(|f| {
                        f.len() == fields.len()
                            && fields.iter().all(|(k, v)| {
                                f.get(k)
                                    .is_some_and(|mine| same_value(mine, v.as_str().unwrap()))
                            })
                    })
            });
            assert!(
                found,
                "{name}: no event decodes as {want}\netwsim's:\n{}",
                lines[1..]
                    .iter()
                    .map(|l| format!("{} {}", l["event_name"], l["fields"]))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            compared += 1;
        }
    }
    assert!(
        compared >= 20,
        "only {compared} TraceLogging events compared"
    );
}

#[test]
fn dump_decodes_kernel_classes_and_names_the_header_record() {
    // rule: KRN-14
    let Some(files) = fixtures() else { return };
    let dir = scratch("fixtures_header");
    for path in files {
        let name = path.display().to_string();
        let lines = json_lines(&ok(
            &dir,
            &["dump", &name, "--format", "json", "--header-records"],
        ));
        let header = &lines[0];
        let first = &lines[1];
        assert_eq!(first["kind"], "SYSTEM_TRACE_HEADER", "{name}");
        assert_eq!(
            (&first["provider_name"], &first["event_name"]),
            (&Json::from("EventTrace"), &Json::from("Header")),
            "{name}"
        );
        let f = &first["fields"];
        assert_eq!(f["BufferSize"], header["buffer_size"], "{name}");
        assert_eq!(f["PointerSize"], header["pointer_size"], "{name}");
        assert_eq!(f["NumberOfProcessors"], header["processors"], "{name}");
        assert_eq!(f["SessionNameString"], header["logger"], "{name}");
    }
}

/// A file with one record of each kind that is not EVENT_HEADER, one event, and a logger
/// name that needs escaping in every format.
fn odd_file(dir: &Path) -> PathBuf {
    let path = dir.join("kinds.etl");
    let start = 134_116_992_000_000_000; // 2026-01-01T00:00:00Z at raw 0
    let mut w = Writer::create(
        WriterOptions::new(&path)
            .buffer_size(4096)
            .processors(2)
            .start(0, start)
            .logger_name("odd \"name\", with\\escapes\n"),
    )
    .unwrap();
    let trace = |header_type: u8, hook_id: u16, ts: Option<i64>| TraceRecord {
        header_type,
        version: 2,
        hook_id,
        thread_id: Some(88),
        process_id: Some(4),
        timestamp: ts,
        payload: vec![0xAB; 8],
        ..TraceRecord::default()
    };
    let mut cpu0 = BufferBuilder::new(4096, 0).unwrap();
    let mut cpu1 = BufferBuilder::new(4096, 1).unwrap();
    cpu0.push(&Record::Event(EventRecord {
        header: EventHeader {
            timestamp: 10,
            thread_id: 7,
            process_id: 6,
            provider_id: Guid::RT_LOST_EVENT,
            descriptor: EventDescriptor::new(42, Level::WARNING, Keyword(0x30)),
            ..EventHeader::default()
        },
        user_data: b"abc".to_vec(),
        ..EventRecord::default()
    }))
    .unwrap();
    cpu0.push(&Record::Trace(trace(
        header_type::SYSTEM64,
        0x0b0a,
        Some(20),
    )))
    .unwrap();
    cpu1.push(&Record::Trace(TraceRecord {
        process_id: None,
        thread_id: None,
        ..trace(header_type::PERFINFO64, 0x0f2e, Some(30))
    }))
    .unwrap();
    cpu1.push(&Record::Trace(TraceRecord {
        guid: Some(Guid::RT_LOST_EVENT),
        level: 3,
        ..trace(header_type::FULL_HEADER64, 0x0001, Some(40))
    }))
    .unwrap();
    cpu1.push(&Record::Trace(TraceRecord {
        message: Some(MessageInfo {
            option_flags: message_flags::SEQUENCE,
            sequence: Some(9),
            component_id: None,
        }),
        process_id: None,
        thread_id: None,
        ..trace(header_type::MESSAGE, 0x0011, None)
    }))
    .unwrap();
    w.write_buffer(&cpu0.finish(1, 20, 0)).unwrap();
    w.write_buffer(&cpu1.finish(2, 40, 0)).unwrap();
    w.close(&CloseStats::default()).unwrap();
    path
}

#[test]
fn dump_shows_the_kind_and_hook_of_other_records() {
    let dir = scratch("kinds");
    odd_file(&dir);
    let text = ok(&dir, &["dump", "kinds.etl"]);
    assert_eq!(text_records(&text), (5, 5));
    assert!(
        text.contains("5 records: 1 EVENT_HEADER event, 4 other records"),
        "{text}"
    );
    for needle in [
        "SYSTEM_TRACE_HEADER hook 0x0b0a",
        "PERFINFO_TRACE_HEADER hook 0x0f2e",
        "EVENT_TRACE_HEADER hook 0x0001",
        "MESSAGE_TRACE_HEADER hook 0x0011",
        // The logger name's line break is shown escaped, not printed.
        r#"logger       odd \"name\", with\\escapes\n (logger id 0)"#,
        // Loss markers are named (BUF-14), WPP messages say why they are not decoded.
        "    RT_LostEvent/type 0",
        "not decoded: a WPP message",
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }

    let (header, rows) = csv_rows(&ok(&dir, &["dump", "kinds.etl", "--format", "csv"]));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let by_kind: BTreeMap<&str, &Vec<String>> =
        rows.iter().map(|r| (r[col("kind")].as_str(), r)).collect();
    assert_eq!(by_kind["SYSTEM_TRACE_HEADER"][col("hook")], "0x0b0a");
    assert_eq!(by_kind["SYSTEM_TRACE_HEADER"][col("pid")], "4");
    assert_eq!(
        by_kind["PERFINFO_TRACE_HEADER"][col("pid")],
        "",
        "no pid in a perfinfo record"
    );
    assert_eq!(
        by_kind["MESSAGE_TRACE_HEADER"][col("time")],
        "",
        "a WPP message without a timestamp"
    );
    assert_eq!(by_kind["EVENT_HEADER"][col("keyword")], "0x30");

    let lines = json_lines(&ok(&dir, &["dump", "kinds.etl", "--format", "json"]));
    assert_eq!(
        lines[0]["logger"], "odd \"name\", with\\escapes\n",
        "escaped and read back"
    );
    let kinds: Vec<(&str, Option<u64>)> = lines[1..]
        .iter()
        .map(|l| (l["kind"].as_str().unwrap(), l["hook"].as_u64()))
        .collect();
    assert!(
        kinds.contains(&("PERFINFO_TRACE_HEADER", Some(0x0f2e))),
        "{kinds:?}"
    );
    assert!(kinds.contains(&("EVENT_HEADER", None)), "{kinds:?}");
    let classic = lines
        .iter()
        .find(|l| l["kind"] == "EVENT_TRACE_HEADER")
        .unwrap();
    assert_eq!(classic["type"], "trace");
    assert_eq!(classic["level"], 3);
    assert_eq!(classic["time"], "2026-01-01T00:00:00.0000040Z");
    assert_eq!(classic["provider_name"], "RT_LostEvent");
}

/// A file of TraceLogging events written straight into buffers: one whole, one whose payload
/// ends inside its third field.
fn tracelogging_file(dir: &Path) -> PathBuf {
    let path = dir.join("tl.etl");
    let mut w = Writer::create(
        WriterOptions::new(&path)
            .buffer_size(4096)
            .start(0, 134_116_992_000_000_000),
    )
    .unwrap();
    let event = EventBuilder::new("Transfer")
        .str16("Name", "report.pdf")
        .value("Bytes", 4096u64)
        .hex32("Flags", 0x2a)
        .build()
        .unwrap();
    let traits = ProviderTraits::new("Contoso.Files");
    let provider = Guid::from_provider_name("Contoso.Files");
    let mut whole = event.to_record(provider, Some(&traits)).unwrap();
    whole.header.timestamp = 10;
    let mut cut = whole.clone();
    cut.header.timestamp = 20;
    // "report.pdf" (a u16 count and 20 bytes), Bytes (8), then 2 of Flags' 4 bytes.
    cut.user_data.truncate(22 + 8 + 2);
    let mut b = BufferBuilder::new(4096, 0).unwrap();
    b.push(&Record::Event(whole)).unwrap();
    b.push(&Record::Event(cut)).unwrap();
    w.write_buffer(&b.finish(1, 20, 0)).unwrap();
    w.close(&CloseStats::default()).unwrap();
    path
}

#[test]
fn an_event_that_cannot_be_decoded_shows_its_payload_and_the_decoders_reason() {
    // rule: DEC-03
    // rule: DEC-04
    let dir = scratch("tl_cut");
    tracelogging_file(&dir);
    let text = ok(&dir, &["dump", "tl.etl"]);
    for needle in [
        "    Contoso.Files/Transfer  Name=\"report.pdf\", Bytes=4096, Flags=0x0000002A\n",
        "    Contoso.Files/Transfer  not decoded: TraceLogging field \"Flags\" at payload byte 30: \
         needs 4 bytes, only 2 left\n    payload 0x14007200650070006F00",
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }
    let lines = json_lines(&ok(&dir, &["dump", "tl.etl", "--format", "json"]));
    assert_eq!(lines[1]["provider_name"], "Contoso.Files");
    assert_eq!(lines[1]["event_name"], "Transfer");
    assert_eq!(
        lines[1]["fields"],
        serde_json::json!({"Name": "report.pdf", "Bytes": 4096, "Flags": "0x0000002A"})
    );
    let cut = &lines[2];
    assert_eq!(cut["fields"], Json::Null);
    assert_eq!(cut["event_name"], "Transfer");
    assert_eq!(
        cut["decode_error"],
        "TraceLogging field \"Flags\" at payload byte 30: needs 4 bytes, only 2 left"
    );
    assert_eq!(cut["payload_len"], 32);
    assert_eq!(cut["payload"].as_str().unwrap().len(), 2 + 2 * 32);
    let (header, rows) = csv_rows(&ok(&dir, &["dump", "tl.etl", "--format", "csv"]));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(
        rows[0][col("fields")],
        r#"{"Name":"report.pdf","Bytes":4096,"Flags":"0x0000002A"}"#
    );
    assert_eq!(rows[1][col("error")], cut["decode_error"].as_str().unwrap());
    assert_eq!(rows[1][col("payload")], cut["payload"].as_str().unwrap());
}

#[test]
fn a_missing_file_is_one_line_and_exit_1() {
    let dir = scratch("missing");
    let (out, err) = fails(&dir, &["dump", "demo.etl"], 1, "cannot read demo.etl: ");
    assert_eq!(out, "");
    assert!(err.contains("no such file"), "{err}");
}

#[test]
fn an_empty_or_foreign_file_is_one_line_saying_so() {
    let dir = scratch("not_etl");
    std::fs::write(
        dir.join("notes.txt"),
        "hello, this is not a trace\n".repeat(200),
    )
    .unwrap();
    std::fs::write(dir.join("empty.etl"), b"").unwrap();
    std::fs::write(dir.join("tiny.etl"), b"hello").unwrap();
    for (f, needle) in [
        (
            "notes.txt",
            "cannot read notes.txt: not a valid .etl file (",
        ),
        (
            "empty.etl",
            "cannot read empty.etl: the file is empty (0 bytes)",
        ),
        (
            "tiny.etl",
            "cannot read tiny.etl: not an .etl file: 5 bytes, fewer than the 72 of a buffer header",
        ),
    ] {
        for format in ["text", "csv", "json"] {
            let (out, _) = fails(&dir, &["dump", f, "--format", format], 1, needle);
            assert_eq!(out, "");
        }
        fails(&dir, &["export", f], 1, needle);
    }
    fails(&dir, &["dump", "."], 1, "cannot read .: it is a folder");
}

#[test]
fn a_truncated_file_prints_the_records_before_it_then_says_where_the_file_ends() {
    let (dir, _) = demo("truncated");
    let bytes = std::fs::read(dir.join("burst.etl")).unwrap();
    // Four whole 4 KB buffers (the header and three full data buffers) and part of a fifth.
    let len = 4 * 4096 + 1000;
    std::fs::write(dir.join("cut.etl"), &bytes[..len]).unwrap();
    let says = "cannot read cut.etl: the file is truncated: it ends at byte 17384 (0x43e8), \
                1000 bytes into buffer 4 (buffers are 4096 bytes; this one starts at 0x4000); \
                the 60 records before it were printed";
    for format in ["text", "csv", "json"] {
        let (out, _) = fails(&dir, &["dump", "cut.etl", "--format", format], 1, says);
        match format {
            "text" => {
                assert_eq!(text_record_lines(&out).len(), 60);
                assert!(
                    out.ends_with(
                        "\n60 records, then the file is truncated: it ends at byte 17384 \
                         (0x43e8), 1000 bytes into buffer 4 (buffers are 4096 bytes; this one \
                         starts at 0x4000)\n"
                    ),
                    "{out}"
                );
            }
            "csv" => {
                let (header, rows) = csv_rows(&out);
                assert_eq!(rows.len(), 61, "60 records and the error row");
                let last = &rows[60];
                assert_eq!(last[1], "ERROR");
                assert!(
                    last[header.len() - 1]
                        .starts_with("the file is truncated: it ends at byte 17384"),
                    "{last:?}"
                );
            }
            _ => {
                let lines = json_lines(&out);
                assert_eq!(lines.len(), 62, "the header, 60 records and the error");
                let last = &lines[61];
                assert_eq!(last["type"], "error");
                assert_eq!(last["offset"], len);
                assert_eq!(last["records"], 60);
                assert!(
                    last["error"]
                        .as_str()
                        .unwrap()
                        .starts_with("the file is truncated: it ends at byte 17384"),
                    "{last}"
                );
            }
        }
    }
    // Cut exactly at a buffer boundary: fewer buffers than the header counts.
    std::fs::write(dir.join("short.etl"), &bytes[..3 * 4096]).unwrap();
    fails(
        &dir,
        &["dump", "short.etl"],
        1,
        "cannot read short.etl: the file is truncated: it ends at byte 12288 (0x3000) after 3 \
         whole buffers of 4096 bytes, but its header counts 9 written (BuffersWritten); the 40 \
         records before it were printed",
    );
    // Cut inside the header buffer: nothing to read, and the file is still called truncated.
    std::fs::write(dir.join("head.etl"), &bytes[..100]).unwrap();
    let (out, _) = fails(
        &dir,
        &["dump", "head.etl", "--format", "json"],
        1,
        "cannot read head.etl: the file is truncated: it ends at byte 100 (0x64), inside its \
         first buffer (the header buffer, 4096 bytes)",
    );
    assert_eq!(out, "");
}

#[test]
fn a_damaged_buffer_is_named_with_its_offset() {
    let (dir, _) = demo("damaged");
    let mut bytes = std::fs::read(dir.join("burst.etl")).unwrap();
    // Buffer 2's header: a BufferSize other than the file's.
    bytes[2 * 4096..2 * 4096 + 4].copy_from_slice(&0x2000u32.to_le_bytes());
    std::fs::write(dir.join("bad.etl"), &bytes).unwrap();
    let (out, line) = fails(
        &dir,
        &["dump", "bad.etl", "--format", "json"],
        1,
        "cannot read bad.etl: the file is damaged: ",
    );
    assert!(
        line.contains("WMI_BUFFER_HEADER at offset 0x2000: BufferSize 0x2000 differs"),
        "{line}"
    );
    assert!(
        line.ends_with("the 20 records before it were printed"),
        "{line}"
    );
    let last = json_lines(&out).pop().unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["offset"], 0x2000);
}

#[test]
fn a_full_standard_output_is_said_once() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("note: /dev/full is absent; skipped");
        return;
    };
    let (dir, _) = demo("stdout_full");
    for format in ["text", "csv", "json"] {
        let o = command(&dir, &["dump", "burst.etl", "--format", format])
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        one_error_line(
            &o,
            format,
            1,
            "etwsim: cannot write to standard output: the disk is full",
        );
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_dump_quietly() {
    let dir = scratch("broken_pipe");
    // Enough output (about 1 MB) to fill any pipe buffer many times over.
    big_file(&dir, 300);
    let mut child = command(&dir, &["dump", "big.etl", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("{\"type\":\"header\""), "{first}");
    // The pipe's read end is closed here (`| head -1`).
    let o = child.wait_with_output().unwrap();
    assert_eq!(stderr(&o), "", "nothing said about the closed pipe");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_long_dump_shows_a_progress_bar_only_when_stderr_is_a_terminal() {
    let dir = scratch("progress");
    big_file(&dir, 300);
    // stderr is a pipe here: nothing on it (`ok` checks), whatever the file's size.
    let json = ok(&dir, &["dump", "big.etl", "--format", "json"]);
    assert_eq!(json.lines().count(), 1 + 6 * 300);
    // util-linux `script` runs the command on a pseudo-terminal: stderr is a terminal,
    // stdout goes to a file.
    let exe = env!("CARGO_BIN_EXE_etwsim");
    let run = std::process::Command::new("script")
        .args([
            "-qec",
            &format!("'{exe}' dump big.etl --format json > out.jsonl"),
            "/dev/null",
        ])
        .current_dir(&dir)
        .env("TERM", "xterm")
        .output();
    let Ok(o) = run else {
        eprintln!("note: `script` (util-linux) is absent; the terminal half is skipped");
        return;
    };
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let terminal = String::from_utf8_lossy(&o.stdout);
    assert!(
        terminal.contains("etwsim: reading") && terminal.contains("/301 buffers"),
        "no progress bar on the terminal: {terminal:?}"
    );
    // The output is whole, and the bar went to the terminal only.
    assert_eq!(
        std::fs::read_to_string(dir.join("out.jsonl")).unwrap(),
        json
    );
}

#[test]
fn dump_names_the_files_of_kernel_fileio_events_from_the_whole_file() {
    // rule: KRN-37
    // rule: KRN-39
    use etwsim::system::event_trace_flag as flag;
    use etwsim::{KERNEL_LOGGER_NAME, Kernel, Token};
    let dir = scratch("dump_file_names");
    let k = Kernel::builder().deterministic(3).cpus(1).build().unwrap();
    let admin = k.spawn("wtrace.exe", Token::administrator("a")).unwrap();
    let app = k.spawn("app.exe", Token::user("u")).unwrap();
    // Opened before the session: its operations carry only FileObject and FileKey; the
    // name comes from the FileRundown at stop (DISK_FILE_IO), at the end of the file.
    let before = app.open_file(r"C:\logs\before.log").unwrap();
    let s = k
        .session(KERNEL_LOGGER_NAME)
        .enable_flags(flag::DISK_FILE_IO | flag::FILE_IO_INIT | flag::FILE_IO)
        .log_file("kernel.etl")
        .caller(&admin)
        .start()
        .unwrap();
    before.read(0, 512);
    s.stop().unwrap();
    k.virtual_disk()
        .unwrap()
        .export(Path::new("kernel.etl"), &dir.join("kernel.etl"))
        .unwrap();
    let text = ok(&dir, &["dump", "kernel.etl"]);
    let read = text
        .lines()
        .find(|l| l.contains("FileIo/Read"))
        .unwrap_or_else(|| panic!("no FileIo/Read in\n{text}"));
    assert!(
        read.contains(r#"FileName (resolved)="\\Device\\HarddiskVolume3\\logs\\before.log""#),
        "{read}"
    );
    let json = ok(&dir, &["dump", "kernel.etl", "--format", "json"]);
    let read: Json = json
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .find(|v| v["event_name"] == "Read")
        .unwrap();
    assert_eq!(
        read["fields"]["FileName (resolved)"],
        r"\Device\HarddiskVolume3\logs\before.log"
    );
}

/// Issue 33: a device is not "empty" — `/dev/zero` is refused after its first bytes, named
/// for what it is; a pipe that holds an `.etl` file is read like the file.
#[cfg(unix)]
#[test]
fn a_device_is_refused_for_what_it_is_and_a_pipe_is_read() {
    let (dir, _) = demo("streams");
    let (out, err) = fails(&dir, &["dump", "/dev/zero"], 1, "cannot read /dev/zero: ");
    assert_eq!(out, "");
    assert!(!err.contains("empty"), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    fails(&dir, &["export", "/dev/zero"], 1, "not a regular file");
    let from_file = ok(&dir, &["dump", "demo.etl", "--format", "json"]);
    let piped = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "cat demo.etl | '{}' dump /dev/stdin --format json",
            env!("CARGO_BIN_EXE_etwsim")
        ))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    // The same records; only the header's file name differs.
    let records = |s: &str| s.lines().skip(1).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        records(&String::from_utf8(piped.stdout).unwrap()),
        records(&from_file)
    );
}
