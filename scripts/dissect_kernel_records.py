#!/usr/bin/env python3
"""Kernel (classic / MOF) records of a real .etl file as dissect.etl reads them, for
etwsim's kernel-class coverage and agreement check (issue 30;
crates/decode/tests/decode/kernel_classes_real.rs).

dissect.etl walks files etwsim's reader does not take (relogged files whose buffers are
trimmed and LZXpress-compressed, e.g. PerfView's merged traces), so this script is the
common ground: it writes one JSON line per kernel record of every buffer after buffer 0:

  {"i": the record's index among all records of buffers 1… in file order (the order of
        etwsim's LogFile::records),
   "k": "system" | "compact" | "perfinfo" | "classic",
   "hook": HookId (system kinds) or null, "guid": class GUID (classic) or null,
   "type": event type, "ver": event version, "ps": 4 or 8 (the header's pointer size),
   "payload": hex, "dsym": dissect's event symbol or null,
   "dissect": {field: value} as dissect.etl decodes it from its bundled kernel manifests,
              or null when it has none for (opcode, version)}

Run it with the interop venv's python:

    target/etl-check-venv/bin/python scripts/dissect_kernel_records.py FILE.etl OUT.jsonl

then `ETWSIM_KERNEL_RECORDS=OUT.jsonl cargo test -p etwsim-decode --test decode
kernel_classes_real:: -- --ignored --nocapture` (absolute paths; several joined with ':').

With `--time FILE` it writes nothing and times dissect.etl decoding every kernel record of
FILE (the P18 peer; best of 3 runs): `r.event`, then the field values as
bench_decode_parsers.py takes them (`dict(ev._struct.__values__)`), counting the records
it decodes.

With `--sample N` it keeps at most N records of each (kind, group or class, type, version):
the committed expectations beside the excerpts in crates/decode/tests/real/ are made so.
"""
from __future__ import annotations

import json
import sys
from uuid import UUID


def plain(v):
    """dissect's values → JSON: ints, strings, bytes as hex, UUIDs as text, lists."""
    if hasattr(v, "sid") and hasattr(v.sid, "subAuthorities"):
        sid = v.sid
        auth = int.from_bytes(bytes(sid.authority), "big")
        return f"S-{sid.revision}-{auth}" + "".join(f"-{x}" for x in sid.subAuthorities)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"hex": bytes(v).hex()}
    if isinstance(v, UUID):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "__values__"):
        return {k: plain(x) for k, x in v.__values__.items()}
    return repr(v)


KINDS = ("SystemHeader", "CompactSystemHeader", "PerfinfoTraceHeader", "EventTraceHeader")


def time_decode(src: str, runs: int = 3) -> int:
    import time

    from dissect.etl import ETL

    best, n = float("inf"), 0
    for _ in range(runs):
        start, n = time.perf_counter(), 0
        with open(src, "rb") as fh:
            for bi, buf in enumerate(ETL(fh).buffers()):
                if bi == 0:
                    continue
                for r in buf:
                    if type(r.header).__name__ not in KINDS:
                        continue
                    try:
                        ev = r.event
                    except Exception:  # noqa: BLE001 - dissect's own failure: not decoded
                        continue
                    if ev.symbol() and ev._struct is not None:
                        _ = dict(ev._struct.__values__)
                        n += 1
        best = min(best, time.perf_counter() - start)
    print(f"{src}: dissect.etl decoded {n} kernel records in {best * 1e3:.0f} ms (best of "
          f"{runs}): {n / best:.0f} records/s")
    return 0


def main() -> int:
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--time":
        return time_decode(args[1])
    sample = None
    if len(args) == 4 and args[0] == "--sample":
        sample, args = int(args[1]), args[2:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    from dissect.etl import ETL

    src, out = args
    kept: dict = {}
    n = 0
    index = -1
    with open(src, "rb") as fh, open(out, "w") as w:
        for bi, buf in enumerate(ETL(fh).buffers()):
            if bi == 0:
                continue
            for r in buf:
                index += 1
                h = r.header
                kind = {
                    "SystemHeader": "system",
                    "CompactSystemHeader": "compact",
                    "PerfinfoTraceHeader": "perfinfo",
                    "EventTraceHeader": "classic",
                }.get(type(h).__name__)
                if kind is None:
                    continue
                rec = {"i": index, "k": kind, "hook": None, "guid": None, "ps": 8 if h.is_64bit else 4}
                if kind == "classic":
                    word = h.header.Version
                    rec["guid"] = str(h.provider_id)
                    rec["type"] = word & 0xFF
                    rec["ver"] = word >> 16
                else:
                    rec["hook"] = h.hook_id
                    rec["type"] = h.opcode
                    rec["ver"] = h.version & 0xFF
                rec["payload"] = bytes(h.payload).hex()
                rec["dsym"], rec["dissect"] = None, None
                try:
                    ev = r.event
                    rec["dsym"] = ev.symbol()
                    if getattr(ev, "_struct", None) is not None:
                        rec["dissect"] = {k: plain(v) for k, v in ev._struct.__values__.items()}
                except Exception as e:  # dissect's own failure: recorded, not fatal
                    rec["dissect_error"] = repr(e)[:200]
                if sample is not None:
                    key = (kind, rec["hook"] and rec["hook"] >> 8, rec["guid"], rec["type"], rec["ver"])
                    kept[key] = kept.get(key, 0) + 1
                    if kept[key] > sample:
                        continue
                w.write(json.dumps(rec, sort_keys=True) + "\n")
                n += 1
    print(f"{n} kernel records from {src}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
