/* pthread_exit runs the setjmp-style cleanup handlers (pthread_cleanup_push in C without
 * -fexceptions) of every frame it leaves, innermost first, and nothing below the start
 * routine runs again. */
#define _GNU_SOURCE
#include "semantics.h"

static char trace[64];
static void note(void *arg) { strncat(trace, (const char *)arg, sizeof trace - strlen(trace) - 1); }

static void inner(int depth) {
  pthread_cleanup_push(note, depth == 0 ? "a" : "b");
  if (depth >= 1) pthread_exit((void *)7);
  if (depth < 5) inner(depth + 1);
  pthread_cleanup_pop(0);
}

static void *worker(void *arg) {
  (void)arg;
  pthread_cleanup_push(note, "c");
  pthread_cleanup_push(note, "d");
  pthread_cleanup_pop(1); /* runs d now */
  inner(0);
  pthread_cleanup_pop(0);
  note("never");
  return NULL;
}

static void *defer_variant(void *arg) {
  (void)arg;
  pthread_cleanup_push_defer_np(note, "x");
  pthread_exit((void *)9);
  pthread_cleanup_pop_restore_np(0);
  return NULL;
}

static void *no_handlers(void *arg) { pthread_exit(arg); }

int main(void) {
  warm_cache();
  for (int round = 0; round < 3; ++round) {
    trace[0] = 0;
    pthread_t t;
    void *ret;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, &ret);
    EXPECT(ret == (void *)7, "exit value after cleanup handlers");
    EXPECT(strcmp(trace, "dbac") == 0, "handlers ran innermost first, each once");
    trace[0] = 0;
    pthread_create(&t, NULL, defer_variant, NULL);
    pthread_join(t, &ret);
    EXPECT(ret == (void *)9 && strcmp(trace, "x") == 0, "pthread_cleanup_push_defer_np handler");
    pthread_create(&t, NULL, no_handlers, (void *)3);
    pthread_join(t, &ret);
    EXPECT(ret == (void *)3, "pthread_exit without handlers");
    settle();
  }
  printf("trace %s\n", trace);
  return semantics_failures;
}
