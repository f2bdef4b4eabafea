/* A preload library leaves no trace in the program's state before main: C11 says errno is 0
 * at program start, and the signal mask and every disposition are what the program inherited.
 * The thread cache's start-up reads of absent files (cgroup limits) left errno at ENOENT, also
 * with TM_CACHE=0 (15 Open POSIX sched_* tests failed or went UNRESOLVED for that alone).
 * Run plainly, under the cache, under the cache with TM_CACHE=0, and under the pinner; every
 * run must print the same. Failed against the library before start-up kept errno. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  int at_start = errno; /* the first thing main does */
  printf("errno when main starts: %d\n", at_start);
  sigset_t mask;
  sigprocmask(SIG_BLOCK, NULL, &mask);
  int blocked = 0;
  for (int sig = 1; sig < SIGRTMAX; ++sig) blocked += sigismember(&mask, sig) == 1;
  printf("signals blocked when main starts: %d\n", blocked);
  int handled = 0, ignored = 0;
  for (int sig = 1; sig < SIGRTMAX; ++sig) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) continue;
    if (old.sa_handler == SIG_IGN)
      ++ignored;
    else if (old.sa_handler != SIG_DFL)
      ++handled;
  }
  printf("signals with a handler: %d, ignored: %d\n", handled, ignored);
  return at_start == 0 ? 0 : 1;
}
