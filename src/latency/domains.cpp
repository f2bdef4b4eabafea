// Cutting the average-linkage dendrogram into levels. Merge heights inside one level are dense
// (many merges at similar latencies, noise of +-20% spreads them but leaves neighbours close),
// while the step to the next level is a jump (x2 to x4 on real chiplet and multi-socket parts),
// so a level boundary is where consecutive merge heights jump by a ratio. SMT is special-cased:
// its jump can be small on quantised data (coarse clocks give 5/10/16 ns cells), so it uses a
// weaker ratio but must produce groups of 2, 4 or 8 CPUs (SMT-2/4/8), singletons allowed (hybrid
// parts have cores without SMT). Shape alone is not evidence: Apple M-series 4-core clusters and
// the two cores of an Ampere Altra mesh stop have SMT-like shapes at 60-110 ns, while real SMT
// siblings share L1/L2 and answer in 7-20 ns. So a shape above max_smt_ns (or one hwloc's cores
// contradict) is named a cluster.
#include "src/latency/domains.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "src/core/sample_stats.hpp"
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

// True when every group with more than one CPU has 2, 4 or 8 CPUs, all the same size, and at least
// one such group exists: the shape of SMT siblings.
bool looks_like_smt(const std::vector<int>& labels) {
  std::map<int, std::size_t> size;
  for (int l : labels) ++size[l];
  std::size_t shared = 0;
  for (auto& [label, s] : size) {
    if (s == 1) continue;
    if (s != 2 && s != 4 && s != 8) return false;
    if (shared != 0 && s != shared) return false;
    shared = s;
  }
  return shared != 0;
}

// True when every multi-CPU group lies inside one hwloc core.
bool topology_agrees_smt(const std::vector<CpuSet>& groups, const Topology& topo) {
  for (const CpuSet& g : groups) {
    if (g.count() < 2) continue;
    CpuSet core = topo.smt_siblings(g.first());
    if (core.count() < 2 || !g.is_subset_of(core)) return false;
  }
  return true;
}

// hwloc's SMT cores over the matrix's CPUs, or empty when hwloc shows no SMT there.
std::vector<CpuSet> topology_smt_groups(const Matrix& m, const Topology& topo) {
  std::vector<CpuSet> groups;
  CpuSet seen;
  bool any = false;
  CpuSet matrix_cpus = m.cpu_set();
  for (int cpu : m.cpus) {
    if (seen.contains(cpu)) continue;
    CpuSet core = topo.smt_siblings(cpu) & matrix_cpus;
    if (core.empty()) core.add(cpu);
    seen |= core;
    any = any || core.count() > 1;
    groups.push_back(core);
  }
  if (!any) return {};
  std::sort(groups.begin(), groups.end(),
            [](const CpuSet& a, const CpuSet& b) { return a.first() < b.first(); });
  return groups;
}

// True when `groups` equal one of hwloc's sharing levels over the same CPUs.
bool topology_has_partition(const std::vector<CpuSet>& groups, const Topology& topo) {
  auto id_at = [&](const PuPlace* p, int level) {
    switch (level) {
      case 0:
        return p->l2;
      case 1:
        return p->l3;
      case 2:
        return p->die;
      case 3:
        return p->numa;
      case 4:
        return p->package;
      default:
        return 0;  // the machine
    }
  };
  for (int level = 0; level < 6; ++level) {
    bool same = true;
    std::map<int, std::size_t> group_of_id;
    for (std::size_t g = 0; g < groups.size() && same; ++g) {
      for (int cpu : groups[g].to_vector()) {
        const PuPlace* p = topo.pu(cpu);
        if (!p || id_at(p, level) < 0) {
          same = false;
          break;
        }
        auto [it, inserted] = group_of_id.emplace(id_at(p, level), g);
        if (it->second != g) same = false;
      }
    }
    // Each group maps to its own hwloc id and each id to one group: the same partition.
    if (same && group_of_id.size() == groups.size()) return true;
  }
  return false;
}

