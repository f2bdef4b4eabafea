#!/usr/bin/env bash
# A real job of two ranks of our MPI program under `threadmap run --ranks auto`, started by
# Open MPI's mpirun or by Slurm's srun on a private one-node cluster (private_slurm.sh); each rank
# must take its own share of the machine's CPUs, and every thread of a rank must be allowed only
# its rank's share (and have run there).
#   two_ranks.sh mpirun|srun THREADMAP THREADS_PER_RANK
set -euo pipefail
launcher=$1 threadmap=$2 program=$3
here=$(cd "$(dirname "$0")" && pwd)
cpus=$(nproc)
[ "$cpus" -ge 2 ] || { echo "FAIL: this test needs 2 CPUs to give each rank its own; nproc says $cpus"; exit 1; }
# Root is allowed through Open MPI's own switches; --oversubscribe because a 2-CPU machine has
# 2 slots; --bind-to none so that threadmap, not mpirun, decides the shares.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp)
records=$(mktemp -d)
trap 'rm -rf "$out" "$records"' EXIT
case $launcher in
  mpirun)
    command -v mpirun >/dev/null ||
      { echo "FAIL: mpirun not found (scripts/setup.sh installs openmpi-bin)"; exit 1; }
    job=(mpirun -np 2 --bind-to none)
    expect=openmpi ;;
  srun)
    # --cpu-bind=none so that threadmap, not Slurm, decides; PMIx wires up Open MPI's ranks.
    job=("$here/private_slurm.sh" srun -n 2 --cpu-bind=none --mpi=pmix)
    expect=slurm ;;
  *) echo "FAIL: unknown launcher $launcher"; exit 1 ;;
esac
if ! timeout 150 "${job[@]}" "$threadmap" run --ranks auto --verbose --record "$records" -- \
    "$program" 3 0.3 >"$out" 2>&1; then
  echo "FAIL: the job failed:"; cat "$out"; exit 1
fi
cat "$out"
for r in 0 1; do
  lines=$(grep -E "^host \S+ rank $r/2 (thread|main)" "$out" || true)
  [ "$(printf '%s\n' "$lines" | grep -c thread)" -eq 3 ] || { echo "FAIL: rank $r did not report 3 threads"; exit 1; }
  allowed=$(printf '%s\n' "$lines" | awk '{print $NF}' | sort -u)
  [ "$(printf '%s\n' "$allowed" | wc -l)" -eq 1 ] || { echo "FAIL: rank $r's threads have different CPU sets: $allowed"; exit 1; }
  eval "share_$r=\$allowed"
  # Every thread ran inside its share (the CPU it last ran on is in the allowed list).
  printf '%s\n' "$lines" | awk -v r="$r" '{cpu=$(NF-2); n=split($NF,a,","); ok=0; for(i=1;i<=n;i++) if(a[i]==cpu) ok=1; if(!ok){print "FAIL: rank " r " ran on CPU " cpu " outside " $NF; exit 1}}'
  grep -q "threadmap: host .* rank $r/2 ($expect" "$out" || { echo "FAIL: no --verbose line for rank $r"; exit 1; }
done
# Shares are disjoint and together cover CPUs the ranks could use.
common=$(comm -12 <(tr , '\n' <<<"$share_0" | sort) <(tr , '\n' <<<"$share_1" | sort))
[ -z "$common" ] || { echo "FAIL: ranks 0 and 1 share CPUs $common"; exit 1; }
echo "ok: rank 0 on CPUs $share_0, rank 1 on CPUs $share_1"
# threadmap job merges what each rank's watch saw: two records, shares apart, and most of each
# rank's thread-seconds on its own share (the MPI library's start-up may briefly bind the main
# thread elsewhere while hwloc probes the machine: `job` shows that start-up window apart, and
# the seconds below still count it; correct_job.sh checks the findings themselves).
"$threadmap" job "$records" --json "$records/job.json"
python3 - "$records/job.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
assert job["schema"] == "threadmap.job/1", job["schema"]
hosts = job["hosts"]
assert len(hosts) == 1 and hosts[0]["ranks_seen"] == [0, 1], hosts
bad = [f for f in job["findings"] if f["id"] in ("share_overlap", "missing_ranks", "watch_failed", "failed_rank")]
assert not bad, bad
for r in hosts[0]["rank_details"]:
    share = set()
    for part in r["share"].split(","):
        a, _, b = part.partition("-")
        share.update(range(int(a), int(b or a) + 1))
    seconds = r["seconds_on_cpu"]
    total = sum(seconds.values())
    inside = sum(s for cpu, s in seconds.items() if int(cpu) in share)
    assert total > 0, r
    assert inside >= 0.75 * total, f"rank {r['rank']}: {inside:.2f} of {total:.2f} s in share {r['share']}"
    print(f"job: rank {r['rank']} share {r['share']}: {inside:.2f} of {total:.2f} thread-seconds inside")
PY
echo "ok: threadmap job agrees"
