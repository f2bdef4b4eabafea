#include "src/report/report_advice.hpp"

#include <fmt/format.h>

#include <cmath>

#include "src/os/install_layout.hpp"
#include "src/plan/recommend.hpp"

namespace threadmap::report {
namespace {

std::string comma_list(const std::vector<int>& cpus, const char* separator = ",") {
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : separator) + std::to_string(c);
  return out;
}

const Variant* find_variant(const BenchResult& b, const std::string& name) {
  for (const Variant& v : b.variants)
    if (v.name == name && v.available && v.ratio_to_baseline > 0) return &v;
  return nullptr;
}

const BenchResult* find_bench(const MachineReport& rep, const std::string& name) {
  for (const BenchResult& b : rep.benches)
    if (b.name == name && b.available) return &b;
  return nullptr;
}

// "2 hardware threads per core: 0+64, 1+65, ..." (first few cores), or "no SMT".
std::string smt_layout(const Topology& topo, const CpuSet& usable, bool& has_smt) {
  std::vector<std::string> groups;
  std::size_t widest = 1;
  for (const CpuSet& core : topo.groups(Level::core)) {
    CpuSet mine = core & usable;
    widest = std::max(widest, mine.count());
    if (mine.count() > 1) groups.push_back(comma_list(mine.to_vector(), "+"));
  }
  has_smt = widest > 1;
  if (!has_smt) return "no SMT: hwloc reports one hardware thread per core on the usable CPUs";
  std::string shown;
  for (std::size_t i = 0; i < groups.size() && i < 8; ++i) shown += (i ? ", " : "") + groups[i];
  if (groups.size() > 8) shown += fmt::format(", ... ({} cores)", groups.size());
  return fmt::format("up to {} hardware threads per core; siblings: {}", widest, shown);
}

void add_smt_guidance(const MachineReport& rep, AdvicePart& advice) {
  if (!advice.has_smt) {
    advice.smt_guidance.push_back(
        "Every usable CPU is a whole core here, so compute threads "
        "cannot collide on SMT siblings; spreading them over CPUs is "
        "enough.");
  }
  if (rep.latency.comparison && !rep.latency.comparison->smt_agrees)
    advice.smt_guidance.push_back(
        "The measured latencies group CPUs into SMT-like pairs that "
        "differ from hwloc's cores (see 'domains vs hwloc'): trust the "
        "measurement when placing threads.");
  const BenchResult* smt = find_bench(rep, "smt");
  if (!smt) return;
  for (const char* workload : {"accumulate", "sin"}) {
    const Variant* siblings = find_variant(*smt, std::string(workload) + "-smt-siblings");
    if (!siblings) continue;
    const double slower_pct = (1 / siblings->ratio_to_baseline - 1) * 100;
    advice.smt_guidance.push_back(fmt::format(
        "Measured: {} on two SMT siblings took {:.0f}% {} than alone (median of {} runs); {}",
        siblings->label.substr(0, siblings->label.find(',')), std::abs(slower_pct),
        slower_pct >= 0 ? "longer" : "less", smt->runs,
        slower_pct > 25 ? "keep threads like it on separate cores."
                        : "threads like it can share a core."));
  }
}

}  // namespace

std::vector<ApplyCommand> apply_commands(const std::vector<int>& cpus, bool thread_cache) {
  const std::string list = comma_list(cpus);
  std::string places;
  for (int c : cpus) places += (places.empty() ? "{" : ",{") + std::to_string(c) + "}";
  return {
      {"threadmap run", fmt::format("threadmap run --cpus {} --policy compact{} -- ./app", list,
                                    thread_cache ? " --thread-cache" : "")},
      {"taskset", fmt::format("taskset -c {} ./app", list)},
      {"OMP_PLACES", fmt::format("OMP_PLACES='{}' OMP_PROC_BIND=close OMP_NUM_THREADS={} ./app",
                                 places, cpus.size())},
  };
}

