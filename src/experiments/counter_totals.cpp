#include "src/experiments/counter_totals.hpp"

namespace threadmap::experiments {
namespace {

struct EventReading {
  std::optional<std::uint64_t> count;
  std::string how;  // how it was counted, or why not
};

// One event of a thread's counters, with where it came from. Read on the thread itself: the
// /proc/thread-self fallback reads the calling thread.
EventReading read_event(const monitor::ThreadCounters& c, ThreadEvent event) {
  if (event == ThreadEvent::context_switches || event == ThreadEvent::cpu_migrations) {
    if (c.source() == monitor::CounterSource::observed)
      return {std::nullopt, "not supported: " + c.why_not_perf()};
    auto sw = c.read_software();
    std::string how = c.source() == monitor::CounterSource::perf
                          ? "perf_event_open software counter"
                          : "procfs sched file of the thread (" + c.why_not_perf() + ")";
    if (!sw) return {std::nullopt, "not supported: " + sw.error().message};
    return {event == ThreadEvent::context_switches ? sw->context_switches : sw->migrations, how};
  }
  if (!c.has_hardware()) return {std::nullopt, "not supported: " + c.why_no_hardware()};
  auto hw = c.read_hardware();
  if (!hw) return {std::nullopt, "not supported: hardware counters could not be read"};
  return {event == ThreadEvent::l1d_read_misses ? hw->l1d_misses : hw->dtlb_misses,
          "perf_event_open hardware cache counter (user mode)"};
}

}  // namespace

const char* thread_event_name(ThreadEvent event) {
  switch (event) {
    case ThreadEvent::context_switches:
      return "context_switches";
    case ThreadEvent::cpu_migrations:
      return "cpu_migrations";
    case ThreadEvent::l1d_read_misses:
      return "l1d_read_misses";
    case ThreadEvent::dtlb_read_misses:
      return "dtlb_read_misses";
  }
  return "?";
}

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
  hooks.before = [this](std::size_t i) {
    auto counters = monitor::ThreadCounters::open(monitor::CounterTarget{});
    if (counters) open_[i] = std::make_unique<monitor::ThreadCounters>(std::move(*counters));
  };
  hooks.after = [this](std::size_t i) {
    if (!open_[i]) return;
    std::array<EventReading, kThreadEventCount> readings;
    for (std::size_t e = 0; e < kThreadEventCount; ++e)
      readings[e] = read_event(*open_[i], static_cast<ThreadEvent>(e));
    std::lock_guard<std::mutex> guard(lock_);
    for (std::size_t e = 0; e < kThreadEventCount; ++e) {
      if (readings[e].count)
        run_sum_[e] += static_cast<double>(*readings[e].count);
      else
        run_supported_[e] = false;
      if (run_how_[e].empty()) run_how_[e] = readings[e].how;
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
      c.median = latency::summarize(v.samples[e]).median;
      c.how = v.how[e] + ", median of " + std::to_string(v.samples[e].size()) + " runs";
    } else {
      c.reason = v.how[e].empty() ? "not measured" : v.how[e];
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace threadmap::experiments
