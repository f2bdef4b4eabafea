/* The futex calls of both preload libraries: process-private futexes on 32-bit words.
 * Header-only (static inline) so each library keeps its own hidden copy. Pre-conditions: WORD is
 * a 4-byte-aligned 32-bit word that stays mapped. Neither call changes errno. */
#ifndef THREADMAP_PRELOAD_COMMON_TM_FUTEX_H
#define THREADMAP_PRELOAD_COMMON_TM_FUTEX_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *WORD == EXPECT. TS: NULL (no limit), a relative timeout (ABSOLUTE 0), or an
 * absolute deadline on CLOCK_MONOTONIC (ABSOLUTE 1) or CLOCK_REALTIME (ABSOLUTE 2).
 * Returns 0 when woken (or spuriously), else the error: EAGAIN (*WORD != EXPECT), EINTR,
 * ETIMEDOUT. */
static inline int tm__futex_wait_word(void *word, uint32_t expect, const struct timespec *ts,
                                      int absolute) {
  int saved_errno = errno;
  long r;
  if (ts == NULL || absolute == 0) {
    r = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, expect, ts, NULL, 0);
  } else {
    int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | (absolute == 2 ? FUTEX_CLOCK_REALTIME : 0);
    r = syscall(SYS_futex, (uint32_t *)word, op, expect, ts, NULL, FUTEX_BITSET_MATCH_ANY);
  }
  int result = r == 0 ? 0 : errno;
  errno = saved_errno;
  return result;
}

/* Wakes up to COUNT waiters of WORD; returns how many were woken (0 on error). */
static inline int tm__futex_wake_word(void *word, int count) {
  int saved_errno = errno;
  long r =
      syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL, NULL, 0);
  errno = saved_errno;
  return r > 0 ? (int)r : 0;
}

#endif
