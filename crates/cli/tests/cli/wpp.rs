//! `etwsim dump --tmf` and `export --tmf`: WPP messages of a file decoded with their TMF
//! files — the component as provider, the message name as event, the arguments and TDH's WPP
//! properties as fields, the text TraceFmt formats as the message — in every output format;
//! without the TMF, or with a TMF that does not describe a message, the payload in hex and
//! why.

use crate::common;

use common::*;
use etwsim::Guid;
use etwsim::etl::{MessageInfo, Record, TraceRecord, message_flags};
use etwsim::record::header_type;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

const TRACEDRV: &str = "1606d1a7-1682-57d1-65f7-36693800e096";

/// TraceDrv's messages (the decode crate's `tests/tmf/README.md` says where they come from).
const TMF: &str = r#"// PDB:  d:\tracedrv\tracedrv.pdb
1606d1a7-1682-57d1-65f7-36693800e096 tracedrv // SRC=tracedrv.c MJ= MN=
#typev tracedrv_c265 10 "%0IOCTL = %10!d!" //   LEVEL=TRACE_LEVEL_NONE FLAGS=FLAG_ONE FUNC=TracedrvDispatchDeviceControl
{
ioctlCount, ItemLong -- 10
}
#typev tracedrv_c271 11 "%0Hello, %10!d! %11!s!" //   LEVEL=TRACE_LEVEL_NONE FLAGS=FLAG_ONE FUNC=TracedrvDispatchDeviceControl
{
i, ItemLong -- 10
"Hi", ItemString -- 11
}
#typev tracedrv_c312 13 "%0Function Return=%10!s!" //   LEVEL=TRACE_LEVEL_NONE FLAGS=FLAG_ONE FUNC=TracedrvDispatchDeviceControl
{
status, ItemNTSTATUS -- 10
}
"#;

fn message(number: u16, sequence: u32, ts: i64, payload: Vec<u8>) -> Record {
    Record::Trace(TraceRecord {
        header_type: header_type::MESSAGE,
        hook_id: number,
        guid: Some(TRACEDRV.parse::<Guid>().unwrap()),
        thread_id: Some(0x0E40),
        process_id: Some(0x0338),
        timestamp: Some(ts),
        message: Some(MessageInfo {
            option_flags: message_flags::SEQUENCE
                | message_flags::GUID
                | message_flags::TIMESTAMP
                | message_flags::SYSTEMINFO
                | message_flags::POINTER64,
            sequence: Some(sequence),
            component_id: None,
        }),
        payload,
        ..TraceRecord::default()
    })
}

/// The trace Example 9 formats: IOCTL, Hello ×2, the return status; then a message no TMF
/// describes and one whose payload is short.
fn wpp_file(dir: &Path) -> PathBuf {
    let path = dir.join("tracedrv.etl");
    let records = [
        message(10, 1, 10, 1i32.to_le_bytes().to_vec()),
        message(11, 2, 20, [&1i32.to_le_bytes()[..], b"Hi\0"].concat()),
        message(11, 3, 30, [&2i32.to_le_bytes()[..], b"Hi\0"].concat()),
        message(13, 4, 40, 0x8000_000Fu32.to_le_bytes().to_vec()),
        message(77, 5, 50, vec![1, 2, 3]),
        message(10, 6, 60, vec![1, 2]),
    ];
    one_buffer_file(&path, &records, 60);
    path
}

fn setup(name: &str) -> PathBuf {
    let dir = scratch(name);
    wpp_file(&dir);
    std::fs::create_dir_all(dir.join("tmfs")).unwrap();
    std::fs::write(dir.join(format!("tmfs/{TRACEDRV}.tmf")), TMF).unwrap();
    dir
}

const MESSAGES: [&str; 4] = [
    "IOCTL = 1",
    "Hello, 1 Hi",
    "Hello, 2 Hi",
    "Function Return=0x8000000f(STATUS_DEVICE_POWERED_OFF)",
];

