// A rank's NIC: the fastest NIC near its GPU, or none. Among the NICs near the GPU (behind the
// same PCIe switch, on the same root complex, on its NUMA node, or local to CPUs that meet its
// own) the choice goes by what carries the traffic -- an RDMA transport (InfiniBand, RoCE,
// Slingshot, EFA) before plain Ethernet, a known faster link before a slower one -- and only
// then by nearness; a management port (1 GbE) is never named. The variables written are those
// of the library layer that drives that transport (docs/gpu.md, "The NIC").
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/cluster/launcher_env.hpp"
#include "src/core/devices.hpp"
#include "src/core/nic_facts.hpp"

namespace threadmap::cluster {

/// The chosen NIC, or none, and why.
struct NicChoice {
  const Device* nic = nullptr;  ///< null: no fast NIC near the GPU
  NicFacts facts;               ///< the chosen NIC's
  std::string why;  ///< "InfiniBand (verbs device mlx5_0 ...), on the GPU's NUMA node 1"
  /// Every other NIC of the same verbs transport on the node, for NCCL_IB_HCA's list after this
  /// rank's own (names of their first RDMA device, bus order).
  std::vector<std::string> other_rails;
};

/// Chooses the NIC for a rank driving `gpu` (rules above). `facts` is nic_facts's map; a NIC
/// missing from it counts as Ethernet of unknown speed.
NicChoice choose_nic(const std::vector<Device>& devices,
                     const std::map<std::string, NicFacts>& facts, const Device& gpu);

/// The variables for the chosen NIC's transport, those `env` does not set already (a note in
/// `kept` for each one it does):
/// - InfiniBand/RoCE (verbs): UCX_NET_DEVICES=DEV:1 and NCCL_IB_HCA==DEV,OTHERS... (this rank's
///   rail first, the node's other HCAs after it, exact names);
/// - Slingshot: FI_PROVIDER=cxi; EFA: FI_PROVIDER=efa (libfabric drives both);
/// - Ethernet: UCX_NET_DEVICES=NETDEV and NCCL_SOCKET_IFNAME==NETDEV.
/// None when no NIC was chosen.
std::vector<std::pair<std::string, std::string>> nic_env(const NicChoice& choice,
                                                         const Environment& env,
                                                         std::vector<std::string>* kept);

}  // namespace threadmap::cluster
