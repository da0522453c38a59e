#!/usr/bin/env bash
# Builds libetwsim_sys.so, compiles every C example in crates/sys/examples and the
# "compile every declaration" check (crates/sys/tests/c/all_declarations.c, as C with gcc and
# as C++ with g++), and runs them all; then the Python ctypes example.
#
# Usage: crates/sys/run_examples.sh [--valgrind] [--etl-check]
#   --valgrind   run each program, and each of the crate's Rust test binaries, under
#                valgrind memcheck (--error-exitcode=1 --leak-check=full); leaks count
#                as errors when "definitely lost": the
#                simulated machine lives in process-wide statics until exit, and valgrind
#                calls the hash tables and atomically swapped tables it holds "possibly
#                lost" (their only pointers point inside the allocation).
#   --etl-check  also read the .etl files the examples write (file_session, classic_provider,
#                tracelogging) with both third-party parsers (../shared/tools/etl-check; the
#                venv is made once in target/etl-check-venv); for tracelogging's, compare the
#                event and field names and values both parsers decode with what the program
#                wrote (crates/sys/tests/tracelogging_etl_check.py).
#
# Needs gcc and g++ (and valgrind with --valgrind); exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

valgrind=()
etl_check=0
for arg in "$@"; do
  case "$arg" in
    --valgrind)
      valgrind=(valgrind -q --error-exitcode=1 --leak-check=full
                --suppressions="$(pwd)/crates/sys/valgrind.supp"
                --errors-for-leak-kinds=definite --show-leak-kinds=definite)
      ;;
    --etl-check) etl_check=1 ;;
    *) echo "usage: $0 [--valgrind] [--etl-check]" >&2; exit 2 ;;
  esac
done

cargo build --release -q -p etwsim-sys
lib=$(pwd)/target/release
out=$(pwd)/target/sys-examples
rm -rf "$out"
mkdir -p "$out/run"
cflags=(-fshort-wchar -Wall -Wextra -Werror -I crates/sys/include)
libs=(-L "$lib" -letwsim_sys -lpthread)
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

run() {
  local name=$1
  shift
  echo "== $name"
  (cd "$out/run" && "${valgrind[@]}" "$@")
}

gcc -std=c11 "${cflags[@]}" crates/sys/tests/c/all_declarations.c "${libs[@]}" -o "$out/all_declarations_c"
g++ -x c++ "${cflags[@]}" crates/sys/tests/c/all_declarations.c "${libs[@]}" -o "$out/all_declarations_cxx"
run "every declaration (C)" "$out/all_declarations_c"
run "every declaration (C++)" "$out/all_declarations_cxx"

# A header that compiles without -fshort-wchar would let L"..." be UTF-32: it must refuse.
if echo '#include "etwsim.h"' | gcc -x c -I crates/sys/include -fsyntax-only - 2>/dev/null; then
  echo "etwsim.h compiled without -fshort-wchar" >&2
  exit 1
fi

count=0
for src in crates/sys/examples/*.c; do
  name=$(basename "$src" .c)
  gcc -std=c11 "${cflags[@]}" "$src" "${libs[@]}" -o "$out/$name"
  run "$name" "$out/$name"
  count=$((count + 1))
done
if [ "$count" -eq 0 ]; then
  echo "no C examples found" >&2
  exit 1
fi

# Windows programs built unchanged with the drivers (etwsim-cc / etwsim-c++: include/win,
# the UTF-16 runtime, wmain): the runtime's checks (C, and C++ through etwsim-c++) with
# their captured output, and the Windows-style session example (wmain through _tmain).
ln -sf etwsim-cxx "$lib/etwsim-c++"
wflags=(-Wall -Wextra -Werror -DUNICODE -D_UNICODE)
"$lib/etwsim-cc" -std=c11 "${wflags[@]}" crates/sys/tests/win/crt_check.c -o "$out/crt_check_c"
"$lib/etwsim-c++" -x c++ "${wflags[@]}" crates/sys/tests/win/crt_check.c -o "$out/crt_check_cxx"
for t in crt_check_c crt_check_cxx; do
  echo "== $t"
  (cd "$out/run" && "${valgrind[@]}" "$out/$t") >"$out/$t.out"
  diff -u crates/sys/tests/win/crt_check.expected "$out/$t.out"
done
# Under the C++ driver, libstdc++'s wide streams refuse to build, with the reason.
if printf '#include <iostream>\nint main() { std::wcout << L"x"; }\n' |
  "$lib/etwsim-c++" -x c++ - -o "$out/wcout" 2>/dev/null; then
  echo "std::wcout compiled under etwsim-c++" >&2
  exit 1
fi
for src in crates/sys/examples/win/*.c; do
  name=$(basename "$src" .c)
  "$lib/etwsim-cc" -std=c11 "${wflags[@]}" "$src" -o "$out/$name"
  run "$name" "$out/$name"
done

if command -v python3 >/dev/null; then
  # Python itself is not checked for leaks: only the C programs run under valgrind.
  echo "== ctypes_session.py"
  (cd "$out/run" && python3 "$OLDPWD/crates/sys/examples/ctypes_session.py" "$lib/libetwsim_sys.so")
fi

if [ ${#valgrind[@]} -ne 0 ]; then
  # The Rust tests call the exported functions through raw pointers as C would: under
  # memcheck too (STYLE: crates/sys runs its tests under valgrind).
  mapfile -t tests < <(cargo test -q -p etwsim-sys --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])')
  if [ ${#tests[@]} -eq 0 ]; then
    echo "no test binaries found" >&2
    exit 1
  fi
  for t in "${tests[@]}"; do
    echo "== $(basename "$t") under valgrind"
    "${valgrind[@]}" "$t" --test-threads=1 -q
  done
fi

if [ "$etl_check" -eq 1 ]; then
  shared=../shared/tools/etl-check
  bash "$shared/setup.sh" target/etl-check-venv >/dev/null
  py=target/etl-check-venv/bin/python
  # etl_check FILE EVENTS [extra etl_check.py arguments]
  etl_check() {
    local file=$1 events=$2 log
    shift 2
    echo "== etl-check of $file"
    log="$out/$(basename "$file" .etl).etl_check.log"
    "$py" "$shared/etl_check.py" "$out/run/$file" --quiet --expect "$events" "$@" >"$log" 2>&1 || {
      cat "$log"
      exit 1
    }
    tail -1 "$log"
  }
  etl_check etwsim_file_session.etl 500
  etl_check etwsim_classic.etl 120
  etl_check etwsim_tracelogging.etl 3 --json "$out/tracelogging.jsonl"
  "$py" crates/sys/tests/tracelogging_etl_check.py "$out/run/etwsim_tracelogging.etl" \
    "$out/tracelogging.jsonl"
fi
echo "run_examples: all ok${valgrind:+ (under valgrind)}"
