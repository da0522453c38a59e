//! The event path, one binary (issue 29: tests link once per area): buffers and loss, the write
//! side (EventWrite and its family, classic TraceEvent), the kernel's own events, the threaded
//! stress test and the single-threaded engine — every test that writes records into pool
//! buffers or copies them out. `scripts/memcheck_buffers.sh` runs this binary under valgrind.
//! Run one file's tests with a filter: `cargo test -p etwsim --test event_path buffers::`.

#[path = "../common/mod.rs"]
mod common;

mod buffers;
mod classic_events;
mod event_path_smoke;
mod events;
mod kernel_events;
mod single_threaded;
mod stress;
