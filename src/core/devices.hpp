// The devices a process may serve -- GPUs, network adapters, NVMe drives -- and where each sits:
// its PCI bus id, NUMA node and local CPUs. They come from hwloc's I/O objects (so a recorded
// hwloc XML with I/O works off-box as well as this machine does); on this machine the PCI facts
// the kernel lists in sysfs are read too and every disagreement with hwloc is said, and the
// vendors' management libraries (NVML, ROCm SMI, opened at run time only) add the index,
// UUID and MIG instances their tools print. See docs/gpu.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap {

enum class DeviceKind { gpu, nic, nvme };

/// "gpu", "nic", "nvme".
const char* device_kind_name(DeviceKind kind);

/// One MIG instance of a GPU (from NVML at run time).
struct GpuInstance {
  int index = -1;
  std::string uuid;  ///< "MIG-..."
};

struct Device {
  DeviceKind kind = DeviceKind::gpu;
  std::string bus_id;  ///< "0000:34:00.0" (lower case, 4-digit domain when it fits)
  unsigned class_id = 0;
  unsigned vendor_id = 0;
  unsigned device_id = 0;
  std::string vendor;  ///< "NVIDIA Corporation"; from hwloc's infos or the vendor id
  std::string model;   ///< "Tesla V100-SXM3-32GB-H"; "" when nothing names it
  /// OS NUMA node the device is local to; -1 ("none") when its local CPUs span several nodes
  /// (the firmware gave no node: sysfs numa_node -1) or the machine has no NUMA nodes.
  int numa_node = -1;
  CpuSet cpus;                        ///< CPUs local to the device (hwloc's first non-I/O ancestor)
  std::vector<std::string> netdevs;   ///< NICs: "eth0", "ib0"
  std::vector<std::string> rdma;      ///< NICs: "mlx5_0"
  std::vector<std::string> block;     ///< NVMe: "nvme0n1"
  std::vector<std::string> os_names;  ///< every OS device name hwloc gives it ("cuda0", "card1")
  /// GPUs: the index the vendor's runtime gives it, which `gpu:N`, `--gpus` and every
  /// visible-devices variable mean: NVIDIA, PCI bus order (nvidia-smi's, CUDA's with
  /// CUDA_DEVICE_ORDER=PCI_BUS_ID); AMD, ROCm's enumeration order (runtime_order says from
  /// where; bus order when nothing says); Intel, Level Zero's root devices in bus order
  /// (ZE_ENABLE_PCI_ID_DEVICE_ORDER=1), counted per card. -1 for other devices.
  int index = -1;
  /// GPUs: position in PCI bus order among the GPUs (partitions: their GPU's) of its vendor.
  int bus_index = -1;
  /// GPUs: where `index` comes from ("PCI bus order", "ROCm SMI names (rsmiN) recorded in the
  /// topology", "KFD topology", ...); "" when nothing says (AMD: index is then bus order).
  std::string runtime_order;
  /// Partitions (AMD MI300X CPX..., NVIDIA MIG instances): the partition's number on its GPU,
  /// each partition a device of its own with its own index; -1 for a whole GPU.
  int partition = -1;
  std::string gpu_uuid;  ///< partitions: the whole GPU's UUID ("" when unknown or not a partition)
  /// The GPU shares its package and memory with CPUs (MI300A): its CPUs and memory are its APU's.
  bool apu = false;
  /// Intel: Level Zero sub-devices (tiles) hwloc recorded (zeN.M); 0 when none were recorded.
  int tiles = 0;
  /// Intel: its first tile's index among Level Zero's root devices under the FLAT hierarchy (every
  /// tile of every card, in bus order; a card with no recorded tiles counts as one).
  int flat_index = -1;
  std::string uuid;              ///< GPUs: "GPU-..." from hwloc's infos or the management library
  std::vector<GpuInstance> mig;  ///< GPUs: MIG instances (management library only)
  int management_index = -1;     ///< GPUs: the management library's index, -1 when not asked
  /// The PCI bridges above the device, host bridge first (hwloc's global indexes): two devices
  /// sharing a prefix share a root complex or a PCIe switch.
  std::vector<unsigned long long> pci_path;
};

/// Everything known about a machine's devices.
struct DeviceInventory {
  std::vector<Device> devices;  ///< GPUs (bus order), then NICs, then NVMe drives, each by bus id
  /// Where the facts come from ("hwloc I/O objects of FILE", "... + sysfs + NVML").
  std::string sources;
  /// Disagreements and gaps, one sentence each ("0000:43:00.0: sysfs numa_node says 2, its
  /// local CPUs (0-39) span every node: hwloc places it on none").
  std::vector<std::string> notes;
};

/// The GPUs, NICs and NVMe drives of hwloc's I/O objects in `topo` (the loader keeps the
/// important I/O objects). GPUs are PCI display/3D devices (class 0x03) of NVIDIA, AMD or Intel,
/// and AMD's processing accelerators (class 0x12: Instinct MI300X/MI300A/MI350).
std::vector<Device> devices_from_hwloc(const Topology& topo);

/// devices_from_hwloc, and on this machine (topo.is_this_machine()) sysfs compared with it
/// (compare_with_sysfs) and, when `management` is true, NVML and ROCm SMI merged in (which may
/// take a second on a machine with GPUs: only callers that show or need UUIDs ask).
DeviceInventory device_inventory(const Topology& topo, bool management);

