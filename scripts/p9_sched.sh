#!/usr/bin/env bash
# P9: who keeps the session's logger thread off a CPU while the writer runs flat out.
#
# Records the scheduler's switch and wake-up events (`perf sched record`) during
# `end_to_end/etl_advised`, then, for every time the logger thread waited more than
# THRESHOLD_MS between being woken and running, prints which tasks ran on its CPU meanwhile
# (from `perf sched timehist`). docs/PERFORMANCE.md, P9, reports one run.
#
# Needs perf with the sched tracepoints, and root or kernel.perf_event_paranoid <= 1. Not run
# by CI: the tracer is itself one of the tasks competing for the CPUs.
#
# Usage: scripts/p9_sched.sh [THRESHOLD_MS]   (default 0.5)
set -euo pipefail
cd "$(dirname "$0")/.."
THRESHOLD_MS="${1:-0.5}"
command -v perf >/dev/null || { echo "p9_sched: perf is not installed" >&2; exit 1; }
BIN="$(cargo bench --bench end_to_end --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "end_to_end" and m.get("executable"):
        print(m["executable"])')"
[ -x "$BIN" ] || { echo "p9_sched: the end_to_end bench did not build" >&2; exit 1; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
perf sched record -o "$OUT/sched.data" -- "$BIN" --bench etl_advised \
    --warm-up-time 1 --measurement-time 5 --sample-size 20 2>/dev/null |
    grep -E "etl_advised .*runs|waiting for a CPU per run"
perf sched timehist -i "$OUT/sched.data" 2>/dev/null >"$OUT/timehist.txt"
python3 - "$OUT/timehist.txt" "$THRESHOLD_MS" <<'PY'
import collections, re, sys

threshold = float(sys.argv[2]) / 1e3
# timehist: the time a task was switched out, its CPU, name, then (ms) the wait since it was
# last switched out, the delay from its wake-up to running, and how long it ran.
line_re = re.compile(r"\s*([\d.]+)\s+\[(\d+)\]\s+(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")
runs = []
for line in open(sys.argv[1]):
    m = line_re.match(line)
    if m:
        t, cpu, task, _wait, delay, ran = m.groups()
        runs.append((float(t), int(cpu), task.strip(), float(delay) / 1e3, float(ran) / 1e3))
by_cpu = collections.defaultdict(list)
for r in runs:
    by_cpu[r[1]].append(r)


def kind(task):
    if task.startswith("etwsim-logger"):
        return "another logger"
    if task.startswith("end_to_end"):
        return "the writer"
    if task.startswith(("ksoftirqd", "kworker")):
        return "the kernel's I/O work (" + re.sub(r"\[.*", "", task) + ")"
    if task.startswith("<idle>"):
        return "idle"
    return re.sub(r"\[.*", "", task)


total = collections.Counter()
count = 0
for t, cpu, task, delay, ran in runs:
    if not task.startswith("etwsim-logger") or delay < threshold:
        continue
    count += 1
    start, end = t - ran - delay, t - ran
    held = collections.Counter()
    for t2, _, task2, _, ran2 in by_cpu[cpu]:
        overlap = min(t2, end) - max(t2 - ran2, start)
        if overlap > 0 and (t2, task2) != (t, task):
            held[kind(task2)] += overlap
    total.update(held)
    who = ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in held.most_common())
    print(f"  logger waited {delay * 1e3:.2f} ms on CPU {cpu}: {who}")
print(f"{count} waits over {threshold * 1e3:g} ms; the CPU was held by:")
for k, v in total.most_common():
    print(f"  {k:<48} {v * 1e3:8.2f} ms")
PY
