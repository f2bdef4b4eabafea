#!/usr/bin/env python3
"""Why one creator's create+join rate swings from run to run (docs/results).

Runs threadmap-spawn with one creator again and again, glibc and the cache alternating, and
records beside every run what could explain its rate: the cache's own wait counters
(TM_CACHE_STATS: spins that met their partner, spins that ran out, waits that did not spin
and why), the steal time the host took from this guest, and how busy the CPUs were with work
that was not the benchmark's (all CPU time in /proc/stat minus the run's own rusage).
Prints one tab-separated line per run, then a summary that groups the cache runs by rate.

usage: spawn_swing.py BUILD_DIR [--rounds N] [--seconds S] [--sides glibc,cache,cache-spin]   (Linux only; any load is welcome:
       the point is to see which runs are slow and what was different about them)
"""
import os
import re
import subprocess
import sys
import time


def cpu_ticks():
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    v = [int(x) for x in fields]
    busy = v[0] + v[1] + v[2] + v[5] + v[6]  # user nice system irq softirq
    steal = v[7] if len(v) > 7 else 0
    return busy, steal


def run_once(build, side, seconds):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if side.startswith("cache"):
        env["LD_PRELOAD"] = os.path.join(build, "lib/libthreadmap-cache.so")
        env["TM_CACHE_STATS"] = "1"
    if side == "cache-spin":  # the spin forced on every wait: what the adaptive policy declines
        env["TM_CACHE_SPIN_NS"] = "25000"
    cmd = [os.path.join(build, "bin/threadmap-spawn"), "--creators", "1", "--seconds",
           str(seconds), "--variant", "pthread", "--json"]
    hz = os.sysconf("SC_CLK_TCK")
    busy0, steal0 = cpu_ticks()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    busy1, steal1 = cpu_ticks()
    out, err = p.stdout.read(), p.stderr.read()
    rate = float(re.search(r'"threads_per_second":([0-9.]+)', out).group(1))
    own = usage.ru_utime + usage.ru_stime
    ncpu = os.cpu_count()
    others = max(0.0, (busy1 - busy0) / hz - own) / (wall * ncpu)
    steal = (steal1 - steal0) / hz / (wall * ncpu)
    counts = {k: int(v) for k, v in re.findall(r"([a-z-]+)=([0-9]+)", err)}
    return rate, others, steal, own / wall, counts, usage.ru_nvcsw + usage.ru_nivcsw


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-3])
    build = sys.argv[1]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 20
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 0.3
    sides = (sys.argv[sys.argv.index("--sides") + 1].split(",") if "--sides" in sys.argv
             else ["glibc", "cache"])
    print("round\tside\tcreates/s\tothers_busy\tsteal\tbench_cpus\tcsw\tspin-met\tspin-ran-out"
          "\tno-spin-busy\tno-spin-score\tno-spin-spinners")
    rows = []
    for r in range(rounds):
        for side in sides:
            rate, others, steal, cpus, c, csw = run_once(build, side, seconds)
            rows.append((side, rate, others, steal, c))
            print(f"{r}\t{side}\t{rate:.0f}\t{others:.2f}\t{steal:.3f}\t{cpus:.2f}\t{csw}\t"
                  + "\t".join(str(c.get(k, "")) for k in ("spin-met", "spin-ran-out",
                              "no-spin-busy", "no-spin-score", "no-spin-spinners")), flush=True)
    cache = sorted((x for x in rows if x[0] == "cache"), key=lambda x: x[1])
    glibc = sorted(x[1] for x in rows if x[0] == "glibc")
    if not cache:
        return
    print(f"\nglibc creates/s: min {glibc[0]:.0f} median {glibc[len(glibc)//2]:.0f} "
          f"max {glibc[-1]:.0f}")
    half = len(cache) // 2
    for name, part in (("slower half", cache[:half]), ("faster half", cache[half:])):
        if not part:
            continue
        def mean(i):
            return sum(x[i] for x in part) / len(part)
        waits = {k: sum(x[4].get(k, 0) for x in part) for k in
                 ("spin-met", "spin-ran-out", "no-spin-busy", "no-spin-score")}
        total = sum(waits.values()) or 1
        print(f"cache {name}: creates/s {part[0][1]:.0f}-{part[-1][1]:.0f}, others busy "
              f"{mean(2):.2f} of the CPUs, steal {mean(3):.3f}; waits: "
              + ", ".join(f"{k} {100*v/total:.0f}%" for k, v in waits.items()))


if __name__ == "__main__":
    main()
