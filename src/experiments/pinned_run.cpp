#include "src/experiments/pinned_run.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "src/os/kernel_affinity.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::experiments {

Result<double> run_pinned(const std::vector<CpuSet>& cpus,
                          const std::function<void(std::size_t)>& body) {
  return run_pinned(cpus, body, ThreadHooks{});
}

Result<double> run_pinned(const std::vector<CpuSet>& cpus,
                          const std::function<void(std::size_t)>& body, const ThreadHooks& hooks) {
  using Clock = std::chrono::steady_clock;
  const std::size_t n = cpus.size();
  std::atomic<std::size_t> ready{0};
  // 0 = wait, 1 = run, 2 = abort (a thread could not be pinned).
  std::atomic<int> go{0};
  std::vector<std::optional<Error>> errors(n);
  std::vector<Clock::time_point> finished(n);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      if (!cpus[i].empty()) {
        Status pinned = pin_current_thread(cpus[i]);
        if (!pinned) errors[i] = pinned.error();
      }
      if (!errors[i] && hooks.before) hooks.before(i);
      ready.fetch_add(1, std::memory_order_acq_rel);
      // Yielding, not pure spinning: threads pinned to one CPU must let each other get ready.
      while (go.load(std::memory_order_acquire) == 0) os::yield_cpu();
      const bool run = go.load(std::memory_order_acquire) == 1;
      if (run) body(i);
      finished[i] = Clock::now();
      if (run && hooks.after) hooks.after(i);
    });
  }
  while (ready.load(std::memory_order_acquire) < n) os::yield_cpu();
  bool any_error = false;
  for (const auto& e : errors) any_error = any_error || e.has_value();
  const Clock::time_point released = Clock::now();
  go.store(any_error ? 2 : 1, std::memory_order_release);
  for (std::thread& t : threads) t.join();
  for (const auto& e : errors)
    if (e) return *e;
  Clock::time_point last = released;
  for (const auto& f : finished) last = std::max(last, f);
  return std::chrono::duration<double>(last - released).count();
}

}  // namespace threadmap::experiments
