// The quick forms of a workload (`--pairs N`, `--threads N --policy P`): common cases that need
// no spec file. They build an ordinary WorkloadSpec so they go through the same solver.
#include "src/plan/spec.hpp"

namespace threadmap::plan {
namespace {

// Generous but finite: the planner's dense cost tables grow with threads x CPUs.
constexpr int kMaxQuickThreads = 65536;

}  // namespace

Result<WorkloadSpec> pairs_spec(int pairs) {
  if (pairs < 1 || pairs > kMaxQuickThreads / 2)
    return Error::invalid("bad pair count " + std::to_string(pairs) + ": must be 1.." +
                          std::to_string(kMaxQuickThreads / 2));
  WorkloadSpec spec;
  spec.source = "--pairs " + std::to_string(pairs);
  for (int k = 0; k < pairs; ++k) {
    const std::string base = "pair" + std::to_string(k);
    ThreadSpec a, b;
    a.name = base + ".a";
    b.name = base + ".b";
    a.latency_critical = b.latency_critical = true;
    spec.threads.push_back(a);
    spec.threads.push_back(b);
    spec.edges.push_back(EdgeSpec{2 * k, 2 * k + 1, 1.0, "pair " + base});
  }
  return spec;
}

const std::vector<std::string>& quick_policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = policy_names();
    all.push_back("spread");
    return all;
  }();
  return names;
}

Result<QuickPolicy> parse_quick_policy(std::string_view text) {
  if (text == "spread") return QuickPolicy::spread;
  auto policy = parse_policy(text);
  if (!policy)
    return Error::invalid("unknown policy '" + std::string(text) +
                          "' (expected compact, scatter, round-robin or spread)");
  switch (*policy) {
    case Policy::compact:
      return QuickPolicy::compact;
    case Policy::scatter:
      return QuickPolicy::scatter;
    case Policy::round_robin:
      return QuickPolicy::round_robin;
  }
  return QuickPolicy::compact;
}

std::optional<Policy> cpu_policy(QuickPolicy policy) {
  switch (policy) {
    case QuickPolicy::compact:
      return Policy::compact;
    case QuickPolicy::scatter:
      return Policy::scatter;
    case QuickPolicy::round_robin:
      return Policy::round_robin;
    case QuickPolicy::spread:
      break;
  }
  return std::nullopt;
}

Result<WorkloadSpec> threads_spec(int threads, QuickPolicy policy) {
  if (threads < 1 || threads > kMaxQuickThreads)
    return Error::invalid("bad thread count " + std::to_string(threads) + ": must be 1.." +
                          std::to_string(kMaxQuickThreads));
  if (policy == QuickPolicy::compact && threads > 2048)
    return Error::invalid("bad thread count " + std::to_string(threads) +
                          " for policy compact: every pair talks, at most 2048 threads");
  WorkloadSpec spec;
  const std::optional<Policy> order = cpu_policy(policy);
  const char* policy_name = order ? plan::policy_name(*order) : "spread";
  spec.source = "--threads " + std::to_string(threads) + " --policy " + policy_name;
  for (int k = 0; k < threads; ++k) {
    ThreadSpec t;
    t.name = "thread" + std::to_string(k);
    t.compute = policy != QuickPolicy::compact;
    spec.threads.push_back(t);
  }
  if (policy == QuickPolicy::compact)
    spec.assumed = spec.source + ": modelled as " + std::to_string(threads) +
                   " threads that all talk to each other equally (all-to-all traffic); for your "
                   "program's real traffic give a spec (--spec FILE, docs/plan.md)";
  if (policy == QuickPolicy::compact)
    for (int x = 0; x < threads; ++x)
      for (int y = x + 1; y < threads; ++y)
        spec.edges.push_back(EdgeSpec{x, y, 1.0, "group all (compact)"});
  return spec;
}

}  // namespace threadmap::plan
