#!/usr/bin/env bash
# Runs every row of bad_input.tsv against the built threadmap and checks the input contract:
# exit status, exactly one `threadmap:` line on stderr holding the row's phrase, nothing left in
# the scratch directory, done within 5 s. Prints every failing row, then fails if any did.
#   bad_input.sh THREADMAP
set -uo pipefail
threadmap=$1
table="$(dirname "$0")/bad_input.tsv"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
W=$root/scratch D=$root/dir FIFO=$root/fifo EMPTY=$root/empty
mkdir -p "$W" "$D"
mkfifo "$FIFO"
: >"$EMPTY"
# A topology cut short (a head -c of lstopo's XML) and a spec whose name range is huge.
CUT=$root/cut.xml HUGE_SPEC=$root/huge.json
printf '<?xml version="1.0"?>\n<topology version="2.0">\n<object type="Machine">\n' >"$CUT"
echo '{"threads":[{"name":"worker[0-99999999]"}]}' >"$HUGE_SPEC"
# A recorded GPU server (8 GPUs on CPUs 0-1) and a machine without GPUs, for the device rows.
GPUS=$(cd "$(dirname "$0")/../../data/topologies" && pwd)/gpu/nvidia-dgx2-cpus0-1.xml
NO_GPU=$(dirname "$GPUS")/../this-vm-kvm-2vcpu-epyc.xml
export W D FIFO EMPTY CUT HUGE_SPEC GPUS NO_GPU
failed=0 rows=0
while IFS=$'\t' read -r status phrase args; do
  [[ -z "$status" || "$status" == \#* ]] && continue
  rows=$((rows + 1))
  eval "set -- $args"
  start=$(date +%s%N)
  timeout 20 "$threadmap" "$@" >"$root/out" 2>"$root/err" </dev/null
  got=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  # Progress lines ("threadmap report: [1/8] ...") are not errors; everything else counts.
  lines=$(grep -cv '^threadmap report: \[' "$root/err")
  ours=$(grep -c '^threadmap: ' "$root/err")
  problems=""
  [ "$got" = "$status" ] || problems+=" exit $got (want $status);"
  [ "$ours" = 1 ] && [ "$lines" = 1 ] || problems+=" $lines stderr line(s), $ours 'threadmap:';"
  grep -qF -- "$phrase" "$root/err" || problems+=" no '$phrase';"
  [ -z "$(ls -A "$W")" ] || { problems+=" left $(ls -A "$W");"; rm -rf "${W:?}"/*; }
  [ -z "$(ls -A "$D")" ] || { problems+=" wrote into \$D;"; rm -rf "${D:?}"/*; }
  [ "$ms" -lt 5000 ] || problems+=" took ${ms} ms;"
  if [ -n "$problems" ]; then
    failed=$((failed + 1))
    echo "FAIL: threadmap $args:$problems"
    sed 's/^/    stderr: /' "$root/err" | head -5
  fi
done <"$table"
echo "bad input: $rows rows, $failed failed"
[ "$failed" = 0 ]
