//! Arbitrary bytes as a plain-LZ77 LZXpress stream with an output limit (a leading `u16`, in
//! 16-byte units): decompressing must never panic, write past the limit or name an offset
//! outside the stream; what it decompresses to, and the input itself, must round-trip
//! through the compressor. The body is shared with `crates/etl/tests/etl/lzxpress_corpus.rs`,
//! which runs it over the committed seeds `crates/etl/tests/corpus/lzxpress/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/etl/tests/common/lzxpress_fuzz.rs"]
mod lzxpress_fuzz;

fuzz_target!(|data: &[u8]| {
    lzxpress_fuzz::lzxpress(data);
});
