// The golden corpus: what each recorded machine IS, from its vendor's documentation (never from
// our output). One row per shared topology (tests/data/topologies) and latency matrix
// (tests/data/latency); `source` is the comment column naming where the expectation comes from.
#pragma once

#include <string>
#include <vector>

namespace threadmap::golden {

/// A recorded hwloc topology.
struct TopologyRow {
  std::string file;
  std::string machine;
  bool smt = false;  ///< hardware threads per core > 1 in this file
  int packages = 0;
  std::vector<int> l3_pus;  ///< PUs per L3 domain, ascending, one entry per distinct size
  int l3_count = 0;
  std::vector<int> numa_os;  ///< OS node numbers (numactl, /sys), ascending
  std::string source;        ///< comment column: vendor documentation behind the row
};

/// How SMT siblings are numbered in a matrix (an OS property, see each row's source).
enum class Siblings { none, half, adjacent };

/// A recorded latency matrix (no topology: everything is inferred from latency).
struct MatrixRow {
  std::string file;
  std::string machine;
  bool smt = false;  ///< SMT siblings among the matrix's CPUs
  Siblings siblings = Siblings::none;
  int smt_cpus = -1;              ///< CPUs 0..smt_cpus-1 have siblings (-1: all of them)
  std::vector<int> domain_sizes;  ///< CPUs per last-level-cache domain (cluster), ascending
  int sockets = 1;                ///< sockets: a level must split them or say why it cannot
  std::string source;
  std::vector<std::vector<int>> clusters;  ///< explicit clusters where sizes differ (M1 Pro)
};

const std::vector<TopologyRow>& topology_rows();
const std::vector<MatrixRow>& matrix_rows();

}  // namespace threadmap::golden
