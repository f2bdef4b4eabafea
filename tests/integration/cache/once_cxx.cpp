// std::call_once and std::async under the cache, whose pthread_once replaces glibc's
// (src/preload/cache/once.c); identical output with and without the preload.
//  - a callable that throws leaves the flag unset: the exception reaches the caller, and a
//    thread that waited meanwhile runs its own callable (libstdc++ runs call_once through
//    pthread_once, so the exception unwinds through it);
//  - std::async results, exceptions and the thread_local destructors of its threads, over
//    many tasks on recycled threads (each task passes two once_flags).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* name) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", name);
  std::fflush(stdout);
  if (!ok) ++failures;
}

std::atomic<int> destroyed{0};
struct CountsDestruction {
  ~CountsDestruction() { ++destroyed; }
};
thread_local CountsDestruction per_thread;

int task(int i) {
  (void)&per_thread;  // constructs this thread's object: destroyed when the logical thread ends
  if (i % 10 == 9) throw std::runtime_error("task " + std::to_string(i));
  return i * i;
}

}  // namespace

int main() {
  for (int i = 0; i < 3; ++i) std::thread([] {}).join();  // warm the cache

  std::once_flag flag;
  std::atomic<bool> thrower_inside{false}, waiter_ran{false};
  bool caught = false;
  std::thread thrower([&] {
    try {
      std::call_once(flag, [&] {
        thrower_inside = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        throw std::runtime_error("first callable");
      });
    } catch (const std::runtime_error&) {
      caught = true;
    }
  });
  while (!thrower_inside) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread waiter([&] { std::call_once(flag, [&] { waiter_ran = true; }); });
  thrower.join();
  waiter.join();
  expect(caught, "call_once: the callable's exception reaches its caller");
  expect(waiter_ran, "call_once: a caller that waited meanwhile runs its own callable");
  bool ran_again = false;
  std::call_once(flag, [&] { ran_again = true; });
  expect(!ran_again, "call_once: then the flag is set");

  constexpr int kTasks = 2000;
  constexpr int kBatch = 16;
  long long sum = 0;
  int exceptions = 0;
  for (int base = 0; base < kTasks; base += kBatch) {
    std::vector<std::future<int>> futures;
    for (int i = base; i < base + kBatch; ++i)
      futures.push_back(std::async(std::launch::async, task, i));
    for (auto& f : futures) {
      try {
        sum += f.get();
      } catch (const std::runtime_error&) {
        ++exceptions;
      }
    }
  }
  long long want = 0;
  for (int i = 0; i < kTasks; ++i)
    if (i % 10 != 9) want += static_cast<long long>(i) * i;
  expect(sum == want, "std::async: every result arrives");
  expect(exceptions == kTasks / 10, "std::async: every exception arrives");
  expect(destroyed == kTasks, "std::async: each task's thread_local is destroyed");
  return failures;
}
