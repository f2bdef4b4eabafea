/* Shared helpers of the thread-cache semantic programs. Each program checks what a program
 * relies on and prints one line per check; the test runs it with and without the cache
 * preloaded and requires identical output and exit status (see compare_preload.sh). */
#ifndef THREADMAP_TESTS_CACHE_SEMANTICS_H
#define THREADMAP_TESTS_CACHE_SEMANTICS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int semantics_failures __attribute__((unused));

/* Prints "ok NAME" or "FAIL NAME (detail)"; the exit status counts failures. */
#define EXPECT(cond, name)                                              \
  do {                                                                  \
    if (cond) {                                                         \
      printf("ok %s\n", name);                                          \
    } else {                                                            \
      printf("FAIL %s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
      ++semantics_failures;                                             \
    }                                                                   \
    fflush(stdout);                                                     \
  } while (0)

static __attribute__((unused)) void *semantics_nothing(void *arg) { return arg; }

/* Runs a few threads to completion and gives their workers time to park, so that the next
 * pthread_create is served by a recycled thread when the cache is preloaded. */
static __attribute__((unused)) void warm_cache(void) {
  for (int i = 0; i < 3; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, semantics_nothing, NULL) == 0) pthread_join(t, NULL);
  }
  struct timespec pause = {0, 30 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

/* Re-executes this program with `name`=`value` in its environment unless it is set already
 * (the cache reads its options once, at start-up). Returns only in the re-executed program. */
static __attribute__((unused)) void run_with_env(const char *name, const char *value, char **argv) {
  if (getenv(name) != NULL) return;
  setenv(name, value, 1);
  execv("/proc/self/exe", argv);
  printf("FAIL re-executing with %s=%s\n", name, value);
  exit(99);
}

static __attribute__((unused)) void settle(void) {
  struct timespec pause = {0, 30 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

#endif
