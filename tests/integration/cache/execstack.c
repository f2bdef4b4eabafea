/* dlopen of a library that needs an executable stack while threads are parked (after glibc's
 * tst-execstack): glibc then makes every thread's stack executable; the load must not hang, and
 * threads created afterwards run and join. The library's path is compiled in (EXECSTACK_LIB). */
#define _GNU_SOURCE 1
#include <dlfcn.h>

#include "semantics.h"

int main(void) {
  warm_cache();
  void *h = dlopen(EXECSTACK_LIB, RTLD_NOW);
  EXPECT(h != NULL, "dlopen of an execstack library");
  if (h) {
    int (*value)(void) = (int (*)(void))dlsym(h, "execstack_lib_value");
    EXPECT(value && value() == 7, "its function runs");
  }
  for (int i = 0; i < 5; ++i) {
    pthread_t t;
    void *r = NULL;
    if (pthread_create(&t, NULL, semantics_nothing, (void *)(long)(i + 1)) != 0 ||
        pthread_join(t, &r) != 0 || r != (void *)(long)(i + 1)) {
      printf("FAIL thread %d after the load\n", i);
      return 1;
    }
  }
  EXPECT(1, "threads after the load run and join");
  return semantics_failures;
}
