// The affinity wrappers against the kernel: what is set is what is read back, and a CPU the
// machine does not have is the kernel's EINVAL, nothing changed.
#include <gtest/gtest.h>

#include <thread>

#include "src/os/kernel_affinity.hpp"
#include "src/os/procfs.hpp"

namespace threadmap::os {
namespace {

TEST(OsAffinity, SetThenReadBackOnAThread) {
  std::vector<int> allowed;
  ASSERT_EQ(get_tid_affinity(0, allowed), 0);
  ASSERT_FALSE(allowed.empty());
  std::thread t([&] {
    ASSERT_EQ(set_tid_affinity(0, {allowed.back()}), 0);
    std::vector<int> now;
    ASSERT_EQ(get_tid_affinity(0, now), 0);
    EXPECT_EQ(now, std::vector<int>{allowed.back()});
    EXPECT_EQ(current_cpu(), allowed.back());
    // CPU 100000 exists on no machine we run on: the kernel refuses, the mask stays.
    EXPECT_EQ(set_tid_affinity(0, {100000}), EINVAL);
    ASSERT_EQ(get_tid_affinity(0, now), 0);
    EXPECT_EQ(now, std::vector<int>{allowed.back()});
  });
  t.join();
}

TEST(OsProcfs, ListsOwnThreadsAndCountsThem) {
  std::atomic<bool> stop{false};
  std::thread t([&] {
    while (!stop.load()) yield_cpu();
  });
  auto tids = list_task_ids(current_pid());
  ASSERT_TRUE(tids.ok());
  EXPECT_GE(tids->size(), 2u);
  EXPECT_EQ(task_count(current_pid()), static_cast<long>(tids->size()));
  stop.store(true);
  t.join();
  EXPECT_FALSE(list_task_ids(-1).ok());
  EXPECT_FALSE(process_exists(-1));
  EXPECT_TRUE(process_exists(current_pid()));
}

}  // namespace
}  // namespace threadmap::os
