/* The first pthread_create of a process (tests/integration/cache/startup_quiet.sh): marked by
 * two getppid calls around it, so that a system-call trace can count what it made.
 *   first_create          one create, then its join
 *   first_create unjoined 12 threads that finish before anyone joins them (the cache then
 *                         measures how many it may keep: its task bound) */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *nothing(void *arg) { return arg; }

int main(int argc, char **argv) {
  pthread_t t[12];
  int n = argc > 1 && strcmp(argv[1], "unjoined") == 0 ? 12 : 1;
  syscall(SYS_getppid);
  if (pthread_create(&t[0], NULL, nothing, NULL) != 0) return 1;
  syscall(SYS_getppid);
  for (int i = 1; i < n; ++i)
    if (pthread_create(&t[i], NULL, nothing, NULL) != 0) return 1;
  struct timespec pause = {0, 100 * 1000 * 1000};
  if (n > 1) nanosleep(&pause, NULL); /* every thread finishes unjoined */
  for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
  return 0;
}
