/* OpenMP test program for `threadmap run`: each thread of a parallel region reports its CPU
 * and affinity (the kernel's) as soon as the region starts: "omp-<thread num> cpu=N affinity=LIST".
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The calling thread's mask as the kernel holds it (/proc/thread-self/status), into *SET: not
 * sched_getaffinity, which the pin library answers with the program's whole share for a thread
 * it placed (the CPU count runtimes size themselves by, as under taskset). */
static int kernel_affinity(cpu_set_t* set) {
  CPU_ZERO(set);
  FILE* f = fopen("/proc/thread-self/status", "r");
  if (!f) return -1;
  char line[4096];
  int found = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "Cpus_allowed_list:", 18) != 0) continue;
    found = 0;
    for (char* p = line + 18; *p;) {
      while (*p == ' ' || *p == '\t' || *p == ',') ++p;
      if (*p < '0' || *p > '9') break;
      long first = strtol(p, &p, 10), last = first;
      if (*p == '-') last = strtol(p + 1, &p, 10);
      for (long c = first; c <= last && c < CPU_SETSIZE; ++c) CPU_SET((int)c, set);
    }
  }
  fclose(f);
  return found;
}

static void report(int num) {
  cpu_set_t set;
  kernel_affinity(&set);
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
