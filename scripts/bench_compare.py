#!/usr/bin/env python3
"""Two runs of scripts/bench_all.sh side by side: every criterion median, with its ratio to the
group's first floor in the same run (the figure PERFORMANCE.md's targets are judged by), and
the callgrind instruction counts.

Usage: python3 scripts/bench_compare.py BEFORE.txt AFTER.txt   (bench_all.sh's whole output)
"""

import re
import sys


def parse(path):
    groups, callgrind, group, floors = {}, {}, None, []
    in_cg = False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("== scripts/callgrind.sh"):
            in_cg = True
            continue
        if in_cg:
            m = re.match(r"(hp_\w+)\s+([\d.]+)$", line.strip())
            if m:
                callgrind[m.group(1)] = float(m.group(2))
            continue
        if line.startswith("## "):
            group, floors = line[3:].strip(), []
            groups[group] = {}
            continue
        if group and line.startswith("benchmark"):
            floors = re.findall(r"/ (\S+)", line)
            continue
        m = re.match(r"(\S+)\s+([\d.]+) (ps|ns|µs|us|ms|s)\s+\S+ \S+ – \S+ \S+\s*(.*)$", line)
        if group and m:
            ratios = re.findall(r"([\d.,]+)×", m.group(4))
            groups[group][m.group(1)] = (
                float(m.group(2)),
                m.group(3),
                ratios[0].replace(",", "") if ratios else "",
                floors[0] if floors else "",
            )
    return groups, callgrind


def main():
    (b, bcg), (a, acg) = parse(sys.argv[1]), parse(sys.argv[2])
    print("| group | benchmark | before | after | before / floor | after / floor |")
    print("|---|---|---:|---:|---:|---:|")
    for group in sorted(set(b) | set(a)):
        for name in sorted(set(b.get(group, {})) | set(a.get(group, {}))):
            x, y = b.get(group, {}).get(name), a.get(group, {}).get(name)
            fmt = lambda v: f"{v[0]:.3g} {v[1]}" if v else "—"
            rat = lambda v: f"{v[2]}× {v[3]}" if v and v[2] else "—"
            print(f"| {group} | {name} | {fmt(x)} | {fmt(y)} | {rat(x)} | {rat(y)} |")
    print()
    print("| callgrind path | before | after | change |")
    print("|---|---:|---:|---:|")
    for k in sorted(set(bcg) | set(acg), key=lambda k: -bcg.get(k, acg.get(k, 0))):
        x, y = bcg.get(k), acg.get(k)
        ch = f"{(y - x) / x * 100:+.1f} %" if x and y else "—"
        print(f"| {k} | {x if x is not None else '—'} | {y if y is not None else '—'} | {ch} |")


if __name__ == "__main__":
    main()
