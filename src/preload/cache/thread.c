/* The logical-thread operations: create (reuse a parked thread or make a new one), the worker
 * loop each physical thread runs, join, detach, cancel, and process-level events (main's
 * pthread_exit, fork).
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
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "headroom.h"
#include "notes.h"
#include "options.h"
#include "shadow.h"
#include "stats.h"

static _Atomic int tm__main_exited;
/* Workers that finished before anyone joined them and still hold their kernel task (counted
 * with TM_R_COUNTED); bounded by tm__unjoined_bound() (a share of the task headroom the process
 * has, or TM_CACHE_MAX_UNJOINED), so the kept tasks cannot crowd out the process's own creates. */
static struct { TM_OWN_LINES _Atomic long long n; } tm__unjoined;
/* tm__wait_assignment's answer when the worker gave up waiting for its join (never stored). */
#define TM_W_WITHDRAWN 32u
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

int tm__process_retiring(void) {
  return atomic_load_explicit(&tm__main_exited, memory_order_relaxed);
}

/* Creates that got EAGAIN and are releasing the cache's kernel tasks (tm__create_release):
 * meanwhile no finished thread keeps its task for a join or parks. */
static _Atomic int tm__shedding;
/* Until when (coarse monotonic ns) nothing is kept because the program read its task list
 * (process.c); 0: never read. */
static _Atomic uint64_t tm__tasks_watched_until;

int tm__shedding_now(void) {
  if (atomic_load_explicit(&tm__shedding, memory_order_relaxed)) return 1;
  uint64_t until = atomic_load_explicit(&tm__tasks_watched_until, memory_order_relaxed);
  return until != 0 && tm__coarse_now_ns() < until;
}

static int tm__keeps_nothing(void) { return tm__process_retiring() || tm__shedding_now(); }

void tm__keep_nothing_for(uint64_t ns) {
  atomic_store_explicit(&tm__tasks_watched_until, tm__coarse_now_ns() + ns, memory_order_relaxed);
  (void)tm__shed_begin();
  tm__shed_end();
}

/* Waits (sleeping: the creator may have a lower real-time priority) until the creator has
 * written this thread's pthread_t slot; only then may the thread really exit, since glibc
 * may reuse its descriptor for another thread once it is detached and gone. */
static void tm__wait_creator(struct tm_thread *t) {
  /* 0: creator busy, 1: done, 2: busy and we sleep (only then does the creator wake us). */
  uint32_t v = atomic_load_explicit(&t->creator_done, memory_order_acquire);
  while (v != 1) {
    if (v == 0 && !atomic_compare_exchange_weak_explicit(
                      &t->creator_done, &v, 2, memory_order_acq_rel, memory_order_acquire))
      continue;
    tm__futex_wait(&t->creator_done, 2, NULL, 0, 0);
    v = atomic_load_explicit(&t->creator_done, memory_order_acquire);
  }
}

/* A finished worker that nobody joined yet gives up its kernel task: it marks itself DEAD
 * (unless a joiner or detacher got there first) and really exits, joinable; the late join (or
 * detach) then goes through glibc, as for a cancelled thread. 1 if withdrawn. */
static int tm__withdraw(struct tm_thread *t, unsigned why) {
  uint32_t r = atomic_load_explicit(&t->release, memory_order_acquire);
  for (;;) {
    if (r & (TM_R_JOINED | TM_R_DEAD)) return 0;
    if (atomic_compare_exchange_weak_explicit(&t->release, &r,
                                              (r | TM_R_DEAD) & ~(uint32_t)TM_R_COUNTED,
                                              memory_order_acq_rel, memory_order_acquire))
      break;
  }
  if (r & TM_R_COUNTED) atomic_fetch_sub(&tm__unjoined.n, 1);
  tm__stats_retired(why);
  return 1;
}

