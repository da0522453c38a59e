#!/usr/bin/env bash
# Runs every criterion bench family once, one after the other, with the settings
# docs/PERFORMANCE.md reports (each family measures its floor and peers in the same run),
# then prints criterion's medians with their same-run ratios (scripts/bench_summary.py),
# the exact instruction counts of the sub-nanosecond paths (scripts/callgrind.sh), and
# dissect.etl's side of P11 (scripts/bench_dissect.py) when the parsers' venv exists.
#
# Usage: scripts/bench_all.sh            (about 15 minutes on a 2-core machine)
# Run it on a quiet machine: the ratios are within a run, but a loaded machine widens
# every interval.
set -euo pipefail
cd "$(dirname "$0")/.."
FLAGS=(--warm-up-time 1 --measurement-time 3 --sample-size 20)
for bench in enabled_check write_disabled write_filtered write_enabled fan_out scaling deterministic; do
    echo "== cargo bench --bench $bench -- ${FLAGS[*]}"
    cargo bench --quiet --bench "$bench" -- "${FLAGS[@]}" >/dev/null 2>&1
done
echo "== cargo bench --bench end_to_end -- --warm-up-time 1 --measurement-time 5 --sample-size 20"
cargo bench --quiet --bench end_to_end -- --warm-up-time 1 --measurement-time 5 --sample-size 20 |
    grep -E "runs \(" || true
echo "== cargo bench --bench read_etl -- --warm-up-time 1 --measurement-time 5 --sample-size 20"
cargo bench --quiet --bench read_etl -- --warm-up-time 1 --measurement-time 5 --sample-size 20 >/dev/null 2>&1
python3 scripts/bench_summary.py
VENV="${CARGO_TARGET_DIR:-target}/etl-check-venv"
if [ -x "$VENV/bin/python" ]; then
    echo "== $VENV/bin/python scripts/bench_dissect.py"
    "$VENV/bin/python" scripts/bench_dissect.py
else
    echo "(no parsers' venv at $VENV: P11's dissect.etl side skipped; scripts/interop.sh makes it)"
fi
echo "== scripts/callgrind.sh"
scripts/callgrind.sh
