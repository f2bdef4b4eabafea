/* The workload for the pinning-overhead benchmark: N times pthread_create + pthread_join of an
 * empty thread, timed inside the program (so launcher start-up is not counted). Prints the
 * mean ns per create+join. Usage: tm_spawn_loop N */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void* empty(void* arg) { return arg; }

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000;
  pthread_t t;
  for (int i = 0; i < 200; ++i) { /* warm-up: stacks cached, libraries resolved */
    if (pthread_create(&t, NULL, empty, NULL) != 0) return 1;
    pthread_join(t, NULL);
  }
  double start = now_ns();
  for (long i = 0; i < n; ++i) {
    if (pthread_create(&t, NULL, empty, NULL) != 0) return 1;
    pthread_join(t, NULL);
  }
  printf("%.1f\n", (now_ns() - start) / (double)n);
  return 0;
}
