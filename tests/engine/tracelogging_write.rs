//! Writing TraceLogging events: `Provider::write_tracelogging` (the builder runs only when a
//! session listens) and the Win32 face's typed EVENT_DATA_DESCRIPTORs after
//! EventSetInformation, both decoded back with `decode_record`.

use crate::common;
use common::*;
use etwsim::decode::tracelogging::{
    DecodedEvent, EventBuilder, OutType, Value, decode_concatenated, decode_record, descriptor,
};
use etwsim::record::ext_type;
use etwsim::win32::{
    EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA, EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA,
    EventDataDescriptor, Win32,
};
use etwsim::{
    EnableParams, EventDescriptor, EventFilter, EventInfoClass, EventRecord, Kernel, Keyword,
    Level, MemorySink, NameFilter, Opcode, Provider, ProviderTraits, Session, Win32Error,
};
use std::cell::Cell;

const INFO_1: EventDescriptor = descriptor(Level::INFORMATION, Keyword(0x1));

/// A TraceLogging provider named `name` (GUID `guid(1)`) in a user process.
fn tl_provider(k: &Kernel, name: &str) -> Provider {
    user_process(k, "app.exe")
        .register_tracelogging(guid(1), &ProviderTraits::new(name))
        .unwrap()
}

/// A session that enables `guid(1)` with no filter.
fn enabled_session(k: &Kernel) -> (Session, MemorySink) {
    let (s, sink) = sink_session(k, "s");
    s.enable(guid(1), &EnableParams::new()).unwrap();
    (s, sink)
}

fn records(s: &Session, sink: &MemorySink) -> Vec<EventRecord> {
    s.stop().expect("stop");
    sink.records()
}

fn decoded(r: &EventRecord) -> DecodedEvent {
    decode_record(r)
        .expect("a TraceLogging record")
        .expect("it decodes")
}

/// The fields every test writes: scalars with hints, strings, an array, a struct, binary.
fn fill(e: &mut EventBuilder) {
    e.str16("Path", r"C:\logs\a.txt")
        .value("Bytes", 4096u64)
        .win32_error("Status", 5)
        .utf8("Note", "héllo")
        .begin_struct("Caller")
        .value("Pid", 1234u32)
        .out_type(OutType::PID)
        .array("Flags", [1u8, 2, 3])
        .end_struct()
        .binary("Blob", &[0xde, 0xad]);
}

#[test]
fn the_fields_closure_runs_only_when_some_session_wants_the_event() {
    // rule: EVT-02
    // rule: PRV-31
    let k = kernel();
    let p = tl_provider(&k, "P");
    let calls = Cell::new(0);
    let write = |d: &EventDescriptor| {
        p.write_tracelogging("E", d, |e| {
            calls.set(calls.get() + 1);
            e.value("N", 1u32);
        })
    };
    // No session at all.
    write(&INFO_1).unwrap();
    assert_eq!(calls.get(), 0);
    // A session that wants warnings of keyword 0x2 only.
    let (s, sink) = sink_session(&k, "s");
    s.enable(guid(1), &EnableParams::new().level(Level::WARNING).any(0x2))
        .unwrap();
    write(&INFO_1).unwrap(); // level too verbose
    write(&descriptor(Level::WARNING, Keyword(0x1))).unwrap(); // keyword not wanted
    assert_eq!(
        calls.get(),
        0,
        "nothing is built for an event no session wants"
    );
    write(&descriptor(Level::WARNING, Keyword(0x2))).unwrap();
    assert_eq!(calls.get(), 1);
    let recs = records(&s, &sink);
    assert_eq!(recs.len(), 1);
    // After the session stops the provider is disabled again: nothing is built.
    write(&descriptor(Level::WARNING, Keyword(0x2))).unwrap();
    assert_eq!(calls.get(), 1);
}

