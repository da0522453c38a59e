//! Arbitrary bytes as a TraceLogging event metadata blob followed by its payload (the
//! metadata's Size says where the payload starts), and as a provider traits blob: decoding,
//! rendering every value, the TDH property view and re-encoding the decoded fields must never
//! panic, hang or allocate beyond the guards — only return an error.
#![no_main]

use etwsim_decode::tracelogging::{ProviderTraits, decode_concatenated, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(event) = decode_concatenated(data) {
        std::hint::black_box(event.to_string());
        std::hint::black_box(event.tdh_properties());
        let _ = encode(&event.name, event.tag, &event.fields);
    }
    if let Ok(traits) = ProviderTraits::parse(data) {
        let _ = traits.to_bytes();
    }
});
