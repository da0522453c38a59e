//! Capacity arithmetic: how many events a session's buffers hold, for tests that size a
//! session to lose exactly so many events (docs/scenarios.md, "Capacity arithmetic").
//!
//! * A record is the 0x50-byte `EVENT_HEADER`, its extended items (each 8 bytes + data,
//!   padded to 8) and the payload, rounded up to 8 bytes (BUF-15).
//! * A buffer is `BufferSize` bytes, the first 0x48 its `WMI_BUFFER_HEADER` (BUF-15).
//! * A buffer is handed over for flushing when the next record does not fit (BUF-03): the
//!   write of record `k + 1` hands over a buffer holding `k`.
//! * Beyond MaximumBuffers, events are lost (BUF-04, EVT-07).
//!
//! ```
//! use etwsim::capacity::{record_len, records_per_buffer};
//! // 4 KB buffers, 100-byte payloads, no extended item: 0x50 + 100 = 180 → 184 bytes each.
//! assert_eq!(record_len(100, &[]), 184);
//! assert_eq!(records_per_buffer(4096, 100, &[]), (4096 - 0x48) / 184); // 21
//! ```

use etwsim_types::ExtendedItem;
use etwsim_types::record::{BUFFER_HEADER_SIZE, align8, record_size};

/// `sizeof(EVENT_HEADER)`: 0x50.
pub const EVENT_HEADER_SIZE: usize = etwsim_types::record::EVENT_HEADER_SIZE;

/// `sizeof(WMI_BUFFER_HEADER)`: 0x48.
pub const BUFFER_HEADER: usize = BUFFER_HEADER_SIZE;

/// Bytes one record takes in a buffer: header, extended items, payload, 8-byte aligned.
pub fn record_len(payload_len: usize, ext_items: &[ExtendedItem]) -> usize {
    align8(record_size(ext_items, payload_len))
}

/// How many records of `payload_len` bytes (with `ext_items`) fit in one buffer of
/// `buffer_size` bytes, after its 0x48-byte header.
pub fn records_per_buffer(
    buffer_size: usize,
    payload_len: usize,
    ext_items: &[ExtendedItem],
) -> usize {
    buffer_size.saturating_sub(BUFFER_HEADER) / record_len(payload_len, ext_items)
}

/// How many such records a session with `buffers` buffers of `buffer_size` bytes holds before
/// it loses events, if nothing is flushed meanwhile (one CPU writing; each CPU fills its own
/// buffer, BUF-02).
pub fn records_before_loss(
    buffers: usize,
    buffer_size: usize,
    payload_len: usize,
    ext_items: &[ExtendedItem],
) -> usize {
    buffers * records_per_buffer(buffer_size, payload_len, ext_items)
}
