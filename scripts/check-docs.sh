#!/usr/bin/env bash
# The reference docs name only what exists: every name in backticks in docs/design.md,
# docs/DEVELOPING.md and docs/architecture.md that looks like code must be found in the tree, so
# a renamed function or a moved file fails CI instead of leaving the walk-through stale.
#   - a path (`src/apply/run_command.cpp`, `tests/unit/core/`, `scripts/check-layers.sh`,
#     `.ci/run`): the file or folder exists;
#   - a file name (`pin_view.c`, `tm_cache.h`, `run.cpp`): a file of that name exists under
#     src/, include/, tests/ or scripts/;
#   - a qualified name (`apply::run_command`, `os::LaunchSpec`, `cli::exit_for(Error)`): its
#     last name is on a line that is not a comment in the area's folder (src/apply/ for apply::;
#     threadmap:: and std:: anywhere under src/ and include/);
#   - a call (`prepare_run`... written `prepare_run()` or `tm__create(...)`), and any name of
#     the cache's or the pin library's (`tm__...`): found likewise under src/ and include/.
# And a claim about who calls what: a line "`FILE` calls `A` and then `B`." holds when FILE
# calls each of the names after "calls" on that line (`B(` or `B (` in it, outside comments), so
# the walk through a request cannot keep a call the code no longer makes.
# Commands, flags, variables, JSON and anything with a placeholder (`<area>`, `*`, `...`, a
# space) are not names of the tree and are passed over. CI runs this with the cheap checks.
#
# Usage: scripts/check-docs.sh [--root DIR] [DOC...] | --selftest
# Exit status: 0 when every name is found, 1 otherwise (each missing one printed with its line).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
docs=(docs/design.md docs/DEVELOPING.md docs/architecture.md)

# The folder a namespace lives in.
area_of() {
  case $1 in
    os | core | latency | plan | monitor | apply | cluster | fleet | experiments | report | tune | render | cli)
      echo "src/$1" ;;
    html | detail) echo "src/render" ;;
    *) echo "src include tests" ;;
  esac
}

# Every identifier on a line that is not a comment, with the folder of its file ("src/apply
# run_command"), for C/C++ sources and CMake files under src/, include/ and tests/; made once.
make_index() {
  (cd "$dir" && find src include tests cmake -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \
     -o -name '*.hpp' -o -name '*.in' -o -name 'CMakeLists.txt' -o -name '*.cmake' \) 2>/dev/null |
   xargs awk '!/^[ \t]*(\/\/|\*|\/\*|#[ \t])/ {
       n = split(FILENAME, part, "/"); folder = part[1] "/" part[2]
       while (match($0, /[A-Za-z_][A-Za-z0-9_]*/)) {
         print folder, substr($0, RSTART, RLENGTH); print part[1], substr($0, RSTART, RLENGTH)
         $0 = substr($0, RSTART + RLENGTH)
       }
     }' | sort -u) > "$index"
}

# True when NAME is on a non-comment line of a file under one of the folders given.
defined_in() {
  local name=$1 folder
  shift
  for folder in "$@"; do
    grep -qxF -- "$folder $name" "$index" && return 0
  done
  return 1
}

