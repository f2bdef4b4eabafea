/* pthread_kill on a thread that has exited but is not joined: glibc 2.34's pthread_kill
 * returns 0, the old pthread_kill@GLIBC_2.2.5 (binaries linked against older glibc) ESRCH.
 * Under the cache each version must keep its own answer. x86_64 only: the old
 * version's name is the architecture's base version. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <signal.h>

#include "semantics.h"

#if defined(__x86_64__)
extern int old_pthread_kill(pthread_t, int);
__asm__(".symver old_pthread_kill, pthread_kill@GLIBC_2.2.5");
#endif

int main(void) {
  warm_cache();
  pthread_t t;
  pthread_create(&t, NULL, semantics_nothing, NULL);
  settle(); /* it has exited; nobody joined it */
  EXPECT(pthread_kill(t, 0) == 0, "pthread_kill@GLIBC_2.34 on an exited thread: 0");
#if defined(__x86_64__)
  int r = old_pthread_kill(t, 0);
  printf("old pthread_kill: %s\n", r == ESRCH ? "ESRCH" : r == 0 ? "0" : "other");
  EXPECT(r == ESRCH, "pthread_kill@GLIBC_2.2.5 on an exited thread: ESRCH");
#endif
  pthread_join(t, NULL);
  return semantics_failures;
}