// Why a level with uneven groups is not a clean level: the big groups join their finer parts at
// one latency, the parts left alone are as far from each other as from the big groups, so no cut
// separates "near" from "far" the same way everywhere.
std::string uneven_note(const Matrix& m, const std::vector<CpuSet>& level,
                        const std::vector<CpuSet>& finer) {
  std::size_t smallest = m.size(), largest = 0;
  for (const CpuSet& g : level) {
    smallest = std::min<std::size_t>(smallest, g.count());
    largest = std::max<std::size_t>(largest, g.count());
  }
  if (level.size() < 2 || largest <= 2 * smallest) return "";
  std::vector<int> part(m.size(), -1), group(m.size(), -1);
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t g = 0; g < level.size(); ++g)
      if (level[g].contains(m.cpus[i])) group[i] = static_cast<int>(g);
    for (std::size_t f = 0; f < finer.size(); ++f)
      if (finer[f].contains(m.cpus[i])) part[i] = static_cast<int>(f);
  }
  auto big = [&](std::size_t i) { return level[group[i]].count() == largest; };
  std::vector<double> inside_big, between_small, small_to_big;
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      double v = symmetric_at(m, i, j);
      if (!std::isfinite(v) || part[i] == part[j]) continue;
      if (big(i) && big(j) && group[i] == group[j])
        inside_big.push_back(v);
      else if (!big(i) && !big(j) && group[i] != group[j])
        between_small.push_back(v);
      else if (big(i) != big(j))
        small_to_big.push_back(v);
    }
  const double a = median(inside_big), b = median(between_small), c = median(small_to_big);
  std::size_t big_groups = 0, other_max = 0;
  for (const CpuSet& g : level) {
    if (g.count() == largest)
      ++big_groups;
    else
      other_max = std::max<std::size_t>(other_max, g.count());
  }
  const std::size_t others = level.size() - big_groups;
  std::string note = fmt::format(
      "no clean level: {} group{} of {} CPUs join{} {} parts at a median {:.0f} ns, while the "
      "other {} group{} ({} CPUs) stay apart",
      big_groups, big_groups == 1 ? "" : "s", largest, big_groups == 1 ? "s" : "",
      big_groups == 1 ? "its" : "their", a, others, others == 1 ? "" : "s",
      smallest == other_max ? std::to_string(smallest)
                            : std::to_string(smallest) + "-" + std::to_string(other_max));
  if (std::isfinite(b) && std::isfinite(c)) {
    note += fmt::format(": between them a median {:.0f} ns, ", b);
    note += std::abs(b - c) <= 0.15 * c
                ? fmt::format(
                      "the same as from them to the big group{} ({:.0f} ns) (e.g. "
                      "cross-CCX latency on one socket equals cross-socket)",
                      big_groups == 1 ? "" : "s", c)
                : fmt::format("vs {:.0f} ns to the big group{}", c, big_groups == 1 ? "" : "s");
  }
  return note;
}

// Coarse clocks (5/10/16 ns cells) leave some SMT pairs just above the cut, so the dendrogram
// pairs only part of the cores. With SMT-2 found, two CPUs still alone are paired when each is
// the other's nearest partner among the CPUs still alone (paired ones are spoken for: SMT-2),
// below max_smt_ns, and clearly nearer (<= 0.8x) than any other CPU still alone.
std::vector<CpuSet> complete_pairs(std::vector<CpuSet> groups, const Matrix& m, double max_ns) {
  for (const CpuSet& g : groups)
    if (g.count() > 2) return groups;
  std::vector<int> alone;
  for (const CpuSet& g : groups)
    if (g.count() == 1) alone.push_back(m.index_of(g.first()));
  auto nearest = [&](int i, double& second) {
    int best = -1;
    double best_ns = std::numeric_limits<double>::infinity();
    second = best_ns;
    for (int k : alone) {
      const auto j = static_cast<std::size_t>(k);
      if (k == i) continue;
      double v = symmetric_at(m, static_cast<std::size_t>(i), j);
      if (!std::isfinite(v)) continue;
      if (v < best_ns) {
        second = best_ns;
        best_ns = v;
        best = static_cast<int>(j);
      } else {
        second = std::min(second, v);
      }
    }
    return best;
  };
  bool changed = false;
  for (int i : alone) {
    double second_i = 0, second_j = 0;
    int j = nearest(i, second_i);
    if (j < 0 || j < i || std::find(alone.begin(), alone.end(), j) == alone.end()) continue;
    if (nearest(j, second_j) != i) continue;
    const double v = symmetric_at(m, static_cast<std::size_t>(i), static_cast<std::size_t>(j));
    if (v >= max_ns || v > 0.8 * second_i || v > 0.8 * second_j) continue;
    for (CpuSet& g : groups)
      if (g.contains(m.cpus[i])) g.add(m.cpus[j]);
    groups.erase(
        std::remove_if(groups.begin(), groups.end(),
                       [&](const CpuSet& g) { return g.count() == 1 && g.first() == m.cpus[j]; }),
        groups.end());
    changed = true;
  }
  if (changed)
    std::sort(groups.begin(), groups.end(),
              [](const CpuSet& a, const CpuSet& b) { return a.first() < b.first(); });
  return groups;
}

