#!/usr/bin/env bash
# render only draws: every number and judgement on a page or table is computed below render
# (latency/matrix_summary, monitor::live_rates, the verdicts of core/verdict, ...) and handed to
# it. This fails when a file of src/render computes statistics itself:
#   - includes the statistics headers (core/sample_stats, core/verdict_stats, latency/stats);
#   - calls a statistic or a test: median, quantile_of_sorted, median_interval, summarize,
#     compare_samples, compare_rounds, mann_whitney_p, wilcoxon_signed_rank, sign_test_p,
#     hodges_lehmann_interval, find_modes;
#   - writes one by hand: nth_element, std::accumulate, sqrt, a middle element `[v.size() / 2]`,
#     a variable named mean/median/stddev/variance/quantile/percentile assigned a value, a rate
#     `/ dt`.
# Layout arithmetic (widths, colour scales, axis ticks, unit conversions) is not matched.
# Comments are ignored. CI runs this with the other cheap checks.
#
# Usage: scripts/check-render.sh [--root DIR] | --selftest
# Exit status: 0 when render computes no statistics, 1 otherwise (each line printed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

patterns=(
  '#include "src/(core/sample_stats|core/verdict_stats|latency/stats)\.hpp"'
  '(^|[^A-Za-z0-9_.>])(median|quantile_of_sorted|median_interval|summarize|compare_samples|compare_rounds|mann_whitney_p|wilcoxon_signed_rank|sign_test_p|hodges_lehmann_interval|find_modes)\('
  'nth_element|std::accumulate|(^|[^A-Za-z_])sqrt\('
  '\[[A-Za-z_.>-]*size\(\) ?/ ?2'
  '(^|[^A-Za-z0-9_.>])(mean|median|stddev|variance|quantile|percentile|average)[A-Za-z0-9_]* ?(\+|-)?= '
  '/ ?dt\b'
)

check() {
  local dir=$1 failed=0 pattern hits
  for pattern in "${patterns[@]}"; do
    hits=$(cd "$dir" && grep -nE -- "$pattern" src/render/*.cpp src/render/*.hpp |
           grep -vE '^[^:]+:[0-9]+:\s*//' || true)
    if [ -n "$hits" ]; then
      echo "check-render: render computes a statistic (compute it below render and hand it in):" >&2
      printf '  %s\n' "$hits" >&2
      failed=1
    fi
  done
  return $failed
}

if [ "${1:-}" = "--selftest" ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/src"
  cp -r "$root/src/render" "$scratch/src/"
  if ! check "$scratch" 2>/dev/null; then
    echo "check-render --selftest: the tree itself fails the check" >&2
    exit 1
  fi
  plants=(
    '#include "src/core/sample_stats.hpp"'
    '  const double m = median(values);'
    '  s.median = v.size() % 2 ? v[v.size() / 2] : v[0];'
    '  std::nth_element(v.begin(), v.begin() + 2, v.end());'
    '  double mean = total / n;'
    '  const auto v = compare_samples(a, b, rule);'
    '  r.cpu_percent = used / dt * 100;'
    '  const double sd = std::sqrt(var);'
  )
  status=0
  for plant in "${plants[@]}"; do
    printf '%s\n' "$plant" > "$scratch/src/render/plant.cpp"
    if check "$scratch" 2>/dev/null; then
      echo "check-render --selftest: not caught: $plant" >&2
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "check-render --selftest: all ${#plants[@]} planted statistics caught"
  exit $status
fi

if [ "${1:-}" = "--root" ]; then root=$2; fi
check "$root"
