// UPGMA with missing values. Keeps, for every pair of live clusters, the sum and the count of
// known leaf-to-leaf distances, so merging is exact (no re-averaging of averages) and NaN cells
// simply do not count. O(n^3) time and O(n^2) memory: 512 CPUs cluster in well under a second.
#include "src/latency/linkage.hpp"

#include <cmath>
#include <limits>
#include <numeric>

namespace threadmap::latency {

Dendrogram average_linkage(const std::vector<double>& distance, std::size_t n) {
  Dendrogram tree;
  tree.leaves = n;
  if (n < 2) return tree;
  std::vector<double> sum(n * n, 0.0);
  std::vector<double> count(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double d = distance[i * n + j];
      if (i != j && !std::isnan(d)) {
        sum[i * n + j] = d;
        count[i * n + j] = 1;
      }
    }
  }
  std::vector<bool> alive(n, true);
  std::vector<int> id(n);  // dendrogram id of the cluster living in slot i
  std::vector<std::size_t> size(n, 1);
  std::iota(id.begin(), id.end(), 0);
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t step = 0; step + 1 < n; ++step) {
    double best = inf;
    std::size_t best_i = n, best_j = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (!alive[i]) continue;
      for (std::size_t j = i + 1; j < n; ++j) {
        if (!alive[j]) continue;
        double c = count[i * n + j];
        double d = c > 0 ? sum[i * n + j] / c : inf;
        if (best_i == n || d < best) {
          best = d;
          best_i = i;
          best_j = j;
        }
      }
    }
    // Merge slot best_j into best_i.
    for (std::size_t k = 0; k < n; ++k) {
      if (!alive[k] || k == best_i || k == best_j) continue;
      sum[best_i * n + k] += sum[best_j * n + k];
      count[best_i * n + k] += count[best_j * n + k];
      sum[k * n + best_i] = sum[best_i * n + k];
      count[k * n + best_i] = count[best_i * n + k];
    }
    alive[best_j] = false;
    size[best_i] += size[best_j];
    tree.merges.push_back(Merge{id[best_i], id[best_j], best, size[best_i]});
    id[best_i] = static_cast<int>(n + step);
  }
  return tree;
}

std::vector<int> cut_after(const Dendrogram& tree, std::size_t merges) {
  const std::size_t n = tree.leaves;
  // Union-find over dendrogram ids: leaf -> root cluster after `merges` merges.
  std::vector<int> parent(n + tree.merges.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (std::size_t k = 0; k < merges && k < tree.merges.size(); ++k) {
    int node = static_cast<int>(n + k);
    parent[static_cast<std::size_t>(tree.merges[k].left)] = node;
    parent[static_cast<std::size_t>(tree.merges[k].right)] = node;
  }
  auto root = [&parent](int x) {
    while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)];
    return x;
  };
  std::vector<int> label(n, -1);
  std::vector<int> label_of_root(parent.size(), -1);
  int next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    int r = root(static_cast<int>(i));
    if (label_of_root[static_cast<std::size_t>(r)] < 0) {
      label_of_root[static_cast<std::size_t>(r)] = next++;
    }
    label[i] = label_of_root[static_cast<std::size_t>(r)];
  }
  return label;
}

}  // namespace threadmap::latency
