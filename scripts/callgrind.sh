#!/usr/bin/env bash
# Instructions per call of the disabled hot paths P1–P4 and of the write paths P5/P6/P10/P12
# (docs/PERFORMANCE.md), counted exactly by valgrind's callgrind, whatever the machine's noise.
#
# examples/hot_paths.rs runs each path N times in its own #[inline(never)] function
# (hp_*); this script takes each function's inclusive instruction count, subtracts the empty
# loop's (hp_baseline) and divides by N.
#
# Usage: scripts/callgrind.sh [N]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000000}"
cargo build --release --quiet --example hot_paths
BIN="${CARGO_TARGET_DIR:-target}/release/examples/hot_paths"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" "$BIN" "$N" 2>"$OUT/valgrind.log" ||
    { cat "$OUT/valgrind.log"; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$OUT/cg.out" >"$OUT/annotate.txt"
python3 - "$OUT/annotate.txt" "$N" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
counts = {}
for line in text.splitlines():
    m = re.match(r"\s*([\d,]+)\s.*?hot_paths::(hp_\w+)", line)
    if m:
        counts.setdefault(m.group(2), int(m.group(1).replace(",", "")))
base = counts.get("hp_baseline")
if base is None:
    sys.exit("hp_baseline not found in the callgrind output")
print(f"N = {n}; empty loop = {base / n:.2f} instructions per iteration (subtracted)")
print(f"{'path':<28}{'instr/call':>12}")
for name, ir in counts.items():
    if name == "hp_baseline":
        continue
    print(f"{name:<28}{(ir - base) / n:>12.2f}")
PY
