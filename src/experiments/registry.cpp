#include "src/experiments/registry.hpp"

#include "src/experiments/gpu_locality.hpp"
#include "src/experiments/latency_pairs.hpp"
#include "src/latency/matrix_mismatch.hpp"

namespace threadmap::experiments {
namespace {

Result<BenchResult> contention(const Topology& topo, const BenchRequest& request) {
  return run_contention(topo, request.options);
}

Result<BenchResult> smt(const Topology& topo, const BenchRequest& request) {
  return run_smt(topo, request.options);
}

Result<BenchResult> migrate(const Topology& topo, const BenchRequest& request) {
  return run_migrate(topo, request.options);
}

Result<BenchResult> spawn(const Topology& topo, const BenchRequest& request) {
  SpawnOptions options = request.spawn_tools;
  static_cast<BenchOptions&>(options) = request.options;
  return run_spawn(topo, options);
}

Result<BenchResult> gpu_locality(const Topology& topo, const BenchRequest& request) {
  GpuLocalityOptions options;
  static_cast<BenchOptions&>(options) = request.options;
  return run_gpu_locality(topo, options);
}

// The pairs come from, in order: a saved matrix, the caller's matrix, a quick measurement.
Result<BenchResult> pingpong(const Topology& topo, const BenchRequest& request) {
  PingpongOptions ping;
  static_cast<BenchOptions&>(ping) = request.options;
  ping.pair = request.pair;
  if (!request.latency_file.empty()) {
    auto matrix = latency::load_matrix(request.latency_file);
    if (!matrix) return matrix.error().about("latency_file");
    ping.latencies = latencies_from_matrix(*matrix);
    ping.latency_source = request.latency_file;
    ping.latency_notes = latency::matrix_mismatch_notes(*matrix, topo);
  } else if (request.latency_matrix) {
    ping.latencies = latencies_from_matrix(*request.latency_matrix);
    ping.latency_source = request.latency_source;
  } else if (!ping.pair && request.measure_latencies) {
    // Best and worst are chosen by measurement. A machine where that cannot run (one CPU)
    // falls back to topology inside run_pingpong.
    auto measured = measure_quick_latencies(topo);
    if (measured) {
      ping.latencies = std::move(*measured);
      ping.latency_source = "quick measurement (threadmap latency --quick)";
    }
  }
  return run_pingpong(topo, ping);
}

}  // namespace

const std::vector<BenchEntry>& benches() {
  static const std::vector<BenchEntry> table{
      {"contention", "two pairs of threads on one atomic each: OS placement vs pinned pairs", false,
       contention},
      {"pingpong", "two counters handed back and forth: best vs worst vs sequential CPU pair", true,
       pingpong},
      {"smt", "float workloads alone, on two cores, on two SMT siblings", false, smt},
      {"migrate", "threads sorting ints: OS placement vs pinned vs hopping CPUs", false, migrate},
      {"spawn", "create+join rate with and without the thread cache", false, spawn},
  };
  return table;
}

const std::vector<BenchEntry>& device_benches() {
  static const std::vector<BenchEntry> table{
      {"gpu-locality", "host<->GPU copy bandwidth from memory on each NUMA node (CUDA driver)",
       false, gpu_locality},
  };
  return table;
}

const BenchEntry* find_bench(std::string_view name) {
  for (const auto* table : {&benches(), &device_benches()})
    for (const BenchEntry& entry : *table)
      if (name == entry.name) return &entry;
  return nullptr;
}

std::vector<std::string> all_bench_names() {
  std::vector<std::string> names = bench_names();
  for (const BenchEntry& entry : device_benches()) names.emplace_back(entry.name);
  return names;
}

std::vector<std::string> bench_names() {
  std::vector<std::string> names;
  for (const BenchEntry& entry : benches()) names.emplace_back(entry.name);
  return names;
}

Result<BenchResult> run_bench(std::string_view name, const Topology& topo,
                              const BenchRequest& request) {
  const BenchEntry* entry = find_bench(name);
  if (!entry) {
    std::string expected;
    for (const BenchEntry& e : benches())
      expected += (expected.empty() ? "" : ", ") + std::string(e.name);
    return Error::invalid("unknown bench '" + std::string(name) + "' (expected " + expected + ")");
  }
  Result<BenchResult> result = entry->run(topo, request);
  // A bench bound to a corner of the machine by a launcher says so above its numbers.
  if (result && topo.is_this_machine()) result->binding = this_process_binding(topo);
  return result;
}

}  // namespace threadmap::experiments
