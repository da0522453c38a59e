//! WPP: TMF files read as TracePdb writes them, and trace messages decoded and formatted as
//! TraceFmt shows them — the TraceDrv sample's messages against the output Learn's "Example
//! 9" prints, every WPP item type, the `%!…!` extensions, the header items, and what a bad
//! TMF or a bad payload costs.

use crate::common;

use etwsim_decode::Error;
use etwsim_decode::fields::Value;
use etwsim_decode::wpp::{self, ItemType, TmfSet, WppMessage};
use etwsim_etl::{MessageInfo, TraceRecord, message_flags};
use etwsim_types::Guid;
use etwsim_types::record::header_type;

const TRACEDRV: &str = "1606d1a7-1682-57d1-65f7-36693800e096";

fn tracedrv() -> TmfSet {
    let set = TmfSet::load(&common::tests_dir("tmf/tracedrv")).expect("the TMF folder");
    assert_eq!(set.diagnostics(), &[]);
    set
}

fn guid(s: &str) -> Guid {
    s.parse().unwrap()
}

/// FILETIME of 2005-06-10T21:25:43.968Z (14:25:43.968 PDT, the time Example 9 prints).
const EXAMPLE_TIME: i64 = 127_629_123_439_680_000;

fn message(number: u16, args: &[u8]) -> WppMessage<'_> {
    WppMessage {
        guid: Some(guid(TRACEDRV)),
        number,
        thread_id: Some(0x0E40),
        process_id: Some(0x0338),
        timestamp: Some(EXAMPLE_TIME),
        cpu: 0,
        ..WppMessage::new(args)
    }
}

#[test]
fn the_tracedrv_tmf_reads_as_tracepdb_wrote_it() {
    let set = tracedrv();
    assert_eq!((set.len(), set.files()), (4, 1));
    let m = set.message(guid(TRACEDRV), 11).unwrap();
    assert_eq!(&*m.component, "tracedrv");
    assert_eq!(m.source_file.as_deref(), Some("tracedrv.c"));
    assert_eq!(m.name, "tracedrv_c271");
    assert_eq!(m.source_line, Some(271));
    assert_eq!(m.format, "%0Hello, %10!d! %11!s!");
    assert_eq!(m.level.as_deref(), Some("TRACE_LEVEL_NONE"));
    assert_eq!(m.flags.as_deref(), Some("FLAG_ONE"));
    assert_eq!(m.function.as_deref(), Some("TracedrvDispatchDeviceControl"));
    let args: Vec<(&str, &ItemType, u16)> = m
        .args
        .iter()
        .map(|a| (&*a.name, &a.item, a.index))
        .collect();
    assert_eq!(
        args,
        [
            ("i", &ItemType::Long, 10),
            ("\"Hi\"", &ItemType::String, 11)
        ]
    );
    assert_eq!(m.tmf_line, 8);
    assert!(
        m.tmf_file
            .ends_with("1606d1a7-1682-57d1-65f7-36693800e096.tmf")
    );
}

#[test]
fn tracedrv_messages_format_as_tracefmt_printed_them() {
    // rule: DEC-01
    let set = tracedrv();
    let one = 1i32.to_le_bytes();
    let hello: Vec<u8> = [&2i32.to_le_bytes()[..], b"Hi\0"].concat();
    let offline = 2u32.to_le_bytes();
    let powered_off = 0x8000_000Fu32.to_le_bytes();
    // Example 9's lines, times in UTC (TraceFmt printed local time, PDT), and the enum's
    // number (its names are in the PDB, not the TMF).
    for (number, args, line) in [
        (
            10,
            &one[..],
            "[0]0338.0E40::06/10/2005-21:25:43.968 [tracedrv]IOCTL = 1",
        ),
        (
            11,
            &hello,
            "[0]0338.0E40::06/10/2005-21:25:43.968 [tracedrv]Hello, 2 Hi",
        ),
        (
            12,
            &offline,
            "[0]0338.0E40::06/10/2005-21:25:43.968 [tracedrv]Machine State :: 2",
        ),
        (
            13,
            &powered_off,
            "[0]0338.0E40::06/10/2005-21:25:43.968 [tracedrv]Function Return=0x8000000f(STATUS_DEVICE_POWERED_OFF)",
        ),
    ] {
        let decoded = set.decode(&message(number, args)).unwrap();
        assert_eq!(decoded.line(), line);
        assert_eq!(Some(decoded.text.as_str()), line.split("[tracedrv]").nth(1));
    }
    let decoded = set.decode(&message(11, &hello)).unwrap();
    assert_eq!(decoded.args[0].value, Value::I32(2));
    assert_eq!(decoded.args[1].value, Value::Ansi(b"Hi".to_vec()));
    assert_eq!(decoded.args[1].shown(), "Hi");
}

