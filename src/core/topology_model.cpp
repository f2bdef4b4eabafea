// Turns a loaded hwloc topology into plain data (objects, PU places, CPU kinds) and answers
// the Topology queries from that data.
#include <algorithm>

#include "src/core/topology_state.hpp"

namespace threadmap {
namespace {

void copy_cpuset(CpuSet& dst, hwloc_const_cpuset_t src) {
  if (src) hwloc_bitmap_copy(static_cast<hwloc_bitmap_t>(dst.native_handle()), src);
}

std::uint64_t object_bytes(hwloc_obj_t obj) {
  if (hwloc_obj_type_is_cache(obj->type) && obj->attr) return obj->attr->cache.size;
  if (obj->type == HWLOC_OBJ_NUMANODE && obj->attr) return obj->attr->numanode.local_memory;
  return 0;
}

int add_object(Topology::State& state, hwloc_obj_t obj, int parent, int depth) {
  TopoObject node;
  node.type = hwloc_obj_type_string(obj->type);
  node.logical_index = static_cast<int>(obj->logical_index);
  node.os_index = obj->os_index == HWLOC_UNKNOWN_INDEX ? -1 : static_cast<int>(obj->os_index);
  node.depth = depth;
  node.parent = parent;
  copy_cpuset(node.cpus, obj->cpuset);
  node.cache_bytes = object_bytes(obj);
  if (obj->subtype) node.subtype = obj->subtype;
  int index = static_cast<int>(state.objects.size());
  state.objects.push_back(std::move(node));
  // Memory children (NUMA nodes) first, as lstopo shows them, then the CPU-side children.
  for (hwloc_obj_t child = obj->memory_first_child; child; child = child->next_sibling) {
    int c = add_object(state, child, index, depth + 1);
    state.objects[static_cast<size_t>(index)].children.push_back(c);
  }
  for (hwloc_obj_t child = obj->first_child; child; child = child->next_sibling) {
    int c = add_object(state, child, index, depth + 1);
    state.objects[static_cast<size_t>(index)].children.push_back(c);
  }
  return index;
}

void place_pu(Topology::State& state, hwloc_obj_t pu_obj) {
  PuPlace place;
  place.os_cpu = static_cast<int>(pu_obj->os_index);
  place.logical_index = static_cast<int>(pu_obj->logical_index);
  for (hwloc_obj_t up = pu_obj->parent; up; up = up->parent) {
    int idx = static_cast<int>(up->logical_index);
    switch (up->type) {
      case HWLOC_OBJ_CORE:
        if (place.core < 0) place.core = idx;
        break;
      case HWLOC_OBJ_L1CACHE:
        if (place.l1 < 0) place.l1 = idx;
        break;
      case HWLOC_OBJ_L2CACHE:
        if (place.l2 < 0) place.l2 = idx;
        break;
      case HWLOC_OBJ_L3CACHE:
        if (place.l3 < 0) place.l3 = idx;
        break;
      case HWLOC_OBJ_DIE:
        if (place.die < 0) place.die = idx;
        break;
      case HWLOC_OBJ_PACKAGE:
        if (place.package < 0) place.package = idx;
        break;
      default:
        break;
    }
  }
  // NUMA nodes hang off the tree as memory children; the node whose CPUs include this PU is
  // its local node.
  int nodes = hwloc_get_nbobjs_by_type(state.topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nodes; ++i) {
    hwloc_obj_t node =
        hwloc_get_obj_by_type(state.topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (node && node->cpuset && hwloc_bitmap_isset(node->cpuset, pu_obj->os_index)) {
      place.numa = static_cast<int>(node->logical_index);
      place.numa_os = static_cast<int>(node->os_index);
      break;
    }
  }
  for (const CpuKind& kind : state.kinds) {
    if (kind.cpus.contains(place.os_cpu)) place.kind = kind.index;
  }
  state.pus.push_back(place);
}

void read_kinds(Topology::State& state) {
  int n = hwloc_cpukinds_get_nr(state.topo, 0);
  for (int i = 0; i < n; ++i) {
    CpuKind kind;
    kind.index = i;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int efficiency = -1;
    unsigned nr_infos = 0;
    struct hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(state.topo, static_cast<unsigned>(i), set, &efficiency, &nr_infos,
                                &infos, 0) == 0) {
      copy_cpuset(kind.cpus, set);
      kind.efficiency = efficiency;
      for (unsigned j = 0; j < nr_infos; ++j)
        kind.infos.emplace_back(infos[j].name ? infos[j].name : "",
                                infos[j].value ? infos[j].value : "");
      state.kinds.push_back(std::move(kind));
    }
    hwloc_bitmap_free(set);
  }
}

hwloc_obj_type_t level_type(Level level) {
  switch (level) {
    case Level::pu:
      return HWLOC_OBJ_PU;
    case Level::core:
      return HWLOC_OBJ_CORE;
    case Level::l1:
      return HWLOC_OBJ_L1CACHE;
    case Level::l2:
      return HWLOC_OBJ_L2CACHE;
    case Level::l3:
      return HWLOC_OBJ_L3CACHE;
    case Level::die:
      return HWLOC_OBJ_DIE;
    case Level::package:
      return HWLOC_OBJ_PACKAGE;
    case Level::numa:
      return HWLOC_OBJ_NUMANODE;
    case Level::machine:
      return HWLOC_OBJ_MACHINE;
  }
  return HWLOC_OBJ_MACHINE;
}

}  // namespace

namespace detail {
void build_model(Topology::State& state) {
  add_object(state, hwloc_get_root_obj(state.topo), -1, 0);
  read_kinds(state);
  int n = hwloc_get_nbobjs_by_type(state.topo, HWLOC_OBJ_PU);
  for (int i = 0; i < n; ++i)
    place_pu(state, hwloc_get_obj_by_type(state.topo, HWLOC_OBJ_PU, static_cast<unsigned>(i)));
  std::sort(state.pus.begin(), state.pus.end(),
            [](const PuPlace& a, const PuPlace& b) { return a.os_cpu < b.os_cpu; });
  int max_os = state.pus.empty() ? -1 : state.pus.back().os_cpu;
  state.pu_by_os.assign(static_cast<size_t>(max_os + 1), -1);
  for (size_t i = 0; i < state.pus.size(); ++i)
    state.pu_by_os[static_cast<size_t>(state.pus[i].os_cpu)] = static_cast<int>(i);
}
}  // namespace detail

const std::string& Topology::source() const { return state_->source; }
bool Topology::is_this_machine() const { return state_->this_machine; }
void* Topology::native_handle() const { return state_->topo; }

std::string Topology::cpu_model() const {
  hwloc_obj_t pkg = hwloc_get_obj_by_type(state_->topo, HWLOC_OBJ_PACKAGE, 0);
  for (hwloc_obj_t obj : {pkg, hwloc_get_root_obj(state_->topo)}) {
    if (!obj) continue;
    if (const char* model = hwloc_obj_get_info_by_name(obj, "CPUModel")) {
      std::string m(model);  // some CPUID strings are padded with spaces
      while (!m.empty() && m.back() == ' ') m.pop_back();
      return m;
    }
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> Topology::machine_infos() const {
  std::vector<std::pair<std::string, std::string>> out;
  hwloc_obj_t root = hwloc_get_root_obj(state_->topo);
  for (unsigned i = 0; i < root->infos_count; ++i)
    out.emplace_back(root->infos[i].name ? root->infos[i].name : "",
                     root->infos[i].value ? root->infos[i].value : "");
  return out;
}

TopologyCounts Topology::counts() const {
  auto n = [&](hwloc_obj_type_t type) {
    int v = hwloc_get_nbobjs_by_type(state_->topo, type);
    return v < 0 ? 0 : v;
  };
  TopologyCounts c;
  c.packages = n(HWLOC_OBJ_PACKAGE);
  c.dies = n(HWLOC_OBJ_DIE);
  c.numa_nodes = n(HWLOC_OBJ_NUMANODE);
  c.l3_caches = n(HWLOC_OBJ_L3CACHE);
  c.l2_caches = n(HWLOC_OBJ_L2CACHE);
  c.cores = n(HWLOC_OBJ_CORE);
  c.pus = n(HWLOC_OBJ_PU);
  return c;
}

const std::vector<TopoObject>& Topology::objects() const { return state_->objects; }
const std::vector<PuPlace>& Topology::pus() const { return state_->pus; }
const std::vector<CpuKind>& Topology::cpu_kinds() const { return state_->kinds; }

const PuPlace* Topology::pu(int os_cpu) const {
  if (os_cpu < 0 || static_cast<size_t>(os_cpu) >= state_->pu_by_os.size()) return nullptr;
  int i = state_->pu_by_os[static_cast<size_t>(os_cpu)];
  return i < 0 ? nullptr : &state_->pus[static_cast<size_t>(i)];
}

CpuSet Topology::complete_cpus() const {
  CpuSet all;
  for (const PuPlace& p : state_->pus) all.add(p.os_cpu);
  return all;
}

CpuSet Topology::allowed_cpus() const { return state_->allowed; }
CpuSet Topology::cgroup_cpus() const {
  return state_->cgroup_allowed.empty() ? state_->allowed : state_->cgroup_allowed;
}

std::vector<CpuSet> Topology::groups(Level level) const {
  std::vector<CpuSet> out;
  hwloc_obj_type_t type = level_type(level);
  int n = hwloc_get_nbobjs_by_type(state_->topo, type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(state_->topo, type, static_cast<unsigned>(i));
    CpuSet set;
    copy_cpuset(set, obj->cpuset);
    out.push_back(std::move(set));
  }
  return out;
}

std::vector<NumaNode> Topology::numa_nodes() const {
  std::vector<NumaNode> out;
  int n = hwloc_get_nbobjs_by_type(state_->topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t obj =
        hwloc_get_obj_by_type(state_->topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    NumaNode node;
    node.os_index = static_cast<int>(obj->os_index);
    node.logical_index = static_cast<int>(obj->logical_index);
    if (obj->cpuset) copy_cpuset(node.cpus, obj->cpuset);
    if (obj->attr) node.local_memory = obj->attr->numanode.local_memory;
    if (obj->subtype) node.subtype = obj->subtype;
    out.push_back(std::move(node));
  }
  std::sort(out.begin(), out.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.os_index < b.os_index; });
  return out;
}

CpuSet Topology::smt_siblings(int os_cpu) const {
  const PuPlace* p = pu(os_cpu);
  CpuSet out;
  if (!p) return out;
  if (p->core < 0) {
    out.add(os_cpu);
    return out;
  }
  for (const PuPlace& q : state_->pus)
    if (q.core == p->core) out.add(q.os_cpu);
  return out;
}

Level Topology::shared_level(int cpu_a, int cpu_b) const {
  const PuPlace* a = pu(cpu_a);
  const PuPlace* b = pu(cpu_b);
  if (!a || !b) return Level::machine;
  if (a->os_cpu == b->os_cpu) return Level::pu;
  auto same = [](int x, int y) { return x >= 0 && x == y; };
  if (same(a->core, b->core)) return Level::core;
  if (same(a->l1, b->l1)) return Level::l1;
  if (same(a->l2, b->l2)) return Level::l2;
  if (same(a->l3, b->l3)) return Level::l3;
  if (same(a->die, b->die)) return Level::die;
  if (same(a->package, b->package)) return Level::package;
  return Level::machine;
}

bool Topology::same_numa(int cpu_a, int cpu_b) const {
  const PuPlace* a = pu(cpu_a);
  const PuPlace* b = pu(cpu_b);
  if (!a || !b || a->numa < 0 || b->numa < 0) return true;
  return a->numa == b->numa;
}

const char* level_name(Level level) {
  switch (level) {
    case Level::pu:
      return "pu";
    case Level::core:
      return "core";
    case Level::l1:
      return "l1";
    case Level::l2:
      return "l2";
    case Level::l3:
      return "l3";
    case Level::die:
      return "die";
    case Level::package:
      return "package";
    case Level::numa:
      return "numa";
    case Level::machine:
      return "machine";
  }
  return "machine";
}

}  // namespace threadmap
