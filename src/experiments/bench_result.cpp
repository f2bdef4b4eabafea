#include "src/experiments/bench_result.hpp"

#include <algorithm>

namespace threadmap::experiments {

Summary summarize_runs(std::vector<double> samples) {
  const latency::SampleSummary stats = latency::summarize(samples);
  Summary s;
  s.samples = std::move(samples);
  s.median = stats.median;
  s.min = stats.min;
  s.max = stats.max;
  s.spread_pct = s.median != 0 ? (s.max - s.min) / s.median * 100.0 : 0;
  return s;
}

void compute_ratios(BenchResult& result) {
  for (Variant& v : result.variants) {
    v.ratio_to_baseline = 0;
    if (!v.available || v.value.samples.empty()) continue;
    if (v.baseline.empty()) {
      v.ratio_to_baseline = 1;
      continue;
    }
    auto base = std::find_if(result.variants.begin(), result.variants.end(),
                             [&](const Variant& b) { return b.name == v.baseline; });
    if (base == result.variants.end() || !base->available || base->value.median <= 0 ||
        v.value.median <= 0)
      continue;
    v.ratio_to_baseline = result.higher_is_better ? v.value.median / base->value.median
                                                  : base->value.median / v.value.median;
  }
}

BenchResult unavailable_bench(std::string name, std::string title, std::string reason) {
  BenchResult r;
  r.name = std::move(name);
  r.title = std::move(title);
  r.available = false;
  r.unavailable_reason = std::move(reason);
  return r;
}

}  // namespace threadmap::experiments
