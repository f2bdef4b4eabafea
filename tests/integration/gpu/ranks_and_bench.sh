#!/usr/bin/env bash
# On this machine with a recorded GPU topology of it (hwloc's DGX-2 cut to CPUs 0-1 by lstopo
# --restrict; tests/data/topologies/README.md): `run --ranks K/N --gpus` sets the rank's GPU and
# confines it next to it; the launchers' variables (torchrun's LOCAL_RANK with
# CUDA_VISIBLE_DEVICES=3,1, Slurm's, Open MPI's) are read; bad input is one line; the
# `plan --export wrapper` script places a rank by its local rank; `bench gpu-locality` says "not
# supported" without a CUDA driver and measures through one (a stand-in, fake_cuda.c).
#   ranks_and_bench.sh THREADMAP DATA_DIR FAKE_LIB_DIR
set -uo pipefail
threadmap=$1 data=$2 fakes=$3
xml=$data/topologies/gpu/nvidia-dgx2-cpus0-1.xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(nproc)" -ge 2 ] || fail "this test needs CPUs 0-1 (nproc says $(nproc))"
# The program reports what it was given: its visible GPU, its NIC variables, its CPUs.
probe='echo "cvd=${CUDA_VISIBLE_DEVICES-unset} order=${CUDA_DEVICE_ORDER-unset} cpus=$(grep Cpus_allowed_list /proc/self/status | cut -f2)"'
uuid_of() { "$threadmap" topo --json --topology "$xml" | python3 -c "import json,sys; print(json.load(sys.stdin)['devices'][$1]['uuid'])"; }
uuid0=$(uuid_of 0) uuid3=$(uuid_of 3) uuid4=$(uuid_of 4)

# Explicit rank 1 of 2, no variable: the node planned as a whole, the two ranks spread over its
# eight GPUs (GPUs 0 and 4), named by UUID; CPU 1 of CPUs 0-1.
out=$(env -u CUDA_VISIBLE_DEVICES "$threadmap" run --ranks 1/2 --gpus --topology "$xml" --verbose -- sh -c "$probe" 2>"$work/err") ||
  { cat "$work/err"; fail "run --ranks 1/2 --gpus failed"; }
[ "$out" = "cvd=$uuid4 order=unset cpus=1" ] || { cat "$work/err"; fail "rank 1/2: got '$out'"; }
grep -q "GPU 4 (0000:57:00.0 Tesla V100-SXM3-32GB-H) \[GPU 4 in PCI bus order (nvidia-smi's) for local rank 1 of 2, the node planned as a whole" "$work/err" || { cat "$work/err"; fail "no --verbose placement line"; }
echo "ok: --ranks 1/2 --gpus: $out"
# --local-rank/--local-size are the same.
out=$(env -u CUDA_VISIBLE_DEVICES "$threadmap" run --local-rank 0 --local-size 2 --gpus --topology "$xml" -- sh -c "$probe") || fail "--local-rank"
[ "$out" = "cvd=$uuid0 order=unset cpus=0" ] || fail "--local-rank 0 --local-size 2: got '$out'"
echo "ok: --local-rank 0 --local-size 2: $out"

# torchrun: LOCAL_RANK=1 of 2 with CUDA_VISIBLE_DEVICES=3,1: physical GPU 1, the list kept (the
# program picks cuda:1 by LOCAL_RANK); both GPUs on CPUs 0-1, so rank 1 takes CPU 1.
out=$(LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 CUDA_VISIBLE_DEVICES=3,1 CUDA_DEVICE_ORDER=PCI_BUS_ID \
      "$threadmap" run --ranks auto --gpus --topology "$xml" --verbose -- sh -c "$probe" 2>"$work/err") ||
  { cat "$work/err"; fail "torchrun rank failed"; }
[ "$out" = "cvd=3,1 order=PCI_BUS_ID cpus=1" ] || { cat "$work/err"; fail "torchrun rank 1: got '$out'"; }
grep -q "GPU 1 (0000:36:00.0" "$work/err" || { cat "$work/err"; fail "torchrun rank 1 is not on GPU 1"; }
echo "ok: torchrun LOCAL_RANK=1 CUDA_VISIBLE_DEVICES=3,1: $out"
# Open MPI with a UUID per rank, Slurm's step list.
out=$(OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=1 CUDA_VISIBLE_DEVICES=$uuid3 \
      "$threadmap" run --ranks auto --gpus --topology "$xml" --verbose -- sh -c "$probe" 2>"$work/err") ||
  { cat "$work/err"; fail "UUID rank failed"; }
