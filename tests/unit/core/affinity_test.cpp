// Pinning threads of this process. The machine may have only one or two CPUs: every test
// works with whatever allowed_cpus() returns.
#include "threadmap/affinity.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <thread>

#include "threadmap/topology.hpp"

using threadmap::CpuSet;

namespace {

// Restores the calling thread's affinity when a test ends.
class AffinityGuard {
 public:
  AffinityGuard() : saved_(*threadmap::current_thread_affinity()) {}
  ~AffinityGuard() { (void)threadmap::pin_current_thread(saved_); }

 private:
  CpuSet saved_;
};

}  // namespace

TEST(Affinity, AllowedCpusIsNonEmptyAndContainsOurMask) {
  auto allowed = threadmap::allowed_cpus();
  ASSERT_TRUE(allowed.ok()) << allowed.error().message;
  EXPECT_FALSE(allowed->empty());
  auto mine = threadmap::current_thread_affinity();
  ASSERT_TRUE(mine.ok());
  EXPECT_TRUE(mine->intersects(*allowed));
}

TEST(Affinity, PinCurrentThreadToEachAllowedCpu) {
  AffinityGuard guard;
  for (int cpu : threadmap::allowed_cpus()->to_vector()) {
    ASSERT_TRUE(threadmap::pin_current_thread(CpuSet{cpu}).ok());
    EXPECT_EQ(threadmap::current_thread_affinity()->to_list(), std::to_string(cpu));
    EXPECT_EQ(threadmap::current_cpu(), cpu);  // the kernel migrates us before returning
  }
  ASSERT_TRUE(threadmap::unpin_current_thread().ok());
  EXPECT_EQ(*threadmap::current_thread_affinity(), *threadmap::allowed_cpus());
}

TEST(Affinity, PinOutsideAllowedFailsNamingBothSetsAndChangesNothing) {
  AffinityGuard guard;
  CpuSet before = *threadmap::current_thread_affinity();
  CpuSet allowed = *threadmap::allowed_cpus();
  int outside = allowed.last() + 1;
  auto st = threadmap::pin_current_thread(CpuSet{outside});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, std::make_error_code(std::errc::invalid_argument));
  EXPECT_NE(st.error().message.find("CPU " + std::to_string(outside)), std::string::npos);
  EXPECT_NE(st.error().message.find("allowed set " + allowed.to_list()), std::string::npos);
  EXPECT_EQ(*threadmap::current_thread_affinity(), before);
  EXPECT_FALSE(threadmap::pin_current_thread(CpuSet()).ok());
}

TEST(Affinity, PinByExpression) {
  AffinityGuard guard;
  int cpu = threadmap::allowed_cpus()->first();
  ASSERT_TRUE(threadmap::pin_current_thread(std::to_string(cpu)).ok());
  EXPECT_EQ(threadmap::current_thread_affinity()->first(), cpu);
  // A location naming the same CPU by its hwloc logical index.
  auto topo = threadmap::Topology::load_this_machine();
  ASSERT_TRUE(topo.ok());
  std::string location = "pu:" + std::to_string(topo->pu(cpu)->logical_index);
  auto st = threadmap::pin_current_thread(std::string_view(location));
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(threadmap::current_thread_affinity()->first(), cpu);
  EXPECT_FALSE(threadmap::pin_current_thread(std::string_view("core:999")).ok());
}

TEST(Affinity, PinStdThreadAndPthreadFromOutside) {
  CpuSet target{threadmap::allowed_cpus()->last()};
  std::atomic<bool> go{false};
  std::atomic<int> seen_cpu{-1};
  std::thread t([&] {
    while (!go.load()) std::this_thread::yield();
    seen_cpu = threadmap::current_cpu();
  });
  ASSERT_TRUE(threadmap::pin_thread(t, target).ok());
  EXPECT_EQ(*threadmap::thread_affinity(t.native_handle()), target);
  go = true;
  t.join();
  EXPECT_EQ(seen_cpu.load(), target.first());
  std::thread done;
  EXPECT_FALSE(threadmap::pin_thread(done, target).ok());
}

TEST(Affinity, PinByTidAndReadBack) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> stop{false};
  std::thread t([&] {
    tid = threadmap::current_tid();
    while (!stop.load()) std::this_thread::yield();
  });
  while (tid.load() == 0) std::this_thread::yield();
  CpuSet target{threadmap::allowed_cpus()->first()};
  ASSERT_TRUE(threadmap::pin_tid(tid.load(), target).ok());
  EXPECT_EQ(*threadmap::tid_affinity(tid.load()), target);
  stop = true;
  t.join();
  EXPECT_FALSE(threadmap::tid_affinity(-5).ok());
}
