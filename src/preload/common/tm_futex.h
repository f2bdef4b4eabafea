/* The futex calls of both preload libraries, on 32-bit words of this process.
 * Header-only (static inline) so each library keeps its own hidden copy; each library makes
 * every futex call from one translation unit, so one decision (below) covers all its calls.
 * Pre-conditions: WORD is a 4-byte-aligned 32-bit word in writable memory that stays mapped.
 * Neither call changes errno.
 *
 * Which hash table the kernel files our sleepers in: since Linux 6.16 a process's private
 * futexes (FUTEX_PRIVATE_FLAG) go to a hash table of its own, sized by min(threads, CPUs): 16
 * buckets on a 2-CPU machine, however many threads wait. A program with thousands of waiters
 * (Inncabs fib: every task waits for its children's futures) then has chains of hundreds, and
 * every wake walks one under the bucket lock; the cache's parked and joining threads made
 * those chains longer and paid that walk on every hand-off (fib: 21% of all CPU time in the
 * kernel's futex_wake under our own wakes, 0.86x glibc). Two ways out:
 *  - GROW the process's table (prctl PR_FUTEX_HASH_SET_SLOTS) to the global table's size per
 *    CPU (256 per CPU, at most 8192 slots of 64 bytes) and keep private keys: the cache does
 *    this once, at its first create (tm__futex_decide with a slot count; TM_CACHE_FUTEX_SLOTS).
 * Private keys save the page lookup of a shared key on every call (get_user_pages_fast: ~5% of all
 *    CPU time in the 32-creator spawn loop on a 2-vCPU VM), and the program's own futexes get
 *    the same short chains. The kernel then sizes the table no more (ours is larger than its
 *    own choice ever is); the program may still resize it.
 *  - SHARED keys, filed in the global table (256 buckets per CPU), where glibc's joins wait
 *    (on the thread id): the key is this mm and the address, found with a lockless page
 *    lookup. The pin library's only futex (a start hand-shake) and the cache when growing is
 *    refused or turned off do this: fib 3.4-3.6 s against glibc's 4.7-7.0 s.
 * Never switch the process to the global table for private keys (SET_SLOTS 0): that choice is
 * final (a private size asked for later is refused with EBUSY), so the program could no longer
 * size its own table. The kernel moves sleepers when the program resizes or switches the
 * table (tests/integration/cache/futex_table.c).
 * On older kernels every futex is in the global table anyway, and private keys save the page
 * lookup. */
#ifndef THREADMAP_PRELOAD_COMMON_TM_FUTEX_H
#define THREADMAP_PRELOAD_COMMON_TM_FUTEX_H

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tm_prim.h"

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78 /* Linux 6.16 */
#endif
#ifndef PR_FUTEX_HASH_GET_SLOTS
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

#ifndef PR_FUTEX_HASH_SET_SLOTS
#define PR_FUTEX_HASH_SET_SLOTS 1
#endif

/* This library's key flag (FUTEX_PRIVATE_FLAG or 0); -1 until decided. */
static _Atomic long tm__futex_flag __attribute__((unused)) = -1;

/* Decides the key flag once (the first decision stands) and returns it. GROW_TO > 0: where the
 * kernel has per-process tables, make this process's table at least GROW_TO slots (a power of
 * two) and use private keys if it has them; else shared keys there (the file comment). */
static inline long tm__futex_decide(long grow_to) {
  long f = atomic_load_explicit(&tm__futex_flag, memory_order_acquire);
  if (f >= 0) return f;
  /* Growing: set first, one call where it works (the first create of every process pays it).
   * A table the program sized itself before its first thread is then resized to ours (at least
   * 256 slots per CPU); only a refusal needs the current size to tell why. */
  long set = grow_to > 0 ? tm__raw_syscall(SYS_prctl, PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS,
                                           grow_to, 0, 0, 0)
                         : -1;
  long slots = set == 0
                   ? grow_to
                   : tm__raw_syscall(SYS_prctl, PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0, 0);
  if (slots < 0) {
    f = FUTEX_PRIVATE_FLAG; /* EINVAL: an older kernel, one global table */
  } else if (grow_to > 0) {
    /* The set was refused: a process switched to the global table answers EBUSY. */
    f = slots >= grow_to ? FUTEX_PRIVATE_FLAG : 0;
  } else {
    f = 0;
  }
  long undecided = -1;
  if (!atomic_compare_exchange_strong(&tm__futex_flag, &undecided, f)) f = undecided;
  return f;
}

static inline long tm__futex_private_flag(void) {
  long f = atomic_load_explicit(&tm__futex_flag, memory_order_relaxed);
  return f >= 0 ? f : tm__futex_decide(0);
}

/* Sleeps while *WORD == EXPECT. TS: NULL (no limit), a relative timeout (ABSOLUTE 0), or an
 * absolute deadline on CLOCK_MONOTONIC (ABSOLUTE 1) or CLOCK_REALTIME (ABSOLUTE 2).
 * Returns 0 when woken (or spuriously), else the error: EAGAIN (*WORD != EXPECT), EINTR,
 * ETIMEDOUT. */
static inline int tm__futex_wait_word(void *word, uint32_t expect, const struct timespec *ts,
                                      int absolute) {
  long private_flag = tm__futex_private_flag();
  long r;
  if (ts == NULL || absolute == 0) {
    r = tm__raw_syscall(SYS_futex, (long)word, FUTEX_WAIT | private_flag, (long)expect, (long)ts, 0,
                        0);
  } else {
    long op = FUTEX_WAIT_BITSET | private_flag | (absolute == 2 ? FUTEX_CLOCK_REALTIME : 0);
    r = tm__raw_syscall(SYS_futex, (long)word, op, (long)expect, (long)ts, 0,
                        (long)FUTEX_BITSET_MATCH_ANY);
  }
  return r == 0 ? 0 : (int)-r;
}

/* Wakes up to COUNT waiters of WORD; returns how many were woken (0 on error). */
static inline int tm__futex_wake_word(void *word, int count) {
  long r =
      tm__raw_syscall(SYS_futex, (long)word, FUTEX_WAKE | tm__futex_private_flag(), count, 0, 0, 0);
  return r > 0 ? (int)r : 0;
}

/* The same on a word whose other users use private keys whatever this library decided
 * (glibc's pthread_once words). */
static inline void tm__futex_wake_private(void *word, int count) {
  tm__raw_syscall(SYS_futex, (long)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, 0, 0, 0);
}

static inline void tm__futex_wait_private(void *word, uint32_t expect) {
  tm__raw_syscall(SYS_futex, (long)word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, (long)expect, 0, 0, 0);
}

/* Sizes this process's futex table to SLOTS (a fork child gets a table of its own). */
static inline void tm__futex_set_slots(long slots) {
  tm__raw_syscall(SYS_prctl, PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0, 0, 0);
}

#endif
