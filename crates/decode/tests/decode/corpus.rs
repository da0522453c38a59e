//! The seeded corpus of the `decode_tracelogging` fuzz target (`fuzz/`), run on stable by
//! every `cargo test`: each file in `tests/corpus/tracelogging/`, every prefix of it and
//! every single-byte change from a fixed set goes through the fuzz target's entry point,
//! [`decode_concatenated`], then rendering and re-encoding. Nothing may panic; the seeds
//! named `ok-*` must decode and those named `bad-*` (a struct-element bomb the value guard
//! stops, structs nested too deep, a short payload) must be refused.
//!
//! The seeds are written by the ignored test below:
//! `cargo test -p etwsim-decode --test decode corpus::write_seed_corpus -- --ignored`.

use etwsim_decode::tracelogging::{
    EventBuilder, OutType, ProviderTraits, SystemTime, decode_concatenated, encode,
};
use etwsim_types::Guid;
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/tracelogging")
}

/// What the fuzz target does with one input.
fn exercise(data: &[u8]) -> bool {
    match decode_concatenated(data) {
        Ok(event) => {
            std::hint::black_box(event.to_string());
            std::hint::black_box(event.tdh_properties());
            let _ = encode(&event.name, event.tag, &event.fields);
            let _ = ProviderTraits::parse(data);
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            let _ = ProviderTraits::parse(data);
            false
        }
    }
}

#[test]
fn every_seed_and_its_mutations_decode_or_fail_cleanly() {
    // rule: DEC-05
    // rule: DEC-09
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("the corpus folder exists")
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 6, "the seed corpus is missing: {files:?}");
    for path in files {
        let data = std::fs::read(&path).expect("a seed is readable");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let decoded = exercise(&data);
        if name.starts_with("ok-") {
            assert!(decoded, "{name} should decode");
        }
        if name.starts_with("bad-") {
            assert!(!decoded, "{name} should be refused");
        }
        for cut in 0..data.len() {
            exercise(&data[..cut]);
        }
        for i in 0..data.len() {
            for byte in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
                let mut m = data.clone();
                m[i] = byte;
                exercise(&m);
            }
        }
    }
}

/// One seed: metadata followed by payload.
fn seed(b: &mut EventBuilder) -> Vec<u8> {
    let e = b.build().expect("a seed builds");
    let mut out = e.metadata;
    out.extend_from_slice(&e.payload);
    out
}

#[test]
#[ignore = "writes the seed corpus; run by hand when the seeds should change"]
fn write_seed_corpus() {
    let dir = corpus_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let sid = "S-1-5-21-1-2-3"
        .parse::<etwsim_types::Sid>()
        .unwrap()
        .to_bytes();
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        (
            "ok-scalars",
            seed(
                EventBuilder::new("Scalars")
                    .tag(0x0ABC_DEF1)
                    .value("i8", -1i8)
                    .value("u16", 0x5000u16)
                    .out_type(OutType::PORT)
                    .value("f64", 0.5f64)
                    .bool32("b", true)
                    .value("g", Guid::from_provider_name("MyProvider"))
                    .filetime("ft", 134_116_992_000_000_000)
                    .systemtime("st", SystemTime::from_words([2026, 1, 4, 1, 0, 0, 0, 0]))
                    .sid("sid", &sid)
                    .hresult("hr", -1)
                    .field_tag(3),
            ),
        ),
        (
            "ok-strings",
            seed(
                EventBuilder::new("Strings")
                    .str16("s16", "héllo")
                    .cstr16("c16", "z")
                    .str8("s8", b"\x80abc")
                    .cstr8("c8", b"c")
                    .utf8("u8", "ü")
                    .binary("bin", &[1, 2])
                    .counted_binary("binc", &[3]),
            ),
        ),
        (
            "ok-arrays",
            seed(
                EventBuilder::new("Arrays")
                    .array("v", [1u32, 2, 3])
                    .fixed_array("f", [1u16, 2])
                    .str16_array("s", ["a", "bc"])
                    .sid_array("sids", [sid.as_slice()]),
            ),
        ),
        (
            "ok-structs",
            seed(
                EventBuilder::new("Structs")
                    .begin_struct("o")
                    .value("a", 1u8)
                    .begin_struct("i")
                    .array("x", [1i64])
                    .end_struct()
                    .end_struct()
                    .begin_struct("empty")
                    .end_struct(),
            ),
        ),
        (
            // Hand-written: a zero-member struct array of 65,535 elements in a 65,535-element
            // struct array: the value guard must stop it.
            "bad-empty-struct-bomb",
            {
                let body: &[u8] = &[
                    0, b'B', 0, b'o', 0, 0xB8, 0x01, 0xFF, 0xFF, b'i', 0, 0x38, 0xFF, 0xFF,
                ];
                let mut m = ((body.len() + 2) as u16).to_le_bytes().to_vec();
                m.extend_from_slice(body);
                m
            },
        ),
        ("bad-deep-structs", {
            let mut body = vec![0, b'D', 0];
            for _ in 0..40 {
                body.extend_from_slice(&[b's', 0, 0x98, 0x01]);
            }
            body.extend_from_slice(&[b'x', 0, 0x04]);
            let mut m = ((body.len() + 2) as u16).to_le_bytes().to_vec();
            m.extend_from_slice(&body);
            m.push(7);
            m
        }),
        ("bad-short-payload", {
            let mut s = seed(EventBuilder::new("Short").value("a", 1u64));
            s.truncate(s.len() - 3);
            s
        }),
    ];
    for (name, bytes) in seeds {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}
