// The thread cache linked into the program (no LD_PRELOAD). These tests check the behaviour a
// program relies on, and that threads really are recycled; they are the ones the sanitizer
// builds (ASan+UBSan, TSan) run.
//
// The pthread calls under test are bound to libthreadmap-cache.so itself (dlsym on its handle):
// in a plain build that is exactly what the link gives, and in a sanitizer build it steps past
// the sanitizer's interceptors, which model one thread per kernel thread and would otherwise
// make every logical thread a plain glibc one (see tm__sanitized in thread.c).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

struct CacheApi {
  int (*create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  int (*join)(pthread_t, void**);
  int (*tryjoin)(pthread_t, void**);
  int (*detach)(pthread_t);
  int (*cancel)(pthread_t);
  void (*exit)(void*);
  int (*key_create)(pthread_key_t*, void (*)(void*));
  int (*key_delete)(pthread_key_t);
};

template <typename F>
void bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (fn == nullptr) std::abort();
}

const CacheApi& api() {
  static CacheApi a = [] {
    void* lib = dlopen("libthreadmap-cache.so", RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) std::abort();  // it is linked: it must already be loaded
    CacheApi r{};
    bind(lib, "pthread_create", r.create);
    bind(lib, "pthread_join", r.join);
    bind(lib, "pthread_tryjoin_np", r.tryjoin);
    bind(lib, "pthread_detach", r.detach);
    bind(lib, "pthread_cancel", r.cancel);
    bind(lib, "pthread_exit", r.exit);
    bind(lib, "pthread_key_create", r.key_create);
    bind(lib, "pthread_key_delete", r.key_delete);
    return r;
  }();
  return a;
}

void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }

void* report_tid(void* out) {
  *static_cast<long*>(out) = syscall(SYS_gettid);
  return out;
}

TEST(CacheLinked, RecyclesAnExitedThread) {
  long first = 0, second = 0;
  pthread_t t;
  ASSERT_EQ(api().create(&t, nullptr, report_tid, &first), 0);
  ASSERT_EQ(api().join(t, nullptr), 0);
  settle();
  ASSERT_EQ(api().create(&t, nullptr, report_tid, &second), 0);
  ASSERT_EQ(api().join(t, nullptr), 0);
  EXPECT_EQ(first, second) << "the second thread should run on the parked first one";
}

void* return_arg(void* arg) { return arg; }
void* exit_with_arg(void* arg) {
  api().exit(arg);
  return nullptr;
}

TEST(CacheLinked, JoinReceivesReturnAndExitValues) {
  int token = 0;
  for (int i = 0; i < 20; ++i) {
    pthread_t t;
    void* ret = nullptr;
    ASSERT_EQ(api().create(&t, nullptr, (i & 1) ? return_arg : exit_with_arg, &token), 0);
    ASSERT_EQ(api().join(t, &ret), 0);
    EXPECT_EQ(ret, &token);
  }
}

void* self_join(void*) {
  return reinterpret_cast<void*>(static_cast<long>(api().join(pthread_self(), nullptr)));
}
void* sleep_100ms(void* arg) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return arg;
}

TEST(CacheLinked, JoinAndDetachErrorsMatchGlibc) {
  pthread_t t;
  void* ret = nullptr;
  ASSERT_EQ(api().create(&t, nullptr, self_join, nullptr), 0);
  ASSERT_EQ(api().join(t, &ret), 0);
  EXPECT_EQ(reinterpret_cast<long>(ret), EDEADLK);
  ASSERT_EQ(api().create(&t, nullptr, sleep_100ms, nullptr), 0);
  EXPECT_EQ(api().tryjoin(t, nullptr), EBUSY);
  EXPECT_EQ(api().detach(t), 0);
  EXPECT_EQ(api().detach(t), EINVAL);
  EXPECT_EQ(api().join(t, nullptr), EINVAL);
  settle();
  settle();
  settle();
}

