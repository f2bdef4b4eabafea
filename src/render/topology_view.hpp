// Rendering a Topology: an lstopo-like text tree, a one-line summary, and JSON
// (schema "threadmap.topology/1", documented in docs/json.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "threadmap/topology.hpp"

namespace threadmap::render {

/// Tree like `lstopo-no-graphics`, annotated with OS CPU lists, SMT siblings and sizes.
std::string topology_tree(const Topology& topo);
/// One line: counts, SMT, allowed CPUs, CPU model.
std::string topology_summary(const Topology& topo);
/// The whole topology as JSON.
nlohmann::json topology_json(const Topology& topo);
/// Human size: 32768 -> "32KB", as lstopo prints it.
std::string human_bytes(std::uint64_t bytes);

}  // namespace threadmap::render
