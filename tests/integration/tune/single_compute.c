// One thread, a fixed arithmetic loop (argv[1] million steps, default 40): no thread talks to
// another and the working set is a register, so no placement can make it faster or slower.
// With argv[2] = "fail-on-one-cpu" it exits 3 when it may run on a single CPU only (so a
// candidate that confines it to one CPU fails); "fail" always exits 4 after printing a line.
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  long steps = argc > 1 ? atol(argv[1]) : 40;
  const char* mode = argc > 2 ? argv[2] : "";
  if (strcmp(mode, "fail") == 0) {
    printf("cannot open the input (on purpose)\n");
    return 4;
  }
  if (strcmp(mode, "fail-on-one-cpu") == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    if (CPU_COUNT(&set) == 1) {
      printf("refusing to run on one CPU (on purpose)\n");
      return 3;
    }
  }
  volatile unsigned long x = 1;
  for (long i = 0; i < steps * 1000000L; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  printf("result=%lu\n", x & 1);
  return 0;
}
