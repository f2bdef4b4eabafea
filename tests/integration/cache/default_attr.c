#define _GNU_SOURCE 1
/* pthread_setattr_default_np and attr signal masks / affinities on recycled threads (after glibc's
 * tst-default-attr and tst-pthread-attr-sigmask):
 *  - a NULL-attr thread gets the default stack size (pthread_getattr_np shows it), and a thread
 *    parked under a smaller default never serves a later, larger request;
 *  - a NULL-attr thread starts with the default signal mask when one is set;
 *  - an attr's signal mask is the new thread's, also on a recycled thread;
 *  - an attr affinity naming only CPUs that do not exist makes pthread_create fail with EINVAL
 *    and the start routine never runs;
 *  - a detached default makes NULL-attr threads detached (pthread_getattr_np says so, a join
 *    is EINVAL), also when parked threads could serve them (glibc's tst-default-attr). */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>

#include "semantics.h"

static atomic_int ran;

static void *report_stack(void *arg) {
  pthread_attr_t a;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    pthread_attr_getstacksize(&a, &size);
    pthread_attr_destroy(&a);
  }
  size_t want = (size_t)arg;
  if (want >= (4u << 20)) { /* use most of the stack: a smaller one would overflow */
    volatile char *p = __builtin_alloca(want - (1u << 20));
    p[0] = 1;
  }
  return (void *)size;
}

static void *report_mask(void *arg) {
  (void)arg;
  sigset_t m;
  pthread_sigmask(SIG_BLOCK, NULL, &m);
  long bits = (sigismember(&m, SIGHUP) ? 1 : 0) | (sigismember(&m, SIGUSR1) ? 2 : 0);
  return (void *)bits;
}

static atomic_int detached_seen = -1;

static void *report_detached(void *arg) {
  pthread_attr_t a;
  int state = -1;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    pthread_attr_getdetachstate(&a, &state);
    pthread_attr_destroy(&a);
  }
  atomic_store(&detached_seen, state == PTHREAD_CREATE_DETACHED);
  return arg;
}

static void *mark(void *arg) {
  atomic_store(&ran, 1);
  return arg;
}

static size_t run_stack(const pthread_attr_t *attr, size_t want) {
  pthread_t t;
  void *r = NULL;
  if (pthread_create(&t, attr, report_stack, (void *)want) != 0) return 0;
  pthread_join(t, &r);
  return (size_t)r;
}

static long run_mask(const pthread_attr_t *attr) {
  pthread_t t;
  void *r = NULL;
  if (pthread_create(&t, attr, report_mask, NULL) != 0) return -1;
  pthread_join(t, &r);
  return (long)r;
}

int main(void) {
  warm_cache();
  pthread_attr_t def;
  /* Default stack 256 KiB: NULL-attr threads get it. */
  pthread_attr_init(&def);
  pthread_attr_setstacksize(&def, 256u << 10);
  EXPECT(pthread_setattr_default_np(&def) == 0, "set default stack 256 KiB");
  size_t small1 = run_stack(NULL, 256u << 10), small2 = run_stack(NULL, 256u << 10);
  printf("default-attr thread stack: %zu KiB, again %zu KiB\n", small1 >> 10, small2 >> 10);
  EXPECT(small1 >= (256u << 10) && small1 < (1u << 20), "NULL-attr thread has the default size");
  /* An explicit 8 MiB request must not get one of the parked 256 KiB threads. */
  pthread_attr_t big;
  pthread_attr_init(&big);
  pthread_attr_setstacksize(&big, 8u << 20);
  size_t got = run_stack(&big, 8u << 20);
  printf("explicit 8 MiB thread stack: %zu KiB\n", got >> 10);
  EXPECT(got >= (8u << 20), "8 MiB request gets at least 8 MiB");
  /* Back to 1 MiB defaults, as tst-default-attr does. */
  pthread_attr_setstacksize(&def, 1u << 20);
  pthread_setattr_default_np(&def);
  size_t mid = run_stack(NULL, 1u << 20);
  printf("default 1 MiB thread stack: %zu KiB\n", mid >> 10);
  EXPECT(mid >= (1u << 20) && mid < (2u << 20), "NULL-attr thread follows the new default");
  pthread_attr_destroy(&def);

  /* Signal masks: creator blocks SIGHUP; the attr asks for SIGUSR1 only. */
  sigset_t hup, usr1;
  sigemptyset(&hup);
  sigaddset(&hup, SIGHUP);
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &hup, NULL);
  printf("inherited mask bits: %ld %ld\n", run_mask(NULL), run_mask(NULL));
  pthread_attr_t masked;
  pthread_attr_init(&masked);
  pthread_attr_setsigmask_np(&masked, &usr1);
  printf("attr mask bits: %ld %ld\n", run_mask(&masked), run_mask(&masked));
  pthread_attr_destroy(&masked);
  pthread_attr_t defmask;
  pthread_attr_init(&defmask);
  pthread_attr_setsigmask_np(&defmask, &usr1);
  pthread_setattr_default_np(&defmask);
  printf("default-attr mask bits: %ld %ld\n", run_mask(NULL), run_mask(NULL));
  pthread_attr_destroy(&defmask);
  pthread_sigmask(SIG_UNBLOCK, &hup, NULL);

  /* Affinity naming only a CPU that does not exist. */
  pthread_attr_t nocpu;
  pthread_attr_init(&nocpu);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(CPU_SETSIZE - 1, &set);
  pthread_attr_setaffinity_np(&nocpu, sizeof set, &set);
  warm_cache();
  pthread_t t;
  int r = pthread_create(&t, &nocpu, mark, NULL);
  if (r == 0) pthread_join(t, NULL);
  printf("create with a nonexistent CPU: %s\n", r == EINVAL ? "EINVAL" : r == 0 ? "0" : "other");
  settle();
  EXPECT(r == EINVAL && atomic_load(&ran) == 0, "nonexistent CPU: EINVAL, routine not run");
  pthread_attr_destroy(&nocpu);

  /* A detached default, with parked threads available (last: NULL-attr joins fail after it). */
  warm_cache();
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  EXPECT(pthread_setattr_default_np(&detached) == 0, "set a detached default");
  EXPECT(pthread_create(&t, NULL, report_detached, NULL) == 0, "create under a detached default");
  for (int i = 0; i < 200 && atomic_load(&detached_seen) < 0; ++i) settle();
  printf("NULL-attr thread under a detached default is detached: %d\n",
         atomic_load(&detached_seen));
  EXPECT(pthread_join(t, NULL) == EINVAL, "joining it is EINVAL");
  pthread_attr_destroy(&detached);
  return semantics_failures;
}
