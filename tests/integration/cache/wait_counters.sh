#!/bin/sh
# TM_CACHE_STATS's wait counters say where a hand-off went (finding where one
# creator's time goes without hardware counters). With spinning off every wait is a
# "no-spin-fixed" one and nothing spins; with a spin forced on every wait, every wait spins
# (met or ran out) and none is declined. usage: wait_counters.sh LIB SPAWN_PROGRAM
lib=$1 prog=$2
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
count() { sed -n "s/.*[ ;]$1=\([0-9]*\).*/\1/p" "$err"; }
run() {
  TM_CACHE_STATS=1 TM_CACHE_SPIN_NS=$1 LD_PRELOAD="$lib" timeout 60 \
    "$prog" --creators 1 --seconds 0.1 --variant pthread --json >/dev/null 2>"$err" || {
    echo "FAIL: the spawn program failed under the cache (TM_CACHE_SPIN_NS=$1)"; cat "$err"; exit 1; }
  grep 'thread cache stats' "$err"
  met=$(count spin-met) out=$(count spin-ran-out) busy=$(count no-spin-busy)
  score=$(count no-spin-score) full=$(count no-spin-spinners) fixed=$(count no-spin-fixed)
  [ -n "$met" ] && [ -n "$fixed" ] || { echo "FAIL: no wait counters in the stats line"; exit 1; }
}
run 0
[ "$fixed" -gt 0 ] || { echo "FAIL: spinning off, yet no wait counted as no-spin-fixed"; exit 1; }
[ $((met + out + busy + score + full)) -eq 0 ] || {
  echo "FAIL: spinning off, yet waits counted as spins or declined for another reason"; exit 1; }
run 1000000
[ $((met + out)) -gt 0 ] || { echo "FAIL: a spin forced on every wait, yet none counted"; exit 1; }
[ $((busy + score + full + fixed)) -eq 0 ] || {
  echo "FAIL: a spin forced on every wait, yet some waits counted as declined"; exit 1; }
echo "ok"
