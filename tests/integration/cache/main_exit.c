/* main calling pthread_exit while recycled threads are parked: the process ends when the last
 * real thread ends, with status 0, as with glibc (parked threads do not keep it alive). */
#include "semantics.h"

static void *worker(void *arg) {
  settle();
  printf("worker %ld done\n", (long)arg);
  fflush(stdout);
  return NULL;
}

int main(void) {
  warm_cache();
  pthread_t t;
  pthread_create(&t, NULL, worker, (void *)1);
  pthread_detach(t);
  printf("main leaves\n");
  fflush(stdout);
  pthread_exit(NULL);
}
