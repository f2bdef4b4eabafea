/* A child forked by a thread with PR_SET_PDEATHSIG is signalled when that thread ends (the
 * kernel's parent is the thread, not the process): under the cache the physical thread must
 * really end, not park. Main joins the thread and waits ~0.45 s for the signal. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "semantics.h"

static void *forks(void *arg) {
  int ready[2];
  if (pipe(ready) != 0) return NULL;
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    if (write(ready[1], "x", 1) != 1) _exit(3);
    for (int i = 0; i < 40; ++i) settle(); /* ~1.2 s, then give up */
    _exit(0);
  }
  char c;
  if (read(ready[0], &c, 1) != 1) c = 0;
  close(ready[0]);
  close(ready[1]);
  *(pid_t *)arg = pid;
  return NULL;
}

int main(int argc, char **argv) {
  (void)argc;
  /* A long idle timeout: the parked thread must not end by timing out within the wait. */
  run_with_env("TM_CACHE_IDLE_TIMEOUT_MS", "10000", argv);
  warm_cache();
  pid_t child = 0;
  pthread_t t;
  if (pthread_create(&t, NULL, forks, &child) != 0) return 99;
  pthread_join(t, NULL);
  int status = 0;
  int reaped = 0;
  for (int i = 0; i < 15 && !reaped; ++i) { /* ~0.45 s: less than the idle timeout */
    if (waitpid(child, &status, WNOHANG) == child)
      reaped = 1;
    else
      settle();
  }
  if (!reaped) waitpid(child, &status, 0);
  EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
         "PR_SET_PDEATHSIG child signalled when its thread ends");
  warm_cache();
  return semantics_failures;
}
