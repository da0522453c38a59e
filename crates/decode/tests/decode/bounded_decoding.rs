//! Bad input costs bounded time and memory (issue 33): a decoder never makes more values than
//! the payload has bytes to give them, counts and lengths a manifest cannot mean are left out
//! when it loads (their template, with an error diagnostic), and what a manifest's text can
//! multiply (resolved messages, message insertions) stays proportional to it.

use etwsim_decode::Error;
use etwsim_decode::fields::Value;
use etwsim_decode::manifest::filter::{AggregateFilter, PayloadFilter, PayloadOperator, Predicate};
use etwsim_decode::manifest::{Manifest, Provider, Severity, format_message, load_manifest};
use etwsim_decode::tracelogging::{
    self, Arity, EventSchema, FieldDef, InType as TlInType, MAX_VALUES,
};
use std::time::{Duration, Instant};

/// A manifest of one provider whose template `T` (of event 1) holds `items`; the items start
/// on line 4.
fn manifest(items: &str) -> String {
    format!(
        "<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"P\" guid=\"{{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}}\">\n\
         <templates><template tid=\"T\">\n\
         {items}\n\
         </template></templates>\n\
         <events><event value=\"1\" template=\"T\"/></events>\n\
         </provider></events></instrumentation></instrumentationManifest>"
    )
}

