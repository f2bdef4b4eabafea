// What `threadmap latency` does, as one library call: find the topology (an XML file, or this
// machine when measuring), measure the matrix on this machine or load a saved one, and analyse
// it. The CLI only parses options, shows progress, renders the result and writes the files.
#pragma once

#include <optional>
#include <string>

#include "src/core/machine_state.hpp"
#include "src/core/process_binding.hpp"
#include "src/latency/analysis.hpp"
#include "src/latency/matrix.hpp"
#include "src/latency/measurement.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::latency {

/// The request, as values (no flag names: messages describe the value, the CLI adds the flag).
struct LatencyRequest {
  std::string load_file;      ///< analyse this saved matrix instead of measuring; empty = measure
  std::string topology_file;  ///< hwloc XML of the machine the matrix describes; empty = none
                              ///< (this machine when measuring)
  std::string cpus;           ///< CPU expression to measure; empty = all allowed
  /// How to measure (method, precision, budget, quick, recheck, seed, progress); its `cpus`
  /// is replaced by the resolved `cpus` expression.
  MeasureOptions measure;
  RowOrder row_order = RowOrder::topology;
};

/// Which part of a LatencyRequest an error is about, so the CLI can name the flag.
enum class LatencyField { none, load_file, topology_file, cpus };

/// The matrix and what it says.
struct LatencyRun {
  std::optional<Topology> topology;  ///< the topology used to order and compare; may be absent
  std::string topology_source;       ///< "FILE.xml" or "hwloc, this machine"; empty without one
  std::optional<Measurement> measurement;  ///< present when measured here
  Matrix matrix;
  Analysis analysis;
  /// The machine around the measurement (neighbours just before, steal, hypervisor); empty when
  /// a saved matrix was loaded.
  std::optional<MachineState> machine;
  /// This process's binding against its cgroup, when measuring every CPU it may use (no CPUs
  /// chosen): a launcher's narrower binding is said above the matrix.
  std::optional<ProcessBinding> binding;
};

/// Runs the request. Fails, setting `*failed_field` (when not null) to the input at fault, on
/// an unreadable or malformed saved matrix or topology, on CPUs or quick mode asked for with a
/// saved matrix (EINVAL), on a CPU expression that does not resolve, or when the measurement
/// itself fails (its message; fewer than two CPUs, a thread that cannot be pinned).
Result<LatencyRun> run_latency(const LatencyRequest& request, LatencyField* failed_field = nullptr);

}  // namespace threadmap::latency
