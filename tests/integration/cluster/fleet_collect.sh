#!/usr/bin/env bash
# The fleet collection lines of README.md and docs/fleet.md, run under the real launcher: the
# report collected the documented way sees every CPU of the node (no binding narrower than the
# cgroup); the same line without the documented switch is bound by the launcher (Open MPI's
# default --bind-to core, Slurm's task/affinity) and the report says so on its first line and in
# its JSON. The report runs with a short budget: what is checked is which CPUs it measured.
#   fleet_collect.sh mpirun|srun THREADMAP
set -euo pipefail
launcher=$1 threadmap=$2
here=$(cd "$(dirname "$0")" && pwd)
cpus=$(nproc)
[ "$cpus" -ge 2 ] || { echo "FAIL: this test needs 2 CPUs; nproc says $cpus"; exit 1; }
all=$(python3 -c "import os; s=sorted(os.sched_getaffinity(0)); print(f'{s[0]}-{s[-1]}' if s==list(range(s[0],s[-1]+1)) else ','.join(map(str,s)))")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
report=(report --quick --budget 4)
case $launcher in
  mpirun)
    command -v mpirun >/dev/null || { echo "FAIL: mpirun not found (scripts/setup.sh installs openmpi-bin)"; exit 1; }
    documented=(mpirun --map-by ppr:1:node --bind-to none)
    default=(mpirun --map-by ppr:1:node)
    run() { timeout 120 "$@"; } ;;
  srun)
    export TM_SLURM_TASK_PLUGIN=task/affinity
    # srun --exclusive alone makes the step --exact (Slurm 22.05): one CPU per task; the whole
    # node comes with an exclusive allocation (salloc/sbatch --exclusive), srun inside it.
    documented=(salloc --nodes=1 --exclusive srun --ntasks-per-node=1 --cpu-bind=none)
    default=(srun --nodes=1 --ntasks-per-node=1)
    run() { timeout 150 "$here/private_slurm.sh" "$@"; } ;;
  *) echo "FAIL: unknown launcher $launcher"; exit 1 ;;
esac

# One report per line, as a fleet collects them (%h = the host's name).
collect() {  # NAME LAUNCHER...
  local name=$1; shift
  mkdir -p "$dir/$name"
  if ! run "$@" "$threadmap" "${report[@]}" --out "$dir/$name/%h" >"$dir/$name.out" 2>"$dir/$name.err"; then
    echo "FAIL: '$*' failed:"; cat "$dir/$name.out" "$dir/$name.err"; exit 1
  fi
  ls "$dir/$name"/*/report.json >/dev/null || { echo "FAIL: no report from '$*'"; cat "$dir/$name.err"; exit 1; }
}

collect documented "${documented[@]}"
python3 - "$dir"/documented/*/report.json "$all" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); all_cpus = sys.argv[2]
b = r["binding"]
assert r["usable_cpus"] == all_cpus, f"the documented line measured {r['usable_cpus']}, not {all_cpus}"
assert b["narrower"] is False and b["finding"] is None, b
assert r["latency"]["available"] is True, r["latency"]
print(f"ok: documented line measured CPUs {r['usable_cpus']} (launcher {b['launcher']})")
PY
if grep -q "warning: bound" "$dir/documented.err"; then
  echo "FAIL: the documented line printed a binding warning:"; cat "$dir/documented.err"; exit 1
fi

# Without the switch the launcher binds the task: said first, in the JSON, and on the page.
collect default "${default[@]}"
python3 - "$dir"/default/*/report.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b = r["binding"]
assert b["narrower"] is True, b
f = b["finding"]
assert "bound to" in f and ("--bind-to none" in f or "--cpu-bind=none" in f), b
print(f"ok: the launcher's default binding ({b['affinity']} of {b['cgroup']}) is said: {b['finding']}")
PY
# The launcher's own lines ("srun: job 3 queued ...") are not ours.
first=$(grep -v -E '^\s*$|^(srun|salloc): ' "$dir/default.err" | head -1)
case $first in
  *"threadmap report: warning: bound to"*) echo "ok: first line: $first" ;;
  *) echo "FAIL: the first line does not say the binding: $first"; cat "$dir/default.err"; exit 1 ;;
esac
grep -q 'id="binding"' "$dir"/default/*/report.html || { echo "FAIL: the page does not say the binding"; exit 1; }
head -1 "$dir/default.out" | grep -q "^warning: bound to" || { echo "FAIL: stdout does not start with the binding"; cat "$dir/default.out"; exit 1; }
echo "ok: $launcher"