#[test]
fn a_written_event_decodes_back_to_its_names_and_values() {
    // rule: DEC-03
    // rule: DEC-04
    // rule: EVT-27
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let group = guid(9);
    let traits = ProviderTraits::new("Contoso.Files").with_group(group);
    let p = app.register_tracelogging(guid(1), &traits).unwrap();
    let (s, sink) = sink_session(&k, "s");
    s.enable(guid(1), &EnableParams::new()).unwrap();
    let d = INFO_1.with_opcode(Opcode::START);
    p.write_tracelogging("FileOpened", &d, |e| {
        fill(e);
        e.tag(0x0A5);
    })
    .unwrap();
    let recs = records(&s, &sink);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    // Where TraceLogging puts things: traits and metadata as items, values as user data.
    let kinds: Vec<u16> = r.extended_data.iter().map(|i| i.ext_type).collect();
    assert_eq!(kinds, [ext_type::PROV_TRAITS, ext_type::EVENT_SCHEMA_TL]);
    assert_eq!(r.extended_data[0].data, traits.to_bytes().unwrap());
    assert_eq!(r.header.descriptor, d);
    assert_eq!((d.id, d.version, d.channel.0), (0, 0, 11));

    // The same event built on its own gives the same bytes.
    let mut b = EventBuilder::new("FileOpened");
    b.set_descriptor(d);
    fill(&mut b);
    b.tag(0x0A5);
    let expected = b.build().unwrap();
    assert_eq!(r.extended_data[1].data, expected.metadata);
    assert_eq!(r.user_data, expected.payload);

    let e = decoded(r);
    assert_eq!(e.name, "FileOpened");
    assert_eq!(e.tag, 0x0A5);
    assert_eq!(e.provider_name.as_deref(), Some("Contoso.Files"));
    assert_eq!(e.descriptor, Some(d));
    assert_eq!(
        e.value("Path"),
        Some(&Value::CountedString(r"C:\logs\a.txt".into()))
    );
    assert_eq!(e.value("Bytes"), Some(&Value::U64(4096)));
    assert_eq!(e.value("Status"), Some(&Value::U32(5)));
    assert_eq!(e.value("Caller.Pid"), Some(&Value::U32(1234)));
    assert_eq!(
        e.value("Caller.Flags"),
        Some(&Value::Array(vec![
            Value::U8(1),
            Value::U8(2),
            Value::U8(3)
        ]))
    );
    assert_eq!(e.value("Blob"), Some(&Value::Binary(vec![0xde, 0xad])));
    let names: Vec<&str> = e.fields.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["Path", "Bytes", "Status", "Note", "Caller", "Blob"]);
    assert_eq!(
        e.to_string(),
        r#"Contoso.Files/FileOpened Path="C:\\logs\\a.txt", Bytes=4096, Status=0x5, Note="héllo", Caller={Pid=1234, Flags=[1, 2, 3]}, Blob=0xDEAD"#
    );
}

#[test]
fn activity_ids_and_the_builders_descriptor_changes_are_written() {
    // rule: EVT-14
    // rule: EVT-17
    let k = kernel();
    let p = tl_provider(&k, "P");
    let (s, sink) = enabled_session(&k);
    let (a, rel) = (guid(20), guid(21));
    p.write_tracelogging_transfer("Step", &INFO_1, Some(&a), Some(&rel), |e| {
        e.value("N", 7i32).opcode(Opcode::STOP);
    })
    .unwrap();
    let recs = records(&s, &sink);
    let r = &recs[0];
    assert_eq!(r.header.activity_id, a);
    assert_eq!(r.extended_data[0].ext_type, ext_type::RELATED_ACTIVITYID);
    assert_eq!(r.header.descriptor.opcode, Opcode::STOP);
    assert_eq!(decoded(r).value("N"), Some(&Value::I32(7)));
}

