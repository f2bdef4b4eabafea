// C++ std::async case of the thread-cache matrix: libstdc++'s std::async(std::launch::async)
// makes one new thread per call. Batches of 4 futures, each got before the next batch; prints a
// result that depends only on the work.
//   runtime_async N   N calls in batches of 4
#include <cstdio>
#include <cstdlib>
#include <future>
#include <vector>

namespace {
long work(long index) {
  long sum = 0;
  for (long i = 0; i < 1000; ++i) sum += (i ^ index) % 7;
  return sum;
}
}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 1000;
  if (n <= 0) {
    std::fprintf(stderr, "runtime_async: N must be a positive integer\n");
    return 2;
  }
  long total = 0;
  for (long first = 0; first < n; first += 4) {
    std::vector<std::future<long>> batch;
    for (long i = first; i < first + 4 && i < n; ++i)
      batch.push_back(std::async(std::launch::async, work, i));
    for (auto& f : batch) total += f.get();
  }
  std::printf("async %ld %ld\n", n, total);
  return 0;
}