std::string trace;
struct Note {
  const char* text;
  ~Note() { trace += text; }
};
void* exits_through_destructors(void*) {
  Note outer{"b"};
  {
    Note inner{"a"};
    api().exit(nullptr);
  }
  return nullptr;
}

TEST(CacheLinked, PthreadExitRunsDestructorsAndKeepsTheThread) {
  for (int i = 0; i < 5; ++i) {
    trace.clear();
    pthread_t t;
    ASSERT_EQ(api().create(&t, nullptr, exits_through_destructors, nullptr), 0);
    ASSERT_EQ(api().join(t, nullptr), 0);
    EXPECT_EQ(trace, "ab");
  }
}

pthread_key_t key;
std::atomic<int> key_destructions{0};
void* sets_key(void* value) {
  pthread_setspecific(key, value);
  return nullptr;
}
void* reads_key(void* out) {
  *static_cast<void**>(out) = pthread_getspecific(key);
  return nullptr;
}

TEST(CacheLinked, KeyDestructorsRunAndKeysStartNull) {
  ASSERT_EQ(api().key_create(&key, [](void*) { key_destructions++; }), 0);
  int value = 1;
  for (int i = 0; i < 5; ++i) {
    pthread_t t;
    ASSERT_EQ(api().create(&t, nullptr, sets_key, &value), 0);
    ASSERT_EQ(api().join(t, nullptr), 0);
    void* seen = &value;
    ASSERT_EQ(api().create(&t, nullptr, reads_key, &seen), 0);
    ASSERT_EQ(api().join(t, nullptr), 0);
    EXPECT_EQ(seen, nullptr);
  }
  EXPECT_EQ(key_destructions.load(), 5);
  api().key_delete(key);
}

thread_local int tls_counter = 5;
void* bumps_tls(void* out) {
  *static_cast<int*>(out) = tls_counter;
  tls_counter += 100;
  return nullptr;
}

TEST(CacheLinked, ThreadLocalsStartFromTheirInitialValue) {
  for (int i = 0; i < 5; ++i) {
    int seen = 0;
    pthread_t t;
    ASSERT_EQ(api().create(&t, nullptr, bumps_tls, &seen), 0);
    ASSERT_EQ(api().join(t, nullptr), 0);
    EXPECT_EQ(seen, 5);
  }
}

void* sleeps_forever(void*) {
  for (;;) pause();
  return nullptr;
}

TEST(CacheLinked, CancelledThreadJoinsAsCanceled) {
  for (int i = 0; i < 3; ++i) {
    pthread_t t;
    ASSERT_EQ(api().create(&t, nullptr, sleeps_forever, nullptr), 0);
    settle();
    ASSERT_EQ(api().cancel(t), 0);
    void* ret = nullptr;
    ASSERT_EQ(api().join(t, &ret), 0);
    EXPECT_EQ(ret, PTHREAD_CANCELED);
  }
}

TEST(CacheLinked, ManyCreatorsMixedDetachedAndJoinable) {
  std::atomic<long> done{0};
  constexpr int kCreators = 8, kEach = 300;
  std::vector<std::thread> creators;
  for (int c = 0; c < kCreators; ++c) {
    creators.emplace_back([&done, c] {
      for (int i = 0; i < kEach; ++i) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, (i % 3 + 1) * (256u << 10));
        bool detach = (i + c) % 4 == 0;
        if (detach) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        ASSERT_EQ(api().create(
                      &t, &attr,
                      [](void* p) -> void* {
                        static_cast<std::atomic<long>*>(p)->fetch_add(1);
                        return p;
                      },
                      &done),
                  0);
        pthread_attr_destroy(&attr);
        if (!detach) {
          void* ret = nullptr;
          ASSERT_EQ(api().join(t, &ret), 0);
          ASSERT_EQ(ret, &done);
        }
      }
    });
  }
  for (auto& c : creators) c.join();
  for (int i = 0; i < 200 && done.load() != kCreators * kEach; ++i) settle();
  EXPECT_EQ(done.load(), kCreators * kEach);
}

}  // namespace
