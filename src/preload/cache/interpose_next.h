/* How a wrapper of a libc function calls the next definition (glibc's, or a sanitizer's
 * interceptor's next). Each file of wrappers lists its functions in an X-macro, gets one slot
 * per function (TM_NEXT_SLOTS) and an init function that looks every slot up at start-up, so
 * that no wrapper looks anything up later: _exit, longjmp and sigprocmask run in signal
 * handlers and vfork children, where dlsym is not safe. A call before start-up looks its
 * function up then. Lookups read the objects' symbol tables (next_symbols.c), not dlsym. */
#ifndef THREADMAP_CACHE_INTERPOSE_NEXT_H
#define THREADMAP_CACHE_INTERPOSE_NEXT_H

#include "next_symbols.h"

static inline void *tm__resolve_next(void **slot, const char *name) {
  void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  return fn != NULL ? fn : tm__next_symbol(slot, name);
}

#define TM_NEXT_SLOT(name) static void *tm__next_##name;
#define TM_NEXT_RESOLVE(name) tm__resolve_next(&tm__next_##name, #name);
/* Declares a slot per function of LIST, and FN_NAME(void) resolving them all. */
#define TM_NEXT_SLOTS(LIST, fn_name) \
  LIST(TM_NEXT_SLOT)                 \
  void fn_name(void) { LIST(TM_NEXT_RESOLVE) }

/* In a wrapper: `next`, the next definition of NAME, with TYPE. */
#define TM_NEXT(type, name) \
  __typeof__(type) next = (__typeof__(type))tm__resolve_next(&tm__next_##name, #name)

#define TM_STRINGIFY_(x) #x
#define TM_STRINGIFY(x) TM_STRINGIFY_(x)

#endif
