#!/usr/bin/env bash
# What a preload library costs a process that creates no thread (run by hand, not a test): for
# PROGRAM (default /bin/true) run plainly and under each VARIANT, side by side in one run. A
# VARIANT is "LIB" or "LIB NAME=VALUE..." (one argument: the variables go with LD_PRELOAD=LIB,
# e.g. the TM_PIN_CONFIG that `threadmap run --cpus all` gives); LD_PRELOAD and the variables
# are set for PROGRAM only, by env (a tool such as valgrind or strace must not load the library
# itself: the pin library takes itself out of the environment of what such a process execs).
#   - instructions of the whole process (valgrind --tool=callgrind: deterministic, load-proof);
#   - system calls (strace -f, one line each);
#   - task-clock and page faults, mean and spread over N runs (perf stat -r N, the variants
#     interleaved round by round so that load drifts hit them alike).
# Prints one Markdown table.
#
#   bench/runtimes/startup_cost.sh [-r N] [-p PROGRAM] VARIANT...
set -u
runs=50
program=/bin/true
while [ $# -gt 0 ]; do
  case $1 in
    -r) runs=$2; shift 2 ;;
    -p) program=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: startup_cost.sh [-r N] [-p PROGRAM] LIB..." >&2; exit 2; }
for tool in valgrind strace perf; do
  command -v $tool >/dev/null || { echo "startup_cost.sh: $tool is not installed" >&2; exit 2; }
done
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
variants=(plain "$@")

# LD_PRELOAD for the program only: env is the process exec'ed, then the program replaces it.
run_variant() { # VARIANT CMD-PREFIX...
  local v=$1; shift
  if [ "$v" = plain ]; then
    "$@" env "$program"
  else
    local lib=${v%% *} vars=()
    [ "$lib" != "$v" ] && read -r -a vars <<<"${v#* }"
    "$@" env LD_PRELOAD="$lib" "${vars[@]}" "$program"
  fi
}

# The same with the variant's variables set before TOOL (which then runs the program).
run_variant_under() { # VARIANT TOOL-COMMAND...
  local v=$1; shift
  if [ "$v" = plain ]; then
    "$@" "$program"
  else
    local lib=${v%% *} vars=()
    [ "$lib" != "$v" ] && read -r -a vars <<<"${v#* }"
    env LD_PRELOAD="$lib" "${vars[@]}" "$@" "$program"
  fi
}

# Valgrind's launcher is itself a dynamic program that execs the tool: started under LD_PRELOAD
# it would load the library (and the pin library would take itself out of the environment
# before the tool starts the program). So the tool is started directly, as the launcher does.
valgrind_lib=$(dirname "$(find /usr/libexec/valgrind /usr/lib/x86_64-linux-gnu/valgrind \
  /usr/lib/valgrind -name 'callgrind-*-linux' 2>/dev/null | head -n 1)")
callgrind_tool=$(ls "$valgrind_lib"/callgrind-*-linux 2>/dev/null | grep -v x86-linux | head -n 1)
instructions() {
  VALGRIND_LAUNCHER="$(command -v valgrind)" VALGRIND_LIB="$valgrind_lib" \
    run_variant_under "$1" "$callgrind_tool" --callgrind-out-file=/dev/null >/dev/null 2>"$dir/cg.err"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/cg.err" | tail -n 1
}
syscalls() {
  run_variant "$1" strace -f -qq -o "$dir/st" >/dev/null 2>&1
  # From the program's execve on (env's own calls before it are the same in every variant).
  awk -v p="$program" 'index($0, "execve(\"" p "\"") { on = 1 } on { n++ } END { print n + 0 }' "$dir/st"
}

declare -A clock_sum clock_sq faults_sum
for v in "${variants[@]}"; do clock_sum[$v]=0; clock_sq[$v]=0; faults_sum[$v]=0; done
# perf stat -r 1 per round, the variants in turn (reversed every other round).
for ((round = 0; round < runs; ++round)); do
  order=("${variants[@]}")
  if ((round % 2)); then
    order=()
    for ((i = ${#variants[@]} - 1; i >= 0; --i)); do order+=("${variants[$i]}"); done
  fi
  for v in "${order[@]}"; do
    run_variant "$v" perf stat -x, -e task-clock,page-faults -o "$dir/perf" -- >/dev/null 2>&1
    ms=$(awk -F, '$3 == "task-clock" { print $1 }' "$dir/perf")
    pf=$(awk -F, '$3 == "page-faults" { print $1 }' "$dir/perf")
    clock_sum[$v]=$(echo "${clock_sum[$v]} + $ms" | bc -l)
    clock_sq[$v]=$(echo "${clock_sq[$v]} + $ms * $ms" | bc -l)
    faults_sum[$v]=$((faults_sum[$v] + pf))
  done
done

echo "| variant | instructions (callgrind) | system calls | task-clock ms, mean ± sd ($runs runs) | page faults |"
echo "|---|---:|---:|---:|---:|"
for v in "${variants[@]}"; do
  mean=$(echo "${clock_sum[$v]} / $runs" | bc -l)
  sd=$(echo "sqrt(${clock_sq[$v]} / $runs - $mean * $mean)" | bc -l)
  printf '| %s | %s | %s | %.3f ± %.3f | %s |\n' "$v" "$(instructions "$v")" "$(syscalls "$v")" \
    "$mean" "$sd" "$((faults_sum[$v] / runs))"
done
