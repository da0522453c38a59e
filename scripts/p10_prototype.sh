#!/usr/bin/env bash
# P10: what a single-threaded engine for deterministic kernels could reach, measured.
#
# Applies `scripts/p10_prototype/lane.patch` to a copy of the current commit (a `git worktree`
# in a temporary folder; this checkout is not touched) and times `deterministic`'s floor and
# `step_every_64` with it; then applies `inline.patch` on top (the same fast path inlined into
# every `write` call site instead of behind the engine's one out-of-line call) and times them
# again. Then it times the unpatched copy, so all three come from one run.
#
# The patch is an EXPERIMENT and UNSOUND with two writer threads (see the comment at its
# `Lane`); it is never built by CI. With it applied, every test of the workspace passes:
# `scripts/p10_prototype.sh --test` runs them instead of timing. docs/PERFORMANCE.md, P10,
# reports one run. The patches apply to the commit that added them; after changes to the
# files they touch they may need refreshing (`git apply` says so).
#
# Usage: scripts/p10_prototype.sh [--test]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
MODE="${1:-bench}"
TMP="$(mktemp -d)"
WT="$TMP/etwsim"
cleanup() {
    git -C "$ROOT" worktree remove --force "$WT" >/dev/null 2>&1 || true
    rm -rf "$TMP"
}
trap cleanup EXIT
git worktree add --detach "$WT" HEAD >/dev/null
# The benches and tests read ../shared beside the checkout, as in CI.
ln -s "$ROOT/../shared" "$TMP/shared"
export CARGO_TARGET_DIR="$ROOT/target/p10-prototype"
bench() {
    (cd "$WT" && cargo bench --bench deterministic -- --warm-up-time 1 --measurement-time 5 \
        --sample-size 30 'floor_bump_copy|step_every_64' 2>/dev/null) |
        python3 -c '
import re, sys
what, name, floor = sys.argv[1], None, None
for line in sys.stdin:
    m = re.match(r"(deterministic/\S+)", line)
    if m:
        name = m.group(1)
    m = re.search(r"time:\s+\[[\d.]+ \S+ ([\d.]+) ns [\d.]+ \S+\]", line)
    if m and name:
        ns = float(m.group(1))
        if name.endswith("floor_bump_copy"):
            floor = ns
            print(f"{what}: {name} {ns:.3f} ns")
        else:
            ratio = f" = {ns / floor:.2f}x the floor" if floor else ""
            print(f"{what}: {name} {ns:.3f} ns{ratio}")
        name = None
' "$1"
}
git -C "$WT" apply "$ROOT/scripts/p10_prototype/lane.patch"
if [ "$MODE" = "--test" ]; then
    (cd "$WT" && cargo test --workspace --release 2>&1 | grep -E '^test result|FAILED|panicked')
    git -C "$WT" apply "$ROOT/scripts/p10_prototype/inline.patch"
    (cd "$WT" && cargo test --workspace --release 2>&1 | grep -E '^test result|FAILED|panicked')
    exit 0
fi
bench "lane, behind the engine's call"
git -C "$WT" apply "$ROOT/scripts/p10_prototype/inline.patch"
bench "lane, inlined at the call site"
git -C "$WT" checkout -- . >/dev/null
bench "the engine as committed"
