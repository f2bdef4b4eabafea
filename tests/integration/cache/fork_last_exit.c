/* A child forked from a non-main thread (and from main) that creates and joins a thread and
 * then ends its only thread with pthread_exit ends at once, as under glibc, not after the
 * cache's idle timeout. The parent measures how
 * long the child lived. */
#define _GNU_SOURCE
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "semantics.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void child_body(void) {
  warm_cache(); /* a thread created, joined and parked in the child */
  pthread_exit(NULL);
}

/* Forks, and reports whether the child ended within 0.5 s (the default idle timeout is 1 s). */
static int fork_and_time(void) {
  double start = now_s();
  pid_t pid = fork();
  if (pid == 0) child_body();
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && now_s() - start < 0.5;
}

static void *from_thread(void *arg) {
  (void)arg;
  return (void *)(long)fork_and_time();
}

int main(void) {
  warm_cache();
  void *r = NULL;
  pthread_t t;
  if (pthread_create(&t, NULL, from_thread, NULL) != 0) return 99;
  pthread_join(t, &r);
  EXPECT(r == (void *)1L, "child forked by a thread ends at once after pthread_exit");
  EXPECT(fork_and_time(), "child forked by main ends at once after pthread_exit");
  return semantics_failures;
}
