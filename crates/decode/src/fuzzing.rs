//! Entry points shared by the fuzz targets (`fuzz/fuzz_targets/decode_mof.rs`,
//! `load_manifest.rs`) and the seeded-corpus tests that run in every `cargo test`
//! ([`payload_filter`] has no fuzz target yet; its test mutates every byte of a filter).
//!
//! Each takes arbitrary bytes, drives the decoder over them and checks the properties that
//! must hold for any input. Bad input only ever yields errors.

use crate::fields::Value;
use crate::manifest::filter::AggregateFilter;
use crate::{manifest, mof};

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