/* The idle timeout without a timer in every sleep: arming and cancelling a futex timeout on
 * each park cost ~6% of a hand-off at 32 creators on 2 vCPUs. One sleeping worker at a time,
 * the timekeeper, sleeps with a timeout (a quarter of the idle timeout, or its own deadline if
 * sooner); each time it wakes it pokes every parked worker whose deadline has passed, and each
 * of those retires itself as before. When the timekeeper stops waiting (reused, retired), it
 * hands the role to the oldest other sleeper and pokes it; a worker about to sleep while nobody
 * holds the role takes it. Both sides use sequentially consistent operations on the role and
 * on the sleeper's wake word, so either the sleeper sees the role free or the leaving
 * timekeeper sees the sleeper. A worker that finished before anybody claimed its join
 * keeps its own timer (it withdraws at its deadline). So a parked thread really exits between
 * its idle timeout and 1.25 times it. */
static _Atomic uint32_t tm__timekeeper; /* record index of the role's holder; 0: none */

struct tm_keeper_scan {
  struct tm_thread *self;
  uint64_t now;
  struct tm_thread *oldest; /* the sleeper with the earliest deadline */
  uint64_t oldest_deadline;
};

void tm__poke(struct tm_thread *t) {
  uint32_t old = atomic_fetch_or(&t->wake, TM_W_CHECK);
  if (old & TM_W_SLEEPING) tm__futex_wake(&t->wake, 1);
}

static void tm__keeper_visit(struct tm_thread *r, void *arg) {
  struct tm_keeper_scan *scan = arg;
  if (r == scan->self) return;
  uint32_t w = atomic_load(&r->wake);
  if (!(w & TM_W_SLEEPING) || (w & (TM_W_GO | TM_W_RETIRE | TM_W_DEAD | TM_W_HELD))) return;
  uint64_t deadline = atomic_load_explicit(&r->idle_deadline, memory_order_relaxed);
  if (deadline == 0) return;
  /* Any sleeper may take the role over, parked or not yet (its joiner parks it later). */
  if (deadline <= scan->now && atomic_load_explicit(&r->parked, memory_order_acquire)) {
    tm__poke(r); /* its idle timeout has passed: it retires itself */
    return;
  }
  if (scan->oldest == NULL || deadline < scan->oldest_deadline) {
    scan->oldest = r;
    scan->oldest_deadline = deadline;
  }
}

/* Pokes the parked sleepers whose deadline passed; returns the sleeper with the earliest
 * deadline among the others (NULL if none). */
static struct tm_thread *tm__timekeeper_scan(struct tm_thread *self, uint64_t now) {
  struct tm_keeper_scan scan = {self, now, NULL, 0};
  tm__records_for_each(tm__keeper_visit, &scan);
  return scan.oldest;
}

/* 1 when `t` holds the role (taking it if nobody does). Called with SLEEPING set. */
static int tm__timekeeper_hold(struct tm_thread *t) {
  uint32_t holder = atomic_load(&tm__timekeeper);
  if (holder == t->index) return 1;
  return holder == 0 && atomic_compare_exchange_strong(&tm__timekeeper, &holder, t->index);
}

/* Called whenever a worker stops waiting: if it holds the role, hands it to the oldest other
 * sleeper (assigned, then poked so that it arms its timer). A target that stopped sleeping
 * meanwhile is seen by the re-check below or, if it stopped later, sees the role in its own
 * tm__timekeeper_leave (sequentially consistent order), and passes it on. */
static void tm__timekeeper_leave(struct tm_thread *t) {
  uint32_t holder = t->index;
  if (atomic_load_explicit(&tm__timekeeper, memory_order_relaxed) != holder) return;
  for (int attempt = 0; attempt < 8; ++attempt) {
    struct tm_thread *next = tm__timekeeper_scan(t, tm__coarse_now_ns());
    uint32_t to = next ? next->index : 0;
    if (!atomic_compare_exchange_strong(&tm__timekeeper, &holder, to)) return;
    if (next == NULL) return;
    uint32_t w = atomic_load(&next->wake);
    if ((w & TM_W_SLEEPING) && !(w & (TM_W_GO | TM_W_RETIRE | TM_W_DEAD))) {
      tm__poke(next);
      return;
    }
    holder = to; /* it stopped sleeping: take the role back (unless it passed it on) and retry */
  }
  atomic_compare_exchange_strong(&tm__timekeeper, &holder, 0);
}

/* tm__spin_until's STALLED for a worker waiting for its next logical thread: its last logical
 * thread has a joiner that has not returned from the join yet (it was woken by our exit and
 * waits for a CPU). A detached or already reaped one has nobody to wait for. */
