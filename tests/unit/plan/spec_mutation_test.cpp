// Poor man's fuzzing of the spec parser and planner (gcc has no libFuzzer): thousands of
// deterministic byte mutations of a valid spec must each either plan or fail with one error
// line; never crash, hang or print. Run under the sanitizer build it also checks memory safety.
#include <gtest/gtest.h>

#include <random>

#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan {
namespace {

constexpr const char* kSeed = R"({"threads": [{"name": "p", "traits": ["latency-critical"]},
 {"name": "c", "share-core-with": "p"}, {"name": "w[0-2]", "traits": ["compute"], "cpus": "0-1"},
 {"name": "b", "traits": ["background"], "memory-node": 0}],
 "edges": [{"between": ["p", "w[0-2]"], "weight": 2}], "groups": [{"threads": ["w[0-2]"]}],
 "constraints": {"allowed": "0-1", "reserved": ""}, "oversubscribe": true})";

TEST(SpecMutation, EveryMutantPlansOrFailsWithOneLine) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  const std::string seed = kSeed;
  const std::string alphabet = "{}[]\":,-0123456789abcdefghijklmnopqrstuvwxyz \\";
  std::mt19937 rng(12345);
  int planned = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = seed;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 3);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    auto spec = parse_spec(text, "mutant");
    std::string message;
    if (spec.ok()) {
      PlanInputs in;
      in.topology = &topo;
      in.solve.local_time_limit_s = 0.2;
      in.solve.exact_time_limit_s = 0.2;
      auto plan = make_plan(*spec, in);
      if (plan.ok()) {
        ++planned;
        EXPECT_EQ(plan->assignments.size(), spec->threads.size());
        continue;
      }
      message = plan.error().message;
    } else {
      message = spec.error().message;
    }
    ++refused;
    EXPECT_FALSE(message.empty()) << text;
    EXPECT_EQ(message.find('\n'), std::string::npos) << text;
  }
  EXPECT_GT(planned, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace threadmap::plan
