#!/usr/bin/env bash
# One case of the real-runtime matrix: runs CMD plainly and under the thread cache (LD_PRELOAD of
# LIB, which every process CMD starts inherits) and requires
#   - the same exit status (0) and the same stdout, byte for byte;
#   - the cache's statistics, summed over every process of the run: at least one create, and
#     with --min-reuse PCT, from-cache >= PCT % of all creates (from-cache + from-system +
#     bypassed).
# The statistics come from TM_CACHE_STATS=FILE (one `tm-cache-stats/1` line per process, the
# contract in docs/thread-cache.md) when LIB writes that format, else from the one line per
# process that TM_CACHE_STATS=1 prints on stderr (older libraries; programs that close stderr
# before they end, and Go programs, print none there, and then the case fails: it cannot tell).
# Exit 77 (skip, with the reason on stdout): a runtime or built program in --needs is missing,
# --skip REASON was given, or this is a sanitizer build (THREADMAP_SANITIZE).
#
# usage: run_case.sh --lib LIB --min-reuse PCT|none [--needs A,B,...] [--skip REASON] -- CMD...
#   --needs: each item is a program looked up on PATH, or an absolute path that must exist
set -u
lib="" min_reuse="" needs="" skip="" probe=""
while [ $# -gt 0 ]; do
  case $1 in
    --lib) lib=$2; shift 2 ;;
    --probe) probe=$2; shift 2 ;;
    --min-reuse) min_reuse=$2; shift 2 ;;
    --needs) needs=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_case.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$lib" ] || [ -z "$min_reuse" ] || [ $# -eq 0 ]; then
  echo "usage: run_case.sh --lib LIB --min-reuse PCT|none [--needs A,B] [--skip R] -- CMD..." >&2
  exit 2
fi
if [ -n "$skip" ]; then echo "skipped: $skip"; exit 77; fi
# The library under test must be there and on: a case that ran without it would compare glibc
# with glibc and pass.
if [ ! -f "$lib" ]; then echo "FAIL the cache library $lib is missing"; exit 1; fi
case ${TM_CACHE:-1} in 0) echo "FAIL TM_CACHE=0 in the environment: the cache is off"; exit 1 ;; esac
if [ -n "${THREADMAP_SANITIZE:-}" ]; then
  echo "skipped: sanitizer build; preload comparisons run in the plain build"
  exit 77
