#!/usr/bin/env bash
# plan --ranks 2 --export rankfile, given to a real mpirun: each rank is bound where the plan put
# it (Open MPI binds; threadmap only wrote the rankfile).
#   rankfile.sh THREADMAP
set -euo pipefail
threadmap=$1
command -v mpirun >/dev/null || { echo "FAIL: mpirun not found (scripts/setup.sh installs openmpi-bin)"; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "FAIL: needs 2 CPUs"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$threadmap" plan --ranks 2 --export rankfile >"$dir/rankfile"
"$threadmap" plan --ranks 2 --json >"$dir/shares.json"
cat "$dir/rankfile"
timeout 120 mpirun -np 2 --use-hwthread-cpus --mca rmaps_rank_file_physical 1 \
  --rankfile "$dir/rankfile" sh -c 'echo "rank $OMPI_COMM_WORLD_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)"' \
  >"$dir/out"
cat "$dir/out"
python3 - "$dir/shares.json" "$dir/out" <<'PY'
import json, sys
shares = {r["rank"]: r["cpus"] for r in json.load(open(sys.argv[1]))["ranks"]}
seen = {}
for line in open(sys.argv[2]):
    _, rank, cpus = line.split()
    seen[int(rank)] = cpus
assert seen == shares, f"mpirun bound {seen}, the plan said {shares}"
print("ok: mpirun bound each rank to its planned share", seen)
PY
