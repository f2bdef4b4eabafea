// pthread_exit in C++: destructors of every frame it leaves run (innermost first),
// pthread_cleanup_push's C++ form runs, catch (...) that rethrows sees the unwind.
#include <pthread.h>

#include <cstdio>
#include <string>

extern "C" {
#include "semantics.h"
}

static std::string trace;

struct Note {
  const char* text;
  ~Note() { trace += text; }
};

static void c_handler(void* arg) { trace += static_cast<const char*>(arg); }

static void deep(int n) {
  Note note{n == 0 ? "0" : "1"};
  if (n >= 1) pthread_exit(reinterpret_cast<void*>(42));
  if (n < 5) deep(n + 1);
}

static void* worker(void*) {
  Note outer{"o"};
  pthread_cleanup_push(c_handler, const_cast<char*>("h"));
  try {
    std::string big(100, 'x');  // a heap-owning local unwound too
    deep(0);
  } catch (...) {
    trace += "r";
    throw;  // must be rethrown, as with glibc's own unwind
  }
  pthread_cleanup_pop(0);
  return nullptr;
}

int main() {
  warm_cache();
  for (int round = 0; round < 3; ++round) {
    trace.clear();
    pthread_t t;
    void* ret = nullptr;
    pthread_create(&t, nullptr, worker, nullptr);
    pthread_join(t, &ret);
    EXPECT(ret == reinterpret_cast<void*>(42), "exit value through C++ frames");
    EXPECT(trace == "10rho", "destructors, catch-rethrow and cleanup ran innermost first");
    std::printf("trace %s\n", trace.c_str());
    settle();
  }
  return semantics_failures;
}
