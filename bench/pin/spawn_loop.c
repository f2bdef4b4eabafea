/* The workload for the pinning-overhead benchmark: N times pthread_create + pthread_join of an
 * empty thread, timed inside the program (so launcher start-up is not counted). Prints the
 * mean wall-clock ns and mean CPU ns (process CPU time, all threads, user+system) per
 * create+join. CPU time is what the pinning costs in work; on a loaded machine it is far less
 * noisy than wall time. Usage: tm_spawn_loop N */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void* empty(void* arg) { return arg; }

static double clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000;
  pthread_t t;
  for (int i = 0; i < 200; ++i) { /* warm-up: stacks cached, libraries resolved */
    if (pthread_create(&t, NULL, empty, NULL) != 0) return 1;
    pthread_join(t, NULL);
  }
  double start = clock_ns(CLOCK_MONOTONIC);
  double cpu_start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  for (long i = 0; i < n; ++i) {
    if (pthread_create(&t, NULL, empty, NULL) != 0) return 1;
    pthread_join(t, NULL);
  }
  double wall = clock_ns(CLOCK_MONOTONIC) - start;
  double cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  printf("%.1f %.1f\n", wall / (double)n, cpu / (double)n);
  return 0;
}