/// Sentences for every place where sysfs's PCI facts and hwloc's devices disagree: a device one
/// side lists and the other does not, a different NUMA node, different local CPUs. `nodes` is
/// the machine's NUMA node count (a firmware "-1" on a one-node machine is no disagreement).
struct PciFactsView {
  std::string bus_id;
  unsigned class_id = 0;
  unsigned vendor_id = 0;
  int numa_node = -1;
  std::string local_cpus;
};
std::vector<std::string> compare_with_sysfs(const std::vector<Device>& devices,
                                            const std::vector<PciFactsView>& sysfs, int nodes);

/// What a management library said, in core's terms (see os::ManagedGpu).
struct ManagedGpuView {
  std::string bus_id;
  int index = -1;
  std::string uuid;
  std::string name;
  std::vector<GpuInstance> mig;
};
/// Fills uuid, model (when empty), mig and management_index of the GPUs with that bus id; a
/// GPU the library lists that hwloc does not, or an index that differs from the bus order,
/// adds a note.
void merge_management(std::vector<Device>& devices, const std::vector<ManagedGpuView>& gpus,
                      const std::string& library, std::vector<std::string>& notes);

/// Whether a PCI device is a GPU / NIC / NVMe drive, by class and vendor (the rule above).
bool is_gpu_class(unsigned class_id, unsigned vendor_id);
bool is_nic_class(unsigned class_id);
bool is_nvme_class(unsigned class_id);

/// The GPUs `gpu:N` and `--gpus` count: those of the first vendor present among NVIDIA, AMD,
/// Intel (a workstation's integrated Intel GPU does not shift the NVIDIA GPUs' numbers), in the
/// runtime's order, so that element i has index i.
std::vector<const Device*> compute_gpus(const std::vector<Device>& devices);

/// The device a CPU-expression term names: "gpu:N" (index in compute_gpus), "gpu:UUID"
/// ("GPU-..." whole or a unique prefix, or a "MIG-..." instance: its GPU), "nic:NAME" (netdev or
/// RDMA name), "pci:BUSID" ("0000:34:00.0" or "34:00.0"; any GPU, NIC or NVMe drive). EINVAL
/// naming the term and what exists when there is no such device.
Result<const Device*> find_device(const std::vector<Device>& devices, std::string_view term);

/// The CPUs local to the device `term` names on `topo` (find_device over devices_from_hwloc; a
/// UUID not recorded there is looked up through the management libraries on this machine).
Result<CpuSet> device_cpus(const Topology& topo, std::string_view term);

/// Whether `term` is a device term (gpu:, nic:, pci:, any case).
bool is_device_term(std::string_view term);

/// The NIC nearest to `gpu` that has a netdev or RDMA name: the one sharing the longest run of
/// PCI bridges (a PCIe switch, then a root complex), then the same NUMA node, then local CPUs
/// that meet; ties go to the lowest bus id. `why` says which rule chose it. Null when no named
/// NIC is near by any of these (a NIC on another node is not named: it would only narrow what
/// the communication libraries may use).
const Device* nearest_nic(const std::vector<Device>& devices, const Device& gpu, std::string* why);

/// Numbers the GPUs of `devices` (already in bus order): bus_index, and index with
/// runtime_order as each vendor's runtime counts them (see Device::index). AMD's order comes from
/// ROCm's names hwloc recorded (rsmiN, then OpenCL's openclPdN) when they name every AMD GPU once.
void number_gpus(std::vector<Device>& devices);

/// Each MIG instance of an NVIDIA GPU (Device::mig, from NVML) becomes a device of its own, a
/// partition with its MIG UUID (CUDA takes only that for an instance), so a rank can be given one;
/// the GPUs are renumbered (number_gpus): an instance's index counts instances, and it is written
/// by UUID, never by index.
void split_mig_instances(std::vector<Device>& devices);

/// Whether a GPU shares its package and memory with CPUs (AMD Instinct MI300A, by device id).
bool is_apu(unsigned vendor_id, unsigned device_id);

/// Splits an AMD GPU that `nodes` (bus id, ROCm UUID or "", one entry per KFD GPU node) lists
/// several times at its PCI address into partitions (an MI300X in CPX mode), each a device with
/// that entry's UUID, and renumbers the GPUs (number_gpus). A GPU already split, or listed once,
/// is left as it is.
void split_amd_partitions(std::vector<Device>& devices,
                          const std::vector<std::pair<std::string, std::string>>& nodes);

/// Sets index/runtime_order of the AMD GPUs from ROCm's own numbering of them (bus id ->
/// ROCm index, e.g. from the KFD topology or ROCm SMI), when it names every AMD GPU once; a GPU
/// it numbers differently from the recorded order adds a note. Returns whether it was used.
bool apply_rocm_order(std::vector<Device>& devices,
                      const std::vector<std::pair<std::string, int>>& order,
                      const std::string& source, std::vector<std::string>& notes);

/// "GPU-" + 16 hex digits, zero-padded, as ROCm writes a unique id ("GPU-04c04714172e6268"),
/// from hwloc's bare hex text ("4c04714172e6268"); "" when the text is not hex of 1-16 digits.
std::string rocm_uuid(std::string_view hex);

/// "0000:34:00.0" from "34:00.0", "0000:34:00.0", "00000000:34:00.0" (any case); "" when the
/// text is not a PCI bus id.
std::string canonical_bus_id(std::string_view text);

}  // namespace threadmap
