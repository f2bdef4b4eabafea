/* Finished, never-joined threads must not keep kernel tasks: glibc frees a thread's
 * kernel task when it ends, joined or not. N threads that return at once are left unjoined,
 * then the task count of the process (/proc/self/status "Threads:") must stay within a small
 * bound: 1 (main) + the cache's TM_CACHE_MAX_UNJOINED (8) + slack. Then every one is joined
 * and must give its own result back. The program stops early if the count ever passes a safety
 * limit, so a regression cannot exhaust the machine's pids. usage: unjoined_tasks [N] */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

#include "semantics.h"

#define SAFETY_LIMIT 400 /* tasks: far above the bound, far below pid_max */
#define BATCH 64

static atomic_int finished;

static int task_count(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  int n = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  fclose(f);
  return n;
}

static void *quick(void *arg) {
  atomic_fetch_add(&finished, 1);
  return arg;
}

/* Waits (bounded) until the kernel's count drops to LIMIT or below; returns the last count. */
static int settle_tasks(int limit) {
  int n = task_count();
  for (int i = 0; i < 200 && n > limit; ++i) {
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
    n = task_count();
  }
  return n;
}

/* glibc's tests (tst-pthread_kill-exited, tst-pthread_cancel-exited, tst-execstack) wait, as
 * support_wait_for_thread_exit does, until an exited, unjoined thread's kernel task is gone.
 * Under the cache it goes at the latest after one idle timeout (1 s by default). */
static void wait_for_thread_exit(void) {
  pthread_t t;
  pthread_create(&t, NULL, quick, NULL);
  int tasks = 0;
  for (int i = 0; i < 500; ++i) { /* at most 5 s */
    tasks = task_count();
    if (tasks == 1) break;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  EXPECT(tasks == 1, "an exited, unjoined thread's kernel task goes away");
  pthread_join(t, NULL);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 3000;
  warm_cache();
  wait_for_thread_exit();
  atomic_store(&finished, 0);
  pthread_t *threads = calloc((size_t)n, sizeof *threads);
  if (!threads) return 1;
  int peak = 0, too_many = 0;
  for (long i = 0; i < n; ++i) {
    if (pthread_create(&threads[i], NULL, quick, (void *)(i + 1)) != 0) {
      printf("FAIL create %ld\n", i);
      return 1;
    }
    if ((i + 1) % BATCH == 0) {
      while (atomic_load(&finished) < i + 1) sched_yield();
      int tasks = settle_tasks(1 + 8 + 8);
      if (tasks > peak) peak = tasks;
      if (tasks > SAFETY_LIMIT) {
        too_many = 1;
        break;
      }
    }
  }
  if (too_many) {
    printf("FAIL tasks passed the safety limit (%d)\n", SAFETY_LIMIT);
    fflush(stdout);
    _exit(1); /* do not join thousands: end now */
  }
  while (atomic_load(&finished) < n) sched_yield();
  int tasks = settle_tasks(1 + 8 + 8);
  if (tasks > peak) peak = tasks;
  EXPECT(peak <= 1 + 8 + 8, "finished unjoined threads hold at most a few kernel tasks");
  if (peak > 1 + 8 + 8) printf("  (peak %d tasks)\n", peak);
  long wrong = 0;
  for (long i = 0; i < n; ++i) {
    void *r = NULL;
    if (pthread_join(threads[i], &r) != 0 || r != (void *)(i + 1)) ++wrong;
  }
  EXPECT(wrong == 0, "every late join returns its thread's result");
  /* Nesting like Inncabs floorplan: tasks create subtasks that finish before anyone joins. */
  free(threads);
  return semantics_failures;
}
