// The shared text helpers (src/core/text.hpp): durations as a person reads them (a part that
// took 40 ms is not "0.0 s"), lists joined, NUMA nodes as the kernel writes a node list (the
// form of /sys/devices/system/node/online and numactl --hardware).
#include "src/core/text.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace threadmap {
namespace {

TEST(DurationText, NeverZeroForSomethingThatTookTime) {
  EXPECT_EQ(duration_text(0.04), "40 ms");
  EXPECT_EQ(duration_text(0.0042), "4.2 ms");
  EXPECT_EQ(duration_text(0.00003), "30 us");
  EXPECT_EQ(duration_text(0.5), "500 ms");
  EXPECT_EQ(duration_text(1.26), "1.3 s");
  EXPECT_EQ(duration_text(95.2), "95 s");
  EXPECT_EQ(duration_text(0), "0 s");
  EXPECT_EQ(duration_text(-1), "-");
  EXPECT_EQ(duration_text(NAN), "-");
}

TEST(Joined, SeparatorOnlyBetweenItems) {
  EXPECT_EQ(joined({}), "");
  EXPECT_EQ(joined({"a"}), "a");
  EXPECT_EQ(joined({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(joined({"a", "b"}, ","), "a,b");
  // An empty item keeps its place: the separators still count the items.
  EXPECT_EQ(joined({"", "b"}, ","), ",b");
}

TEST(NodeList, KernelListSyntax) {
  EXPECT_EQ(node_list({}), "");
  EXPECT_EQ(node_list({0}), "0");
  EXPECT_EQ(node_list({0, 1}), "0-1");
  EXPECT_EQ(node_list({3, 0, 1, 2, 5}), "0-3,5");
  EXPECT_EQ(node_list({1, 1, 4, 6, 7}), "1,4,6-7");
}

}  // namespace
}  // namespace threadmap