fn provider(items: &str) -> Provider {
    let text = manifest(items);
    Manifest::parse(&text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .providers
        .remove(0)
}

fn decode(p: &Provider, payload: &[u8]) -> Result<Vec<etwsim_decode::fields::Field>, Error> {
    p.decode(p.event(1, 0).unwrap(), payload, 8)
}

/// The error a budget refusal gives: it names the field and the count.
fn assert_too_many(r: Result<Vec<etwsim_decode::fields::Field>, Error>, field: &str) {
    match r {
        Err(e @ Error::TooManyValues { .. }) => {
            let text = e.to_string();
            assert!(text.contains(field), "{text} does not name {field}");
        }
        Err(e) => panic!("expected TooManyValues for {field}, got {e}"),
        Ok(fields) => panic!(
            "expected TooManyValues for {field}, decoded {} fields",
            fields.len()
        ),
    }
}

#[test]
fn a_fixed_count_or_length_past_16_bits_is_left_out_at_load() {
    // rule: DEC-17
    for (items, needle) in [
        (
            r#"<data name="x" inType="win:Binary" length="0" count="4294967295"/>"#,
            "4294967295",
        ),
        (
            r#"<data name="x" inType="win:Binary" length="65536"/>"#,
            "65536",
        ),
        (r#"<struct name="s" count="70000"/>"#, "70000"),
        (
            r#"<struct name="s"><data name="m" inType="win:UInt8" count="99999999999"/></struct>"#,
            "99999999999",
        ),
    ] {
        // The template is left out with an error naming the element; its event stays known
        // and says why its payload cannot be decoded.
        let m = Manifest::parse(&manifest(items)).unwrap_or_else(|e| panic!("{items}: {e}"));
        let [d] = m.diagnostics() else {
            panic!("{items}: {:?}", m.diagnostics());
        };
        assert_eq!((d.line, d.severity), (4, Severity::Error), "{d}");
        assert!(d.element == "data" || d.element == "struct", "{d}");
        assert!(
            d.message.contains(needle) && d.message.contains("65535"),
            "{d}"
        );
        let p = &m.providers[0];
        assert!(p.templates.is_empty());
        let err = decode(p, &[0; 8]).unwrap_err();
        assert!(
            matches!(&err, Error::NoTemplate { tid, why } if tid == "T" && why.contains(needle)),
            "{err}"
        );
    }
    // The largest count TDH can carry still loads.
    provider(r#"<data name="x" inType="win:UInt8" count="65535"/>"#);
}

#[test]
fn values_that_take_no_bytes_are_bounded_by_the_payload() {
    // rule: DEC-17
    // A fixed count of zero-length values, of empty structs, and of a struct of zero-length
    // arrays: a few bytes of payload may not stand for tens of thousands of values.
    let p = provider(r#"<data name="x" inType="win:Binary" length="0" count="65535"/>"#);
    assert_too_many(decode(&p, &[0; 4]), "x");
    let p = provider(r#"<struct name="s" count="65535"/>"#);
    assert_too_many(decode(&p, &[0; 4]), "s");
    let p = provider(
        r#"<struct name="s" count="65535"><data name="m" inType="win:AnsiString" length="0" count="20"/></struct>"#,
    );
    assert_too_many(decode(&p, &[]), "s");
    // A count taken from the payload is bounded the same way.
    let p = provider(
        r#"<data name="n" inType="win:UInt16"/><data name="x" inType="win:UnicodeString" length="0" count="n"/>"#,
    );
    let err = decode(&p, &[0xFF, 0xFF]).unwrap_err();
    assert!(
        matches!(&err, Error::TooManyValues { field, count: 65535, .. } if field == "x"),
        "{err}"
    );
}

#[test]
fn the_value_budget_spares_events_that_pay_with_their_bytes() {
    // rule: DEC-17
    // 1,000 one-byte structs: 2,000 values from 1,002 bytes, every one paid for by a byte.
    let p = provider(
        r#"<data name="n" inType="win:UInt16"/><struct name="s" count="n"><data name="b" inType="win:UInt8"/></struct>"#,
    );
    let mut payload = 1000u16.to_le_bytes().to_vec();
    payload.extend(std::iter::repeat_n(7, 1000));
    let fields = decode(&p, &payload).unwrap();
    assert!(matches!(&fields[1].value, Value::Array(a) if a.len() == 1000));
    // Zero counts and the template's own zero-length items always fit.
    let p = provider(
        r#"<data name="n" inType="win:UInt16"/><data name="e" inType="win:Binary" length="0"/>
           <struct name="s" count="n"><data name="b" inType="win:UInt8" count="0"/></struct>
           <struct name="z"><data name="a" inType="win:AnsiString" length="0"/></struct>"#,
    );
    let fields = decode(&p, &[0, 0]).unwrap();
    assert_eq!(fields.len(), 4);
    // Eight zero-length values fit a budget of 7 payload bytes + 1 definition, not of 6 + 1.
    let p = provider(r#"<data name="x" inType="win:Binary" length="0" count="8"/>"#);
    assert!(matches!(&decode(&p, &[0; 7]).unwrap()[0].value, Value::Array(a) if a.len() == 8));
    assert_too_many(decode(&p, &[0; 6]), "x");
}

#[test]
fn a_payload_filter_refuses_a_template_count_past_16_bits() {
    // rule: FLT-18
    let mut p = provider(
        r#"<data name="n" inType="win:UInt32"/><data name="x" inType="win:Binary" length="0" count="1"/>"#,
    );
    if let etwsim_decode::manifest::Item::Data(d) = &mut p.templates[0].items[1] {
        d.count = Some(etwsim_decode::manifest::Param::Fixed(u32::MAX));
    }
    let pred = Predicate::new("n", PayloadOperator::Eq, "1");
    let err = PayloadFilter::new(
        &p,
        p.event(1, 0).unwrap(),
        false,
        std::slice::from_ref(&pred),
    )
    .unwrap_err();
    assert!(err.to_string().contains("4294967295"), "{err}");
    // The same template arriving as bytes is refused too.
    if let etwsim_decode::manifest::Item::Data(d) = &mut p.templates[0].items[1] {
        d.count = Some(etwsim_decode::manifest::Param::Fixed(1));
    }
    let f = PayloadFilter::new(&p, p.event(1, 0).unwrap(), false, &[pred]).unwrap();
    let mut bytes = AggregateFilter::new(vec![(f, false)]).unwrap().to_bytes();
    // The count of x is the only fixed count: kind 1 followed by u32 1.
    let at = bytes
        .windows(5)
        .position(|w| w == [1, 1, 0, 0, 0])
        .expect("the fixed count in the wire form");
    bytes[at + 1..at + 5].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = AggregateFilter::parse(&bytes).unwrap_err();
    assert!(err.to_string().contains("4294967295"), "{err}");
}

#[test]
fn tracelogging_struct_copies_are_charged_for_their_names() {
    // rule: DEC-07
    // Each decoded struct element carries a copy of its members' definitions; a long member
    // name makes each copy large, so the guard counts it.
    let long = "M".repeat(2000);
    let member = FieldDef::new(long.clone(), TlInType::UINT8).with_arity(Arity::Fixed(0));
    let schema = EventSchema {
        name: "Bomb".into(),
        tag: 0,
        fields: vec![FieldDef::structure("S", vec![member]).with_arity(Arity::Fixed(65535))],
    };
    let metadata = schema.to_bytes().unwrap();
    let err = tracelogging::decode_event(&metadata, &[]).unwrap_err();
    assert!(err.to_string().contains("values"), "{err}");
    // With one payload byte per element the copies are still charged.
    let member = FieldDef::new(long, TlInType::UINT8);
    let schema = EventSchema {
        name: "Bomb".into(),
        tag: 0,
        fields: vec![FieldDef::structure("S", vec![member]).with_arity(Arity::Fixed(65535))],
    };
    let metadata = schema.to_bytes().unwrap();
    let err = tracelogging::decode_event(&metadata, &[1; 65535]).unwrap_err();
    assert!(err.to_string().contains(&MAX_VALUES.to_string()), "{err}");
}

#[test]
fn message_insertions_cost_time_linear_in_the_message() {
    // rule: DEC-26
    // 400 KB of `%1!s!`: each insertion used to copy the rest of the message.
    let text = "%1!s!".repeat(80_000);
    let start = Instant::now();
    let out = format_message(&text, &["a".to_owned()]);
    assert_eq!(out.len(), 80_000);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn a_string_resolved_by_many_elements_cannot_multiply_the_manifest() {
    // rule: DEC-25
    // One 50 KB string used as the message of 1,000 events: 50 MB of copies from 100 KB.
    let events: String = (1..=1000)
        .map(|i| format!("<event value=\"{i}\" message=\"$(string.Big)\"/>"))
        .collect();
    let text = format!(
        "<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"P\" guid=\"{{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}}\">\n\
         <events>{events}</events>\n\
         </provider></events></instrumentation>\n\
         <localization><resources culture=\"en-US\"><stringTable>\n\
         <string id=\"Big\" value=\"{}\"/>\n\
         </stringTable></resources></localization></instrumentationManifest>",
        "x".repeat(50_000)
    );
    // Past the budget each message is left out, with an error; the events stay.
    let m = load_manifest(text.as_bytes()).unwrap();
    let d = &m.diagnostics()[0];
    assert_eq!(
        (d.line, d.element.as_str(), d.severity),
        (3, "event", Severity::Error),
        "{d}"
    );
    assert!(d.message.contains("\"Big\""), "{d}");
    let events = &m.providers[0].events;
    assert_eq!(events.len(), 1000);
    let kept = events.iter().filter(|e| e.message.is_some()).count();
    assert!((1..100).contains(&kept), "{kept} messages kept");
    assert_eq!(m.diagnostics().len(), 1000 - kept);
    // A few references to it are fine.
    let few = text.replacen("$(string.Big)", "plain", 990);
    load_manifest(few.as_bytes()).unwrap();
}
