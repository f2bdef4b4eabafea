#!/usr/bin/env bash
# A real two-rank job under Open MPI's mpirun or Slurm's srun (the private one-node cluster of
# tests/integration/cluster) with `threadmap run --ranks auto --gpus --topology X --record DIR`,
# X being a recording of this machine with GPUs (hwloc's DGX-2 cut to CPUs 0-1). The launcher
# names the GPUs -- mpirun exports CUDA_VISIBLE_DEVICES=3,1 to both ranks, srun a step list
# SLURM_STEP_GPUS=5,2 -- and each rank must land next to its own GPU on its own CPU, the record
# must say which GPU, and `threadmap job` must find the six GPUs no rank drives and nothing else
# about GPUs.
#   launcher_gpu_ranks.sh mpirun|srun THREADMAP DATA_DIR PRIVATE_SLURM
set -euo pipefail
launcher=$1 threadmap=$2 data=$3 private_slurm=$4
xml=$data/topologies/gpu/nvidia-dgx2-cpus0-1.xml
[ "$(nproc)" -ge 2 ] || { echo "FAIL: this test needs CPUs 0-1; nproc says $(nproc)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp) records=$(mktemp -d)
trap 'rm -rf "$out" "$records"' EXIT
case $launcher in
  mpirun)
    command -v mpirun >/dev/null || { echo "FAIL: mpirun not found (scripts/setup.sh)"; exit 1; }
    job=(mpirun -np 2 --bind-to none -x CUDA_VISIBLE_DEVICES=3,1 -x CUDA_DEVICE_ORDER=PCI_BUS_ID)
    want=(3 1) ;;
  srun)
    job=(env -u CUDA_VISIBLE_DEVICES SLURM_STEP_GPUS=5,2 "$private_slurm" srun -n 2 --cpu-bind=none --export=ALL)
    want=(5 2) ;;
  *) echo "FAIL: unknown launcher $launcher"; exit 1 ;;
esac
# Each rank prints its rank, its CPUs and what it was told, then stays long enough to be watched.
probe='r=${OMPI_COMM_WORLD_LOCAL_RANK:-$SLURM_LOCALID}; echo "rank $r cpus=$(grep Cpus_allowed_list /proc/self/status | cut -f2) cvd=${CUDA_VISIBLE_DEVICES-unset}"; sleep 0.6'
if ! timeout 150 "${job[@]}" "$threadmap" run --ranks auto --gpus --topology "$xml" --verbose \
    --record "$records" -- sh -c "$probe" >"$out" 2>&1; then
  echo "FAIL: the job failed:"; cat "$out"; exit 1
fi
cat "$out"
for r in 0 1; do
  grep -q "^rank $r cpus=$r " "$out" || { echo "FAIL: rank $r is not alone on CPU $r"; exit 1; }
  grep -q "rank $r/2 .*GPU ${want[$r]} (" "$out" || { echo "FAIL: rank $r is not placed by GPU ${want[$r]}"; exit 1; }
done
"$threadmap" job "$records" --json "$records/job.json" >/dev/null
python3 - "$records/job.json" "${want[@]}" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
want = [int(x) for x in sys.argv[2:]]
host = job["hosts"][0]
for r in host["rank_details"]:
    gpus = [g["index"] for g in r["gpus"]]
    assert gpus == [want[r["rank"]]], (r["rank"], gpus)
ids = [f["id"] for f in job["findings"]]
gpu = [f for f in job["findings"] if f["id"].startswith("gpu_")]
assert [f["id"] for f in gpu] == ["gpu_idle"], gpu
assert all(f"GPU {i} (" in gpu[0]["text"] for i in range(8) if i not in want), gpu[0]["text"]
print("ok: job: ranks on GPUs", want, "; gpu findings:", gpu[0]["text"])
PY
