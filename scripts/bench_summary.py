#!/usr/bin/env python3
"""Prints criterion's latest medians for bench groups, with the ratios PERF.md's targets use.

Reads `target/criterion/<group>/<bench>/new/estimates.json` (what the last `cargo bench` run of
each group wrote), so every ratio printed is between numbers of the same run of that group.

Usage: scripts/bench_summary.py [GROUP ...]   (default: every group under target/criterion)

For each benchmark: the median and its 95 % confidence interval, per iteration as criterion
measured it (benches that run 1,000 calls per iteration are divided by 1,000 and marked), and
the ratio to the group's floor(s): every benchmark whose name starts with `floor` in the same
group (or in the same sub-group, e.g. `write_enabled_16B`). For the `decode` group (P14), the
elements per second instead (events decoded; scripts/bench_decode_parsers.py sets them beside
the parsers').
"""

import json
import os
import sys

ROOT = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")

# Groups whose iteration is 1,000 calls (see the benches' CALLS constants).
PER_1000 = {"enabled_check", "write_disabled", "write_filtered", "system_ops_idle"}

# Groups whose benchmarks are compared by their elements per second (criterion's throughput,
# e.g. events decoded per iteration), not against a floor.
RATES = {"decode"}


def elements(group, name):
    """The elements per iteration criterion's throughput gives, if any."""
    try:
        with open(os.path.join(ROOT, group, name, "new", "benchmark.json")) as f:
            return int(json.load(f)["throughput"]["Elements"])
    except (OSError, KeyError, TypeError, ValueError):
        return None


def estimates(path):
    with open(path) as f:
        e = json.load(f)["median"]
    return (
        e["point_estimate"],
        e["confidence_interval"]["lower_bound"],
        e["confidence_interval"]["upper_bound"],
    )


def benches(group):
    out = []
    base = os.path.join(ROOT, group)
    for dirpath, _dirs, files in sorted(os.walk(base)):
        if os.path.basename(dirpath) == "new" and "estimates.json" in files:
            name = os.path.relpath(os.path.dirname(dirpath), base)
            out.append((name, estimates(os.path.join(dirpath, "estimates.json"))))
    return out


def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.3f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3f} µs"
    return f"{ns:.3f} ns"


def main():
    groups = sys.argv[1:] or sorted(
        g for g in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, g)) and g != "report"
    )
    for group in groups:
        rows = benches(group)
        if not rows:
            print(f"{group}: no estimates (run `cargo bench --bench …` first)")
            continue
        div = 1000.0 if group in PER_1000 else 1.0
        unit = " per call" if div != 1.0 else ""
        floors = [(n, m) for n, m in rows if os.path.basename(n).startswith("floor") or n.startswith("floor")]
        print(f"\n## {group}{unit}")
        print(f"{'benchmark':<48}{'median':>12}  {'95% interval':<24}" + "".join(f"{'/ ' + n:>28}" for n, _ in floors))
        for name, (med, lo, hi) in rows:
            ratios = "".join(f"{med / fm[0]:>27.2f}×" for _, fm in floors)
            n = elements(group, name) if group in RATES else None
            if n:
                ratios += f"{n / (med / 1e9) / 1e6:>16.3f} M/s ({n} per iteration)"
            print(
                f"{name:<48}{fmt_ns(med / div):>12}  "
                f"{fmt_ns(lo / div) + ' – ' + fmt_ns(hi / div):<24}{ratios}"
            )


if __name__ == "__main__":
    main()
