// The migration experiment (task migration post): threads that sort 10,000 ints per round,
// either staying on one CPU or hopping to a random other CPU before every round. Each hop
// costs a migration, a context switch, and a cold L1/TLB on arrival. Published: migrations,
// context switches, L1 and TLB misses measured with perf.
#include <algorithm>
#include <mutex>
#include <random>

#include "src/experiments/counter_totals.hpp"
#include "src/experiments/experiments.hpp"
#include "src/experiments/pinned_run.hpp"
#include "src/experiments/run_interleaved.hpp"
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

}  // namespace

Result<BenchResult> run_migrate(const Topology& topo, const BenchOptions& options) {
  Result<CpuSet> usable = usable_cpus(topo);
  if (!usable) return usable.error();
  BenchResult r;
  r.name = "migrate";
  r.title = "threads sorting 10,000 ints per round: left alone, staying put, hopping CPUs";
  r.unit = "ms";
  r.higher_is_better = false;
  r.how_measured = "wall time for every thread to finish its rounds";
  r.published =
      "hopping threads pay in migrations, context switches, L1 and TLB misses "
      "(task migration post, measured with perf)";
  r.allowed_cpus = usable->to_list();
  const std::vector<int> cpus = usable->to_vector();
  const std::size_t threads = std::min(cpus.size(), kMaxThreads);
  const long rounds = options.quick ? 20 : 200;

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
    hop.threads.push_back({role, *usable});
  }
  os.placement = std::to_string(threads) + " threads, not pinned";
  stay.placement =
      std::to_string(threads) + " threads on CPUs " +
      CpuSet::from_vector({cpus.begin(), cpus.begin() + static_cast<long>(threads)}).to_list();
  hop.placement = std::to_string(threads) + " threads, each re-pinned to a random CPU of " +
                  usable->to_list() + " before every round";
  if (cpus.size() < 2) {
    hop.available = false;
    hop.unavailable_reason = "only one usable CPU (" + usable->to_list() + "): nowhere to hop";
  }
  r.variants = {os, stay, hop};
  r.notes.push_back(std::to_string(rounds) + " rounds per thread, each sorting " +
                    std::to_string(kIntsPerSort) + " random ints");

  CounterTotals totals(r.variants.size());
  unsigned seed = 1;
  Status status =
      run_interleaved(r, options, [&](std::size_t index, bool record) -> Result<double> {
        // Hopping threads start unpinned and pin themselves anew before every round.
        const bool hopping = r.variants[index].name == "hop";
        std::vector<CpuSet> placement;
        for (const ThreadPlacement& t : r.variants[index].threads)
          placement.push_back(hopping ? CpuSet{} : t.cpus);
        ++seed;
        std::mutex lock;
        std::optional<Error> error;
        Result<double> seconds = run_pinned(
            placement,
            [&](std::size_t t) { sort_rounds(t, rounds, hopping, cpus, seed, lock, error); },
            totals.hooks_for_run(placement.size()));
        if (!seconds) return seconds.error();
        if (error) return *error;
        if (record) totals.record(index);
        return *seconds * 1e3;
      });
  if (!status) return status.error();
  for (std::size_t v = 0; v < r.variants.size(); ++v)
    if (r.variants[v].available) r.variants[v].counters = totals.counters(v);
  return r;
}

}  // namespace threadmap::experiments
