/* pthread_create under the cache (thread_internal.h): whether the cache may serve it, a
 * parked thread that is a clone of the creator (identity.h), or a new physical thread. */
#include <errno.h>
#include <string.h>

#include "../common/tm_prim.h"
#include "kernel_word.h"
#include "shadow.h"
#include "stats.h"
#include "thread_internal.h"

static int tm__create_plain(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                            void *arg) {
  tm__stats_count(TM_COUNT_BYPASSED);
  return tm__real.create(thread, attr, start, arg);
}

/* A thread that starts with signals blocked ends quietness (quiet_signals.c), whoever makes
 * it: before it exists. */
static void tm__quiet_check_attr(const pthread_attr_t *attr) {
  sigset_t mask;
  if (attr && pthread_attr_getsigmask_np(attr, &mask) == 0 &&
      tm__quiet_mask_counts(SIG_SETMASK, &mask))
    tm__quiet_end();
}

struct tm_create_attempt {
  pthread_t *handle;
  const pthread_attr_t *use;
  struct tm_thread *t;
};

static long tm__create_again(void *context) {
  struct tm_create_attempt *a = context;
  return tm__physical(create, a->handle, a->use, tm__worker, a->t);
}

static int tm__create_failed_for_tasks(long r) { return r == EAGAIN; }

/* What a create asks for, from its attr and glibc's defaults. */
struct tm_request {
  size_t stack_size, guard_size;
  int detached;
};

/* 1 when the cache may serve this create, with *REQ filled; 0: it goes to glibc untouched (a
 * default attr with a mask or affinity, a stack the program owns, a stack too small for our
 * exit path). */
static inline __attribute__((always_inline)) int tm__cacheable(const pthread_attr_t *attr,
                                                               struct tm_request *req) {
  req->stack_size = __atomic_load_n(&tm__default_stack_size, __ATOMIC_RELAXED);
  req->guard_size = __atomic_load_n(&tm__default_guard_size, __ATOMIC_RELAXED);
  int detach_state = PTHREAD_CREATE_JOINABLE;
  if (attr == NULL && __atomic_load_n(&tm__default_attr_special, __ATOMIC_RELAXED)) return 0;
  if (attr) {
    /* pthread_attr_getstack cannot tell "no stack set" apart (it returns address - size);
     * the deprecated getstackaddr can, and is looked up at run time to keep its link-time
     * deprecation warning out of the build. */
    void *user_stack = NULL;
    if (tm__getstackaddr == NULL || tm__getstackaddr(attr, &user_stack) != 0 || user_stack != NULL)
      return 0; /* the program owns that stack */
    if (pthread_attr_getstacksize(attr, &req->stack_size) != 0 ||
        pthread_attr_getguardsize(attr, &req->guard_size) != 0 ||
        pthread_attr_getdetachstate(attr, &detach_state) != 0)
      return 0;
  }
  req->detached = detach_state == PTHREAD_CREATE_DETACHED;
  /* Our exit path (unwinder, destructors, dl_iterate_phdr) needs stack headroom that a
   * minimal stack, possibly without a guard page, cannot promise: such threads stay glibc's. */
  return req->stack_size >= TM_MIN_CACHED_STACK;
}

#define TM_NONE_PARKED (-1)

/* Gives parked thread T what a new thread of the caller's inherits (tm__capture_inherit): 1
 * when the affinity comes from ATTR. Fields are written only when they differ from what T last
 * got (the lines T reads then stay shared instead of moving between CPUs on every recycle), and
 * a create without an attr whose shadow STAMP is the one T's values were taken from copies and
 * compares only the FPU control state. */
static inline __attribute__((always_inline)) int tm__give_inherit(struct tm_thread *t,
                                                                  const pthread_attr_t *attr,
                                                                  uint64_t stamp) {
  if (attr == NULL && stamp != 0 && t->want_stamp == stamp) {
    struct tm_fpu fpu;
    tm__fpu_capture(&fpu);
    if (memcmp(&fpu, &t->want.fpu, sizeof fpu) != 0) t->want.fpu = fpu;
    return 0;
  }
  struct tm_inherit inherit;
  int from_attr = tm__capture_inherit(&inherit, attr);
  if (memcmp(&inherit, &t->want, sizeof inherit) != 0) t->want = inherit;
  uint64_t given = attr == NULL ? stamp : 0;
  if (t->want_stamp != given) t->want_stamp = given;
  return from_attr;
}

/* Hands START(ARG) to a parked thread that is a clone of the creator now (its birth identity
 * is the creator's, its scheduling the new thread's: tm__capture_match): 0 with *THREAD set,
 * TM_NONE_PARKED when there is none, or the error of the attr's affinity (EINVAL: no such
 * CPU), which is pthread_create's, as glibc's. */
