/* A joinable thread joined long after it finished, with a short idle timeout: the timeout
 * applies only to parked (joined or detached) threads, never to one still awaiting its join.
 * Re-executes itself with TM_CACHE_IDLE_TIMEOUT_MS=50 (harmless without the cache). */
#define _GNU_SOURCE
#include <unistd.h>

#include "semantics.h"

int main(int argc, char **argv) {
  (void)argc;
  run_with_env("TM_CACHE_IDLE_TIMEOUT_MS", "50", argv);
  warm_cache();
  static char token;
  for (int round = 0; round < 3; ++round) {
    pthread_t t;
    void *ret = NULL;
    pthread_create(&t, NULL, semantics_nothing, &token);
    struct timespec pause = {0, 300 * 1000 * 1000}; /* 6x the idle timeout */
    nanosleep(&pause, NULL);
    EXPECT(pthread_join(t, &ret) == 0 && ret == &token, "late join gets the value");
    nanosleep(&pause, NULL); /* parked threads time out and exit meanwhile */
    pthread_create(&t, NULL, semantics_nothing, &token);
    EXPECT(pthread_join(t, &ret) == 0 && ret == &token, "creating after idle threads timed out");
  }
  return semantics_failures;
}
