// Threads of running processes: listing them from procfs and pinning them, including threads
// that appear and vanish while we work.
#include "threadmap/process.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "threadmap/affinity.hpp"

using threadmap::CpuSet;

TEST(ProcessThreads, ListsOwnThreadsWithNames) {
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread t([&] {
    pthread_setname_np(pthread_self(), "tm-lister");
    tid = threadmap::current_tid();
    while (!stop.load()) std::this_thread::yield();
  });
  while (tid.load() == 0) std::this_thread::yield();
  auto threads = threadmap::list_threads(getpid());
  ASSERT_TRUE(threads.ok());
  bool found = false;
  for (const auto& info : *threads) {
    if (info.tid == tid.load()) {
      found = true;
      EXPECT_EQ(info.name, "tm-lister");
      EXPECT_FALSE(info.allowed.empty());
      EXPECT_GE(info.last_cpu, 0);
    }
  }
  EXPECT_TRUE(found);
  stop = true;
  t.join();
}

// threadmap ps's CPU% column: a spinning thread shows CPU use over the sample, a
// thread blocked in a sleep shows (almost) none. Bounds only: on a shared box the spinner gets
// whatever share the scheduler gives it.
TEST(ProcessThreads, SampleShowsWhoUsesTheCpu) {
  std::atomic<bool> stop{false};
  std::atomic<pid_t> busy{0}, idle{0};
  std::thread spinner([&] {
    busy = threadmap::current_tid();
    while (!stop.load()) {
    }
  });
  std::thread sleeper([&] {
    idle = threadmap::current_tid();
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  while (busy.load() == 0 || idle.load() == 0) std::this_thread::yield();
  auto threads = threadmap::sample_threads(getpid(), 0.3);
  stop = true;
  spinner.join();
  sleeper.join();
  ASSERT_TRUE(threads.ok()) << threads.error().message;
  double busy_pct = -1, idle_pct = -1, busy_seconds = -1;
  for (const auto& t : *threads) {
    if (t.tid == busy.load()) busy_pct = t.cpu_percent, busy_seconds = t.cpu_seconds;
    if (t.tid == idle.load()) idle_pct = t.cpu_percent;
  }
  EXPECT_GT(busy_pct, 1.0);
  EXPECT_LE(busy_pct, 150.0);  // one thread cannot use much more than one CPU
  EXPECT_GE(idle_pct, 0.0);
  EXPECT_LT(idle_pct, busy_pct);
  EXPECT_GT(busy_seconds, 0.0);
}

TEST(ProcessThreads, MissingProcessIsEsrch) {
  auto r = threadmap::list_threads(999999999);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code.value(), ESRCH);
  EXPECT_FALSE(threadmap::process_name(-1).ok());
}

namespace {

// A child process with `n` named threads that live until killed.
pid_t spawn_child(int n) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    for (int i = 0; i < n; ++i) {
      pthread_t th;
      pthread_create(
          &th, nullptr,
          [](void* arg) -> void* {
            char name[16];
            snprintf(name, sizeof name, "child-w%ld", reinterpret_cast<long>(arg));
            pthread_setname_np(pthread_self(), name);
            for (;;) pause();
          },
          reinterpret_cast<void*>(static_cast<long>(i)));
    }
    usleep(100000);  // let the threads name themselves
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(1);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  if (read(ready[0], &c, 1) != 1) pid = -1;
  close(ready[0]);
  return pid;
}

void kill_child(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace

TEST(ProcessPin, PinsEveryThreadOfAChild) {
  pid_t child = spawn_child(3);
  ASSERT_GT(child, 0);
  CpuSet target{threadmap::allowed_cpus()->last()};
  auto outcome = threadmap::pin_process_threads(child, target, *threadmap::allowed_cpus(), {});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_TRUE(outcome->ok());
  // main + 3, plus any helper thread a sanitizer runtime adds to the child
  EXPECT_GE(outcome->pinned.size(), 4u);
  EXPECT_EQ(outcome->pinned.size(), threadmap::list_tids(child)->size());
  EXPECT_GE(outcome->list_passes, 2);             // the last pass confirms no new thread appeared
  auto threads = threadmap::list_threads(child);  // keep the Result alive across the loop
  ASSERT_TRUE(threads.ok());
  for (const auto& info : *threads) EXPECT_EQ(info.allowed, target);
  kill_child(child);
}

TEST(ProcessPin, SelectsByNamePatternAndTid) {
  pid_t child = spawn_child(3);
  ASSERT_GT(child, 0);
  CpuSet allowed = *threadmap::allowed_cpus();
  CpuSet target{allowed.first()};
  threadmap::ThreadSelector by_name;
  by_name.name_patterns = {"child-w[01]"};
  auto outcome = threadmap::pin_process_threads(child, target, allowed, by_name);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->pinned.size(), 2u);
  threadmap::ThreadSelector by_tid;
  by_tid.tids = {child, 999999};
  auto second = threadmap::pin_process_threads(child, target, allowed, by_tid);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->pinned, std::vector<pid_t>{child});
  EXPECT_EQ(second->missing_tids, std::vector<pid_t>{999999});
  EXPECT_FALSE(second->ok());
  kill_child(child);
}

TEST(ProcessPin, InvalidRequestPinsNothing) {
  pid_t child = spawn_child(1);
  ASSERT_GT(child, 0);
  CpuSet allowed = *threadmap::allowed_cpus();
  auto before = threadmap::list_threads(child);
  auto r = threadmap::pin_process_threads(child, CpuSet{allowed.last() + 1}, allowed, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not in the allowed set"), std::string::npos);
  auto after = threadmap::list_threads(child);
  for (size_t i = 0; i < before->size(); ++i) EXPECT_EQ((*after)[i].allowed, (*before)[i].allowed);
  kill_child(child);
  EXPECT_FALSE(threadmap::pin_process_threads(child, allowed, allowed, {}).ok());
}

TEST(ProcessPin, CatchesThreadsCreatedWhilePinning) {
  // A child that keeps creating short-lived threads: every pass sees new tids, some vanish.
  pid_t child = fork();
  if (child == 0) {
    for (;;) {
      std::thread([] { usleep(2000); }).detach();
      usleep(500);
    }
  }
  usleep(50000);
  CpuSet allowed = *threadmap::allowed_cpus();
  auto outcome = threadmap::pin_process_threads(child, CpuSet{allowed.first()}, allowed, {});
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->pinned.empty());
  EXPECT_GE(outcome->list_passes, 2);
  // Either the list settled, or we said it kept changing (EAGAIN): never silently incomplete.
  for (const auto& [tid, err] : outcome->failed) EXPECT_EQ(err.code.value(), EAGAIN);
  kill_child(child);
}
