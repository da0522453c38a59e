//! `etwsim dump --mof` and `export --mof`: classic events of user providers decoded with
//! their MOF classes — the event class as provider, the EventTypeName as event, the
//! properties in WmiDataId order as fields — in every output format; a class known for
//! another version or type says so; MOF syntax errors fail naming the file and line.

use crate::common;

use common::*;
use etwsim::Guid;
use etwsim::etl::{Record, TraceRecord};
use etwsim::record::header_type;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

const CLASS: &str = "{ce5b220d-5ee9-4a7a-b1b9-bc9a2b9b0a46}";

const MOF: &str = r#"#pragma namespace("\\\\.\\root\\WMI")
[Dynamic, Guid("{ce5b220d-5ee9-4a7a-b1b9-bc9a2b9b0a46}"), EventVersion(1)]
class DemoRequest : EventTrace {};

[Dynamic, EventType{1, 2}, EventTypeName{"Start", "End"}]
class DemoRequest_Info : DemoRequest
{
    [WmiDataId(1), read] uint32 Count;
    [WmiDataId(2), read, StringTermination("NullTerminated"), format("w")] string Name;
    [WmiDataId(3), read, format("x")] uint32 Flags;
    [WmiDataId(4), read, extension("IPAddr")] object Address;
};
"#;

fn classic(event_type: u8, version: u16, ts: i64, payload: Vec<u8>) -> Record {
    Record::Trace(TraceRecord {
        header_type: header_type::FULL_HEADER64,
        version,
        hook_id: u16::from(event_type),
        level: 4,
        guid: Some(CLASS.parse::<Guid>().unwrap()),
        thread_id: Some(7),
        process_id: Some(42),
        timestamp: Some(ts),
        payload,
        ..TraceRecord::default()
    })
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

fn classic_file(dir: &Path) -> PathBuf {
    let path = dir.join("classic.etl");
    let payload = [
        &3u32.to_le_bytes()[..],
        &utf16z("req"),
        &0x2Au32.to_le_bytes(),
        &[192, 0, 2, 1],
    ]
    .concat();
    let records = [
        classic(1, 1, 10, payload.clone()),
        classic(2, 1, 20, payload.clone()),
        classic(1, 5, 30, payload.clone()),
        classic(9, 1, 40, payload),
        classic(1, 1, 50, vec![1, 0]),
    ];
    one_buffer_file(&path, &records, 50);
    path
}

fn setup(name: &str) -> PathBuf {
    let dir = scratch(name);
    classic_file(&dir);
    std::fs::write(dir.join("demo.mof"), MOF).unwrap();
    dir
}

#[test]
fn dump_decodes_classic_events_with_their_mof_classes_in_every_format() {
    // rule: KRN-14
    // rule: EVT-24
    let dir = setup("mof_class_dump");
    let text = ok(&dir, &["dump", "classic.etl", "--mof", "demo.mof"]);
    assert!(
        text.contains(
            "    DemoRequest/Start  Count=3, Name=\"req\", Flags=0x2a, Address=\"192.0.2.1\"\n"
        ),
        "{text}"
    );
    assert!(text.contains("    DemoRequest/End  Count=3"), "{text}");
    assert!(
        text.contains("    DemoRequest/?  not decoded: MOF class DemoRequest has no EventVersion(5), nor a version without one"),
        "{text}"
    );
    assert!(
        text.contains(
            "not decoded: MOF class DemoRequest has no event type class with EventType 9"
        ),
        "{text}"
    );
    assert!(
        text.contains("not decoded: field Count at payload offset 0: needs 4 bytes, 2 left"),
        "{text}"
    );

    let (header, rows) = csv_rows(&ok(
        &dir,
        &["dump", "classic.etl", "-f", "csv", "--mof", "demo.mof"],
    ));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows[0][col("provider_name")], "DemoRequest");
    assert_eq!(rows[1][col("event_name")], "End");
    assert_eq!(
        rows[0][col("fields")],
        r#"{"Count":3,"Name":"req","Flags":"0x2a","Address":"192.0.2.1"}"#
    );

    let lines = json_lines(&ok(
        &dir,
        &["dump", "classic.etl", "--format=json", "--mof", "demo.mof"],
    ));
    let events = &lines[1..];
    assert_eq!(events[0]["fields"]["Count"], 3);
    assert_eq!(events[0]["fields"]["Flags"], "0x2a");
    assert_eq!(events[2]["payload"].as_str().unwrap().len(), 2 + 2 * 20);

    // Without the MOF file: the hint.
    let text = ok(&dir, &["dump", "classic.etl"]);
    assert_eq!(
        text.matches("neither etwsim's kernel table nor a MOF file given (--mof FILE) declares")
            .count(),
        5,
        "{text}"
    );
}

#[test]
fn export_carries_the_classic_fields() {
    let dir = setup("mof_class_export");
    let trace: Json =
        serde_json::from_str(&ok(&dir, &["export", "classic.etl", "--mof", "demo.mof"])).unwrap();
    let first = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["ph"] == "i")
        .unwrap();
    assert_eq!(first["name"], "Start");
    assert_eq!(first["cat"], "DemoRequest");
    assert_eq!(first["args"]["Name"], "req");
}

#[test]
fn mof_problems_name_the_file_and_line() {
    let dir = setup("mof_class_bad");
    std::fs::write(dir.join("bad.mof"), "class A {\n uint32 X\n};\n").unwrap();
    fails(
        &dir,
        &["dump", "classic.etl", "--mof", "bad.mof"],
        1,
        "cannot use MOF file bad.mof:3: expected `;` after a property, found `}`",
    );
    fails(
        &dir,
        &["export", "classic.etl", "--mof", "none.mof"],
        1,
        "cannot use MOF file none.mof: no such file or folder",
    );
    std::fs::write(
        dir.join("partial.mof"),
        format!("{MOF}\n[EventType(3)] class DemoRequest_X : DemoRequest {{ [WmiDataId(1)] datetime T; }};\n"),
    )
    .unwrap();
    let o = etwsim(&dir, &["dump", "classic.etl", "--mof", "partial.mof"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.starts_with("etwsim: warning: partial.mof:14: class DemoRequest_X: property T (line 14): type \"datetime\""),
        "{err}"
    );
}
