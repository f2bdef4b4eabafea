// How long `threadmap fleet` takes on a big fleet:
//   BM_LoadFleet/<hosts>: fleet::load_fleet (list the directory, read and parse every report,
//     group, compare, find outliers) on a synthetic fleet of 1,000 or 10,000 hosts (four groups
//     of recorded machines with noise and planted outliers, about 30 KB of JSON per report,
//     tests/unit/fleet/synthetic_fleet.hpp). The fleet is written to a temporary directory once
//     per size, before the first timed run, and removed at exit; the reports are then in the
//     page cache, as on a node that just gathered them. Counters: hosts, outliers, and hosts/s;
//     CPU time is the whole process's (load_fleet reads with up to 8 threads).
// Each run is one iteration (10,000 hosts take seconds); run with --benchmark_repetitions=N and
// report the median and the spread (min, max) of the repetitions.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/fleet/fleet_compare.hpp"
#include "tests/unit/fleet/synthetic_fleet.hpp"

namespace {

// One fleet per size, built at its first use and kept for every repetition.
tm_test::SyntheticFleet& fleet_of(int hosts) {
  static std::map<int, std::unique_ptr<tm_test::SyntheticFleet>> fleets;
  auto& fleet = fleets[hosts];
  if (!fleet) {
    fleet = std::make_unique<tm_test::SyntheticFleet>();
    tm_test::build(*fleet, tm_test::machines(hosts / 10));
  }
  return *fleet;
}

void BM_LoadFleet(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  const std::string dir = fleet_of(hosts).dir.string();
  int read = 0;
  size_t outliers = 0;
  for (auto _ : state) {
    auto report = threadmap::fleet::load_fleet(dir);
    if (!report) {
      state.SkipWithError(report.error().message.c_str());
      return;
    }
    read = report->hosts;
    outliers = report->outliers.size();
    benchmark::DoNotOptimize(report);
  }
  state.counters["hosts"] = read;
  state.counters["outliers"] = static_cast<double>(outliers);
  state.counters["hosts_per_s"] =
      benchmark::Counter(static_cast<double>(read), benchmark::Counter::kIsIterationInvariantRate);
}

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

BENCHMARK(BM_LoadFleet)
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime()  // the reader threads of load_fleet too, not only this one
    ->ComputeStatistics("min", min_of)
    ->ComputeStatistics("max", max_of);

}  // namespace

BENCHMARK_MAIN();
