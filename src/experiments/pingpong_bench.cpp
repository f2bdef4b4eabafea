// The ping-pong experiment ("CPU Affinity: because even a single chip is nonuniform"): two
// threads hand two counters back and forth; the rate depends on how far apart their CPUs are,
// and CPU numbering does not say which pairs are close. Published: 15.5 M -> 16.6 M op/s
// (+7%) by choosing the pair from measured latency instead of numbering.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <tuple>

#include "src/experiments/bench_runner.hpp"
#include "src/experiments/experiments.hpp"
#include "src/experiments/pinned_run.hpp"

namespace threadmap::experiments {
namespace {

// alignas(64): the ping and the pong counter each own a cache line, so every hand-off moves
// exactly one line from one core to the other, which is the cost being measured.
struct alignas(64) PaddedCounter {
  std::atomic<long> value{0};
};

// Thread 0 writes ping = i and waits for pong = i; thread 1 waits for ping = i and answers
// pong = i. Each of the 2 * round_trips stores seen by the other thread is one op.
void exchange(std::size_t thread, long round_trips, PaddedCounter& ping, PaddedCounter& pong) {
  for (long i = 1; i <= round_trips; ++i) {
    if (thread == 0) {
      ping.value.store(i, std::memory_order_release);
      while (pong.value.load(std::memory_order_acquire) != i) cpu_relax();
    } else {
      while (ping.value.load(std::memory_order_acquire) != i) cpu_relax();
      pong.value.store(i, std::memory_order_release);
    }
  }
}

Variant pair_variant(std::string name, std::string label, CpuPair pair, double latency_ns) {
  Variant v;
  v.name = std::move(name);
  v.label = std::move(label);
  v.threads = {{"ping", CpuSet{pair.first}}, {"pong", CpuSet{pair.second}}};
  v.placement = "CPU " + std::to_string(pair.first) + " <-> CPU " + std::to_string(pair.second);
  if (!std::isnan(latency_ns))
    v.placement +=
        " (one-way " + std::to_string(static_cast<long>(std::lround(latency_ns))) + " ns)";
  return v;
}

// The (n, n+1) pair a numbering-based choice gives: the first usable CPU and the next usable one.
CpuPair sequential_pair(const CpuSet& usable) {
  return {usable.first(), usable.next(usable.first())};
}

// The one-way latency the caller gave for a pair, either way round; NaN when none.
double latency_of(const PingpongOptions& options, CpuPair p) {
  for (const auto& l : options.latencies)
    if ((l.cpu_a == p.first && l.cpu_b == p.second) || (l.cpu_a == p.second && l.cpu_b == p.first))
      return l.one_way_ns;
  return std::nan("");
}

// The user's --pair, checked against the usable CPUs.
Result<Variant> requested_pair_variant(const PingpongOptions& options, const CpuSet& usable) {
  const CpuPair p = *options.pair;
  for (int cpu : {p.first, p.second})
    if (!usable.contains(cpu))
      return Error::invalid("bad CPU pair " + std::to_string(p.first) + "," +
                            std::to_string(p.second) + ": CPU " + std::to_string(cpu) +
                            " is not in the usable set " + usable.to_list());
  if (p.first == p.second)
    return Error::invalid("bad CPU pair " + std::to_string(p.first) + "," +
                          std::to_string(p.second) + ": the two CPUs must differ");
  return pair_variant("pair", "requested pair", p, latency_of(options, p));
}

// The best and worst pair and what chose them: the measured latencies among usable pairs, or
// the topology when no latency covers them.
struct ChosenPairs {
  std::optional<CpuPair> best, worst;
  std::string chosen_by;
  bool by_topology = false;
};

ChosenPairs best_and_worst_pairs(const Topology& topo, const CpuSet& usable,
                                 const PingpongOptions& options) {
  ChosenPairs chosen;
  double best_ns = 0, worst_ns = 0;
  for (const auto& l : options.latencies) {
    if (!usable.contains(l.cpu_a) || !usable.contains(l.cpu_b) || l.cpu_a == l.cpu_b ||
        std::isnan(l.one_way_ns))
      continue;
    CpuPair p{std::min(l.cpu_a, l.cpu_b), std::max(l.cpu_a, l.cpu_b)};
    if (!chosen.best || l.one_way_ns < best_ns) chosen.best = p, best_ns = l.one_way_ns;
    if (!chosen.worst || l.one_way_ns > worst_ns) chosen.worst = p, worst_ns = l.one_way_ns;
  }
  chosen.chosen_by = "measured latency (" + options.latency_source + ")";
  if (!chosen.best) {
    chosen.by_topology = true;
    chosen.chosen_by = "topology (no latency matrix covering the usable CPUs)";
    chosen.best = nearest_pair_on_two_cores(topo, usable);
    if (!chosen.best) chosen.best = smt_sibling_pair(topo, usable);
    chosen.worst = farthest_pair(topo, usable);
  }
  return chosen;
}

// The sequential pair (what numbering suggests) as the baseline, then the best and worst pair
// unless one is a pair already measured, which a note names instead.
void add_chosen_pairs(BenchResult& r, const Topology& topo, const CpuSet& usable,
                      const PingpongOptions& options) {
  const CpuPair seq = sequential_pair(usable);
  r.variants.push_back(
      pair_variant("sequential", "sequential pair (n, n+1)", seq, latency_of(options, seq)));
  const ChosenPairs chosen = best_and_worst_pairs(topo, usable, options);
  if (chosen.by_topology)
    r.notes.push_back(
        "best/worst pairs chosen by topology, not measured latency: give a "
        "latency matrix to choose them by measurement");
  for (auto [name, label, pair] :
       {std::tuple{"best", "best pair by " + chosen.chosen_by, chosen.best},
        std::tuple{"worst", "worst pair by " + chosen.chosen_by, chosen.worst}}) {
    if (!pair) continue;
    bool duplicate = false;
    for (const Variant& v : r.variants)
      duplicate = duplicate || (v.threads[0].cpus == CpuSet{pair->first} &&
                                v.threads[1].cpus == CpuSet{pair->second});
    if (duplicate) {
      r.notes.push_back(std::string("the ") + name + " pair is CPU " + std::to_string(pair->first) +
                        " <-> CPU " + std::to_string(pair->second) + ", already measured above");
      continue;
    }
    Variant v = pair_variant(name, label, *pair, latency_of(options, *pair));
    v.baseline = "sequential";
    r.variants.push_back(v);
  }
  if (usable.count() == 2)
    r.notes.push_back("only two usable CPUs (" + usable.to_list() +
                      "): there is only one pair, so best, worst and sequential coincide");
}

}  // namespace

Result<BenchResult> run_pingpong(const Topology& topo, const PingpongOptions& options) {
  Result<CpuSet> usable = usable_cpus(topo);
  if (!usable) return usable.error();
  BenchResult r =
      new_bench({"pingpong", "two threads handing two counters back and forth", "op/s", true,
                 "hand-offs (one thread's store seen by the other) per second of wall time",
                 "15.5 M -> 16.6 M op/s (+7%) choosing the pair by measured latency instead of "
                 "numbering (\"CPU Affinity: because even a single chip is nonuniform\")"},
                *usable);
  if (usable->count() < 2)
    return unavailable_bench(
        r.name, r.title, "needs two usable CPUs, this process may use only " + usable->to_list());
  r.notes = options.latency_notes;
  if (options.pair) {
    Result<Variant> requested = requested_pair_variant(options, *usable);
    if (!requested) return requested.error();
    r.variants.push_back(std::move(*requested));
  } else {
    add_chosen_pairs(r, topo, *usable, options);
  }

  const long round_trips = options.quick ? 20'000 : 200'000;
  PinnedVariantRuns runs;
  runs.prepare = [&](std::size_t index) {
    auto counters = std::make_shared<std::array<PaddedCounter, 2>>();
    return PinnedRun{placement_cpus(r.variants[index]), [counters, round_trips](std::size_t t) {
                       exchange(t, round_trips, (*counters)[0], (*counters)[1]);
                     }};
  };
  runs.sample = [round_trips](double seconds) {
    return 2.0 * static_cast<double>(round_trips) / std::max(seconds, 1e-9);
  };
  if (Status st = run_pinned_variants(r, options, runs); !st) return st.error();
  return r;
}

}  // namespace threadmap::experiments
