#include "src/cluster/nic_choice.hpp"

#include <algorithm>
#include <tuple>

#include "src/cluster/rank_export.hpp"
#include "src/core/text.hpp"

namespace threadmap::cluster {
namespace {

// How near `nic` is to `gpu`: 3000+ same PCIe switch, 2000 same root complex, 1000 same NUMA
// node, 500/400 local CPUs that meet; 0 not near (another node: naming it would only narrow
// what the libraries may use).
int nearness(const Device& nic, const Device& gpu, std::string* reason) {
  size_t shared = 0;
  while (shared < nic.pci_path.size() && shared < gpu.pci_path.size() &&
         nic.pci_path[shared] == gpu.pci_path[shared])
    ++shared;
  if (shared >= 2) {
    *reason = "behind the same PCIe switch as the GPU";
    return 3000 + static_cast<int>(shared);
  }
  if (shared == 1) {
    *reason = "on the same PCIe root complex as the GPU";
    return 2000;
  }
  if (gpu.numa_node >= 0 && nic.numa_node == gpu.numa_node) {
    *reason = "on the GPU's NUMA node " + std::to_string(gpu.numa_node);
    return 1000;
  }
  if (nic.cpus == gpu.cpus && !nic.cpus.empty()) {
    *reason = "local to the same CPUs as the GPU";
    return 400;
  }
  if (!(nic.cpus & gpu.cpus).empty()) {
    *reason = "local to CPUs that meet the GPU's";
    return 500;
  }
  return 0;
}

bool is_verbs(NicTransport t) {
  return t == NicTransport::infiniband || t == NicTransport::roce || t == NicTransport::verbs;
}

NicFacts facts_of(const std::map<std::string, NicFacts>& facts, const Device& nic) {
  auto it = facts.find(nic.bus_id);
  if (it != facts.end()) return it->second;
  NicFacts f;
  f.evidence = "Ethernet; link speed unknown";
  return f;
}

std::string name_of(const Device& nic) {
  return !nic.rdma.empty() ? nic.rdma.front() : nic.netdevs.front();
}

}  // namespace

NicChoice choose_nic(const std::vector<Device>& devices,
                     const std::map<std::string, NicFacts>& facts, const Device& gpu) {
  NicChoice out;
  // Best first: RDMA, then a known speed (faster first), then nearness. NICs equal on all three
  // (two ports of one HCA, two HCAs on one switch) are dealt out by the GPU's index, so that the
  // GPUs sharing them use different rails, as NCCL pairs each GPU with its own; devices are in
  // bus order, so the deal is the same on every rank.
  std::tuple<int, long, int> best{-1, -1, -1};
  std::vector<const Device*> equal;
  std::vector<std::string> reasons;
  std::vector<std::string> slow;
  for (const Device& nic : devices) {
    if (nic.kind != DeviceKind::nic || (nic.netdevs.empty() && nic.rdma.empty())) continue;
    std::string reason;
    const int near = nearness(nic, gpu, &reason);
    if (near == 0) continue;
    NicFacts f = facts_of(facts, nic);
    if (f.management) {
      slow.push_back(name_of(nic) + " (" + f.management_why + ")");
      continue;
    }
    std::tuple<int, long, int> key{f.rdma ? 1 : 0, f.link_mbps, near};
    if (key > best) equal.clear(), reasons.clear(), best = key;
    if (key == best) equal.push_back(&nic), reasons.push_back(reason);
  }
  std::string best_reason;
  if (!equal.empty()) {
    const size_t pick = static_cast<size_t>(std::max(gpu.index, 0)) % equal.size();
    out.nic = equal[pick];
    out.facts = facts_of(facts, *out.nic);
    best_reason = reasons[pick];
    if (equal.size() > 1)
      best_reason +=
          " (one of " + std::to_string(equal.size()) + " equal NICs, dealt by GPU index)";
  }
  if (out.nic) {
    out.why = std::string(nic_transport_name(out.facts.transport)) + ", " + best_reason + " (" +
              out.facts.evidence + ")";
    if (!slow.empty()) out.why += "; not the management port(s) " + joined(slow, ", ");
    if (is_verbs(out.facts.transport))
      for (const Device& d : devices)
        if (&d != out.nic && d.kind == DeviceKind::nic && !d.rdma.empty() &&
            is_verbs(facts_of(facts, d).transport))
          out.other_rails.push_back(d.rdma.front());
  } else {
    out.why = slow.empty()
                  ? "no NIC with a netdev or RDMA name is near the GPU (same PCIe "
                    "switch, root complex, NUMA node or CPUs)"
                  : "only slow management port(s) near the GPU, not named: " + joined(slow, ", ");
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> nic_env(const NicChoice& choice,
                                                         const Environment& env,
                                                         std::vector<std::string>* kept) {
  if (!choice.nic) return {};
  const Device& nic = *choice.nic;
  std::vector<std::pair<std::string, std::string>> wanted;
  switch (choice.facts.transport) {
    case NicTransport::infiniband:
    case NicTransport::roce:
    case NicTransport::verbs: {
      // UCX takes DEVICE:PORT (an HCA's first port is 1). NCCL_IB_HCA's leading '=' makes every
      // entry an exact name (mlx5_1 would otherwise also match mlx5_10); the rank's own rail is
      // first and the node's other HCAs stay usable (NCCL spreads over the rails it is given).
      std::vector<std::string> hcas{nic.rdma.front()};
      hcas.insert(hcas.end(), choice.other_rails.begin(), choice.other_rails.end());
      wanted = {{"UCX_NET_DEVICES", nic.rdma.front() + ":1"},
                {"NCCL_IB_HCA", "=" + joined(hcas, ",")}};
      break;
    }
    case NicTransport::slingshot:
      wanted = {{"FI_PROVIDER", "cxi"}};
      break;
    case NicTransport::efa:
      wanted = {{"FI_PROVIDER", "efa"}};
      break;
    case NicTransport::ethernet:
      if (nic.netdevs.empty()) return {};
      wanted = {{"UCX_NET_DEVICES", nic.netdevs.front()},
                {"NCCL_SOCKET_IFNAME", "=" + nic.netdevs.front()}};
      break;
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [name, value] : wanted) {
    auto it = env.find(name);
    if (it != env.end()) {
      if (kept) kept->push_back(name + "=" + it->second + " kept from the environment");
      continue;
    }
    out.emplace_back(name, value);
  }
  return out;
}

}  // namespace threadmap::cluster
