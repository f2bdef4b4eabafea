/* pthread_join and its variants, pthread_detach and pthread_cancel of a logical thread
 * (thread_internal.h). */
#include <errno.h>
#include <limits.h>

#include "shadow.h"
#include "thread_internal.h"

static int tm__real_join(pthread_t thread, void **ret, int mode, clockid_t clock,
                         const struct timespec *abstime) {
  switch (mode) {
    case TM_JOIN_TRY:
      return tm__real.tryjoin(thread, ret);
    case TM_JOIN_TIMED:
      return tm__real.clockjoin(thread, ret, clock, abstime);
    default:
      return tm__real.join(thread, ret);
  }
}

/* Finishes a join or detach after EXITED: takes the "joined" role. */
static void tm__release_joined(struct tm_thread *t, pthread_t thread, int joining) {
  uint32_t r = atomic_fetch_or_explicit(&t->release, TM_R_JOINED, memory_order_acq_rel);
  if (r & TM_R_COUNTED) atomic_fetch_sub(&tm__unjoined.n, 1);
  if (r & TM_R_DEAD) {               /* the worker could not be reset and exits joinable */
    tm__set_record_of(thread, NULL); /* before glibc may recycle the descriptor */
    if (joining)
      tm__physical(join, thread, NULL);
    else
      tm__physical(detach, thread);
    tm__record_free(t);
  } else if (r & TM_R_READY) {
    tm__idle_push(t);
  }
}

static void tm__join_cancelled(void *arg) {
  /* The joiner was cancelled while waiting: the target stays joinable (POSIX). */
  struct tm_thread *t = arg;
  atomic_fetch_and(&t->lstate, ~(uint32_t)(TM_L_JOIN_CLAIMED | TM_L_WAITER));
  struct tm_thread *me = tm__self();
  if (me) atomic_store(&me->joining, NULL);
}

#define TM_JOIN_POKED (-1)

/* tm__join_sleep while no pthread_cancel was ever made: no cleanup buffer, no switch to
 * asynchronous cancellation (the cost of a join that sleeps, twice over). A canceller that
 * comes meanwhile finds us in our shadow's join_wait and pokes the word we sleep on
 * (TM_L_POKE): we then return TM_JOIN_POKED and sleep the cancellable way, where the pending
 * cancel acts. Either it sees join_wait or we see tm__cancel_ever (both sequentially
 * consistent, stored before read on both sides). 0, ETIMEDOUT or TM_JOIN_POKED. */
static int tm__join_sleep_plain(struct tm_thread *t, clockid_t clock,
                                const struct timespec *abstime) {
  struct tm_shadow *sh = tm__shadow_raw();
  atomic_store(&sh->join_wait, t);
  int result = 0;
  for (;;) {
    if (atomic_load(&tm__cancel_ever)) {
      result = TM_JOIN_POKED;
      break;
    }
    uint32_t s = atomic_load_explicit(&t->lstate, memory_order_acquire);
    if (s & TM_L_EXITED) break;
    if (!(s & TM_L_WAITER) && !atomic_compare_exchange_weak(&t->lstate, &s, s | TM_L_WAITER))
      continue;
    if (tm__futex_wait(&t->lstate, s | TM_L_WAITER, abstime, clock == CLOCK_REALTIME, 0) ==
        ETIMEDOUT) {
      result = ETIMEDOUT;
      break;
    }
  }
  atomic_store_explicit(&sh->join_wait, NULL, memory_order_relaxed);
  return result;
}

/* A cancel of THREAD was sent: if it sleeps in a plain join, wake it (tm__join_sleep_plain). */
static void tm__poke_joiner(pthread_t thread) {
  struct tm_thread *joined = atomic_load(&tm__shadow_of(thread)->join_wait);
  if (joined == NULL) return;
  /* The record may be serving another logical thread by now: the bit is then harmless (only a
   * join that has seen tm__cancel_ever set reads it, and takes the cancellable way anyway). */
  atomic_fetch_or(&joined->lstate, TM_L_POKE);
  tm__futex_wake(&joined->lstate, INT_MAX);
}

