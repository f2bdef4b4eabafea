/* threadmap-gomp-teams: what OpenMP runtimes do to threads (the case behind Dice & Kogan's
 * PyTorch row): parallel regions whose team size changes from one region to the next, with
 * nested regions inside, so that libgomp keeps creating and ending threads. Prints regions per
 * second (outer regions; each holds one nested region per outer thread) and the wall time.
 * Run it with and without LD_PRELOAD=libthreadmap-cache.so to compare.
 *   threadmap-gomp-teams [REGIONS]   (default 2000) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  long regions = argc > 1 ? atol(argv[1]) : 2000;
  if (regions <= 0) {
    fprintf(stderr, "threadmap-gomp-teams: REGIONS must be a positive integer\n");
    return 2;
  }
  omp_set_max_active_levels(2);
  volatile double sink = 0;
  double start = now_s();
  for (long r = 0; r < regions; ++r) {
    int outer = 2 + (int)(r % 4); /* 2..5 threads: team size changes every region */
#pragma omp parallel num_threads(outer)
    {
      int inner = 1 + (int)((r + omp_get_thread_num()) % 3); /* nested teams of 1..3 */
      double local = 0;
#pragma omp parallel num_threads(inner) reduction(+ : local)
      {
        for (int i = 0; i < 200; ++i) local += (double)(i ^ omp_get_thread_num());
      }
#pragma omp atomic
      sink += local;
    }
  }
  double took = now_s() - start;
  printf("{\"regions\":%ld,\"seconds\":%.4f,\"regions_per_second\":%.1f}\n", regions, took,
         (double)regions / took);
  return sink < 0; /* keeps the work */
}
