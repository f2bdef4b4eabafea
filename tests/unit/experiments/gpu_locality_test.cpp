// bench gpu-locality: without a CUDA driver it says "not supported" and nothing else; with a
// driver (a fake one here: copies are memcpy into a host buffer, timed for real) it copies from
// memory bound to each NUMA node of this machine and judges the variants like any bench.
#include "src/experiments/gpu_locality.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

namespace threadmap::experiments {
namespace {

class FakeCopier : public os::CudaCopier {
 public:
  explicit FakeCopier(std::size_t bytes) : device_(bytes) {}
  Status register_host(void*, std::size_t) override {
    ++registered;
    return {};
  }
  void unregister_host(void*) override { --registered; }
  Result<double> to_device(const void* host, std::size_t bytes) override {
    return timed([&] { std::memcpy(device_.data(), host, bytes); });
  }
  Result<double> to_host(void* host, std::size_t bytes) override {
    return timed([&] { std::memcpy(host, device_.data(), bytes); });
  }
  static inline int registered = 0;

 private:
  template <class F>
  double timed(F f) {
    auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::vector<char> device_;
};

class FakeDriver : public os::CudaDriver {
 public:
  std::vector<os::CudaGpu> gpus() const override { return {{0, "0000:00:09.0", "Fake H100"}}; }
  Result<std::unique_ptr<os::CudaCopier>> copier(int, std::size_t bytes) override {
    return std::unique_ptr<os::CudaCopier>(new FakeCopier(bytes));
  }
};

TEST(GpuLocality, WithoutADriverItIsNotSupported) {
  if (void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(lib);
    GTEST_SKIP() << "this machine has a CUDA driver";
  }
  auto topo = Topology::load_this_machine();
  ASSERT_TRUE(topo.ok());
  GpuLocalityOptions options;
  options.quick = true;
  auto r = run_gpu_locality(*topo, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->available);
  EXPECT_EQ(r->unavailable_reason, "not supported: no CUDA driver (libcuda.so.1 not found)");
  EXPECT_TRUE(r->variants.empty());
}

TEST(GpuLocality, MeasuresEveryNodeAndSaysWhenThereIsNothingToCompare) {
  auto topo = Topology::load_this_machine();
  ASSERT_TRUE(topo.ok());
  GpuLocalityOptions options;
  options.quick = true;
  options.runs = 3;
  options.bytes = 4 << 20;
  options.watch_machine = false;
  options.added_time_factor = 0;
  options.open_driver = [] {
    return Result<std::unique_ptr<os::CudaDriver>>(std::make_unique<FakeDriver>());
  };
  auto r = run_gpu_locality(*topo, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->available);
  const size_t nodes = std::max<size_t>(1, topo->numa_nodes().size());
  ASSERT_EQ(r->variants.size(), 2 * nodes);
  EXPECT_EQ(r->variants[0].name, "h2d-node" + std::to_string(topo->numa_nodes().at(0).os_index));
  EXPECT_EQ(r->unit, "GB/s");
  EXPECT_TRUE(r->higher_is_better);
  for (const Variant& v : r->variants) {
    ASSERT_TRUE(v.available) << v.unavailable_reason;
    EXPECT_EQ(v.value.samples.size(), 3u);
    EXPECT_GT(v.value.median, 0.0);
  }
  bool one_node_note = false;
  for (const std::string& n : r->notes)
    one_node_note = one_node_note || n.find("one NUMA node") == 0;
  EXPECT_EQ(one_node_note, nodes == 1);
  EXPECT_EQ(FakeCopier::registered, 0);  // every buffer unregistered again
}

}  // namespace
}  // namespace threadmap::experiments