// An unstable matrix: pairs that moved between passes describe where the host had the vCPUs at
// that moment, not a structure, so nothing inferred from them would hold for the next run. The
// result still has the shape callers read (each CPU alone, one domain of all).
DomainAnalysis uninferred_domains(const Matrix& matrix) {
  DomainAnalysis none;
  none.not_inferred = matrix.stability.reason;
  CpuSet all = matrix.cpu_set();
  std::vector<CpuSet> singles;
  for (int cpu : matrix.cpus) singles.push_back(CpuSet{cpu});
  none.levels = {singles, {all}};
  none.level_names = {"smt", "cache"};
  none.level_source = {"none", "none"};
  none.level_note = {"", ""};
  none.level_cut_ns = {0, std::numeric_limits<double>::infinity()};
  none.level_gap_ratio = {0, 0};
  none.smt_reason = "not inferred: " + matrix.stability.reason;
  none.smt_siblings = singles;
  none.domains = {all};
  return none;
}

// The dendrogram of the matrix and its merge heights, which every later step cuts and compares.
struct Linkage {
  Dendrogram tree;
  std::vector<double> height;  ///< merge heights, capped and floored (see link_matrix)

  std::size_t merges() const { return height.size(); }
  // The jump between merge k-1 and merge k; a cut after k merges sits in that gap.
  double ratio(std::size_t k) const { return height[k] / height[k - 1]; }
  // The latency a cut after `cut` merges stands for: the geometric middle of its gap.
  double cut_ns(std::size_t cut) const {
    if (cut >= merges()) return std::numeric_limits<double>::infinity();
    return cut > 0 ? std::sqrt(height[cut - 1] * height[cut]) : 0.0;
  }
};

Linkage link_matrix(const Matrix& matrix) {
  const std::size_t n = matrix.size();
  std::vector<double> distance(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) distance[i * n + j] = symmetric_at(matrix, i, j);
  }
  Linkage link;
  link.tree = average_linkage(distance, n);
  // Heights, with "no known pair" (+inf) capped to the largest finite height so it cannot make
  // a gap of its own, and a floor so 0-ns cells from coarse clocks do not make infinite ratios.
  double max_finite = 0;
  for (auto& merge : link.tree.merges) {
    if (std::isfinite(merge.height)) max_finite = std::max(max_finite, merge.height);
  }
  const double floor_ns = std::max(0.5, 0.02 * max_finite);
  for (auto& merge : link.tree.merges) {
    link.height.push_back(
        std::max(floor_ns, std::isfinite(merge.height) ? merge.height : max_finite));
  }
  return link;
}

std::size_t widest_group(const std::vector<CpuSet>& groups) {
  std::size_t widest = 0;
  for (const CpuSet& g : groups) widest = std::max<std::size_t>(widest, g.count());
  return widest;
}

// SMT candidates: cuts with an SMT-shaped partition at a (weak) gap, finest first.
std::vector<std::size_t> smt_shaped_cuts(const Linkage& link, const DomainThresholds& thresholds) {
  std::vector<std::size_t> shaped;
  for (std::size_t k = 1; k < link.merges(); ++k) {
    if (link.ratio(k) < thresholds.smt_gap_ratio) continue;
    auto labels = cut_after(link.tree, k);
    if (looks_like_smt(labels)) shaped.push_back(k);
    // Once some group is bigger than an SMT core, coarser cuts cannot be SMT either.
    std::map<int, std::size_t> size;
    for (int l : labels) ++size[l];
    bool too_big = false;
    for (auto& [label, s] : size) too_big = too_big || s > 8;
    if (too_big) break;
  }
  return shaped;
}

// Which cut is SMT, or else which is a core cluster, and why.
struct SmtChoice {
  std::size_t smt_cut = 0, cluster_cut = 0;  ///< 0: none
  double smt_ratio = 0, cluster_ratio = 0;
  std::size_t contradicted = 0;  ///< the coarsest fast candidate hwloc's cores contradict
  std::string reason;  ///< set here only for a cluster; the SMT level's reason comes later
};

