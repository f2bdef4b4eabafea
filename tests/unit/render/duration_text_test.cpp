// Durations as a person reads them: a part that took 40 ms is not "0.0 s".
#include "src/render/duration_text.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace threadmap::render {
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

}  // namespace
}  // namespace threadmap::render
