// The record file name is where a rank writes inside DIR: it must never leave DIR, whatever the
// host name holds.
#include "src/cluster/rank_record.hpp"

#include <gtest/gtest.h>

using threadmap::cluster::record_file_name;

TEST(RankRecord, FileNameIsHostDotRank) {
  EXPECT_EQ(record_file_name("node017", 3), "node017.3.json");
  EXPECT_EQ(record_file_name("a-b_c.d", 0), "a-b_c.d.0.json");
}

TEST(RankRecord, FileNameNeverLeavesTheDirectory) {
  EXPECT_EQ(record_file_name("../etc", 1), ".._etc.1.json");
  EXPECT_EQ(record_file_name("a/b", 0), "a_b.0.json");
  EXPECT_EQ(record_file_name("", 2), "_.2.json");
  EXPECT_EQ(record_file_name("..", 2), "_...2.json");
}
