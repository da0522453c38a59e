//! The body of the `lzxpress` fuzz target (`fuzz/fuzz_targets/lzxpress.rs`), which
//! `tests/etl/lzxpress_corpus.rs` also runs over the committed seeds in every `cargo test`.
//!
//! The input: a little-endian `u16` output limit in units of 16 bytes (so at most 1 MiB),
//! then a compressed stream. Decompressing it must never panic, never write past the limit
//! and, on failure, name an offset inside the stream; whatever it decompresses to must
//! compress and decompress back to itself. The whole input, as plain bytes, must round-trip
//! too, within the compressor's worst case, and not fit one byte under its length.

use etwsim_etl::lzxpress;

/// What one input may make the decompressor write at most.
pub const MAX_LIMIT: usize = 0xFFFF * 16;

/// The compressor's worst case for `n` bytes: every byte a literal, a 4-byte flags word
/// per 32 of them and one more at the end.
pub fn worst_case(n: usize) -> usize {
    n + 4 * (n / 32) + 8
}

fn round_trip(data: &[u8]) {
    let packed = lzxpress::compress(data);
    assert!(
        packed.len() <= worst_case(data.len()),
        "{} bytes compress to {}",
        data.len(),
        packed.len()
    );
    let back = lzxpress::decompress(&packed, data.len()).expect("what was compressed decompresses");
    assert!(back == data, "the round trip changed {} bytes", data.len());
    if !data.is_empty() {
        assert!(
            lzxpress::decompress(&packed, data.len() - 1).is_err(),
            "the limit is exact"
        );
    }
}

/// Runs one input (see the module docs).
pub fn lzxpress(data: &[u8]) {
    let (limit, stream) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])) * 16, rest),
        _ => (0, data),
    };
    debug_assert!(limit <= MAX_LIMIT);
    let mut out = Vec::new();
    match lzxpress::decompress_into(stream, limit, &mut out) {
        Ok(()) => {
            assert!(
                out.len() <= limit,
                "{} bytes over a limit of {limit}",
                out.len()
            );
            round_trip(&out);
        }
        Err(e) => {
            assert!(
                out.len() <= limit,
                "{} bytes over a limit of {limit}",
                out.len()
            );
            let at = e.offset().expect("a stream error names its offset");
            assert!(
                at <= stream.len() as u64,
                "{e} (stream of {} bytes)",
                stream.len()
            );
            assert!(!e.to_string().is_empty());
        }
    }
    round_trip(data);
}
