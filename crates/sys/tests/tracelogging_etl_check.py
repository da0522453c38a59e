#!/usr/bin/env python3
"""Checks the .etl that crates/sys/examples/tracelogging.c writes, as both third-party
parsers read it: the event name, field names and values must be what the C program wrote.

Usage (with the etl-check venv's python, run_examples.sh --etl-check does this):
    python tracelogging_etl_check.py FILE.etl EVENTS.jsonl

EVENTS.jsonl is etl_check.py's --json output for FILE.etl: etl-parser's own TraceLogging
decoding of each event. dissect.etl does not decode TraceLogging; it frames the records and
hands out the EVENT_SCHEMA_TL and PROV_TRAITS items and the user data, which this script
decodes with the four InTypes the example uses. Exit status 0 when both agree with the
program, 1 otherwise.
"""
from __future__ import annotations

import json
import struct
import sys

PROVIDER = "c3a1d2e4-5b6f-4a70-8192-a3b4c5d6e7f8"
PROVIDER_NAME = "Etwsim.Example.TraceLogging"
EVENTS = 3
FIELDS = ["message", "wide", "count", "total"]


def expected(i: int) -> dict[str, str]:
    """The values tracelogging.c's values_of(i) writes, as text."""
    return {"message": f"hello from C #{i}", "wide": f"wide \u00e9t\u00e9 #{i}",
            "count": str(i + 1), "total": str(0x100000000 * (i + 1) + 7)}


def cstr(b: bytes, at: int) -> tuple[bytes, int]:
    end = b.index(b"\0", at)
    return b[at:end], end + 1


def decode(schema: bytes, data: bytes) -> tuple[str, dict[str, str]]:
    """Event name and field values from an EVENT_SCHEMA_TL blob and the user data."""
    size = struct.unpack_from("<H", schema)[0]
    assert size == len(schema), f"metadata Size {size}, item of {len(schema)} bytes"
    at = 2
    while schema[at] & 0x80:  # tag bytes
        at += 1
    name, at = cstr(schema, at + 1)
    fields: dict[str, str] = {}
    off = 0
    while at < len(schema):
        field, at = cstr(schema, at)
        in_type = schema[at]
        at += 1
        if in_type == 2:  # ANSISTRING
            v, off = cstr(data, off)
            fields[field.decode()] = v.decode("latin-1")
        elif in_type == 1:  # UNICODESTRING
            end = off
            while data[end:end + 2] != b"\0\0":
                end += 2
            fields[field.decode()] = data[off:end].decode("utf-16-le")
            off = end + 2
        elif in_type == 8:  # UINT32
            fields[field.decode()] = str(struct.unpack_from("<I", data, off)[0])
            off += 4
        elif in_type == 10:  # UINT64
            fields[field.decode()] = str(struct.unpack_from("<Q", data, off)[0])
            off += 8
        else:
            raise ValueError(f"InType {in_type} of field {field!r}")
    assert off == len(data), f"{len(data) - off} bytes of user data left over"
    return name.decode(), fields


def dissect_view(path: str) -> list[tuple[str, str, dict[str, str]]]:
    from dissect.etl import ETL

    out = []
    with open(path, "rb") as fh:
        for buf in ETL(fh).buffers():
            for r in buf:
                h = r.header
                if type(h).__name__ != "EventHeader":
                    continue
                exts = {int(x.ext_type): (x.data, x.size) for x in h.header_extensions}
                schema, traits = exts[11][0]["EventSchema"], exts[12][0]["ProviderName"]
                ext_len = sum(n for _, n in exts.values())
                data = bytes(h.payload)[ext_len:]
                name, fields = decode(bytes(schema), data)
                out.append((bytes(traits).decode(), name, fields))
    return out


def main() -> int:
    path, jsonl = sys.argv[1], sys.argv[2]
    problems: list[str] = []
    parsed = [json.loads(line) for line in open(jsonl)]
    ours = [e for e in parsed if e.get("provider") == PROVIDER]
    if len(ours) != EVENTS:
        problems.append(f"etl-parser: {len(ours)} events of the provider, wanted {EVENTS}")
    for i, e in enumerate(ours):
        d = e.get("decoded") or {}
        if d.get("name") != "TraceLogging Sample":
            problems.append(f"etl-parser: event {i} decoded as {d.get('name')!r}")
        fields = d.get("fields", {})
        if list(fields) != FIELDS or fields != expected(i):
            problems.append(f"etl-parser: event {i} fields {fields}, wanted {expected(i)}")
    seen = dissect_view(path)
    if len(seen) != EVENTS:
        problems.append(f"dissect.etl: {len(seen)} events, wanted {EVENTS}")
    for i, (provider, name, fields) in enumerate(seen):
        if (provider, name) != (PROVIDER_NAME, "Sample"):
            problems.append(f"dissect.etl: event {i} is {provider}/{name}")
        if list(fields) != FIELDS or fields != expected(i):
            problems.append(f"dissect.etl: event {i} fields {fields}, wanted {expected(i)}")
    for p in problems:
        print("PROBLEM:", p)
    if problems:
        return 1
    print(f"tracelogging: both parsers decode {EVENTS} events {PROVIDER_NAME}/Sample {FIELDS} "
          "with the values the program wrote")
    return 0


if __name__ == "__main__":
    sys.exit(main())
