/* glibc's own per-thread state that a real thread exit frees or clears (__libc_thread_freeres)
 * and a fresh thread starts without: cleared for every recycled logical thread (reset.c). In a
 * file of its own: <resolv.h> defines short macros (p_type, ...) that clash with <link.h>. */
#include <dlfcn.h>
#include <netdb.h>
#include <resolv.h>

#include "tm_cache.h"

/* glibc's close of a resolver state (libc since 2.34; exported under this name before too). */
extern void __res_nclose(res_state state);

void tm__libc_thread_freeres(void) {
  /* A pending dlerror() message: the first call returns it, the second frees it. */
  if (dlerror() != NULL) (void)dlerror();
  h_errno = 0;
  /* The resolver state, closed and marked uninitialised as __res_thread_freeres does (a fresh
   * thread's _res is all zero: res_init runs again at its first lookup). */
  res_state res = __res_state();
  if (res->nscount != 0) {
    __res_nclose(res);
    res->options = 0;
  }
}
