/* The exported symbols, and nothing else: each wrapper makes sure the library is initialised
 * and hands over to a hidden function (thread.c, logical_exit.c) or to glibc. The version
 * script (exports.map) exports exactly these names, unversioned, so they interpose glibc's
 * versioned definitions whether the library is preloaded or linked before libc. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "../common/tm_prim.h"
#include "../common/tm_sanitizer.h"
#include "options.h"
#include "shadow.h"
#include "stats.h"

/* Exported wrappers are not TSan-instrumented: TSan's own start-up calls some of them (e.g.
 * pthread_key_create) before it can run instrumented code. Under a sanitizer, until our
 * constructor has run, and whenever the caller is a sanitizer runtime, a wrapper goes straight
 * to glibc (tm__early):
 * runtimes model one thread per kernel thread, so threads they wrap are plain glibc threads
 * (our physical threads are made through their interceptor, see tm__physical_create), and
 * their keys (whose destructors tear down per-thread runtime state) stay glibc's. */
#define TM_EXPORT __attribute__((visibility("default"), no_sanitize_thread))
#define TM_EARLY(name, ...)                                                             \
  do {                                                                                  \
    if (__builtin_expect((!tm__ready() && tm__sanitizer_loaded()) || tm__passthrough || \
                             tm__in_runtime(__builtin_return_address(0)),               \
                         0)) {                                                          \
      __typeof__(name) *early = (__typeof__(name) *)tm__early(#name);                   \
      return early(__VA_ARGS__);                                                        \
    }                                                                                   \
  } while (0)

/* Set while this library calls a sanitizer's interceptor for a physical thread (see
 * tm__physical_create): the interceptor may tail-call back into us, so the return address
 * alone cannot tell. */
__thread int tm__passthrough __attribute__((tls_model("initial-exec")));

/* 1 when a sanitizer runtime is loaded. Without one, a call that comes before our constructor
 * simply initialises the library (so, e.g., keys created by other libraries' constructors are
 * tracked); with one, such calls go to glibc, since the runtime may not be ready for our
 * instrumented code yet. */
#define tm__sanitizer_loaded tm__sanitizer_present /* ../common/tm_sanitizer.h */

__attribute__((no_sanitize_thread)) static void *tm__early(const char *name) {
  return dlsym(RTLD_NEXT, name);
}

/* Code ranges of sanitizer runtimes (libasan, libtsan, ...), found once at start-up: calls
 * coming from there take glibc's path (TM_EARLY), uninstrumented. */
#define TM_MAX_RUNTIME_RANGES 8
static uintptr_t tm__runtime_lo[TM_MAX_RUNTIME_RANGES], tm__runtime_hi[TM_MAX_RUNTIME_RANGES];
static int tm__runtime_ranges;

static int tm__note_runtime(struct dl_phdr_info *info, size_t size, void *unused) {
  (void)size;
  (void)unused;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  static const char *const runtimes[] = {"libasan",   "libtsan", "liblsan",    "libubsan",
                                         "libhwasan", "libmsan", "libclang_rt"};
  int is_runtime = 0;
  for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; ++i)
    if (strncmp(base, runtimes[i], strlen(runtimes[i])) == 0) is_runtime = 1;
  for (int i = 0; is_runtime && i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    if (tm__runtime_ranges == TM_MAX_RUNTIME_RANGES) break;
    tm__runtime_lo[tm__runtime_ranges] = info->dlpi_addr + ph->p_vaddr;
    tm__runtime_hi[tm__runtime_ranges] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    tm__runtime_ranges++;
  }
  return 0;
}

void tm__runtime_ranges_init(void) { dl_iterate_phdr(tm__note_runtime, NULL); }

__attribute__((no_sanitize_thread)) static int tm__in_runtime(void *code) {
  for (int i = 0; i < tm__runtime_ranges; ++i)
    if ((uintptr_t)code >= tm__runtime_lo[i] && (uintptr_t)code < tm__runtime_hi[i]) return 1;
  return 0;
}

__attribute__((constructor)) static void tm__constructor(void) { tm__init(); }

__attribute__((destructor)) static void tm__destructor(void) { tm__stats_at_exit(); }

TM_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                             void *arg) {
  TM_EARLY(pthread_create, thread, attr, start, arg);
  tm__init();
  return tm__create(thread, attr, start, arg);
}

TM_EXPORT int pthread_join(pthread_t thread, void **ret) {
  TM_EARLY(pthread_join, thread, ret);
  tm__init();
  return tm__join(thread, ret, TM_JOIN_BLOCK, CLOCK_REALTIME, NULL);
}

TM_EXPORT int pthread_tryjoin_np(pthread_t thread, void **ret) {
  TM_EARLY(pthread_tryjoin_np, thread, ret);
  tm__init();
  return tm__join(thread, ret, TM_JOIN_TRY, CLOCK_REALTIME, NULL);
}

