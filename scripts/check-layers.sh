#!/usr/bin/env bash
# Checks the layer rules of docs/architecture.md. This script holds the one table of which folder
# may include which; the "may include" column of docs/architecture.md must say the same (checked
# here; `scripts/check-layers.sh --table` prints the column to paste).
#
# 1. Includes: a file under src/<area>/ includes "src/<other>/..." only for an <other> its row
#    allows; public headers "threadmap/..." belong to core (result.hpp and version.hpp to all).
#    The C preload libraries include nothing of the C++ side.
# 2. Kernel calls: only src/os (and the C preload libraries) talk to the kernel. No other C++
#    file under src/ or include/ calls syscall(2), perf_event_open, sched_{set,get}affinity,
#    sched_getattr, move_pages, prctl, open, read, ioctl, mmap, kill, waitpid, posix_spawn*,
#    getenv (and the other process, file, clock and memory-policy calls in `names` below), or
#    uses std::ifstream/std::ofstream/std::fstream/std::filesystem, or holds a string
#    literal that is a /proc or /sys path. A call is a name not preceded by `.`, `->` or `Type::`
#    (ThreadCounters::open and file.read() are our own functions); `::open(` and `std::getenv(`
#    are calls. Text after `//` and comment lines are ignored: they name a source, they do not
#    use it. Benchmarks and tests may use the kernel directly: they measure it.
# 3. No two C++ source files under src/ share a name.
#
# Exit status: 0 when every rule holds, 1 otherwise (each violation printed on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."

# folder -> the folders its files may include (besides itself). Keep docs/architecture.md's
# "may include" column equal to this (the check below compares them).
layers=(
  "os:"
  "core:os"
  "latency:core os"
  "plan:core latency os"
  "monitor:core os"
  "apply:core plan monitor os preload"
  "cluster:core plan apply monitor os"
  "fleet:core os"
  "experiments:core latency plan monitor os"
  "report:core latency plan monitor apply experiments os"
  "tune:core plan apply monitor os"
  "render:core latency plan monitor apply cluster fleet experiments report tune os"
  "cli:core latency plan monitor apply cluster fleet experiments report render tune os"
)

allowed_for() {
  local entry
  for entry in "${layers[@]}"; do
    if [ "${entry%%:*}" = "$1" ]; then
      echo "${entry#*:}"
      return 0
    fi
  done
  return 1
}

