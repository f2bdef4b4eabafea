// Internal: what a loaded Topology holds. Built once by topology_load.cpp, immutable after.
#pragma once

#include <hwloc.h>

#include <string>
#include <vector>

#include "threadmap/topology.hpp"

namespace threadmap {

struct Topology::State {
  hwloc_topology_t topo = nullptr;
  std::string source;
  bool this_machine = false;
  CpuSet allowed;
  CpuSet cgroup_allowed;  // what the cgroup allows, before the startup affinity narrows it
  std::vector<TopoObject> objects;
  std::vector<PuPlace> pus;   // ordered by OS CPU number
  std::vector<int> pu_by_os;  // OS CPU number -> index into pus, -1 when absent
  std::vector<CpuKind> kinds;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    if (topo) hwloc_topology_destroy(topo);
  }
};

namespace detail {
/// Fills objects, pus and kinds from the loaded hwloc topology.
void build_model(Topology::State& state);
/// Affinity of this process captured when libthreadmap was loaded (before user code could pin
/// the main thread); empty when it could not be read.
const CpuSet& startup_affinity();
}  // namespace detail

}  // namespace threadmap
