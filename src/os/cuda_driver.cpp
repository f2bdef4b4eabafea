#include "src/os/cuda_driver.hpp"

#include <dlfcn.h>

#include <cerrno>

#include "src/os/gpu_management.hpp"
#include "src/os/monotonic_clock.hpp"

namespace threadmap::os {
namespace {

// The driver API's types as cuda.h declares them (64-bit device pointers, the _v2 entry points).
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;

struct Api {
  void* lib = nullptr;
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_bus_id)(char*, int, CUdevice) = nullptr;
  CUresult (*ctx_create)(CUcontext*, unsigned, CUdevice) = nullptr;
  CUresult (*ctx_destroy)(CUcontext) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*host_register)(void*, std::size_t, unsigned) = nullptr;
  CUresult (*host_unregister)(void*) = nullptr;
  CUresult (*copy_to_device)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*copy_to_host)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;

  std::string why(CUresult rc) const {
    const char* text = nullptr;
    if (error_string && error_string(rc, &text) == 0 && text) return text;
    return "CUDA error " + std::to_string(rc);
  }
  Error error(const std::string& what, CUresult rc) const {
    return Error::from_errno(EIO, what + ": " + why(rc));
  }
};

template <class F>
bool bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

class Copier final : public CudaCopier {
 public:
  Copier(std::shared_ptr<const Api> api, CUcontext ctx, CUdeviceptr buffer, std::size_t bytes)
      : api_(std::move(api)), ctx_(ctx), buffer_(buffer), bytes_(bytes) {}
  ~Copier() override {
    api_->ctx_set_current(ctx_);
    api_->mem_free(buffer_);
    api_->ctx_destroy(ctx_);
  }
  Status register_host(void* host, std::size_t bytes) override {
    api_->ctx_set_current(ctx_);
    if (CUresult rc = api_->host_register(host, bytes, 0); rc != 0)
      return api_->error("cuMemHostRegister", rc);
    return {};
  }
  void unregister_host(void* host) override {
    api_->ctx_set_current(ctx_);
    api_->host_unregister(host);
  }
  Result<double> to_device(const void* host, std::size_t bytes) override {
    return timed("cuMemcpyHtoD", bytes, [&] { return api_->copy_to_device(buffer_, host, bytes); });
  }
  Result<double> to_host(void* host, std::size_t bytes) override {
    return timed("cuMemcpyDtoH", bytes, [&] { return api_->copy_to_host(host, buffer_, bytes); });
  }

 private:
  template <class Copy>
  Result<double> timed(const char* what, std::size_t bytes, Copy copy) {
    if (bytes > bytes_) return Error::invalid(std::string(what) + ": more than the device buffer");
    api_->ctx_set_current(ctx_);
    const std::int64_t start = monotonic_ns();
    CUresult rc = copy();
    if (rc == 0) rc = api_->ctx_synchronize();
    const std::int64_t end = monotonic_ns();
    if (rc != 0) return api_->error(what, rc);
    return static_cast<double>(end - start) * 1e-9;
  }

  std::shared_ptr<const Api> api_;
  CUcontext ctx_;
  CUdeviceptr buffer_;
  std::size_t bytes_;
};

class Driver final : public CudaDriver {
 public:
  explicit Driver(std::shared_ptr<const Api> api) : api_(std::move(api)) {}
  std::vector<CudaGpu> gpus() const override {
    std::vector<CudaGpu> out;
    int n = 0;
    if (api_->device_count(&n) != 0) return out;
    for (int i = 0; i < n; ++i) {
      CUdevice dev = 0;
      if (api_->device_get(&dev, i) != 0) continue;
      CudaGpu g;
      g.ordinal = i;
      char text[128] = {};
      if (api_->device_bus_id(text, sizeof text, dev) == 0) g.bus_id = normalized_bus_id(text);
      char name[256] = {};
      if (api_->device_name(name, sizeof name, dev) == 0) g.name = name;
      out.push_back(std::move(g));
    }
    return out;
  }
  Result<std::unique_ptr<CudaCopier>> copier(int ordinal, std::size_t bytes) override {
    CUdevice dev = 0;
    if (CUresult rc = api_->device_get(&dev, ordinal); rc != 0)
      return api_->error("cuDeviceGet " + std::to_string(ordinal), rc);
    CUcontext ctx = nullptr;
    if (CUresult rc = api_->ctx_create(&ctx, 0, dev); rc != 0)
      return api_->error("cuCtxCreate on GPU " + std::to_string(ordinal), rc);
    CUdeviceptr buffer = 0;
    if (CUresult rc = api_->mem_alloc(&buffer, bytes); rc != 0) {
      api_->ctx_destroy(ctx);
      return api_->error("cuMemAlloc of " + std::to_string(bytes) + " bytes", rc);
    }
    return std::unique_ptr<CudaCopier>(new Copier(api_, ctx, buffer, bytes));
  }

 private:
  std::shared_ptr<const Api> api_;
};

}  // namespace

Result<std::unique_ptr<CudaDriver>> CudaDriver::open() {
  auto api = std::make_shared<Api>();
  api->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) return Error::from_errno(ENOENT, "no CUDA driver (libcuda.so.1 not found)");
  Api& a = *api;
  const bool all =
      bind(a.lib, a.init, "cuInit") && bind(a.lib, a.device_count, "cuDeviceGetCount") &&
      bind(a.lib, a.device_get, "cuDeviceGet") && bind(a.lib, a.device_name, "cuDeviceGetName") &&
      bind(a.lib, a.device_bus_id, "cuDeviceGetPCIBusId") &&
      bind(a.lib, a.ctx_create, "cuCtxCreate_v2") &&
      bind(a.lib, a.ctx_destroy, "cuCtxDestroy_v2") &&
      bind(a.lib, a.ctx_set_current, "cuCtxSetCurrent") &&
      bind(a.lib, a.ctx_synchronize, "cuCtxSynchronize") &&
      bind(a.lib, a.mem_alloc, "cuMemAlloc_v2") && bind(a.lib, a.mem_free, "cuMemFree_v2") &&
      bind(a.lib, a.host_register, "cuMemHostRegister_v2") &&
      bind(a.lib, a.host_unregister, "cuMemHostUnregister") &&
      bind(a.lib, a.copy_to_device, "cuMemcpyHtoD_v2") &&
      bind(a.lib, a.copy_to_host, "cuMemcpyDtoH_v2");
  bind(a.lib, a.error_string, "cuGetErrorString");  // optional: messages fall back to numbers
  if (!all) {
    dlclose(a.lib);
    return Error::from_errno(ENOENT,
                             "libcuda.so.1 lacks a driver API call this bench needs (too old)");
  }
  // The library stays loaded for the process's life: a CUDA driver does not unload cleanly.
  if (CUresult rc = a.init(0); rc != 0) return a.error("cuInit", rc);
  return std::unique_ptr<CudaDriver>(new Driver(api));
}

}  // namespace threadmap::os
