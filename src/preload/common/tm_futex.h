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

/* The system call itself, without libc's syscall(2): the cache library exports its own
 * syscall (to see state changes made through it), and a call from inside the library would
 * bind to that wrapper and pay its bookkeeping on every futex operation. Returns -errno. */
static inline long tm__futex_raw(void *word, long op, long value, const struct timespec *ts,
                                 long bitset) {
#if defined(__x86_64__)
  register long r10 __asm__("r10") = (long)ts;
  register long r8 __asm__("r8") = 0;
  register long r9 __asm__("r9") = bitset;
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "0"((long)SYS_futex), "D"(word), "S"(op), "d"(value), "r"(r10), "r"(r8),
                     "r"(r9)
                   : "rcx", "r11", "memory");
  return r;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = SYS_futex;
  register long x0 __asm__("x0") = (long)word;
  register long x1 __asm__("x1") = op;
  register long x2 __asm__("x2") = value;
  register long x3 __asm__("x3") = (long)ts;
  register long x4 __asm__("x4") = 0;
  register long x5 __asm__("x5") = bitset;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory");
  return x0;
#else
  int saved_errno = errno;
  long r = syscall(SYS_futex, (uint32_t *)word, op, value, ts, NULL, bitset);
  if (r == -1) r = -errno;
  errno = saved_errno;
  return r;
#endif
}

/* Sleeps while *WORD == EXPECT. TS: NULL (no limit), a relative timeout (ABSOLUTE 0), or an
 * absolute deadline on CLOCK_MONOTONIC (ABSOLUTE 1) or CLOCK_REALTIME (ABSOLUTE 2).
 * Returns 0 when woken (or spuriously), else the error: EAGAIN (*WORD != EXPECT), EINTR,
 * ETIMEDOUT. */
static inline int tm__futex_wait_word(void *word, uint32_t expect, const struct timespec *ts,
                                      int absolute) {
  long r;
  if (ts == NULL || absolute == 0) {
    r = tm__futex_raw(word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, (long)expect, ts, 0);
  } else {
    int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | (absolute == 2 ? FUTEX_CLOCK_REALTIME : 0);
    r = tm__futex_raw(word, op, (long)expect, ts, (long)FUTEX_BITSET_MATCH_ANY);
  }
  return r == 0 ? 0 : (int)-r;
}

/* Wakes up to COUNT waiters of WORD; returns how many were woken (0 on error). */
static inline int tm__futex_wake_word(void *word, int count) {
  long r = tm__futex_raw(word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL, 0);
  return r > 0 ? (int)r : 0;
}

#endif
