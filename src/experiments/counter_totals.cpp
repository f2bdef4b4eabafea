#include "src/experiments/counter_totals.hpp"

namespace threadmap::experiments {

CounterTotals::CounterTotals(std::size_t variants) : variants_(variants) {}

ThreadHooks CounterTotals::hooks_for_run(std::size_t threads) {
  {
    std::lock_guard<std::mutex> guard(lock_);
    open_.clear();
    open_.resize(threads);
    run_sum_.fill(0);
    run_supported_.fill(true);
    run_how_.fill("");
  }
  ThreadHooks hooks;
  // Each thread touches only its own slot of open_, which was sized above: no lock needed.
  hooks.before = [this](std::size_t i) { open_[i] = std::make_unique<ThreadCounters>(); };
  hooks.after = [this](std::size_t i) {
    if (!open_[i]) return;
    std::array<std::optional<std::uint64_t>, kThreadEventCount> counts;
    for (std::size_t e = 0; e < kThreadEventCount; ++e)
      counts[e] = open_[i]->read(static_cast<ThreadEvent>(e));
    std::lock_guard<std::mutex> guard(lock_);
    for (std::size_t e = 0; e < kThreadEventCount; ++e) {
      if (counts[e]) run_sum_[e] += static_cast<double>(*counts[e]);
      else run_supported_[e] = false;
      if (run_how_[e].empty()) run_how_[e] = open_[i]->how(static_cast<ThreadEvent>(e));
    }
    open_[i].reset();
  };
  return hooks;
}

void CounterTotals::record(std::size_t variant) {
  std::lock_guard<std::mutex> guard(lock_);
  PerVariant& v = variants_[variant];
  v.recorded = true;
  for (std::size_t e = 0; e < kThreadEventCount; ++e) {
    v.supported[e] = v.supported[e] && run_supported_[e];
    if (run_supported_[e]) v.samples[e].push_back(run_sum_[e]);
    if (!run_how_[e].empty()) v.how[e] = run_how_[e];
  }
}

std::vector<Counter> CounterTotals::counters(std::size_t variant) const {
  std::vector<Counter> out;
  const PerVariant& v = variants_[variant];
  if (!v.recorded) return out;
  for (std::size_t e = 0; e < kThreadEventCount; ++e) {
    Counter c;
    c.name = thread_event_name(static_cast<ThreadEvent>(e));
    c.unit = "count per run, summed over threads";
    c.supported = v.supported[e] && !v.samples[e].empty();
    if (c.supported) {
      c.median = summarize(v.samples[e]).median;
      c.how = v.how[e] + ", median of " + std::to_string(v.samples[e].size()) + " runs";
    } else {
      c.reason = v.how[e].empty() ? "not measured" : v.how[e];
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace threadmap::experiments
