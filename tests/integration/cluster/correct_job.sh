#!/usr/bin/env bash
# `threadmap job --strict` on real Open MPI jobs: a correct MPI + OpenMP job whose
# extra threads sleep (an OpenMP team at a passive barrier, a usleep helper, MPI's own threads)
# passes, although MPI_Init rebinds the main thread at start-up and each rank has more threads
# than CPUs; `job DIR --json DIR/job.json` does not make the next `job DIR` fail; planted
# faults (two ranks on one core, threads outside their share, a missing rank) still exit 3.
# Under srun (a private one-node Slurm, private_slurm.sh) only the correct job is run.
#   correct_job.sh mpirun|srun THREADMAP SLEEPING_TEAM
set -euo pipefail
launcher=$1 threadmap=$2 program=$3
here=$(cd "$(dirname "$0")" && pwd)
[ "$(nproc)" -ge 2 ] || { echo "FAIL: needs 2 CPUs (one per rank); nproc says $(nproc)"; exit 1; }
command -v mpirun >/dev/null || { echo "FAIL: mpirun not found (scripts/setup.sh installs openmpi-bin)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1
# Only the ranks get the OpenMP settings: GNU nproc honours OMP_NUM_THREADS, and the private
# Slurm sizes its node with nproc.
omp=(env OMP_NUM_THREADS=3 OMP_WAIT_POLICY=passive)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# job NAME [PREFIX...] -- runs 2 ranks under `threadmap run --ranks auto --record $work/NAME`;
# PREFIX goes between mpirun and threadmap (a planted binding), $wrap around the program.
job() {
  local name=$1; shift
  mkdir -p "$work/$name"
  local start=(mpirun -np 2 --bind-to none)
  [ "$launcher" = srun ] && start=("$here/private_slurm.sh" srun -n 2 --cpu-bind=none --mpi=pmix)
  timeout 150 "${start[@]}" "$@" "${omp[@]}" \
    "$threadmap" run --ranks auto --record "$work/$name" -- ${wrap:-} "$program" 0.8 \
    >"$work/$name.out" 2>&1 || { echo "FAIL: job $name failed:"; cat "$work/$name.out"; exit 1; }
}
strict() {  # strict NAME EXPECTED_STATUS [FINDING_ID]
  local st=0
  "$threadmap" job "$work/$1" --strict >"$work/$1.job" 2>&1 || st=$?
  cat "$work/$1.job"
  [ "$st" -eq "$2" ] || { echo "FAIL: job $1 --strict exited $st, expected $2"; exit 1; }
  if [ -n "${3:-}" ]; then
    grep -q "\[$3\]" "$work/$1.job" || { echo "FAIL: job $1: no [$3] finding"; exit 1; }
  fi
}

job correct
strict correct 0
"$threadmap" job "$work/correct" --json "$work/correct/job.json" >/dev/null
strict correct 0
grep -q "skipped .*job.json" "$work/correct.job" || { echo "FAIL: job.json was not recognised as ours"; exit 1; }
echo "ok: a correct job with sleeping threads passes --strict, also after job --json DIR/job.json"
[ "$launcher" = srun ] && exit 0

# A missing rank: rank 1's record is gone.
mkdir "$work/missing" && cp "$work/correct/"*.0.json "$work/missing/"
strict missing 3 missing_ranks

# Two ranks on one core: both processes bound to CPU 0 before threadmap splits (a launcher
# binding it keeps), so both shares are CPU 0.
job onecore taskset -c 0
strict onecore 3 shared_core

# Threads outside the share: 0.2 s after its start, each rank's program (all its threads) is
# moved to the other rank's CPU from outside, as an operator's taskset -a -p would. (A taskset
# in front of the program no longer plants this: the rank's rules pass through wrappers to the
# first program that creates a thread, which lands in its share.) The wrapper execs the
# program, so the watched process is the program.
cat >"$work/other_cpu.sh" <<'SH'
#!/bin/sh
(sleep 0.2; taskset -a -p -c $((1 - OMPI_COMM_WORLD_LOCAL_RANK)) $$ >/dev/null) &
exec "$@"
SH
chmod +x "$work/other_cpu.sh"
wrap=$work/other_cpu.sh job outside
strict outside 3 left_share
echo "ok: planted faults (missing rank, two ranks on one core, threads outside the share) exit 3"