static int tm__joiner_stalled(const void *record) {
  const struct tm_thread *t = record;
  uint32_t s = atomic_load_explicit(&t->lstate, memory_order_relaxed);
  return (s & TM_L_JOIN_CLAIMED) && !(s & (TM_L_REAPED | TM_L_DETACHED));
}

/* ... and for a joiner: the worker has not started the logical thread (a new physical thread
 * is still being made, or a parked one has not woken up to take its assignment). */
static int tm__worker_stalled(const void *record) {
  const struct tm_thread *t = record;
  return !atomic_load_explicit(&t->started, memory_order_relaxed) ||
         (atomic_load_explicit(&t->wake, memory_order_relaxed) & TM_W_GO);
}

/* Waits until a creator hands this parked worker a logical thread (TM_W_GO) or tells it to
 * exit (TM_W_RETIRE), or the idle timeout expires (returns TM_W_DEAD). A worker still waiting
 * for its join (not parked) withdraws (TM_W_WITHDRAWN) when main has ended or the idle timeout
 * expires. */
static uint32_t tm__wait_loop(struct tm_thread *t, int joiner_running) {
  long long timeout_ms = tm__option(TM_OPT_IDLE_TIMEOUT_MS);
  /* Idle deadlines are milliseconds away: the coarse clock, read once here and reused for the
   * first pass below (a spin in between takes microseconds). */
  uint64_t entered = tm__coarse_now_ns(), now_hint = entered;
  uint64_t deadline = timeout_ms ? entered + (uint64_t)timeout_ms * 1000000ULL : 0;
  uint64_t period = (uint64_t)timeout_ms * 250000ULL; /* a quarter of the timeout, in ns */
  uint64_t next_tick = 0;
  if (period < 1000000ULL) period = 1000000ULL;
  atomic_store_explicit(&t->idle_deadline, deadline, memory_order_relaxed);
  if (tm__spin_until(&t->wake, TM_W_GO | TM_W_RETIRE, TM_SITE_IDLE, tm__joiner_stalled, t,
                     joiner_running))
    return atomic_load_explicit(&t->wake, memory_order_acquire);
  /* A sleeping parked thread takes no signal: it blocks them all, unless no signal could tell
   * which thread took it (quiet_signals.c); then it keeps its mask, saving that call and the
   * one that gives the next logical thread its creator's mask. */
  if (!tm__quiet_park(t, entered)) tm__park_block_signals();
  for (;;) {
    tm__quiet_recheck(t); /* before the wake word is read: a poke after it is not lost */
    uint32_t w = atomic_load_explicit(&t->wake, memory_order_acquire);
    if (w & (TM_W_GO | TM_W_RETIRE)) return w;
    if (!(w & TM_W_SLEEPING)) {
      if (!atomic_compare_exchange_weak(&t->wake, &w, w | TM_W_SLEEPING)) continue;
      w |= TM_W_SLEEPING;
    }
    /* After SLEEPING is visible: tm__main_exiting either sees it and wakes us, or set its flag
     * before our check below. */
    if (tm__keeps_nothing() && !atomic_load_explicit(&t->parked, memory_order_acquire) &&
        tm__withdraw(t, tm__process_retiring() ? TM_CAUSE_PROCESS : TM_CAUSE_UNJOINED))
      return TM_W_WITHDRAWN;
    struct timespec rel, *relp = NULL;
    if (deadline) {
      uint64_t now = now_hint ? now_hint : tm__coarse_now_ns();
      now_hint = 0;
      if (now >= deadline && !atomic_load_explicit(&t->parked, memory_order_acquire)) {
        /* Still waiting for its joiner (not parked) after a whole idle timeout: stop holding
         * a kernel task for a finished thread. */
        if (tm__withdraw(t, TM_CAUSE_UNJOINED)) return TM_W_WITHDRAWN;
        deadline = now + (uint64_t)timeout_ms * 1000000ULL;
        atomic_store_explicit(&t->idle_deadline, deadline, memory_order_relaxed);
        continue;
      }
      if (now >= deadline && (w & TM_W_HELD)) {
        relp = NULL; /* a creator is setting our affinity: it claims or releases us next */
        tm__futex_wait(&t->wake, w, relp, 0, 1);
        continue;
      }
      if (now >= deadline) {
        tm__wait_creator(t);               /* we are about to really exit */
        size_t stack_size = t->stack_size; /* the record may be reused once we are DEAD */
        if (atomic_compare_exchange_strong(&t->wake, &w, TM_W_DEAD)) {
          tm__idle_forget_size(stack_size);
          tm__stats_retired(TM_CAUSE_IDLE_TIMEOUT);
          return TM_W_DEAD;
        }
        continue;
      }
      /* Only the timekeeper and a worker nobody has claimed to join yet (it withdraws at its
       * deadline) sleep with a timer; the others wait for a poke (see tm__timekeeper). */
      uint64_t until = 0;
      if (tm__timekeeper_hold(t)) {
        if (now >= next_tick) {
          tm__timekeeper_scan(t, now);
          next_tick = now + period;
        }
        until = next_tick < deadline ? next_tick : deadline;
      } else if (!atomic_load_explicit(&t->parked, memory_order_acquire) &&
                 (atomic_load_explicit(&t->release, memory_order_acquire) & TM_R_COUNTED)) {
        until = deadline;
      }
      if (until) {
        /* The coarse clock may not have reached a deadline the kernel's timer has: sleep at
         * least one of its ticks, never a busy loop of zero-length waits. */
        uint64_t tick = tm__coarse_resolution_ns();
        if (until - now < tick) until = now + tick;
        rel.tv_sec = (time_t)((until - now) / 1000000000ULL);
        rel.tv_nsec = (long)((until - now) % 1000000000ULL);
        relp = &rel;
      }
    }
    tm__futex_wait(&t->wake, w, relp, 0, 1);
  }
}

