/* Sanitizer runtime detection shared by both preload libraries (see tm_sanitizer.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tm_sanitizer.h"

#include <stddef.h>

/* Weak references, bound by the dynamic linker when the library loads (a sanitizer runtime is
 * always loaded before it: first on the link line or preloaded): the same answer as
 * dlsym(RTLD_DEFAULT, ...) without its cost at start-up (three failed lookups, and the error
 * text a failed dlsym allocates, which made every process start malloc). */
extern void __tsan_init(void) __attribute__((weak));
extern void __asan_init(void) __attribute__((weak));
extern void __msan_init(void) __attribute__((weak));

int tm__sanitizer_present(void) {
  return &__tsan_init != NULL || &__asan_init != NULL || &__msan_init != NULL;
}