/* Sleeps until EXITED or the deadline; 0, ETIMEDOUT. A cancellation point while it sleeps. */
static int tm__join_sleep(struct tm_thread *t, clockid_t clock, const struct timespec *abstime) {
  if (!atomic_load_explicit(&tm__cancel_ever, memory_order_relaxed)) {
    int r = tm__join_sleep_plain(t, clock, abstime);
    if (r != TM_JOIN_POKED) return r;
  }
  volatile int result = 0;
  pthread_cleanup_push(tm__join_cancelled, t);
  for (;;) {
    uint32_t s = atomic_load_explicit(&t->lstate, memory_order_acquire);
    if (s & TM_L_EXITED) break;
    if (!(s & TM_L_WAITER) && !atomic_compare_exchange_weak(&t->lstate, &s, s | TM_L_WAITER))
      continue;
    int old_type;
    tm__real_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old_type);
    int r = tm__futex_wait(&t->lstate, s | TM_L_WAITER, abstime, clock == CLOCK_REALTIME, 0);
    tm__real_setcanceltype(old_type, NULL);
    if (r == ETIMEDOUT) {
      result = ETIMEDOUT;
      break;
    }
  }
  pthread_cleanup_pop(0);
  return result;
}

int tm__join(pthread_t thread, void **ret, int mode, clockid_t clock,
             const struct timespec *abstime) {
  struct tm_thread *t = tm__lookup(thread);
  if (t == NULL) return tm__real_join(thread, ret, mode, clock, abstime);
  struct tm_thread *me = tm__self();
  uint32_t s = atomic_load_explicit(&t->lstate, memory_order_acquire);
  if (mode == TM_JOIN_TRY && !(s & TM_L_EXITED)) return EBUSY;
  /* A join that will block is a cancellation point; act on a pending cancel before claiming
   * the join, so that a cancelled joiner never leaves the target claimed. */
  if (mode != TM_JOIN_TRY && !(s & TM_L_EXITED)) pthread_testcancel();
  for (;;) {
    /* glibc's order: already joined, detached, deadlock, "someone else joins it". */
    if (s & TM_L_REAPED) return ESRCH;
    if (s & TM_L_DETACHED) return EINVAL;
    if (t == me) return EDEADLK;
    if (me && atomic_load(&t->joining) == me && !(s & TM_L_EXITED)) return EDEADLK;
    if (s & TM_L_JOIN_CLAIMED) return EINVAL;
    if (atomic_compare_exchange_weak_explicit(&t->lstate, &s, s | TM_L_JOIN_CLAIMED,
                                              memory_order_acq_rel, memory_order_acquire))
      break;
  }
  if (!(s & TM_L_EXITED)) {
    if (mode == TM_JOIN_TIMED &&
        (abstime == NULL || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L)) {
      atomic_fetch_and(&t->lstate, ~(uint32_t)TM_L_JOIN_CLAIMED);
      return EINVAL;
    }
    if (me) atomic_store(&me->joining, t);
    if (!tm__spin_until(&t->lstate, TM_L_EXITED, TM_SITE_JOIN, tm__worker_stalled, t,
                        atomic_load_explicit(&t->claimed_awake, memory_order_relaxed))) {
      int r = tm__join_sleep(t, clock, mode == TM_JOIN_TIMED ? abstime : NULL);
      if (r == ETIMEDOUT) {
        s = atomic_load(&t->lstate);
        while (!(s & TM_L_EXITED) &&
               !atomic_compare_exchange_weak(&t->lstate, &s,
                                             s & ~(uint32_t)(TM_L_JOIN_CLAIMED | TM_L_WAITER))) {
        }
        if (!(s & TM_L_EXITED)) {
          if (me) atomic_store(&me->joining, NULL);
          return ETIMEDOUT;
        }
      }
    }
    if (me) atomic_store(&me->joining, NULL);
    s = atomic_load_explicit(&t->lstate, memory_order_acquire);
  }
  if (s & TM_L_GLIBC_EXIT) {         /* cancelled: glibc has the result and finishes the thread */
    tm__set_record_of(thread, NULL); /* later calls on the handle are glibc's */
    int r = tm__physical(join, thread, ret);
    tm__record_free(t);
    return r;
  }
  if (ret) *ret = t->result;
  /* Before our vote in `release` (which may park the thread and let a new logical thread
   * start on this record): a second join of this handle is ESRCH, as with glibc. */
  atomic_fetch_or_explicit(&t->lstate, TM_L_REAPED, memory_order_relaxed);
  tm__release_joined(t, thread, 1);
  return 0;
}

