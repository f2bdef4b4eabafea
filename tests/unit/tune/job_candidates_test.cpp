// A job's candidates (`tune --ranks auto --launcher ...`): the launcher's words are split as a
// shell would, every candidate runs the whole job (os: the launcher alone, the others each rank
// under `threadmap run --ranks auto`), and placements that name whole-machine CPUs are refused.
#include "src/tune/job_candidates.hpp"

#include <gtest/gtest.h>

#include "src/tune/reproduce.hpp"
#include "tests/unit/tune/candidate_helpers.hpp"

using namespace threadmap;

namespace {

using tm_test::find;
using tm_test::load;
using tm_test::names;

const std::vector<std::string> kLauncher = {"mpirun", "-np", "2"};

}  // namespace

TEST(TuneJobLauncher, WordsSplitAsAShellWould) {
  auto w = tune::split_words("mpirun  -np 4 --host 'a b' \"x\\\"y $z\" c\\ d\t--oversubscribe");
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(*w, (std::vector<std::string>{"mpirun", "-np", "4", "--host", "a b", "x\"y $z", "c d",
                                          "--oversubscribe"}));
  auto empty_quotes = tune::split_words("srun -n 2 ''");
  ASSERT_TRUE(empty_quotes);
  EXPECT_EQ(empty_quotes->size(), 4u);  // '' is an empty word, as in a shell
}

TEST(TuneJobLauncher, UnclosedQuoteOrNothingIsRefused) {
  for (const char* bad : {"mpirun -np 'x", "mpirun \"-np", "", "   "}) {
    auto w = tune::split_words(bad);
    ASSERT_FALSE(w) << bad;
    EXPECT_EQ(w.error().code, std::errc::invalid_argument) << bad;
  }
}

// On one node of one NUMA node: os (the launcher alone), then each rank's threads compact or
// scattered inside its share; nothing is merged, because the shares are decided in the ranks.
TEST(TuneJobCandidates, DefaultIsTheLauncherAloneThenTheShareOrders) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_job_candidates("", t, kLauncher, {"prog", "a b"}, false);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(names(*set), (std::vector<std::string>{"os", "compact", "scatter"}));
  for (const auto& c : set->list) {
    EXPECT_EQ(c.launcher, kLauncher) << c.name;
    EXPECT_TRUE(c.same_as.empty()) << c.name;
  }
  EXPECT_EQ(tune::run_line(*find(*set, "os")), "mpirun -np 2 prog 'a b'");
  EXPECT_EQ(tune::run_line(*find(*set, "scatter")),
            "mpirun -np 2 threadmap run --ranks auto --policy scatter -- prog 'a b'");
  // What the launcher starts in each rank: our `run`, the rank's place read inside the rank.
  EXPECT_EQ(apply::run_arguments(find(*set, "compact")->options),
            (std::vector<std::string>{"run", "--ranks", "auto", "--policy", "compact", "--", "prog",
                                      "a b"}));
  // The winner's reproduce line is the job itself.
  EXPECT_NE(tune::reproduce_lines(*find(*set, "scatter"), &t, tune::ReproduceTools{})
                .find("mpirun -np 2 threadmap run --ranks auto --policy scatter -- prog"),
            std::string::npos);
}

TEST(TuneJobCandidates, MemoryPoliciesOnlyWhereThereAreSeveralNodes) {
  Topology multi = load("amd-4x-opteron6200-bulldozer-8numa.xml");
  auto set = tune::make_job_candidates("", multi, kLauncher, {"prog"}, false);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(names(*set),
            (std::vector<std::string>{"os", "compact", "scatter", "mem-local", "mem-interleave"}));
  EXPECT_EQ(tune::run_line(*find(*set, "mem-interleave")),
            "mpirun -np 2 threadmap run --ranks auto --policy compact --mem interleave -- prog");
  Topology vm = load("this-vm-kvm-2vcpu-epyc.xml");
  auto one = tune::make_job_candidates("os,mem-local", vm, kLauncher, {"prog"}, false);
  ASSERT_TRUE(one);
  EXPECT_EQ(names(*one), (std::vector<std::string>{"os"}));
}

TEST(TuneJobCandidates, ThreadCacheTwinsButNotForTheLauncherAlone) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_job_candidates("compact,cache", t, kLauncher, {"prog"}, true);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(names(*set), (std::vector<std::string>{"os", "compact", "cache", "compact+cache"}));
  EXPECT_EQ(tune::run_line(*find(*set, "cache")),
            "mpirun -np 2 threadmap run --ranks auto --policy compact --thread-cache -- prog");
}

TEST(TuneJobCandidates, WholeMachinePlacementsAndUnknownNamesAreRefused) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  for (const char* name : {"one-core", "core-per-thread", "one-l3", "cpus:0"}) {
    auto set = tune::make_job_candidates(std::string("os,") + name, t, kLauncher, {"p"}, false);
    ASSERT_FALSE(set) << name;
    EXPECT_EQ(set.error().code, std::errc::invalid_argument);
    EXPECT_NE(set.error().message.find("names CPUs of the whole machine"), std::string::npos)
        << set.error().message;
  }
  auto unknown = tune::make_job_candidates("fastest", t, kLauncher, {"p"}, false);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown candidate 'fastest'"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("round-robin"), std::string::npos);
}
