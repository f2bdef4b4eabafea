// `pin` and `ps` on the threads of this test process: a thread id pins that thread alone, and a
// thread that names itself with terminal escape sequences cannot repaint the user's terminal.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "../common/run_command.hpp"

namespace {

using tm_test::run;

std::string tm(const std::string& args) { return std::string(THREADMAP_BIN) + " " + args; }

std::vector<int> affinity_of(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Two idle threads of this process, with their kernel ids.
class TwoThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 2; ++i)
      threads_[i] = std::thread([this, i] {
        tids_[i].store(static_cast<pid_t>(syscall(SYS_gettid)));
        while (!stop_.load()) usleep(2000);
      });
    for (auto& t : tids_)
      while (t.load() == 0) usleep(1000);
  }
  void TearDown() override {
    stop_.store(true);
    for (auto& t : threads_) t.join();
  }
  std::thread threads_[2];
  std::atomic<pid_t> tids_[2]{0, 0};
  std::atomic<bool> stop_{false};
};

TEST_F(TwoThreads, PinningAThreadIdPinsThatThreadOnly) {
  const std::vector<int> before_main = affinity_of(getpid());
  const std::vector<int> before_other = affinity_of(tids_[1]);
  ASSERT_FALSE(before_main.empty());
  const int cpu = before_main.back();
  auto r =
      run(tm("pin " + std::to_string(tids_[0]) + " --cpus " + std::to_string(cpu) + " --json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["pinned"].size(), 1u) << r.out;
  EXPECT_EQ(j["pinned"][0].get<int>(), tids_[0]);
  EXPECT_EQ(affinity_of(tids_[0]), std::vector<int>{cpu});
  EXPECT_EQ(affinity_of(tids_[1]), before_other);
  EXPECT_EQ(affinity_of(getpid()), before_main);
}

TEST_F(TwoThreads, ThreadNamesCannotCarryEscapeSequencesToTheTerminal) {
  ASSERT_EQ(pthread_setname_np(threads_[0].native_handle(), "\x1b[2Jevil"), 0);
  auto table = run(tm("ps " + std::to_string(getpid())));
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos);
  EXPECT_NE(table.out.find("\\x1b[2Jevil"), std::string::npos) << table.out;
  auto json = run(tm("ps " + std::to_string(getpid()) + " --json"));
  ASSERT_EQ(json.status, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << json.out;
}

}  // namespace
