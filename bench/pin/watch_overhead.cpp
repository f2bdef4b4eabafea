// Cost of watching: a child process holds THREADS sleeping threads; this process samples it
// with ThreadSampler at HZ for SECONDS and reports its own CPU time (getrusage, user+system)
// as a share of one CPU, and the mean cost of one sample. Beside it, in the same loop, a second
// sampler that skips the run-queue wait (schedstat) reads: the CPU time of each sample() call
// of both (CLOCK_THREAD_CPUTIME_ID), so the read's cost is a ratio measured side by side.
// Usage: bench_watch_overhead [THREADS] [HZ] [SECONDS]
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "src/monitor/thread_sampler.hpp"
#include "src/monitor/watch_history.hpp"

namespace {

void* sleeper(void*) {
  for (;;) pause();
  return nullptr;
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double wall_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int hz = argc > 2 ? std::atoi(argv[2]) : 10;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 10;
  int ready[2];
  if (pipe(ready) != 0) return 1;
  pid_t child = fork();
  if (child == 0) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < threads; ++i) {
      pthread_t t;
      if (pthread_create(&t, &attr, sleeper, nullptr) != 0) _exit(2);
    }
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(3);
    for (;;) pause();
  }
  char c;
  if (read(ready[0], &c, 1) != 1) return 1;

  threadmap::monitor::ThreadSampler sampler(child);
  threadmap::monitor::SamplerOptions without_wait;
  without_wait.run_queue_wait = false;
  threadmap::monitor::ThreadSampler plain(child, without_wait);
  if (!plain.sample()) return 1;  // opens its descriptors outside the timed loop
  double with_wait_cpu = 0, without_wait_cpu = 0;
  threadmap::monitor::WatchHistory history(child);
  // The first sample opens every thread's descriptors; it is reported on its own.
  const double open0 = cpu_seconds();
  auto first = sampler.sample();
  if (!first) return 1;
  history.add(*first);
  const double first_cpu = cpu_seconds() - open0;
  const double cpu0 = cpu_seconds(), wall0 = wall_seconds();
  const long samples = static_cast<long>(seconds * hz);
  size_t seen = 0;
  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (long i = 0; i < samples; ++i) {
    next.tv_nsec += 1000000000L / hz;
    next.tv_sec += next.tv_nsec / 1000000000L;
    next.tv_nsec %= 1000000000L;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
    // Which sampler goes first alternates, so neither always finds the files warm.
    if (i % 2) {
      const double t0 = thread_cpu_seconds();
      if (!plain.sample()) break;
      without_wait_cpu += thread_cpu_seconds() - t0;
    }
    const double t1 = thread_cpu_seconds();
    auto sample = sampler.sample();
    with_wait_cpu += thread_cpu_seconds() - t1;
    if (!sample) {
      std::fprintf(stderr, "sample failed: %s\n", sample.error().message.c_str());
      break;
    }
    if (i % 2 == 0) {
      const double t0 = thread_cpu_seconds();
      if (!plain.sample()) break;
      without_wait_cpu += thread_cpu_seconds() - t0;
    }
    seen = sample->threads.size();
    history.add(*sample);
  }
  const double cpu = cpu_seconds() - cpu0, wall = wall_seconds() - wall0;
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  std::printf("watching %zu threads at %d Hz for %.1f s (%ld samples, counters: %s)\n", seen, hz,
              wall, samples, threadmap::monitor::counter_source_name(sampler.source()));
  std::printf("  first sample (opens every thread's counters and files): %.1f ms CPU\n",
              first_cpu * 1e3);
  std::printf(
      "  steady state: watcher CPU time %.3f s = %.2f%% of one CPU (getrusage user+system / "
      "wall)\n",
      cpu, cpu / wall * 100.0);
  std::printf("  steady state per sample: %.0f us (CPU time / samples; both samplers below)\n",
              cpu / static_cast<double>(samples) * 1e6);
  std::printf(
      "  one sample() side by side: %.0f us with the run-queue wait (schedstat), %.0f us "
      "without: %.2fx (thread CPU time, %ld samples each)\n",
      with_wait_cpu / static_cast<double>(samples) * 1e6,
      without_wait_cpu / static_cast<double>(samples) * 1e6,
      without_wait_cpu > 0 ? with_wait_cpu / without_wait_cpu : 0.0, samples);
  return 0;
}