#[test]
fn event_name_filters_see_the_name_and_event_id_filters_do_not_apply() {
    // rule: FLT-22
    // rule: FLT-19
    let k = kernel();
    let p = tl_provider(&k, "P");
    let (named, named_sink) = sink_session(&k, "named");
    named
        .enable(
            guid(1),
            &EnableParams::new().filter(EventFilter::EventName(NameFilter {
                match_any: Keyword(0),
                match_all: Keyword(0),
                level: Level(0),
                filter_in: true,
                names: vec!["Keep".into()],
            })),
        )
        .unwrap();
    let (ids, ids_sink) = sink_session(&k, "ids");
    ids.enable(
        guid(1),
        &EnableParams::new().filter(EventFilter::EventId {
            filter_in: true,
            ids: vec![77],
        }),
    )
    .unwrap();
    for name in ["Keep", "Drop"] {
        p.write_tracelogging(name, &INFO_1, |e| {
            e.value("N", 1u8);
        })
        .unwrap();
    }
    let kept: Vec<String> = records(&named, &named_sink)
        .iter()
        .map(|r| decoded(r).name)
        .collect();
    assert_eq!(kept, ["Keep"]);
    // Id 0 is not in the EVENT_ID list, but TraceLogging events ignore that filter.
    assert_eq!(records(&ids, &ids_sink).len(), 2);
}

#[test]
fn without_descriptor_types_the_metadata_stays_in_the_payload() {
    // rule: EVT-12
    // rule: PRV-35
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let plain = app.register_provider(guid(1)).unwrap();
    let typed = app.register_provider(guid(2)).unwrap();
    typed
        .set_information(EventInfoClass::UseDescriptorType as u32, &[1])
        .unwrap();
    let (s, sink) = sink_session(&k, "s");
    s.enable(guid(1), &EnableParams::new()).unwrap();
    s.enable(guid(2), &EnableParams::new()).unwrap();
    for p in [&plain, &typed] {
        p.write_tracelogging("E", &INFO_1, |e| {
            e.value("N", 3u16);
        })
        .unwrap();
    }
    let recs = records(&s, &sink);
    // The plain provider's event is an ordinary one: metadata then values as user data.
    assert!(recs[0].extended_data.is_empty());
    assert!(decode_record(&recs[0]).is_none());
    let from_payload = decode_concatenated(&recs[0].user_data).unwrap();
    assert_eq!(from_payload.value("N"), Some(&Value::U16(3)));
    // UseDescriptorType alone: the schema item, no traits item (none were set).
    let kinds: Vec<u16> = recs[1].extended_data.iter().map(|i| i.ext_type).collect();
    assert_eq!(kinds, [ext_type::EVENT_SCHEMA_TL]);
    let e = decoded(&recs[1]);
    assert_eq!(
        (e.provider_name.as_deref(), e.value("N")),
        (None, Some(&Value::U16(3)))
    );
}

#[test]
fn fields_the_builder_cannot_encode_are_refused_and_nothing_is_written() {
    // rule: DEC-15
    // rule: EVT-03
    let k = kernel();
    let p = tl_provider(&k, "P");
    let (s, sink) = enabled_session(&k);
    let open_struct = p.write_tracelogging("E", &INFO_1, |e| {
        e.begin_struct("S").value("N", 1u8);
    });
    assert_eq!(
        open_struct.unwrap_err().win32_code(),
        Win32Error::ERROR_INVALID_PARAMETER
    );
    // Event metadata over 65,535 bytes: ERROR_ARITHMETIC_OVERFLOW, as tracelogging_dynamic.
    let long = "n".repeat(70_000);
    let too_big = p.write_tracelogging(&long, &INFO_1, |e| {
        e.value("N", 1u8);
    });
    assert_eq!(
        too_big.unwrap_err().win32_code(),
        Win32Error::ERROR_ARITHMETIC_OVERFLOW
    );
    assert!(records(&s, &sink).is_empty());
    assert_eq!(s.query().map(|q| q.events_lost).unwrap_or(0), 0);
}

