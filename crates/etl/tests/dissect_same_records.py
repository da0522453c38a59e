#!/usr/bin/env python3
"""dissect.etl as an independent reader of the compressed files etwsim writes.

Test scaffolding for crates/etl/tests/etl/compressed.rs (and the line scripts/interop.sh runs);
run it with the interop venv's python, which has dissect.etl:

  dissect_same_records.py COMPRESSED.etl PLAIN.etl [--expect N]
      Iterates both files with dissect.etl and compares them record by record outside
      buffer 0: the header class, every byte of the record, the raw and converted
      timestamps, the standard and additional header fields dissect decodes. The first
      file must hold compressed buffers (BufferFlag 0x40) and the second none: the same
      records written both ways must read the same. --expect N: the number of records
      outside buffer 0. Prints "dissect.etl: N records, identical" and exits 0, or prints
      the first difference and exits 1.

  dissect_same_records.py --lzxpress DIR
      dissect.util's LZXpress decompressor as an oracle for etwsim's compressor: for every
      DIR/NAME.lzx, decompress(NAME.lzx) must equal DIR/NAME.raw. Exits 1 on a mismatch.

  dissect_same_records.py --count FILE.etl
      Prints the records dissect.etl reads outside buffer 0 and their raw timestamps'
      sum, one line: "N SUM" (for a real file etwsim reads too).

etl-parser is not used: it cannot read compressed buffers.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def records(path: Path) -> tuple[list[tuple], int]:
    """Every record outside buffer 0 as a comparable tuple, and the compressed buffers."""
    from dissect.etl import ETL

    out: list[tuple] = []
    compressed = 0
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for bi, buf in enumerate(etl.buffers()):
            if buf.header.BufferFlag & 0x40:
                compressed += 1
            if bi == 0:
                continue
            for r in buf:
                h = r.header
                raw = bytes(h.data[: h.size])
                out.append((type(h).__name__, raw, h.time_delta, str(h.timestamp),
                            repr(h.standard_header_fields()),
                            repr(h.additional_header_fields())))
    return out, compressed


def same(args: argparse.Namespace) -> int:
    a, ca = records(Path(args.files[0]))
    b, cb = records(Path(args.files[1]))
    if ca == 0:
        print(f"{args.files[0]}: no compressed buffer", file=sys.stderr)
        return 1
    if cb != 0:
        print(f"{args.files[1]}: {cb} compressed buffers (expected none)", file=sys.stderr)
        return 1
    if len(a) != len(b):
        print(f"dissect.etl: {len(a)} records in the compressed file, {len(b)} in the other",
              file=sys.stderr)
        return 1
    names = ("class", "record bytes", "raw timestamp", "timestamp", "standard fields",
             "additional fields")
    for i, (x, y) in enumerate(zip(a, b)):
        for name, u, v in zip(names, x, y):
            if u != v:
                print(f"dissect.etl: record {i} differs in its {name}: {u!r} vs {v!r}",
                      file=sys.stderr)
                return 1
    if args.expect is not None and len(a) != args.expect:
        print(f"dissect.etl: {len(a)} records, expected {args.expect}", file=sys.stderr)
        return 1
    print(f"dissect.etl: {len(a)} records, identical ({ca} compressed buffers)")
    return 0


def lzxpress(folder: Path) -> int:
    from dissect.util.compression.lzxpress import decompress

    n = 0
    for packed in sorted(folder.glob("*.lzx")):
        want = packed.with_suffix(".raw").read_bytes()
        got = decompress(packed.read_bytes())
        if got != want:
            print(f"{packed.name}: dissect decompresses {len(got)} bytes, etwsim compressed "
                  f"{len(want)} (first difference at "
                  f"{next((i for i, (p, q) in enumerate(zip(got, want)) if p != q), min(len(got), len(want)))})",
                  file=sys.stderr)
            return 1
        n += 1
    print(f"dissect.util: {n} streams decompress to what etwsim compressed")
    return 0 if n else 1


def count(path: Path) -> int:
    from dissect.etl import ETL

    n = total = 0
    with open(path, "rb") as fh:
        for bi, buf in enumerate(ETL(fh).buffers()):
            if bi == 0:
                continue
            for r in buf:
                n += 1
                total += r.header.time_delta
    print(n, total)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--expect", type=int)
    ap.add_argument("--lzxpress", metavar="DIR")
    ap.add_argument("--count", metavar="FILE")
    args = ap.parse_args()
    if args.lzxpress:
        return lzxpress(Path(args.lzxpress))
    if args.count:
        return count(Path(args.count))
    if len(args.files) != 2:
        ap.error("two files: COMPRESSED.etl PLAIN.etl")
    return same(args)


if __name__ == "__main__":
    sys.exit(main())
