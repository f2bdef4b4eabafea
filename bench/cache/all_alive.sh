#!/usr/bin/env bash
# What the thread cache costs where nothing is reused: threadmap-all-alive (N threads alive at
# once, as Inncabs `round`) without the cache and with each LIB, side by side.
#   instructions  callgrind, all threads, whole program (start-up and first create included)
#   wall, CPU     ROUNDS interleaved rounds (glibc, LIB1, LIB2, ... in turn), medians, and in how
#                 many rounds each LIB was slower than glibc's run of the same round
# usage: all_alive.sh BIN LIB... [N] [ROUNDS]   (BIN holds threadmap-all-alive; N 128, ROUNDS 16)
set -euo pipefail
bin=$1
shift
libs=() nums=()
for a in "$@"; do if [[ $a =~ ^[0-9]+$ ]]; then nums+=("$a"); else libs+=("$a"); fi; done
n=${nums[0]:-128} rounds=${nums[1]:-16}
prog="$bin/threadmap-all-alive"
[ -x "$prog" ] || { echo "all_alive: $prog not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# threadmap-all-alive $n; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
kinds=(glibc "${libs[@]}")
for k in "${kinds[@]}"; do
  pre=""; [ "$k" = glibc ] || pre=$k
  LD_PRELOAD="$pre" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$prog" "$n" \
    >/dev/null 2>"$tmp/err" || true
  echo "instructions $k: $(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err")"
done
python3 - "$prog" "$n" "$rounds" "${kinds[@]}" <<'PY'
import os, resource, statistics, subprocess, sys, time
prog, n, rounds, kinds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
wall = {k: [] for k in kinds}; cpu = {k: [] for k in kinds}
for _ in range(rounds):
    for k in kinds:
        env = dict(os.environ, LD_PRELOAD="" if k == "glibc" else k)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
        subprocess.run([prog, n], env=env, check=True)
        t1 = time.perf_counter(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall[k].append(t1 - t0)
        cpu[k].append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
gw, gc = statistics.median(wall["glibc"]), statistics.median(cpu["glibc"])
for k in kinds:
    w, c = statistics.median(wall[k]), statistics.median(cpu[k])
    slower = sum(a > b for a, b in zip(wall[k], wall["glibc"]))
    print(f"{k}: wall median {w * 1e3:.2f} ms ({w / gw:.2f}x glibc, slower in {slower} of "
          f"{rounds} rounds), CPU median {c * 1e3:.2f} ms ({c / gc:.2f}x)")
PY
