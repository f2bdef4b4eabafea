#include "src/experiments/bench_runner.hpp"

#include "src/experiments/counter_totals.hpp"
#include "src/experiments/pinned_run.hpp"
#include "src/experiments/run_interleaved.hpp"

namespace threadmap::experiments {

BenchResult new_bench(BenchIdentity identity, const CpuSet& usable) {
  BenchResult r;
  r.name = std::move(identity.name);
  r.title = std::move(identity.title);
  r.unit = std::move(identity.unit);
  r.higher_is_better = identity.higher_is_better;
  r.how_measured = std::move(identity.how_measured);
  r.published = std::move(identity.published);
  r.allowed_cpus = usable.to_list();
  return r;
}

std::vector<CpuSet> placement_cpus(const Variant& variant) {
  std::vector<CpuSet> cpus;
  for (const ThreadPlacement& t : variant.threads) cpus.push_back(t.cpus);
  return cpus;
}

Status run_pinned_variants(BenchResult& result, const BenchOptions& options,
                           const PinnedVariantRuns& runs) {
  CounterTotals totals(result.variants.size());
  Status status =
      run_interleaved(result, options, [&](std::size_t index, bool record) -> Result<double> {
        const PinnedRun run = runs.prepare(index);
        Result<double> seconds =
            runs.count_events
                ? run_pinned(run.cpus, run.body, totals.hooks_for_run(run.cpus.size()))
                : run_pinned(run.cpus, run.body);
        if (!seconds) return seconds.error();
        if (run.check_after) {
          if (Status checked = run.check_after(); !checked) return checked.error();
        }
        // Warm-up runs are not samples, and neither are their counters.
        if (runs.count_events && record) totals.record(index);
        return runs.sample(*seconds);
      });
  if (!status) return status;
  if (runs.count_events) {
    for (std::size_t v = 0; v < result.variants.size(); ++v)
      if (result.variants[v].available) result.variants[v].counters = totals.counters(v);
  }
  return {};
}

}  // namespace threadmap::experiments
