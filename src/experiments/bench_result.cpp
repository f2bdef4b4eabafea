#include "src/experiments/bench_result.hpp"

#include <algorithm>

namespace threadmap::experiments {

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.samples = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples.front();
  s.max = samples.back();
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
