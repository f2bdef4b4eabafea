#!/usr/bin/env bash
# Every GPU, NIC and NVMe drive threadmap finds in hwloc's recorded GPU servers (and hwloc's
# replay of a recorded sysfs), checked against hwloc-calc run on the same file: the device's CPUs
# (hwloc-calc --po -I pu pci=BUSID, or os=NAME where the file gives two devices one bus id) and
# its NUMA node (-I numa: one node, else none); each device term (gpu:N, nic:NAME, pci:BUSID)
# resolved by `plan --ranks 1 --allowed TERM` to those CPUs; the text table and --summary's counts.
#   devices_against_hwloc.sh THREADMAP DATA_DIR
set -euo pipefail
threadmap=$1 data=$2
command -v hwloc-calc >/dev/null || { echo "FAIL: hwloc-calc not found (package hwloc)"; exit 1; }
python3 - "$threadmap" "$data"/topologies/gpu/*.xml "$data"/sysfs/*.xml <<'PY'
import collections, json, subprocess, sys

tm, files = sys.argv[1], sys.argv[2:]

def cpus(text):
    out = set()
    for part in filter(None, text.replace("\n", ",").split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out

def calc(f, what, location):
    r = subprocess.run(["hwloc-calc", "-i", f, "--po", "-I", what, location],
                       capture_output=True, text=True, check=True)
    return cpus(r.stdout.strip())

def run(*args):
    return subprocess.run([tm, *args], capture_output=True, text=True, check=True).stdout

checked = 0
for f in files:
    doc = json.loads(run("topo", "--json", "--topology", f))
    devices = doc["devices"]
    assert devices, f"{f}: no device found"
    text = run("topo", "--topology", f)
    # Bus ids the file gives to two PCI devices (hwloc's test files do, on purpose).
    xml = open(f).read()
    twice = {b for b, n in collections.Counter(
        x.split('"')[1] for x in xml.split("pci_busid=")[1:]).items() if n > 1}
    vendors = [d["vendor_id"] for d in devices if d["kind"] == "gpu"]
    compute = next((v for v in ("10de", "1002", "8086") if v in vendors), None)
    kinds = collections.Counter(d["kind"] for d in devices)
    for d in devices:
        bus = d["pci_bus_id"]
        names = d["netdevs"] + d["rdma"] + d["block"] + d["os_names"]
        location = f"os={names[0]}" if bus in twice else f"pci={bus}"
        want = calc(f, "pu", location)
        assert cpus(d["cpus"]) == want, f"{f} {bus}: cpus {d['cpus']}, hwloc-calc {sorted(want)}"
        nodes = calc(f, "numa", location)
        want_node = next(iter(nodes)) if len(nodes) == 1 else None
        assert d["numa_node"] == want_node, f"{f} {bus}: node {d['numa_node']}, hwloc-calc {nodes}"
        if d["kind"] == "gpu" and d["vendor_id"] == compute:
            term = f"gpu:{d['index']}"
        elif d["kind"] == "nic" and (d["netdevs"] or d["rdma"]) and bus not in twice:
            term = f"nic:{(d['rdma'] or d['netdevs'])[0]}"
        else:
            term = f"pci:{bus}"
        if bus in twice and term.startswith("pci:"):
            continue  # the file's own ambiguity: hwloc-calc and we may pick different twins
        plan = json.loads(run("plan", "--ranks", "1", "--allowed", term, "--topology", f, "--json"))
        got = cpus(plan["ranks"][0]["cpus"])
        assert got == want, f"{f} {term}: plan gives {sorted(got)}, hwloc-calc {sorted(want)}"
        assert bus in text, f"{f}: {bus} missing from the topo text"
        checked += 1
    summary = run("topo", "--summary", "--topology", f)
    g, n = kinds["gpu"], kinds["nic"]
    want = f"{g} GPU{'' if g == 1 else 's'}, {n} NIC{'' if n == 1 else 's'}, {kinds['nvme']} NVMe"
    assert want in summary, f"{f}: summary {summary!r} lacks {want!r}"
    print(f"ok: {f.split('/')[-1]}: {len(devices)} devices ({dict(kinds)}) as hwloc-calc says")
print(f"ok: {checked} devices checked against hwloc-calc")
PY
# This machine: topo still works with I/O discovery on, and says where its devices come from.
"$threadmap" topo | grep -q "^devices" || { echo "FAIL: no devices section in topo on this machine"; exit 1; }
"$threadmap" topo --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert "devices" in d and "device_sources" in d, d.keys(); print("ok: this machine:", d["device_sources"], len(d["devices"]), "devices;", d["device_notes"])'
