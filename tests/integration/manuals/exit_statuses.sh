#!/usr/bin/env bash
# Every man page's EXIT STATUS matches what the command really returns: each scenario below makes
# one status happen (a program that exits 7, one not found, one killed by SIGTERM, `job --strict`
# with a missing rank, tune interrupted by SIGINT, ...), and for every subcommand the statuses
# its page lists are exactly the ones its scenarios produce: a status added to the code without
# the page, or listed on the page but never returned, fails here. Every page has EXAMPLES.
# 70 (an internal error: a bug) is said once in prose on every page and cannot be provoked.
#   exit_statuses.sh THREADMAP SOURCE_DIR
set -uo pipefail
tm=$1 src=$2
failed=0
problem() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Fixtures: a file that is not executable, rank records (one complete job, one with a rank
# missing), and fleets of six repeats of one machine (alike) and the same with one host's kernel
# changed (an outlier).
printf '#!/bin/sh\necho never\n' >"$work/not-executable"
chmod a-x "$work/not-executable"
mkdir -p "$work/job-ok" "$work/job-missing" "$work/fleet-alike" "$work/fleet-outlier"
# A clean job: two ranks, one CPU each, each busy on its own CPU for a moment.
for rank in 0 1; do
  "$tm" run --ranks $rank/2 --record "$work/job-ok" -- \
    sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' >/dev/null 2>&1 ||
    problem "run --ranks $rank/2 --record failed: no job fixture"
done
"$tm" run --ranks 0/2 --record "$work/job-missing" -- true >/dev/null 2>&1 ||
  problem "run --ranks 0/2 --record failed: no job fixture"
cp "$src"/tests/data/fleet/vm-repeats/*.json "$work/fleet-alike/"
cp "$src"/tests/data/fleet/vm-repeats/*.json "$work/fleet-outlier/"
python3 - "$work/fleet-outlier/h6.json" <<'PY' || problem "cannot plant a kernel difference"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["topology"]["topology"]["machine_infos"]["OSRelease"] = "4.19.0-old"
json.dump(doc, open(sys.argv[1], "w"))
PY
sleep 30 &
sleeper=$!
trap 'kill $sleeper 2>/dev/null; rm -rf "$work"' EXIT
topology=$src/tests/data/topologies/this-vm-kvm-2vcpu-epyc.xml
matrix=$src/tests/data/latency/AMD_Ryzen_7_5700X.csv

# SUB TERM EXPECTED COMMAND...: `threadmap COMMAND...` exits EXPECTED, which the page of SUB
# lists as TERM ("0", "N", "128+N").
declare -A seen
scenario() {
  local sub=$1 term=$2 expected=$3
  shift 3
  local status=0
  timeout 60 "$@" >"$work/out" 2>&1 </dev/null || status=$?
  if [ "$status" != "$expected" ]; then
    problem "$sub: '${*#"$tm" }' exited $status, expected $expected ($term): $(head -c 300 "$work/out")"
  fi
  seen[$sub]+=" $term"
}

scenario topo 0 0 "$tm" topo --summary
scenario topo 1 1 "$tm" topo --topology "$work/none.xml"
scenario topo 2 2 "$tm" topo --no-such-option

scenario latency 0 0 "$tm" latency --load "$matrix"
scenario latency 1 1 "$tm" latency --load "$work/none.json"
scenario latency 2 2 "$tm" latency --method nope

scenario plan 0 0 "$tm" plan --threads 2 --topology "$topology"
scenario plan 1 1 "$tm" plan --threads 2 --topology "$work/none.xml"
scenario plan 2 2 "$tm" plan --threads 0

# run needs something to apply (--cpus all); watch takes the command as it is.
for how in "run --cpus all" watch; do
  sub=${how%% *}
  scenario $sub 0 0 "$tm" $how -- true
  scenario $sub 2 2 "$tm" $sub
  scenario $sub N 7 "$tm" $how -- sh -c 'exit 7'
  scenario $sub 126 126 "$tm" $how -- "$work/not-executable"
  scenario $sub 127 127 "$tm" $how -- "$work/no-such-program"
  scenario $sub 128+N 143 "$tm" $how -- sh -c 'kill -TERM $$'
done
scenario run 1 1 "$tm" run --plan "$work/none.json" -- true
scenario watch 1 1 "$tm" watch 99999

scenario ps 0 0 "$tm" ps $sleeper --sample 0
scenario ps 1 1 "$tm" ps 99999
scenario ps 2 2 "$tm" ps not-a-pid

scenario pin 0 0 "$tm" pin $sleeper --cpus all
scenario pin 1 1 "$tm" pin 99999 --cpus 0
scenario pin 2 2 "$tm" pin $sleeper

scenario bench 0 0 "$tm" bench pingpong --quick --runs 1 --pair 0,1
scenario bench 1 1 "$tm" bench pingpong --quick --runs 1 --json "$work/no/dir.json"
scenario bench 2 2 "$tm" bench no-such-bench

scenario report 0 0 "$tm" report --quick --budget 5 --latency "$matrix" --out "$work/report"
scenario report 1 1 "$tm" report --quick --out "$work/not-executable/sub"
scenario report 2 2 "$tm" report --budget soon

scenario job 0 0 "$tm" job "$work/job-ok" --strict
scenario job 1 1 "$tm" job "$work/none"
scenario job 2 2 "$tm" job
scenario job 3 3 "$tm" job "$work/job-missing" --strict

scenario fleet 0 0 "$tm" fleet "$work/fleet-alike" --strict
scenario fleet 1 1 "$tm" fleet "$work/none"
scenario fleet 2 2 "$tm" fleet
scenario fleet 3 3 "$tm" fleet "$work/fleet-outlier" --strict

scenario tune 0 0 "$tm" tune --candidates os --runs 1 --budget 1s -- true
scenario tune 1 1 "$tm" tune --candidates os --runs 1 --metric 'never: ([0-9]+)' --higher -- true
scenario tune 2 2 "$tm" tune --candidates no-such-candidate -- true
# A candidate's plan: one that cannot be read is the work's (1), one that is not a plan the
# command line's (2), as tune(1) says.
scenario tune 1 1 "$tm" tune --candidates "plan:$work/none.json" -- true
echo '{' >"$work/corrupt-plan.json"
scenario tune 2 2 "$tm" tune --candidates "plan:$work/corrupt-plan.json" -- true
# SIGINT after the first rounds: tune judges what it has and exits 130.
scenario tune 130 130 timeout --preserve-status -s INT 2 "$tm" tune --candidates os,compact \
  --runs 1000 --budget 1m -- sleep 0.2

# Each page's EXIT STATUS entries (".TP" then ".B TERM") against the terms its scenarios saw.
for sub in $("$tm" --help-man --list); do
  page=$("$tm" --help-man "$sub")
  grep -q '^\.SH EXAMPLES$' <<<"$page" || problem "threadmap-$sub(1) has no EXAMPLES"
  [ "$(sed -n '/^\.SH EXAMPLES$/,/^\.SH /p' <<<"$page" | grep -c '^\.B threadmap\|^\.B mpirun\|^\.B lstopo')" -ge 2 ] ||
    problem "threadmap-$sub(1) has fewer than two examples"
  listed=$(sed -n '/^\.SH EXIT STATUS$/,/^\.SH /p' <<<"$page" | sed -n 's/^\.B //p' |
    sed 's/\\-/-/g' | sort -u | tr '\n' ' ')
  [ -n "$listed" ] || problem "threadmap-$sub(1) has no EXIT STATUS entries"
  produced=$(tr ' ' '\n' <<<"${seen[$sub]:-}" | grep . | sort -u | tr '\n' ' ')
  [ "$listed" = "$produced" ] ||
    problem "threadmap-$sub(1) lists exit statuses [$listed], the command returns [$produced]"
done
echo "exit statuses: ${#seen[@]} subcommands checked, $failed problem(s)"
[ "$failed" = 0 ]
