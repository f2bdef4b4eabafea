/* pthread_once that makes no system call when nobody waits (std::async makes two per task).
 *
 * glibc ends every first pthread_once on a word with FUTEX_WAKE on it, whether or not a thread
 * sleeps there. libstdc++'s std::async makes two once_flags per task (one to set the result,
 * one to join the thread), so every std::async create+join paid two futex calls that woke
 * nobody: 92% of the futex calls of the 1-creator spawn loop under the cache (perf, event
 * syscalls:sys_enter_futex, all from __pthread_once_slow), 2 of its 6.2 calls per cycle at 32.
 *
 * This is glibc's algorithm on glibc's encoding of the word (0: not run; generation | 1:
 * running; 2: done; private futex keys), so the word keeps meaning what glibc's own code
 * expects, plus a count of sleepers: a thread about to sleep on a word first counts itself in
 * one of TM_ONCE_COUNTERS counters (chosen by the word's address); the thread that finishes
 * (or abandons) the routine stores the word, then reads that counter, both sequentially
 * consistent. Either it sees the sleeper and wakes, or the sleeper's FUTEX_WAIT, which reads
 * the word after the count, finds the new value and returns at once. A waker that finds
 * another word's sleeper in its counter wakes for nothing, which is harmless.
 *
 * A routine left by cancellation, pthread_exit or a C++ exception (std::call_once lets them
 * through) resets the word to 0 and wakes sleepers, as glibc does, and registered twice as
 * glibc does: as a cleanup that runs as a landing pad of every unwind (this file is compiled
 * with -fexceptions), which is the only way a C++ exception runs it, and in the thread's
 * chain of old-style cleanup buffers (_pthread_cleanup_push), which cancellation and
 * pthread_exit run even when the routine's frames have no unwind tables and the unwind jumps
 * past ours (glibc's tst-oncey3/4). Whichever runs first does it.
 *
 * Fork: a word left running by a thread the child does not have is told apart by its
 * generation, glibc's __fork_generation, which glibc changes in every child. It is hidden in
 * libc, so it is read: glibc's pthread_once, run on a word of ours, stores generation | 1
 * there while our routine runs (tm__once_probe, at the first call that finds a word not done,
 * and in the cache's fork child handler: not at start-up, where glibc's pthread_once would make
 * its FUTEX_WAKE in every process that loads the library). Left: a child made by _Fork, which runs
 * no fork handlers, keeps the parent's generation here, so a routine the parent left running waits
 * forever in that child (glibc would run it again). POSIX allows only async-signal-safe calls in
 * such a child, and pthread_once is not one.
 *
 * Who gets this: every call bound to our pthread_once. glibc's calls from inside libc (C11
 * call_once, libc's own onces) stay glibc's; they never share a word with the program's
 * pthread_once. A word shared with a call that bypasses symbol interposition (a pthread_once
 * found with dlsym(RTLD_NEXT)) could sleep uncounted and never be woken: not supported.
 * Off (every call goes to the next pthread_once) with TM_CACHE=0, TM_CACHE_ONCE=0, or under a
 * sanitizer runtime, whose interceptor models pthread_once for its race detection. */
#include <dlfcn.h>
#include <limits.h>

#include "../common/tm_futex.h"
#include "../common/tm_prim.h"
#include "../common/tm_sanitizer.h"
#include "next_symbols.h"
#include "options.h"
#include "tm_cache.h"

enum { TM_ONCE_RUNNING = 1, TM_ONCE_DONE = 2 }; /* glibc's __PTHREAD_ONCE_INPROGRESS, _DONE */
enum { TM_ONCE_UNDECIDED, TM_ONCE_OURS, TM_ONCE_NEXT };

static _Atomic int tm__once_mode;
static int (*_Atomic tm__once_next)(pthread_once_t *, void (*)(void));
/* glibc's fork generation, as last read (tm__once_probe); only its bits above 1 are used. */
static _Atomic unsigned tm__once_generation;

#define TM_ONCE_COUNTERS 64
/* Sleepers per address class. Read by every finishing routine, written only by sleepers:
 * lines of their own, away from globals that change on every recycle. */
static TM_OWN_LINES _Atomic int tm__once_sleepers[TM_ONCE_COUNTERS];

static _Atomic int *tm__once_counter(const void *word) {
  uint64_t h = ((uint64_t)(uintptr_t)word >> 2) * 0x9e3779b97f4a7c15ull;
  return &tm__once_sleepers[h >> 58]; /* the top 6 bits: 64 counters */
}

/* glibc's pthread_once runs this while our probe word holds generation | 1. */
static pthread_once_t tm__probe_word;
static unsigned tm__probe_seen;
static void tm__probe_routine(void) {
  tm__probe_seen = (unsigned)__atomic_load_n(&tm__probe_word, __ATOMIC_RELAXED);
}

/* 0 not probed, 1 probing, 2 probed (tm__once_generation is this process's). */
static _Atomic int tm__probe_state;

/* Single-threaded (a fork child), or under tm__probe_state (tm__once_probed). */
static void tm__once_probe(void) {
  int (*next)(pthread_once_t *, void (*)(void)) = atomic_load(&tm__once_next);
  tm__probe_word = PTHREAD_ONCE_INIT;
  tm__probe_seen = 0;
  if (next) next(&tm__probe_word, tm__probe_routine);
  atomic_store(&tm__once_generation, tm__probe_seen & ~3u);
  atomic_store_explicit(&tm__probe_state, 2, memory_order_release);
}

