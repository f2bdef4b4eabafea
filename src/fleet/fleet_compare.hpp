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

/// A host whose measurements are not compared: its latency did not hold still, or the machine
/// was busy while it measured. Its configuration is still compared (facts do not need quiet).
struct SetAside {
  std::string host;
  std::string file;
  std::string group;
  std::string reason;  ///< "unstable" or "busy"
  std::string text;    ///< "measurement unstable on h5: 9 of 10 pairs moved"
};

/// One measured metric of a group and the noise its hosts' repeats show.
struct MetricNoise {
  std::string metric;      ///< "latency CPU 3", "bench spawn/no-cache-1-creator"
  int hosts = 0;           ///< hosts compared on it
  double spread = 1;       ///< the repeats' typical ratio to the median (exp of a robust sigma)
  double floor = 1;        ///< a host is off only beyond this ratio to the median
  bool too_noisy = false;  ///< spread beyond `limit`: not compared
  double limit = 1.5;      ///< the rules' too_noisy_ratio
  std::string basis;       ///< "measured: robust spread of 6 hosts" or "default for small groups"
};

struct FleetGroup {
  std::string key;  ///< "CPU model, N package(s)"
  std::vector<std::string> hosts;
  int outliers = 0;
  /// What most hosts of the group have (item -> value), the reference outliers differ from.
  std::map<std::string, std::string> majority;
  std::vector<MetricNoise> noise;  ///< per measured metric compared (or too noisy to compare)
  /// Hosts whose report carries no stability or machine state (older reports): measured as
  /// they are, and said so.
  int conditions_unknown = 0;
};

struct FleetReport {
  std::string dir;
  int hosts = 0;
  std::vector<FleetGroup> groups;       ///< groups with outliers first, then by size
  std::vector<Outlier> outliers;        ///< in the order of their groups, then by host
  std::vector<SetAside> set_aside;      ///< unstable or busy measurements, not outliers
  std::vector<std::string> unreadable;  ///< one message per file that is not a report
};

/// The rules that turn differences into outliers (docs/fleet.md). Measured metrics are
/// compared as ratios to the group's median (log scale: latencies and rates vary by factors,
/// not by amounts). The noise floor of a metric is what the group's own hosts vary: with at
/// least `min_hosts_for_noise` comparable hosts, `noise_sigmas` robust sigmas (1.4826 x the
/// median absolute deviation of the logs), never under the `*_min_ratio`; in smaller groups the
/// documented defaults `*_default_ratio`, as large as repeats of one 2-vCPU KVM guest moved
/// (a CPU hog beside one run moved contention/one-core 3.9x; latency moved 3x on a cloud VM in
/// runs whose matrix did not hold still, which `stability` now sets aside). Ten hosts are
/// needed before a median absolute deviation says anything about how far a single repeat
/// strays: six repeats of this VM had five within 10% and one 1.6x off. A metric whose repeats vary
/// more than `too_noisy_ratio` typically is not compared at all: it is reported as too noisy on
/// that group.
struct FleetRules {
  int min_hosts_for_median = 3;  ///< measurements are compared in groups at least this big
  int min_hosts_for_noise = 10;  ///< ... and their noise measured from at least this many
  double noise_sigmas = 4.0;
  double latency_ci_factor = 3.0;   ///< and beyond this many of the CPU's own intervals
  double latency_min_ratio = 1.15;  ///< never closer than this to the median
  double bench_min_ratio = 1.20;
  double latency_default_ratio = 2.0;  ///< small groups
  double bench_default_ratio = 4.0;
  double too_noisy_ratio = 1.5;  ///< typical repeat this far off the median: not compared
};

/// Groups and compares records already read.
FleetReport compare_fleet(const std::vector<HostRecord>& hosts, const FleetRules& rules = {});

/// Reads DIR/<host>/report.json (what `report --out DIR/%h` writes) and DIR/<name>.json files,
/// then compares them. A file that is not a report is listed in `unreadable` and the others
/// proceed. Fails when DIR cannot be listed, or holds no report at all.
Result<FleetReport> load_fleet(const std::string& dir, const FleetRules& rules = {});

}  // namespace threadmap::fleet
