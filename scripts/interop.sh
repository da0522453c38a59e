#!/usr/bin/env bash
# Interoperability proof for crates/etl: writes sample .etl files in every log-file mode
# (the `interop` example of etwsim-etl) and checks each with both third-party parsers,
# etl-parser and dissect.etl, through ../shared/tools/etl-check/etl_check.py --expect N.
# Fails on any parser error, disagreement or count mismatch.
#
# Usage: scripts/interop.sh           (from anywhere; needs python3 and PyPI for the venv)
# The venv lives in target/etl-check-venv (made once by setup.sh, then reused); the files
# and per-file logs go to $CARGO_TARGET_DIR/interop (default target/interop).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/tools/etl-check
venv=target/etl-check-venv
out=${CARGO_TARGET_DIR:-target}/interop

bash "$shared/setup.sh" "$venv"
rm -rf "$out"
mkdir -p "$out"
cargo run --quiet -p etwsim-etl --example interop -- "$out" >"$out/manifest.tsv"

failed=0
checked=0
while IFS=$'\t' read -r file expect; do
  log="$out/$(basename "$file" .etl).log"
  if "$venv/bin/python" "$shared/etl_check.py" "$file" --quiet --expect "$expect" >"$log" 2>&1; then
    status=ok
  else
    status="FAILED (exit $?)"
    failed=$((failed + 1))
  fi
  checked=$((checked + 1))
  printf '%-24s expect %5s  %s  %s\n' "$(basename "$file")" "$expect" \
    "$(grep -E '^etl-parser: ' "$log" | tail -1)" "$status"
  if [ "$status" != ok ]; then
    sed 's/^/    /' "$log"
  fi
done <"$out/manifest.tsv"

if [ "$checked" -eq 0 ]; then
  echo "interop: no sample files were written" >&2
  exit 1
fi
if [ "$failed" -ne 0 ]; then
  echo "interop: $failed of $checked files FAILED" >&2
  exit 1
fi
echo "interop: all $checked files read identically by etl-parser and dissect.etl"
