#!/usr/bin/env bash
# The figures README.md and docs/ quote, measured through the CLI as users run it (the function
# benchmarks of bench/plan and bench/latency measure the library calls alone). Each command runs
# RUNS times per build, the builds interleaved run by run (so a load that comes and goes falls
# on each alike); printed per command and build: wall seconds (median, min-max), CPU seconds
# (user+sys of the whole process, median, min-max) and peak RSS (max), from /usr/bin/time.
# On a machine shared with other work the wall time carries the waiting for a CPU: the CPU time
# is what the command itself costs (the commands are single-threaded).
#   bench/claims/cli_claims.sh RUNS BUILD_DIR [BUILD_DIR...]
set -euo pipefail
runs=$1; shift
builds=("$@")
here=$(cd "$(dirname "$0")/../.." && pwd)
for b in "${builds[@]}"; do [ -x "$b/bin/threadmap" ] || { echo "no $b/bin/threadmap"; exit 1; }; done
command -v lstopo-no-graphics >/dev/null ||
  { echo "lstopo-no-graphics (hwloc) is needed for the synthetic topologies"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Synthetic 2,048-CPU machines (hwloc's synthetic descriptions, as lstopo documents them).
lstopo-no-graphics --input "pack:8 numa:2 l3:4 core:16 pu:2" --of xml "$work/syn2048-a.xml"
lstopo-no-graphics --input "pack:2 numa:4 group:4 l3:4 core:8 pu:2" --of xml "$work/syn2048-b.xml"
python3 "$here/bench/plan/server_spec.py" 1024 >"$work/server-1024.json"
python3 "$here/bench/plan/server_spec.py" 256 >"$work/server-256.json"
# 12 threads all talking to each other (weights 1-5): small enough for branch and bound, which
# cannot prove it inside 1.5 s on 512 CPUs of a matrix: the case that overran --time-limit.
python3 -c "import json; json.dump({'threads': [{'name': f'w{i}'} for i in range(12)], 'edges': [{'between': [f'w{i}', f'w{j}'], 'weight': 1 + (i * 7 + j) % 5} for i in range(12) for j in range(i + 1, 12)]}, open('$work/all12.json', 'w'))"
syn512=$here/bench/plan/synthetic-2pkg-512cpu.xml
epyc=$here/tests/data/latency/Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv

measure() {  # LABEL ARGS... (threadmap's arguments)
  local label=$1; shift
  : >"$work/samples"
  for _ in $(seq "$runs"); do
    for b in "${builds[@]}"; do
      /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$b/bin/threadmap" "$@" >"$work/out" 2>/dev/null
      echo "$b $(tail -1 "$work/time") $(grep -o '[0-9.]* ms wall' "$work/out" | head -1 | cut -d' ' -f1)" >>"$work/samples"
    done
  done
  python3 - "$label" "$work/samples" "${builds[@]}" <<'PY'
import statistics, sys
label, path, builds = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = [line.split() for line in open(path)]
for b in builds:
    mine = [r for r in rows if r[0] == b]
    w = [float(r[1]) for r in mine]; c = [float(r[2]) + float(r[3]) for r in mine]
    rss = max(int(r[4]) for r in mine)
    solve = [float(r[5]) for r in mine if len(r) > 5]
    solve_text = f" | {min(solve):.0f}-{max(solve):.0f}" if solve else " | -"
    print(f"| {label} | {b} | {statistics.median(w):.2f} ({min(w):.2f}-{max(w):.2f}) | "
          f"{statistics.median(c):.2f} ({min(c):.2f}-{max(c):.2f}) | {rss/1024:.0f} MB{solve_text} |")
PY
}

echo "| command | build | wall s, median (min-max) | CPU s, median (min-max) | peak RSS | search ms (plan's own line), min-max |"
echo "|---|---|---|---|---|---|"
measure "plan --spec server-1024 (1,024 threads) --topology synthetic 512 CPUs" \
  plan --spec "$work/server-1024.json" --topology "$syn512"
measure "same, --time-limit 0.5" plan --spec "$work/server-1024.json" --topology "$syn512" --time-limit 0.5
measure "same, --time-limit 30 (the search runs to its end)" \
  plan --spec "$work/server-1024.json" --topology "$syn512" --time-limit 30
measure "plan --spec server-256 --topology synthetic 512 CPUs" \
  plan --spec "$work/server-256.json" --topology "$syn512"
measure "plan --spec server-1024 --latency dual EPYC 9754 (512 CPUs)" \
  plan --spec "$work/server-1024.json" --latency "$epyc"
measure "plan --spec 12 threads all-to-all --latency dual EPYC 9754, --time-limit 1.5" \
  plan --spec "$work/all12.json" --latency "$epyc" --time-limit 1.5
measure "latency --load dual EPYC 9754 (512 CPUs)" latency --load "$epyc"
measure "plan --threads 64 --policy compact, 2,048 CPUs (pack:8 numa:2 l3:4 core:16 pu:2)" \
  plan --threads 64 --policy compact --topology "$work/syn2048-a.xml"
measure "plan --threads 64 --policy compact, 2,048 CPUs (pack:2 numa:4 group:4 l3:4 core:8 pu:2)" \
  plan --threads 64 --policy compact --topology "$work/syn2048-b.xml"
measure "topo, 2,048 CPUs (pack:8 numa:2 l3:4 core:16 pu:2)" topo --topology "$work/syn2048-a.xml"
measure "topo, 2,048 CPUs (pack:2 numa:4 group:4 l3:4 core:8 pu:2)" topo --topology "$work/syn2048-b.xml"
