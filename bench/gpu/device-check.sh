#!/usr/bin/env bash
# device-check.sh KIT OUT -- threadmap's device checks on a machine with an NVIDIA GPU, in under
# 3 minutes, each step under `timeout` (the limits add up to 179 s at most). Not run by CI;
# nothing depends on it. KIT holds bin/ (threadmap, its preload libraries) and lib/ (the shared
# libraries they need, not glibc's), as a carry-kit script makes it from the built binaries.
# Everything lands in OUT (8 files at most):
#   summary.txt   every step: its command, exit status, seconds and output, then the checks
#   topo.txt      threadmap topo                  topo.json   threadmap topo --json
#   plan.json     threadmap plan --ranks 2 --gpus --json (one GPU: the refusal is in summary.txt,
#                 plan.json is --ranks 1)
#   job.json      threadmap job DIR --json of the 2-rank job
#   bench.json    threadmap bench gpu-locality --quick --json
#   records/      the job's two rank records
# The checks compare threadmap's GPUs with nvidia-smi (index, bus id, UUID, CPU and NUMA
# affinity of `nvidia-smi topo -m`) and with sysfs (numa_node, local_cpulist); each says "same"
# or the difference. On a machine without a GPU every step says why it has nothing.
set -u
[ $# -eq 2 ] || { echo "usage: $0 KIT OUT" >&2; exit 2; }
kit=$(cd "$1" && pwd) out=$2
mkdir -p "$out/records" || exit 1
out=$(cd "$out" && pwd)
tm=$kit/bin/threadmap
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
summary=$out/summary.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start_all=$(date +%s)
: >"$summary"

# step SECONDS TITLE CMD...: runs CMD under timeout, output into the summary.
step() {
  local limit=$1 title=$2; shift 2
  local t0=$(date +%s%N)
  echo "=== $title" >>"$summary"
  echo "\$ $*" >>"$summary"
  timeout "$limit" "$@" >"$work/step.out" 2>&1
  local rc=$?
  head -c 200000 "$work/step.out" >>"$summary"
  local ms=$((($(date +%s%N) - t0) / 1000000))
  echo "--- exit $rc$([ $rc = 124 ] && echo ' (timed out)') after $ms ms" >>"$summary"
  echo >>"$summary"
  return $rc
}
note() { echo "$*" >>"$summary"; }

note "device-check on $(hostname) at $(date -u +%FT%TZ); kit $kit"
note "uname: $(uname -srm); CPUs: $(nproc); glibc: $(ldd --version 2>&1 | head -1)"
[ -x "$tm" ] || { note "no threadmap in $kit/bin: nothing to check"; exit 1; }
step 3 "threadmap version" "$tm" --version

# 1. What the vendor's tools and the kernel say.
if command -v nvidia-smi >/dev/null; then
  step 8 "nvidia-smi -L" nvidia-smi -L
  step 8 "nvidia-smi topo -m" nvidia-smi topo -m
  step 8 "nvidia-smi query" nvidia-smi --query-gpu=index,pci.bus_id,uuid,name,mig.mode.current --format=csv,noheader
  cp "$work/step.out" "$work/smi-query.csv"
  nvidia-smi topo -m >"$work/smi-topo.txt" 2>/dev/null
else
  note "nvidia-smi: not found (no NVIDIA driver tools here)"
fi
{
  echo "=== sysfs PCI facts of every GPU (class 03) and NIC (class 02, 0c06)"
  for d in /sys/bus/pci/devices/*; do
    cls=$(cat "$d/class" 2>/dev/null)
    case $cls in 0x03*|0x02*|0x0c06*) ;; *) continue ;; esac
    echo "$(basename "$d") class=$cls vendor=$(cat "$d/vendor") device=$(cat "$d/device") numa_node=$(cat "$d/numa_node" 2>/dev/null || echo absent) local_cpulist=$(cat "$d/local_cpulist" 2>/dev/null || echo absent) net=$(ls "$d/net" 2>/dev/null | tr '\n' ' ')rdma=$(ls "$d/infiniband" 2>/dev/null | tr '\n' ' ')"
  done
  echo "NUMA nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
  echo
} >>"$summary"

# 2. threadmap's view, and the two compared.
step 12 "threadmap topo" "$tm" topo && cp "$work/step.out" "$out/topo.txt"
step 12 "threadmap topo --json (into topo.json)" "$tm" topo --json && cp "$work/step.out" "$out/topo.json"
step 8 "threadmap topo --summary" "$tm" topo --summary
timeout 8 python3 - "$out/topo.json" "$work/smi-query.csv" "$work/smi-topo.txt" >>"$summary" 2>&1 <<'PY'
import json, os, re, sys
print("=== checks: threadmap's GPUs against nvidia-smi and sysfs")
try:
    topo = json.load(open(sys.argv[1]))
except Exception as e:
    print("no topo JSON:", e); sys.exit(0)
def cpus(text):
    s = set()
    for part in filter(None, text.strip().split(",")):
        a, _, b = part.partition("-")
        if a.strip().isdigit(): s.update(range(int(a), int(b or a) + 1))
    return s
gpus = [d for d in topo.get("devices", []) if d["kind"] == "gpu"]
print(f"threadmap: {len(gpus)} GPU(s), sources: {topo.get('device_sources')}")
for n in topo.get("device_notes", []): print("threadmap note:", n)
smi = []
if os.path.exists(sys.argv[2]):
    for line in open(sys.argv[2]):
        f = [x.strip() for x in line.split(",")]
        if len(f) >= 4 and f[0].isdigit(): smi.append(f)
affinity = {}
if os.path.exists(sys.argv[3]):
    lines = open(sys.argv[3]).read().splitlines()
    head = next((l for l in lines if "CPU Affinity" in l), None)
    if head:
        cols = re.split(r"\t+", head.strip())
        for l in lines:
            m = re.match(r"^(GPU\d+)\s", l)
            if not m: continue
            cells = re.split(r"\t+", l.strip())
            # The row is the GPU's name, its links, then CPU Affinity, NUMA Affinity, GPU NUMA ID.
            cpu_at = cols.index("CPU Affinity") if "CPU Affinity" in cols else None
            if cpu_at is not None and len(cells) > cpu_at + 1:
                affinity[int(m.group(1)[3:])] = (cells[cpu_at + 1], cells[cpu_at + 2] if len(cells) > cpu_at + 2 else "")
for g in gpus:
    i, bus = g["index"], g["pci_bus_id"]
    line = f"GPU {i} {bus}: threadmap node {g['numa_node']} cpus {g['cpus']} uuid {g['uuid']}"
    row = next((r for r in smi if int(r[0]) == i), None)
    if row:
        smi_bus = row[1].lower()[-12:]
        line += f"; nvidia-smi index {row[0]} bus {row[1]} uuid {row[2]}: "
        line += "bus same" if smi_bus == bus else "BUS DIFFERS"
        line += ", uuid same" if row[2] == g["uuid"] else ", UUID DIFFERS"
    if i in affinity:
        a_cpus, a_node = affinity[i]
        line += f"; topo -m CPU Affinity {a_cpus} NUMA {a_node}: "
        line += "cpus same" if cpus(a_cpus) == cpus(g["cpus"]) else "CPUS DIFFER"
        if a_node.strip().isdigit():
            line += ", node same" if g["numa_node"] == int(a_node) else ", NODE DIFFERS"
    base = f"/sys/bus/pci/devices/{bus}"
    if os.path.isdir(base):
        node = open(base + "/numa_node").read().strip()
        local = open(base + "/local_cpulist").read().strip()
        line += f"; sysfs numa_node {node} local_cpulist {local}: "
        line += "cpus same" if cpus(local) == cpus(g["cpus"]) else "CPUS DIFFER"
        sys_node = None if node == "-1" else int(node)
        line += ", node same" if sys_node == g["numa_node"] or (sys_node is None and g["numa_node"] == 0) else ", NODE DIFFERS"
    print(line)
if not gpus: print("no GPU found by threadmap: nothing to compare")
print()
PY

# 3. Placement for ranks with GPUs.
# With one GPU two ranks are refused (ranks never share a GPU by threadmap's choice): the
# refusal is recorded and plan.json holds the one-rank plan instead.
if step 8 "threadmap plan --ranks 2 --gpus --json" "$tm" plan --ranks 2 --gpus --json; then
  cp "$work/step.out" "$out/plan.json"
else
  step 8 "threadmap plan --ranks 1 --gpus --json" "$tm" plan --ranks 1 --gpus --json && cp "$work/step.out" "$out/plan.json"
fi
step 8 "threadmap plan --ranks 2 --gpus --export slurm" "$tm" plan --ranks 2 --gpus --export slurm

# 4. A 2-rank job: real mpirun when there is one, else two ranks started by hand with Open MPI's
# variables. With one GPU both ranks are given GPU 0 by CUDA_VISIBLE_DEVICES (the launcher's
# choice: threadmap refuses to share a GPU by itself), so `job` must report gpu_shared.
gpus=$(python3 -c 'import json,sys; print(sum(1 for d in json.load(open(sys.argv[1])).get("devices",[]) if d["kind"]=="gpu"))' "$out/topo.json" 2>/dev/null || echo 0)
note "GPUs threadmap found: $gpus"
# Each rank: pinned host memory copied to its GPU (torch when present), then what it was given.
cat >"$work/rank.py" <<'PY'
import os, time
t0 = time.time()
try:
    import torch
    x = torch.empty(256 << 20, dtype=torch.uint8).pin_memory()
    d = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(40):
        d.copy_(x)
    torch.cuda.synchronize()
    what = "torch %s sees %d GPU(s), cuda:0 = %s" % (
        torch.__version__, torch.cuda.device_count(), torch.cuda.get_device_name(0))
except Exception as e:
    what = "no torch work: %s" % e
    time.sleep(2)
env = os.environ.get
print("rank %s: CUDA_VISIBLE_DEVICES=%s CUDA_DEVICE_ORDER=%s UCX_NET_DEVICES=%s NCCL_IB_HCA=%s "
      "cpus=%s %s (%.1f s)" % (env("OMPI_COMM_WORLD_LOCAL_RANK"), env("CUDA_VISIBLE_DEVICES"),
                              env("CUDA_DEVICE_ORDER"), env("UCX_NET_DEVICES"), env("NCCL_IB_HCA"),
                              sorted(os.sched_getaffinity(0)), what, time.time() - t0), flush=True)
PY
rm -rf "$work/records"; mkdir -p "$work/records"
one_gpu=()
[ "$gpus" = 1 ] && one_gpu=(CUDA_VISIBLE_DEVICES=0)
if command -v mpirun >/dev/null; then
  mpi_gpu=()
  [ "$gpus" = 1 ] && mpi_gpu=(-x CUDA_VISIBLE_DEVICES=0)
  step 50 "mpirun 2 ranks: run --ranks auto --gpus --record" mpirun --allow-run-as-root -np 2 --bind-to none \
    "${mpi_gpu[@]}" "$tm" run --ranks auto --gpus --verbose --record "$work/records" -- python3 "$work/rank.py"
else
  note "mpirun: not found; two ranks started by hand with OMPI_COMM_WORLD_LOCAL_RANK/SIZE ${one_gpu[*]}"
  for r in 0 1; do
    env "${one_gpu[@]}" OMPI_COMM_WORLD_LOCAL_RANK=$r OMPI_COMM_WORLD_LOCAL_SIZE=2 OMPI_COMM_WORLD_RANK=$r \
      timeout 50 "$tm" run --ranks auto --gpus --verbose --record "$work/records" -- python3 "$work/rank.py" \
      >"$work/rank$r.out" 2>&1 &
  done
  wait
  for r in 0 1; do note "=== rank $r (by hand)"; cat "$work/rank$r.out" >>"$summary"; note; done
fi
n=0
for f in "$work"/records/*.json; do
  [ -e "$f" ] || continue
  n=$((n + 1)); [ $n -le 2 ] && cp "$f" "$out/records/"
done
note "rank records: $n"
step 8 "threadmap job (JSON into job.json)" "$tm" job "$work/records" --json "$out/job.json"

# 5. The bandwidth from each NUMA node.
step 30 "threadmap bench gpu-locality --quick" "$tm" bench gpu-locality --quick --json "$out/bench.json"
note "device-check done in $(( $(date +%s) - start_all )) s; files:"
(cd "$out" && find . -type f | sort | xargs ls -l) >>"$summary"
