#!/usr/bin/env python3
"""Interop of etwsim's kernel (MOF) events with the third-party parsers (issue 11).

Runs `cargo run --example fileio_names -- --out DIR`, which writes the kernel sessions' .etl
files and, beside kernel.etl, kernel.decoded.jsonl: every kernel event as etwsim's own decoder
(etwsim_decode::mof) reads it back, in file order. Then, for each file:

  * etl_check.py: both parsers read it, agree with each other, no decode failure;
  * kernel.etl, event by event in file order: the HookId, PID and TID etl-parser and
    dissect.etl see equal etwsim's, and every payload field either parser decodes equals the
    value etwsim's decoder read. etl-parser decodes Process v4, Thread v3, Image v3 and FileIo
    name events (v2) but no FileIo v3 operation (format reference Q11: its gap, counted and
    shown); dissect.etl decodes every class from its bundled manifests.

Each class etwsim writes (Process, Thread, Image, FileIo) must be decoded and equal in both
parsers. Exit 0 when everything matches, 1 otherwise.

Usage: scripts/interop_kernel.py PYTHON_WITH_PARSERS OUT_DIR
"""
import json
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
checker = os.path.join(root, "..", "shared", "tools", "etl-check", "etl_check.py")


def sid_text(revision, authority, subs):
    auth = int.from_bytes(bytes(authority), "big")
    return "S-%d-%d" % (revision, auth) + "".join("-%d" % s for s in subs)


def utf16(raw):
    b = bytes(raw)
    if len(b) >= 2 and b[-2:] == b"\x00\x00":
        b = b[:-2]
    return b.decode("utf-16le")


def etl_parser_fields(mof_source):
    """etl-parser's construct container → {name: plain value}, in etwsim's field names."""
    out = {}
    for k, v in mof_source.items():
        if k.startswith("_") or k == "UserSID_blob":
            continue
        name = {"ThreadId": "TThreadId", "Sid": "UserSID"}.get(k, k)
        if hasattr(v, "SubAuthority"):
            v = sid_text(v.Revision, v.IdentifierAuthority, v.SubAuthority)
        elif hasattr(v, "string") and getattr(v, "type", "") == "WString":
            v = utf16(v.string)
        elif isinstance(v, (bytes, bytearray)):
            v = bytes(v).rstrip(b"\x00").decode("latin-1")
        elif hasattr(v, "string"):
            v = bytes(v.string).rstrip(b"\x00").decode("latin-1")
        out[name] = v
    return out


def read_etl_parser(path):
    from etl.error import EventTypeNotFound, GroupNotFound, VersionNotFound
    from etl.etl import IEtlFileObserver, build_from_stream

    events = []

    class Obs(IEtlFileObserver):
        def on_system_trace(self, obj):
            sh = obj.source.system_header
            rec = {"hook": (int(sh.header.group) << 8) | sh.header.type,
                   "pid": sh.process_id, "tid": sh.thread_id, "fields": None}
            try:
                rec["fields"] = etl_parser_fields(obj.get_mof().source)
            except (GroupNotFound, VersionNotFound, EventTypeNotFound):
                pass
            events.append(rec)

        def on_event_record(self, ev):
            events.append({"hook": None})

        def on_perfinfo_trace(self, obj):
            events.append({"hook": None})

        def on_trace_record(self, ev):
            events.append({"hook": None})

        def on_win_trace(self, ev):
            events.append({"hook": None})

    with open(path, "rb") as fh:
        build_from_stream(fh.read()).parse(Obs())
    return events


def dissect_value(v):
    if hasattr(v, "sid") and hasattr(v.sid, "subAuthorities"):
        s = v.sid
        return sid_text(s.revision, s.authority, s.subAuthorities)
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).rstrip(b"\x00").decode("latin-1")
    return v


def read_dissect(path):
    from dissect.etl import ETL

    events = []
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for bi, buf in enumerate(etl.buffers()):
            if bi == 0:
                continue  # the header buffer: etl-parser and etwsim's list leave it out
            for r in buf:
                h = r.header
                if type(h).__name__ != "SystemHeader":
                    events.append({"hook": None})
                    continue
                h.additional_header_fields()
                ev = r.event
                fields = None
                if ev.symbol() and ev._struct is not None:
                    fields = {k: dissect_value(v) for k, v in ev._struct.__values__.items()}
                events.append({"hook": h.hook_id, "pid": h.process_id, "tid": h.thread_id,
                               "fields": fields, "symbol": ev.symbol()})
    return events


def compare(path, expected):
    problems = []
    stats = {}  # class -> {"etl-parser": n, "dissect": n, "events": n}
    views = {"etl-parser": read_etl_parser(path), "dissect.etl": read_dissect(path)}
    for parser, got in views.items():
        if len(got) != len(expected):
            problems.append(f"{parser}: {len(got)} records, etwsim wrote {len(expected)}")
            continue
        for i, (mine, theirs) in enumerate(zip(expected, got)):
            cls = mine["event"].split("/")[0]
            s = stats.setdefault(cls, {"events": 0, "etl-parser": 0, "dissect.etl": 0,
                                       "fields": 0})
            if parser == "etl-parser":
                s["events"] += 1
            where = f"{parser}, record {i} ({mine['event']})"
            for key in ("hook", "pid", "tid"):
                if theirs.get(key) != mine[key]:
                    problems.append(f"{where}: {key} {theirs.get(key)!r} != etwsim {mine[key]!r}")
            if theirs.get("fields") is None:
                continue
            s[parser] += 1
            for name, value in mine["fields"].items():
                if name not in theirs["fields"]:
                    if parser == "etl-parser" and name == "ThreadName":
                        continue
                    problems.append(f"{where}: field {name} not decoded")
                    continue
                s["fields"] += 1
                if theirs["fields"][name] != value:
                    problems.append(f"{where}: {name} = {theirs['fields'][name]!r}, "
                                    f"etwsim's decoder read {value!r}")
    return problems, stats


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    python, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    subprocess.run(["cargo", "run", "--quiet", "--example", "fileio_names", "--", "--out", out],
                   cwd=root, check=True, stdout=subprocess.DEVNULL)
    failed = False
    for name in ("rundown.etl", "kernel.etl"):
        path = os.path.join(out, name)
        rc = subprocess.run([python, checker, path, "--quiet"], capture_output=True, text=True)
        last = (rc.stdout.strip().splitlines() or [""])[-1]
        print(f"  {'ok' if rc.returncode == 0 else 'FAILED'}  {name}: etl_check: {last}")
        if rc.returncode != 0:
            print(rc.stdout + rc.stderr)
            failed = True
    with open(os.path.join(out, "kernel.decoded.jsonl"), encoding="utf-8") as fh:
        expected = [json.loads(line) for line in fh if line.strip()]
    problems, stats = compare(os.path.join(out, "kernel.etl"), expected)
    for cls, s in sorted(stats.items()):
        print(f"  {cls}: {s['events']} events; decoded by etl-parser {s['etl-parser']}, "
              f"by dissect.etl {s['dissect.etl']}")
        if cls in ("Process", "Thread", "Image", "FileIo") and (
                s["etl-parser"] == 0 or s["dissect.etl"] != s["events"]):
            problems.append(f"{cls}: not decoded by both parsers")
    for p in problems[:40]:
        print("  mismatch:", p)
    if problems or failed:
        print(f"interop_kernel: FAILED ({len(problems)} mismatches)")
        return 1
    fields = sum(s["fields"] for s in stats.values())
    print(f"interop_kernel: {len(expected)} kernel events, {fields} decoded field values "
          "equal etwsim's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
