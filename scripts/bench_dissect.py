#!/usr/bin/env python3
"""P11 peer: time dissect.etl (and, for context, etl-parser) reading the files the
`read_etl` criterion bench reads, and print both side by side with the ratio.

Run it with the interop venv's python, right after the Rust bench (same machine, same
files, same page cache), e.g.:

    cargo bench --bench read_etl -- --warm-up-time 1 --measurement-time 5 --sample-size 20
    target/etl-check-venv/bin/python scripts/bench_dissect.py

Files: ../shared/fixtures/etl/*.etl (if present) and <target>/bench-data/large-200k.etl
(written by the read_etl bench). Rust numbers: criterion's median estimates in
<target>/criterion/read_etl_<way>/<file>/new/estimates.json for the bench's three ways of
reading: view (LogFile::for_each_record, records borrowed), file order (LogFile::records,
owned records) and merged (Reader, owned, oldest first with FILETIME conversion).

What each peer does per file, timed from opening the file to the last record:
  dissect iterate  ETL(fh) and every record of every buffer (dissect parses each record's
                   header while iterating: the least work dissect can do to walk a file)
  dissect fields   the same, also touching what etwsim's reader decodes per record: header
                   fields, provider, raw timestamp, extended items, the payload bytes
  etl-parser       build_from_stream(bytes).parse(observer): every record, decoded
P11's ratio is etwsim's records/s over the *faster* dissect mode, for each of etwsim's
three ways; the last column is the like-for-like one (etwsim's owned file order over
dissect decoding what etwsim decodes). Records are
counted outside buffer 0 for every reader (dissect also yields buffer 0's header records;
they are read but not counted). The best of N runs is reported for the peers (their
minimum time, N = 3 for files over 1 MB, else 20; etl-parser 1 run of a large file) —
generous to them; etwsim's is criterion's median.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def files() -> list[Path]:
    out = sorted((ROOT.parent / "shared" / "fixtures" / "etl").glob("*.etl"))
    large = target_dir() / "bench-data" / "large-200k.etl"
    if large.exists():
        out.append(large)
    else:
        print(f"note: {large} is missing: run `cargo bench --bench read_etl` first", file=sys.stderr)
    return out


def dissect_iterate(path: Path) -> int:
    from dissect.etl import ETL
    n = 0
    with open(path, "rb") as fh:
        for bi, buf in enumerate(ETL(fh).buffers()):
            for _ in buf:
                if bi:
                    n += 1
    return n


def dissect_fields(path: Path) -> int:
    from dissect.etl import ETL
    n = 0
    with open(path, "rb") as fh:
        for bi, buf in enumerate(ETL(fh).buffers()):
            for r in buf:
                h = r.header
                _ = (h.provider_id, h.time_delta, h.size, bytes(h.payload))
                if type(h).__name__ == "EventHeader":
                    _ = (h.header, h.process_id, h.thread_id, h.header_extensions)
                if bi:
                    n += 1
    return n


def etl_parser(path: Path) -> int:
    from etl.etl import IEtlFileObserver, build_from_stream

    class Count(IEtlFileObserver):
        n = 0

        def on_event_record(self, ev):
            self.n += 1

        def on_system_trace(self, obj):
            self.n += 1

        def on_perfinfo_trace(self, obj):
            self.n += 1

        def on_trace_record(self, ev):
            self.n += 1

        def on_win_trace(self, ev):
            self.n += 1

    obs = Count()
    build_from_stream(path.read_bytes()).parse(obs)
    return obs.n


def best(fn, path: Path, runs: int) -> tuple[float, int]:
    times, n = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        n = fn(path)
        times.append(time.perf_counter() - t)
    return min(times), n


def criterion_median_s(group: str, stem: str) -> float | None:
    est = target_dir() / "criterion" / group / stem / "new" / "estimates.json"
    try:
        return json.loads(est.read_text())["median"]["point_estimate"] / 1e9
    except (OSError, KeyError, ValueError):
        return None


def rate(n: int, secs: float | None) -> str:
    if not secs:
        return "-"
    r = n / secs
    return f"{r / 1e6:.2f} M/s" if r >= 1e6 else f"{r / 1e3:.1f} k/s"


def main() -> int:
    ap = argparse.ArgumentParser(description="P11: dissect.etl beside etwsim's reader")
    ap.add_argument("--no-etl-parser", action="store_true", help="skip etl-parser")
    a = ap.parse_args()
    paths = files()
    if not paths:
        print("no files to read", file=sys.stderr)
        return 1
    rows = []
    for p in paths:
        runs = 3 if p.stat().st_size > 1 << 20 else 20
        it_s, n_it = best(dissect_iterate, p, runs)
        fi_s, n_fi = best(dissect_fields, p, runs)
        # etl-parser is ~30x slower than dissect: one run of a large file is plenty.
        ep_runs = 1 if runs == 3 else runs
        ep_s, n_ep = (None, None) if a.no_etl_parser else best(etl_parser, p, ep_runs)
        view_s = criterion_median_s("read_etl_view", p.stem)
        rust_s = criterion_median_s("read_etl_file_order", p.stem)
        merged_s = criterion_median_s("read_etl_merged", p.stem)
        n = n_it
        if n_fi != n or (n_ep is not None and n_ep != n):
            print(f"note: {p.name}: record counts differ (dissect {n}/{n_fi}, "
                  f"etl-parser {n_ep})", file=sys.stderr)
        def ratio(ours_s: float | None, peer_s: float) -> str:
            return f"{peer_s / ours_s:,.0f}x" if ours_s else "-"
        fastest = min(it_s, fi_s)
        rows.append((p.name, n, rate(n, view_s), rate(n, rust_s), rate(n, merged_s),
                     rate(n, it_s), rate(n, fi_s), "-" if ep_s is None else rate(n_ep, ep_s),
                     ratio(view_s, fastest), ratio(rust_s, fastest), ratio(merged_s, fastest),
                     ratio(rust_s, fi_s)))
    head = ("file", "records", "etwsim view", "etwsim file order", "etwsim merged",
            "dissect iterate", "dissect fields", "etl-parser", "P11 view",
            "P11 file order", "P11 merged", "file order / dissect fields")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(str(v).rjust(w) if i else str(v).ljust(w)
                        for i, (v, w) in enumerate(zip(r, widths))))
    print("\nP11 <way>: etwsim's records/s that way over the faster dissect mode's "
          "(target >= 100x)")
    if any("-" in (r[2], r[3], r[4]) for r in rows):
        print("\n'-': no criterion estimate for that file; run `cargo bench --bench read_etl` first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
