#!/usr/bin/env python3
"""P14 peers: time dissect.etl and etl-parser decoding the files the `decode` criterion bench
decodes, and print their decoded events/s beside etwsim's, with etwsim's ratio to each.

Run it with the interop venv's python, right after the Rust bench (same machine, same
files, same page cache), e.g.:

    cargo bench --bench decode -- --warm-up-time 1 --measurement-time 5 --sample-size 20
    target/etl-check-venv/bin/python scripts/bench_decode_parsers.py

Files: <target>/bench-data/decode_{tracelogging,manifest,mof}.etl (written by the decode
bench). etwsim's numbers: criterion's median in <target>/criterion/decode/<class>/new/
estimates.json and the events it decoded per iteration (the throughput in benchmark.json).

What each parser does per file, timed from opening the file to the last record, counting
the events whose fields it decoded:
  tracelogging  dissect.etl 3.14 has no TraceLogging field decoder (it hands the
                EVENT_SCHEMA_TL item back as bytes): not compared. etl-parser:
                Event.parse_tracelogging() and its fields as a dict.
  manifest      Application-Addon-Event-Provider's EnableAdd_onStart_V1, which both parsers
                bundle. dissect.etl: its Event (symbol and struct values, from its bundled
                manifest) built as record.event builds it, but with the manifest looked up
                by the provider GUID read little-endian (dissect.etl 3.14's
                EventHeader.provider_id reads it big-endian and finds no manifest). etl-parser: its bundled parser for the provider, called as
                Event.parse_etw() would (etl-parser 1.0.1's parse_etw itself raises
                AttributeError on every event: it reads provider_id.data1 where its Guid
                struct has provider_id.inner.data1), fields as a dict.
  mof           kernel system records (Thread, Image, FileIo). dissect.etl: record.event,
                symbol and struct values (its bundled kernel manifests). etl-parser:
                SystemTraceRecord.get_mof() and its fields; it has no FileIo v3 operation
                layouts (Read/Write/OperationEnd), so it decodes only the Thread and Image
                events — its events/s counts those.
P14's ratio is etwsim's decoded events/s over the parser's (target >= 100x). The best of N
runs is reported for the parsers (their minimum time; N = 3, 1 for etl-parser on files over
1 MB) — generous to them; etwsim's is criterion's median.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLASSES = ("tracelogging", "manifest", "mof")


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def dissect_decode(path: Path, cls: str) -> int | None:
    """Events dissect.etl decodes into fields; None when it has no decoder for the class."""
    if cls == "tracelogging":
        return None
    from dissect.etl import ETL
    n = 0
    with open(path, "rb") as fh:
        for bi, buf in enumerate(ETL(fh).buffers()):
            if bi == 0:
                continue  # the header buffer (etwsim's count leaves it out too, but for MOF)
            for r in buf:
                h = r.header
                if cls == "mof":
                    if type(h).__name__ != "SystemHeader":
                        continue
                    h.additional_header_fields()
                if cls == "manifest":
                    ev = manifest_event(h)
                else:
                    ev = r.event
                if ev.symbol() and ev._struct is not None:
                    # Event.event_values() would do this, but raises AttributeError on
                    # kernel events in 3.14 (_values vs __values__); the values themselves:
                    _ = dict(ev._struct.__values__)
                    n += 1
    return n


def manifest_event(h):
    """dissect.etl's Event for an EVENT_HEADER record, its manifest found by the provider GUID
    read little-endian: what record.event does, but for dissect.etl 3.14's EventHeader
    provider_id, which reads the GUID's bytes big-endian (UUID(bytes=...)) and so finds no
    manifest for any EVENT_HEADER event."""
    from uuid import UUID

    from dissect.etl import manifest
    from dissect.etl.etl import Event
    from dissect.etl.exceptions import ManifestNotFoundError

    try:
        mf = manifest.lookup(UUID(bytes_le=bytes(h.header.ProviderId)))
        mf.c_parser.EtwPointer.as_64bit()
        mf.c_parser.UserSID_blob.as_64bit()
    except (ManifestNotFoundError, AttributeError):
        mf = None
    return Event(h, mf)


def etl_parser_decode(path: Path, cls: str) -> int:
    """Events etl-parser decodes into fields."""
    from etl.etl import IEtlFileObserver, build_from_stream
    from etl.parsers.etw.core import Guid as EtwGuid, build_etw

    class Obs(IEtlFileObserver):
        n = 0

        def on_event_record(self, ev):
            if cls == "tracelogging":
                try:
                    tl = ev.parse_tracelogging()
                    _ = (tl.get_name(), dict(tl))
                    self.n += 1
                except Exception:  # noqa: BLE001 - an event it cannot decode
                    pass
            elif cls == "manifest":
                h = ev.source.event_header
                g = h.provider_id.inner
                try:
                    etw = build_etw(EtwGuid(g.data1, g.data2, g.data3, g.data4),
                                    h.event_descriptor.Id, h.event_descriptor.Version,
                                    ev.source.user_data)
                    _ = dict(etw.source)
                    self.n += 1
                except Exception:  # noqa: BLE001 - an event it cannot decode
                    pass

        def on_system_trace(self, obj):
            if cls == "mof":
                try:
                    _ = dict(obj.get_mof().source)
                    self.n += 1
                except Exception:  # noqa: BLE001 - no layout for this class/version
                    pass

        def on_perfinfo_trace(self, obj):
            pass

        def on_trace_record(self, ev):
            pass

        def on_win_trace(self, ev):
            pass

    obs = Obs()
    with open(path, "rb") as fh:
        build_from_stream(fh.read()).parse(obs)
    return obs.n


def best(fn, path: Path, cls: str, runs: int) -> tuple[float | None, int | None]:
    times, n = [], None
    for _ in range(runs):
        t = time.perf_counter()
        n = fn(path, cls)
        times.append(time.perf_counter() - t)
        if n is None:
            return None, None
    return min(times), n


def etwsim(cls: str) -> tuple[float | None, int | None]:
    """(median seconds per iteration, events decoded per iteration) from criterion."""
    d = target_dir() / "criterion" / "decode" / cls / "new"
    try:
        secs = json.loads((d / "estimates.json").read_text())["median"]["point_estimate"] / 1e9
        n = json.loads((d / "benchmark.json").read_text())["throughput"]["Elements"]
        return secs, int(n)
    except (OSError, KeyError, ValueError, TypeError):
        return None, None


def rate(n: int | None, secs: float | None) -> float | None:
    return n / secs if n and secs else None


def show(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r / 1e6:.2f} M/s" if r >= 1e6 else f"{r / 1e3:.1f} k/s"


def main() -> int:
    ap = argparse.ArgumentParser(description="P14: dissect.etl and etl-parser beside etwsim's "
                                             "decoders")
    ap.add_argument("--runs", type=int, default=3, help="runs per parser and file (best kept)")
    a = ap.parse_args()
    rows, notes = [], []
    for cls in CLASSES:
        path = target_dir() / "bench-data" / f"decode_{cls}.etl"
        if not path.exists():
            print(f"note: {path} is missing: run `cargo bench --bench decode` first",
                  file=sys.stderr)
            continue
        big = path.stat().st_size > 1 << 20
        ours_s, ours_n = etwsim(cls)
        ds_s, ds_n = best(dissect_decode, path, cls, a.runs)
        ep_s, ep_n = best(etl_parser_decode, path, cls, 1 if big else a.runs)
        ours, ds, ep = rate(ours_n, ours_s), rate(ds_n, ds_s), rate(ep_n, ep_s)
        if ds_n is None:
            notes.append(f"{cls}: dissect.etl has no decoder for these events' fields")
        elif ours_n and ds_n != ours_n:
            notes.append(f"{cls}: dissect.etl decoded {ds_n} of etwsim's {ours_n} events")
        if ours_n and ep_n != ours_n:
            notes.append(f"{cls}: etl-parser decoded {ep_n} of etwsim's {ours_n} events "
                         f"(its events/s counts those)")
        ratio = lambda peer: f"{ours / peer:,.0f}x" if ours and peer else "-"  # noqa: E731
        rows.append((cls, str(ours_n or "-"), show(ours), str(ds_n if ds_n is not None else "-"),
                     show(ds), str(ep_n), show(ep), ratio(ds), ratio(ep)))
    if not rows:
        return 1
    head = ("class", "etwsim events", "etwsim", "dissect events", "dissect.etl",
            "etl-parser events", "etl-parser", "P14 / dissect.etl", "P14 / etl-parser")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(v.rjust(w) if i else v.ljust(w)
                        for i, (v, w) in enumerate(zip(r, widths))))
    print("\nP14: etwsim's decoded events/s over the parser's, same file (target >= 100x)")
    for n in notes:
        print("note:", n)
    if any(r[2] == "-" for r in rows):
        print("'-' for etwsim: no criterion estimate; run `cargo bench --bench decode` first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
