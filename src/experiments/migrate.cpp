// The migration experiment (task migration post): threads that sort 10,000 ints per round,
// either staying on one CPU or hopping to a random other CPU before every round. Each hop
// costs a migration, a context switch, and a cold L1/TLB on arrival. Published: migrations,
// context switches, L1 and TLB misses measured with perf.
#include <algorithm>
#include <array>
#include <mutex>
#include <random>

#include "src/experiments/experiments.hpp"
#include "src/experiments/pinned_run.hpp"
#include "src/experiments/run_interleaved.hpp"
#include "src/experiments/thread_counters.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::experiments {
namespace {

constexpr std::size_t kIntsPerSort = 10'000;
constexpr std::size_t kMaxThreads = 8;

// What the workers of one run counted, summed over threads.
struct RunCounts {
  std::mutex lock;
  std::array<double, kThreadEventCount> sum{};
  std::array<bool, kThreadEventCount> supported{true, true, true, true};
  std::array<std::string, kThreadEventCount> how;
  std::optional<Error> error;
};

void sort_rounds(std::size_t thread, long rounds, bool hop, const std::vector<int>& cpus,
                 unsigned seed, RunCounts& counts) {
  std::mt19937 rng(seed + static_cast<unsigned>(thread) * 7919u);
  std::uniform_int_distribution<int> value;
  std::uniform_int_distribution<std::size_t> pick(0, cpus.size() - 1);
  std::vector<int> data(kIntsPerSort);
  ThreadCounters counters;
  for (long round = 0; round < rounds; ++round) {
    if (hop) {
      // A random usable CPU other than the one we are on, so every round really migrates.
      int target = cpus[pick(rng)];
      for (int tries = 0; target == current_cpu() && tries < 8; ++tries) target = cpus[pick(rng)];
      Status pinned = pin_current_thread(CpuSet{target});
      if (!pinned) {
        std::lock_guard<std::mutex> guard(counts.lock);
        if (!counts.error) counts.error = pinned.error();
        return;
      }
    }
    for (int& x : data) x = value(rng);
    std::sort(data.begin(), data.end());
  }
  std::lock_guard<std::mutex> guard(counts.lock);
  for (std::size_t e = 0; e < kThreadEventCount; ++e) {
    const auto event = static_cast<ThreadEvent>(e);
    std::optional<std::uint64_t> n = counters.read(event);
    if (!n) counts.supported[e] = false;
    else counts.sum[e] += static_cast<double>(*n);
    if (counts.how[e].empty()) counts.how[e] = counters.how(event);
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
  r.published = "hopping threads pay in migrations, context switches, L1 and TLB misses "
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
  stay.placement = std::to_string(threads) + " threads on CPUs " +
                   CpuSet::from_vector({cpus.begin(), cpus.begin() + static_cast<long>(threads)})
                       .to_list();
  hop.placement = std::to_string(threads) + " threads, each re-pinned to a random CPU of " +
                  usable->to_list() + " before every round";
  if (cpus.size() < 2) {
    hop.available = false;
    hop.unavailable_reason = "only one usable CPU (" + usable->to_list() + "): nowhere to hop";
  }
  r.variants = {os, stay, hop};
  r.notes.push_back(std::to_string(rounds) + " rounds per thread, each sorting " +
                    std::to_string(kIntsPerSort) + " random ints");

  std::vector<std::array<std::vector<double>, kThreadEventCount>> counter_samples(3);
  std::vector<RunCounts> last_counts(3);
  unsigned seed = 1;
  Status status = run_interleaved(r, options, [&](std::size_t index, bool record)
                                                   -> Result<double> {
    RunCounts counts;
    // Hopping threads start unpinned and pin themselves anew before every round.
    const bool hopping = r.variants[index].name == "hop";
    std::vector<CpuSet> placement;
    for (const ThreadPlacement& t : r.variants[index].threads)
      placement.push_back(hopping ? CpuSet{} : t.cpus);
    ++seed;
    Result<double> seconds = run_pinned(placement, [&](std::size_t t) {
      sort_rounds(t, rounds, hopping, cpus, seed, counts);
    });
    if (!seconds) return seconds.error();
    if (counts.error) return *counts.error;
    if (record) {
      for (std::size_t e = 0; e < kThreadEventCount; ++e) {
        if (counts.supported[e]) counter_samples[index][e].push_back(counts.sum[e]);
        last_counts[index].supported[e] = last_counts[index].supported[e] && counts.supported[e];
        last_counts[index].how[e] = counts.how[e];
      }
    }
    return *seconds * 1e3;
  });
  if (!status) return status.error();
  for (std::size_t v = 0; v < r.variants.size(); ++v) {
    if (!r.variants[v].available) continue;
    for (std::size_t e = 0; e < kThreadEventCount; ++e) {
      Counter c;
      c.name = thread_event_name(static_cast<ThreadEvent>(e));
      c.unit = "count per run, summed over threads";
      c.supported = last_counts[v].supported[e] && !counter_samples[v][e].empty();
      if (c.supported) {
        c.median = summarize(counter_samples[v][e]).median;
        c.how = last_counts[v].how[e] + ", median of " + std::to_string(options.runs) + " runs";
      } else {
        c.reason = last_counts[v].how[e];
      }
      r.variants[v].counters.push_back(c);
    }
  }
  return r;
}

}  // namespace threadmap::experiments
