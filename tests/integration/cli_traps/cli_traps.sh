#!/usr/bin/env bash
# Traps a newcomer met that are not bad inputs (those are rows of contract/bad_input.tsv).
#   cli_traps.sh THREADMAP TESTS_DATA_DIR
set -uo pipefail
tm=$1 data=$2
topo=$data/topologies/amd-2x-epyc7763-zen3.xml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
problem() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

# plan --json -o FILE writes the JSON once, to FILE; stdout stays empty.
"$tm" plan --threads 4 --topology "$topo" --json -o "$tmp/plan.json" >"$tmp/out" 2>"$tmp/err" ||
  problem "plan --json -o failed: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || problem "plan --json -o FILE also printed $(wc -c <"$tmp/out") bytes on stdout"
grep -q '"schema": "threadmap.plan/1"' "$tmp/plan.json" || problem "plan -o FILE holds no plan JSON"

# likwid-pin gives the first CPU of -c to the main thread (likwid-pin(1): "with pthreads the
# parent thread is always pinned ... provide num_threads+1 processor ids"): the export offers the
# list with the main thread's CPU first, then one CPU per planned thread.
likwid=$("$tm" plan --threads 4 --topology "$topo" --export likwid 2>&1)
plain=$(sed -n 's/^likwid-pin -c \([0-9,]*\) COMMAND$/\1/p' <<<"$likwid" | head -1)
main_first=$(sed -n 's/^likwid-pin -c \([0-9,]*\) COMMAND$/\1/p' <<<"$likwid" | sed -n 2p)
[ "$(tr ',' '\n' <<<"$plain" | wc -l)" = 4 ] || problem "likwid export: '$plain' is not 4 CPUs"
[ "$main_first" = "${plain%%,*},$plain" ] ||
  problem "likwid export: no main-thread-first list ('$main_first' for '$plain')"

# ps shows CPU% and CPU time (what top -H users look for first), with its evidence.
sleep 5 &
sleeper=$!
"$tm" ps "$sleeper" --sample 0.1 >"$tmp/ps" 2>&1 || problem "ps failed: $(cat "$tmp/ps")"
head -1 "$tmp/ps" | grep -q 'CPU%.*CPU time' || problem "ps has no CPU% / CPU time columns"
grep -q 'measured here over 0.1 s' "$tmp/ps" || problem "ps does not say how CPU% was measured"
ps_json=$("$tm" ps "$sleeper" --sample 0.1 --json 2>&1)
grep -q '"cpu_percent": [0-9]' <<<"$ps_json" ||
  problem "ps --json has no cpu_percent"
kill "$sleeper" 2>/dev/null
wait "$sleeper" 2>/dev/null

# run --verbose says what an exec'd program gets without --inherit.
verbose=$("$tm" run --verbose --cpus 0 -- true 2>&1)
grep -q "passed on to what this program execs until it creates a thread" <<<"$verbose" ||
  problem "run --verbose does not say what exec'd programs get"

# run --plan P --by-name pins nothing when no thread names itself as the plan says: it says so.
# The program creates a thread it does not name (a program that creates none may be a wrapper
# passing the rules on, and stays quiet).
"$tm" plan --threads 2 --topology "$topo" -o "$tmp/byname.json" >/dev/null 2>&1
byname=$("$tm" run --plan "$tmp/byname.json" --by-name -- python3 -c \
  'import threading; t = threading.Thread(target=len, args=("",)); t.start(); t.join()' 2>&1)
grep -q "no thread took these names" <<<"$byname" ||
  problem "run --by-name is silent when no plan name matched"

# Under mpirun, every pin line of run --verbose says host/rank (as --report-bindings does).
ranked=$(OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 \
  OMPI_COMM_WORLD_LOCAL_SIZE=2 "$tm" run --ranks auto --verbose -- true 2>&1)
pin_lines=$(grep -c ' pin' <<<"$ranked")
tagged=$(grep -cE '^threadmap: [^ ]+/1: pin' <<<"$ranked")
[ "$pin_lines" -gt 0 ] && [ "$pin_lines" = "$tagged" ] ||
  problem "run --ranks --verbose: $tagged of $pin_lines pin lines say host/rank"

echo "cli traps: $failed problem(s)"
[ "$failed" = 0 ]
