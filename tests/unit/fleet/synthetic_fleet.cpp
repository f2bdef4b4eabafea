#include "tests/unit/fleet/synthetic_fleet.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "src/latency/matrix.hpp"
#include "threadmap/topology.hpp"

using threadmap::CpuSet;
using threadmap::Topology;
using threadmap::TopologyCounts;
namespace latency = threadmap::latency;
using nlohmann::json;

namespace tm_test {
namespace {

// What is planted on a host (all false: a normal member of its group).
struct Plant {
  bool missing_cpu = false, smt_off = false, numa = false, slow_cpu = false, slow_spawn = false,
       old_kernel = false;
};

json report(const Machine& m, const std::string& host, const Plant& p, std::mt19937& rng) {
  std::normal_distribution<double> noise(0.0, 1.0);
  int pus = m.pus, cores = m.cores;
  std::string complete = m.complete;
  if (p.missing_cpu) {
    CpuSet all = *CpuSet::parse(m.complete);
    all.remove(all.last());
    complete = all.to_list();
    pus -= 1;
  }
  if (p.smt_off) pus = cores;
  json topo = {{"cpu_model", m.model},
               {"counts",
                {{"packages", m.packages},
                 {"numa_nodes", p.numa ? m.numa * 2 : m.numa},
                 {"l3_caches", m.l3},
                 {"cores", cores},
                 {"pus", pus}}},
               {"allowed_cpus", complete},
               {"complete_cpus", complete},
               {"machine_infos",
                {{"HostName", host}, {"OSRelease", p.old_kernel ? "5.10.0-28" : "6.1.0-18"}}}};
  json doc = {{"schema", "threadmap.report/1"}, {"topology", {{"topology", topo}}}};
  if (!m.cpus.empty()) {
    const size_t n = m.cpus.size();
    json rows = json::array(), pairs = json::array();
    std::vector<std::vector<double>> cells(n, std::vector<double>(n, 0.0));
    for (size_t i = 0; i < n; ++i)
      for (size_t k = i + 1; k < n; ++k) {
        double v = m.one_way_ns[i * n + k] * (1 + 0.02 * noise(rng));
        if (p.slow_cpu && (i == 3 || k == 3)) v *= 1.8;  // one CPU's paths 80% slower
        cells[i][k] = cells[k][i] = v;
        pairs.push_back({{"cpus", {m.cpus[i], m.cpus[k]}}, {"ci95_ns", 0.01 * v}});
      }
    for (auto& r : cells) rows.push_back(r);
    doc["latency"] = {{"matrix", {{"cpus", m.cpus}, {"matrix", rows}, {"pairs", pairs}}}};
  }
  const double spawn = 40.0 * (1 + 0.03 * noise(rng)) * (p.slow_spawn ? 2.0 : 1.0);
  const double contention = 5.0 * (1 + 0.03 * noise(rng));
  doc["benches"] = {
      {{"bench", "spawn"},
       {"unit", "us"},
       {"higher_is_better", false},
       {"variants", {{{"name", "no-cache-1-creator"}, {"median", spawn}, {"available", true}}}}},
      {{"bench", "contention"},
       {"unit", "ms"},
       {"higher_is_better", false},
       {"variants", {{{"name", "os"}, {"median", contention}, {"available", true}}}}}};
  // The rest of a real report (advice, bench notes, provenance): a quick report of a 2-CPU
  // machine is about 30 KB of JSON, so the reader is timed on files of that size.
  json advice = json::array();
  for (int k = 0; k < 60; ++k)
    advice.push_back(
        {{"title", std::string(120, 'a' + k % 26)}, {"why", std::string(300, 'b' + k % 20)}});
  doc["advice"] = {{"recommendations", advice}};
  return doc;
}

}  // namespace

Machine from_topology(const std::string& name) {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + name + ".xml");
  if (!t) throw std::runtime_error(t.error().message);
  TopologyCounts c = t->counts();
  return {t->cpu_model(),
          c.packages,
          c.numa_nodes,
          c.l3_caches,
          c.cores,
          c.pus,
          t->complete_cpus().to_list(),
          {},
          {}};
}

Machine from_matrix(const std::string& file, const std::string& model, int cores) {
  auto m = latency::load_matrix(std::string(THREADMAP_TEST_DATA) + "/latency/" + file);
  if (!m) throw std::runtime_error(m.error().message);
  const int n = static_cast<int>(m->cpus.size());
  return {model, 1, 1, 1, cores, n, CpuSet::range(0, n - 1).to_list(), m->cpus, m->one_way_ns};
}

SyntheticFleet::~SyntheticFleet() {
  if (!dir.empty()) std::filesystem::remove_all(dir);
}

// `counts`: hosts per machine. Plants one of each kind in the first hosts of chosen groups.
void build(SyntheticFleet& fleet, const std::vector<std::pair<Machine, int>>& machines) {
  fleet.dir = std::filesystem::temp_directory_path() /
              ("tm-fleet-" + std::to_string(::getpid()) + "-" +
               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(fleet.dir);
  std::mt19937 rng(7);
  int g = 0;
  for (const auto& [machine, count] : machines) {
    for (int i = 0; i < count; ++i) {
      const std::string host = "g" + std::to_string(g) + "-n" + std::to_string(i);
      Plant p;
      if (g == 0 && i == 1) p.missing_cpu = true, fleet.planted.insert({host, "missing_cpus"});
      if (g == 0 && i == 2) p.smt_off = true, fleet.planted.insert({host, "smt"});
      if (g == 0 && i == 3) p.numa = true, fleet.planted.insert({host, "numa_mode"});
      if (g == 1 && i == 4) p.slow_cpu = true, fleet.planted.insert({host, "latency"});
      if (g == 1 && i == 5) p.slow_spawn = true, fleet.planted.insert({host, "bench"});
      if (g == 2 && i == 0) p.old_kernel = true, fleet.planted.insert({host, "kernel"});
      // Every other host as report --out DIR/%h lays it out, the rest as DIR/<host>.json.
      std::filesystem::path file =
          (i % 2 == 0) ? fleet.dir / host / "report.json" : fleet.dir / (host + ".json");
      std::filesystem::create_directories(file.parent_path());
      std::ofstream(file) << report(machine, host, p, rng).dump();
    }
    ++g;
  }
  // A file that is not a report: listed as unreadable, the rest still compared.
  std::ofstream(fleet.dir / "notes.json") << "{\"hello\": 1}";
  // Nor is a document that only claims to be one: it has nothing to group or compare by.
  std::ofstream(fleet.dir / "bare.json") << "{\"schema\": \"threadmap.report/1\"}";
}

std::vector<std::pair<Machine, int>> machines(int scale) {
  return {{from_topology("amd-2x-epyc9654-zen4"), 4 * scale},
          {from_matrix("Apple_M1_Pro.csv", "Apple M1 Pro", 8), 5 * scale},
          {from_matrix("AMD_Ryzen_9_5950X_3.40_GHz.csv", "AMD Ryzen 9 5950X 16-Core Processor", 16),
           scale * 4 / 5},
          {from_topology("this-vm-kvm-2vcpu-epyc"), scale / 5}};
}

}  // namespace tm_test
