// The one median and quantile (src/core/sample_stats.hpp). Expected values are R's
// quantile(x, q, type = 7) and median(x) on the same small inputs (written here by hand).
#include "src/core/sample_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace threadmap {
namespace {

TEST(SampleStats, MedianOddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);  // the mean of the two middle values
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(SampleStats, QuantileInterpolatesBetweenRanks) {
  const std::vector<double> x = {1, 2, 3, 4, 10};
  EXPECT_DOUBLE_EQ(quantile_of_sorted(x, 0), 1);
  EXPECT_DOUBLE_EQ(quantile_of_sorted(x, 1), 10);
  EXPECT_DOUBLE_EQ(quantile_of_sorted(x, 0.5), 3);
  EXPECT_DOUBLE_EQ(quantile_of_sorted(x, 0.9), 7.6);  // R: quantile(c(1,2,3,4,10), .9) = 7.6
  EXPECT_DOUBLE_EQ(quantile_of_sorted(x, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile_of_sorted({}, 0.5), 0);
}

}  // namespace
}  // namespace threadmap
