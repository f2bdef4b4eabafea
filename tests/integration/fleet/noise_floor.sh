#!/usr/bin/env bash
# threadmap fleet on six real repeated reports of one 2-vCPU VM (two taken beside a CPU hog,
# tests/data/fleet/vm-repeats): they are one machine, so no outlier and `--strict` exits 0.
# Then planted copies: a different kernel, a missing CPU and 4x latency on an otherwise stable
# run are found, named, and exit 3; a 4x latency whose report says the machine was busy, and
# one whose matrix says it did not hold still, are set aside ("busy while measured on ...",
# "measurement unstable on ...") instead of outliers.
#   noise_floor.sh THREADMAP FIXTURES
set -euo pipefail
threadmap=$1 fixtures=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/fleet"
cp "$fixtures"/h*.json "$dir/fleet/"
status=0
"$threadmap" fleet "$dir/fleet" --strict --json "$dir/real.json" >"$dir/real.txt" || status=$?
cat "$dir/real.txt"
[ "$status" = 0 ] || { echo "FAIL: --strict exited $status on six repeats of one machine"; exit 1; }
python3 - "$dir/real.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
assert f["hosts"] == 6 and f["outliers"] == [], f["outliers"]
print("ok: six real repeats (two beside a CPU hog): no outliers, --strict exits 0")
PY
python3 - "$dir/fleet" <<'PY'
import json, os, sys
root = sys.argv[1]
base = json.load(open(os.path.join(root, "h4.json")))  # a run without a hog
def plant(name, edit):
    doc = json.loads(json.dumps(base))
    doc["topology"]["topology"]["machine_infos"]["HostName"] = name
    # Copies are not repeats: five copies of h4's benchmarks would shrink the group's spread.
    doc["benches"] = []
    edit(doc)
    json.dump(doc, open(os.path.join(root, name + ".json"), "w"))
def kernel(d): d["topology"]["topology"]["machine_infos"]["OSRelease"] = "5.10.0-28-amd64"
def missing_cpu(d):
    t = d["topology"]["topology"]
    t["complete_cpus"] = t["allowed_cpus"] = "0"
    t["counts"]["pus"] = t["counts"]["cores"] = 1
def slow(d):
    m = d["latency"]["matrix"]
    m["matrix"] = [[4 * v for v in row] for row in m["matrix"]]
    for p in m.get("pairs", []):
        for k in ("one_way_ns", "median_ns", "ns"):
            if isinstance(p.get(k), (int, float)): p[k] *= 4
def stable(d): d["latency"]["stability"] = {"state": "stable", "pairs_moved": 0, "pairs_checked": 1, "reason": "0 of 1 pairs moved"}
plant("p-kernel", kernel)
plant("p-missing", missing_cpu)
plant("p-slow", lambda d: (slow(d), stable(d)))
plant("p-busy", lambda d: (slow(d), stable(d), d.__setitem__("machine_state", {"verdict": "busy", "summary": "busy: others used 100% of CPUs 0-1 just before"})))
plant("p-unstable", lambda d: (slow(d), d["latency"].__setitem__("stability", {"state": "unstable", "pairs_moved": 1, "pairs_checked": 1, "reason": "1 of 1 pairs moved"})))
PY
status=0
"$threadmap" fleet "$dir/fleet" --strict --json "$dir/planted.json" >"$dir/planted.txt" || status=$?
cat "$dir/planted.txt"
[ "$status" = 3 ] || { echo "FAIL: --strict exited $status with planted differences, not 3"; exit 1; }
python3 - "$dir/planted.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
found = {o["host"]: sorted(d["kind"] for d in o["differences"]) for o in f["outliers"]}
assert set(found) == {"p-kernel", "p-missing", "p-slow"}, found
assert found["p-kernel"] == ["kernel"], found
assert "missing_cpus" in found["p-missing"], found
assert found["p-slow"] == ["latency"], found
aside = {a["host"]: a["reason"] for a in f["set_aside"]}
assert aside == {"p-busy": "busy", "p-unstable": "unstable"}, aside
print("ok: planted kernel, missing CPU and 4x latency found; busy and unstable runs set aside")
PY
grep -q "measurement unstable on p-unstable" "$dir/planted.txt" || { echo "FAIL: no 'measurement unstable on p-unstable'"; exit 1; }
grep -q "busy while measured on p-busy" "$dir/planted.txt" || { echo "FAIL: no 'busy while measured on p-busy'"; exit 1; }
echo "ok: the text names them"
