/* The exported symbols, and nothing else: each wrapper makes sure the library is initialised
 * and hands over to a hidden function (thread.c, logical_exit.c) or to glibc. The version
 * script (exports.map) exports exactly these names, unversioned, so they interpose glibc's
 * versioned definitions whether the library is preloaded or linked before libc. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "options.h"
#include "stats.h"
#include "tm_cache.h"

#define TM_EXPORT __attribute__((visibility("default")))

__attribute__((constructor)) static void tm__constructor(void) { tm__init(); }

__attribute__((destructor)) static void tm__destructor(void) {
  if (tm__stats_on) tm__stats_print();
}

TM_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                             void *(*start)(void *), void *arg) {
  tm__init();
  return tm__create(thread, attr, start, arg);
}

TM_EXPORT int pthread_join(pthread_t thread, void **ret) {
  tm__init();
  return tm__join(thread, ret, TM_JOIN_BLOCK, CLOCK_REALTIME, NULL);
}

TM_EXPORT int pthread_tryjoin_np(pthread_t thread, void **ret) {
  tm__init();
  return tm__join(thread, ret, TM_JOIN_TRY, CLOCK_REALTIME, NULL);
}

TM_EXPORT int pthread_timedjoin_np(pthread_t thread, void **ret, const struct timespec *abstime) {
  tm__init();
  if (abstime == NULL) return tm__join(thread, ret, TM_JOIN_BLOCK, CLOCK_REALTIME, NULL);
  return tm__join(thread, ret, TM_JOIN_TIMED, CLOCK_REALTIME, abstime);
}

TM_EXPORT int pthread_clockjoin_np(pthread_t thread, void **ret, clockid_t clock,
                                   const struct timespec *abstime) {
  tm__init();
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return EINVAL;
  if (abstime == NULL) return tm__join(thread, ret, TM_JOIN_BLOCK, clock, NULL);
  return tm__join(thread, ret, TM_JOIN_TIMED, clock, abstime);
}

TM_EXPORT int pthread_detach(pthread_t thread) {
  tm__init();
  return tm__detach(thread);
}

TM_EXPORT int pthread_cancel(pthread_t thread) {
  tm__init();
  return tm__cancel(thread);
}

TM_EXPORT void pthread_exit(void *value) {
  tm__init();
  struct tm_thread *t = tm__self();
  if (t && !t->in_exit_sequence && !t->own_exit) tm__own_exit(t, value);
  if (t == NULL && getpid() == (pid_t)gettid()) tm__main_exiting();
  tm__real.exit(value);
}

TM_EXPORT int pthread_kill(pthread_t thread, int sig) {
  tm__init();
  struct tm_thread *t = tm__lookup(thread);
  if (t && (atomic_load(&t->lstate) & TM_L_EXITED) && !t->in_exit_sequence) {
    /* glibc (>= 2.34) does not signal a thread that has exited but is not joined yet. */
    if (sig < 0 || sig >= NSIG) return EINVAL;
    return 0;
  }
  return tm__real.kill(thread, sig);
}

TM_EXPORT int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
  tm__init();
  int r = tm__real.key_create(key, destructor);
  if (r == 0) tm__key_created(*key, destructor);
  return r;
}

TM_EXPORT int pthread_key_delete(pthread_key_t key) {
  tm__init();
  int r = tm__real.key_delete(key);
  if (r == 0) tm__key_deleted(key);
  return r;
}

TM_EXPORT int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr) {
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

/* Namespace changes of the calling thread cannot be undone: such a thread is not reused. */
TM_EXPORT int unshare(int flags) {
  tm__init();
  struct tm_thread *t = tm__self();
  if (t) t->tainted = 1;
  return tm__real.unshare(flags);
}

TM_EXPORT int setns(int fd, int nstype) {
  tm__init();
  struct tm_thread *t = tm__self();
  if (t) t->tainted = 1;
  return tm__real.setns(fd, nstype);
}
