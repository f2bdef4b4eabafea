// A core-to-core latency matrix: one-way latency in ns between OS CPUs, measured here or loaded
// from a file. This header is the contract between the latency engine (which fills and saves
// matrices) and its consumers (planner, report); src/latency owns the implementation.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::latency {

/// Whether the matrix's pairs held still while it was measured. A matrix whose pairs move (a VM
/// whose vCPUs the host moves between cores) has no structure to infer from.
struct Stability {
  std::string state = "unknown";  ///< "stable", "unstable" or "unknown" (no per-pair checks)
  std::size_t pairs_moved = 0;    ///< pairs whose passes disagreed (PairStats::unstable)
  std::size_t pairs_checked = 0;  ///< pairs measured twice
  std::string reason;             ///< the finding in words
  bool unstable() const { return state == "unstable"; }
};

/// The rule: more than 10% of the checked pairs moved (and at least 2 of them; with a single
/// pair, that pair) makes the structure unstable. Why 10%: on quiet real machines a few pairs of
/// hundreds catch an interrupt in one pass (0-3% in our runs and the shared matrices' JSON), while
/// a VM whose vCPUs float moves most pairs (102 of 120 on a 16-vCPU cloud VM).
/// No pair checked gives "unknown". The reason states both rules (what moves a pair, and the
/// 10% of pairs), so "11.2% apart" on a pair that did not move is not read against the 10%;
/// `precision` (0 = not known, a loaded file) is the pair rule's threshold (0.03 = 3%).
Stability judge_stability(std::size_t pairs_moved, std::size_t pairs_checked, double precision = 0);

struct Matrix {
  std::vector<int> cpus;           ///< OS CPU number of row/column i, ascending
  std::vector<double> one_way_ns;  ///< row-major size()*size(); diagonal 0; NaN = not measured
  std::string source;              ///< "measured on this machine" or the file it came from
  std::string cpu_model;           ///< may be empty (nviennot CSVs carry none)
  /// The host it was measured on, when the file says (our JSON's machine.hostname); CSVs and
  /// matrices measured here leave it empty.
  std::string host;
  std::string cell_statistic;  ///< how a cell was obtained ("median of timed batches", ...)
  /// What loading did to the file's values that a reader should know (directions averaged).
  std::vector<std::string> load_notes;
  Stability stability;  ///< from the measurement or the file; "unknown" when it carries none
  /// How busy the machine was while this matrix was measured ("others used 63% of CPUs 0-1
  /// just before, ..."), when it was: its values then include others' load, not only the
  /// hardware's. Set when measured here and read back from our JSON; "" when quiet or unknown.
  std::string measured_busy;

  std::size_t size() const { return cpus.size(); }
  double at(std::size_t i, std::size_t j) const { return one_way_ns[i * cpus.size() + j]; }
  double& at(std::size_t i, std::size_t j) { return one_way_ns[i * cpus.size() + j]; }
  /// Row index of an OS CPU number, or -1.
  int index_of(int cpu) const;
  /// Latency between two OS CPUs, NaN when either is not in the matrix.
  double between(int cpu_a, int cpu_b) const;
  /// The CPUs of the matrix as a set.
  CpuSet cpu_set() const;
};

/// Loads a matrix from our JSON (threadmap latency --json), our square CSV (header row of CPU
/// numbers), or the lower-triangular CSV that nviennot/core-to-core-latency writes (N lines, no
/// header, cell [i][j] for i > j; row k = k-th CPU). Ragged or non-numeric input fails with one
/// error naming the file, line and column.
Result<Matrix> load_matrix(const std::string& path);

/// The formats load_matrix understands.
enum class MatrixFormat { threadmap_json, square_csv, nviennot_csv };

/// Parses matrix text already read from `name` (used in error messages), detecting the format
/// as load_matrix does. `format`, when given, receives the detected format.
Result<Matrix> parse_matrix_text(const std::string& text, const std::string& name,
                                 MatrixFormat* format = nullptr);

/// An n x n matrix over `cpus` (sorted, duplicates dropped): diagonal 0, all else NaN.
Matrix make_matrix(std::vector<int> cpus);

/// The latency between rows i and j seen from either direction: the mean of [i][j] and [j][i]
/// when both are known, whichever is known otherwise, NaN when neither is.
double symmetric_at(const Matrix& m, std::size_t i, std::size_t j);

/// A machine state's summary as Matrix::measured_busy holds it: without its "busy: " prefix (the
/// warnings that quote it say "busy" themselves).
std::string busy_summary(const std::string& summary);

}  // namespace threadmap::latency
