/* OpenMP (libgomp) case of the thread-cache matrix. libgomp keeps the threads of its outermost
 * team between parallel regions, but the threads of a nested team end with the team, so each
 * outer region below makes new threads for the nested regions inside it. Prints a checksum of
 * the work (each element written by exactly one thread), never a timing.
 *   runtime_omp_teams N   N outer regions of 2 threads, each holding a nested region of 2 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long regions = argc > 1 ? atol(argv[1]) : 1000;
  if (regions <= 0) {
    fprintf(stderr, "runtime_omp_teams: N must be a positive integer\n");
    return 2;
  }
  omp_set_max_active_levels(2);
  unsigned long long checksum = 0;
  for (long r = 0; r < regions; ++r) {
    unsigned long long cell[2][2] = {{0, 0}, {0, 0}};
#pragma omp parallel num_threads(2)
    {
      int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2)
      {
        int inner = omp_get_thread_num();
        unsigned long long sum = 0;
        for (long i = 0; i < 1000; ++i) sum += (unsigned long long)((i ^ (r + outer + inner)) % 7);
        cell[outer][inner] = sum;
      }
    }
    checksum += cell[0][0] + cell[0][1] + cell[1][0] + cell[1][1];
  }
  printf("omp %ld %llu\n", regions, checksum);
  return 0;
}