TM_EXPORT int pthread_timedjoin_np(pthread_t thread, void **ret, const struct timespec *abstime) {
  TM_EARLY(pthread_timedjoin_np, thread, ret, abstime);
  tm__init();
  if (abstime == NULL) return tm__join(thread, ret, TM_JOIN_BLOCK, CLOCK_REALTIME, NULL);
  return tm__join(thread, ret, TM_JOIN_TIMED, CLOCK_REALTIME, abstime);
}

TM_EXPORT int pthread_clockjoin_np(pthread_t thread, void **ret, clockid_t clock,
                                   const struct timespec *abstime) {
  TM_EARLY(pthread_clockjoin_np, thread, ret, clock, abstime);
  tm__init();
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return EINVAL;
  if (abstime == NULL) return tm__join(thread, ret, TM_JOIN_BLOCK, clock, NULL);
  return tm__join(thread, ret, TM_JOIN_TIMED, clock, abstime);
}

TM_EXPORT int pthread_detach(pthread_t thread) {
  TM_EARLY(pthread_detach, thread);
  tm__init();
  return tm__detach(thread);
}

TM_EXPORT int pthread_cancel(pthread_t thread) {
  TM_EARLY(pthread_cancel, thread);
  tm__init();
  return tm__cancel(thread);
}

TM_EXPORT void pthread_exit(void *value) {
  tm__init();
  struct tm_thread *t = tm__self();
  if (t && !t->in_exit_sequence && !t->own_exit) tm__own_exit(t, value);
  if (t == NULL && tm__prim_getpid() == tm__prim_gettid()) tm__main_exiting();
  tm__real.exit(value);
}

/* pthread_kill has two versions in glibc: GLIBC_2.34 returns 0 for a thread that has exited
 * but is not joined yet, the old one (GLIBC_2.2.5, x86_64's base version) ESRCH. Both are
 * defined here (exports.map) so that each caller gets its own version's answer. */
static int tm__kill(pthread_t thread, int sig, int exited_answer, int (*real)(pthread_t, int)) {
  tm__init();
  struct tm_thread *t = tm__lookup(thread);
  if (t && (atomic_load(&t->lstate) & TM_L_EXITED) && !t->in_exit_sequence) {
    /* glibc does not signal a thread that has exited but is not joined yet. */
    if (sig < 0 || sig >= NSIG) return EINVAL;
    return exited_answer;
  }
  /* A thread-directed signal: the target checks its pending set when it ends (shadow.h). */
  if (sig != 0) atomic_fetch_add_explicit(&tm__signal_epoch, 1, memory_order_release);
  return real(thread, sig);
}

__asm__(".symver tm__pthread_kill, pthread_kill@@GLIBC_2.34");
TM_EXPORT int tm__pthread_kill(pthread_t thread, int sig) {
  if (__builtin_expect((!tm__ready() && tm__sanitizer_loaded()) || tm__passthrough ||
                           tm__in_runtime(__builtin_return_address(0)),
                       0))
    return ((int (*)(pthread_t, int))dlvsym(RTLD_NEXT, "pthread_kill", "GLIBC_2.34"))(thread, sig);
  tm__init();
  return tm__kill(thread, sig, 0, tm__real.kill);
}

__asm__(".symver tm__pthread_kill_esrch, pthread_kill@GLIBC_2.2.5");
/* The old pthread_kill, looked up at its first call (dlvsym: ~1k instructions) and kept. */
static int (*tm__old_kill)(pthread_t, int);

TM_EXPORT int tm__pthread_kill_esrch(pthread_t thread, int sig) {
  int (*old)(pthread_t, int) = __atomic_load_n(&tm__old_kill, __ATOMIC_ACQUIRE);
  if (old == NULL) {
    old = (int (*)(pthread_t, int))dlvsym(RTLD_NEXT, "pthread_kill", "GLIBC_2.2.5");
    if (old != NULL) __atomic_store_n(&tm__old_kill, old, __ATOMIC_RELEASE);
  }
  if (old == NULL) old = tm__real.kill;
  if (__builtin_expect((!tm__ready() && tm__sanitizer_loaded()) || tm__passthrough ||
                           tm__in_runtime(__builtin_return_address(0)),
                       0))
    return old(thread, sig);
  tm__init();
  return tm__kill(thread, sig, ESRCH, old);
}

TM_EXPORT int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
  TM_EARLY(pthread_key_create, key, destructor);
  tm__init();
  int r = tm__real.key_create(key, destructor);
  if (r == EAGAIN && tm__give_up_main_key()) r = tm__real.key_create(key, destructor);
  if (r == 0) tm__key_created(*key, destructor);
  return r;
}

TM_EXPORT int pthread_key_delete(pthread_key_t key) {
  TM_EARLY(pthread_key_delete, key);
  tm__init();
  int r = tm__real.key_delete(key);
  if (r == 0) tm__key_deleted(key);
  return r;
}

