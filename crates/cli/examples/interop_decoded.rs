//! Writes `DIR/tracelogging_types.etl` for `scripts/interop_decoded.py`: TraceLogging events
//! of every field type the encoder has, written through a simulated session (the kernel's
//! write path, `Provider::write_with_options` with the `EVENT_SCHEMA_TL` metadata that
//! `etwsim_decode`'s `EventBuilder` builds), so that `etwsim dump --format json` and the
//! third-party parsers can be compared field by field.
//!
//! Each type is in its own event, named `Type_<INTYPE>` with one field `Value` (so a parser
//! that cannot decode one type still decodes the others), and one event `Common` holds
//! several types together. All from one thread on one CPU: file order is time order.
//!
//! Usage: `cargo run -p etwsim-cli --example interop_decoded -- DIR` (prints the file's path).

use etwsim::{Disk, EnableParams, Guid, Kernel, ProcessSpec, ProviderTraits, Token, WriteOptions};
use etwsim_decode::tracelogging::{EventBuilder, EventSchema, OutType, SystemTime};
use std::path::PathBuf;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The GUID of `{12345678-9abc-def0-1234-56789abcdef0}`.
const SOME_GUID: Guid = Guid::from_str_const("12345678-9abc-def0-1234-56789abcdef0");

/// `S-1-5-21-1004336348-1177238915-682003330-512` in its wire form.
fn sid() -> Vec<u8> {
    let mut b = vec![1, 5, 0, 0, 0, 0, 0, 5];
    for sub in [21u32, 1_004_336_348, 1_177_238_915, 682_003_330, 512] {
        b.extend_from_slice(&sub.to_le_bytes());
    }
    b
}

/// The events, each a builder holding its name and fields.
fn events() -> Vec<EventBuilder> {
    let one = |t: &str| EventBuilder::new(format!("Type_{t}"));
    vec![
        one("UNICODESTRING").cstr16("Value", "UTF-16 text").clone(),
        one("ANSISTRING").cstr8("Value", b"ASCII text").clone(),
        one("ANSISTRING_UTF8")
            .cstr8("Value", "café".as_bytes())
            .out_type(OutType::UTF8)
            .clone(),
        one("INT8").value("Value", -8i8).clone(),
        one("UINT8").value("Value", 200u8).clone(),
        one("INT16").value("Value", -1600i16).clone(),
        one("UINT16").value("Value", 60000u16).clone(),
        one("INT32").value("Value", -320_000i32).clone(),
        one("UINT32").value("Value", 4_000_000_000u32).clone(),
        one("INT64").value("Value", -6_400_000_000_000i64).clone(),
        one("UINT64")
            .value("Value", 18_000_000_000_000_000_000u64)
            .clone(),
        one("FLOAT").value("Value", 1.5f32).clone(),
        one("DOUBLE").value("Value", -2.25f64).clone(),
        one("BOOL32").bool32("Value", true).clone(),
        one("BINARY")
            .binary("Value", &[0xde, 0xad, 0xbe, 0xef])
            .clone(),
        one("GUID").value("Value", SOME_GUID).clone(),
        one("FILETIME")
            .filetime("Value", 134_116_992_000_000_000)
            .clone(),
        one("SYSTEMTIME")
            .systemtime(
                "Value",
                SystemTime::from_words([2026, 1, 4, 1, 13, 5, 9, 7]),
            )
            .clone(),
        one("SID").sid("Value", &sid()).clone(),
        one("HEXINT32").hex32("Value", 0x2a).clone(),
        // A pointer as a 64-bit writer logs it (TraceLogging has no POINTER type, DEC-09).
        one("HEXINT64")
            .pointer("Value", 0xffff_8000_1234_5678)
            .clone(),
        one("COUNTEDSTRING")
            .str16("Value", "counted UTF-16")
            .clone(),
        one("COUNTEDANSISTRING")
            .str8("Value", b"counted ANSI")
            .clone(),
        one("STRUCT")
            .begin_struct("Value")
            .value("Pid", 1234u32)
            .value("Tid", 5678u32)
            .end_struct()
            .clone(),
        one("COUNTEDBINARY")
            .counted_binary("Value", &[1, 2, 3])
            .clone(),
        one("UINT32_VCOUNT").array("Value", [1u32, 2, 3]).clone(),
        one("UINT16_CCOUNT").fixed_array("Value", [7u16, 8]).clone(),
        one("UINT32_HEX")
            .value("Value", 0x2au32)
            .out_type(OutType::HEX)
            .clone(),
        EventBuilder::new("Common")
            .cstr16("Path", r"C:\data\report.txt")
            .value("Size", 4096u64)
            .value("Delta", -3i32)
            .value("Ratio", 0.5f64)
            .bool32("Ok", false)
            .value("Id", SOME_GUID)
            .binary("Bytes", b"\x00\x01")
            .array("Counts", [10u16, 20])
            .clone(),
    ]
}

fn main() -> Res<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: interop_decoded DIR")?,
    );
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("tracelogging_types.etl");
    let k = Kernel::builder()
        .cpus(1)
        .deterministic(10)
        .disk(Disk::Real)
        .build()?;
    let app = k.spawn_process(ProcessSpec::new("types.exe", Token::user("alice")).pid(3000))?;
    let thread = app.spawn_thread(0)?;
    let name = "Etwsim.Interop.Types";
    let guid = Guid::from_provider_name(name);
    let provider = app.register_tracelogging(guid, &ProviderTraits::new(name))?;
    let session = k
        .session("InteropDecoded")
        .log_file(path.to_str().ok_or("the folder name is not Unicode")?)
        .buffer_size_kb(64)
        .start()?;
    session.enable(guid, &EnableParams::new())?;
    {
        let _on = thread.enter();
        for builder in events() {
            let event = builder.build()?;
            let event_name = EventSchema::parse(&event.metadata)?.name;
            let options = WriteOptions {
                event_name: Some(&event_name),
                tracelogging_metadata: Some(&event.metadata),
                ..WriteOptions::default()
            };
            provider.write_with_options(&event.descriptor, &options, &[&event.payload])?;
        }
    }
    session.stop()?;
    println!("{}", path.display());
    Ok(())
}
