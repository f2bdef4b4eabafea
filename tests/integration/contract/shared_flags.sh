#!/usr/bin/env bash
# Runs every row of shared_flags.tsv against the built threadmap and checks, group by group,
# that each row exits with the group's status and prints one `threadmap:` line, and that the
# rows of a group print the very same stderr, progress lines aside (groups named with a trailing '~': the status
# only). Prints every failing group, then fails if any did.
#   shared_flags.sh THREADMAP
set -uo pipefail
threadmap=$1
table="$(dirname "$0")/shared_flags.tsv"
root=$(mktemp -d)
sleep 60 &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$root"' EXIT
W=$root/scratch D=$root/dir EMPTY=$root/empty CUT=$root/cut.xml
mkdir -p "$W" "$D"
: >"$EMPTY"
printf '<?xml version="1.0"?>\n<topology version="2.0">\n<object type="Machine">\n' >"$CUT"
export W D EMPTY CUT PID
declare -A first_err first_args
failed=0 rows=0
while IFS=$'\t' read -r group status args; do
  [[ -z "$group" || "$group" == \#* ]] && continue
  rows=$((rows + 1))
  eval "set -- $args"
  timeout 20 "$threadmap" "$@" >/dev/null 2>"$root/err" </dev/null
  got=$?
  # Progress lines ("threadmap report: [1/8] ...") are not the error line.
  err=$(grep -v '^threadmap report: \[' "$root/err")
  rm -rf "${W:?}"/*
  problems=""
  [ "$got" = "$status" ] || problems+=" exit $got (want $status);"
  [ "$(grep -c '^threadmap: ' <<<"$err")" = 1 ] || problems+=" not one 'threadmap:' line;"
  if [[ "$group" != *~ ]]; then
    if [ -z "${first_err[$group]+set}" ]; then
      first_err[$group]=$err first_args[$group]=$args
    elif [ "$err" != "${first_err[$group]}" ]; then
      problems+=" says something else than 'threadmap ${first_args[$group]}':"
      problems+=$'\n'"    ${first_err[$group]}"$'\n'"    $err"
    fi
  fi
  if [ -n "$problems" ]; then
    failed=$((failed + 1))
    echo "FAIL [$group] threadmap $args:$problems"
    [ "$got" = "$status" ] || sed 's/^/    stderr: /' <<<"$err" | head -3
  fi
done <"$table"
echo "shared flags: $rows rows, $failed failed"
[ "$failed" = 0 ]
