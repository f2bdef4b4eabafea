#!/usr/bin/env bash
# Checks the layer rules of docs/architecture.md. This script holds the one table of which folder
# may include which; the "may include" column of docs/architecture.md must say the same (checked
# here; `scripts/check-layers.sh --table` prints the column to paste). The rules apply to every
# source file under src/ and include/ (.cpp .cc .cxx .c .hpp .hh .hxx .h .ipp .inl .inc) except
# the C preload libraries, which are checked apart (rule 1's last line, and the section at the end).
#
# 1. Our includes: a file under src/<area>/ includes "src/<other>/..." only for an <other> its
#    row allows; public headers "threadmap/..." belong to core (result.hpp and version.hpp to
#    all). Our headers are named by their path from the root, in quotes ("src/...",
#    "threadmap/..."): a relative or angle-bracket include of our own code would slip past the
#    table. From src/preload the C++ side includes only src/preload/common/tm_pin_limits.h (the
#    tm-pin/1 limits, written to compile as C and C++). Public headers (include/) are installed:
#    they include no src/ header. The C preload libraries include nothing of the C++ side.
# 2. System headers: only src/os includes the system's interface to the kernel. Everywhere else a
#    <header> must be a C++ standard library header (not <fstream>, <filesystem>, <csignal>), a C
#    header with no kernel interface (<cstring>, <strings.h>, <fnmatch.h>, ...), <sys/types.h>
#    (types such as pid_t, no calls) or a third-party library's (fmt, nlohmann, CLI11, cairo,
#    hwloc: core reads the topology through hwloc by design); <pthread.h> only in the public
#    headers, for pthread_t in the API. So <unistd.h>, <sys/*>, <sched.h>, <signal.h>, <dlfcn.h>,
#    <fcntl.h>, <pthread.h>, <linux/*>, <spawn.h>, <poll.h>, ... are refused outside src/os.
# 3. Kernel calls: a call the standard headers still declare (through <cstdio>, <cstdlib>,
#    <ctime>, <thread>, the public headers' <pthread.h>) is refused by name: syscall(2),
#    perf_event_open, sched_{set,get}affinity and the other sched_ calls, pthread_*_np, move_pages, prctl, open, read, ioctl, mmap, kill,
#    waitpid, posix_spawn*, getenv, system, signal, sigaction, dlopen, mkdir, sleep, ... (`names`
#    below); so are std::ifstream/std::ofstream/std::fstream/std::filesystem, std::this_thread
#    (sleeps: os/monotonic_clock), a string literal that is a /proc or /sys path, and inline
#    assembly that makes a system call. A call is a name not preceded by `.`, `->` or `Type::`
#    (ThreadCounters::open and file.read() are our own functions); `::open` and `std::getenv`
#    are the system's, called or not (`&::getpid` is refused too). A declaration (a type, then
#    the name) declares our own function. Text after `//` and comment lines are ignored: they
#    name a source, they do not use it. Benchmarks and tests may use the kernel directly: they
#    measure it.
# 4. No two C++ source files under src/ share a name.
# 5. Inside the preload libraries, kernel calls only behind src/preload/common/tm_prim.h and
#    tm_futex.h (the section at the end).
# scripts/check-layers-selftest.sh plants violations of each rule in a scratch copy and checks
# that this script fails on every one (CI runs it).
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
  "plan:core latency os preload"
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

table_column() {  # the "may include" column of docs/architecture.md, one row per area
  local entry area deps col
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
}

if [ "${1:-}" = "--table" ]; then
  table_column
  exit 0
fi

status=0
fail() {
  echo "check-layers: $1" >&2
  status=1
}

