// The metric: wall/cpu read from the run, a printed number found by a regex (the last match
// counts), directions, and the command-line mistakes refused before anything runs.
#include "src/tune/metric.hpp"

#include <gtest/gtest.h>

#include "src/tune/duration.hpp"

using namespace threadmap;

TEST(TuneMetric, WallAndCpuComeFromTheRun) {
  os::MeasuredRun run;
  run.wall_s = 1.5;
  run.cpu_s = 2.75;
  auto wall = tune::parse_metric("wall", false, false);
  auto cpu = tune::parse_metric("cpu", false, false);
  ASSERT_TRUE(wall && cpu);
  EXPECT_EQ(*tune::metric_value(*wall, run), 1.5);
  EXPECT_EQ(*tune::metric_value(*cpu, run), 2.75);
  EXPECT_FALSE(wall->higher_is_better);
}

TEST(TuneMetric, RegexTakesTheLastMatch) {
  auto m = tune::parse_metric("ops/s=([0-9.]+)", true, false);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(m->higher_is_better);
  os::MeasuredRun run;
  run.output = "warmup ops/s=10\nresult ops/s=1234.5\n";
  EXPECT_EQ(*tune::metric_value(*m, run), 1234.5);
  run.output = "nothing here\n";
  EXPECT_FALSE(tune::metric_value(*m, run));
}

TEST(TuneMetric, MistakesAreRefused) {
  EXPECT_FALSE(tune::parse_metric("ops/s=[0-9]+", true, false));   // no capture group
  EXPECT_FALSE(tune::parse_metric("(a)(b)", true, false));         // two groups
  EXPECT_FALSE(tune::parse_metric("ops=([0-9]+)", false, false));  // no direction
  EXPECT_FALSE(tune::parse_metric("wall", true, false));           // a time is never higher
  EXPECT_FALSE(tune::parse_metric("ops=([0-9]+", true, false));    // not a regex
  EXPECT_FALSE(tune::parse_metric("ops=([0-9]+)", true, true));    // both directions
}

// Each refusal names the member at fault (the CLI names its flag); the library's message
// describes the values and names no flag.
TEST(TuneMetric, EachMistakeNamesItsMember) {
  auto none = tune::parse_metric("ops=([0-9]+)", false, false);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().input, "higher");
  EXPECT_EQ(none.error().fault, Fault::input);
  EXPECT_EQ(none.error().message.find("--"), std::string::npos) << none.error().message;
  auto time = tune::parse_metric("wall", true, false);
  ASSERT_FALSE(time);
  EXPECT_EQ(time.error().input, "higher");
  auto groups = tune::parse_metric("(a)(b)", true, false);
  ASSERT_FALSE(groups);
  EXPECT_EQ(groups.error().input, "metric");
}

TEST(TuneMetric, LastLinesOfOutput) {
  EXPECT_EQ(tune::last_lines("a\nb\nc\nd\n", 2), "c\nd");
  EXPECT_EQ(tune::last_lines("only", 5), "only");
  EXPECT_EQ(tune::last_lines("", 5), "");
  EXPECT_EQ(tune::one_line("a\nb\r\nc"), "a | b | c");
  EXPECT_EQ(tune::one_line("0123456789", 4), "...6789");
}

TEST(TuneDuration, UnitsAndMistakes) {
  EXPECT_EQ(*tune::parse_duration("90"), 90);
  EXPECT_EQ(*tune::parse_duration("30s"), 30);
  EXPECT_EQ(*tune::parse_duration("500ms"), 0.5);
  EXPECT_EQ(*tune::parse_duration("2m"), 120);
  EXPECT_EQ(*tune::parse_duration("1.5h"), 5400);
  EXPECT_FALSE(tune::parse_duration("0"));
  EXPECT_FALSE(tune::parse_duration("-3s"));
  EXPECT_FALSE(tune::parse_duration("fast"));
  EXPECT_FALSE(tune::parse_duration("3 weeks"));
}
