// The async bench's reference: the same tasks as async_tasks.cpp through the pool a user would
// write by hand instead (a mutex + condition-variable queue, one worker per CPU started once,
// a future per task). What an unmodified program under the thread cache is compared with.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "tasks.hpp"

namespace {

class Pool {
 public:
  explicit Pool(unsigned workers) {
    for (unsigned w = 0; w < workers; ++w) threads_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  std::future<long> submit(std::function<long()> job) {
    auto task = std::make_shared<std::packaged_task<long()>>(std::move(job));
    std::future<long> result = task->get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back([task] { (*task)(); });
    }
    ready_.notify_one();
    return result;
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, nothing left
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

int main(int argc, char** argv) {
  bench_tasks::Args args;
  if (!bench_tasks::parse_args(argc, argv, args)) return 2;
  const unsigned cpus = std::thread::hardware_concurrency();
  Pool pool(cpus > 0 ? cpus : 1);
  long long sum = 0;
  for (long done = 0; done < args.tasks; done += args.batch) {
    std::vector<std::future<long>> futures;
    for (long i = done; i < done + args.batch && i < args.tasks; ++i)
      futures.push_back(pool.submit([i, &args] { return bench_tasks::run_task(i, args.work); }));
    for (auto& f : futures) sum += f.get();
  }
  std::printf("sum %lld\n", sum);
  return 0;
}