grep -q "GPU 3 (0000:3b:00.0" "$work/err" || { cat "$work/err"; fail "the UUID did not map to GPU 3"; }
echo "ok: CUDA_VISIBLE_DEVICES=<GPU 3's UUID>: $out"
out=$(env -u CUDA_VISIBLE_DEVICES SLURM_LOCALID=1 SLURM_STEP_TASKS_PER_NODE=2 SLURM_STEP_GPUS=6,2 \
      "$threadmap" run --ranks auto --gpus --topology "$xml" --verbose -- sh -c "$probe" 2>"$work/err") ||
  { cat "$work/err"; fail "Slurm rank failed"; }
grep -q "GPU 2 (0000:39:00.0" "$work/err" || { cat "$work/err"; fail "SLURM_STEP_GPUS=6,2 rank 1 is not on GPU 2"; }
echo "ok: SLURM_LOCALID=1 SLURM_STEP_GPUS=6,2: $out"

# Bad input: one line, exit 2, nothing run.
check_bad() {  # PHRASE ENV... -- ARGS...
  local phrase=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$threadmap" "$@" -- touch "$work/ran" >"$work/out" 2>"$work/err"
  local rc=$?
  [ "$rc" = 2 ] || { cat "$work/err"; fail "$* exited $rc, want 2"; }
  [ "$(wc -l <"$work/err")" = 1 ] && grep -qF -- "$phrase" "$work/err" || { cat "$work/err"; fail "$*: want one line with '$phrase'"; }
  [ ! -e "$work/ran" ] || fail "$*: the program ran"
  echo "ok: bad input: $(cat "$work/err")"
}
check_bad "bad --gpus: CUDA_VISIBLE_DEVICES='9': entry '9' is past the end: there are 8" CUDA_VISIBLE_DEVICES=9 -- run --ranks 0/1 --gpus --topology "$xml"
check_bad "bad GPU count 9 per rank: this node has 8" X=1 -- run --ranks 0/2 --gpus 9 --topology "$xml"
check_bad "no GPU found" X=1 -- run --ranks 0/1 --gpus --topology "$data/topologies/this-vm-kvm-2vcpu-epyc.xml"
check_bad "that this machine lacks" X=1 -- run --ranks 0/1 --gpus --topology "$data/topologies/gpu/nvidia-dgx2-16x-v100.xml"
check_bad "the program would see no GPU" CUDA_VISIBLE_DEVICES= -- run --ranks 0/1 --gpus --topology "$xml"

# The wrapper: rank 1 by Open MPI's variable; under torchrun the visible devices stay as given.
"$threadmap" plan --ranks 2 --gpus --topology "$xml" --export wrapper >"$work/wrapper.sh" || fail "plan --export wrapper"
out=$(env -u CUDA_VISIBLE_DEVICES -u LOCAL_RANK OMPI_COMM_WORLD_LOCAL_RANK=1 sh "$work/wrapper.sh" sh -c "$probe" 2>/dev/null) || fail "the wrapper failed"
[ "$out" = "cvd=$uuid4 order=unset cpus=1" ] || fail "wrapper rank 1: got '$out'"
out=$(env -u CUDA_VISIBLE_DEVICES LOCAL_RANK=1 sh "$work/wrapper.sh" sh -c "$probe" 2>/dev/null) || fail "the wrapper failed under LOCAL_RANK"
[ "$out" = "cvd=unset order=unset cpus=1" ] || fail "wrapper under torchrun: got '$out'"
echo "ok: plan --export wrapper: rank 1 on CPU 1 with GPU 4, torchrun's list left alone"

# bench gpu-locality: no driver here, then the stand-in driver.
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
  out=$("$threadmap" bench gpu-locality --quick 2>&1) || fail "bench gpu-locality without a driver exited $?"
  grep -q "not supported: no CUDA driver (libcuda.so.1 not found)" <<<"$out" || fail "no 'not supported' line: $out"
  echo "ok: without a driver: $(grep 'not supported' <<<"$out")"
fi
LD_LIBRARY_PATH=$fakes "$threadmap" bench gpu-locality --quick --runs 3 --json "$work/bench.json" >"$work/bench.txt" 2>&1 ||
  { cat "$work/bench.txt"; fail "bench gpu-locality with the stand-in driver"; }
python3 - "$work/bench.json" <<'PY' || exit 1
import json, sys
b = json.load(open(sys.argv[1]))
assert b["available"], b
assert b["unit"] == "GB/s" and b["higher_is_better"], b
names = [v["name"] for v in b["variants"]]
assert names[0].startswith("h2d-node") and any(n.startswith("d2h-node") for n in names), names
assert all(v["available"] for v in b["variants"]), b["variants"]
assert any("0000:9a:00.0" in n for n in b["notes"]), b["notes"]
print("ok: bench gpu-locality through the stand-in driver:", names, b["notes"][-1])
PY
cat "$work/bench.txt"
