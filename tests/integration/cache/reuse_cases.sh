#!/bin/sh
# Reuse where nothing is carried (reuse_cases.c): each mode runs without and with the cache,
# prints the same line, and under the cache (TM_CACHE_STATS=FILE) serves the share of creates
# from parked threads the mode's rule says. usage: reuse_cases.sh LIB PROGRAM
lib=$1 prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then echo "skipped: sanitizer build"; exit 77; fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
token() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$dir/stats"; }
check() { # check MODE MIN_PERCENT_FROM_CACHE [CAUSE MIN_RETIRED]
  mode=$1 want=$2
  want_out=$(timeout 60 "$prog" "$mode") || { echo "FAIL $mode without the cache"; status=1; return; }
  rm -f "$dir/stats"
  got_out=$(TM_CACHE_STATS="$dir/stats" LD_PRELOAD="$lib" timeout 60 "$prog" "$mode") || {
    echo "FAIL $mode with the cache: $got_out"; status=1; return; }
  [ "$got_out" = "$want_out" ] || { echo "FAIL $mode: '$got_out' vs '$want_out'"; status=1; }
  [ "$(wc -l <"$dir/stats")" -eq 1 ] || { echo "FAIL $mode: not one stats line"; cat "$dir/stats"; status=1; return; }
  cache=$(token from-cache) system=$(token from-system) bypassed=$(token bypassed)
  total=$((cache + system + bypassed))
  line="$mode: $cache of $total creates from the cache"
  if [ $((cache * 100)) -ge $((total * want)) ]; then echo "ok $line (want >= $want%)"; else
    echo "FAIL $line (want >= $want%)"; cat "$dir/stats"; status=1; fi
  if [ -n "${3:-}" ]; then
    n=$(sed -n "s/.* retired\.$3=\([0-9]*\).*/\1/p" "$dir/stats")
    if [ "${n:-0}" -ge "$4" ]; then echo "ok $mode: retired.$3=${n}"; else
      echo "FAIL $mode: retired.$3=${n:-0} (want >= $4)"; cat "$dir/stats"; status=1; fi
  fi
}
check sigchld-shared 95
check fork-reaped 90
check fork-alive 0 fork 19
check mempolicy 90
check altstack 90
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