#[test]
fn the_sequence_number_joins_the_prefix_as_tracefmt_puts_it() {
    // rule: SES-45
    let set = tracedrv();
    let args = 7i32.to_le_bytes();
    let m = WppMessage {
        sequence: Some(0x2A),
        ..message(10, &args)
    };
    let decoded = set.decode(&m).unwrap();
    assert_eq!(
        decoded.line(),
        "[0]0338.0E40::06/10/2005-21:25:43.968 0000002a [tracedrv]IOCTL = 7"
    );
    // Without SYSTEMINFO or a time stamp the items show TraceFmt's <NoValue>.
    let bare = WppMessage {
        guid: Some(guid(TRACEDRV)),
        number: 10,
        ..WppMessage::new(&args)
    };
    assert_eq!(
        set.decode(&bare).unwrap().line(),
        "[0]<NoValue>.<NoValue>::<NoValue> [tracedrv]IOCTL = 7"
    );
}

/// A TMF of every item type this decoder reads, and the extensions.
const ITEMS: &str = r#"// written for this test
{5a5a5a5a-0000-4000-8000-000000000001} items // SRC=items.c MJ= MN=
#typev items_c10 1 "%0ints %10!d! %11!u! %12!x! %13!hd! %14!hu! %15!c! %16!I64d! %17!I64u! %18!08I64X! %19!p!" // LEVEL=TRACE_LEVEL_INFORMATION FLAGS=TRACE_IO FUNC=Ints
{
a, ItemLong -- 10
b, ItemULong -- 11
c, ItemLong -- 12
d, ItemShort -- 13
e, ItemUShort -- 14
f, ItemChar -- 15
g, ItemLongLong -- 16
h, ItemULongLong -- 17
k, ItemLongLongXX -- 18
p, ItemPtr -- 19
}
#typev items_c20 2 "%0text %10!s! %11!S! %12!Z! %13!wZ! %14!.3s!|%15!-6s!|%16!6s!|" // LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_IO FUNC=Text
{
a, ItemString -- 10
w, ItemWString -- 11
pa, ItemPString -- 12
pw, ItemPWString -- 13
cut, ItemString -- 14
left, ItemString -- 15
right, ItemString -- 16
}
#typev items_c30 3 "%0status %10!s! %11!s! %12!s! %13!s! %14!s! %15!s!" // LEVEL=TRACE_LEVEL_ERROR FLAGS=TRACE_ERR FUNC=Statuses
{
ok, ItemNTSTATUS -- 10
notfound, ItemNTSTATUS -- 11
odd, ItemNTSTATUS -- 12
hr, ItemHRESULT -- 13
win, ItemWINERROR -- 14
winodd, ItemWINERROR -- 15
}
#typev items_c40 4 "%0net %10!s!:%11!s! guid %12!s! bool %13!s! %14!s! BOOLEAN %15!s! irql %16!s! set %17!s! time %18!s! delta %19!s!" // LEVEL=TRACE_LEVEL_WARNING FLAGS=TRACE_NET FUNC=Net
{
ip, ItemIPAddr -- 10
port, ItemPort -- 11
g, ItemGuid -- 12
t, ItemListLong(false,true) -- 13
u, ItemListLong(false,true) -- 14
b, ItemListByte(FALSE,TRUE) -- 15
irql, ItemListByte(Low,APC,DPC) -- 16
bits, ItemSetByte(Read,Write,Exec) -- 17
when, ItemTimestamp -- 18
took, ItemTimeDelta -- 19
}
#typev items_c50 5 "%0[%!FUNC!] %!LEVEL! %!FLAGS! %!COMPNAME! %!FILE!:%!LINE! %1 %2 %% %10!.2f! %11!e! %12!s! %13!s! %14!s!" // LEVEL=TRACE_LEVEL_FATAL FLAGS=TRACE_ALL FUNC=Misc::Extensions
{
x, ItemDouble -- 10
y, ItemDouble -- 11
sid, ItemSid -- 12
dump, ItemHexDump -- 13
e, ItemEnum(_State) -- 14
}
"#;

