#!/usr/bin/env bash
# The layer check's own test: plants violations of each rule of scripts/check-layers.sh in a
# scratch copy of src/, include/ and docs/architecture.md, and fails unless the check fails on
# every planted file (and names it), passes the unchanged copy, and passes code that only looks
# like a kernel call (our own functions of those names, comments, std::remove). Takes seconds;
# CI runs it after the check itself.
#   scripts/check-layers-selftest.sh [CHECKER]   (default: scripts/check-layers.sh; give an older
#                                                 copy to see what it missed)
set -euo pipefail
cd "$(dirname "$0")/.."
checker=$(realpath "${1:-scripts/check-layers.sh}")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

fresh_copy() {  # an unchanged copy of what the check reads, in $scratch/tree
  rm -rf "$scratch/tree"
  mkdir -p "$scratch/tree/scripts" "$scratch/tree/docs"
  cp -r src include "$scratch/tree/"
  cp docs/architecture.md "$scratch/tree/docs/"
  cp "$checker" "$scratch/tree/scripts/check-layers.sh"
}
run_check() {  # runs the check in the copy; its stderr in $scratch/out; returns its status
  "$scratch/tree/scripts/check-layers.sh" >/dev/null 2>"$scratch/out"
}
plant() {  # plant FILE TEXT: a new file in the copy (its folder exists)
  printf '%s\n' "$2" >"$scratch/tree/$1"
  planted+=("$1")
}
expect_caught() {  # expect_caught WHAT: the check fails and names every planted file
  local caught=0 f
  if run_check; then
    echo "selftest: FAIL: $1: the check passed with ${#planted[@]} planted violation(s)" >&2
    failures=$((failures + 1))
    return
  fi
  for f in "${planted[@]}"; do
    if grep -qF -- "$f" "$scratch/out"; then
      caught=$((caught + 1))
    else
      echo "selftest: FAIL: $1: not caught: $f" >&2
      failures=$((failures + 1))
    fi
  done
  echo "selftest: $1: $caught of ${#planted[@]} caught"
}
expect_message() {  # expect_message WHAT TEXT: the check fails saying TEXT
  if run_check; then
    echo "selftest: FAIL: $1: the check passed" >&2
    failures=$((failures + 1))
  elif ! grep -qF -- "$2" "$scratch/out"; then
    echo "selftest: FAIL: $1: the check failed without saying '$2':" >&2
    sed 's/^/  /' "$scratch/out" >&2
    failures=$((failures + 1))
  else
    echo "selftest: $1: caught"
  fi
}

# The unchanged copy passes (else nothing below means anything).
fresh_copy
if ! run_check; then
  echo "selftest: FAIL: the check fails on the unchanged tree:" >&2
  cat "$scratch/out" >&2
  exit 1
fi

# Kernel access outside src/os, twelve ways (and a few more): through a system header, through
# a call a standard or public header declares, through a type, a path, a pointer, assembly.
fresh_copy
planted=()
plant src/plan/planted_sysconf.cpp '#include <unistd.h>
long planted_cpus() { return sysconf(_SC_NPROCESSORS_ONLN); }'
plant src/latency/planted_sched.cpp '#include <sched.h>
int planted_fifo() { sched_param p{}; return sched_setscheduler(0, SCHED_FIFO, &p); }'
plant src/monitor/planted_priority.cpp '#include <sys/resource.h>
int planted_nice() { return setpriority(PRIO_PROCESS, 0, 10); }'
plant src/core/planted_ifstream.cpp '#include <fstream>
#include <string>
std::string planted_read(const std::string& p) { std::ifstream in(p); std::string s; in >> s; return s; }'
plant src/apply/planted_fs.cpp '#include <filesystem>
namespace fs = std::filesystem;
bool planted_remove(const char* p) { return fs::remove(p); }'
plant src/cluster/planted_signal.cpp '#include <csignal>
void planted_ignore() { std::signal(SIGTERM, SIG_IGN); }'
plant src/experiments/planted_dlopen.cpp '#include <dlfcn.h>
void* planted_lib() { return dlopen("libm.so.6", RTLD_NOW); }'
plant src/report/planted_open.cpp '#include <fcntl.h>
int planted_fd(const char* p) { return ::open(p, O_RDONLY); }'
plant src/render/planted_system.cpp '#include <cstdlib>
int planted_lscpu() { return std::system("lscpu"); }'
plant src/fleet/planted_mkdir.cpp '#include "sys/stat.h"
int planted_dir(const char* d) { return mkdir(d, 0755); }'
plant src/tune/planted_sleep.cpp '#include <chrono>
#include <thread>
void planted_nap() { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }'
plant src/cli/planted_setname.cpp '#include "threadmap/affinity.hpp"
int planted_name() { return pthread_setname_np(pthread_self(), "tm"); }'
plant src/core/planted_asm.cpp 'long planted_raw() { long r; asm volatile("syscall" : "=a"(r) : "a"(39) : "rcx", "r11"); return r; }'
plant src/plan/planted_pointer.cpp '#include <cstdlib>
auto* planted_env = &::getenv;'
plant src/plan/planted_path.cpp 'const char* planted_online = "/sys/devices/system/cpu/online";'
plant src/monitor/planted_other_suffix.cc 'extern "C" int kill(int, int);
int planted_stop(int pid) { return kill(pid, 19); }'
plant include/threadmap/planted_public.hpp '#pragma once
#include <unistd.h>'
expect_caught "kernel access outside src/os"

