//! A record synthesiser for consumer-only tests: an [`EventRecord`] as a consumer's
//! `EventRecordCallback` receives it, built from a TraceLogging event, a manifest event or a
//! kernel (MOF) class — with no session, no Windows and no registered manifest — and
//! [`deliver`]ed to a callback.
//!
//! Payloads come from the decoder's own encoders: the TraceLogging builder
//! (`EventBuilder`), the kernel layouts' `Schema::encode_fields`. Manifest templates have no
//! encoder in `etwsim-decode`, so [`manifest_event`] takes the payload bytes and checks that
//! the manifest decodes them.
//!
//! ```
//! use etwsim::decode::tracelogging::EventBuilder;
//! use etwsim::testing::{synth, Match, Records};
//!
//! let guid = "{5eed0206-2026-4e75-8000-636170747572}".parse().unwrap();
//! let ev = EventBuilder::new("Started").value("Port", 8080u16).build()?;
//! let mut seen = Vec::new();
//! synth::deliver([synth::tracelogging(guid, &ev)?], |r| seen.push(r.clone())); // your callback
//! Records::from_records("consumer", seen).expect(Match::named("Started").field("Port", 8080u16)).once();
//! # Ok::<(), etwsim::decode::Error>(())
//! ```

use crate::{Channel, EventDescriptor, EventRecord, Guid, Keyword, Level, Opcode, Task};
use etwsim_decode::Error;
use etwsim_decode::fields::Field;
use etwsim_decode::manifest::{EventDef, Manifest};
use etwsim_decode::tracelogging::TraceLoggingEvent;
use etwsim_types::EventHeader;
use etwsim_types::record::{header_flags, record_size};

/// The record a consumer receives for the TraceLogging event `event` of `provider`: its
/// descriptor, the `EVENT_SCHEMA_TL` item, the payload (DEC-03).
///
/// # Errors
/// As `TraceLoggingEvent::to_record`: a record over 65,535 bytes.
pub fn tracelogging(
    provider: Guid,
    event: &TraceLoggingEvent,
) -> etwsim_decode::Result<EventRecord> {
    event.to_record(provider, None)
}

/// The descriptor a manifest event is written with: its id, version, channel, level, opcode,
/// task and keywords.
pub fn descriptor_of(event: &EventDef) -> EventDescriptor {
    EventDescriptor {
        id: event.id,
        version: event.version,
        channel: Channel(event.channel),
        level: Level(event.level),
        opcode: Opcode(event.opcode),
        task: Task(event.task),
        keyword: Keyword(event.keywords),
    }
}

/// The record of manifest event `event` (its symbol, or its id in decimal) of `provider`
/// (the provider's name or `{GUID}`) in `manifest`, with `payload` as its user data — checked
/// against the event's template, so a payload the manifest cannot decode is refused here, not
/// in the assertion.
///
/// # Errors
/// [`Error::NoManifestEvent`] (or a description in [`Error::Encode`]) when the
/// provider or event is not in the manifest; the template's decode error for `payload`.
pub fn manifest_event(
    manifest: &Manifest,
    provider: &str,
    event: &str,
    payload: &[u8],
) -> Result<EventRecord, Error> {
    let missing = |what: String| Error::Encode {
        layout: "manifest",
        field: what,
        reason: "not in the manifest".into(),
    };
    let p = manifest
        .provider_named(provider)
        .or_else(|| provider.parse().ok().and_then(|g| manifest.provider(g)))
        .ok_or_else(|| missing(format!("provider {provider}")))?;
    let e = p
        .events
        .iter()
        .find(|e| e.symbol.as_deref() == Some(event) || event.parse() == Ok(e.id))
        .ok_or_else(|| missing(format!("event {event}")))?;
    p.decode(e, payload, 8)?;
    Ok(record(p.guid, descriptor_of(e), payload.to_vec(), 0))
}

/// The record of kernel class `class` (`"FileIo"`, `"Process"`…), event type `event_type`
/// (`"Create"`, `"Start"`…), in its current layout, with `fields` (named, in layout order)
/// encoded by the layout's encoder and 64-bit pointers — as a kernel session's consumer
/// receives it (KRN-13).
///
/// # Errors
/// [`Error::Encode`] for an unknown class or event type, and the layout encoder's
/// errors (a missing, extra or mistyped field).
pub fn kernel_event(class: &str, event_type: &str, fields: &[Field]) -> Result<EventRecord, Error> {
    let unknown = || Error::Encode {
        layout: "kernel",
        field: format!("{class}/{event_type}"),
        reason: "no such kernel class and event type".into(),
    };
    let c = etwsim_decode::mof::class_by_name(class).ok_or_else(unknown)?;
    let schema = c.current_schema(event_type).ok_or_else(unknown)?;
    let payload = schema.encode_fields(fields, 8)?;
    let d = EventDescriptor::new(0, Level(0), Keyword(0))
        .with_opcode(Opcode(schema.event.opcode))
        .with_version(schema.version);
    Ok(record(c.guid, d, payload, header_flags::HEADER_64_BIT))
}

fn record(
    provider: Guid,
    descriptor: EventDescriptor,
    payload: Vec<u8>,
    flags: u16,
) -> EventRecord {
    EventRecord {
        header: EventHeader {
            size: u16::try_from(record_size(&[], payload.len())).unwrap_or(u16::MAX),
            header_type: 0x13,
            flags: flags | header_flags::HEADER_64_BIT,
            provider_id: provider,
            descriptor,
            ..EventHeader::default()
        },
        user_data: payload,
        ..EventRecord::default()
    }
}

/// Hands each record to `callback`, in order, as ProcessTrace hands records to an
/// `EventRecordCallback`.
pub fn deliver(
    records: impl IntoIterator<Item = EventRecord>,
    mut callback: impl FnMut(&EventRecord),
) {
    for r in records {
        callback(&r);
    }
}
