#!/usr/bin/env bash
# One case of the placed-CPU-count matrix: does a program placed by `threadmap run` size itself
# for the CPUs it was given, as under `taskset -c X`, while its threads are still placed one by
# one? CMD prints `size KEY VALUE` lines (its runtime's own parallelism figures) and, where it
# can, one `thread-cpus LIST` line per thread of its process, read from the kernel
# (/proc/self/task/TID/status Cpus_allowed_list) while its threads are alive.
#
# The CPUs come from this machine (the affinity this script runs with): X = all of them, X = the
# first one, and X = the first two where there are three or more. For each X:
#   plain:  taskset -c X CMD                          (the reference)
#   placed: threadmap run --cpus X -- CMD             and for X = all also `--cpus all`,
#           threadmap run --cpus X --policy scatter -- CMD, `run --plan P` (P: `threadmap plan
#           --threads N --policy compact`, one thread per CPU) and `run --ranks 0/1`
# and requires: every placed run prints the same `size` lines as the plain run; under taskset
# every thread is on X; placed, every thread is on exactly one CPU of X and, with two CPUs or
# more and two threads or more, on more than one CPU overall (placed one by one), or, with
# --static, every thread on X and the one warning line of a statically linked program (the
# whole process placed: no preload can load into it).
# Exit 77 (skip, reason on stdout): a runtime or built file in --needs is missing, --skip
# REASON, or a sanitizer build.
#
# usage: cpus_case.sh --threadmap BIN [--needs A,B] [--skip REASON] [--static] -- CMD...
set -u
threadmap="" needs="" skip="" static=0
while [ $# -gt 0 ]; do
  case $1 in
    --threadmap) threadmap=$2; shift 2 ;;
    --needs) needs=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    --static) static=1; shift ;;
    --) shift; break ;;
    *) echo "cpus_case.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$threadmap" ] || [ $# -eq 0 ]; then
  echo "usage: cpus_case.sh --threadmap BIN [--needs A,B] [--skip R] [--static] -- CMD..." >&2
  exit 2
fi
if [ -n "$skip" ]; then echo "skipped: $skip"; exit 77; fi
if [ -n "${THREADMAP_SANITIZE:-}" ]; then
  echo "skipped: sanitizer build; preload comparisons run in the plain build"
  exit 77
fi
IFS=, read -r -a items <<<"$needs"
for item in "${items[@]}"; do
  [ -z "$item" ] && continue
  case $item in
    /*) [ -e "$item" ] || { echo "skipped: $item was not built (its compiler is missing)"; exit 77; } ;;
    *) command -v "$item" >/dev/null 2>&1 || { echo "skipped: $item is not installed"; exit 77; } ;;
  esac
done

# "0-2,5" -> "0 1 2 5"
expand() {
  local item out=""
  IFS=, read -r -a parts <<<"$1"
  for item in "${parts[@]}"; do
    if [[ $item == *-* ]]; then out="$out $(seq -s ' ' "${item%-*}" "${item#*-}")"; else out="$out $item"; fi
  done
  echo $out
}
mine=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
read -r -a cpus <<<"$(expand "$mine")"
sets=("$mine" "${cpus[0]}")
[ ${#cpus[@]} -ge 3 ] && sets+=("${cpus[0]},${cpus[1]}")

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL $*"; status=1; }

# Runs one configuration into $dir/NAME.{out,err}; fails when the command fails.
run() {
  local name=$1; shift
  timeout 120 "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    fail "$name: exit status $rc"; tail -n 5 "$dir/$name.err"
  fi
}
sizes() { grep '^size ' "$dir/$1.out" | sort; }
threads() { awk '$1 == "thread-cpus" { print $2 }' "$dir/$1.out"; }

# Placement of a placed run over X. Under the plan (one thread per CPU), threads past the plan
# run where they would without threadmap: on all of X (docs/run-and-watch.md).
check_placed() {
  local name=$1 x=$2 want list distinct="" n=0
  want=" $(expand "$x") "
  for list in $(threads "$name"); do
    n=$((n + 1))
    if [ $static -eq 1 ]; then
      [ "$(expand "$list")" = "$(expand "$x")" ] ||
        fail "$name: a thread of the static program is on CPUs $list, not the whole set $x"
      continue
    fi
    if [ "$name" = run-plan ] && [ "$(expand "$list")" = "$(expand "$x")" ]; then continue; fi
    if [[ $list == *[,-]* ]] || [[ $want != *" $list "* ]]; then
      fail "$name: a thread is on CPUs $list, not on one CPU of $x (not placed one by one)"
    fi
    [[ " $distinct " == *" $list "* ]] || distinct="$distinct $list"
  done
  read -r -a used <<<"$distinct"
  local xs
  read -r -a xs <<<"$(expand "$x")"
  # (The plan decides its own spread: `plan --threads N` may leave the main thread unplaced.)
  if [ $static -eq 0 ] && [ "$name" != run-plan ] && [ ${#xs[@]} -ge 2 ] && [ $n -ge 2 ] &&
    [ ${#used[@]} -lt 2 ]; then
    fail "$name: all $n threads on CPU $distinct: not spread over $x"
  fi
  if [ $static -eq 1 ] && ! grep -q 'statically linked' "$dir/$name.err"; then
    fail "$name: no line says the program is statically linked"
  fi
  echo "$name: $n threads, placed on CPUs${distinct:- (none listed)}"
}

for x in "${sets[@]}"; do
  tag=${x//,/_}
  run "taskset-$tag" taskset -c "$x" "$@"
  for list in $(threads "taskset-$tag"); do
    [ "$(expand "$list")" = "$(expand "$x")" ] || fail "taskset -c $x: a thread is on CPUs $list"
  done
  placed=("run-$tag")
  run "run-$tag" "$threadmap" run --cpus "$x" -- "$@"
  if [ "$x" = "$mine" ]; then
    run "run-all" "$threadmap" run --cpus all -- "$@"
    run "run-scatter" "$threadmap" run --cpus "$x" --policy scatter -- "$@"
    # A plan with one thread per CPU (its CPUs are X), and one rank of one: the rank's share.
    "$threadmap" plan --threads ${#cpus[@]} --policy compact --json >"$dir/plan.json" ||
      fail "threadmap plan --threads ${#cpus[@]} failed"
    run "run-plan" "$threadmap" run --plan "$dir/plan.json" -- "$@"
    run "run-ranks" "$threadmap" run --ranks 0/1 -- "$@"
    placed+=(run-all run-scatter run-plan run-ranks)
  fi
  echo "taskset -c $x: $(sizes "taskset-$tag" | cut -d' ' -f2- | paste -sd, -)"
  [ -n "$(sizes "taskset-$tag")" ] || fail "taskset -c $x: the program printed no size line"
  for name in "${placed[@]}"; do
    if [ "$(sizes "$name")" != "$(sizes "taskset-$tag")" ]; then
      fail "$name sizes itself otherwise than taskset -c $x (- taskset, + threadmap run):"
      diff <(sizes "taskset-$tag") <(sizes "$name") | grep '^[<>]' | sed 's/^</-/; s/^>/+/'
    else
      echo "$name: the same"
    fi
    check_placed "$name" "$x"
  done
done
[ $status -eq 0 ] && echo "ok: sized as under taskset, threads placed"
exit $status
