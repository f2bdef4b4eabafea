// A synthetic fleet of host reports on disk, shared by the fleet tests and the fleet benchmark:
// hosts built from recorded topologies and latency matrices (tests/data) with measurement noise,
// each report about 30 KB of JSON like a real quick report, and planted outliers of every kind.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tm_test {

/// One kind of host: its topology counts and, where known, a measured latency matrix.
struct Machine {
  std::string model;
  int packages, numa, l3, cores, pus;
  std::string complete;
  std::vector<int> cpus;           // latency matrix CPUs (empty: no matrix)
  std::vector<double> one_way_ns;  // row-major
};

/// A machine from tests/data/topologies/NAME.xml. Throws std::runtime_error when it cannot load.
Machine from_topology(const std::string& name);
/// A machine from tests/data/latency/FILE. Throws std::runtime_error when it cannot load.
Machine from_matrix(const std::string& file, const std::string& model, int cores);

/// A fleet directory; removed with everything in it when destroyed.
struct SyntheticFleet {
  std::filesystem::path dir;
  std::set<std::pair<std::string, std::string>> planted;  // (host, kind of difference)
  SyntheticFleet() = default;
  SyntheticFleet(const SyntheticFleet&) = delete;
  SyntheticFleet& operator=(const SyntheticFleet&) = delete;
  ~SyntheticFleet();
};

/// Writes `count` hosts per machine into a new temporary directory (half as DIR/<host>/report.json,
/// as `report --out DIR/%h` lays them out, half as DIR/<host>.json), plants one outlier of each
/// kind in the first hosts of chosen groups, and adds two files that are not reports.
void build(SyntheticFleet& fleet, const std::vector<std::pair<Machine, int>>& machines);

/// Four groups, 10 * scale hosts: 2x EPYC 9654 (4 * scale), Apple M1 Pro (5 * scale), Ryzen 9
/// 5950X (0.8 * scale), this 2-vCPU VM (0.2 * scale).
std::vector<std::pair<Machine, int>> machines(int scale);

}  // namespace tm_test