#[test]
fn dump_formats_wpp_messages_with_their_tmf_in_every_format() {
    // rule: DEC-01
    let dir = setup("wpp_dump");
    for tmf in ["tmfs", &format!("tmfs/{TRACEDRV}.tmf")] {
        let text = ok(&dir, &["dump", "tracedrv.etl", "--tmf", tmf]);
        for m in MESSAGES {
            assert!(
                text.contains(&format!("    message: {m}\n")),
                "{m}:\n{text}"
            );
        }
        assert!(
            text.contains(
                "    tracedrv/tracedrv_c271  i=1, \"Hi\"=\"Hi\", SequenceNum=2, \
                 FunctionName=\"TracedrvDispatchDeviceControl\", LevelName=\"TRACE_LEVEL_NONE\", \
                 FlagsName=\"FLAG_ONE\"\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "not decoded: no TMF file given describes message 77 of \
                 {1606d1a7-1682-57d1-65f7-36693800e096} (--tmf FILE or FOLDER)"
            ),
            "{text}"
        );
        assert!(
            text.contains("not decoded: argument %10 (ioctlCount): field ioctlCount at payload offset 0: needs 4 bytes, 2 left"),
            "{text}"
        );
    }

    let (header, rows) = csv_rows(&ok(
        &dir,
        &["dump", "tracedrv.etl", "-f", "csv", "--tmf", "tmfs"],
    ));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let messages: Vec<&str> = rows.iter().map(|r| r[col("message")].as_str()).collect();
    assert_eq!(&messages[..4], &MESSAGES);
    assert_eq!(rows[3][col("provider_name")], "tracedrv");
    assert_eq!(rows[3][col("event_name")], "tracedrv_c312");
    assert_eq!(rows[3][col("kind")], "MESSAGE_TRACE_HEADER");

    let lines = json_lines(&ok(
        &dir,
        &["dump", "tracedrv.etl", "--format=json", "--tmf", "tmfs"],
    ));
    let events = &lines[1..];
    assert_eq!(events[1]["message"], "Hello, 1 Hi");
    assert_eq!(events[1]["fields"]["i"], 1);
    assert_eq!(events[1]["fields"]["SequenceNum"], 2);
    assert_eq!(
        events[3]["fields"]["status"],
        "0x8000000f(STATUS_DEVICE_POWERED_OFF)"
    );
    assert_eq!(events[3]["decode_error"], Json::Null);
    assert!(
        events[4]["decode_error"]
            .as_str()
            .unwrap()
            .contains("message 77")
    );
    assert_eq!(events[4]["payload"], "0x010203");
}

#[test]
fn without_its_tmf_a_wpp_message_says_where_its_format_is() {
    // rule: DEC-01
    let dir = setup("wpp_no_tmf");
    let text = ok(&dir, &["dump", "tracedrv.etl"]);
    assert_eq!(
        text.matches(
            "not decoded: a WPP message: its format is in TMF files (--tmf FILE or FOLDER)"
        )
        .count(),
        6,
        "{text}"
    );
}

#[test]
fn export_carries_the_wpp_text_and_fields() {
    let dir = setup("wpp_export");
    let trace: Json =
        serde_json::from_str(&ok(&dir, &["export", "tracedrv.etl", "--tmf", "tmfs"])).unwrap();
    let instants: Vec<&Json> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "i")
        .collect();
    assert_eq!(instants.len(), 6);
    assert_eq!(instants[0]["name"], "tracedrv_c265");
    assert_eq!(instants[0]["cat"], "tracedrv");
    assert_eq!(instants[0]["args"]["message"], "IOCTL = 1");
    assert_eq!(instants[0]["args"]["ioctlCount"], 1);
    assert_eq!(
        (instants[0]["pid"].as_u64(), instants[0]["tid"].as_u64()),
        (Some(0x338), Some(0xE40))
    );
}

#[test]
fn tmf_problems_are_warnings_and_a_missing_tmf_is_a_failure() {
    let dir = setup("wpp_bad_tmf");
    std::fs::write(dir.join("tmfs/broken.tmf"), "not a tmf line\n").unwrap();
    let o = etwsim(&dir, &["dump", "tracedrv.etl", "--tmf", "tmfs"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.starts_with("etwsim: warning: tmfs/broken.tmf:1: not a TMF line"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    fails(
        &dir,
        &["dump", "tracedrv.etl", "--tmf", "missing"],
        1,
        "cannot read TMF missing: no such file or folder",
    );
    fails(
        &dir,
        &["export", "tracedrv.etl", "--tmf", "missing.tmf"],
        1,
        "cannot read TMF missing.tmf",
    );
}
