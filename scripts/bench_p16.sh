#!/usr/bin/env bash
# P16: the whole command. `etwsim dump --format json` of the 200k-event file read_etl's bench
# writes (<target>/bench-data/large-200k.etl), against the parsers' own command-line dumps
# of the same file, as whole processes, several runs each, side by side (run i of every
# command before run i+1 of any), output to /dev/null. Prints each command's median wall
# time (and CPU time), events/s, and the P16 ratio (target >= 50x).
#
# The parsers (the venv scripts/interop.sh makes at <target>/etl-check-venv):
#   etl-parser   its command-line tool, etl2xml -i FILE -o OUT, stops at the first EVENT_HEADER
#                record of a provider it has no parser for: its parse_etw reads
#                provider_id.data1 where its own Guid struct has provider_id.inner.data1, and
#                raises AttributeError (etl-parser 1.0.1). It is run once to check that
#                this is still so (a fixed etl2xml fails the script, so the note stays true),
#                and etl-parser is timed as the minimal dump with its API instead, one python
#                command: build_from_stream(bytes).parse(observer), each record's header
#                fields and payload as one JSON line
#   dissect.etl  has no command-line tool: the minimal way to dump every record as JSON with
#                its API, as one python command (each record's event: provider, timestamp,
#                symbol, header fields and decoded struct values, one JSON line each; the
#                same per-record content etwsim's JSON lines have)
#
# Usage: scripts/bench_p16.sh [RUNS]   (default 5; etl-parser runs at most 3 times: one run
#        of it takes minutes)
# Needs: target/release/etwsim (built here), the 200k file (made here with the read_etl bench
# in --test mode if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-5}"
TARGET="${CARGO_TARGET_DIR:-target}"
FILE="$TARGET/bench-data/large-200k.etl"
VENV="$TARGET/etl-check-venv"
cargo build --release --quiet -p etwsim-cli
if [ ! -f "$FILE" ]; then
    echo "== making $FILE (cargo bench --bench read_etl -- --test)"
    cargo bench --quiet --bench read_etl -- --test >/dev/null 2>&1
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "(no parsers' venv at $VENV: P16 skipped; scripts/interop.sh makes it)"
    exit 0
fi
python3 - "$RUNS" "$FILE" "$TARGET/release/etwsim" "$VENV/bin/python" <<'PY'
import os, statistics, subprocess, sys, time

runs, path, etwsim, vpy = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
venv_bin = os.path.dirname(vpy)
DISSECT_DUMP = r'''
import sys, json
from dissect.etl import ETL
w = sys.stdout.write
for r in ETL(open(sys.argv[1], "rb")):
    e, h = r.event, r.header
    d = {"provider": str(e.provider_id()), "ts": str(e.ts()), "symbol": e.symbol(),
         **h.additional_header_fields()}
    if e._struct is not None:
        d.update(e._struct.__values__)
    w(json.dumps(d, default=str) + "\n")
'''
ETL_PARSER_DUMP = r'''
import sys, json
from etl.etl import IEtlFileObserver, build_from_stream
w = sys.stdout.write


def guid(g):
    i = g.inner
    tail = bytes(i.data4).hex()
    return "%08x-%04x-%04x-%s-%s" % (i.data1, i.data2, i.data3, tail[:4], tail[4:])


class Dump(IEtlFileObserver):
    def on_event_record(self, ev):
        h = ev.source.event_header
        d = h.event_descriptor
        w(json.dumps({"kind": "event", "provider": guid(h.provider_id), "id": d.Id,
                      "version": d.Version, "level": d.Level, "opcode": d.Opcode,
                      "keyword": d.Keyword, "pid": ev.get_process_id(),
                      "tid": ev.get_thread_id(), "timestamp": ev.get_timestamp(),
                      "payload": bytes(ev.source.user_data).hex()}) + "\n")

    def on_system_trace(self, obj):
        w(json.dumps({"kind": "system", "pid": obj.get_process_id(),
                      "tid": obj.get_thread_id()}) + "\n")

    def on_perfinfo_trace(self, obj):
        w(json.dumps({"kind": "perfinfo"}) + "\n")

    def on_trace_record(self, obj):
        w(json.dumps({"kind": "trace"}) + "\n")

    def on_win_trace(self, obj):
        w(json.dumps({"kind": "wintrace"}) + "\n")


build_from_stream(open(sys.argv[1], "rb").read()).parse(Dump())
'''
# etl2xml's known failure (see the top of this script).
xml = subprocess.run([vpy, os.path.join(venv_bin, "etl2xml"), "-i", path, "-o", os.devnull],
                     capture_output=True, text=True)
if xml.returncode == 0 or "AttributeError: data1" not in xml.stderr:
    sys.exit("etl2xml no longer fails as noted (exit %d): time it here instead of the API dump"
             % xml.returncode)
print("note: etl-parser's etl2xml fails on this file (AttributeError: data1 in parse_etw); "
      "etl-parser is timed as a one-command dump with its API")
commands = [
    ("etwsim dump --format json", [etwsim, "dump", "--format", "json", path], runs),
    ("dissect.etl (python -c: records to JSON)", [vpy, "-c", DISSECT_DUMP, path], runs),
    ("etl-parser (python -c: records to JSON)", [vpy, "-c", ETL_PARSER_DUMP, path],
     min(runs, 3)),
]
# The records in the file (etwsim's count: every record but buffer 0's header records).
out = subprocess.run([etwsim, "dump", "--format", "json", path], check=True,
                     capture_output=True, text=True).stdout
records = sum(1 for line in out.splitlines() if '"type":"event"' in line)
del out


def once(argv):
    """Wall and CPU (user + sys) seconds of one whole process, stdout to /dev/null."""
    with open(os.devnull, "wb") as null:
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
    if p.returncode != 0:
        sys.exit(f"{argv[0]} failed ({p.returncode}): {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


times = {name: [] for name, _, _ in commands}
for i in range(runs):
    for name, argv, n in commands:
        if i < n:
            times[name].append(once(argv))
print(f"file: {path} ({records} records, {os.path.getsize(path) / 1e6:.1f} MB); "
      f"medians of {runs} runs (etl-parser {min(runs, 3)}), run by run side by side")
ours = statistics.median(w for w, _ in times[commands[0][0]])
head = f"{'command':<44}{'runs':>5}{'wall median':>13}{'cpu median':>12}{'records/s':>12}{'P16':>9}"
print(head)
for name, _, _ in commands:
    wall = statistics.median(w for w, _ in times[name])
    cpu = statistics.median(c for _, c in times[name])
    ratio = "-" if name == commands[0][0] else f"{wall / ours:.1f}x"
    print(f"{name:<44}{len(times[name]):>5}{wall:>12.3f}s{cpu:>11.3f}s"
          f"{records / wall / 1e3:>10.1f} k{ratio:>9}")
print("P16: the parser's median wall time over etwsim's (target >= 50x)")
PY
