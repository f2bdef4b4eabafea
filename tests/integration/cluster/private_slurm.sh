#!/usr/bin/env bash
# Starts a private single-node Slurm cluster (munged + slurmctld + slurmd on this host, every file
# in a temporary directory, free ports), runs the command given after it with SLURM_CONF set,
# and stops the daemons on every exit path. If Slurm cannot start it says why (the daemons' log
# tails) and exits 1: a test that needs Slurm fails, it does not skip. TM_SLURM_TASK_PLUGIN
# picks the task plugin (default task/none; task/affinity binds each task as sites do).
#   private_slurm.sh CMD ARGS...
set -uo pipefail
for tool in munged slurmctld slurmd srun sinfo; do
  command -v "$tool" >/dev/null ||
    { echo "FAIL: $tool not found (scripts/setup.sh installs slurm-wlm and munge)"; exit 1; }
done
dir=$(mktemp -d /tmp/tm-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  local munge_pid=""
  [ -f "$dir/munged.pid" ] && munge_pid=$(cat "$dir/munged.pid") && kill "$munge_pid" 2>/dev/null
  # Leave nothing running: wait (5 s at most) for the daemons and their step daemons to go.
  for _ in $(seq 1 50); do
    alive=0
    for p in "${pids[@]}" $munge_pid; do kill -0 "$p" 2>/dev/null && alive=1; done
    pgrep -f "slurmstepd.*" >/dev/null 2>&1 && pgrep -af slurmstepd | grep -q "$dir" && alive=1
    [ $alive = 0 ] && break
    sleep 0.1
  done
  rm -rf "$dir"
}
trap cleanup EXIT
why() {
  echo "FAIL: $1"
  for log in munged.log slurmctld.log slurmd.log; do
    [ -f "$dir/$log" ] && { echo "--- $log (last lines)"; tail -n 15 "$dir/$log"; }
  done
  exit 1
}
# A port nothing listens on (bash's /dev/tcp connects when something does).
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}

# munge with a key of our own, on our own socket.
dd if=/dev/urandom of="$dir/munge.key" bs=1 count=1024 status=none
chmod 400 "$dir/munge.key"
mkdir -m 700 "$dir/munge"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" ||
  why "munged did not start"

host=$(hostname -s)
ctld_port=$(free_port) d_port=$(free_port)
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=threadmaptest
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=${TM_SLURM_TASK_PLUGIN:-task/none}
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$dir/slurmd.log" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 1 120); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || why "the node did not become idle in 60 s (sinfo says '${state:-nothing}')"
"$@"