// SMT is a candidate whose slowest join (heights rise monotonically under average linkage) is
// an SMT latency and that hwloc's cores do not contradict. Pairs come first: the coarsest
// candidate of pairs (siblings paired one to one, 2 threads per core, as on every x86 and
// most Arm parts) wins over any coarser candidate of 4 or 8. Otherwise a small Zen CCX (4
// cores x 2 threads joined at ~23 ns, below max_smt_ns) would be taken for SMT-8 and hide both
// the real pairs below it and the CCX split above it (as on a two-CCX Zen part whose 8-CPU CCX
// was once called "smt"). Groups of 4/8 count only when no pair candidate passes (SMT-4/8
// parts). When no candidate passes, the coarsest one is a core cluster (Apple clusters, Altra
// mesh stops): see name_cluster.
SmtChoice find_smt_cut(const Linkage& link, const std::vector<std::size_t>& shaped,
                       const Matrix& matrix, const DomainThresholds& thresholds,
                       const Topology* topology) {
  SmtChoice choice;
  for (int pass = 0; pass < 2 && choice.smt_cut == 0; ++pass) {
    for (auto k = shaped.rbegin(); k != shaped.rend() && choice.smt_cut == 0; ++k) {
      const auto groups = groups_of(cut_after(link.tree, *k), matrix);
      if ((pass == 0) != (widest_group(groups) == 2)) continue;
      const bool fast = link.height[*k - 1] < thresholds.max_smt_ns;
      const bool agrees = !topology || topology_agrees_smt(groups, *topology);
      if (fast && agrees) {
        choice.smt_cut = *k;
        choice.smt_ratio = link.ratio(*k);
      } else if (fast && choice.contradicted == 0) {
        choice.contradicted = *k;
      }
    }
  }
  return choice;
}

// No SMT candidate passed, but SMT-shaped groups exist: they are a core cluster, named with
// the reason (too slow for siblings sharing L1/L2, or hwloc's cores say otherwise).
void name_cluster(SmtChoice& choice, const Linkage& link, const std::vector<std::size_t>& shaped,
                  const Matrix& matrix, const DomainThresholds& thresholds) {
  const std::size_t k = choice.contradicted > 0 ? choice.contradicted : shaped.back();
  const double join_ns = link.height[k - 1];
  const std::size_t widest = widest_group(groups_of(cut_after(link.tree, k), matrix));
  if (join_ns >= thresholds.max_smt_ns)
    choice.reason = fmt::format(
        "groups of {} CPUs join at {:.0f}-{:.0f} ns, above the {:.0f} ns an SMT sibling takes "
        "(SMT siblings share L1/L2): a core cluster, not SMT",
        widest, link.height[0], join_ns, thresholds.max_smt_ns);
  else
    choice.reason = fmt::format(
        "groups of {} CPUs join below {:.0f} ns but hwloc's cores do not match them: named a "
        "cluster",
        widest, thresholds.max_smt_ns);
  choice.cluster_cut = k;
  choice.cluster_ratio = link.ratio(k);
}

SmtChoice choose_smt_cut(const Linkage& link, const Matrix& matrix,
                         const DomainThresholds& thresholds, const Topology* topology) {
  const std::vector<std::size_t> shaped = smt_shaped_cuts(link, thresholds);
  SmtChoice choice = find_smt_cut(link, shaped, matrix, thresholds, topology);
  if (choice.smt_cut == 0 && !shaped.empty()) {
    name_cluster(choice, link, shaped, matrix, thresholds);
  }
  return choice;
}

void add_level(DomainAnalysis& result, std::vector<CpuSet> groups, std::string name, double cut_ns,
               double gap, std::string source) {
  result.levels.push_back(std::move(groups));
  result.level_names.push_back(std::move(name));
  result.level_cut_ns.push_back(cut_ns);
  result.level_gap_ratio.push_back(gap);
  result.level_source.push_back(std::move(source));
}

// "both" when hwloc has the same partition, so a reader sees which levels the topology confirms.
std::string level_source(const std::vector<CpuSet>& groups, const Topology* topology) {
  return topology && topology_has_partition(groups, *topology) ? std::string("both")
                                                               : std::string("latency");
}

