#include "src/experiments/gpu_locality.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/core/devices.hpp"
#include "src/experiments/bench_runner.hpp"
#include "src/experiments/run_interleaved.hpp"
#include "src/os/memory.hpp"
#include "src/os/node_memory.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::experiments {
namespace {

constexpr const char* kTitle =
    "host<->GPU copy bandwidth from pinned memory on each NUMA node (cuMemcpy, page-locked)";

// Host buffers, one per node, page-locked for the GPU; released in reverse.
struct HostBuffer {
  int node = -1;
  void* memory = nullptr;
  std::string unavailable;  ///< why this node has no buffer
};

struct Buffers {
  os::CudaCopier* copier = nullptr;
  std::size_t bytes = 0;
  std::vector<HostBuffer> list;
  ~Buffers() {
    for (HostBuffer& b : list)
      if (b.memory) {
        copier->unregister_host(b.memory);
        os::unmap(b.memory, bytes);
      }
  }
};

// The GPU to measure: the driver's GPU with the lowest bus id, and the topology's device for it.
const os::CudaGpu* first_in_bus_order(const std::vector<os::CudaGpu>& gpus) {
  const os::CudaGpu* best = nullptr;
  for (const os::CudaGpu& g : gpus)
    if (!best || g.bus_id < best->bus_id) best = &g;
  return best;
}

std::vector<int> memory_nodes(const Topology& topo) {
  std::vector<int> out;
  for (const NumaNode& n : topo.numa_nodes()) out.push_back(n.os_index);
  if (out.empty()) out.push_back(0);  // no NUMA: the machine's memory is node 0
  return out;
}

Variant copy_variant(bool to_device, int node, int local_node, const CpuSet& cpus) {
  Variant v;
  const std::string dir = to_device ? "h2d" : "d2h";
  v.name = fmt::format("{}-node{}", dir, node);
  v.label = fmt::format("{} from node {}{}", to_device ? "host->GPU" : "GPU->host", node,
                        node == local_node ? " (the GPU's)" : "");
  v.placement = fmt::format("host memory bound to node {} (mbind), copying thread on CPUs {}", node,
                            cpus.to_list());
  v.threads.push_back({"copier", cpus});
  v.baseline = node == local_node ? "" : fmt::format("{}-node{}", dir, local_node);
  return v;
}

// One host buffer per NUMA node, registered with the driver; the variants of a node whose
// memory could not be had say why and are not run.
void add_host_buffers(Buffers& buffers, const std::vector<int>& nodes, BenchResult& r) {
  for (int node : nodes) {
    HostBuffer b;
    b.node = node;
    auto memory = os::map_on_node(buffers.bytes, node);
    if (!memory) {
      b.unavailable = memory.error().message;
    } else if (auto st = buffers.copier->register_host(*memory, buffers.bytes); !st) {
      os::unmap(*memory, buffers.bytes);
      b.unavailable = st.error().message;
    } else {
      b.memory = *memory;
    }
    buffers.list.push_back(b);
  }
  for (std::size_t i = 0; i < r.variants.size(); ++i) {
    const HostBuffer& b = buffers.list[i % nodes.size()];
    if (!b.memory) {
      r.variants[i].available = false;
      r.variants[i].unavailable_reason = b.unavailable;
    }
  }
}

}  // namespace

Result<BenchResult> run_gpu_locality(const Topology& topo, const GpuLocalityOptions& options) {
  Result<CpuSet> usable = usable_cpus(topo);
  if (!usable) return usable.error();
  auto driver = options.open_driver ? options.open_driver() : os::CudaDriver::open();
  if (!driver)
    return unavailable_bench("gpu-locality", kTitle, "not supported: " + driver.error().message);
  std::vector<os::CudaGpu> gpus = (*driver)->gpus();
  const os::CudaGpu* gpu = first_in_bus_order(gpus);
  if (!gpu)
    return unavailable_bench("gpu-locality", kTitle, "not supported: the CUDA driver lists no GPU");
  // Where the GPU sits, from the topology's devices (hwloc), by bus id.
  std::vector<Device> devices = devices_from_hwloc(topo);
  const Device* placed = nullptr;
  for (const Device& d : devices)
    if (d.kind == DeviceKind::gpu && d.bus_id == gpu->bus_id) placed = &d;
  const std::vector<int> nodes = memory_nodes(topo);
  const int local_node = placed && placed->numa_node >= 0 ? placed->numa_node : nodes.front();
  CpuSet cpus = placed ? (placed->cpus & *usable) : *usable;
  if (cpus.empty()) cpus = *usable;
  const std::size_t bytes = options.bytes ? options.bytes : (options.quick ? 64u : 256u) << 20;

  BenchResult r = new_bench(
      {"gpu-locality", kTitle, "GB/s", true,
       fmt::format("{} MiB copied by one cuMemcpyHtoD/DtoH from cuMemHostRegister'ed memory, "
                   "wall time to cuCtxSynchronize",
                   bytes >> 20),
       "host memory on the GPU's own node is faster than remote memory (NVIDIA's gpu_affinity, "
       "TensorRT-LLM's NUMA binding)"},
      *usable);
  r.notes.push_back(fmt::format("GPU {} ({}, CUDA ordinal {}), {}", placed ? placed->index : 0,
                                gpu->bus_id, gpu->ordinal, gpu->name));
  if (!placed || placed->numa_node < 0)
    r.notes.push_back(
        fmt::format("the topology gives the GPU no NUMA node of its own: node {} "
                    "is the baseline",
                    local_node));
  if (nodes.size() < 2)
    r.notes.push_back("one NUMA node: nothing to compare, the bandwidth is reported as measured");

  auto copier = (*driver)->copier(gpu->ordinal, bytes);
  if (!copier) return copier.error();
  Buffers buffers;
  buffers.copier = copier->get();
  buffers.bytes = bytes;
  for (bool to_device : {true, false})
    for (int node : nodes) r.variants.push_back(copy_variant(to_device, node, local_node, cpus));
  add_host_buffers(buffers, nodes, r);
  // The copying thread stays on the GPU's CPUs for every variant; restored afterwards.
  auto before = allowed_cpus();
  if (auto st = pin_current_thread(cpus); !st) return st.error();
  Status status = run_interleaved(r, options, [&](std::size_t index, bool) -> Result<double> {
    const HostBuffer& b = buffers.list[index % nodes.size()];
    const bool to_device = index < nodes.size();
    auto seconds =
        to_device ? (*copier)->to_device(b.memory, bytes) : (*copier)->to_host(b.memory, bytes);
    if (!seconds) return seconds.error();
    return static_cast<double>(bytes) / std::max(*seconds, 1e-9) / 1e9;
  });
  if (before) (void)pin_current_thread(*before);
  if (!status) return status.error();
  return r;
}

}  // namespace threadmap::experiments
