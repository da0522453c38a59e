//! The per-CPU buffer pool of etwsim's logger: where a session's events are stored between the
//! write and the flush.
//!
//! A session's [`BufferPool`] holds its buffers — `BufferSize` bytes each, their first 0x48
//! bytes ([`HEADER`]) the `WMI_BUFFER_HEADER` the logger fills in — one in-use buffer per
//! simulated CPU, a free list and a ready (flush) queue:
//!
//! | step | API | Windows |
//! |---|---|---|
//! | a writer reserves a record in its CPU's buffer, without locks | [`BufferPool::record`] (a [`Reserved`] [`Record`]), [`BufferPool::write_record`] | the logger's per-processor buffers |
//! | a full buffer is sealed and switched for a free one, or the pool grows, or the event is lost | [`ReserveError`] | MinimumBuffers, MaximumBuffers, EventsLost |
//! | the last writer out hands a sealed buffer to the logger | [`BufferPool::pop_ready`] → [`Ready`] | the flush list |
//! | the logger writes it out and recycles it | [`BufferPool::flushed`], [`BufferPool::release`] | the logger thread |
//! | when a writer wakes the logger thread | [`Doorbell`] | (undocumented) |
//! | a single-threaded kernel's owner writes with plain stores | [`BufferPool::cursor`] → [`OwnerHandle`], [`Cursor`], [`Owned`]; [`os_thread`] | — |
//!
//! The reservation / switch protocol (one atomic state word per buffer, generation-tagged CPU
//! slots) is described in the `pool` module's source (`src/pool.rs`). The buffers' bytes are
//! this crate's one module with `unsafe` (`src/raw.rs`, issue 14) — the only `unsafe` on the
//! kernel's side: every access is made exclusive by the protocol, each block names the step
//! that does it. The protocol, the bytes and the doorbell are model-checked with loom
//! (`RUSTFLAGS="--cfg etwsim_loom" cargo test -p etwsim-buffers --release --lib loom`, with
//! deliberately broken variants the models must catch), and the unit tests run under valgrind
//! memcheck (`scripts/memcheck_buffers.sh`). See docs/ARCHITECTURE.md, "Buffers".

// `unsafe` is allowed in one module only, the buffers' bytes (raw.rs: each block has its
// SAFETY reason; loom and valgrind check it, docs/ARCHITECTURE.md). The workspace denies it
// everywhere else.
mod doorbell;
mod pool;
#[allow(unsafe_code)]
mod raw;
mod sync;

pub use doorbell::Doorbell;
pub use pool::{
    BufferPool, Cursor, HEADER, Owned, OwnerHandle, Ready, ReserveError, Reserved, os_thread,
};
pub use raw::Record;
