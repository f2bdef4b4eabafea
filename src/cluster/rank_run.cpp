#include "src/cluster/rank_run.hpp"

#include "src/core/devices.hpp"
#include "src/core/text.hpp"
#include "src/os/gpu_device_files.hpp"
#include "src/os/host.hpp"
#include "src/os/process.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::cluster {
namespace {

// The NIC's name as the libraries take it: its RDMA device, else its netdev, else its bus id.
std::string record_nic_name(const Device& nic) {
  if (!nic.rdma.empty()) return nic.rdma.front();
  return nic.netdevs.empty() ? nic.bus_id : nic.netdevs.front();
}

RecordGpu record_gpu(const Device& d) {
  return {d.bus_id, d.index, d.model, d.uuid, d.numa_node, d.cpus};
}

// The rank's GPU placement on this machine's topology, or on a recording of it.
Result<GpuPlacement> place_gpu_rank(const Topology& here, const Environment& env,
                                    const RankIdentity& id, const RankOptions& options,
                                    std::vector<RecordGpu>& host_gpus) {
  std::optional<Topology> recorded;
  if (!options.topology_file.empty()) {
    auto loaded = Topology::load_xml(options.topology_file);
    if (!loaded) return loaded.error().about("topology_file");
    CpuSet missing = loaded->complete_cpus() - here.complete_cpus();
    if (!missing.empty())
      return Error::bad_input(
          "topology_file", "topology " + options.topology_file + " has CPUs " + missing.to_list() +
                               " that this machine lacks (CPUs " + here.complete_cpus().to_list() +
                               "): it is not a recording of this machine");
    recorded = std::move(*loaded);
  }
  const Topology& topo = recorded ? *recorded : here;
  // Devices from hwloc; UUIDs and MIG instances from the management library only when the
  // launcher named GPUs that way (opening NVML costs up to a second per rank).
  bool by_uuid = false;
  for (const char* var : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                          "NVIDIA_VISIBLE_DEVICES"}) {
    auto it = env.find(var);
    if (it != env.end() && it->second.find('-') != std::string::npos) by_uuid = true;
  }
  DeviceInventory inventory = device_inventory(topo, by_uuid);
  for (const Device* g : compute_gpus(inventory.devices)) host_gpus.push_back(record_gpu(*g));
  const CpuSet allowed = here.allowed_cpus() & topo.complete_cpus();
  GpuChoice choice;
  if (!options.gpu_visibility.empty()) {
    auto visibility = parse_gpu_visibility(options.gpu_visibility);
    if (!visibility) return visibility.error().as_bad_input("gpu_visibility");
    choice.visibility = *visibility;
  }
  // Which NVIDIA device files this step may open tells Slurm's device constraint. Asked only
  // under Slurm with a GPU list: opening a GPU's file can wake its driver state.
  if (env.count("SLURM_STEP_GPUS") || env.count("SLURM_JOB_GPUS")) {
    const os::NvidiaDeviceFiles files = os::probe_nvidia_device_files();
    choice.files = {files.present, files.openable};
  }
  auto placed = place_with_gpus(topo, inventory.devices, env, id, options.gpus, allowed,
                                here.cgroup_cpus(), choice);
  // Whose fault a refusal is was decided where it was found (GPUs that cannot be placed as
  // given, a launcher's list naming none: Fault::input; the machine's: the work's).
  if (!placed) return placed.error().about("gpus");
  return placed;
}

}  // namespace

