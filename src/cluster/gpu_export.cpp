// `plan --ranks N [--gpus] --export slurm|rankfile|wrapper` with each rank's GPUs: Slurm's
// --gpu-bind beside --cpu-bind/--mem-bind, a rankfile with the GPUs as comments, and a shell
// wrapper that sets one rank's GPU, CPUs, memory and NIC by its local rank for launchers that
// take no binding (torchrun --no-python, a plain mpirun).
#include <algorithm>

#include "src/cluster/rank_export.hpp"
#include "src/core/text.hpp"

namespace threadmap::cluster {
namespace {

std::string nodes_text(const std::vector<int>& nodes) {
  std::vector<std::string> items;
  for (int n : nodes) items.push_back(std::to_string(n));
  return joined(items, ",");
}

std::vector<int> gpu_indexes(const GpuPlacement& g) {
  std::vector<int> out;
  for (const Device& d : g.gpus) out.push_back(d.index);
  return out;
}

std::string nic_line(const GpuPlacement& g) {
  if (!g.nic) return "no NIC named (" + g.nic_how + ")";
  std::vector<std::string> names = g.nic->rdma;
  names.insert(names.end(), g.nic->netdevs.begin(), g.nic->netdevs.end());
  return "NIC " + joined(names, "/") + " (" + g.nic_how + ")";
}

// Single quotes for the shell: every character literal.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurm_with_gpus(const std::vector<RankShare>& shares,
                            const std::vector<GpuPlacement>& gpus) {
  std::vector<std::string> cpu_masks, gpu_items, mem_items;
  bool one_gpu_each = true, one_node_each = true;
  int total = 0;
  for (const GpuPlacement& g : gpus) {
    one_gpu_each = one_gpu_each && g.gpus.size() == 1;
    total += static_cast<int>(g.gpus.size());
  }
  for (size_t k = 0; k < shares.size(); ++k) {
    cpu_masks.push_back(plain_hex_mask(shares[k].cpus.to_vector()));
    std::vector<int> idx = gpu_indexes(gpus[k]);
    gpu_items.push_back(one_gpu_each ? std::to_string(idx.front()) : plain_hex_mask(idx));
    one_node_each = one_node_each && shares[k].memory_nodes.size() == 1;
  }
  for (const RankShare& s : shares)
    mem_items.push_back(one_node_each ? nodes_text(s.memory_nodes)
                                      : plain_hex_mask(s.memory_nodes));
  std::string out = "# " + std::to_string(shares.size()) +
                    " ranks per node, each next to its GPU(s): GPU indexes as the vendor's runtime "
                    "numbers them (Slurm's GRES order with AutoDetect=nvml or rsmi), CPUs and "
                    "memory nodes OS numbers\n";
  out += "srun --ntasks-per-node=" + std::to_string(shares.size()) +
         " --gres=gpu:" + std::to_string(total) +
         " --gpu-bind=" + (one_gpu_each ? "map_gpu:" : "mask_gpu:") + joined(gpu_items, ",") +
         " --cpu-bind=mask_cpu:" + joined(cpu_masks, ",");
  const bool nodes_known = std::none_of(shares.begin(), shares.end(),
                                        [](const RankShare& s) { return s.memory_nodes.empty(); });
  if (nodes_known)
    out += std::string(" --mem-bind=") + (one_node_each ? "map_mem:" : "mask_mem:") +
           joined(mem_items, ",");
  // One NIC for every rank fits on the line; different NICs per rank need the wrapper.
  bool same_nic = true;
  for (const GpuPlacement& g : gpus)
    same_nic = same_nic && g.set_env.size() == gpus.front().set_env.size() &&
               (!g.nic) == (!gpus.front().nic) &&
               (!g.nic || g.nic->bus_id == gpus.front().nic->bus_id);
  std::vector<std::string> nic_vars;
  if (same_nic)
    for (const auto& [name, value] : gpus.front().set_env)
      if (name.rfind("CUDA_", 0) != 0 && name.rfind("ROCR_", 0) != 0 && name.rfind("ZE_", 0) != 0)
        nic_vars.push_back(name + "=" + value);
  if (!nic_vars.empty()) out += " --export=ALL," + joined(nic_vars, ",");
  out += " CMD\n";
  for (size_t k = 0; k < gpus.size(); ++k)
    out += "# rank " + std::to_string(k) + ": " + nic_line(gpus[k]) + "\n";
  if (!same_nic) out += "# the ranks' NICs differ: --export wrapper sets each rank's\n";
  return out;
}

std::string rankfile_with_gpus(const std::vector<RankShare>& shares,
                               const std::vector<GpuPlacement>& gpus, const std::string& host) {
  std::string out = export_ranks(shares, RankExport::rankfile, host);
  out +=
      "# GPUs (a rankfile cannot bind them: CUDA_VISIBLE_DEVICES per rank, or --export "
      "wrapper):\n";
  for (size_t k = 0; k < gpus.size(); ++k) {
    std::vector<std::string> names;
    for (const Device& d : gpus[k].gpus)
      names.push_back("GPU " + std::to_string(d.index) + " (" + d.bus_id + ")");
    out += "#   rank " + std::to_string(k) + ": " + joined(names, ", ") + ", " + nic_line(gpus[k]) +
           "\n";
  }
  return out;
}

std::string wrapper(const std::vector<RankShare>& shares, const std::vector<GpuPlacement>& gpus) {
  const std::string n = std::to_string(shares.size());
  std::string out =
      "#!/bin/sh\n"
      "# threadmap plan --ranks " +
      n + (gpus.empty() ? "" : " --gpus") +
      " --export wrapper: puts one rank on its share (and next to its GPU), chosen by its\n"
      "# local rank, then runs the program. For launchers that bind nothing:\n"
      "#   torchrun --no-python --nproc-per-node " +
      n +
      " ./wrapper.sh PROGRAM ARGS\n"
      "#   mpirun -np " +
      n +
      " --bind-to none ./wrapper.sh PROGRAM ARGS\n"
      "r=${LOCAL_RANK:-${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-${MPI_LOCALRANKID:-}}}}\n"
      "[ -n \"$r\" ] || { echo \"wrapper: no local rank (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, "
      "SLURM_LOCALID, MPI_LOCALRANKID)\" >&2; exit 2; }\n"
      "case $r in\n";
  for (size_t k = 0; k < shares.size(); ++k) {
    out += "  " + std::to_string(k) + ") cpus=" + shares[k].cpus.to_list() +
           " mem=" + nodes_text(shares[k].memory_nodes);
    if (k < gpus.size()) {
      std::vector<std::string> vars, devices;
      for (const auto& [name, value] : gpus[k].set_env) {
        const bool visible = name == "CUDA_VISIBLE_DEVICES" || name == "ROCR_VISIBLE_DEVICES" ||
                             name == "ZE_AFFINITY_MASK";
        (visible ? devices : vars).push_back(name + "=" + quoted(value));
      }
      if (!vars.empty()) out += "\n     export " + joined(vars, " ");
      // torchrun's programs pick their GPU by LOCAL_RANK: narrowing would hide it (docs/gpu.md).
      if (!devices.empty())
        out += "\n     [ -n \"${LOCAL_RANK:-}\" ] || export " + joined(devices, " ");
    }
    out += " ;;\n";
  }
  out += "  *) echo \"wrapper: local rank $r: this plan has " + n +
         " ranks\" >&2; exit 2 ;;\n"
         "esac\n"
         "if command -v numactl >/dev/null 2>&1; then\n"
         "  [ -n \"$mem\" ] && exec numactl --physcpubind=\"$cpus\" --membind=\"$mem\" \"$@\"\n"
         "  exec numactl --physcpubind=\"$cpus\" \"$@\"\n"
         "fi\n"
         "echo \"wrapper: numactl not found: CPUs only (taskset), memory not bound\" >&2\n"
         "exec taskset -c \"$cpus\" \"$@\"\n";
  return out;
}

}  // namespace

std::string export_ranks(const std::vector<RankShare>& shares,
                         const std::vector<GpuPlacement>& gpus, RankExport format,
                         const std::string& host) {
  if (format == RankExport::wrapper) return wrapper(shares, gpus);
  if (gpus.empty() || gpus.size() != shares.size()) return export_ranks(shares, format, host);
  if (format == RankExport::slurm) return slurm_with_gpus(shares, gpus);
  return rankfile_with_gpus(shares, gpus, host);
}

}  // namespace threadmap::cluster
