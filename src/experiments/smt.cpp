// The SMT experiment ("C++11 threads, affinity and hyperthreading"): two float workloads run
// alone, on two cores, and on the two SMT siblings of one core. Accumulate is bound by the
// latency of one long chain of dependent adds, leaving execution units idle for a sibling;
// sum-of-sin saturates the FP units, so a sibling halves its throughput. Published: accumulate
// unaffected by a sibling, sin >75% slower.
#include <atomic>
#include <cmath>
#include <numeric>
#include <vector>

#include "src/experiments/bench_runner.hpp"
#include "src/experiments/experiments.hpp"
#include "src/experiments/variant_plans.hpp"

namespace threadmap::experiments {
namespace {

// Results go here so the compiler cannot drop the work (atomic: several threads store at once).
std::atomic<float> g_sink{0};

// In-L1 data (16 KiB), summed `passes` times: a dependent float-add chain, never vectorized
// (float addition is not associative, and we do not build with -ffast-math).
void accumulate_workload(long passes) {
  std::vector<float> data(4096);
  std::iota(data.begin(), data.end(), 0.5f);
  float total = 0;
  for (long p = 0; p < passes; ++p) total = std::accumulate(data.begin(), data.end(), total);
  g_sink.store(total, std::memory_order_relaxed);
}

void sin_workload(long terms) {
  double total = 0;
  for (long i = 0; i < terms; ++i) total += std::sin(static_cast<double>(i) * 1e-3);
  g_sink.store(static_cast<float>(total), std::memory_order_relaxed);
}

struct Workload {
  const char* name;
  const char* label;
  void (*run)(long);
  long full_size;
};

// {name, label} of the two workloads, in variant order.
const char* const kAccumulate[] = {"accumulate", "accumulate"};
const char* const kSin[] = {"sin", "sum of sin"};

}  // namespace

VariantPlan plan_smt(const Topology& topo, const CpuSet& usable) {
  VariantPlan plan;
  const std::optional<CpuPair> siblings = smt_sibling_pair(topo, usable);
  const std::optional<CpuPair> two_cores = nearest_pair_on_two_cores(topo, usable);
  const int alone_cpu = siblings ? siblings->first : two_cores ? two_cores->first : usable.first();
  for (const char* const* w : {kAccumulate, kSin}) {
    const std::string alone_name = std::string(w[0]) + "-alone";
    Variant alone;
    alone.name = alone_name;
    alone.label = std::string(w[1]) + ", alone";
    alone.threads = {{"worker", CpuSet{alone_cpu}}};
    alone.placement = "CPU " + std::to_string(alone_cpu);
    plan.variants.push_back(alone);

    Variant cores;
    cores.name = std::string(w[0]) + "-two-cores";
    cores.label = std::string(w[1]) + ", two cores";
    cores.baseline = alone_name;
    if (two_cores) {
      cores.threads = {{"worker 1", CpuSet{two_cores->first}},
                       {"worker 2", CpuSet{two_cores->second}}};
      cores.placement = "CPU " + std::to_string(two_cores->first) + " + CPU " +
                        std::to_string(two_cores->second) + " (different cores)";
    } else {
      cores.available = false;
      cores.unavailable_reason = "the usable CPUs " + usable.to_list() + " are on one core";
    }
    plan.variants.push_back(cores);

    Variant smt;
    smt.name = std::string(w[0]) + "-smt-siblings";
    smt.label = std::string(w[1]) + ", SMT siblings";
    smt.baseline = alone_name;
    if (siblings) {
      smt.threads = {{"worker 1", CpuSet{siblings->first}}, {"worker 2", CpuSet{siblings->second}}};
      smt.placement = "CPU " + std::to_string(siblings->first) + " + CPU " +
                      std::to_string(siblings->second) + " (one core)";
    } else {
      smt.available = false;
      smt.unavailable_reason =
          "no usable core has two hardware threads (no SMT here, or it "
          "is disabled or outside the usable CPUs " +
          usable.to_list() + ")";
    }
    plan.variants.push_back(smt);
  }
  if (!siblings)
    plan.notes.push_back("this machine shows no SMT siblings: the sibling rows cannot run here");

  return plan;
}

Result<BenchResult> run_smt(const Topology& topo, const BenchOptions& options) {
  Result<CpuSet> usable = usable_cpus(topo);
  if (!usable) return usable.error();
  BenchResult r = new_bench(
      {"smt", "float workloads alone, on two cores, and on two SMT siblings of one core", "ms",
       false, "wall time for every thread to finish one workload (same work per thread)",
       "accumulate: no slowdown on SMT siblings; sum of sin: >75% slower on siblings "
       "(\"C++11 threads, affinity and hyperthreading\")"},
      *usable);
  VariantPlan plan = plan_smt(topo, *usable);
  r.variants = std::move(plan.variants);
  r.notes = std::move(plan.notes);
  // Variants come in threes per workload: accumulate's, then sin's.
  const Workload workloads[] = {
      {"accumulate", "accumulate", accumulate_workload, 25'000},
      {"sin", "sum of sin", sin_workload, 8'000'000},
  };
  std::vector<const Workload*> workload_of;
  for (const Variant& v : r.variants)
    workload_of.push_back(v.name.rfind("accumulate", 0) == 0 ? &workloads[0] : &workloads[1]);

  const long scale = options.quick ? 10 : 1;
  PinnedVariantRuns runs;
  runs.prepare = [&](std::size_t index) {
    const Workload* w = workload_of[index];
    return PinnedRun{placement_cpus(r.variants[index]),
                     [w, scale](std::size_t) { w->run(w->full_size / scale); }};
  };
  if (Status st = run_pinned_variants(r, options, runs); !st) return st.error();
  return r;
}

}  // namespace threadmap::experiments
