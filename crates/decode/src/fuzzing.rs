//! Entry points shared by the fuzz targets (`fuzz/fuzz_targets/decode_mof.rs`,
//! `load_manifest.rs`) and the seeded-corpus tests that run in every `cargo test`.
//!
//! Each takes arbitrary bytes, drives the decoder over them and checks the properties that
//! must hold for any input. Bad input only ever yields errors.

use crate::fields::Value;
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

/// Bytes as a manifest file. When it loads, every event of every provider is decoded from
/// the same bytes with both pointer sizes, and its values and message rendered.
pub fn load_manifest(data: &[u8]) {
    let Ok(m) = manifest::load_manifest(data) else {
        return;
    };
    for p in &m.providers {
        for e in &p.events {
            let _ = p.keyword_names(e.keywords);
            let _ = (p.level_name(e.level), p.opcode_name(e.task, e.opcode));
            for pointer_size in [4, 8] {
                for payload in [&[][..], data] {
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
