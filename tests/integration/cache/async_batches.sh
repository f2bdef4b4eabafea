#!/bin/sh
# The std::async batch program under the cache must serve >= 90% of its creates from parked
# threads (TM_CACHE_STATS's from-cache / all creates) and print what it prints without the
# cache. usage: async_batches.sh LIB PROGRAM
lib=$1 prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then echo "skipped: sanitizer build"; exit 77; fi
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
want=$(timeout 60 "$prog") || { echo "FAIL without the cache"; exit 1; }
got=$(TM_CACHE_STATS=1 LD_PRELOAD="$lib" timeout 60 "$prog" 2>"$err") || {
  echo "FAIL with the cache"; cat "$err"; exit 1; }
stats=$(grep 'thread cache stats' "$err")
echo "$stats"
[ "$got" = "$want" ] || { echo "FAIL output differs: '$got' vs '$want'"; exit 1; }
cache=$(echo "$stats" | sed -n 's/.*from-cache=\([0-9]*\).*/\1/p')
system=$(echo "$stats" | sed -n 's/.*from-system=\([0-9]*\).*/\1/p')
bypassed=$(echo "$stats" | sed -n 's/.*bypassed=\([0-9]*\).*/\1/p')
total=$((cache + system + bypassed))
[ "$total" -gt 0 ] || { echo "FAIL no creates counted"; exit 1; }
if [ $((cache * 100)) -ge $((total * 90)) ]; then
  echo "ok $cache of $total creates from the cache"
else
  echo "FAIL only $cache of $total creates from the cache (want >= 90%)"; exit 1
fi
