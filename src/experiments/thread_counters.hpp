// Per-thread event counts for the migrate experiment: context switches and CPU migrations
// (perf_event_open software counters; else getrusage and /proc/thread-self/sched), L1d and
// dTLB read misses (perf hardware cache counters, which VMs and containers often lack).
// A counter that cannot be opened is reported as unsupported with the reason; nothing fails.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace threadmap::experiments {

/// The events counted, in this order.
enum class ThreadEvent { context_switches, cpu_migrations, l1d_read_misses, dtlb_read_misses };
constexpr std::size_t kThreadEventCount = 4;

/// JSON/table name of an event ("context_switches").
const char* thread_event_name(ThreadEvent event);

/// Counters of the calling thread, started at construction. Not copyable: it owns descriptors.
class ThreadCounters {
 public:
  /// Opens every counter for the calling thread; counts start now.
  ThreadCounters();
  ~ThreadCounters();
  ThreadCounters(const ThreadCounters&) = delete;
  ThreadCounters& operator=(const ThreadCounters&) = delete;

  /// Events since construction; nullopt for an event this machine cannot count. Must be
  /// called on the thread that constructed the object (the fallbacks read that thread).
  std::optional<std::uint64_t> read(ThreadEvent event) const;
  /// How the event is counted here, or why it is not ("perf_event_open: EACCES ...").
  const std::string& how(ThreadEvent event) const;
  /// Whether the event is counted at all.
  bool supported(ThreadEvent event) const;

 private:
  std::array<int, kThreadEventCount> fds_;
  std::array<std::string, kThreadEventCount> how_;
  std::array<std::uint64_t, kThreadEventCount> fallback_start_{};
  std::array<bool, kThreadEventCount> supported_{};
};

}  // namespace threadmap::experiments
