/* A stand-in for NVIDIA's libcuda.so.1 with the driver API calls `bench gpu-locality` makes:
 * one "GPU" whose memory is host memory, copies are memcpy. It lets the bench's dlopen path,
 * its variants and its output run end to end on a machine without a GPU. Signatures as cuda.h
 * (CUDA 12) declares them. */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef unsigned long long CUdeviceptr;

static int initialised;

CUresult cuInit(unsigned flags) {
  (void)flags;
  initialised = 1;
  return 0;
}
CUresult cuDeviceGetCount(int* n) {
  *n = initialised ? 1 : 0;
  return initialised ? 0 : 3; /* CUDA_ERROR_NOT_INITIALIZED */
}
CUresult cuDeviceGet(CUdevice* dev, int ordinal) {
  if (ordinal != 0) return 101; /* CUDA_ERROR_INVALID_DEVICE */
  *dev = 0;
  return 0;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  (void)dev;
  strncpy(name, "Fake GPU (host memory)", (size_t)len - 1);
  return 0;
}
CUresult cuDeviceGetPCIBusId(char* text, int len, CUdevice dev) {
  (void)dev;
  strncpy(text, "0000:9A:00.0", (size_t)len - 1); /* the driver's spelling: upper case */
  return 0;
}
CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned flags, CUdevice dev) {
  (void)flags;
  (void)dev;
  *ctx = malloc(1);
  return 0;
}
CUresult cuCtxDestroy_v2(CUcontext ctx) {
  free(ctx);
  return 0;
}
CUresult cuCtxSetCurrent(CUcontext ctx) {
  (void)ctx;
  return 0;
}
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  void* m = malloc(bytes);
  if (!m) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  *p = (CUdeviceptr)(size_t)m;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void*)(size_t)p);
  return 0;
}
CUresult cuMemHostRegister_v2(void* p, size_t bytes, unsigned flags) {
  (void)p;
  (void)bytes;
  (void)flags;
  return 0;
}
CUresult cuMemHostUnregister(void* p) {
  (void)p;
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  memcpy((void*)(size_t)dst, src, bytes);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, (const void*)(size_t)src, bytes);
  return 0;
}
CUresult cuGetErrorString(CUresult rc, const char** text) {
  *text = rc == 0 ? "no error" : "fake error";
  return 0;
}
