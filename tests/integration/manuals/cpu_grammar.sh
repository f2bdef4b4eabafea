#!/usr/bin/env bash
# The CPU-expression grammar has one list of TYPEs (src/cli/manual_sections.cpp,
# cpu_expression_types; printed by `threadmap --help-man --cpu-types`). Checked here against
# everything a user reads it in: README's "CPU expressions" section, threadmap(1)'s CPU
# EXPRESSIONS section, the --cpus help of run, pin and latency, and the resolver itself (each
# type resolves, or names what exists, on a recorded machine that has it; a type not in the list
# is refused as unknown).
#   cpu_grammar.sh THREADMAP REPO_ROOT
set -uo pipefail
tm=$1 root=$2
topos=$root/tests/data/topologies
failed=0
problem() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}
types=$("$tm" --help-man --cpu-types) || problem "--help-man --cpu-types failed"
[ "$(wc -l <<<"$types")" -ge 10 ] || problem "the type list is short: $types"
readme=$(sed -n '/^## CPU expressions/,/^## /p' "$root/README.md")
page=$("$tm" --help-man | sed -n '/^\.SH CPU EXPRESSIONS/,/^\.SH [A-Z ]*$/p' | sed '$d')
helps=""
# The --cpus line of each, its description joined (CLI11 wraps a long one onto the next lines).
for sub in run pin latency; do
  helps+=$("$tm" "$sub" --help | awk '/^  -/ { if (l) print l; l = $0; next }
    /^      / { if (l) l = l " " $0; next } { if (l) print l; l = "" } END { if (l) print l }' |
    grep -E -- '^  --cpus ')$'\n'
done
[ "$(grep -c . <<<"$helps")" = 3 ] || problem "run, pin and latency do not each have a --cpus line"
# A type the machine has: resolves. Recorded machines that have each (tests/data/topologies).
zen4=$topos/amd-2x-epyc9654-zen4.xml
groups=$topos/synthetic/synthetic-2pack-8cluster-4core.xml
dgx=$topos/gpu/nvidia-dgx2-16x-v100.xml
for t in $types; do
  grep -qF "\`$t:" <<<"$readme" || problem "README's CPU expressions do not name $t:"
  grep -qE "(^|[ (,])$t([ :,);]|$)" <<<"$page" || problem "threadmap(1) CPU EXPRESSIONS does not name $t"
  while read -r help; do
    [ -z "$help" ] && continue
    grep -qE "[ (,]$t([ :,);-]|$)" <<<"$help" || problem "a --cpus help line does not name $t"
  done <<<"$helps"
  case $t in
    group) topo=$groups expr="group:0" ;;
    gpu) topo=$dgx expr="gpu:0" ;;
    # A name the machine lacks: the answer must list the ones it has (the type is known).
    nic | pci) topo=$dgx expr="$t:nosuch" ;;
    *) topo=$zen4 expr="$t:0" ;;
  esac
  out=$("$tm" plan --threads 1 --topology "$topo" --allowed "$expr" 2>&1)
  status=$?
  case $t in
    nic | pci)
      [ "$status" = 2 ] && ! grep -q "unknown object type" <<<"$out" ||
        problem "$expr: the resolver does not know $t: ($status) $out" ;;
    *) [ "$status" = 0 ] || problem "$expr does not resolve on $(basename "$topo"): $out" ;;
  esac
done
# And a type outside the list is unknown to the resolver too.
out=$("$tm" plan --threads 1 --topology "$zen4" --allowed "board:0" 2>&1)
grep -q "unknown object type 'board'" <<<"$out" || problem "board:0 was not refused as unknown: $out"
echo "cpu grammar: $(wc -w <<<"$types") types checked, $failed problem(s)"
[ "$failed" = 0 ]
