#!/usr/bin/env python3
"""Compare what the third-party parsers read from an .etl file with what etwsim wrote.

Usage: compare_interop.py EXPECTED.jsonl PARSED.jsonl [--ordered]

EXPECTED.jsonl is written by `examples/interop_files.rs` beside each file: one object per
event, derived from what the example passed to the write calls and from the deterministic
clock (never read back from the file). PARSED.jsonl is `etl_check.py FILE --json PARSED`:
the events etl-parser and dissect.etl agree on (etl_check exits 2 when the two parsers
disagree on any field, so a PARSED file from a passing run is both parsers' view).

Compared per event: provider, id, version, channel, level, opcode, task, keyword, pid,
tid, ts_raw (the raw timestamp), payload_len, ext (extended items as [type, data size], in
order), and for TraceLogging events the name and field values etl-parser decoded. With
--ordered the events must come in exactly the expected order (one CPU, no wrap); without
it both lists are compared sorted by timestamp (several CPUs' buffers reach the file in
flush order; a wrapped circular file is in slot order).

Exit status: 0 all equal; 1 a difference (each is printed, at most 20).
"""
from __future__ import annotations

import argparse
import json
import sys

FIELDS = ("kind", "provider", "id", "version", "channel", "level", "opcode", "task",
          "keyword", "pid", "tid", "ts_raw", "payload_len", "ext")


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def norm(field: str, value):
    if field == "provider" and isinstance(value, str):
        return value.strip("{}").lower()
    if field == "ext" and value is not None:
        return [list(x) for x in value]
    return value


def key(ev: dict):
    return (ev.get("ts_raw", 0), norm("provider", ev.get("provider")), ev.get("id", 0),
            ev.get("tid", 0))


def compare(expected: list[dict], parsed: list[dict], ordered: bool) -> list[str]:
    problems: list[str] = []
    if len(expected) != len(parsed):
        problems.append(f"{len(expected)} events expected, the parsers read {len(parsed)}")
    if not ordered:
        expected = sorted(expected, key=key)
        parsed = sorted(parsed, key=key)
    for i, (e, p) in enumerate(zip(expected, parsed)):
        for f in FIELDS:
            if f not in e:
                continue
            if f not in p:
                problems.append(f"event [{i}] (ts {e.get('ts_raw')}): the parsers give no {f!r}")
                continue
            if norm(f, e[f]) != norm(f, p[f]):
                problems.append(f"event [{i}] (ts {e.get('ts_raw')}) {f}: expected {e[f]!r}, "
                                f"parsed {p[f]!r}")
        if "tl_name" in e:
            decoded = p.get("decoded") or {}
            want = "TraceLogging " + e["tl_name"]
            if decoded.get("name") != want:
                problems.append(f"event [{i}] (ts {e.get('ts_raw')}): decoded as "
                                f"{decoded.get('name')!r}, expected {want!r}")
            fields = decoded.get("fields") or {}
            if list(fields) != list(e["tl_fields"]):
                problems.append(f"event [{i}] (ts {e.get('ts_raw')}): TraceLogging fields "
                                f"{list(fields)}, expected {list(e['tl_fields'])}")
            for name, value in e["tl_fields"].items():
                if value is not None and fields.get(name) != value:
                    problems.append(f"event [{i}] (ts {e.get('ts_raw')}) field {name}: "
                                    f"expected {value!r}, decoded {fields.get(name)!r}")
        elif (p.get("decoded") or {}).get("name", "").startswith("TraceLogging"):
            problems.append(f"event [{i}] (ts {e.get('ts_raw')}): decoded as TraceLogging "
                            f"{p['decoded']['name']!r} but none was written")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("expected")
    ap.add_argument("parsed")
    ap.add_argument("--ordered", action="store_true",
                    help="the parsers must return the events in the expected order")
    a = ap.parse_args()
    expected, parsed = load(a.expected), load(a.parsed)
    problems = compare(expected, parsed, a.ordered)
    for p in problems[:20]:
        print("MISMATCH:", p)
    if len(problems) > 20:
        print(f"... and {len(problems) - 20} more")
    if problems:
        return 1
    print(f"compare: {len(expected)} events match field by field "
          f"({'in order' if a.ordered else 'sorted by timestamp'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
