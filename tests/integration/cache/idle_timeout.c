/* Parked threads really exit once idle for the idle timeout, whoever of them keeps the time
 * (thread.c: one sleeper at a time carries a timer and pokes the others; when it is reused it
 * hands the role over). Each round keeps k threads busy (reusing k parked ones, whichever they
 * are: the timekeeper among them in some rounds) and requires every other kernel task but main
 * and those k to be gone within 3 s. Without the cache that holds at once. Re-executes itself
 * with TM_CACHE_IDLE_TIMEOUT_MS=100 (harmless without the cache). */
#define _GNU_SOURCE
#include <unistd.h>

#include "semantics.h"

#define WORKERS 9

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int release_round = -1;

static void *hold_until_released(void *arg) {
  int round = (int)(long)arg;
  pthread_mutex_lock(&lock);
  while (release_round < round) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void *brief(void *arg) {
  struct timespec pause = {0, 20 * 1000 * 1000}; /* overlap, so that all of them are needed */
  nanosleep(&pause, NULL);
  return arg;
}

/* The kernel's count of this process's tasks ("Threads:" of /proc/self/status). Not by listing
 * /proc/self/task: the cache lets its kept tasks go when a program lists its tasks (task_wait),
 * and this test checks that they go by their idle timeout. */
static int task_count(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  int n = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  fclose(f);
  return n;
}

/* 1 when the process is down to `want` tasks within 3 s. */
static int settles_to(int want) {
  for (int i = 0; i < 300; ++i) {
    if (task_count() == want) return 1;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  printf("still %d tasks, want %d\n", task_count(), want);
  return 0;
}

static void park_workers(void) {
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; ++i) pthread_create(&t[i], NULL, brief, NULL);
  for (int i = 0; i < WORKERS; ++i) pthread_join(t[i], NULL);
}

int main(int argc, char **argv) {
  (void)argc;
  run_with_env("TM_CACHE_IDLE_TIMEOUT_MS", "100", argv);
  park_workers();
  EXPECT(settles_to(1), "parked threads exit after the idle timeout");
  for (int k = 1; k <= WORKERS; ++k) {
    park_workers();
    pthread_t busy[WORKERS];
    for (int i = 0; i < k; ++i)
      pthread_create(&busy[i], NULL, hold_until_released, (void *)(long)k);
    char what[96];
    snprintf(what, sizeof what, "with %d reused threads busy, the other parked ones exit", k);
    EXPECT(settles_to(1 + k), what);
    pthread_mutex_lock(&lock);
    release_round = k;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < k; ++i) pthread_join(busy[i], NULL);
    EXPECT(settles_to(1), "and then they exit too");
  }
  return semantics_failures;
}
