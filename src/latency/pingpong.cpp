// The ping-pong itself. The line sits in a page mapped for this pass alone and written first by
// the initiator, so no earlier owner (another pair's thread, the allocator) decides where it
// lives. Counters rather than flags: each side knows which value it waits for, so a late or
// duplicated message cannot be miscounted, and the stop sentinel needs no second line.
#include "src/latency/pingpong.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "src/latency/clock.hpp"
#include "src/latency/stats.hpp"
#include "src/os/memory.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::latency {
namespace {

using Counter = std::atomic<std::uint64_t>;
constexpr std::uint64_t kStop = ~std::uint64_t{0};
// The second line of the two-lines method sits 128 bytes after the first: a separate line, and
// outside the adjacent-line prefetcher's 128-byte pair.
constexpr std::size_t kSecondLineOffset = 128;
constexpr std::size_t kPageBytes = 4096;

struct Control {
  std::atomic<int> responder_state{0};  // 0 starting, 1 pinned and waiting, -1 failed
  std::atomic<void*> page{nullptr};
  std::atomic<bool> abort{false};
  std::atomic<bool> responder_done{false};
  std::atomic<bool> responder_abandoned{false};  // stalled and never stopped: detach, keep page
  Error responder_error;
};

void respond_cas(Counter* line) {
  std::uint64_t next = 1;
  for (;;) {
    std::uint64_t expected = next;
    if (line->compare_exchange_strong(expected, next + 1, std::memory_order_acq_rel,
                                      std::memory_order_relaxed)) {
      next += 2;
    } else if (expected == kStop) {
      return;
    }
  }
}

void respond_two_lines(Counter* ping, Counter* pong) {
  for (std::uint64_t n = 1;; ++n) {
    std::uint64_t v;
    while ((v = ping->load(std::memory_order_acquire)) != n) {
      if (v == kStop) return;
    }
    pong->store(n, std::memory_order_release);
  }
}

// Holds the Control by shared_ptr: an abandoned (detached) responder may outlive the pass.
void responder_main(int cpu, Method method, std::shared_ptr<Control> control) {
  if (Status pinned = pin_current_thread(CpuSet{cpu}); !pinned) {
    control->responder_error = pinned.error();
    control->responder_state.store(-1, std::memory_order_release);
    return;
  }
  control->responder_state.store(1, std::memory_order_release);
  void* page = nullptr;
  while ((page = control->page.load(std::memory_order_acquire)) == nullptr) {
    if (control->abort.load(std::memory_order_acquire)) return;
  }
  auto* base = static_cast<unsigned char*>(page);
  if (method == Method::cas) {
    respond_cas(reinterpret_cast<Counter*>(base));
  } else {
    respond_two_lines(reinterpret_cast<Counter*>(base),
                      reinterpret_cast<Counter*>(base + kSecondLineOffset));
  }
  control->responder_done.store(true, std::memory_order_release);
}

// Times `round_trips` round trips; returns the batch's duration in ns, or -1 when the responder
// stopped answering (see stalled()).
class Initiator {
 public:
  Initiator(Method method, unsigned char* page, double stall_ns)
      : method_(method), page_(page), stall_ns_(static_cast<std::int64_t>(stall_ns)) {}

  std::int64_t batch(std::size_t round_trips) {
    auto* line = reinterpret_cast<Counter*>(page_);
    auto* pong = reinterpret_cast<Counter*>(page_ + kSecondLineOffset);
    std::int64_t start = now_ns();
    batch_start_ = start;
    if (method_ == Method::cas) {
      for (std::size_t r = 0; r < round_trips; ++r) {
        std::uint64_t expected = counter_;
        while (!line->compare_exchange_strong(expected, counter_ + 1, std::memory_order_acq_rel,
                                              std::memory_order_relaxed)) {
          expected = counter_;
          if (check_stall()) return -1;
        }
        counter_ += 2;
      }
      while (line->load(std::memory_order_acquire) != counter_) {
        if (check_stall()) return -1;
      }
    } else {
      for (std::size_t r = 0; r < round_trips; ++r) {
        ++counter_;
        line->store(counter_, std::memory_order_release);
        while (pong->load(std::memory_order_acquire) != counter_) {
          if (check_stall()) return -1;
        }
      }
    }
    return now_ns() - start;
  }

