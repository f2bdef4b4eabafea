/* OpenMP test program for `threadmap run`: each thread of a parallel region reports its CPU
 * and affinity as soon as the region starts: "omp-<thread num> cpu=N affinity=LIST". */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void report(int num) {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  char line[512];
  int len = snprintf(line, sizeof line, "omp-%d cpu=%d affinity=", num, sched_getcpu());
  int first = 1;
  for (int c = 0; c < CPU_SETSIZE && len < (int)sizeof line - 16; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    len += snprintf(line + len, sizeof line - (size_t)len, "%s%d", first ? "" : ",", c);
    first = 0;
  }
  line[len++] = '\n';
  if (write(STDOUT_FILENO, line, (size_t)len) < 0) return;
}

int main(void) {
#pragma omp parallel
  report(omp_get_thread_num());
  return 0;
}
