// The watch summary's pages-per-NUMA-node section, text and JSON, from a summary built by hand
// (two nodes, a node that only appears at the end, huge pages).
#include <gtest/gtest.h>

#include "src/render/watch_view.hpp"

namespace threadmap::render {
namespace {

monitor::WatchSummary two_node_summary() {
  monitor::WatchSummary s;
  s.pid = 42;
  s.numa_start = os::NumaPages{{{0, 256, 256 * 4096, 0}}};
  s.numa_end = os::NumaPages{{{0, 512, 512 * 4096, 0}, {1, 3, 3 * 2048 * 1024, 3}}};
  s.numa_source = "/proc/42/numa_maps";
  s.numa_start_s = 0.1;
  s.numa_end_s = 2.5;
  return s;
}

TEST(WatchNumaView, TextHasOneRowPerNodeAtStartAndEnd) {
  std::string text = watch_summary_text(two_node_summary());
  EXPECT_NE(text.find("pages per NUMA node (/proc/42/numa_maps, measured at 0.10 s and at 2.50 s)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("   0          256        1.0        512      2.0           0"),
            std::string::npos)
      << text;
  // Node 1 held nothing at the start: zeros, not a missing row.
  EXPECT_NE(text.find("   1            0        0.0          3      6.0           3"),
            std::string::npos)
      << text;
}

TEST(WatchNumaView, JsonCarriesBothReadings) {
  nlohmann::json doc = watch_json(two_node_summary(), monitor::WatchHistory(42));
  const auto& numa = doc["numa_pages"];
  EXPECT_EQ(numa["source"], "/proc/42/numa_maps");
  EXPECT_DOUBLE_EQ(numa["start"]["at_s"].get<double>(), 0.1);
  ASSERT_EQ(numa["end"]["nodes"].size(), 2u);
  EXPECT_EQ(numa["end"]["nodes"][1]["node"], 1);
  EXPECT_EQ(numa["end"]["nodes"][1]["pages"], 3);
  EXPECT_EQ(numa["end"]["nodes"][1]["huge_pages"], 3);
  EXPECT_EQ(numa["end"]["nodes"][1]["bytes"], 3 * 2048 * 1024);
}

TEST(WatchNumaView, NoReadingSaysWhy) {
  monitor::WatchSummary s;
  s.pid = 7;
  s.numa_note = "no /proc/7/numa_maps (kernel without NUMA support)";
  EXPECT_NE(watch_summary_text(s).find("pages per NUMA node: not read — no /proc/7/numa_maps"),
            std::string::npos);
  EXPECT_EQ(watch_json(s, monitor::WatchHistory(7))["numa_pages"],
            "not read: no /proc/7/numa_maps (kernel without NUMA support)");
}

}  // namespace
}  // namespace threadmap::render