static uint32_t tm__wait_assignment(struct tm_thread *t, int joiner_running) {
  uint32_t w = tm__wait_loop(t, joiner_running);
  /* No longer a sleeper the timekeeper may hand its role to (GO, RETIRE and DEAD say so). */
  if (w == TM_W_WITHDRAWN) atomic_fetch_and(&t->wake, ~(uint32_t)TM_W_SLEEPING);
  tm__quiet_leave(t, w != TM_W_WITHDRAWN && (w & TM_W_GO) && !(w & TM_W_RETIRE));
  tm__timekeeper_leave(t);
  return w;
}

/* Publishes the end of the logical thread (EXITED) and returns the lstate seen before. */
static uint32_t tm__publish_exit(struct tm_thread *t, uint32_t extra_bits) {
  uint32_t s = atomic_load_explicit(&t->lstate, memory_order_relaxed);
  for (;;) {
    if (s & TM_L_CANCEL_BUSY) { /* pthread_cancel is about to call glibc on us: let it */
      /* Sleep, not yield: the canceller may have a lower real-time priority than us. */
      tm__futex_wait(&t->lstate, s, NULL, 0, 0);
      s = atomic_load_explicit(&t->lstate, memory_order_relaxed);
      continue;
    }
    if (atomic_compare_exchange_weak_explicit(&t->lstate, &s, s | TM_L_EXITED | extra_bits,
                                              memory_order_acq_rel, memory_order_relaxed))
      break;
  }
  if (s & TM_L_WAITER) tm__futex_wake(&t->lstate, INT_MAX);
  return s;
}

/* The physical thread T is about to really exit and nobody will join it (its logical thread was
 * detached or already joined): glibc must not see it joinable, and its record is free once its
 * creator has written the pthread_t slot. */
static void tm__retire_detached(struct tm_thread *t) {
  tm__wait_creator(t);
  tm__set_self(NULL);
  tm__physical(detach, pthread_self());
  tm__record_free(t);
}

_Noreturn void tm__leave_through_glibc(struct tm_thread *t, __pthread_unwind_buf_t *buf) {
  t->in_exit_sequence = 1; /* glibc runs the destructors now; pthread_exit there is glibc's */
  uint32_t s = tm__publish_exit(t, TM_L_GLIBC_EXIT);
  tm__stats_retired((s & TM_L_CANCEL_SENT) ? TM_CAUSE_CANCELLED : TM_CAUSE_GLIBC_EXIT);
  if (s & TM_L_DETACHED) tm__retire_detached(t);
  /* Otherwise the joiner (or a later pthread_detach) sees GLIBC_EXIT and calls glibc. */
  tm__real.unwind_next(buf);
}

