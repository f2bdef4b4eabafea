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

# Under --ranks every line a rank says carries its host/rank, the memory-policy line included.
memory=$(grep 'memory policy' <<<"$ranked")
[ -n "$memory" ] || problem "run --ranks --verbose has no memory-policy line: $ranked"
untagged=$(grep 'memory policy' <<<"$ranked" | grep -vE '^threadmap: [^ ]+/1: ')
[ -z "$untagged" ] || problem "run --ranks --verbose: a memory line without host/rank: $untagged"

# plan --threads N models traffic the user did not describe: the plan says what it assumed.
"$tm" plan --threads 4 --topology "$topo" >"$tmp/quick" 2>&1 || problem "plan --threads 4 failed"
grep -q "all talk to each other equally (all-to-all traffic)" "$tmp/quick" ||
  problem "plan --threads does not say it modelled all-to-all traffic: $(cat "$tmp/quick")"

# watch -- CMD: stdout is the program's; the summary goes to stderr, as under run --watch.
watched=$("$tm" watch -- echo hello-from-the-program 2>"$tmp/watch-err")
[ "$watched" = hello-from-the-program ] ||
  problem "watch -- CMD put more than the program's output on stdout: $(head -3 <<<"$watched")"
[ -s "$tmp/watch-err" ] || problem "watch -- CMD printed no summary on stderr"

# Ctrl-C during a report leaves nothing: the directory is made when the files are written.
timeout -s INT 3 "$tm" report --quick --out "$tmp/stopped" >/dev/null 2>&1
[ ! -e "$tmp/stopped" ] || problem "report stopped by Ctrl-C left $tmp/stopped behind"

# pin without permission: one line per cause, not one per thread. A process of four threads
# that root started, pinned by an unprivileged user (setpriv): each thread fails alike.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  python3 -c 'import threading, time
for _ in range(3): threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
time.sleep(30)' &
  victim=$!
  # Its four threads running (python starts slowly on a loaded machine).
  for _ in $(seq 100); do
    [ "$(ls /proc/$victim/task 2>/dev/null | wc -l)" -ge 4 ] && break
    sleep 0.1
  done
  setpriv --reuid=65534 --regid=65534 --clear-groups "$tm" pin "$victim" --cpus 0 \
    >"$tmp/pin-out" 2>"$tmp/pin-err"
  lines=$(grep -c '^threadmap: ' "$tmp/pin-err")
  [ "$lines" = 1 ] || problem "pin without permission printed $lines lines: $(head -3 "$tmp/pin-err")"
  grep -q "cannot pin 4 threads of process $victim (tids $victim, " "$tmp/pin-err" ||
    problem "pin without permission does not say how many threads: $(cat "$tmp/pin-err")"
  kill "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
fi

echo "cli traps: $failed problem(s)"
[ "$failed" = 0 ]
