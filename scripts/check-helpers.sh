#!/usr/bin/env bash
# One home for each small helper: fails when one of them is defined anywhere but its home, or
# when a median is written by hand. The homes (docs/DEVELOPING.md, "Where small helpers live"):
#   src/os/small_text       trimmed, read_small_file, directory_entries (os and every layer)
#   src/core/text           joined, node_list, duration_text (every layer above os)
#   src/core/sample_stats   median, quantile_of_sorted (every layer above os)
#   src/fleet/host_record   expand_host_pattern (`report --out DIR/%h`)
# A definition is a line that starts with a type and then the name and "(" (a function, also
# under another spelling of the same job: trim, small_file, median_of, quantile, ...), or a
# lambda `auto NAME = [`. A median by hand is `nth_element` or an index `[v.size() / 2]`.
# The C preload libraries are apart (C, libc only). CI runs this with the other cheap checks.
#
# Usage: scripts/check-helpers.sh [--root DIR] | --selftest
# Exit status: 0 when every helper has one definition, 1 otherwise (each one printed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

# home file (without extension) : names defined there, and nowhere else.
homes=(
  "src/os/small_text:trimmed trim read_small_file small_file directory_entries"
  "src/core/text:joined node_list duration_text seconds_text"
  "src/core/sample_stats:median median_of median_of_sorted quantile quantile_of_sorted percentile"
  "src/fleet/host_record:expand_host_pattern"
)

check() {
  local dir=$1 failed=0 entry home names name hits
  local files
  files=$(cd "$dir" && find src include -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \
          -o -name '*.cc' \) -not -path 'src/preload/*' | sort)
  for entry in "${homes[@]}"; do
    home=${entry%%:*}
    names=${entry#*:}
    for name in $names; do
      # A definition or declaration at the start of a line: a type, then the name, then "(".
      hits=$(cd "$dir" && grep -nE "^[A-Za-z_][A-Za-z0-9_:<>,*& ]*[ *&]${name}\(|\bauto ${name} = \[" \
             $files /dev/null | grep -vE "^${home}\.(cpp|hpp):" | grep -vE ':[0-9]+:\s*(return|else|if)\b' || true)
      if [ -n "$hits" ]; then
        echo "check-helpers: '${name}' is defined outside its home ${home}.hpp; use that one:" >&2
        printf '  %s\n' "$hits" >&2
        failed=1
      fi
    done
  done
  hits=$(cd "$dir" && grep -nE 'nth_element|\[[A-Za-z_.>-]*size\(\) ?/ ?2\]' $files /dev/null |
         grep -vE '^src/core/sample_stats\.(cpp|hpp):' | grep -vE ':[0-9]+:\s*//' || true)
  if [ -n "$hits" ]; then
    echo "check-helpers: a median by hand; use median() or quantile_of_sorted() of" \
         "src/core/sample_stats.hpp:" >&2
    printf '  %s\n' "$hits" >&2
    failed=1
  fi
  return $failed
}

if [ "${1:-}" = "--selftest" ]; then
  # Plants one violation of each kind in a scratch copy of src/ and include/; the check must
  # fail on each, and pass on the untouched copy.
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cp -r "$root/src" "$root/include" "$scratch/"
  if ! check "$scratch" 2>/dev/null; then
    echo "check-helpers --selftest: the tree itself fails the check" >&2
    exit 1
  fi
  plants=(
    "src/render/plant.cpp|std::string joined(const std::vector<std::string>& v) { return v[0]; }"
    "src/cluster/plant.cpp|static std::string node_list(const std::vector<int>& n) {"
    "src/os/plant.cpp|std::string trimmed(std::string text) {"
    "src/fleet/plant.cpp|double median_of(std::vector<double> v) {"
    "src/latency/plant.cpp|  auto median = [](std::vector<double> v) { return v[0]; };"
    "src/plan/plant.cpp|  std::nth_element(v.begin(), v.begin() + 3, v.end());"
    "src/render/plant2.cpp|  return values[values.size() / 2];"
    "src/apply/plant.cpp|std::string duration_text(double s) {"
  )
  status=0
  for plant in "${plants[@]}"; do
    file=${plant%%|*}
    printf '%s\n' "${plant#*|}" > "$scratch/$file"
    if check "$scratch" 2>/dev/null; then
      echo "check-helpers --selftest: not caught: ${plant#*|} (in $file)" >&2
      status=1
    fi
    rm "$scratch/$file"
  done
  [ $status -eq 0 ] && echo "check-helpers --selftest: all ${#plants[@]} planted copies caught"
  exit $status
fi

if [ "${1:-}" = "--root" ]; then root=$2; fi
check "$root"
