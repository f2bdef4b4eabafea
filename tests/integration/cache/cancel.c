/* Deferred cancellation of a running logical thread: cleanup handlers run, the joiner gets
 * PTHREAD_CANCELED; cancelling a finished thread is harmless; cancel state and type start
 * fresh in every new thread; asynchronous cancellation works. The process's first
 * pthread_cancel reaches a thread asleep in pthread_join (the cache sleeps there without
 * switching to asynchronous cancellation until a cancel was ever made): a cached joiner, and
 * in a child process a joiner glibc made (its own stack: the cache does not serve it). */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "semantics.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int handler_ran;

static void on_cancel(void *arg) {
  (void)arg;
  handler_ran++;
}
static void unlock_it(void *arg) { pthread_mutex_unlock(arg); }

static void *blocks_in_sleep(void *arg) {
  (void)arg;
  pthread_cleanup_push(on_cancel, NULL);
  for (;;) sleep(10);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *blocks_in_cond(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  pthread_cleanup_push(unlock_it, &lock);
  pthread_cleanup_push(on_cancel, NULL);
  for (;;) pthread_cond_wait(&cond, &lock);
  pthread_cleanup_pop(0);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *disables_cancel(void *arg) {
  (void)arg;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
  return NULL;
}

static void *reports_cancel_state(void *arg) {
  int state, type;
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &state);
  pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
  *(int *)arg = state * 10 + type;
  return NULL;
}

static volatile int spin_forever = 1;
static void *async_spinner(void *arg) {
  (void)arg;
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
  while (spin_forever) {
  }
  return NULL;
}

static void *cancels_itself(void *arg) {
  (void)arg;
  pthread_cancel(pthread_self());
  pthread_testcancel();
  return (void *)1;
}

static void *disabled_then_cancelled(void *arg) {
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
  struct timespec t = {0, 50 * 1000 * 1000};
  nanosleep(&t, NULL); /* the cancel arrives here and waits */
  return arg;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static void *waits_at_gate(void *arg) {
  pthread_mutex_lock(&gate);
  pthread_mutex_unlock(&gate);
  return arg;
}
static void *joins(void *arg) {
  pthread_join(*(pthread_t *)arg, NULL);
  return (void *)1; /* not reached: the joiner is cancelled */
}

/* The first pthread_cancel of the process, aimed at a thread asleep in pthread_join (made
 * with ATTR) of a thread that waits at the gate. */
static void first_cancel_of_a_joiner(const pthread_attr_t *attr, const char *what) {
  pthread_mutex_lock(&gate);
  pthread_t target, joiner;
  void *ret = NULL;
  pthread_create(&target, NULL, waits_at_gate, (void *)4);
  EXPECT(pthread_create(&joiner, attr, joins, &target) == 0, "the joiner is made");
  settle();
  pthread_cancel(joiner);
  EXPECT(pthread_join(joiner, &ret) == 0 && ret == PTHREAD_CANCELED, what);
  pthread_mutex_unlock(&gate);
  EXPECT(pthread_join(target, &ret) == 0 && ret == (void *)4, "...and its target stays joinable");
}

extern char **environ;

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "glibc-joiner") == 0) {
    warm_cache();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    static char stack[1 << 20] __attribute__((aligned(64)));
    pthread_attr_setstack(&attr, stack, sizeof stack);
    first_cancel_of_a_joiner(&attr, "the first cancel reaches a glibc joiner asleep in join");
    return semantics_failures;
  }
  char *child_argv[] = {argv[0], "glibc-joiner", NULL};
  pid_t child;
  int status = 0;
  fflush(stdout);
  EXPECT(posix_spawn(&child, "/proc/self/exe", NULL, NULL, child_argv, environ) == 0 &&
             waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "the glibc-joiner check ends normally");
  warm_cache();
  first_cancel_of_a_joiner(NULL, "the first cancel reaches a joiner asleep in pthread_join");
  pthread_t t;
  void *ret;
  for (int round = 0; round < 2; ++round) {
    handler_ran = 0;
    pthread_create(&t, NULL, blocks_in_sleep, NULL);
    settle();
    EXPECT(pthread_cancel(t) == 0, "cancel a thread blocked in sleep");
    EXPECT(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED, "joiner gets PTHREAD_CANCELED");
    EXPECT(handler_ran == 1, "cleanup handler ran on cancel");

    pthread_create(&t, NULL, blocks_in_cond, NULL);
    settle();
    pthread_cancel(t);
    EXPECT(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED, "cancel in pthread_cond_wait");
    EXPECT(pthread_mutex_trylock(&lock) == 0, "the mutex was released by the cleanup handler");
    pthread_mutex_unlock(&lock);

    pthread_create(&t, NULL, semantics_nothing, (void *)5);
    settle();
    EXPECT(pthread_cancel(t) == 0, "cancelling a finished thread returns 0");
    EXPECT(pthread_join(t, &ret) == 0 && ret == (void *)5, "...and does not change its result");

    pthread_create(&t, NULL, disables_cancel, NULL);
    pthread_join(t, NULL);
    settle();
    int seen = -1;
    pthread_create(&t, NULL, reports_cancel_state, &seen);
    pthread_join(t, NULL);
    EXPECT(seen == PTHREAD_CANCEL_ENABLE * 10 + PTHREAD_CANCEL_DEFERRED,
           "a new thread starts with cancellation enabled and deferred");

    pthread_create(&t, NULL, async_spinner, NULL);
    settle();
    pthread_cancel(t);
    EXPECT(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED, "asynchronous cancel");

    pthread_create(&t, NULL, cancels_itself, NULL);
    EXPECT(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED, "self-cancel");

    pthread_create(&t, NULL, disabled_then_cancelled, (void *)8);
    settle();
    pthread_cancel(t);
    EXPECT(pthread_join(t, &ret) == 0 && ret == (void *)8,
           "a cancel that arrives with cancellation disabled is never acted on");
    pthread_mutex_lock(&gate);
    pthread_t target, joiner;
    pthread_create(&target, NULL, waits_at_gate, (void *)4);
    pthread_create(&joiner, NULL, joins, &target);
    settle();
    pthread_cancel(joiner);
    EXPECT(pthread_join(joiner, &ret) == 0 && ret == PTHREAD_CANCELED,
           "a joiner blocked in pthread_join is cancelled");
    pthread_mutex_unlock(&gate);
    EXPECT(pthread_join(target, &ret) == 0 && ret == (void *)4, "its target stays joinable");
    pthread_create(&t, NULL, semantics_nothing, (void *)6);
    EXPECT(pthread_join(t, &ret) == 0 && ret == (void *)6, "threads still work after cancels");
    settle();
  }
  return semantics_failures;
}
