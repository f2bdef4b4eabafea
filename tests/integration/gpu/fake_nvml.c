/* A stand-in for NVIDIA's libnvidia-ml.so.1 with the NVML calls threadmap makes: two GPUs, the
 * second in MIG mode with two instances. Structures and signatures as nvml.h (CUDA 12) declares
 * them; the bus ids in NVML's own spelling (8-digit domain, upper case). */
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct {
  int gpu;
  int mig;
} FakeDevice;
typedef FakeDevice* nvmlDevice_t;
typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

static FakeDevice gpus[2] = {{0, -1}, {1, -1}};
static FakeDevice migs[2] = {{1, 0}, {1, 1}};

nvmlReturn_t nvmlInit_v2(void) { return 0; }
nvmlReturn_t nvmlShutdown(void) { return 0; }
const char* nvmlErrorString(nvmlReturn_t rc) { return rc ? "Unknown Error" : "Success"; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  *n = 2;
  return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) {
  if (i > 1) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *d = &gpus[i];
  return 0;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* info) {
  memset(info, 0, sizeof *info);
  snprintf(info->busId, sizeof info->busId, "00000000:%02X:00.0", d->gpu ? 0xB7 : 0x34);
  return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* text, unsigned len) {
  if (d->mig >= 0)
    snprintf(text, len, "MIG-7c1e0000-0000-4000-8000-00000000000%d", d->mig);
  else
    snprintf(text, len, "GPU-00000000-0000-4000-8000-00000000000%d", d->gpu);
  return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* text, unsigned len) {
  (void)d;
  snprintf(text, len, "Fake H100");
  return 0;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned* current, unsigned* pending) {
  if (d->gpu == 0) return 3; /* NVML_ERROR_NOT_SUPPORTED */
  *current = *pending = 1;
  return 0;
}
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned* n) {
  (void)d;
  *n = 7;
  return 0;
}
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned i, nvmlDevice_t* mig) {
  (void)d;
  if (i > 1) return 6; /* NVML_ERROR_NOT_FOUND: slot not populated */
  *mig = &migs[i];
  return 0;
}
