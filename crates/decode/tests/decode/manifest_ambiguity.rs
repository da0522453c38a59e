//! Manifests are checked for what makes them ambiguous: an error where the manifest cannot be
//! read one way (a template id, an event (value, version) or a provider GUID defined twice),
//! a diagnostic where it can (a reference to a map, level, task, opcode, keyword or channel
//! the manifest does not define: the field or event keeps its numbers).

use crate::common;

use common::tests_dir;
use etwsim_decode::Error;
use etwsim_decode::fields::Value;
use etwsim_decode::manifest::{Diagnostic, Item, Manifest, Severity, load_manifest};

const GUID: &str = "{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}";

/// A manifest whose provider (line 2) holds `inner` from line 3 on.
fn wrap(inner: &str) -> String {
    format!(
        "<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"P\" guid=\"{GUID}\">\n\
         {inner}\n\
         </provider></events></instrumentation></instrumentationManifest>"
    )
}

fn refused(text: &str) -> (u32, String, String) {
    match Manifest::parse(text) {
        Err(Error::Manifest {
            line,
            element,
            message,
        }) => (line, element, message),
        Err(e) => panic!("not a manifest error: {e}"),
        Ok(_) => panic!("loaded:\n{text}"),
    }
}

#[test]
fn a_template_id_defined_twice_is_an_error_naming_both_places() {
    // rule: DEC-17
    let (line, element, message) = refused(&wrap(
        "<templates>\n<template tid=\"T\"><data name=\"A\" inType=\"win:UInt8\"/></template>\n\
         <template tid=\"T\"><data name=\"B\" inType=\"win:UInt64\"/></template>\n</templates>\n\
         <events><event value=\"1\" template=\"T\"/></events>",
    ));
    assert_eq!((line, element.as_str()), (5, "template"), "{message}");
    assert!(
        message.contains("\"T\"") && message.contains("line 4"),
        "{message}"
    );
}

#[test]
fn an_event_value_and_version_defined_twice_is_an_error_naming_both_places() {
    // rule: DEC-17
    let (line, element, message) = refused(&wrap(
        "<events>\n<event value=\"7\" version=\"1\"/>\n<event value=\"7\"/>\n\
         <event value=\"0x7\" version=\"1\" symbol=\"Again\"/>\n</events>",
    ));
    assert_eq!((line, element.as_str()), (6, "event"), "{message}");
    assert!(
        message.contains("7") && message.contains("version 1") && message.contains("line 4"),
        "{message}"
    );
    // The same id with another version is a different event.
    let m = Manifest::parse(&wrap(
        "<events><event value=\"7\"/><event value=\"7\" version=\"1\"/></events>",
    ))
    .unwrap();
    assert_eq!(m.providers[0].events.len(), 2);
}

#[test]
fn a_provider_guid_defined_twice_is_an_error_naming_both_places() {
    // rule: DEC-16
    let text = format!(
        "<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"P\" guid=\"{GUID}\"/>\n\
         <provider name=\"Q\" guid=\"{}\"/>\n\
         </events></instrumentation></instrumentationManifest>",
        GUID.to_uppercase()
    );
    let (line, element, message) = refused(&text);
    assert_eq!((line, element.as_str()), (3, "provider"), "{message}");
    assert!(
        message.contains("line 2") && message.contains("P"),
        "{message}"
    );
}

/// The one diagnostic of `inner`, which must load.
fn one_diagnostic(inner: &str) -> (Manifest, Diagnostic) {
    let m = Manifest::parse(&wrap(inner)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.diagnostics().len(), 1, "{:?}", m.diagnostics());
    let d = m.diagnostics()[0].clone();
    assert_eq!(d.severity, Severity::Warning);
    (m, d)
}

#[test]
fn a_missing_map_is_a_diagnostic_and_the_field_shows_its_number() {
    // rule: DEC-24
    let (m, d) = one_diagnostic(
        "<templates><template tid=\"T\">\n<data name=\"K\" inType=\"win:UInt32\" map=\"Nowhere\"/>\n\
         </template></templates><events><event value=\"1\" template=\"T\"/></events>",
    );
    assert_eq!((d.line, d.element.as_str()), (4, "data"));
    assert!(d.message.contains("\"Nowhere\""), "{d}");
    assert_eq!(d.to_string(), format!("4: <data>: {}", d.message));
    let p = &m.providers[0];
    let e = p.event(1, 0).unwrap();
    let fields = p.decode(e, &5u32.to_le_bytes(), 8).unwrap();
    let Item::Data(def) = &p.template("T").unwrap().items[0] else {
        panic!()
    };
    assert_eq!(fields[0].value, Value::U32(5));
    assert_eq!(p.render(def, &fields[0].value), "5");
}

