// Two threads (main and one created) hand a token back and forth through a mutex and condition
// variable ROUNDS times (argv[1], default 20000). Every hand-off wakes the other thread: on one
// shared CPU the wake-up is local, on two CPUs each one crosses CPUs (an IPI, on a VM a VM exit),
// so the one-core placement wins by several times. Prints "handoffs/s=N" at the end.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int turn = 0;  // 0: main's turn, 1: the other's
static long rounds = 20000;

static void play(int me) {
  for (long i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&lock);
    while (turn != me) pthread_cond_wait(&changed, &lock);
    turn = 1 - me;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
  }
}

static void* other(void* arg) {
  (void)arg;
  play(1);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) rounds = atol(argv[1]);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pthread_t t;
  if (pthread_create(&t, NULL, other, NULL) != 0) return 1;
  play(0);
  pthread_join(t, NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  printf("handoffs/s=%.0f\n", 2.0 * (double)rounds / s);
  return 0;
}
