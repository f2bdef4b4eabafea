#include "src/report/report_advice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "src/apply/run_options.hpp"
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

// A verdict advice may rest on: clear, and not measured while others used these CPUs.
bool advice_grade(const Variant& v) { return v.verdict_clear && !v.measured_while_busy; }

const BenchResult* find_bench(const MachineReport& rep, const std::string& name) {
  for (const BenchResult& b : rep.benches)
    if (b.name == name && b.available) return &b;
  return nullptr;
}

const Variant* find_baseline(const BenchResult& b, const Variant& v) {
  for (const Variant& base : b.variants)
    if (base.name == v.baseline) return &base;
  return nullptr;
}

// "1.90x faster" / "1.39x slower" of a clear verdict.
std::string clear_ratio(const Variant& v) {
  return v.ratio_to_baseline >= 1 ? fmt::format("{:.2f}x faster", v.ratio_to_baseline)
                                  : fmt::format("{:.2f}x slower", 1 / v.ratio_to_baseline);
}

constexpr const char* kThreadCacheTitle =
    "programs that create many short-lived threads (std::async, thread per task)";

// The benches whose variants are placements (the others compare workloads or the cache).
constexpr const char* kPlacementBenches[] = {"contention", "pingpong", "migrate"};

// What the placement benches clearly showed; "nothing to gain" when none differed clearly.
void judge_placement(const MachineReport& rep, AdvicePart& advice) {
  int compared = 0, faster = 0, busy_clear = 0;
  double widest_spread = 0;
  std::vector<std::string> benches_run;
  for (const char* name : kPlacementBenches) {
    const BenchResult* b = find_bench(rep, name);
    if (!b) continue;
    benches_run.push_back(name);
    for (const Variant& v : b->variants) {
      if (!v.available || v.baseline.empty() || v.verdict == "not run") continue;
      ++compared;
      widest_spread = std::max(widest_spread, v.comparison_spread_pct);
      if (!v.verdict_clear) continue;
      if (v.measured_while_busy) {
        ++busy_clear;
        continue;
      }
      const Variant* base = find_baseline(*b, v);
      faster += v.ratio_to_baseline > 1;
      advice.placement_findings.push_back(
          fmt::format("{}: {} {} than {} (measured; {})", name, v.label, clear_ratio(v),
                      base ? base->label : v.baseline, v.verdict_basis));
    }
  }
  if (compared == 0) return;
  std::string which;
  for (std::size_t i = 0; i < benches_run.size(); ++i)
    which += (i ? (i + 1 == benches_run.size() ? " and " : ", ") : "") + benches_run[i];
  if (advice.placement_findings.empty() && busy_clear > 0) {
    advice.placement_summary = fmt::format(
        "No placement advice from these runs: {} of the {} placements tried by {} differed "
        "clearly, but while others used these CPUs, so the difference may be theirs; rerun on a "
        "quiet machine",
        busy_clear, compared, which);
  } else if (advice.placement_findings.empty()) {
    advice.nothing_to_gain = true;
    advice.placement_summary = fmt::format(
        "Nothing to gain from placement here: none of the {} placements tried by {} differed "
        "clearly from its baseline (rank test and median intervals; spreads up to {:.0f}%), so "
        "pinning threads is not worth it on this machine as measured",
        compared, which, widest_spread);
  } else if (faster == 0) {
    advice.placement_summary = fmt::format(
        "Leave placement to the OS here: of {} placements tried by {}, the ones that differed "
        "clearly were slower than the OS's choice",
        compared, which);
  } else {
    advice.placement_summary =
        fmt::format("Placement pays here: {} of {} placements tried by {} were clearly faster",
                    faster, compared, which);
  }
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
    const std::string what = siblings->label.substr(0, siblings->label.find(','));
    if (siblings->measured_while_busy) {
      advice.smt_guidance.push_back(fmt::format(
          "Measured: {} on two SMT siblings differed clearly from running alone, but while "
          "others used these CPUs: the difference may be theirs, so no SMT advice rests on it.",
          what));
      continue;
    }
    // Advice only from a clear verdict: an unclear one says nothing either way.
    if (!siblings->verdict_clear) {
      advice.smt_guidance.push_back(fmt::format(
          "Measured: {} on two SMT siblings showed no clear difference from running alone "
          "({} runs, spread {:.0f}%): this run does not tell whether threads like it may share "
          "a core.",
          what, smt->runs, siblings->comparison_spread_pct));
      continue;
    }
    const double slower_pct = (1 / siblings->ratio_to_baseline - 1) * 100;
    advice.smt_guidance.push_back(fmt::format(
        "Measured: {} on two SMT siblings took {:.0f}% {} than alone (median of {} runs, a clear "
        "difference); {}",
        what, std::abs(slower_pct), slower_pct >= 0 ? "longer" : "less", smt->runs,
        slower_pct > 25 ? "keep threads like it on separate cores."
                        : "threads like it can share a core."));
  }
}

}  // namespace

