/* The cache's base: glibc's real functions, whether start-up finished and whether the cache is
 * on, and glibc's defaults for NULL-attr threads. Every module may use it; it calls no module
 * (base.c, and the one-pass lookup it uses, next_symbols.c): start-up, the one file that calls
 * every module, is startup.c (docs/thread-cache.md, "The library's own dependency graph";
 * scripts/check-cache-graph.sh keeps it so). */
#ifndef THREADMAP_CACHE_BASE_H
#define THREADMAP_CACHE_BASE_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

/* ---- real functions (looked up once, at start-up: tm__real_resolve) ------------------------- */
struct tm_real {
  int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  int (*join)(pthread_t, void **);
  int (*tryjoin)(pthread_t, void **);
  int (*timedjoin)(pthread_t, void **, const struct timespec *);
  int (*clockjoin)(pthread_t, void **, clockid_t, const struct timespec *);
  int (*detach)(pthread_t);
  void (*exit)(void *) __attribute__((noreturn));
  int (*cancel)(pthread_t);
  int (*kill)(pthread_t, int);
  int (*key_create)(pthread_key_t *, void (*)(void *));
  int (*key_delete)(pthread_key_t);
  int (*getattr_np)(pthread_t, pthread_attr_t *);
  void (*register_cancel)(__pthread_unwind_buf_t *);
  void (*unregister_cancel)(__pthread_unwind_buf_t *);
  void (*register_cancel_defer)(__pthread_unwind_buf_t *);
  void (*unregister_cancel_restore)(__pthread_unwind_buf_t *);
  void (*unwind_next)(__pthread_unwind_buf_t *) __attribute__((noreturn));
  int (*unshare)(int);
  int (*setns)(int, int);
  void (*call_tls_dtors)(void);
  int (*setattr_default_np)(const pthread_attr_t *);
  int (*tss_create)(unsigned *, void (*)(void *));
  void (*tss_delete)(unsigned);
};
TM_HIDDEN extern struct tm_real tm__real;
/* Looks every real function up (start-up). 0 when a pthread function is missing; *TLS_DTORS
 * says whether glibc's __call_tls_dtors (GLIBC_PRIVATE) was found. */
TM_HIDDEN int tm__real_resolve(int *tls_dtors);

/* 1 once start-up resolved every real function and the cache may be used. */
TM_HIDDEN extern _Atomic int tm__enabled;
/* 1 once start-up finished (uninstrumented: safe while a sanitizer starts up). */
TM_HIDDEN int tm__ready(void) __attribute__((no_sanitize_thread));
/* Start-up's state word: tm__startup_claim returns 1 to the one caller that must run start-up
 * (the others wait until tm__startup_done), 0 once it is done. */
TM_HIDDEN int tm__startup_claim(void);
TM_HIDDEN void tm__startup_done(void);

/* 1 when a sanitizer runtime (ASan, TSan, MSan) is loaded: see tm__physical_create. */
TM_HIDDEN extern int tm__sanitized;
/* How physical threads are made, joined and detached: glibc's functions, or under a sanitizer
 * the runtime's interceptors (global definitions), so that the runtime knows every physical
 * thread. The interceptor calls back into our pthread_create, which sees a caller inside the
 * runtime and goes straight to glibc (interpose.c). Set at start-up (tm__physical_choose). */
TM_HIDDEN extern int (*tm__physical_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                            void *);
TM_HIDDEN extern int (*tm__physical_join)(pthread_t, void **);
TM_HIDDEN extern int (*tm__physical_detach)(pthread_t);
TM_HIDDEN void tm__physical_choose(void);

/* ---- glibc's defaults for NULL-attr threads ------------------------------------------------- */
/* Defaults of a NULL attr (pthread_getattr_default_np at start-up), bytes. */
TM_HIDDEN extern size_t tm__default_stack_size, tm__default_guard_size;
/* 1 once pthread_setattr_default_np gave NULL-attr threads a signal mask, an affinity, the
 * detached state or explicit scheduling: such creates go to glibc (they are rare; matching
 * them is not worth the hot-path cost). */
TM_HIDDEN extern int tm__default_attr_special;
/* Re-reads glibc's default thread attributes (start-up, and after pthread_setattr_default_np).
 * Returns 1 and the mask in *MASK when the defaults give new threads a signal mask (the caller
 * tells quiet_signals.c: startup.c's tm__defaults_reread). */
TM_HIDDEN int tm__defaults_refresh(sigset_t *mask);
/* glibc's deprecated pthread_attr_getstackaddr, looked up at run time: the only way to tell
 * "no stack set" from a user stack (pthread_attr_getstack returns address - size). */
TM_HIDDEN extern int (*tm__getstackaddr)(const pthread_attr_t *, void **);

#endif
