// Building the planner's view of the machine from a topology, a latency matrix, or both.
#include "src/plan/machine_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "src/core/sample_stats.hpp"
#include "src/latency/domains.hpp"
#include "src/plan/topology_steps.hpp"

namespace threadmap::plan {
namespace {

// Maps arbitrary ids (logical indexes, -1 = none) to dense 0..n-1 in order of appearance; a
// missing id (-1) gets a fresh group per CPU so that "unknown" never means "shared".
class DenseIds {
 public:
  int map(int raw) {
    if (raw < 0) return next_++;
    auto [it, inserted] = ids_.emplace(raw, next_);
    if (inserted) ++next_;
    return it->second;
  }
  int count() const { return next_; }

 private:
  std::map<int, int> ids_;
  int next_ = 0;
};

Result<CpuSet> resolve_expression(const MachineInputs& in, const std::string& expr,
                                  const char* what, const CpuSet& universe) {
  Result<CpuSet> set = in.topology ? in.topology->resolve(expr) : CpuSet::parse(expr);
  if (!set) return set.error().with_context(std::string("constraint ") + what + " '" + expr + "'");
  CpuSet outside = *set - universe;
  if (!outside.empty())
    return Error::invalid(std::string("constraint ") + what + " '" + expr + "': CPU " +
                          outside.to_list() + " is not on the machine (" + universe.to_list() +
                          ")");
  return set;
}

void mark_efficiency(const Topology& topo, MachineModel& m) {
  const auto& kinds = topo.cpu_kinds();
  if (kinds.size() < 2) {
    m.kinds_note = "hwloc reports no CPU kinds: all cores treated alike";
    return;
  }
  int best = -1;
  bool ranked = true;
  for (const CpuKind& k : kinds) {
    if (k.efficiency < 0) ranked = false;
    best = std::max(best, k.efficiency);
  }
  if (!ranked) {
    m.kinds_note = "hwloc reports CPU kinds it cannot rank: all cores treated alike";
    return;
  }
  CpuSet efficient;
  for (const CpuKind& k : kinds)
    if (k.efficiency < best) efficient |= k.cpus;
  for (PlanCpu& c : m.cpus) c.efficiency = efficient.contains(c.cpu);
  m.kinds_note = "E-cores = hwloc CPU kinds ranked below the most efficient kind (" +
                 efficient.to_list() + ")";
}

// Structure from hwloc: cores, cache domains, NUMA, kinds, and the spreading hierarchy.
void describe_from_topology(const Topology& topo, MachineModel& m) {
  DenseIds cores, domains;
  std::vector<DenseIds> level_ids(6);
  std::vector<std::vector<int>> levels(6, std::vector<int>(m.cpus.size()));
  std::vector<char> present(6, 0);
  for (std::size_t i = 0; i < m.cpus.size(); ++i) {
    const PuPlace* p = topo.pu(m.cpus[i].cpu);
    m.cpus[i].core = cores.map(p->core);
    int domain = p->l3 >= 0 ? p->l3 : (p->die >= 0 ? p->die + 100000 : p->package + 200000);
    m.cpus[i].domain = domains.map(p->l3 < 0 && p->die < 0 && p->package < 0 ? -1 : domain);
    m.cpus[i].numa = p->numa_os;  // OS number: what specs, numactl and /sys use
    const int raw[6] = {p->package, p->numa, p->die, p->l3, p->l2, p->core};
    for (int l = 0; l < 6; ++l) {
      levels[l][i] = level_ids[l].map(raw[l]);
      present[l] = present[l] || raw[l] >= 0;
    }
  }
  // Every Group depth (clusters, SNC halves) is a level too.
  TopologySteps steps(topo, TopologyDistances{});
  for (std::size_t k = 0; k < steps.group_names().size(); ++k) {
    DenseIds ids;
    std::vector<int> column(m.cpus.size());
    bool any = false;
    for (std::size_t i = 0; i < m.cpus.size(); ++i) {
      int g = steps.group_of(m.cpus[i].cpu, k);
      any = any || g >= 0;
      column[i] = ids.map(g);
    }
    if (any) {
      levels.push_back(std::move(column));
      present.push_back(1);
    }
  }
  // Levels the machine does not have (no Die objects, say) would split every CPU apart.
  for (std::size_t l = 0; l < levels.size(); ++l)
    if (present[l]) m.levels.push_back(std::move(levels[l]));
  // Coarsest first (fewest groups), so Groups sit where they belong between the fixed levels.
  auto groups_in = [](const std::vector<int>& column) {
    return column.empty() ? 0 : *std::max_element(column.begin(), column.end()) + 1;
  };
  // A level of one group splits nothing (one NUMA node, one package) and would hide the levels
  // below it from the spreading baselines.
  if (m.cpus.size() > 1)
    m.levels.erase(std::remove_if(m.levels.begin(), m.levels.end(),
                                  [&](const std::vector<int>& c) { return groups_in(c) <= 1; }),
                   m.levels.end());
  std::stable_sort(m.levels.begin(), m.levels.end(),
                   [&](const std::vector<int>& a, const std::vector<int>& b) {
                     return groups_in(a) < groups_in(b);
                   });
  m.core_count = cores.count();
  m.domain_count = domains.count();
  m.domain_name = "L3";
  for (const NumaNode& node : topo.numa_nodes()) m.numa_nodes.push_back(node.os_index);
  m.numa_known = true;
  mark_efficiency(topo, m);
}

// Structure inferred from the matrix alone (the latency engine's domain analysis).
void describe_from_matrix(const latency::Matrix& matrix, MachineModel& m) {
  latency::DomainAnalysis analysis = latency::analyse_domains(matrix);
  auto group_of = [&](const std::vector<CpuSet>& groups, int cpu) {
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (groups[g].contains(cpu)) return static_cast<int>(g);
    return -1;
  };
  DenseIds cores, domains;
  for (PlanCpu& c : m.cpus) {
    c.core = cores.map(group_of(analysis.smt_siblings, c.cpu));
    c.domain = domains.map(group_of(analysis.domains, c.cpu));
  }
  m.core_count = cores.count();
  m.domain_count = domains.count();
  m.domain_name = "latency domain";
  m.kinds_note = "latency matrix only: CPU kinds unknown, all cores treated alike";
  for (auto level = analysis.levels.rbegin(); level != analysis.levels.rend(); ++level) {
    DenseIds ids;
    std::vector<int> column;
    for (const PlanCpu& c : m.cpus) column.push_back(ids.map(group_of(*level, c.cpu)));
    m.levels.push_back(std::move(column));
  }
}

// The topology's answer per pair without a table: chains of ancestors and, per object on them,
// its distance and relation label (TopologySteps decides both, as for every other caller).
void fill_tree(const Topology& topo, const TopologyDistances& distances, MachineModel& m) {
  TopologySteps steps(topo, distances);
  MachineModel::Tree& t = m.tree;
  const std::size_t n = m.cpus.size();
  for (const PlanCpu& c : m.cpus)
    t.depth = std::max(t.depth, static_cast<int>(steps.chain(c.cpu).size()));
  t.chains.assign(n * static_cast<std::size_t>(t.depth), -1);
  t.numa.assign(n, -1);
  t.object_ns.assign(topo.objects().size(), distances.other_numa_ns);
  t.object_relation.assign(topo.objects().size(), 0);
  std::vector<char> done(topo.objects().size(), 0);
  std::map<std::string, int> labels;
  auto label = [&](const std::string& text) {
    auto [it, inserted] = labels.emplace(text, static_cast<int>(m.relation_labels.size()));
    if (inserted) m.relation_labels.push_back(text);
    return it->second;
  };
  t.other_numa_ns = distances.other_numa_ns;
  t.other_numa_relation = label("other NUMA node");
  t.no_common_relation = label("other package");
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<int>& chain = steps.chain(m.cpus[i].cpu);
    std::copy(chain.begin(), chain.end(),
              t.chains.begin() + static_cast<std::ptrdiff_t>(i * t.depth));
    if (const PuPlace* p = topo.pu(m.cpus[i].cpu)) t.numa[i] = p->numa;
    for (int object : chain) {
      if (done[object]) continue;
      done[object] = 1;
      t.object_ns[object] = steps.shared_distance_ns(object, m.cpus[i].cpu);
      t.object_relation[object] = label(steps.shared_relation(object));
    }
  }
  t.present = true;
}

Status fill_matrix_latencies(const MachineInputs& in, MachineModel& m) {
  const std::size_t n = m.cpus.size();
  m.latency_ns.assign(n * n, 0.0);
  std::vector<int> rows(n, -1);
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    rows[i] = in.matrix->index_of(m.cpus[i].cpu);
    if (rows[i] < 0)
      return Error::invalid("latency matrix " + in.matrix->source + " has no row for CPU " +
                            std::to_string(m.cpus[i].cpu) + " (it covers " +
                            in.matrix->cpu_set().to_list() + ")");
  }
  for (double v : in.matrix->one_way_ns)
    if (std::isfinite(v)) worst = std::max(worst, v);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      double value = in.matrix->at(rows[i], rows[j]);
      // Unmeasured cells count as the slowest measured pair: never a reason to go there.
      m.latency_ns[i * n + j] = std::isfinite(value) ? value : worst;
    }
  }
  // Two threads time-sharing one CPU hand data over through its caches, but only at context
  // switches; charge them like the CPU's nearest partner, never zero.
  for (std::size_t i = 0; i < n; ++i) {
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) nearest = std::min(nearest, m.latency_ns[i * n + j]);
    m.latency_ns[i * n + i] = std::isfinite(nearest) ? nearest : 0.0;
  }
  return {};
}

