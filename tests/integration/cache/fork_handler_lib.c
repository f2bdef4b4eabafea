/* A library whose constructor registers a fork child handler that creates and joins a thread.
 * Its constructor runs before the preloaded cache's (the program depends on it), so its child
 * handler runs before the cache's own. */
#include <pthread.h>

static void *child_thread(void *arg) { return arg; }

int fork_handler_result = -1;

static void child_handler(void) {
  pthread_t t;
  void *r = NULL;
  if (pthread_create(&t, NULL, child_thread, (void *)42) == 0 && pthread_join(t, &r) == 0)
    fork_handler_result = (int)(long)r;
}

__attribute__((constructor)) static void register_handler(void) {
  pthread_atfork(NULL, NULL, child_handler);
}
