#!/bin/sh
# quick_run.sh THREADMAP DIR: runs `threadmap report --quick --out DIR/out` once for every
# Report.* test of test_cli_report (a ctest fixture: under ctest each test is its own process,
# and the run takes seconds), keeping what the tests check: its output (DIR/output), exit status
# (DIR/status) and wall seconds (DIR/seconds). It always succeeds: the tests judge the run.
set -u
bin=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir"
start=$(date +%s.%N)
"$bin" report --quick --out "$dir/out" >"$dir/output" 2>&1
echo $? >"$dir/status"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }' >"$dir/seconds"
