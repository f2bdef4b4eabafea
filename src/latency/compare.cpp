// Partition comparison by containment: cheap (groups are CpuSets) and it says in which
// direction two partitions differ, which is what a user acts on.
#include "src/latency/compare.hpp"

#include <algorithm>

namespace threadmap::latency {
namespace {

std::vector<CpuSet> restrict_to(const std::vector<CpuSet>& groups, const CpuSet& cpus) {
  std::vector<CpuSet> out;
  for (const auto& g : groups) {
    CpuSet part = g & cpus;
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

bool refines(const std::vector<CpuSet>& fine, const std::vector<CpuSet>& coarse) {
  for (const auto& f : fine) {
    bool inside = false;
    for (const auto& c : coarse) inside = inside || f.is_subset_of(c);
    if (!inside) return false;
  }
  return true;
}

Relation relate(const std::vector<CpuSet>& latency, const std::vector<CpuSet>& hwloc) {
  bool fine = refines(latency, hwloc);
  bool coarse = refines(hwloc, latency);
  if (fine && coarse) return Relation::same;
  if (fine) return Relation::finer;
  if (coarse) return Relation::coarser;
  return Relation::crossing;
}

std::string describe(const LevelComparison& c) {
  auto groups = [](std::size_t k) { return std::to_string(k) + (k == 1 ? " group" : " groups"); };
  std::string latency =
      "latency level '" + c.latency_level + "' (" + groups(c.latency_groups) + ")";
  std::string hwloc = "hwloc's " + c.hwloc_level + " (" + groups(c.hwloc_groups) + ")";
  switch (c.relation) {
    case Relation::same:
      return latency + " matches " + hwloc;
    case Relation::finer:
      return latency + " splits " + hwloc + ": CPUs the topology puts together measure apart";
    case Relation::coarser:
      return latency + " joins " + hwloc + ": CPUs the topology separates measure as close";
    case Relation::crossing:
      return latency + " cuts across " + hwloc +
             ": the reported topology is wrong or "
             "the numbering was changed";
  }
  return {};
}

}  // namespace

const char* relation_name(Relation relation) {
  switch (relation) {
    case Relation::same:
      return "same";
    case Relation::finer:
      return "finer";
    case Relation::coarser:
      return "coarser";
    case Relation::crossing:
      return "crossing";
  }
  return "?";
}

TopologyComparison compare_with_topology(const DomainAnalysis& analysis, const Topology& topology) {
  TopologyComparison out;
  CpuSet cpus;
  for (const auto& g : analysis.levels.front()) cpus |= g;
  auto cache_level = topology.groups(Level::l3).empty() ? Level::l2 : Level::l3;
  struct Target {
    Level level;
    const char* name;
  };
  const Target targets[] = {{Level::core, "cores"},
                            {cache_level, cache_level == Level::l3 ? "L3 domains" : "L2 domains"},
                            {Level::die, "dies"},
                            {Level::package, "packages"}};
  if (!cpus.is_subset_of(topology.complete_cpus())) {
    // CPUs the topology does not know: nothing can line up; say so once.
    LevelComparison c{analysis.level_names[0],
                      targets[0].name,
                      Relation::crossing,
                      analysis.levels[0].size(),
                      topology.groups(Level::core).size(),
                      {}};
    c.sentence = "the matrix has CPUs " + (cpus - topology.complete_cpus()).to_list() +
                 " that the topology does not have: it describes another machine";
    out.lines.push_back(c);
    out.smt_agrees = out.domains_agree = false;
    return out;
  }
  auto add = [&](std::size_t level_index, const Target& target) {
    auto hw = restrict_to(topology.groups(target.level), cpus);
    if (hw.empty()) return Relation::same;
    LevelComparison c{
        analysis.level_names[level_index],   target.name, relate(analysis.levels[level_index], hw),
        analysis.levels[level_index].size(), hw.size(),   {}};
    c.sentence = describe(c);
    out.lines.push_back(c);
    return c.relation;
  };
  out.smt_agrees = add(0, targets[0]) == Relation::same;
  out.domains_agree = add(1, targets[1]) == Relation::same;
  if (!out.domains_agree && !out.lines.empty()) {
    out.lines.back().sentence = "measured domains do not match the reported " +
                                std::string(targets[1].name) + " (" + out.lines.back().sentence +
                                "); if this is a guest, its topology is wrong";
  }
  // Levels above the cache domains against dies and packages: report the best match for each.
  for (std::size_t l = 2; l < analysis.levels.size(); ++l) {
    for (std::size_t t = 2; t < 4; ++t) {
      auto hw = restrict_to(topology.groups(targets[t].level), cpus);
      if (hw.empty()) continue;
      if (relate(analysis.levels[l], hw) == Relation::same) {
        LevelComparison c{analysis.level_names[l],   targets[t].name, Relation::same,
                          analysis.levels[l].size(), hw.size(),       {}};
        c.sentence = describe(c);
        out.lines.push_back(c);
      }
    }
  }
  return out;
}

}  // namespace threadmap::latency
