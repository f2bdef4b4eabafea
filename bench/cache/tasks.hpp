// The task set every variant of the async bench runs (async_tasks, pool_tasks, omp_tasks), so
// the programs differ only in how a task reaches a thread: TASKS tasks in batches of BATCH, each
// batch's results waited for before the next batch starts (the std::async pattern of
// tests/integration/cache/async_batches.cpp), each task WORK rounds of a little arithmetic.
// Every program prints "sum S" for the same arguments, so the runner can check they did the
// same work.
//   PROGRAM [TASKS] [BATCH] [WORK]      defaults 10000 100 0
#pragma once

#include <cstdio>
#include <cstdlib>

namespace bench_tasks {

struct Args {
  long tasks = 10000;
  long batch = 100;
  long work = 0;
};

// The work of task i: its result depends on every round, so the compiler cannot drop them.
inline long run_task(long i, long work) {
  unsigned long x = static_cast<unsigned long>(i) + 1;
  for (long k = 0; k < work; ++k) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return static_cast<long>((x >> 33) % 7 + static_cast<unsigned long>(i % 7));
}

// Bounded: a batch is at most 1,000 threads alive at once under std::async (pid_max is shared).
inline bool parse_args(int argc, char** argv, Args& args) {
  if (argc > 1) args.tasks = std::atol(argv[1]);
  if (argc > 2) args.batch = std::atol(argv[2]);
  if (argc > 3) args.work = std::atol(argv[3]);
  if (args.tasks > 0 && args.batch > 0 && args.batch <= 1000 && args.work >= 0) return true;
  std::fprintf(stderr, "threadmap: usage: %s [TASKS>0] [BATCH 1-1000] [WORK>=0]\n", argv[0]);
  return false;
}

}  // namespace bench_tasks
