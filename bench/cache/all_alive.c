/* N threads alive at once, as Inncabs `round` (128 philosophers) has them: each waits at a
 * barrier until all exist, computes a little and ends; main joins them all. Nothing can be
 * reused, so under the thread cache this measures what the cache costs where it cannot help:
 * its first create, and the create, end and parking of each thread (bench/cache/all_alive.sh).
 * usage: threadmap-all-alive [N (default 128, at most 1024)] */
#define _GNU_SOURCE 1 /* pthread barriers under -std=c11 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t all_here;

static void *philosopher(void *arg) {
  volatile long sum = 0;
  pthread_barrier_wait(&all_here);
  for (long i = 0; i < 20000; ++i) sum += i;
  return arg;
}

int main(int argc, char **argv) {
  static pthread_t threads[1024];
  int n = argc > 1 ? atoi(argv[1]) : 128;
  if (n < 1 || n > 1024) {
    fprintf(stderr, "threadmap-all-alive: N must be 1..1024, got %s\n", argv[1]);
    return 2;
  }
  pthread_barrier_init(&all_here, NULL, (unsigned)n);
  int made = 0;
  for (; made < n; ++made)
    if (pthread_create(&threads[made], NULL, philosopher, NULL) != 0) break;
  if (made < n) {
    fprintf(stderr, "threadmap-all-alive: only %d of %d threads could be made\n", made, n);
    abort(); /* the others wait at the barrier forever */
  }
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  return 0;
}
