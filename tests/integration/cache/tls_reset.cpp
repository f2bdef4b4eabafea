// Static TLS starts from its initial image in every new thread: __thread variables with and
// without initialisers, thread_local objects with dynamic initialisation (their constructor
// runs again), and arrays; errno starts at 0.
#include <pthread.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

extern "C" {
#include "semantics.h"
}

static __thread int initialised = 42;
static __thread long zeroed;
static __thread char buffer[256] = "initial";
static int constructions;

struct Dynamic {
  std::string value;
  Dynamic() : value("fresh") { __atomic_add_fetch(&constructions, 1, __ATOMIC_RELAXED); }
};
static thread_local Dynamic dynamic;

struct Seen {
  int initialised;
  long zeroed;
  char buffer[16];
  std::string dynamic;
  int err;
};

static void* observe_then_dirty(void* arg) {
  auto* seen = static_cast<Seen*>(arg);
  seen->err = errno;
  seen->initialised = initialised;
  seen->zeroed = zeroed;
  std::memcpy(seen->buffer, buffer, sizeof seen->buffer - 1);
  seen->buffer[sizeof seen->buffer - 1] = 0;
  seen->dynamic = dynamic.value;
  initialised = -1;
  zeroed = 77;
  std::snprintf(buffer, sizeof buffer, "dirty");
  dynamic.value = "dirty";
  errno = 1234;
  return nullptr;
}

int main() {
  warm_cache();
  for (int round = 0; round < 5; ++round) {
    Seen seen;
    pthread_t t;
    pthread_create(&t, nullptr, observe_then_dirty, &seen);
    pthread_join(t, nullptr);
    EXPECT(seen.initialised == 42, "__thread with initialiser starts from its image");
    EXPECT(seen.zeroed == 0, "__thread without initialiser starts at zero");
    EXPECT(std::string(seen.buffer) == "initial", "__thread array starts from its image");
    EXPECT(seen.dynamic == "fresh", "dynamically initialised thread_local is constructed again");
    EXPECT(seen.err == 0, "errno starts at 0");
    settle();
  }
  std::printf("constructions in threads: %d\n", constructions);
  return semantics_failures;
}
