/* Pins itself with the C API and checks where it runs. */
#include <stdio.h>
#include <threadmap/threadmap.h>

int main(void) {
  tm_cpuset* allowed = tm_cpuset_new();
  tm_cpuset* mine = tm_cpuset_new();
  if (!allowed || tm_allowed_cpus(allowed) != 0) return 1;
  int cpu = 0;
  while (!tm_cpuset_contains(allowed, cpu)) ++cpu;
  tm_cpuset_free(allowed);
  char expr[16];
  snprintf(expr, sizeof expr, "%d", cpu);
  if (tm_pin_self_expr(expr) != 0) {
    fprintf(stderr, "%s\n", tm_last_error());
    return 1;
  }
  char text[64];
  if (!mine || tm_get_affinity_tid(0, mine) != 0 || tm_cpuset_format(mine, text, sizeof text) < 0)
    return 1;
  printf("c consumer: pinned to %s, running on %d\n", text, tm_current_cpu());
  int ok = tm_cpuset_contains(mine, tm_current_cpu());
  tm_cpuset_free(mine);
  return ok ? 0 : 1;
}
