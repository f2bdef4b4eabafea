#!/usr/bin/env bash
# Counts (not times) what one create+join costs: glibc, the thread cache and the floor (two
# threads handing a futex word back and forth: what a perfect cache could not go below).
# Counts per cycle, each the difference between a run of 2N cycles and one of N (start-up and
# exit cancel out), divided by N:
#   instructions   callgrind, all threads (user space only; valgrind runs one thread at a time)
#   system calls   perf stat on every syscalls:sys_enter_* tracepoint, by name
#   switches       perf stat context-switches (voluntary and involuntary, every thread)
# The cache runs with spinning off (TM_CACHE_SPIN_NS=0: every hand-off takes the futex path, so
# the counts do not depend on whether a CPU was free to spin) and TM_CACHE_VERIFY_MS an hour
# (the periodic re-reads cost per interval, not per cycle; under callgrind, which slows the
# program 50x, they would count as if every few cycles paid them). EXTRA_ENV adds variables to
# the cache's run (e.g. TM_CACHE_SPIN_NS=-1 for the adaptive spin).
# usage: count_handoff.sh BIN LIB [N] [LIB2 ...]   (BIN holds threadmap-handoff-loop)
set -euo pipefail
bin=$1
shift
libs=()
n=2000
for a in "$@"; do
  if [[ $a =~ ^[0-9]+$ ]]; then n=$a; else libs+=("$a"); fi
done
loop="$bin/threadmap-handoff-loop"
[ -x "$loop" ] || { echo "count_handoff: $loop not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run KIND CYCLES CMD...: the program under KIND's environment
  local kind=$1 cycles=$2
  shift 2
  case $kind in
    glibc) "$@" "$loop" "$cycles" ;;
    floor) "$@" "$loop" "$cycles" floor ;;
    *) env TM_CACHE_SPIN_NS=0 TM_CACHE_VERIFY_MS=3600000 ${EXTRA_ENV:-} LD_PRELOAD="$kind" \
         "$@" "$loop" "$cycles" ;;
  esac
}

instructions() { # instructions KIND CYCLES
  run "$1" "$2" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" -q >/dev/null 2>&1
  local total=0 f
  for f in "$tmp"/cg.*; do
    total=$((total + $(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f")))
  done
  rm -f "$tmp"/cg.*
  echo "$total"
}

counts() { # counts KIND CYCLES: "name count" lines (system calls by name, and "switches")
  run "$1" "$2" perf stat -x, -e 'syscalls:sys_enter_*' -e context-switches -o "$tmp/perf" \
    >/dev/null 2>&1
  awk -F, '$1 ~ /^[0-9]+$/ && $1 > 0 {
             name = $3; sub(/^syscalls:sys_enter_/, "", name);
             if (name == "context-switches") name = "switches"; print name, $1 }' "$tmp/perf"
}

echo "# per create+join cycle (N=$n and 2N, difference / N); $(uname -r), $(nproc) CPUs"
printf '%-12s %14s %10s %10s  %s\n' kind instructions syscalls switches "system calls by name"
for kind in glibc "${libs[@]}" floor; do
  i1=$(instructions "$kind" "$n") i2=$(instructions "$kind" $((2 * n)))
  counts "$kind" "$n" | sort >"$tmp/c1"
  counts "$kind" $((2 * n)) | sort >"$tmp/c2"
  join -a 1 -a 2 -e 0 -o 0,1.2,2.2 "$tmp/c1" "$tmp/c2" >"$tmp/both"
  by_name=$(awk -v n="$n" '$1 != "switches" {d = ($3 - $2) / n; if (d >= 0.005) printf "%s=%.2f ", $1, d}' "$tmp/both")
  total=$(awk -v n="$n" '$1 != "switches" {s += $3 - $2} END {printf "%.2f", s / n}' "$tmp/both")
  sw=$(awk -v n="$n" '$1 == "switches" {printf "%.2f", ($3 - $2) / n}' "$tmp/both")
  label=$kind
  [ "$kind" = glibc ] || [ "$kind" = floor ] || label=$(basename "$kind" .so)
  printf '%-12s %14d %10s %10s  %s\n' "$label" $(((i2 - i1) / n)) "$total" "$sw" "$by_name"
done