// The median one-way latency between two different candidates. The topology model has a
// handful of distinct values, counted pair by pair without storing the pairs.
double median_latency(const MachineModel& m) {
  const std::size_t n = m.cpus.size();
  if (n < 2) return std::max(1.0, m.latency(0, 0));
  const std::size_t pairs = n * (n - 1) / 2;
  if (m.latency_ns.empty()) {
    std::map<double, std::size_t> count;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        ++count[m.latency(static_cast<int>(i), static_cast<int>(j))];
    std::size_t seen = 0;
    for (const auto& [value, k] : count) {
      seen += k;
      if (seen > pairs / 2) return std::max(1.0, value);
    }
    return 1.0;
  }
  std::vector<double> values;
  values.reserve(pairs);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) values.push_back(m.latency_ns[i * n + j]);
  return std::max(1.0, median(std::move(values)));
}

}  // namespace

int MachineModel::index_of(int os_cpu) const {
  auto it = std::lower_bound(cpus.begin(), cpus.end(), os_cpu,
                             [](const PlanCpu& c, int cpu) { return c.cpu < cpu; });
  return it != cpus.end() && it->cpu == os_cpu ? static_cast<int>(it - cpus.begin()) : -1;
}

std::string MachineModel::relation(int i, int j) const {
  if (tree.present) {
    if (!tree.same_numa(i, j)) return relation_labels[tree.other_numa_relation];
    const int common = tree.shared(i, j);
    return relation_labels[common < 0 ? tree.no_common_relation : tree.object_relation[common]];
  }
  return i == j                             ? "same CPU"
         : cpus[i].core == cpus[j].core     ? "SMT siblings"
         : cpus[i].domain == cpus[j].domain ? "same latency domain"
                                            : "other latency domain";
}

