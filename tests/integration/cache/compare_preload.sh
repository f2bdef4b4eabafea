#!/bin/sh
# Runs PROGRAM without and with LD_PRELOAD=LIB and requires the same stdout and exit status,
# and exit status 0. With "reuse" as third argument, the cached run must also report that at
# least one pthread_create was served by a recycled thread (TM_CACHE_STATS), so the
# comparison is not vacuous. A program that exits 77 without the cache is skipped.
# usage: compare_preload.sh LIB PROGRAM [reuse] [-- ARGS...]
lib=$1
prog=$2
want_reuse=$3
if [ -n "$THREADMAP_SANITIZE" ]; then
  echo "skipped: sanitizer build; preload comparisons run in the plain build"
  exit 77
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# TM_STATE_PROBE_LIB (set by ctest): tests/runtimes/state_probe.c preloaded in both runs, before
# the cache; each new thread whose kernel-visible state at its first instruction differs from
# its creator's just before the create is a line in the probe's file, and both must stay empty.
probe=${TM_STATE_PROBE_LIB:-}
[ -n "$probe" ] && [ ! -f "$probe" ] && { echo "the state probe $probe is missing"; exit 1; }
TM_STATE_PROBE_FILE=$dir/plain.probe LD_PRELOAD="$probe" timeout 60 "$prog" \
  >"$dir/plain.out" 2>"$dir/plain.err"
plain_rc=$?
if [ "$plain_rc" -eq 77 ]; then # the program cannot check this here (it says why)
  cat "$dir/plain.out"; exit 77
fi
TM_STATE_PROBE_FILE=$dir/cache.probe TM_CACHE_STATS=1 LD_PRELOAD="${probe:+$probe }$lib" \
  timeout 60 "$prog" >"$dir/cache.out" 2>"$dir/cache.err"
cache_rc=$?
status=0
for run in plain cache; do
  if [ -s "$dir/$run.probe" ]; then
    echo "new threads whose state differs from their creator's ($run run, first lines):"
    head -n 5 "$dir/$run.probe"; status=1
  fi
done
if [ "$plain_rc" -ne 0 ]; then
  echo "without the cache: exit status $plain_rc"; cat "$dir/plain.out" "$dir/plain.err"; status=1
fi
if [ "$plain_rc" -ne "$cache_rc" ]; then
  echo "exit status differs: without cache $plain_rc, with cache $cache_rc"; status=1
fi
if ! diff -u "$dir/plain.out" "$dir/cache.out"; then
  echo "output differs (- without cache, + with cache)"; status=1
fi
if [ "$want_reuse" = reuse ] && ! grep -q 'from-cache=[1-9]' "$dir/cache.err"; then
  echo "the cache never reused a thread:"; cat "$dir/cache.err"; status=1
fi
if [ $status -ne 0 ]; then echo "--- cached run stderr:"; cat "$dir/cache.err"; fi
[ $status -eq 0 ] && { cat "$dir/cache.out"; grep 'thread cache stats' "$dir/cache.err"; }
exit $status
