/* A thread that ends with a raw syscall(SYS_exit) ends its kernel task without glibc's exit
 * path: glibc's pthread_join still returns (the kernel clears the thread's tid and wakes the
 * joiner). Under the cache the join waited for a logical end that never came. Also a detached
 * thread that does it, and the process carries on creating threads. An alarm turns a hang
 * into a failure line. Failed (hung) against the library before the raw exit was seen. */
#define _GNU_SOURCE 1
#include <signal.h>
#include <sys/syscall.h>

#include "semantics.h"

static void *raw_exit(void *arg) {
  (void)arg;
  syscall(SYS_exit, 0);
  return NULL;
}

static void hung(int sig) {
  (void)sig;
  static const char line[] = "FAIL a join of a thread that ended with syscall(SYS_exit) hung\n";
  if (write(1, line, sizeof line - 1) < 0) _exit(2);
  _exit(1);
}

int main(void) {
  signal(SIGALRM, hung);
  alarm(10);
  warm_cache();
  pthread_t t;
  if (pthread_create(&t, NULL, raw_exit, NULL) != 0) return 99;
  EXPECT(pthread_join(t, NULL) == 0, "join of a thread that ended with syscall(SYS_exit) returns");
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &detached, raw_exit, NULL) != 0) return 99;
  settle();
  warm_cache();
  int ok = 1;
  for (int i = 0; i < 20; ++i) {
    if (pthread_create(&t, NULL, raw_exit, NULL) != 0 || pthread_join(t, NULL) != 0) ok = 0;
  }
  EXPECT(ok, "20 more threads that end with syscall(SYS_exit), each joined");
  warm_cache();
  return semantics_failures;
}
