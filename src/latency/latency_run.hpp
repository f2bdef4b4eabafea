// What `threadmap latency` does: its options as given (LatencyOptions, one member per flag),
// checked once into a request (latency_request: every default and every rule about which
// options go together), and one library call: find the topology (an XML file, or this machine
// when measuring), measure the matrix on this machine or load a saved one, and analyse it. The
// CLI only parses options, shows progress, renders the result and writes the files.
#pragma once

#include <cstdint>
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

/// The options of `threadmap latency` that choose what to measure or load, as given. One member
/// per flag (named beside it); a flag not given leaves its member default-constructed. Errors
/// name these members in Error::input. (The files it writes are the CLI's outputs.)
struct LatencyOptions {
  std::string cpus;                     ///< --cpus EXPR
  std::optional<std::string> method;    ///< --method cas|two-lines
  std::optional<double> precision_pct;  ///< --precision PCT
  std::optional<double> budget_ms;      ///< --budget-ms MS
  bool quick = false;                   ///< --quick
  bool no_recheck = false;              ///< --no-recheck
  std::optional<std::uint64_t> seed;    ///< --seed N
  std::string load_file;                ///< --load FILE
  std::string topology_file;            ///< --topology FILE.xml
  bool numeric_order = false;           ///< --numeric-order
};

struct LatencyRequest;
Result<LatencyRequest> latency_request(const LatencyOptions& options);

/// The request, checked (no flag names: messages describe the value, the CLI adds the flag).
/// Made only by latency_request (no public constructor).
struct LatencyRequest {
 private:
  friend Result<LatencyRequest> latency_request(const LatencyOptions& options);
  LatencyRequest() = default;

 public:
  std::string load_file;      ///< analyse this saved matrix instead of measuring; empty = measure
  std::string topology_file;  ///< hwloc XML of the machine the matrix describes; empty = none
                              ///< (this machine when measuring)
  std::string cpus;           ///< CPU expression to measure; empty = all allowed
  /// How to measure (method, precision, budget, quick, recheck, seed, progress); its `cpus`
  /// is replaced by the resolved `cpus` expression.
  MeasureOptions measure;
  RowOrder row_order = RowOrder::topology;
};

/// Checks `options` and turns them into a request: the method parsed, the defaults applied
/// (cas, 3%, 100 ms per pair and pass, a recheck pass, a seed from the clock). Refuses with
/// Fault::input, naming the member: an unknown method; a choice of how to measure (CPUs, quick
/// mode, method, precision, budget, no recheck, seed) with a saved matrix, which is not
/// measured.
Result<LatencyRequest> latency_request(const LatencyOptions& options);

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

/// Runs the request. Fails on an unreadable or malformed saved matrix or topology (the work's
/// fault, about `load_file` or `topology_file`), on a CPU expression that does not resolve on
/// this machine or resolves to no CPU (Fault::input about `cpus`), or when the measurement
/// itself fails (its message; fewer than two CPUs, a thread that cannot be pinned).
Result<LatencyRun> run_latency(const LatencyRequest& request);

}  // namespace threadmap::latency
