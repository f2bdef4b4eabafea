/* A program that creates a thread before its first pthread key gets key 0, as under glibc:
 * the cache's own key (it notices main's thread ending) must not take the lowest
 * free slot. The keys that follow are 1, 2, ... too, and a key deleted comes back. */
#include "semantics.h"

int main(void) {
  warm_cache();
  pthread_key_t k[3];
  for (int i = 0; i < 3; ++i)
    if (pthread_key_create(&k[i], NULL) != 0) return 99;
  printf("first keys: %u %u %u\n", (unsigned)k[0], (unsigned)k[1], (unsigned)k[2]);
  pthread_key_delete(k[0]);
  pthread_key_t again;
  if (pthread_key_create(&again, NULL) != 0) return 99;
  printf("deleted key comes back: %u\n", (unsigned)again);
  return 0;
}
