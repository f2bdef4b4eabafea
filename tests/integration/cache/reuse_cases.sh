#!/bin/sh
# Reuse where nothing is carried (reuse_cases.c): each mode runs without and with the cache,
# prints the same line, and under the cache (TM_CACHE_STATS=FILE) serves the share of creates
# from parked threads the mode's rule says. usage: reuse_cases.sh LIB PROGRAM
lib=$1 prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then echo "skipped: sanitizer build"; exit 77; fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
# The program's own line: forked children write theirs too (one line per process); the
# program is the one process whose parent wrote no line.
own_line() {
  awk '{for (i = 1; i <= NF; ++i) { split($i, kv, "="); f[NR, kv[1]] = kv[2] } pid[NR] = f[NR, "pid"]; ppid[NR] = f[NR, "ppid"]; line[NR] = $0}
       END {for (n = 1; n <= NR; ++n) { top = 1; for (m = 1; m <= NR; ++m) if (pid[m] == ppid[n]) top = 0; if (top) print line[n] }}' "$dir/stats" >"$dir/own"
}
token() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$dir/own"; }
check() { # check MODE MIN_PERCENT_FROM_CACHE [CAUSE MIN_RETIRED]
  mode=$1 want=$2
  want_out=$(timeout 60 "$prog" "$mode") || { echo "FAIL $mode without the cache"; status=1; return; }
  rm -f "$dir/stats"
  got_out=$(timeout 60 env TM_CACHE_STATS="$dir/stats" LD_PRELOAD="$lib" "$prog" "$mode") || {
    echo "FAIL $mode with the cache: $got_out"; status=1; return; }
  [ "$got_out" = "$want_out" ] || { echo "FAIL $mode: '$got_out' vs '$want_out'"; status=1; }
  own_line
  [ "$(wc -l <"$dir/own")" -eq 1 ] || { echo "FAIL $mode: not one line of the program's own"; status=1; return; }
  cache=$(token from-cache) system=$(token from-system) bypassed=$(token bypassed)
  total=$((cache + system + bypassed))
  line="$mode: $cache of $total creates from the cache"
  if [ $((cache * 100)) -ge $((total * want)) ]; then echo "ok $line (want >= $want%)"; else
    echo "FAIL $line (want >= $want%)"; cat "$dir/own"; status=1; fi
  if [ -n "${3:-}" ]; then
    n=$(sed -n "s/.* retired\.$3=\([0-9]*\).*/\1/p" "$dir/own")
    if [ "${n:-0}" -ge "$4" ]; then echo "ok $mode: retired.$3=${n}"; else
      echo "FAIL $mode: retired.$3=${n:-0} (want >= $4)"; cat "$dir/own"; status=1; fi
  fi
}
check sigchld-shared 95
check fork-reaped 90
check fork-alive 0 fork 19
check popen-closed 80
check popen-open 0 fork 19
check mempolicy 90
check altstack 90
check syscall-reads 90
check syscall-beside 90
if command -v strace >/dev/null 2>&1; then
  # 200 threads, each sigaltstack on + off: 400 calls; one more per thread would be ours.
  LD_PRELOAD="$lib" timeout 60 strace -f -qq -e trace=sigaltstack -o "$dir/trace" "$prog" altstack >/dev/null
  calls=$(grep -c 'sigaltstack(' "$dir/trace")
  if [ "$calls" -le 410 ]; then echo "ok altstack: $calls sigaltstack calls for 200 threads' 400"; else
    echo "FAIL altstack: $calls sigaltstack calls for 200 threads' 400 (the cache adds its own)"; status=1; fi
else
  echo "ok altstack call count (skipped: no strace)"
fi
exit $status
