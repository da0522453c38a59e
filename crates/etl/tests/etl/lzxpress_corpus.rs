//! The committed LZXpress corpus (`tests/corpus/lzxpress/`, the seeds of the `lzxpress` fuzz
//! target) through the fuzz target's body (`tests/common/lzxpress_fuzz.rs`): each seed,
//! every prefix of it and a fixed set of byte changes at every position. Each seed is a
//! `u16` output limit (in 16-byte units) and a compressed stream: the [MS-XCA] §3.1
//! examples, every length form, the shared nibble, and broken streams.
//!
//! The seeds are written by this file's ignored test:
//! `cargo test -p etwsim-etl --test etl lzxpress_corpus::write_the_seed_corpus -- --ignored`.

use crate::common;

use common::lzxpress_fuzz::lzxpress as body;
use etwsim_etl::lzxpress;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/lzxpress")
}

fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir())
        .expect("the corpus folder")
        .map(|e| {
            let path = e.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("readable"))
        })
        .collect();
    v.sort();
    v
}

/// A seed: the limit (rounded up to 16-byte units), then the stream.
fn seed(limit: usize, stream: &[u8]) -> Vec<u8> {
    let units = u16::try_from(limit.div_ceil(16)).expect("a limit under 1 MiB");
    let mut v = units.to_le_bytes().to_vec();
    v.extend_from_slice(stream);
    v
}

/// Flags word: `symbols` (MSB first, 1 = match), the rest set (the end marker).
fn flags(symbols: &[bool]) -> [u8; 4] {
    let mut f = 0u32;
    for (i, &m) in symbols.iter().enumerate() {
        f |= u32::from(m) << (31 - i);
    }
    f |= (1u32 << (32 - symbols.len())) - 1;
    f.to_le_bytes()
}

fn the_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let compressed = |data: &[u8]| seed(data.len(), &lzxpress::compress(data));
    let mut long = b"XY".to_vec();
    for (i, len) in [9usize, 10, 24, 25, 279, 280, 1000].iter().enumerate() {
        long.push(b'a' + i as u8);
        long.extend(std::iter::repeat_n(b'=', len + 1));
    }
    let mut records = Vec::new();
    for i in 0..40u32 {
        records.extend_from_slice(&[0x60, 0, 0x13, 0xC0]);
        records.extend_from_slice(&i.to_le_bytes());
        records.extend_from_slice(&[0x11; 16]);
        records.extend_from_slice(&(i * 3).to_le_bytes());
        records.extend_from_slice(b"provider payload bytes..");
        records.extend_from_slice(&[0; 36]);
    }
    let mut noise = Vec::new();
    let mut s = 7u32;
    for _ in 0..300 {
        s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        noise.push((s >> 16) as u8);
    }
    // Hand-made streams.
    let mut shared = flags(&[false, true, true]).to_vec(); // 'a', two long matches 1 back
    shared.extend_from_slice(&[b'a', 7, 0, 0xC5, 7, 0]);
    let mut u32_form = flags(&[false, true]).to_vec(); // 'q', then a 100,000-byte match
    u32_form.extend_from_slice(&[b'q', 7, 0, 15, 255, 0, 0]);
    u32_form.extend_from_slice(&99_997u32.to_le_bytes());
    let mut before_start = flags(&[true]).to_vec(); // a match 8192 back, nothing before
    before_start.extend_from_slice(&0xFFF8u16.to_le_bytes());
    let mut below_22 = flags(&[false, true]).to_vec(); // u16 length 21 < 22
    below_22.extend_from_slice(&[b'z', 7, 0, 15, 255, 21, 0]);
    let abc = lzxpress::compress(&b"abc".repeat(100));
    vec![
        (
            "ms-xca-alphabet.bin",
            seed(26, &lzxpress::compress(b"abcdefghijklmnopqrstuvwxyz")),
        ),
        ("ms-xca-abc-100.bin", seed(300, &abc)),
        ("empty.bin", seed(0, &lzxpress::compress(b""))),
        ("one-byte.bin", compressed(b"x")),
        ("all-equal-4096.bin", compressed(&[0xAB; 4096])),
        ("length-forms.bin", compressed(&long)),
        ("records.bin", compressed(&records)),
        ("noise.bin", compressed(&noise)),
        ("shared-nibble.bin", seed(38, &shared)),
        ("u32-length.bin", seed(100_001, &u32_form)),
        ("broken-before-start.bin", seed(64, &before_start)),
        ("broken-below-22.bin", seed(64, &below_22)),
        ("broken-over-limit.bin", seed(16, &abc)),
        ("broken-cut-in-match.bin", seed(300, &abc[..11])),
    ]
}

#[test]
#[ignore = "writes the seed corpus; run with --ignored after changing the_seeds()"]
fn write_the_seed_corpus() {
    let dir = dir();
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in the_seeds() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

#[test]
fn the_committed_seeds_are_the_ones_this_file_makes() {
    let committed = seeds();
    let made = the_seeds();
    assert_eq!(committed.len(), made.len());
    for (name, bytes) in made {
        let (_, c) = committed
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} is committed"));
        assert!(*c == bytes, "{name} differs: rerun the ignored writer");
    }
}

#[test]
fn the_seeds_decode_as_their_names_say() {
    let run = |name: &str| {
        let (_, s) = seeds().into_iter().find(|(n, _)| n == name).unwrap();
        let limit = usize::from(u16::from_le_bytes([s[0], s[1]])) * 16;
        lzxpress::decompress(&s[2..], limit)
    };
    assert_eq!(run("ms-xca-abc-100.bin").unwrap(), b"abc".repeat(100));
    assert_eq!(run("shared-nibble.bin").unwrap(), vec![b'a'; 38]);
    assert_eq!(run("u32-length.bin").unwrap(), vec![b'q'; 100_001]);
    assert_eq!(run("empty.bin").unwrap(), b"");
    for (name, says) in [
        ("broken-before-start.bin", "before the start"),
        ("broken-below-22.bin", "below the minimum"),
        ("broken-over-limit.bin", "limit"),
        ("broken-cut-in-match.bin", "needs"),
    ] {
        let e = run(name).unwrap_err();
        assert!(e.to_string().contains(says), "{name}: {e}");
    }
}

#[test]
fn every_seed_its_prefixes_and_byte_changes_go_through_the_fuzz_body() {
    let seeds = seeds();
    assert!(seeds.len() >= 14, "{} seeds", seeds.len());
    let mut runs = 0;
    for (_, bytes) in &seeds {
        body(bytes);
        for cut in 0..bytes.len() {
            body(&bytes[..cut]);
        }
        for at in 0..bytes.len() {
            for x in [0x01, 0x10, 0x80, 0xFF] {
                let mut m = bytes.clone();
                m[at] ^= x;
                body(&m);
                runs += 1;
            }
        }
    }
    eprintln!("{} seeds, {runs} byte changes", seeds.len());
}