#[test]
fn win32_typed_data_descriptors_carry_a_built_event_after_event_set_information() {
    // rule: EVT-12
    // rule: DEC-03
    // rule: PRV-34
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let w = Win32::new(&app);
    let mut h = 0;
    assert_eq!(w.event_register(Some(&guid(1)), None, 0, Some(&mut h)), 0);
    let traits = ProviderTraits::new("Win32.Provider").to_bytes().unwrap();
    assert_eq!(
        w.event_set_information(
            h,
            EventInfoClass::SetTraits as u32,
            Some(&traits),
            traits.len() as u32
        ),
        0
    );
    let (s, sink) = sink_session(&k, "s");
    s.enable(guid(1), &EnableParams::new()).unwrap();

    let mut b = EventBuilder::new("Connected");
    b.level(Level::INFORMATION).keyword(Keyword(0x4));
    b.str16("Host", "example.invalid")
        .value("Port", 443u16.to_be())
        .out_type(OutType::PORT)
        .hresult("Result", 0);
    let event = b.build().unwrap();
    // TraceLoggingWrite's blocks: [0] the traits (Type 2), [1] the metadata (Type 1), then the
    // values (Type 0, here split in two blocks).
    let (head, tail) = event.payload.split_at(5);
    let blocks = [
        EventDataDescriptor::typed(&traits, EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA),
        EventDataDescriptor::typed(&event.metadata, EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA),
        EventDataDescriptor::new(head),
        EventDataDescriptor::new(tail),
    ];
    assert_eq!(
        w.event_write_transfer(
            h,
            Some(&event.descriptor),
            None,
            None,
            blocks.len() as u32,
            Some(&blocks)
        ),
        0
    );
    let recs = records(&s, &sink);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(r.user_data, event.payload, "only the values are user data");
    let e = decoded(r);
    assert_eq!(e.name, "Connected");
    assert_eq!(e.provider_name.as_deref(), Some("Win32.Provider"));
    assert_eq!(
        e.value("Host"),
        Some(&Value::CountedString("example.invalid".into()))
    );
    assert_eq!(e.value("Port"), Some(&Value::U16(443u16.to_be())));
    assert_eq!(e.value("Result"), Some(&Value::I32(0)));
    assert_eq!(
        e.to_string(),
        r#"Win32.Provider/Connected Host="example.invalid", Port=443, Result=0x00000000"#
    );
    // The record is the one the decode crate's own model of it predicts.
    let model = event
        .to_record(guid(1), Some(&ProviderTraits::new("Win32.Provider")))
        .unwrap();
    assert_eq!(r.extended_data, model.extended_data);
    assert_eq!(r.header.descriptor, model.header.descriptor);
}

#[test]
fn etw_knows_providers_by_guid_and_names_only_through_traits() {
    // rule: GID-06
    // rule: GID-08
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let name = "Contoso.Named";
    let hashed = etwsim::Guid::from_provider_name(name);
    let fixed = guid(3); // the provider's own GUID, not the hash of its name
    assert_ne!(hashed, fixed);
    let p = app
        .register_tracelogging(fixed, &ProviderTraits::new(name))
        .unwrap();
    let (s, sink) = sink_session(&k, "s");
    // Enabling the name's GUID does not reach a provider registered under another GUID.
    s.enable(hashed, &EnableParams::new()).unwrap();
    assert!(!p.is_enabled());
    let mine = |g| {
        k.trace_guid_info(g)
            .unwrap()
            .instances
            .iter()
            .filter(|i| i.pid == app.pid())
            .count()
    };
    assert_eq!(mine(hashed), 0, "the process registered no such GUID");
    s.enable(fixed, &EnableParams::new()).unwrap();
    assert!(p.is_enabled());
    assert_eq!(mine(fixed), 1);
    p.write_tracelogging("E", &INFO_1, |e| {
        e.value("N", 1u8);
    })
    .unwrap();
    let recs = records(&s, &sink);
    assert_eq!(recs.len(), 1);
    // The record is the registered GUID's; the name arrives only in the traits item.
    assert_eq!(recs[0].header.provider_id, fixed);
    assert_eq!(decoded(&recs[0]).provider_name.as_deref(), Some(name));
}
