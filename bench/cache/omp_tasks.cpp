// The async bench's second reference: the same tasks as async_tasks.cpp as OpenMP tasks (one
// parallel region, one thread creating each batch's tasks, a taskwait per batch), the runtime's
// own pool (libgomp with gcc; OMP_NUM_THREADS as the user sets it, else one thread per CPU).
#include <vector>

#include "tasks.hpp"

int main(int argc, char** argv) {
  bench_tasks::Args args;
  if (!bench_tasks::parse_args(argc, argv, args)) return 2;
  long long sum = 0;
  std::vector<long> results(static_cast<std::size_t>(args.batch));
#pragma omp parallel
#pragma omp single
  for (long done = 0; done < args.tasks; done += args.batch) {
    const long end = done + args.batch < args.tasks ? done + args.batch : args.tasks;
    for (long i = done; i < end; ++i) {
#pragma omp task firstprivate(i) shared(results, args)
      results[static_cast<std::size_t>(i - done)] = bench_tasks::run_task(i, args.work);
    }
#pragma omp taskwait
    for (long i = done; i < end; ++i) sum += results[static_cast<std::size_t>(i - done)];
  }
  std::printf("sum %lld\n", sum);
  return 0;
}
