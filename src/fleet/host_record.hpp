// What `threadmap fleet` compares about one host, read from its machine report
// (threadmap.report/1, as `threadmap report --out DIR/%h` writes it). The reader lives with the
// report's writer in render/report_json (one home per data format; the report is assembled
// there from the topology, latency, bench and machine-state documents); fleet is handed it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "src/core/machine_state.hpp"
#include "threadmap/result.hpp"

namespace threadmap::fleet {

/// One host's facts. Counts are -1 when the report does not hold them.
struct HostRecord {
  std::string file;  ///< where it was read from
  std::string host;  ///< HostName from the topology, else the file's name
  std::string cpu_model;
  int packages = -1, numa_nodes = -1, l3_domains = -1, cores = -1, pus = -1;
  bool smt = false;
  std::string allowed_cpus;   ///< kernel list
  std::string complete_cpus;  ///< every PU the machine has
  std::string kernel;         ///< OSRelease
  /// Latency per CPU: the median of its row's one-way cells (ns), and the widest interval of
  /// those cells (ns), by OS CPU number. Empty when the report has no matrix.
  std::map<int, double> latency_row_ns;
  std::map<int, double> latency_row_ci_ns;
  /// Benchmarks: "bench/variant" -> median in the bench's unit, and which way is better.
  std::map<std::string, double> bench_median;
  std::map<std::string, bool> bench_higher_is_better;
  std::map<std::string, std::string> bench_unit;
  /// The latency matrix's stability ("stable", "unstable"; "unknown" for reports that carry
  /// none) and the machine's state while measured ("quiet", "busy", "unknown"), with the
  /// report's own one-line reasons.
  std::string stability = "unknown";
  std::string stability_reason;
  MachineVerdict machine_verdict = MachineVerdict::unknown;
  std::string machine_summary;
};

/// Parses a report's JSON text; `file` names it in errors (EINVAL: not a threadmap.report/1).
/// render::parse_host_record is the one implementation; load_fleet takes it as a parameter
/// because render sits above fleet.
using HostRecordParser =
    std::function<Result<HostRecord>(const std::string& text, const std::string& file)>;

/// `report --out` paths: "%h" becomes `host` (the short host name), "%%" a literal '%'; any
/// other '%' sequence is an error (EINVAL) so a typo does not become a directory name.
Result<std::string> expand_host_pattern(const std::string& pattern, const std::string& host);

}  // namespace threadmap::fleet