  /// True once a batch waited longer than the stall limit for the responder.
  bool stalled() const { return stalled_; }

  void stop() { reinterpret_cast<Counter*>(page_)->store(kStop, std::memory_order_release); }

 private:
  // Only while waiting: reads the clock every 2^18 spins (tens of ms), so the round trips that
  // are being timed pay nothing but a counter increment.
  bool check_stall() {
    if ((++spins_ & 0x3FFFF) != 0) return false;
    if (now_ns() - batch_start_ > stall_ns_) stalled_ = true;
    return stalled_;
  }

  Method method_;
  unsigned char* page_;
  std::int64_t stall_ns_;
  std::uint64_t counter_ = 0;
  std::uint64_t spins_ = 0;
  std::int64_t batch_start_ = 0;
  bool stalled_ = false;
};

double ns_since(std::int64_t start) { return static_cast<double>(now_ns() - start); }

// Calibrate: grow the batch until it lasts min_batch_ns (the first batches also warm up).
// Returns the round trips per batch.
std::size_t calibrate(Initiator& initiator, const PassConfig& config, std::int64_t start) {
  std::size_t round_trips = config.fixed_round_trips ? config.fixed_round_trips : 8;
  while (config.fixed_round_trips == 0) {
    // The fastest of three batches decides: a slow first batch (page fault, the responder's
    // wake-up) must not leave the batch too short for the clock.
    double ns = static_cast<double>(initiator.batch(round_trips));
    for (int k = 0; k < 2; ++k) {
      ns = std::min(ns, static_cast<double>(initiator.batch(round_trips)));
    }
    if (initiator.stalled()) break;
    if (ns >= config.min_batch_ns || round_trips >= (std::size_t{1} << 24)) break;
    double scale = ns > 0 ? config.min_batch_ns / ns * 1.25 : 8;
    round_trips =
        static_cast<std::size_t>(static_cast<double>(round_trips) * std::clamp(scale, 1.25, 8.0)) +
        1;
    if (ns_since(start) > config.budget_ns) break;
  }
  return round_trips;
}

// Fixed-iteration mode, the way other tools measure: exactly config.fixed_samples batches.
void sample_fixed(Initiator& initiator, const PassConfig& config, std::size_t round_trips,
                  PassResult* out) {
  initiator.batch(round_trips);  // one untimed warm-up batch, as the fixed-iteration tools do
  for (std::size_t k = 0; k < config.fixed_samples && !initiator.stalled(); ++k) {
    auto ns = static_cast<double>(initiator.batch(round_trips));
    if (initiator.stalled()) break;
    out->one_way_ns.push_back(ns / static_cast<double>(round_trips) / 2.0);
  }
}

// Batches until the median is known to the precision asked for, the budget is spent (with at
// least 6 samples) or max_samples are taken.
void sample_until_converged(Initiator& initiator, const PassConfig& config, std::size_t round_trips,
                            PassResult* out, std::int64_t start) {
  while (!initiator.stalled() && out->one_way_ns.size() < config.max_samples) {
    auto ns = static_cast<double>(initiator.batch(round_trips));
    if (initiator.stalled()) break;
    if (ns < config.min_batch_ns) {
      // Calibrated while the machine was slow (all three calibration batches preempted): this
      // batch was too short for the clock. Drop it, grow the batch, and go on.
      double scale = ns > 0 ? config.min_batch_ns / ns * 1.25 : 2;
      round_trips = static_cast<std::size_t>(static_cast<double>(round_trips) *
                                             std::clamp(scale, 1.25, 8.0)) +
                    1;
      out->round_trips_per_batch = round_trips;
      if (ns_since(start) > config.budget_ns && out->one_way_ns.size() >= 6) break;
      continue;
    }
    out->one_way_ns.push_back(ns / static_cast<double>(round_trips) / 2.0);
    std::size_t n = out->one_way_ns.size();
    if (n >= config.min_samples && n % 4 == 0 &&
        is_converged(summarize(out->one_way_ns), config.precision)) {
      out->converged = true;
      break;
    }
    if (ns_since(start) > config.budget_ns && n >= 6) break;
  }
}

// Stops the responder and unmaps the line. A stalled responder may not run again for a long
// time: wait a bounded while, then leave it (detached, its page left mapped) rather than hang
// with it.
void release_responder(Initiator& initiator, Control* control, void* page) {
  initiator.stop();
  const std::int64_t stop_sent = now_ns();
  while (!control->responder_done.load(std::memory_order_acquire)) {
    if (initiator.stalled() && now_ns() - stop_sent > 1'000'000'000) {
      control->responder_abandoned.store(true, std::memory_order_release);
      break;
    }
  }
  if (!control->responder_abandoned.load(std::memory_order_acquire)) os::unmap(page, kPageBytes);
}

// The initiator thread's whole job. Errors go to `error`; samples to `out`.
void initiator_main(int cpu, int responder_cpu, const PassConfig& config, Control* control,
                    PassResult* out, Error* error, bool* failed) {
  auto fail = [&](Error e) {
    *error = std::move(e);
    *failed = true;
    control->abort.store(true, std::memory_order_release);
  };
  if (Status pinned = pin_current_thread(CpuSet{cpu}); !pinned) return fail(pinned.error());
  int state = 0;
  while ((state = control->responder_state.load(std::memory_order_acquire)) == 0) {
  }
  if (state < 0) return fail(control->responder_error);

  void* page = os::map_anonymous(kPageBytes);
  if (!page) {
    return fail(Error::from_errno(
        errno, std::string("cannot map the latency test line: ") + std::strerror(errno)));
  }
  std::memset(page, 0, kPageBytes);  // first touch, from the initiator's CPU
  out->line_numa_node = os::numa_node_of(page);
  control->page.store(page, std::memory_order_release);

  Initiator initiator(config.method, static_cast<unsigned char*>(page), config.stall_ns);
  const std::int64_t start = now_ns();
  const std::size_t round_trips = calibrate(initiator, config, start);
  out->round_trips_per_batch = round_trips;
  if (config.fixed_samples)
    sample_fixed(initiator, config, round_trips, out);
  else
    sample_until_converged(initiator, config, round_trips, out, start);
  out->elapsed_ns = ns_since(start);
  release_responder(initiator, control, page);
  if (initiator.stalled()) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.3g s", config.stall_ns / 1e9);
    fail(Error::from_errno(ETIMEDOUT, "the thread on CPU " + std::to_string(responder_cpu) +
                                          " did not answer for " + limit +
                                          ": is the CPU owned by another (higher-priority) task?"));
  }
}

}  // namespace

Result<PassResult> measure_pair_pass(int initiator_cpu, int responder_cpu,
                                     const PassConfig& config) {
  auto control = std::make_shared<Control>();
  PassResult result;
  Error error;
  bool failed = false;
  std::thread responder(responder_main, responder_cpu, config.method, control);
  std::thread initiator(initiator_main, initiator_cpu, responder_cpu, std::cref(config),
                        control.get(), &result, &error, &failed);
  initiator.join();
  if (control->responder_abandoned.load(std::memory_order_acquire)) {
    responder.detach();
  } else {
    responder.join();
  }
  if (failed) {
    return error.with_context("cannot measure CPUs " + std::to_string(initiator_cpu) + " <-> " +
                              std::to_string(responder_cpu));
  }
  return result;
}

}  // namespace threadmap::latency
