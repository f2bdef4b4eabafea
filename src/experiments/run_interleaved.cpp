#include "src/experiments/run_interleaved.hpp"

#include <string>
#include <vector>

namespace threadmap::experiments {

Status run_interleaved(BenchResult& result, const BenchOptions& options, const RunOnce& once) {
  if (options.runs < 1)
    return Error::invalid("bad run count " + std::to_string(options.runs) + ": need at least 1");
  result.runs = options.runs;
  result.quick = options.quick;
  std::vector<std::vector<double>> samples(result.variants.size());
  for (int round = 0; round <= options.runs; ++round) {
    const bool record = round > 0;
    if (options.progress)
      options.progress(result.name + (record ? ": run " + std::to_string(round) + " of " +
                                                   std::to_string(options.runs)
                                             : std::string(": warm-up")));
    for (std::size_t v = 0; v < result.variants.size(); ++v) {
      if (!result.variants[v].available) continue;
      Result<double> sample = once(v, record);
      if (!sample)
        return sample.error().with_context(result.name + " (" + result.variants[v].label + ")");
      if (record) samples[v].push_back(*sample);
    }
  }
  for (std::size_t v = 0; v < result.variants.size(); ++v)
    result.variants[v].value = summarize_runs(std::move(samples[v]));
  compute_ratios(result);
  return {};
}

}  // namespace threadmap::experiments