std::vector<ApplyCommand> apply_commands(const std::vector<int>& cpus, bool thread_cache,
                                         int threads) {
  const std::string list = comma_list(cpus);
  std::string places;
  for (int c : cpus) places += (places.empty() ? "{" : ",{") + std::to_string(c) + "}";
  apply::RunOptions run;  // written by run's own inverse parser: the line cannot drift from it
  run.cpus = list;
  run.policy = "compact";
  run.thread_cache = thread_cache;
  run.command = {"./app"};
  return {
      {"threadmap run", apply::run_line(run)},
      {"taskset", fmt::format("taskset -c {} ./app", list)},
      {"OMP_PLACES",
       fmt::format("OMP_PLACES='{}' OMP_PROC_BIND=close OMP_NUM_THREADS={} ./app", places,
                   threads > 0 ? static_cast<std::size_t>(threads) : cpus.size())},
  };
}

namespace {

// The pair for two threads that talk: the planner's closest pair, and what the numbering's
// choice would cost when a measured matrix says so. Fails with the planner's message.
Result<Recommendation> pair_recommendation(const MachineReport& rep, const CpuSet& usable,
                                           plan::RecommendInputs& inputs, bool use_matrix) {
  auto pairs = plan::recommend_pairs(inputs, 1);
  if (!pairs) return pairs.error();
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
  return r;
}

// When the contention bench measured a communicating pair sharing one core clearly faster than
// the OS placement, the pair advice follows the measurement (on a machine without SMT, one CPU
// for both threads) instead of the model's two CPUs: the page never advises against what it
// measured.
void follow_measured_pair(const MachineReport& rep, Recommendation& r) {
  const BenchResult* contention = find_bench(rep, "contention");
  if (!contention) return;
  const Variant* one_core = find_variant(*contention, "one-core");
  if (!one_core || !advice_grade(*one_core) || one_core->ratio_to_baseline <= 1) return;
  if (one_core->threads.size() < 2 || one_core->threads[0].cpus.empty()) return;
  const CpuSet pair = one_core->threads[0].cpus | one_core->threads[1].cpus;
  auto planned = CpuSet::parse_list(r.cpus);
  if (planned && *planned == pair) return;
  const std::string model_choice = r.cpus;
  r.cpus = pair.count() == 1 ? pair.to_list() : comma_list(pair.to_vector());
  r.why = fmt::format(
      "measured: a pair {} was {:.2f}x faster than the OS placement here (contention bench, a "
      "clear verdict); the model's closest pair {} did not run against it",
      pair.count() == 1 ? "sharing CPU " + pair.to_list() : "on one core's siblings " + r.cpus,
      one_core->ratio_to_baseline, model_choice);
  r.commands = apply_commands(pair.to_vector(), false, 2);
}

// One compute-bound thread per usable core; fails with the planner's message.
Result<Recommendation> compute_recommendation(const Topology& topo, const CpuSet& usable,
                                              plan::RecommendInputs& inputs) {
  std::size_t usable_cores = 0;
  for (const CpuSet& core : topo.groups(Level::core))
    usable_cores += core.intersects(usable) ? 1 : 0;
  const int cores = static_cast<int>(std::max<std::size_t>(1, usable_cores));
  auto compute = plan::recommend_compute_cpus(inputs, cores);
  if (!compute) return compute.error();
  Recommendation r;
  r.title = fmt::format("{} compute-bound thread{} (one per core)", cores, cores > 1 ? "s" : "");
  r.cpus = comma_list(*compute);
  r.why =
      "never two on SMT siblings while a whole core is free; faster cores first on hybrid "
      "parts";
  r.commands = apply_commands(*compute, false);
  return r;
}

// The thread cache, when the spawn bench showed it clearly faster (over 1.2x) here.
std::optional<Recommendation> thread_cache_recommendation(const MachineReport& rep) {
  const BenchResult* spawn = find_bench(rep, "spawn");
  if (!spawn) return std::nullopt;
  double best_ratio = 0;
  // Only a clear "faster" counts: an unclear one may be the noise of the day.
  for (const Variant& v : spawn->variants)
    if (!v.baseline.empty() && v.available && advice_grade(v))
      best_ratio = std::max(best_ratio, v.ratio_to_baseline);
  if (best_ratio <= 1.2) return std::nullopt;
  Recommendation r;
  r.title = kThreadCacheTitle;
  // Not a placement: the threads stay where the OS puts them (no CPUs to name).
  r.why = fmt::format(
      "the thread cache made create+join {:.1f}x faster here (spawn bench, "
      "median of {} runs, a clear difference by the rank test)",
      best_ratio, spawn->runs);
  // A command to paste names the installed library: a build tree's path is this checkout's,
  // gone with it. From a build tree the line says it needs the install.
  apply::RunOptions run;
  run.thread_cache = true;
  run.command = {"./app"};
  r.commands = {{"threadmap run", apply::run_line(run)}};
  if (os::running_from_build_tree()) {
    r.commands.push_back({"LD_PRELOAD, after cmake --install",
                          "LD_PRELOAD=" + os::installed_library_path("cache") + " ./app"});
  } else if (auto lib = os::find_preload_library("cache")) {
    // Not found (a binary copied without its libraries): no LD_PRELOAD line rather than a
    // placeholder path that cannot work.
    r.commands.push_back({"LD_PRELOAD", "LD_PRELOAD=" + *lib + " ./app"});
  }
  return r;
}

// A recommendation with the same CPUs as one already made gives the same commands: it joins
// that one (one title, both reasons) instead of repeating them.
void add_or_merge(std::vector<Recommendation>& list, Recommendation r) {
  for (Recommendation& earlier : list)
    if (earlier.cpus == r.cpus) {
      earlier.title += "; also " + r.title;
      earlier.why += "; for compute threads: " + r.why;
      return;
    }
  list.push_back(std::move(r));
}

}  // namespace

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
    Result<Recommendation> pair = pair_recommendation(rep, usable, inputs, use_matrix);
    if (!pair) {
      advice.status = {false, "the planner could not recommend a pair: " + pair.error().message, 0};
      return advice;
    }
    advice.model = inputs.model;
    follow_measured_pair(rep, *pair);
    advice.recommendations.push_back(std::move(*pair));
  }
  Result<Recommendation> compute = compute_recommendation(topo, usable, inputs);
  if (compute) {
    advice.model = inputs.model;
    add_or_merge(advice.recommendations, std::move(*compute));
  } else {
    advice.smt_guidance.push_back("no compute placement: " + compute.error().message);
  }
  if (auto cache = thread_cache_recommendation(rep))
    advice.recommendations.push_back(std::move(*cache));
  add_smt_guidance(rep, advice);
  judge_placement(rep, advice);
  // When placement showed nothing, a recommendation that only names every usable CPU adds
  // nothing either: "nothing to gain" is the advice, said once.
  if (advice.nothing_to_gain) {
    std::erase_if(advice.recommendations, [&](const Recommendation& r) {
      auto cpus = CpuSet::parse_list(r.cpus);
      return !r.cpus.empty() && cpus && *cpus == usable;
    });
  }
  return advice;
}

}  // namespace threadmap::report
