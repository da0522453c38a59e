#!/usr/bin/env bash
# Interoperability proof, checked with both third-party parsers (etl-parser and dissect.etl,
# through ../shared/tools/etl-check/etl_check.py). Two parts:
#
# 1. crates/etl on its own: the `interop` example of etwsim-etl writes standalone sample
#    .etl files in every log-file mode; each must be read by both parsers, identically,
#    with the expected number of records (etl_check.py --expect N).
# 2. etwsim's sessions: examples/interop_files.rs runs sessions of a deterministic kernel
#    writing real files (sequential, circular after it wrapped, every file of a NEWFILE
#    set, a flushed BUFFERING session, several CPUs, every extended item a session
#    produces, TraceLogging, empty payloads) and writes beside each FILE.etl a
#    FILE.expected.jsonl of what etwsim recorded as written (from the write calls and the
#    deterministic clock, never read back). Each file must pass etl_check.py --expect N, and
#    the events both parsers read (--json) must equal the expected ones field by field
#    (scripts/compare_interop.py).
#
# Fails on any parser error, disagreement, count or field mismatch.
#
# Usage: scripts/interop.sh           (from anywhere; needs python3 with venv, and PyPI for
#                                      the venv's first setup)
# The venv lives in target/etl-check-venv (made once by setup.sh, then reused); the files
# and per-file logs go to $CARGO_TARGET_DIR/interop (default target/interop).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/tools/etl-check
venv=target/etl-check-venv
out=${CARGO_TARGET_DIR:-target}/interop

bash "$shared/setup.sh" "$venv"
python="$venv/bin/python"
rm -rf "$out"
mkdir -p "$out/samples" "$out/sessions"

failed=0
checked=0

# check FILE EXPECT ORDER [EXPECTED_JSONL]: etl_check.py, then (for session files) the
# field-by-field comparison. Prints one line per file, and the logs of a failure.
check() {
  local file=$1 expect=$2 order=$3 expected=${4:-}
  local base=${file%.etl}
  local log="$base.log" status=ok compared=""
  local json=()
  if [ -n "$expected" ]; then
    json=(--json "$base.parsed.jsonl")
  fi
  local rc=0
  "$python" "$shared/etl_check.py" "$file" --quiet --expect "$expect" "${json[@]}" \
    >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    status="FAILED (etl_check exit $rc)"
  elif [ -n "$expected" ]; then
    local flags=()
    if [ "$order" = ordered ]; then
      flags=(--ordered)
    fi
    if "$python" scripts/compare_interop.py "$expected" "$base.parsed.jsonl" "${flags[@]}" \
        >>"$log" 2>&1; then
      compared="= expected"
    else
      status="FAILED (fields differ from what etwsim wrote)"
    fi
  fi
  checked=$((checked + 1))
  printf '%-26s expect %5s  %s %s  %s\n' "$(basename "$file")" "$expect" \
    "$(grep -E '^etl-parser: ' "$log" | tail -1 | sed 's/ (dissect.etl also.*//')" \
    "$compared" "$status"
  if [ "$status" != ok ]; then
    failed=$((failed + 1))
    sed 's/^/    /' "$log"
  fi
}

echo "== part 1: standalone samples of crates/etl"
cargo run --quiet -p etwsim-etl --example interop -- "$out/samples" >"$out/samples.tsv"
while IFS=$'\t' read -r file expect; do
  check "$file" "$expect" any
done <"$out/samples.tsv"
part1=$checked
# etl-parser reads no event from compressed buffers (it does not decompress them): the
# compressed sample is checked by dissect.etl alone, record for record against its twin.
echo "== compressed buffers: dissect.etl reads compressed.etl as its uncompressed twin"
"$python" crates/etl/tests/dissect_same_records.py "$out/samples/compressed.etl" "$out/samples/compressed-twin.etl" || failed=$((failed + 1))

echo "== part 2: files written by etwsim sessions, compared with what etwsim wrote"
cargo run --quiet --example interop_files -- "$out/sessions" >"$out/sessions.tsv"
while IFS=$'\t' read -r file expect order; do
  check "$file" "$expect" "$order" "${file%.etl}.expected.jsonl"
done <"$out/sessions.tsv"
part2=$((checked - part1))
"$python" scripts/interop_decoded.py "$out/decoded" || { echo "interop: decoded values differ (scripts/interop_decoded.py)" >&2; exit 1; }

echo "== part 3: kernel events (examples/fileio_names.rs) decoded by both parsers = etwsim's decoder"; "$python" scripts/interop_kernel.py "$python" "$out/kernel" || failed=$((failed + 1))

if [ "$part1" -eq 0 ] || [ "$part2" -eq 0 ]; then
  echo "interop: no files were written (part 1: $part1, part 2: $part2)" >&2
  exit 1
fi
if [ "$failed" -ne 0 ]; then
  echo "interop: $failed of $checked files FAILED" >&2
  exit 1
fi
echo "interop: all $checked files read identically by etl-parser and dissect.etl" \
  "($part1 standalone samples; $part2 session files equal to what etwsim wrote)"