// The finest level: SMT from the matrix, else hwloc's cores when the matrix shows no SMT step
// (and no cluster took its place), else every CPU alone.
void add_smt_level(DomainAnalysis& result, const SmtChoice& choice, const Linkage& link,
                   const Matrix& matrix, const DomainThresholds& thresholds,
                   const Topology* topology) {
  result.smt_reason = choice.reason;
  std::vector<CpuSet> hwloc_smt =
      topology ? topology_smt_groups(matrix, *topology) : std::vector<CpuSet>{};
  if (choice.smt_cut > 0) {
    auto groups = complete_pairs(groups_of(cut_after(link.tree, choice.smt_cut), matrix), matrix,
                                 thresholds.max_smt_ns);
    add_level(result, groups, "smt", link.cut_ns(choice.smt_cut), choice.smt_ratio,
              topology ? "both" : "latency");
    result.smt_found = true;
    result.smt_reason =
        fmt::format("groups of 2-8 CPUs join below {:.0f} ns{}", thresholds.max_smt_ns,
                    topology ? ", inside hwloc's cores" : " (no topology to confirm)");
  } else if (!hwloc_smt.empty() && choice.cluster_cut == 0) {
    add_level(result, hwloc_smt, "smt", 0, 0, "topology");
    result.smt_found = true;
    result.smt_reason = "hwloc's cores (the matrix shows no separate SMT step)";
  } else {
    add_level(result, groups_of(cut_after(link.tree, 0), matrix), "smt", 0, 0,
              topology ? "both" : "latency");
    if (result.smt_reason.empty())
      result.smt_reason =
          fmt::format("no group of 2-8 CPUs joins below {:.0f} ns", thresholds.max_smt_ns);
  }
}

// The coarser levels: the cluster, if one was named, then one level per big jump above SMT
// (the first is the cache domain unless a cluster came first), and the whole machine.
void add_coarser_levels(DomainAnalysis& result, const SmtChoice& choice, const Linkage& link,
                        const Matrix& matrix, const DomainThresholds& thresholds,
                        const Topology* topology) {
  const std::size_t merges = link.merges();
  std::vector<std::size_t> major_cuts;
  const std::size_t first = std::max(choice.smt_cut, choice.cluster_cut) + 1;
  for (std::size_t k = first; k < merges; ++k) {
    if (link.ratio(k) >= thresholds.level_gap_ratio) major_cuts.push_back(k);
  }
  if (choice.cluster_cut > 0) {
    auto groups = groups_of(cut_after(link.tree, choice.cluster_cut), matrix);
    std::string source = level_source(groups, topology);
    add_level(result, std::move(groups), "cluster", link.cut_ns(choice.cluster_cut),
              choice.cluster_ratio, source);
  }
  auto whole = groups_of(cut_after(link.tree, merges), matrix);
  if (major_cuts.empty()) {
    add_level(result, std::move(whole), choice.cluster_cut == 0 ? "cache" : "machine",
              link.cut_ns(merges), 0, "latency");
    return;
  }
  int next_group = 1;
  for (std::size_t c = 0; c < major_cuts.size(); ++c) {
    std::string name =
        c == 0 && choice.cluster_cut == 0 ? "cache" : "group" + std::to_string(next_group++);
    auto groups = groups_of(cut_after(link.tree, major_cuts[c]), matrix);
    std::string source = level_source(groups, topology);
    add_level(result, std::move(groups), name, link.cut_ns(major_cuts[c]),
              link.ratio(major_cuts[c]), source);
  }
  add_level(result, std::move(whole), "machine", link.cut_ns(merges), 0, "latency");
}

}  // namespace

DomainAnalysis analyse_domains(const Matrix& matrix, const DomainThresholds& thresholds,
                               const Topology* topology) {
  if (matrix.stability.unstable()) return uninferred_domains(matrix);
  // A topology of another machine (CPUs the matrix has and it lacks) says nothing here.
  if (topology && !matrix.cpu_set().is_subset_of(topology->complete_cpus())) topology = nullptr;
  const Linkage link = link_matrix(matrix);
  const SmtChoice choice = choose_smt_cut(link, matrix, thresholds, topology);

  DomainAnalysis result;
  add_smt_level(result, choice, link, matrix, thresholds, topology);
  add_coarser_levels(result, choice, link, matrix, thresholds, topology);
  // Where a level's groups are uneven (one slower than its siblings), the reader is told.
  result.level_note.assign(result.levels.size(), "");
  for (std::size_t l = 1; l < result.levels.size(); ++l)
    result.level_note[l] = uneven_note(matrix, result.levels[l], result.levels[l - 1]);
  result.smt_siblings = result.levels[0];
  result.domains = result.levels[1];
  return result;
}

}  // namespace threadmap::latency
