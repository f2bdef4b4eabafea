#!/usr/bin/env bash
# The figures README.md and docs/ quote, measured through the CLI as users run it (the function
# benchmarks of bench/plan and bench/latency measure the library calls alone). Each command runs
# RUNS times (default 5); printed per command: wall seconds (median, min-max), CPU seconds
# (user+sys of the whole process, median, min-max) and peak RSS (max), from /usr/bin/time.
# On a machine shared with other work the wall time carries the waiting for a CPU: the CPU time
# is what the command itself costs.
#   bench/claims/cli_claims.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1 runs=${2:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
tm=$build/bin/threadmap
[ -x "$tm" ] || { echo "no $tm"; exit 1; }
command -v lstopo-no-graphics >/dev/null || { echo "lstopo-no-graphics (hwloc) is needed for the synthetic topologies"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Synthetic 2,048-CPU machines (hwloc's synthetic descriptions, as lstopo documents them).
lstopo-no-graphics --input "pack:8 numa:2 l3:4 core:16 pu:2" --of xml "$work/syn2048-a.xml"
lstopo-no-graphics --input "pack:2 numa:4 group:4 l3:4 core:8 pu:2" --of xml "$work/syn2048-b.xml"
python3 "$here/bench/plan/server_spec.py" 1024 >"$work/server-1024.json"
python3 "$here/bench/plan/server_spec.py" 256 >"$work/server-256.json"
syn512=$here/bench/plan/synthetic-2pkg-512cpu.xml
epyc=$here/tests/data/latency/Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv

measure() {  # LABEL CMD...
  local label=$1; shift
  local walls=() cpus=() rss=0 line
  for _ in $(seq "$runs"); do
    line=$( { /usr/bin/time -f "%e %U %S %M" "$@" >"$work/out" 2>/dev/null; } 2>&1 | tail -1)
    read -r w u s m <<<"$line"
    walls+=("$w"); cpus+=("$(python3 -c "print(round($u+$s,2))")")
    [ "$m" -gt "$rss" ] && rss=$m
  done
  python3 - "$label" "$rss" "${walls[*]}" "${cpus[*]}" <<'PY'
import statistics, sys
label, rss = sys.argv[1], int(sys.argv[2])
w = [float(x) for x in sys.argv[3].split()]; c = [float(x) for x in sys.argv[4].split()]
print(f"| {label} | {statistics.median(w):.2f} ({min(w):.2f}-{max(w):.2f}) | "
      f"{statistics.median(c):.2f} ({min(c):.2f}-{max(c):.2f}) | {rss/1024:.0f} MB |")
PY
}

# The solve time `plan` reports for itself (its "ms wall" line), against --time-limit.
solve_times() {  # LABEL CMD...
  local label=$1; shift
  local times=()
  for _ in $(seq "$runs"); do
    "$@" >"$work/out" 2>/dev/null
    times+=("$(grep -o '[0-9.]* ms wall' "$work/out" | head -1 | cut -d' ' -f1)")
  done
  echo "| $label | solve ms: ${times[*]} |"
}

echo "| command | wall s, median (min-max) | CPU s, median (min-max) | peak RSS |"
echo "|---|---|---|---|"
measure "plan --spec server-1024 (1,024 threads) --topology synthetic 512 CPUs" \
  "$tm" plan --spec "$work/server-1024.json" --topology "$syn512"
measure "same, --time-limit 30 (the search runs to its end)" \
  "$tm" plan --spec "$work/server-1024.json" --topology "$syn512" --time-limit 30
measure "plan --spec server-256 --topology synthetic 512 CPUs" \
  "$tm" plan --spec "$work/server-256.json" --topology "$syn512"
measure "plan --spec server-1024 --latency dual EPYC 9754 (512 CPUs)" \
  "$tm" plan --spec "$work/server-1024.json" --latency "$epyc"
measure "latency --load dual EPYC 9754 (512 CPUs)" "$tm" latency --load "$epyc"
measure "plan --threads 64 --policy compact, 2,048 CPUs (pack:8 numa:2 l3:4 core:16 pu:2)" \
  "$tm" plan --threads 64 --policy compact --topology "$work/syn2048-a.xml"
measure "plan --threads 64 --policy compact, 2,048 CPUs (pack:2 numa:4 group:4 l3:4 core:8 pu:2)" \
  "$tm" plan --threads 64 --policy compact --topology "$work/syn2048-b.xml"
measure "topo, 2,048 CPUs (a)" "$tm" topo --topology "$work/syn2048-a.xml"
measure "topo, 2,048 CPUs (b)" "$tm" topo --topology "$work/syn2048-b.xml"
echo
solve_times "plan --spec server-1024 --topology synthetic 512, --time-limit 1.5" \
  "$tm" plan --spec "$work/server-1024.json" --topology "$syn512" --time-limit 1.5
solve_times "same, --time-limit 0.5" \
  "$tm" plan --spec "$work/server-1024.json" --topology "$syn512" --time-limit 0.5
