// Test program for `threadmap watch`: thread "hopper" moves itself between CPUs 0 and 1 every
// few milliseconds; thread "steady" is pinned to CPU 1 from its creation (attribute affinity)
// and never moves. Runs for argv[1] ms (default 1500), then exits with status argv[2] (0).
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

namespace {

std::atomic<bool> g_stop{false};

void busy_ms(int ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
  }
}

void* hopper(void*) {
  pthread_setname_np(pthread_self(), "hopper");
  int cpu = 0;
  while (!g_stop) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    cpu ^= 1;
    busy_ms(2);
    usleep(2000);
  }
  return nullptr;
}

void* steady(void*) {
  pthread_setname_np(pthread_self(), "steady");
  while (!g_stop) {
    busy_ms(1);
    usleep(2000);
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  int run_ms = argc > 1 ? std::atoi(argv[1]) : 1500;
  int status = argc > 2 ? std::atoi(argv[2]) : 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(1, &one);
  pthread_attr_setaffinity_np(&attr, sizeof one, &one);
  pthread_t a, b;
  if (pthread_create(&b, &attr, steady, nullptr) != 0) return 3;
  if (pthread_create(&a, nullptr, hopper, nullptr) != 0) return 3;
  usleep(static_cast<useconds_t>(run_ms) * 1000);
  g_stop = true;
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  return status;
}