AdvicePart make_advice(const MachineReport& rep, const CpuSet& usable) {
  AdvicePart advice;
  if (!rep.topology) {
    advice.status = {false, "the topology of this machine could not be read", 0};
    return advice;
  }
  const Topology& topo = *rep.topology;
  advice.smt_layout = smt_layout(topo, usable, advice.has_smt);

  plan::RecommendInputs inputs;
  inputs.topology = &topo;
  const bool use_matrix = rep.latency.status.available && rep.latency.describes_this_machine &&
                          !rep.latency.matrix.cpus.empty();
  if (use_matrix) inputs.matrix = &rep.latency.matrix;

  if (usable.count() >= 2) {
    auto pairs = plan::recommend_pairs(inputs, 1);
    if (!pairs) {
      advice.status = {false, "the planner could not recommend a pair: " + pairs.error().message,
                       0};
      return advice;
    }
    const plan::PairRecommendation& best = pairs->front();
    Recommendation r;
    r.title = "2 threads that talk to each other (producer/consumer, ping-pong)";
    r.cpus = fmt::format("{},{}", best.cpu_a, best.cpu_b);
    r.why =
        use_matrix
            ? fmt::format("{}: {:.0f} ns one way, measured", best.relation, best.latency_ns)
            : fmt::format("{}: the closest pair by topology (no measured latency)", best.relation);
    const int first = usable.first(), next = usable.next(first);
    const double numbered = use_matrix ? rep.latency.matrix.between(first, next) : std::nan("");
    if (!std::isnan(numbered) && (best.cpu_a != first || best.cpu_b != next))
      r.why +=
          fmt::format("; the numbering's choice {},{} measures {:.0f} ns", first, next, numbered);
    r.commands = apply_commands({best.cpu_a, best.cpu_b}, false);
    advice.model = inputs.model;
    advice.recommendations.push_back(r);
  }

  const int cores = static_cast<int>(std::max<std::size_t>(1, [&] {
    std::size_t n = 0;
    for (const CpuSet& core : topo.groups(Level::core)) n += core.intersects(usable) ? 1 : 0;
    return n;
  }()));
  auto compute = plan::recommend_compute_cpus(inputs, cores);
  if (compute) {
    Recommendation r;
    r.title = fmt::format("{} compute-bound thread{} (one per core)", cores, cores > 1 ? "s" : "");
    r.cpus = comma_list(*compute);
    r.why =
        "never two on SMT siblings while a whole core is free; faster cores first on hybrid "
        "parts";
    r.commands = apply_commands(*compute, false);
    advice.model = inputs.model;
    advice.recommendations.push_back(r);
  } else {
    advice.smt_guidance.push_back("no compute placement: " + compute.error().message);
  }

  if (const BenchResult* spawn = find_bench(rep, "spawn")) {
    double best_ratio = 0;
    for (const Variant& v : spawn->variants)
      if (!v.baseline.empty() && v.available)
        best_ratio = std::max(best_ratio, v.ratio_to_baseline);
    if (best_ratio > 1.2) {
      Recommendation r;
      r.title = "programs that create many short-lived threads (std::async, thread per task)";
      r.cpus = usable.to_list();
      r.why = fmt::format(
          "the thread cache made create+join {:.1f}x faster here (spawn bench, "
          "median of {} runs)",
          best_ratio, spawn->runs);
      // The library this threadmap would preload (its install layout, or the build tree it runs
      // from), so the command can be pasted as it is.
      auto lib = os::find_preload_library("cache");
      r.commands = {{"threadmap run", "threadmap run --thread-cache -- ./app"}};
      // Not found (a binary copied without its libraries): no LD_PRELOAD line rather than a
      // placeholder path that cannot work.
      if (lib) r.commands.push_back({"LD_PRELOAD", "LD_PRELOAD=" + *lib + " ./app"});
      advice.recommendations.push_back(r);
    }
  }
  add_smt_guidance(rep, advice);
  return advice;
}

}  // namespace threadmap::report
