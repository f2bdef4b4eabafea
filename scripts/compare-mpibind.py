#!/usr/bin/env python3
"""Compares `threadmap plan --ranks N [--gpus K]` with mpibind's published test expectations.

Usage: scripts/compare-mpibind.py MPIBIND_DIR [THREADMAP_BINARY]

MPIBIND_DIR is a checkout of github.com/LLNL/mpibind (topo-xml/*.xml and
test-suite/expected/expected.*), or a bare git directory of it (read with `git show HEAD:...`).
Nothing is copied into this repository: the files are read where they are (or into a temporary
directory) and only the figures are printed.

For each case of each expected.* file (the topology its test-suite/*.c driver names), the
script runs threadmap with the case's task count, `--gpus K` when threadmap finds GPUs on the
node (K: the most GPUs mpibind gives one task, at least 1 -- threadmap takes the GPUs per rank
as input where mpibind derives them) and `--allowed` for a restricted case (a CPU list, or
numa:N for a memory restriction), and compares every task's CPUs and GPUs with mpibind's:
  equal        the same PUs
  same cores   the same cores (mpibind lists the PUs its SMT level uses; threadmap gives whole
               cores)
  superset     threadmap's share holds mpibind's (it also gives out CPUs mpibind leaves idle)
  different    anything else
GPUs are compared as sets of indexes (PCI bus order in both). Parameters threadmap has no
counterpart for (threads per task, smt level, gpu_optim=0, greedy) are printed with the case.

Then, on every topo-xml recording in which threadmap finds GPUs, for N in {1, 2, 3, GPUs,
2 x GPUs, PUs}, it checks `plan --ranks N --gpus` for "every PU of the node (hwloc-calc -I pu
all) in exactly one rank's share" and prints the cases that are not.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# The topology each test-suite driver (test-suite/*.c) loads with its expected file.
DRIVERS = {
    "coral-ea": "coral-ea-hwloc1.xml",
    "coral-lassen": "coral-lassen.xml",
    "cts1-quartz": "cts1-quartz-smt1.xml",
    "epyc-corona": "epyc-corona.xml",
}


def read_text(root, rel):
    path = os.path.join(root, rel)
    if os.path.exists(path):
        with open(path) as f:
            return f.read()
    return subprocess.run(["git", "-C", root, "show", "HEAD:" + rel], check=True,
                          capture_output=True, text=True).stdout


def cpu_list(text):
    out = set()
    for item in filter(None, text.split(",")):
        lo, _, hi = item.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def parse_expected(text):
    """Cases: params, description, per-task CPU sets and GPU sets."""
    cases, lines = [], [l.rstrip("\n") for l in text.splitlines()]
    i = 0
    while i < len(lines):
        m = re.match(r'# (\{"params".*\})\s*$', lines[i])
        if not m:
            i += 1
            continue
        params = json.loads(m.group(1))["params"]
        rest = [l for l in lines[i + 1:i + 8] if l.strip() and not l.startswith("#")]
        desc, _threads, cpus, gpus = rest[0], rest[1], rest[2], rest[3]
        cpus, gpus = cpus.strip().strip('"').split(";"), gpus.strip().strip('"').split(";")
        cases.append({"params": params, "desc": desc,
                      "cpus": [cpu_list(c) for c in cpus],
                      "gpus": [set(int(g) for g in filter(None, x.split(","))) for x in gpus]})
        i += 5
    return cases


def hwloc_cores(xml):
    """PU -> core (logical index), from hwloc-calc on the file."""
    n = int(subprocess.run(["hwloc-calc", "--if", "xml", "-i", xml, "-N", "core", "all"],
                           check=True, capture_output=True, text=True).stdout)
    core_of = {}
    for c in range(n):
        out = subprocess.run(["hwloc-calc", "--if", "xml", "-i", xml, "--po", "-I", "pu",
                              "core:%d" % c], check=True, capture_output=True, text=True).stdout
        for pu in cpu_list(out.strip()):
            core_of[pu] = c
    return core_of


def gpu_count(binary, xml):
    """The node's GPUs, from threadmap's refusal of more GPUs per rank than there are."""
    out = subprocess.run([binary, "plan", "--ranks", "1", "--gpus", "64", "--topology", xml],
                         capture_output=True, text=True)
    m = re.search(r"this node has (\d+) GPU", out.stderr)
    return int(m.group(1)) if m else 0


def run_threadmap(binary, xml, params, gpus, per_task):
    n = params["ntasks"]
    cmd = [binary, "plan", "--ranks", str(n), "--topology", xml, "--export", "rankfile",
           "--host", "node"]
    if gpus:
        cmd += ["--gpus", str(per_task)]
    if params["restr_set"] is not None:
        cmd += ["--allowed", params["restr_set"] if params["restrict_type"] == 0
                else "numa:" + params["restr_set"]]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, " ".join(cmd[1:]), out.stderr.strip()
    cpus = {int(m.group(1)): set(int(x) for x in m.group(2).split(","))
            for m in re.finditer(r"^rank (\d+)=node slot=([0-9,]+)", out.stdout, re.M)}
    gpu_sets = {int(m.group(1)): set(int(x) for x in re.findall(r"GPU (\d+) \(", m.group(2)))
                for m in re.finditer(r"^#   rank (\d+): (.*)$", out.stdout, re.M)}
    tasks = [(cpus.get(r, set()), gpu_sets.get(r, set())) for r in range(n)]
    return tasks, " ".join(cmd[1:]), ""


def classify(mine, theirs, core_of):
    if mine == theirs:
        return "equal"
    cores = lambda s: {core_of.get(p, -1 - p) for p in s}
    if cores(mine) == cores(theirs):
        return "same cores"
    if theirs <= mine:
        return "superset"
    return "different"


def list_topologies(root):
    folder = os.path.join(root, "topo-xml")
    if os.path.isdir(folder):
        return sorted(n for n in os.listdir(folder) if n.endswith(".xml"))
    out = subprocess.run(["git", "-C", root, "ls-tree", "--name-only", "HEAD", "topo-xml/"],
                         check=True, capture_output=True, text=True).stdout.split()
    return sorted(os.path.basename(n) for n in out if n.endswith(".xml"))


def whole_node(root, binary, tmp):
    """Every PU in exactly one share, on every recording with GPUs."""
    cases = good = 0
    for name in list_topologies(root):
        xml = os.path.join(tmp, name)
        with open(xml, "w") as f:
            f.write(read_text(root, "topo-xml/" + name))
        gpus = gpu_count(binary, xml)
        if not gpus:
            continue
        every = cpu_list(subprocess.run(["hwloc-calc", "--if", "xml", "-i", xml, "--po", "-I",
                                         "pu", "all"], check=True, capture_output=True,
                                        text=True).stdout.strip())
        for n in sorted({1, 2, 3, gpus, 2 * gpus, len(every)}):
            cases += 1
            out = subprocess.run([binary, "plan", "--ranks", str(n), "--gpus", "--topology", xml,
                                  "--export", "rankfile", "--host", "node"],
                                 capture_output=True, text=True)
            shares = [set(int(x) for x in m.group(1).split(",")) for m in
                      re.finditer(r"^rank \d+=node slot=([0-9,]+)", out.stdout, re.M)]
            union = set().union(*shares) if shares else set()
            overlap = sum(len(x) for x in shares) - len(union)
            if out.returncode == 0 and union == every and overlap == 0 and len(shares) == n:
                good += 1
            else:
                print("  %s, %d ranks: %d of %d PUs in a share, %d in two or more%s" % (
                    name, n, len(union), len(every), overlap,
                    ", refused: " + out.stderr.strip() if out.returncode else ""))
    print("== whole node: %d of %d plans give every PU to exactly one rank" % (good, cases))


def main():
    if len(sys.argv) < 2:
        print("usage: compare-mpibind.py MPIBIND_DIR [THREADMAP_BINARY]", file=sys.stderr)
        return 2
    root = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else "threadmap"
    order = ["equal", "same cores", "superset", "different"]
    totals = {k: 0 for k in order + ["error"]}
    gpu_equal = gpu_total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, topo in DRIVERS.items():
            xml = os.path.join(tmp, topo)
            with open(xml, "w") as f:
                f.write(read_text(root, "topo-xml/" + topo))
            cases = parse_expected(read_text(root, "test-suite/expected/expected." + name))
            core_of = hwloc_cores(xml)
            gpus = gpu_count(binary, xml)
            print("== %s (%s, %d GPUs): %d cases" % (name, topo, gpus, len(cases)))
            for k, case in enumerate(cases, 1):
                p = case["params"]
                # threadmap takes the GPUs per rank as input: the most mpibind gives a task.
                per_task = max([1] + [len(g) for g in case["gpus"]])
                tasks, cmd, err = run_threadmap(binary, xml, p, gpus, per_task)
                extra = ", ".join("%s=%s" % (key, p[key]) for key in
                                  ("in_nthreads", "smt", "gpu_optim", "greedy")
                                  if p[key] != {"in_nthreads": 0, "smt": 0, "gpu_optim": 1,
                                                "greedy": 1}[key])
                if tasks is None:
                    totals["error"] += 1
                    print("  %2d %-55s threadmap refused: %s" % (k, case["desc"][:55], err))
                    continue
                kinds = [classify(mine, theirs, core_of)
                         for (mine, _), theirs in zip(tasks, case["cpus"])]
                worst = max(kinds, key=order.index)
                totals[worst] += 1
                gpus_same = all(mine_g == theirs_g for (_, mine_g), theirs_g
                                in zip(tasks, case["gpus"])) if gpus else True
                gpu_total += 1 if gpus else 0
                gpu_equal += 1 if gpus and gpus_same else 0
                print("  %2d %-55s CPUs %-10s GPUs %-9s [%s]%s" % (
                    k, case["desc"][:55], worst,
                    ("equal" if gpus_same else "different") if gpus else "-", cmd,
                    " (mpibind: " + extra + ")" if extra else ""))
                if worst in ("different", "superset") or (gpus and not gpus_same):
                    for r, ((mine, mg), theirs, tg) in enumerate(
                            zip(tasks, case["cpus"], case["gpus"])):
                        if r >= 3:
                            print("       ...")
                            break
                        print("       task %d: threadmap CPUs %s GPUs %s | mpibind CPUs %s GPUs %s"
                              % (r, compact(mine), sorted(mg), compact(theirs), sorted(tg)))
        print("== totals: %s; GPUs equal in %d of %d cases on GPU nodes" % (
            ", ".join("%s %d" % (k, v) for k, v in totals.items()), gpu_equal, gpu_total))
        whole_node(root, binary, tmp)
    return 0


def compact(cpus):
    out, run = [], []
    for c in sorted(cpus):
        if run and c == run[-1] + 1:
            run.append(c)
            continue
        if run:
            out.append("%d-%d" % (run[0], run[-1]) if len(run) > 1 else str(run[0]))
        run = [c]
    if run:
        out.append("%d-%d" % (run[0], run[-1]) if len(run) > 1 else str(run[0]))
    return ",".join(out) or "-"


if __name__ == "__main__":
    sys.exit(main())