#[test]
fn a_struct_member_map_is_checked_too() {
    // rule: DEC-24
    let (_, d) = one_diagnostic(
        "<templates><template tid=\"T\"><struct name=\"S\">\n\
         <data name=\"K\" inType=\"win:UInt8\" map=\"Gone\"/></struct></template></templates>",
    );
    assert_eq!((d.line, d.element.as_str()), (4, "data"));
    assert!(d.message.contains("\"Gone\""), "{d}");
}

#[test]
fn a_missing_level_task_opcode_keyword_or_channel_is_a_diagnostic_and_the_event_keeps_its_numbers()
{
    // rule: DEC-21
    // rule: DEC-23
    for (attr, name) in [
        ("level", "win:Loud"),
        ("task", "Unknown"),
        ("opcode", "Spin"),
        ("keywords", "Nope"),
        ("channel", "Nowhere"),
    ] {
        let level = if attr == "level" {
            ""
        } else {
            "level=\"win:Error\""
        };
        let attrs = match attr {
            "keywords" => format!("{level} keywords=\"Read {name}\""),
            _ => format!("{level} keywords=\"Read\" {attr}=\"{name}\""),
        };
        let (m, d) = one_diagnostic(&format!(
            "<keywords><keyword name=\"Read\" mask=\"0x1\"/></keywords>\n\
             <events><event value=\"1\" version=\"2\" {attrs}/></events>"
        ));
        assert_eq!((d.line, d.element.as_str()), (4, "event"), "{attr}");
        assert!(
            d.message.contains(name) && d.message.contains(attr.trim_end_matches('s')),
            "{attr}: {d}"
        );
        let e = m.providers[0].event(1, 2).unwrap();
        let level = if attr == "level" { 0 } else { 2 };
        assert_eq!(
            (e.level, e.task, e.opcode, e.channel),
            (level, 0, 0, 0),
            "{attr}"
        );
        assert_eq!(e.keywords, 1, "{attr}");
    }
}

#[test]
fn a_clean_manifest_has_no_diagnostics() {
    // rule: DEC-16
    for name in ["demo-storage.man", "kernel-process.man", "utf16-bom.man"] {
        let bytes = std::fs::read(tests_dir("manifests").join(name)).unwrap();
        let m = load_manifest(&bytes).unwrap();
        assert_eq!(m.diagnostics(), &[], "{name}");
    }
}

#[test]
fn a_keyword_number_past_64_bits_says_so() {
    // rule: DEC-22
    // The keyword is left out, with an error that says why.
    let m = Manifest::parse(&wrap(
        "<keywords><keyword name=\"K\" mask=\"0x10000000000000000\"/></keywords>",
    ))
    .unwrap();
    let [d] = m.diagnostics() else {
        panic!("{:?}", m.diagnostics())
    };
    assert_eq!(
        (d.element.as_str(), d.severity),
        ("keyword", Severity::Error)
    );
    assert!(d.message.contains("does not fit in 64 bits"), "{d}");
    assert!(m.providers[0].keywords.is_empty());
    // An event naming a keyword by a number too wide: the diagnostic says why.
    let (_, d) =
        one_diagnostic("<events>\n<event value=\"1\" keywords=\"0x10000000000000000\"/></events>");
    assert!(d.message.contains("does not fit in 64 bits"), "{d}");
    // A session's keyword names.
    let m = Manifest::parse(&wrap(
        "<keywords><keyword name=\"K\" mask=\"0x1\"/></keywords>",
    ))
    .unwrap();
    let err = m.providers[0]
        .keyword_mask(&["K", "18446744073709551616"])
        .unwrap_err();
    assert!(err.to_string().contains("does not fit in 64 bits"), "{err}");
    assert_eq!(m.providers[0].keyword_mask(&["K"]).unwrap(), 1);
}
