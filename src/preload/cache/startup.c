/* Start-up of the thread cache: the top of the library, the one file that calls every module.
 * tm__init runs once, from the library constructor or the first interposed call: it reads the
 * options, looks up the real functions (base.c) and the next definition of every wrapped
 * function (each file of wrappers), decides whether the cache is on. tm__init_threads runs at
 * the first create with the cache on: what only threads need, and the fork handlers. The
 * base it fills (base.h) calls nothing here (docs/thread-cache.md, "The library's own
 * dependency graph"). */
#include <errno.h>
#include <signal.h>

#include "../common/tm_prim.h"
#include "../common/tm_sanitizer.h"
#include "base.h"
#include "headroom.h"
#include "identity.h"
#include "kernel_word.h"
#include "main_key.h"
#include "notes.h"
#include "options.h"
#include "shadow.h"
#include "stats.h"

/* Re-reads glibc's defaults; a default signal mask is a mask change for quiet_signals.c. */
void tm__defaults_reread(void) {
  sigset_t mask;
  if (tm__defaults_refresh(&mask) && tm__quiet_mask_counts(SIG_SETMASK, &mask)) tm__quiet_end();
}

/* Set from fork's prepare handler to its parent/child handlers: a child handler registered
 * before ours may create a thread before ours forgot the parent's parked ones. */
_Atomic int tm__forking;

static void tm__before_fork(void) { atomic_store(&tm__forking, 1); }
/* The kernel's parent of a forked child is the thread that forked: when that thread ends, the
 * child gets its PR_SET_PDEATHSIG signal (and is reparented). A parked thread never ends, so a
 * thread retires at its logical exit while a child it forked runs (reset.c). The interposed
 * fork records the child's pid (process.c); a fork made inside libc (daemon) tells no pid: the
 * thread retires. */
static void tm__after_fork_parent(void) {
  atomic_store(&tm__forking, 0);
  tm__forked_unseen();
}

/* What a fork child does without the parent's threads (also after a fork made with syscall(2),
 * which runs no fork handlers: syscall_interpose.c). Stores to globals only. */
static void tm__forget_parent_threads(void) {
  tm__stats_after_fork();
  tm__shadow_after_fork();
  tm__thread_after_fork();
  atomic_store(&tm__forking, 0);
  tm__records_after_fork();
  tm__wait_after_fork();
  tm__quiet_after_fork();
  struct tm_thread *t = tm__self();
  if (t) {
    t->exit_cause = TM_CAUSE_PROCESS;  /* nobody in the child will join it */
    atomic_store(&t->creator_done, 1); /* nor is there a creator to wait for */
  }
}

static void tm__after_fork_child(void) {
  tm__forget_parent_threads();
  tm__once_after_fork();
  tm__main_key_after_fork();
}

void tm__after_raw_fork_child(void) {
  if (atomic_load(&tm__enabled)) tm__forget_parent_threads();
}

/* The next definitions of every wrapped function (interpose_next.h). Each is looked up at its
 * first call when the objects' symbol tables answer every lookup (next_symbols.c: no lock, no
 * allocation, safe where _exit, longjmp, sigprocmask run: signal handlers, vfork children);
 * otherwise all are looked up now, with dlsym, which is safe in neither. A process that calls
 * few of them (`true`, `sed`) then looks up few: ~300 instructions each. */
static void tm__wrappers_resolve(void) {
  tm__process_interpose_init();
  tm__handler_interpose_init();
  tm__open_interpose_init();
  tm__syscall_interpose_init();
  tm__legacy_interpose_init();
}

static void tm__say_enabled(int enable) {
  tm__options_print();
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, enable ? "thread cache: enabled" : "thread cache: disabled");
  tm__line_emit(&line);
}

