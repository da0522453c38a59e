#!/usr/bin/env bash
# Runs every criterion bench family once, one after the other, with the settings
# docs/PERFORMANCE.md reports (each family measures its floor and peers in the same run),
# then prints criterion's medians with their same-run ratios (scripts/bench_summary.py),
# the exact instruction counts of the sub-nanosecond paths (scripts/callgrind.sh), and,
# when the parsers' venv exists, dissect.etl's side of P11 (scripts/bench_dissect.py), the
# parsers' side of P14 (scripts/bench_decode_parsers.py) and P16, the whole `etwsim dump`
# command against the parsers' dumps (scripts/bench_p16.sh).
#
# Usage: scripts/bench_all.sh            (about 30 minutes on a 2-core machine)
# Run it on a quiet machine: the ratios are within a run, but a loaded machine widens
# every interval.
set -euo pipefail
cd "$(dirname "$0")/.."
FLAGS=(--warm-up-time 1 --measurement-time 3 --sample-size 20)
# Each family's whole output is kept in target/bench-logs/; what it says about lost events and
# failed writes (which must be 0: a failed write is timed as a cheap one) is shown here.
LOGS="${CARGO_TARGET_DIR:-target}/bench-logs"
mkdir -p "$LOGS"
for bench in enabled_check write_disabled write_filtered write_enabled fan_out scaling deterministic system_ops; do
    echo "== cargo bench --bench $bench -- ${FLAGS[*]}"
    cargo bench --quiet --bench "$bench" -- "${FLAGS[@]}" >"$LOGS/$bench.log" 2>&1
    grep -E "EventsLost|timed writes failed|events lost|^  [A-Za-z_0-9/]+ +[0-9]+$" "$LOGS/$bench.log" || true
done
echo "== cargo bench --bench end_to_end -- --warm-up-time 1 --measurement-time 5 --sample-size 20"
cargo bench --quiet --bench end_to_end -- --warm-up-time 1 --measurement-time 5 --sample-size 20 |
    grep -E "runs \(|logger while|waiting for a CPU per run" || true
echo "== cargo bench --bench read_etl -- --warm-up-time 1 --measurement-time 5 --sample-size 20"
cargo bench --quiet --bench read_etl -- --warm-up-time 1 --measurement-time 5 --sample-size 20 >/dev/null 2>&1
echo "== cargo bench --bench decode -- --warm-up-time 1 --measurement-time 5 --sample-size 20"
cargo bench --quiet --bench decode -- --warm-up-time 1 --measurement-time 5 --sample-size 20 >/dev/null 2>&1
echo "== cargo bench --bench growth -- --warm-up-time 0.5 --measurement-time 1.5 --sample-size 15"
cargo bench --quiet --bench growth -- --warm-up-time 0.5 --measurement-time 1.5 --sample-size 15 >"$LOGS/growth.log" 2>&1
grep -E "timed writes failed|events lost" "$LOGS/growth.log" || true
python3 scripts/bench_summary.py
echo "== scripts/plot_growth.py (P13 and how cost grows; writes docs/growth.svg)"
python3 scripts/plot_growth.py
VENV="${CARGO_TARGET_DIR:-target}/etl-check-venv"
if [ -x "$VENV/bin/python" ]; then
    echo "== $VENV/bin/python scripts/bench_dissect.py"
    "$VENV/bin/python" scripts/bench_dissect.py
    echo "== $VENV/bin/python scripts/bench_decode_parsers.py"
    "$VENV/bin/python" scripts/bench_decode_parsers.py
    echo "== cargo build --release -p etwsim-cli; scripts/bench_p16.sh"
    cargo build --release --quiet -p etwsim-cli
    scripts/bench_p16.sh
else
    echo "(no parsers' venv at $VENV: P11's dissect.etl side, P14's parsers and P16 skipped;" \
        "scripts/interop.sh makes it)"
fi
echo "== scripts/callgrind.sh"
scripts/callgrind.sh
