/* Sanitizer runtime detection shared by both preload libraries (see tm_sanitizer.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tm_sanitizer.h"

#include <dlfcn.h>
#include <stddef.h>

int tm__sanitizer_present(void) {
  static int present = -1;
  int v = __atomic_load_n(&present, __ATOMIC_RELAXED);
  if (v < 0) {
    v = dlsym(RTLD_DEFAULT, "__tsan_init") != NULL || dlsym(RTLD_DEFAULT, "__asan_init") != NULL ||
        dlsym(RTLD_DEFAULT, "__msan_init") != NULL;
    __atomic_store_n(&present, v, __ATOMIC_RELAXED);
  }
  return v;
}
