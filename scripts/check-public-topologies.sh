#!/usr/bin/env bash
# Checks threadmap's devices against public recorded topologies that are not part of this
# repository: hwloc's test XMLs (tests/hwloc/xml/*.xml of an hwloc clone) and LLNL mpibind's
# node topologies (topo-xml/*.xml of an mpibind clone). Nothing is copied here: the files are
# extracted from the given git directories into a temporary folder and removed afterwards.
#
# For every file with I/O devices it compares, against hwloc-calc run on the same file:
#   - each device's CPUs and NUMA node (hwloc-calc -I pu / -I numa, pci=BUSID or os=NAME);
#   - each device term threadmap accepts (gpu:N, nic:NAME, pci:BUSID) resolved by
#     `plan --ranks 1 --allowed TERM` to the CPUs hwloc-calc gives the same device;
# and each GPU's runtime index against the names the vendors' libraries gave it when the file
# was recorded: ROCm SMI's rsmiN and OpenCL's openclPdN (ROCm's order: threadmap's gpu:N must be
# the rank of N), NVML's nvmlN (NVIDIA's bus order), CUDA's cudaN (CUDA's default fastest-first
# order at recording time: listed, not an error where it differs), Level Zero's zeN.
#
#   scripts/check-public-topologies.sh THREADMAP HWLOC_GIT_DIR MPIBIND_GIT_DIR
# (a git directory: a bare clone or a .git folder; read with git show). hwloc's files are taken
# at its newest 2.x release tag (HWLOC_REF overrides): its master writes XML format 3.0, which
# the hwloc 2 library threadmap builds against cannot read.
# Prints one line per file and the totals; exits 1 when any comparison that must agree does not.
set -euo pipefail
threadmap=$1 hwloc_git=$2 mpibind_git=$3
command -v hwloc-calc >/dev/null || { echo "hwloc-calc not found (package hwloc)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
extract() {  # GIT_DIR REF PREFIX DEST
  mkdir -p "$4"
  git -C "$1" ls-tree -r --name-only "$2" -- "$3" | grep '\.xml$' | while read -r path; do
    git -C "$1" show "$2:$path" >"$4/$(basename "$path")"
  done
}
hwloc_ref=${HWLOC_REF:-$(git -C "$hwloc_git" tag -l 'hwloc-2.*' --sort=-v:refname |
  grep -E '^hwloc-2\.[0-9]+\.[0-9]+$' | head -1)}
hwloc_ref=${hwloc_ref:-HEAD}
extract "$hwloc_git" "$hwloc_ref" tests/hwloc/xml "$work/hwloc"
extract "$mpibind_git" HEAD topo-xml "$work/mpibind"
echo "sources: hwloc $hwloc_ref ($(git -C "$hwloc_git" rev-parse --short "$hwloc_ref^{commit}")), mpibind HEAD ($(git -C "$mpibind_git" rev-parse --short HEAD))"
python3 - "$threadmap" "$work"/hwloc/*.xml "$work"/mpibind/*.xml <<'PY'
import collections, json, re, subprocess, sys

tm, files = sys.argv[1], sys.argv[2:]
totals = collections.Counter()
failures = []


def cpus(text):
    out = set()
    for part in filter(None, text.replace("\n", ",").split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def calc(f, what, location):
    r = subprocess.run(["hwloc-calc", "-i", f, "--po", "-I", what, location],
                       capture_output=True, text=True)
    return cpus(r.stdout.strip()) if r.returncode == 0 else None


def run(*args):
    return subprocess.run([tm, *args], capture_output=True, text=True)


def ranks(numbers):
    s = sorted(numbers)
    return [s.index(n) for n in numbers]


def order_checks(name, gpus):
    """The runtime index against the numbers the vendors' libraries recorded."""
    for pattern, vendor, label, must in ((r"^rsmi(\d+)$", "1002", "ROCm SMI", True),
                                         (r"^opencl\d+d(\d+)$", "1002", "OpenCL", True),
                                         (r"^nvml(\d+)$", "10de", "NVML", True),
                                         (r"^cuda(\d+)$", "10de", "CUDA", False),
                                         (r"^ze(\d+)$", "8086", "Level Zero", False)):
        own = [g for g in gpus if g["vendor_id"] == vendor]
        nums = []
        for g in own:
            found = [int(m.group(1)) for n in g["os_names"] for m in [re.match(pattern, n)] if m]
            nums.append(found[0] if len(found) == 1 else None)
        if not own or None in nums or len(set(nums)) != len(nums):
            continue
        want = ranks(nums)
        got = [g["index"] for g in own]
        same = sum(a == b for a, b in zip(want, got))
        totals[f"order {label} GPUs"] += len(own)
        totals[f"order {label} equal"] += same
        bus_same = sum(a == g["bus_index"] for a, g in zip(want, own))
        totals[f"order {label} equal to bus order"] += bus_same
        if same != len(own) and must:
            failures.append(f"{name}: {label} order {want}, threadmap {got}")


for f in files:
    name = f.split("/")[-1]
    r = run("topo", "--json", "--topology", f)
    if r.returncode != 0:
        totals["files not loaded"] += 1
        print(f"skip: {name}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
        continue
    devices = json.loads(r.stdout)["devices"]
    if not devices:
        totals["files without devices"] += 1
        continue
    totals["files with devices"] += 1
    xml = open(f, errors="replace").read()
    twice = {b for b, n in collections.Counter(
        x.split('"')[1] for x in xml.split("pci_busid=")[1:]).items() if n > 1}
    vendors = [d["vendor_id"] for d in devices if d["kind"] == "gpu"]
    compute = next((v for v in ("10de", "1002", "8086") if v in vendors), None)
    kinds = collections.Counter(d["kind"] for d in devices)
    equal = checked = 0
    for d in devices:
        totals["devices"] += 1
        bus = d["pci_bus_id"]
        names = d["netdevs"] + d["rdma"] + d["block"] + d["os_names"]
        location = f"os={names[0]}" if (bus in twice or d.get("partition") is not None) and names \
            else f"pci={bus}"
        want = calc(f, "pu", location)
        if want is None:
            totals["devices hwloc-calc cannot name"] += 1
            continue
        nodes = calc(f, "numa", location) or set()
        want_node = next(iter(nodes)) if len(nodes) == 1 else None
        totals["device CPU sets compared"] += 1
        if cpus(d["cpus"]) == want and d["numa_node"] == want_node:
            totals["device CPU sets and nodes equal"] += 1
        else:
            failures.append(f"{name} {bus}: cpus {d['cpus']} node {d['numa_node']}, "
                            f"hwloc-calc {sorted(want)} node {nodes}")
        terms = []
        if d["kind"] == "gpu":
            totals[f"GPUs numbered by: {d['runtime_order']}"] += 1
        if d["kind"] == "gpu" and d["vendor_id"] == compute and d["runtime_order"] != "unknown":
            terms.append(f"gpu:{d['index']}")
        if d["kind"] == "nic" and bus not in twice:
            terms += [f"nic:{n}" for n in d["rdma"] + d["netdevs"]]
        if bus not in twice:
            terms.append(f"pci:{bus}")
        for term in terms:
            p = run("plan", "--ranks", "1", "--allowed", term, "--topology", f, "--json")
            checked += 1
            kind = term.split(":")[0]
            totals[f"{kind}: expressions"] += 1
            got = cpus(json.loads(p.stdout)["ranks"][0]["cpus"]) if p.returncode == 0 else None
            # A device hwloc attaches to no CPU: hwloc-calc prints none, plan refuses the empty set.
            both_empty = not want and p.returncode != 0 and "is empty" in p.stderr
            if got == want or both_empty:
                equal += 1
                totals[f"{kind}: expressions equal"] += 1
            else:
                failures.append(f"{name} {term}: plan {p.stderr.strip() or sorted(got)}, "
                                f"hwloc-calc {sorted(want)}")
    order_checks(name, [d for d in devices if d["kind"] == "gpu"])
    print(f"ok: {name}: {dict(kinds)}, {equal}/{checked} expressions equal")
print("totals:")
for k in sorted(totals):
    print(f"  {k}: {totals[k]}")
for line in failures:
    print("DIFFERS:", line)
sys.exit(1 if failures else 0)
PY
