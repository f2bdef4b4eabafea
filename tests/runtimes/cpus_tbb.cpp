// Placed-CPU-count probe (cpus_case.sh) for oneTBB / TBB: the concurrency its arenas size
// themselves by (sched_getaffinity of the process, read when the library starts).
#include <tbb/task_arena.h>

#include <cstdio>

int main() {
  std::printf("size max_concurrency %d\n", tbb::this_task_arena::max_concurrency());
  return 0;
}