void tm__note_raw_thread_exit(void) {
  struct tm_thread *t = tm__self();
  if (t == NULL || t->in_exit_sequence) return;
  /* The kernel ends the task and clears its tid (glibc made it with CLONE_CHILD_CLEARTID): a
   * joiner waits for that in glibc's join, which returns as glibc's would. */
  t->in_exit_sequence = 1;
  uint32_t s = tm__publish_exit(t, TM_L_GLIBC_EXIT);
  tm__stats_retired(TM_CAUSE_GLIBC_EXIT);
  if (s & TM_L_DETACHED) tm__retire_detached(t);
}

static void *tm__worker(void *arg) {
  struct tm_thread *t = arg;
  tm__set_self(t);
  atomic_store_explicit(&t->started, 1, memory_order_release);
  t->handle = pthread_self();
  /* tid and robust-list head are read at the first reset (reset.c): a thread that is never
   * reused never pays for them. What the creator's shadow knew is ours too (no system call). */
  tm__shadow_from_seed(t);
  if (tm__option(TM_OPT_TRIM)) {
    pthread_attr_t self_attr;
    void *lo;
    size_t size;
    if (tm__real.getattr_np(pthread_self(), &self_attr) == 0) {
      if (pthread_attr_getstack(&self_attr, &lo, &size) == 0) t->stack_lo = lo;
      pthread_attr_destroy(&self_attr);
    }
  }
  for (;;) {
    if (t->want_apply) {
      tm__apply_inherit(t);
      tm__fresh_logical_state();
    }
    tm__run_logical(t);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    t->in_exit_sequence = 1;
    tm__run_destructors();
    t->in_exit_sequence = 0;
    /* Reset before publishing: when the joiner wakes up, the thread is already reusable (it
     * usually creates again at once), and the worker is not preempted half-way through. */
    unsigned why = 0;
    uint32_t before = atomic_load_explicit(&t->lstate, memory_order_relaxed);
    if (t->exit_cause == TM_CAUSE_PROCESS || tm__process_retiring())
      why = TM_CAUSE_PROCESS;
    else if (!(before & (TM_L_JOIN_CLAIMED | TM_L_DETACHED)) &&
             atomic_load_explicit(&tm__unjoined.n, memory_order_relaxed) >= tm__unjoined_bound())
      why = TM_CAUSE_UNJOINED; /* would not be kept (below): skip the reset's calls */
    else
      why = tm__reset_physical(t);
    t->home_cpu = sched_getcpu(); /* it parks on this CPU's idle slot (records.c) */
    uint32_t s = tm__publish_exit(t, 0);
    int detached = (s & TM_L_DETACHED) != 0;
    if (s & TM_L_CANCEL_SENT)
      why = TM_CAUSE_CANCELLED; /* glibc's cancel request stays pending in this thread */
    uint32_t counted = 0;
    if (!why && !detached && !(s & TM_L_JOIN_CLAIMED)) {
      /* Nobody joins yet: keeping this physical thread keeps a kernel task that glibc would
       * have freed. Only a few may wait like this; past that, really exit. */
      long long n = atomic_fetch_add(&tm__unjoined.n, 1) + 1;
      tm__headroom_maybe_refresh(n);
      if (n > tm__unjoined_bound() || tm__keeps_nothing()) {
        atomic_fetch_sub(&tm__unjoined.n, 1);
        why = TM_CAUSE_UNJOINED;
      } else {
        counted = TM_R_COUNTED;
      }
    }
    if (why) {
      tm__stats_retired(why);
      uint32_t r = atomic_fetch_or_explicit(&t->release, TM_R_DEAD, memory_order_acq_rel);
      if (detached || (r & TM_R_JOINED)) tm__retire_detached(t);
      return NULL; /* joinable: the late joiner calls the real pthread_join */
    }
    uint32_t r = atomic_fetch_or_explicit(
        &t->release, TM_R_READY | counted | (detached ? TM_R_JOINED : 0), memory_order_acq_rel);
    if (counted && (r & TM_R_JOINED)) atomic_fetch_sub(&tm__unjoined.n, 1); /* joiner was first */
    if (detached || (r & TM_R_JOINED)) tm__idle_push(t);
    /* A joiner that claimed the join and does not sleep is spinning on a CPU: it creates
     * again soon, so this worker may spin for it even on a busy machine (wait.c). */
    int joiner_running = (s & TM_L_JOIN_CLAIMED) && !(s & (TM_L_WAITER | TM_L_DETACHED));
    uint32_t w = tm__wait_assignment(t, joiner_running);
    if (w == TM_W_WITHDRAWN) return NULL; /* joinable: the late joiner calls glibc's join */
    if (w & TM_W_RETIRE) {
      tm__retire_detached(t);
      return NULL;
    }
    if (w == TM_W_DEAD) { /* idle timeout: the record stays a tombstone for the next pop */
      tm__set_self(NULL);
      tm__physical(detach, pthread_self());
      return NULL;
    }
    atomic_store_explicit(&t->wake, TM_W_WAIT, memory_order_relaxed);
  }
}

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

