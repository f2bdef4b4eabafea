// The async bench's program as users write it: one std::async(std::launch::async) per task, so
// every task is a thread created and joined (glibc), or a parked thread reused (the thread
// cache, LD_PRELOAD=libthreadmap-cache.so). Tasks and arguments: tasks.hpp.
#include <future>
#include <vector>

#include "tasks.hpp"

int main(int argc, char** argv) {
  bench_tasks::Args args;
  if (!bench_tasks::parse_args(argc, argv, args)) return 2;
  long long sum = 0;
  for (long done = 0; done < args.tasks; done += args.batch) {
    std::vector<std::future<long>> futures;
    for (long i = done; i < done + args.batch && i < args.tasks; ++i)
      futures.push_back(std::async(std::launch::async,
                                   [i, &args] { return bench_tasks::run_task(i, args.work); }));
    for (auto& f : futures) sum += f.get();
  }
  std::printf("sum %lld\n", sum);
  return 0;
}
