/* An MPI + threads program in the style of the xthi / hello_jobstep programs sites publish: each
 * rank starts T threads that spin for S seconds and then print where they ran. Used by the
 * cluster tests and the docs' example (docs/cluster.md).
 *
 *   threads_per_rank [THREADS [SECONDS]]
 *   -> "host H rank R/N thread T cpu C allowed LIST"   one line per thread, then per rank
 *      "host H rank R/N main cpu C allowed LIST"
 *      LIST: the mask the kernel holds for the thread (/proc/thread-self/status)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double spin_seconds = 0.3;

struct worker {
  pthread_t id;
  int index;
  int last_cpu;
  char allowed[256];
};

/* The calling thread's mask as the kernel holds it (/proc/thread-self/status), into *SET: not
 * sched_getaffinity, which the pin library answers with the program's whole share for a thread
 * it placed (the CPU count runtimes size themselves by, as under taskset). */
static int kernel_affinity(cpu_set_t* set) {
  CPU_ZERO(set);
  FILE* f = fopen("/proc/thread-self/status", "r");
  if (!f) return -1;
  char line[4096];
  int found = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "Cpus_allowed_list:", 18) != 0) continue;
    found = 0;
    for (char* p = line + 18; *p;) {
      while (*p == ' ' || *p == '\t' || *p == ',') ++p;
      if (*p < '0' || *p > '9') break;
      long first = strtol(p, &p, 10), last = first;
      if (*p == '-') last = strtol(p + 1, &p, 10);
      for (long c = first; c <= last && c < CPU_SETSIZE; ++c) CPU_SET((int)c, set);
    }
  }
  fclose(f);
  return found;
}

static void allowed_list(char* out, size_t size) {
  cpu_set_t set;
  out[0] = '\0';
  if (kernel_affinity(&set) != 0) {
    snprintf(out, size, "?");
    return;
  }
  size_t used = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && used + 8 < size; ++cpu)
    if (CPU_ISSET(cpu, &set))
      used += (size_t)snprintf(out + used, size - used, "%s%d", used ? "," : "", cpu);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void* work(void* arg) {
  struct worker* w = arg;
  double end = now() + spin_seconds;
  volatile unsigned long sink = 0;
  while (now() < end) sink += 1;
  w->last_cpu = sched_getcpu();
  allowed_list(w->allowed, sizeof w->allowed);
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  if (argc > 2) spin_seconds = atof(argv[2]);
  if (threads < 1 || threads > 64 || spin_seconds < 0 || spin_seconds > 60) {
    fprintf(stderr, "threads_per_rank: usage: threads_per_rank [THREADS 1-64 [SECONDS 0-60]]\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  struct worker* workers = calloc((size_t)threads, sizeof *workers);
  for (int i = 0; i < threads; ++i) {
    workers[i].index = i;
    pthread_create(&workers[i].id, NULL, work, &workers[i]);
  }
  for (int i = 0; i < threads; ++i) pthread_join(workers[i].id, NULL);
  /* One rank prints at a time so lines never interleave mid-line. */
  for (int turn = 0; turn < size; ++turn) {
    if (turn == rank) {
      char main_allowed[256];
      allowed_list(main_allowed, sizeof main_allowed);
      for (int i = 0; i < threads; ++i)
        printf("host %s rank %d/%d thread %d cpu %d allowed %s\n", host, rank, size, i,
               workers[i].last_cpu, workers[i].allowed);
      printf("host %s rank %d/%d main cpu %d allowed %s\n", host, rank, size, sched_getcpu(),
             main_allowed);
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(workers);
  MPI_Finalize();
  return 0;
}
