// Thread exit runs thread_local destructors, then pthread_key destructors in rounds (a
// destructor that sets a value again gets another round, up to 4), in glibc's order; every key
// reads NULL in the next thread; *_at_thread_exit facilities fire at thread exit.
#include <pthread.h>

#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <string>

extern "C" {
#include "semantics.h"
}

static std::string trace;
static std::mutex trace_lock;
static void add(const std::string& s) {
  std::lock_guard<std::mutex> g(trace_lock);
  trace += s;
}

static pthread_key_t key_a, key_b, key_plain;
static int rounds_left;

static void destroy_a(void* v) {
  add("A");
  if (--rounds_left > 0) pthread_setspecific(key_a, v);  // asks for another round
}
static void destroy_b(void*) { add("B"); }

struct Local {
  std::string name;
  explicit Local(std::string n) : name(std::move(n)) {}
  ~Local() { add("~" + name); }
};

static void* worker(void*) {
  thread_local Local first("t1");
  thread_local Local second("t2");
  (void)first.name.size();
  (void)second.name.size();
  rounds_left = 3;
  pthread_setspecific(key_a, reinterpret_cast<void*>(1));
  pthread_setspecific(key_b, reinterpret_cast<void*>(2));
  pthread_setspecific(key_plain, reinterpret_cast<void*>(3));
  return nullptr;
}

static void* reads_keys(void* out) {
  *static_cast<bool*>(out) = pthread_getspecific(key_a) == nullptr &&
                             pthread_getspecific(key_b) == nullptr &&
                             pthread_getspecific(key_plain) == nullptr;
  return nullptr;
}

static void* exits_midway(void*) {
  thread_local Local local("x");
  (void)local.name.size();
  pthread_setspecific(key_b, reinterpret_cast<void*>(9));
  pthread_exit(nullptr);
}

int main() {
  warm_cache();
  pthread_key_create(&key_a, destroy_a);
  pthread_key_create(&key_b, destroy_b);
  pthread_key_create(&key_plain, nullptr);
  for (int round = 0; round < 3; ++round) {
    trace.clear();
    pthread_t t;
    pthread_create(&t, nullptr, worker, nullptr);
    pthread_join(t, nullptr);
    EXPECT(trace == "~t2~t1ABAA", "thread_local dtors (reverse), then key rounds in key order");
    std::printf("trace %s\n", trace.c_str());
    bool clean = false;
    pthread_create(&t, nullptr, reads_keys, &clean);
    pthread_join(t, nullptr);
    EXPECT(clean, "every key reads NULL in the next thread");
    trace.clear();
    pthread_create(&t, nullptr, exits_midway, nullptr);
    pthread_join(t, nullptr);
    EXPECT(trace == "~xB", "pthread_exit runs thread_local and key destructors");

    std::promise<int> promise;
    std::future<int> future = promise.get_future();
    std::thread setter([&promise] { promise.set_value_at_thread_exit(17); });
    setter.detach();
    EXPECT(future.get() == 17, "promise::set_value_at_thread_exit");

    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::thread notifier([&] {
      std::unique_lock<std::mutex> lk(m);
      done = true;
      std::notify_all_at_thread_exit(cv, std::move(lk));
    });
    notifier.detach();
    {
      std::unique_lock<std::mutex> lk(m);
      cv.wait(lk, [&] { return done; });
    }
    EXPECT(done, "notify_all_at_thread_exit");
    settle();
  }
  pthread_key_delete(key_a);
  return semantics_failures;
}