# The include table: a lower layer including a higher one, around the table or not.
fresh_copy
planted=()
plant src/plan/planted_up.cpp '#include "src/render/plan_view.hpp"'
plant src/fleet/planted_preload.cpp '#include "src/preload/common/tm_pin_limits.h"'
plant src/apply/planted_preload_other.cpp '#include "src/preload/pin/pin_config.h"'
plant src/core/planted_relative.cpp '#include "../render/plan_view.hpp"'
plant src/latency/planted_angle.cpp '#include <src/render/plan_view.hpp>'
plant src/os/planted_os_up.cpp '#include "src/core/verdict.hpp"'
plant src/monitor/planted_dotdot.cpp '#include "src/monitor/../render/plan_view.hpp"'
plant include/threadmap/planted_src.hpp '#include "src/core/verdict.hpp"'
plant src/preload/pin/planted_cxx.c '#include "src/core/verdict.hpp"'
plant src/planted_no_area.cpp '#include "src/render/plan_view.hpp"'
expect_caught "includes against the layer table"

fresh_copy
planted=()
mkdir "$scratch/tree/src/newarea"
plant src/newarea/planted_new.cpp 'int planted_new() { return 0; }'
expect_message "a folder without a row" "src/newarea/ has no row"

fresh_copy
planted=()
sed -i -E 's/^(\| `src\/fleet\/` \|.*\| )core, os \|$/\1core, os, render |/' \
  "$scratch/tree/docs/architecture.md"
expect_message "docs/architecture.md disagreeing with the table" "docs/architecture.md says src/fleet/"

fresh_copy
planted=()
plant src/plan/verdict.cpp 'int planted_same_name() { return 0; }'
expect_message "two sources sharing a name" "source files sharing a name"

# Inside the preload libraries: a kernel call outside tm_prim.h and tm_futex.h.
fresh_copy
planted=()
plant src/preload/cache/planted_raw.c '#include <unistd.h>
int planted_pid(void) { return (int)getpid(); }'
expect_message "a raw kernel call in a preload file" "src/preload/cache/planted_raw.c"

# What only looks like a kernel call passes.
fresh_copy
planted=()
plant src/monitor/planted_lookalike.cpp '#include <sys/types.h>
#include <algorithm>
#include <string>
#include <vector>
// Calls open(2) and read(2) through src/os; see /proc/self/stat.
struct Counters { static int open(int); int read() const; };
static int open(const std::string& name);
int planted_ours(std::vector<int>& v, Counters& c, Counters* p) {
  v.erase(std::remove(v.begin(), v.end(), 0), v.end());
  return Counters::open(1) + c.read() + p->read();
}'
if run_check; then
  echo "selftest: code that only looks like a kernel call: passes"
else
  echo "selftest: FAIL: the check refuses code that only looks like a kernel call:" >&2
  sed 's/^/  /' "$scratch/out" >&2
  failures=$((failures + 1))
fi

if [ $failures -gt 0 ]; then
  echo "selftest: $failures failure(s): scripts/check-layers.sh misses what it is there to catch" >&2
  exit 1
fi
echo "selftest: scripts/check-layers.sh catches every planted violation"
