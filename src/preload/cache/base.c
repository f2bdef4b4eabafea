/* The cache's base (base.h): glibc's real functions, start-up's state, the physical-thread
 * functions and glibc's NULL-attr defaults. Calls no module of the cache: every module may use
 * it (scripts/check-cache-graph.sh). */
#include "base.h"

#include <dlfcn.h>
#include <sched.h>
#include <signal.h>

#include "../common/tm_prim.h"
#include "next_symbols.h"

struct tm_real tm__real;
_Atomic int tm__enabled;
static _Atomic int tm__init_state; /* 0 not started, 1 running, 2 done */
size_t tm__default_stack_size;
size_t tm__default_guard_size;
int tm__default_attr_special;
int (*tm__getstackaddr)(const pthread_attr_t *, void **);
int tm__sanitized;
int (*tm__physical_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
/* Joins and detaches of physical threads take the same road as creates, so the runtime's
 * bookkeeping of its threads stays complete (no false "thread leak" reports). */
int (*tm__physical_join)(pthread_t, void **);
int (*tm__physical_detach)(pthread_t);

int tm__ready(void) { return __atomic_load_n((int *)&tm__init_state, __ATOMIC_ACQUIRE) == 2; }

int tm__startup_claim(void) {
  if (atomic_load_explicit(&tm__init_state, memory_order_acquire) == 2) return 0;
  int expected = 0;
  if (atomic_compare_exchange_strong(&tm__init_state, &expected, 1)) return 1;
  while (atomic_load_explicit(&tm__init_state, memory_order_acquire) != 2) tm__prim_yield();
  return 0;
}

void tm__startup_done(void) { atomic_store_explicit(&tm__init_state, 2, memory_order_release); }

// clang-format off
/* Every real function: its slot in tm__real and its name. */
#define TM_REAL_FUNCTIONS(X)                                                                \
  X(create, pthread_create) X(join, pthread_join) X(tryjoin, pthread_tryjoin_np)            \
  X(timedjoin, pthread_timedjoin_np) X(clockjoin, pthread_clockjoin_np)                     \
  X(detach, pthread_detach) X(exit, pthread_exit) X(cancel, pthread_cancel)                 \
  X(kill, pthread_kill) X(key_create, pthread_key_create) X(key_delete, pthread_key_delete) \
  X(getattr_np, pthread_getattr_np) X(register_cancel, __pthread_register_cancel)           \
  X(unregister_cancel, __pthread_unregister_cancel)                                         \
  X(register_cancel_defer, __pthread_register_cancel_defer)                                 \
  X(unregister_cancel_restore, __pthread_unregister_cancel_restore)                         \
  X(unwind_next, __pthread_unwind_next) X(unshare, unshare) X(setns, setns)                 \
  X(setattr_default_np, pthread_setattr_default_np) X(tss_create, tss_create)               \
  X(tss_delete, tss_delete)
// clang-format on

int tm__real_resolve(int *tls_dtors) {
  int ok = 1;
#define TM_RESOLVE_REAL(field, name) ok &= tm__next_symbol((void **)&tm__real.field, #name) != NULL;
  TM_REAL_FUNCTIONS(TM_RESOLVE_REAL)
#undef TM_RESOLVE_REAL
  /* glibc's runner of thread_local destructors (GLIBC_PRIVATE): without it we could not end a
   * logical thread the way glibc ends a thread, so the cache stays off. */
  *tls_dtors = tm__next_symbol((void **)&tm__real.call_tls_dtors, "__call_tls_dtors") != NULL;
  tm__next_symbol((void **)&tm__getstackaddr, "pthread_attr_getstackaddr");
  return ok;
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

void tm__physical_choose(void) {
  tm__physical_create = tm__real.create;
  tm__physical_join = tm__real.join;
  tm__physical_detach = tm__real.detach;
  if (!tm__sanitized) return;
  *(void **)&tm__physical_create = tm__interceptor("pthread_create", (void *)tm__real.create);
  *(void **)&tm__physical_join = tm__interceptor("pthread_join", (void *)tm__real.join);
  *(void **)&tm__physical_detach = tm__interceptor("pthread_detach", (void *)tm__real.detach);
}

/* 1 when the default attributes' detach state, scheduling inheritance or affinity is not what
 * a plain thread gets (glibc's tst-default-attr creates NULL-attr threads under a detached
 * default and reads the state back). */
static int tm__defaults_special(const pthread_attr_t *defaults) {
  int detach = PTHREAD_CREATE_JOINABLE, inherit = PTHREAD_INHERIT_SCHED;
  if (pthread_attr_getdetachstate(defaults, &detach) == 0 && detach != PTHREAD_CREATE_JOINABLE)
    return 1;
  if (pthread_attr_getinheritsched(defaults, &inherit) == 0 && inherit != PTHREAD_INHERIT_SCHED)
    return 1;
  cpu_set_t cpus;
  if (pthread_attr_getaffinity_np(defaults, sizeof cpus, &cpus) == 0) {
    const unsigned char *bytes = (const unsigned char *)&cpus;
    for (size_t i = 0; i < sizeof cpus; ++i)
      if (bytes[i] != 0xff) return 1;
  }
  return 0;
}

int tm__defaults_refresh(sigset_t *mask) {
  pthread_attr_t defaults;
  size_t stack_size = 8u << 20, guard_size = (size_t)tm__prim_page_size();
  int special = 0, has_mask = 0;
  if (pthread_getattr_default_np(&defaults) == 0) {
    pthread_attr_getstacksize(&defaults, &stack_size);
    pthread_attr_getguardsize(&defaults, &guard_size);
    has_mask = pthread_attr_getsigmask_np(&defaults, mask) == 0;
    special = has_mask || tm__defaults_special(&defaults);
    pthread_attr_destroy(&defaults);
  }
  __atomic_store_n(&tm__default_stack_size, stack_size, __ATOMIC_RELAXED);
  __atomic_store_n(&tm__default_guard_size, guard_size, __ATOMIC_RELAXED);
  __atomic_store_n(&tm__default_attr_special, special, __ATOMIC_RELAXED);
  return has_mask;
}
