/* A statically linked program (no PT_INTERP) for the tests of static-executable detection:
 * `run` places it as a whole process. Prints "<label> cpu=N affinity=LIST mempolicy=MODE" for
 * its main thread and for N threads (argv[1], default 0), as tests/integration/run's probes. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void report(const char* label) {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  char list[1024] = "";
  size_t used = 0;
  for (int c = 0; c < CPU_SETSIZE && used + 8 < sizeof list; ++c)
    if (CPU_ISSET(c, &set))
      used += (size_t)snprintf(list + used, sizeof list - used, used ? ",%d" : "%d", c);
  int mode = -1;
  unsigned long nodes[16] = {0};
  if (syscall(SYS_get_mempolicy, &mode, nodes, 1024UL, NULL, 0UL) != 0) mode = -1;
  char line[1200];
  int n = snprintf(line, sizeof line, "%s cpu=%d affinity=%s mempolicy=%d\n", label, sched_getcpu(),
                   list, mode);
  if (write(1, line, (size_t)n) < 0) return;
}

static void* thread_main(void* arg) {
  char label[32];
  snprintf(label, sizeof label, "thread-%ld", (long)arg);
  report(label);
  return NULL;
}

int main(int argc, char** argv) {
  report("main");
  long n = argc > 1 ? atol(argv[1]) : 0;
  for (long k = 0; k < n; ++k) {
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, (void*)k) != 0) return 3;
    pthread_join(t, NULL);
  }
  return 0;
}
