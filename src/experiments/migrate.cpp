// The migration experiment (task migration post): threads that sort 10,000 ints per round,
// either staying on one CPU or hopping to a random other CPU before every round. Each hop
// costs a migration, a context switch, and a cold L1/TLB on arrival. Published: migrations,
// context switches, L1 and TLB misses measured with perf.
#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include "src/experiments/bench_runner.hpp"
#include "src/experiments/experiments.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::experiments {
namespace {

constexpr std::size_t kIntsPerSort = 10'000;
constexpr std::size_t kMaxThreads = 8;

// Sorts `rounds` times; a hopping thread first moves to a random usable CPU other than the one
// it is on, so every round really migrates. The first pinning error is kept in `error`.
void sort_rounds(std::size_t thread, long rounds, bool hop, const std::vector<int>& cpus,
                 unsigned seed, std::mutex& lock, std::optional<Error>& error) {
  std::mt19937 rng(seed + static_cast<unsigned>(thread) * 7919u);
  std::uniform_int_distribution<int> value;
  std::uniform_int_distribution<std::size_t> pick(0, cpus.size() - 1);
  std::vector<int> data(kIntsPerSort);
  for (long round = 0; round < rounds; ++round) {
    if (hop) {
      int target = cpus[pick(rng)];
      for (int tries = 0; target == current_cpu() && tries < 8; ++tries) target = cpus[pick(rng)];
      Status pinned = pin_current_thread(CpuSet{target});
      if (!pinned) {
        std::lock_guard<std::mutex> guard(lock);
        if (!error) error = pinned.error();
        return;
      }
    }
    for (int& x : data) x = value(rng);
    std::sort(data.begin(), data.end());
  }
}

// OS placement (the baseline), one CPU each, and hopping: the same sorters, placed three ways.
std::vector<Variant> migrate_variants(const CpuSet& usable, std::size_t threads) {
  const std::vector<int> cpus = usable.to_vector();
  Variant os;
  os.name = "os";
  os.label = "OS placement";
  Variant stay;
  stay.name = "stay";
  stay.label = "pinned, one CPU each";
  stay.baseline = "os";
  Variant hop;
  hop.name = "hop";
  hop.label = "hopping to a random CPU each round";
  hop.baseline = "os";
  for (std::size_t t = 0; t < threads; ++t) {
    const std::string role = "sorter " + std::to_string(t + 1);
    os.threads.push_back({role, {}});
    stay.threads.push_back({role, CpuSet{cpus[t]}});
    hop.threads.push_back({role, usable});
  }
  os.placement = std::to_string(threads) + " threads, not pinned";
  stay.placement =
      std::to_string(threads) + " threads on CPUs " +
      CpuSet::from_vector({cpus.begin(), cpus.begin() + static_cast<long>(threads)}).to_list();
  hop.placement = std::to_string(threads) + " threads, each re-pinned to a random CPU of " +
                  usable.to_list() + " before every round";
  if (cpus.size() < 2) {
    hop.available = false;
    hop.unavailable_reason = "only one usable CPU (" + usable.to_list() + "): nowhere to hop";
  }
  return {os, stay, hop};
}

// What one run's sorters share: the seed of this run and the first pinning error of a hopper.
struct SortRun {
  unsigned seed = 0;
  std::mutex lock;
  std::optional<Error> error;
};

}  // namespace

Result<BenchResult> run_migrate(const Topology& topo, const BenchOptions& options) {
  Result<CpuSet> usable = usable_cpus(topo);
  if (!usable) return usable.error();
  BenchResult r = new_bench(
      {"migrate", "threads sorting 10,000 ints per round: left alone, staying put, hopping CPUs",
       "ms", false, "wall time for every thread to finish its rounds",
       "hopping threads pay in migrations, context switches, L1 and TLB misses "
       "(task migration post, measured with perf)"},
      *usable);
  const std::vector<int> cpus = usable->to_vector();
  const std::size_t threads = std::min(cpus.size(), kMaxThreads);
  const long rounds = options.quick ? 20 : 200;
  r.variants = migrate_variants(*usable, threads);
  r.notes.push_back(std::to_string(rounds) + " rounds per thread, each sorting " +
                    std::to_string(kIntsPerSort) + " random ints");

  unsigned seed = 1;
  PinnedVariantRuns runs;
  runs.count_events = true;
  runs.prepare = [&](std::size_t index) {
    // Hopping threads start unpinned and pin themselves anew before every round.
    const bool hopping = r.variants[index].name == "hop";
    auto state = std::make_shared<SortRun>();
    state->seed = ++seed;
    PinnedRun run;
    for (const ThreadPlacement& t : r.variants[index].threads)
      run.cpus.push_back(hopping ? CpuSet{} : t.cpus);
    run.body = [state, hopping, rounds, &cpus](std::size_t t) {
      sort_rounds(t, rounds, hopping, cpus, state->seed, state->lock, state->error);
    };
    run.check_after = [state]() -> Status {
      if (state->error) return *state->error;
      return {};
    };
    return run;
  };
  if (Status st = run_pinned_variants(r, options, runs); !st) return st.error();
  return r;
}

}  // namespace threadmap::experiments
