/* The logical-thread operations, process-level part: what every worker, creator and joiner
 * consults about the process (main ended, kept tasks being released, finished threads waiting
 * for a join), fork and main's end. The operations themselves: create.c (pthread_create),
 * worker.c (the loop each physical thread runs), join.c (join, detach, cancel), timekeeper.c
 * (the idle timeout).
 *
 * Ownership protocol (all lock-free, see tm_cache.h for the bits):
 *  - lstate orders the logical thread's end against join/detach/cancel: the worker sets EXITED
 *    once destructors ran; a joiner claims with JOIN_CLAIMED and sleeps on lstate; detach and
 *    join after EXITED, and the worker seeing DETACHED, take the "joined" role exactly once.
 *  - release decides who parks the physical thread: it parks when both the joined role
 *    (JOINED) and the worker's reset (READY) are done; the later of the two pushes it. A worker
 *    that cannot be reset (DEAD) really exits: detached by itself if the logical thread was
 *    already joined, else joinable, and the late joiner (or detacher) calls the real
 *    pthread_join (or pthread_detach), so glibc never reuses a pthread_t the program may still
 *    join — the same guarantee glibc gives. */
#include "thread_internal.h"

struct tm_unjoined_count tm__unjoined;

int tm__process_retiring(void) {
  return atomic_load_explicit(&tm__main_exited, memory_order_relaxed);
}

_Atomic int tm__main_exited;
_Atomic int tm__shedding;
_Atomic uint64_t tm__tasks_watched_until;

int tm__shedding_now(void) { return tm__shedding_now_inline(); }

void tm__keep_nothing_for(uint64_t ns) {
  atomic_store_explicit(&tm__tasks_watched_until, tm__coarse_now_ns() + ns, memory_order_relaxed);
  (void)tm__shed_begin();
  tm__shed_end();
}

int tm__shed_begin(void) {
  atomic_fetch_add(&tm__shedding, 1);
  int held = tm__idle_flush() > 0 || atomic_load(&tm__unjoined.n) > 0;
  if (held) tm__records_for_each(tm__poke_unjoined, NULL);
  return held;
}

void tm__shed_end(void) { atomic_fetch_sub(&tm__shedding, 1); }

void tm__poke(struct tm_thread *t) {
  uint32_t old = atomic_fetch_or(&t->wake, TM_W_CHECK);
  if (old & TM_W_SLEEPING) tm__futex_wake(&t->wake, 1);
}

/* Wakes a worker that finished and waits for a join that may never come: with main gone it
 * withdraws (tm__wait_assignment), so it does not keep the process alive. */
void tm__poke_unjoined(struct tm_thread *t, void *unused) {
  (void)unused;
  uint32_t r = atomic_load(&t->release);
  if (!(r & TM_R_READY) || (r & (TM_R_JOINED | TM_R_DEAD))) return;
  uint32_t old = atomic_fetch_or(&t->wake, TM_W_CHECK);
  if (old & TM_W_SLEEPING) tm__futex_wake(&t->wake, 1);
}

void tm__thread_after_fork(void) {
  atomic_store(&tm__unjoined.n, 0);
  tm__timekeeper_after_fork();
  atomic_store(&tm__shedding, 0); /* a fork that retried in the parent's loop */
}

void tm__main_exiting(void) {
  if (atomic_exchange(&tm__main_exited, 1)) return;
  tm__idle_flush();
  tm__records_for_each(tm__poke_unjoined, NULL);
}
