// Matrix accessors: the small lookups every consumer needs, kept out of the header so the
// contract stays declarations only.
#include "src/latency/matrix.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace threadmap::latency {

int Matrix::index_of(int cpu) const {
  // cpus is ascending (the contract), so a binary search is enough even at 512+ CPUs.
  auto it = std::lower_bound(cpus.begin(), cpus.end(), cpu);
  if (it == cpus.end() || *it != cpu) return -1;
  return static_cast<int>(it - cpus.begin());
}

double Matrix::between(int cpu_a, int cpu_b) const {
  int a = index_of(cpu_a);
  int b = index_of(cpu_b);
  if (a < 0 || b < 0) return std::numeric_limits<double>::quiet_NaN();
  return at(static_cast<std::size_t>(a), static_cast<std::size_t>(b));
}

CpuSet Matrix::cpu_set() const { return CpuSet::from_vector(cpus); }

Matrix make_matrix(std::vector<int> cpus) {
  Matrix m;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  m.cpus = std::move(cpus);
  const std::size_t n = m.cpus.size();
  m.one_way_ns.assign(n * n, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < n; ++i) m.at(i, i) = 0.0;
  return m;
}

double symmetric_at(const Matrix& m, std::size_t i, std::size_t j) {
  double a = m.at(i, j);
  double b = m.at(j, i);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return 0.5 * (a + b);
}

namespace {

// The two rules behind a stability verdict, in words: what makes one pair move, and how many
// moved pairs make the matrix unstable (the 10% counts pairs, not a pair's difference).
std::string stability_rules(double precision) {
  std::string threshold = "the precision asked for";
  if (precision > 0) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, " (%g%%)", precision * 100);
    threshold += buffer;
  }
  return "a pair moved when its two passes' 95% intervals do not overlap and their medians "
         "differ by more than " +
         threshold +
         "; the matrix is unstable when more than 10% of its pairs moved (at least 2, or its "
         "only pair)";
}

}  // namespace

Stability judge_stability(std::size_t pairs_moved, std::size_t pairs_checked, double precision) {
  Stability s;
  s.pairs_moved = pairs_moved;
  s.pairs_checked = pairs_checked;
  if (pairs_checked == 0) {
    s.reason = "no pair was measured twice: stability unknown";
    return s;
  }
  const bool moved =
      pairs_checked == 1 ? pairs_moved == 1 : pairs_moved >= 2 && 10 * pairs_moved > pairs_checked;
  s.state = moved ? "unstable" : "stable";
  const std::string counted =
      std::to_string(pairs_moved) + " of " + std::to_string(pairs_checked) + " pairs moved";
  if (!moved)
    s.reason = counted + " between passes (" + stability_rules(precision) + ")";
  else if (pairs_checked == 1)
    // One pair has no structure to judge; what is known is that its value did not hold still.
    s.reason = "the latency of the only pair measured is not stable: it moved between passes (" +
               stability_rules(precision) +
               "): its value is one moment of this machine (on a VM, a sign that the vCPUs are "
               "not pinned to host cores)";
  else
    s.reason = "this machine's latency structure is not stable (" + counted + " between passes; " +
               stability_rules(precision) + "): its vCPUs are likely not pinned to host cores";
  return s;
}

std::string busy_summary(const std::string& summary) {
  return summary.rfind("busy: ", 0) == 0 ? summary.substr(6) : summary;
}

}  // namespace threadmap::latency
