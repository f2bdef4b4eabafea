/* Start-up of the thread cache: resolving glibc's functions, reading the options, choosing
 * how physical threads are made (glibc, or a sanitizer's interceptors), and the fork handler.
 * Runs once, from the library constructor or the first interposed call. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "../common/tm_prim.h"
#include "../common/tm_sanitizer.h"
#include "headroom.h"
#include "identity.h"
#include "kernel_word.h"
#include "notes.h"
#include "options.h"
#include "shadow.h"
#include "stats.h"

struct tm_real tm__real;
_Atomic int tm__enabled;
static _Atomic int tm__init_state; /* 0 not started, 1 running, 2 done */
size_t tm__default_stack_size;
int (*tm__getstackaddr)(const pthread_attr_t *, void **);
int tm__sanitized;
/* How physical threads are made: glibc's pthread_create, or under a sanitizer the runtime's
 * interceptor (global pthread_create), so that the runtime knows every physical thread. The
 * interceptor calls back into our pthread_create, which sees a caller inside the runtime and
 * goes straight to glibc (interpose.c). */
int (*tm__physical_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
/* Joins and detaches of physical threads take the same road, so the runtime's bookkeeping of
 * its threads stays complete (no false "thread leak" reports). */
int (*tm__physical_join)(pthread_t, void **);
int (*tm__physical_detach)(pthread_t);
size_t tm__default_guard_size;

int tm__default_attr_special;

void tm__defaults_refresh(void) {
  pthread_attr_t defaults;
  size_t stack_size = 8u << 20, guard_size = (size_t)tm__prim_page_size();
  int special = 0;
  if (pthread_getattr_default_np(&defaults) == 0) {
    pthread_attr_getstacksize(&defaults, &stack_size);
    pthread_attr_getguardsize(&defaults, &guard_size);
    sigset_t mask;
    cpu_set_t cpus;
    if (pthread_attr_getsigmask_np(&defaults, &mask) == 0) {
      special = 1;
      if (tm__quiet_mask_counts(SIG_SETMASK, &mask)) tm__quiet_end(); /* quiet_signals.c */
    }
    /* A detached or explicitly scheduled default is glibc's too (glibc's tst-default-attr
     * creates NULL-attr threads under a detached default and reads the state back). */
    int detach = PTHREAD_CREATE_JOINABLE, inherit = PTHREAD_INHERIT_SCHED;
    if (pthread_attr_getdetachstate(&defaults, &detach) == 0 && detach != PTHREAD_CREATE_JOINABLE)
      special = 1;
    if (pthread_attr_getinheritsched(&defaults, &inherit) == 0 && inherit != PTHREAD_INHERIT_SCHED)
      special = 1;
    if (pthread_attr_getaffinity_np(&defaults, sizeof cpus, &cpus) == 0) {
      const unsigned char *bytes = (const unsigned char *)&cpus;
      for (size_t i = 0; i < sizeof cpus; ++i)
        if (bytes[i] != 0xff) special = 1;
    }
    pthread_attr_destroy(&defaults);
  }
  __atomic_store_n(&tm__default_stack_size, stack_size, __ATOMIC_RELAXED);
  __atomic_store_n(&tm__default_guard_size, guard_size, __ATOMIC_RELAXED);
  __atomic_store_n(&tm__default_attr_special, special, __ATOMIC_RELAXED);
}

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

static void tm__main_key_after_fork(void);

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

/* The sanitizer runtime's interceptor of NAME, or FALLBACK (glibc's) when the runtime does not
 * intercept it (the global definition is then our own). */
static void *tm__interceptor(const char *name, void *fallback) {
  void *global = dlsym(RTLD_DEFAULT, name);
  Dl_info where, ours;
  if (global == NULL || !dladdr(global, &where) || !dladdr((void *)&tm__interceptor, &ours) ||
      where.dli_fbase == ours.dli_fbase)
    return fallback;
  return global;
}

/* Set from fork's prepare handler to its parent/child handlers: a child handler registered
 * before ours may create a thread before ours forgot the parent's parked ones. */
_Atomic int tm__forking;
static pthread_key_t tm__main_key;
static _Atomic int tm__main_key_held;  /* 1 while tm__main_key is ours */
static _Atomic int tm__main_key_armed; /* the main thread made its first cached create */
static pthread_t tm__main_thread;      /* pthread_self() of main, when init ran there */
static int tm__main_thread_known;

static void tm__main_key_destructor(void *value) {
  (void)value;
  if (tm__prim_getpid() == tm__prim_gettid()) tm__main_exiting();
}

/* glibc gives the lowest free key: ours, made at main's first create, would take the key a
 * program that creates a thread before its first key expects to get (0). Every free
 * key is taken once and all but the highest given back, so the program's keys are numbered as
 * without the cache (once per process, at main's first create: ~1024 creates and deletes). */
static int tm__take_high_key(pthread_key_t *out) {
  pthread_key_t taken[PTHREAD_KEYS_MAX];
  int n = 0;
  /* Each with our destructor: only the kept one ever holds a value. */
  while (n < PTHREAD_KEYS_MAX && tm__real.key_create(&taken[n], tm__main_key_destructor) == 0) ++n;
  if (n == 0) return 0;
  int high = 0;
  for (int i = 1; i < n; ++i)
    if (taken[i] > taken[high]) high = i;
  for (int i = 0; i < n; ++i)
    if (i != high) tm__real.key_delete(taken[i]);
  *out = taken[high];
  return 1;
}

/* However main ends its thread without ending the process (pthread_exit, thrd_exit, or
 * cancelling itself), glibc runs its key destructors: ours tells parked threads to go. The key
 * is made at main's first cached create, not at start-up: a key is visible to the program
 * (glibc's tst-tss-basic expects key 0 to be invalid before the program creates one), and a
 * process that never creates a thread needs none; it is the highest free one
 * (tm__take_high_key). A program
 * that needs every key gets it back (tm__give_up_main_key); parked threads then end at their
 * idle timeout instead. */
void tm__arm_main_key(void) {
  if (!tm__main_thread_known || !pthread_equal(pthread_self(), tm__main_thread) ||
      atomic_exchange(&tm__main_key_armed, 1))
    return;
  if (tm__take_high_key(&tm__main_key)) {
    pthread_setspecific(tm__main_key, &tm__main_key);
    atomic_store(&tm__main_key_held, 1);
  }
}

/* The forking thread is the child's main thread (its tid is the child's pid): when it ends
 * with pthread_exit, the child's parked threads must go at once, as from main (the
 * thread that forked may not be the parent's main thread, which alone held our key's value). */
static void tm__main_key_after_fork(void) {
  tm__main_thread = pthread_self();
  tm__main_thread_known = 1;
  if (atomic_load(&tm__main_key_held)) pthread_setspecific(tm__main_key, &tm__main_key);
}

int tm__main_key_armed_already(void) {
  return atomic_load_explicit(&tm__main_key_armed, memory_order_relaxed);
}

int tm__give_up_main_key(void) {
  if (!atomic_exchange(&tm__main_key_held, 0)) return 0;
  return tm__real.key_delete(tm__main_key) == 0;
}

#define TM_RESOLVE(field, name) \
  (*(void **)&tm__real.field = dlsym(RTLD_NEXT, name), tm__real.field != NULL)

/* Start-up: what every process that loads the library needs, whether or not it ever creates a
 * thread (every `true`, `sh`, `sed` a script starts pays it): the options (read once, shown
 * with TM_VERBOSE), glibc's functions our wrappers forward to (looked up now: _exit, longjmp,
 * sigprocmask run in signal handlers and vfork children, where dlsym is not safe), the shadow
 * of the main thread's mask, whether the cache is on. No file is read and nothing is
 * allocated here: what only a thread-creating process needs waits for its first create
 * (tm__init_threads). */
static void tm__init_once(void) {
  extern char **environ;
  tm__options_load(environ);
  tm__stats_init();
  int ok =
      TM_RESOLVE(create, "pthread_create") & TM_RESOLVE(join, "pthread_join") &
      TM_RESOLVE(tryjoin, "pthread_tryjoin_np") & TM_RESOLVE(timedjoin, "pthread_timedjoin_np") &
      TM_RESOLVE(clockjoin, "pthread_clockjoin_np") & TM_RESOLVE(detach, "pthread_detach") &
      TM_RESOLVE(exit, "pthread_exit") & TM_RESOLVE(cancel, "pthread_cancel") &
      TM_RESOLVE(kill, "pthread_kill") & TM_RESOLVE(key_create, "pthread_key_create") &
      TM_RESOLVE(key_delete, "pthread_key_delete") & TM_RESOLVE(getattr_np, "pthread_getattr_np") &
      TM_RESOLVE(register_cancel, "__pthread_register_cancel") &
      TM_RESOLVE(unregister_cancel, "__pthread_unregister_cancel") &
      TM_RESOLVE(register_cancel_defer, "__pthread_register_cancel_defer") &
      TM_RESOLVE(unregister_cancel_restore, "__pthread_unregister_cancel_restore") &
      TM_RESOLVE(unwind_next, "__pthread_unwind_next") & TM_RESOLVE(unshare, "unshare") &
      TM_RESOLVE(setns, "setns") & TM_RESOLVE(setattr_default_np, "pthread_setattr_default_np") &
      TM_RESOLVE(tss_create, "tss_create") & TM_RESOLVE(tss_delete, "tss_delete");
  tm__process_interpose_init();
  tm__handler_interpose_init();
  tm__open_interpose_init();
  tm__syscall_interpose_init();
  tm__legacy_interpose_init();
  /* glibc's runner of thread_local destructors (GLIBC_PRIVATE): without it we could not end a
   * logical thread the way glibc ends a thread, so the cache stays off. */
  int have_tls_dtors = TM_RESOLVE(call_tls_dtors, "__call_tls_dtors");
  *(void **)&tm__getstackaddr = dlsym(RTLD_NEXT, "pthread_attr_getstackaddr");
  tm__sanitized = tm__sanitizer_present();
  if (tm__sanitized) tm__runtime_ranges_init();
  tm__physical_create = tm__real.create;
  tm__physical_join = tm__real.join;
  tm__physical_detach = tm__real.detach;
  if (tm__sanitized) {
    *(void **)&tm__physical_create = tm__interceptor("pthread_create", (void *)tm__real.create);
    *(void **)&tm__physical_join = tm__interceptor("pthread_join", (void *)tm__real.join);
    *(void **)&tm__physical_detach = tm__interceptor("pthread_detach", (void *)tm__real.detach);
  }
  tm__defaults_refresh();
  tm__shadow_init();
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
  if (tm__option(TM_OPT_VERBOSE)) {
    tm__options_print();
    tm__line line;
    tm__line_start(&line);
    tm__line_str(&line, enable ? "thread cache: enabled" : "thread cache: disabled");
    tm__line_emit(&line);
  }
  atomic_store(&tm__enabled, enable);
}

/* The first create of a process with the cache on: what only threads need. The task bound
 * (cgroup pids, RLIMIT_NPROC, pid_max, threads-max, loadavg), the CPUs (spinning, record
 * slots), the TLS layout of this library and glibc (dladdr), the main thread's identity, the
 * futex table (before any thread of ours sleeps in it: the caller is still the only thread
 * of ours) and the fork handlers. */
static _Atomic int tm__threads_state; /* 0 not started, 1 running, 2 done */

static void tm__init_threads_once(void) {
  int saved_errno = errno; /* cgroup files may be absent: the program's errno stays its own */
  tm__identity_init();
  tm__shadow_init_threads();
  tm__kernel_word_init();
  tm__headroom_init();
  tm__wait_init();
  tm__records_init();
  tm__reset_init();
  if (pthread_atfork(tm__before_fork, tm__after_fork_parent, tm__after_fork_child) != 0)
    atomic_store(&tm__enabled, 0);
  if (tm__prim_getpid() == tm__prim_gettid()) { /* see tm__arm_main_key */
    tm__main_thread = pthread_self();
    tm__main_thread_known = 1;
  }
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

int tm__ready(void) { return __atomic_load_n((int *)&tm__init_state, __ATOMIC_ACQUIRE) == 2; }

void tm__init(void) {
  if (atomic_load_explicit(&tm__init_state, memory_order_acquire) == 2) return;
  int expected = 0;
  if (atomic_compare_exchange_strong(&tm__init_state, &expected, 1)) {
    /* Start-up reads files that may be absent (cgroup limits): main must start with the errno
     * the program had (0, C11), whether the cache is on or not. */
    int saved_errno = errno;
    tm__init_once();
    errno = saved_errno;
    atomic_store_explicit(&tm__init_state, 2, memory_order_release);
    return;
  }
  while (atomic_load_explicit(&tm__init_state, memory_order_acquire) != 2) tm__prim_yield();
}
