#!/usr/bin/env bash
# What the first pthread_create of a process costs under each preload library (run by hand, not
# a test), side by side with glibc alone: PROGRAM is tests/integration/cache/first_create.c's
# binary (two getppid markers around its one create).
#   - instructions inside that pthread_create (valgrind --tool=callgrind, collection toggled on
#     pthread_create only: deterministic, load-proof);
#   - system calls the creating thread makes between the markers (strace, that thread only).
# Prints one Markdown table.
#
#   bench/runtimes/first_create_cost.sh PROGRAM LIB...
set -u
[ $# -ge 2 ] || { echo "usage: first_create_cost.sh PROGRAM LIB..." >&2; exit 2; }
program=$1; shift
for tool in valgrind strace; do
  command -v $tool >/dev/null || { echo "first_create_cost.sh: $tool is not installed" >&2; exit 2; }
done
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
valgrind_lib=$(dirname "$(find /usr/libexec/valgrind /usr/lib/x86_64-linux-gnu/valgrind \
  -name 'callgrind-*-linux' 2>/dev/null | head -1)")
echo "| variant | instructions in the first pthread_create (callgrind) | system calls of the first pthread_create |"
echo "|---|---:|---:|"
for v in plain "$@"; do
  pre=()
  [ "$v" != plain ] && pre=(env LD_PRELOAD="$v")
  # The tool binary itself, so that the launcher does not load the library (startup_cost.sh).
  VALGRIND_LAUNCHER="$(command -v valgrind)" VALGRIND_LIB=$valgrind_lib "${pre[@]}" \
    "$valgrind_lib"/callgrind-amd64-linux \
    --toggle-collect='pthread_create*' --callgrind-out-file="$dir/cg" "$program" \
    >/dev/null 2>"$dir/cg.err"
  ir=$(sed -n 's/.*Collected : *//p' "$dir/cg.err")
  "${pre[@]}" strace -qq -o "$dir/trace" "$program" >/dev/null 2>&1
  calls=$(sed -n '/^getppid/,/^getppid/p' "$dir/trace" | sed '1d;$d' | wc -l)
  echo "| $v | ${ir:-?} | $calls |"
done
