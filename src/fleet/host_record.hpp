// What `threadmap fleet` compares about one host, read from its machine report
// (threadmap.report/1, as `threadmap report --out DIR/%h` writes it). fleet owns the reader
// (report_reader.cpp): the report is read back only to compare hosts. Its writer is a view
// (render/report_json: the report is drawn from the topology, latency, bench and machine-state
// documents there); a round-trip test binds the two (tests/unit/report/report_json_test.cpp).
#pragma once

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
  std::string allowed_cpus;  ///< kernel list
  /// Why the report's process was allowed fewer CPUs than its cgroup gave (its binding's
  /// finding: "srun bound this process to CPU 0 of 0-1"); "" when it recorded none.
  std::string allowed_reason;
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

/// Reads a report's JSON text back as the facts fleet compares; `file` names it in errors
/// (EINVAL: not JSON, or not a threadmap.report/1, or one without a topology). Parts a report
/// lacks (no latency, no benches, an older report) are left unknown, not refused.
Result<HostRecord> parse_host_record(const std::string& text, const std::string& file);

/// `report --out` paths: "%h" becomes `host` (the short host name), "%%" a literal '%'; any
/// other '%' sequence is an error (EINVAL) so a typo does not become a directory name.
Result<std::string> expand_host_pattern(const std::string& pattern, const std::string& host);

}  // namespace threadmap::fleet