TM_EXPORT int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr) {
  TM_EARLY(pthread_getattr_np, thread, attr);
  tm__init();
  int r = tm__real.getattr_np(thread, attr);
  struct tm_thread *t = tm__lookup(thread);
  if (r == 0 && t && (atomic_load(&t->lstate) & TM_L_DETACHED))
    pthread_attr_setdetachstate(attr, PTHREAD_CREATE_DETACHED); /* the logical state */
  return r;
}

TM_EXPORT void __pthread_register_cancel(__pthread_unwind_buf_t *buf) {
  tm__init();
  tm__real.register_cancel(buf);
  struct tm_thread *t = tm__self();
  if (t) t->cleanup_top = buf;
}

TM_EXPORT void __pthread_unregister_cancel(__pthread_unwind_buf_t *buf) {
  tm__init();
  tm__real.unregister_cancel(buf);
  struct tm_thread *t = tm__self();
  if (t) t->cleanup_top = (__pthread_unwind_buf_t *)buf->__pad[0]; /* glibc's `prev` */
}

TM_EXPORT void __pthread_register_cancel_defer(__pthread_unwind_buf_t *buf) {
  tm__init();
  tm__real.register_cancel_defer(buf);
  struct tm_thread *t = tm__self();
  if (t) t->cleanup_top = buf;
}

TM_EXPORT void __pthread_unregister_cancel_restore(__pthread_unwind_buf_t *buf) {
  tm__init();
  tm__real.unregister_cancel_restore(buf);
  struct tm_thread *t = tm__self();
  if (t) t->cleanup_top = (__pthread_unwind_buf_t *)buf->__pad[0];
}

TM_EXPORT void __pthread_unwind_next(__pthread_unwind_buf_t *buf) {
  tm__init();
  tm__unwind_next(buf); /* returns only if the unwind is glibc's */
  tm__real.unwind_next(buf);
}

/* Decides by itself (once.c): under a sanitizer every call goes to the runtime's interceptor. */
TM_EXPORT int pthread_once(pthread_once_t *control, void (*routine)(void)) {
  return tm__once(control, routine);
}

/* The kernel refuses some unshare and setns calls (a user namespace, CLONE_FS with a shared
 * fs, ...) to a multithreaded process with EINVAL. Under glibc a process whose threads all
 * ended (joined or not) is single-threaded again; under the cache its parked threads and its
 * finished threads waiting for a join still hold tasks: on EINVAL they are let go and the call
 * is made again until their tasks are gone (process.c; each exits at once: ~1 ms in practice,
 * 1 s at most). Running threads stay: EINVAL, as under glibc. Either call changes what a clone
 * of the caller gets: a new identity (identity.h). */
struct tm_ns_call {
  int (*call)(int, int);
  int a, b;
};

static long tm__ns_again(void *context) {
  struct tm_ns_call *c = context;
  return c->call(c->a, c->b);
}

static int tm__ns_refused(long r) { return r == -1 && errno == EINVAL; }

static int tm__namespace_call(int (*call)(int, int), int a, int b) {
  struct tm_ns_call c = {call, a, b};
  long r = tm__ns_again(&c);
  if (tm__ns_refused(r)) {
    struct tm_retry retry = {tm__ns_again, tm__ns_refused, &c, 1000, 0};
    r = tm__retry_tasks_released(&retry, r);
  }
  tm__identity_changed(TM_CAUSE_NAMESPACE);
  return (int)r;
}

static int tm__call_unshare(int flags, int unused) {
  (void)unused;
  return tm__real.unshare(flags);
}

static int tm__call_setns(int fd, int nstype) { return tm__real.setns(fd, nstype); }

TM_EXPORT int unshare(int flags) {
  TM_EARLY(unshare, flags);
  tm__init();
  return tm__namespace_call(tm__call_unshare, flags, 0);
}

TM_EXPORT int setns(int fd, int nstype) {
  TM_EARLY(setns, fd, nstype);
  tm__init();
  return tm__namespace_call(tm__call_setns, fd, nstype);
}

/* C11 thread-specific storage: glibc's tss_create makes a pthread key with its internal key
 * create, which pthread_key_create's wrapper never sees; a logical thread's end must run its
 * destructor and clear it as for any key (logical_exit.c). */
TM_EXPORT int tss_create(tss_t *key, tss_dtor_t destructor) {
  TM_EARLY(tss_create, key, destructor);
  tm__init();
  int r = tm__real.tss_create(key, destructor);
  if (r == thrd_success) tm__key_created((pthread_key_t)*key, destructor);
  return r;
}

TM_EXPORT void tss_delete(tss_t key) {
  tm__init();
  tm__real.tss_delete(key);
  tm__key_deleted((pthread_key_t)key);
}

/* glibc's defaults for NULL-attr threads (stack size, guard, signal mask, affinity) change:
 * re-read them, so a recycled thread is never made under other defaults than it would get. */
TM_EXPORT int pthread_setattr_default_np(const pthread_attr_t *attr) {
  TM_EARLY(pthread_setattr_default_np, attr);
  tm__init();
  int r = tm__real.setattr_default_np(attr);
  if (r == 0) tm__defaults_reread();
  return r;
}
