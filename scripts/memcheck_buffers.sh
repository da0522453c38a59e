#!/usr/bin/env bash
# valgrind memcheck of the kernel side's one `unsafe` module, the buffer pool's bytes
# (crates/buffers/src/raw.rs, docs/ARCHITECTURE.md): every test that writes records into pool
# buffers or copies them out runs under memcheck, which must report no error.
#
# - the buffer pool crate's unit tests: the module's own (alignment, bounds refusal, odd
#   lengths and padding), the pool's (switching, growth, loss, ring mode) and the doorbell's;
# - the kernel's unit tests (all of them, a few seconds): the write path's (header and payload
#   stores, the in-place system records) and the single-threaded lanes';
# - the event path's integration tests, one binary (tests/event_path/): those of buffers (ring
#   mode, growth, flushes, real time, the buffer header), of the write side (EventWrite,
#   extended items, TraceLogging, classic events), of the kernel's own events (system records
#   built in place), the threaded stress tests (writers on several threads, logger threads
#   reading and recycling buffers), the single-threaded engine's (records written through its
#   owner handle) and the event path's smoke test.
#
# Memory errors only (invalid reads and writes, uses of uninitialised bytes): leaks are not
# checked here. The kernel's own leak — a kernel that registered its Kernel-File, -Process or
# -Rundown provider held itself through them — is fixed and has its own test
# (`system::manifest::tests`); what memcheck still reports as definitely lost in the threaded
# tests is std's per-thread `Thread` handle of a channel context, allocated in a thread-local
# of threads that are not joined before the process exits, not this crate's memory.
# crates/sys/valgrind.supp holds memcheck's known false positive on Rust's 128-bit division.
#
# Usage: scripts/memcheck_buffers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind is not installed" >&2
    exit 1
fi

vg=(valgrind -q --error-exitcode=1 --leak-check=no
    --suppressions="$(pwd)/crates/sys/valgrind.supp")

# The test executables cargo builds for "$@" (one per line).
executables() {
    cargo test -q "$@" --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])'
}

mapfile -t lib < <(executables -p etwsim-buffers -p etwsim-kernel --lib)
mapfile -t integration < <(executables -p etwsim --test event_path)
if [ "${#lib[@]}" -ne 2 ] || [ "${#integration[@]}" -ne 1 ]; then
    echo "expected 2 + 1 test executables, got: ${lib[*]} ${integration[*]}" >&2
    exit 1
fi
for t in "${lib[@]}" "${integration[@]}"; do
    echo "== memcheck $(basename "$t")"
    "${vg[@]}" "$t" --test-threads=1 -q
done
