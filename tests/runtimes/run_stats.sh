#!/usr/bin/env bash
# `threadmap run --thread-cache --stats` end to end on a real process tree: CPython running
# 20 rounds of one thread that starts `true` (subprocess.run) and 4 computing threads, so
# exactly 100 thread creates in the Python process and 20 more processes that create none (and
# write no line: nothing to count). The summary on stderr must count the one process that made
# threads, exactly 100 creates, say the share served from the cache, and name it; stdout must
# hold the program's output alone. Run as root, the same program once more as another user
# (setpriv): its line must still be counted (the file accepts appends from switched users); and
# once more in a mount namespace where the file's path names nothing (counted through the
# descriptor `run` passes down).
# A library that is missing or does not write the format fails the test: it cannot be counted.
#   run_stats.sh THREADMAP LIB PYTHON SPAWN_PY
set -u
tm=$1 lib=$2 python=$3 spawn=$4
if [ -n "${THREADMAP_SANITIZE:-}" ]; then echo "skipped: sanitizer build"; exit 77; fi
command -v "$python" >/dev/null 2>&1 || { echo "skipped: $python is not installed"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: the cache library $lib is missing"; exit 1; }
if ! grep -qaF 'tm-cache-stats/1' "$lib"; then
  echo "FAIL: this cache library does not write TM_CACHE_STATS=FILE (tm-cache-stats/1)"
  exit 1
fi
case ${TM_CACHE:-1} in 0) echo "FAIL: TM_CACHE=0 in the environment: the cache is off"; exit 1 ;; esac
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
want=$("$python" "$spawn" subprocess 20) || { echo "FAIL: the program fails without threadmap"; exit 1; }
"$tm" run --thread-cache --stats -- "$python" "$spawn" subprocess 20 >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
status=0
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; status=1; }
[ "$(cat "$dir/out")" = "$want" ] || { echo "FAIL: stdout is not the program's alone:"; cat "$dir/out"; status=1; }
summary=$(grep '^threadmap: thread cache: [0-9]* process\(es\)\{0,1\}, ' "$dir/err")
processes=$(sed -n 's/^threadmap: thread cache: \([0-9]*\) process\(es\)\{0,1\}, .*/\1/p' <<<"$summary")
creates=$(sed -n 's/.* process\(es\)\{0,1\}, \([0-9]*\) thread creates: .*/\2/p' <<<"$summary")
[ "$processes" = 1 ] ||
  { echo "FAIL: want 1 process (the one that made threads), got '${processes}'"; status=1; }
[ "$creates" = 100 ] || { echo "FAIL: want exactly 100 creates, got '${creates}'"; status=1; }
grep -q 'served from the cache ([0-9.]*%)' <<<"$summary" ||
  { echo "FAIL: no share served from the cache"; status=1; }
grep -q '^threadmap: thread cache: threads retired: ' "$dir/err" ||
  { echo "FAIL: no retirement line"; status=1; }
if grep -qE 'created no thread' "$dir/err"; then
  echo "FAIL: processes that made no thread wrote lines"; status=1
fi
# A process that switched to another user (as a daemon dropping root does) still counts.
# (Only where that user can read the library and the program: a clone in a private folder,
# as mktemp -d makes, hides them from it.)
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
  ! as_nobody test -r "$lib" -a -r "$spawn" 2>/dev/null; then
  echo "(the switched-user part: uid 65534 cannot read $lib or $spawn here: not run)"
elif [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  "$tm" run --thread-cache --stats -- setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$python" "$spawn" threading 20 >"$dir/out" 2>"$dir/err"
  creates=$(sed -n 's/.* process\(es\)\{0,1\}, \([0-9]*\) thread creates: .*/\2/p' "$dir/err")
  [ "$creates" = 20 ] ||
    { echo "FAIL: as uid 65534: want 20 creates counted, got '${creates}':"; cat "$dir/err"; status=1; }
else
  echo "(the switched-user part needs root and setpriv: not run here)"
fi
# A process that can no longer reach the file by name (its own mount namespace with a fresh
# TMPDIR: the path names nothing, or a file of its own) appends through the descriptor `run`
# passed down (TM_CACHE_STATS_FD): counted, not lost. TMPDIR is a folder of its own, so that the
# mount hides the statistics file only, never the library or the program (a clone under /tmp).
stats_dir=$dir/stats
mkdir -p "$stats_dir"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
  unshare -m sh -c "mount -t tmpfs none '$stats_dir'" 2>/dev/null; then
  TMPDIR=$stats_dir "$tm" run --thread-cache --stats -- unshare -m sh -c \
    "mount -t tmpfs none '$stats_dir' && exec '$python' '$spawn' threading 20" \
    >"$dir/out" 2>"$dir/err"
  creates=$(sed -n 's/.* process\(es\)\{0,1\}, \([0-9]*\) thread creates: .*/\2/p' "$dir/err")
  [ "$creates" = 20 ] || {
    echo "FAIL: in a mount namespace that hides the file: want 20 creates counted, got '${creates}':"
    cat "$dir/err"; status=1; }
else
  echo "(the hidden-file part needs root and mount namespaces: not run here)"
fi
# `run --watch --thread-cache`: the watch counts kernel threads, and the cache's counts of logical
# creates come with it, without --stats (5 rounds of 5 threads: exactly 25 creates).
"$tm" run --thread-cache --watch -- "$python" "$spawn" subprocess 5 >"$dir/out" 2>"$dir/err"
creates=$(sed -n 's/^threadmap: thread cache: [0-9]* process\(es\)\{0,1\}, \([0-9]*\) thread creates: .*/\2/p' "$dir/err")
[ "$creates" = 25 ] ||
  { echo "FAIL: run --watch --thread-cache: want 25 logical creates, got '${creates}':"; cat "$dir/err"; status=1; }
grep -q 'thread' "$dir/err" || { echo "FAIL: no watch summary"; status=1; }
# `threadmap watch PID` of a process that runs under the cache with TM_CACHE_STATS=FILE: the
# watch ends (--duration) while the process still runs, and the cache's counts for it come from
# its live record, said to be as of its last update.
live=$dir/live.stats
LD_PRELOAD=$lib TM_CACHE_STATS=$live "$python" "$spawn" threading 200000 >/dev/null 2>&1 &
churn=$!
sleep 0.5
"$tm" watch "$churn" --duration 0.5 --json "$dir/watch.json" >"$dir/watch" 2>&1
kill "$churn" 2>/dev/null
wait "$churn" 2>/dev/null
creates=$(sed -n 's/^threadmap: thread cache: 1 process, \([0-9]*\) thread creates: .*/\1/p' "$dir/watch")
[ -n "$creates" ] && [ "$creates" -gt 0 ] ||
  { echo "FAIL: watch PID: no logical creates from the live record:"; cat "$dir/watch"; status=1; }
grep -q '^threadmap: thread cache: 1 process still running: counted as of its last update' "$dir/watch" ||
  { echo "FAIL: watch PID: the live record is not said to be a running process's"; cat "$dir/watch"; status=1; }
# The JSON carries the same counts ("thread_cache").
grep -q '"thread_cache"' "$dir/watch.json" && grep -q '"from_cache": [1-9]' "$dir/watch.json" ||
  { echo "FAIL: watch --json: no thread_cache counts"; head -c 400 "$dir/watch.json"; status=1; }
[ $status -eq 0 ] && echo "ok"
exit $status
