//! Arbitrary bytes as the caller-described structures of the C ABI (crates/sys): the first
//! byte picks the structure — EVENT_TRACE_PROPERTIES (W/A), an instance name,
//! ENABLE_TRACE_PARAMETERS, EVENT_FILTER_DESCRIPTOR, EVENT_DATA_DESCRIPTORs, EventSetInformation
//! data, EVENT_TRACE_HEADER, EVENT_TRACE_LOGFILE (W/A), ProcessTrace's handles,
//! TraceSetInformation / TraceQueryInformation, EnumerateTraceGuidsEx's input,
//! TRACE_GUID_REGISTRATIONs — and the rest goes through the parsers the exported functions
//! use, then the win32 face and a fresh deterministic kernel. Nothing may panic, and every
//! refusal must be a documented code. The body is `etwsim_sys::fuzzing::c_abi_args`, which
//! `crates/sys/tests/abi/c_abi_corpus.rs` runs over the committed corpus in every `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    etwsim_sys::fuzzing::c_abi_args(data);
});
