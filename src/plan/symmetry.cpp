// Detecting interchangeable objects (see symmetry.hpp).
#include "src/plan/symmetry.hpp"

#include <map>

namespace threadmap::plan {
namespace {

bool same_attributes(const Problem& p, int a, int b) {
  const PlanCpu& x = p.machine->cpus[a];
  const PlanCpu& y = p.machine->cpus[b];
  if (x.efficiency != y.efficiency || x.isolated != y.isolated || x.numa != y.numa) return false;
  for (const ProblemThread& t : p.threads)
    if (!t.allowed.empty() && t.allowed[a] != t.allowed[b]) return false;
  return true;
}

// Everything the cost model reads about a pair of CPUs.
bool same_pair(const MachineModel& m, int a1, int b1, int a2, int b2) {
  return m.latency(a1, b1) == m.latency(a2, b2) && m.latency(b1, a1) == m.latency(b2, a2) &&
         (m.cpus[a1].core == m.cpus[b1].core) == (m.cpus[a2].core == m.cpus[b2].core) &&
         (m.cpus[a1].domain == m.cpus[b1].domain) == (m.cpus[a2].domain == m.cpus[b2].domain);
}

// Whether swapping A[i] <-> B[i] for all i is an automorphism of the cost model.
bool interchangeable(const Problem& p, const std::vector<int>& A, const std::vector<int>& B,
                     std::vector<char>& inside) {
  const MachineModel& m = *p.machine;
  if (A.size() != B.size()) return false;
  const std::size_t k = A.size();
  for (std::size_t i = 0; i < k; ++i)
    if (!same_attributes(p, A[i], B[i])) return false;
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j)
      if (!same_pair(m, A[i], A[j], B[i], B[j]) || !same_pair(m, A[i], B[j], B[i], A[j]))
        return false;
  for (int c : A) inside[c] = 1;
  for (int c : B) inside[c] = 1;
  bool ok = true;
  for (std::size_t i = 0; i < k && ok; ++i)
    for (int x = 0; x < static_cast<int>(m.size()) && ok; ++x)
      if (!inside[x] && !same_pair(m, A[i], x, B[i], x)) ok = false;
  for (int c : A) inside[c] = 0;
  for (int c : B) inside[c] = 0;
  return ok;
}

}  // namespace

MachineSymmetry find_symmetry(const Problem& p) {
  const MachineModel& m = *p.machine;
  const int n = static_cast<int>(m.size());
  std::vector<std::vector<int>> ids = m.levels;
  std::vector<int> singles(n);
  for (int c = 0; c < n; ++c) singles[c] = c;
  ids.push_back(singles);
  MachineSymmetry sym;
  std::vector<char> inside(n, 0);
  std::vector<int> parent_of_cpu(n, 0);  // object of the previous (coarser) level
  for (const std::vector<int>& level_ids : ids) {
    SymmetryLevel level;
    level.object_of.assign(n, -1);
    level.position.assign(n, 0);
    std::map<int, int> dense;
    std::vector<int> parent_of_object;
    for (int c = 0; c < n; ++c) {
      auto [it, inserted] = dense.emplace(level_ids[c], static_cast<int>(level.objects.size()));
      if (inserted) {
        level.objects.emplace_back();
        parent_of_object.push_back(parent_of_cpu[c]);
      }
      level.object_of[c] = it->second;
      level.position[c] = static_cast<int>(level.objects[it->second].size());
      level.objects[it->second].push_back(c);
    }
    level.class_of.assign(level.objects.size(), -1);
    for (int o = 0; o < static_cast<int>(level.objects.size()); ++o) {
      for (int cls = 0; cls < static_cast<int>(level.classes.size()); ++cls) {
        const int rep = level.classes[cls][0];
        if (parent_of_object[rep] != parent_of_object[o]) continue;
        if (interchangeable(p, level.objects[rep], level.objects[o], inside)) {
          level.class_of[o] = cls;
          level.classes[cls].push_back(o);
          break;
        }
      }
      if (level.class_of[o] < 0) {
        level.class_of[o] = static_cast<int>(level.classes.size());
        level.classes.push_back({o});
      }
    }
    for (int c = 0; c < n; ++c) parent_of_cpu[c] = level.object_of[c];
    sym.levels.push_back(std::move(level));
  }
  return sym;
}

}  // namespace threadmap::plan
