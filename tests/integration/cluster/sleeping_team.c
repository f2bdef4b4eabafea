/* A correct MPI + OpenMP rank with more threads than CPUs, as real codes run: an OpenMP team of
 * T threads where one works and the others wait at a passive barrier (OMP_WAIT_POLICY=passive:
 * they sleep in the kernel), plus a named helper thread that sleeps in usleep(). Only one
 * thread per rank is ever runnable, so one CPU per rank is enough and `threadmap job --strict`
 * must not call it oversubscribed.
 *
 *   sleeping_team [SECONDS]   (the team size comes from OMP_NUM_THREADS)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int done;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void* helper(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "heartbeat");
  while (!atomic_load(&done)) usleep(20000);
  return NULL;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  if (seconds < 0 || seconds > 30) {
    fprintf(stderr, "sleeping_team: usage: sleeping_team [SECONDS 0-30]\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t beat;
  pthread_create(&beat, NULL, helper, NULL);
  volatile unsigned long sink = 0;
#pragma omp parallel
  {
    /* Thread 0 computes; the rest of the team sleeps at the barrier until it is done. */
    if (omp_get_thread_num() == 0) {
      double end = now() + seconds;
      while (now() < end) sink += 1;
    }
#pragma omp barrier
  }
  atomic_store(&done, 1);
  pthread_join(beat, NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: team of %d done\n", rank, omp_get_max_threads());
  MPI_Finalize();
  return 0;
}
