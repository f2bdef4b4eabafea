// The sampler on this test's own threads: a thread that hops between CPUs shows migrations,
// one pinned from its creation shows none.
#include "src/monitor/thread_sampler.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "src/monitor/watch_history.hpp"

namespace threadmap::monitor {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<pid_t> g_hopper_tid{0}, g_pinned_tid{0};

void busy_ms(int ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
  }
}

void* hopper(void*) {
  g_hopper_tid = gettid();
  int cpu = 0;
  while (!g_stop) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    cpu ^= 1;
    busy_ms(2);
  }
  return nullptr;
}

void* pinned(void*) {
  g_pinned_tid = gettid();
  while (!g_stop) {
    busy_ms(1);
    usleep(1000);
  }
  return nullptr;
}

int cpus_available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  return CPU_ISSET(0, &set) && CPU_ISSET(1, &set) ? 2 : 1;
}

TEST(ThreadSampler, CountsMigrationsOfAHopperAndNoneForAPinnedThread) {
  if (cpus_available() < 2) GTEST_SKIP() << "needs CPUs 0 and 1";
  g_stop = false;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(1, &one);
  pthread_attr_setaffinity_np(&attr, sizeof one, &one);  // pinned before it runs
  pthread_t a, b;
  ASSERT_EQ(pthread_create(&b, &attr, pinned, nullptr), 0);
  ASSERT_EQ(pthread_create(&a, nullptr, hopper, nullptr), 0);
  pthread_attr_destroy(&attr);
  while (!g_hopper_tid || !g_pinned_tid) usleep(1000);

  ThreadSampler sampler(getpid());
  WatchHistory history(getpid());
  // At least 8 samples; more (up to 60) while the hopper has not yet been caught on both CPUs:
  // on a loaded machine a few samples can all land while it sits on one.
  auto hopper_seen_on_both = [&] {
    for (const auto& t : history.threads())
      if (t.tid == g_hopper_tid) return t.samples_on_cpu.size() >= 2;
    return false;
  };
  for (int i = 0; i < 60 && (i < 8 || !hopper_seen_on_both()); ++i) {
    auto sample = sampler.sample();
    ASSERT_TRUE(sample.ok()) << sample.error().message;
    history.add(*sample);
    usleep(50000);
  }
  g_stop = true;
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);

  auto summary = summarize_watch(history, {}, sampler.source(), sampler.hardware_counters(), "");
  const ThreadSummary* hop = nullptr;
  const ThreadSummary* pin = nullptr;
  for (const auto& t : summary.threads) {
    if (t.tid == g_hopper_tid) hop = &t;
    if (t.tid == g_pinned_tid) pin = &t;
  }
  ASSERT_NE(hop, nullptr);
  ASSERT_NE(pin, nullptr);
  EXPECT_GT(hop->migrations, 10u) << counter_source_name(sampler.source());
  EXPECT_EQ(hop->cpus_visited.to_list(), "0-1");
  EXPECT_EQ(pin->migrations, 0u);
  EXPECT_EQ(pin->cpus_visited.to_list(), "1");
  EXPECT_GT(pin->context_switches, 0u);
}

TEST(ThreadSampler, ProcfsFallbackAlsoSeesMigrations) {
  if (cpus_available() < 2) GTEST_SKIP() << "needs CPUs 0 and 1";
  if (access("/proc/self/sched", R_OK) != 0) GTEST_SKIP() << "kernel without /proc/PID/sched";
  g_stop = false;
  g_hopper_tid = 0;
  pthread_t a;
  ASSERT_EQ(pthread_create(&a, nullptr, hopper, nullptr), 0);
  while (!g_hopper_tid) usleep(1000);
  ThreadSampler sampler(getpid(), SamplerOptions{false, false});
  WatchHistory history(getpid());
  for (int i = 0; i < 5; ++i) {
    auto sample = sampler.sample();
    ASSERT_TRUE(sample.ok());
    history.add(*sample);
    usleep(50000);
  }
  g_stop = true;
  pthread_join(a, nullptr);
  EXPECT_EQ(sampler.source(), CounterSource::sched);
  auto summary = summarize_watch(history, {}, sampler.source(), false, "");
  bool found = false;
  for (const auto& t : summary.threads) {
    if (t.tid != g_hopper_tid) continue;
    found = true;
    EXPECT_GT(t.migrations, 5u);
  }
  EXPECT_TRUE(found);
}

std::atomic<bool> g_release{false};
std::atomic<pid_t> g_waiter_tid{0};

void* waiter(void*) {
  g_waiter_tid = gettid();
  while (!g_release) usleep(1000);
  return nullptr;
}

pthread_t start_waiter() {
  g_release = false;
  g_waiter_tid = 0;
  pthread_t t;
  pthread_create(&t, nullptr, waiter, nullptr);
  while (!g_waiter_tid) usleep(1000);
  return t;
}

bool listed(const ProcessSample& sample, pid_t tid) {
  for (const auto& t : sample.threads)
    if (t.tid == tid) return true;
  return false;
}

// A thread exits and another starts between two samples: the task count is the same, and the
// exited thread's perf counters still read. The sampler must drop the one and find the other.
TEST(ThreadSampler, AThreadReplacedBetweenSamplesIsSeen) {
  if (access("/proc/self/schedstat", R_OK) != 0) GTEST_SKIP() << "no schedstat in this kernel";
  pthread_t first = start_waiter();
  const pid_t first_tid = g_waiter_tid;
  ThreadSampler sampler(getpid());
  auto before = sampler.sample();
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(listed(*before, first_tid));
  g_release = true;
  pthread_join(first, nullptr);
  pthread_t second = start_waiter();
  const pid_t second_tid = g_waiter_tid;
  auto after = sampler.sample();
  g_release = true;
  pthread_join(second, nullptr);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(listed(*after, first_tid)) << "an exited thread is still listed";
  EXPECT_TRUE(listed(*after, second_tid)) << "the new thread was not seen";
}

TEST(ThreadSampler, ReportsAProcessThatIsGone) {
  ThreadSampler sampler(999999999);
  auto sample = sampler.sample();
  ASSERT_FALSE(sample.ok());
  EXPECT_EQ(sample.error().code.value(), ESRCH);
}

}  // namespace
}  // namespace threadmap::monitor