static void tm__poke_unjoined(struct tm_thread *t, void *unused);

int tm__shed_begin(void) {
  atomic_fetch_add(&tm__shedding, 1);
  int held = tm__idle_flush() > 0 || atomic_load(&tm__unjoined.n) > 0;
  if (held) tm__records_for_each(tm__poke_unjoined, NULL);
  return held;
}

void tm__shed_end(void) { atomic_fetch_sub(&tm__shedding, 1); }

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

int tm__create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
  tm__quiet_check_attr(attr);
  if (!atomic_load_explicit(&tm__enabled, memory_order_relaxed) ||
      atomic_load_explicit(&tm__forking, memory_order_relaxed))
    return tm__create_plain(thread, attr, start, arg);
  if (__builtin_expect(!tm__main_key_armed_already(), 0)) tm__arm_main_key();
  size_t stack_size = __atomic_load_n(&tm__default_stack_size, __ATOMIC_RELAXED);
  size_t guard_size = __atomic_load_n(&tm__default_guard_size, __ATOMIC_RELAXED);
  int detach_state = PTHREAD_CREATE_JOINABLE;
  if (attr == NULL && __atomic_load_n(&tm__default_attr_special, __ATOMIC_RELAXED))
    return tm__create_plain(thread, attr, start, arg);
  if (attr) {
    /* pthread_attr_getstack cannot tell "no stack set" apart (it returns address - size);
     * the deprecated getstackaddr can, and is looked up at run time to keep its link-time
     * deprecation warning out of the build. */
    void *user_stack = NULL;
    if (tm__getstackaddr == NULL || tm__getstackaddr(attr, &user_stack) != 0 || user_stack != NULL)
      return tm__create_plain(thread, attr, start, arg); /* the program owns that stack */
    if (pthread_attr_getstacksize(attr, &stack_size) != 0 ||
        pthread_attr_getguardsize(attr, &guard_size) != 0 ||
        pthread_attr_getdetachstate(attr, &detach_state) != 0)
      return tm__create_plain(thread, attr, start, arg);
  }
  /* Our exit path (unwinder, destructors, dl_iterate_phdr) needs stack headroom that a
   * minimal stack, possibly without a guard page, cannot promise: such threads stay glibc's. */
  if (stack_size < TM_MIN_CACHED_STACK) return tm__create_plain(thread, attr, start, arg);
  uint32_t initial = detach_state == PTHREAD_CREATE_DETACHED ? TM_L_DETACHED : 0;

  struct tm_match want;
  if (tm__idle_nonempty(stack_size) && tm__capture_match(&want, attr) == 0) {
    struct tm_thread *t;
    while ((t = tm__idle_pop(stack_size, guard_size, &want)) != NULL) {
      /* Written only when it differs from what this worker last got: the lines the worker
       * reads then stay shared instead of moving between CPUs on every recycle. */
      struct tm_inherit inherit;
      int from_attr = tm__capture_inherit(&inherit, attr);
      if (memcmp(&inherit, &t->want, sizeof inherit) != 0) t->want = inherit;
      if (from_attr) {
        /* As glibc does for a new thread: the creator sets the attr's affinity, and its
         * failure (e.g. EINVAL: no such CPU) is pthread_create's. HELD keeps the idle timeout
         * from ending the thread (and freeing its tid) meanwhile. */
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
      t->result = NULL;
      atomic_store_explicit(&t->joining, NULL, memory_order_relaxed);
      atomic_store_explicit(&t->release, 0, memory_order_relaxed);
      atomic_store_explicit(&t->lstate, initial, memory_order_relaxed);
      atomic_store_explicit(&t->parked, 0, memory_order_relaxed);
      pthread_t handle = t->handle; /* once claimed, the record may be reused at any time */
      if (tm__idle_claim(t)) {      /* publishes the fields above to the worker */
        *thread = handle;
        tm__stats_count(TM_COUNT_FROM_CACHE);
        return 0;
      }
    }
  }

  struct tm_thread *t = tm__record_alloc();
  if (t == NULL) return tm__create_plain(thread, attr, start, arg);
  t->stack_size = stack_size;
  t->guard_size = guard_size;
  tm__seed_new_thread(t, attr);
  t->start = start;
  t->arg = arg;
  atomic_store_explicit(&t->lstate, initial, memory_order_relaxed);
  /* The physical thread is always joinable (a logical detach must not let glibc free it). A
   * shallow copy of the attr shares glibc's extension (cpuset, sigmask); it is never
   * destroyed, so nothing is freed twice. */
  pthread_attr_t joinable;
  const pthread_attr_t *use = attr;
  if (attr && detach_state == PTHREAD_CREATE_DETACHED) {
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
    struct timespec tick = {0, 20000};
    while (atomic_load_explicit(&t->started, memory_order_acquire) == 0) nanosleep(&tick, NULL);
  } else {
    tm__set_record_of(handle, t);
  }
  if (atomic_exchange_explicit(&t->creator_done, 1, memory_order_acq_rel) == 2)
    tm__futex_wake(&t->creator_done, 1); /* the thread already waits to exit */
  *thread = handle;
  tm__stats_count(TM_COUNT_FROM_SYSTEM);
  return 0;
}

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

