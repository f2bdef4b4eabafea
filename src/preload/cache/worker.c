/* The loop each physical thread runs (thread_internal.h): apply what its creator gave it, run
 * the logical thread, run its destructors, reset (or retire), publish the end, park and wait
 * for the next assignment. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "../common/tm_prim.h"
#include "headroom.h"
#include "notes.h"
#include "options.h"
#include "shadow.h"
#include "stats.h"
#include "thread_internal.h"

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
int tm__worker_stalled(const void *record) {
  const struct tm_thread *t = record;
  return !atomic_load_explicit(&t->started, memory_order_relaxed) ||
         (atomic_load_explicit(&t->wake, memory_order_relaxed) & TM_W_GO);
}

/* When a sleeper before its DEADLINE (at NOW) wakes by itself, or 0: only when poked. Only the
 * timekeeper (every PERIOD, NEXT_TICK the next) and a worker nobody has claimed to join yet (it
 * withdraws at its deadline) sleep with a timer; the others wait for a poke (tm__timekeeper).
 * A record rewrite put off (TM_CACHE_STATS=FILE, RECORD_DUE from now) brings the sleeper back
 * for it, so that a process whose threads all sleep has its record up to date within a tick. */
static uint64_t tm__sleep_until(struct tm_thread *t, uint64_t now, uint64_t deadline,
                                uint64_t *next_tick, uint64_t period, uint64_t record_due) {
  uint64_t until = 0;
  if (tm__timekeeper_hold(t)) {
    if (now >= *next_tick) {
      tm__timekeeper_poke_expired(t, now);
      *next_tick = now + period;
    }
    until = *next_tick < deadline ? *next_tick : deadline;
  } else if (!atomic_load_explicit(&t->parked, memory_order_acquire) &&
             (atomic_load_explicit(&t->release, memory_order_acquire) & TM_R_COUNTED)) {
    until = deadline;
  }
  if (record_due && (until == 0 || now + record_due < until)) until = now + record_due;
  /* The coarse clock may not have reached a deadline the kernel's timer has: sleep at least
   * one of its ticks, never a busy loop of zero-length waits. */
  uint64_t tick = tm__coarse_resolution_ns();
  if (until && until - now < tick) until = now + tick;
  return until;
}

/* Waits until a creator hands this parked worker a logical thread (TM_W_GO) or tells it to
 * exit (TM_W_RETIRE), or the idle timeout expires (returns TM_W_DEAD). A worker still waiting
 * for its join (not parked) withdraws (TM_W_WITHDRAWN) when main has ended or the idle timeout
 * expires. */
static uint32_t tm__wait_loop(struct tm_thread *t, int joiner_running, uint64_t read_ns) {
  long long timeout_ms = tm__option(TM_OPT_IDLE_TIMEOUT_MS);
  /* Idle deadlines are milliseconds away: the coarse clock (READ_NS: the reset's reading, taken
   * microseconds ago, or 0), read once and reused for the first pass below (a spin in between
   * takes microseconds). */
  uint64_t entered = read_ns ? read_ns : tm__coarse_now_ns(), now_hint = entered;
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
    /* About to sleep: a cheap moment to bring TM_CACHE_STATS=FILE's record up to date. */
    uint64_t record_due = tm__stats_on ? tm__stats_record_idle() : 0;
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
      uint64_t until = tm__sleep_until(t, now, deadline, &next_tick, period, record_due);
      if (until) {
        rel.tv_sec = (time_t)((until - now) / 1000000000ULL);
        rel.tv_nsec = (long)((until - now) % 1000000000ULL);
        relp = &rel;
      }
    }
    tm__futex_wait(&t->wake, w, relp, 0, 1);
  }
}

static uint32_t tm__wait_assignment(struct tm_thread *t, int joiner_running, uint64_t now) {
  uint32_t w = tm__wait_loop(t, joiner_running, now);
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

/* A new physical thread's first steps: its record, its shadow (its creator's), its stack. */
static void tm__worker_start(struct tm_thread *t) {
  tm__set_self(t);
  atomic_store_explicit(&t->started, 1, memory_order_release);
  t->handle = pthread_self();
  /* tid and robust-list head are read at the first reset (reset.c): a thread that is never
   * reused never pays for them. What the creator's shadow knew is ours too (no system call). */
  tm__shadow_from_seed(t);
  tm__shadow_raw()->cpu = -1; /* not looked at yet (its first park asks) */
  if (tm__option(TM_OPT_TRIM)) {
    pthread_attr_t self_attr;
    void *lo;
    size_t size;
    if (tm__real.getattr_np(pthread_self(), &self_attr) == 0) {
      if (pthread_attr_getstack(&self_attr, &lo, &size) == 0) t->stack_lo = lo;
      pthread_attr_destroy(&self_attr);
    }
  }
}

/* Why the physical thread T cannot be kept now that its logical thread has ended, or 0 when
 * it was reset for the next one (reset.c). */
static unsigned tm__reset_or_cause(struct tm_thread *t) {
  uint32_t before = atomic_load_explicit(&t->lstate, memory_order_relaxed);
  if (t->exit_cause == TM_CAUSE_PROCESS || tm__process_retiring()) return TM_CAUSE_PROCESS;
  if (!(before & (TM_L_JOIN_CLAIMED | TM_L_DETACHED)) &&
      atomic_load_explicit(&tm__unjoined.n, memory_order_relaxed) >= tm__unjoined_bound())
    return TM_CAUSE_UNJOINED; /* would not be kept (tm__worker): skip the reset's calls */
  return tm__reset_physical(t);
}

void *tm__worker(void *arg) {
  struct tm_thread *t = arg;
  tm__worker_start(t);
  for (;;) {
    if (t->want_apply) {
      tm__shadow_raw()->clock_hint_ns = t->given_ns;
      tm__apply_inherit(t);
      tm__shadow_raw()->clock_hint_ns = 0; /* for the start's verification only */
      tm__fresh_logical_state();
    }
    tm__run_logical(t);
    /* As glibc's exiting thread, it takes no cancellation now: a cancel that finds it ending is
     * a no-op (join.c), and one that came before is held off (only then can one come at all). */
    atomic_store(&t->ending, 1);
    if (atomic_load(&tm__cancel_ever)) pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    t->in_exit_sequence = 1;
    tm__run_destructors();
    t->in_exit_sequence = 0;
    /* Reset before publishing: when the joiner wakes up, the thread is already reusable (it
     * usually creates again at once), and the worker is not preempted half-way through. */
    tm__shadow_raw()->clock_ns = 0; /* the reset's verification reads it: the park reuses it */
    unsigned why = tm__reset_or_cause(t);
    /* It parks on this CPU's idle slot (records.c): where its start's shadow read saw it (a
     * short logical thread ends where it started), or asked now after a first one. */
    int cpu = tm__shadow_raw()->cpu;
    t->home_cpu = why ? -1 : cpu >= 0 ? cpu : tm__prim_getcpu();
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
    uint32_t w = tm__wait_assignment(t, joiner_running, tm__shadow_raw()->clock_ns);
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
