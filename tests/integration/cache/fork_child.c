/* fork(): the child starts with no parked threads and can create threads; a recycled thread
 * that forks gets a child that ends (status 0) when that thread returns, as with glibc. */
#define _GNU_SOURCE
#include <sys/wait.h>
#include <unistd.h>

#include "semantics.h"

static void *add_one(void *arg) { return (char *)arg + 1; }

static void *forks_then_returns(void *arg) {
  (void)arg;
  pid_t pid = fork();
  if (pid == 0) return NULL; /* child: this thread is the only one; returning ends it */
  int status = 0;
  waitpid(pid, &status, 0);
  return (void *)(long)(WIFEXITED(status) ? 100 + WEXITSTATUS(status) : -1);
}

static void *forks_at_once(void *arg) {
  (void)arg;
  pid_t pid = fork(); /* possibly before pthread_create has even returned in the parent */
  if (pid == 0) pthread_exit(NULL); /* the only thread of the child: the child exits 0 */
  int status = 0;
  waitpid(pid, &status, 0);
  return (void *)(long)(WIFEXITED(status) ? 100 + WEXITSTATUS(status) : -1);
}

int main(void) {
  warm_cache();
  pid_t pid = fork();
  if (pid == 0) {
    int ok = 1;
    for (int i = 0; i < 5; ++i) {
      pthread_t t;
      void *ret;
      if (pthread_create(&t, NULL, add_one, (void *)10) != 0 || pthread_join(t, &ret) != 0 ||
          ret != (void *)11)
        ok = 0;
    }
    _exit(ok ? 0 : 3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child creates and joins threads");
  for (int round = 0; round < 2; ++round) {
    pthread_t t;
    void *ret;
    pthread_create(&t, NULL, forks_then_returns, NULL);
    pthread_join(t, &ret);
    EXPECT((long)ret == 100, "child of a forking thread exits 0 when the thread returns");
    pthread_create(&t, NULL, forks_at_once, NULL);
    pthread_join(t, &ret);
    EXPECT((long)ret == 100, "child whose only thread calls pthread_exit exits 0");
    settle();
  }
  return semantics_failures;
}
