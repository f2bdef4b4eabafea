// Two threads (main and one created) each run the same fixed arithmetic loop (argv[1] million
// steps, default 40) and share nothing: on separate CPUs they run side by side, on one CPU one
// after the other, so any placement that keeps them apart wins by about 2x.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long steps = 40;

static void* work(void* out) {
  volatile unsigned long x = 1;
  for (long i = 0; i < steps * 1000000L; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  *(unsigned long*)out = x;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) steps = atol(argv[1]);
  unsigned long a = 0, b = 0;
  pthread_t t;
  if (pthread_create(&t, NULL, work, &b) != 0) return 1;
  work(&a);
  pthread_join(t, NULL);
  printf("done %lu\n", (a ^ b) & 1);
  return 0;
}
