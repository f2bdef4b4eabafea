/* A robust mutex held by a thread when it ends becomes EOWNERDEAD for the next locker. */
#define _GNU_SOURCE
#include <errno.h>

#include "semantics.h"

static pthread_mutex_t robust;

static void *locks_and_leaves(void *arg) {
  pthread_mutex_lock(&robust);
  if (arg) pthread_exit(NULL);
  return NULL;
}

int main(void) {
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&robust, &ma);
  warm_cache();
  for (int round = 0; round < 4; ++round) {
    pthread_t t;
    pthread_create(&t, NULL, locks_and_leaves, (round & 1) ? (void *)1 : NULL);
    pthread_join(t, NULL);
    int r = pthread_mutex_lock(&robust);
    EXPECT(r == EOWNERDEAD, "next locker gets EOWNERDEAD");
    EXPECT(pthread_mutex_consistent(&robust) == 0, "mutex made consistent");
    EXPECT(pthread_mutex_unlock(&robust) == 0, "and unlocked");
    settle();
  }
  return semantics_failures;
}
