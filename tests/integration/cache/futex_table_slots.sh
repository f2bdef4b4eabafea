#!/bin/sh
# TM_CACHE_FUTEX_SLOTS: the cache grows the process's own futex table at start-up (256 slots
# per configured CPU, a power of two, at most 8192), takes an explicit size rounded up to a
# power of two, and leaves the table alone with 0 or with the cache off; a forked child gets
# the table too (the kernel gives it a new one).
# usage: futex_table_slots.sh LIB PROGRAM   (PROGRAM: cache_sem_futex_table)
lib=$1
prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then
  echo "skipped: sanitizer build; preload runs are checked in the plain build"
  exit 77
fi
plain=$("$prog" --report-slots) || exit 1
if [ "$plain" -lt 0 ]; then
  echo "skipped: this kernel has no per-process futex table"
  exit 77
fi
cpus=$(getconf _NPROCESSORS_CONF)
auto=256
while [ "$auto" -lt $((256 * cpus)) ] && [ "$auto" -lt 8192 ]; do auto=$((auto * 2)); done
probe=--report-slots
. "$(dirname "$0")/preload_check.sh"
check "default: 256 per CPU for $cpus CPUs" "$auto"
check "TM_CACHE_FUTEX_SLOTS=100 rounds up" 128 TM_CACHE_FUTEX_SLOTS=100
check "TM_CACHE_FUTEX_SLOTS=2048" 2048 TM_CACHE_FUTEX_SLOTS=2048
check "TM_CACHE_FUTEX_SLOTS=0 leaves the table alone" "$plain" TM_CACHE_FUTEX_SLOTS=0
check "TM_CACHE=0 leaves the table alone" "$plain" TM_CACHE=0
plain_child=$("$prog" --report-child-slots) || exit 1
got=$(LD_PRELOAD="$lib" "$prog" --report-child-slots)
if [ "$got" = "$auto" ]; then echo "ok a forked child gets the table too ($got slots)"; else
  echo "FAIL a forked child: $got slots, expected $auto (without the cache: $plain_child)"
  status=1
fi
exit $status