const ITEMS_GUID: &str = "{5a5a5a5a-0000-4000-8000-000000000001}";

fn items() -> TmfSet {
    let set = TmfSet::from_text(ITEMS.as_bytes(), "items.tmf");
    assert_eq!(set.diagnostics(), &[]);
    assert_eq!(set.len(), 5);
    set
}

fn text(set: &TmfSet, number: u16, args: &[u8]) -> String {
    let m = WppMessage {
        guid: Some(guid(ITEMS_GUID)),
        number,
        ..WppMessage::new(args)
    };
    match set.decode(&m) {
        Ok(d) => d.text,
        Err(e) => panic!("message {number}: {e}"),
    }
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn integer_items_follow_their_printf_specifications() {
    let set = items();
    let args = [
        &(-5i32).to_le_bytes()[..],
        &u32::MAX.to_le_bytes(),
        &0xBEEFu32.to_le_bytes(),
        &(-2i16).to_le_bytes(),
        &65535u16.to_le_bytes(),
        b"A",
        &i64::MIN.to_le_bytes(),
        &u64::MAX.to_le_bytes(),
        &0x1234i64.to_le_bytes(),
        &0xFFFF_8000_0000_1000u64.to_le_bytes(),
    ]
    .concat();
    assert_eq!(
        text(&set, 1, &args),
        "ints -5 4294967295 beef -2 65535 A -9223372036854775808 18446744073709551615 \
         00001234 FFFF800000001000"
    );
}

#[test]
fn string_items_read_terminated_and_counted_text() {
    let set = items();
    let args = [
        &b"caf\xE9\0"[..],
        &utf16z("wide ✓"),
        &[4, 0],
        b"ansi",
        &[10, 0],
        &utf16z("cnted")[..10],
        b"truncate\0",
        b"ab\0",
        b"cd\0",
    ]
    .concat();
    assert_eq!(
        text(&set, 2, &args),
        "text café wide ✓ ansi cnted tru|ab    |    cd|"
    );
}

#[test]
fn status_items_show_their_names_or_hex() {
    let set = items();
    let args = [
        0u32.to_le_bytes(),
        0xC000_0034u32.to_le_bytes(),
        0xC0DE_0001u32.to_le_bytes(),
        0x8007_0005u32.to_le_bytes(),
        5u32.to_le_bytes(),
        12345u32.to_le_bytes(),
    ]
    .concat();
    assert_eq!(
        text(&set, 3, &args),
        "status STATUS_SUCCESS 0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND) 0xc0de0001 \
         0x80070005(E_ACCESSDENIED) 5(ERROR_ACCESS_DENIED) 12345"
    );
}

#[test]
fn network_guid_list_set_and_time_items() {
    let set = items();
    let g = guid("{01020304-0506-0708-090a-0b0c0d0e0f10}");
    let args = [
        &[192, 0, 2, 1][..],
        &443u16.to_be_bytes(),
        &g.to_bytes_le(),
        &1u32.to_le_bytes(),
        &7u32.to_le_bytes(),
        &[0],
        &[2],
        &[0b1000_0101],
        &EXAMPLE_TIME.to_le_bytes(),
        &(-(3_250 * 10_000i64)).to_le_bytes(),
    ]
    .concat();
    assert_eq!(
        text(&set, 4, &args),
        "net 192.0.2.1:443 guid {01020304-0506-0708-090a-0b0c0d0e0f10} bool true !7! \
         BOOLEAN FALSE irql DPC set [Read,Exec,7] time 06/10/2005-21:25:43.968 delta -3.250s"
    );
}

#[test]
fn extensions_and_header_items_fill_from_the_tmf() {
    let set = items();
    let sid: etwsim_decode::fields::Sid = "S-1-5-18".parse().unwrap();
    let mut sid_bytes = Vec::new();
    sid.write_to(&mut sid_bytes);
    let args = [
        &2.345f64.to_le_bytes()[..],
        &1234.5f64.to_le_bytes(),
        &sid_bytes,
        &[2, 0, 0xAB, 0xCD],
        &9u32.to_le_bytes(),
    ]
    .concat();
    assert_eq!(
        text(&set, 5, &args),
        "[Misc::Extensions] TRACE_LEVEL_FATAL TRACE_ALL items items.c:50 items items_c50 % \
         2.35 1.234500e+03 S-1-5-18 0xABCD 9"
    );
}

#[test]
fn a_component_id_finds_the_guid_it_starts() {
    let tmf = "{00000007-0000-0000-0000-000000000000} comp\n#typev c_1 3 \"%0id %10!u!\"\n{\nx, ItemLong -- 10\n}\n";
    let set = TmfSet::from_text(tmf.as_bytes(), "comp.tmf");
    let args = 9u32.to_le_bytes();
    let m = WppMessage {
        component_id: Some(7),
        number: 3,
        ..WppMessage::new(&args)
    };
    assert_eq!(set.decode(&m).unwrap().text, "id 9");
    let none = WppMessage {
        number: 3,
        ..WppMessage::new(&args)
    };
    assert_eq!(set.decode(&none).unwrap_err(), Error::WppNoGuid);
}

#[test]
fn a_message_record_from_the_etl_reader_decodes() {
    // rule: EVT-19
    let set = tracedrv();
    let record = TraceRecord {
        header_type: header_type::MESSAGE,
        hook_id: 11,
        guid: Some(guid(TRACEDRV)),
        thread_id: Some(0x0E40),
        process_id: Some(0x0338),
        timestamp: Some(EXAMPLE_TIME),
        message: Some(MessageInfo {
            option_flags: message_flags::SEQUENCE
                | message_flags::GUID
                | message_flags::TIMESTAMP
                | message_flags::SYSTEMINFO
                | message_flags::POINTER64,
            sequence: Some(3),
            component_id: None,
        }),
        payload: [&1i32.to_le_bytes()[..], b"Hi\0"].concat(),
        ..TraceRecord::default()
    };
    let bytes = record.encode().unwrap();
    assert_eq!(&bytes[2..4], &[0x00, 0x90]);
    let m = WppMessage::from_record(&record, 8).unwrap();
    assert_eq!((m.sequence, m.pointer_size, m.number), (Some(3), 8, 11));
    let decoded = set.decode(&m).unwrap();
    assert_eq!(
        decoded.line(),
        "[0]0338.0E40::06/10/2005-21:25:43.968 00000003 [tracedrv]Hello, 1 Hi"
    );
    let classic = TraceRecord {
        header_type: header_type::FULL_HEADER64,
        ..record
    };
    assert!(WppMessage::from_record(&classic, 8).is_none());
}

#[test]
fn a_bad_tmf_costs_only_the_messages_it_spoils() {
    let tmf = r#"// a comment
#typev early_c1 1 "%0before any GUID"
{5a5a5a5a-0000-4000-8000-000000000002} bad // SRC=bad.c
#typev noquote_c2 2 %0no format string
#typev open_c3 3 "%0unterminated
#typev big_c4 70000 "%0number too large"
#typev good_c5 5 "%0good %10!d!"
{
x, ItemLong -- 10
}
#typev badarg_c6 6 "%0bad %10!d!"
{
no type here -- 10
}
#typev after_c7 7 "%0after %10!s!"
{
x, ItemListByte(a=zz) -- 10
}
#typev last_c8 8 "%0last"
gibberish line
#typev dup_c5 5 "%0a second message 5"
"#;
    let set = TmfSet::from_text(tmf.as_bytes(), "bad.tmf");
    let g = guid("{5a5a5a5a-0000-4000-8000-000000000002}");
    let numbers: std::collections::BTreeSet<u16> = set.messages().map(|m| m.number).collect();
    assert_eq!(numbers, [5, 8].into_iter().collect());
    assert_eq!(set.message(g, 5).unwrap().format, "%0good %10!d!");
    let said: Vec<String> = set.diagnostics().iter().map(|d| d.to_string()).collect();
    let expect = [
        "bad.tmf:2: a #typev line before any message GUID line",
        "bad.tmf:4: #typev: no format string",
        "bad.tmf:5: #typev: the format string has no closing quote",
        "bad.tmf:6: #typev: message number \"70000\"",
        "bad.tmf:13: message 6 (badarg_c6): argument line",
        "bad.tmf:17: message 7 (after_c7): list value \"zz\" is not a number",
        "bad.tmf:20: not a TMF line",
        "bad.tmf:21: message 5 of {5a5a5a5a-0000-4000-8000-000000000002} is defined again (first at bad.tmf:7",
    ];
    assert_eq!(said.len(), expect.len(), "{said:#?}");
    for (s, e) in said.iter().zip(expect) {
        assert!(s.starts_with(e), "{s:?} does not start with {e:?}");
    }
}

#[test]
fn payloads_that_do_not_fit_name_the_argument_and_offset() {
    let set = tracedrv();
    let err = set.decode(&message(11, &[1, 0, 0, 0, b'H'])).map(|_| ());
    // The last string may run to the end of the payload: it is read.
    assert!(err.is_ok(), "{err:?}");
    let err = set.decode(&message(11, &[1, 0])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "argument %10 (i): field i at payload offset 0: needs 4 bytes, 2 left"
    );
    let err = set.decode(&message(99, &[])).unwrap_err();
    assert!(
        matches!(err, Error::WppNoFormat { number: 99, .. }),
        "{err}"
    );
    let unknown = "{5a5a5a5a-0000-4000-8000-000000000003} u\n#typev u_1 1 \"%10!s!\"\n{\nx, ItemFrob -- 10\n}\n";
    let set = TmfSet::from_text(unknown.as_bytes(), "u.tmf");
    let m = WppMessage {
        guid: Some(guid("{5a5a5a5a-0000-4000-8000-000000000003}")),
        number: 1,
        ..WppMessage::new(&[1, 2, 3, 4])
    };
    let err = set.decode(&m).unwrap_err().to_string();
    assert!(err.contains("ItemFrob"), "{err}");
}

#[test]
fn formatted_text_is_bounded_whatever_the_format_repeats() {
    let format = "%10!1000s!".repeat(2000);
    let tmf = format!(
        "{{5a5a5a5a-0000-4000-8000-000000000004}} big\n#typev big_1 1 \"{format}%11!99999999d!\"\n{{\nx, ItemString -- 10\ny, ItemLong -- 11\n}}\n"
    );
    let set = TmfSet::from_text(tmf.as_bytes(), "big.tmf");
    let args = [&b"x\0"[..], &1u32.to_le_bytes()].concat();
    let m = WppMessage {
        guid: Some(guid("{5a5a5a5a-0000-4000-8000-000000000004}")),
        number: 1,
        ..WppMessage::new(&args)
    };
    let text = set.decode(&m).unwrap().text;
    assert!(text.len() <= wpp::format::MAX_TEXT + 3, "{}", text.len());
    assert!(text.ends_with('…'));
    // A width is capped at MAX_WIDTH.
    let tmf = "{5a5a5a5a-0000-4000-8000-000000000005} w\n#typev w_1 1 \"%10!99999999d!\"\n{\ny, ItemLong -- 10\n}\n";
    let set = TmfSet::from_text(tmf.as_bytes(), "w.tmf");
    let m = WppMessage {
        guid: Some(guid("{5a5a5a5a-0000-4000-8000-000000000005}")),
        number: 1,
        ..WppMessage::new(&args[2..])
    };
    assert_eq!(set.decode(&m).unwrap().text.len(), wpp::format::MAX_WIDTH);
}

#[test]
fn a_folder_reads_its_tmf_files_in_name_order() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wpp_folder");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let one = "{5a5a5a5a-0000-4000-8000-000000000006} a\n#typev a_1 1 \"%0from b\"\n";
    std::fs::write(dir.join("b.TMF"), one).unwrap();
    std::fs::write(dir.join("a.tmf"), one.replace("from b", "from a")).unwrap();
    std::fs::write(dir.join("c.txt"), "not read").unwrap();
    std::fs::write(dir.join("sub/d.tmf"), "not read either").unwrap();
    let set = TmfSet::load(&dir).unwrap();
    assert_eq!(set.files(), 2);
    let g = guid("{5a5a5a5a-0000-4000-8000-000000000006}");
    assert_eq!(set.message(g, 1).unwrap().format, "%0from a");
    assert_eq!(set.diagnostics().len(), 1, "{:?}", set.diagnostics());
    let err = TmfSet::load(&dir.join("missing.tmf")).unwrap_err();
    assert!(err.to_string().contains("missing.tmf"), "{err}");
}
