// ProcessTreeSampler on children this test forks: with follow they are sampled with their pid
// and listed until they end; past the bound they are counted, not sampled; without follow they
// are not seen.
#include "src/monitor/process_tree_sampler.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace threadmap::monitor {
namespace {

// Children that sleep until killed; killed and reaped at the end of the test.
struct SleepingChildren {
  std::vector<pid_t> pids;
  explicit SleepingChildren(int n) {
    for (int i = 0; i < n; ++i) {
      pid_t pid = fork();
      if (pid == 0) {
        execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
        _exit(127);
      }
      pids.push_back(pid);
    }
  }
  void end(pid_t pid) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    pids.erase(std::find(pids.begin(), pids.end(), pid));
  }
  ~SleepingChildren() {
    for (pid_t pid : pids) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

bool has_thread_of(const ProcessSample& sample, pid_t pid) {
  return std::any_of(sample.threads.begin(), sample.threads.end(),
                     [&](const ThreadSample& t) { return t.pid == pid && t.tid == pid; });
}

bool has_process(const std::vector<ProcessSeen>& seen, pid_t pid) {
  return std::any_of(seen.begin(), seen.end(), [&](const ProcessSeen& p) { return p.pid == pid; });
}

TEST(ProcessTreeSampler, FollowsChildrenUntilTheyEnd) {
  SleepingChildren kids(2);
  ProcessTreeSampler sampler(getpid(), FollowOptions{true});
  auto first = sampler.sample();
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_FALSE(sampler.processes().empty());
  EXPECT_EQ(sampler.processes()[0].pid, getpid());  // the watched process first
  for (pid_t kid : kids.pids) {
    EXPECT_TRUE(has_thread_of(*first, kid)) << kid;
    ASSERT_TRUE(has_process(sampler.processes(), kid)) << kid;
  }
  EXPECT_EQ(sampler.processes()[1].ppid, getpid());
  const pid_t gone = kids.pids[0];
  kids.end(gone);
  auto second = sampler.sample();
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(has_thread_of(*second, gone));
  EXPECT_FALSE(has_process(sampler.processes(), gone));
  EXPECT_TRUE(has_process(sampler.processes(), kids.pids[0]));
  EXPECT_EQ(sampler.processes_not_followed(), 0u);
}

TEST(ProcessTreeSampler, ProcessesPastTheBoundAreCountedNotSampled) {
  SleepingChildren kids(3);
  ProcessTreeSampler sampler(getpid(), FollowOptions{true, 2});  // this one and one child
  auto sample = sampler.sample();
  ASSERT_TRUE(sample) << sample.error().message;
  EXPECT_EQ(sampler.processes().size(), 2u);
  EXPECT_EQ(sampler.processes_not_followed(), 2u);
  ASSERT_TRUE(sampler.sample());
  EXPECT_EQ(sampler.processes_not_followed(), 2u);  // each counted once
}

TEST(ProcessTreeSampler, WithoutFollowOnlyTheProcessItself) {
  SleepingChildren kids(1);
  ProcessTreeSampler sampler(getpid(), FollowOptions{});
  auto sample = sampler.sample();
  ASSERT_TRUE(sample) << sample.error().message;
  EXPECT_FALSE(has_thread_of(*sample, kids.pids[0]));
  EXPECT_TRUE(sampler.processes().empty());
  for (const ThreadSample& t : sample->threads) EXPECT_EQ(t.pid, getpid());
}

TEST(ProcessTreeSampler, NoSuchProcess) {
  ProcessTreeSampler sampler(4194315, FollowOptions{true});
  auto sample = sampler.sample();
  ASSERT_FALSE(sample);
  EXPECT_EQ(sample.error().code.value(), ESRCH);
}

}  // namespace
}  // namespace threadmap::monitor
