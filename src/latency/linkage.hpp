// Average-linkage (UPGMA) agglomerative clustering over a latency matrix: the dendrogram the
// latency domains are cut from. Average linkage because a cache domain is a group whose members
// are close ON AVERAGE: single linkage chains through one fast noisy pair, complete linkage is
// pulled apart by one slow noisy pair.
#pragma once

#include <cstddef>
#include <vector>

namespace threadmap::latency {

/// One merge of the dendrogram. Cluster ids: 0..n-1 are the leaves (matrix rows), n+k is the
/// cluster made by merge k.
struct Merge {
  int left = -1;
  int right = -1;
  double height = 0;     ///< average one-way latency (ns) between the two clusters merged
  std::size_t size = 0;  ///< leaves in the merged cluster
};

/// The full merge history: n-1 merges, heights non-decreasing (UPGMA is monotone).
struct Dendrogram {
  std::size_t leaves = 0;
  std::vector<Merge> merges;
};

/// Clusters n items given a symmetric n*n row-major distance matrix. NaN distances are
/// ignored: cluster distance is the mean over the known pairs; clusters with no known pair
/// between them merge last (height +infinity).
Dendrogram average_linkage(const std::vector<double>& distance, std::size_t n);

/// Cluster label (0-based, numbered by lowest member) of each leaf after the first `merges`
/// merges have been applied.
std::vector<int> cut_after(const Dendrogram& tree, std::size_t merges);

}  // namespace threadmap::latency
