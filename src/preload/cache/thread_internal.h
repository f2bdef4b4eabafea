/* What the files of the logical-thread operations share (thread.c: process-level state;
 * worker.c: the loop each physical thread runs; timekeeper.c: the idle timeout; create.c;
 * join.c). Internal to libthreadmap-cache.so. */
#ifndef THREADMAP_CACHE_THREAD_INTERNAL_H
#define THREADMAP_CACHE_THREAD_INTERNAL_H

#include "tm_cache.h"

/* Workers that finished before anyone joined them and still hold their kernel task (counted
 * with TM_R_COUNTED); bounded by tm__unjoined_bound() (a share of the task headroom the process
 * has, or TM_CACHE_MAX_UNJOINED), so the kept tasks cannot crowd out the process's own creates. */
struct tm_unjoined_count {
  TM_OWN_LINES _Atomic long long n;
};
TM_HIDDEN extern struct tm_unjoined_count tm__unjoined;

/* tm__wait_assignment's answer when the worker gave up waiting for its join (never stored). */
#define TM_W_WITHDRAWN 32u
/* Smallest stack a cached thread may have (create.c). */
#define TM_MIN_CACHED_STACK (64u << 10)

/* Calls tm__physical_<op> with our wrappers in pass-through mode (they go straight to glibc
 * when a sanitizer's interceptor calls them back). */
#define tm__physical(op, ...)                             \
  __extension__({                                         \
    tm__passthrough++;                                    \
    int physical_result = tm__physical_##op(__VA_ARGS__); \
    tm__passthrough--;                                    \
    physical_result;                                      \
  })

/* ---- thread.c ---- */
/* 1 after main ended its thread (pthread_exit): exiting threads retire. */
TM_HIDDEN extern _Atomic int tm__main_exited;
/* Calls that got EAGAIN and are releasing the cache's kernel tasks (process.c): meanwhile no
 * finished thread keeps its task for a join or parks. */
TM_HIDDEN extern _Atomic int tm__shedding;
/* Until when (coarse monotonic ns) nothing is kept because the program read its task list
 * (open_watch.c); 0: never read. */
TM_HIDDEN extern _Atomic uint64_t tm__tasks_watched_until;

/* tm__shedding_now, inlined where a hand-off asks (a call per hand-off is measurable). */
static inline int tm__shedding_now_inline(void) {
  if (atomic_load_explicit(&tm__shedding, memory_order_relaxed)) return 1;
  uint64_t until = atomic_load_explicit(&tm__tasks_watched_until, memory_order_relaxed);
  return until != 0 && tm__coarse_now_ns() < until;
}

/* 1 when nothing may be kept: main ended, or kept tasks are being released. */
static inline int tm__keeps_nothing(void) {
  return atomic_load_explicit(&tm__main_exited, memory_order_relaxed) || tm__shedding_now_inline();
}
/* Wakes worker T, finished and waiting for its join, to re-check (it may withdraw). */
TM_HIDDEN void tm__poke_unjoined(struct tm_thread *t, void *unused);

/* ---- worker.c ---- */
/* The start routine of every physical thread (ARG: its record). */
TM_HIDDEN void *tm__worker(void *arg);
/* tm__spin_until's STALLED for a joiner: the worker has not started the logical thread. */
TM_HIDDEN int tm__worker_stalled(const void *record);

/* ---- timekeeper.c ---- */
/* The role's holder (a record index, 0 for none). */
TM_HIDDEN extern _Atomic uint32_t tm__timekeeper;
/* 1 when T holds the timekeeper role (taking it if nobody does). Called with SLEEPING set. */
static inline int tm__timekeeper_hold(struct tm_thread *t) {
  uint32_t holder = atomic_load(&tm__timekeeper);
  if (holder == t->index) return 1;
  return holder == 0 && atomic_compare_exchange_strong(&tm__timekeeper, &holder, t->index);
}
/* Pokes the parked sleepers whose deadline passed (other than SELF). */
TM_HIDDEN void tm__timekeeper_poke_expired(struct tm_thread *self, uint64_t now);
/* T holds the role and stops waiting: it hands it to the oldest other sleeper. */
TM_HIDDEN void tm__timekeeper_hand_over(struct tm_thread *t);
/* T stops waiting: if it holds the role, it hands it on (the check inlined: most don't). */
static inline void tm__timekeeper_leave(struct tm_thread *t) {
  if (atomic_load_explicit(&tm__timekeeper, memory_order_relaxed) == t->index)
    tm__timekeeper_hand_over(t);
}
/* Fork child: nobody holds the role. */
TM_HIDDEN void tm__timekeeper_after_fork(void);

#endif
