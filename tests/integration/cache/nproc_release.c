/* Under RLIMIT_NPROC (and likewise a cgroup's pids.max), a finished thread no longer holds a
 * kernel task under glibc, joined or not: a program with 3 finished, unjoined threads and a
 * limit of main + 3 can still create 3 more. Under the cache the finished threads
 * (and parked ones) hold tasks: a create that fails with EAGAIN must release them and retry.
 * Runs in a child as an unprivileged user (root ignores RLIMIT_NPROC). */
#define _GNU_SOURCE 1
#include <sys/resource.h>
#include <sys/wait.h>

#include "semantics.h"

static void *quick(void *arg) { return arg; }

static int child(void) {
  if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) return 10;
  struct rlimit lim = {4, 4}; /* main + 3 (counted per user: nobody runs nothing else here) */
  if (setrlimit(RLIMIT_NPROC, &lim) != 0) return 11;
  pthread_t done[3], more[3];
  for (int i = 0; i < 3; ++i)
    if (pthread_create(&done[i], NULL, quick, NULL) != 0) return 12;
  settle(); /* all three have finished; none is joined */
  int failed = 0;
  for (int i = 0; i < 3; ++i)
    if (pthread_create(&more[i], NULL, quick, NULL) != 0) ++failed;
  for (int i = 0; i < 3; ++i) pthread_join(done[i], NULL);
  return failed;
}

int main(void) {
  if (geteuid() != 0) {
    printf("ok creates after finished unjoined threads under RLIMIT_NPROC (not root: skipped)\n");
    return 0;
  }
  warm_cache();
  pid_t pid = fork();
  if (pid == 0) _exit(child());
  int status = 0;
  waitpid(pid, &status, 0);
  int r = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
  if (r >= 10) {
    printf("ok creates after finished unjoined threads under RLIMIT_NPROC (setup failed: %d)\n", r);
    return 0;
  }
  printf("creates that failed after 3 finished unjoined threads under RLIMIT_NPROC 4: %d\n", r);
  return 0;
}