if [ "${1:-}" = "--table" ]; then
  for entry in "${layers[@]}"; do
    area=${entry%%:*}
    deps=${entry#*:}
    if [ -z "$deps" ]; then
      col="libc, \`threadmap/result.hpp\`"
    else
      col=$(echo "$deps" | sed 's/ /, /g')
    fi
    echo "| \`src/$area/\` | $col |"
  done
  exit 0
fi

status=0
fail() {
  echo "check-layers: $1" >&2
  status=1
}

# 1. Includes.
for dir in src/*/; do
  area=$(basename "$dir")
  [ "$area" = preload ] && continue
  if ! deps=$(allowed_for "$area"); then
    fail "src/$area/ has no row in the layer table of scripts/check-layers.sh (add one, and to docs/architecture.md)"
    continue
  fi
  while IFS= read -r hit; do
    [ -z "$hit" ] && continue
    target=$(echo "$hit" | sed -E 's/.*#include "([^"]+)".*/\1/')
    case "$target" in
      src/*/*) other=$(echo "$target" | cut -d/ -f2) ;;
      threadmap/result.hpp | threadmap/version.hpp) continue ;;
      threadmap/*) other=core ;;
      *) continue ;;
    esac
    [ "$other" = "$area" ] && continue
    if ! [[ " $deps " == *" $other "* ]]; then
      fail "$hit: src/$area may include only: ${deps:-(nothing of ours but threadmap/result.hpp)}"
    fi
  done < <(grep -rnE '^\s*#\s*include\s+"(src/[a-z_]+|threadmap)/[^"]+"' "$dir" \
             --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.c' || true)
done
preload_inc=$(grep -rnE '^\s*#\s*include\s+[<"](src|threadmap)/' src/preload || true)
[ -n "$preload_inc" ] && fail "the preload libraries include C++ code (they are libc only):
$preload_inc"

# The doc's table says the same as ours.
while IFS= read -r row; do
  area=$(echo "$row" | sed -E 's/^\| `src\/([a-z_]+)\/`.*/\1/')
  [ "$area" = preload ] && continue
  doc_col=$(echo "$row" | awk -F'|' '{print $(NF-1)}' | sed -E 's/^ +| +$//g')
  if ! deps=$(allowed_for "$area"); then
    fail "docs/architecture.md has a row for src/$area/ that scripts/check-layers.sh lacks"
    continue
  fi
  want=$(bash "$0" --table | grep -F "| \`src/$area/\` |" | awk -F'|' '{print $(NF-1)}' \
           | sed -E 's/^ +| +$//g')
  [ "$doc_col" = "$want" ] ||
    fail "docs/architecture.md says src/$area/ may include '$doc_col'; the script's table says '$want'"
done < <(grep -E '^\| `src/[a-z_]+/` \|' docs/architecture.md)

# 2. Kernel calls outside src/os and the preload libraries.
names='syscall|sched_setaffinity|sched_getaffinity|sched_getattr|move_pages|prctl|perf_event_open'
names+='|pthread_setaffinity_np|pthread_getaffinity_np|open|openat|read|ioctl|mmap|munmap|kill'
names+='|waitpid|posix_spawnp?|getenv|secure_getenv|setenv|unsetenv|putenv|fopen|fdopen|popen'
names+='|opendir|readlink|stat|lstat|fstat|access|unlink|rename|write|close|pipe2?|dup2?|fork|vfork'
names+='|execl|execlp|execle|execv|execvp|execvpe|execve|sched_getcpu|sched_yield|clock_gettime'
names+='|nanosleep|getrusage|sysconf|getpid|gettid|tgkill|set_mempolicy|get_mempolicy|mbind'
call="(^|[^.>:[:alnum:]_])((std)?::)?($names)[[:space:]]*\\("
# A declaration (a type, then the name: `static Result<X> open(`) declares our own function.
decl="[[:alnum:]_>&*][[:space:]]+($names)[[:space:]]*\\("
types='std::(ifstream|ofstream|fstream|filesystem)'
paths='"/(proc|sys)/'
calls=$(grep -rnE "$call|$types|$paths" src include --include='*.cpp' --include='*.hpp' --include='*.h' \
          | grep -vE '^src/(os|preload)/' \
          | grep -vE '^[^:]+:[0-9]+:\s*(//|\*|/\*)' \
          | awk -v c="$call" -v d="$decl" -v t="$types" -v p="$paths" '{
              code = $0; sub(/^[^:]+:[0-9]+:/, "", code); sub(/\/\/.*/, "", code);
              gsub(/(return|else)[[:space:]]+/, "= ", code); gsub(d, "_decl_(", code);
              if (code ~ c || code ~ t || code ~ p) print }' \
        || true)
if [ -n "$calls" ]; then
  fail "kernel access outside src/os (move it behind src/os):
$calls"
fi

# 3. Unique source names.
same=$(find src -name '*.cpp' -not -path 'src/preload/*' -printf '%f\n' | sort | uniq -d)
[ -n "$same" ] && fail "source files sharing a name in different folders: $same"

# ---------------------------------------------------------------------------------------------
# 4. Inside the preload libraries, kernel calls only behind src/preload/common/tm_prim.h (each a
#    static inline function with its contract) and the futex calls behind tm_futex.h: no other
#    file of src/preload names a system-call function of libc or tm__raw_syscall. A wrapper's
#    own definition (`TM_EXPORT int open(`), an `extern` declaration and comments are not calls;
#    calls through function pointers (a wrapper's `next(`) are not either.
prim_names='syscall|open|open64|openat|read|write|close|prctl|mmap|munmap|madvise|mprotect'
prim_names+='|sched_getaffinity|sched_setaffinity|sched_getcpu|sched_yield|nanosleep|clock_gettime'
prim_names+='|clock_getres|getpid|gettid|getppid|kill|tgkill|tkill|sigaltstack|sigpending'
prim_names+='|setpriority|getpriority|getrlimit|setrlimit|prlimit|waitpid|waitid|dup|dup2|fcntl'
prim_names+='|ioctl|sysconf|readlink|pipe|pipe2|get_robust_list|get_mempolicy|set_mempolicy'
prim_names+='|tm__raw_syscall'
prim_call="(^|[^.>[:alnum:]_])($prim_names)[[:space:]]*\\("
raw=$(grep -rnE "($prim_names)[[:space:]]*\\(" src/preload --include='*.c' --include='*.h' \
        | grep -vE '^src/preload/common/(tm_prim|tm_futex)\.h:' \
        | grep -vE '^[^:]+:[0-9]+:\s*(//|\*|/\*)' \
        | awk -v c="$prim_call" '{
            code = $0; sub(/^[^:]+:[0-9]+:/, "", code);
            gsub(/\/\*([^*]|\*[^\/])*\*\//, "", code); sub(/\/\/.*/, "", code); sub(/\/\*.*/, "", code);
            gsub(/"([^"\\]|\\.)*"/, "\"\"", code);
            if (code ~ /TM_EXPORT|^[[:space:]]*extern[[:space:]]/) next;
            if (code ~ c) print }' \
      || true)
if [ -n "$raw" ]; then
  fail "kernel call in src/preload outside src/preload/common/tm_prim.h and tm_futex.h (add a
primitive there, with its contract):
$raw"
fi
# ---------------------------------------------------------------------------------------------

[ $status -eq 0 ] && echo "check-layers: includes follow the layer table; only src/os and src/preload talk to the kernel"
exit $status
