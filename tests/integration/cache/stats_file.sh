#!/bin/sh
# TM_CACHE_STATS=FILE (any value starting with /): one line per process in FILE, in the
# contract's format (docs/thread-cache.md, "Statistics"), final=1 when the program closes stderr
# in an atexit handler, ends with exit_group from a thread or with _exit; final=0 with the counts
# of its parked threads' last update for a process killed by a signal or ended by an exit_group
# made without libc (Go's runtime); one line per process of a process tree, each with its own
# pid.
# Retirements are named by cause. TM_CACHE_STATS=1 still prints one line on stderr.
# usage: stats_file.sh LIB PROGRAM (stats_cases.c)
lib=$1 prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then echo "skipped: sanitizer build"; exit 77; fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL $*"; [ -f "$dir/stats" ] && cat "$dir/stats"; status=1; }
# The preload is set inside timeout: timeout's own process would write a line too.
run() { rm -f "$dir/stats"; timeout 60 env TM_CACHE_STATS="$dir/stats" LD_PRELOAD="$lib" "$prog" "$1" >/dev/null 2>"$dir/err"; }
lines() { if [ -f "$dir/stats" ]; then wc -l <"$dir/stats"; else echo 0; fi; }
format='^tm-cache-stats/1 pid=[0-9][0-9]* ppid=[0-9][0-9]* comm=[^ =][^ =]* from-cache=[0-9][0-9]* from-system=[0-9][0-9]* bypassed=[0-9][0-9]* own-exits=[0-9][0-9]* spin-met=[0-9][0-9]* spin-ran-out=[0-9][0-9]* no-spin-busy=[0-9][0-9]* no-spin-score=[0-9][0-9]* no-spin-spinners=[0-9][0-9]* no-spin-fixed=[0-9][0-9]* peak-idle=[0-9][0-9]* kernel-mask=[0-3]\( retired\.[a-z0-9-][a-z0-9-]*=[1-9][0-9]*\)* final=[01]\( pad=00*\)\{0,1\}$'

for mode in close-stderr exit-group _exit; do
  run "$mode"
  if [ "$(lines)" -eq 1 ] && grep -q "$format" "$dir/stats" && grep -q ' from-cache=[1-9]' "$dir/stats"; then
    echo "ok $mode: one line in the contract's format"
  else
    fail "$mode: want one line in the contract's format with reuse"
  fi
done
grep -q ' comm=tm_stats_case ' "$dir/stats" && echo "ok comm with space and '=' written as tm_stats_case" ||
  fail "comm not tm_stats_case"

grep -q ' final=1' "$dir/stats" && echo "ok a normal end finalises the line" || fail "final=1 missing"

# An end nothing catches: the record appended at the first create, as its parked threads left
# it: 20 creates (churn), final=0, padded to a fixed width.
for mode in killed raw-exit; do
  run "$mode"
  creates=$(awk '{ for (i = 2; i <= NF; ++i) { split($i, kv, "="); if (kv[1] ~ /^(from-cache|from-system|bypassed)$/) n += kv[2] } } END { print n + 0 }' "$dir/stats" 2>/dev/null)
  if [ "$(lines)" -eq 1 ] && grep -q "$format" "$dir/stats" && grep -q ' final=0 pad=0' "$dir/stats" &&
    [ "$creates" -eq 20 ] && grep -q ' from-cache=[1-9]' "$dir/stats"; then
    echo "ok $mode: its record, final=0, 20 creates as of its last update"
  else
    fail "$mode: want one record with final=0 and 20 creates (got $creates)"
  fi
done

run children
parent=$(grep -c "$format" "$dir/stats")
pids=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$dir/stats" | sort -u | wc -l)
if [ "$(lines)" -eq 5 ] && [ "$parent" -eq 5 ] && [ "$pids" -eq 5 ]; then
  echo "ok a parent and four children: five lines, five pids"
else
  fail "children: want five well-formed lines with five pids"
fi
top=$(awk '{for (i = 1; i <= NF; ++i) if ($i ~ /^ppid=/) p[NR] = substr($i, 6); else if ($i ~ /^pid=/) q[NR] = substr($i, 5)} END {for (n in q) { c = 0; for (m in p) if (p[m] == q[n]) ++c; if (c == 4) print "yes" }}' "$dir/stats")
[ "$top" = yes ] && echo "ok the children name the parent as ppid" || fail "children's ppid"

run causes
want="credentials capabilities namespace mempolicy timer prctl-8 identity signal-pending fork"
if [ "$(uname -m)" = x86_64 ]; then want="$want syscall-251"; fi
for c in $want; do
  grep -q " retired\.$c=[1-9]" "$dir/stats" && echo "ok retired.$c counted" || fail "retired.$c missing"
done
grep -q "$format" "$dir/stats" || fail "causes: line not in the contract's format"

TM_CACHE_STATS=1 LD_PRELOAD="$lib" timeout 60 "$prog" _exit >/dev/null 2>"$dir/err"
grep -q 'thread cache stats: creates from-cache=' "$dir/err" && echo "ok TM_CACHE_STATS=1 prints its line on stderr" ||
  fail "TM_CACHE_STATS=1 printed no line on stderr"
exit $status
