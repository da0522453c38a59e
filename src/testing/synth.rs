//! A record synthesiser for consumer-only tests: an [`EventRecord`] as a consumer's
//! `EventRecordCallback` receives it, built from a TraceLogging event, a manifest event or a
//! kernel (MOF) class — with no session, no Windows and no registered manifest — and
//! [`deliver`]ed to a callback.
//!
//! Payloads come from the decoder's own encoders: the TraceLogging builder
//! (`EventBuilder`), the kernel layouts' `Schema::encode_fields`, and the manifest template
//! encoder (`Provider::encode`), which [`manifest_event_fields`] uses to build a manifest
//! event from named fields. [`manifest_event`] takes payload bytes instead, and checks that
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

use crate::{EventDescriptor, EventRecord, Guid, Keyword, Level, Opcode};
use etwsim_decode::Error;
use etwsim_decode::fields::Field;
use etwsim_decode::manifest::{EventDef, Manifest, Provider};
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
    let (p, e) = find_event(manifest, provider, event)?;
    p.decode(e, payload, 8)?;
    Ok(record(p.guid, e.descriptor(), payload.to_vec(), 0))
}

/// The record of manifest event `event` (its symbol, or its id in decimal) of `provider`
/// (the provider's name or `{GUID}`) in `manifest`, its user data `fields` encoded by the
/// event's template with 64-bit pointers (`Provider::encode`): each template item from the
/// field of its name, a `count` or `length` field left out written from its array or value.
///
/// ```
/// use etwsim::decode::manifest::Manifest;
/// use etwsim::decode::{Field, Value};
/// use etwsim::testing::{synth, Match, Records};
///
/// let manifest = Manifest::parse(r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
///  <instrumentation><events>
///   <provider name="Demo" guid="{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}" symbol="DEMO">
///    <templates><template tid="T"><data name="Size" inType="win:UInt32"/></template></templates>
///    <events><event value="1" symbol="Read" template="T"/></events>
///   </provider>
///  </events></instrumentation>
/// </instrumentationManifest>"#)?;
/// let r = synth::manifest_event_fields(&manifest, "Demo", "Read", &[Field::new("Size", Value::U32(512))])?;
/// Records::from_records("consumer", [r]).with_manifest(&manifest).expect(Match::event(1).field("Size", 512u32)).once();
/// # Ok::<(), etwsim::decode::Error>(())
/// ```
///
/// # Errors
/// As [`manifest_event`] for the provider and event; the template encoder's errors
/// ([`Error::Encode`] naming the field: missing, not in the template, of the wrong variant
/// for its `inType`, a length that does not match its count or length field).
pub fn manifest_event_fields(
    manifest: &Manifest,
    provider: &str,
    event: &str,
    fields: &[Field],
) -> Result<EventRecord, Error> {
    let (p, e) = find_event(manifest, provider, event)?;
    let payload = p.encode(e, fields, 8)?;
    Ok(record(p.guid, e.descriptor(), payload, 0))
}

/// The provider (by name or `{GUID}`) and event (by symbol or decimal id) of `manifest`.
fn find_event<'m>(
    manifest: &'m Manifest,
    provider: &str,
    event: &str,
) -> Result<(&'m Provider, &'m EventDef), Error> {
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
    Ok((p, e))
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
