// `threadmap fleet DIR`: hosts grouped by what should make them identical (CPU model and package
// count), and within each group the hosts whose hardware, OS or measurements differ from the
// group's majority or median.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/fleet/host_record.hpp"
#include "threadmap/result.hpp"

namespace threadmap::fleet {

/// One way a host differs from its group. `kind` is stable for scripts: missing_cpus,
/// allowed_cpus, smt, numa_mode, l3_domains, cores, kernel, latency, bench.
struct Difference {
  std::string kind;
  std::string text;  ///< the host's value, the group's, and the rule that flagged it
};

struct Outlier {
  std::string host;
  std::string file;
  std::string group;  ///< the group's key (model, packages)
  std::vector<Difference> differences;
};

struct FleetGroup {
  std::string key;  ///< "CPU model, N package(s)"
  std::vector<std::string> hosts;
  int outliers = 0;
  /// What most hosts of the group have (item -> value), the reference outliers differ from.
  std::map<std::string, std::string> majority;
};

struct FleetReport {
  std::string dir;
  int hosts = 0;
  std::vector<FleetGroup> groups;       ///< groups with outliers first, then by size
  std::vector<Outlier> outliers;        ///< in the order of their groups, then by host
  std::vector<std::string> unreadable;  ///< one message per file that is not a report
};

/// The rules that turn differences into outliers (docs/fleet.md).
struct FleetRules {
  int min_hosts_for_median = 3;     ///< measurements are compared in groups at least this big
  double latency_ci_factor = 3.0;   ///< a CPU's latency is off when beyond this many intervals
  double latency_rel_floor = 0.15;  ///< ... and beyond this share of the group's median
  double bench_mad_factor = 4.0;    ///< a benchmark is off beyond this many robust sigmas
  double bench_rel_floor = 0.20;    ///< ... and beyond this share of the group's median
};

/// Groups and compares records already read.
FleetReport compare_fleet(const std::vector<HostRecord>& hosts, const FleetRules& rules = {});

/// Reads DIR/<host>/report.json (what `report --out DIR/%h` writes) and DIR/<name>.json files,
/// then compares them. A file that is not a report is listed in `unreadable` and the others
/// proceed. Fails when DIR cannot be listed, or holds no report at all.
Result<FleetReport> load_fleet(const std::string& dir, const FleetRules& rules = {});

}  // namespace threadmap::fleet
