//! `EventWriteString` events (EVENT_HEADER_FLAG_STRING_ONLY, EVT-13, EVT-19) show their text
//! in every format of `dump` and in `export`: the text is the record's message; a payload
//! that is unterminated or of odd length is read bounded by its bytes.

use crate::common;

use common::*;
use etwsim::etl::Record;
use etwsim::record::header_flags;
use etwsim::{EventDescriptor, EventHeader, EventRecord, Guid, Keyword, Level};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

const PROVIDER: &str = "{0a0b0c0d-1111-4222-8333-444455556666}";

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// Three events of one provider: an EventWriteString with its NUL, one unterminated with an
/// odd last byte, and an ordinary event with the first one's payload (nothing describes it).
fn strings_file(dir: &Path) -> PathBuf {
    let path = dir.join("strings.etl");
    let mut terminated = utf16("Service \"demo\" started\n(pid 42) ✓");
    terminated.extend([0, 0]);
    let mut odd = utf16("half");
    odd.push(0x41);
    let records: Vec<Record> = [
        (header_flags::STRING_ONLY, terminated.clone()),
        (header_flags::STRING_ONLY, odd),
        (0, terminated),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (flags, payload))| {
        Record::Event(EventRecord {
            header: EventHeader {
                timestamp: 10 * (i as i64 + 1),
                thread_id: 7,
                process_id: 42,
                flags: flags | header_flags::HEADER_64_BIT,
                provider_id: PROVIDER.parse::<Guid>().unwrap(),
                descriptor: EventDescriptor::new(0, Level::INFORMATION, Keyword(0)),
                ..EventHeader::default()
            },
            user_data: payload,
            ..EventRecord::default()
        })
    })
    .collect();
    one_buffer_file(&path, &records, 30);
    path
}

const TEXT: &str = "Service \"demo\" started\n(pid 42) ✓";

#[test]
fn dump_shows_the_text_of_string_only_events_in_every_format() {
    // rule: EVT-13
    // rule: EVT-19
    // rule: DEC-01
    let dir = scratch("string_only_dump");
    strings_file(&dir);

    let text = ok(&dir, &["dump", "strings.etl"]);
    // Quotes and line breaks escaped, as the text format shows every string.
    assert!(
        text.contains(r#"    message: Service \"demo\" started\n(pid 42) ✓"#),
        "{text}"
    );
    assert!(text.contains("    message: half\n"), "{text}");
    // Without the flag the same bytes are an undescribed payload, shown in hex.
    assert_eq!(text.matches("  not decoded:").count(), 1, "{text}");

    let (header, rows) = csv_rows(&ok(&dir, &["dump", "strings.etl", "-f", "csv"]));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let messages: Vec<&str> = rows.iter().map(|r| r[col("message")].as_str()).collect();
    assert_eq!(messages, [TEXT, "half", ""]);
    assert_eq!(
        (&*rows[0][col("payload")], &*rows[0][col("error")]),
        ("", "")
    );
    assert!(
        rows[2][col("payload")].starts_with("0x5300"),
        "{:?}",
        rows[2]
    );

    let lines = json_lines(&ok(&dir, &["dump", "strings.etl", "--format=json"]));
    let events = &lines[1..];
    assert_eq!(events[0]["message"], TEXT);
    assert_eq!(events[0]["fields"], serde_json::json!({}));
    assert_eq!(events[0]["payload"], Json::Null);
    assert_eq!(events[0]["decode_error"], Json::Null);
    assert_eq!(events[1]["message"], "half");
    assert_eq!(events[2]["message"], Json::Null);
    assert!(events[2]["decode_error"].is_string());
}

#[test]
fn export_carries_the_text_of_string_only_events() {
    // rule: EVT-13
    let dir = scratch("string_only_export");
    strings_file(&dir);
    let trace: Json = serde_json::from_str(&ok(&dir, &["export", "strings.etl"])).unwrap();
    let instants: Vec<&Json> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "i")
        .collect();
    assert_eq!(instants.len(), 3);
    assert_eq!(instants[0]["args"]["message"], TEXT);
    assert_eq!(instants[0]["args"].get("payload"), None);
    assert_eq!(instants[1]["args"]["message"], "half");
    assert!(instants[2]["args"]["payload"].is_string());
}
