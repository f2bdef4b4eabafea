// The seed contention experiment (src/experiments/contention.cpp; the thread affinity blog's
// Google Benchmark) as a program of its own, to be run from outside like any other: two pairs
// of threads, each pair incrementing its own atomic counter. Threads are created in the order
// of examples/specs/contending-pairs.json (pairA.0, pairA.1, pairB.0, pairB.1), so a plan made
// from that spec pins the right threads. Prints "increments/s=N".
//   contending_pairs [INCREMENTS_PER_THREAD]   (default 20000000)
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// One cache line per counter: otherwise the two pairs would also contend with each other
// (false sharing) and hide the effect of where each pair runs.
struct padded_counter {
  _Alignas(64) atomic_long value;
};

static struct padded_counter counters[2];
static long increments = 20000000;
// All four start together, so the two threads of a pair overlap (as in the seed bench) rather
// than the first finishing before the last is created.
static pthread_barrier_t start;

static void* hammer(void* arg) {
  atomic_long* counter = arg;
  pthread_barrier_wait(&start);
  for (long i = 0; i < increments; ++i) atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) increments = atol(argv[1]);
  if (increments <= 0) {
    fprintf(stderr, "contending_pairs: bad increment count '%s'\n", argv[1]);
    return 2;
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pthread_barrier_init(&start, NULL, 4);
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i)
    if (pthread_create(&threads[i], NULL, hammer, &counters[i / 2].value) != 0) return 1;
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  long total = atomic_load(&counters[0].value) + atomic_load(&counters[1].value);
  if (total != 4 * increments) return 1;
  printf("increments/s=%.0f\n", (double)total / s);
  return 0;
}
