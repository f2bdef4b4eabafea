/* C11 tss_create keys are pthread keys (glibc makes them with its internal key create, not
 * through pthread_key_create): a thread's value is handed to the key's destructor when the
 * thread ends, and the next thread reads NULL. Under the cache the key was unknown to the
 * logical thread's end: the destructor was skipped and the value leaked into the next thread
 * on the same physical thread. Failed against the library before tss_create was interposed. */
#define _GNU_SOURCE 1
#include <threads.h>

#include "semantics.h"

static tss_t key;
static int destroyed;
static int value = 42;

static void destroy(void *v) {
  if (v == &value) __atomic_add_fetch(&destroyed, 1, __ATOMIC_SEQ_CST);
}

static void *set_value(void *arg) {
  int *seen_null = arg;
  *seen_null = tss_get(key) == NULL;
  tss_set(key, &value);
  return NULL;
}

int main(void) {
  if (tss_create(&key, destroy) != thrd_success) return 99;
  warm_cache();
  int all_null = 1;
  for (int i = 0; i < 10; ++i) {
    int seen_null = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, set_value, &seen_null) != 0) return 99;
    pthread_join(t, NULL);
    all_null &= seen_null;
  }
  EXPECT(all_null, "every new thread reads NULL from a tss key its predecessor set");
  char name[96];
  snprintf(name, sizeof name, "the tss destructor ran once per thread (%d of 10)",
           __atomic_load_n(&destroyed, __ATOMIC_SEQ_CST));
  EXPECT(__atomic_load_n(&destroyed, __ATOMIC_SEQ_CST) == 10, name);
  tss_delete(key);
  return semantics_failures;
}
