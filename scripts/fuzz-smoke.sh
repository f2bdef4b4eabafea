#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang) and runs each one briefly on its seed corpus:
# a smoke test that the parsers still survive random input, not a fuzzing campaign (run those by
# hand for minutes, see docs/DEVELOPING.md). Seconds per target: $1 (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
cc=$(command -v clang-14 || command -v clang || true)
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$cc" ] || [ -z "$cxx" ]; then
  echo "fuzz-smoke: clang not installed (scripts/setup.sh installs it)" >&2
  exit 1
fi
cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build build-fuzz
for target in fuzz_cpu_list fuzz_pin_config fuzz_spec fuzz_latency_matrix fuzz_cache_options \
  fuzz_cache_stats; do
  corpus=tests/fuzz/corpus/${target#fuzz_}
  work=$(mktemp -d)
  cp -r "$corpus"/. "$work"/ 2>/dev/null || true
  # New inputs go to a scratch copy: the checked-in corpus stays as it is.
  build-fuzz/$target -max_total_time="$seconds" -print_final_stats=0 "$work" 2>&1 | tail -n 2
  rm -rf "$work"
done
echo "fuzz-smoke: no crash in ${seconds} s per target"
