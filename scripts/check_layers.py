#!/usr/bin/env python3
"""The kernel's layers hold: no import circle among its modules, no arrow against the order.

Reads every `crates/kernel/src/**/*.rs`, collects the module paths each file names
(`use crate::…` trees, `crate::…` paths in code — a name the crate root re-exports counts
as the module that defines it —, `super::…`, and a folder module's own children), leaves out comments and `#[cfg(test)]` modules (a test may reach anything), and
checks the graph against LAYERS below: a module may name modules of its own layer or of a
lower one, and the whole graph has no circle. docs/ARCHITECTURE.md draws the same order.

Usage: python3 scripts/check_layers.py [--graph]   (exit 1 and each offending arrow when the
layers do not hold; --graph prints every arrow with the names it uses)
"""

import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "kernel", "src")

# Lowest first. A module belongs to the layer of the longest prefix listed here.
LAYERS = [
    ("machine", ["error", "machine"]),
    ("filter", ["filter"]),
    ("journal", ["journal"]),
    ("data", ["data"]),
    ("control", ["control"]),
    ("system", ["system"]),
    ("api", ["api"]),
    ("boot", ["boot", "lib"]),
]


def modules():
    found = {}
    for folder, _, names in os.walk(ROOT):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, "::")
            if rel.endswith("::mod"):
                rel = rel[: -len("::mod")]
            found[rel] = path
    return found


def strip_tests_and_comments(text):
    """The text without comments, string literals' `crate::` mentions and test modules."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"\s*#\[cfg\((all\()?test\b", line):
            # The item after the attribute: skip it to its closing brace (or `;`).
            j = i + 1
            while j < len(lines) and lines[j].strip().startswith("#["):
                j += 1
            depth = 0
            opened = False
            while j < len(lines):
                code = lines[j].split("//")[0]
                depth += code.count("{") - code.count("}")
                opened = opened or "{" in code
                if (opened and depth <= 0) or (not opened and code.rstrip().endswith(";")):
                    break
                j += 1
            i = j + 1
            continue
        stripped = line.strip()
        if stripped.startswith("//"):
            i += 1
            continue
        code = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        # `pub(in crate::layer)` names where an item may be used, not a module it uses.
        code = re.sub(r"pub\(in crate(::\w+)*\)", "pub", code)
        out.append(code.split("//")[0])
        i += 1
    return "\n".join(out)


def expand(prefix, tree):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    tree = tree.strip()
    brace = tree.find("{")
    if brace >= 0 and tree.endswith("}"):
        base = tree[:brace].rstrip(":").strip()
        inner = tree[brace + 1 : -1]
        parts, depth, current = [], 0, ""
        for ch in inner:
            depth += ch == "{"
            depth -= ch == "}"
            if ch == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += ch
        parts.append(current)
        result = []
        for part in parts:
            if part.strip():
                result += expand(prefix + ([base] if base else []), part)
        return result
    name = tree.split(" as ")[0].strip()
    return ["::".join(prefix + [name])]


def reexports(found):
    """The crate root's `pub use` names: `Kernel` -> `api::kernel::Kernel`, so that
    `crate::Kernel` counts as an arrow to the module that defines it."""
    with open(found["lib"], encoding="utf-8") as f:
        text = strip_tests_and_comments(f.read())
    names = {}
    for m in re.finditer(r"\bpub\s+use\s+(?:crate::)?(.*?);", text, re.S):
        for p in expand([], m.group(1)):
            segments = p.split("::")
            if segments[0] in {c.split("::")[0] for c in found}:
                names[segments[-1]] = p
    return names


def graph(found):
    arrows = collections.defaultdict(lambda: collections.defaultdict(set))
    root_names = reexports(found)

    def resolve(path):
        segments = [s for s in path.split("::") if s]
        if segments and segments[0] in root_names:
            segments = root_names[segments[0]].split("::") + segments[1:]
        for k in range(len(segments), 0, -1):
            candidate = "::".join(segments[:k])
            if candidate in found:
                return candidate, (segments[k] if k < len(segments) else segments[-1])
        return None, None

    for module, path in found.items():
        with open(path, encoding="utf-8") as f:
            text = strip_tests_and_comments(f.read())
        parent = module.rsplit("::", 1)[0] if "::" in module else ""
        paths = []
        for m in re.finditer(r"\buse\s+(crate|super|self)::(.*?);", text, re.S):
            base = {"crate": "", "super": parent, "self": module}[m.group(1)]
            paths += [("::".join(filter(None, [base, p]))) for p in expand([], m.group(2))]
        text = re.sub(r"\buse\s+(crate|super|self)::.*?;", "", text, flags=re.S)
        for m in re.finditer(r"\b(crate|super)::((?:\w+::)*\w+)", text):
            base = {"crate": "", "super": parent}[m.group(1)]
            paths.append("::".join(filter(None, [base, m.group(2)])))
        # A folder module names its children with plain paths (`os::OsState`, `pub use os::…`).
        children = {c.rsplit("::", 1)[1] for c in found if c.startswith(module + "::") and c.count("::") == module.count("::") + 1} if module != "lib" else {c for c in found if "::" not in c and c != "lib"}
        for child in children:
            if re.search(r"(?<![\w:])" + child + r"::\w", text):
                paths.append((module + "::" + child) if module != "lib" else child)
        for p in paths:
            target, name = resolve(p)
            if target and target != module:
                arrows[module][target].add(name)
    return arrows


def layer_of(module):
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + "::")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def circles(arrows, nodes):
    """Tarjan's strongly connected components with more than one module."""
    index, low, stack, on, result, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in arrows.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return result


def main():
    found = modules()
    arrows = graph(found)
    if "--graph" in sys.argv:
        for source in sorted(arrows):
            for target in sorted(arrows[source]):
                print(f"{source} -> {target}: {' '.join(sorted(arrows[source][target]))}")
    bad = 0
    for module in sorted(found):
        if layer_of(module) is None:
            print(f"{module}: in no layer (add it to LAYERS in scripts/check_layers.py)")
            bad += 1
    for source in sorted(arrows):
        for target in sorted(arrows[source]):
            ls, lt = layer_of(source), layer_of(target)
            if ls is not None and lt is not None and lt > ls:
                names = " ".join(sorted(arrows[source][target]))
                print(f"upward: {source} ({LAYERS[ls][0]}) -> {target} ({LAYERS[lt][0]}): {names}")
                bad += 1
    for component in circles(arrows, found):
        print(f"circle of {len(component)}: {' '.join(component)}")
        bad += 1
    if bad:
        print(f"check_layers: {bad} problem(s)")
        return 1
    print(f"check_layers: {len(found)} modules, {sum(len(t) for t in arrows.values())} arrows, "
          f"layers {' < '.join(name for name, _ in LAYERS)}: no upward arrow, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
