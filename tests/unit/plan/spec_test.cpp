// The workload spec parser: what users write must mean what they think, and every mistake must
// come back as one error naming the input.
#include "src/plan/spec.hpp"

#include <gtest/gtest.h>

namespace threadmap::plan {
namespace {

std::string error_of(const std::string& json) {
  auto spec = parse_spec(json, "s.json");
  return spec.ok() ? std::string() : spec.error().message;
}

TEST(Spec, ExpandsShorthandTraitsEdgesAndGroups) {
  auto spec = parse_spec(R"({
    "threads": [{"name": "producer", "traits": ["latency-critical"]},
                {"name": "consumer", "share-core-with": "producer"},
                {"name": "worker[0-3]", "traits": ["compute"], "memory-node": 1},
                {"name": "logger", "traits": ["background"], "cpus": "0-3"}],
    "edges": [{"between": ["producer", "consumer"], "weight": 10},
              {"between": ["producer", "worker[0-1]"]}],
    "groups": [{"threads": ["worker[0-3]"], "weight": 2}],
    "constraints": {"allowed": "0-15", "reserved": "0"},
    "oversubscribe": true})",
                         "s.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_EQ(spec->threads.size(), 7u);
  EXPECT_EQ(spec->threads[2].name, "worker0");
  EXPECT_EQ(spec->threads[5].name, "worker3");
  EXPECT_TRUE(spec->threads[0].latency_critical);
  EXPECT_EQ(spec->threads[1].share_core_with, 0);
  EXPECT_TRUE(spec->threads[4].compute);
  EXPECT_EQ(spec->threads[4].memory_node, 1);
  EXPECT_TRUE(spec->threads[6].background);
  EXPECT_EQ(spec->threads[6].cpus, "0-3");
  // 1 edge + 2 (producer x worker0..1) + 6 (4 workers all-to-all)
  ASSERT_EQ(spec->edges.size(), 9u);
  EXPECT_EQ(spec->edges[0].weight, 10);
  EXPECT_EQ(spec->edges[1].weight, 1);
  EXPECT_EQ(spec->edges[8].weight, 2);
  EXPECT_EQ(spec->allowed, "0-15");
  EXPECT_EQ(spec->reserved, "0");
  EXPECT_TRUE(spec->oversubscribe);
}

TEST(Spec, ShareCoreTraitForm) {
  auto spec = parse_spec(
      R"({"threads": [{"name": "a"}, {"name": "b", "traits": ["share-core-with: a"]}]})", "s");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->threads[1].share_core_with, 0);
}

TEST(Spec, EveryMistakeIsOneErrorNamingTheInput) {
  struct Case {
    const char* json;
    const char* expect;
  };
  const Case cases[] = {
      {"[1]", "top level must be a JSON object"},
      {"{\"threads\": [{\"name\": \"a\"}], \"thread\": 1}", "unknown key 'thread'"},
      {"{\"threads\": []}", "non-empty array"},
      {"{\"threads\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}", "duplicate thread name 'a'"},
      {"{\"threads\": [{\"name\": \"w[0-1]\"}, {\"name\": \"w1\"}]}", "duplicate thread name 'w1'"},
      {"{\"threads\": [{\"name\": \"a\"}], \"edges\": [{\"between\": [\"a\", \"b\"]}]}",
       "unknown thread 'b'"},
      {"{\"threads\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"edges\": [{\"between\": [\"a\", "
       "\"b\"], \"weight\": 0}]}",
       "weight = 0 is out of range (a number > 0 and at most 1e9"},
      {"{\"threads\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"edges\": [{\"between\": [\"a\", "
       "\"b\"], \"weight\": 1e308}]}",
       "edges[0].weight = 1e+308 is out of range"},
      {"{\"threads\": [{\"name\": \"a\"}], \"edges\": [{\"between\": [\"a\", \"a\"]}]}",
       "talks to itself"},
      {"{\"threads\": [{\"name\": \"a\", \"traits\": [\"fast\"]}]}", "unknown trait 'fast'"},
      {"{\"threads\": [{\"name\": \"a\", \"share-core-with\": \"b\"}, {\"name\": \"b\", "
       "\"share-core-with\": \"a\"}]}",
       "share-core-with cycle: a -> b -> a"},
      {"{\"threads\": [{\"name\": \"a\", \"share-core-with\": \"a\"}]}",
       "shares a core with itself"},
      {"{\"threads\": [{\"name\": \"a\", \"share-core-with\": \"zz\"}]}", "unknown thread 'zz'"},
      {"{\"threads\": [{\"name\": \"w[3-1]\"}]}", "first > last"},
      {"{\"threads\": [{\"name\": \"w[1-x]\"}]}", "decimal numbers"},
      {"{\"threads\": [{\"name\": \"a b\"}]}", "only letters"},
      {"{\"threads\": [{\"name\": \"a\", \"traits\": [\"background\", \"compute\"]}]}",
       "cannot be background"},
      {"{\"threads\": [{\"name\": \"a\"}], \"constraints\": {\"allowd\": \"1\"}}",
       "unknown key 'allowd'"},
      {"{\"threads\": [{\"name\": \"a\"}], \"oversubscribe\": 1}", "true or false"},
      {"{\"threads\": [{\"name\": \"a\"}], \"groups\": [{\"threads\": [\"a\"]}]}",
       "at least two threads"},
      {"{\"threads\": [{\"name\": \"a\"}", "not valid JSON"},
      {"{\"threads\": [{\"name\": \"w[0-9999]\"}], \"groups\": [{\"threads\": [\"w[0-9999]\"]}]}",
       "use smaller groups"},
      {"{\"threads\": [{\"name\": \"a[0-9999]\"}, {\"name\": \"b[0-9999]\"}], "
       "\"edges\": [{\"between\": [\"a[0-9999]\", \"b[0-9999]\"]}]}",
       "edges in all"},
  };
  for (const Case& c : cases) {
    std::string message = error_of(c.json);
    EXPECT_NE(message.find(c.expect), std::string::npos) << c.json << " -> '" << message << "'";
    EXPECT_EQ(message.rfind("spec s.json: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Found by fuzzing (tests/fuzz): nlohmann throws out_of_range, not parse_error, for a number
// too large; that must be one error line, not an abort.
TEST(Spec, NumberOverflowIsOneErrorLine) {
  auto spec = parse_spec("7777e77775", "s.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("s.json"), std::string::npos);
  EXPECT_EQ(spec.error().message.find('\n'), std::string::npos);
}

TEST(Spec, MissingFileNamesIt) {
  auto spec = load_spec("/nonexistent/spec.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("/nonexistent/spec.json"), std::string::npos);
}

TEST(Spec, QuickForms) {
  auto pairs = pairs_spec(3);
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(pairs->threads.size(), 6u);
  EXPECT_EQ(pairs->edges.size(), 3u);
  EXPECT_EQ(pairs->threads[1].name, "pair0.b");
  auto compact = threads_spec(4, QuickPolicy::compact);
  ASSERT_TRUE(compact.ok());
  EXPECT_EQ(compact->edges.size(), 6u);
  auto scatter = threads_spec(4, QuickPolicy::scatter);
  ASSERT_TRUE(scatter.ok());
  EXPECT_TRUE(scatter->threads[3].compute);
  EXPECT_TRUE(scatter->edges.empty());
  EXPECT_FALSE(pairs_spec(0).ok());
  EXPECT_FALSE(threads_spec(-1, QuickPolicy::compact).ok());
  EXPECT_FALSE(parse_quick_policy("dense").ok());
}

}  // namespace
}  // namespace threadmap::plan
