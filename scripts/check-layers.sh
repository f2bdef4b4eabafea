#!/usr/bin/env bash
# Checks the house rule that only src/os (and the C preload libraries) talk to the kernel: no
# other C++ file calls syscall(2), perf_event_open, sched_{set,get}affinity, sched_getattr,
# move_pages or prctl, or holds a string literal that is a /proc or /sys path. Comment lines and
# provenance text such as "perf_event_open software counter" are allowed: they name a source,
# they do not use it. Benchmarks and tests may use the kernel directly: they measure it. Also: no
# two C++ source files under src/ share a name.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
calls=$(grep -rnE '"/(proc|sys)/|\b(syscall|sched_setaffinity|sched_getaffinity|sched_getattr|move_pages|prctl|perf_event_open|pthread_setaffinity_np|pthread_getaffinity_np)\s*\(' \
          src include --include='*.cpp' --include='*.hpp' --include='*.h' \
        | grep -vE '^src/(os|preload)/' | grep -vE '^[^:]+:[0-9]+:\s*(//|\*|/\*)' || true)
if [ -n "$calls" ]; then
  echo "check-layers: kernel access outside src/os (move it behind src/os):" >&2
  echo "$calls" >&2
  status=1
fi
same=$(find src -name '*.cpp' -not -path 'src/preload/*' -printf '%f\n' | sort | uniq -d)
if [ -n "$same" ]; then
  echo "check-layers: source files sharing a name in different folders: $same" >&2
  status=1
fi
[ $status -eq 0 ] && echo "check-layers: only src/os and src/preload talk to the kernel"
exit $status