/* Start-up: what every process that loads the library needs, whether or not it ever creates a
 * thread (every `true`, `sh`, `sed` a script starts pays it): the options (read once, shown
 * with TM_VERBOSE), glibc's functions our wrappers forward to, the shadow of the main thread,
 * whether the cache is on. No file is read and nothing is allocated here: what only a
 * thread-creating process needs waits for its first create (tm__init_threads). */
static void tm__init_once(void) {
  extern char **environ;
  tm__startup_thread_remember();
  tm__options_load(environ);
  tm__stats_init();
  int have_tls_dtors = 0;
  int ok = tm__real_resolve(&have_tls_dtors);
  tm__wrappers_resolve();
  tm__sanitized = tm__sanitizer_present();
  if (tm__sanitized) tm__runtime_ranges_init();
  tm__physical_choose();
  tm__shadow_interpose_init(); /* looks nothing up unless the tables cannot answer */
  int enable = tm__option(TM_OPT_ENABLE) != 0;
  if (!ok || !have_tls_dtors) {
    tm__line line;
    tm__line_start(&line);
    tm__line_str(&line, !ok ? "thread cache: cannot find glibc's pthread functions; cache disabled"
                            : "thread cache: glibc has no __call_tls_dtors; cache disabled");
    tm__line_emit(&line);
    enable = 0;
  }
  /* A fork child of a process that never created a thread counts for itself too (its pid);
   * with the cache on, the full fork handlers come with the first create. */
  if (tm__stats_on) pthread_atfork(NULL, NULL, tm__stats_after_fork);
  tm__once_init(enable);
  if (tm__option(TM_OPT_VERBOSE)) tm__say_enabled(enable);
  atomic_store(&tm__enabled, enable);
}

void tm__init(void) {
  if (!tm__startup_claim()) return;
  /* Start-up reads files that may be absent (cgroup limits): main must start with the errno
   * the program had (0, C11), whether the cache is on or not. */
  int saved_errno = errno;
  tm__init_once();
  errno = saved_errno;
  tm__startup_done();
}

/* The first create of a process with the cache on: what only threads need. glibc's NULL-attr
 * defaults, the CPUs (spinning, record slots), the TLS layout of this library and glibc, the
 * main thread's identity, the futex table (before any thread of ours sleeps in it: the caller
 * is still the only thread of ours) and the fork handlers. The task bound waits until it
 * matters (headroom.c). */
static _Atomic int tm__threads_state; /* 0 not started, 1 running, 2 done */

static void tm__init_threads_once(void) {
  int saved_errno = errno; /* cgroup files may be absent: the program's errno stays its own */
  /* glibc's NULL-attr defaults: only a create reads them (~11k instructions, calls bound
   * lazily at their first use), and a default signal mask only matters to parked threads. */
  tm__defaults_reread();
  /* The shadow's start: the creator's mask (quiet_signals.c: a process whose threads start with
   * signals blocked never parks them open) and the verification interval. Not at start-up: a
   * process that creates no thread never needs them (one rt_sigprocmask in every `true`). */
  tm__shadow_init();
  tm__identity_init();
  tm__shadow_init_threads();
  tm__kernel_word_init();
  tm__headroom_init();
  tm__wait_init();
  tm__records_init();
  tm__reset_init();
  if (pthread_atfork(tm__before_fork, tm__after_fork_parent, tm__after_fork_child) != 0)
    atomic_store(&tm__enabled, 0);
  tm__main_thread_remember(); /* see main_key.c */
  tm__wait_choose_futex_keys(atomic_load(&tm__enabled));
  errno = saved_errno;
}

void tm__init_threads(void) {
  if (atomic_load_explicit(&tm__threads_state, memory_order_acquire) == 2) return;
  int expected = 0;
  if (atomic_compare_exchange_strong(&tm__threads_state, &expected, 1)) {
    tm__init_threads_once();
    atomic_store_explicit(&tm__threads_state, 2, memory_order_release);
    return;
  }
  while (atomic_load_explicit(&tm__threads_state, memory_order_acquire) != 2) tm__prim_yield();
}
