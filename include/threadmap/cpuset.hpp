// threadmap — CpuSet: a set of OS CPU numbers (what taskset, /proc and the kernel use).
//
// Backed by an hwloc bitmap, so it has no upper bound on CPU numbers. Parsing accepts the
// kernel's list syntax ("0-3,8,10-15:2") and taskset hex masks ("0xff", "ff,ffffffff"); the
// object expressions that need a machine ("core:0-3", "l3:1") are resolved by Topology.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap {

class CpuSet {
 public:
  /// An empty set.
  CpuSet();
  /// A set holding exactly the given CPUs (negative numbers are ignored).
  CpuSet(std::initializer_list<int> cpus);
  ~CpuSet();
  CpuSet(const CpuSet& other);
  CpuSet& operator=(const CpuSet& other);
  /// Leaves `other` a valid empty set (which allocates: std::bad_alloc when memory is out).
  CpuSet(CpuSet&& other);
  CpuSet& operator=(CpuSet&& other) noexcept;

  /// Parses the kernel list syntax: comma-separated N, A-B and A-B:STRIDE items.
  /// Fails with EINVAL naming the offending item ("bad CPU list item '3-x' in '0,3-x'").
  static Result<CpuSet> parse_list(std::string_view text);
  /// Parses a taskset-style hex mask: "0xff", "ff", "ff,ffffffff" (32-bit words, high first).
  static Result<CpuSet> parse_mask(std::string_view text);
  /// Parses a list or, when it starts with 0x, a mask. Object expressions need Topology.
  static Result<CpuSet> parse(std::string_view text);
  /// Builds a set from a vector of CPU numbers.
  static CpuSet from_vector(const std::vector<int>& cpus);
  /// The CPUs [first, last], inclusive.
  static CpuSet range(int first, int last);

  /// Kernel list syntax ("0-3,8"); "" for the empty set.
  std::string to_list() const;
  /// taskset-style hex mask ("0xff"); "0x0" for the empty set.
  std::string to_mask() const;
  /// CPUs in increasing order.
  std::vector<int> to_vector() const;

  void add(int cpu);
  void remove(int cpu);
  void clear();
  bool contains(int cpu) const;
  bool empty() const;
  std::size_t count() const;
  /// Lowest CPU, or -1 when empty.
  int first() const;
  /// Highest CPU, or -1 when empty.
  int last() const;
  /// Next CPU after `cpu`, or -1.
  int next(int cpu) const;
  bool is_subset_of(const CpuSet& other) const;
  bool intersects(const CpuSet& other) const;

  CpuSet operator&(const CpuSet& other) const;
  CpuSet operator|(const CpuSet& other) const;
  /// Set difference: CPUs in *this and not in `other`.
  CpuSet operator-(const CpuSet& other) const;
  CpuSet& operator&=(const CpuSet& other);
  CpuSet& operator|=(const CpuSet& other);
  CpuSet& operator-=(const CpuSet& other);
  bool operator==(const CpuSet& other) const;
  bool operator!=(const CpuSet& other) const { return !(*this == other); }

  /// The underlying hwloc bitmap (hwloc_bitmap_t), for code that talks to hwloc.
  void* native_handle() const { return bitmap_; }

 private:
  void* bitmap_;  // hwloc_bitmap_t; kept opaque so public headers need no hwloc
};

}  // namespace threadmap