/* Probes once, before the first word that is not done is run or waited on. */
static void tm__once_probed(void) {
  if (__builtin_expect(atomic_load_explicit(&tm__probe_state, memory_order_acquire) == 2, 1))
    return;
  int expected = 0;
  if (atomic_compare_exchange_strong(&tm__probe_state, &expected, 1)) {
    tm__once_probe();
    return;
  }
  while (atomic_load_explicit(&tm__probe_state, memory_order_acquire) != 2) tm__prim_yield();
}

void tm__once_init(int enabled) {
  void *next = NULL;
  tm__next_symbol(&next, "pthread_once");
  atomic_store(&tm__once_next, (int (*)(pthread_once_t *, void (*)(void)))next);
  int ours = enabled && tm__option(TM_OPT_ONCE) != 0 && !tm__sanitizer_present() &&
             atomic_load(&tm__once_next) != NULL;
  atomic_store(&tm__once_mode, ours ? TM_ONCE_OURS : TM_ONCE_NEXT);
}

void tm__once_after_fork(void) {
  if (atomic_load(&tm__once_mode) != TM_ONCE_OURS) return;
  for (int i = 0; i < TM_ONCE_COUNTERS; ++i) atomic_store(&tm__once_sleepers[i], 0);
  tm__once_probe();
}

/* Wakes the word's sleepers if any may sleep. WORD has just been stored (seq_cst). */
static void tm__once_wake(_Atomic int *word) {
  if (atomic_load(tm__once_counter(word)) != 0) tm__futex_wake_private(word, INT_MAX);
}

/* Sleeps while *WORD == RUNNING_VALUE (glibc's waiters use private keys on this word too). */
static void tm__once_sleep(_Atomic int *word, int running_value) {
  _Atomic int *count = tm__once_counter(word);
  atomic_fetch_add(count, 1);
  tm__futex_wait_private(word, (uint32_t)running_value);
  atomic_fetch_sub(count, 1);
}

struct tm_once_run {
  _Atomic int *word;
  int finished;
};

/* Cleanup of the routine's scope: on any unwind out of the routine, give the word back. */
static void tm__once_abandoned(struct tm_once_run *run) {
  if (run->finished) return;
  run->finished = 1;
  atomic_store(run->word, 0);
  tm__once_wake(run->word);
}

static void tm__once_abandoned_buffer(void *run) { tm__once_abandoned(run); }

/* glibc's old-style cleanup chain (GLIBC_2.2.5; pthread.h declares neither). */
extern void _pthread_cleanup_push(struct _pthread_cleanup_buffer *buffer, void (*routine)(void *),
                                  void *arg);

static __attribute__((noinline)) int tm__once_slow(_Atomic int *word, void (*routine)(void)) {
  tm__once_probed();
  for (;;) {
    int running_value;
    int seen = atomic_load_explicit(word, memory_order_acquire);
    do {
      if (seen & TM_ONCE_DONE) return 0;
      running_value =
          (int)(atomic_load_explicit(&tm__once_generation, memory_order_relaxed) | TM_ONCE_RUNNING);
    } while (!atomic_compare_exchange_weak_explicit(word, &seen, running_value,
                                                    memory_order_acquire, memory_order_acquire));
    /* Running in this generation: another thread runs the routine. Running in an older one: its
     * runner did not survive a fork, and this thread has just taken the word over. */
    if ((seen & TM_ONCE_RUNNING) && seen == running_value) {
      tm__once_sleep(word, running_value);
      continue;
    }
    struct tm_once_run run __attribute__((cleanup(tm__once_abandoned))) = {word, 0};
    struct _pthread_cleanup_buffer buffer;
    _pthread_cleanup_push(&buffer, tm__once_abandoned_buffer, &run);
    routine();
    _pthread_cleanup_pop(&buffer, 0);
    run.finished = 1;
    atomic_store(word, TM_ONCE_DONE);
    tm__once_wake(word);
    return 0;
  }
}

static int tm__once_decide(void) {
  /* Under a sanitizer, calls made before our constructor go to the runtime (interpose.c). */
  if (!tm__ready() && tm__sanitizer_present()) return TM_ONCE_NEXT;
  tm__init();
  int mode = atomic_load_explicit(&tm__once_mode, memory_order_acquire);
  return mode == TM_ONCE_UNDECIDED ? TM_ONCE_NEXT : mode;
}

int tm__once(pthread_once_t *control, void (*routine)(void)) {
  int mode = atomic_load_explicit(&tm__once_mode, memory_order_acquire);
  if (__builtin_expect(mode != TM_ONCE_OURS, 0)) {
    if (mode == TM_ONCE_UNDECIDED) mode = tm__once_decide();
    if (mode != TM_ONCE_OURS) {
      int (*next)(pthread_once_t *, void (*)(void)) = atomic_load(&tm__once_next);
      if (next == NULL)
        next = (int (*)(pthread_once_t *, void (*)(void)))dlsym(RTLD_NEXT, "pthread_once");
      return next(control, routine);
    }
  }
  _Atomic int *word = (_Atomic int *)(void *)control;
  if (__builtin_expect(atomic_load_explicit(word, memory_order_acquire) & TM_ONCE_DONE, 1))
    return 0;
  return tm__once_slow(word, routine);
}