# The files the rules apply to (rules 1-3), and the C preload libraries' files (rule 1's last line).
mapfile -t files < <(find src include -type f \( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' \
  -o -name '*.c' -o -name '*.hpp' -o -name '*.hh' -o -name '*.hxx' -o -name '*.h' \
  -o -name '*.ipp' -o -name '*.inl' -o -name '*.inc' \) -not -path 'src/preload/*' | sort)
mapfile -t preload_files < <(find src/preload -type f \( -name '*.c' -o -name '*.h' \) | sort)

# Every folder under src/ has a row.
for dir in src/*/; do
  area=$(basename "$dir")
  [ "$area" = preload ] && continue
  found=0
  for entry in "${layers[@]}"; do [ "${entry%%:*}" = "$area" ] && found=1; done
  [ $found = 1 ] ||
    fail "src/$area/ has no row in the layer table of scripts/check-layers.sh (add one, and to docs/architecture.md)"
done

# 1. Our includes, and 2. system headers (one pass over every file).
table=$(printf '%s;' "${layers[@]}")
# C++ standard library headers that give no kernel access of their own (the calls some of them
# declare are rule 3's), C headers without a kernel interface, and third-party libraries.
std_headers='algorithm any array atomic barrier bit bitset cassert cctype cerrno cfenv cfloat
charconv chrono cinttypes climits clocale cmath codecvt compare complex concepts
condition_variable coroutine csetjmp cstdarg cstddef cstdint cstdio cstdlib cstring ctime cuchar
cwchar cwctype deque exception execution format forward_list functional future initializer_list
iomanip ios iosfwd iostream istream iterator latch limits list locale map memory memory_resource
mutex new numbers numeric optional ostream queue random ranges ratio regex scoped_allocator
semaphore set shared_mutex source_location span sstream stack stdexcept stop_token streambuf
string string_view syncstream system_error thread tuple type_traits typeindex typeinfo
unordered_map unordered_set utility valarray variant vector version
assert.h ctype.h errno.h float.h inttypes.h limits.h math.h stdarg.h stdbool.h stddef.h stdint.h
stdio.h stdlib.h string.h strings.h fnmatch.h sys/types.h'
third_party='^(fmt|nlohmann|CLI|hwloc|cairo)(/|\.h$|-[a-z]+\.h$)|^(hwloc|cairo)\.h$'
include_hits=$(awk -v table="$table" -v std="$std_headers" -v tp="$third_party" '
  BEGIN {
    n = split(table, rows, ";")
    for (i = 1; i <= n; i++) {
      if (rows[i] == "") continue
      split(rows[i], kv, ":")
      allowed[kv[1]] = " " kv[2] " "
    }
    m = split(std, hs, /[ \n]+/)
    for (i = 1; i <= m; i++) ok_header[hs[i]] = 1
  }
  FNR == 1 {
    split(FILENAME, part, "/")
    public = (part[1] == "include")
    area = public ? "core" : part[2]
    os = (!public && area == "os")
    if (!public && part[3] == "") print "ours|" FILENAME ": a source file belongs in an area folder (src/<area>/)"
  }
  /^[ \t]*#[ \t]*include/ {
    line = $0
    if (match(line, /"[^"]+"/)) { target = substr(line, RSTART + 1, RLENGTH - 2); quoted = 1 }
    else if (match(line, /<[^>]+>/)) { target = substr(line, RSTART + 1, RLENGTH - 2); quoted = 0 }
    else next
    where = FILENAME ":" FNR ":" line
    if (target ~ /^(src|threadmap)\//) {
      if (!quoted) { print "ours|" where ": name our own headers in quotes, by their path from the root"; next }
      if (target ~ /\.\./) { print "ours|" where ": no .. in an include of ours"; next }
      if (target ~ /^threadmap\/(result\.hpp|version\.hpp|version\.h)$/) next
      if (target ~ /^threadmap\//) other = "core"
      else { split(target, t, "/"); other = t[2] }
      if (public && target ~ /^src\//) { print "ours|" where ": a public header is installed: it includes no src/ header"; next }
      if (other == area) next
      if (!(area in allowed)) next  # reported above: no row
      if (index(allowed[area], " " other " ") == 0) {
        deps = allowed[area]; gsub(/^ +| +$/, "", deps)
        print "ours|" where ": src/" area " may include only: " (deps == "" ? "(nothing of ours but threadmap/result.hpp)" : deps)
        next
      }
      if (other == "preload" && target != "src/preload/common/tm_pin_limits.h")
        print "ours|" where ": from src/preload the C++ side includes only src/preload/common/tm_pin_limits.h"
      next
    }
    if (quoted) { print "ours|" where ": include our headers by their path from the root (\"src/...\", \"threadmap/...\")"; next }
    if (os) next
    if (target in ok_header) next
    if (target ~ tp) next
    if (public && target == "pthread.h") next
    print "sys|" where
  }
' "${files[@]}")
ours=$(grep '^ours|' <<<"$include_hits" | cut -d'|' -f2- || true)
[ -n "$ours" ] && fail "includes that break the layer table:
$ours"
sys=$(grep '^sys|' <<<"$include_hits" | cut -d'|' -f2- || true)
[ -n "$sys" ] && fail "system headers outside src/os (only src/os talks to the kernel; move the call behind src/os):
$sys"
preload_inc=$(grep -nE '^\s*#\s*include\s*[<"](src|threadmap|include)/|^\s*#\s*include\s*"\.\./\.\./' \
                "${preload_files[@]}" /dev/null || true)
[ -n "$preload_inc" ] && fail "the preload libraries include C++ code (they are libc only):
$preload_inc"

# The doc's table says the same as ours.
want=$(table_column)
while IFS= read -r row; do
  area=$(echo "$row" | sed -E 's/^\| `src\/([a-z_]+)\/`.*/\1/')
  [ "$area" = preload ] && continue
  doc_col=$(echo "$row" | awk -F'|' '{print $(NF-1)}' | sed -E 's/^ +| +$//g')
  ours_row=$(grep -F "| \`src/$area/\` |" <<<"$want" || true)
  if [ -z "$ours_row" ]; then
    fail "docs/architecture.md has a row for src/$area/ that scripts/check-layers.sh lacks"
    continue
  fi
  ours_col=$(echo "$ours_row" | awk -F'|' '{print $(NF-1)}' | sed -E 's/^ +| +$//g')
  [ "$doc_col" = "$ours_col" ] ||
    fail "docs/architecture.md says src/$area/ may include '$doc_col'; the script's table says '$ours_col'"
done < <(grep -E '^\| `src/[a-z_]+/` \|' docs/architecture.md)

# 3. Kernel calls outside src/os and the preload libraries.
names='syscall|sched_(set|get)(affinity|attr|scheduler|param)|sched_getcpu|sched_yield'
names+='|sched_get_priority_(min|max)|sched_rr_get_interval|move_pages|prctl|perf_event_open'
names+='|pthread_[a-z_]+_np|pthread_kill'
names+='|pthread_sigmask|sigprocmask|sigaction|signal|raise|open|openat|creat|read|pread|write'
names+='|pwrite|ioctl|mmap|munmap|mprotect|madvise|mlock|mlockall|kill|tgkill|waitpid|waitid|wait4'
names+='|posix_spawnp?|getenv|secure_getenv|setenv|unsetenv|putenv|clearenv|system|fopen|fdopen'
names+='|freopen|popen|tmpfile|opendir|readlink|stat|lstat|fstat|statx|access|unlink|rename'
names+='|mkdir|rmdir|chdir|getcwd|symlink|truncate|ftruncate|close|pipe2?|dup2?|fork|vfork'
names+='|execl|execlp|execle|execv|execvp|execvpe|execve|clock_gettime|clock_nanosleep|nanosleep'
names+='|usleep|sleep|getrusage|getrlimit|setrlimit|prlimit|setpriority|getpriority|sysconf'
names+='|sysinfo|uname|gethostname|getpid|getppid|gettid|set_mempolicy|get_mempolicy|mbind'
names+='|dlopen|dlsym|dlclose|socket|connect|poll|epoll_create1?|epoll_wait|eventfd|signalfd'
names+='|timerfd_create|inotify_init1?'
# A call: an unqualified name then `(`; the system's own name: `::name` or `std::name`, called or not.
call="(^|[^.>:[:alnum:]_])($names)[[:space:]]*\\(|(^|[^.>:[:alnum:]_])(std)?::($names)([^[:alnum:]_]|\$)"
# A declaration (a type, then the name: `static Result<X> open(`) declares our own function.
decl="[[:alnum:]_>&*][[:space:]]+($names)[[:space:]]*\\("
types='std::(ifstream|ofstream|fstream|filesystem|this_thread)'
paths='"/(proc|sys)/'
asm='(asm|__asm__)([[:space:]]+(volatile|__volatile__))?[[:space:]]*\(.*(syscall|sysenter|svc|int[[:space:]]*\$0x80)'
calls=$(grep -nE "$call|$types|$paths|$asm" "${files[@]}" /dev/null \
          | grep -vE '^src/os/' \
          | grep -vE '^[^:]+:[0-9]+:\s*(//|\*|/\*)' \
          | awk -v c="$call" -v d="$decl" -v t="$types" -v p="$paths" -v a="$asm" '{
              code = $0; sub(/^[^:]+:[0-9]+:/, "", code); sub(/\/\/.*/, "", code);
              if (code ~ a) { print; next }
              gsub(/(return|else)[[:space:]]+/, "= ", code); gsub(d, "_decl_(", code);
              if (code ~ c || code ~ t || code ~ p) print }' \
        || true)
if [ -n "$calls" ]; then
  fail "kernel access outside src/os (move it behind src/os):
$calls"
fi

# 4. Unique source names.
same=$(find src -name '*.cpp' -not -path 'src/preload/*' -printf '%f\n' | sort | uniq -d)
[ -n "$same" ] && fail "source files sharing a name in different folders: $same"

# ---------------------------------------------------------------------------------------------
# 5. Inside the preload libraries, kernel calls only behind src/preload/common/tm_prim.h (each a
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
