#!/bin/sh
# Start-up costs a process that creates no thread (nearly) nothing: under the cache, /bin/true
# opens no file beyond the loader's (the library itself and libgcc_s), reads no limit, no
# policy, no CPU set, allocates nothing (no getrandom or brk of malloc's first use) and makes
# no prctl; it adds one rt_sigprocmask (the main thread's mask) and glibc's pthread_once wake
# (the once probe). A program that creates threads still measures its task bound and CPUs: at
# its first create.
# usage: startup_quiet.sh LIB PROGRAM (stats_cases.c)
lib=$1 prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then echo "skipped: sanitizer build"; exit 77; fi
command -v strace >/dev/null 2>&1 || { echo "skipped: strace is not installed"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
calls=openat,prctl,get_mempolicy,getpid,gettid,prlimit64,sched_getaffinity,getrandom,brk,rt_sigprocmask,futex
# Calls by name, the program's only (from its execve on), the loader's opens of LIB and
# libgcc_s left out.
trace() { # OUT VAR=VALUE... PROGRAM ARGS...
  out=$1; shift
  strace -f -qq -e trace=$calls -o "$dir/raw" env "$@" >/dev/null 2>&1
  grep -v -e "\"$lib\"" -e 'libgcc_s\.so' "$dir/raw" | sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' |
    sort | uniq -c | awk '{ print $2, $1 }' >"$dir/$out"
}
trace plain /bin/true
trace cached LD_PRELOAD="$lib" /bin/true
extra=$(join -a 2 -e 0 -o 0,1.2,2.2 "$dir/plain" "$dir/cached" | awk '$3 > $2 { print $1 "+" ($3 - $2) }' | tr '\n' ' ')
if [ "$extra" = "rt_sigprocmask+1 futex+1 " ] || [ "$extra" = "futex+1 rt_sigprocmask+1 " ] ||
  [ "$extra" = "rt_sigprocmask+1 " ]; then
  echo "ok /bin/true under the cache: only ${extra}beyond loading the library"
else
  echo "FAIL /bin/true under the cache makes more system calls at start-up: $extra"
  cat "$dir/plain" "$dir/cached"
  status=1
fi

# The work moved to the first create: the task bound (loadavg) and the futex table.
strace -f -qq -e trace=openat,prctl -o "$dir/threads" env LD_PRELOAD="$lib" "$prog" _exit >/dev/null 2>&1
if grep -q '"/proc/loadavg"' "$dir/threads"; then
  echo "ok a program that creates threads measures its task bound (at its first create)"
else
  echo "FAIL the task bound was not measured in a program that creates threads"
  status=1
fi
exit $status