double topology_distance_ns(const Topology& topo, int cpu_a, int cpu_b,
                            const TopologyDistances& distances) {
  return TopologySteps(topo, distances).distance_ns(cpu_a, cpu_b);
}

Result<MachineModel> build_machine(const MachineInputs& given) {
  if (!given.topology && !given.matrix)
    return Error::invalid("planning needs a topology or a latency matrix");
  // A matrix whose pairs moved between passes (a VM whose host moves its vCPUs) describes where
  // the host had the vCPUs at that moment: neither its structure nor its latencies are used, the
  // topology is.
  MachineInputs in = given;
  std::string not_used;
  if (given.matrix && given.matrix->stability.unstable()) {
    if (!given.topology)
      return Error::invalid("latency matrix " + given.matrix->source + " is not used: " +
                            given.matrix->stability.reason + "; plan from the topology instead");
    in.matrix = nullptr;
    not_used = "; latency matrix " + given.matrix->source +
               " not used, placement falls back to the topology: " + given.matrix->stability.reason;
  }
  MachineModel m;
  CpuSet universe = in.topology ? in.topology->allowed_cpus() : in.matrix->cpu_set();
  CpuSet machine = in.topology ? in.topology->complete_cpus() : universe;
  // The kernel keeps isolated CPUs out of default affinity masks, so this shell may not be
  // allowed on them; they are exactly where pinned threads are meant to go.
  universe |= in.isolated & machine;
  CpuSet candidates = universe;
  if (!in.allowed.empty()) {
    auto allowed = resolve_expression(in, in.allowed, "allowed", machine);
    if (!allowed) return allowed.error();
    candidates &= *allowed;
    if (!allowed->is_subset_of(universe))
      return Error::invalid(
          "constraint allowed '" + in.allowed + "': CPU " + (*allowed - universe).to_list() +
          " is not allowed for this process (allowed: " + universe.to_list() + ")");
  }
  if (!in.reserved.empty()) {
    auto reserved = resolve_expression(in, in.reserved, "reserved", machine);
    if (!reserved) return reserved.error();
    candidates -= *reserved;
  }
  if (candidates.empty())
    return Error::invalid("no CPU left to plan on: allowed " +
                          (in.allowed.empty() ? universe.to_list() : in.allowed) +
                          " minus reserved " +
                          (in.reserved.empty() ? std::string("(none)") : in.reserved));
  m.candidate_set = candidates;
  for (int cpu : candidates.to_vector()) {
    PlanCpu c;
    c.cpu = cpu;
    c.isolated = in.isolated.contains(cpu);
    m.has_isolated = m.has_isolated || c.isolated;
    m.cpus.push_back(c);
  }
  if (in.topology)
    describe_from_topology(*in.topology, m);
  else
    describe_from_matrix(*in.matrix, m);
  std::map<int, int> seen_in_core;
  for (PlanCpu& c : m.cpus) c.rank_in_core = seen_in_core[c.core]++;
  bool any_e = false, any_p = false;
  for (const PlanCpu& c : m.cpus) (c.efficiency ? any_e : any_p) = true;
  m.has_efficiency = any_e && any_p;
  if (in.topology) fill_tree(*in.topology, in.distances, m);
  if (in.matrix)
    if (auto st = fill_matrix_latencies(in, m); !st) return st.error();
  m.measured = in.matrix != nullptr;
  if (in.matrix)
    m.model = "measured latency (" + in.matrix->source + ")" +
              (in.topology ? ", structure from topology (" + in.topology->source() + ")"
                           : ", SMT and domains inferred from the matrix") +
              (in.matrix->measured_busy.empty()
                   ? std::string()
                   : "; measured while the machine was busy (" + in.matrix->measured_busy +
                         "): its latencies include others' load, remeasure on a quiet machine");
  else
    m.model = "topology distance (" + in.topology->source() + "; see docs/plan.md)" + not_used;
  m.reference_ns = median_latency(m);
  return m;
}

}  // namespace threadmap::plan
