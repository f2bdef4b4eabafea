/* A program may create every pthread key the C library offers (PTHREAD_KEYS_MAX, after glibc's
 * tst-key1 and tst-key4): the cache's own key (it notices main's thread ending) is given back
 * when the program runs out, so the count is the same with and without the preload, and a
 * recycled thread still starts with every key NULL and runs the destructors. Before the program
 * creates a key, none is valid (glibc's tst-tss-basic): the cache makes its own only at main's
 * first create. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>

#include "semantics.h"

static pthread_key_t keys[PTHREAD_KEYS_MAX + 1];
static atomic_int destroyed;

static void count_destroy(void *value) {
  (void)value;
  atomic_fetch_add(&destroyed, 1);
}

static void *use_last_keys(void *arg) {
  int n = (int)(long)arg;
  long nonnull = 0;
  for (int i = n - 4; i < n; ++i) {
    if (pthread_getspecific(keys[i]) != NULL) ++nonnull;
    pthread_setspecific(keys[i], &keys[i]);
  }
  return (void *)nonnull;
}

int main(void) {
  int before = pthread_setspecific((pthread_key_t)0, &keys[0]);
  printf("setspecific on key 0 before any key exists: %s\n", before == EINVAL ? "EINVAL"
                                                             : before == 0    ? "0"
                                                                              : "other");
  warm_cache();
  int n = 0;
  int r = 0;
  while (n <= PTHREAD_KEYS_MAX && (r = pthread_key_create(&keys[n], count_destroy)) == 0) ++n;
  printf("keys created: %d, then %s\n", n, r == EAGAIN ? "EAGAIN" : "something else");
  EXPECT(n >= PTHREAD_KEYS_MAX - 8, "nearly all PTHREAD_KEYS_MAX keys are the program's");
  for (int round = 0; round < 3; ++round) {
    pthread_t t;
    void *nonnull = (void *)-1;
    atomic_store(&destroyed, 0);
    if (pthread_create(&t, NULL, use_last_keys, (void *)(long)n) != 0) return 1;
    pthread_join(t, &nonnull);
    EXPECT(nonnull == NULL, "a new thread starts with the last keys NULL");
    EXPECT(atomic_load(&destroyed) == 4, "their destructors ran at its exit");
    settle();
  }
  return semantics_failures;
}
