#!/bin/sh
# Start-up costs a process that creates no thread (nearly) nothing: under the cache, /bin/true
# opens no file beyond the library itself (libgcc_s is loaded only when the cache runs a
# pthread_exit of its own), reads no limit, no policy, no CPU set, allocates nothing (no
# getrandom or brk of malloc's first use), makes no prctl, no futex call and does not read its
# signal mask. The first create makes at most 20 system calls (glibc's own 10 included: this
# program's first create is also malloc's first use) and measures no task bound (no
# /proc/loadavg, no cgroup file): that waits until finished threads pile up unjoined, which the
# last run checks.
# usage: startup_quiet.sh LIB PROGRAM (first_create.c)
lib=$1 prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then echo "skipped: sanitizer build"; exit 77; fi
command -v strace >/dev/null 2>&1 || { echo "skipped: strace is not installed"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
calls=openat,prctl,get_mempolicy,getpid,gettid,prlimit64,sched_getaffinity,getrandom,brk,rt_sigprocmask,futex
# Calls by name, the program's only (from its execve on), the loader's open of LIB left out.
trace() { # OUT VAR=VALUE... PROGRAM ARGS...
  out=$1; shift
  strace -f -qq -e trace=$calls -o "$dir/raw" env "$@" >/dev/null 2>&1
  grep -v -e "\"$lib\"" "$dir/raw" | sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' |
    sort | uniq -c | awk '{ print $2, $1 }' >"$dir/$out"
}
trace plain /bin/true
trace cached LD_PRELOAD="$lib" /bin/true
extra=$(join -a 2 -e 0 -o 0,1.2,2.2 "$dir/plain" "$dir/cached" | awk '$3 > $2 { print $1 "+" ($3 - $2) }' | tr '\n' ' ')
if [ -z "$extra" ]; then
  echo "ok /bin/true under the cache: no system call beyond loading the library"
else
  echo "FAIL /bin/true under the cache makes more system calls at start-up: $extra"
  cat "$dir/plain" "$dir/cached"
  status=1
fi
strace -f -qq -e trace=openat -o "$dir/opens" env LD_PRELOAD="$lib" /bin/true >/dev/null 2>&1
if grep -q 'libgcc_s' "$dir/opens"; then
  echo "FAIL /bin/true under the cache loads libgcc_s"
  status=1
else
  echo "ok /bin/true under the cache does not load libgcc_s"
fi

# The first create, between the program's two getppid markers (the creating thread only).
env LD_PRELOAD="$lib" strace -qq -o "$dir/first" "$prog" >/dev/null 2>&1
sed -n '/^getppid/,/^getppid/p' "$dir/first" | sed '1d;$d' >"$dir/between"
n=$(wc -l <"$dir/between")
if [ "$n" -gt 0 ] && [ "$n" -le 20 ] && ! grep -q -e loadavg -e pids.max "$dir/between"; then
  echo "ok the first create makes $n system calls and measures no task bound"
else
  echo "FAIL the first create makes $n system calls (at most 20, no task bound expected):"
  cat "$dir/between"
  status=1
fi

# Twelve finished threads nobody joined yet: the cache measures how many it may keep.
strace -f -qq -e trace=openat -o "$dir/threads" env LD_PRELOAD="$lib" "$prog" unjoined >/dev/null 2>&1
if grep -q '"/proc/loadavg"' "$dir/threads"; then
  echo "ok a program that keeps finished threads unjoined measures its task bound"
else
  echo "FAIL the task bound was not measured with 12 finished, unjoined threads"
  status=1
fi
exit $status