Result<RankPlacement> place_rank(apply::RunRequest& request, const RankOptions& options) {
  // The request came from apply::run_request, which refused a CPU list with a rank and a
  // recorded topology without GPUs: those rules are not checked again here.
  const std::string& ranks = options.ranks;
  Environment env;
  for (auto& kv : os::environment_variables()) env.insert(std::move(kv));
  // The rank given (or the launcher's word for it) that cannot be placed is the command line's
  // mistake: `auto` outside a launcher, K not below N, more ranks than the node has CPUs.
  auto id = resolve_ranks(ranks, env);
  if (!id) return id.error().as_bad_input("ranks");
  auto topo = Topology::load_this_machine();
  if (!topo) return topo.error();
  std::optional<GpuPlacement> gpu;
  std::vector<RecordGpu> host_gpus;
  Result<RankShare> share = Error::invalid("");
  if (options.gpus > 0) {
    auto placed = place_gpu_rank(*topo, env, *id, options, host_gpus);
    if (!placed) return placed.error();
    gpu = *placed;
    share = placed->share;
    for (const auto& kv : placed->set_env) request.environment.push_back(kv);
  } else {
    share = take_share(*topo, *id);
    if (!share) return share.error().as_bad_input("ranks");
  }
  RankPlacement placement;
  placement.gpu = std::move(gpu);
  placement.host_gpus = std::move(host_gpus);
  placement.host = os::host_name();
  placement.id = *id;
  placement.share = *share;
  placement.allowed = topo->allowed_cpus();
  for (const CpuSet& core : topo->groups(Level::core))
    if (!(core & placement.allowed).empty()) placement.cores.push_back(core & placement.allowed);
  for (const NumaNode& n : topo->numa_nodes()) placement.numa_nodes.push_back({n.os_index, n.cpus});
  // Confine ourselves to the share before the program starts, so that it inherits the share
  // from its first instruction: loading a big MPI library takes a few hundred ms on a small
  // machine, all before the pin library's constructor runs, and would otherwise be spent on
  // other ranks' CPUs. The watch thread, started later, stays inside the share too.
  if (auto st = pin_current_thread(share->cpus); !st)
    return st.error().with_context("cannot confine the rank to its share " + share->cpus.to_list());
  if (request.plan_path.empty())
    request.cpus = share->cpus.to_list();
  else
    request.within = share->cpus;
  if (request.memory.empty() && !share->memory_nodes.empty()) {
    request.memory = "bind:" + node_list(share->memory_nodes);
    placement.memory_from_share = true;
  }
  return placement;
}

RankRecord make_record(const RankPlacement& p, int exit_status) {
  RankRecord r;
  r.host = p.host;
  r.rank = p.id.local_rank;
  r.ranks = p.id.local_size;
  r.global_rank = p.id.global_rank;
  r.launcher = p.id.launcher;
  r.share_source = p.share.source;
  r.share = p.share.cpus;
  r.memory_nodes = p.share.memory_nodes;
  r.allowed = p.allowed;
  r.cores = p.cores;
  r.numa_nodes = p.numa_nodes;
  r.exit_status = exit_status;
  if (p.gpu) {
    for (const Device& d : p.gpu->gpus) r.gpus.push_back(record_gpu(d));
    r.host_gpus = p.host_gpus;
    r.gpus_how = p.gpu->gpus_how;
    if (p.gpu->nic) r.nic = record_nic_name(*p.gpu->nic);
  }
  return r;
}

std::string describe_placement(const RankPlacement& p) {
  std::string who = p.id.launcher;
  if (p.id.global_rank >= 0) who += ", global rank " + std::to_string(p.id.global_rank);
  std::string memory = p.share.memory_nodes.empty()
                           ? "memory nodes unknown"
                           : "memory nodes " + node_list(p.share.memory_nodes) +
                                 (p.memory_from_share ? " (bound)" : " (--mem given instead)");
  std::string line = "host " + (p.host.empty() ? std::string("?") : p.host) + " rank " +
                     std::to_string(p.id.local_rank) + "/" + std::to_string(p.id.local_size) +
                     " (" + who + "): CPUs " + p.share.cpus.to_list() + " [" + p.share.how + "], " +
                     memory;
  if (!p.gpu) return line;
  for (const Device& g : p.gpu->gpus)
    line += ", GPU " + std::to_string(g.index) + " (" + g.bus_id +
            (g.model.empty() ? std::string("") : " " + g.model) + ")";
  line += " [" + p.gpu->gpus_how + "]";
  if (p.gpu->nic)
    line += ", NIC " + record_nic_name(*p.gpu->nic) + " [" + p.gpu->nic_how + "]";
  else
    line += ", no NIC named [" + p.gpu->nic_how + "]";
  for (const auto& [name, value] : p.gpu->set_env) line += ", " + name + "=" + value;
  return line;
}

}  // namespace threadmap::cluster
