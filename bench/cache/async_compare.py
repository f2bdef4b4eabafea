#!/usr/bin/env python3
"""The async bench: the same short tasks run four ways, interleaved in one run, so that load from
other processes hits every variant alike:

  glibc   bench_async_tasks: one std::async thread per task, created and joined by glibc
  cache   bench_async_tasks under LD_PRELOAD=libthreadmap-cache.so (parked threads reused)
  pool    bench_pool_tasks: the tasks through a hand-written pool (mutex + condvar queue)
  openmp  bench_omp_tasks: the tasks as OpenMP tasks (libgomp's pool)

Each round runs every variant once, the order rotated from round to round, after one warm-up
run of each that is not counted. Per run: wall time (spawn to exit), CPU time (user + system of
the process and its threads, from wait4) and context switches (voluntary + involuntary, wait4's
rusage). Per variant: the median with the lowest and highest of the rounds. Ratios (cache/pool,
cache/glibc, cache/openmp) are per round, side by side in that round, summarised by their median
and range; a ratio is called a difference only when an exact two-sided Wilcoxon signed-rank
test on the per-round log ratios gives p < 0.05 and the median ratio is at least 5% from 1
(the paired rule of src/core/verdict, restated here for a script); otherwise "no clear
difference".

  bench/cache/async_compare.py --bin BUILD/bin --cache-lib BUILD/lib/libthreadmap-cache.so
                               [--tasks 10000] [--batch 100] [--work 0] [--rounds 7]
                               [--json FILE] [--check]

--check: exit 1 unless every run exited 0 and printed the same sum (the ctest smoke test).
Exit 2 on bad arguments or a missing program.
"""
import argparse
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time

PROGRAMS = {"glibc": "bench_async_tasks", "cache": "bench_async_tasks",
            "pool": "bench_pool_tasks", "openmp": "bench_omp_tasks"}
RATIOS = [("cache", "pool"), ("cache", "glibc"), ("cache", "openmp")]
MEASURES = [("wall_s", "wall s"), ("cpu_s", "CPU s (user+sys)"),
            ("csw", "context switches (vol+invol)")]


def fail(message, status=2):
    print(f"threadmap: {message}", file=sys.stderr)
    sys.exit(status)


