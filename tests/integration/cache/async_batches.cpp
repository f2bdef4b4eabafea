// The seed's std::async pattern: 10,000 tasks in batches of 100, each batch's
// futures waited for after its tasks finished. Prints the sum of the results (the same with and
// without the cache); async_batches.sh checks under the cache that >= 90% of the creates were
// served by parked threads. Holds at most one batch (100 threads) at a time.
// usage: async_batches [TASKS] [BATCH]
#include <cstdio>
#include <cstdlib>
#include <future>
#include <vector>

int main(int argc, char **argv) {
  const long tasks = argc > 1 ? std::atol(argv[1]) : 10000;
  const long batch = argc > 2 ? std::atol(argv[2]) : 100;
  if (tasks <= 0 || batch <= 0 || batch > 1000) {
    std::fprintf(stderr, "threadmap: usage: async_batches [TASKS] [BATCH<=1000]\n");
    return 2;
  }
  long long sum = 0;
  for (long done = 0; done < tasks; done += batch) {
    std::vector<std::future<long>> futures;
    for (long i = done; i < done + batch && i < tasks; ++i)
      futures.push_back(std::async(std::launch::async, [i] { return i % 7; }));
    for (auto &f : futures) sum += f.get();
  }
  std::printf("sum %lld\n", sum);
  return 0;
}
