//! Entry points shared by the fuzz targets (`fuzz/fuzz_targets/decode_mof.rs`,
//! `load_manifest.rs`, `tmf.rs`, `mof_class.rs`) and the seeded-corpus tests that run in
//! every `cargo test`
//! ([`payload_filter`] has no fuzz target yet; its test mutates every byte of a filter).
//!
//! Each takes arbitrary bytes, drives the decoder over them and checks the properties that
//! must hold for any input. Bad input only ever yields errors.

use crate::fields::Value;
use crate::manifest::filter::AggregateFilter;
use crate::{manifest, mof, mof_class, wpp};

/// Bytes as a kernel record: `[hook_id: u16 LE][version: u8][pointer_size: u8][payload…]`.
/// Decodes the payload by HookId; when that succeeds, the decoded values must encode, and
/// decode again to the same values.
///
/// # Panics
/// Only when decoder and encoder disagree — a bug, which is what the fuzzer looks for.
pub fn decode_mof(data: &[u8]) {
    let [lo, hi, version, pointer_size, payload @ ..] = data else {
        return;
    };
    let hook_id = u16::from_le_bytes([*lo, *hi]);
    let Ok(event) = mof::decode_system(hook_id, u16::from(*version), *pointer_size, payload) else {
        return;
    };
    for f in &event.fields {
        let _ = f.value.to_string();
    }
    let values: Vec<Value> = event.fields.iter().map(|f| f.value.clone()).collect();
    // Strings are read leniently (a last string may lack its NUL, bad UTF-16 becomes U+FFFD),
    // so the bytes may change on the way back; the values may not.
    let again = match event.schema.encode(&values, *pointer_size) {
        Ok(bytes) => bytes,
        Err(e) => panic!(
            "{}: decoded values do not encode: {e}",
            event.schema.layout.name
        ),
    };
    match event.schema.decode(&again, *pointer_size) {
        Ok(second) => assert_eq!(
            second.fields, event.fields,
            "{} v{}: decode → encode → decode changed the values",
            event.schema.layout.name, event.schema.version
        ),
        Err(e) => panic!(
            "{}: re-encoded bytes do not decode: {e}",
            event.schema.layout.name
        ),
    }
}

/// Bytes as a manifest file. When it loads, every event of every provider is decoded with
/// both pointer sizes from no payload, from a few bytes (zeros and ones: counts taken from
/// them are 0 or large, so items that take no bytes meet the value budget) and from the
/// same bytes, and its values and message rendered; its diagnostics are rendered too.
pub fn load_manifest(data: &[u8]) {
    let Ok(m) = manifest::load_manifest(data) else {
        return;
    };
    for d in m.diagnostics() {
        let _ = d.to_string();
    }
    for p in &m.providers {
        for e in &p.events {
            let _ = p.keyword_names(e.keywords);
            let _ = (p.level_name(e.level), p.opcode_name(e.task, e.opcode));
            for pointer_size in [4, 8] {
                for payload in [&[][..], &[0; 6], &[0xFF; 6], data] {
                    if let Ok(fields) = p.decode(e, payload, pointer_size) {
                        let _ = p.format_message(e, &fields);
                        if let Some(t) = p.template_of(e) {
                            for (f, item) in fields.iter().zip(&t.items) {
                                if let manifest::Item::Data(d) = item {
                                    let _ = p.render(d, &f.value);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Bytes as a PAYLOAD filter (what EnableTraceEx2 reads from an `EVENT_FILTER_DESCRIPTOR`).
/// When they parse, the filter's own bytes must parse to the same filter, and it must judge
/// the same bytes as a payload of every event it is bound to.
///
/// # Panics
/// Only when the wire form does not round-trip — a bug.
pub fn payload_filter(data: &[u8]) {
    let Ok(f) = AggregateFilter::parse(data) else {
        return;
    };
    let again = AggregateFilter::parse(&f.to_bytes()).expect("a filter's bytes parse");
    assert_eq!(again, f, "parse → to_bytes → parse changed the filter");
    for (single, _) in f.filters() {
        let (id, version) = single.event();
        for pointer_size in [4, 8] {
            let _ = f.passes_payload(f.provider(), id, version, data, pointer_size);
        }
    }
}

/// Bytes as a TMF file: the messages it describes (at most 256) are decoded from no payload, a few bytes
/// (zeros and ones) and the same bytes, with every header item and 64-bit pointers, and
/// with none and 32-bit pointers; its text, TraceFmt line and arguments are formatted; its
/// diagnostics rendered.
///
/// # Panics
/// When a formatted message is longer than [`wpp::format::MAX_TEXT`] (plus its cut mark) —
/// a bug.
pub fn tmf(data: &[u8]) {
    let set = wpp::TmfSet::from_text(data, "fuzz.tmf");
    for d in set.diagnostics() {
        let _ = d.to_string();
    }
    // Bounded work per input: at most 256 messages.
    for m in set.messages().take(256) {
        for args in [&[][..], &[0; 6], &[0xFF; 6], data] {
            // Every header item, 64-bit pointers; then none, 32-bit pointers.
            let full = wpp::WppMessage {
                guid: Some(m.guid),
                number: m.number,
                sequence: Some(1),
                thread_id: Some(2),
                process_id: Some(3),
                timestamp: Some(i64::MAX),
                ..wpp::WppMessage::new(args)
            };
            let bare = wpp::WppMessage {
                guid: Some(m.guid),
                number: m.number,
                pointer_size: 4,
                ..wpp::WppMessage::new(args)
            };
            for message in [full, bare] {
                match set.decode(&message) {
                    Ok(d) => {
                        assert!(d.text.len() <= wpp::format::MAX_TEXT + '…'.len_utf8());
                        let _ = d.line();
                        for a in &d.args {
                            let _ = a.shown();
                        }
                    }
                    Err(e) => {
                        let _ = e.to_string();
                    }
                }
            }
        }
    }
}

/// Bytes as a MOF file: when it loads, the event types of its classes (the first 4 of the
/// first 16 type classes of the first 64 event classes) are decoded from no payload, a few
/// bytes (zeros and ones) and the same bytes, with both pointer sizes, and their fields
/// shown; its diagnostics rendered.
pub fn mof_class(data: &[u8]) {
    let classes = match mof_class::MofClasses::from_text(data, "fuzz.mof") {
        Ok(c) => c,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for d in classes.diagnostics() {
        let _ = d.to_string();
    }
    // Bounded work per input: the first classes, type classes and event types.
    for c in classes.classes().iter().take(64) {
        for t in c.types.iter().take(16) {
            for &(event_type, _) in t.event_types.iter().take(4) {
                for pointer_size in [4, 8] {
                    for payload in [&[][..], &[0; 6], &[0xFF; 6], data] {
                        let version = c.version.unwrap_or(0);
                        match classes.decode(c.guid, event_type, version, pointer_size, payload) {
                            Ok(e) => {
                                for (f, shown) in e.shown_fields() {
                                    let _ = (f.value.to_string(), shown);
                                }
                            }
                            Err(e) => {
                                let _ = e.to_string();
                            }
                        }
                    }
                }
            }
        }
    }
}
