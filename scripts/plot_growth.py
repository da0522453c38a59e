#!/usr/bin/env python3
"""Tables and an SVG plot of how cost grows, from the last `cargo bench --bench growth` run.

Reads criterion's medians (`target/criterion/<group>/<parameter>/new/estimates.json`) of the
groups `benches/growth.rs` measures, prints one Markdown table per panel (for
docs/PERFORMANCE.md), and writes `docs/growth.svg`: four panels, each a line per series, the
x axis logarithmic where the parameter spans decades. No third-party package: the SVG is
written by hand, so the script runs anywhere Python does.

Usage: scripts/plot_growth.py [--svg docs/growth.svg]
"""

import json
import math
import os
import sys

ROOT = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")


def median_ns(group, param):
    path = os.path.join(ROOT, group, str(param), "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]
    except (OSError, KeyError, ValueError):
        return None


def series(group):
    base = os.path.join(ROOT, group)
    if not os.path.isdir(base):
        return []
    out = []
    for name in os.listdir(base):
        try:
            x = int(name)
        except ValueError:
            continue
        y = median_ns(group, name)
        if y is not None:
            out.append((x, y))
    return sorted(out)


# (title, x label, y label, log x, [(legend, group, transform(x, ns) -> y)])
PANELS = [
    (
        "Write cost against payload size",
        "payload bytes",
        "ns per write",
        True,
        [("one session", "growth_payload", lambda x, ns: ns)],
    ),
    (
        "Write cost against sessions",
        "sessions enabling the provider",
        "ns per write",
        False,
        [("16-byte write", "growth_sessions", lambda x, ns: ns)],
    ),
    (
        "Write cost against filters per session",
        "filter descriptors / ids in one EVENT_ID list",
        "ns per write",
        False,
        [
            ("filter descriptors (0-4)", "growth_filters", lambda x, ns: ns),
            ("ids in the list (1-64)", "growth_ids", lambda x, ns: ns),
        ],
    ),
    (
        "Control cost against registrations (P13)",
        "registrations of one GUID",
        "µs per call",
        True,
        [
            ("EnableTraceEx2", "control_enable", lambda x, ns: ns / 1000),
            ("EventRegister + Unregister", "control_register", lambda x, ns: ns / 1000),
            ("ControlTrace(UPDATE)", "control_update", lambda x, ns: ns / 1000),
        ],
    ),
]

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def fmt(v):
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def tables():
    lines = []
    for title, xlabel, ylabel, _logx, lines_ in PANELS:
        lines.append(f"**{title}**\n")
        data = [(legend, series(group), f) for legend, group, f in lines_]
        xs = sorted({x for _, s, _ in data for x, _ in s})
        if not xs:
            lines.append("(not measured)\n")
            continue
        head = f"| {xlabel} | " + " | ".join(f"{legend} ({ylabel})" for legend, _, _ in data) + " |"
        lines.append(head)
        lines.append("|" + "---|" * (len(data) + 1))
        for x in xs:
            row = [f"{x:,}"]
            for _legend, s, f in data:
                y = dict(s).get(x)
                row.append(fmt(f(x, y)) if y is not None else "—")
            lines.append("| " + " | ".join(row) + " |")
        if title.startswith("Control"):
            lines.append("")
            lines.append("µs per registration (P13: linear or better means this stays flat or falls):")
            lines.append("")
            lines.append("| registrations | EnableTraceEx2 | ControlTrace(UPDATE) |")
            lines.append("|---|---|---|")
            en = dict(series("control_enable"))
            up = dict(series("control_update"))
            for x in xs:
                e = en.get(x)
                u = up.get(x)
                lines.append(
                    f"| {x:,} | {fmt(e / 1000 / x) if e else '—'} | {fmt(u / 1000 / x) if u else '—'} |"
                )
            g = median_ns("control_enable_guids", 10000)
            if g is not None:
                lines.append("")
                lines.append(f"EnableTraceEx2 of one GUID among 10,000 registered GUIDs: {fmt(g / 1000)} µs.")
        lines.append("")
    return "\n".join(lines)


def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def panel_svg(ox, oy, w, h, title, xlabel, ylabel, logx, lines_):
    out = []
    pad_l, pad_r, pad_t, pad_b = 64, 16, 28, 44
    pw, ph = w - pad_l - pad_r, h - pad_t - pad_b
    data = [(legend, [(x, f(x, ns)) for x, ns in series(group)]) for legend, group, f in lines_]
    pts = [p for _, s in data for p in s]
    out.append(f'<g transform="translate({ox},{oy})">')
    out.append(f'<text x="{w / 2}" y="16" text-anchor="middle" font-weight="bold">{esc(title)}</text>')
    if not pts:
        out.append(f'<text x="{w / 2}" y="{h / 2}" text-anchor="middle">not measured</text></g>')
        return "\n".join(out)
    xv = [max(x, 1) if logx else x for x, _ in pts]
    x0, x1 = min(xv), max(xv)
    if logx:
        x0, x1 = math.log10(x0), math.log10(x1)
    if x1 == x0:
        x1 = x0 + 1
    y1 = max(y for _, y in pts) * 1.1
    y0 = 0.0

    def sx(x):
        v = math.log10(max(x, 1)) if logx else x
        return pad_l + (v - x0) / (x1 - x0) * pw

    def sy(y):
        return pad_t + ph - (y - y0) / (y1 - y0) * ph

    out.append(
        f'<rect x="{pad_l}" y="{pad_t}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>'
    )
    for i in range(5):
        yv = y0 + (y1 - y0) * i / 4
        y = sy(yv)
        out.append(f'<line x1="{pad_l}" y1="{y:.1f}" x2="{pad_l + pw}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{pad_l - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="10">{fmt(yv)}</text>')
    for x in sorted({x for x, _ in pts}):
        px = sx(x)
        out.append(f'<line x1="{px:.1f}" y1="{pad_t + ph}" x2="{px:.1f}" y2="{pad_t + ph + 4}" stroke="#999"/>')
        out.append(f'<text x="{px:.1f}" y="{pad_t + ph + 15}" text-anchor="middle" font-size="10">{x:,}</text>')
    out.append(f'<text x="{pad_l + pw / 2}" y="{h - 8}" text-anchor="middle" font-size="11">{esc(xlabel)}{" (log)" if logx else ""}</text>')
    out.append(
        f'<text transform="translate(14,{pad_t + ph / 2}) rotate(-90)" text-anchor="middle" font-size="11">{esc(ylabel)}</text>'
    )
    for i, (legend, s) in enumerate(data):
        c = COLOURS[i % len(COLOURS)]
        if s:
            path = " ".join(f"{'M' if j == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for j, (x, y) in enumerate(s))
            out.append(f'<path d="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
            for x, y in s:
                out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" fill="{c}"><title>{esc(legend)}: {x:,} → {fmt(y)} {esc(ylabel)}</title></circle>')
        out.append(f'<rect x="{pad_l + 8}" y="{pad_t + 8 + 14 * i}" width="10" height="10" fill="{c}"/>')
        out.append(f'<text x="{pad_l + 22}" y="{pad_t + 17 + 14 * i}" font-size="11">{esc(legend)}</text>')
    out.append("</g>")
    return "\n".join(out)


def svg():
    w, h = 460, 300
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w}" height="{2 * h}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{2 * w}" height="{2 * h}" fill="white"/>',
    ]
    for i, p in enumerate(PANELS):
        parts.append(panel_svg((i % 2) * w, (i // 2) * h, w, h, *p))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    out = "docs/growth.svg"
    args = sys.argv[1:]
    if args[:1] == ["--svg"] and len(args) > 1:
        out = args[1]
    print(tables())
    with open(out, "w") as f:
        f.write(svg())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
