#!/usr/bin/env bash
# threadmap fleet end to end: a real `report --quick --out DIR/%h` of this machine, copied into
# four more hosts (their HostName changed), one of them with a different kernel and one CPU
# missing; `fleet --json -` reports exactly that host with those two differences, --strict exits
# 3, the text names it, and --html writes a page.
# Then a host a launcher narrowed (the finding says why) and a second report of one HostName
# (named with its file).
#   fleet_cli.sh THREADMAP
set -euo pipefail
threadmap=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/fleet"  # DIR exists (a shared directory); report makes DIR/<host>
"$threadmap" report --quick --out "$dir/fleet/%h" >/dev/null 2>"$dir/report.err" ||
  { echo "FAIL: report"; cat "$dir/report.err"; exit 1; }
host=$(hostname -s)
[ -f "$dir/fleet/$host/report.json" ] ||
  { echo "FAIL: report --out DIR/%h did not write DIR/$host/report.json"; ls -R "$dir"; exit 1; }
python3 - "$dir/fleet" "$host" <<'PY'
import json, os, sys
root, host = sys.argv[1], sys.argv[2]
base = json.load(open(os.path.join(root, host, "report.json")))
for name in ["n1", "n2", "n3", "n4"]:
    doc = json.loads(json.dumps(base))
    topo = doc["topology"]["topology"]
    topo["machine_infos"]["HostName"] = name
    if name == "n3":
        topo["machine_infos"]["OSRelease"] = "4.19.0-old"
        topo["counts"]["pus"] -= 1
        topo["complete_cpus"] = topo["complete_cpus"] + ",999"  # a different CPU set
    os.makedirs(os.path.join(root, name))
    json.dump(doc, open(os.path.join(root, name, "report.json"), "w"))
PY
"$threadmap" fleet "$dir/fleet" --json - >"$dir/fleet.json"
python3 - "$dir/fleet.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
assert f["schema"] == "threadmap.fleet/1" and f["hosts"] == 5, f
outliers = {o["host"]: sorted(d["kind"] for d in o["differences"]) for o in f["outliers"]}
assert outliers == {"n3": ["kernel", "missing_cpus"]}, outliers
print("ok: fleet found n3 (kernel, missing CPUs) and nothing else")
PY
status=0
"$threadmap" fleet "$dir/fleet" --strict --html "$dir/fleet.html" >"$dir/fleet.txt" || status=$?
[ "$status" = 3 ] || { echo "FAIL: --strict exited $status, not 3"; exit 1; }
grep -q "n3" "$dir/fleet.txt" || { echo "FAIL: the text does not name n3"; cat "$dir/fleet.txt"; exit 1; }
grep -q "</html>" "$dir/fleet.html" || { echo "FAIL: no HTML page"; exit 1; }
echo "ok: --strict, text and HTML"

# A host a launcher narrowed: its allowed CPUs differ, and the finding carries the reason its
# report recorded. Two reports of one HostName (a copy) are told apart by their files.
python3 - "$dir/fleet" <<'PY'
import json, os, sys
root = sys.argv[1]
base = json.load(open(os.path.join(root, "n1", "report.json")))
doc = json.loads(json.dumps(base))
doc["topology"]["topology"]["machine_infos"]["HostName"] = "n5"
doc["topology"]["topology"]["allowed_cpus"] = "0"
doc["binding"] = {"finding": "srun bound this process to CPU 0 of 0-1"}
os.makedirs(os.path.join(root, "n5"))
json.dump(doc, open(os.path.join(root, "n5", "report.json"), "w"))
copy = json.loads(json.dumps(base))  # n1 again, rebooted into another kernel
copy["topology"]["topology"]["machine_infos"]["OSRelease"] = "5.10.0-other"
os.makedirs(os.path.join(root, "n1-copy"))
json.dump(copy, open(os.path.join(root, "n1-copy", "report.json"), "w"))
PY
"$threadmap" fleet "$dir/fleet" --json - >"$dir/fleet2.json"
python3 - "$dir/fleet2.json" "$dir/fleet" <<'PY'
import json, sys
f, root = json.load(open(sys.argv[1])), sys.argv[2]
texts = {o["host"]: [d["text"] if "text" in d else str(d) for d in o["differences"]]
         for o in f["outliers"]}
n5 = [t for t in texts.get("n5", []) if "allowed" in t]
assert n5 and "its report: srun bound this process to CPU 0 of 0-1" in n5[0], texts
assert f"n1 ({root}/n1-copy/report.json)" in texts, list(texts)
print("ok: the allowed-CPUs finding says why; two reports of n1 are told apart")
PY
