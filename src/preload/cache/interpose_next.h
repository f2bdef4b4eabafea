/* How a wrapper of a libc function calls the next definition (glibc's, or a sanitizer's
 * interceptor's next). Each file of wrappers lists its functions in an X-macro, gets one slot
 * per function (TM_NEXT_SLOTS) and an init function that looks every slot up at start-up, so
 * that no wrapper calls dlsym later: _exit, longjmp and sigprocmask run in signal handlers and
 * vfork children, where dlsym is not safe. Lookups read the objects' symbol tables
 * (next_symbols.c), which is safe there: when every lookup can be answered that way, a slot is
 * filled at its wrapper's first call instead (most processes call few of the ~90). */
#ifndef THREADMAP_CACHE_INTERPOSE_NEXT_H
#define THREADMAP_CACHE_INTERPOSE_NEXT_H

#include "next_symbols.h"

static inline void *tm__resolve_next(void **slot, const char *name) {
  void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  return fn != NULL ? fn : tm__next_symbol(slot, name);
}

#define TM_NEXT_SLOT(name) static void *tm__next_##name;
#define TM_NEXT_RESOLVE(name) tm__resolve_next(&tm__next_##name, #name);
/* Declares a slot per function of LIST, and FN_NAME(void) resolving them all: at once when a
 * lookup might need dlsym, else nothing (each slot is filled at its first call, safely:
 * tm__next_symbols_exact). */
#define TM_NEXT_SLOTS(LIST, fn_name)      \
  LIST(TM_NEXT_SLOT)                      \
  void fn_name(void) {                    \
    if (tm__next_symbols_exact()) return; \
    LIST(TM_NEXT_RESOLVE)                 \
  }

/* In a wrapper: `next`, the next definition of NAME, with TYPE. */
#define TM_NEXT(type, name) \
  __typeof__(type) next = (__typeof__(type))tm__resolve_next(&tm__next_##name, #name)

#define TM_STRINGIFY_(x) #x
#define TM_STRINGIFY(x) TM_STRINGIFY_(x)

#endif