/* Sleeps until EXITED or the deadline; 0, ETIMEDOUT. A cancellation point while it sleeps. */
static int tm__join_sleep(struct tm_thread *t, clockid_t clock, const struct timespec *abstime) {
  volatile int result = 0;
  pthread_cleanup_push(tm__join_cancelled, t);
  for (;;) {
    uint32_t s = atomic_load_explicit(&t->lstate, memory_order_acquire);
    if (s & TM_L_EXITED) break;
    if (!(s & TM_L_WAITER) && !atomic_compare_exchange_weak(&t->lstate, &s, s | TM_L_WAITER))
      continue;
    int old_type;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old_type);
    int r = tm__futex_wait(&t->lstate, s | TM_L_WAITER, abstime, clock == CLOCK_REALTIME, 0);
    pthread_setcanceltype(old_type, NULL);
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

int tm__cancel(pthread_t thread) {
  struct tm_thread *t = tm__lookup(thread);
  if (t == NULL) return tm__real.cancel(thread);
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
  int r = tm__real.cancel(thread);
  if (!self) {
    atomic_fetch_and(&t->lstate, ~(uint32_t)TM_L_CANCEL_BUSY);
    tm__futex_wake(&t->lstate, INT_MAX); /* the worker may wait for BUSY to clear */
  }
  return r;
}

/* Wakes a worker that finished and waits for a join that may never come: with main gone it
 * withdraws (tm__wait_assignment), so it does not keep the process alive. */
static void tm__poke_unjoined(struct tm_thread *t, void *unused) {
  (void)unused;
  uint32_t r = atomic_load(&t->release);
  if (!(r & TM_R_READY) || (r & (TM_R_JOINED | TM_R_DEAD))) return;
  uint32_t old = atomic_fetch_or(&t->wake, TM_W_CHECK);
  if (old & TM_W_SLEEPING) tm__futex_wake(&t->wake, 1);
}

void tm__thread_after_fork(void) {
  atomic_store(&tm__unjoined.n, 0);
  atomic_store(&tm__timekeeper, 0);
  atomic_store(&tm__shedding, 0); /* a fork that retried in the parent's loop */
}

void tm__main_exiting(void) {
  if (atomic_exchange(&tm__main_exited, 1)) return;
  tm__idle_flush();
  tm__records_for_each(tm__poke_unjoined, NULL);
}
