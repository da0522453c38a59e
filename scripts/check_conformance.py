#!/usr/bin/env python3
"""Checks docs/conformance.md against the behaviour reference and the tests.

For every rule group etwsim implements so far:
  * every rule of the reference has exactly one row in docs/conformance.md;
  * a row whose status says "tested" names a rule that some test cites (`// rule: XXX-NN`);
  * every rule a test cites exists in the reference;
  * at least 90% of the *documented* rules (status not "uncertain") are cited by a test.

Usage: scripts/check_conformance.py [RULES.md]   (default: ../shared/spec/etw-rules.md)
"""
import os
import re
import sys

GROUPS = ["SES", "PRV", "FLT", "EVT", "BUF", "CON", "GID", "DEC", "KRN", "ALG", "REG", "SEC"]  # the rule groups implemented so far
MIN_DOCUMENTED_COVERAGE = 0.90

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
rules_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "..", "shared", "spec", "etw-rules.md")
if not os.path.exists(rules_path):
    print(f"check_conformance: no behaviour reference at {rules_path}; skipped")
    sys.exit(0)

spec = open(rules_path, encoding="utf-8").read()
status = {}
for m in re.finditer(r"^\*\*([A-Z]{3}-\d{2,3})\*\*\s*·\s*([^\n—]*)", spec, re.M):
    status[m.group(1)] = m.group(2).strip()

cited = {}
for base in ("tests", "crates", "src", "benches", "examples"):
    for dirpath, dirs, files in os.walk(os.path.join(root, base)):
        dirs[:] = [d for d in dirs if d != "target"]
        for f in files:
            if f.endswith(".rs"):
                path = os.path.join(dirpath, f)
                text = open(path, encoding="utf-8", errors="replace").read()
                for rule in re.findall(r"rule:\s*([A-Z]{3}-\d{2,3})", text):
                    cited.setdefault(rule, set()).add(os.path.relpath(path, root))

doc = open(os.path.join(root, "docs", "conformance.md"), encoding="utf-8").read()
rows = {}
for m in re.finditer(r"^\|\s*([A-Z]{3}-\d{2,3})\s*\|\s*([^|]*)\|", doc, re.M):
    rows.setdefault(m.group(1), []).append(m.group(2).strip().lower())

errors = []
for rule in cited:
    if rule not in status:
        errors.append(f"{rule} is cited by {sorted(cited[rule])} but is not in the reference")
total_doc = total_cited = 0
for group in GROUPS:
    ids = [r for r in status if r.startswith(group + "-")]
    for r in ids:
        if r not in rows:
            errors.append(f"{r} has no row in docs/conformance.md")
        elif len(rows[r]) > 1:
            errors.append(f"{r} has {len(rows[r])} rows in docs/conformance.md")
        elif "tested" in rows[r][0] and "untested" not in rows[r][0] and r not in cited:
            errors.append(f"{r} is marked tested but no test cites it")
    documented = [r for r in ids if not status[r].lower().startswith("uncertain")]
    covered = [r for r in documented if r in cited]
    total_doc += len(documented)
    total_cited += len(covered)
    print(f"{group}: {len(ids)} rules, {len(documented)} documented, "
          f"{len(covered)} of those cited by tests ({100 * len(covered) / max(1, len(documented)):.0f}%)")
coverage = total_cited / max(1, total_doc)
print(f"all implemented groups: {total_cited}/{total_doc} documented rules cited ({100 * coverage:.1f}%)")
if coverage < MIN_DOCUMENTED_COVERAGE:
    errors.append(f"only {100 * coverage:.1f}% of documented rules are cited by tests (need 90%)")
for e in errors:
    print("error:", e)
sys.exit(1 if errors else 0)
