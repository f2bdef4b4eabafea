// One pair, measured again and again, by four procedures that share the same ping-pong code and
// differ only in when they stop and what they report:
//   adaptive       ours: batches until the median's 95% CI is within +-3% (or 100 ms), median
//   fixed, equal   fixed-iteration (1000 round trips per batch) for the adaptive median time,
//                  reported as the mean (what fixed-iteration tools print) and as the median
//                  (isolates the stopping rule from the statistic)
//   nviennot       core-to-core-latency defaults: 300 batches x 1000 round trips, mean
//   c2clat         rigtorp/c2clat defaults: 1000 batches x 100 round trips, minimum
// Runs are interleaved (A, B, C, D, A, B, ...) so machine drift hits all four alike. Reports the
// time each procedure needs per result and the spread of its results across runs; the ratios
// are against the adaptive procedure. Then times analyse_domains on the 512-CPU matrix.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "src/latency/clock.hpp"
#include "src/latency/domains.hpp"
#include "src/latency/pingpong.hpp"
#include "src/latency/stats.hpp"
#include "threadmap/affinity.hpp"

using namespace threadmap;
using namespace threadmap::latency;

namespace {

struct Procedure {
  const char* name;
  const char* statistic;
  PassConfig config;
  enum { median, mean, minimum } reduce;
  std::vector<double> results_ns;
  std::vector<double> times_ms;
};

double reduce(const std::vector<double>& s, int how) {
  if (how == Procedure::mean) {
    return std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  }
  if (how == Procedure::minimum) return *std::min_element(s.begin(), s.end());
  return summarize(s).median;
}

double median_of(std::vector<double> v) { return summarize(std::move(v)).median; }

// Spread across runs: (p90 - p10) / median of the results, in %; robust to one wild run.
double spread_pct(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto q = [&v](double p) {
    return v[static_cast<std::size_t>(std::lround(p * static_cast<double>(v.size() - 1)))];
  };
  return (q(0.9) - q(0.1)) / q(0.5) * 100;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 15;
  auto allowed = allowed_cpus();
  if (!allowed || allowed->count() < 2) {
    std::fprintf(stderr, "bench_latency_adaptive: needs 2 allowed CPUs\n");
    return 77;
  }
  int a = argc > 3 ? std::atoi(argv[2]) : allowed->to_vector()[0];
  int b = argc > 3 ? std::atoi(argv[3]) : allowed->to_vector()[1];
  const double min_batch = std::max(1000 * clock_resolution_ns(), 20000.0);

  PassConfig adaptive;
  adaptive.precision = 0.03;
  adaptive.budget_ns = 100e6;
  adaptive.min_batch_ns = min_batch;

  // Calibrate "equal total time" from a few adaptive runs first.
  std::vector<double> warm;
  double one_way = 0;
  for (int k = 0; k < 3; ++k) {
    auto r = measure_pair_pass(a, b, adaptive);
    if (!r) {
      std::fprintf(stderr, "bench_latency_adaptive: %s\n", r.error().message.c_str());
      return 1;
    }
    warm.push_back(r->elapsed_ns);
    one_way = summarize(r->one_way_ns).median;
  }
  const double adaptive_ns = median_of(warm);
  PassConfig equal;
  equal.fixed_round_trips = 1000;
  equal.fixed_samples =
      std::max<std::size_t>(1, static_cast<std::size_t>(adaptive_ns / (1000 * 2 * one_way)));
  PassConfig nviennot;
  nviennot.fixed_round_trips = 1000;
  nviennot.fixed_samples = 300;
  PassConfig c2clat;
  c2clat.fixed_round_trips = 100;
  c2clat.fixed_samples = 1000;

  std::vector<Procedure> procs = {
      {"adaptive (ours)", "median", adaptive, Procedure::median, {}, {}},
      {"fixed, equal time", "mean", equal, Procedure::mean, {}, {}},
      {"fixed, equal time", "median", equal, Procedure::median, {}, {}},
      {"nviennot defaults", "mean", nviennot, Procedure::mean, {}, {}},
      {"c2clat defaults", "min", c2clat, Procedure::minimum, {}, {}},
  };
  for (int run = 0; run < runs; ++run) {
    for (std::size_t k = 0; k < procs.size(); ++k) {
      auto& p = procs[k];
      std::int64_t start = now_ns();
      auto r = measure_pair_pass(a, b, p.config);
      double ms = static_cast<double>(now_ns() - start) / 1e6;
      if (!r) {
        std::fprintf(stderr, "bench_latency_adaptive: %s\n", r.error().message.c_str());
        return 1;
      }
      p.results_ns.push_back(reduce(r->one_way_ns, p.reduce));
      p.times_ms.push_back(ms);
      if (k == 0) {
        // Equal time in this round: as many 1000-round-trip batches as fill the time the
        // adaptive pass just took (wall time, thread start included: generous to the fixed
        // procedure), at the latency it just measured.
        double batch_ns = 1000 * 2 * std::max(p.results_ns.back(), 1.0);
        std::size_t samples =
            std::max<std::size_t>(1, static_cast<std::size_t>(ms * 1e6 / batch_ns));
        procs[1].config.fixed_samples = samples;
        procs[2].config.fixed_samples = samples;
      }
    }
  }

  std::printf(
      "one pair, CPUs %d <-> %d, %d interleaved runs per procedure; one-way ns; time = "
      "wall time per result incl. thread start (median of runs)\n\n",
      a, b, runs);
  // Drift-corrected results: each divided by the median of all procedures in the same round,
  // which removes what moved for everyone (the host placing the vCPUs elsewhere).
  std::vector<std::vector<double>> relative(procs.size());
  for (int run = 0; run < runs; ++run) {
    std::vector<double> round;
    for (auto& p : procs) round.push_back(p.results_ns[static_cast<std::size_t>(run)]);
    double ref = median_of(round);
    for (std::size_t k = 0; k < procs.size(); ++k) {
      relative[k].push_back(procs[k].results_ns[static_cast<std::size_t>(run)] / ref);
    }
  }
  std::printf("%-18s %-6s %9s %11s %9s %11s %11s %10s %10s\n", "procedure", "stat", "time ms",
              "result ns", "spread %", "spread-dc %", "time ratio", "spread x", "spread-dc x");
  const double base_time = median_of(procs[0].times_ms);
  const double base_spread = spread_pct(procs[0].results_ns);
  const double base_dc = spread_pct(relative[0]);
  for (std::size_t k = 0; k < procs.size(); ++k) {
    auto& p = procs[k];
    double t = median_of(p.times_ms), s = spread_pct(p.results_ns), dc = spread_pct(relative[k]);
    std::printf("%-18s %-6s %9.2f %11.2f %9.1f %11.1f %10.2fx %9.2fx %10.2fx\n", p.name,
                p.statistic, t, median_of(p.results_ns), s, dc, t / base_time,
                base_spread > 0 ? s / base_spread : 0.0, base_dc > 0 ? dc / base_dc : 0.0);
  }
  std::printf(
      "\nspread = (p90 - p10) / median of the %d results; spread-dc = the same after "
      "dividing each result by the median of its round (removes drift common to all "
      "procedures); ratios = procedure / adaptive (> 1: slower or less repeatable than "
      "ours)\n",
      runs);
  std::printf(
      "pairs per hour at these times: adaptive %.0f, nviennot %.0f, c2clat %.0f; a "
      "512-CPU machine has %d pairs\n",
      3.6e6 / base_time, 3.6e6 / median_of(procs[3].times_ms), 3.6e6 / median_of(procs[4].times_ms),
      512 * 511 / 2);

  auto m = load_matrix(THREADMAP_TEST_DATA
                       "/latency/Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv");
  if (m) {
    std::vector<double> ms;
    for (int k = 0; k < 5; ++k) {
      std::int64_t start = now_ns();
      auto d = analyse_domains(*m);
      ms.push_back(static_cast<double>(now_ns() - start) / 1e6);
      if (d.domains.empty()) return 1;
    }
    std::printf("analyse_domains on 512 CPUs: %.1f ms (median of 5)\n", median_of(ms));
  }
  return 0;
}
