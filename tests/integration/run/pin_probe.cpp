// Test program for `threadmap run`: its threads report, as their very first action, the CPU
// they are on (sched_getcpu) and their affinity as the kernel holds it. One line per thread on
// stdout:
//   <label> cpu=<N> affinity=<list>
// The main thread reports as "main-start" first and as "main" when the mode is done.
// Modes:
//   pthreads N         N threads created with pthread_create, creation order = index
//   serial N           N threads created and joined one at a time (reused by a thread cache)
//   named N            N threads that name themselves worker-<k>, then report
//   async N            N std::async(std::launch::async) tasks
//   many N             N threads created and joined one after another; prints RSS growth
//   exec               prints whether TM_PIN_CONFIG is set, then execs itself "pthreads 1"
//                      with PROBE_TAG=exec
//   exec threads       the same after running one thread of its own first ("thread-0")
//   copyenv            copies its environment, runs a thread that stays alive, and meanwhile
//                      forks a child that execs itself "pthreads 1" with that copy (as Python's
//                      subprocess does with env=os.environ) and PROBE_TAG=child
//   PROBE_TAG=T in the environment prefixes every label with "T/" (a probe run by a probe)
//   exit CODE          exits with CODE
//   sleep MS           one thread that reports, then sleeps MS ms (something to watch)
//   ownaffinity CPU    thread "own-0" created with pthread_attr_setaffinity_np(CPU), then a
//                      plain "thread-1", one after the other
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <vector>

namespace {

// The calling thread's mask as the kernel holds it (/proc/thread-self/status), "0,1": not
// sched_getaffinity, which the pin library answers with the program's whole share for a thread
// it placed (the CPU count runtimes size themselves by), as taskset would.
std::string affinity_list() {
  std::FILE* f = std::fopen("/proc/thread-self/status", "r");
  if (!f) return "?";
  char line[4096];
  std::string list;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "Cpus_allowed_list:", 18) == 0) list = line + 18;
  std::fclose(f);
  std::string out;
  size_t at = 0;
  while (at < list.size()) {
    while (at < list.size() && (list[at] == ' ' || list[at] == '\t' || list[at] == ',')) ++at;
    if (at >= list.size() || list[at] < '0' || list[at] > '9') break;
    size_t end = 0;
    int first = std::stoi(list.substr(at), &end);
    at += end;
    int last = first;
    if (at < list.size() && list[at] == '-') {
      last = std::stoi(list.substr(at + 1), &end);
      at += end + 1;
    }
    for (int c = first; c <= last; ++c) out += (out.empty() ? "" : ",") + std::to_string(c);
  }
  return out;
}

void report(const std::string& bare_label) {
  const char* tag = std::getenv("PROBE_TAG");
  std::string label = tag && *tag ? std::string(tag) + "/" + bare_label : bare_label;
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

// A thread that reports, then waits until main lets it go (alive while the child starts).
pthread_mutex_t g_hold = PTHREAD_MUTEX_INITIALIZER;
void* held_thread(void*) {
  report("thread-0");
  pthread_mutex_lock(&g_hold);
  pthread_mutex_unlock(&g_hold);
  return nullptr;
}

int copy_environment_then_spawn(const char* self) {
  std::vector<std::string> copy;
  for (char** e = environ; *e; ++e) copy.push_back(*e);
  copy.push_back("PROBE_TAG=child");
  pthread_mutex_lock(&g_hold);
  pthread_t t;
  if (pthread_create(&t, nullptr, held_thread, nullptr) != 0) return 3;
  std::vector<char*> envp;
  for (auto& e : copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    char* args[] = {const_cast<char*>(self), const_cast<char*>("pthreads"), const_cast<char*>("1"),
                    nullptr};
    execve("/proc/self/exe", args, envp.data());
    _exit(4);
  }
  int status = 0;
  waitpid(child, &status, 0);
  pthread_mutex_unlock(&g_hold);
  pthread_join(t, nullptr);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}

int run_mode(int argc, char** argv) {
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
    if (argc > 2 && std::string(argv[2]) == "threads" && create_all(1, plain_thread) != 0) return 3;
    std::printf(
        "config_in_env=%d preload_has_pin=%d\n", std::getenv("TM_PIN_CONFIG") != nullptr,
        std::getenv("LD_PRELOAD") && std::strstr(std::getenv("LD_PRELOAD"), "threadmap-pin"));
    std::fflush(stdout);
    setenv("PROBE_TAG", "exec", 1);
    execl("/proc/self/exe", argv[0], "pthreads", "1", static_cast<char*>(nullptr));
    return 4;
  }
  if (mode == "copyenv") return copy_environment_then_spawn(argv[0]);
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

}  // namespace

// The main thread reports at its start (on the program's whole share: the pin library applies
// the main rule at the first thread) and at its end (where the main rule put it).
int main(int argc, char** argv) {
  report("main-start");
  int rc = run_mode(argc, argv);
  report("main");
  return rc;
}
