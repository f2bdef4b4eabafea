/* A program that waits for /proc/self/task to hold one task (glibc's own test support does,
 * support_wait_for_thread_exit, in tst-pthread_cancel-exited and tst-pthread_kill-exited) is
 * not held forever: under glibc a finished thread's task is gone, joined, detached or not yet
 * joined. Under the cache parked threads and finished threads waiting for their join kept
 * theirs until the idle timeout (here an hour: TM_CACHE_IDLE_TIMEOUT_MS, so only the decided
 * behaviour can pass: reading the task list lets the cache's kept tasks go). Waits at most
 * 5 s per case. Failed (timed out) against the library before. */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <time.h>

#include "semantics.h"

/* Waits as glibc's support_wait_for_thread_exit does: opendir once, rewind and count. */
static int wait_single_task(void) {
  DIR *dir = opendir("/proc/self/task");
  if (dir == NULL) return -1;
  int count = 0;
  for (int round = 0; round < 500; ++round) {
    count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
      if (e->d_name[0] != '.') ++count;
    if (count == 1) break;
    rewinddir(dir);
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  closedir(dir);
  return count;
}

int main(int argc, char **argv) {
  (void)argc;
  run_with_env("TM_CACHE_IDLE_TIMEOUT_MS", "3600000", argv);
  static const char *const cases[] = {"joined", "detached", "finished, not yet joined"};
  for (int c = 0; c < 3; ++c) {
    warm_cache();
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (c == 1) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, semantics_nothing, NULL) != 0) return 99;
    if (c == 0) pthread_join(t, NULL);
    settle();
    int left = wait_single_task();
    char name[128];
    snprintf(name, sizeof name, "a wait for one task after a %s thread ends (tasks left: %d)",
             cases[c], left);
    EXPECT(left == 1, name);
    if (c == 2) pthread_join(t, NULL);
  }
  warm_cache();
  return semantics_failures;
}
