// Loading a Topology from hwloc: this machine, another process's view of it, or an XML file.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include "src/core/topology_state.hpp"
#include "src/os/files.hpp"
#include "src/os/kernel_affinity.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap {
namespace {

Error hwloc_error(const std::string& what) {
  int e = errno ? errno : EINVAL;
  return Error::from_errno(e, what + ": " + std::strerror(e));
}

Result<std::shared_ptr<Topology::State>> start(const std::string& source) {
  auto state = std::make_shared<Topology::State>();
  state->source = source;
  if (hwloc_topology_init(&state->topo) != 0) return hwloc_error("cannot initialise hwloc");
  // GPUs, NICs and NVMe drives (hwloc's "important" PCI and OS devices): devices_from_hwloc
  // reads them, and a recorded XML keeps the ones it has. Bridges without them are dropped.
  hwloc_topology_set_io_types_filter(state->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  // hwloc's Linux backend reads the PCI devices from sysfs itself; its plugins would instead
  // load libpciaccess (which leaks at every load), start the GPU runtimes (CUDA, NVML, ROCm,
  // Level Zero, OpenCL: seconds and threads inside this process) or connect to X displays (gl).
  // threadmap opens the GPU libraries itself, only where asked (device_inventory). A component
  // this hwloc lacks is refused with EINVAL: nothing to blacklist then.
  for (const char* plugin : {"pci", "opencl", "cuda", "nvml", "rsmi", "levelzero", "gl"})
    (void)hwloc_topology_set_components(state->topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
                                        plugin);
  return state;
}

Status finish(Topology::State& state, const std::string& what) {
  if (hwloc_topology_load(state.topo) != 0) return hwloc_error("cannot load " + what);
  detail::build_model(state);
  return {};
}

}  // namespace

Topology::Topology(std::shared_ptr<const State> state) : state_(std::move(state)) {}

Result<Topology> Topology::load_this_machine() {
  auto started = start("this machine");
  if (!started) return started.error();
  auto state = *started;
  state->this_machine = true;
  // Keep CPUs the cgroup forbids in the tree (shown as not allowed) instead of hiding them.
  hwloc_topology_set_flags(
      state->topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
  if (auto st = finish(*state, "this machine's topology"); !st) return st.error();
  // hwloc's allowed set follows the cgroup only; taskset-style affinity restricts further.
  CpuSet allowed;
  hwloc_bitmap_copy(static_cast<hwloc_bitmap_t>(allowed.native_handle()),
                    hwloc_topology_get_allowed_cpuset(state->topo));
  const CpuSet& affinity = detail::startup_affinity();
  state->cgroup_allowed = allowed;
  state->allowed = affinity.empty() ? allowed : (allowed & affinity);
  return Topology(state);
}

Result<Topology> Topology::load_for_process(pid_t pid) {
  if (!os::process_exists(pid))
    return Error::from_errno(ESRCH, "no process with pid " + std::to_string(pid));
  auto started = start("process " + std::to_string(pid));
  if (!started) return started.error();
  auto state = *started;
  state->this_machine = true;
  hwloc_topology_set_flags(
      state->topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
  // The target's cgroup decides what its threads may be given; their current affinity is what
  // a pin changes, so it does not restrict the allowed set.
  if (hwloc_topology_set_pid(state->topo, pid) != 0)
    return hwloc_error("cannot view the topology as process " + std::to_string(pid));
  if (auto st = finish(*state, "the topology of process " + std::to_string(pid)); !st)
    return st.error();
  hwloc_bitmap_copy(static_cast<hwloc_bitmap_t>(state->allowed.native_handle()),
                    hwloc_topology_get_allowed_cpuset(state->topo));
  state->cgroup_allowed = state->allowed;
  return Topology(state);
}

Result<Topology> Topology::load_xml(const std::string& path) {
  // Read whole (bounded, "-" = stdin, the kernel's reason when unreadable) and handed to hwloc
  // as a buffer. hwloc prints parser complaints itself; checking that the text looks like hwloc
  // XML first gives the common mistake (a wrong file) one clear line.
  const std::string shown = path == "-" ? std::string("stdin") : "'" + path + "'";
  auto text = os::read_file(path, os::kDefaultReadLimit, "topology");
  if (!text) return text.error();
  if (text->find("<topology") == std::string::npos)
    return Error::invalid(shown + " is not an hwloc XML topology (lstopo --of xml)");
  // hwloc says only "Invalid argument" for a file cut short (an interrupted copy, a head -c):
  // every topology it writes ends with </topology>.
  if (text->find("</topology>") == std::string::npos)
    return Error::invalid(shown +
                          " is cut short: no closing </topology> (a truncated or partial copy?)");
  if (text->size() >= static_cast<std::size_t>(INT32_MAX))
    return Error::from_errno(EFBIG, "topology " + shown + " is too large");
  auto started = start(path);
  if (!started) return started.error();
  auto state = *started;
  // The size hwloc takes counts the terminating NUL.
  if (hwloc_topology_set_xmlbuffer(state->topo, text->c_str(),
                                   static_cast<int>(text->size() + 1)) != 0)
    return hwloc_error("cannot read topology " + shown);
  if (auto st = finish(*state, "topology " + shown); !st) return st.error();
  hwloc_bitmap_copy(static_cast<hwloc_bitmap_t>(state->allowed.native_handle()),
                    hwloc_topology_get_allowed_cpuset(state->topo));
  return Topology(state);
}

}  // namespace threadmap
