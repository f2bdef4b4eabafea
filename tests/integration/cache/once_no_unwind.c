/* Part of the `once` test program, compiled without unwind tables or exceptions
 * (CMakeLists.txt), as glibc's tst-oncey3: a routine cancelled here cannot be unwound through,
 * so glibc's cancellation jumps straight to the caller's setjmp-style cleanup buffer, past
 * pthread_once's frame, and pthread_once must still give its word back. */
#define _GNU_SOURCE
#include "once_no_unwind.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

_Atomic int no_unwind_started, no_unwind_cleanup_ran;

static void no_unwind_routine(void) {
  no_unwind_started = 1;
  for (;;) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL); /* a cancellation point */
  }
}

static void note_cleanup(void *arg) {
  (void)arg;
  no_unwind_cleanup_ran = 1;
}

void *no_unwind_runner(void *word) {
  pthread_cleanup_push(note_cleanup, NULL);
  pthread_once(word, no_unwind_routine);
  pthread_cleanup_pop(0);
  return NULL;
}
