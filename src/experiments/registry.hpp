// The one table of benches: name, one-line description, and the runner that sets the bench up
// from a BenchRequest and runs it. `threadmap bench` dispatches through it (and lists its names
// in --help), and the machine report runs every bench of it in order -- as google/benchmark
// keeps its registry apart from the reporters that show the results.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/experiments/experiments.hpp"
#include "src/latency/matrix.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::experiments {

/// Everything a caller may hand to a bench; each bench takes what concerns it.
struct BenchRequest {
  BenchOptions options;  ///< runs, quick mode, progress
  /// pingpong: measure only this pair of CPUs.
  std::optional<CpuPair> pair;
  /// pingpong: choose the best and worst pair from the matrix saved in this file (a matrix of
  /// another machine is used, with a note saying so).
  std::string latency_file;
  /// pingpong: or from this matrix, already known to describe this machine (may be null).
  const latency::Matrix* latency_matrix = nullptr;
  std::string latency_source;  ///< where latency_matrix came from, for the notes
  /// pingpong: with neither, measure a quick matrix first (false: choose by topology).
  bool measure_latencies = true;
  /// spawn: where bin/threadmap-spawn and the cache library are.
  SpawnOptions spawn_tools = locate_spawn_tools();
};

/// One bench of the table.
struct BenchEntry {
  const char* name;             ///< "contention", as typed after `threadmap bench`
  const char* description;      ///< one line, for --help and listings
  bool takes_pair_and_latency;  ///< whether BenchRequest::pair / latency_* mean anything to it
  /// Sets the bench up from the request and runs it; fails with the bench's own message.
  Result<BenchResult> (*run)(const Topology& topo, const BenchRequest& request);
};

/// Every bench, in the order the report runs them. Never empty.
const std::vector<BenchEntry>& benches();

/// Benches of a device beside the CPUs (gpu-locality): `threadmap bench NAME` runs them; the
/// machine report, which measures the CPU side, does not.
const std::vector<BenchEntry>& device_benches();

/// The entry called `name` in benches() or device_benches(), or null when there is none.
const BenchEntry* find_bench(std::string_view name);

/// The names of benches(), in order ("contention", "pingpong", ...).
std::vector<std::string> bench_names();
/// bench_names() then the device benches' names: what `threadmap bench` accepts.
std::vector<std::string> all_bench_names();

/// Runs the bench called `name`. EINVAL "unknown bench 'NAME' (expected contention, ...)" when
/// there is none; otherwise whatever the bench returns (an unavailable result is not a failure),
/// with this process's binding (a launcher's narrower binding is said above the numbers).
Result<BenchResult> run_bench(std::string_view name, const Topology& topo,
                              const BenchRequest& request);

}  // namespace threadmap::experiments