check_doc() {
  local doc=$1 failed=0 lineno token name area found candidate
  # Every `...` span outside fenced blocks, as "LINE<TAB>TEXT".
  while IFS=$'\t' read -r lineno token; do
    [ -n "$token" ] || continue
    case $token in
      *'<'* | *'*'* | *'...'* | *' '* | *'$'* | *'='* | *'"'* | -*) continue ;;
    esac
    if [[ $token =~ ^(src|include|tests|scripts|docs|\.ci|cmake|debian|packaging)/[A-Za-z0-9_./+-]*$ ]]; then
      # A module is named without its extension too (`src/plan/plan_file`).
      found=
      for candidate in "${token%/}" "$token".{cpp,hpp,c,h}; do
        [ -e "$dir/$candidate" ] && found=1
      done
      if [ -z "$found" ]; then
        echo "$doc:$lineno: no file or folder '$token'" >&2
        failed=1
      fi
    elif [[ $token =~ ^[A-Za-z0-9_+-]+\.(c|h|cpp|hpp|sh|py|txt|cmake)$ ]]; then
      if [ -z "$(cd "$dir" && find src include tests scripts cmake \( -name "$token" -o -name "$token.in" \) \
                 -print -quit 2>/dev/null)" ]; then
        echo "$doc:$lineno: no file named '$token'" >&2
        failed=1
      fi
    elif [[ $token =~ ^([A-Za-z_][A-Za-z0-9_]*::)+([A-Za-z_~][A-Za-z0-9_]*)(\(.*\))?$ ]]; then
      name=${BASH_REMATCH[2]}
      area=${token%%::*}
      case $area in std | GTest | testing | nlohmann | CLI | fmt) continue ;; esac
      # shellcheck disable=SC2046
      defined_in "$name" $(area_of "$area") ||
        { echo "$doc:$lineno: '$token': no '$name' in $(area_of "$area")" >&2; failed=1; }
    elif [[ $token =~ ^([A-Za-z_][A-Za-z0-9_]*)\(.*\)$ ]] || [[ $token =~ ^(tm__[A-Za-z0-9_]+)$ ]]; then
      name=${BASH_REMATCH[1]}
      defined_in "$name" src include tests ||
        { echo "$doc:$lineno: '$token': no '$name' under src/ or include/" >&2; failed=1; }
    fi
  done < <(cd "$dir" && awk '/^```/ { fenced = !fenced; next }
                             !fenced { line = $0
                                       while (match(line, /`[^`]+`/)) {
                                         print NR "\t" substr(line, RSTART + 1, RLENGTH - 2)
                                         line = substr(line, RSTART + RLENGTH)
                                       } }' "$doc")
  check_calls "$doc" || failed=1
  return $failed
}

# "`FILE` calls `A`, `B` ...": FILE calls each of them.
check_calls() {
  local doc=$1 failed=0 lineno file names name
  while IFS=$'\t' read -r lineno file names; do
    for name in $names; do
      case $name in */* | *.*) continue ;; esac
      name=${name##*::}
      name=${name%%(*}
      # grep -c reads to the end: with -q the first grep could die of SIGPIPE (pipefail).
      if [ "$(grep -vE '^\s*//' "$dir/$file" 2>/dev/null |
              grep -cE "(^|[^A-Za-z0-9_])$name ?\(")" -eq 0 ]; then
        echo "$doc:$lineno: '$file' does not call '$name' (the line says it does)" >&2
        failed=1
      fi
    done
  done < <(cd "$dir" && awk '/^```/ { fenced = !fenced; next }
                             !fenced && match($0, /`[^` ]+\/[^` ]+\.[a-z]+` calls /) {
                               head = substr($0, RSTART, RLENGTH); rest = substr($0, RSTART + RLENGTH)
                               sub(/^`/, "", head); sub(/` calls $/, "", head)
                               names = ""
                               while (match(rest, /`[^`]+`/)) {
                                 names = names " " substr(rest, RSTART + 1, RLENGTH - 2)
                                 rest = substr(rest, RSTART + RLENGTH)
                               }
                               print NR "\t" head "\t" names
                             }' "$doc")
  return $failed
}

check() {
  dir=$1
  shift
  local status=0 doc
  index=$(mktemp)
  make_index
  for doc in "$@"; do
    check_doc "$doc" || status=1
  done
  rm -f "$index"
  return $status
}

if [ "${1:-}" = "--selftest" ]; then
  # Plants a stale name of each kind in a scratch copy of the docs; the check must fail on each.
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cp -r "$root/src" "$root/include" "$root/tests" "$root/scripts" "$root/docs" "$root/cmake" \
     "$scratch/"
  mkdir -p "$scratch/.ci" && cp "$root/.ci/run" "$scratch/.ci/"
  if ! check "$scratch" "${docs[@]}"; then
    echo "check-docs --selftest: the docs themselves fail the check" >&2
    exit 1
  fi
  plants=(
    'the request goes through `src/apply/run_gone.cpp`'
    'its constructor (`pin_gone.c`) parses it'
    'one call, `apply::run_gone_command`, returns the report'
    'the worker (`tm__gone_worker`) parks'
    'then `prepare_gone()` loads the topology'
    'the merge is `cluster::collect_report` (a name of another area)'
    '`src/cli/run.cpp` calls `apply::run_command` itself.'
  )
  status=0
  for plant in "${plants[@]}"; do
    cp "$root/docs/design.md" "$scratch/docs/design.md"
    printf '%s\n' "$plant" >> "$scratch/docs/design.md"
    if check "$scratch" docs/design.md 2>/dev/null; then
      echo "check-docs --selftest: not caught: $plant" >&2
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "check-docs --selftest: all ${#plants[@]} stale names caught"
  exit $status
fi

if [ "${1:-}" = "--root" ]; then
  root=$2
  shift 2
fi
if [ $# -gt 0 ]; then docs=("$@"); fi
check "$root" "${docs[@]}"
