// Test program for `threadmap run`: its threads report, as their very first action, the CPU
// they are on (sched_getcpu) and their affinity. One line per thread on stdout:
//   <label> cpu=<N> affinity=<list>
// Modes:
//   pthreads N         N threads created with pthread_create, creation order = index
//   serial N           N threads created and joined one at a time (reused by a thread cache)
//   named N            N threads that name themselves worker-<k>, then report
//   async N            N std::async(std::launch::async) tasks
//   many N             N threads created and joined one after another; prints RSS growth
//   exec               prints whether TM_PIN_CONFIG is set, then execs itself "pthreads 1"
//   exit CODE          exits with CODE after reporting the main thread
//   sleep MS           one thread that reports, then sleeps MS ms (something to watch)
//   ownaffinity CPU    thread "own-0" created with pthread_attr_setaffinity_np(CPU), then a
//                      plain "thread-1", one after the other
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <vector>

namespace {

std::string affinity_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    if (!out.empty()) out += ",";
    out += std::to_string(c);
  }
  return out;
}

void report(const std::string& label) {
  int cpu = sched_getcpu();
  std::string line = label + " cpu=" + std::to_string(cpu) + " affinity=" + affinity_list() + "\n";
  // One write per line so lines from several threads do not interleave.
  ssize_t ignored = write(STDOUT_FILENO, line.data(), line.size());
  (void)ignored;
}

void* plain_thread(void* arg) {
  report("thread-" + std::to_string(reinterpret_cast<long>(arg)));
  return nullptr;
}

void* named_thread(void* arg) {
  std::string name = "worker-" + std::to_string(reinterpret_cast<long>(arg));
  pthread_setname_np(pthread_self(), name.c_str());
  report(name);
  return nullptr;
}

void* empty_thread(void*) { return nullptr; }

void* own_thread(void*) {
  report("own-0");
  return nullptr;
}

// One thread placed by the program itself, then one left to whoever places threads.
int own_affinity(int cpu) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_attr_setaffinity_np(&attr, sizeof set, &set) != 0) return 3;
  pthread_t t;
  if (pthread_create(&t, &attr, own_thread, nullptr) != 0) return 3;
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  if (pthread_create(&t, nullptr, plain_thread, reinterpret_cast<void*>(1L)) != 0) return 3;
  pthread_join(t, nullptr);
  return 0;
}

void* sleeping_thread(void* arg) {
  report("thread-0");
  usleep(static_cast<useconds_t>(reinterpret_cast<long>(arg)) * 1000);
  return nullptr;
}

long rss_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::atol(line + 6);
  std::fclose(f);
  return kib;
}

int create_all(int n, void* (*fn)(void*)) {
  std::vector<pthread_t> threads(static_cast<size_t>(n));
  for (long k = 0; k < n; ++k)
    if (pthread_create(&threads[static_cast<size_t>(k)], nullptr, fn, reinterpret_cast<void*>(k)) !=
        0)
      return 3;
  for (auto& t : threads) pthread_join(t, nullptr);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  report("main");
  if (argc < 2) return 2;
  std::string mode = argv[1];
  int n = argc > 2 ? std::atoi(argv[2]) : 1;
  if (mode == "pthreads") return create_all(n, plain_thread);
  if (mode == "ownaffinity") return own_affinity(n);
  if (mode == "named") return create_all(n, named_thread);
  if (mode == "serial") {
    for (long k = 0; k < n; ++k) {
      pthread_t t;
      if (pthread_create(&t, nullptr, plain_thread, reinterpret_cast<void*>(k)) != 0) return 3;
      pthread_join(t, nullptr);
    }
    return 0;
  }
  if (mode == "async") {
    std::vector<std::future<void>> tasks;
    for (int k = 0; k < n; ++k)
      tasks.push_back(
          std::async(std::launch::async, [k] { report("async-" + std::to_string(k)); }));
    for (auto& t : tasks) t.get();
    return 0;
  }
  if (mode == "many") {
    // Warm up (first creations map stacks and grow the allocator), then measure growth.
    for (int k = 0; k < 100; ++k) {
      pthread_t t;
      if (pthread_create(&t, nullptr, empty_thread, nullptr) != 0) return 3;
      pthread_join(t, nullptr);
    }
    long before = rss_kib();
    for (int k = 0; k < n; ++k) {
      pthread_t t;
      if (pthread_create(&t, nullptr, empty_thread, nullptr) != 0) return 3;
      pthread_join(t, nullptr);
    }
    std::printf("rss_growth_kib=%ld created=%d\n", rss_kib() - before, n);
    return 0;
  }
  if (mode == "exec") {
    std::printf(
        "config_in_env=%d preload_has_pin=%d\n", std::getenv("TM_PIN_CONFIG") != nullptr,
        std::getenv("LD_PRELOAD") && std::strstr(std::getenv("LD_PRELOAD"), "threadmap-pin"));
    std::fflush(stdout);
    execl("/proc/self/exe", argv[0], "pthreads", "1", static_cast<char*>(nullptr));
    return 4;
  }
  if (mode == "exit") return n;
  if (mode == "sleep") {
    pthread_t t;
    if (pthread_create(&t, nullptr, sleeping_thread,
                       reinterpret_cast<void*>(static_cast<long>(n))) != 0)
      return 3;
    pthread_join(t, nullptr);
    return 0;
  }
  return 2;
}
