// Cutting the average-linkage dendrogram into levels. Merge heights inside one level are dense
// (many merges at similar latencies, noise of +-20% spreads them but leaves neighbours close),
// while the step to the next level is a jump (x2 to x4 on real chiplet and multi-socket parts),
// so a level boundary is where consecutive merge heights jump by a ratio. SMT is special-cased:
// its jump can be small on quantised data (coarse clocks give 5/10/16 ns cells), so it uses a
// weaker ratio but must produce groups of 2 or 4 CPUs (SMT-2/SMT-4), singletons allowed (hybrid
// parts have cores without SMT).
#include "src/latency/domains.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "src/latency/linkage.hpp"

namespace threadmap::latency {
namespace {

std::vector<CpuSet> groups_of(const std::vector<int>& labels, const Matrix& m) {
  int count = 0;
  for (int l : labels) count = std::max(count, l + 1);
  std::vector<CpuSet> groups(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    groups[static_cast<std::size_t>(labels[i])].add(m.cpus[i]);
  }
  std::sort(groups.begin(), groups.end(),
            [](const CpuSet& a, const CpuSet& b) { return a.first() < b.first(); });
  return groups;
}

// True when every group with more than one CPU has 2 or 4 CPUs, all the same size, and at least
// one such group exists: the shape of SMT siblings.
bool looks_like_smt(const std::vector<int>& labels) {
  std::map<int, std::size_t> size;
  for (int l : labels) ++size[l];
  std::size_t shared = 0;
  for (auto& [label, s] : size) {
    if (s == 1) continue;
    if (s != 2 && s != 4) return false;
    if (shared != 0 && s != shared) return false;
    shared = s;
  }
  return shared != 0;
}

}  // namespace

DomainAnalysis analyse_domains(const Matrix& matrix, const DomainThresholds& thresholds) {
  const std::size_t n = matrix.size();
  std::vector<double> distance(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) distance[i * n + j] = symmetric_at(matrix, i, j);
  }
  Dendrogram tree = average_linkage(distance, n);

  // Heights, with "no known pair" (+inf) capped to the largest finite height so it cannot make
  // a gap of its own, and a floor so 0-ns cells from coarse clocks do not make infinite ratios.
  std::vector<double> height;
  double max_finite = 0;
  for (auto& merge : tree.merges) {
    if (std::isfinite(merge.height)) max_finite = std::max(max_finite, merge.height);
  }
  const double floor_ns = std::max(0.5, 0.02 * max_finite);
  for (auto& merge : tree.merges) {
    height.push_back(std::max(floor_ns, std::isfinite(merge.height) ? merge.height : max_finite));
  }
  // ratio[k]: jump between merge k-1 and merge k; a cut after k merges sits in that gap.
  auto ratio = [&height](std::size_t k) { return height[k] / height[k - 1]; };
  const std::size_t merges = height.size();

  // SMT: the coarsest cut with an SMT-shaped partition at a (weak) gap.
  std::size_t smt_cut = 0;
  double smt_ratio = 0;
  for (std::size_t k = 1; k < merges; ++k) {
    if (ratio(k) < thresholds.smt_gap_ratio) continue;
    auto labels = cut_after(tree, k);
    if (looks_like_smt(labels)) {
      smt_cut = k;
      smt_ratio = ratio(k);
    }
    // Once some group is bigger than an SMT core, coarser cuts cannot be SMT either.
    std::map<int, std::size_t> size;
    for (int l : labels) ++size[l];
    bool too_big = false;
    for (auto& [label, s] : size) too_big = too_big || s > 4;
    if (too_big) break;
  }

  DomainAnalysis result;
  auto add_level = [&](std::size_t cut, std::string name, double gap) {
    result.levels.push_back(groups_of(cut_after(tree, cut), matrix));
    result.level_names.push_back(std::move(name));
    double cut_ns = 0;
    if (cut >= merges) {
      cut_ns = std::numeric_limits<double>::infinity();
    } else if (cut > 0) {
      cut_ns = std::sqrt(height[cut - 1] * height[cut]);
    }
    result.level_cut_ns.push_back(cut_ns);
    result.level_gap_ratio.push_back(gap);
  };
  add_level(smt_cut, "smt", smt_ratio);
  result.smt_found = smt_cut > 0;

  std::vector<std::size_t> major_cuts;
  for (std::size_t k = smt_cut + 1; k < merges; ++k) {
    if (ratio(k) >= thresholds.level_gap_ratio) major_cuts.push_back(k);
  }
  if (major_cuts.empty()) {
    add_level(merges, "cache", 0);
  } else {
    for (std::size_t c = 0; c < major_cuts.size(); ++c) {
      std::string name = c == 0 ? "cache" : "group" + std::to_string(c);
      add_level(major_cuts[c], name, ratio(major_cuts[c]));
    }
    add_level(merges, "machine", 0);
  }
  result.smt_siblings = result.levels[0];
  result.domains = result.levels[1];
  return result;
}

}  // namespace threadmap::latency