static inline __attribute__((always_inline)) int tm__reuse_parked(pthread_t *thread,
                                                                  const pthread_attr_t *attr,
                                                                  const struct tm_request *req,
                                                                  void *(*start)(void *),
                                                                  void *arg) {
  struct tm_match want;
  /* From the slot of the CPU this thread last ran on (its shadow's last look): a preference. */
  int first = tm__idle_peek(req->stack_size, tm__shadow_raw()->cpu);
  if (first < 0) return TM_NONE_PARKED;
  sigset_t attr_mask;
  struct tm_shadow *s =
      tm__shadow_for_create(attr && pthread_attr_getsigmask_np(attr, &attr_mask) == 0);
  uint64_t stamp = s->stamp, now = s->clock_ns;
  if (tm__capture_match(&want, attr) != 0) return TM_NONE_PARKED;
  struct tm_thread *t;
  while ((t = tm__idle_pop(req->stack_size, req->guard_size, &want, first)) != NULL) {
    int from_attr = tm__give_inherit(t, attr, stamp);
    if (from_attr) {
      /* As glibc does for a new thread: the creator sets the attr's affinity, and its
       * failure is pthread_create's. HELD keeps the idle timeout from ending the thread (and
       * freeing its tid) meanwhile. */
      if (!tm__idle_hold(t)) continue; /* timed out already: record freed */
      if (tm__real_setaffinity(t->tid, sizeof t->want.affinity, &t->want.affinity) != 0) {
        int err = errno;
        tm__idle_unhold(t);
        tm__idle_unpop(t);
        return err;
      }
      t->affinity_by_creator = 1;
    }
    t->start = start;
    t->arg = arg;
    t->want_apply = 1;
    t->given_ns = now; /* the worker's start verifies with it instead of a clock read */
    t->result = NULL;
    atomic_store_explicit(&t->joining, NULL, memory_order_relaxed);
    atomic_store_explicit(&t->ending, 0, memory_order_relaxed);
    atomic_store_explicit(&t->release, 0, memory_order_relaxed);
    atomic_store_explicit(&t->lstate, req->detached ? TM_L_DETACHED : 0, memory_order_relaxed);
    atomic_store_explicit(&t->parked, 0, memory_order_relaxed);
    pthread_t handle = t->handle; /* once claimed, the record may be reused at any time */
    if (tm__idle_claim(t)) {      /* publishes the fields above to the worker */
      *thread = handle;
      tm__stats_count(TM_COUNT_FROM_CACHE);
      return 0;
    }
  }
  return TM_NONE_PARKED;
}

/* Makes a new physical thread (a glibc clone of the creator, born with its identity) that runs
 * START(ARG) as its first logical thread: 0 with *THREAD set, or pthread_create's error. */
static int tm__new_physical(pthread_t *thread, const pthread_attr_t *attr,
                            const struct tm_request *req, void *(*start)(void *), void *arg) {
  struct tm_thread *t = tm__record_alloc();
  if (t == NULL) return tm__create_plain(thread, attr, start, arg);
  /* A module loaded since the last look may be a runtime that sets masks itself (Go's makes its
   * threads here): one look at the loader's counter beside a clone. */
  tm__kernel_word_modules();
  t->stack_size = req->stack_size;
  t->guard_size = req->guard_size;
  tm__seed_new_thread(t, attr);
  t->start = start;
  t->arg = arg;
  atomic_store_explicit(&t->lstate, req->detached ? TM_L_DETACHED : 0, memory_order_relaxed);
  /* The physical thread is always joinable (a logical detach must not let glibc free it). A
   * shallow copy of the attr shares glibc's extension (cpuset, sigmask); it is never
   * destroyed, so nothing is freed twice. */
  pthread_attr_t joinable;
  const pthread_attr_t *use = attr;
  if (attr && req->detached) {
    memcpy(&joinable, attr, sizeof joinable);
    pthread_attr_setdetachstate(&joinable, PTHREAD_CREATE_JOINABLE);
    use = &joinable;
  }
  pthread_t handle;
  int r = tm__physical(create, &handle, use, tm__worker, t);
  if (r == EAGAIN) {
    /* The kernel refused a task (RLIMIT_NPROC, a cgroup's pids.max, threads-max): under glibc
     * a finished thread holds none, joined or not (process.c). */
    struct tm_create_attempt again = {&handle, use, t};
    struct tm_retry retry = {tm__create_again, tm__create_failed_for_tasks, &again, 100, 0};
    r = (int)tm__retry_tasks_released(&retry, r);
  }
  if (r != 0) {
    tm__record_free(t);
    return r;
  }
  /* The slot is also set by the thread itself; writing it here too lets a join that comes
   * before the thread ran find it. Under a sanitizer the runtime re-marks the new thread's TLS
   * when it starts, so wait for the thread to have set it instead. */
  if (tm__sanitized) {
    while (atomic_load_explicit(&t->started, memory_order_acquire) == 0) tm__prim_sleep_ns(20000);
  } else {
    tm__set_record_of(handle, t);
  }
  if (atomic_exchange_explicit(&t->creator_done, 1, memory_order_acq_rel) == 2)
    tm__futex_wake(&t->creator_done, 1); /* the thread already waits to exit */
  *thread = handle;
  tm__stats_count(TM_COUNT_FROM_SYSTEM);
  return 0;
}

/* Three phases: may the cache serve it; a parked clone of the creator; a new physical thread. */
int tm__create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
  tm__quiet_check_attr(attr);
  if (!atomic_load_explicit(&tm__enabled, memory_order_relaxed) ||
      atomic_load_explicit(&tm__forking, memory_order_relaxed))
    return tm__create_plain(thread, attr, start, arg);
  if (__builtin_expect(!tm__main_key_armed_already(), 0)) {
    tm__init_threads(); /* the first create: what only threads need (startup.c) */
    if (!atomic_load_explicit(&tm__enabled, memory_order_relaxed))
      return tm__create_plain(thread, attr, start, arg);
    tm__arm_main_key();
  }
  struct tm_request req;
  if (!tm__cacheable(attr, &req) || tm__no_reuse_cause())
    return tm__create_plain(thread, attr, start, arg);
  int r = tm__reuse_parked(thread, attr, &req, start, arg);
  if (r != TM_NONE_PARKED) return r;
  return tm__new_physical(thread, attr, &req, start, arg);
}