int tm__detach(pthread_t thread) {
  struct tm_thread *t = tm__lookup(thread);
  if (t == NULL) return tm__real.detach(thread);
  uint32_t s = atomic_load_explicit(&t->lstate, memory_order_acquire);
  for (;;) {
    if (s & TM_L_REAPED) return ESRCH;
    if (s & (TM_L_DETACHED | TM_L_JOIN_CLAIMED)) return EINVAL;
    if (atomic_compare_exchange_weak_explicit(&t->lstate, &s, s | TM_L_DETACHED,
                                              memory_order_acq_rel, memory_order_acquire))
      break;
  }
  if (!(s & TM_L_EXITED)) return 0; /* the worker sees DETACHED when it exits */
  if (s & TM_L_GLIBC_EXIT) {
    tm__set_record_of(thread, NULL);
    tm__physical(detach, thread);
    tm__record_free(t);
    return 0;
  }
  tm__release_joined(t, thread, 0);
  return 0;
}

_Atomic int tm__cancel_ever;

int tm__cancel(pthread_t thread) {
  /* Before `ending` and the target's join_wait are read below (both sequentially consistent,
   * as the worker's store of `ending` and a joiner's of join_wait, each followed by its read of
   * this flag): either the worker sees the flag and disables cancellation, or we see it ending;
   * either a joiner sees it and sleeps cancellable, or we see it sleeping and poke it. */
  atomic_store(&tm__cancel_ever, 1);
  struct tm_thread *t = tm__lookup(thread);
  if (t == NULL) {
    int r = tm__real.cancel(thread);
    tm__poke_joiner(thread);
    return r;
  }
  int self = thread == pthread_self();
  /* BUSY keeps the worker from ending the logical thread (and starting another one on the same
   * pthread_t) between our check and glibc's cancel. Not for self-cancel: an asynchronous
   * self-cancel unwinds inside glibc's call and would wait for itself. */
  uint32_t bits = TM_L_CANCEL_SENT | (self ? 0 : TM_L_CANCEL_BUSY);
  uint32_t s = atomic_load_explicit(&t->lstate, memory_order_acquire);
  for (;;) {
    if (s & TM_L_EXITED) return 0; /* finished (or parked): nothing to cancel, as in glibc */
    if (atomic_compare_exchange_weak_explicit(&t->lstate, &s, s | bits, memory_order_acq_rel,
                                              memory_order_acquire))
      break;
  }
  if (atomic_load(&t->ending)) {
    /* Its start routine returned: glibc's cancel of such a thread does nothing either. BUSY
     * held the next logical thread off meanwhile. Only the bits this call set are taken back
     * (S: the state before it): a cancel sent earlier still retires the thread. */
    atomic_fetch_and(&t->lstate, ~(bits & ~s));
    if (!self) tm__futex_wake(&t->lstate, INT_MAX);
    return 0;
  }
  int r = tm__real.cancel(thread);
  tm__poke_joiner(thread); /* after glibc marked it cancelled: it acts when it wakes */
  if (!self) {
    atomic_fetch_and(&t->lstate, ~(uint32_t)TM_L_CANCEL_BUSY);
    tm__futex_wake(&t->lstate, INT_MAX); /* the worker may wait for BUSY to clear */
  }
  return r;
}