fi
IFS=, read -r -a items <<<"$needs"
for item in "${items[@]}"; do
  [ -z "$item" ] && continue
  case $item in
    /*) [ -e "$item" ] || { echo "skipped: $item was not built (its compiler is missing)"; exit 77; } ;;
    *) command -v "$item" >/dev/null 2>&1 || { echo "skipped: $item is not installed"; exit 77; } ;;
  esac
done

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# --probe: the state probe (state_probe.c) is preloaded in both runs, before the cache, and
# writes one line per new thread whose kernel-visible state differs from its creator's.
plain_preload=${probe:+$probe}
TM_STATE_PROBE_FILE=$dir/plain.probe LD_PRELOAD="$plain_preload" timeout 120 "$@" \
  >"$dir/plain.out" 2>"$dir/plain.err"
plain_rc=$?
# The statistics format the library writes: its tag is a string in the library.
if grep -qaF 'tm-cache-stats/1' "$lib"; then
  source=file
  : >"$dir/stats"
  stats_value=$dir/stats
else
  source=stderr
  stats_value=1
fi
TM_STATE_PROBE_FILE=$dir/cache.probe TM_CACHE_STATS=$stats_value \
  LD_PRELOAD="${probe:+$probe }$lib" timeout 120 "$@" >"$dir/cache.out" 2>"$dir/cache.err"
cache_rc=$?

status=0
if [ "$plain_rc" -ne 0 ]; then
  echo "FAIL without the cache: exit status $plain_rc"; tail -n 20 "$dir/plain.err"; status=1
fi
if [ "$cache_rc" -ne "$plain_rc" ]; then
  echo "FAIL exit status differs: without the cache $plain_rc, with it $cache_rc"; status=1
fi
for run in plain cache; do
  if [ -s "$dir/$run.probe" ]; then
    echo "FAIL new threads whose state differs from their creator's ($run run, first lines):"
    head -n 5 "$dir/$run.probe"
    echo "  ($(wc -l <"$dir/$run.probe") threads in all)"
    status=1
  fi
done
if ! cmp -s "$dir/plain.out" "$dir/cache.out"; then
  echo "FAIL stdout differs (- without the cache, + with it):"
  diff -u "$dir/plain.out" "$dir/cache.out" | head -n 40
  status=1
fi

# Sums over every process: "processes from_cache from_system bypassed retired" (retired as
# cause:count,...). Keys a reader does not know are ignored, as the contract asks.
if [ $source = file ]; then
  sums=$(awk '$1 == "tm-cache-stats/1" {
      p++
      for (i = 2; i <= NF; i++) {
        eq = index($i, "="); k = substr($i, 1, eq - 1); v = substr($i, eq + 1)
        if (k == "from-cache") c += v; else if (k == "from-system") s += v
        else if (k == "bypassed") b += v
        else if (substr(k, 1, 8) == "retired.") r[substr(k, 9)] += v
      }
    }
    END { out = ""; for (k in r) out = out (out == "" ? "" : ",") k ":" r[k]
          printf "%d %d %d %d %s\n", p, c, s, b, (out == "" ? "-" : out) }' "$dir/stats")
else
  sums=$(awk '/thread cache stats: creates / {
      p++
      for (i = 1; i <= NF; i++) {
        t = $i; sub(/;$/, "", t); eq = index(t, "="); if (eq == 0) continue
        k = substr(t, 1, eq - 1); v = substr(t, eq + 1)
        if (k == "from-cache") c += v; else if (k == "from-system") s += v
        else if (k == "bypassed") b += v
      }
    }
    END { printf "%d %d %d %d -\n", p, c, s, b }' "$dir/cache.err")
  # The retired causes of the stderr line: the words between "; retired " and the next ";".
  retired=$(grep -o 'retired [^;]*' "$dir/cache.err" | tr ' ' '\n' | grep '=[1-9]' |
    awk -F= '{ r[$1] += $2 } END { out = ""; for (k in r) out = out (out == "" ? "" : ",") k ":" r[k]; print (out == "" ? "-" : out) }')
  sums="${sums% *} $retired"
fi
read -r processes from_cache from_system bypassed retired_causes <<<"$sums"
creates=$((from_cache + from_system + bypassed))
if [ "$processes" -eq 0 ]; then
  if [ $source = file ]; then
    echo "FAIL no statistics line was written to TM_CACHE_STATS=FILE"
  else
    echo "FAIL no statistics line on stderr (this library prints it on stderr only, and a program" \
      "that closes stderr at exit or ends with exit_group, as Go does, loses it); the creates" \
      "cannot be counted"
  fi
  status=1
elif [ "$creates" -eq 0 ]; then
  echo "FAIL no thread was created under the cache: the comparison says nothing"
  status=1
elif [ $((from_cache + from_system)) -eq 0 ]; then
  # Every create handed to glibc untouched (the cache disabled itself, or TM_CACHE=0 reached
  # the program some other way): the comparison says nothing about the cache.
  echo "FAIL the cache served none of the $creates creates (all handed to glibc)"
  status=1
fi
reuse_text="-"
if [ "$creates" -gt 0 ]; then
  reuse_text="$((from_cache * 1000 / creates / 10)).$((from_cache * 1000 / creates % 10))%"
fi
summary="statistics ($source, $processes processes): from-cache=$from_cache of $creates creates ($reuse_text), from-system=$from_system, bypassed=$bypassed; retired: ${retired_causes//,/, }"
# Records still at final=0: processes that ended without their last update (Go's raw
# exit_group), counted as of it.
if [ $source = file ]; then
  unfinished=$(grep -c '^tm-cache-stats/1 .* final=0\( \|$\)' "$dir/stats")
  [ "$unfinished" -gt 0 ] && summary="$summary; $unfinished ended without a last update (counted as of it)"
fi
if [ "$min_reuse" != none ] && [ "$creates" -gt 0 ] &&
  [ $((from_cache * 100)) -lt $((creates * min_reuse)) ]; then
  echo "FAIL reuse $reuse_text is under the case's $min_reuse%"
  status=1
fi
echo "$summary"
if [ $status -ne 0 ]; then
  echo "--- cached run's stderr (last lines):"; tail -n 20 "$dir/cache.err"
  exit 1
fi
echo "ok: the same output ($(wc -c <"$dir/plain.out") bytes) and exit status with and without the cache"
exit 0