def run_once(path, argv, env):
    """One run: (wall s, user+sys s, voluntary, involuntary switches, exit status, stdout)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        pid = os.posix_spawn(path, [path] + argv, env,
                             file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1)])
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode(errors="replace")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "vcsw": usage.ru_nvcsw, "ivcsw": usage.ru_nivcsw,
            "csw": usage.ru_nvcsw + usage.ru_nivcsw,
            "status": os.waitstatus_to_exitcode(status), "stdout": text.strip()}


def signed_rank_p(values):
    """Exact two-sided p of Wilcoxon's signed-rank test of `values` against 0 (ties averaged)."""
    values = [v for v in values if v != 0]
    n = len(values)
    if n == 0:
        return 1.0
    order = sorted(range(n), key=lambda i: abs(values[i]))
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(values[order[j + 1]]) == abs(values[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    doubled = [round(2 * r) for r in ranks]  # integer ranks for the exact distribution
    w_plus = sum(d for d, v in zip(doubled, values) if v > 0)
    counts = {0: 1}
    for d in doubled:
        nxt = dict(counts)
        for s, c in counts.items():
            nxt[s + d] = nxt.get(s + d, 0) + c
        counts = nxt
    total = 2 ** n
    mean = sum(doubled) / 2
    extreme = abs(w_plus - mean)
    p = sum(c for s, c in counts.items() if abs(s - mean) >= extreme - 1e-9) / total
    return min(1.0, p)


def judge(ratios):
    """Median ratio, range and the words for it (see the module's docstring)."""
    median = statistics.median(ratios)
    p = signed_rank_p([math.log(r) for r in ratios if r > 0])
    clear = p < 0.05 and abs(median - 1) >= 0.05
    word = ("%.2fx, clear (p=%.3g)" % (median, p)) if clear else \
        ("no clear difference (%.2fx, p=%.3g)" % (median, p))
    return {"median": median, "min": min(ratios), "max": max(ratios), "p": p, "clear": clear,
            "word": word}


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "model": model, "kernel": platform.release(),
            "load_before": os.getloadavg()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="folder holding the bench_*_tasks programs")
    ap.add_argument("--cache-lib", required=True, help="libthreadmap-cache.so")
    ap.add_argument("--tasks", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--work", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", help="also write the runs and the summary here")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.rounds < 5:
        fail(f"bad --rounds: {a.rounds}: at least 5 rounds (a paired test needs them)")
    if a.tasks <= 0 or not 1 <= a.batch <= 1000 or a.work < 0:
        fail(f"bad --tasks/--batch/--work: {a.tasks}/{a.batch}/{a.work} (tasks > 0, batch 1-1000, "
             "work >= 0)")
    if not os.path.isfile(a.cache_lib):
        fail(f"bad --cache-lib: {a.cache_lib} does not exist (build the threadmap-cache target)")
    variants = []
    for name, program in PROGRAMS.items():
        path = os.path.join(a.bin, program)
        if os.access(path, os.X_OK):
            variants.append((name, path))
        elif name != "openmp":
            fail(f"bad --bin: {path} is not built (build the {program} target)")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("TM_")}
    preload = base_env.get("LD_PRELOAD", "")
    cache_env = dict(base_env, LD_PRELOAD=(preload + " " if preload else "") + a.cache_lib)
    argv = [str(a.tasks), str(a.batch), str(a.work)]
    info = machine()
    runs = {name: [] for name, _ in variants}
    problems = []
    for round_index in range(-1, a.rounds):  # round -1: the warm-up, not counted
        shift = max(round_index, 0) % len(variants)
        for name, path in variants[shift:] + variants[:shift]:
            r = run_once(path, argv, cache_env if name == "cache" else base_env)
            if r["status"] != 0 or not r["stdout"].startswith("sum "):
                problems.append(f"{name} round {round_index + 1}: exit {r['status']}, "
                                f"printed '{r['stdout'][:80]}'")
            if round_index >= 0:
                runs[name].append(r)
    sums = {r["stdout"] for rs in runs.values() for r in rs}
    if len(sums) > 1:
        problems.append("the variants printed different sums: " + ", ".join(sorted(sums)))
    info["load_after"] = os.getloadavg()

    summary = {}
    for name, rs in runs.items():
        summary[name] = {m: {"median": statistics.median(r[m] for r in rs),
                             "min": min(r[m] for r in rs), "max": max(r[m] for r in rs)}
                         for m in ("wall_s", "cpu_s", "csw", "vcsw", "ivcsw")}
    ratios = {}
    for top, bottom in RATIOS:
        if top not in runs or bottom not in runs:
            continue
        for m, _ in MEASURES:
            per_round = [t[m] / b[m] for t, b in zip(runs[top], runs[bottom]) if b[m] > 0]
            if len(per_round) == a.rounds:
                ratios[f"{top}/{bottom} {m}"] = judge(per_round)

    print(f"# async bench: {a.tasks} tasks in batches of {a.batch}, work {a.work}, "
          f"{a.rounds} interleaved rounds (+1 warm-up)")
    print(f"machine: {info['cpus']} CPUs, {info['model']}, kernel {info['kernel']}; load average "
          f"{info['load_before'][0]:.1f} before, {info['load_after'][0]:.1f} after (measured)")
    print("\n| variant | wall s median (min-max) | CPU s median (min-max) | context switches "
          "median (min-max) | voluntary | involuntary |")
    print("|---|---|---|---|---|---|")
    for name, s in summary.items():
        cell = lambda m, f: f"{s[m]['median']:{f}} ({s[m]['min']:{f}}-{s[m]['max']:{f}})"
        print(f"| {name} | {cell('wall_s', '.3f')} | {cell('cpu_s', '.3f')} | "
              f"{cell('csw', '.0f')} | {s['vcsw']['median']:.0f} | {s['ivcsw']['median']:.0f} |")
    print("\n| ratio, per round | median (min-max) | verdict |")
    print("|---|---|---|")
    for key, j in ratios.items():
        top_bottom, m = key.split(" ")
        label = dict(MEASURES)[m]
        print(f"| {top_bottom} {label} | {j['median']:.2f} ({j['min']:.2f}-{j['max']:.2f}) | "
              f"{j['word']} |")
    if "openmp" not in runs:
        print("\nopenmp: bench_omp_tasks is not built (no OpenMP compiler): not run")
    for p in problems:
        print(f"problem: {p}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "threadmap.bench-async/1", "args": vars(a), "machine": info,
                       "runs": runs, "summary": summary, "ratios": ratios,
                       "problems": problems}, f, indent=1)
    if a.check:
        missing = [k for k in ("cache/pool wall_s", "cache/glibc cpu_s", "cache/pool csw")
                   if k not in ratios]
        if problems or missing:
            fail("async bench check failed: " + "; ".join(problems + [f"no ratio {k}"
                                                                      for k in missing]), 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
