// threadmap — Topology: what the machine is made of, from hwloc.
//
// A Topology is loaded from this machine (hwloc's Linux backend) or from an hwloc XML export of
// another machine (`lstopo --of xml`), and then answers every question as plain data: the object
// tree, where each PU (OS CPU number) sits (core, L2, L3, die, package, NUMA node, CPU kind), its
// SMT siblings and cache domains, and which CPUs may be used. Copies share the loaded hwloc
// topology (immutable after load), so they are cheap and thread-safe to read.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap {

/// One node of the topology tree (Machine, Package, Die, NUMANode, L3Cache, Core, PU, ...).
struct TopoObject {
  std::string type;        ///< hwloc type name: "Package", "L3Cache", "Core", "PU", "NUMANode"...
  int logical_index = -1;  ///< hwloc logical index among objects of this type (0..n-1)
  int os_index = -1;       ///< OS index (-1 when the OS gives none); for PUs the OS CPU number
  int depth = 0;           ///< depth in the tree, Machine = 0
  int parent = -1;         ///< index into Topology::objects(), -1 for the root
  std::vector<int> children;      ///< indexes into Topology::objects(), memory children first
  CpuSet cpus;                    ///< OS CPU numbers below this object
  std::uint64_t cache_bytes = 0;  ///< cache size for caches, memory size for NUMA nodes
  std::string subtype;            ///< hwloc subtype (e.g. "Module", "CCX"), may be empty
};

/// Where one PU (OS CPU number) sits. Each field is the logical index of the containing object
/// of that type, or -1 when the machine has no such level.
struct PuPlace {
  int os_cpu = -1;
  int logical_index = -1;
  int core = -1;
  int l1 = -1;
  int l2 = -1;
  int l3 = -1;
  int die = -1;
  int package = -1;
  int numa = -1;     ///< hwloc logical index of the local NUMA node (see numa_os for the OS number)
  int numa_os = -1;  ///< OS number of the local NUMA node (what numactl and /sys use), -1 if none
  int kind = -1;     ///< index into Topology::cpu_kinds(), -1 when hwloc reports none
};

/// A kind of CPU on a hybrid machine (P-core / E-core). Higher efficiency = faster cores
/// (hwloc's ranking; a value < 0 means hwloc could not rank them).
struct CpuKind {
  int index = -1;
  int efficiency = -1;
  CpuSet cpus;
  std::vector<std::pair<std::string, std::string>> infos;  ///< e.g. {"CoreType","IntelAtom"}
};

/// One NUMA node. Numbered as the OS numbers it (numactl, /sys/devices/system/node/nodeN,
/// set_mempolicy masks); hwloc's logical index is kept only to match PuPlace::numa.
struct NumaNode {
  int os_index = -1;
  int logical_index = -1;
  CpuSet cpus;                     ///< CPUs local to the node (empty for memory-only nodes)
  std::uint64_t local_memory = 0;  ///< bytes, 0 when unknown
  std::string subtype;             ///< hwloc subtype ("MCDRAM", "HBM", ...), "" when none
};

/// Object counts, equal to `hwloc-calc -N TYPE all` on the same input.
struct TopologyCounts {
  int packages = 0;
  int dies = 0;
  int numa_nodes = 0;
  int l3_caches = 0;
  int l2_caches = 0;
  int cores = 0;
  int pus = 0;
};

/// Levels a CPU grouping can be asked for.
enum class Level { pu, core, l1, l2, l3, die, package, numa, machine };

class Topology {
 public:
  /// Loads this machine as seen by this process (cgroup + affinity decide allowed_cpus()).
  /// Fails with the hwloc error when the machine cannot be discovered.
  static Result<Topology> load_this_machine();
  /// Loads this machine as seen by process `pid` (its cgroup decides allowed_cpus()).
  /// Fails with ESRCH when the process does not exist.
  static Result<Topology> load_for_process(pid_t pid);
  /// Loads an hwloc XML export. Fails with ENOENT (missing file) or EINVAL (not hwloc XML).
  static Result<Topology> load_xml(const std::string& path);

  /// "this machine" or the XML path it came from.
  const std::string& source() const;
  /// True when loaded from this machine (pinning and measurements make sense).
  bool is_this_machine() const;
  /// CPU model string ("AMD EPYC 7763 64-Core Processor"), or "" when unknown.
  std::string cpu_model() const;
  /// hwloc info attributes of the root object (OSName, OSRelease, HostName, ...).
  std::vector<std::pair<std::string, std::string>> machine_infos() const;

  TopologyCounts counts() const;
  /// The tree, root (Machine) first; TopoObject::children index into this vector.
  const std::vector<TopoObject>& objects() const;
  /// Every PU, ordered by OS CPU number.
  const std::vector<PuPlace>& pus() const;
  /// The PU with that OS CPU number, or nullptr.
  const PuPlace* pu(int os_cpu) const;
  /// CPU kinds, from hwloc (empty on non-hybrid machines where hwloc reports none).
  const std::vector<CpuKind>& cpu_kinds() const;

  /// Every PU of the machine.
  CpuSet complete_cpus() const;
  /// CPUs this process (or the process given to load_for_process) may use: the cgroup cpuset
  /// AND the affinity mask at load time. For XML inputs: the allowed set recorded in the file.
  CpuSet allowed_cpus() const;
  /// CPUs the cgroup cpuset allows, before the startup affinity mask narrows them (equal to
  /// allowed_cpus() for XML inputs and other processes). A launcher that bound this process
  /// (mpirun --bind-to, srun --cpu-bind) shows as allowed_cpus() strictly inside this set.
  CpuSet cgroup_cpus() const;
  /// The CPUs of each object of that level, in logical order (empty when the level is absent).
  std::vector<CpuSet> groups(Level level) const;
  /// Every NUMA node, ordered by OS number (memory-only nodes included).
  std::vector<NumaNode> numa_nodes() const;
  /// The PUs sharing a core with `os_cpu` (itself included); empty when unknown.
  CpuSet smt_siblings(int os_cpu) const;
  /// The CPUs sharing the smallest cache (or core/package) level that contains both CPUs, and
  /// that level; Level::machine when they share nothing below the machine.
  Level shared_level(int cpu_a, int cpu_b) const;
  /// Whether two CPUs are in the same NUMA node (true when there is one node or unknown).
  bool same_numa(int cpu_a, int cpu_b) const;

  /// Resolves a CPU expression against this machine: a kernel list ("0-3,8"), a hex mask
  /// ("0xff"), "all" (= allowed_cpus()), or hwloc-calc-style locations such as "core:0-3",
  /// "package:1.core:2", "l3:0", "numa:1", "pu:5", several joined by spaces or '+'. Indexes in
  /// TYPE:INDEX locations are hwloc LOGICAL indexes (as in hwloc-calc); the result is always a
  /// set of OS CPU numbers. Fails with EINVAL naming the token ("unknown object type 'l9'").
  Result<CpuSet> resolve(std::string_view expression) const;

  /// The native hwloc_topology_t (for code inside threadmap that needs hwloc directly).
  void* native_handle() const;

  struct State;  // opaque, defined in src/core

 private:
  explicit Topology(std::shared_ptr<const State> state);
  std::shared_ptr<const State> state_;
};

/// Name of a level as users write it ("core", "l3", "package", ...).
const char* level_name(Level level);

}  // namespace threadmap
