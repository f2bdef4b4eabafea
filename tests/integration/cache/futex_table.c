/* The process's own futex table (Linux 6.16+, prctl PR_FUTEX_HASH) under the cache, which grows
 * it at start-up and then files its sleepers there (src/preload/common/tm_futex.h):
 *  - a program that sizes the table itself gets what it asked for (4 slots, then the global
 *    table, then EBUSY for a private size again: that switch is final), as without the cache;
 *  - hand-offs keep working across each change: parked threads and joiners that sleep while
 *    the table is replaced are moved by the kernel, not lost (a lost wake-up hangs here);
 *  - with --report-slots: prints the table's size after a few create+joins, for the option
 *    test (futex_table_slots.sh); --report-child-slots: the same in a forked child.
 * Exit 77 when the kernel has no per-process table. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "semantics.h"

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#endif
#define SET_SLOTS 1
#define GET_SLOTS 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int generation;

/* Sleeps in glibc's condition variable (the program's own private futexes) until released. */
static void *wait_for_release(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int seen = generation;
  while (generation == seen) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void *return_arg(void *arg) { return arg; }

/* 40 threads sleep in a condition variable while the table changes (SLOTS, if >= 0), then are
 * released and joined; then 300 create+join cycles. 1 if every thread ran and returned. */
static int hand_offs_across(long slots, int *set_result, int *set_errno) {
  enum { kSleepers = 40, kCycles = 300 };
  pthread_t sleepers[kSleepers];
  int made = 0;
  for (; made < kSleepers; ++made)
    if (pthread_create(&sleepers[made], NULL, wait_for_release, NULL) != 0) break;
  settle();
  if (slots >= 0) {
    errno = 0;
    *set_result = prctl(PR_FUTEX_HASH, SET_SLOTS, slots, 0, 0);
    *set_errno = errno;
  }
  pthread_mutex_lock(&lock);
  ++generation;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < made; ++i) pthread_join(sleepers[i], NULL);
  int ok = made == kSleepers;
  for (int i = 0; i < kCycles; ++i) {
    pthread_t t;
    void *back = NULL;
    if (pthread_create(&t, NULL, return_arg, &sleepers[i % kSleepers]) != 0 ||
        pthread_join(t, &back) != 0 || back != &sleepers[i % kSleepers])
      ok = 0;
  }
  return ok;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--report-slots") == 0) {
    warm_cache();
    printf("%d\n", prctl(PR_FUTEX_HASH, GET_SLOTS, 0, 0, 0));
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--report-child-slots") == 0) {
    warm_cache(); /* threads parked in the parent: the child has none */
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      warm_cache();
      printf("%d\n", prctl(PR_FUTEX_HASH, GET_SLOTS, 0, 0, 0));
      fflush(stdout);
      _exit(0);
    }
    int status = 0;
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0
               ? 0
               : 1;
  }
  if (prctl(PR_FUTEX_HASH, GET_SLOTS, 0, 0, 0) < 0) {
    printf("skipped: this kernel has no per-process futex table\n");
    return 77;
  }
  warm_cache();
  int r = -1, e = 0;
  EXPECT(hand_offs_across(-1, &r, &e), "hand-offs before the program sizes the table");
  EXPECT(hand_offs_across(4, &r, &e) && r == 0, "the program shrinks the table to 4 slots");
  EXPECT(prctl(PR_FUTEX_HASH, GET_SLOTS, 0, 0, 0) == 4, "the table has the 4 slots asked for");
  EXPECT(hand_offs_across(0, &r, &e) && r == 0, "the program switches to the global table");
  EXPECT(prctl(PR_FUTEX_HASH, GET_SLOTS, 0, 0, 0) == 0, "the table is the global one");
  r = prctl(PR_FUTEX_HASH, SET_SLOTS, 1024, 0, 0);
  EXPECT(r == -1 && errno == EBUSY, "a private table after the global one is refused (EBUSY)");
  EXPECT(hand_offs_across(-1, &r, &e), "hand-offs in the global table");
  return semantics_failures;
}
