#!/usr/bin/env bash
# Counts (not times) what one create+join costs: glibc, the thread cache (spinning off:
# TM_CACHE_SPIN_NS=0, so every hand-off takes the futex path and the counts do not depend on
# timing; TM_CACHE_VERIFY_MS an hour: the periodic re-reads cost per interval, not per cycle,
# and under strace or callgrind, which slow the program 10-100x, they would count as if every
# tenth cycle paid them) and the floor (two threads handing a futex word back and forth: what a perfect cache
# could not go below). Counts per cycle:
#   instructions   callgrind, all threads, (Ir at 2N cycles - Ir at N) / N: start-up cancels out
#   system calls   strace -f -c, by name, (calls at 2N - calls at N) / N
#   switches       voluntary + involuntary context switches, getrusage over every thread
# usage: count_handoff.sh BIN LIB [N]   (BIN holds threadmap-handoff-loop; LIB the cache .so)
set -euo pipefail
bin=$1 lib=$2 n=${3:-2000}
loop="$bin/threadmap-handoff-loop"
[ -x "$loop" ] || { echo "count_handoff: $loop not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run KIND CYCLES CMD...: the program under KIND's environment
  local kind=$1 cycles=$2
  shift 2
  case $kind in
    glibc) "$@" "$loop" "$cycles" ;;
    cache) env TM_CACHE_SPIN_NS=0 TM_CACHE_VERIFY_MS=3600000 LD_PRELOAD="$lib" "$@" "$loop" "$cycles" ;;
    floor) "$@" "$loop" "$cycles" floor ;;
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

syscalls() { # syscalls KIND CYCLES: "name calls" lines
  run "$1" "$2" strace -f -qq -c -o "$tmp/st" >/dev/null
  # "% time seconds usecs/call calls [errors] syscall": calls is the 4th column
  awk '(NF == 5 || NF == 6) && $4 ~ /^[0-9]+$/ && $NF != "total" {print $NF, $4}' "$tmp/st"
}

echo "# per create+join cycle (N=$n and 2N, difference / N); $(uname -r), $(nproc) CPUs"
printf '%-6s %14s %10s %10s  %s\n' kind instructions syscalls switches "system calls by name"
for kind in glibc cache floor; do
  i1=$(instructions $kind "$n") i2=$(instructions $kind $((2 * n)))
  syscalls $kind "$n" >"$tmp/s1"
  syscalls $kind $((2 * n)) >"$tmp/s2"
  by_name=$(join -a 2 -e 0 -o 0,1.2,2.2 <(sort "$tmp/s1") <(sort "$tmp/s2") |
    awk -v n="$n" '{d = ($3 - $2) / n; if (d >= 0.005) printf "%s=%.2f ", $1, d}')
  total=$(join -a 2 -e 0 -o 0,1.2,2.2 <(sort "$tmp/s1") <(sort "$tmp/s2") |
    awk -v n="$n" '{s += $3 - $2} END {printf "%.2f", s / n}')
  c1=$(run $kind "$n" | sed -n 's/.*ctxt=\([0-9]*\)+\([0-9]*\).*/\1 \2/p')
  c2=$(run $kind $((2 * n)) | sed -n 's/.*ctxt=\([0-9]*\)+\([0-9]*\).*/\1 \2/p')
  sw=$(echo "$c1 $c2" | awk -v n="$n" '{printf "%.2f", (($3 + $4) - ($1 + $2)) / n}')
  printf '%-6s %14d %10s %10s  %s\n' $kind $(((i2 - i1) / n)) "$total" "$sw" "$by_name"
done
