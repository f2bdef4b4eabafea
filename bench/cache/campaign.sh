#!/usr/bin/env bash
# The thread cache's measurement campaign, in one call, for a machine you may hold for a few
# minutes only ("prepare one script, built here, that runs glibc / cache / floor
# interleaved, and keep its output in the docs"). Everything runs under a timeout and writes its
# output under OUT as it goes, so a campaign cut short still leaves what it finished.
#
#   bench/cache/campaign.sh [--quick | --five-minutes] BIN LIB OUT [PROGRAMS]
#
# BIN holds threadmap, threadmap-spawn, threadmap-gomp-teams and cache_async_batches (a build's
# bin/), LIB holds libthreadmap-cache.so (a build's lib/); OUT is created. PROGRAMS, optional, is
# a file of command lines, one program per line (e.g. Inncabs benchmarks built on that machine);
# each is compared with and without the cache by `threadmap tune --candidates os,cache`, which
# interleaves the runs and states its verdict. --quick: fewer rounds, for a first look.
# --five-minutes: what fits a machine lent for five minutes, every part under its own limit
# (at most 4.5 min in all): the pthread and async spawn rows at 1, 16 and 32 creators (the
# issue's targets), std::async batches and libgomp teams, no PROGRAMS.
#
# Parts, in order of what the issue's targets need: the spawn benchmark (glibc, cache and the
# hand-off floor interleaved; 1, 16 and 32 creators, then every power of two up to 2x the
# CPUs), std::async batches, libgomp teams, the PROGRAMS. Each part's time limit is printed.
set -uo pipefail
quick=0
case "${1:-}" in
  --quick) quick=1; shift ;;
  --five-minutes) quick=5; shift ;;
esac
if [ $# -lt 3 ]; then
  echo "usage: campaign.sh [--quick | --five-minutes] BIN LIB OUT [PROGRAMS]" >&2
  exit 2
fi
bin=$(cd "$1" && pwd) lib=$(cd "$2" && pwd) out=$3 programs=${4:-}
for f in "$bin/threadmap" "$bin/threadmap-spawn" "$lib/libthreadmap-cache.so"; do
  [ -e "$f" ] || { echo "campaign: $f not found" >&2; exit 2; }
done
if [ -n "$programs" ] && [ ! -r "$programs" ]; then
  echo "campaign: cannot read the program list $programs" >&2
  exit 2
fi
mkdir -p "$out" || exit 1
cpus=$(nproc)
repeat=5 seconds=0.3 budget=60s spawn_limit=240 other_limit=120
variants="pthread thread async"
if [ $quick = 1 ]; then repeat=3 seconds=0.2 budget=20s; fi
if [ $quick = 5 ]; then
  repeat=3 seconds=0.2 budget=20s spawn_limit=75 other_limit=45 variants="pthread async"
  programs=""
fi
list="1,16,32"
extra=""
for n in 2 4 8 64 128; do [ $n -le $((2 * cpus)) ] && [ $n -ne 16 ] && extra="$extra,$n"; done
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

part() {  # part NAME LIMIT_S CMD...: runs CMD under a timeout into OUT/NAME.txt
  local name=$1 limit=$2
  shift 2
  echo "== $name (at most ${limit}s): $*"
  {
    echo "# $(date -u +%FT%TZ) $(uname -r) $cpus CPUs; command: $*"
    timeout "$limit" "$@"
    echo "# exit $?"
  } >"$out/$name.txt" 2>&1
  tail -n 3 "$out/$name.txt"
}

{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpus: $cpus ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-))"
  echo "kernel: $(uname -r); glibc: $(getconf GNU_LIBC_VERSION)"
  "$bin/threadmap" topo --summary 2>&1
} >"$out/machine.txt"
for variant in $variants; do
  part "spawn-$variant" $spawn_limit "$bin/threadmap-spawn" --compare \
    "$lib/libthreadmap-cache.so" --creators-list "$list" --seconds "$seconds" \
    --repeat "$repeat" --variant "$variant"
done
[ $quick != 5 ] && [ -n "$extra" ] && part "spawn-pthread-more" 240 "$bin/threadmap-spawn" --compare \
  "$lib/libthreadmap-cache.so" --creators-list "${extra#,}" --seconds "$seconds" \
  --repeat "$repeat" --variant pthread
[ -x "$bin/cache_async_batches" ] && part "async-batches" $other_limit "$bin/threadmap" tune \
  --candidates os,cache --budget "$budget" --json "$out/async-batches.json" -- \
  "$bin/cache_async_batches"
[ -x "$bin/threadmap-gomp-teams" ] && part "gomp-teams" $other_limit "$bin/threadmap" tune \
  --candidates os,cache --budget "$budget" --json "$out/gomp-teams.json" -- \
  "$bin/threadmap-gomp-teams" 500
if [ -n "$programs" ]; then
  i=0
  while IFS= read -r line; do
    case "$line" in '' | '#'*) continue ;; esac
    i=$((i + 1))
    read -r -a words <<<"$line"
    part "program-$i-$(basename "${words[0]}")" 180 "$bin/threadmap" tune --candidates os,cache \
      --budget "$budget" --json "$out/program-$i.json" -- "${words[@]}"
  done <"$programs"
fi
echo "campaign: done; results in $out"
