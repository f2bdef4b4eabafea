/* Join semantics: return values, pthread_exit values, glibc's error codes, try/timed/clock
 * joins, and join as a happens-before edge. */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "semantics.h"

static int shared_plain; /* written by the thread without atomics: join must order it */

static void *returns_arg(void *arg) {
  shared_plain = 1234;
  return arg;
}
static void *exits_with_arg(void *arg) {
  pthread_exit((char *)arg + 1);
  return NULL;
}
static void *nested_exit_inner(void *arg) { pthread_exit(arg); }
static void *nested_exit(void *arg) {
  nested_exit_inner(arg);
  return NULL;
}
static void *self_join(void *arg) {
  (void)arg;
  return (void *)(long)pthread_join(pthread_self(), NULL);
}
static void *sleeps_200ms(void *arg) {
  struct timespec t = {0, 200 * 1000 * 1000};
  nanosleep(&t, NULL);
  return arg;
}

int main(void) {
  warm_cache();
  static char token[4];
  pthread_t t;
  void *ret = NULL;
  for (int round = 0; round < 3; ++round) {
    EXPECT(pthread_create(&t, NULL, returns_arg, token) == 0, "create");
    EXPECT(pthread_join(t, &ret) == 0 && ret == token, "join gets the start routine's value");
    EXPECT(shared_plain == 1234, "join is a happens-before edge");
    shared_plain = 0;
    pthread_create(&t, NULL, exits_with_arg, token);
    EXPECT(pthread_join(t, &ret) == 0 && ret == token + 1, "join gets pthread_exit's value");
    pthread_create(&t, NULL, nested_exit, token + 2);
    EXPECT(pthread_join(t, &ret) == 0 && ret == token + 2, "pthread_exit from a nested call");
    settle();
  }
  pthread_create(&t, NULL, self_join, NULL);
  pthread_join(t, &ret);
  EXPECT((long)ret == EDEADLK, "self-join is EDEADLK");

  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&t, &attr, sleeps_200ms, NULL);
  EXPECT(pthread_join(t, NULL) == EINVAL, "joining a detached thread is EINVAL");
  pthread_attr_destroy(&attr);

  pthread_create(&t, NULL, sleeps_200ms, NULL);
  EXPECT(pthread_detach(t) == 0, "detach a running thread");
  EXPECT(pthread_detach(t) == EINVAL, "detaching twice is EINVAL");
  EXPECT(pthread_join(t, NULL) == EINVAL, "joining after detach is EINVAL");

  pthread_create(&t, NULL, sleeps_200ms, token);
  EXPECT(pthread_tryjoin_np(t, &ret) == EBUSY, "tryjoin of a running thread is EBUSY");
  struct timespec soon;
  clock_gettime(CLOCK_REALTIME, &soon);
  soon.tv_nsec += 20 * 1000 * 1000;
  if (soon.tv_nsec >= 1000000000L) {
    soon.tv_sec++;
    soon.tv_nsec -= 1000000000L;
  }
  EXPECT(pthread_timedjoin_np(t, &ret, &soon) == ETIMEDOUT, "timedjoin times out");
  struct timespec mono;
  clock_gettime(CLOCK_MONOTONIC, &mono);
  mono.tv_nsec += 10 * 1000 * 1000;
  if (mono.tv_nsec >= 1000000000L) {
    mono.tv_sec++;
    mono.tv_nsec -= 1000000000L;
  }
  EXPECT(pthread_clockjoin_np(t, &ret, CLOCK_MONOTONIC, &mono) == ETIMEDOUT,
         "clockjoin (monotonic) times out");
  EXPECT(pthread_clockjoin_np(t, &ret, CLOCK_PROCESS_CPUTIME_ID, &mono) == EINVAL,
         "clockjoin with an unsupported clock is EINVAL");
  clock_gettime(CLOCK_MONOTONIC, &mono);
  mono.tv_sec += 10;
  EXPECT(pthread_clockjoin_np(t, &ret, CLOCK_MONOTONIC, &mono) == 0 && ret == token,
         "clockjoin succeeds after a timeout left the thread joinable");

  pthread_create(&t, NULL, exits_with_arg, token);
  EXPECT(pthread_join(t, NULL) == 0, "join");
  EXPECT(pthread_join(t, NULL) == ESRCH, "joining an already joined thread is ESRCH");
  EXPECT(pthread_detach(t) == ESRCH, "detaching an already joined thread is ESRCH");
  pthread_create(&t, NULL, returns_arg, token);
  settle();
  EXPECT(pthread_tryjoin_np(t, &ret) == 0 && ret == token, "tryjoin of a finished thread");
  pthread_create(&t, NULL, returns_arg, token);
  settle();
  EXPECT(pthread_detach(t) == 0, "detach of a finished thread");
  pthread_create(&t, NULL, returns_arg, token);
  EXPECT(pthread_equal(t, t) && !pthread_equal(t, pthread_self()), "pthread_equal");
  pthread_join(t, NULL);
  return semantics_failures;
}
